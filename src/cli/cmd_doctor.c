/*
 * cmd_doctor.c - `roz doctor`: check that roz can work here - on PATH,
 * storage private and writable, config and templates readable, the plugin's
 * hooks wired to roz - and say how to fix each thing that is not.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "roz/json.h"
#include "roz/runner.h"
#include "roz/version.h"

typedef struct doctor {
	int failures;
} doctor;

static void help(void)
{
	printf("usage: roz doctor [--plugin-dir DIR]\n\n"
	       "Check that roz can do its job here, and say how to fix what is wrong:\n"
	       "roz on PATH, the storage directory, the config file, block templates, the\n"
	       "plugin's hooks.json, and which second-opinion tools the reviewer can use.\n"
	       "Exits 0 only when every check passes.\n\n"
	       "Options:\n"
	       "      --plugin-dir DIR  the plugin to check (default: $CLAUDE_PLUGIN_ROOT, the\n"
	       "                        installed share/roz/plugin, or plugin/ next to the build)\n"
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

static void check_storage(doctor *d, const roz_config *config)
{
	char *dir = roz_asprintf("%s/sessions", config->storage_path), fix[PATH_MAX + 64];
	struct stat st;

	if (!dir)
		return;
	if (stat(dir, &st) < 0) {
		snprintf(fix, sizeof(fix), "the first hook creates it; or now: mkdir -p -m 700 %s", dir);
		fail(d, fix, "storage directory %s does not exist yet", dir);
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

typedef struct warnings {
	char lines[8][512];
	int n;
} warnings;

static void collect(void *ud, const char *msg)
{
	warnings *w = ud;

	if (w->n < 8)
		snprintf(w->lines[w->n++], sizeof(w->lines[0]), "%s", msg);
}

static bool check_config(doctor *d, roz_config *config)
{
	warnings w = {.n = 0};
	int rc = roz_config_load(config, roz_config_process_env, NULL, collect, &w);

	if (rc == ROZ_ENOMEM) {
		fail(d, "free some memory", "out of memory loading config");
		return false;
	}
	if (rc < 0)
		fail(d, "correct the file (see the Configuration section of the README)", "config: %s",
		     roz_error_last());
	else if (config->config_loaded)
		pass("config: %s", config->config_path);
	else
		pass("config: no file at %s (defaults)", config->config_path);
	for (int i = 0; i < w.n; i++)
		note(w.lines[i]);
	return true;
}

static void check_template(doctor *d, const roz_config *config, const char *plugin, const char *id)
{
	char *path = roz_asprintf("%s/templates/block-%s.md", config->home, id), *text, fix[PATH_MAX + 64];
	struct stat st;

	if (!path)
		return;
	text = roz_template_load(config, plugin, id);
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

/* Where the plugin is: given, from Claude Code, installed beside roz, or in the source tree. */
static char *plugin_dir(const char *given)
{
	const char *env = getenv("CLAUDE_PLUGIN_ROOT");
	char exe[PATH_MAX], *slash, *p;
	ssize_t n;

	if (given)
		return roz_strdup(given);
	if (env && *env)
		return roz_strdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return NULL;
	*slash = '\0';
	p = roz_asprintf("%s/../share/roz/plugin", exe);
	if (p && access(p, F_OK) == 0)
		return p;
	roz_free(p);
	p = roz_asprintf("%s/../plugin", exe);
	if (p && access(p, F_OK) == 0)
		return p;
	roz_free(p);
	return NULL;
}

/* The first hook command registered for an event, or NULL; *matcher gets its matcher. */
static const char *hook_command(const cJSON *hooks, const char *event, const char **matcher)
{
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(hooks, event), *g, *h;

	*matcher = NULL;
	cJSON_ArrayForEach(g, groups) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(g, "matcher");

		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(g, "hooks")) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(h, "command");

			if (cJSON_IsString(c)) {
				*matcher = cJSON_IsString(m) ? m->valuestring : NULL;
				return c->valuestring;
			}
		}
	}
	return NULL;
}

static void check_plugin(doctor *d, const char *dir)
{
	static const struct {
		const char *event, *cmd, *matcher;
	} want[] = {
		{"SessionStart", "roz hook session-start", NULL},
		{"UserPromptSubmit", "roz hook user-prompt", NULL},
		{"PreToolUse", "roz hook pre-tool-use", NULL},
		{"Stop", "roz hook stop", NULL},
		{"SubagentStart", "roz hook subagent-start", "^roz:roz$"},
		{"SubagentStop", "roz hook subagent-stop", "^roz:roz$"},
		{"SessionEnd", "roz hook session-end", NULL},
	};
	char *path = dir ? roz_asprintf("%s/hooks/hooks.json", dir) : NULL, *text = NULL;
	size_t len = 0;
	cJSON *doc = NULL;
	const cJSON *hooks;
	int bad = 0;

	if (!path) {
		fail(d, "pass --plugin-dir DIR, or install roz (cmake --install build)",
		     "cannot find the roz plugin to check");
		return;
	}
	{
		FILE *f = fopen(path, "rb");
		roz_buf b = ROZ_BUF_INIT;
		char chunk[4096];
		size_t r;

		if (f) {
			while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
				roz_buf_add(&b, chunk, r);
			fclose(f);
			text = roz_buf_detach(&b, &len);
		}
	}
	if (!text) {
		fail(d, "reinstall the plugin", "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if (roz_json_parse(text, len, &doc) < 0 ||
	    !cJSON_IsObject(hooks = cJSON_GetObjectItemCaseSensitive(doc, "hooks"))) {
		fail(d, "restore hooks.json from the roz release", "%s is not a valid hooks file (%s)", path,
		     roz_error_last());
		goto out;
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *matcher, *cmd = hook_command(hooks, want[i].event, &matcher);
		size_t n = strlen(want[i].cmd);

		if (!cmd || strncmp(cmd, want[i].cmd, n) != 0 || (cmd[n] && cmd[n] != ' ')) {
			printf("    %s: expected \"%s\"%s%s\n", want[i].event, want[i].cmd, cmd ? ", found " : "",
			       cmd ? cmd : "");
			bad++;
		} else if (want[i].matcher && (!matcher || strcmp(matcher, want[i].matcher) != 0)) {
			printf("    %s: matcher should be \"%s\"\n", want[i].event, want[i].matcher);
			bad++;
		} else if (!want[i].matcher && matcher && *matcher && strcmp(matcher, "*") != 0) {
			printf("    %s: a matcher (\"%s\") limits which calls roz sees\n", want[i].event, matcher);
			bad++;
		}
	}
	if (bad)
		fail(d, "restore hooks.json from the roz release", "%s: %d hook%s not wired to roz", path, bad,
		     bad == 1 ? "" : "s");
	else
		pass("plugin hooks: %s", path);
out:
	cJSON_Delete(doc);
	roz_free(text);
	roz_free(path);
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
	plugin = plugin_dir(given);
	check_templates(&d, &config, plugin);
	check_plugin(&d, plugin);
	second = roz_find_second_opinions(&config, roz_config_process_env, NULL);
	pass("second-opinion tools on PATH: %s", second ? second : "none (the reviewer reasons on its own)");
	roz_free(second);
	roz_free(plugin);
	roz_config_free(&config);
	if (d.failures)
		printf("\n%d check%s failed.\n", d.failures, d.failures == 1 ? "" : "s");
	return cli_finish_stdout(d.failures ? ROZ_EXIT_FAILURE : ROZ_EXIT_OK);
}
