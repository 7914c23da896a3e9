/*
 * cmd_doctor.c - `roz doctor`: check that roz can work here - on PATH,
 * storage private and writable, every config problem, templates readable,
 * the plugin's hooks wired to roz wherever Claude Code installed it, a
 * Claude Code release it was tested with, and, in a repository that declares
 * intents, whether governance can judge changes there - and say how to fix
 * each thing that is not. What a fresh install has not done yet is a note,
 * not a fault.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/lines.h"
#include "roz/claude_versions.h"
#include "roz/config_load.h"
#include "roz/destructive.h"
#include "roz/glob.h"
#include "roz/matcher.h"
#include "roz/orchestration.h"
#include "roz/tree.h"
#include "roz/watch.h"
#include "roz/runner.h"
#include "roz/version.h"

/* How long `claude --version` may take before doctor stops waiting. */
#define CLAUDE_VERSION_TIMEOUT_MS 3000

typedef struct doctor {
	int failures;
} doctor;

static void help(void)
{
	printf("usage: roz doctor [--plugin-dir DIR]\n\n"
	       "Check that roz can do its job here, and say how to fix what is wrong:\n"
	       "roz on PATH, the storage directory, every problem in the config file, block\n"
	       "templates, the plugin's hooks.json (as Claude Code installed it and as roz\n"
	       "installed it), the Claude Code version, the [governance] settings, intent\n"
	       "governance in the repository you run it in (whether its\n"
	       ".orchestration/active_intents.yaml can be used, and where not, the line and\n"
	       "the fix), and which second-opinion tools the reviewer can use. Exits 0 only\n"
	       "when every check passes; notes and warnings do not fail it.\n\n"
	       "Options:\n"
	       "      --plugin-dir DIR  the plugin to check (default: $CLAUDE_PLUGIN_ROOT, else\n"
	       "                        Claude Code's installs of roz under ~/.claude/plugins\n"
	       "                        and the one installed beside roz, or plugin/ next to\n"
	       "                        the build)\n"
	       "  -h, --help            show this help\n");
}

static void pass(const char *fmt, ...) ROZ_PRINTF(1, 2);
static void pass(const char *fmt, ...)
{
	va_list ap;

	printf("%s%s%s ", cli_green(), cli_utf8() ? "\xe2\x9c\x93" : "ok", cli_reset());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void fail(doctor *d, const char *fix, const char *fmt, ...) ROZ_PRINTF(3, 4);
static void fail(doctor *d, const char *fix, const char *fmt, ...)
{
	va_list ap;

	d->failures++;
	printf("%s%s%s ", cli_red(), cli_utf8() ? "\xe2\x9c\x97" : "FAIL", cli_reset());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n    fix: %s\n", fix);
}

static void note(const char *msg)
{
	printf("    %s%s%s\n", cli_dim(), msg, cli_reset());
}

/* Something to know that needs no fixing, such as what the first hook will create. */
static void notice(const char *fmt, ...) ROZ_PRINTF(1, 2);
static void notice(const char *fmt, ...)
{
	va_list ap;

	printf("%s%s%s ", cli_dim(), cli_utf8() ? "\xe2\x80\xa2" : "note", cli_reset());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Something that may be wrong but does not stop roz working. */
static void warn(const char *advice, const char *fmt, ...) ROZ_PRINTF(2, 3);
static void warn(const char *advice, const char *fmt, ...)
{
	va_list ap;

	printf("%s%s%s ", cli_bold(), cli_utf8() ? "!" : "warn", cli_reset());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n    %s\n", advice);
}

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The first `roz` on PATH, or NULL. Caller frees. */
static char *find_on_path(const char *name)
{
	const char *path = getenv("PATH"), *p = path, *end;

	while (p && *p) {
		char *full;

		end = strchr(p, ':');
		full = roz_asprintf("%.*s/%s", (int)(end ? end - p : (long)strlen(p)), p, name);
		if (full && executable(full))
			return full;
		roz_free(full);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* `<path> --version`, first line, or NULL. */
static char *version_of(const char *path)
{
	char cmd[PATH_MAX + 32], line[128];
	FILE *f;
	char *out = NULL;

	if (strchr(path, '\'') || snprintf(cmd, sizeof(cmd), "'%s' --version 2>/dev/null", path) >= (int)sizeof(cmd))
		return NULL;
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		out = roz_strdup(line);
	}
	pclose(f);
	return out;
}

static void check_path(doctor *d)
{
	char *found = find_on_path("roz"), *ver, want[64];

	if (!found) {
		fail(d, "install roz (cmake --install build) or add its directory to PATH; Claude Code's "
			"hooks call it by name",
		     "roz is not on PATH");
		return;
	}
	ver = version_of(found);
	snprintf(want, sizeof(want), "roz %s", ROZ_VERSION);
	if (!ver)
		fail(d, "reinstall roz (cmake --install build)", "%s does not run", found);
	else if (strcmp(ver, want) != 0)
		fail(d, "install this build (cmake --install build) so hooks run the same roz",
		     "roz on PATH is %s (%s), this is %s", found, ver, want);
	else
		pass("roz on PATH: %s (%s)", found, ver);
	roz_free(ver);
	roz_free(found);
}

/*
 * A storage directory that does not exist yet is what a fresh install has:
 * the first hook creates it, if the nearest directory that does exist lets it.
 */
static void check_missing_storage(doctor *d, const char *dir)
{
	char parent[PATH_MAX], fix[PATH_MAX + 64], *slash;
	struct stat st;

	snprintf(parent, sizeof(parent), "%s", dir);
	while ((slash = strrchr(parent, '/')) && slash != parent) {
		*slash = '\0';
		if (stat(parent, &st) == 0)
			break;
	}
	if (slash == parent)
		snprintf(parent, sizeof(parent), "/");
	if (stat(parent, &st) == 0 && S_ISDIR(st.st_mode) && access(parent, W_OK | X_OK) == 0) {
		notice("storage: %s does not exist yet; the first hook creates it (private, mode 700)", dir);
		return;
	}
	snprintf(fix, sizeof(fix), "mkdir -p -m 700 %s as a user who may, or set ROZ_HOME/[storage] path elsewhere",
		 dir);
	fail(d, fix, "storage directory %s does not exist and cannot be created here (%s is not a writable "
		     "directory)", dir, parent);
}

static void check_storage(doctor *d, const roz_config *config)
{
	char *dir = roz_asprintf("%s/sessions", config->storage_path), fix[PATH_MAX + 64];
	struct stat st;

	if (!dir)
		return;
	if (stat(dir, &st) < 0) {
		check_missing_storage(d, dir);
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(fix, sizeof(fix), "move it away; roz needs a directory there");
		fail(d, fix, "%s is not a directory", dir);
	} else if (access(dir, W_OK | X_OK) < 0) {
		snprintf(fix, sizeof(fix), "chown it to this user, or set ROZ_HOME/[storage] path elsewhere");
		fail(d, fix, "storage directory %s is not writable: %s", dir, strerror(errno));
	} else if (st.st_mode & 077) {
		snprintf(fix, sizeof(fix), "chmod 700 %s", dir);
		fail(d, fix, "storage directory %s is readable by others (mode %03o); sessions hold your prompts",
		     dir, (unsigned)(st.st_mode & 0777));
	} else {
		pass("storage: %s (private, writable)", dir);
	}
	roz_free(dir);
}

/* Every problem the load kept is shown: errors fail the check, warnings are notes. */
static bool check_config(doctor *d, roz_config *config)
{
	int rc = roz_config_load(config, roz_config_load_process_env, NULL, NULL, NULL);
	size_t errors = 0;

	if (rc == ROZ_ENOMEM) {
		fail(d, "free some memory", "out of memory loading config");
		return false;
	}
	for (size_t i = 0; i < config->n_diags; i++)
		errors += config->diags[i].error;
	if (errors)
		fail(d, "correct each problem below, then run roz doctor again", "config: %s has %zu problem%s",
		     config->config_path, errors, errors == 1 ? "" : "s");
	else if (config->config_loaded)
		pass("config: %s", config->config_path);
	else
		pass("config: no file at %s (defaults)", config->config_path);
	for (size_t i = 0; i < config->n_diags; i++) {
		const roz_config_diag *g = &config->diags[i];

		if (g->error)
			printf("    %s%s%s %s\n      fix: %s\n", cli_red(), cli_utf8() ? "\xe2\x9c\x97" : "error",
			       cli_reset(), g->message, g->fix ? g->fix : "correct the file");
		else
			note(g->message);
	}
	if (config->n_dropped)
		printf("    ... and %zu more\n", config->n_dropped);
	if (config->hold)
		note("until it is fixed, hooks ask before each tool call that could be gated");
	return true;
}

static void check_template(doctor *d, const roz_config *config, const char *plugin, const char *id)
{
	char *path = roz_asprintf("%s/templates/block-%s.md", config->home, id), *text, fix[PATH_MAX + 64];
	struct stat st;

	if (!path)
		return;
	text = roz_runner_template_load(config, plugin, id);
	if (text)
		pass("template '%s': found", id);
	else if (stat(path, &st) == 0)
		fail(d, "make it a readable, non-empty UTF-8 text file",
		     "template '%s' at %s cannot be used (roz falls back to its built-in text)", id, path);
	else if (strcmp(id, "default") == 0)
		pass("template 'default': built in");
	else {
		snprintf(fix, sizeof(fix), "create %s, or change [templates] in the config", path);
		fail(d, fix, "template '%s' not found (roz falls back to its built-in text)", id);
	}
	roz_free(text);
	roz_free(path);
}

static void check_templates(doctor *d, const roz_config *config, const char *plugin)
{
	if (strcmp(config->template_active, "random") != 0) {
		check_template(d, config, plugin, config->template_active);
		return;
	}
	for (size_t i = 0; i < config->n_weights; i++)
		check_template(d, config, plugin, config->weights[i].id);
	if (!config->n_weights)
		pass("templates: random with no weights (the built-in text)");
}

/*
 * The plugin roz itself installed: beside the binary, in the source tree
 * next to the build, or in the source tree it was built from (a build
 * directory can be anywhere).
 */
static char *local_plugin_dir(void)
{
	char exe[PATH_MAX], *slash, *p;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return NULL;
	*slash = '\0';
	for (int i = 0; i < 3; i++) {
		char real[PATH_MAX];

		p = i == 2 ? roz_strdup(ROZ_BUILT_FROM_PLUGIN)
			   : roz_asprintf(i ? "%s/../plugin" : "%s/../share/roz/plugin", exe);
		if (p && realpath(p, real)) {
			roz_free(p);
			return roz_strdup(real);
		}
		roz_free(p);
	}
	return NULL;
}

/* How a hooks.json entry runs `roz hook <name>`, if it does. */
typedef enum hook_form { FORM_NONE, FORM_SHELL, FORM_EXEC } hook_form;

/* Is `word` (its first n bytes) roz: `roz` or a path ending in `/roz`? */
static bool names_roz(const char *word, size_t n)
{
	return (n == 3 && memcmp(word, "roz", 3) == 0) || (n > 3 && memcmp(word + n - 4, "/roz", 4) == 0);
}

static hook_form form_of(const cJSON *h, const char *name)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(h, "command"),
		    *args = cJSON_GetObjectItemCaseSensitive(h, "args");
	const char *p, *words[3];
	size_t lens[3];
	int n = 0;

	if (!cJSON_IsString(c))
		return FORM_NONE;
	if (cJSON_IsArray(args)) {
		const cJSON *a0 = cJSON_GetArrayItem(args, 0), *a1 = cJSON_GetArrayItem(args, 1);

		return names_roz(c->valuestring, strlen(c->valuestring)) && cJSON_GetArraySize(args) == 2 &&
				       cJSON_IsString(a0) && strcmp(a0->valuestring, "hook") == 0 &&
				       cJSON_IsString(a1) && strcmp(a1->valuestring, name) == 0
			       ? FORM_EXEC
			       : FORM_NONE;
	}
	/* a command line: roz hook <name>, perhaps with more after it */
	for (p = c->valuestring; *p && n < 3;) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		words[n] = p;
		lens[n] = strcspn(p, " \t");
		p += lens[n++];
	}
	return n == 3 && names_roz(words[0], lens[0]) && lens[1] == 4 && memcmp(words[1], "hook", 4) == 0 &&
			       lens[2] == strlen(name) && memcmp(words[2], name, lens[2]) == 0
		       ? FORM_SHELL
		       : FORM_NONE;
}

#define MAX_ROZ_HOOKS 8

/* The entries of one event that run `roz hook <name>`: their form, command and group matcher. */
typedef struct roz_hooks {
	int n;
	hook_form form[MAX_ROZ_HOOKS];
	const char *command[MAX_ROZ_HOOKS];
	const char *matcher[MAX_ROZ_HOOKS]; /* NULL: the group has none, every call */
} roz_hooks;

static void find_roz_hooks(const cJSON *hooks, const char *event, const char *name, roz_hooks *out)
{
	const cJSON *g, *h;

	out->n = 0;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(hooks, event)) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(g, "matcher");

		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(g, "hooks")) {
			hook_form f = form_of(h, name);

			if (f == FORM_NONE || out->n == MAX_ROZ_HOOKS)
				continue;
			out->form[out->n] = f;
			out->command[out->n] = cJSON_GetObjectItemCaseSensitive(h, "command")->valuestring;
			out->matcher[out->n] = cJSON_IsString(m) && *m->valuestring ? m->valuestring : NULL;
			out->n++;
		}
	}
}

/* Claude Code's own directory: $CLAUDE_CONFIG_DIR, else ~/.claude. Caller frees; NULL if unknown. */
static char *claude_home(void)
{
	const char *dir = getenv("CLAUDE_CONFIG_DIR"), *home = getenv("HOME");

	if (dir && *dir)
		return roz_strdup(dir);
	return home && *home ? roz_asprintf("%s/.claude", home) : NULL;
}

typedef struct installs {
	char *dir[8];  /* install paths of roz, as Claude Code keeps them */
	char *name[8]; /* "roz@<marketplace>" */
	int n;
} installs;

static void installs_add(installs *in, const char *name, const char *dir)
{
	for (int i = 0; i < in->n; i++)
		if (strcmp(in->dir[i], dir) == 0)
			return;
	if (in->n < 8 && (in->dir[in->n] = roz_strdup(dir)) && (in->name[in->n] = roz_strdup(name)))
		in->n++;
}

static void installs_dispose(installs *in)
{
	for (int i = 0; i < in->n; i++) {
		roz_free(in->dir[i]);
		roz_free(in->name[i]);
	}
	in->n = 0;
}

static char *read_small_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	roz_buf b = ROZ_BUF_INIT;
	char chunk[4096];
	size_t r;

	if (!f)
		return NULL;
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len < 4u * 1024 * 1024)
		roz_buf_add(&b, chunk, r);
	fclose(f);
	return roz_buf_detach(&b, len);
}

/*
 * Where Claude Code installed the roz plugin from a marketplace. It records
 * installs in plugins/installed_plugins.json ("plugins": {"roz@<market>":
 * [{"installPath": ...}, ...]}; older releases kept one object, not a
 * list) and copies each into plugins/cache/<market>/roz/<version>/; the
 * cache is searched when the record cannot be read.
 */
static void find_installs(installs *in)
{
	char *home = claude_home(), *path, *text;
	const cJSON *plugins, *entry, *one;
	cJSON *doc = NULL;
	size_t len = 0;

	in->n = 0;
	if (!home)
		return;
	path = roz_asprintf("%s/plugins/installed_plugins.json", home);
	text = path ? read_small_file(path, &len) : NULL;
	if (text && roz_json_parse(text, len, &doc) == ROZ_OK &&
	    cJSON_IsObject(plugins = cJSON_GetObjectItemCaseSensitive(doc, "plugins"))) {
		cJSON_ArrayForEach(entry, plugins) {
			if (!entry->string || strncmp(entry->string, "roz@", 4) != 0)
				continue;
			if (cJSON_IsObject(entry)) {
				const cJSON *p = cJSON_GetObjectItemCaseSensitive(entry, "installPath");

				if (cJSON_IsString(p))
					installs_add(in, entry->string, p->valuestring);
			}
			if (!cJSON_IsArray(entry))
				continue;
			cJSON_ArrayForEach(one, entry) {
				const cJSON *p = cJSON_GetObjectItemCaseSensitive(one, "installPath");

				if (cJSON_IsString(p))
					installs_add(in, entry->string, p->valuestring);
			}
		}
	} else {
		char *pattern = roz_asprintf("%s/plugins/cache/*/roz/*/hooks/hooks.json", home);
		glob_t g;

		if (pattern && glob(pattern, 0, NULL, &g) == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++) {
				char *dir = roz_strdup(g.gl_pathv[i]), *cut, *market;

				/* .../cache/<market>/roz/<version>/hooks/hooks.json -> the version directory */
				if (dir && (cut = strstr(dir + strlen(home), "/hooks/hooks.json")))
					*cut = '\0';
				market = dir ? strstr(dir + strlen(home), "/plugins/cache/") : NULL;
				if (market) {
					char name[128];

					market += strlen("/plugins/cache/");
					snprintf(name, sizeof(name), "roz@%.*s", (int)strcspn(market, "/"), market);
					installs_add(in, name, dir);
				}
				roz_free(dir);
			}
			globfree(&g);
		}
		roz_free(pattern);
	}
	cJSON_Delete(doc);
	roz_free(text);
	roz_free(path);
	roz_free(home);
}

/* roz's hooks: the event, roz's name for it, and what its matcher must select (NULL: no matcher). */
static const char *const pre_tool_needs[] = {"Bash",  "Write", "Edit", "MultiEdit", "NotebookEdit",
					     "Agent", "Task",  "mcp__server__tool", NULL};
static const char *const post_tool_needs[] = {"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", NULL};
static const char *const reviewer_needs[] = {"roz:roz", NULL};

static const struct plugin_hook {
	const char *event, *name, *matcher;
	const char *const *needs;
} plugin_hooks[] = {
	{"SessionStart", "session-start", NULL, NULL},
	{"UserPromptSubmit", "user-prompt", NULL, NULL},
	{"PreToolUse", "pre-tool-use", ROZ_MATCHER_PRE_TOOL_USE, pre_tool_needs},
	{"PostToolUse", "post-tool-use", ROZ_MATCHER_POST_TOOL_USE, post_tool_needs},
	{"Stop", "stop", NULL, NULL},
	{"SubagentStart", "subagent-start", ROZ_MATCHER_REVIEWER, reviewer_needs},
	{"SubagentStop", "subagent-stop", ROZ_MATCHER_REVIEWER, reviewer_needs},
	{"SessionEnd", "session-end", NULL, NULL},
};

/* What is wrong with one event's roz hooks, a line each; how many problems. */
static int check_event(const struct plugin_hook *w, const roz_hooks *rh, int *shell_form, bool *every_tool)
{
	bool pre = w->needs == pre_tool_needs;
	int bad = 0;

	if (!rh->n) {
		printf("    %s: no hook runs roz for it; expected \"command\": \"roz\", \"args\": [\"hook\", \"%s\"]\n",
		       w->event, w->name);
		return 1;
	}
	for (int i = 0; i < rh->n; i++) {
		if (rh->form[i] == FORM_SHELL) {
			printf("    %s: \"%s\" is in shell form: Claude Code starts /bin/sh, which then starts roz, on "
			       "every call; in exec form it starts roz alone: \"command\": \"roz\", \"args\": "
			       "[\"hook\", \"%s\"]\n",
			       w->event, rh->command[i], w->name);
			(*shell_form)++;
			bad++;
		}
		if (!w->needs && rh->matcher[i] && strcmp(rh->matcher[i], "*") != 0) {
			printf("    %s: a matcher (\"%s\") limits which calls roz sees\n", w->event, rh->matcher[i]);
			bad++;
		}
		if (pre && !rh->matcher[i])
			*every_tool = true;
	}
	for (size_t k = 0; w->needs && w->needs[k]; k++) {
		bool selected = false;

		for (int i = 0; i < rh->n && !selected; i++) {
			int rc = roz_matcher_selects(rh->matcher[i], pre, w->needs[k]);

			if (rc < 0) {
				printf("    %s: %s\n", w->event, roz_error_last());
				return bad + 1;
			}
			selected = rc == 1;
		}
		if (!selected) {
			printf("    %s: the matcher leaves out %s, which roz acts on; roz's matcher is \"%s\"\n", w->event,
			       w->needs[k], w->matcher);
			bad++;
		}
	}
	return bad;
}

/* The PreToolUse matchers of roz's hooks in Claude Code's settings files, which run beside a plugin's. */
typedef struct settings_hooks {
	cJSON *doc[3];
	roz_hooks pre[3];
	char *user_path; /* where a hook of one's own goes: the user's settings.json */
} settings_hooks;

static void settings_hooks_load(settings_hooks *sh)
{
	char *home = claude_home(), *paths[3];

	memset(sh, 0, sizeof *sh);
	paths[0] = home ? roz_asprintf("%s/settings.json", home) : NULL;
	paths[1] = roz_strdup(".claude/settings.json");
	paths[2] = roz_strdup(".claude/settings.local.json");
	for (int i = 0; i < 3; i++) {
		size_t len = 0;
		char *text = paths[i] ? read_small_file(paths[i], &len) : NULL;

		if (text && roz_json_parse(text, len, &sh->doc[i]) == ROZ_OK && cJSON_IsObject(sh->doc[i]))
			find_roz_hooks(cJSON_GetObjectItemCaseSensitive(sh->doc[i], "hooks"), "PreToolUse",
				       "pre-tool-use", &sh->pre[i]);
		roz_free(text);
	}
	sh->user_path = paths[0] ? paths[0] : roz_strdup("~/.claude/settings.json");
	roz_free(paths[1]);
	roz_free(paths[2]);
	roz_free(home);
}

static void settings_hooks_dispose(settings_hooks *sh)
{
	for (int i = 0; i < 3; i++)
		cJSON_Delete(sh->doc[i]);
	roz_free(sh->user_path);
}

/*
 * Gates on tools Claude Code never starts roz for cannot hold: the gates of
 * the config against every PreToolUse matcher that starts roz, the plugin's
 * and those in the settings files.
 */
static void check_gate_reach(doctor *d, const roz_config *config, const roz_hooks *plugin,
			     const settings_hooks *sh, const char *where)
{
	const char *matchers[MAX_ROZ_HOOKS * 4];
	roz_buf gaps = ROZ_BUF_INIT, gates = ROZ_BUF_INIT;
	size_t n = 0;
	int found = 0;

	for (int i = 0; i < plugin->n; i++)
		matchers[n++] = plugin->matcher[i];
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < sh->pre[k].n; i++)
			matchers[n++] = sh->pre[k].matcher[i];
	for (size_t g = 0; g < config->n_gate_tools; g++) {
		int rc = roz_matcher_gate_gaps(matchers, n, config->gate_tools[g], &gaps);

		if (rc < 0)
			break; /* an unreadable matcher is reported with the plugin's hooks */
		if (rc > 0) {
			roz_buf_addf(&gates, "%s`%s`", found ? ", " : "", config->gate_tools[g]);
			found++;
		}
	}
	if (found && !roz_buf_failed(&gaps) && !roz_buf_failed(&gates)) {
		char *matcher = roz_matcher_of_names(roz_buf_cstr(&gaps));
		roz_buf fix = ROZ_BUF_INIT;

		roz_buf_addf(&fix,
			     "add a PreToolUse hook of your own for them to %s (it stays when the plugin is "
			     "updated, and selects no tool the plugin's does, so no call starts roz twice): "
			     "\"hooks\": {\"PreToolUse\": [{\"matcher\": ",
			     sh->user_path);
		roz_json_add_string(&fix, matcher ? matcher : "");
		roz_buf_adds(&fix, ", \"hooks\": [{\"type\": \"command\", \"command\": \"roz\", \"args\": [\"hook\", "
				   "\"pre-tool-use\"], \"timeout\": 5}]}]}");
		fail(d, roz_buf_cstr(&fix),
		     "gate%s %s name%s %s, which the PreToolUse matcher%s leaves out: Claude Code never starts roz "
		     "for %s, so %s cannot hold",
		     found == 1 ? "" : "s", roz_buf_cstr(&gates), found == 1 ? "s" : "", roz_buf_cstr(&gaps), where,
		     strchr(roz_buf_cstr(&gaps), ',') ? "them" : "it", found == 1 ? "the gate" : "these gates");
		roz_free(matcher);
		roz_buf_dispose(&fix);
	}
	roz_buf_dispose(&gaps);
	roz_buf_dispose(&gates);
}

static void check_plugin(doctor *d, const char *dir, const char *installed_as, const roz_config *config,
			 const settings_hooks *sh)
{
	char *path = roz_asprintf("%s/hooks/hooks.json", dir), *text = NULL, where[160] = "";
	int bad = 0, shell_form = 0;
	bool every_tool = false;
	roz_hooks pre = {0};
	size_t len = 0;
	cJSON *doc = NULL;
	const cJSON *hooks;

	if (!path)
		return;
	if (installed_as)
		snprintf(where, sizeof(where), " (installed in Claude Code as %s)", installed_as);
	errno = 0;
	text = read_small_file(path, &len);
	if (!text) {
		fail(d, installed_as ? "reinstall it: claude plugin install roz@roz" : "reinstall the plugin",
		     "cannot read %s%s: %s", path, where, strerror(errno ? errno : EIO));
		goto out;
	}
	if (roz_json_parse(text, len, &doc) < 0 ||
	    !cJSON_IsObject(hooks = cJSON_GetObjectItemCaseSensitive(doc, "hooks"))) {
		fail(d, "restore hooks.json from the roz release", "%s is not a valid hooks file (%s)", path,
		     roz_error_last());
		goto out;
	}
	for (size_t i = 0; i < sizeof(plugin_hooks) / sizeof(plugin_hooks[0]); i++) {
		roz_hooks rh;

		find_roz_hooks(hooks, plugin_hooks[i].event, plugin_hooks[i].name, &rh);
		bad += check_event(&plugin_hooks[i], &rh, &shell_form, &every_tool);
		if (plugin_hooks[i].needs == pre_tool_needs)
			pre = rh;
	}
	if (bad)
		fail(d,
		     shell_form == bad ? "put the hooks in exec form, as this release's hooks.json has them (update "
					 "or reinstall the plugin)"
				       : "restore hooks.json from the roz release",
		     "%s%s: %d hook%s not wired to roz", path, where, bad, bad == 1 ? "" : "s");
	else
		pass("plugin hooks%s: %s", where, path);
	if (every_tool)
		warn("roz's matcher, \"" ROZ_MATCHER_PRE_TOOL_USE "\", starts it only for the calls it can act on",
		     "PreToolUse%s has no matcher: Claude Code starts roz for every tool call", where);
	if (pre.n)
		check_gate_reach(d, config, &pre, sh, where);
out:
	cJSON_Delete(doc);
	roz_free(text);
	roz_free(path);
}

/* Which plugin to check: the one named, else every install Claude Code has and roz's own. */
static void check_plugins(doctor *d, const char *given, const roz_config *config, char **template_dir)
{
	const char *env = getenv("CLAUDE_PLUGIN_ROOT");
	settings_hooks sh;
	char *local;
	installs in;

	*template_dir = NULL;
	settings_hooks_load(&sh);
	if (given || (env && *env)) {
		*template_dir = roz_strdup(given ? given : env);
		if (*template_dir)
			check_plugin(d, *template_dir, NULL, config, &sh);
		settings_hooks_dispose(&sh);
		return;
	}
	find_installs(&in);
	for (int i = 0; i < in.n; i++)
		check_plugin(d, in.dir[i], in.name[i], config, &sh);
	local = local_plugin_dir();
	if (local)
		check_plugin(d, local, NULL, config, &sh);
	settings_hooks_dispose(&sh);
	if (!in.n && !local)
		fail(d, "pass --plugin-dir DIR, or install roz (cmake --install build)",
		     "cannot find the roz plugin to check");
	else if (!in.n)
		notice("Claude Code has not installed the roz plugin (nothing under ~/.claude/plugins); load it "
		       "with claude --plugin-dir %s, or /plugin marketplace add %s and /plugin install roz@roz",
		       local, local);
	*template_dir = local ? local : in.n ? roz_strdup(in.dir[0]) : NULL;
	installs_dispose(&in);
}

/*
 * Run `path --version` with stdin and stderr closed off, for at most
 * CLAUDE_VERSION_TIMEOUT_MS. The first line of its output, or NULL (then
 * *timed_out says whether it hung). Caller frees.
 */
static char *run_version(const char *path, bool *timed_out)
{
	char out[256];
	size_t got = 0;
	int fds[2], status, waited = 0;
	pid_t pid;

	*timed_out = false;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		dup2(null, 0);
		dup2(fds[1], 1);
		dup2(null, 2);
		execl(path, path, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (got < sizeof(out) - 1 && waited < CLAUDE_VERSION_TIMEOUT_MS) {
		struct pollfd p = {fds[0], POLLIN, 0};
		int r = poll(&p, 1, 100);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			waited += 100;
			continue;
		}
		n = read(fds[0], out + got, sizeof(out) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(out, '\n', got))
			break;
	}
	close(fds[0]);
	*timed_out = waited >= CLAUDE_VERSION_TIMEOUT_MS;
	/* whatever it still does, doctor is done with it and everything it started */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return got && !*timed_out ? roz_strdup(out) : NULL;
}

/* "2.1.331 (Claude Code)" -> 2, 1, 331. False when it does not start with a version. */
static bool parse_version(const char *s, unsigned long v[3])
{
	char *end;

	for (int i = 0; i < 3; i++) {
		if (*s < '0' || *s > '9')
			return false;
		v[i] = strtoul(s, &end, 10);
		s = end;
		if (i < 2 && *s++ != '.')
			return false;
	}
	return true;
}

static int version_cmp(const unsigned long a[3], const unsigned long b[3])
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* The Claude Code on PATH, against the releases the end-to-end suite runs (tests/e2e/versions/matrix). */
static void check_claude(void)
{
	unsigned long have[3], oldest[3], newest[3];
	char *found = find_on_path("claude"), *ver;
	bool timed_out, ranged = parse_version(ROZ_CLAUDE_TESTED_OLDEST, oldest) &&
				 parse_version(ROZ_CLAUDE_TESTED_NEWEST, newest);
	char range[96];

	snprintf(range, sizeof(range), "%s to %s", ROZ_CLAUDE_TESTED_OLDEST, ROZ_CLAUDE_TESTED_NEWEST);
	if (!found) {
		notice("claude is not on PATH here; roz runs inside Claude Code (tested with %s)",
		       ranged ? range : "the current release");
		return;
	}
	ver = run_version(found, &timed_out);
	if (!ver || !parse_version(ver, have))
		warn("check that `claude --version` works in this shell",
		     "%s --version %s", found, timed_out ? "did not answer within 3 s" : ver ? ver : "printed nothing");
	else if (ranged && (version_cmp(have, oldest) < 0 || version_cmp(have, newest) > 0))
		warn(version_cmp(have, oldest) < 0 ? "update Claude Code (claude update)"
						   : "roz will most likely work; if hooks misbehave, tell roz's maintainers "
						     "which version it was",
		     "Claude Code %lu.%lu.%lu at %s is outside the range roz is tested with, %s", have[0], have[1],
		     have[2], found, range);
	else if (ranged)
		pass("Claude Code %lu.%lu.%lu at %s (roz is tested with %s)", have[0], have[1], have[2], found,
		     range);
	else
		pass("Claude Code %lu.%lu.%lu at %s", have[0], have[1], have[2], found);
	roz_free(ver);
	roz_free(found);
}

/* ---- governance -------------------------------------------------------- */

/*
 * The [governance] values the config parser cannot judge alone: rule names
 * must be rules roz has (a misspelt name would leave the rule on without a
 * word), and extra rules must be globs that can match.
 */
static void check_governance_config(doctor *d, const roz_config *config)
{
	size_t nrules, bad = 0;
	const char *const *rules = roz_destructive_rule_names(&nrules);
	roz_buf valid = ROZ_BUF_INIT;

	for (size_t i = 0; i < nrules; i++)
		roz_buf_addf(&valid, "%s%s", i ? ", " : "", rules[i]);
	for (size_t i = 0; i < config->n_gov_destructive_disable; i++) {
		const char *name = config->gov_destructive_disable[i];
		bool known = false;
		char *shown, *fix;

		for (size_t j = 0; j < nrules && !known; j++)
			known = strcmp(name, rules[j]) == 0;
		if (known)
			continue;
		bad++;
		shown = cli_safe(name, false);
		fix = roz_asprintf("name a rule roz has: %s", roz_buf_cstr(&valid));
		fail(d, fix ? fix : "name a rule roz has (docs/governance.md lists them)",
		     "config: [governance] destructive_disable names '%s', which is not a rule; that "
		     "setting turns nothing off",
		     shown ? shown : "?");
		roz_free(fix);
		roz_free(shown);
	}
	for (size_t i = 0; i < config->n_gov_destructive_extra; i++) {
		char *shown;

		if (roz_glob_valid(config->gov_destructive_extra[i]))
			continue;
		bad++;
		shown = cli_safe(config->gov_destructive_extra[i], false);
		fail(d, "close every `[` (write `[[]` for a literal one)",
		     "config: [governance] destructive_extra '%s' is not a valid glob", shown ? shown : "?");
		roz_free(shown);
	}
	if (!bad && (config->n_gov_destructive_disable || config->n_gov_destructive_extra))
		pass("config: [governance] rule names and globs");
	roz_buf_dispose(&valid);
}

/*
 * Which lines of the ignore file are not patterns: each line is handed to
 * the same parser on its own, so doctor and the hooks cannot disagree.
 */
static void ignore_bad_lines(const char *root)
{
	char *path = roz_asprintf("%s/%s", strcmp(root, "/") ? root : "", ROZ_ORCH_IGNORE_FILE), *text;
	size_t len = 0, line = 0, shown = 0, more = 0;

	text = path ? read_small_file(path, &len) : NULL;
	for (size_t pos = 0; text && pos < len;) {
		const char *ls = text + pos, *nl = memchr(ls, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - ls) : len - pos, skipped = 0;
		roz_ignore one = {NULL, 0};

		pos += n + (nl ? 1 : 0);
		line++;
		if (roz_ignore_parse(ls, n, &one, &skipped) < 0)
			break;
		roz_ignore_dispose(&one);
		if (!skipped)
			continue;
		if (shown < 5) {
			char *bytes = roz_strndup(ls, n), *safe = bytes ? cli_safe(bytes, false) : NULL;

			printf("    line %zu: %s\n", line, safe ? safe : "?");
			roz_free(safe);
			roz_free(bytes);
			shown++;
		} else {
			more++;
		}
	}
	if (more)
		printf("    ... and %zu more\n", more);
	roz_free(text);
	roz_free(path);
}

/*
 * Governance in the repository doctor runs in: whether its intents file can
 * be used (every change there is refused while it cannot), whether any
 * intent is open for work, and whether its ignore file reads whole.
 */
/*
 * Detection walks the repository after every governed call: say what that
 * walk costs here, and when the tree is past the walk's bound, that changes
 * are judged by the command line only.
 */
/* The user's inotify watch limit, or 0 when it cannot be read. */
static unsigned long inotify_watch_limit(void)
{
	FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "re");
	unsigned long n = 0;

	if (f) {
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

/* Whether the repository's watcher answers, and if it cannot watch, why (roz/watch.h). */
static void check_watcher(const roz_config *config, const roz_orchestration *o, const char *root,
			  const roz_tree *t)
{
	roz_watch_answer a;
	struct timespec now;
	char *why = NULL, *safe;
	size_t dirs = 0;
	unsigned long limit = inotify_watch_limit();
	int rc;

	if (!config->gov_detect_watch) {
		notice("governance: detection walks the whole tree after each call ([governance] detect_watch = "
		       "false)");
		return;
	}
	for (size_t i = 0; i < t->n; i++)
		dirs += (t->items[i].mode & S_IFMT) == S_IFDIR;
	if (limit && dirs + 1 > limit / 2)
		warn("raise it: sysctl fs.inotify.max_user_watches=524288 (and in /etc/sysctl.d/ to keep it)",
		     "governance: %s has %zu directories to watch and your inotify watch limit is %lu, shared by "
		     "every program that watches files",
		     root ? root : "?", dirs + 1, limit);
	rc = roz_watch_ask(o->root, 0, 0, 2000, &a);
	if (rc == ROZ_OK) {
		pass("governance: the watcher of %s answers: after each call detection looks only at what moved",
		     root ? root : "?");
		roz_watch_answer_dispose(&a);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	if (rc == ROZ_ENOTFOUND && config->storage_path &&
	    roz_watch_is_off(config->storage_path, o->root, (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec,
			     &why)) {
		safe = cli_safe(why ? why : "it could not", false);
		warn("fix what it says; roz tries again an hour after the note (or delete the note: roz watch "
		     "--status says where it is)",
		     "governance: no watcher can watch %s: %s; each governed call walks the whole tree",
		     root ? root : "?", safe ? safe : "?");
		roz_free(safe);
		roz_free(why);
		return;
	}
	if (rc == ROZ_ENOTFOUND)
		notice("governance: no watcher of %s is running; the next governed call starts one", root ? root : "?");
	else
		warn("stop the process that answers (roz watch --status says what answers); until then each call "
		     "walks the whole tree",
		     "governance: the watcher of %s does not answer properly (%s)", root ? root : "?",
		     roz_error_last());
}

static void check_detection(doctor *d, const roz_config *config, const roz_orchestration *o, const char *root,
			    uint32_t max)
{
	roz_tree_opts opts = {.max_entries = max, .extra = o->have_ignore ? &o->ignore : NULL, .fold_case = o->fold_case};
	roz_tree t = {0};
	struct timespec a, b;
	double ms;
	int rc;

	(void)d;
	if (!max) {
		notice("governance: detection is off ([governance] detect = false)");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = roz_tree_walk(o->root, &opts, &t);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	if (rc < 0)
		warn("make the repository readable to you; until then changes are judged by the command "
		     "line only",
		     "governance: detection cannot walk %s (%s)", root ? root : "?", roz_error_last());
	else if (t.truncated)
		warn("ignore generated trees in .gitignore or .orchestration/.intentignore, or split the "
		     "repository; until then changes there are judged by the command line only",
		     "governance: detection: %s holds more than %u entries past its ignore files, too many "
		     "to walk after every call ([governance] detect_max_entries)",
		     root ? root : "?", (unsigned)max);
	else
		pass("governance: detection sees %zu entries here (a whole walk takes %.1f ms)", t.n, ms);
	if (rc == ROZ_OK && !t.truncated)
		check_watcher(config, o, root, &t);
	roz_tree_dispose(&t);
}

static void check_governance(doctor *d, const roz_config *config)
{
	char cwd[PATH_MAX], *root = NULL, *problem = NULL;
	roz_orchestration o;
	size_t in_progress = 0;

	memset(&o, 0, sizeof o);
	if (!getcwd(cwd, sizeof cwd)) {
		warn("run roz doctor from the repository to check its governance",
		     "governance: cannot tell the current directory (%s)", strerror(errno));
		return;
	}
	if (roz_orchestration_find(cwd, &o) < 0) {
		fail(d, "free some memory", "governance: %s", roz_error_last());
		goto out;
	}
	if (!o.governed) {
		notice("governance: off here (no %s)", ROZ_ORCH_INTENTS_FILE);
		goto out;
	}
	if (roz_orchestration_load(&o, ROZ_ORCH_INTENTS | ROZ_ORCH_IGNORE) < 0) {
		fail(d, "free some memory", "governance: out of memory reading %s", ROZ_ORCH_INTENTS_FILE);
		goto out;
	}
	root = cli_safe(o.root, false);
	if (!o.intents_ok) {
		const char *p = o.intents_problem ? o.intents_problem : ROZ_ORCH_INTENTS_FILE;
		/* a problem the parser found has a position; one the file has (size, kind) has none */
		bool at_line = strncmp(p, ROZ_ORCH_INTENTS_FILE ":", strlen(ROZ_ORCH_INTENTS_FILE) + 1) == 0;

		problem = cli_safe(p, false);
		fail(d, at_line ? "fix the YAML at that line; `roz intent list` checks it"
				: "make " ROZ_ORCH_INTENTS_FILE " a regular file roz can read, at most 1 MiB; "
				  "`roz intent list` checks it",
		     "governance: %s%s%s%s; until it is fixed every change there is refused",
		     problem ? problem : "?", at_line ? " (in " : "", at_line && root ? root : "",
		     at_line ? ")" : "");
	} else {
		for (size_t i = 0; i < o.intents.n; i++)
			in_progress += o.intents.items[i].status == ROZ_INTENT_IN_PROGRESS;
		pass("governance: %s/%s: %zu intent%s, %zu IN_PROGRESS", root ? root : "?",
		     ROZ_ORCH_INTENTS_FILE, o.intents.n, o.intents.n == 1 ? "" : "s", in_progress);
		if (!in_progress)
			warn("set the status of the work to allow to IN_PROGRESS in " ROZ_ORCH_INTENTS_FILE,
			     "governance: no intent is IN_PROGRESS, so every change in %s will be refused",
			     root ? root : "?");
	}
	check_detection(d, config, &o, root, config->gov_detect ? config->gov_detect_max : 0);
	if (o.ignore_problem) {
		char *ig = cli_safe(o.ignore_problem, false);
		bool lines = o.have_ignore;

		warn(lines ? "fix or delete those lines: each is a gitignore-style pattern relative to the "
			     "repository root (docs/governance.md); the others still apply"
			   : "make it a regular file roz can read, or remove it; until then governance ignores "
			     "no path",
		     "governance: %s", ig ? ig : "?");
		if (lines)
			ignore_bad_lines(o.root);
		roz_free(ig);
	}
out:
	roz_free(problem);
	roz_free(root);
	roz_orchestration_dispose(&o);
}

/*
 * The ledger of the repository here: that the next write can be recorded,
 * and what a reader will meet (records, lines that are not, a torn tail).
 * The ledger is streamed, so one of any size is read through in the memory
 * of one block and one record.
 */
static void check_ledger(doctor *d)
{
	char cwd[PATH_MAX], *path = NULL, *dir = NULL;
	roz_orchestration o;
	roz_lines *l = NULL;
	struct stat st;
	size_t records = 0, bad = 0, first_bad = 0, lineno = 0;
	bool torn = false;
	int rc;

	memset(&o, 0, sizeof o);
	if (!getcwd(cwd, sizeof cwd) || roz_orchestration_find(cwd, &o) < 0 || !o.has_dir)
		goto out;
	path = roz_asprintf("%s/%s", o.root, ROZ_LEDGER_FILE);
	dir = roz_asprintf("%s/%s", o.root, ROZ_ORCH_DIR);
	if (!path || !dir) {
		fail(d, "free some memory", "ledger: out of memory");
		goto out;
	}
	if (lstat(path, &st) < 0) {
		if (access(dir, W_OK | X_OK) < 0)
			fail(d, "make .orchestration/ writable by you, so writes can be recorded",
			     "ledger: %s cannot be created (%s)", ROZ_LEDGER_FILE, strerror(errno));
		else
			notice("ledger: no %s yet; the first write recorded starts it", ROZ_LEDGER_FILE);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(d, "move it aside: the ledger must be a regular file (roz appends to it)",
		     "ledger: %s is not a regular file; no write can be recorded", ROZ_LEDGER_FILE);
		goto out;
	}
	if (access(path, W_OK) < 0) {
		fail(d, "make it writable by you (chmod u+w), so writes can be recorded",
		     "ledger: %s cannot be written (%s); writes are not being recorded", ROZ_LEDGER_FILE,
		     strerror(errno));
		goto out;
	}
	rc = roz_lines_open(path, ROZ_LEDGER_MAX_LINE, &l);
	while (rc == ROZ_OK) {
		const char *line;
		size_t len;
		uint64_t offset;
		bool ended;
		roz_ledger_rec rec;

		rc = roz_lines_next(l, &line, &len, &offset, &ended);
		if (rc != ROZ_OK)
			break;
		lineno++;
		torn = !ended;
		if (!len)
			continue;
		/* a line longer than any record (not held: line is NULL) is not one */
		rc = line ? roz_ledger_line_parse(line, len, &rec) : ROZ_EPARSE;
		if (rc == ROZ_OK) {
			records++;
			roz_ledger_rec_dispose(&rec);
		} else if (rc == ROZ_EPARSE) {
			if (bad++ == 0)
				first_bad = lineno;
			rc = ROZ_OK;
		}
	}
	if (rc == ROZ_ENOMEM) {
		fail(d, "free some memory", "ledger: out of memory reading %s", ROZ_LEDGER_FILE);
		goto out;
	}
	if (rc != ROZ_ENOTFOUND || !l) {
		char *why = cli_safe(roz_error_last(), false);

		warn("make it readable by you (chmod u+r): `roz ledger verify` and the reviews read it",
		     "ledger: %s is writable but cannot be read (%s)", ROZ_LEDGER_FILE, why ? why : "?");
		roz_free(why);
		goto out;
	}
	pass("ledger: %s: %zu record%s", ROZ_LEDGER_FILE, records, records == 1 ? "" : "s");
	if (bad)
		warn("readers skip them; `roz ledger verify` lists them. A line cut short by a crash is "
		     "left as it is: the next record starts on a fresh line",
		     "ledger: %zu line%s not a record (the first is line %zu)%s", bad,
		     bad == 1 ? " is" : "s are", first_bad, torn ? ", the last one torn" : "");
out:
	roz_lines_close(l);
	roz_free(path);
	roz_free(dir);
	roz_orchestration_dispose(&o);
}

int cmd_doctor(int argc, char **argv)
{
	const char *given = NULL;
	roz_config config;
	char *plugin, *second;
	doctor d = {0};

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			help();
			return cli_finish_stdout(ROZ_EXIT_OK);
		} else if (strcmp(argv[i], "--plugin-dir") == 0 && i + 1 < argc) {
			given = argv[++i];
		} else if (strncmp(argv[i], "--plugin-dir=", 13) == 0) {
			given = argv[i] + 13;
		} else {
			return cli_usage_error("doctor", "unknown argument '%s'", argv[i]);
		}
	}
	check_path(&d);
	if (!check_config(&d, &config))
		return cli_finish_stdout(ROZ_EXIT_FAILURE);
	check_storage(&d, &config);
	check_plugins(&d, given, &config, &plugin);
	check_templates(&d, &config, plugin);
	check_claude();
	check_governance_config(&d, &config);
	check_governance(&d, &config);
	check_ledger(&d);
	second = roz_runner_find_second_opinions(&config, roz_config_load_process_env, NULL);
	pass("second-opinion tools on PATH: %s", second ? second : "none (the reviewer reasons on its own)");
	roz_free(second);
	roz_free(plugin);
	roz_config_dispose(&config);
	if (d.failures)
		printf("\n%d check%s failed.\n", d.failures, d.failures == 1 ? "" : "s");
	return cli_finish_stdout(d.failures ? ROZ_EXIT_FAILURE : ROZ_EXIT_OK);
}
