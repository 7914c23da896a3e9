/*
 * cmd_demo.c - `roz demo`: a reviewed Claude Code session pushed through the
 * real hook runner and `roz decide` on a throwaway home, narrated step by
 * step. Each answer is checked; if roz misbehaves the demo says so and fails.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "roz/config_load.h"
#include "roz/hooks.h"
#include "roz/json.h"
#include "roz/runner.h"
#include "roz/session_json.h"
#include "trace_view.h"

#define DEMO_SID "demo-7f3a"

typedef struct demo {
	char home[256];
	char home_env[300];
	const char *path_env;
	int step;
	int failures;
} demo;

/* The demo's whole environment: its own home, and PATH for tool lookups. */
static const char *demo_getenv(void *ud, const char *name)
{
	demo *d = ud;

	if (strcmp(name, "ROZ_HOME") == 0)
		return d->home;
	if (strcmp(name, "PATH") == 0)
		return d->path_env;
	return NULL;
}

static void step(demo *d, const char *what)
{
	printf("\n%d. %s\n", ++d->step, what);
}

/* Print at most `lines` lines of text, indented, and say how many were left out. */
static void excerpt(const char *text, int lines)
{
	const char *p = text;
	int n = 0;

	while (*p && n < lines) {
		const char *nl = strchr(p, '\n');
		int len = (int)(nl ? nl - p : (long)strlen(p));

		printf("     | %.*s\n", len, p);
		n++;
		p = nl ? nl + 1 : p + len;
	}
	if (*p) {
		int rest = 1;

		for (const char *q = p; *q; q++)
			rest += *q == '\n' && q[1];
		printf("     | ... (%d more line%s)\n", rest, rest == 1 ? "" : "s");
	}
}

/*
 * Run one hook through the real runner, show what Claude Code would get,
 * and check it is the kind of answer expected ("{}", "block", "deny",
 * "context").
 */
static void hook(demo *d, const char *event, const char *input, const char *expect)
{
	roz_runner_opts opts = {demo_getenv, d, .open_store = cli_store_open};
	roz_buf out = ROZ_BUF_INIT, err = ROZ_BUF_INIT;
	cJSON *answer, *reason = NULL;
	const char *kind = "{}";

	printf("   -> roz hook %s\n", event);
	if (roz_runner_hook(event, input, strlen(input), &out, &err, &opts) < 0 || out.oom) {
		printf("   <- (roz could not answer)\n");
		d->failures++;
		goto out;
	}
	if (roz_json_parse(out.ptr, out.len, &answer) < 0)
		answer = NULL;
	if (answer) {
		cJSON *hso = cJSON_GetObjectItem(answer, "hookSpecificOutput");
		cJSON *dec = cJSON_GetObjectItem(answer, "decision");

		if (cJSON_IsString(dec)) {
			kind = dec->valuestring;
			reason = cJSON_GetObjectItem(answer, "reason");
		} else if (hso && cJSON_GetObjectItem(hso, "permissionDecision")) {
			kind = cJSON_GetObjectItem(hso, "permissionDecision")->valuestring;
			reason = cJSON_GetObjectItem(hso, "permissionDecisionReason");
		} else if (hso) {
			kind = "context";
			reason = cJSON_GetObjectItem(hso, "additionalContext");
		}
	}
	printf("   <- %s\n", strcmp(kind, "{}") == 0 ? "{}  (no objection)" : kind);
	if (cJSON_IsString(reason))
		excerpt(reason->valuestring, strcmp(kind, "block") == 0 ? 6 : 4);
	if (err.len)
		printf("     (stderr) %s", err.ptr);
	if (strcmp(kind, expect) != 0) {
		printf("   !! expected %s\n", expect);
		d->failures++;
	}
	cJSON_Delete(answer);
out:
	roz_buf_dispose(&out);
	roz_buf_dispose(&err);
}

static void run(demo *d, const char *event, const char *extra, const char *expect);

/* The reviewer `agent` runs roz decide: its Bash call is seen first, and issued the ticket. */
static void decide(demo *d, const roz_config *config, const char *agent, roz_decision_kind kind,
		   const char *summary, const char *message)
{
	char *extra = roz_asprintf("\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
				   "\"tool_input\":{\"command\":\"roz decide " DEMO_SID " %s ...\"},"
				   "\"agent_id\":\"%s\",\"agent_type\":\"roz:roz\"",
				   kind == ROZ_DECISION_COMPLETE ? "COMPLETE" : "ISSUES", agent);

	run(d, "pre-tool-use", extra, "{}");
	roz_free(extra);
	printf("   $ roz decide %s %s \"%s\"%s%s%s\n", DEMO_SID,
	       kind == ROZ_DECISION_COMPLETE ? "COMPLETE" : "ISSUES", summary,
	       message ? " --message \"" : "", message ? message : "", message ? "\"" : "");
	roz_decide_request req = {DEMO_SID, kind, summary, message, NULL, NULL, false};
	roz_runner_opts opts = {.open_store = cli_store_open};

	if (roz_runner_decide(config, &req, &opts) < 0) {
		printf("   !! roz decide failed: %s\n", roz_error_last());
		d->failures++;
	}
}

static char *input_json(const char *extra)
{
	return roz_asprintf("{\"session_id\":\"" DEMO_SID "\",\"cwd\":\"/home/dev/shop\","
			    "\"transcript_path\":\"/home/dev/.claude/projects/shop/" DEMO_SID ".jsonl\","
			    "\"permission_mode\":\"default\"%s%s}",
			    extra && *extra ? "," : "", extra ? extra : "");
}

static void run(demo *d, const char *event, const char *extra, const char *expect)
{
	char *in = input_json(extra);

	if (!in) {
		d->failures++;
		return;
	}
	hook(d, event, in, expect);
	roz_free(in);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int write_config(const demo *d)
{
	char path[400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/config.toml", d->home);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("# written by roz demo\n"
	      "[review.gates]\n"
	      "tools = [\"Bash:git push*\"]\n"
	      "approval_scope = \"prompt\"\n",
	      f);
	return fclose(f);
}

static roz_session *load(demo *d, const roz_config *config)
{
	roz_store *store = NULL;
	roz_session *s = NULL;

	if (roz_store_file_open(config->storage_path, NULL, &store) < 0 ||
	    roz_store_get(store, DEMO_SID, &s) < 0) {
		printf("   !! cannot read the session back: %s\n", roz_error_last());
		d->failures++;
	}
	roz_store_free(store);
	return s;
}

static void show_context(demo *d, const roz_config *config)
{
	roz_session *s = load(d, config);

	printf("   $ roz context %s\n", DEMO_SID);
	if (s)
		cli_print_context(stdout, s, config, "     | ");
	roz_session_free(s);
}

static void print_trace(demo *d, const roz_config *config)
{
	roz_session *s = load(d, config);

	if (s)
		cli_print_trace(stdout, s, "   ", false);
	roz_session_free(s);
}

static void help(void)
{
	printf("usage: roz demo [--keep]\n\n"
	       "Run a complete reviewed session through roz's real hooks on a throwaway home\n"
	       "and show what Claude Code would receive at each step. Nothing outside that\n"
	       "home is read or written. --keep leaves the home in place to inspect.\n");
}

int cmd_demo(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	bool keep = false;
	roz_config config;
	demo d;

	memset(&d, 0, sizeof(d));
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--keep") == 0)
			keep = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return help(), cli_finish_stdout(ROZ_EXIT_OK);
		else
			return cli_usage_error("demo", "unknown argument '%s'", argv[i]);
	}
	snprintf(d.home, sizeof(d.home), "%s/roz-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(d.home)) {
		cli_error("cannot create a throwaway home: %s", strerror(errno));
		return ROZ_EXIT_FAILURE;
	}
	d.path_env = getenv("PATH");
	if (write_config(&d) < 0 ||
	    roz_config_load(&config, demo_getenv, &d, NULL, NULL) < 0) {
		cli_error("cannot set up the demo home: %s", roz_error_last());
		nftw(d.home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		return ROZ_EXIT_FAILURE;
	}

	printf("roz demo: one Claude Code session, reviewed, through roz's real hooks\n");
	printf("home: %s (a throwaway; gate configured: Bash:git push*, scope prompt)\n", d.home);

	step(&d, "Claude Code starts a session.");
	run(&d, "session-start", "\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"", "{}");

	step(&d, "The user asks for a reviewed task (the #roz prefix).");
	printf("   prompt: #roz validate email addresses on the signup form\n");
	run(&d, "user-prompt", "\"hook_event_name\":\"UserPromptSubmit\","
			       "\"prompt\":\"#roz validate email addresses on the signup form\"", "{}");

	step(&d, "The agent edits a file; Edit is not gated, so roz stays out of the way.");
	run(&d, "pre-tool-use", "\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\","
				"\"tool_input\":{\"file_path\":\"src/signup.js\"}", "{}");

	step(&d, "The agent tries to stop. The review is pending, so roz blocks and says how to get one.");
	run(&d, "stop", "\"hook_event_name\":\"Stop\",\"stop_hook_active\":false", "block");

	step(&d, "The agent starts the roz:roz reviewer, which reads what the user asked and finds a gap.");
	run(&d, "subagent-start", "\"hook_event_name\":\"SubagentStart\",\"agent_id\":\"a41c\","
				  "\"agent_type\":\"roz:roz\"", "{}");
	show_context(&d, &config);
	decide(&d, &config, "a41c", ROZ_DECISION_ISSUES, "empty input passes validation",
	       "Reject an empty email address and add a test for it");
	run(&d, "subagent-stop", "\"hook_event_name\":\"SubagentStop\",\"agent_id\":\"a41c\","
				 "\"agent_type\":\"roz:roz\",\"stop_hook_active\":false", "{}");

	step(&d, "The agent tries to stop again; the reviewer's findings come back as the reason.");
	run(&d, "stop", "\"hook_event_name\":\"Stop\",\"stop_hook_active\":true", "block");

	step(&d, "The agent fixes it and runs the reviewer again, which approves.");
	run(&d, "subagent-start", "\"hook_event_name\":\"SubagentStart\",\"agent_id\":\"b52d\","
				  "\"agent_type\":\"roz:roz\"", "{}");
	decide(&d, &config, "b52d", ROZ_DECISION_COMPLETE, "empty and malformed addresses rejected; tests added",
	       NULL);
	printf("   (the verdict counts once the reviewer's own stop confirms it was recorded during its run)\n");
	run(&d, "subagent-stop", "\"hook_event_name\":\"SubagentStop\",\"agent_id\":\"b52d\","
				 "\"agent_type\":\"roz:roz\",\"stop_hook_active\":false", "{}");

	step(&d, "The agent stops. Approved, so roz lets it.");
	run(&d, "stop", "\"hook_event_name\":\"Stop\",\"stop_hook_active\":true", "{}");

	step(&d, "A new request: the user asks the agent to push. A new prompt ends the old approval.");
	run(&d, "user-prompt", "\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"push it\"", "{}");

	step(&d, "The agent runs `git push origin main`, which the gate holds for review.");
	run(&d, "pre-tool-use", "\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
				"\"tool_input\":{\"command\":\"git push origin main\"}", "deny");

	step(&d, "The reviewer checks what is about to be pushed and approves.");
	run(&d, "subagent-start", "\"hook_event_name\":\"SubagentStart\",\"agent_id\":\"c63e\","
				  "\"agent_type\":\"roz:roz\"", "{}");
	decide(&d, &config, "c63e", ROZ_DECISION_COMPLETE, "branch is tested; push is what the user asked", NULL);
	run(&d, "subagent-stop", "\"hook_event_name\":\"SubagentStop\",\"agent_id\":\"c63e\","
				 "\"agent_type\":\"roz:roz\"", "{}");

	step(&d, "The agent retries the push, and roz lets it through.");
	run(&d, "pre-tool-use", "\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
				"\"tool_input\":{\"command\":\"git push origin main\"}", "{}");

	step(&d, "The session ends.");
	run(&d, "session-end", "\"hook_event_name\":\"SessionEnd\",\"reason\":\"prompt_input_exit\"", "{}");

	printf("\nThe session's trace (what `roz trace %s` shows):\n", DEMO_SID);
	print_trace(&d, &config);

	if (d.failures)
		printf("\nroz demo: %d step%s did not go as expected.\n", d.failures,
		       d.failures == 1 ? "" : "s");
	else
		printf("\nroz demo: every step behaved as expected.\n");
	if (keep)
		printf("The demo home is kept at %s\n", d.home);
	else
		nftw(d.home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	roz_config_dispose(&config);
	return cli_finish_stdout(d.failures ? ROZ_EXIT_FAILURE : ROZ_EXIT_OK);
}
