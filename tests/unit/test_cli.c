/*
 * test_cli.c - roz doctor, one test per check that can fail or warn, the output
 * conventions every command shares (no colour off a terminal, a failed write
 * to stdout is an error, usage mistakes exit 2), and the demos.
 */
#include "support.h"

#include "roz/claude_versions.h"
#include "roz/matcher.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct home {
	char *dir;
	char *env[6];
	char *bin; /* a directory holding a `roz` that is this build */
} home;

/* A throwaway home whose storage exists and is private, with roz on PATH. */
static void home_make(home *h)
{
	char *sessions, *link, *exe = strdup(ROZ_BINARY);

	h->dir = t_mkdtemp();
	sessions = t_sprintf("%s/sessions", h->dir);
	assert_int_equal(mkdir(sessions, 0700), 0);
	h->bin = t_sprintf("%s/bin", h->dir);
	assert_int_equal(mkdir(h->bin, 0700), 0);
	link = t_sprintf("%s/roz", h->bin);
	assert_int_equal(symlink(ROZ_BINARY, link), 0);
	h->env[0] = t_sprintf("ROZ_HOME=%s", h->dir);
	h->env[1] = t_sprintf("PATH=%s:/usr/bin:/bin", h->bin);
	h->env[2] = t_sprintf("HOME=%s", h->dir);
	h->env[3] = NULL;
	free(sessions);
	free(link);
	free(exe);
}

static void home_dispose(home *h)
{
	t_rmtree(h->dir);
	free(h->dir);
	free(h->bin);
	for (int i = 0; h->env[i]; i++)
		free(h->env[i]);
}

static t_run doctor(home *h, const char *plugin)
{
	char *dir = plugin ? strdup(plugin) : t_sprintf("%s/plugin", ROZ_SOURCE_DIR);
	const char *argv[] = {"doctor", "--plugin-dir", dir, NULL};
	t_run r;

	t_run_roz(&r, NULL, (const char *const *)h->env, argv);
	free(dir);
	return r;
}

static void expect_failure(t_run *r, const char *what, const char *fix)
{
	if (r->status != 1 || !strstr(r->out, what) || !strstr(r->out, fix))
		fail_msg("expected a failed check with '%s' and fix '%s'; exit %d, output:\n%s", what, fix,
			 r->status, r->out);
	assert_non_null(strstr(r->out, "FAIL"));
}

static void doctor_passes_on_a_good_install(void **state)
{
	home h;
	t_run r;

	(void)state;
	home_make(&h);
	r = doctor(&h, NULL);
	if (r.status != 0)
		fail_msg("doctor failed on a good setup:\n%s%s", r.out, r.err);
	assert_null(strstr(r.out, "FAIL"));
	assert_non_null(strstr(r.out, "ok roz on PATH"));
	assert_non_null(strstr(r.out, "ok storage"));
	assert_non_null(strstr(r.out, "ok plugin hooks"));
	/* off a terminal there is no colour */
	assert_null(strchr(r.out, '\033'));
	t_run_dispose(&r);
	home_dispose(&h);
}

static void doctor_reports_roz_missing_from_path(void **state)
{
	home h;
	t_run r;

	(void)state;
	home_make(&h);
	free(h.env[1]);
	h.env[1] = strdup("PATH=/usr/bin:/bin");
	r = doctor(&h, NULL);
	expect_failure(&r, "roz is not on PATH", "cmake --install");
	t_run_dispose(&r);
	home_dispose(&h);
}

static void doctor_reports_another_roz_on_path(void **state)
{
	home h;
	t_run r;
	char *fake;

	(void)state;
	home_make(&h);
	fake = t_sprintf("%s/roz", h.bin);
	unlink(fake);
	t_write_file(fake, "#!/bin/sh\necho 'roz 0.0.1'\n");
	chmod(fake, 0755);
	r = doctor(&h, NULL);
	expect_failure(&r, "(roz 0.0.1)", "install this build");
	t_run_dispose(&r);
	free(fake);
	home_dispose(&h);
}

/* A fresh install has no sessions directory yet: the first hook makes it, so that is a note. */
static void doctor_passes_on_a_fresh_install(void **state)
{
	home h;
	t_run r;
	char *sessions;

	(void)state;
	home_make(&h);
	sessions = t_sprintf("%s/sessions", h.dir);
	assert_int_equal(rmdir(sessions), 0);
	r = doctor(&h, NULL);
	if (r.status != 0 || strstr(r.out, "FAIL") ||
	    !strstr(r.out, "note storage: ") || !strstr(r.out, "does not exist yet; the first hook creates it"))
		fail_msg("doctor on a fresh install (exit %d):\n%s%s", r.status, r.out, r.err);
	t_run_dispose(&r);
	free(sessions);
	home_dispose(&h);
}

/* ...unless nothing could create it there. */
static void doctor_reports_storage_it_cannot_create(void **state)
{
	home h;
	t_run r;
	char *file;

	(void)state;
	home_make(&h);
	file = t_sprintf("%s/a-file", h.dir);
	t_write_file(file, "");
	free(h.env[3]);
	h.env[3] = t_sprintf("ROZ_STORAGE_PATH=%s/below", file);
	h.env[4] = NULL;
	r = doctor(&h, NULL);
	expect_failure(&r, "does not exist and cannot be created here", "mkdir -p -m 700");
	t_run_dispose(&r);
	free(file);
	home_dispose(&h);
}

static void doctor_reports_storage_others_can_read(void **state)
{
	home h;
	t_run r;
	char *sessions;

	(void)state;
	home_make(&h);
	sessions = t_sprintf("%s/sessions", h.dir);
	chmod(sessions, 0755);
	r = doctor(&h, NULL);
	expect_failure(&r, "readable by others (mode 755)", "chmod 700");
	t_run_dispose(&r);
	free(sessions);
	home_dispose(&h);
}

static void doctor_reports_a_bad_config_with_position(void **state)
{
	home h;
	t_run r;
	char *cfg;

	(void)state;
	home_make(&h);
	cfg = t_sprintf("%s/config.toml", h.dir);
	t_write_file(cfg, "[review]\nmode = always\n");
	r = doctor(&h, NULL);
	expect_failure(&r, "config.toml:2:8: invalid value", "correct the TOML on that line");
	t_run_dispose(&r);
	/* unknown keys are shown but do not fail the check */
	t_write_file(cfg, "[review]\nmood = \"always\"\n");
	r = doctor(&h, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "unknown key 'mood'"));
	t_run_dispose(&r);
	free(cfg);
	home_dispose(&h);
}

static void doctor_reports_templates_it_cannot_use(void **state)
{
	home h;
	t_run r;
	char *cfg, *tmpl;

	(void)state;
	home_make(&h);
	cfg = t_sprintf("%s/config.toml", h.dir);
	t_write_file(cfg, "[templates]\nactive = \"terse\"\n");
	r = doctor(&h, NULL);
	expect_failure(&r, "template 'terse' not found", "block-terse.md");
	t_run_dispose(&r);
	tmpl = t_sprintf("%s/templates/block-terse.md", h.dir);
	t_write_file(tmpl, "");
	r = doctor(&h, NULL);
	expect_failure(&r, "template 'terse' at", "non-empty UTF-8");
	t_run_dispose(&r);
	t_write_file(tmpl, "Review please: {{session_id}}\n");
	r = doctor(&h, NULL);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	free(tmpl);
	free(cfg);
	home_dispose(&h);
}

static void doctor_reports_a_miswired_plugin(void **state)
{
	home h;
	t_run r;
	char *plugin, *hooks, *src, *text;

	(void)state;
	home_make(&h);
	plugin = t_sprintf("%s/plugin", h.dir);
	hooks = t_sprintf("%s/hooks/hooks.json", plugin);
	t_write_file(hooks, "{not json");
	r = doctor(&h, plugin);
	expect_failure(&r, "not a valid hooks file", "restore hooks.json");
	t_run_dispose(&r);
	/* the real file with PreToolUse limited to Bash and SubagentStop's matcher lost */
	src = t_sprintf("%s/plugin/hooks/hooks.json", ROZ_SOURCE_DIR);
	text = t_read_file(src, NULL);
	assert_non_null(text);
	{
		roz_buf e = ROZ_BUF_INIT;
		char *edited, *m;

		roz_buf_add_replaced(&e, text, "\"" ROZ_MATCHER_PRE_TOOL_USE "\"", "\"Bash\"");
		edited = roz_buf_detach(&e, NULL);
		assert_non_null(edited);

		m = strstr(edited, "\"^roz:roz$\", \"hooks\": [{\"type\": \"command\", \"command\": \"roz\", "
				   "\"args\": [\"hook\", \"subagent-stop\"]");
		assert_non_null(m);
		memcpy(m, "\"^roz:rox$\"", 11);
		t_write_file(hooks, edited);
		roz_free(edited);
	}
	r = doctor(&h, plugin);
	/* six tools roz acts on before they run, and the reviewer's stop */
	expect_failure(&r, "8 hooks not wired to roz", "restore hooks.json");
	assert_non_null(strstr(r.out, "PreToolUse: the matcher leaves out Write, which roz acts on; roz's matcher "
				      "is \"" ROZ_MATCHER_PRE_TOOL_USE "\""));
	assert_non_null(strstr(r.out, "PreToolUse: the matcher leaves out mcp__server__tool"));
	assert_null(strstr(r.out, "PreToolUse: the matcher leaves out Bash"));
	assert_non_null(strstr(r.out, "SubagentStop: the matcher leaves out roz:roz"));
	t_run_dispose(&r);
	free(text);
	free(src);
	free(plugin);
	free(hooks);
	home_dispose(&h);
}

/* The plugin as it was before exec form: every hook a command line that /bin/sh runs. */
static const char shell_form_hooks[] =
	"{\"hooks\": {\n"
	"\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"roz hook session-start\"}]}],\n"
	"\"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"roz hook user-prompt\"}]}],\n"
	"\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"roz hook pre-tool-use\"}]}],\n"
	"\"PostToolUse\": [{\"matcher\": \"^(Read|Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*)$\", \"hooks\": "
	"[{\"type\": \"command\", \"command\": \"roz hook post-tool-use\"}]}],\n"
	"\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/roz hook stop\"}]}],\n"
	"\"SubagentStart\": [{\"matcher\": \"^roz:roz$\", \"hooks\": [{\"type\": \"command\", \"command\": "
	"\"roz\", \"args\": [\"hook\", \"subagent-start\"]}]}],\n"
	"\"SubagentStop\": [{\"matcher\": \"^roz:roz$\", \"hooks\": [{\"type\": \"command\", \"command\": "
	"\"roz\", \"args\": [\"hook\", \"subagent-stop\"]}]}],\n"
	"\"SessionEnd\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"roz hook session-end\"}]}]\n"
	"}}\n";

/* Shell form works but puts a shell in front of every call: doctor says how to start roz alone. */
static void doctor_reports_hooks_in_shell_form(void **state)
{
	home h;
	t_run r;
	char *plugin, *hooks;

	(void)state;
	home_make(&h);
	plugin = t_sprintf("%s/plugin", h.dir);
	hooks = t_sprintf("%s/hooks/hooks.json", plugin);
	t_write_file(hooks, shell_form_hooks);
	r = doctor(&h, plugin);
	expect_failure(&r, "6 hooks not wired to roz", "put the hooks in exec form");
	assert_non_null(strstr(r.out, "PreToolUse: \"roz hook pre-tool-use\" is in shell form: Claude Code starts "
				      "/bin/sh, which then starts roz, on every call; in exec form it starts roz "
				      "alone: \"command\": \"roz\", \"args\": [\"hook\", \"pre-tool-use\"]"));
	assert_non_null(strstr(r.out, "Stop: \"/usr/local/bin/roz hook stop\" is in shell form"));
	assert_null(strstr(r.out, "SubagentStart:"));
	/* and that PreToolUse has no matcher: every tool call starts roz */
	assert_non_null(strstr(r.out, "PreToolUse has no matcher: Claude Code starts roz for every tool call"));
	t_run_dispose(&r);
	free(plugin);
	free(hooks);
	home_dispose(&h);
}

/*
 * A gate on a tool the plugin's matcher leaves out never holds: doctor fails
 * with the hook of one's own that covers it, and passes once it is there.
 */
static void doctor_reports_gates_no_hook_reaches(void **state)
{
	home h;
	t_run r;
	char *config, *settings, *fix;

	(void)state;
	home_make(&h);
	config = t_sprintf("%s/config.toml", h.dir);
	t_write_file(config, "[review.gates]\ntools = [\"Bash:git push*\", \"mcp__github__merge*\", \"WebFetch\", "
			     "\"Web*\"]\n");
	r = doctor(&h, NULL);
	fix = t_sprintf("add a PreToolUse hook of your own for them to %s/.claude/settings.json", h.dir);
	expect_failure(&r, "gates `WebFetch`, `Web*` name WebFetch, WebSearch, which the PreToolUse matcher "
			   "leaves out: Claude Code never starts roz for them, so these gates cannot hold",
		       fix);
	assert_non_null(strstr(r.out, "\"hooks\": {\"PreToolUse\": [{\"matcher\": \"^(WebFetch|WebSearch)$\", "
				      "\"hooks\": [{\"type\": \"command\", \"command\": \"roz\", \"args\": [\"hook\", "
				      "\"pre-tool-use\"], \"timeout\": 5}]}]}"));
	t_run_dispose(&r);
	/* the fix, as written: the gates are reached, and nothing else fails */
	settings = t_sprintf("%s/.claude/settings.json", h.dir);
	t_write_file(settings, "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"^(WebFetch|WebSearch)$\", \"hooks\": "
			       "[{\"type\": \"command\", \"command\": \"roz\", \"args\": [\"hook\", "
			       "\"pre-tool-use\"], \"timeout\": 5}]}]}}\n");
	r = doctor(&h, NULL);
	if (r.status != 0)
		fail_msg("doctor with the gates' own hook (exit %d):\n%s%s", r.status, r.out, r.err);
	t_run_dispose(&r);
	/* gates the plugin reaches need nothing */
	t_write_file(settings, "{}\n");
	t_write_file(config, "[review.gates]\ntools = [\"Bash:git push*\", \"mcp__github__merge*\", \"Agent\"]\n");
	r = doctor(&h, NULL);
	if (r.status != 0)
		fail_msg("doctor with gates the plugin reaches (exit %d):\n%s%s", r.status, r.out, r.err);
	t_run_dispose(&r);
	free(settings);
	free(fix);
	free(config);
	home_dispose(&h);
}

/*
 * Every problem in the config fails doctor, each shown with its line:col
 * and its fix, even those that cost nothing but the line they are on.
 */
static void doctor_reports_every_config_problem(void **state)
{
	static const struct {
		const char *text, *what, *fix;
	} cases[] = {
		{"[circuit_breaker]\nmax_blocks = -1\n", "config.toml:2:14: 'circuit_breaker.max_blocks' must not be negative; using 3",
		 "delete the line to use the default"},
		{"[review]\nmode = \"Prompt\"\n", "config.toml:2:8: 'review.mode' must be one of", "give it a value"},
		{"[circuit_breaker]\nmax_blocks = 99999999999999999999\n", "config.toml:2:14: integer out of range",
		 "correct the TOML"},
		{"[review]\nmode = \"never\"\nmode = \"always\"\n", "config.toml:3:1: duplicate key 'mode'; the first, on line 2, is used",
		 "delete one of the two"},
		{"# caf\xe9\n", "config.toml:1:6: invalid utf-8; nothing else is affected", "save the file as UTF-8"},
		{"[review.gates]\ntools = [\"Bash:git push*\", Edit]\n",
		 "config.toml:2:28: invalid value; roz cannot tell which tools are gated", "correct the TOML"},
	};
	home h;
	t_run r;
	char *cfg;

	(void)state;
	home_make(&h);
	cfg = t_sprintf("%s/config.toml", h.dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t_write_file(cfg, cases[i].text);
		r = doctor(&h, NULL);
		expect_failure(&r, cases[i].what, cases[i].fix);
		assert_non_null(strstr(r.out, "has 1 problem"));
		t_run_dispose(&r);
	}
	/* several at once: each is listed, in the order of the file */
	t_write_file(cfg, "[trace]\nmax_events = -5\n[review.gates]\ntools = [1]\nthis is not toml\n");
	r = doctor(&h, NULL);
	expect_failure(&r, "has 3 problems", "correct each problem below");
	{
		const char *a = strstr(r.out, "config.toml:2:14:"), *b = strstr(r.out, "config.toml:4:10:"),
			   *c = strstr(r.out, "config.toml:5:6:");

		if (!a || !b || !c || !(a < b && b < c))
			fail_msg("problems missing or out of order:\n%s", r.out);
	}
	assert_non_null(strstr(r.out, "hooks ask before each tool call that could be gated"));
	t_run_dispose(&r);
	free(cfg);
	home_dispose(&h);
}

/*
 * A copy of the real plugin where `claude plugin install roz@roz` puts it,
 * with Claude Code's record of the install (as 2.1.197 and 2.1.331 write it) if `record`.
 */
static char *install_in_claude(const home *h, bool record)
{
	char *dir = t_sprintf("%s/.claude/plugins/cache/roz/roz/0.2.0", h->dir);
	char *src = t_sprintf("%s/plugin/hooks/hooks.json", ROZ_SOURCE_DIR), *dst = t_sprintf("%s/hooks/hooks.json", dir);
	char *text = t_read_file(src, NULL), *path;

	assert_non_null(text);
	t_write_file(dst, text);
	if (record) {
		path = t_sprintf("%s/.claude/plugins/installed_plugins.json", h->dir);
		free(text);
		text = t_sprintf("{\"version\": 2, \"plugins\": {\"roz@roz\": [{\"scope\": \"user\", "
				 "\"installPath\": \"%s\", \"version\": \"0.2.0\"}]}}",
				 dir);
		t_write_file(path, text);
		free(path);
	}
	free(text);
	free(src);
	free(dst);
	return dir;
}

static t_run doctor_unguided(home *h)
{
	const char *argv[] = {"doctor", NULL};
	t_run r;

	t_run_roz(&r, NULL, (const char *const *)h->env, argv);
	return r;
}

/* Installed with `claude plugin install roz@roz`, the plugin lives under ~/.claude/plugins. */
static void doctor_finds_the_marketplace_install(void **state)
{
	home h;
	t_run r;
	char *dir, *want, *hooks;

	(void)state;
	home_make(&h);
	/* not installed in Claude Code: a note naming the commands */
	r = doctor_unguided(&h);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "note Claude Code has not installed the roz plugin"));
	t_run_dispose(&r);

	dir = install_in_claude(&h, true);
	want = t_sprintf("ok plugin hooks (installed in Claude Code as roz@roz): %s/hooks/hooks.json", dir);
	r = doctor_unguided(&h);
	if (r.status != 0 || !strstr(r.out, want) || strstr(r.out, "has not installed"))
		fail_msg("exit %d, output:\n%s", r.status, r.out);
	/* roz's own copy is checked as well */
	assert_non_null(strstr(r.out, "ok plugin hooks: "));
	t_run_dispose(&r);

	/* what Claude Code runs is what must be right */
	hooks = t_sprintf("%s/hooks/hooks.json", dir);
	t_write_file(hooks, "{\"hooks\": {}}");
	r = doctor_unguided(&h);
	expect_failure(&r, "(installed in Claude Code as roz@roz): 8 hooks not wired to roz", "restore hooks.json");
	t_run_dispose(&r);

	/* CLAUDE_CONFIG_DIR moves Claude Code's directory */
	h.env[3] = t_sprintf("CLAUDE_CONFIG_DIR=%s/elsewhere", h.dir);
	h.env[4] = NULL;
	r = doctor_unguided(&h);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "has not installed the roz plugin"));
	t_run_dispose(&r);
	free(hooks);
	free(want);
	free(dir);
	home_dispose(&h);
}

/* Without the record (older layouts, a damaged file) the cache is searched. */
static void doctor_finds_the_plugin_cache_without_its_record(void **state)
{
	home h;
	t_run r;
	char *dir, *want;

	(void)state;
	home_make(&h);
	dir = install_in_claude(&h, false);
	want = t_sprintf("ok plugin hooks (installed in Claude Code as roz@roz): %s/hooks/hooks.json", dir);
	r = doctor_unguided(&h);
	if (r.status != 0 || !strstr(r.out, want))
		fail_msg("exit %d, output:\n%s", r.status, r.out);
	t_run_dispose(&r);
	free(want);
	free(dir);
	home_dispose(&h);
}

/* A `claude` on PATH that prints `out` for --version (or, with out NULL, never answers). */
static void fake_claude(const home *h, const char *out)
{
	char *path = t_sprintf("%s/claude", h->bin), *script;

	script = out ? t_sprintf("#!/bin/sh\n[ \"$1\" = --version ] && echo '%s'\n", out)
		     : t_sprintf("#!/bin/sh\nexec sleep 30\n");
	t_write_file(path, script);
	assert_int_equal(chmod(path, 0755), 0);
	free(script);
	free(path);
}

static void doctor_shows_the_claude_code_version(void **state)
{
	home h;
	t_run r;
	char *line;
	time_t start;

	(void)state;
	home_make(&h);
	r = doctor(&h, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "note claude is not on PATH here"));
	t_run_dispose(&r);

	/* the ends of the tested range are inside it */
	fake_claude(&h, ROZ_CLAUDE_TESTED_NEWEST " (Claude Code)");
	r = doctor(&h, NULL);
	line = t_sprintf("ok Claude Code %s at %s/claude (roz is tested with %s to %s)", ROZ_CLAUDE_TESTED_NEWEST,
			 h.bin, ROZ_CLAUDE_TESTED_OLDEST, ROZ_CLAUDE_TESTED_NEWEST);
	if (r.status != 0 || !strstr(r.out, line))
		fail_msg("wanted '%s'; exit %d, output:\n%s", line, r.status, r.out);
	free(line);
	t_run_dispose(&r);
	fake_claude(&h, ROZ_CLAUDE_TESTED_OLDEST " (Claude Code)");
	r = doctor(&h, NULL);
	assert_non_null(strstr(r.out, "ok Claude Code " ROZ_CLAUDE_TESTED_OLDEST));
	t_run_dispose(&r);

	/* outside it: a warning, not a failure */
	fake_claude(&h, "999.0.0 (Claude Code)");
	r = doctor(&h, NULL);
	if (r.status != 0 || !strstr(r.out, "warn Claude Code 999.0.0 at ") ||
	    !strstr(r.out, "is outside the range roz is tested with, " ROZ_CLAUDE_TESTED_OLDEST " to "
			   ROZ_CLAUDE_TESTED_NEWEST))
		fail_msg("exit %d, output:\n%s", r.status, r.out);
	t_run_dispose(&r);
	fake_claude(&h, "0.9.1 (Claude Code)");
	r = doctor(&h, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "warn Claude Code 0.9.1 at "));
	assert_non_null(strstr(r.out, "claude update"));
	t_run_dispose(&r);
	fake_claude(&h, "not a version");
	r = doctor(&h, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "--version not a version"));
	t_run_dispose(&r);

	/* one that hangs is given a few seconds, then left */
	fake_claude(&h, NULL);
	start = time(NULL);
	r = doctor(&h, NULL);
	assert_true(time(NULL) - start < 10);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "--version did not answer within 3 s"));
	t_run_dispose(&r);
	home_dispose(&h);
}

/* Run roz with stdout on /dev/full: the write fails and roz must say so. */
/* Make a file look `secs` old. */
/* ---- governance -------------------------------------------------------- */

/* A repository at <home>/repo whose intents file holds `yaml`. Caller frees. */
static char *governed_repo(const home *h, const char *yaml)
{
	char *repo = t_sprintf("%s/repo", h->dir), *git = t_sprintf("%s/.git/HEAD", repo),
	     *file = t_sprintf("%s/.orchestration/active_intents.yaml", repo);

	t_write_file(git, "ref: refs/heads/main\n");
	t_write_file(file, yaml);
	free(git);
	free(file);
	return repo;
}

/* roz doctor run from `dir`: governance is judged for the repository the command runs in. */
static t_run doctor_in(home *h, const char *dir)
{
	char old[4096];
	t_run r;

	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(dir), 0);
	r = doctor(h, NULL);
	assert_int_equal(chdir(old), 0);
	return r;
}

static const char good_intents[] = "active_intents:\n"
				   "  - id: INT-001\n"
				   "    name: Auth\n"
				   "    status: IN_PROGRESS\n"
				   "    owned_scope: [\"src/auth/**\"]\n"
				   "  - id: INT-002\n"
				   "    name: Billing\n"
				   "    status: DRAFT\n";

static void doctor_passes_on_a_governed_repository(void **state)
{
	home h;
	t_run r;
	char *repo, *sub;

	(void)state;
	home_make(&h);
	repo = governed_repo(&h, good_intents);
	/* from a folder inside it, as from its root */
	sub = t_sprintf("%s/src", repo);
	assert_int_equal(mkdir(sub, 0700), 0);
	r = doctor_in(&h, sub);
	if (r.status != 0 || !strstr(r.out, "ok governance: ") ||
	    !strstr(r.out, "repo/.orchestration/active_intents.yaml: 2 intents, 1 IN_PROGRESS"))
		fail_msg("doctor in a governed repository (exit %d):\n%s%s", r.status, r.out, r.err);
	assert_null(strstr(r.out, "is IN_PROGRESS"));
	t_run_dispose(&r);

	/* outside any governed repository it is a note */
	r = doctor_in(&h, h.dir);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "governance: off here (no .orchestration/active_intents.yaml)"));
	t_run_dispose(&r);
	free(sub);
	free(repo);
	home_dispose(&h);
}

/*
 * The ledger: doctor counts its records, warns about lines that are not
 * (a torn tail), and fails when the next write could not be recorded.
 */
static void doctor_checks_the_ledger(void **state)
{
	home h;
	t_run r;
	char *repo, *ledger;

	(void)state;
	home_make(&h);
	repo = governed_repo(&h, good_intents);
	ledger = t_sprintf("%s/.orchestration/agent_trace.jsonl", repo);
	r = doctor_in(&h, repo);
	assert_non_null(strstr(r.out, "ledger: no .orchestration/agent_trace.jsonl yet"));
	t_run_dispose(&r);
	t_write_file(ledger, "{\"version\":\"0.1\",\"id\":\"550e8400-e29b-41d4-a716-446655440000\","
			     "\"timestamp\":\"2026-01-25T10:00:00Z\",\"files\":[]}\n{\"version\":\"0.1\",\"id");
	r = doctor_in(&h, repo);
	if (r.status != 0 || !strstr(r.out, "ledger: .orchestration/agent_trace.jsonl: 1 record") ||
	    !strstr(r.out, "ledger: 1 line is not a record (the first is line 2), the last one torn"))
		fail_msg("doctor with a torn ledger (exit %d):\n%s%s", r.status, r.out, r.err);
	t_run_dispose(&r);
	/* a ledger nobody can append to */
	unlink(ledger);
	assert_int_equal(mkdir(ledger, 0700), 0);
	r = doctor_in(&h, repo);
	if (r.status != 1 || !strstr(r.out, "is not a regular file; no write can be recorded"))
		fail_msg("doctor with a directory for a ledger (exit %d):\n%s%s", r.status, r.out, r.err);
	t_run_dispose(&r);
	free(ledger);
	free(repo);
	home_dispose(&h);
}

/*
 * An intents file that cannot be used fails doctor with the file, line and
 * column the hooks refuse changes with, and the fix; each class of problem
 * the reader reports, and a file it will not read at all.
 */
static void doctor_reports_a_broken_intents_file(void **state)
{
	static const struct {
		const char *yaml, *where;
	} cases[] = {
		{"active_intents:\n  - id: INT-001\n    name: [x\n", "active_intents.yaml:4:1: "},
		{"active_intents:\n  - id: INT-001\n    name: x\n    status: DONE\n", "active_intents.yaml:4:13: "},
		{"active_intents:\n  - {id: A, name: x, status: DRAFT}\n  - {id: A, name: y, status: DRAFT}\n",
		 "active_intents.yaml:3:"},
		{"active_intents:\n  - id: A\n    name: x\n    status: DRAFT\n    owned_scope: [\"../x\"]\n",
		 "active_intents.yaml:5:19: "},
		{"active_intents:\n  - id: A\n    name: caf\xe9\n    status: DRAFT\n", "active_intents.yaml:3:14: "},
		{"intents: []\n", "active_intents.yaml:1:1: "},
	};
	home h;
	t_run r;
	char *repo, *file;

	(void)state;
	home_make(&h);
	repo = governed_repo(&h, "");
	file = t_sprintf("%s/.orchestration/active_intents.yaml", repo);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t_write_file(file, cases[i].yaml);
		r = doctor_in(&h, repo);
		expect_failure(&r, cases[i].where, "fix the YAML at that line; `roz intent list` checks it");
		assert_non_null(strstr(r.out, "every change there is refused"));
		t_run_dispose(&r);
	}
	/* a file it will not read has no line to fix: the fix says what the file must be */
	assert_int_equal(unlink(file), 0);
	assert_int_equal(mkdir(file, 0700), 0);
	r = doctor_in(&h, repo);
	expect_failure(&r, "active_intents.yaml: not a regular file", "a regular file roz can read, at most 1 MiB");
	t_run_dispose(&r);
	free(file);
	free(repo);
	home_dispose(&h);
}

/* With no intent open for work every change is refused: doctor warns, and does not fail. */
static void doctor_warns_when_no_intent_is_in_progress(void **state)
{
	home h;
	t_run r;
	char *repo, *ignore;

	(void)state;
	home_make(&h);
	repo = governed_repo(&h, "active_intents:\n  - id: INT-002\n    name: Billing\n    status: DRAFT\n");
	r = doctor_in(&h, repo);
	if (r.status != 0 || !strstr(r.out, "1 intent, 0 IN_PROGRESS") ||
	    !strstr(r.out, "governance: no intent is IN_PROGRESS, so every change in ") ||
	    !strstr(r.out, "set the status of the work to allow to IN_PROGRESS"))
		fail_msg("exit %d:\n%s%s", r.status, r.out, r.err);
	t_run_dispose(&r);

	/* lines of .intentignore that are not patterns: a warning naming them */
	ignore = t_sprintf("%s/.orchestration/.intentignore", repo);
	t_write_file(ignore, "build/\n[abc\n# a comment\n/..\n*.log\n");
	r = doctor_in(&h, repo);
	if (r.status != 0 || !strstr(r.out, ".intentignore: 2 line(s) are not valid patterns") ||
	    !strstr(r.out, "line 2: [abc") || !strstr(r.out, "line 4: /..") || strstr(r.out, "line 1:") ||
	    !strstr(r.out, "fix or delete those lines"))
		fail_msg("exit %d:\n%s%s", r.status, r.out, r.err);
	t_run_dispose(&r);
	free(ignore);
	free(repo);
	home_dispose(&h);
}

/* A destructive rule turned off by a name roz does not have turns nothing off: doctor fails it. */
static void doctor_reports_an_unknown_destructive_rule(void **state)
{
	home h;
	t_run r;
	char *cfg;

	(void)state;
	home_make(&h);
	cfg = t_sprintf("%s/config.toml", h.dir);
	t_write_file(cfg, "[governance]\ndestructive_disable = [\"git-stash-drop\", \"rm-rf\"]\n");
	r = doctor_in(&h, h.dir);
	expect_failure(&r, "destructive_disable names 'rm-rf', which is not a rule",
		       "name a rule roz has: rm-recursive, git-push-force,");
	assert_non_null(strstr(r.out, "sql-drop"));
	assert_null(strstr(r.out, "'git-stash-drop'"));
	t_run_dispose(&r);

	t_write_file(cfg, "[governance]\ndestructive_extra = [\"terraform [destroy\"]\n");
	r = doctor_in(&h, h.dir);
	expect_failure(&r, "destructive_extra 'terraform [destroy' is not a valid glob", "close every `[`");
	t_run_dispose(&r);

	t_write_file(cfg, "[governance]\ndestructive_disable = [\"git-stash-drop\"]\n"
			  "destructive_extra = [\"terraform destroy*\"]\n");
	r = doctor_in(&h, h.dir);
	if (r.status != 0 || !strstr(r.out, "ok config: [governance] rule names and globs"))
		fail_msg("exit %d:\n%s%s", r.status, r.out, r.err);
	t_run_dispose(&r);
	free(cfg);
	home_dispose(&h);
}

static void age_file(const char *path, long secs)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= secs;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/*
 * A session's lock file stays while the session does. One whose session was
 * never saved, and a temp file a killed writer left, go with `roz clean`
 * once they are old; a live session's lock file and a fresh one stay.
 */
static void clean_sweeps_orphaned_lock_and_temp_files(void **state)
{
	home h;
	const char *prompt[] = {"hook", "user-prompt", NULL}, *clean[] = {"clean", "--all", NULL};
	char *live = NULL, *orphan = NULL, *fresh = NULL, *temp = NULL;
	t_run r;

	(void)state;
	home_make(&h);
	t_run_roz(&r, "{\"session_id\":\"live\",\"cwd\":\"/w\",\"prompt\":\"#roz go\"}",
		  (const char *const *)h.env, prompt);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	live = t_sprintf("%s/sessions/live.lock", h.dir);
	orphan = t_sprintf("%s/sessions/gone.lock", h.dir);
	fresh = t_sprintf("%s/sessions/new.lock", h.dir);
	temp = t_sprintf("%s/sessions/live.json.tmp-locked", h.dir);
	assert_int_equal(access(live, F_OK), 0);
	t_write_file(orphan, "");
	t_write_file(fresh, "");
	t_write_file(temp, "{\"half");
	age_file(live, 3600);
	age_file(orphan, 3600);
	age_file(temp, 3600);
	t_run_roz(&r, NULL, (const char *const *)h.env, clean);
	assert_int_equal(r.status, 0);
	/* the live session is still under review: kept, with its lock file */
	if (!strstr(r.out, "gone.lock") || !strstr(r.out, "live.json.tmp-locked") || strstr(r.out, "new.lock") ||
	    strstr(r.out, "live.lock"))
		fail_msg("clean said:\n%s", r.out);
	t_run_dispose(&r);
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(access(fresh, F_OK), 0);
	assert_int_not_equal(access(orphan, F_OK), 0);
	assert_int_not_equal(access(temp, F_OK), 0);
	free(live);
	free(orphan);
	free(fresh);
	free(temp);
	home_dispose(&h);
}

/*
 * A corrupt file moved aside keeps the time of its last write. `roz clean
 * --before` must not take that for the time of the move: evidence moved
 * aside a moment ago stays for the whole age, and goes after it.
 */
static void clean_keeps_evidence_it_just_moved_aside(void **state)
{
	home h;
	const char *prompt[] = {"hook", "user-prompt", NULL};
	const char *clean_week[] = {"clean", "--before", "7d", NULL}, *clean_all[] = {"clean", "--all", NULL};
	char *json, *sessions, *moved = NULL, *old;
	t_run r;

	(void)state;
	home_make(&h);
	sessions = t_sprintf("%s/sessions", h.dir);
	json = t_sprintf("%s/q1.json", sessions);
	t_write_file(json, "{\"session_id\": \"q1\", \"review\": ");
	age_file(json, 30 * 86400);
	/* moved aside by roz long ago, by its name, and untouched since */
	old = t_sprintf("%s/q0.json.corrupt-20200101T000000Z", sessions);
	t_write_file(old, "garbage");
	age_file(old, 30 * 86400);
	t_run_roz(&r, "{\"session_id\":\"q1\",\"cwd\":\"/w\",\"prompt\":\"#roz again\"}",
		  (const char *const *)h.env, prompt);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "moved it to"));
	t_run_dispose(&r);
	{
		DIR *d = opendir(sessions);
		struct dirent *de;

		assert_non_null(d);
		while ((de = readdir(d)) != NULL)
			if (strncmp(de->d_name, "q1.json.corrupt-", 16) == 0)
				moved = t_sprintf("%s/%s", sessions, de->d_name);
		closedir(d);
	}
	assert_non_null(moved);

	t_run_roz(&r, NULL, (const char *const *)h.env, clean_week);
	assert_int_equal(r.status, 0);
	if (access(moved, F_OK) != 0 || strstr(r.out, "q1.json.corrupt-"))
		fail_msg("clean --before 7d removed what was moved aside just now:\n%s", r.out);
	if (access(old, F_OK) == 0 || !strstr(r.out, "q0.json.corrupt-20200101T000000Z"))
		fail_msg("clean --before 7d kept what was moved aside years ago:\n%s", r.out);
	t_run_dispose(&r);
	t_run_roz(&r, NULL, (const char *const *)h.env, clean_all);
	assert_int_equal(r.status, 0);
	assert_int_not_equal(access(moved, F_OK), 0);
	t_run_dispose(&r);
	free(old);
	free(moved);
	free(json);
	free(sessions);
	home_dispose(&h);
}

/*
 * A FIFO where a session file belongs used to hang `roz hook stop` for
 * good. The hook answers {} at once with a warning naming the FIFO, which
 * stays where it was.
 */
static void hook_answers_at_once_on_a_fifo(void **state)
{
	home h;
	const char *stop[] = {"hook", "stop", NULL};
	char *fifo;
	struct stat st;
	t_run r;

	(void)state;
	home_make(&h);
	fifo = t_sprintf("%s/sessions/ff.json", h.dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(20); /* a hook that hangs fails the test instead of the suite's timeout */
	t_run_roz(&r, "{\"session_id\":\"ff\",\"cwd\":\"/w\"}", (const char *const *)h.env, stop);
	alarm(0);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "{}\n");
	if (!strstr(r.err, "roz: warning:") || !strstr(r.err, "is a FIFO, not a session file"))
		fail_msg("stderr was:\n%s", r.err);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	t_run_dispose(&r);
	free(fifo);
	home_dispose(&h);
}

/*
 * A sessions directory anyone could write to was used as it was. The first
 * hook makes it private and says so on stderr; the next says nothing.
 */
static void hook_makes_an_open_sessions_dir_private(void **state)
{
	home h;
	const char *prompt[] = {"hook", "user-prompt", NULL};
	const char *in = "{\"session_id\":\"p1\",\"cwd\":\"/w\",\"prompt\":\"#roz go\"}";
	char *sessions;
	struct stat st;
	t_run r;

	(void)state;
	home_make(&h);
	sessions = t_sprintf("%s/sessions", h.dir);
	assert_int_equal(chmod(sessions, 0777), 0);
	t_run_roz(&r, in, (const char *const *)h.env, prompt);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "{}\n");
	if (!strstr(r.err, "roz: warning:") || !strstr(r.err, "was writable by group or others (mode 777); "
								 "made it private (mode 700)"))
		fail_msg("stderr was:\n%s", r.err);
	t_run_dispose(&r);
	assert_int_equal(stat(sessions, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	t_run_roz(&r, in, (const char *const *)h.env, prompt);
	assert_string_equal(r.err, "");
	t_run_dispose(&r);
	free(sessions);
	home_dispose(&h);
}

/* Bytes a terminal may act on: C0 but newline and tab, DEL, C1 (UTF-8), bidi controls, bytes not UTF-8. */
static const char *raw_control(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len; i++) {
		if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f || p[i] == 0xff)
			return s + i;
		if (p[i] == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
			return s + i;
		if (p[i] == 0xe2 && i + 2 < len && ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
						    (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)))
			return s + i;
	}
	return NULL;
}

static t_run run_cmd(home *h, const char *a, const char *b, const char *c)
{
	const char *argv[] = {a, b, c, NULL};
	t_run r;

	t_run_roz(&r, NULL, (const char *const *)h->env, argv);
	return r;
}

/*
 * What people read is shown with controls escaped; what scripts read
 * (--json) is the stored text exactly, escaped only as JSON must be.
 */
static void views_escape_controls_and_json_keeps_them(void **state)
{
	/* views of text say \x1b; views of JSON keep JSON's own \u001b for what it escapes */
	static const char *const text_form = "\\x1b]0;t\\x07b\\rc\\u009b2Jd\\u202ee";
	static const char *const json_form = "\\u001b]0;t\\u0007b\\rc\\u009b2Jd\\u202ee";
	const char *const human[][4] = {
		{"list", NULL, NULL, text_form},  {"context", "e1", NULL, text_form},
		{"trace", "e1", NULL, json_form}, {"trace", "e1", "-v", json_form},
		{"debug", "e1", NULL, json_form},
	};
	home h;
	const char *prompt[] = {"hook", "user-prompt", NULL};
	t_run r;

	(void)state;
	home_make(&h);
	/* ESC ] title BEL, CR, CSI as C1 (U+009B), a right-to-left override, a tab, a newline */
	t_run_roz(&r, "{\"session_id\":\"e1\",\"cwd\":\"/w\",\"prompt\":\"#roz a\\u001b]0;t\\u0007b\\rc"
		      "\\u009b2Jd\\u202ee\\tf\\ng\"}",
		  (const char *const *)h.env, prompt);
	assert_int_equal(r.status, 0);
	t_run_dispose(&r);
	for (size_t i = 0; i < sizeof(human) / sizeof(human[0]); i++) {
		const char *bad;

		r = run_cmd(&h, human[i][0], human[i][1], human[i][2]);
		assert_int_equal(r.status, 0);
		if ((bad = raw_control(r.out, r.out_len)) != NULL)
			fail_msg("roz %s printed byte 0x%02x raw:\n%s", human[i][0], (unsigned char)*bad, r.out);
		if (!strstr(r.out, human[i][3]))
			fail_msg("roz %s did not show the escapes:\n%s", human[i][0], r.out);
		t_run_dispose(&r);
	}
	/* context keeps the prompt's lines and its tab */
	r = run_cmd(&h, "context", "e1", NULL);
	assert_non_null(strstr(r.out, "\\u202ee\tf\n    g\n"));
	t_run_dispose(&r);
	r = run_cmd(&h, "list", "--json", NULL);
	assert_non_null(strstr(r.out, "\"first_prompt\":\"#roz a\\u001b]0;t\\u0007b\\rc\xc2\x9b" "2Jd\xe2\x80\xae"
				      "e\\tf\\ng\""));
	t_run_dispose(&r);
	r = run_cmd(&h, "context", "e1", "--json");
	assert_non_null(strstr(r.out, "\"user_prompts\":[\"#roz a\\u001b]0;t\\u0007b\\rc\xc2\x9b" "2Jd\xe2\x80\xae"
				      "e\\tf\\ng\"]"));
	t_run_dispose(&r);
	r = run_cmd(&h, "debug", "e1", "--json");
	assert_non_null(strstr(r.out, "\"#roz a\\u001b]0;t\\u0007b\\rc\xc2\x9b" "2Jd\xe2\x80\xae" "e\\tf\\ng\""));
	t_run_dispose(&r);
	home_dispose(&h);
}

/* A file name in the sessions directory is whatever its maker chose: clean shows it escaped. */
static void clean_shows_file_names_escaped(void **state)
{
	home h;
	char *name;
	t_run r;

	(void)state;
	home_make(&h);
	name = t_sprintf("%s/sessions/x\x1b[2J\xff.json.corrupt-20200101T000000Z", h.dir);
	t_write_file(name, "garbage");
	r = run_cmd(&h, "clean", "--all", NULL);
	assert_int_equal(r.status, 0);
	if (raw_control(r.out, r.out_len) || !strstr(r.out, "  x\\x1b[2J\\xff.json.corrupt-20200101T000000Z\n"))
		fail_msg("clean said:\n%s", r.out);
	assert_int_not_equal(access(name, F_OK), 0);
	t_run_dispose(&r);
	free(name);
	home_dispose(&h);
}

static int run_to_full(const char *arg, char *err, size_t errsize)
{
	int pipefd[2], st = 0;
	size_t got = 0;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int full = open("/dev/full", O_WRONLY);

		if (full < 0 || dup2(full, 1) < 0 || dup2(pipefd[1], 2) < 0)
			_exit(126);
		close(full);
		close(pipefd[0]);
		close(pipefd[1]);
		/* a roz that blocks instead of failing ends here, and the test says so */
		alarm(20);
		execl(ROZ_BINARY, "roz", arg, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	/* stderr is unbuffered: the message may come in several writes */
	while ((n = read(pipefd[0], err + got, errsize - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail_msg("reading roz's stderr: %s", strerror(errno));
		got += (size_t)n;
	}
	err[got] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			fail_msg("waitpid: %s", strerror(errno));
	if (WIFSIGNALED(st))
		fail_msg("roz %s was killed by signal %d (SIGALRM: it blocked writing to a full device)", arg,
			 WTERMSIG(st));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void a_failed_write_to_stdout_is_an_error(void **state)
{
	char err[512];

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	assert_int_equal(run_to_full("--version", err, sizeof(err)), 1);
	if (!strstr(err, "roz: error: cannot write to standard output"))
		fail_msg("stderr was: '%s'", err);
	assert_int_equal(run_to_full("--help", err, sizeof(err)), 1);
}

static void usage_mistakes_exit_2(void **state)
{
	static const char *const cases[][3] = {
		{"list", "--limit", "x"}, {"stats", "--days", "-1"}, {"clean", "--before", "soon"},
		{"trace", NULL, NULL},    {"debug", "a", "b"},      {"doctor", "--frob", NULL},
	};
	home h;

	(void)state;
	home_make(&h);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[4] = {cases[i][0], cases[i][1], cases[i][1] ? cases[i][2] : NULL, NULL};
		t_run r;

		t_run_roz(&r, NULL, (const char *const *)h.env, argv);
		if (r.status != 2 || !strstr(r.err, "roz: error:") || !strstr(r.err, "--help"))
			fail_msg("roz %s: exit %d, stderr:\n%s", cases[i][0], r.status, r.err);
		t_run_dispose(&r);
	}
	home_dispose(&h);
}

/* True when `dir` holds nothing but . and .. */
static bool dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = false;
	closedir(d);
	return empty;
}

/* The review demo passes every check it makes, points at the governance one, and leaves nothing. */
static void demo_walks_a_reviewed_session(void **state)
{
	char *tmp = t_mkdtemp(), *env_tmp = t_sprintf("TMPDIR=%s", tmp);
	const char *env[] = {env_tmp, NULL}, *argv[] = {"demo", NULL};
	t_run r;

	(void)state;
	t_run_roz(&r, NULL, env, argv);
	if (r.status != 0 || !strstr(r.out, "every step behaved as expected") ||
	    !strstr(r.out, "roz demo governance"))
		fail_msg("roz demo: exit %d\n%s%s", r.status, r.out, r.err);
	assert_true(dir_is_empty(tmp));
	t_run_dispose(&r);
	t_rmtree(tmp);
	free(tmp);
	free(env_tmp);
}

/*
 * The governance demo shows every refusal code, the handshake's
 * <intent_context>, the ask after three refusals in a row and the trace
 * that records it; it exits 0 and leaves nothing behind.
 */
static void demo_governance_shows_every_code(void **state)
{
	static const char *const shown[] = {
		"INT-001", "roz: INTENT_REQUIRED:", "roz: INTENT_INVALID:", "<intent_context>",
		"roz: SCOPE_VIOLATION:", "roz: ORCHESTRATION_PROTECTED:", "roz: STALE_FILE:",
		"src/billing/total.ts: created - outside the selected intent's owned_scope (INT-001)",
		"changes this session made that its intent does not allow still stand",
		"roz: DESTRUCTIVE_BLOCKED:", "(refusal 4 in a row: the person decides)",
		"escalated=true in_a_row=4", "intent_selected", "every step behaved as expected",
	};
	char *tmp = t_mkdtemp(), *env_tmp = t_sprintf("TMPDIR=%s", tmp);
	const char *env[] = {env_tmp, NULL}, *argv[] = {"demo", "governance", NULL};
	const char *help[] = {"demo", "--help", NULL};
	t_run r;

	(void)state;
	t_run_roz(&r, NULL, env, argv);
	if (r.status != 0)
		fail_msg("roz demo governance: exit %d\n%s%s", r.status, r.out, r.err);
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
		if (!strstr(r.out, shown[i]))
			fail_msg("roz demo governance does not show '%s':\n%s", shown[i], r.out);
	assert_null(strstr(r.out, "!!"));
	assert_true(dir_is_empty(tmp));
	t_run_dispose(&r);

	t_run_roz(&r, NULL, env, help);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "roz demo governance"));
	t_run_dispose(&r);
	t_rmtree(tmp);
	free(tmp);
	free(env_tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doctor_passes_on_a_good_install),
		cmocka_unit_test(doctor_reports_roz_missing_from_path),
		cmocka_unit_test(doctor_reports_another_roz_on_path),
		cmocka_unit_test(doctor_passes_on_a_fresh_install),
		cmocka_unit_test(doctor_reports_storage_it_cannot_create),
		cmocka_unit_test(doctor_reports_storage_others_can_read),
		cmocka_unit_test(doctor_reports_a_bad_config_with_position),
		cmocka_unit_test(doctor_reports_templates_it_cannot_use),
		cmocka_unit_test(doctor_reports_a_miswired_plugin),
		cmocka_unit_test(doctor_reports_hooks_in_shell_form),
		cmocka_unit_test(doctor_reports_gates_no_hook_reaches),
		cmocka_unit_test(doctor_reports_every_config_problem),
		cmocka_unit_test(doctor_finds_the_marketplace_install),
		cmocka_unit_test(doctor_finds_the_plugin_cache_without_its_record),
		cmocka_unit_test(doctor_shows_the_claude_code_version),
		cmocka_unit_test(doctor_passes_on_a_governed_repository),
		cmocka_unit_test(doctor_checks_the_ledger),
		cmocka_unit_test(doctor_reports_a_broken_intents_file),
		cmocka_unit_test(doctor_warns_when_no_intent_is_in_progress),
		cmocka_unit_test(doctor_reports_an_unknown_destructive_rule),
		cmocka_unit_test(clean_sweeps_orphaned_lock_and_temp_files),
		cmocka_unit_test(clean_keeps_evidence_it_just_moved_aside),
		cmocka_unit_test(hook_answers_at_once_on_a_fifo),
		cmocka_unit_test(hook_makes_an_open_sessions_dir_private),
		cmocka_unit_test(views_escape_controls_and_json_keeps_them),
		cmocka_unit_test(clean_shows_file_names_escaped),
		cmocka_unit_test(a_failed_write_to_stdout_is_an_error),
		cmocka_unit_test(usage_mistakes_exit_2),
		cmocka_unit_test(demo_walks_a_reviewed_session),
		cmocka_unit_test(demo_governance_shows_every_code),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
