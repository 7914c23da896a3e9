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
	"find-delete", "dd-output", "mkfs", "shred", "chmod-recursive-root", "sql-drop", NULL};

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

static bool is_option(const roz_shell_cmd *c, size_t i)
{
	const char *s = c->words[i];

	return s[0] == '-' && s[1] && c->info[i].known > 0;
}

/* `--name` or `--name=...` is `full` or an abbreviation of it of 3 letters or more. */
static bool long_is(const char *word, const char *full)
{
	if (word[0] != '-' || word[1] != '-')
		return false;
	const char *name = word + 2;
	size_t n = strcspn(name, "="), len = strlen(full);

	return n <= len && (n == len || n >= 3) && !strncmp(name, full, n);
}

/* A cluster of short options `-xyz` holds `ch` before any option in `valued` ends it. */
static bool short_has(const char *word, char ch, const char *valued)
{
	if (word[0] != '-' || word[1] == '-')
		return false;
	for (const char *p = word + 1; *p; p++) {
		if (*p == ch)
			return true;
		if (valued && strchr(valued, *p))
			return false;
	}
	return false;
}

/* The short cluster ends with an option that takes the next word as its value. */
static bool short_takes_next(const char *word, const char *valued)
{
	if (word[0] != '-' || word[1] == '-' || !valued)
		return false;
	for (const char *p = word + 1; *p; p++)
		if (strchr(valued, *p))
			return !p[1];
	return false;
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

/* ---- rm -r ------------------------------------------------------------- */

/* The operand lies strictly inside one of the tmp dirs. */
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

	roz_free(dir_text);
	if (rc == ROZ_ENOMEM)
		j->nomem = true;
	if (rc != ROZ_OK)
		return false;
	for (size_t t = 0; t < o->ntmp && !inside; t++) {
		char *tmp = NULL;

		rc = roz_path_normalize(o->cwd, o->home, o->tmp_dirs[t], &tmp);
		if (rc == ROZ_ENOMEM)
			j->nomem = true;
		if (rc == ROZ_OK && strcmp(tmp, "/"))
			inside = roz_path_under(path, tmp) && (glob || strcmp(path, tmp));
		roz_free(tmp);
	}
	roz_free(path);
	return inside;
}

static const char *rule_rm(struct judge *j, const roz_shell_cmd *c)
{
	bool recursive = false, ended = false, outside = c->more_args;

	if (strcmp(c->words[0], "rm"))
		return NULL;
	for (size_t i = 1; i < c->nwords; i++) {
		const char *s = c->words[i];

		if (!ended && !strcmp(s, "--"))
			ended = true;
		else if (!ended && is_option(c, i))
			recursive = recursive || long_is(s, "recursive") || short_has(s, 'r', NULL) ||
				    short_has(s, 'R', NULL);
		else if (!inside_tmp(j, c, i))
			outside = true;
	}
	return recursive && outside ? "it deletes whole directory trees outside the temporary directories" : NULL;
}

/* ---- git ---------------------------------------------------------------- */

static const char *rule_git_push(struct judge *j, const roz_shell_cmd *c)
{
	static const char *const longs[] = {"force", "force-with-lease", "force-if-includes",
					    "mirror", "delete", "prune", NULL};
	size_t s = git_sub(c), ops = 0;
	bool ended = false;

	(void)j;
	if (!s || strcmp(c->words[s], "push"))
		return NULL;
	for (size_t i = s + 1; i < c->nwords; i++) {
		const char *w = c->words[i];

		if (!ended && !strcmp(w, "--")) {
			ended = true;
		} else if (!ended && is_option(c, i)) {
			for (size_t k = 0; longs[k]; k++)
				if (long_is(w, longs[k]))
					return "it rewrites or deletes history on the remote";
			if (short_has(w, 'f', "o") || short_has(w, 'd', "o"))
				return "it rewrites or deletes history on the remote";
			if (short_takes_next(w, "o"))
				i++;
		} else if (ops++ > 0 && c->info[i].known > 0 && (w[0] == '+' || w[0] == ':')) {
			return "it rewrites or deletes history on the remote";
		}
	}
	return NULL;
}

static const char *rule_git_reset(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_sub(c);

	(void)j;
	if (!s || strcmp(c->words[s], "reset"))
		return NULL;
	for (size_t i = s + 1; i < c->nwords && strcmp(c->words[i], "--"); i++)
		if (long_is(c->words[i], "hard") || long_is(c->words[i], "merge"))
			return "it throws away uncommitted changes in the working tree";
	return NULL;
}

static const char *rule_git_checkout(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_sub(c), before = 0, after = 0;
	bool ended = false, branch = false, force = false, dot = false;

	(void)j;
	if (!s || strcmp(c->words[s], "checkout"))
		return NULL;
	for (size_t i = s + 1; i < c->nwords; i++) {
		const char *w = c->words[i];

		if (!ended && !strcmp(w, "--")) {
			ended = true;
		} else if (!ended && is_option(c, i)) {
			force = force || long_is(w, "force") || short_has(w, 'f', "bB");
			branch = branch || short_has(w, 'b', NULL) || short_has(w, 'B', NULL) ||
				 long_is(w, "orphan");
			if (short_takes_next(w, "bB") || (long_is(w, "orphan") && !strchr(w, '=')))
				i++;
		} else {
			dot = dot || !strcmp(w, ".");
			if (ended)
				after++;
			else
				before++;
		}
	}
	if (force || dot || after || (!branch && before >= 2))
		return "it overwrites uncommitted changes in the working tree";
	return NULL;
}

static const char *rule_git_restore(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_sub(c);
	bool staged = false, worktree = false;

	(void)j;
	if (!s || strcmp(c->words[s], "restore"))
		return NULL;
	for (size_t i = s + 1; i < c->nwords && strcmp(c->words[i], "--"); i++) {
		const char *w = c->words[i];

		staged = staged || long_is(w, "staged") || short_has(w, 'S', "s");
		worktree = worktree || long_is(w, "worktree") || short_has(w, 'W', "s");
		if (short_takes_next(w, "s"))
			i++;
	}
	return !staged || worktree ? "it overwrites uncommitted changes in the working tree" : NULL;
}

static const char *rule_git_clean(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_sub(c);
	bool force = false, dry = false;

	(void)j;
	if (!s || strcmp(c->words[s], "clean"))
		return NULL;
	for (size_t i = s + 1; i < c->nwords && strcmp(c->words[i], "--"); i++) {
		const char *w = c->words[i];

		force = force || long_is(w, "force") || short_has(w, 'f', "e");
		dry = dry || long_is(w, "dry-run") || short_has(w, 'n', "e");
		if (short_takes_next(w, "e") || (long_is(w, "exclude") && !strchr(w, '=')))
			i++;
	}
	return force && !dry ? "it deletes untracked files, which git cannot bring back" : NULL;
}

static const char *rule_git_branch(struct judge *j, const roz_shell_cmd *c)
{
	size_t s = git_sub(c);
	bool del = false, force = false;

	(void)j;
	if (!s || strcmp(c->words[s], "branch"))
		return NULL;
	for (size_t i = s + 1; i < c->nwords && strcmp(c->words[i], "--"); i++) {
		const char *w = c->words[i];

		if (short_has(w, 'D', NULL))
			del = force = true;
		del = del || long_is(w, "delete") || short_has(w, 'd', NULL);
		force = force || long_is(w, "force") || short_has(w, 'f', NULL);
	}
	return del && force ? "it deletes a branch even if its commits are merged nowhere" : NULL;
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

/* ---- the rest ------------------------------------------------------------ */

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
			return "it deletes every file it finds";
		for (size_t k = 0; valued[k] && !v; k++)
			v = !strcmp(w, valued[k]);
		if (v)
			i++;
	}
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

static const char *rule_chmod(struct judge *j, const roz_shell_cmd *c)
{
	static const char *const roots[] = {"/", "/home", "/etc", "/usr", "/var", "/bin", "/sbin",
					    "/lib", "/boot", "/root", "/opt", NULL};
	const char *n = c->words[0];
	bool chmod = !strcmp(n, "chmod"), recursive = false, first = true, ended = false, hit = false;

	if (!chmod && strcmp(n, "chown") && strcmp(n, "chgrp"))
		return NULL;
	for (size_t i = 1; i < c->nwords; i++) {
		const char *w = c->words[i];

		if (!ended && !strcmp(w, "--")) {
			ended = true;
			continue;
		}
		if (!ended && w[0] == '-' && w[1] == '-' && c->info[i].known) {
			recursive = recursive || long_is(w, "recursive");
			if (long_is(w, "reference"))
				first = false;
			continue;
		}
		if (!ended && is_option(c, i) &&
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
	return recursive && hit ? "it changes permissions or owners across a whole system or home directory"
				: NULL;
}

/* `word` appears in `s` as a whole word, in any case; returns what follows it, or NULL. */
static const char *find_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = s; *p; p++) {
		if ((p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
		    !strncasecmp(p, word, n) && !(isalnum((unsigned char)p[n]) || p[n] == '_'))
			return p + n;
	}
	return NULL;
}

static bool sql_drops(const char *s)
{
	static const char *const objects[] = {"TABLE", "DATABASE", "SCHEMA", "VIEW", "INDEX", NULL};

	if (find_word(s, "TRUNCATE"))
		return true;
	for (const char *p = s; (p = find_word(p, "DROP"));) {
		while (isspace((unsigned char)*p))
			p++;
		for (size_t k = 0; objects[k]; k++) {
			size_t n = strlen(objects[k]);

			if (!strncasecmp(p, objects[k], n) && !(isalnum((unsigned char)p[n]) || p[n] == '_'))
				return true;
		}
	}
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
		if (sql_drops(c->words[i]))
			return "it drops or empties database objects";
	return NULL;
}

typedef const char *(*rule_fn)(struct judge *j, const roz_shell_cmd *c);

/* In the order of rule_names. */
static const rule_fn rules[] = {
	rule_rm,        rule_git_push,   rule_git_reset, rule_git_checkout, rule_git_restore,
	rule_git_clean, rule_git_branch, rule_git_stash, rule_find,         rule_dd,
	rule_mkfs,      rule_shred,      rule_chmod,     rule_sql};

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
			if (disabled(o, rule_names[r]))
				continue;
			const char *why = rules[r](&j, c);

			if (j.nomem) {
				roz_error_set("out of memory");
				return ROZ_ENOMEM;
			}
			if (why)
				return hit_set(hit, rule_names[r], c, why);
		}
	}
	return ROZ_OK;
}
