/*
 * scope.c - owned scopes and ignore files: globs over paths relative to the
 * repository root, and the root-relative path of a write target.
 *
 * A path is matched one component at a time. Inside a component `*` is
 * matched with the usual two-pointer retry (on a mismatch, go back to the
 * last star and let it take one more byte), and across components `**`
 * does the same with whole components. No pattern can make the matcher
 * backtrack exponentially: the work is bounded by the pattern's length
 * times the path's.
 */
#include "roz/scope.h"

#include <string.h>

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static bool same_char(unsigned char a, unsigned char b, bool fold_case)
{
	return a == b || (fold_case && fold(a) == fold(b));
}

/*
 * Past the `]` that closes the set opening at p (`[`), or NULL when the
 * set is not closed before end. A `]` right after `[` or `[!` is a member,
 * and `\x` is the member x, so `[]]` and `[\]]` both hold `]`.
 */
static const char *set_end(const char *p, const char *end)
{
	p++;
	if (p < end && (*p == '!' || *p == '^'))
		p++;
	if (p < end && *p == ']')
		p++;
	while (p < end) {
		if (*p == '\\') {
			if (p + 1 >= end)
				return NULL;
			p += 2;
			continue;
		}
		if (*p == ']')
			return p + 1;
		p++;
	}
	return NULL;
}

static bool in_range(unsigned char c, unsigned char lo, unsigned char hi, bool fold_case)
{
	if (c >= lo && c <= hi)
		return true;
	if (!fold_case)
		return false;
	/* With folding, `[a-z]` takes `Q` and `[A-Z]` takes `q`. */
	unsigned char lower = fold(c);
	unsigned char upper = c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
	return (lower >= lo && lower <= hi) || (upper >= lo && upper <= hi);
}

/* Whether c is in the set [p, e), where p is at `[` and e past its `]`. */
static bool set_match(const char *p, const char *e, unsigned char c, bool fold_case)
{
	const char *close = e - 1;
	bool negate = false;
	bool found = false;

	p++;
	if (*p == '!' || *p == '^') {
		negate = true;
		p++;
	}
	while (p < close) {
		if (*p == '\\')
			p++;
		unsigned char lo = (unsigned char)*p++;
		unsigned char hi = lo;
		if (p + 1 < close && *p == '-') {
			p++;
			if (*p == '\\')
				p++;
			hi = (unsigned char)*p++;
		}
		if (in_range(c, lo, hi, fold_case))
			found = true;
	}
	return found != negate;
}

/*
 * Whether the pattern element at p (a literal, `?`, `\x` or a set) takes
 * the byte c; *next is set past the element.
 */
static bool element_match(const char *p, const char *pe, unsigned char c, bool fold_case,
			  const char **next)
{
	if (*p == '?') {
		*next = p + 1;
		return true;
	}
	if (*p == '[') {
		const char *e = set_end(p, pe);
		if (e) {
			*next = e;
			return set_match(p, e, c, fold_case);
		}
	} else if (*p == '\\' && p + 1 < pe) {
		*next = p + 2;
		return same_char((unsigned char)p[1], c, fold_case);
	}
	*next = p + 1;
	return same_char((unsigned char)*p, c, fold_case);
}

/* One pattern component [p, pe) against one path component [t, te). */
static bool component_match(const char *p, const char *pe, const char *t, const char *te,
			    bool fold_case)
{
	const char *star_p = NULL; /* just past the last star seen */
	const char *star_t = NULL; /* where that star's run ends so far */

	while (t < te) {
		if (p < pe && *p == '*') {
			while (p < pe && *p == '*')
				p++;
			if (p == pe)
				return true;
			star_p = p;
			star_t = t;
			continue;
		}
		const char *next;
		if (p < pe && element_match(p, pe, (unsigned char)*t, fold_case, &next)) {
			p = next;
			t++;
			continue;
		}
		if (!star_p)
			return false;
		p = star_p;
		t = ++star_t;
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

/*
 * The end of the pattern component starting at p: the next `/` that is
 * neither escaped nor inside a set, or end.
 */
static const char *component_end(const char *p, const char *end)
{
	while (p < end && *p != '/') {
		if (*p == '\\' && p + 1 < end) {
			p += 2;
		} else if (*p == '[') {
			const char *e = set_end(p, end);
			p = e ? e : p + 1;
		} else {
			p++;
		}
	}
	return p;
}

static bool is_globstar(const char *p, const char *e)
{
	return e - p == 2 && p[0] == '*' && p[1] == '*';
}

static const char *path_next(const char *t, const char *end)
{
	const char *slash = memchr(t, '/', (size_t)(end - t));
	return slash ? slash + 1 : end;
}

/*
 * The pattern [pat, pe) against the path [path, xe), component by
 * component. With `prefix`, matching the first components of the path is
 * enough (the pattern names a directory above it).
 *
 * `**` is handled like `*` one level up: remember where it was and, when
 * what follows fails, let it take one more component and try again. Only
 * the latest `**` is ever retried, so the work stays polynomial. A `**`
 * that ends the pattern takes one or more components: `a/` + `**` is what
 * is under `a`, not `a` itself.
 */
static bool path_match(const char *pat, const char *pe, const char *path, const char *xe, bool prefix,
		       bool fold_case)
{
	const char *p = pat, *t = path;
	const char *back_p = NULL, *back_t = NULL;

	for (;;) {
		if (p == pe) {
			if (t == xe || prefix)
				return true;
			goto retry;
		}
		const char *se = component_end(p, pe);
		const char *pn = se < pe ? se + 1 : se;
		if (is_globstar(p, se)) {
			if (pn == pe) {
				if (t != xe)
					return true;
				goto retry;
			}
			back_p = pn;
			back_t = t;
			p = pn;
			continue;
		}
		if (t == xe)
			goto retry;
		const char *slash = memchr(t, '/', (size_t)(xe - t));
		const char *te = slash ? slash : xe;
		const char *tn = slash ? slash + 1 : xe;
		if (!component_match(p, se, t, te, fold_case))
			goto retry;
		p = pn;
		t = tn;
		continue;
retry:
		if (!back_p || back_t == xe)
			return false;
		back_t = path_next(back_t, xe);
		t = back_t;
		p = back_p;
	}
}

/*
 * A relative path as the matchers expect it: not empty, no leading,
 * trailing or doubled `/`, no `.` or `..` component. Anything else is
 * owned by nothing and ignored by nothing, so a caller that forgot to
 * normalise is refused rather than waved through.
 */
static bool relpath_valid(const char *s)
{
	if (!s || !*s)
		return false;
	for (;;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		if (!e)
			return true;
		s = e + 1;
	}
}

bool roz_scope_pattern_check(const char *pattern, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	if (!pattern || !*pattern) {
		*why = "the pattern is empty";
		return false;
	}
	for (const char *p = pattern; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f) {
			*why = "the pattern holds a control character";
			return false;
		}
	}
	if (pattern[0] == '/') {
		*why = "the pattern is absolute (starts with `/`); write it relative to the repository root";
		return false;
	}
	const char *end = pattern + strlen(pattern);
	for (const char *p = pattern; p < end;) {
		if (*p == '\\') {
			if (p + 1 == end) {
				*why = "the pattern ends with a lone `\\`";
				return false;
			}
			p += 2;
		} else if (*p == '[') {
			const char *e = set_end(p, end);
			if (!e) {
				*why = "the pattern has a `[` that is never closed";
				return false;
			}
			p = e;
		} else {
			p++;
		}
	}
	for (const char *p = pattern; p < end;) {
		const char *e = component_end(p, end);
		size_t n = (size_t)(e - p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			*why = "the pattern leaves the repository root (a `..` component)";
			return false;
		}
		/* Paths are matched normalised, so these would match nothing. */
		if (n == 1 && p[0] == '.') {
			*why = "the pattern has a `.` component; write the path without it";
			return false;
		}
		if (n == 0 && e < end) {
			*why = "the pattern has an empty component (`//`)";
			return false;
		}
		p = e < end ? e + 1 : e;
	}
	*why = NULL;
	return true;
}

bool roz_scope_match(const char *pattern, const char *relpath, bool fold_case)
{
	if (!roz_scope_pattern_check(pattern, NULL) || !relpath_valid(relpath))
		return false;
	/* Every pattern owns what is under what it names, so the `/` of
	 * `src/auth/` adds nothing: path_match ends the last component there. */
	return path_match(pattern, pattern + strlen(pattern), relpath, relpath + strlen(relpath), true,
			  fold_case);
}

bool roz_scope_match_any(char *const *patterns, size_t n, const char *relpath, bool fold_case)
{
	if (!patterns)
		return false;
	for (size_t i = 0; i < n; i++)
		if (roz_scope_match(patterns[i], relpath, fold_case))
			return true;
	return false;
}

/* ---- relative paths ------------------------------------------------------ */

static bool prefix_equal(const char *a, const char *b, size_t n, bool fold_case)
{
	for (size_t i = 0; i < n; i++) {
		if (!b[i] || !same_char((unsigned char)a[i], (unsigned char)b[i], fold_case))
			return false;
	}
	return true;
}

int roz_scope_relpath(const char *root, const char *abs, bool fold_case, char **rel)
{
	if (!rel) {
		roz_error_set("roz_scope_relpath: no place for the result");
		return ROZ_EINVALID;
	}
	*rel = NULL;
	if (!root || !abs || root[0] != '/' || abs[0] != '/') {
		roz_error_set("roz_scope_relpath: both paths must be absolute");
		return ROZ_EINVALID;
	}
	size_t rn = strlen(root);
	while (rn > 1 && root[rn - 1] == '/')
		rn--;
	const char *rest;
	if (rn == 1) {
		rest = abs + 1;
	} else {
		/* Compare whole components: root /a/b does not hold /a/bc. */
		if (!prefix_equal(root, abs, rn, fold_case) || (abs[rn] != '\0' && abs[rn] != '/')) {
			roz_error_set("%s is outside %.*s", abs, (int)rn, root);
			return ROZ_ENOTFOUND;
		}
		rest = abs[rn] == '/' ? abs + rn + 1 : abs + rn;
	}
	*rel = roz_strdup(rest);
	return *rel ? ROZ_OK : ROZ_ENOMEM;
}

bool roz_scope_is_orchestration(const char *relpath, bool fold_case)
{
	static const char dir[] = ".orchestration";
	const size_t n = sizeof dir - 1;

	if (!relpath || !prefix_equal(dir, relpath, n, fold_case))
		return false;
	return relpath[n] == '\0' || relpath[n] == '/';
}

/* ---- ignore files -------------------------------------------------------- */

/* Whether the byte before p (p > start) is escaped by an odd run of `\`. */
static bool escaped(const char *start, const char *p)
{
	size_t run = 0;
	while (p > start && p[-1] == '\\') {
		run++;
		p--;
	}
	return run % 2 == 1;
}

void roz_ignore_dispose(roz_ignore *ig)
{
	if (!ig)
		return;
	for (size_t i = 0; i < ig->n; i++)
		roz_free(ig->rules[i].pattern);
	roz_free(ig->rules);
	ig->rules = NULL;
	ig->n = 0;
}

int roz_ignore_parse(const char *text, size_t len, roz_ignore *out, size_t *skipped)
{
	roz_ignore ig = { NULL, 0 };
	size_t cap = 0;
	size_t bad = 0;
	unsigned line = 0;

	if (skipped)
		*skipped = 0;
	if (!out) {
		roz_error_set("roz_ignore_parse: no place for the result");
		return ROZ_EINVALID;
	}
	out->rules = NULL;
	out->n = 0;
	if (!text)
		len = 0;

	for (size_t pos = 0; pos < len;) {
		const char *ls = text + pos;
		const char *nl = memchr(ls, '\n', len - pos);
		const char *le = nl ? nl : text + len;
		pos = (size_t)(le - text) + (nl ? 1 : 0);
		line++;

		if (le > ls && le[-1] == '\r')
			le--;
		if (memchr(ls, '\0', (size_t)(le - ls))) {
			bad++;
			continue;
		}
		/* Trailing spaces are dropped unless escaped, as git does. */
		while (le > ls && le[-1] == ' ' && !escaped(ls, le - 1))
			le--;
		if (le == ls || *ls == '#')
			continue;

		roz_ignore_rule r = { NULL, false, false, false, line };
		if (*ls == '!') {
			r.negate = true;
			ls++;
		}
		if (ls < le && *ls == '/') {
			r.anchored = true;
			ls++;
		}
		if (le > ls && le[-1] == '/' && !escaped(ls, le - 1)) {
			r.dir_only = true;
			le--;
		}
		r.pattern = roz_strndup(ls, (size_t)(le - ls));
		if (!r.pattern)
			goto nomem;
		if (!roz_scope_pattern_check(r.pattern, NULL)) {
			roz_free(r.pattern);
			bad++;
			continue;
		}
		/* A `/` inside the pattern ties it to the root, as in git. */
		size_t pn = strlen(r.pattern);
		if (component_end(r.pattern, r.pattern + pn) < r.pattern + pn)
			r.anchored = true;
		if (roz_alloc_array_reserve((void **)&ig.rules, &cap, sizeof *ig.rules, ig.n + 1) != ROZ_OK) {
			roz_free(r.pattern);
			goto nomem;
		}
		ig.rules[ig.n++] = r;
	}
	*out = ig;
	if (skipped)
		*skipped = bad;
	return ROZ_OK;

nomem:
	roz_ignore_dispose(&ig);
	roz_error_set("out of memory reading an ignore file");
	return ROZ_ENOMEM;
}

static bool rule_match(const roz_ignore_rule *r, const char *path, size_t len, bool fold_case)
{
	const char *end = path + len;
	const char *start = path;
	if (!r->anchored) {
		/* Unanchored patterns are one component: they match the name. */
		for (const char *p = path; p < end; p++)
			if (*p == '/')
				start = p + 1;
	}
	return path_match(r->pattern, r->pattern + strlen(r->pattern), start, end, false, fold_case);
}

/* The verdict of the last rule that matches path[0..len), or false. */
static bool ignored_as(const roz_ignore *ig, const char *path, size_t len, bool is_dir, bool fold_case)
{
	for (size_t i = ig->n; i-- > 0;) {
		const roz_ignore_rule *r = &ig->rules[i];
		if (r->dir_only && !is_dir)
			continue;
		if (rule_match(r, path, len, fold_case))
			return !r->negate;
	}
	return false;
}

bool roz_ignore_match(const roz_ignore *ig, const char *relpath, bool fold_case)
{
	if (!ig || !ig->n || !relpath_valid(relpath))
		return false;
	/* Parents first: once a directory is ignored, nothing under it can be
	 * taken back by a later `!` (git does not look inside it either). */
	for (const char *s = strchr(relpath, '/'); s; s = strchr(s + 1, '/'))
		if (ignored_as(ig, relpath, (size_t)(s - relpath), true, fold_case))
			return true;
	return ignored_as(ig, relpath, strlen(relpath), false, fold_case);
}

int roz_ignore_verdict(const roz_ignore *ig, const char *relpath, bool is_dir, bool fold_case)
{
	if (!ig || !ig->n || !relpath_valid(relpath))
		return 0;
	size_t len = strlen(relpath);
	const char *end = relpath + len;
	const char *name = strrchr(relpath, '/');
	name = name ? name + 1 : relpath;
	for (size_t i = ig->n; i-- > 0;) {
		const roz_ignore_rule *r = &ig->rules[i];
		if (r->dir_only && !is_dir)
			continue;
		/* as rule_match, with the name found once for all the rules */
		const char *start = r->anchored ? relpath : name;
		if (path_match(r->pattern, r->pattern + strlen(r->pattern), start, end, false, fold_case))
			return r->negate ? -1 : 1;
	}
	return 0;
}
