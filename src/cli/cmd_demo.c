/*
 * cmd_demo.c - `roz demo`: a reviewed Claude Code session pushed through the
 * real hook runner and `roz decide` on a throwaway home, narrated step by
 * step; `roz demo governance`: an agent in a throwaway repository that
 * declares its intents, through the same runner, meeting each refusal.
 * Each answer is checked; if roz misbehaves the demo says which step and fails.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "roz/config_load.h"
#include "roz/hooks.h"
#include "roz/json.h"
#include "roz/orchestration.h"
#include "roz/runner.h"
#include "roz/session_json.h"
#include "trace_view.h"

#define DEMO_SID "demo-7f3a"
#define DEMO_GOV_SID "demo-gov-5b1e"

typedef struct demo {
	char base[512];     /* the throwaway directory, removed at the end */
	char home[600];     /* ROZ_HOME: roz's config and storage */
	char repo[600];     /* the governance demo's repository, beside the home */
	const char *path_env;
	const char *sid;
	const char *cwd;    /* the sessions' cwd as the hooks see it */
	int step;
	int failures;
	int failed[8];      /* the first steps that went wrong, for the summary */
	int nfailed;
	int reason_lines;   /* lines of an answer's text to show; 0: the review demo's */
	bool sentences_only; /* show a refusal's sentences, not its JSON */
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

/* The current step did not go as expected: count it, and remember which step it was. */
static void miss(demo *d)
{
	d->failures++;
	if (d->nfailed && d->failed[d->nfailed - 1] == d->step)
		return;
	if (d->nfailed < (int)(sizeof d->failed / sizeof d->failed[0]))
		d->failed[d->nfailed++] = d->step;
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
 * A refusal's sentences, without the JSON copy each carries for the agent
 * (a refusal can hold two: the review's and governance's).
 */
static void sentences(const char *text)
{
	const char *p = text;
	int json = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		int len = (int)(nl ? nl - p : (long)strlen(p));

		if (*p == '{')
			json++;
		else if (len)
			printf("     | %.*s\n", len, p);
		p = nl ? nl + 1 : p + len;
	}
	if (json)
		printf("     | (then the same as JSON, for the agent)\n");
}

/*
 * Run one hook through the real runner, show what Claude Code would get,
 * and check it is the kind of answer expected ("{}", "block", "deny",
 * "ask", "context") and, when `want` is not NULL, that its text says `want`
 * (a governance code is checked as "roz: <CODE>:", which starts the text).
 */
static void hook(demo *d, const char *event, const char *input, const char *expect, const char *want)
{
	roz_runner_opts opts = {demo_getenv, d, .open_store = cli_store_open};
	roz_buf out = ROZ_BUF_INIT, err = ROZ_BUF_INIT;
	cJSON *answer, *reason = NULL;
	const char *kind = "{}";

	printf("   -> roz hook %s\n", event);
	if (roz_runner_hook(event, input, strlen(input), &out, &err, &opts) < 0 || out.oom) {
		printf("   <- (roz could not answer)\n");
		miss(d);
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
		} else if (hso && cJSON_IsString(cJSON_GetObjectItem(hso, "permissionDecision"))) {
			kind = cJSON_GetObjectItem(hso, "permissionDecision")->valuestring;
			reason = cJSON_GetObjectItem(hso, "permissionDecisionReason");
		} else if (hso) {
			kind = "context";
			reason = cJSON_GetObjectItem(hso, "additionalContext");
		}
	}
	printf("   <- %s\n", strcmp(kind, "{}") == 0 ? "{}  (no objection)" : kind);
	if (cJSON_IsString(reason) && d->sentences_only && strcmp(kind, "context") != 0)
		sentences(reason->valuestring);
	else if (cJSON_IsString(reason))
		excerpt(reason->valuestring, d->reason_lines ? d->reason_lines
							     : strcmp(kind, "block") == 0 ? 6 : 4);
	if (err.len)
		printf("     (stderr) %s", err.ptr);
	if (strcmp(kind, expect) != 0) {
		printf("   %s!! expected %s%s\n", cli_red(), expect, cli_reset());
		miss(d);
	} else if (want && !(cJSON_IsString(reason) && strstr(reason->valuestring, want))) {
		printf("   %s!! expected the answer to say \"%s\"%s\n", cli_red(), want, cli_reset());
		miss(d);
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
		miss(d);
	}
}

/* The fields every hook input carries, then `extra` (JSON members, or NULL). Caller frees. */
static char *input_json(const demo *d, const char *extra)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_buf_adds(&b, "{\"session_id\":");
	roz_json_add_string(&b, d->sid);
	roz_buf_adds(&b, ",\"cwd\":");
	roz_json_add_string(&b, d->cwd);
	roz_buf_addf(&b, ",\"transcript_path\":\"/home/dev/.claude/projects/shop/%s.jsonl\","
			 "\"permission_mode\":\"default\"%s%s}",
		     d->sid, extra && *extra ? "," : "", extra ? extra : "");
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}

static void check(demo *d, const char *event, const char *extra, const char *expect, const char *want)
{
	char *in = input_json(d, extra);

	if (!in) {
		printf("   !! out of memory\n");
		miss(d);
		return;
	}
	hook(d, event, in, expect, want);
	roz_free(in);
}

static void run(demo *d, const char *event, const char *extra, const char *expect)
{
	check(d, event, extra, expect, NULL);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Write `text` to `dir`/`name`, making the directories it needs. 0, or -1 with errno. */
static int put_file(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;
	int n = snprintf(path, sizeof path, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	if (!(f = fopen(path, "w")))
		return -1;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -1;
}

static roz_session *load(demo *d, const roz_config *config)
{
	roz_store *store = NULL;
	roz_session *s = NULL;

	if (roz_store_file_open(config->storage_path, NULL, &store) < 0 ||
	    roz_store_get(store, d->sid, &s) < 0) {
		printf("   !! cannot read the session back: %s\n", roz_error_last());
		miss(d);
	}
	roz_store_free(store);
	return s;
}

static void show_context(demo *d, const roz_config *config)
{
	roz_session *s = load(d, config);

	printf("   $ roz context %s\n", d->sid);
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
	printf("usage: roz demo [--keep]\n"
	       "       roz demo governance [--keep]\n\n"
	       "Run a complete reviewed session through roz's real hooks on a throwaway home\n"
	       "and show what Claude Code would receive at each step. `governance` shows\n"
	       "intent governance instead, on a throwaway repository that declares its\n"
	       "intents: the briefing, the handshake, a refusal for each code, the\n"
	       "questions for the person, and the escalation after refusals in a row.\n"
	       "Each answer is checked: the demo exits 1, naming the step, if roz answers\n"
	       "otherwise. Nothing outside the throwaway directory is read or written.\n"
	       "--keep leaves it in place to inspect.\n");
}

/* The summary line, naming the steps that went wrong. */
static void summary(const demo *d, const char *name)
{
	if (!d->failures) {
		printf("\n%s: every step behaved as expected.\n", name);
		return;
	}
	printf("\n%s: %s", name, d->nfailed == 1 ? "step" : "steps");
	for (int i = 0; i < d->nfailed; i++)
		printf("%s%d", i ? ", " : " ", d->failed[i]);
	printf(" did not go as expected.\n");
}

/* `out` = a/b; -1 when it does not fit (a path cut short would name another place). */
static int set_path(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s/%s", a, b);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int unlink_file(const char *dir, const char *name)
{
	char path[1024];

	if (set_path(path, sizeof path, dir, name) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return unlink(path);
}

/* Make the throwaway directory: `base` from mkdtemp, the home `home_name` inside it. */
static int make_base(demo *d, const char *home_name)
{
	const char *tmp = getenv("TMPDIR");
	char real[PATH_MAX];

	if (set_path(d->base, sizeof d->base, tmp && *tmp ? tmp : "/tmp", "roz-demo-XXXXXX") < 0) {
		cli_error("demo: TMPDIR is too long a path");
		return -1;
	}
	if (!mkdtemp(d->base)) {
		cli_error("cannot create a throwaway home: %s", strerror(errno));
		return -1;
	}
	/* the hooks judge paths as they are spelt: spell the directory without links */
	if (realpath(d->base, real) && strlen(real) < sizeof d->base)
		memcpy(d->base, real, strlen(real) + 1);
	if (!home_name) {
		memcpy(d->home, d->base, strlen(d->base) + 1);
		return 0;
	}
	if (set_path(d->home, sizeof d->home, d->base, home_name) < 0 || mkdir(d->home, 0700) < 0) {
		cli_error("cannot create the demo home: %s", strerror(errno));
		nftw(d->base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		return -1;
	}
	return 0;
}

static int demo_review(bool keep)
{
	roz_config config;
	demo d;

	memset(&d, 0, sizeof(d));
	d.sid = DEMO_SID;
	d.cwd = "/home/dev/shop";
	if (make_base(&d, NULL) < 0)
		return ROZ_EXIT_FAILURE;
	d.path_env = getenv("PATH");
	if (put_file(d.home, "config.toml",
		     "# written by roz demo\n"
		     "[review.gates]\n"
		     "tools = [\"Bash:git push*\"]\n"
		     "approval_scope = \"prompt\"\n") < 0 ||
	    roz_config_load(&config, demo_getenv, &d, NULL, NULL) < 0) {
		cli_error("cannot set up the demo home: %s", errno ? strerror(errno) : roz_error_last());
		nftw(d.base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
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

	printf("\nThe session's trace (what `roz trace %s` shows):\n", d.sid);
	print_trace(&d, &config);

	summary(&d, "roz demo");
	printf("Next: `roz demo governance` shows intent governance (which changes an agent may\n"
	       "make in a repository) on a throwaway repository.\n");
	if (keep)
		printf("The demo home is kept at %s\n", d.home);
	else
		nftw(d.base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	roz_config_dispose(&config);
	return cli_finish_stdout(d.failures ? ROZ_EXIT_FAILURE : ROZ_EXIT_OK);
}

/* ---- roz demo governance ----------------------------------------------- */

/*
 * The demo repository: three intents, one of them a DRAFT the agent may
 * not select, and a lesson for the briefing.
 */
static const char demo_intents[] =
	"# written by roz demo governance\n"
	"active_intents:\n"
	"  - id: INT-001\n"
	"    name: Refresh tokens for the login API\n"
	"    status: IN_PROGRESS\n"
	"    owned_scope: [\"src/auth/**\", \"tests/auth/**\"]\n"
	"    constraints: [\"Keep the signature of login() as it is\"]\n"
	"    acceptance_criteria: [\"tests/auth pass\", \"an expired token is refreshed once\"]\n"
	"  - id: INT-002\n"
	"    name: Invoices as PDF\n"
	"    status: DRAFT\n"
	"    owned_scope: [\"src/billing/**\"]\n"
	"  - id: INT-003\n"
	"    name: Rate limits\n"
	"    status: COMPLETED\n"
	"    owned_scope: [\"src/limits/**\"]\n";

static const char demo_lessons[] =
	"# Lessons\n"
	"- src/auth/token.ts is loaded lazily: keep its imports async.\n";

/* A file tool's call on `rel` (under the repository), as Claude Code sends it. */
static void file_call(demo *d, const char *event, const char *tool, const char *rel, const char *expect,
		      const char *want)
{
	roz_buf b = ROZ_BUF_INIT;
	char *path = roz_asprintf("%s/%s", d->repo, rel);

	if (strcmp(event, "pre-tool-use") == 0)
		printf("   agent: %s %s\n", tool, rel);
	roz_buf_addf(&b, "\"hook_event_name\":\"%s\",\"tool_name\":\"%s\",\"tool_input\":{\"file_path\":",
		     strcmp(event, "pre-tool-use") == 0 ? "PreToolUse" : "PostToolUse", tool);
	roz_json_add_string(&b, path ? path : "");
	if (strcmp(tool, "Write") == 0)
		roz_buf_adds(&b, ",\"content\":\"export function refresh() {}\\n\"");
	else if (strcmp(tool, "Edit") == 0)
		roz_buf_adds(&b, ",\"old_string\":\"refresh()\",\"new_string\":\"refresh(token)\"");
	roz_buf_addc(&b, '}');
	if (!path || roz_buf_failed(&b)) {
		printf("   !! out of memory\n");
		miss(d);
	} else {
		check(d, event, roz_buf_cstr(&b), expect, want);
	}
	roz_buf_dispose(&b);
	roz_free(path);
}

/* A Bash call's hook: `cmd` about to run in the repository (PreToolUse), or run (PostToolUse). */
static void bash_hook(demo *d, const char *event, const char *cmd, const char *expect, const char *want)
{
	roz_buf b = ROZ_BUF_INIT;
	bool pre = strcmp(event, "pre-tool-use") == 0;

	if (pre)
		printf("   agent: $ %s\n", cmd);
	else
		printf("   (the command runs; PostToolUse: roz compares the working tree with before it)\n");
	roz_buf_addf(&b, "\"hook_event_name\":\"%s\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":",
		     pre ? "PreToolUse" : "PostToolUse");
	roz_json_add_string(&b, cmd);
	roz_buf_addc(&b, '}');
	if (roz_buf_failed(&b)) {
		printf("   !! out of memory\n");
		miss(d);
	} else {
		check(d, event, roz_buf_cstr(&b), expect, want);
	}
	roz_buf_dispose(&b);
}

static void bash_call(demo *d, const char *cmd, const char *expect, const char *want)
{
	bash_hook(d, "pre-tool-use", cmd, expect, want);
}

static void bash_ran(demo *d, const char *cmd, const char *expect, const char *want)
{
	bash_hook(d, "post-tool-use", cmd, expect, want);
}

/* Claude Code ran the tool: change the file as the tool would, then tell roz (PostToolUse). */
static void tool_ran(demo *d, const char *tool, const char *rel, const char *text)
{
	printf("   (the %s runs; PostToolUse tells roz what the file holds now)\n", tool);
	if (text && put_file(d->repo, rel, text) < 0) {
		printf("   !! cannot write %s: %s\n", rel, strerror(errno));
		miss(d);
		return;
	}
	file_call(d, "post-tool-use", tool, rel, "{}", NULL);
}

/* The agent reads a file: never refused, and roz learns what it holds. */
static void read_call(demo *d, const char *rel)
{
	file_call(d, "pre-tool-use", "Read", rel, "{}", NULL);
	tool_ran(d, "Read", rel, NULL);
}

/* What `roz intent select <id>` prints in the repository: the same code, on the same file. */
static void show_intent_context(demo *d, const char *id)
{
	roz_orchestration o;
	const roz_intent *it;
	roz_buf b = ROZ_BUF_INIT;

	printf("   $ roz intent select %s   (the command's output, which the agent reads)\n", id);
	if (roz_orchestration_find(d->repo, &o) < 0 || roz_orchestration_load(&o, ROZ_ORCH_INTENTS) < 0 ||
	    !o.intents_ok || !(it = roz_intents_find(&o.intents, id))) {
		printf("   !! cannot read intent %s: %s\n", id,
		       o.intents_problem ? o.intents_problem : roz_error_last());
		miss(d);
		goto out;
	}
	roz_intents_context_xml(it, &b);
	if (roz_buf_failed(&b) || !strstr(roz_buf_cstr(&b), "<intent_context")) {
		printf("   !! no <intent_context> block\n");
		miss(d);
		goto out;
	}
	excerpt(roz_buf_cstr(&b), 20);
out:
	roz_buf_dispose(&b);
	roz_orchestration_dispose(&o);
}

static int make_repo(demo *d)
{
	char git[700];

	if (set_path(d->repo, sizeof d->repo, d->base, "shop") < 0 ||
	    set_path(git, sizeof git, d->repo, ".git") < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdir(d->repo, 0700) < 0 || mkdir(git, 0700) < 0)
		return -1;
	return put_file(d->repo, ".git/HEAD", "ref: refs/heads/main\n") < 0 ||
			       put_file(d->repo, ROZ_ORCH_INTENTS_FILE, demo_intents) < 0 ||
			       put_file(d->repo, ROZ_ORCH_LESSONS_FILE, demo_lessons) < 0 ||
			       put_file(d->repo, "src/billing/invoice.ts", "export const invoice = 1;\n") < 0 ||
			       put_file(d->repo, "README.md", "# shop\n") < 0
		       ? -1
		       : 0;
}

/* Did the session keep the escalation? The trace shows it; the state counts it. */
static void check_escalation(demo *d, const roz_config *config)
{
	roz_session *s = load(d, config);

	if (s && s->gov.escalations != 1) {
		printf("   !! the session records %u escalation(s), not 1\n", (unsigned)s->gov.escalations);
		miss(d);
	}
	roz_session_free(s);
}

static int demo_governance(bool keep)
{
	roz_config config;
	demo d;

	memset(&d, 0, sizeof(d));
	d.sid = DEMO_GOV_SID;
	d.reason_lines = 8;
	d.sentences_only = true;
	/* roz's storage beside the repository, not in it: tool writes into roz's storage are refused */
	if (make_base(&d, "roz-home") < 0)
		return ROZ_EXIT_FAILURE;
	d.path_env = getenv("PATH");
	d.cwd = d.repo;
	errno = 0;
	if (make_repo(&d) < 0 ||
	    put_file(d.home, "config.toml", "# written by roz demo governance\n"
					    "[governance]\n"
					    "escalate_after = 3\n") < 0 ||
	    roz_config_load(&config, demo_getenv, &d, NULL, NULL) < 0) {
		cli_error("cannot set up the demo: %s", errno ? strerror(errno) : roz_error_last());
		nftw(d.base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		return ROZ_EXIT_FAILURE;
	}

	printf("roz demo governance: an agent in a repository that declares its intents,\n"
	       "through roz's real hooks\n");
	printf("repository: %s (a throwaway)\n", d.repo);
	printf("  .orchestration/active_intents.yaml: INT-001 IN_PROGRESS (src/auth/**, tests/auth/**),\n"
	       "    INT-002 DRAFT (src/billing/**), INT-003 COMPLETED\n");
	printf("  .orchestration/CLAUDE.md: one lesson\n");
	printf("roz's home: %s (beside the repository, not in it)\n", d.home);

	step(&d, "Claude Code starts a session in the repository; roz briefs the agent.");
	check(&d, "session-start", "\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"", "context",
	      "roz intent select <ID>");

	step(&d, "The agent writes before choosing an intent: refused, with the choices.");
	file_call(&d, "pre-tool-use", "Write", "src/auth/token.ts", "deny", "roz: INTENT_REQUIRED:");

	step(&d, "Reading needs no intent.");
	bash_call(&d, "git status && ls src", "{}", NULL);

	step(&d, "The agent selects INT-002, which is still a DRAFT: refused.");
	bash_call(&d, "roz intent select INT-002", "deny", "roz: INTENT_INVALID:");

	step(&d, "The agent selects INT-001; roz records it for this session.");
	bash_call(&d, "roz intent select INT-001", "{}", NULL);
	show_intent_context(&d, "INT-001");

	step(&d, "A write inside INT-001's scope is allowed; Claude Code runs it and tells roz.");
	file_call(&d, "pre-tool-use", "Write", "src/auth/token.ts", "{}", NULL);
	tool_ran(&d, "Write", "src/auth/token.ts", "export function refresh() {}\n");

	step(&d, "A change outside the scope is refused.");
	file_call(&d, "pre-tool-use", "Edit", "src/billing/invoice.ts", "deny", "roz: SCOPE_VIOLATION:");

	step(&d, "The agent tries to widen its own scope: .orchestration/ changes only through roz.");
	file_call(&d, "pre-tool-use", "Write", ROZ_ORCH_INTENTS_FILE, "deny", "roz: ORCHESTRATION_PROTECTED:");

	step(&d, "The agent reads a file, another session changes it, and the agent's Edit is refused.");
	read_call(&d, "src/auth/token.ts");
	printf("   another session: rewrites src/auth/token.ts\n");
	if (put_file(d.repo, "src/auth/token.ts", "export function refresh() { return rotate(); }\n") < 0) {
		printf("   !! cannot change the file: %s\n", strerror(errno));
		miss(&d);
	}
	file_call(&d, "pre-tool-use", "Edit", "src/auth/token.ts", "deny", "roz: STALE_FILE:");

	step(&d, "The agent reads it again; now the Edit goes through.");
	read_call(&d, "src/auth/token.ts");
	file_call(&d, "pre-tool-use", "Edit", "src/auth/token.ts", "{}", NULL);
	tool_ran(&d, "Edit", "src/auth/token.ts", "export function refresh(token) { return rotate(); }\n");

	step(&d, "A script the agent wrote changes a file outside the scope: the command line shows "
		 "nothing, the working tree shows it, and the agent cannot stop until it is undone.");
	bash_call(&d, "sh tools/gen.sh", "{}", NULL);
	printf("   (the script writes src/auth/session.ts and src/billing/total.ts)\n");
	if (put_file(d.repo, "src/auth/session.ts", "export const ttl = 60;\n") < 0 ||
	    put_file(d.repo, "src/billing/total.ts", "export const total = 0;\n") < 0) {
		printf("   !! cannot write: %s\n", strerror(errno));
		miss(&d);
	}
	bash_ran(&d, "sh tools/gen.sh", "block", "src/billing/total.ts: created");
	printf("   agent: (ends its turn)\n");
	check(&d, "stop", "\"hook_event_name\":\"Stop\",\"stop_hook_active\":false", "block",
	      "src/billing/total.ts");
	bash_call(&d, "rm src/billing/total.ts", "{}", NULL);
	if (unlink_file(d.repo, "src/billing/total.ts") < 0) {
		printf("   !! cannot remove: %s\n", strerror(errno));
		miss(&d);
	}
	bash_ran(&d, "rm src/billing/total.ts", "{}", NULL);
	printf("   agent: (ends its turn)\n");
	run(&d, "stop", "\"hook_event_name\":\"Stop\",\"stop_hook_active\":false", "{}");

	step(&d, "A destructive command: the person decides.");
	bash_call(&d, "rm -rf build", "ask", "roz: DESTRUCTIVE_BLOCKED:");

	step(&d, "The agent keeps trying outside its scope: after three refusals in a row, the fourth "
		 "goes to the person.");
	file_call(&d, "pre-tool-use", "Write", "src/billing/invoice.ts", "deny", "roz: SCOPE_VIOLATION:");
	bash_call(&d, "echo 'total: 0' > src/billing/invoice.ts", "deny", "roz: SCOPE_VIOLATION:");
	file_call(&d, "pre-tool-use", "Edit", "README.md", "deny", "roz: SCOPE_VIOLATION:");
	file_call(&d, "pre-tool-use", "Write", "src/billing/invoice.ts", "ask",
		  "(refusal 4 in a row: the person decides)");
	check_escalation(&d, &config);

	printf("\nThe session's trace (what `roz trace %s` shows):\n", d.sid);
	print_trace(&d, &config);

	summary(&d, "roz demo governance");
	printf("How to declare intents in a repository of your own: docs/governance.md.\n");
	if (keep)
		printf("The demo directory is kept at %s\n", d.base);
	else
		nftw(d.base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	roz_config_dispose(&config);
	return cli_finish_stdout(d.failures ? ROZ_EXIT_FAILURE : ROZ_EXIT_OK);
}

int cmd_demo(int argc, char **argv)
{
	bool keep = false, governance = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--keep") == 0)
			keep = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return help(), cli_finish_stdout(ROZ_EXIT_OK);
		else if (i == 1 && strcmp(argv[i], "governance") == 0)
			governance = true;
		else
			return cli_usage_error("demo", "unknown argument '%s'", argv[i]);
	}
	return governance ? demo_governance(keep) : demo_review(keep);
}
