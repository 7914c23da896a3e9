/*
 * shell_git.c - git's own ways to run a command: its global options before
 * the subcommand, its helper programs (git-push), and aliases given on the
 * command line. Kept apart from the other rules because git is the command
 * gates care about most and it has more ways to run things than any other.
 */
#include "shell_int.h"

#include <string.h>
#include <strings.h>

/* A `-c` / `--config-env` value that sets an alias (git's names ignore case), or could. */
static bool git_alias_config(const char *value, unsigned parts)
{
	return parts || strncasecmp(value, "alias.", 6) == 0;
}

/*
 * git's global options come before the subcommand; report it without them
 * too. An alias given with -c makes the subcommand mean something else, so
 * then only `git ` is known.
 */
void shell_git_variant(struct parser *p, const struct sword *w, size_t n, const struct feed *f)
{
	static const char *const valued[] = {"-C", "-c", "--git-dir", "--work-tree", "--namespace",
					     "--super-prefix", "--config-env", "--attr-source",
					     "--list-cmds", NULL};
	static const char *const alone[] = {"-p", "-P", "--paginate", "--no-pager", "--bare",
					    "--no-replace-objects", "--literal-pathspecs",
					    "--glob-pathspecs", "--noglob-pathspecs",
					    "--icase-pathspecs", "--no-optional-locks",
					    "--no-lazy-fetch", "--no-advice", "--exec-path", NULL};
	size_t i = 1, k, at;
	bool alias = false;

	while (i < n) {
		const char *a = w[i].s;
		size_t step = 0;

		for (k = 0; valued[k] && !step; k++) {
			size_t len = strlen(valued[k]);

			if (!strcmp(a, valued[k]))
				step = 2;
			else if (len > 2 && !strncmp(a, valued[k], len) && a[len] == '=')
				step = 1;
		}
		for (k = 0; alone[k] && !step; k++)
			if (!strcmp(a, alone[k]))
				step = 1;
		if (!step && !strncmp(a, "--exec-path=", 12))
			step = 1;
		if (!step)
			break;
		if ((!strcmp(a, "-c") || !strcmp(a, "--config-env")) && i + 1 < n &&
		    git_alias_config(w[i + 1].s, w[i + 1].info.parts))
			alias = true;
		else if (!strncmp(a, "--config-env=", 13) && git_alias_config(a + 13, w[i].info.parts))
			alias = true;
		i += step;
	}
	if (i > 1 && i < n) {
		at = shell_emit(p, "git", NULL, w + i, n - i, f, alias ? 4 : NONE);
		if (alias && at != NONE)
			p->out->cmds[at].why = "an alias given with git -c";
	}
}

/* git-push, git-receive-pack, ...: git's helper programs are git subcommands. */
void shell_git_helper(struct parser *p, const char *sub, const struct sword *w, size_t n,
		       const struct feed *f)
{
	struct sword *v = roz_calloc(n, sizeof(*v));

	if (!v || !(v[0].s = roz_strdup(sub))) {
		roz_free(v);
		shell_nomem(p);
		return;
	}
	v[0].info = known_word(sub);
	memcpy(v + 1, w + 1, (n - 1) * sizeof(*v));
	shell_emit(p, "git", NULL, v, n, f, NONE);
	roz_free(v[0].s);
	roz_free(v);
}

/* gh: nothing beyond the command itself yet. */
void shell_gh_variant(struct parser *p, const struct sword *w, size_t n, const struct feed *f)
{
	(void)p;
	(void)w;
	(void)n;
	(void)f;
}

/* Nothing is judged about git's configuration once the line is read yet. */
void shell_git_settle(struct parser *p)
{
	(void)p;
}
