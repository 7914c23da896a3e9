/*
 * destructive.c - the commands that destroy work, judged one simple command
 * at a time as the shell reader reports them (rules in roz/destructive.h).
 *
 * Each rule reads the arguments the way the tool does (combined short
 * options, `--`, values), because a guard that matches text is beaten by
 * `-r -f` or fooled by `echo "rm -rf"`. When a rule cannot tell (a computed
 * operand), it errs on asking: a needless question costs a click.
 */
#include "roz/destructive.h"

#include <ctype.h>
#include <string.h>

#include "roz/glob.h"
#include "roz/path.h"

static const char *const rule_names[] = {
	"rm-recursive", "git-push-force", "git-reset-hard", "git-checkout-discard",
	"git-restore-worktree", "git-clean-force", "git-branch-force-delete", "git-stash-drop",
	"find-delete", "dd-output", "mkfs", "shred", "chmod-recursive-root", "sql-drop",
	"git-switch-discard", "git-rm-force", "git-checkout-index-force", "dropdb", "blkdiscard", NULL};

const char *const *roz_destructive_rule_names(size_t *n)
{
	if (n)
		*n = sizeof rule_names / sizeof rule_names[0] - 1;
	return rule_names;
}

void roz_destructive_hit_dispose(roz_destructive_hit *hit)
{
	if (!hit)
		return;
	roz_free(hit->command);
	roz_free(hit->reason);
	memset(hit, 0, sizeof *hit);
}

struct judge {
	const roz_destructive_opts *o;
	bool nomem;
};

/* ---- reading options --------------------------------------------------- */

/*
 * Each program's options are listed as the program has them, so `--ha` is
 * read as git reads it: an unambiguous prefix of one long option is that
 * option, and a prefix of several is refused (GNU getopt_long and git's
 * parse-options agree on that). The lists are of git 2.39 and GNU coreutils
 * 9; an option a newer version adds can only make a prefix ambiguous, which
 * makes the program refuse it, so a stale list errs on asking.
 */

enum { ARG_NO, ARG_NEXT, ARG_EQ }; /* no value; `=v` or the next word; only `=v` */

struct opt {
	char ch;          /* short letter, or 0 */
	const char *name; /* long name, or NULL */
	unsigned char arg;
	unsigned means;   /* what it means to the rule: the rule's own bits */
};

struct prog {
	bool git;                /* git's parse-options: `--no-<name>` negates <name> */
	const struct opt *opts;  /* ends with a zeroed entry */
};

/* The arguments of one command, read in order: options folded into what they mean. */
struct args {
	const roz_shell_cmd *c;
	const struct prog *p;
	size_t i;      /* the next word */
	bool ended;    /* after `--` */
	unsigned may;  /* every meaning an option could have (a computed option could be any) */
	unsigned must; /* the meanings options surely have; `--no-<name>` takes <name>'s away */
};

static bool is_option(const roz_shell_cmd *c, size_t i)
{
	const char *s = c->words[i];

	return s[0] == '-' && s[1] && c->info[i].known > 0;
}

/* `--name` or `--name=value`: the whole name, or a prefix as the program takes it. */
static void read_long(struct args *a, size_t i)
{
	const char *w = a->c->words[i], *name = w + 2;
	size_t n = strcspn(name, "="), known = a->c->info[i].known;
	const struct opt *o, *hit = NULL;
	unsigned all = ~0u, any = 0;
	size_t count = 0;

	if (known < n + 2) {
		/* computed: it could become any option its known start begins */
		size_t kn = known > 2 ? known - 2 : 0;

		for (o = a->p->opts; o->ch || o->name; o++)
			if (o->name && !strncmp(o->name, name, kn))
				any |= o->means;
		a->may |= any;
		if (a->p->git && !strncmp(name, "no-", kn < 3 ? kn : 3))
			a->must = 0; /* it could be a `--no-...` taking any away */
		return;
	}
	for (o = a->p->opts; (o->ch || o->name) && !hit; o++)
		if (o->name && strlen(o->name) == n && !strncmp(o->name, name, n))
			hit = o;
	if (!hit && a->p->git && n > 3 && !strncmp(name, "no-", 3)) {
		/* git's negation of an option, named whole or by a prefix */
		for (o = a->p->opts; o->ch || o->name; o++)
			if (o->name && strlen(o->name) >= n - 3 && !strncmp(o->name, name + 3, n - 3))
				a->must &= ~o->means;
		return;
	}
	if (!hit) {
		for (o = a->p->opts; o->ch || o->name; o++)
			if (o->name && strlen(o->name) > n && !strncmp(o->name, name, n)) {
				hit = o;
				all &= o->means;
				count++;
			}
		if (!count)
			return; /* not an option of the program's: it refuses the line */
		if (count > 1) {
			/* ambiguous: the program refuses it, but when every reading means
			 * the same, a version lacking one of them would take it */
			a->may |= all;
			a->must |= all;
			return;
		}
	}
	a->may |= hit->means;
	a->must |= hit->means;
	if (hit->arg == ARG_NEXT && !name[n])
		a->i++;
}

/* `-xyz`: letters up to one that takes a value (the rest of the word, or the next word). */
static void read_short(struct args *a, size_t i)
{
	const char *w = a->c->words[i];
	size_t known = a->c->info[i].known;

	for (size_t k = 1; w[k]; k++) {
		const struct opt *o = NULL;

		if (k >= known) {
			/* computed from here: it could hold any letter */
			for (o = a->p->opts; o->ch || o->name; o++)
				if (o->ch)
					a->may |= o->means;
			return;
		}
		for (const struct opt *p = a->p->opts; (p->ch || p->name) && !o; p++)
			if (p->ch == w[k])
				o = p;
		if (!o)
			continue; /* an unknown letter: the program refuses the line; read on */
		a->may |= o->means;
		a->must |= o->means;
		if (o->arg != ARG_NO) {
			if (o->arg == ARG_NEXT && !w[k + 1])
				a->i++;
			return;
		}
	}
}

/* Reads options up to the next operand: true with its index in *at, false at the end. */
static bool next_operand(struct args *a, size_t *at)
{
	while (a->i < a->c->nwords) {
		size_t i = a->i++;
		const char *w = a->c->words[i];

		if (a->ended || !is_option(a->c, i)) {
			*at = i;
			return true;
		}
		if (!strcmp(w, "--"))
			a->ended = true;
		else if (w[1] == '-')
			read_long(a, i);
		else
			read_short(a, i);
	}
	return false;
}

/* Reads every argument from word `from`; returns how many operands there are. */
static size_t read_all(struct args *a, const roz_shell_cmd *c, const struct prog *p, size_t from)
{
	size_t at, n = 0;

	memset(a, 0, sizeof *a);
	a->c = c;
	a->p = p;
	a->i = from;
	while (next_operand(a, &at))
		n++;
	return n;
}

/* Index of git's subcommand word after its global options, or 0. */
static size_t git_sub(const roz_shell_cmd *c)
{
	static const char *const valued[] = {"-C", "-c", "--git-dir", "--work-tree", "--namespace",
					     "--super-prefix", "--config-env", "--attr-source",
					     "--list-cmds", NULL};
	size_t i = 1;

	while (i < c->nwords && c->words[i][0] == '-') {
		bool v = false;

		for (size_t k = 0; valued[k]; k++)
			v = v || !strcmp(c->words[i], valued[k]);
		i += v ? 2 : 1;
	}
	return i < c->nwords && c->info[i].known == strlen(c->words[i]) ? i : 0;
}

/* The git subcommand `name` is what `c` runs: its index, or 0. */
static size_t git_is(const roz_shell_cmd *c, const char *name)
{
	size_t s = git_sub(c);

	return s && !strcmp(c->words[s], name) ? s : 0;
}

/* ---- rm -r ------------------------------------------------------------- */

enum { RM_RECURSIVE = 1 };

static const struct opt rm_opts[] = {
	{'f', "force", ARG_NO, 0}, {'i', NULL, ARG_NO, 0}, {'I', NULL, ARG_NO, 0},
	{0, "interactive", ARG_EQ, 0}, {0, "one-file-system", ARG_NO, 0},
	{0, "no-preserve-root", ARG_NO, 0}, {0, "preserve-root", ARG_EQ, 0},
	{'r', "recursive", ARG_NO, RM_RECURSIVE}, {'R', NULL, ARG_NO, RM_RECURSIVE},
	{'d', "dir", ARG_NO, 0}, {'v', "verbose", ARG_NO, 0}, {0, "help", ARG_NO, 0},
	{0, "version", ARG_NO, 0}, {0, "-presume-input-tty", ARG_NO, 0}, {0}};
static const struct prog rm_prog = {false, rm_opts};

/* `path` (absolute, normalized) lies inside one of the tmp dirs (strictly, unless a glob's directory). */
static bool under_tmp(struct judge *j, const char *path, bool glob)
{
	const roz_destructive_opts *o = j->o;
	bool inside = false;

	for (size_t t = 0; t < o->ntmp && !inside; t++) {
		char *tmp = NULL;
		int rc = roz_path_normalize(o->cwd, o->home, o->tmp_dirs[t], &tmp);

		if (rc == ROZ_ENOMEM)
			j->nomem = true;
		if (rc == ROZ_OK && strcmp(tmp, "/"))
			inside = roz_path_under(path, tmp) && (glob || strcmp(path, tmp));
		roz_free(tmp);
	}
	return inside;
}

/* The operand lies strictly inside one of the tmp dirs, as written and where it leads, away from the repository. */
static bool inside_tmp(struct judge *j, const roz_shell_cmd *c, size_t i)
{
	const roz_destructive_opts *o = j->o;
	const char *w = c->words[i];
	const roz_shell_word *info = &c->info[i];
	char *path = NULL, *dir_text = NULL;
	bool inside = false, glob = false;

	if (info->known == strlen(w) && !info->parts) {
		path = NULL;
	} else if (info->parts == ROZ_SHELL_PART_GLOB) {
		/* a glob matches names in the directory its known start names */
		const char *slash = NULL;

		for (size_t k = 0; k < info->known; k++)
			if (w[k] == '/')
				slash = w + k;
		if (!slash)
			dir_text = roz_strdup(".");
		else
			dir_text = roz_strndup(w, (size_t)(slash - w) + 1);
		if (!dir_text) {
			j->nomem = true;
			return false;
		}
		glob = true;
	} else {
		return false;
	}
	int rc = roz_path_normalize(o->cwd, o->home, glob ? dir_text : w, &path);
	char *real = NULL;

	if (rc == ROZ_OK && o->paths)
		rc = roz_path_resolve(o->paths, o->cwd, glob ? dir_text : w, &real);
	roz_free(dir_text);
	if (rc == ROZ_ENOMEM)
		j->nomem = true;
	if (rc != ROZ_OK) {
		roz_free(path);
		return false;
	}
	/* where the path is written and where its links lead must both be a temporary directory's */
	inside = under_tmp(j, path, glob) && (!real || under_tmp(j, real, glob));
	/* and neither may hold the repository, or lie in it (a checkout under /tmp is someone's work) */
	if (inside && o->repo)
		inside = !roz_path_under(o->repo, path) && !roz_path_under(path, o->repo) &&
			 (!real || (!roz_path_under(o->repo, real) && !roz_path_under(real, o->repo)));
	roz_free(path);
	roz_free(real);
	return inside;
}

static const char *rule_rm(struct judge *j, const roz_shell_cmd *c)
{
	struct args a = {.c = c, .p = &rm_prog, .i = 1};
	bool outside = c->more_args;
	size_t at;

	if (strcmp(c->words[0], "rm"))
		return NULL;
	while (next_operand(&a, &at))
		if (!inside_tmp(j, c, at))
			outside = true;
	return a.may & RM_RECURSIVE && outside
		       ? "it deletes whole directory trees outside the temporary directories"
		       : NULL;
}

/* ---- git ---------------------------------------------------------------- */

/* What git's options mean to the rules (each rule reads only its own). */
enum {
	G_FORCE = 1 << 0,     /* push: rewrites the remote; clean, rm, checkout...: overwrites */
	G_DRY = 1 << 1,       /* -n/--dry-run */
	G_HARD = 1 << 2,      /* reset --hard, --merge */
	G_BRANCH = 1 << 3,    /* checkout -b/-B/--orphan: creates a branch */
	G_PATHS = 1 << 4,     /* checkout --ours/--theirs: the operands are paths */
	G_STAGED = 1 << 5,    /* restore --staged */
	G_WORKTREE = 1 << 6,  /* restore --worktree */
	G_DELETE = 1 << 7,    /* branch -d */
	G_CACHED = 1 << 8,    /* rm --cached: the index only */
	G_ALL = 1 << 9,       /* -a, --stdin, --pathspec-from-file: paths beyond the operands */
	G_TEMP = 1 << 10      /* checkout-index --temp: writes temporary files, not the tree */
};

static const struct opt push_opts[] = {
	{'v', "verbose", ARG_NO, 0}, {'q', "quiet", ARG_NO, 0}, {0, "repo", ARG_NEXT, 0},
	{0, "all", ARG_NO, 0}, {0, "mirror", ARG_NO, G_FORCE}, {'d', "delete", ARG_NO, G_FORCE},
	{0, "tags", ARG_NO, 0}, {'n', "dry-run", ARG_NO, G_DRY}, {0, "porcelain", ARG_NO, 0},
	{'f', "force", ARG_NO, G_FORCE}, {0, "force-with-lease", ARG_EQ, G_FORCE},
	{0, "force-if-includes", ARG_NO, G_FORCE}, {0, "recurse-submodules", ARG_NEXT, 0},
	{0, "thin", ARG_NO, 0}, {0, "receive-pack", ARG_NEXT, 0}, {0, "exec", ARG_NEXT, 0},
	{'u', "set-upstream", ARG_NO, 0}, {0, "progress", ARG_NO, 0}, {0, "prune", ARG_NO, G_FORCE},
	{0, "no-verify", ARG_NO, 0}, {0, "verify", ARG_NO, 0}, {0, "follow-tags", ARG_NO, 0},
	{0, "signed", ARG_EQ, 0}, {0, "atomic", ARG_NO, 0}, {'o', "push-option", ARG_NEXT, 0},
	{'4', "ipv4", ARG_NO, 0}, {'6', "ipv6", ARG_NO, 0}, {0}};

static const struct opt reset_opts[] = {
	{'q', "quiet", ARG_NO, 0}, {0, "no-refresh", ARG_NO, 0}, {0, "refresh", ARG_NO, 0},
	{0, "mixed", ARG_NO, 0}, {0, "soft", ARG_NO, 0}, {0, "hard", ARG_NO, G_HARD},
	{0, "merge", ARG_NO, G_HARD}, {0, "keep", ARG_NO, 0}, {0, "recurse-submodules", ARG_EQ, 0},
	{'p', "patch", ARG_NO, 0}, {'N', "intent-to-add", ARG_NO, 0},
	{0, "pathspec-from-file", ARG_NEXT, 0}, {0, "pathspec-file-nul", ARG_NO, 0}, {0}};

/* checkout and switch share most of theirs */
#define CHECKOUT_COMMON                                                                        \
	{'q', "quiet", ARG_NO, 0}, {0, "recurse-submodules", ARG_EQ, 0},                       \
	{0, "progress", ARG_NO, 0}, {'m', "merge", ARG_NO, 0}, {0, "conflict", ARG_NEXT, 0},   \
	{'d', "detach", ARG_NO, 0}, {'t', "track", ARG_EQ, 0}, {0, "guess", ARG_NO, 0},        \
	{0, "overwrite-ignore", ARG_NO, 0}, {0, "ignore-other-worktrees", ARG_NO, 0}

static const struct opt checkout_opts[] = {
	CHECKOUT_COMMON, {'f', "force", ARG_NO, G_FORCE}, {'b', NULL, ARG_NEXT, G_BRANCH},
	{'B', NULL, ARG_NEXT, G_BRANCH}, {0, "orphan", ARG_NEXT, G_BRANCH}, {'l', NULL, ARG_NO, 0},
	{0, "overlay", ARG_NO, 0}, {'2', "ours", ARG_NO, G_PATHS}, {'3', "theirs", ARG_NO, G_PATHS},
	{'p', "patch", ARG_NO, 0}, {0, "ignore-skip-worktree-bits", ARG_NO, 0},
	{0, "pathspec-from-file", ARG_NEXT, G_ALL}, {0, "pathspec-file-nul", ARG_NO, 0}, {0}};

static const struct opt switch_opts[] = {
	CHECKOUT_COMMON, {'f', "force", ARG_NO, G_FORCE}, {0, "discard-changes", ARG_NO, G_FORCE},
	{'c', "create", ARG_NEXT, 0}, {'C', "force-create", ARG_NEXT, 0}, {0, "orphan", ARG_NEXT, 0},
	{0}};

static const struct opt restore_opts[] = {
	{'s', "source", ARG_NEXT, 0}, {'S', "staged", ARG_NO, G_STAGED},
	{'W', "worktree", ARG_NO, G_WORKTREE}, {0, "ignore-unmerged", ARG_NO, 0},
	{0, "overlay", ARG_NO, 0}, {'q', "quiet", ARG_NO, 0}, {0, "recurse-submodules", ARG_EQ, 0},
	{0, "progress", ARG_NO, 0}, {'m', "merge", ARG_NO, 0}, {0, "conflict", ARG_NEXT, 0},
	{'2', "ours", ARG_NO, 0}, {'3', "theirs", ARG_NO, 0}, {'p', "patch", ARG_NO, 0},
	{0, "ignore-skip-worktree-bits", ARG_NO, 0}, {0, "pathspec-from-file", ARG_NEXT, 0},
	{0, "pathspec-file-nul", ARG_NO, 0}, {0}};

static const struct opt clean_opts[] = {
	{'q', "quiet", ARG_NO, 0}, {'n', "dry-run", ARG_NO, G_DRY}, {'f', "force", ARG_NO, G_FORCE},
	{'i', "interactive", ARG_NO, 0}, {'d', NULL, ARG_NO, 0}, {'e', "exclude", ARG_NEXT, 0},
	{'x', NULL, ARG_NO, 0}, {'X', NULL, ARG_NO, 0}, {0}};

static const struct opt branch_opts[] = {
	{'v', "verbose", ARG_NO, 0}, {'q', "quiet", ARG_NO, 0}, {'t', "track", ARG_EQ, 0},
	{0, "set-upstream", ARG_NO, 0}, {'u', "set-upstream-to", ARG_NEXT, 0},
	{0, "unset-upstream", ARG_NO, 0}, {0, "color", ARG_EQ, 0}, {'r', "remotes", ARG_NO, 0},
	{0, "contains", ARG_NEXT, 0}, {0, "no-contains", ARG_NEXT, 0}, {0, "with", ARG_NEXT, 0},
	{0, "without", ARG_NEXT, 0}, {0, "abbrev", ARG_EQ, 0}, {'a', "all", ARG_NO, 0},
	{'d', "delete", ARG_NO, G_DELETE}, {'D', NULL, ARG_NO, G_DELETE | G_FORCE},
	{'m', "move", ARG_NO, 0}, {'M', NULL, ARG_NO, 0}, {'c', "copy", ARG_NO, 0},
	{'C', NULL, ARG_NO, 0}, {'l', "list", ARG_NO, 0}, {0, "show-current", ARG_NO, 0},
	{0, "create-reflog", ARG_NO, 0}, {0, "edit-description", ARG_NO, 0},
	{'f', "force", ARG_NO, G_FORCE}, {0, "merged", ARG_NEXT, 0}, {0, "no-merged", ARG_NEXT, 0},
	{0, "column", ARG_EQ, 0}, {0, "sort", ARG_NEXT, 0}, {0, "points-at", ARG_NEXT, 0},
	{'i', "ignore-case", ARG_NO, 0}, {0, "recurse-submodules", ARG_NO, 0},
	{0, "format", ARG_NEXT, 0}, {0}};

static const struct opt rm_git_opts[] = {
	{'n', "dry-run", ARG_NO, G_DRY}, {'q', "quiet", ARG_NO, 0}, {0, "cached", ARG_NO, G_CACHED},
	{'f', "force", ARG_NO, G_FORCE}, {'r', NULL, ARG_NO, 0}, {0, "ignore-unmatch", ARG_NO, 0},
	{0, "sparse", ARG_NO, 0}, {0, "pathspec-from-file", ARG_NEXT, 0},
	{0, "pathspec-file-nul", ARG_NO, 0}, {0}};

static const struct opt checkout_index_opts[] = {
	{'a', "all", ARG_NO, G_ALL}, {0, "ignore-skip-worktree-bits", ARG_NO, 0},
	{'f', "force", ARG_NO, G_FORCE}, {'q', "quiet", ARG_NO, 0}, {'n', "no-create", ARG_NO, 0},
	{0, "create", ARG_NO, 0}, {'u', "index", ARG_NO, 0}, {'z', NULL, ARG_NO, 0},
	{0, "stdin", ARG_NO, G_ALL}, {0, "temp", ARG_NO, G_TEMP}, {0, "prefix", ARG_NEXT, 0},
	{0, "stage", ARG_NEXT, 0}, {0}};

static const struct prog push_prog = {true, push_opts}, reset_prog = {true, reset_opts},
			 checkout_prog = {true, checkout_opts}, switch_prog = {true, switch_opts},
			 restore_prog = {true, restore_opts}, clean_prog = {true, clean_opts},
			 branch_prog = {true, branch_opts}, rm_git_prog = {true, rm_git_opts},
			 checkout_index_prog = {true, checkout_index_opts};

static const char *const lose_changes = "it overwrites uncommitted changes in the working tree";

static const char *rule_git_push(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "push"), ops = 0, at;
	struct args a = {.c = c, .p = &push_prog, .i = s + 1};
	bool refspec = false;

	(void)j;
	if (!s)
		return NULL;
	while (next_operand(&a, &at)) {
		const char *w = c->words[at];

		if (ops++ > 0 && c->info[at].known > 0 && (w[0] == '+' || w[0] == ':'))
			refspec = true;
	}
	return (a.may & G_FORCE || refspec) && !(a.must & G_DRY)
		       ? "it rewrites or deletes history on the remote"
		       : NULL;
}

static const char *rule_git_reset(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "reset");
	struct args a;

	(void)j;
	if (!s)
		return NULL;
	read_all(&a, c, &reset_prog, s + 1);
	return a.may & G_HARD ? "it throws away uncommitted changes in the working tree" : NULL;
}

static const char *rule_git_checkout(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "checkout"), before = 0, after = 0, at;
	struct args a = {.c = c, .p = &checkout_prog, .i = s + 1};
	bool dot = false;

	(void)j;
	if (!s)
		return NULL;
	while (next_operand(&a, &at)) {
		dot = dot || !strcmp(c->words[at], ".");
		if (a.ended)
			after++;
		else
			before++;
	}
	if (a.may & (G_FORCE | G_ALL) || dot || after || (a.may & G_PATHS && before) ||
	    (!(a.must & G_BRANCH) && before >= 2))
		return lose_changes;
	return NULL;
}

static const char *rule_git_switch(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "switch");
	struct args a;

	(void)j;
	if (!s)
		return NULL;
	read_all(&a, c, &switch_prog, s + 1);
	return a.may & G_FORCE ? lose_changes : NULL;
}

static const char *rule_git_restore(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "restore");
	struct args a;

	(void)j;
	if (!s)
		return NULL;
	read_all(&a, c, &restore_prog, s + 1);
	return !(a.must & G_STAGED) || a.may & G_WORKTREE ? lose_changes : NULL;
}

static const char *rule_git_clean(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "clean");
	struct args a;

	(void)j;
	if (!s)
		return NULL;
	read_all(&a, c, &clean_prog, s + 1);
	return a.may & G_FORCE && !(a.must & G_DRY)
		       ? "it deletes untracked files, which git cannot bring back"
		       : NULL;
}

static const char *rule_git_branch(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "branch");
	struct args a;

	(void)j;
	if (!s)
		return NULL;
	read_all(&a, c, &branch_prog, s + 1);
	return a.may & G_DELETE && a.may & G_FORCE
		       ? "it deletes a branch even if its commits are merged nowhere"
		       : NULL;
}

static const char *rule_git_stash(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_sub(c);

	(void)j;
	if (!s || strcmp(c->words[s], "stash") || s + 1 >= c->nwords)
		return NULL;
	const char *w = c->words[s + 1];

	return !strcmp(w, "drop") || !strcmp(w, "clear") ? "it deletes stashed changes" : NULL;
}

static const char *rule_git_rm(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "rm");
	struct args a;

	(void)j;
	if (!s)
		return NULL;
	read_all(&a, c, &rm_git_prog, s + 1);
	return a.may & G_FORCE && !(a.must & (G_CACHED | G_DRY))
		       ? "it deletes files even when they hold changes git has not recorded"
		       : NULL;
}

static const char *rule_git_checkout_index(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_is(c, "checkout-index"), ops;
	struct args a;

	(void)j;
	if (!s)
		return NULL;
	ops = read_all(&a, c, &checkout_index_prog, s + 1);
	return a.may & G_FORCE && !(a.must & G_TEMP) && (ops || a.may & G_ALL) ? lose_changes : NULL;
}

/* ---- the rest ------------------------------------------------------------ */

static const char *const finds_delete = "it deletes every file it finds";

static const char *rule_find(struct judge *j, const roz_shell_cmd *c)
{
	static const char *const valued[] = {
		"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex",
		"-iregex", "-lname", "-ilname", "-type", "-xtype", "-user", "-group", "-perm",
		"-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-samefile",
		"-maxdepth", "-mindepth", "-printf", "-fprint", "-fprint0", "-fls", "-context", NULL};

	(void)j;
	if (strcmp(c->words[0], "find"))
		return NULL;
	for (size_t i = 1; i < c->nwords; i++) {
		const char *w = c->words[i];
		bool v = !strncmp(w, "-newer", 6);

		if (!strcmp(w, "-exec") || !strcmp(w, "-execdir") || !strcmp(w, "-ok") ||
		    !strcmp(w, "-okdir")) {
			while (i + 1 < c->nwords && strcmp(c->words[i + 1], ";") &&
			       strcmp(c->words[i + 1], "+"))
				i++;
			continue;
		}
		if (!strcmp(w, "-delete"))
			return finds_delete;
		for (size_t k = 0; valued[k] && !v; k++)
			v = !strcmp(w, valued[k]);
		if (v)
			i++;
	}
	return NULL;
}

/*
 * rm or unlink given the paths find finds (`find . -exec rm {} +`, also through
 * -execdir, -ok, or a wrapper between them): the shell reader marks the `{}`.
 */
static const char *rule_find_rm(struct judge *j, const roz_shell_cmd *c)
{
	(void)j;
	if (strcmp(c->words[0], "rm") && strcmp(c->words[0], "unlink"))
		return NULL;
	for (size_t i = 1; i < c->nwords; i++)
		if (c->info[i].parts & ROZ_SHELL_PART_FOUND)
			return finds_delete;
	return NULL;
}

static const char *rule_dd(struct judge *j, const roz_shell_cmd *c)
{
	(void)j;
	if (strcmp(c->words[0], "dd"))
		return NULL;
	for (size_t i = 1; i < c->nwords; i++)
		if (!strncmp(c->words[i], "of=", 3) && strcmp(c->words[i], "of=/dev/null"))
			return "it overwrites its output file or device in place";
	return NULL;
}

static const char *rule_mkfs(struct judge *j, const roz_shell_cmd *c)
{
	const char *n = c->words[0];

	(void)j;
	return !strcmp(n, "mkfs") || !strncmp(n, "mkfs.", 5) || !strcmp(n, "mke2fs") ||
			       !strcmp(n, "mkswap") || !strcmp(n, "wipefs")
		       ? "it erases a file system"
		       : NULL;
}

static const char *rule_shred(struct judge *j, const roz_shell_cmd *c)
{
	(void)j;
	return !strcmp(c->words[0], "shred") ? "it overwrites files so they cannot be recovered" : NULL;
}

/* Only asks the program about itself: `--help` or `--version` anywhere. */
static bool asks_help(const roz_shell_cmd *c)
{
	for (size_t i = 1; i < c->nwords; i++)
		if (!strcmp(c->words[i], "--help") || !strcmp(c->words[i], "--version"))
			return true;
	return false;
}

static const char *rule_blkdiscard(struct judge *j, const roz_shell_cmd *c)
{
	(void)j;
	return !strcmp(c->words[0], "blkdiscard") && !asks_help(c)
		       ? "it discards every block of a device, erasing what is on it"
		       : NULL;
}

/* dropdb, or mysqladmin's drop command (which it takes by any prefix of 2 letters or more). */
static const char *rule_dropdb(struct judge *j, const roz_shell_cmd *c)
{
	const char *const why = "it deletes a whole database";

	(void)j;
	if (asks_help(c))
		return NULL;
	if (!strcmp(c->words[0], "dropdb"))
		return why;
	if (strcmp(c->words[0], "mysqladmin"))
		return NULL;
	for (size_t i = 1; i < c->nwords; i++) {
		const char *w = c->words[i];
		size_t n = strlen(w);

		if (n >= 2 && n <= 4 && !strncasecmp(w, "drop", n))
			return why;
	}
	return NULL;
}

enum { CH_RECURSIVE = 1, CH_REFERENCE = 2 };

static const struct opt chmod_opts[] = {
	{'c', "changes", ARG_NO, 0}, {'f', "silent", ARG_NO, 0}, {0, "quiet", ARG_NO, 0},
	{'v', "verbose", ARG_NO, 0}, {0, "dereference", ARG_NO, 0}, {'h', "no-dereference", ARG_NO, 0},
	{0, "no-preserve-root", ARG_NO, 0}, {0, "preserve-root", ARG_NO, 0},
	{0, "reference", ARG_NEXT, CH_REFERENCE}, {'R', "recursive", ARG_NO, CH_RECURSIVE},
	{0, "help", ARG_NO, 0}, {0, "version", ARG_NO, 0}, {0}};

static const struct opt chown_opts[] = {
	{'c', "changes", ARG_NO, 0}, {'f', "silent", ARG_NO, 0}, {0, "quiet", ARG_NO, 0},
	{'v', "verbose", ARG_NO, 0}, {0, "dereference", ARG_NO, 0}, {'h', "no-dereference", ARG_NO, 0},
	{0, "from", ARG_NEXT, 0}, {0, "no-preserve-root", ARG_NO, 0}, {0, "preserve-root", ARG_NO, 0},
	{0, "reference", ARG_NEXT, CH_REFERENCE}, {'R', "recursive", ARG_NO, CH_RECURSIVE},
	{0, "help", ARG_NO, 0}, {0, "version", ARG_NO, 0}, {0}};

static const struct prog chmod_prog = {false, chmod_opts}, chown_prog = {false, chown_opts};

static const char *rule_chmod(struct judge *j, const roz_shell_cmd *c)
{
	static const char *const roots[] = {"/", "/home", "/etc", "/usr", "/var", "/bin", "/sbin",
					    "/lib", "/boot", "/root", "/opt", NULL};
	const char *n = c->words[0];
	bool chmod = !strcmp(n, "chmod"), recursive = false, first = true, hit = false;
	struct args a = {.c = c, .p = chmod ? &chmod_prog : &chown_prog, .i = 1};

	if (!chmod && strcmp(n, "chown") && strcmp(n, "chgrp"))
		return NULL;
	while (a.i < c->nwords) {
		size_t i = a.i++;
		const char *w = c->words[i];

		if (!a.ended && !strcmp(w, "--")) {
			a.ended = true;
			continue;
		}
		if (!a.ended && w[0] == '-' && w[1] == '-' && c->info[i].known) {
			read_long(&a, i);
			if (a.must & CH_REFERENCE)
				first = false;
			continue;
		}
		/* chmod reads `-w`, `-rwx` as a mode, not as options */
		if (!a.ended && is_option(c, i) &&
		    strspn(w + 1, chmod ? "cfvR" : "cfvRHLPh") == strlen(w + 1)) {
			recursive = recursive || strchr(w, 'R');
			continue;
		}
		if (first) {
			first = false;
			continue;
		}
		if (c->info[i].known_home < strlen(w)) {
			hit = true;
			continue;
		}
		char *path = NULL;
		int rc = roz_path_normalize(j->o->cwd, j->o->home, w, &path);

		if (rc == ROZ_ENOMEM)
			j->nomem = true;
		if (rc != ROZ_OK) {
			hit = true;
			continue;
		}
		for (size_t k = 0; roots[k]; k++)
			hit = hit || !strcmp(path, roots[k]);
		hit = hit || (j->o->home && !strcmp(path, j->o->home));
		roz_free(path);
	}
	recursive = recursive || a.may & CH_RECURSIVE;
	return recursive && hit ? "it changes permissions or owners across a whole system or home directory"
				: NULL;
}

/* ---- SQL ------------------------------------------------------------------ */

static bool word_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* `s` starts with `word` as a whole word, in any case. */
static bool word_at(const char *s, const char *word)
{
	size_t n = strlen(word);

	return !strncasecmp(s, word, n) && !word_char(s[n]);
}

/* `word` appears in `s` as a whole word, in any case; returns what follows it, or NULL. */
static const char *find_word(const char *s, const char *word)
{
	for (const char *p = s; *p; p++)
		if ((p == s || !word_char(p[-1])) && word_at(p, word))
			return p + strlen(word);
	return NULL;
}

/* The end of the comment opening at `p`, read with nesting as PostgreSQL does, or NULL. */
static const char *nested_comment_end(const char *p)
{
	size_t depth = 0;

	for (; *p; p++) {
		if (p[0] == '/' && p[1] == '*') {
			depth++;
			p++;
		} else if (p[0] == '*' && p[1] == '/') {
			p++;
			if (!--depth)
				return p + 1;
		}
	}
	return NULL;
}

/*
 * After a DROP: blanks and comments are skipped the way any of the clients'
 * dialects reads them (`--` and `#` to the end of the line, block comments
 * ending at the first close or nested, MySQL's executable `!` comments whose
 * text runs), and the kind of object that follows is looked at. Every reading
 * is tried, because one that finds an object is the one to fear; `budget`
 * bounds how many comments are followed, and asks beyond it.
 */
static bool drop_object_follows(const char *p, int budget)
{
	static const char *const objects[] = {"TABLE", "DATABASE", "SCHEMA", "VIEW", "INDEX", NULL};
	static const char *const modifiers[] = {"TEMPORARY", "MATERIALIZED", "FOREIGN", NULL};

	if (budget <= 0)
		return true; /* too many comments to follow: ask */
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if ((p[0] == '-' && p[1] == '-') || p[0] == '#') {
			if (!(p = strchr(p, '\n')))
				return false;
			continue;
		}
		if (p[0] != '/' || p[1] != '*')
			break;
		const char *flat = strstr(p + 2, "*/"), *nested = nested_comment_end(p);
		const char *code = p + 2 + (p[2] == 'M' && p[3] == '!');

		if (*code == '!') {
			for (code++; isdigit((unsigned char)*code); code++)
				;
			if (drop_object_follows(code, budget - 1))
				return true;
		}
		if (nested && (!flat || nested != flat + 2) && drop_object_follows(nested, budget - 1))
			return true;
		if (!flat)
			return false;
		p = flat + 2;
	}
	for (size_t k = 0; modifiers[k]; k++)
		if (word_at(p, modifiers[k]))
			return drop_object_follows(p + strlen(modifiers[k]), budget - 1);
	for (size_t k = 0; objects[k]; k++)
		if (word_at(p, objects[k]))
			return true;
	return false;
}

static bool sql_drops(const char *s)
{
	if (find_word(s, "TRUNCATE"))
		return true;
	for (const char *p = s; (p = find_word(p, "DROP"));)
		if (drop_object_follows(p, 6))
			return true;
	return false;
}

/* A SQL client's argument drops something, also as a value stuck to an option (`-e"DROP ..."`). */
static bool sql_word_drops(const char *w)
{
	if (sql_drops(w))
		return true;
	if (w[0] != '-' || w[1] == '-')
		return false;
	for (const char *p = w + 2; isalpha((unsigned char)p[-1]); p++)
		if ((!strncasecmp(p, "drop", 4) || !strncasecmp(p, "truncate", 8)) && sql_drops(p))
			return true;
	return false;
}

static const char *rule_sql(struct judge *j, const roz_shell_cmd *c)
{
	static const char *const clients[] = {"psql", "mysql", "mariadb", "sqlite3", "duckdb",
					      "clickhouse-client", NULL};
	const char *n = c->words[0];
	bool client = !strcmp(n, "cockroach") && c->nwords > 1 && !strcmp(c->words[1], "sql");

	(void)j;
	for (size_t k = 0; clients[k] && !client; k++)
		client = !strcmp(n, clients[k]);
	if (!client)
		return NULL;
	for (size_t i = 1; i < c->nwords; i++)
		if (sql_word_drops(c->words[i]))
			return "it drops or empties database objects";
	return NULL;
}

typedef const char *(*rule_fn)(struct judge *j, const roz_shell_cmd *c);

/* Each rule under its name in rule_names; a name may have more than one. */
static const struct {
	const char *name;
	rule_fn fn;
} rules[] = {
	{"rm-recursive", rule_rm},
	{"git-push-force", rule_git_push},
	{"git-reset-hard", rule_git_reset},
	{"git-checkout-discard", rule_git_checkout},
	{"git-restore-worktree", rule_git_restore},
	{"git-clean-force", rule_git_clean},
	{"git-branch-force-delete", rule_git_branch},
	{"git-stash-drop", rule_git_stash},
	{"find-delete", rule_find},
	{"find-delete", rule_find_rm},
	{"dd-output", rule_dd},
	{"mkfs", rule_mkfs},
	{"shred", rule_shred},
	{"chmod-recursive-root", rule_chmod},
	{"sql-drop", rule_sql},
	{"git-switch-discard", rule_git_switch},
	{"git-rm-force", rule_git_rm},
	{"git-checkout-index-force", rule_git_checkout_index},
	{"dropdb", rule_dropdb},
	{"blkdiscard", rule_blkdiscard},
};

static bool disabled(const roz_destructive_opts *o, const char *name)
{
	for (size_t i = 0; i < o->ndisabled; i++)
		if (o->disabled[i] && !strcmp(o->disabled[i], name))
			return true;
	return false;
}

static int hit_set(roz_destructive_hit *hit, const char *rule, const roz_shell_cmd *c,
		   const char *reason)
{
	hit->rule = rule;
	hit->command = roz_strdup(c->line);
	hit->reason = roz_asprintf("%s: %s.", c->line, reason);
	if (!hit->command || !hit->reason) {
		roz_destructive_hit_dispose(hit);
		roz_error_set("out of memory");
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

int roz_destructive_find(const roz_shell_result *sh, const roz_destructive_opts *o,
			 roz_destructive_hit *hit)
{
	struct judge j = {.o = o};

	memset(hit, 0, sizeof *hit);
	for (size_t i = 0; i < sh->ncmds; i++) {
		const roz_shell_cmd *c = &sh->cmds[i];

		if (!c->nwords)
			continue;
		for (size_t k = 0; k < o->nextra; k++) {
			const char *pat = o->extra[k];
			size_t len = strlen(c->line);
			bool m = c->known >= len ? roz_glob_match(pat, c->line)
						 : roz_glob_could_match(pat, c->line, c->known);

			if (m)
				return hit_set(hit, "extra", c, "it matches a destructive pattern in the config");
		}
		/* a wrapper's own line is not the command it runs, except find's -delete */
		if (c->wrapper && strcmp(c->words[0], "find"))
			continue;
		if (c->info[0].known < strlen(c->words[0]))
			continue;
		for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
			if (disabled(o, rules[r].name))
				continue;
			const char *why = rules[r].fn(&j, c);

			if (j.nomem) {
				roz_error_set("out of memory");
				return ROZ_ENOMEM;
			}
			if (why)
				return hit_set(hit, rules[r].name, c, why);
		}
	}
	return ROZ_OK;
}
