/*
 * replay.c - what a whole session's hooks cost, as Claude Code starts them.
 * Replays the hook events of a recorded session (bench/session-mix.tsv) once
 * per plugin layout: every event the layout's hooks.json registers, and its
 * matcher selects, starts a process the way Claude Code starts it (shell
 * form: /bin/sh -c 'roz hook <event>'; exec form: roz itself), with the
 * recorded input on its stdin. The sum of those processes' times is what the
 * session waited for its hooks; it is reported per 100 tool calls.
 *
 * Each round replays every layout once, in a random order, each from an
 * empty roz home, so load on the machine lands on all of them alike.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"
#include "roz/matcher.h" /* the plugin's matchers; before exec form PreToolUse had none */

typedef struct layout {
	const char *name;
	bool shell;          /* shell form */
	bool floor;          /* start the floor program instead of roz: the least these starts cost */
	const char *pre;     /* PreToolUse matcher, NULL for every tool */
	regex_t pre_re, post_re, sub_re;
} layout;

static layout layouts[] = {
	{"before: shell form, PreToolUse for every tool", true, false, NULL, {0}, {0}, {0}},
	{"exec form, the same matchers", false, false, NULL, {0}, {0}, {0}},
	{"after: exec form, PreToolUse only where roz acts", false, false, ROZ_MATCHER_PRE_TOOL_USE, {0}, {0}, {0}},
	{"the floor, started where `after` starts roz", false, true, ROZ_MATCHER_PRE_TOOL_USE, {0}, {0}, {0}},
};
#define N_LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

/* One recorded hook event. */
typedef struct event {
	const char *hook; /* roz's name for it, or NULL: roz registers no hook for this event */
	int kind;         /* 0 no matcher, 1 PreToolUse, 2 PostToolUse, 3 the subagent events */
	char *name;       /* what the matcher is tested against */
	char *input;      /* the JSON, its run directory filled in */
	size_t len;
} event;

static const struct {
	const char *event, *hook;
	int kind;
} hooked[] = {
	{"SessionStart", "session-start", 0}, {"UserPromptSubmit", "user-prompt", 0},
	{"PreToolUse", "pre-tool-use", 1},    {"PostToolUse", "post-tool-use", 2},
	{"Stop", "stop", 0},                  {"SubagentStart", "subagent-start", 3},
	{"SubagentStop", "subagent-stop", 3}, {"SessionEnd", "session-end", 0},
};

static struct {
	const char *roz, *floor, *calls, *shell;
	long rounds;
	unsigned long seed;
} opt = {"build/roz", NULL, NULL, "/bin/sh", 20, 1};

/* Replace every @RUN@ in s by run; the caller frees. */
static char *fill_run(const char *s, const char *run, size_t *len)
{
	size_t n = 0, rl = strlen(run);
	char *out;

	for (const char *p = s; (p = strstr(p, "@RUN@")); p += 5)
		n++;
	out = xcalloc(strlen(s) + n * rl + 1, 1);
	for (char *o = out; *s;) {
		if (strncmp(s, "@RUN@", 5) == 0) {
			memcpy(o, run, rl);
			o += rl;
			s += 5;
		} else {
			*o++ = *s++;
		}
		*o = '\0';
	}
	*len = strlen(out);
	return out;
}

static event *load(const char *path, const char *run, size_t *n_events, size_t *tools)
{
	FILE *f = fopen(path, "re");
	event *ev = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t got;

	if (!f)
		die("open %s: %s", path, strerror(errno));
	*tools = 0;
	while ((got = getline(&line, &lcap, f)) > 0) {
		char *name, *json;

		line[strcspn(line, "\n")] = '\0';
		if (!(name = strchr(line, '\t')) || !(json = strchr(name + 1, '\t')))
			die("%s: line %zu is not <event> TAB <name> TAB <json>", path, n + 1);
		*name++ = '\0';
		*json++ = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			if (!(ev = realloc(ev, cap * sizeof *ev)))
				die("out of memory");
		}
		memset(&ev[n], 0, sizeof ev[n]);
		for (size_t k = 0; k < sizeof hooked / sizeof hooked[0]; k++)
			if (strcmp(line, hooked[k].event) == 0) {
				ev[n].hook = hooked[k].hook;
				ev[n].kind = hooked[k].kind;
			}
		*tools += strcmp(line, "PreToolUse") == 0;
		ev[n].name = strdup(name);
		ev[n].input = fill_run(json, run, &ev[n].len);
		if (!ev[n].name)
			die("out of memory");
		n++;
	}
	free(line);
	fclose(f);
	*n_events = n;
	return ev;
}

static void compile(regex_t *re, const char *pattern)
{
	if (regcomp(re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
		die("cannot compile the matcher %s", pattern);
}

/* Does this layout start a process for this event, as Claude Code would? */
static bool starts(const layout *l, const event *e)
{
	switch (e->hook ? e->kind : -1) {
	case 0: return true;
	case 1: return !l->pre || regexec(&l->pre_re, e->name, 0, NULL, 0) == 0;
	case 2: return regexec(&l->post_re, e->name, 0, NULL, 0) == 0;
	case 3: return regexec(&l->sub_re, e->name, 0, NULL, 0) == 0;
	default: return false;
	}
}

/* An empty run directory: a git work tree (its .git is all roz looks at), a home, a roz home. */
static void fresh_run(const char *run)
{
	char p[PATH_CAP];

	rmtree(run);
	make_dir(run);
	fmt_path(p, "%s/work", run);
	make_git_stub(p);
	fmt_path(p, "%s/home", run);
	make_dir(p);
	fmt_path(p, "%s/roz-home", run);
	make_dir(p);
	fmt_path(p, "%s/roz-home/sessions", run);
	make_dir(p);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: replay --floor PATH --calls FILE [--roz PATH] [--rounds N] [--seed N] [--shell PATH]\n\n"
		   "Replays a recorded session's hook events once per plugin layout (shell form with\n"
		   "PreToolUse for every tool, exec form, exec form with PreToolUse only where roz acts)\n"
		   "and reports what the session waited for its hooks, per 100 tool calls.\n");
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		}
		if (!v) {
			usage(stderr);
			exit(2);
		}
		if (strcmp(a, "--roz") == 0)
			opt.roz = v;
		else if (strcmp(a, "--floor") == 0)
			opt.floor = v;
		else if (strcmp(a, "--calls") == 0)
			opt.calls = v;
		else if (strcmp(a, "--shell") == 0)
			opt.shell = v;
		else if (strcmp(a, "--rounds") == 0 && atol(v) > 0)
			opt.rounds = atol(v);
		else if (strcmp(a, "--seed") == 0)
			opt.seed = strtoul(v, NULL, 10);
		else {
			usage(stderr);
			exit(2);
		}
		i++;
	}
	if (!opt.floor || !opt.calls) {
		usage(stderr);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	char run[PATH_CAP], bin[PATH_CAP], roz[PATH_CAP], floor[PATH_CAP], plugin[PATH_CAP], line[64];
	char env_path[PATH_CAP + 64], env_home[PATH_CAP + 16], env_roz_home[PATH_CAP + 32], env_plugin[PATH_CAP + 32],
		env_project[PATH_CAP + 32];
	char *envp[] = {env_path, env_home, env_roz_home, env_plugin, env_project, NULL};
	const char *tmp = getenv("TMPDIR");
	size_t n_events, tools, spawns[N_LAYOUTS] = {0};
	double *ms[N_LAYOUTS], t0 = now_us();
	int order[N_LAYOUTS];
	run_result *r = xcalloc(1, sizeof *r);
	event *ev;

	parse_args(argc, argv);
	proc_init(opt.seed);
	fmt_path(work, "%s/roz-replay.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(work))
		die("mkdtemp %s: %s", work, strerror(errno));
	/* private copies, roz as `roz` in a directory of its own leading PATH (the shell finds it there) */
	fmt_path(bin, "%s/bin", work);
	make_dir(bin);
	fmt_path(roz, "%s/roz", bin);
	copy_file(opt.roz, roz, 0700);
	fmt_path(floor, "%s/floor", work);
	copy_file(opt.floor, floor, 0700);
	fmt_path(run, "%s/run", work);
	fmt_path(env_plugin, "CLAUDE_PLUGIN_ROOT=%s/plugin", work);
	fmt_path(plugin, "%s/plugin", work);
	make_dir(plugin);
	snprintf(env_path, sizeof env_path, "PATH=%s:/usr/local/bin:/usr/bin:/bin", bin);
	snprintf(env_home, sizeof env_home, "HOME=%s/home", run);
	snprintf(env_roz_home, sizeof env_roz_home, "ROZ_HOME=%s/roz-home", run);
	snprintf(env_project, sizeof env_project, "CLAUDE_PROJECT_DIR=%s/work", run);
	ev = load(opt.calls, run, &n_events, &tools);
	if (!tools)
		die("%s records no tool call", opt.calls);
	for (size_t k = 0; k < N_LAYOUTS; k++) {
		compile(&layouts[k].post_re, ROZ_MATCHER_POST_TOOL_USE);
		compile(&layouts[k].sub_re, ROZ_MATCHER_REVIEWER);
		if (layouts[k].pre)
			compile(&layouts[k].pre_re, layouts[k].pre);
		ms[k] = xcalloc((size_t)opt.rounds, sizeof(double));
		for (size_t i = 0; i < n_events; i++)
			spawns[k] += starts(&layouts[k], &ev[i]);
		order[k] = (int)k;
	}

	printf("roz session replay: %s, %zu hook events, %zu tool calls; %ld rounds, seed %lu\n", opt.calls,
	       n_events, tools, opt.rounds, opt.seed);
	printf("roz: %s; shell form: %s -c 'roz hook <event>'\n", opt.roz, opt.shell);
	fflush(stdout);
	for (long round = 0; round < opt.rounds + 1; round++) {
		for (size_t k = N_LAYOUTS; k > 1; k--) {
			size_t m = (size_t)(rng_next() % k);
			int t = order[k - 1];

			order[k - 1] = order[m];
			order[m] = t;
		}
		for (size_t o = 0; o < N_LAYOUTS; o++) {
			const layout *l = &layouts[order[o]];
			double total = 0;

			fresh_run(run);
			for (size_t i = 0; i < n_events; i++) {
				char *args[4];

				if (!starts(l, &ev[i]))
					continue;
				if (l->floor) {
					args[0] = floor;
					args[1] = NULL;
				} else if (l->shell) {
					snprintf(line, sizeof line, "roz hook %s", ev[i].hook);
					args[0] = (char *)opt.shell;
					args[1] = (char *)"-c";
					args[2] = line;
					args[3] = NULL;
				} else {
					args[0] = roz;
					args[1] = (char *)"hook";
					args[2] = (char *)ev[i].hook;
					args[3] = NULL;
				}
				run_proc(args, envp, ev[i].input, ev[i].len, r);
				if (r->status != 0)
					die("%s: %s %s exited with %d: %s", l->name, args[0], args[1] ? args[1] : "",
					    r->status, r->err);
				total += r->us;
			}
			/* the first round warms the caches and is not counted */
			if (round > 0)
				ms[order[o]][round - 1] = total / 1000.0;
		}
	}

	printf("\n%-50s %7s %9s %9s %14s %8s\n", "layout", "starts", "p50 ms", "p90 ms", "per 100 calls", "×after");
	{
		stats st[N_LAYOUTS];

		for (size_t k = 0; k < N_LAYOUTS; k++)
			st[k] = summarize(ms[k], (size_t)opt.rounds);
		for (size_t k = 0; k < N_LAYOUTS; k++)
			printf("%-50s %7zu %9.1f %9.1f %11.1f ms %8.2f\n", layouts[k].name, spawns[k], st[k].p50,
			       st[k].p90, st[k].p50 * 100.0 / (double)tools, st[k].p50 / st[2].p50);
	}
	printf("\nstarts: processes Claude Code starts for the session's hooks; p50/p90: the session's whole hook\n"
	       "time over the rounds; per 100 calls: p50 scaled to 100 tool calls. (%.1f s)\n",
	       (now_us() - t0) / 1e6);
	for (size_t i = 0; i < n_events; i++) {
		free(ev[i].name);
		free(ev[i].input);
	}
	for (size_t k = 0; k < N_LAYOUTS; k++)
		free(ms[k]);
	free(ev);
	free(r);
	rmtree(work);
	return 0;
}
