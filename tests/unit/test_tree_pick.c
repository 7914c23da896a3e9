/*
 * test_tree_pick.c - a walk of picked paths (roz_tree_opts.only) and the
 * patch that brings an earlier snapshot up to date with it
 * (roz_tree_patch), on real directories: what a picked walk lists and
 * skips, its order, that it stats nothing but the picks and the
 * directories on their way, and, over random trees changed at random,
 * that a whole walk patched with a walk of what changed equals a whole
 * walk made after the change.
 */
#include "support.h"
#include "trees.h"

#include "roz/tree.h"
#include "roz/tree_diff.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The walk is linked into this program, so an fstatat or openat defined
 * here is the one it calls: counting the calls shows what a picked walk
 * stats and opens. Only where glibc exports fstatat as a function (2.33
 * on) and the system call fills the same struct stat.
 */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)) && \
	defined(SYS_newfstatat) && defined(SYS_openat) && (defined(__x86_64__) || defined(__aarch64__))
#define COUNT_CALLS 1
static long stat_calls, open_calls;

int fstatat(int fd, const char *path, struct stat *st, int flags)
{
	stat_calls++;
	return (int)syscall(SYS_newfstatat, fd, path, st, flags);
}

int openat(int fd, const char *path, int flags, ...)
{
	unsigned mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, unsigned);
		va_end(ap);
	}
	open_calls++;
	return (int)syscall(SYS_openat, fd, path, flags, mode);
}
#endif



static void walk_picks(const char *root, const roz_tree_pick *picks, size_t n, roz_tree *t)
{
	roz_tree_opts o = {0, NULL, false, picks, n};

	t_tree_walk(root, &o, t);
}


static void assert_picks_list(const char *root, const roz_tree_pick *picks, size_t n, const char *want)
{
	roz_tree t;
	char *got;

	walk_picks(root, picks, n, &t);
	got = t_tree_listing(&t);
	assert_string_equal(got, want);
	assert_false(t.truncated);
	free(got);
	roz_tree_dispose(&t);
}


static void assert_same_entries(const roz_tree *a, const roz_tree *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->truncated, b->truncated);
	for (size_t i = 0; i < a->n; i++)
		t_assert_same_entry(&a->items[i], &b->items[i]);
}

/* ---- what a picked walk lists ------------------------------------------- */

static void a_picked_file_lists_it_and_its_directories(void **state)
{
	const char *d = *state;
	roz_tree_pick p[] = {{"src/lib/a.c", false}};

	t_put(d, "src/lib/a.c", "a");
	t_put(d, "src/lib/b.c", "b");
	t_put(d, "src/main.c", "m");
	t_put(d, "README", "r");
	assert_picks_list(d, p, 1, "src\nsrc/lib\nsrc/lib/a.c\n");
}

static void the_fields_are_the_whole_walks(void **state)
{
	const char *d = *state;
	roz_tree_pick p[] = {{"a", true}, {"x/y", false}};
	roz_tree whole, part;

	t_put(d, "a/b/c", "abc");
	t_put(d, "x/y", "xy");
	t_put(d, "x/z", "xz");
	{
		char *ln = t_at(d, "a/ln");

		assert_int_equal(symlink("b", ln), 0);
		free(ln);
	}
	t_tree_walk(d, NULL, &whole);
	walk_picks(d, p, 2, &part);
	/* a, a/b, a/b/c, a/ln, x, x/y */
	assert_int_equal(part.n, 6);
	assert_int_equal(part.dev, whole.dev);
	for (size_t i = 0; i < part.n; i++) {
		const roz_tree_entry *e = roz_tree_find(&whole, part.items[i].path);

		assert_non_null(e);
		t_assert_same_entry(&part.items[i], e);
	}
	roz_tree_dispose(&whole);
	roz_tree_dispose(&part);
}

static void ignored_picks_are_not_listed(void **state)
{
	const char *d = *state;
	roz_tree_pick p[] = {
		{".git", true},       {".git/HEAD", false}, {".git/info/exclude", false},
		{"build", false},     {"build/out.o", false}, {"keep.c", false},
		{"local", false},     {"sub/.git", false},  {"sub/x.log", false},
		{"sub/y", false},     {"x.log", false},
	};

	t_put(d, ".gitignore", "*.log\nbuild/\n");
	t_put(d, ".git/HEAD", "ref: refs/heads/main\n");
	t_put(d, ".git/info/exclude", "local\n");
	t_put(d, "build/out.o", "");
	t_put(d, "keep.c", "");
	t_put(d, "local", "");
	t_put(d, "sub/.git", "gitdir: ../.git/modules/sub\n");
	t_put(d, "sub/x.log", "");
	t_put(d, "sub/y", "");
	t_put(d, "x.log", "");
	/* an ignored pick, a pick under an ignored directory and anything of .git: none is listed */
	assert_picks_list(d, p, sizeof p / sizeof *p, "keep.c\nsub\nsub/y\n");
}

static void extra_rules_apply_to_picks(void **state)
{
	const char *d = *state;
	roz_ignore extra;
	roz_tree_pick p[] = {{"secrets", true}, {"src/a.bin", false}, {"src/a.c", false}};
	roz_tree_opts o = {0, &extra, false, p, 3};
	roz_tree t;
	char *got;

	assert_int_equal(roz_ignore_parse("secrets/\n*.bin\n", strlen("secrets/\n*.bin\n"), &extra, NULL), ROZ_OK);
	t_put(d, "secrets/key", "");
	t_put(d, "src/a.bin", "");
	t_put(d, "src/a.c", "");
	t_tree_walk(d, &o, &t);
	got = t_tree_listing(&t);
	assert_string_equal(got, "src\nsrc/a.c\n");
	free(got);
	roz_tree_dispose(&t);
	roz_ignore_dispose(&extra);
}

static void orchestration_picks_are_listed_whatever_the_rules_say(void **state)
{
	const char *d = *state;
	roz_ignore extra;
	const char *rules = ".orchestration\n*.md\n";
	roz_tree_pick p[] = {
		{".orchestration/active_intents.yaml", false},
		{".orchestration/sub", true},
		{"other.yaml", false},
		{"sub/.orchestration/y", false},
	};
	roz_tree_opts o = {0, &extra, false, p, sizeof p / sizeof *p};
	roz_tree t;
	char *got;

	assert_int_equal(roz_ignore_parse(rules, strlen(rules), &extra, NULL), ROZ_OK);
	t_put(d, ".gitignore", ".orchestration/\n*.yaml\n*.md\n");
	t_put(d, ".git/info/exclude", ".orchestration\n");
	t_put(d, ".orchestration/active_intents.yaml", "active_intents: []\n");
	t_put(d, ".orchestration/lessons.md", "");
	t_put(d, ".orchestration/sub/.gitignore", "*\n");
	t_put(d, ".orchestration/sub/x.yaml", "");
	t_put(d, "other.yaml", "");
	t_put(d, "sub/.orchestration/y", "");
	t_put(d, "sub/.gitignore", ".orchestration/\n");
	t_tree_walk(d, &o, &t);
	got = t_tree_listing(&t);
	assert_string_equal(got, ".orchestration\n.orchestration/active_intents.yaml\n.orchestration/sub\n"
				 ".orchestration/sub/.gitignore\n.orchestration/sub/x.yaml\nsub\n");
	free(got);
	roz_tree_dispose(&t);
	roz_ignore_dispose(&extra);
}

static void a_nested_gitignore_on_the_way_is_applied(void **state)
{
	const char *d = *state;
	roz_tree_pick p[] = {{"pkg/gen/out", false}, {"pkg/keep.tmp", false}, {"pkg/x.tmp", false}};

	t_put(d, "pkg/.gitignore", "gen/\n*.tmp\n!keep.tmp\n");
	t_put(d, "pkg/gen/out", "");
	t_put(d, "pkg/keep.tmp", "");
	t_put(d, "pkg/x.tmp", "");
	assert_picks_list(d, p, 3, "pkg\npkg/keep.tmp\n");
}

static void a_shallow_directory_pick_lists_the_directory_only(void **state)
{
	const char *d = *state;
	roz_tree_pick shallow[] = {{"d", false}};
	roz_tree_pick deep[] = {{"d", true}};
	roz_tree_pick both[] = {{"d", false}, {"d/e/y", false}};
	roz_tree_pick nested[] = {{"d", true}, {"d/e", false}, {"d/e/y", true}};

	t_put(d, "d/x", "");
	t_put(d, "d/e/y", "");
	t_put(d, "d/e/z", "");
	t_put(d, "f", "");
	assert_picks_list(d, shallow, 1, "d\n");
	assert_picks_list(d, deep, 1, "d\nd/e\nd/e/y\nd/e/z\nd/x\n");
	/* a shallow pick with a pick under it is read for that one */
	assert_picks_list(d, both, 2, "d\nd/e\nd/e/y\n");
	/* picks under a deep pick change nothing */
	assert_picks_list(d, nested, 3, "d\nd/e\nd/e/y\nd/e/z\nd/x\n");
}

static void missing_picks_list_nothing(void **state)
{
	const char *d = *state;
	roz_tree_pick gone[] = {{"gone", true}, {"gone/x", false}};
	roz_tree_pick under[] = {{"d/gone", false}, {"d/x/y", true}};
	/* a name that is a file where a directory is picked through leads nowhere */
	roz_tree_pick through[] = {{"f/x", false}};

	t_put(d, "d/x", "");
	t_put(d, "f", "");
	assert_picks_list(d, gone, 2, "");
	assert_picks_list(d, under, 2, "d\n");
	assert_picks_list(d, through, 1, "");
}

static void picks_that_name_no_path_never_match(void **state)
{
	const char *d = *state;
	/* sorted by strcmp, as picks must be */
	roz_tree_pick p[] = {{"", true},        {"./d", false},  {"/d", true},    {"d/", true},
			     {"d/../d", true},  {"d/./x", false}, {"d//x", false}, {"d/x/", false}};
	roz_tree t;

	t_put(d, "d/x", "");
	t_put(d, "e", "");
	walk_picks(d, p, sizeof p / sizeof *p, &t);
	/* d may be passed on the way to one of them; nothing else is listed */
	for (size_t i = 0; i < t.n; i++)
		assert_string_equal(t.items[i].path, "d");
	roz_tree_dispose(&t);
}

static void picks_follow_strcmp_order(void **state)
{
	const char *d = *state;
	roz_tree_pick all[] = {{"a", false}, {"a-b", false}, {"a.b", true}, {"a/x", false}, {"a0", false}};
	roz_tree_pick one[] = {{"a/x", false}};
	roz_tree_pick two[] = {{"a-b/x", false}, {"a/x", false}};
	roz_tree_pick three[] = {{"a", false}, {"a.b/x", false}, {"a/x/y", false}, {"a0", false}};

	/* a-b and a.b sort between a and a/x: a search for a's picks must step over them */
	t_put(d, "a/x/y", "");
	t_put(d, "a-b/x", "");
	t_put(d, "a.b/x", "");
	t_put(d, "a0", "");
	assert_picks_list(d, all, 5, "a\na-b\na.b\na.b/x\na/x\na0\n");
	assert_picks_list(d, one, 1, "a\na/x\n");
	assert_picks_list(d, two, 2, "a\na-b\na-b/x\na/x\n");
	assert_picks_list(d, three, 4, "a\na.b\na.b/x\na/x\na/x/y\na0\n");
}

static void no_picks_list_nothing(void **state)
{
	const char *d = *state;
	roz_tree_pick none[1] = {{"a", true}};
	roz_tree t;

	t_put(d, "a", "");
	walk_picks(d, none, 0, &t);
	assert_int_equal(t.n, 0);
	assert_null(t.items);
	assert_false(t.truncated);
	assert_true(t.taken_ns > 0);
	roz_tree_dispose(&t);
}

static void a_picked_walk_stops_at_max_entries(void **state)
{
	const char *d = *state;
	roz_tree_pick p[] = {{"d", true}, {"z", false}};
	roz_tree_opts o = {3, NULL, false, p, 2};
	roz_tree t;
	char *got;

	t_put(d, "d/a", "");
	t_put(d, "d/b", "");
	t_put(d, "d/c", "");
	t_put(d, "z", "");
	t_tree_walk(d, &o, &t);
	got = t_tree_listing(&t);
	assert_string_equal(got, "d\nd/a\nd/b\n");
	assert_true(t.truncated);
	free(got);
	roz_tree_dispose(&t);
	/* what is listed counts, not what is there */
	o.max_entries = 5;
	t_tree_walk(d, &o, &t);
	assert_int_equal(t.n, 5);
	assert_false(t.truncated);
	roz_tree_dispose(&t);
}

/* Walk with these picks, counting what is stat'ed and opened, and compare the listing. */
static void assert_touches(const char *root, const roz_tree_pick *picks, size_t n, const char *want, long stats,
			   long opens)
{
#ifdef COUNT_CALLS
	stat_calls = open_calls = 0;
#endif
	assert_picks_list(root, picks, n, want);
#ifdef COUNT_CALLS
	assert_int_equal(stat_calls, stats);
	assert_int_equal(open_calls, opens);
#else
	(void)stats;
	(void)opens;
#endif
}

static void a_picked_walk_touches_only_the_picks(void **state)
{
	const char *d = *state;
	roz_tree_pick file[] = {{"big/f0500", false}};
	roz_tree_pick dir[] = {{"big", false}};
	roz_tree_pick through[] = {{"big/f0500/x", false}};
	roz_tree t;

	for (int i = 0; i < 1000; i++) {
		char *name = t_sprintf("big/f%04d", i);

		t_put(d, name, "");
		free(name);
	}
	t_put(d, "top", "");
	/* opened: .git (to find info/exclude), and each directory read */
	assert_touches(d, file, 1, "big\nbig/f0500\n", 2, 2);
	/* a shallow pick of a directory is not read */
	assert_touches(d, dir, 1, "big\n", 1, 1);
	/* a file on the way to a pick is passed by its name */
	assert_touches(d, through, 1, "big\n", 1, 2);
#ifdef COUNT_CALLS
	stat_calls = 0;
	t_tree_walk(d, NULL, &t);
	assert_int_equal(stat_calls, (long)t.n);
	assert_int_equal(t.n, 1002);
	roz_tree_dispose(&t);
#else
	(void)t;
	skip();
#endif
}

/* ---- the patch ----------------------------------------------------------- */

static void a_patch_follows_a_rename(void **state)
{
	const char *d = *state;
	char *from = t_at(d, "old"), *to = t_at(d, "sub/new");
	roz_tree_pick p[] = {{"old", true}, {"sub/new", true}};
	roz_tree before, part, patched, after;

	t_put(d, "old/a", "a");
	t_put(d, "old/deeper/b", "b");
	t_put(d, "old-sibling", "");
	t_put(d, "sub/c", "c");
	t_tree_walk(d, NULL, &before);
	assert_int_equal(rename(from, to), 0);
	walk_picks(d, p, 2, &part);
	assert_int_equal(roz_tree_patch(&before, &part, p, 2, &patched), ROZ_OK);
	t_tree_walk(d, NULL, &after);
	assert_same_entries(&patched, &after);
	assert_null(roz_tree_find(&patched, "old/a"));
	assert_non_null(roz_tree_find(&patched, "sub/new/deeper/b"));
	assert_non_null(roz_tree_find(&patched, "old-sibling"));
	roz_tree_dispose(&before);
	roz_tree_dispose(&part);
	roz_tree_dispose(&patched);
	roz_tree_dispose(&after);
	free(from);
	free(to);
}

static void a_patch_of_empty_trees(void **state)
{
	const char *d = *state;
	roz_tree_pick p[] = {{"a", true}, {"b", false}};
	roz_tree empty, part, out;

	memset(&empty, 0, sizeof empty);
	t_put(d, "a/x", "");
	t_put(d, "b", "");
	t_put(d, "c", "");
	walk_picks(d, p, 2, &part);
	part.watch_id = 7;
	part.watch_gen = 9;
	/* nothing before: the part is the whole */
	assert_int_equal(roz_tree_patch(&empty, &part, p, 2, &out), ROZ_OK);
	assert_same_entries(&out, &part);
	assert_int_equal(out.taken_ns, part.taken_ns);
	assert_int_equal(out.dev, part.dev);
	assert_int_equal(out.watch_id, 7);
	assert_int_equal(out.watch_gen, 9);
	/* the copy is its own */
	assert_ptr_not_equal(out.items[0].path, part.items[0].path);
	roz_tree_dispose(&out);
	/* nothing at all */
	assert_int_equal(roz_tree_patch(&empty, &empty, NULL, 0, &out), ROZ_OK);
	assert_int_equal(out.n, 0);
	assert_null(out.items);
	/* all of it dropped, nothing found again */
	assert_int_equal(roz_tree_patch(&part, &empty, p, 2, &out), ROZ_OK);
	assert_int_equal(out.n, 0);
	assert_null(out.items);
	/* nothing picked: the earlier tree as it was, with the part's stamp */
	part.truncated = true;
	assert_int_equal(roz_tree_patch(&part, &empty, NULL, 0, &out), ROZ_OK);
	assert_int_equal(out.n, part.n);
	assert_true(out.truncated);
	for (size_t i = 0; i < out.n; i++)
		t_assert_same_entry(&out.items[i], &part.items[i]);
	assert_int_equal(out.dev, part.dev);
	roz_tree_dispose(&out);
	assert_int_equal(roz_tree_patch(NULL, &empty, NULL, 0, &out), ROZ_EINVALID);
	roz_tree_dispose(&part);
}

static void every_allocation_failure_of_a_patch_is_reported(void **state)
{
	const char *d = *state;
	roz_tree_pick p[] = {{"a", true}, {"c", false}};
	roz_tree before, part, out;
	long n;
	int rc;

	t_put(d, "a/x", "");
	t_put(d, "b", "");
	t_put(d, "c", "");
	t_tree_walk(d, NULL, &before);
	t_put(d, "a/y", "");
	walk_picks(d, p, 2, &part);
	for (n = 0;; n++) {
		roz_alloc_fail_after(n);
		rc = roz_tree_patch(&before, &part, p, 2, &out);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK)
			break;
		assert_int_equal(rc, ROZ_ENOMEM);
		assert_null(out.items);
		assert_int_equal(out.n, 0);
	}
	assert_true(n >= 3);
	/* b kept; a, a/x, a/y and c as the walk found them */
	assert_int_equal(out.n, 5);
	roz_tree_dispose(&out);
	roz_tree_dispose(&before);
	roz_tree_dispose(&part);
}

/* ---- a small PRNG for the property tests (splitmix64) -------------------- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static size_t rnd(size_t n)
{
	return (size_t)(rnd64() % n);
}

/* ---- the patch against a slow model, on trees built by hand -------------- */

/* Names that sort next to one another and to '/': a, a-b, a.b, a/..., a0. */
static const char *const close_names[] = {"a", "a-b", "a.b", "a0", "b", "b!", "c"};
#define NCLOSE (sizeof close_names / sizeof *close_names)

typedef struct strs {
	char **v;
	size_t n, cap;
} strs;

static void strs_add(strs *s, char *p)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		assert_non_null(s->v);
	}
	s->v[s->n++] = p;
}

static void strs_free(strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static int by_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Sort and drop repeats. */
static void strs_sort(strs *s)
{
	size_t k = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof *s->v, by_str);
	for (size_t i = 0; i < s->n; i++) {
		if (k && strcmp(s->v[k - 1], s->v[i]) == 0)
			free(s->v[i]);
		else
			s->v[k++] = s->v[i];
	}
	s->n = k;
}

static char *random_path(size_t depth)
{
	char buf[256] = "";
	size_t len = 0;

	for (size_t i = 0; i < depth; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "/" : "", close_names[rnd(NCLOSE)]);
	return strdup(buf);
}

/* A tree by hand of these paths (sorted), their fields drawn from `salt`, in a walk's layout. */
static void tree_of(const strs *s, uint64_t salt, roz_tree *t)
{
	size_t bytes = 0;
	char *pool;

	memset(t, 0, sizeof *t);
	if (!s->n)
		return;
	for (size_t i = 0; i < s->n; i++)
		bytes += strlen(s->v[i]) + 1;
	t->items = calloc(s->n, sizeof *t->items);
	pool = malloc(bytes);
	assert_non_null(t->items);
	assert_non_null(pool);
	for (size_t i = 0; i < s->n; i++) {
		size_t len = strlen(s->v[i]) + 1;

		t->items[i].path = memcpy(pool, s->v[i], len);
		pool += len;
		t->items[i].mode = 0100644;
		t->items[i].ino = salt * 1000003u + i;
		t->items[i].size = salt;
	}
	t->n = s->n;
}

/* roz_tree_dispose frees with roz_free: a tree built with malloc is freed here. */
static void tree_free(roz_tree *t)
{
	if (t->n)
		free(t->items[0].path);
	free(t->items);
	memset(t, 0, sizeof *t);
}

static bool starts_under(const char *path, const char *pick)
{
	size_t len = strlen(pick);

	return strncmp(path, pick, len) == 0 && path[len] == '/';
}

static bool dropped_by(const char *path, const roz_tree_pick *picks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(path, picks[i].path) == 0 || (picks[i].deep && starts_under(path, picks[i].path)))
			return true;
	return false;
}

static void patches_equal_a_slow_merge(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		strs b = {0}, q = {0}, pt = {0};
		roz_tree_pick *picks;
		roz_tree before, part, out;
		size_t nb, k = 0;

		rng_state = seed * 7919;
		nb = rnd(seed % 10 == 0 ? 3000 : 80);
		for (size_t i = 0; i < nb; i++)
			strs_add(&b, random_path(1 + rnd(4)));
		strs_sort(&b);
		for (size_t i = rnd(12); i-- > 0;)
			strs_add(&q, b.n && rnd(2) ? strdup(b.v[rnd(b.n)]) : random_path(1 + rnd(3)));
		strs_sort(&q);
		picks = calloc(q.n + 1, sizeof *picks);
		assert_non_null(picks);
		for (size_t i = 0; i < q.n; i++)
			picks[i] = (roz_tree_pick){q.v[i], rnd(2) != 0};
		/* what the walk found: some of the picks' paths, and some of what is under them */
		for (size_t i = rnd(20); i-- > 0;) {
			char *p = random_path(1 + rnd(4));

			if (q.n && rnd(3) == 0) {
				free(p);
				p = strdup(q.v[rnd(q.n)]);
			}
			strs_add(&pt, p);
		}
		strs_sort(&pt);
		tree_of(&b, 1, &before);
		tree_of(&pt, 2, &part);
		before.dev = 5;
		before.truncated = seed % 7 == 0;
		part.taken_ns = 42;
		assert_int_equal(roz_tree_patch(&before, &part, picks, q.n, &out), ROZ_OK);
		/* the model: every kept earlier entry not found again, and every found one */
		for (size_t i = 0, j = 0; i < before.n || j < part.n;) {
			int c;

			if (i < before.n && (dropped_by(before.items[i].path, picks, q.n) ||
					     roz_tree_find(&part, before.items[i].path))) {
				i++;
				continue;
			}
			c = i == before.n ? 1 : j == part.n ? -1 : strcmp(before.items[i].path, part.items[j].path);
			assert_true(k < out.n);
			t_assert_same_entry(&out.items[k++], c < 0 ? &before.items[i++] : &part.items[j++]);
		}
		assert_int_equal(k, out.n);
		assert_int_equal(out.dev, 5);
		assert_int_equal(out.taken_ns, 42);
		assert_int_equal(out.truncated, before.truncated);
		/* one pool, the paths in entry order */
		for (size_t i = 1; i < out.n; i++)
			assert_ptr_equal(out.items[i].path,
					 out.items[i - 1].path + strlen(out.items[i - 1].path) + 1);
		roz_tree_dispose(&out);
		tree_free(&before);
		tree_free(&part);
		free(picks);
		strs_free(&b);
		strs_free(&q);
		strs_free(&pt);
	}
}

/* ---- random trees changed at random -------------------------------------- */

/* Names a change gives, among them some the rules ignore, and neighbours in strcmp order. */
static const char *const names[] = {"a",      "a-b",  "a.b",      "a0",    "b",     "c.log",
				    "keep.log", "x.yaml", "e.tmp", "secret", "build", "f",
				    ".orchestration", "node", "m n"};
#define NNAMES (sizeof names / sizeof *names)

typedef struct fsent {
	char *rel;
	bool dir;
} fsent;

typedef struct fslist {
	fsent *v;
	size_t n, cap;
} fslist;

/* Everything under root/rel, ignored or not, except .git: what changes choose from. */
static void scan(const char *root, const char *rel, fslist *out)
{
	char *dir = rel[0] ? t_at(root, rel) : strdup(root);
	DIR *dp = opendir(dir);
	struct dirent *de;

	assert_non_null(dp);
	while ((de = readdir(dp))) {
		bool is_dir = de->d_type == DT_DIR;
		char *r;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))
			continue;
		r = rel[0] ? t_sprintf("%s/%s", rel, de->d_name) : strdup(de->d_name);
		if (de->d_type == DT_UNKNOWN) {
			char *full = t_at(root, r);
			struct stat st;

			assert_int_equal(lstat(full, &st), 0);
			is_dir = S_ISDIR(st.st_mode);
			free(full);
		}
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 64;
			out->v = realloc(out->v, out->cap * sizeof *out->v);
			assert_non_null(out->v);
		}
		out->v[out->n++] = (fsent){r, is_dir};
		if (is_dir)
			scan(root, r, out);
	}
	closedir(dp);
	free(dir);
}

static void fslist_free(fslist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].rel);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static bool is_gitignore(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return strcmp(slash ? slash + 1 : rel, ".gitignore") == 0;
}

/* A random entry: a directory when `dir` (NULL for the root when `root_ok`), else anything else. */
static const char *choose(const fslist *l, bool dir, bool root_ok)
{
	size_t n = 0, want;

	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].dir == dir && !is_gitignore(l->v[i].rel);
	if (root_ok && rnd(n + 1) == 0)
		return "";
	if (!n)
		return NULL;
	want = rnd(n);
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].dir == dir && !is_gitignore(l->v[i].rel) && want-- == 0)
			return l->v[i].rel;
	return NULL;
}

/* A name not yet taken in the directory `parent` (relative; "" the root), or NULL. */
static char *fresh(const char *root, const char *parent)
{
	for (int tries = 0; tries < 8; tries++) {
		const char *name = names[rnd(NNAMES)];
		char *rel = parent[0] ? t_sprintf("%s/%s", parent, name) : strdup(name);
		char *full = t_at(root, rel);
		struct stat st;
		bool taken = lstat(full, &st) == 0;

		free(full);
		if (!taken)
			return rel;
		free(rel);
	}
	return NULL;
}

static void write_rel(const char *root, const char *rel, size_t size)
{
	char *full = t_at(root, rel);
	FILE *f = fopen(full, "ab");

	assert_non_null(f);
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	fclose(f);
	free(full);
}

static void mkdir_rel(const char *root, const char *rel)
{
	char *full = t_at(root, rel);

	assert_int_equal(mkdir(full, 0755), 0);
	free(full);
}

/* A directory `rel` and a few things in it. */
static void fill_dir(const char *root, const char *rel, int depth)
{
	mkdir_rel(root, rel);
	for (size_t i = rnd(4); i-- > 0;) {
		char *sub = fresh(root, rel);

		if (!sub)
			continue;
		if (depth < 2 && rnd(3) == 0)
			fill_dir(root, sub, depth + 1);
		else
			write_rel(root, sub, rnd(50));
		free(sub);
	}
}

static void pick(strs *paths, strs *deep, const char *rel, bool is_deep)
{
	strs_add(is_deep ? deep : paths, strdup(rel));
}

/*
 * One random change under root, and the paths it touched into `shallow`
 * and `deep` (a directory made, removed or moved, with what is under it).
 * When `grow`, only something new: a file, a directory or a link.
 */
static void change(const char *root, strs *shallow, strs *deep, bool grow)
{
	static const int growing[] = {0, 0, 3, 9};
	fslist l = {0};
	const char *src, *parent;
	char *rel = NULL, *full = NULL, *full2 = NULL;

	scan(root, "", &l);
	switch (grow ? growing[rnd(4)] : (int)rnd(10)) {
	case 0: /* a new file */
		if ((parent = choose(&l, true, true)) && (rel = fresh(root, parent))) {
			write_rel(root, rel, rnd(100));
			pick(shallow, deep, rel, false);
		}
		break;
	case 1: /* more content */
		if ((src = choose(&l, false, false))) {
			struct stat st;

			full = t_at(root, src);
			assert_int_equal(lstat(full, &st), 0);
			if (S_ISREG(st.st_mode)) {
				write_rel(root, src, 1 + rnd(20));
				pick(shallow, deep, src, false);
			}
		}
		break;
	case 2: /* a file removed */
		if ((src = choose(&l, false, false))) {
			full = t_at(root, src);
			assert_int_equal(unlink(full), 0);
			pick(shallow, deep, src, false);
		}
		break;
	case 3: /* a directory made, with things in it */
		if ((parent = choose(&l, true, true)) && (rel = fresh(root, parent))) {
			fill_dir(root, rel, 0);
			pick(shallow, deep, rel, true);
		}
		break;
	case 4: /* a directory removed with everything in it */
		if ((src = choose(&l, true, false))) {
			full = t_at(root, src);
			t_rmtree(full);
			pick(shallow, deep, src, true);
		}
		break;
	case 5: /* a file moved */
		if ((src = choose(&l, false, false)) && (parent = choose(&l, true, true)) &&
		    (rel = fresh(root, parent))) {
			full = t_at(root, src);
			full2 = t_at(root, rel);
			assert_int_equal(rename(full, full2), 0);
			pick(shallow, deep, src, false);
			pick(shallow, deep, rel, false);
		}
		break;
	case 6: /* a directory moved, not into itself */
		if ((src = choose(&l, true, false)) && (parent = choose(&l, true, true)) &&
		    strcmp(parent, src) != 0 && !starts_under(parent, src) && (rel = fresh(root, parent))) {
			full = t_at(root, src);
			full2 = t_at(root, rel);
			assert_int_equal(rename(full, full2), 0);
			pick(shallow, deep, src, true);
			pick(shallow, deep, rel, true);
		}
		break;
	case 7: /* a mode changed */
		if ((src = choose(&l, rnd(2) != 0, false))) {
			struct stat st;

			full = t_at(root, src);
			assert_int_equal(lstat(full, &st), 0);
			if (S_ISDIR(st.st_mode))
				assert_int_equal(chmod(full, (st.st_mode & 0777) == 0755 ? 0700 : 0755), 0);
			else if (S_ISREG(st.st_mode))
				assert_int_equal(chmod(full, (st.st_mode & 0777) == 0644 ? 0600 : 0644), 0);
			pick(shallow, deep, src, false);
		}
		break;
	case 8: /* a file become a directory */
		if ((src = choose(&l, false, false))) {
			full = t_at(root, src);
			assert_int_equal(unlink(full), 0);
			fill_dir(root, src, 1);
			pick(shallow, deep, src, true);
		}
		break;
	default: /* a new link */
		if ((parent = choose(&l, true, true)) && (rel = fresh(root, parent))) {
			full = t_at(root, rel);
			assert_int_equal(symlink("a", full), 0);
			pick(shallow, deep, rel, false);
		}
		break;
	}
	free(rel);
	free(full);
	free(full2);
	fslist_free(&l);
}

/* A repository: ignore files, an ignored directory, .orchestration/, a link, and random things. */
static void random_tree(const char *root)
{
	t_put(root, ".gitignore", "*.log\n!keep.log\nbuild/\n/secret\n*.yaml\n");
	t_put(root, ".git/info/exclude", "*.tmp\n");
	t_put(root, ".git/HEAD", "ref: refs/heads/main\n");
	t_put(root, "build/out.o", "o");
	t_put(root, "build/deep/x", "x");
	t_put(root, ".orchestration/active_intents.yaml", "active_intents: []\n");
	t_put(root, ".orchestration/sub/y.log", "");
	t_put(root, "a/.gitignore", "b\n!a0\n");
	t_put(root, "a/b", "");
	t_put(root, "a/c", "c");
	{
		char *ln = t_at(root, "ln");

		assert_int_equal(symlink("a", ln), 0);
		free(ln);
	}
	for (size_t i = 8 + rnd(22); i-- > 0;) {
		strs s = {0}, d = {0};

		change(root, &s, &d, true);
		strs_free(&s);
		strs_free(&d);
	}
}

/* Whether the part may list `path`: a pick, under a deep pick, or on the way to a pick. */
static bool may_list(const char *path, const roz_tree_pick *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(path, p[i].path) || (p[i].deep && starts_under(path, p[i].path)) ||
		    starts_under(p[i].path, path))
			return true;
	return false;
}

static void one_round(const char *root, uint64_t seed)
{
	strs shallow = {0}, deep = {0}, all = {0};
	roz_tree_pick *picks;
	size_t n = 0, j = 0;
	roz_tree w0, part, patched, w1;
	/* every other round, the caller's rules too */
	const char *text = "m n\nnode/\n";
	roz_ignore extra;
	roz_tree_opts whole = {0, seed % 2 ? &extra : NULL, false, NULL, 0}, only;

	assert_int_equal(roz_ignore_parse(text, strlen(text), &extra, NULL), ROZ_OK);
	rng_state = seed;
	random_tree(root);
	t_tree_walk(root, &whole, &w0);
	for (size_t i = 1 + rnd(5); i-- > 0;)
		change(root, &shallow, &deep, false);
	/* and a few picks of what did not change: listed again, the same */
	if (w0.n && rnd(2))
		strs_add(rnd(2) ? &deep : &shallow, strdup(w0.items[rnd(w0.n)].path));
	/* one path picked both ways is picked deep */
	for (size_t i = 0; i < shallow.n; i++)
		strs_add(&all, strdup(shallow.v[i]));
	for (size_t i = 0; i < deep.n; i++)
		strs_add(&all, strdup(deep.v[i]));
	strs_sort(&all);
	strs_sort(&deep);
	picks = calloc(all.n + 1, sizeof *picks);
	assert_non_null(picks);
	for (size_t i = 0; i < all.n; i++) {
		while (j < deep.n && strcmp(deep.v[j], all.v[i]) < 0)
			j++;
		picks[n++] = (roz_tree_pick){all.v[i], j < deep.n && !strcmp(deep.v[j], all.v[i])};
	}

	only = whole;
	only.only = picks;
	only.nonly = n;
	t_tree_walk(root, &only, &part);
	assert_int_equal(roz_tree_patch(&w0, &part, picks, n, &patched), ROZ_OK);
	t_tree_walk(root, &whole, &w1);
	assert_false(w1.truncated);
	assert_same_entries(&patched, &w1);
	/* the same, saved as it is merged and never made, reads back whole */
	{
		char *file = t_sprintf("%s.snap", root);
		roz_tree back;

		part.watch_id = 7;
		part.watch_gen = seed;
		assert_int_equal(roz_tree_save_patched(&w0, &part, picks, n, file), ROZ_OK);
		assert_int_equal(roz_tree_load(file, &back), ROZ_OK);
		assert_same_entries(&back, &w1);
		assert_true(back.watch_id == 7 && back.watch_gen == seed);
		roz_tree_dispose(&back);
		unlink(file);
		free(file);
	}
	/* what the patch takes out, compared with the part, says what comparing the whole trees says */
	{
		roz_tree_entry *gone;
		size_t ngone, kept, others_a = 0, others_b = 0;
		roz_tree was = w0;
		roz_changes a = {0}, b = {0};

		assert_int_equal(roz_tree_patch_dropped(&w0, &part, picks, n, &gone, &ngone, &kept), ROZ_OK);
		assert_int_equal(kept, patched.n);
		assert_int_equal(w0.n - ngone + part.n, kept);
		was.items = gone;
		was.n = ngone;
		assert_int_equal(roz_tree_diff(&was, &part, 0, 0, &a, &others_a), ROZ_OK);
		assert_int_equal(roz_tree_diff(&w0, &patched, 0, 0, &b, &others_b), ROZ_OK);
		assert_int_equal(a.n, b.n);
		assert_int_equal(others_a, others_b);
		for (size_t i = 0; i < a.n; i++) {
			assert_string_equal(a.items[i].path, b.items[i].path);
			assert_int_equal(a.items[i].kind, b.items[i].kind);
		}
		roz_changes_dispose(&a);
		roz_changes_dispose(&b);
		roz_free(gone);
	}
	/* the part is exactly what the whole walk lists of the picks and their way */
	{
		size_t k = 0;

		for (size_t i = 0; i < w1.n; i++) {
			if (!may_list(w1.items[i].path, picks, n))
				continue;
			if (k >= part.n)
				fail_msg("seed %llu: %s is not in the part", (unsigned long long)seed,
					 w1.items[i].path);
			t_assert_same_entry(&part.items[k++], &w1.items[i]);
		}
		assert_int_equal(k, part.n);
		for (size_t i = 0; i < part.n; i++)
			assert_true(may_list(part.items[i].path, picks, n));
	}
	roz_tree_dispose(&w0);
	roz_tree_dispose(&part);
	roz_tree_dispose(&patched);
	roz_tree_dispose(&w1);
	free(picks);
	strs_free(&shallow);
	strs_free(&deep);
	strs_free(&all);
	roz_ignore_dispose(&extra);
}

static void a_patched_walk_equals_a_whole_walk(void **state)
{
	const char *d = *state;

	for (uint64_t seed = 1; seed <= 250; seed++) {
		char *root = t_sprintf("%s/r%llu", d, (unsigned long long)seed);

		assert_int_equal(mkdir(root, 0700), 0);
		one_round(root, seed);
		t_rmtree(root);
		free(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, t_setup_tmpdir, t_teardown_tmpdir)
		T(a_picked_file_lists_it_and_its_directories),
		T(the_fields_are_the_whole_walks),
		T(ignored_picks_are_not_listed),
		T(extra_rules_apply_to_picks),
		T(orchestration_picks_are_listed_whatever_the_rules_say),
		T(a_nested_gitignore_on_the_way_is_applied),
		T(a_shallow_directory_pick_lists_the_directory_only),
		T(missing_picks_list_nothing),
		T(picks_that_name_no_path_never_match),
		T(picks_follow_strcmp_order),
		T(no_picks_list_nothing),
		T(a_picked_walk_stops_at_max_entries),
		T(a_picked_walk_touches_only_the_picks),
		T(a_patch_follows_a_rename),
		T(a_patch_of_empty_trees),
		T(every_allocation_failure_of_a_patch_is_reported),
		T(patches_equal_a_slow_merge),
		T(a_patched_walk_equals_a_whole_walk),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
