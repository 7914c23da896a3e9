/*
 * test_scope.c - owned scopes (which paths a pattern owns, which patterns
 * are refused and why), root-relative paths, the `.orchestration` guard,
 * and `.intentignore` files read the way git reads `.gitignore`.
 */
#include "support.h"

#include "roz/scope.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct match_case {
	const char *pattern;
	const char *path;
	bool fold;
	bool owned;
} match_case;

static void check_matches(const match_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const match_case *c = &cases[i];
		bool got = roz_scope_match(c->pattern, c->path, c->fold);
		if (got != c->owned)
			fail_msg("'%s' %s '%s'%s", c->pattern, c->owned ? "should own" : "should not own", c->path,
				 c->fold ? " (folding case)" : "");
	}
}

#define CHECK(cases) check_matches(cases, sizeof cases / sizeof cases[0])

/* ---- owned scopes -------------------------------------------------------- */

static void test_literal_and_anchored(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "src/middleware/jwt.ts", "src/middleware/jwt.ts", false, true },
		{ "src/middleware/jwt.ts", "src/middleware/jwt.tsx", false, false },
		{ "src/middleware/jwt.ts", "src/middleware/jwt.t", false, false },
		{ "src/middleware/jwt.ts", "lib/src/middleware/jwt.ts", false, false },
		{ "README.md", "README.md", false, true },
		{ "README.md", "docs/README.md", false, false },
		{ "src/a.c", "src/b.c", false, false },
	};
	CHECK(cases);
}

static void test_star_stops_at_slash(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "src/*.c", "src/a.c", false, true },
		{ "src/*.c", "src/.c", false, true },
		{ "src/*.c", "src/x/a.c", false, false },
		{ "src/*.c", "lib/src/a.c", false, false },
		{ "*.md", "README.md", false, true },
		{ "*.md", "docs/README.md", false, false },
		{ "src/*", "src/a.c", false, true },
		{ "src/*", "src/x/y/z.c", false, true }, /* `src/x` is owned, and so what is under it */
		{ "s*c/a.c", "src/a.c", false, true },
		{ "s*c/a.c", "s/x/c/a.c", false, false },
		{ "*", "anything", false, true },
		{ "a**b", "axxb", false, true }, /* `**` inside a component is `*` */
		{ "a**b/c", "ax/yb/c", false, false },
		/* several stars: a later star takes over the retrying */
		{ "*a*b", "xaxxb", false, true },
		{ "a*b*c.txt", "aXbYc.txt", false, true },
		{ "a*b*c.txt", "aXbY.txt", false, false },
		{ "*.*.bak", "x.y.z.bak", false, true },
	};
	CHECK(cases);
}

static void test_globstar_start_middle_end(void **state)
{
	(void)state;
	static const match_case cases[] = {
		/* at the start: any depth, the root included */
		{ "**/*.test.ts", "a.test.ts", false, true },
		{ "**/*.test.ts", "src/x/y/a.test.ts", false, true },
		{ "**/*.test.ts", "src/x/a.ts", false, false },
		{ "**/fixtures/x", "fixtures/x", false, true },
		{ "**/fixtures/x", "a/b/fixtures/x", false, true },
		/* in the middle: zero or more components */
		{ "src/**/test.c", "src/test.c", false, true },
		{ "src/**/test.c", "src/a/test.c", false, true },
		{ "src/**/test.c", "src/a/b/c/test.c", false, true },
		{ "src/**/test.c", "lib/a/test.c", false, false },
		{ "src/**/test.c", "src/a/test.h", false, false },
		{ "a/**/b/**/c", "a/b/c", false, true },
		{ "a/**/b/**/c", "a/x/b/y/z/c", false, true },
		{ "a/**/b/**/c", "a/x/y/c", false, false },
		/* retrying the latest `**` finds the later `b` */
		{ "a/**/b/c", "a/b/x/b/c", false, true },
		/* at the end: everything under it */
		{ "src/auth/**", "src/auth/middleware.ts", false, true },
		{ "src/auth/**", "src/auth/deep/er/x.ts", false, true },
		{ "src/auth/**", "src/authz/x.ts", false, false },
		{ "src/auth/**", "src/x.ts", false, false },
		{ "**", "x", false, true },
		{ "**", "a/b/c", false, true },
		{ "**/**", "a/b", false, true },
	};
	CHECK(cases);
}

/*
 * The choice written in roz/scope.h: `src/auth/` + `**` owns what is under
 * the directory, not a file written at `src/auth` itself; the scope
 * `src/auth` owns both.
 */
static void test_trailing_globstar_does_not_own_the_directory_name(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "src/auth/**", "src/auth", false, false },
		{ "src/auth/**/", "src/auth", false, false },
		{ "src/auth", "src/auth", false, true },
		{ "src/auth/", "src/auth", false, true },
		{ "**", "", false, false }, /* the root itself is owned by nothing */
	};
	CHECK(cases);
}

static void test_directory_patterns_own_what_is_under_them(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "src/auth", "src/auth/x/y.c", false, true },
		{ "src/auth/", "src/auth/x/y.c", false, true },
		{ "src/auth", "src/auth/y.c", false, true },
		{ "src/auth", "src/authz/y.c", false, false },
		{ "src/auth", "src/aut/y.c", false, false },
		{ "src/auth/", "src/authorize.c", false, false },
		{ "src/auth", "src", false, false },
		{ "src/a?th", "src/auth/x.c", false, true },
		{ "src/[a-b]uth", "src/auth/x.c", false, true },
		{ "docs", "docs/governance.md", false, true },
	};
	CHECK(cases);
}

static void test_question_mark(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "a?c", "abc", false, true },
		{ "a?c", "ac", false, false },
		{ "a?c", "abbc", false, false },
		{ "a?c", "a/c", false, false }, /* never a slash */
		{ "???", "abc", false, true },
		{ "???", "ab", false, false },
	};
	CHECK(cases);
}

static void test_sets(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "[abc].c", "a.c", false, true },
		{ "[abc].c", "d.c", false, false },
		{ "v[0-9].txt", "v7.txt", false, true },
		{ "v[0-9].txt", "vx.txt", false, false },
		{ "[a-cx-z]", "y", false, true },
		{ "[a-cx-z]", "m", false, false },
		{ "[]]", "]", false, true },       /* `]` first is a member */
		{ "[]a]", "a", false, true },
		{ "[a-]", "-", false, true },      /* `-` last is a member */
		{ "[\\]]", "]", false, true },     /* escaped in a set */
		{ "[\\-]", "-", false, true },
		{ "[*?]", "*", false, true },      /* specials are plain in a set */
		{ "[*?]", "x", false, false },
		{ "a[/]b", "a/b", false, false },  /* a set never takes `/` */
		{ "[z-a]", "m", false, false },    /* a reversed range is empty */
	};
	CHECK(cases);
}

static void test_negated_sets(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "[!abc].c", "d.c", false, true },
		{ "[!abc].c", "a.c", false, false },
		{ "[^abc].c", "d.c", false, true },
		{ "[^abc].c", "b.c", false, false },
		{ "[!0-9]x", "ax", false, true },
		{ "[!0-9]x", "5x", false, false },
		{ "a[!x]b", "a/b", false, false }, /* not even negated */
		{ "[!]]", "a", false, true },
		{ "[!]]", "]", false, false },
	};
	CHECK(cases);
}

static void test_escapes(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "\\*.c", "*.c", false, true },
		{ "\\*.c", "a.c", false, false },
		{ "a\\?", "a?", false, true },
		{ "a\\?", "ab", false, false },
		{ "\\[x]", "[x]", false, true },
		{ "\\[x]", "x", false, false },
		{ "\\\\", "\\", false, true },
		{ "\\a\\b", "ab", false, true },
		{ "\\*\\*/x", "**/x", false, true }, /* escaped stars are no globstar */
		{ "\\*\\*/x", "a/x", false, false },
		{ "a\\/b", "a/b", false, false },    /* an escaped `/` matches nothing */
	};
	CHECK(cases);
}

static void test_fold_case(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "src/Auth/**", "SRC/auth/X.ts", true, true },
		{ "src/Auth/**", "SRC/auth/X.ts", false, false },
		{ "src/auth", "Src/Auth/x", true, true },
		{ "[a-z].C", "Q.c", true, true },
		{ "[a-z].C", "Q.c", false, false },
		{ "[A-Z]", "q", true, true },
		{ "[!a-z]", "Q", true, false },
		{ "[!a-z]", "Q", false, true },
		{ "\\A", "a", true, true },
		/* only ASCII letters fold: bytes above 0x7f compare exactly */
		{ "\xc3\x89t\xc3\xa9", "\xc3\xa9t\xc3\xa9", true, false },
		{ "\xc3\x89t\xc3\xa9", "\xc3\x89T\xc3\xa9", true, true },
		{ "_", "\x7f", true, false },
	};
	CHECK(cases);
}

static void test_unnormalised_paths_are_owned_by_nothing(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "**", "", false, false },
		{ "**", "/etc/passwd", false, false },
		{ "src/**", "src//a.c", false, false },
		{ "src/**", "src/a.c/", false, false },
		{ "src/**", "src/./a.c", false, false },
		{ "src/**", "src/../etc/passwd", false, false },
		{ "*", "..", false, false },
		{ "*", ".", false, false },
		{ "src/**", "src/.hidden", false, true }, /* a dot name is a name */
	};
	CHECK(cases);
	assert_false(roz_scope_match(NULL, "a", false));
	assert_false(roz_scope_match("a", NULL, false));
}

static void test_invalid_patterns_own_nothing(void **state)
{
	(void)state;
	static const match_case cases[] = {
		{ "", "a", false, false },
		{ "/src/**", "src/a.c", false, false },
		{ "../**", "a", false, false },
		{ "src/[ab", "src/[ab", false, false },
		{ "src\\", "src\\", false, false },
		{ "./src", "src/a", false, false },
	};
	CHECK(cases);
}

static void test_match_any(void **state)
{
	(void)state;
	char *scope[] = { "src/auth/**", "src/middleware/jwt.ts", NULL };
	assert_true(roz_scope_match_any(scope, 3, "src/auth/login.ts", false));
	assert_true(roz_scope_match_any(scope, 3, "src/middleware/jwt.ts", false));
	assert_false(roz_scope_match_any(scope, 3, "src/middleware/cors.ts", false));
	assert_false(roz_scope_match_any(scope, 0, "src/auth/login.ts", false));
	assert_false(roz_scope_match_any(NULL, 3, "src/auth/login.ts", false));
}

typedef struct check_case {
	const char *pattern;
	const char *why; /* a word the reason must hold; NULL: valid */
} check_case;

static void test_pattern_check(void **state)
{
	(void)state;
	static const check_case cases[] = {
		{ "src/auth/**", NULL },
		{ "src/middleware/jwt.ts", NULL },
		{ "src/auth/", NULL },
		{ "**", NULL },
		{ "[]]", NULL },
		{ "a\\[", NULL },
		{ "..x/a..", NULL },            /* dots inside a name are fine */
		{ "src/\\..", NULL },           /* a literal, not a way up */
		{ "caf\xc3\xa9", NULL },
		{ "", "empty" },
		{ "/src/**", "absolute" },
		{ "/", "absolute" },
		{ "..", "leaves" },
		{ "../x", "leaves" },
		{ "src/../../etc", "leaves" },
		{ "src/..", "leaves" },
		{ "src/[ab", "never closed" },
		{ "[", "never closed" },
		{ "[]", "never closed" },
		{ "[!]", "never closed" },
		{ "[a\\]", "never closed" },
		{ "src\\", "lone" },
		{ "a\\\\\\", "lone" },
		{ "a\tb", "control" },
		{ "a\nb", "control" },
		{ "a\rb", "control" },
		{ "a\x1b", "control" },
		{ "a\x7f", "control" },
		{ "./src", "`.` component" },
		{ "src/./a", "`.` component" },
		{ "src//a", "empty component" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *why = "unset";
		bool ok = roz_scope_pattern_check(cases[i].pattern, &why);
		if (!cases[i].why) {
			if (!ok)
				fail_msg("'%s' should be valid, got: %s", cases[i].pattern, why);
			assert_null(why);
			continue;
		}
		if (ok)
			fail_msg("'%s' should be refused (%s)", cases[i].pattern, cases[i].why);
		if (!why || !strstr(why, cases[i].why))
			fail_msg("'%s': reason '%s' does not say '%s'", cases[i].pattern, why ? why : "(null)",
				 cases[i].why);
	}
	/* NULL pattern and NULL reason pointer are both fine */
	const char *why = NULL;
	assert_false(roz_scope_pattern_check(NULL, &why));
	assert_non_null(why);
	assert_false(roz_scope_pattern_check("/x", NULL));
	assert_true(roz_scope_pattern_check("x", NULL));
}

/* ---- linear time --------------------------------------------------------- */

static char *repeat(const char *unit, size_t times, const char *tail)
{
	size_t ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(ul * times + tl + 1);
	assert_non_null(s);
	for (size_t i = 0; i < times; i++)
		memcpy(s + i * ul, unit, ul);
	memcpy(s + ul * times, tail, tl + 1);
	return s;
}

/*
 * Patterns that make a backtracking matcher try every way to split the
 * path. Exponential matching would not finish these in the age of the
 * universe; the test finishing under ctest's timeout is the check.
 */
static void test_hostile_patterns_finish(void **state)
{
	(void)state;
	/* `**` / `**` / ... / b against a/a/.../a: 60 globstars, 2000 components */
	char *pat = repeat("**/", 60, "b");
	char *path = repeat("a/", 2000, "a");
	assert_false(roz_scope_match(pat, path, false));
	free(path);
	path = repeat("a/", 2000, "b");
	assert_true(roz_scope_match(pat, path, false));
	free(path);
	free(pat);

	/* `**` / a / `**` / a / ... / c against a/a/.../a/b */
	pat = repeat("**/a/", 40, "c");
	path = repeat("a/", 3000, "b");
	assert_false(roz_scope_match(pat, path, true));
	free(path);
	free(pat);

	/* *a*a*a...*b against aaaa...a within one component */
	pat = repeat("*a", 200, "*b");
	path = repeat("a", 20000, "");
	assert_false(roz_scope_match(pat, path, false));
	free(path);
	path = repeat("a", 20000, "b");
	assert_true(roz_scope_match(pat, path, false));
	free(path);
	free(pat);

	/* and both at once, through an ignore file */
	char *line = repeat("**/*a*a*a*a*a*a*a*a/", 30, "*b\n");
	roz_ignore ig = { NULL, 0 };
	assert_int_equal(roz_ignore_parse(line, strlen(line), &ig, NULL), ROZ_OK);
	assert_int_equal(ig.n, 1);
	path = repeat("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/", 400, "aaaa");
	assert_false(roz_ignore_match(&ig, path, false));
	free(path);
	roz_ignore_dispose(&ig);
	free(line);
}

/*
 * The matcher against a plain recursive one, which tries every way to
 * split the path among the `**`s and uses fnmatch(3) for one component:
 * slow, but obviously right. Small random patterns and paths, many times.
 */
#define MAX_COMPONENTS 16

static size_t split(char *s, char **out)
{
	size_t n = 0;
	for (char *tok = s;; tok++) {
		char *slash = strchr(tok, '/');
		out[n++] = tok;
		if (!slash)
			return n;
		*slash = '\0';
		tok = slash;
	}
}

static bool reference(char **pat, size_t np, char **path, size_t nx, bool fold)
{
	if (np == 0)
		return true; /* owned scopes own what is under what they name */
	if (strcmp(pat[0], "**") == 0) {
		if (np == 1)
			return nx >= 1;
		for (size_t k = 0; k <= nx; k++)
			if (reference(pat + 1, np - 1, path + k, nx - k, fold))
				return true;
		return false;
	}
	if (nx == 0 || fnmatch(pat[0], path[0], fold ? FNM_CASEFOLD : 0) != 0)
		return false;
	return reference(pat + 1, np - 1, path + 1, nx - 1, fold);
}

static unsigned long rng_state = 12345;

static size_t rnd(size_t n)
{
	rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
	return (size_t)(rng_state >> 33) % n;
}

static void test_agrees_with_a_reference_matcher(void **state)
{
	(void)state;
	static const char *const tokens[] = { "a", "b", "A", "*", "?", "[ab]", "[!a]", "\\*", "/", "**/", "/**" };
	static const char path_chars[] = "abA*";
	size_t compared = 0;

	for (int iter = 0; iter < 30000; iter++) {
		char pattern[128] = "", path[64] = "";
		size_t nt = 1 + rnd(8);
		for (size_t i = 0; i < nt; i++)
			strcat(pattern, tokens[rnd(sizeof tokens / sizeof tokens[0])]);
		size_t nc = 1 + rnd(5);
		for (size_t c = 0; c < nc; c++) {
			if (c)
				strcat(path, "/");
			size_t len = 1 + rnd(5);
			for (size_t k = 0; k < len; k++)
				strncat(path, &path_chars[rnd(sizeof path_chars - 1)], 1);
		}
		bool fold = rnd(2) == 1;
		bool got = roz_scope_match(pattern, path, fold);
		if (!roz_scope_pattern_check(pattern, NULL)) {
			assert_false(got);
			continue;
		}
		char pcopy[128], xcopy[64];
		char *pc[MAX_COMPONENTS * 4], *xc[MAX_COMPONENTS];
		strcpy(pcopy, pattern);
		strcpy(xcopy, path);
		size_t np = split(pcopy, pc), nx = split(xcopy, xc);
		if (np > 0 && pc[np - 1][0] == '\0')
			np--; /* a trailing `/` names the directory */
		bool want = reference(pc, np, xc, nx, fold);
		if (got != want)
			fail_msg("'%s' vs '%s'%s: got %d, the reference says %d", pattern, path,
				 fold ? " (folding case)" : "", got, want);
		compared++;
	}
	assert_true(compared > 10000);
}

/* Random bytes as patterns, paths and ignore files: no crash, no overread. */
static void test_random_bytes(void **state)
{
	(void)state;
	static const char alphabet[] = "ab*?[]!^-\\/.#\r\n \t\x01\xff";
	for (int iter = 0; iter < 5000; iter++) {
		char text[48];
		size_t len = rnd(sizeof text);
		for (size_t i = 0; i < len; i++)
			text[i] = alphabet[rnd(sizeof alphabet)]; /* the NUL included */
		char pattern[48];
		memcpy(pattern, text, len);
		pattern[len] = '\0';
		const char *why = NULL;
		(void)roz_scope_pattern_check(pattern, &why);
		(void)roz_scope_match(pattern, "a/b*/c", rnd(2) == 1);
		(void)roz_scope_match("a/**/*", pattern, false);
		(void)roz_scope_is_orchestration(pattern, true);

		roz_ignore ig = { NULL, 0 };
		size_t skipped = 0;
		assert_int_equal(roz_ignore_parse(text, len, &ig, &skipped), ROZ_OK);
		for (size_t i = 0; i < ig.n; i++) {
			assert_true(roz_scope_pattern_check(ig.rules[i].pattern, NULL));
			assert_true(ig.rules[i].line >= 1);
		}
		(void)roz_ignore_match(&ig, "a/b/c", false);
		(void)roz_ignore_match(&ig, pattern, true);
		roz_ignore_dispose(&ig);
	}
}

/* ---- relative paths and .orchestration ----------------------------------- */

typedef struct rel_case {
	const char *root;
	const char *abs;
	bool fold;
	int rc;
	const char *rel;
} rel_case;

static void test_relpath(void **state)
{
	(void)state;
	static const rel_case cases[] = {
		{ "/work/repo", "/work/repo", false, ROZ_OK, "" },
		{ "/work/repo", "/work/repo/src/a.c", false, ROZ_OK, "src/a.c" },
		{ "/work/repo", "/work/repo/a", false, ROZ_OK, "a" },
		{ "/work/repo", "/work/other/a", false, ROZ_ENOTFOUND, NULL },
		{ "/work/repo", "/work", false, ROZ_ENOTFOUND, NULL },
		{ "/work/repo", "/etc/passwd", false, ROZ_ENOTFOUND, NULL },
		/* the prefix trick: /a/bc begins with /a/b but is not in it */
		{ "/a/b", "/a/bc", false, ROZ_ENOTFOUND, NULL },
		{ "/a/b", "/a/bc/d", false, ROZ_ENOTFOUND, NULL },
		{ "/a/b", "/a/b/c", false, ROZ_OK, "c" },
		/* case: only when the file system ignores it */
		{ "/Users/Me/Repo", "/users/me/repo/Src/A.c", true, ROZ_OK, "Src/A.c" },
		{ "/Users/Me/Repo", "/users/me/repo/Src/A.c", false, ROZ_ENOTFOUND, NULL },
		{ "/Users/Me/Repo", "/USERS/ME/REPO", true, ROZ_OK, "" },
		{ "/Users/Me/Repo", "/users/me/repox/a", true, ROZ_ENOTFOUND, NULL },
		/* the file system root holds everything */
		{ "/", "/etc/passwd", false, ROZ_OK, "etc/passwd" },
		{ "/", "/", false, ROZ_OK, "" },
		/* a trailing slash on the root is tolerated */
		{ "/a/b/", "/a/b/c", false, ROZ_OK, "c" },
		/* not absolute */
		{ "a/b", "/a/b/c", false, ROZ_EINVALID, NULL },
		{ "/a/b", "a/b/c", false, ROZ_EINVALID, NULL },
		{ "/a/b", "", false, ROZ_EINVALID, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const rel_case *c = &cases[i];
		char *rel = (char *)"untouched";
		int rc = roz_scope_relpath(c->root, c->abs, c->fold, &rel);
		if (rc != c->rc)
			fail_msg("relpath(%s, %s): %d, expected %d", c->root, c->abs, rc, c->rc);
		if (c->rel) {
			assert_non_null(rel);
			if (strcmp(rel, c->rel) != 0)
				fail_msg("relpath(%s, %s) = '%s', expected '%s'", c->root, c->abs, rel, c->rel);
			roz_free(rel);
		} else {
			assert_null(rel);
		}
	}
	char *rel = NULL;
	assert_int_equal(roz_scope_relpath(NULL, "/a", false, &rel), ROZ_EINVALID);
	assert_int_equal(roz_scope_relpath("/a", NULL, false, &rel), ROZ_EINVALID);
	assert_int_equal(roz_scope_relpath("/a", "/a", false, NULL), ROZ_EINVALID);
	assert_int_equal(roz_scope_relpath("/a/b", "/a/bc", false, &rel), ROZ_ENOTFOUND);
	assert_non_null(strstr(roz_error_last(), "/a/bc"));
}

static void test_relpath_out_of_memory(void **state)
{
	(void)state;
	char *rel = (char *)"untouched";
	roz_alloc_fail_after(0);
	int rc = roz_scope_relpath("/a", "/a/b", false, &rel);
	roz_alloc_fail_after(-1);
	assert_int_equal(rc, ROZ_ENOMEM);
	assert_null(rel);
}

static void test_is_orchestration(void **state)
{
	(void)state;
	assert_true(roz_scope_is_orchestration(".orchestration", false));
	assert_true(roz_scope_is_orchestration(".orchestration/active_intents.yaml", false));
	assert_true(roz_scope_is_orchestration(".orchestration/a/b", false));
	assert_false(roz_scope_is_orchestration(".orchestrations/x", false));
	assert_false(roz_scope_is_orchestration(".orchestratio", false));
	assert_false(roz_scope_is_orchestration("orchestration/x", false));
	assert_false(roz_scope_is_orchestration("src/.orchestration/x", false));
	assert_false(roz_scope_is_orchestration("", false));
	assert_false(roz_scope_is_orchestration(NULL, false));
	assert_false(roz_scope_is_orchestration(".Orchestration/active_intents.yaml", false));
	assert_true(roz_scope_is_orchestration(".Orchestration/active_intents.yaml", true));
	assert_true(roz_scope_is_orchestration(".ORCHESTRATION", true));
}

/* ---- ignore files -------------------------------------------------------- */

typedef struct ignore_case {
	const char *path;
	bool ignored;
} ignore_case;

static void check_ignore(const char *text, size_t expect_skipped, bool fold, const ignore_case *cases,
			 size_t n)
{
	roz_ignore ig = { NULL, 0 };
	size_t skipped = 99;
	assert_int_equal(roz_ignore_parse(text, strlen(text), &ig, &skipped), ROZ_OK);
	if (skipped != expect_skipped)
		fail_msg("skipped %zu lines of %s, expected %zu", skipped, text, expect_skipped);
	for (size_t i = 0; i < n; i++) {
		if (roz_ignore_match(&ig, cases[i].path, fold) != cases[i].ignored)
			fail_msg("'%s' should %sbe ignored by:\n%s", cases[i].path, cases[i].ignored ? "" : "not ",
				 text);
	}
	roz_ignore_dispose(&ig);
	assert_null(ig.rules);
	assert_int_equal(ig.n, 0);
}

#define CHECK_IGNORE(text, skipped, fold, cases)                                                       \
	check_ignore(text, skipped, fold, cases, sizeof cases / sizeof cases[0])

static void test_ignore_comments_and_blank_lines(void **state)
{
	(void)state;
	const char *text = "# generated files\n"
			   "\n"
			   "   \n"
			   "*.o\n"
			   "  # not a comment: a name starting with spaces\n";
	static const ignore_case cases[] = {
		{ "a.o", true },
		{ "src/x/a.o", true },
		{ "# generated files", false },
		{ "a.c", false },
	};
	CHECK_IGNORE(text, 0, false, cases);

	roz_ignore ig = { NULL, 0 };
	assert_int_equal(roz_ignore_parse(text, strlen(text), &ig, NULL), ROZ_OK);
	assert_int_equal(ig.n, 2);
	assert_string_equal(ig.rules[0].pattern, "*.o");
	assert_int_equal(ig.rules[0].line, 4);
	assert_int_equal(ig.rules[1].line, 5);
	roz_ignore_dispose(&ig);
}

static void test_ignore_rule_fields(void **state)
{
	(void)state;
	const char *text = "!/build/out/\nlogs\n";
	roz_ignore ig = { NULL, 0 };
	assert_int_equal(roz_ignore_parse(text, strlen(text), &ig, NULL), ROZ_OK);
	assert_int_equal(ig.n, 2);
	assert_string_equal(ig.rules[0].pattern, "build/out");
	assert_true(ig.rules[0].negate);
	assert_true(ig.rules[0].anchored);
	assert_true(ig.rules[0].dir_only);
	assert_int_equal(ig.rules[0].line, 1);
	assert_string_equal(ig.rules[1].pattern, "logs");
	assert_false(ig.rules[1].negate);
	assert_false(ig.rules[1].anchored);
	assert_false(ig.rules[1].dir_only);
	assert_int_equal(ig.rules[1].line, 2);
	roz_ignore_dispose(&ig);
	roz_ignore_dispose(&ig); /* twice is harmless */
	roz_ignore_dispose(NULL);
}

static void test_ignore_negation_last_wins(void **state)
{
	(void)state;
	static const ignore_case later_negation[] = {
		{ "debug.log", true },
		{ "important.log", false },
		{ "x/important.log", false },
	};
	CHECK_IGNORE("*.log\n!important.log\n", 0, false, later_negation);

	static const ignore_case earlier_negation[] = {
		{ "debug.log", true },
		{ "important.log", true },
	};
	CHECK_IGNORE("!important.log\n*.log\n", 0, false, earlier_negation);

	static const ignore_case back_and_forth[] = {
		{ "a.tmp", true },
		{ "b.tmp", false },
	};
	CHECK_IGNORE("*.tmp\n!*.tmp\n*.tmp\n!b.tmp\n", 0, false, back_and_forth);

	/* a negation with nothing before it changes nothing */
	static const ignore_case lone[] = { { "a.c", false } };
	CHECK_IGNORE("!a.c\n", 0, false, lone);
}

static void test_ignore_leading_slash_anchors(void **state)
{
	(void)state;
	static const ignore_case cases[] = {
		{ "TODO", true },
		{ "docs/TODO", false },
		{ "config.yaml", true },
		{ "sub/config.yaml", false },
	};
	CHECK_IGNORE("/TODO\n/config.*\n", 0, false, cases);
}

static void test_ignore_inner_slash_anchors(void **state)
{
	(void)state;
	static const ignore_case cases[] = {
		{ "doc/frotz/x", true },
		{ "a/doc/frotz/x", false },
		{ "docs/gen.md", true },
		{ "docs/sub/gen.md", false },
		{ "x/docs/gen.md", false },
		{ "a/b/c/deep.txt", true },
		{ "deep.txt", true },
		{ "a/deep.txt", true },
	};
	CHECK_IGNORE("doc/frotz/\ndocs/*.md\n**/deep.txt\n", 0, false, cases);
}

static void test_ignore_unanchored_any_depth(void **state)
{
	(void)state;
	static const ignore_case cases[] = {
		{ "app.log", true },
		{ "var/x/y/app.log", true },
		{ "app.log.txt", false },
		{ "logs", false },
		/* a directory whose name matches takes what is under it */
		{ "weird.log/inside.c", true },
		{ "cache", true },
		{ "a/cache", true },
		{ "a/cache/b/c", true },
		{ "cachex", false },
	};
	CHECK_IGNORE("*.log\ncache\n", 0, false, cases);
}

static void test_ignore_dir_only(void **state)
{
	(void)state;
	static const ignore_case cases[] = {
		{ "build/x/y.o", true },
		{ "build/a", true },
		{ "src/build/a", true }, /* no inner slash: any depth */
		{ "build", false },      /* a file named build */
		{ "src/build", false },
		{ "builder/a", false },
	};
	CHECK_IGNORE("build/\n", 0, false, cases);

	static const ignore_case anchored[] = {
		{ "out/a", true },
		{ "src/out/a", false },
		{ "out", false },
	};
	CHECK_IGNORE("/out/\n", 0, false, anchored);
}

static void test_ignore_parent_directory(void **state)
{
	(void)state;
	/* git cannot take back a file whose directory is ignored */
	static const ignore_case cases[] = {
		{ "vendor/lib/a.c", true },
		{ "vendor/keep.c", true },
		{ "src/a.c", false },
	};
	CHECK_IGNORE("vendor\n!vendor/keep.c\n", 0, false, cases);

	/* but the directory itself can be taken back */
	static const ignore_case retaken[] = {
		{ "vendor/lib/a.c", false },
		{ "vendor/junk/a.c", true },
	};
	CHECK_IGNORE("vendor/\n!vendor/\nvendor/junk/\n", 0, false, retaken);

	/* `dir/` + `**` ignores what is under it, and `!` can pick files back */
	static const ignore_case contents[] = {
		{ "gen/a.c", true },
		{ "gen/x/y.c", true },
		{ "gen/keep.c", false },
	};
	CHECK_IGNORE("gen/**\n!gen/keep.c\n", 0, false, contents);
}

static void test_ignore_escapes(void **state)
{
	(void)state;
	static const ignore_case cases[] = {
		{ "#file", true },
		{ "!x", true },
		{ "x", false },
		{ "file", false },
		{ "trailing ", true },
		{ "trailing", false },
	};
	CHECK_IGNORE("\\#file\n\\!x\ntrailing\\ \n", 0, false, cases);

	roz_ignore ig = { NULL, 0 };
	const char *text = "\\#file\n\\!x\n";
	assert_int_equal(roz_ignore_parse(text, strlen(text), &ig, NULL), ROZ_OK);
	assert_int_equal(ig.n, 2);
	assert_false(ig.rules[0].negate);
	assert_false(ig.rules[1].negate);
	roz_ignore_dispose(&ig);

	/* unescaped trailing spaces are dropped */
	static const ignore_case spaces[] = {
		{ "notes.txt", true },
		{ "notes.txt  ", false },
	};
	CHECK_IGNORE("notes.txt  \n", 0, false, spaces);
}

static void test_ignore_crlf(void **state)
{
	(void)state;
	static const ignore_case cases[] = {
		{ "a.log", true },
		{ "dist/x.js", true },
		{ "dist", false },
		{ "keep.log", false },
	};
	CHECK_IGNORE("# windows\r\n*.log\r\ndist/\r\n!keep.log\r\n\r\n", 0, false, cases);

	roz_ignore ig = { NULL, 0 };
	const char *text = "dist/\r\n";
	assert_int_equal(roz_ignore_parse(text, strlen(text), &ig, NULL), ROZ_OK);
	assert_int_equal(ig.n, 1);
	assert_string_equal(ig.rules[0].pattern, "dist");
	assert_true(ig.rules[0].dir_only);
	roz_ignore_dispose(&ig);
}

static void test_ignore_skips_invalid_lines(void **state)
{
	(void)state;
	const char *text = "good.txt\n"
			   "[unclosed\n"
			   "!\n"
			   "/\n"
			   "../outside\n"
			   "bad\\\n"
			   "a\tb\n"
			   "//double\n"
			   "also-good/\n";
	static const ignore_case cases[] = {
		{ "good.txt", true },
		{ "also-good/x", true },
		{ "[unclosed", false },
		{ "a\tb", false },
	};
	CHECK_IGNORE(text, 7, false, cases);

	roz_ignore ig = { NULL, 0 };
	assert_int_equal(roz_ignore_parse(text, strlen(text), &ig, NULL), ROZ_OK);
	assert_int_equal(ig.n, 2);
	assert_int_equal(ig.rules[1].line, 9); /* line numbers count the skipped lines */
	roz_ignore_dispose(&ig);

	/* a NUL inside a line skips that line only */
	static const char with_nul[] = "a\0b\nc\n";
	size_t skipped = 0;
	assert_int_equal(roz_ignore_parse(with_nul, sizeof with_nul - 1, &ig, &skipped), ROZ_OK);
	assert_int_equal(skipped, 1);
	assert_int_equal(ig.n, 1);
	assert_string_equal(ig.rules[0].pattern, "c");
	assert_int_equal(ig.rules[0].line, 2);
	roz_ignore_dispose(&ig);
}

static void test_ignore_the_seeds_file(void **state)
{
	(void)state;
	/* what a repository puts in .orchestration/.intentignore */
	const char *text = "# outside intent governance\n"
			   "node_modules/\n"
			   "*.lock\n"
			   "dist/\n"
			   "coverage/\n"
			   "*.min.js\n";
	static const ignore_case cases[] = {
		{ "node_modules/left-pad/index.js", true },
		{ "packages/web/node_modules/x/y.js", true },
		{ "yarn.lock", true },
		{ "Cargo.lock", true },
		{ "sub/poetry.lock", true },
		{ "dist/bundle.js", true },
		{ "web/dist/a.css", true },
		{ "coverage/lcov.info", true },
		{ "public/app.min.js", true },
		{ "src/auth/login.ts", false },
		{ "src/lock.ts", false },
		{ "distribution/a", false },
		{ "dist", false },
		{ "package.json", false },
	};
	CHECK_IGNORE(text, 0, false, cases);
}

static void test_ignore_fold_case(void **state)
{
	(void)state;
	static const ignore_case folded[] = {
		{ "Node_Modules/x.js", true },
		{ "YARN.LOCK", true },
	};
	CHECK_IGNORE("node_modules/\n*.lock\n", 0, true, folded);
	static const ignore_case exact[] = {
		{ "Node_Modules/x.js", false },
		{ "YARN.LOCK", false },
		{ "node_modules/x.js", true },
	};
	CHECK_IGNORE("node_modules/\n*.lock\n", 0, false, exact);
}

static void test_ignore_edges(void **state)
{
	(void)state;
	roz_ignore ig = { NULL, 0 };
	size_t skipped = 7;

	/* empty text, NULL text: no rules, nothing ignored */
	assert_int_equal(roz_ignore_parse("", 0, &ig, &skipped), ROZ_OK);
	assert_int_equal(ig.n, 0);
	assert_int_equal(skipped, 0);
	assert_false(roz_ignore_match(&ig, "a", false));
	assert_int_equal(roz_ignore_parse(NULL, 10, &ig, NULL), ROZ_OK);
	assert_int_equal(ig.n, 0);
	assert_int_equal(roz_ignore_parse("a", 1, NULL, NULL), ROZ_EINVALID);

	/* a last line without a newline counts; only len bytes are read */
	assert_int_equal(roz_ignore_parse("a.c\nb.c", 7, &ig, NULL), ROZ_OK);
	assert_int_equal(ig.n, 2);
	assert_true(roz_ignore_match(&ig, "b.c", false));
	roz_ignore_dispose(&ig);
	assert_int_equal(roz_ignore_parse("a.c\nb.cXXX", 7, &ig, NULL), ROZ_OK);
	assert_true(roz_ignore_match(&ig, "b.c", false));
	roz_ignore_dispose(&ig);

	/* unnormalised paths are never ignored: governance judges them */
	assert_int_equal(roz_ignore_parse("*\n", 2, &ig, NULL), ROZ_OK);
	assert_true(roz_ignore_match(&ig, "a/b", false));
	assert_false(roz_ignore_match(&ig, "", false));
	assert_false(roz_ignore_match(&ig, "/a", false));
	assert_false(roz_ignore_match(&ig, "a//b", false));
	assert_false(roz_ignore_match(&ig, "a/../b", false));
	assert_false(roz_ignore_match(&ig, NULL, false));
	assert_false(roz_ignore_match(NULL, "a", false));
	roz_ignore_dispose(&ig);
}

static void test_ignore_out_of_memory(void **state)
{
	(void)state;
	const char *text = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n";
	/* every allocation in turn fails: a clean error, nothing leaked */
	for (long n = 0;; n++) {
		roz_ignore ig = { NULL, 0 };
		roz_alloc_fail_after(n);
		int rc = roz_ignore_parse(text, strlen(text), &ig, NULL);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK) {
			assert_int_equal(ig.n, 11);
			roz_ignore_dispose(&ig);
			assert_true(n > 0);
			break;
		}
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_null(ig.rules);
		assert_int_equal(ig.n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literal_and_anchored),
		cmocka_unit_test(test_star_stops_at_slash),
		cmocka_unit_test(test_globstar_start_middle_end),
		cmocka_unit_test(test_trailing_globstar_does_not_own_the_directory_name),
		cmocka_unit_test(test_directory_patterns_own_what_is_under_them),
		cmocka_unit_test(test_question_mark),
		cmocka_unit_test(test_sets),
		cmocka_unit_test(test_negated_sets),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_fold_case),
		cmocka_unit_test(test_unnormalised_paths_are_owned_by_nothing),
		cmocka_unit_test(test_invalid_patterns_own_nothing),
		cmocka_unit_test(test_match_any),
		cmocka_unit_test(test_pattern_check),
		cmocka_unit_test(test_hostile_patterns_finish),
		cmocka_unit_test(test_agrees_with_a_reference_matcher),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_relpath),
		cmocka_unit_test(test_relpath_out_of_memory),
		cmocka_unit_test(test_is_orchestration),
		cmocka_unit_test(test_ignore_comments_and_blank_lines),
		cmocka_unit_test(test_ignore_rule_fields),
		cmocka_unit_test(test_ignore_negation_last_wins),
		cmocka_unit_test(test_ignore_leading_slash_anchors),
		cmocka_unit_test(test_ignore_inner_slash_anchors),
		cmocka_unit_test(test_ignore_unanchored_any_depth),
		cmocka_unit_test(test_ignore_dir_only),
		cmocka_unit_test(test_ignore_parent_directory),
		cmocka_unit_test(test_ignore_escapes),
		cmocka_unit_test(test_ignore_crlf),
		cmocka_unit_test(test_ignore_skips_invalid_lines),
		cmocka_unit_test(test_ignore_the_seeds_file),
		cmocka_unit_test(test_ignore_fold_case),
		cmocka_unit_test(test_ignore_edges),
		cmocka_unit_test(test_ignore_out_of_memory),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
