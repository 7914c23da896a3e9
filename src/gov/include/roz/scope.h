/*
 * roz/scope.h - which paths an intent owns, and which governance ignores.
 *
 * An intent's `owned_scope` and the lines of `.orchestration/.intentignore`
 * are globs over paths relative to the repository root, written with `/`:
 *
 *   `*`     any run of characters except `/`;
 *   `**`    as a whole component (first, last, or between two slashes):
 *           any number of components, none included, except that a `**`
 *           ending the pattern takes at least one (see below); elsewhere
 *           (`a**b`) it is `*`;
 *   `?`     one character except `/`;
 *   `[...]` one character of a set (`[abc]`, `[a-z]`, `[!a-z]` or `[^a-z]`),
 *           never `/`; a `]` first in the set is a member, `\]` too;
 *   `\x`    the character x itself (an escaped `/` matches nothing, since
 *           no component holds a `/`).
 *
 * Owned scopes are anchored at the root (`src/a?c` owns
 * `src/a.c`, not `lib/src/a.c`); a pattern that names a directory
 * (`src/auth`, `src/auth/`) owns everything under it. A pattern ending in
 * `/` + `**` owns what is under the directory but not the directory's own
 * name: a write target is always a file, and a file written at `src/auth`
 * is not inside the directory `src/auth`, so the scope `src/auth/` + `**`
 * does not own it (the scope `src/auth` does).
 *
 * Ignore files follow gitignore: `#` comments, blank lines, `!` negation
 * (the last matching line wins), a leading `/` anchors, a pattern without
 * an inner `/` matches at any depth, a trailing `/` matches directories
 * (and so everything under them); `\#` and `\!` start a pattern with a
 * literal `#` or `!`; trailing spaces are dropped unless escaped. As in
 * git, once a directory is ignored nothing under it can be taken back by
 * a later `!` line.
 *
 * Characters are bytes, except that with `fold_case` ASCII letters match
 * either case, as on a file system that ignores case.
 *
 * Paths handed to the matchers are normalised: an empty path, or one with
 * a leading, trailing or doubled `/` or a `.` or `..` component, is owned
 * by no pattern and ignored by no rule (so governance still judges it).
 *
 * Ownership: roz_ignore owns its patterns; release with roz_ignore_dispose().
 */
#ifndef ROZ_SCOPE_H
#define ROZ_SCOPE_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * True when `pattern` is a usable owned-scope glob. When it is not, *why
 * (if not NULL) is set to static text saying what is wrong: empty, absolute
 * (starts with `/`), leaves the root (`..` component), a `.` or empty
 * (`//`) component (paths are matched normalised, so it would match
 * nothing), an unclosed `[`, a trailing lone `\`, or a control character.
 * A pattern that is not valid owns nothing.
 */
bool roz_scope_pattern_check(const char *pattern, const char **why);

/*
 * True when `relpath` (relative to the root, `/`-separated, no `.` or `..`
 * components, no leading or doubled `/`) is owned by `pattern`.
 */
bool roz_scope_match(const char *pattern, const char *relpath, bool fold_case);

/* True when some pattern of the list owns `relpath` (NULL entries own nothing). */
bool roz_scope_match_any(char *const *patterns, size_t n, const char *relpath, bool fold_case);

/*
 * The path of `abs` (absolute, normalized) relative to `root` (absolute,
 * normalized): ROZ_OK with *rel (caller frees; "" for the root itself),
 * ROZ_ENOTFOUND when abs is not root or inside it (root `/a/b` does not
 * hold `/a/bc`). With fold_case, the comparison of the root part ignores
 * ASCII case. ROZ_EINVALID when a path is missing or not absolute,
 * ROZ_ENOMEM.
 */
int roz_scope_relpath(const char *root, const char *abs, bool fold_case, char **rel) ROZ_WARN_UNUSED;

/* True when relpath is `.orchestration` or lies inside it (ASCII case folded when fold_case). */
bool roz_scope_is_orchestration(const char *relpath, bool fold_case);

typedef struct roz_ignore_rule {
	char *pattern;  /* without its `!`, leading `/` and trailing `/` */
	bool negate;    /* `!pattern`: un-ignores */
	bool anchored;  /* matched against the whole path, not at any depth */
	bool dir_only;  /* written with a trailing `/` */
	unsigned line;  /* 1-based line in the file */
} roz_ignore_rule;

typedef struct roz_ignore {
	roz_ignore_rule *rules;
	size_t n;
} roz_ignore;

/*
 * Read an ignore file's text into *out, which is overwritten (dispose it
 * first if it held rules). Lines that are not valid globs once their `!`,
 * leading `/` and trailing `/` are taken off (a line of only `!` or `/`,
 * an unclosed `[`, a NUL or control character, a `..` component...) are
 * skipped and counted in *skipped (may be NULL); a trailing `\r` is
 * dropped. ROZ_OK, ROZ_ENOMEM (out left empty) or ROZ_EINVALID (out NULL).
 */
int roz_ignore_parse(const char *text, size_t len, roz_ignore *out, size_t *skipped) ROZ_WARN_UNUSED;

/*
 * True when `relpath` (a file) is ignored: one of its parent directories,
 * tested from the top, or else the path itself, has as its last matching
 * rule one that is not a negation. Rules written with a trailing `/` are
 * tested against the parents only.
 */
bool roz_ignore_match(const roz_ignore *ig, const char *relpath, bool fold_case);

/*
 * What `ig` says of `relpath` itself, its parent directories not tested (a
 * walk down from the root has judged them already, and pruned an ignored
 * one): 1 when the last rule that matches it ignores it, -1 when that rule
 * is a `!` negation, 0 when no rule matches. Rules written with a trailing
 * `/` are tested only when `is_dir`. The three answers let a walk stack
 * ignore files as git does: a deeper `.gitignore` that matches a path
 * decides it, ignored or taken back, and a shallower one is asked only
 * when it has no matching rule.
 */
int roz_ignore_verdict(const roz_ignore *ig, const char *relpath, bool is_dir, bool fold_case);

void roz_ignore_dispose(roz_ignore *ig);

#ifdef __cplusplus
}
#endif

#endif
