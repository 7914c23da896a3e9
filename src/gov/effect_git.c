/*
 * effect_git.c - git: which subcommands only read (status, log, the listing
 * forms of branch and stash, ...), which write the paths they name
 * (checkout -- paths, restore, rm, mv, clean), and what else makes a line
 * that runs git change things it does not show.
 */
#include <string.h>
#include <strings.h>

#include "effect_int.h"

/* git checkout: `-- paths`, `.`, or `<tree-ish> paths` restore files; one operand switches branches. */
static void judge_git_checkout(struct ctx *x, const roz_shell_cmd *c, size_t at)
{
	static const char *const lval[] = {"orphan", "conflict", NULL};
	struct args a;
	struct arg g;
	size_t before = 0, first = 0;
	bool ended = false, branch = false;

	effect_args_init(&a, c, at, "bB", NULL, lval);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_END)
			ended = true;
		else if (effect_flag(&g, 'b', "orphan") || effect_flag(&g, 'B', "detach"))
			branch = true;
		else if (effect_long_is(&g, "pathspec-from-file"))
			effect_target(x, NULL, 0, false, "git checkout");
		else if (g.kind == ARG_OPERAND && ended)
			effect_target_word(x, c, g.word, "git checkout");
		else if (g.kind == ARG_OPERAND) {
			if (!effect_word_static(c, g.word) || !strcmp(c->words[g.word], "."))
				effect_target_word(x, c, g.word, "git checkout");
			else if (before++ > 0)
				effect_target_word(x, c, g.word, "git checkout");
			else
				first = g.word;
		}
	}
	if (branch || (!ended && before > 0))
		OPAQUE(x, "git checkout%s%s may switch branches and rewrite the working tree",
		       first ? " " : "", first ? c->words[first] : "");
	effect_appended(x, c, "git checkout");
}

static void judge_git_restore(struct ctx *x, const roz_shell_cmd *c, size_t at)
{
	static const char *const lval[] = {"source", "pathspec-from-file", NULL};
	struct args a;
	struct arg g;
	bool staged = false, worktree = false;

	effect_args_init(&a, c, at, "s", NULL, lval);
	while (effect_arg_next(&a, &g)) {
		staged = staged || effect_flag(&g, 'S', "staged");
		worktree = worktree || effect_flag(&g, 'W', "worktree");
	}
	if (staged && !worktree) {
		OPAQUE(x, "git restore --staged changes the index");
		return;
	}
	effect_args_init(&a, c, at, "s", NULL, lval);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND)
			effect_target_word(x, c, g.word, "git restore");
		else if (effect_long_is(&g, "pathspec-from-file"))
			effect_target(x, NULL, 0, false, "git restore");
	}
	effect_appended(x, c, "git restore");
}

static void judge_git_rm_mv(struct ctx *x, const roz_shell_cmd *c, size_t at, const char *how)
{
	static const char *const lval[] = {"pathspec-from-file", NULL};
	struct args a;
	struct arg g;

	effect_args_init(&a, c, at, NULL, NULL, lval);
	while (effect_arg_next(&a, &g))
		if (effect_long_is(&g, "cached")) {
			OPAQUE(x, "git rm --cached changes the index");
			return;
		}
	effect_args_init(&a, c, at, NULL, NULL, lval);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND)
			effect_target_word(x, c, g.word, how);
		else if (effect_long_is(&g, "pathspec-from-file"))
			effect_target(x, NULL, 0, false, how);
	}
	effect_appended(x, c, how);
}

static void judge_git_clean(struct ctx *x, const roz_shell_cmd *c, size_t at)
{
	static const char *const lval[] = {"exclude", NULL};
	struct args a;
	struct arg g;
	bool paths = false;

	effect_args_init(&a, c, at, "e", NULL, lval);
	while (effect_arg_next(&a, &g))
		if (effect_flag(&g, 'n', "dry-run"))
			return;
	effect_args_init(&a, c, at, "e", NULL, lval);
	while (effect_arg_next(&a, &g))
		if (g.kind == ARG_OPERAND) {
			effect_target_word(x, c, g.word, "git clean");
			paths = true;
		}
	if (!paths)
		effect_target(x, ".", 1, true, "git clean");
}

/* Every option is one of `allowed` (short letters, long names); counts operands. */
static bool git_only(const roz_shell_cmd *c, size_t at, const char *shorts,
		     const char *const *longs, const char *const *lval, size_t *nops, bool *listing,
		     const char *list_shorts)
{
	struct args a;
	struct arg g;

	*nops = 0;
	effect_args_init(&a, c, at, NULL, "n", lval);
	while (effect_arg_next(&a, &g)) {
		if (g.kind == ARG_OPERAND) {
			(*nops)++;
		} else if (g.kind == ARG_SHORT) {
			if (!strchr(shorts, g.ch))
				return false;
			if (listing && strchr(list_shorts, g.ch))
				*listing = true;
		} else if (g.kind == ARG_LONG) {
			bool ok = false;

			for (size_t k = 0; longs[k] && !ok; k++)
				ok = effect_long_is(&g, longs[k]);
			if (!ok)
				return false;
			if (listing && !effect_long_is(&g, "color") && !effect_long_is(&g, "no-color") &&
			    !effect_long_is(&g, "verbose") && !effect_long_is(&g, "column") &&
			    !effect_long_is(&g, "no-column") && !effect_long_is(&g, "ignore-case"))
				*listing = true;
		}
	}
	return true;
}

static bool git_reads(const roz_shell_cmd *c, const char *sub, size_t at)
{
	static const char *const branch_longs[] = {
		"list", "all", "remotes", "verbose", "contains", "no-contains", "merged",
		"no-merged", "points-at", "sort", "format", "color", "no-color", "column",
		"no-column", "show-current", "abbrev", "no-abbrev", "ignore-case", "omit-empty", NULL};
	static const char *const branch_lval[] = {"contains", "no-contains", "points-at", "sort",
						  "format", NULL};
	size_t nops = 0, n = c->nwords - at;
	const char *first = n ? c->words[at] : "";
	bool listing = false;

	if (!strcmp(sub, "branch"))
		return git_only(c, at, "arvl", branch_longs, branch_lval, &nops, &listing, "arl") &&
		       (nops == 0 || listing);
	if (!strcmp(sub, "tag"))
		return git_only(c, at, "lni", branch_longs, branch_lval, &nops, &listing, "l") &&
		       (nops == 0 || listing);
	if (!strcmp(sub, "stash"))
		return !strcmp(first, "list") || !strcmp(first, "show");
	if (!strcmp(sub, "worktree"))
		return !strcmp(first, "list");
	if (!strcmp(sub, "reflog"))
		return !n || first[0] == '-' || !strcmp(first, "show") || !strcmp(first, "exists");
	if (!strcmp(sub, "remote")) {
		static const char *const longs[] = {"verbose", NULL};

		return !strcmp(first, "show") || !strcmp(first, "get-url") ||
		       (git_only(c, at, "v", longs, NULL, &nops, NULL, "") && nops == 0);
	}
	if (!strcmp(sub, "config")) {
		static const char *const getters[] = {"get", "get-all", "get-regexp", "get-urlmatch",
						      "list", "get-color", "get-colorbool", NULL};
		static const char *const quiet[] = {"global", "local", "system", "worktree", "file",
						    "show-origin", "show-scope", "null", "name-only",
						    "type", "includes", "no-includes", "bool", "int",
						    "path", "default", NULL};
		static const char *const lval[] = {"file", "type", "default", "blob", NULL};

		if (!strcmp(first, "list") || !strcmp(first, "get"))
			return true;
		for (size_t i = at; i < c->nwords; i++) {
			const char *s = c->words[i];

			if (!strcmp(s, "-l"))
				return true;
			if (!strncmp(s, "--", 2)) {
				for (size_t k = 0; getters[k]; k++) {
					size_t len = strlen(getters[k]);

					if (!strncmp(s + 2, getters[k], len) && (!s[2 + len] || s[2 + len] == '='))
						return true;
				}
			}
		}
		/* `git config key` reads one value; `git config key value` sets it */
		return git_only(c, at, "fz", quiet, lval, &nops, NULL, "") && nops == 1;
	}
	static const char *const readers[] = {
		"status", "log", "diff", "show", "blame", "annotate", "grep", "rev-parse",
		"ls-files", "ls-tree", "cat-file", "describe", "shortlog", "merge-base", "rev-list",
		"name-rev", "for-each-ref", "show-ref", "count-objects", "check-ignore",
		"check-attr", "ls-remote", "whatchanged", "diff-tree", "diff-files", "diff-index",
		"cherry", "var", "version", "help", "show-branch", "range-diff", "verify-commit",
		"verify-tag", NULL};
	return effect_in_list(readers, sub);
}

/* `-c core.pager=cat`, `-c pager.log=false`: the pager turned off, which runs nothing. */
static bool no_pager(const char *kv, size_t klen)
{
	const char *v = kv[klen] == '=' ? kv + klen + 1 : "";

	if (klen == 10 && !strncasecmp(kv, "core.pager", 10))
		return !*v || !strcmp(v, "cat");
	if (klen > 6 && !strncasecmp(kv, "pager.", 6) && !memchr(kv + 6, '.', klen - 6))
		return !*v || !strcmp(v, "cat") || !strcmp(v, "false") || !strcmp(v, "no") ||
		       !strcmp(v, "off") || !strcmp(v, "0");
	return false;
}

/*
 * A global option that hands git a program, or configuration that may name
 * one: `-c core.pager=...`, `-c alias.x=!...`, `-c include.path=...`,
 * `--config-env`, `--exec-path=DIR`. Only keys that change how git shows
 * what it reads keep the line read-only.
 */
static void git_global(struct ctx *x, const roz_shell_cmd *c, size_t i)
{
	const char *s = c->words[i];

	if (!strcmp(s, "-c") && i + 1 < c->nwords) {
		const char *kv = c->words[i + 1];
		size_t klen = strcspn(kv, "=");

		if (!effect_word_static(c, i + 1) ||
		    !(effect_git_key_harmless(kv, klen) || no_pager(kv, klen)))
			OPAQUE(x, "git -c %.*s may run a program it names", (int)klen, kv);
	} else if (!strncmp(s, "--config-env", 12) && (!s[12] || s[12] == '=')) {
		OPAQUE(x, "git --config-env may run a program the configuration names");
	} else if (!strncmp(s, "--exec-path=", 12)) {
		OPAQUE(x, "git --exec-path runs git's programs from the directory it names");
	}
}

/*
 * `s` is a URL `<transport>::<address>`, which git reaches by running the
 * program git-remote-<transport> (`ext::` runs a command of the URL's own):
 * the length of <transport>, or 0.
 */
static size_t remote_helper(const char *s)
{
	size_t n = 0;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	while (s[n] && (s[n] == '+' || s[n] == '.' || s[n] == '-' || (s[n] >= '0' && s[n] <= '9') ||
			(s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z')))
		n++;
	return s[n] == ':' && s[n + 1] == ':' ? n : 0;
}

static void judge_git_command(struct ctx *x, const roz_shell_cmd *c, size_t i);

void effect_judge_git(struct ctx *x, const roz_shell_cmd *c)
{
	static const char *const valued[] = {"-C", "-c", "--git-dir", "--work-tree", "--namespace",
					     "--super-prefix", "--config-env", "--attr-source",
					     "--list-cmds", NULL};
	size_t i = 1;

	while (i < c->nwords && c->words[i][0] == '-') {
		const char *s = c->words[i];

		if (!strcmp(s, "-C") || !strncmp(s, "--work-tree", 11))
			x->cd = true;
		i += (effect_in_list(valued, s) ? 2 : 1);
	}
	judge_git_command(x, c, i);
	/* after the subcommand, so that `git -c a.b=c push` is refused as a push */
	for (size_t k = 1; k < i && k < c->nwords; k += (effect_in_list(valued, c->words[k]) ? 2 : 1))
		git_global(x, c, k);
}

/* The subcommand at word i and what follows it. */
static void judge_git_command(struct ctx *x, const roz_shell_cmd *c, size_t i)
{
	if (i >= c->nwords)
		return;
	if (!effect_word_static(c, i)) {
		OPAQUE(x, "git with a subcommand known only when the line runs may change files");
		return;
	}
	const char *sub = c->words[i++];

	if (i + 1 == c->nwords && !strcmp(c->words[i], "--help") && effect_word_static(c, i))
		return; /* `git commit --help` is `git help commit` */
	if (!strcmp(sub, "checkout"))
		judge_git_checkout(x, c, i);
	else if (!strcmp(sub, "restore"))
		judge_git_restore(x, c, i);
	else if (!strcmp(sub, "rm") || !strcmp(sub, "mv"))
		judge_git_rm_mv(x, c, i, !strcmp(sub, "rm") ? "git rm" : "git mv");
	else if (!strcmp(sub, "clean"))
		judge_git_clean(x, c, i);
	else if (!git_reads(c, sub, i))
		OPAQUE(x, "git %s may change files", sub);
	else if (!effect_args_static(c))
		OPAQUE(x, "git %s with arguments computed when the line runs may write files", sub);
	else {
		for (size_t k = i; k < c->nwords; k++) {
			const char *s = c->words[k];

			if (!strncmp(s, "--output=", 9)) {
				struct arg g = {.val = s + 9, .val_word = k};

				effect_target_value(x, c, &g, "git --output");
			} else if (!strcmp(s, "--output") && k + 1 < c->nwords) {
				effect_target_word(x, c, ++k, "git --output");
			} else if (!strcmp(sub, "grep") &&
				   (!strncmp(s, "-O", 2) || !strncmp(s, "--open-files-in-pager", 21))) {
				OPAQUE(x, "git grep -O runs a pager program");
			} else if (!strcmp(sub, "ls-remote") &&
				   (!strncmp(s, "--upload-pack", 13) || !strncmp(s, "--exec", 6) ||
				    (s[0] == '-' && s[1] != '-' && strchr(s, 'u')))) {
				OPAQUE(x, "git ls-remote --upload-pack runs the program it names");
			} else if (s[0] != '-' && remote_helper(s)) {
				OPAQUE(x, "git %s %s runs the remote helper git-remote-%.*s", sub, s,
				       (int)remote_helper(s), s);
			}
		}
	}
}
