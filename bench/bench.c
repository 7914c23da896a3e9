/*
 * bench.c - times roz's hooks the way Claude Code runs them: a fresh process
 * per call, JSON on its stdin, stdout read to EOF, then wait. Every case runs
 * interleaved with a do-nothing floor program, so machine noise hits both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"

#define INPUT_CAP 4096
#define RSS_RUNS 3 /* traced runs per program for its peak RSS */
#define CASE_I 1000000L /* the task number the measured step and its set-up share */
#define SID "5d1c7e2a-9b3f-4c8e-a0d6-3e7f1b2c4a9d"
#define GATES_CONFIG "[review.gates]\ntools = [\"Bash:git push*\", \"mcp__tissue__close*\"]\n"

/* A session's trace file, beside <id>.json: <id>.trace.jsonl (roz 0.3 on). */
static void trace_of(const char *session, char *out)
{
	size_t n = strlen(session);

	fmt_path(out, "%.*s.trace.jsonl", (int)(n > 5 ? n - 5 : n), session);
}

/* How many trace events a file holds, without a JSON parser: its event_type keys. */
static long count_in(const char *path, long *bytes)
{
	char buf[16384 + 16];
	size_t keep = 0;
	long count = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*bytes = 0;
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + keep, sizeof(buf) - 1 - keep)) > 0) {
		size_t len = keep + (size_t)n;

		*bytes += n;
		buf[len] = '\0';
		for (char *p = buf; (p = strstr(p, "\"event_type\"")); p++)
			count++;
		/* carry a tail shorter than the key so a key split across reads is seen once */
		keep = len < 11 ? len : 11;
		memmove(buf, buf + len - keep, keep);
	}
	close(fd);
	return count;
}

/* The events of a session: inline in its file (older roz, the Rust roz) and in its trace file. */
static long count_events(const char *path, long *bytes)
{
	char trace[PATH_CAP];
	long tbytes = 0, n = count_in(path, bytes), t;

	trace_of(path, trace);
	t = count_in(trace, &tbytes);
	if (n >= 0 && t > 0) {
		n += t;
		*bytes += tbytes;
	}
	return n;
}

/* The VmHWM line of a live process's status, in KiB; -1 if it cannot be read. */
static long read_vmhwm(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	fclose(f);
	return kib;
}

/*
 * Peak RSS of the program itself. wait4's ru_maxrss cannot give it: at exec
 * the kernel folds the peak of the memory the child had before (this
 * process's, shared until exec) into it, so every child would read at least
 * the benchmark's own peak. Instead the child is traced and stopped on its
 * way out, before its memory is torn down, and its VmHWM read. Tracing slows
 * it, so this pass is separate from the timed runs. Inputs and answers are
 * small enough (< 64 KiB) to sit in the pipes while the child runs.
 */
static long traced_peak_rss(char *const argv[], char *const envp[], const char *input, size_t len)
{
	int in[2], out[2], err[2], st;
	long kib = -1;
	char sink[4096];
	pid_t pid;

	if (len > 65536)
		return -1;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0 ||
		    ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(126);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (len && write(in[1], input, len) != (ssize_t)len)
		die("write to a traced child: %s", strerror(errno));
	close(in[1]);
	for (;;) {
		if (waitpid(pid, &st, 0) < 0) {
			if (errno == EINTR)
				continue;
			die("waitpid: %s", strerror(errno));
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (!WIFSTOPPED(st))
			continue;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			kib = read_vmhwm(pid);
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else if (WSTOPSIG(st) == SIGTRAP && kib < 0) {
			/* the stop after exec: from here on, stop it again at its exit */
			ptrace(PTRACE_SETOPTIONS, pid, NULL,
			       (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else {
			ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(st));
		}
	}
	while (read(out[0], sink, sizeof(sink)) > 0)
		;
	while (read(err[0], sink, sizeof(sink)) > 0)
		;
	close(out[0]);
	close(err[0]);
	return kib;
}

/* ---- what Claude Code sends ------------------------------------------------------ */

enum step {
	ST_NONE = 0,
	ST_START_NEW,
	ST_START_RESUME,
	ST_PROMPT_ROZ,
	ST_PROMPT_PLAIN,
	ST_BASH_LS,
	ST_BASH_SCRIPT,
	ST_READ,
	ST_GIT_PUSH,
	ST_STOP,
	ST_SUB_START,
	ST_SUB_STOP,
	ST_SESSION_END,
	ST_DECIDE_CALL,
	ST_DECIDE,
	/* governance: tool calls on the files of a repository (see make_repo) */
	ST_SELECT,
	ST_WRITE,
	ST_EDIT,
	ST_BASH_ECHO,
	ST_POST_READ,
	ST_POST_WRITE,
	ST_POST_BASH,
};

static const struct {
	const char *hook;  /* argument of `roz hook`; NULL for `roz decide` */
	const char *event; /* hook_event_name */
} steps[] = {
	[ST_START_NEW] = {"session-start", "SessionStart"},
	[ST_START_RESUME] = {"session-start", "SessionStart"},
	[ST_PROMPT_ROZ] = {"user-prompt", "UserPromptSubmit"},
	[ST_PROMPT_PLAIN] = {"user-prompt", "UserPromptSubmit"},
	[ST_BASH_LS] = {"pre-tool-use", "PreToolUse"},
	[ST_BASH_SCRIPT] = {"pre-tool-use", "PreToolUse"},
	[ST_READ] = {"pre-tool-use", "PreToolUse"},
	[ST_GIT_PUSH] = {"pre-tool-use", "PreToolUse"},
	[ST_STOP] = {"stop", "Stop"},
	[ST_SUB_START] = {"subagent-start", "SubagentStart"},
	[ST_SUB_STOP] = {"subagent-stop", "SubagentStop"},
	[ST_SESSION_END] = {"session-end", "SessionEnd"},
	[ST_DECIDE_CALL] = {"pre-tool-use", "PreToolUse"},
	[ST_DECIDE] = {NULL, NULL},
	[ST_SELECT] = {"pre-tool-use", "PreToolUse"},
	[ST_WRITE] = {"pre-tool-use", "PreToolUse"},
	[ST_EDIT] = {"pre-tool-use", "PreToolUse"},
	[ST_BASH_ECHO] = {"pre-tool-use", "PreToolUse"},
	[ST_POST_READ] = {"post-tool-use", "PostToolUse"},
	[ST_POST_WRITE] = {"post-tool-use", "PostToolUse"},
	[ST_POST_BASH] = {"post-tool-use", "PostToolUse"},
};

/*
 * Where a tool call runs. Without a repository the call comes from
 * /home/dev/project, which does not exist here, as in every case before
 * governance; the two repositories sit in the scratch directory, beside the
 * homes and outside them: one without intents, one governed by 20.
 */
enum repo { REPO_NONE, REPO_PLAIN, REPO_GOV, REPO_LEDGER, REPO_PLAIN1K, REPO_GOV1K };

static char repo_dirs[6][PATH_CAP] = {"/home/dev/project", "", "", "", "", ""};

/* The 1k repositories: the files make_repo writes and REPO_1K_FILES more (fill_repo). */
#define REPO_1K_FILES 1000

#define GOV_INTENT "INT-007" /* the intent that owns src/billing/ */
#define WRITE_TEXT                                                                                   \
	"export function invoiceTotal(lines) {\\n\\treturn lines.reduce((sum, l) => sum + l.net + "      \
	"l.tax, 0);\\n}\\n"

/* A hook's JSON, shaped like Claude Code's; i varies prompts and ids from step to step. */
static size_t step_input(enum step st, long i, enum repo repo, char *buf, size_t cap)
{
	const char *root = repo_dirs[repo];
	char tail[3072];
	int n;

	switch (st) {
	case ST_START_NEW:
	case ST_START_RESUME:
		snprintf(tail, sizeof(tail), ",\"source\":\"%s\",\"model\":\"claude-sonnet-4-5\"",
			 st == ST_START_NEW ? "startup" : "resume");
		break;
	case ST_PROMPT_ROZ:
		snprintf(tail, sizeof(tail),
			 ",\"prompt\":\"#roz task %ld: add input validation to the signup form, cover "
			 "the error paths with tests, and keep the messages short\"",
			 i);
		break;
	case ST_PROMPT_PLAIN:
		snprintf(tail, sizeof(tail),
			 ",\"prompt\":\"step %ld: rename the helper in src/forms/validate.ts and run "
			 "the test suite again\"",
			 i);
		break;
	case ST_BASH_LS:
	case ST_BASH_SCRIPT:
	case ST_GIT_PUSH:
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"%s\",\"description\":"
			 "\"%s\"},\"tool_use_id\":\"toolu_01%016lx\"",
			 st == ST_BASH_LS ? "ls" : st == ST_BASH_SCRIPT ? "./scripts/build.sh" : "git push origin main",
			 st == ST_BASH_LS ? "List files in the project" :
			 st == ST_BASH_SCRIPT ? "Build with the project's script" : "Push the branch", i);
		break;
	case ST_READ:
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":"
			 "\"/home/dev/project/src/forms/validate.ts\"},\"tool_use_id\":\"toolu_01%016lx\"",
			 i);
		break;
	case ST_STOP:
		snprintf(tail, sizeof(tail), ",\"stop_hook_active\":false");
		break;
	case ST_SUB_START:
		snprintf(tail, sizeof(tail), ",\"agent_id\":\"a%015lx\",\"agent_type\":\"roz:roz\"", i);
		break;
	case ST_SUB_STOP:
		snprintf(tail, sizeof(tail),
			 ",\"stop_hook_active\":false,\"agent_id\":\"a%015lx\",\"agent_type\":\"roz:roz\","
			 "\"agent_transcript_path\":\"/home/dev/.claude/projects/-home-dev-project/"
			 "%s/subagents/agent-a%015lx.jsonl\",\"last_assistant_message\":\"Recorded "
			 "COMPLETE for session %s.\"",
			 i, SID, i, SID);
		break;
	case ST_SESSION_END:
		snprintf(tail, sizeof(tail), ",\"reason\":\"prompt_input_exit\"");
		break;
	case ST_DECIDE_CALL:
		/* the reviewer's Bash call of roz decide: it issues the ticket the verdict needs */
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz decide %s COMPLETE "
			 "'reviewed the diff'\",\"description\":\"Record the verdict\"},\"tool_use_id\":"
			 "\"toolu_01%016lx\",\"agent_id\":\"a%015lx\",\"agent_type\":\"roz:roz\"",
			 SID, i, i);
		break;
	case ST_SELECT:
		/* the agent's handshake: the hook records the selection as the command runs */
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz intent select "
			 "%s\",\"description\":\"Select the billing intent\"},\"tool_use_id\":"
			 "\"toolu_01%016lx\"",
			 GOV_INTENT, i);
		break;
	case ST_WRITE:
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"%s/src/billing/"
			 "invoice.ts\",\"content\":\"" WRITE_TEXT "\"},\"tool_use_id\":\"toolu_01%016lx\"",
			 root, i);
		break;
	case ST_POST_WRITE:
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"%s/src/billing/"
			 "invoice.ts\",\"content\":\"" WRITE_TEXT "\"},\"tool_use_id\":\"toolu_01%016lx\","
			 "\"tool_response\":{\"type\":\"update\",\"filePath\":\"%s/src/billing/invoice.ts\","
			 "\"content\":\"" WRITE_TEXT "\",\"structuredPatch\":[]}",
			 root, i, root);
		break;
	case ST_EDIT:
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"%s/src/billing/"
			 "tax.ts\",\"old_string\":\"rate: 0.19\",\"new_string\":\"rate: 0.07\","
			 "\"replace_all\":false},\"tool_use_id\":\"toolu_01%016lx\"",
			 root, i);
		break;
	case ST_BASH_ECHO:
	case ST_POST_BASH:
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo x > "
			 "src/billing/notes.txt\",\"description\":\"Note the open question\"},"
			 "\"tool_use_id\":\"toolu_01%016lx\"%s",
			 i, st == ST_POST_BASH ? ",\"tool_response\":{\"stdout\":\"\",\"stderr\":\"\","
			 "\"interrupted\":false,\"isImage\":false}" : "");
		break;
	case ST_POST_READ:
		snprintf(tail, sizeof(tail),
			 ",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"%s/src/billing/"
			 "tax.ts\"},\"tool_use_id\":\"toolu_01%016lx\",\"tool_response\":{\"type\":"
			 "\"text\",\"file\":{\"filePath\":\"%s/src/billing/tax.ts\",\"content\":"
			 "\"export const vat = {\\n\\trate: 0.19,\\n\\tround: 'half-even',\\n};\\n\","
			 "\"numLines\":4,\"startLine\":1,\"totalLines\":4}}",
			 root, i, root);
		break;
	default:
		buf[0] = '\0';
		return 0; /* roz decide reads no stdin */
	}
	n = snprintf(buf, cap,
		     "{\"session_id\":\"%s\",\"transcript_path\":\"/home/dev/.claude/projects/"
		     "-home-dev-project/%s.jsonl\",\"cwd\":\"%s\",\"permission_mode\":"
		     "\"default\",\"hook_event_name\":\"%s\"%s}",
		     SID, SID, root, steps[st].event, tail);
	if (n < 0 || (size_t)n >= cap)
		die("hook input too long");
	return (size_t)n;
}

/* ---- a command line, its environment and its input -------------------------------- */

typedef struct binary {
	const char *label;
	char path[PATH_CAP]; /* a private copy: a rebuild during the run cannot swap it */
	char version[128];
	const char *shell;       /* started through `<shell> -c 'roz hook <event>'`, or NULL */
	char env_path[PATH_CAP + 64]; /* PATH for it: its own directory first (the shell finds roz there) */
} binary;

typedef struct cmd {
	char env_home[PATH_CAP + 8];
	char env_roz_home[PATH_CAP + 16];
	char env_plugin[PATH_CAP + 32];
	char env_sid[96];
	char env_project[PATH_CAP + 24];
	char summary[96];
	char line[64];
	char *envp[8];
	char *argv[8];
	char input[INPUT_CAP];
	size_t input_len;
} cmd;

/*
 * The environment is built from scratch, so nothing of the caller's (a
 * ROZ_CONFIG, a real ~/.roz) leaks in; the plugin root is an empty
 * directory, as for a plugin that ships no templates of its own.
 */
static void cmd_make(cmd *c, const binary *b, const char *home, enum step st, long i, enum repo repo)
{
	int e = 0, a = 0;

	snprintf(c->env_home, sizeof(c->env_home), "HOME=%s", home);
	snprintf(c->env_roz_home, sizeof(c->env_roz_home), "ROZ_HOME=%s", home);
	snprintf(c->env_plugin, sizeof(c->env_plugin), "CLAUDE_PLUGIN_ROOT=%s/plugin", work);
	c->envp[e++] = b->shell ? (char *)b->env_path : (char *)"PATH=/usr/local/bin:/usr/bin:/bin";
	c->envp[e++] = c->env_home;
	c->envp[e++] = c->env_roz_home;
	c->envp[e++] = c->env_plugin;
	snprintf(c->env_project, sizeof(c->env_project), "CLAUDE_PROJECT_DIR=%s", repo_dirs[repo]);
	c->envp[e++] = c->env_project;
	c->argv[a++] = (char *)b->path;
	if (st == ST_DECIDE) {
		/* the reviewer runs it through Bash inside the session it reviews */
		snprintf(c->env_sid, sizeof(c->env_sid), "CLAUDE_CODE_SESSION_ID=%s", SID);
		c->envp[e++] = c->env_sid;
		snprintf(c->summary, sizeof(c->summary), "%s",
			 i == CASE_I ? "x" : "reviewed the diff against the request; tests pass");
		c->argv[a++] = (char *)"decide";
		c->argv[a++] = (char *)SID;
		c->argv[a++] = (char *)"COMPLETE";
		c->argv[a++] = c->summary;
	} else if (b->shell) {
		/* what Claude Code runs for a hook in shell form: the shell, which finds roz on PATH */
		snprintf(c->line, sizeof(c->line), "roz hook %s", steps[st].hook);
		a = 0;
		c->argv[a++] = (char *)b->shell;
		c->argv[a++] = (char *)"-c";
		c->argv[a++] = c->line;
	} else {
		c->argv[a++] = (char *)"hook";
		c->argv[a++] = (char *)steps[st].hook;
	}
	c->envp[e] = NULL;
	c->argv[a] = NULL;
	c->input_len = step_input(st, i, repo, c->input, sizeof(c->input));
}

static run_result scratch; /* one result buffer for every untimed step */

/*
 * A governed repository's watcher (roz watch), started before the cases in
 * it are set up and waited for until it answers, as it is in a session
 * after its first governed call: every measured hook then asks it what
 * moved. A build without `roz watch` answers the status with a usage error
 * and is left to walk. Started once per repository.
 */
static void start_watcher(const binary *b, const char *home, enum repo repo)
{
	static bool started[6];
	char root[PATH_CAP], *envp[] = {(char *)"PATH=/usr/bin:/bin", (char *)"ROZ_WATCH_IDLE_S=3600", NULL};
	char *status[] = {(char *)b->path, (char *)"watch", (char *)"--status", root, NULL};
	pid_t pid;

	if (started[repo] || !realpath(repo_dirs[repo], root))
		return;
	if ((pid = fork()) < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		char *argv[] = {(char *)b->path, (char *)"watch", root, (char *)home, NULL};
		int nul = open("/dev/null", O_RDWR);

		setsid();
		if (fork() != 0)
			_exit(0);
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		if (chdir("/") == 0)
			execve(b->path, argv, envp);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	for (int k = 0; k < 500; k++) {
		run_proc(status, envp, "", 0, &scratch);
		if (scratch.status == 0) {
			started[repo] = true;
			return;
		}
		if (scratch.status == 2)
			return; /* no `roz watch` in this build */
		usleep(10000);
	}
	die("%s watch %s: no watcher answered within 5 s", b->path, root);
}

static void run_step(const binary *b, const char *home, enum step st, long i, enum repo repo,
		     bool must_succeed)
{
	static cmd c;

	cmd_make(&c, b, home, st, i, repo);
	run_proc(c.argv, c.envp, c.input, c.input_len, &scratch);
	if (scratch.status != 0 && must_succeed)
		die("%s %s %s exited with %d while building a session:\n%s", b->path, c.argv[1],
		    c.argv[2], scratch.status, scratch.err);
}

/* What Claude Code would make of an answer. */
static const char *classify(enum step st, const run_result *r)
{
	char flat[OUT_CAP];
	size_t n = 0;

	if (st == ST_DECIDE)
		return r->status == 0 ? "recorded" : "failed";
	if (r->status != 0)
		return "exit!=0";
	/* spacing differs between implementations; the meaning does not */
	for (size_t k = 0; k < r->out_len; k++)
		if (r->out[k] != ' ' && r->out[k] != '\n' && r->out[k] != '\t' && r->out[k] != '\r')
			flat[n++] = r->out[k];
	flat[n] = '\0';
	if (strstr(flat, "\"permissionDecision\":\"deny\""))
		return "deny";
	if (strstr(flat, "\"permissionDecision\":\"ask\""))
		return "ask";
	if (strstr(flat, "\"decision\":\"block\""))
		return "block";
	if (strstr(flat, "additionalContext"))
		return "context";
	if (strcmp(flat, "{}") == 0 || strstr(flat, "\"permissionDecision\":\"allow\"") ||
	    strstr(flat, "\"decision\":\"approve\""))
		return "allow";
	return "other";
}

/* ---- cases and session sizes -------------------------------------------------------- */

enum base { BASE_NONE, BASE_REVIEWED, BASE_PLAIN };

typedef struct bcase {
	const char *name;
	enum step measured;
	bool gated;
	enum base base;
	enum step setup[6]; /* run once, after the base is copied in, before the snapshot */
	const char *expect; /* our answer; anything else means the case measures the wrong path */
	bool fresh_only;    /* a new session has no size */
	const struct in_repo *repo; /* NULL: no repository, as before governance */
} bcase;

/*
 * A case in one of the repositories. An answer of allow does not show that
 * governance judged the call, so the session file must hold `after_setup`
 * once the set-up ran (the selected intent, a remembered file) and
 * `after_probe` once the measured hook ran (a file it learnt).
 */
typedef struct in_repo {
	enum repo which;
	const char *after_setup, *after_probe;
} in_repo;

/*
 * What a case in a 1k repository adds (detect_of): TREE_KEPT, the set-up
 * left a tree snapshot in <home>/trees/, put back before every run;
 * TREE_NONE, it is removed before every run (the session's first call
 * takes it).
 */
typedef struct in_tree {
	const in_repo *repo;
	enum { TREE_IGNORED, TREE_KEPT, TREE_NONE } tree;
	bool dirty;    /* src/billing/notes.txt is rewritten before every run: what `echo x >` did */
	bool new_tree; /* the measured hook must save a new snapshot (it walked and saw the change) */
	int sum;       /* 1-4: ungoverned pre, post, governed pre, post, added up after the table */
} in_tree;

static const in_repo plain_repo = {REPO_PLAIN, NULL, NULL};
static const in_repo ledger_repo = {REPO_LEDGER, NULL, NULL};
static const in_repo gov_any = {REPO_GOV, NULL, NULL};
static const in_repo gov_selected = {REPO_GOV, "\"intent_id\":\"" GOV_INTENT "\"", NULL};
static const in_repo gov_remembers = {REPO_GOV, "src/billing/tax.ts", NULL};
static const in_repo gov_learns_read = {REPO_GOV, "\"intent_id\":\"" GOV_INTENT "\"", "src/billing/tax.ts"};
static const in_repo gov_learns_write = {REPO_GOV, "\"intent_id\":\"" GOV_INTENT "\"",
					 "src/billing/invoice.ts"};
static const in_repo gov_learns_bash = {REPO_GOV, "\"intent_id\":\"" GOV_INTENT "\"",
					"src/billing/notes.txt"};
/* a Bash call in a repository of ~1,000 files, without intents and governed (detection) */
static const in_repo plain1k_pre = {REPO_PLAIN1K, NULL, NULL};
static const in_repo plain1k_post = {REPO_PLAIN1K, NULL, NULL};
static const in_repo gov1k_pre = {REPO_GOV1K, "\"intent_id\":\"" GOV_INTENT "\"", NULL};
static const in_repo gov1k_post = {REPO_GOV1K, "\"intent_id\":\"" GOV_INTENT "\"", "src/billing/notes.txt"};
static const in_repo gov1k_first = {REPO_GOV1K, "\"intent_id\":\"" GOV_INTENT "\"", NULL};

static const in_tree in_trees[] = {
	{&plain1k_pre, TREE_IGNORED, false, false, 1}, {&plain1k_post, TREE_IGNORED, true, false, 2},
	{&gov1k_pre, TREE_KEPT, false, false, 3},      {&gov1k_post, TREE_KEPT, true, true, 4},
	{&gov1k_first, TREE_NONE, false, false, 0},
};

static const in_tree *detect_of(const in_repo *r)
{
	static const in_tree none = {NULL, TREE_IGNORED, false, false, 0};

	for (size_t k = 0; r && k < sizeof(in_trees) / sizeof(in_trees[0]); k++)
		if (in_trees[k].repo == r)
			return &in_trees[k];
	return &none;
}

#define REVIEW_DONE ST_PROMPT_ROZ, ST_STOP, ST_SUB_START, ST_DECIDE_CALL, ST_DECIDE, ST_SUB_STOP

static const bcase cases[] = {
	{"session-start new", ST_START_NEW, false, BASE_NONE, {ST_NONE}, "allow", true, NULL},
	{"session-start resumed", ST_START_RESUME, false, BASE_REVIEWED, {ST_NONE}, "allow", false, NULL},
	{"user-prompt #roz", ST_PROMPT_ROZ, false, BASE_REVIEWED, {ST_NONE}, "allow", false, NULL},
	{"user-prompt plain", ST_PROMPT_PLAIN, false, BASE_REVIEWED, {ST_NONE}, "allow", false, NULL},
	{"pre-tool-use no gates, Bash ls", ST_BASH_LS, false, BASE_REVIEWED, {ST_NONE}, "allow", false, NULL},
	{"pre-tool-use gates, no match, Bash ls", ST_BASH_LS, true, BASE_REVIEWED, {ST_NONE}, "allow", false, NULL},
	{"pre-tool-use gates, no match, Read", ST_READ, true, BASE_REVIEWED, {ST_NONE}, "allow", false, NULL},
	/* a line roz cannot see through: free, but the session is read to know whether a denial is pending */
	{"pre-tool-use gates, Bash script, nothing pending", ST_BASH_SCRIPT, true, BASE_REVIEWED, {ST_NONE},
	 "allow", false, NULL},
	{"pre-tool-use gates, Bash script, denial pending", ST_BASH_SCRIPT, true, BASE_REVIEWED,
	 {ST_PROMPT_PLAIN, ST_GIT_PUSH}, "ask", false, NULL},
	{"pre-tool-use gate match, denied", ST_GIT_PUSH, true, BASE_REVIEWED, {ST_PROMPT_PLAIN}, "deny",
	 false, NULL},
	{"pre-tool-use gate match, allowed", ST_GIT_PUSH, true, BASE_REVIEWED, {REVIEW_DONE}, "allow",
	 false, NULL},
	{"stop, blocks (review pending)", ST_STOP, false, BASE_REVIEWED, {ST_PROMPT_ROZ}, "block", false, NULL},
	{"stop, allows (approved)", ST_STOP, false, BASE_REVIEWED, {REVIEW_DONE}, "allow", false, NULL},
	{"stop, allows (no review)", ST_STOP, false, BASE_PLAIN, {ST_PROMPT_PLAIN}, "allow", false, NULL},
	{"subagent-start roz:roz", ST_SUB_START, false, BASE_REVIEWED, {ST_PROMPT_ROZ, ST_STOP}, "allow",
	 false, NULL},
	{"subagent-stop roz:roz, fresh verdict", ST_SUB_STOP, false, BASE_REVIEWED,
	 {ST_PROMPT_ROZ, ST_STOP, ST_SUB_START, ST_DECIDE_CALL, ST_DECIDE}, "allow", false, NULL},
	{"session-end", ST_SESSION_END, false, BASE_REVIEWED, {ST_NONE}, "allow", false, NULL},
	{"decide COMPLETE (argv, no stdin)", ST_DECIDE, false, BASE_REVIEWED,
	 {ST_PROMPT_ROZ, ST_STOP, ST_SUB_START, ST_DECIDE_CALL}, "recorded", false, NULL},
	/* governance off: a repository without intents (issue 14: post-tool-use <= 1.1x floor) */
	{"post-tool-use Read, no intents", ST_POST_READ, false, BASE_REVIEWED, {ST_NONE}, "allow", false,
	 &plain_repo},
	{"post-tool-use Write, no intents", ST_POST_WRITE, false, BASE_REVIEWED, {ST_NONE}, "allow", false,
	 &plain_repo},
	{"post-tool-use Bash echo > file, no intents", ST_POST_BASH, false, BASE_REVIEWED, {ST_NONE},
	 "allow", false, &plain_repo},
	{"pre-tool-use Write, no intents", ST_WRITE, false, BASE_REVIEWED, {ST_NONE}, "allow", false,
	 &plain_repo},
	/* a ledger without intents: the append alone (issue 15: <= 1.5x floor) */
	{"post-tool-use Write, ledger only", ST_POST_WRITE, false, BASE_REVIEWED, {ST_NONE}, "allow", false,
	 &ledger_repo},
	/* governed by 20 intents, INT-007 selected (issue 14: a Write <= 1.5x floor) */
	{"post-tool-use Read, 20 intents", ST_POST_READ, false, BASE_REVIEWED, {ST_SELECT}, "allow",
	 false, &gov_learns_read},
	{"post-tool-use Write, 20 intents", ST_POST_WRITE, false, BASE_REVIEWED, {ST_SELECT}, "allow",
	 false, &gov_learns_write},
	{"post-tool-use Bash echo > file, 20 intents", ST_POST_BASH, false, BASE_REVIEWED, {ST_SELECT},
	 "allow", false, &gov_learns_bash},
	{"pre-tool-use Write in scope, 20 intents", ST_WRITE, false, BASE_REVIEWED, {ST_SELECT}, "allow",
	 false, &gov_selected},
	{"pre-tool-use Write, none selected, 20 intents", ST_WRITE, false, BASE_REVIEWED, {ST_NONE},
	 "deny", false, &gov_any},
	{"pre-tool-use Edit, file remembered, 20 intents", ST_EDIT, false, BASE_REVIEWED,
	 {ST_SELECT, ST_POST_READ}, "allow", false, &gov_remembers},
	{"pre-tool-use Bash ls, 20 intents", ST_BASH_LS, false, BASE_REVIEWED, {ST_SELECT}, "allow",
	 false, &gov_selected},
	{"pre-tool-use Bash echo > file, 20 intents", ST_BASH_ECHO, false, BASE_REVIEWED, {ST_SELECT},
	 "allow", false, &gov_selected},
	/*
	 * Detection: a Bash call, pre and post, in a repository of 1,000 files
	 * (issue: governed pre + post within 1.5x ungoverned). Governed, the pre
	 * touches the snapshot the set-up's first call took; the post walks the
	 * tree, loads the snapshot, finds notes.txt rewritten and saves the walk.
	 */
	{"pre-tool-use Bash echo, 1k files, no intents", ST_BASH_ECHO, false, BASE_REVIEWED, {ST_NONE},
	 "allow", false, &plain1k_pre},
	{"post-tool-use Bash echo, 1k files, no intents", ST_POST_BASH, false, BASE_REVIEWED, {ST_NONE},
	 "allow", false, &plain1k_post},
	{"pre-tool-use Bash echo, 1k files, 20 intents", ST_BASH_ECHO, false, BASE_REVIEWED, {ST_SELECT},
	 "allow", false, &gov1k_pre},
	{"post-tool-use Bash echo, 1k files, 20 intents", ST_POST_BASH, false, BASE_REVIEWED, {ST_SELECT},
	 "allow", false, &gov1k_post},
	{"pre-tool-use Bash echo, 1k files, first call", ST_BASH_ECHO, false, BASE_REVIEWED, {ST_SELECT},
	 "allow", false, &gov1k_first},
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/*
 * The states measured on. A reviewed base is a session of finished #roz tasks
 * (prompt, blocked stop, reviewer start, verdict, reviewer stop, allowed
 * stop: six events each) or of bare #roz prompts; a plain base is one where
 * no review was ever asked for (prompt and stop turns, one event each).
 */
typedef struct size_def {
	const char *key;
	const char *title;
	long cycles;      /* reviewed tasks */
	long roz_prompts; /* bare #roz prompts after them */
	long plain_turns; /* for the plain base */
} size_def;

static size_def sizes[] = {
	{"fresh", "fresh session", 0, 0, 0},
	{"100", "about 100 trace events", 16, 0, 99},
	{"cap", "at the trace cap (500 events)", 90, 0, 540},
	{"10k", "after 10000 #roz prompts", 0, 10000, 10000},
};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* ---- options ------------------------------------------------------------------------- */

static struct {
	const char *roz, *vs, *floor, *floor2, *only, *sizes, *shell;
	long runs, warmup;
	unsigned long seed;
	bool csv;
} opt = {"build/roz", NULL, NULL, NULL, NULL, "fresh,100,cap,10k", NULL, 300, 5, 1, false};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench --floor PATH [--roz PATH] [--vs PATH | --shell PATH] [--runs N] [--only TEXT]\n"
		"             [--sizes LIST] [--prompts N] [--warmup N] [--seed N] [--csv] [--keep]\n\n"
		"Times roz hooks as Claude Code runs them, interleaved with a floor program.\n"
		"  --roz PATH     roz under test (default build/roz)\n"
		"  --vs PATH      another hook binary run on the same inputs; prints theirs/ours\n"
		"  --shell PATH   instead of --vs: the same roz started as a shell-form hook is,\n"
		"                 PATH -c 'roz hook <event>' with roz found on PATH\n"
		"  --floor PATH   the floor program (bench/run.sh builds and passes it)\n"
		"  --floor2 PATH  the second floor: a hook that saves 1 KiB by atomic rename\n"
		"  --runs N       measured runs per case and binary (default 300)\n"
		"  --only TEXT    only cases whose name contains TEXT\n"
		"  --sizes LIST   comma-separated, from fresh,100,cap,10k (default all)\n"
		"  --prompts N    #roz prompts in the largest session (default 10000)\n"
		"  --warmup N     unmeasured rounds first (default 5)\n"
		"  --seed N       seed of the run order (default 1)\n"
		"  --csv          machine-readable rows instead of tables\n"
		"  --keep         keep the scratch directory\n");
}

static long num_arg(const char *name, const char *v, long min)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || end == v || n < min) {
		fprintf(stderr, "bench: %s needs a whole number of at least %ld, not '%s'\n", name, min, v);
		exit(2);
	}
	return n;
}

static void parse_args(int argc, char **argv)
{
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
		bool takes = true;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(a, "--csv") == 0) {
			opt.csv = true;
			takes = false;
		} else if (strcmp(a, "--keep") == 0) {
			keep_work = true;
			takes = false;
		} else if (!v) {
			fprintf(stderr, "bench: %s needs a value (or is unknown)\n", a);
			usage(stderr);
			exit(2);
		} else if (strcmp(a, "--roz") == 0) {
			opt.roz = v;
		} else if (strcmp(a, "--vs") == 0) {
			opt.vs = v;
		} else if (strcmp(a, "--shell") == 0) {
			opt.shell = v;
		} else if (strcmp(a, "--floor") == 0) {
			opt.floor = v;
		} else if (strcmp(a, "--floor2") == 0) {
			opt.floor2 = v;
		} else if (strcmp(a, "--only") == 0) {
			opt.only = v;
		} else if (strcmp(a, "--sizes") == 0) {
			opt.sizes = v;
		} else if (strcmp(a, "--runs") == 0) {
			opt.runs = num_arg(a, v, 1);
		} else if (strcmp(a, "--warmup") == 0) {
			opt.warmup = num_arg(a, v, 0);
		} else if (strcmp(a, "--seed") == 0) {
			opt.seed = (unsigned long)num_arg(a, v, 0);
		} else if (strcmp(a, "--prompts") == 0) {
			sizes[3].roz_prompts = sizes[3].plain_turns = num_arg(a, v, 1);
		} else {
			fprintf(stderr, "bench: unknown option '%s'\n", a);
			usage(stderr);
			exit(2);
		}
		if (takes)
			k++;
	}
	if (!opt.floor) {
		fprintf(stderr, "bench: --floor is required (bench/run.sh passes it)\n");
		exit(2);
	}
}

static bool size_selected(const char *key)
{
	size_t n = strlen(key);

	for (const char *p = opt.sizes; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, key, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static bool case_selected(const bcase *c)
{
	return !opt.only || strstr(c->name, opt.only);
}

/* A typo in --sizes or --only would otherwise measure nothing, silently. */
static void check_selection(void)
{
	size_t any = 0;

	for (const char *p = opt.sizes; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t n = strcspn(p, ","), k;

		for (k = 0; k < N_SIZES; k++)
			if (strlen(sizes[k].key) == n && strncmp(p, sizes[k].key, n) == 0)
				break;
		if (k == N_SIZES) {
			fprintf(stderr, "bench: unknown size '%.*s' (sizes: fresh,100,cap,10k)\n", (int)n, p);
			exit(2);
		}
	}
	for (size_t k = 0; k < N_CASES; k++)
		any += case_selected(&cases[k]);
	if (!any) {
		fprintf(stderr, "bench: no case name contains '%s'\n", opt.only);
		exit(2);
	}
}

/* ---- one table: a session size ------------------------------------------------------------ */

typedef struct job {
	const bcase *c;
	int who; /* index into bins */
	char home[PATH_CAP];
	char session[PATH_CAP];
	char snapshot[PATH_CAP];
	bool has_snapshot;
	char trace[PATH_CAP], tsnapshot[PATH_CAP]; /* the trace file beside the session, and its copy */
	bool has_tsnapshot;
	char tree[PATH_CAP], tree_snap[PATH_CAP]; /* detection's snapshot of the repository, and its copy */
	bool has_tree;
	char dirty[PATH_CAP]; /* a repository file rewritten before every run, or "" */
	cmd cmd;
	const char *answer;
	bool na;
	double *samples, *cpu;
	size_t n;
	long rss_max;
	long mismatches; /* runs that failed or answered otherwise than the first */
	stats st;
	double cpu_p50;
} job;

static binary bins[2];
static int n_bins;
static binary floor_bin, floor2_bin;

/* Put the session back as the set-up left it; never inside the timed interval. */
static void restore(const job *j)
{
	if (j->has_snapshot)
		copy_file(j->snapshot, j->session, 0600);
	else if (unlink(j->session) < 0 && errno != ENOENT)
		die("unlink %s: %s", j->session, strerror(errno));
	if (j->has_tsnapshot)
		copy_file(j->tsnapshot, j->trace, 0600);
	else if (unlink(j->trace) < 0 && errno != ENOENT)
		die("unlink %s: %s", j->trace, strerror(errno));
	if (j->has_tree)
		copy_file(j->tree_snap, j->tree, 0600); /* its mtime, the pre's mark, is now */
	else if (j->tree[0] && unlink(j->tree) < 0 && errno != ENOENT)
		die("unlink %s: %s", j->tree, strerror(errno));
	if (j->dirty[0])
		write_file(j->dirty, "x\n", 2, 0600); /* after the mark: the call's own change */
}

/* The one snapshot detection keeps in <home>/trees/ (<session>-<root hash>.tree), or false. */
static bool find_tree(const char *home, char *out)
{
	char dir[PATH_CAP];
	DIR *d;
	struct dirent *e;
	bool found = false;

	fmt_path(dir, "%s/trees", home);
	if (!(d = opendir(dir)))
		return false;
	while (!found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && strcmp(e->d_name + n - 5, ".tree") == 0) {
			fmt_path(out, "%s/%s", dir, e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* Whether two files hold the same bytes. */
static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "re"), *fb = fopen(b, "re");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static void build_base(const binary *b, const size_def *sz, enum base kind, const char *home)
{
	bool must = b == &bins[0]; /* another binary may not know every hook; that is its answer */
	double t0 = now_us();
	long steps_run = 0;

	make_dir(home);
	run_step(b, home, ST_START_NEW, 0, REPO_NONE, must);
	if (kind == BASE_REVIEWED) {
		for (long k = 1; k <= sz->cycles; k++) {
			static const enum step cycle[] = {ST_PROMPT_ROZ, ST_STOP,     ST_SUB_START, ST_DECIDE_CALL,
							  ST_DECIDE,     ST_SUB_STOP, ST_STOP};

			for (size_t s = 0; s < sizeof(cycle) / sizeof(cycle[0]); s++)
				run_step(b, home, cycle[s], k, REPO_NONE, must);
			steps_run += sizeof(cycle) / sizeof(cycle[0]);
		}
		for (long k = 1; k <= sz->roz_prompts; k++, steps_run++)
			run_step(b, home, ST_PROMPT_ROZ, k, REPO_NONE, must);
	} else {
		for (long k = 1; k <= sz->plain_turns; k++, steps_run += 2) {
			run_step(b, home, ST_PROMPT_PLAIN, k, REPO_NONE, must);
			run_step(b, home, ST_STOP, k, REPO_NONE, must);
		}
	}
	if (steps_run >= 1000)
		fprintf(stderr, "bench: built the %s %s session for %s: %ld hook runs, %.1f s\n",
			sz->key, kind == BASE_REVIEWED ? "reviewed" : "plain", b->label, steps_run + 1,
			(now_us() - t0) / 1e6);
}

/* Whether a file holds a text; files here are sessions, a few hundred KB at most. */
static bool file_holds(const char *path, const char *text)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;
	bool found;

	if (!f)
		return false;
	buf = xcalloc(1, 1u << 20);
	n = fread(buf, 1, (1u << 20) - 1, f);
	fclose(f);
	buf[n] = '\0';
	found = strstr(buf, text) != NULL;
	free(buf);
	return found;
}

static void check_holds(const bcase *c, const char *path, const char *text, const char *when)
{
	if (text && !file_holds(path, text))
		die("case '%s': the session does not hold %s %s, so governance did not do what the case "
		    "measures (%s)",
		    c->name, text, when, path);
}

static void prepare_job(job *j, const bcase *c, int who, const char *dir, int idx, const char *base)
{
	const binary *b = &bins[who];
	enum repo repo = c->repo ? c->repo->which : REPO_NONE;

	memset(j, 0, sizeof(*j));
	j->c = c;
	j->who = who;
	fmt_path(j->home, "%s/case%02d-%s", dir, idx, b->label);
	fmt_path(j->session, "%s/sessions/%s.json", j->home, SID);
	fmt_path(j->snapshot, "%s/case%02d-%s.snapshot", dir, idx, b->label);
	trace_of(j->session, j->trace);
	fmt_path(j->tsnapshot, "%s/case%02d-%s.trace-snapshot", dir, idx, b->label);
	make_dir(j->home);
	{
		char p[PATH_CAP];

		fmt_path(p, "%s/sessions", j->home);
		make_dir(p);
		if (c->gated) {
			fmt_path(p, "%s/config.toml", j->home);
			write_file(p, GATES_CONFIG, strlen(GATES_CONFIG), 0600);
		}
	}
	if (base && exists(base)) {
		char base_trace[PATH_CAP];

		copy_file(base, j->session, 0600);
		trace_of(base, base_trace);
		if (exists(base_trace))
			copy_file(base_trace, j->trace, 0600);
	}
	if (repo == REPO_GOV || repo == REPO_GOV1K)
		start_watcher(b, j->home, repo);
	for (size_t s = 0; s < sizeof(c->setup) / sizeof(c->setup[0]) && c->setup[s]; s++)
		run_step(b, j->home, c->setup[s], CASE_I, repo, who == 0);
	j->has_snapshot = exists(j->session);
	if (j->has_snapshot)
		copy_file(j->session, j->snapshot, 0600);
	j->has_tsnapshot = exists(j->trace);
	if (j->has_tsnapshot)
		copy_file(j->trace, j->tsnapshot, 0600);
	if (who == 0 && c->repo)
		check_holds(c, j->session, c->repo->after_setup, "after its set-up");
	if (detect_of(c->repo)->tree != TREE_IGNORED) {
		bool found = find_tree(j->home, j->tree);

		if (!found && who == 0)
			die("case '%s': no tree snapshot in %s/trees after its set-up, so detection did not "
			    "run",
			    c->name, j->home);
		if (found && detect_of(c->repo)->tree == TREE_KEPT) {
			fmt_path(j->tree_snap, "%s/case%02d-%s.tree-snapshot", dir, idx, b->label);
			copy_file(j->tree, j->tree_snap, 0600);
			j->has_tree = true;
		}
	}
	if (detect_of(c->repo)->dirty)
		fmt_path(j->dirty, "%s/src/billing/notes.txt", repo_dirs[repo]);
	cmd_make(&j->cmd, b, j->home, c->measured, CASE_I, repo);

	/* `roz decide` is the reviewer's command through Bash, never a hook: no shell form of it */
	if (b->shell && c->measured == ST_DECIDE) {
		j->na = true;
		return;
	}
	/* one probe run: what it answers is what every measured run must answer */
	restore(j);
	run_proc(j->cmd.argv, j->cmd.envp, j->cmd.input, j->cmd.input_len, &scratch);
	j->answer = classify(c->measured, &scratch);
	if (who != 0) {
		j->na = strstr(scratch.err, "unknown hook") || strstr(scratch.err, "unrecognized") ||
			strstr(scratch.err, "unknown command");
	} else if (strcmp(j->answer, c->expect) != 0) {
		die("case '%s': roz answered %s where %s was expected, so it would not measure what "
		    "it says.\nstdout: %s\nstderr: %s",
		    c->name, j->answer, c->expect, scratch.out, scratch.err);
	} else if (c->repo) {
		check_holds(c, j->session, c->repo->after_probe, "after the measured hook");
		if (detect_of(c->repo)->tree == TREE_NONE && !exists(j->tree))
			die("case '%s': the measured hook took no tree snapshot", c->name);
		if (detect_of(c->repo)->new_tree && same_file(j->tree, j->tree_snap))
			die("case '%s': the measured hook saved no new tree snapshot, so it saw no change",
			    c->name);
		/*
		 * From now on the snapshot put back is the one the probe saved, as a session's next call
		 * finds it: the copy it kept of the file it recorded describes that snapshot's file, so
		 * the lines are read from the copy, not asked of git (which the session's first change
		 * of a committed file pays once; docs/performance.md)
		 */
		if (detect_of(c->repo)->new_tree)
			copy_file(j->tree, j->tree_snap, 0600);
	}
}

static void print_stats_cols(const job *j, double floor_p50, double floor2_p50)
{
	if (j->na) {
		printf("  %-8s %8s %8s %8s %7s %8s %8s%s", "n/a", "", "", "", "", "", "",
		       floor2_p50 > 0 ? "        " : "");
		return;
	}
	printf("  %-8s %8.0f %8.0f %8.0f %7.2f %8ld %8.0f", j->answer, j->st.p50, j->st.p90,
	       j->st.p99, j->st.p50 / floor_p50, j->rss_max, j->cpu_p50);
	if (floor2_p50 > 0)
		printf(" %7.2f", j->st.p50 / floor2_p50);
}

/* The one-minute load average: how busy the machine was while the table ran. */
static const char *load_average(char *buf, size_t cap)
{
	FILE *f = fopen("/proc/loadavg", "re");

	snprintf(buf, cap, "?");
	if (f) {
		if (fgets(buf, (int)cap, f))
			buf[strcspn(buf, " \n")] = '\0';
		fclose(f);
	}
	return buf;
}

static void note_wait_rss(long kib, long *lo, long *hi)
{
	if (*lo < 0 || kib < *lo)
		*lo = kib;
	if (kib > *hi)
		*hi = kib;
}

static void run_size(const size_def *sz)
{
	char dir[PATH_CAP], base_r[2][PATH_CAP], base_p[2][PATH_CAP];
	bool need_r = false, need_p = false, differ = false;
	size_t n_jobs = 0, n_floor = 0, n_floor2 = 0, *order;
	long ev_r = -1, ev_p = -1, bytes_r = 0, bytes_p = 0, floor_rss = 0;
	long wait_rss_lo = -1, wait_rss_hi = -1;
	double *floor_samples, *floor_cpu, *floor2_samples, t_start = now_us();
	char load[32];
	stats fs, fcpu, f2s = {0};
	job *jobs;

	fmt_path(dir, "%s/%s", work, sz->key);
	make_dir(dir);
	for (size_t k = 0; k < N_CASES; k++) {
		if (!case_selected(&cases[k]) || (cases[k].fresh_only && strcmp(sz->key, "fresh") != 0))
			continue;
		need_r |= cases[k].base == BASE_REVIEWED;
		need_p |= cases[k].base == BASE_PLAIN;
		n_jobs += (size_t)n_bins;
	}
	if (!n_jobs)
		return;
	for (int w = 0; w < n_bins; w++) {
		fmt_path(base_r[w], "%s/base-reviewed-%s/sessions/%s.json", dir, bins[w].label, SID);
		fmt_path(base_p[w], "%s/base-plain-%s/sessions/%s.json", dir, bins[w].label, SID);
		if (need_r) {
			char home[PATH_CAP];

			fmt_path(home, "%s/base-reviewed-%s", dir, bins[w].label);
			build_base(&bins[w], sz, BASE_REVIEWED, home);
		}
		if (need_p) {
			char home[PATH_CAP];

			fmt_path(home, "%s/base-plain-%s", dir, bins[w].label);
			build_base(&bins[w], sz, BASE_PLAIN, home);
		}
	}
	if (need_r)
		ev_r = count_events(base_r[0], &bytes_r);
	if (need_p)
		ev_p = count_events(base_p[0], &bytes_p);

	jobs = xcalloc(n_jobs, sizeof(*jobs));
	order = xcalloc(n_jobs, sizeof(*order));
	n_jobs = 0;
	for (size_t k = 0; k < N_CASES; k++) {
		const bcase *c = &cases[k];

		if (!case_selected(c) || (c->fresh_only && strcmp(sz->key, "fresh") != 0))
			continue;
		for (int w = 0; w < n_bins; w++) {
			const char *base = c->base == BASE_REVIEWED ? base_r[w]
					   : c->base == BASE_PLAIN  ? base_p[w]
								    : NULL;

			prepare_job(&jobs[n_jobs], c, w, dir, (int)k, base);
			jobs[n_jobs].samples = xcalloc((size_t)opt.runs, sizeof(double));
			jobs[n_jobs].cpu = xcalloc((size_t)opt.runs, sizeof(double));
			order[n_jobs] = n_jobs;
			n_jobs++;
		}
	}
	floor_samples = xcalloc((size_t)opt.runs * n_jobs, sizeof(double));
	floor_cpu = xcalloc((size_t)opt.runs * n_jobs, sizeof(double));
	floor2_samples = xcalloc((size_t)opt.runs * n_jobs, sizeof(double));

	/*
	 * Each round visits every job once, in a fresh random order; each visit
	 * runs the floor and the job back to back, in a random order of the two,
	 * so drift and bursts of load land on both alike.
	 */
	for (long round = 0; round < opt.warmup + opt.runs; round++) {
		bool measured = round >= opt.warmup;

		for (size_t k = n_jobs; k > 1; k--) {
			size_t m = (size_t)(rng_next() % k), t = order[k - 1];

			order[k - 1] = order[m];
			order[m] = t;
		}
		for (size_t k = 0; k < n_jobs; k++) {
			job *j = &jobs[order[k]];
			bool floor_first = rng_next() & 1;
			char *fargv[2] = {floor_bin.path, NULL};

			if (j->na)
				continue;
			restore(j);
			for (int half = 0; half < 2; half++) {
				bool is_floor = (half == 0) == floor_first;

				if (is_floor) {
					run_proc(fargv, j->cmd.envp, j->cmd.input, j->cmd.input_len, &scratch);
					if (measured) {
						floor_cpu[n_floor] = scratch.cpu_us;
						floor_samples[n_floor++] = scratch.us;
						note_wait_rss(scratch.rss_kib, &wait_rss_lo, &wait_rss_hi);
					}
					/* the second floor next to the first, in the job's own home */
					if (opt.floor2) {
						char *f2argv[2] = {floor2_bin.path, NULL};

						run_proc(f2argv, j->cmd.envp, j->cmd.input, j->cmd.input_len,
							 &scratch);
						if (measured)
							floor2_samples[n_floor2++] = scratch.us;
					}
					continue;
				}
				run_proc(j->cmd.argv, j->cmd.envp, j->cmd.input, j->cmd.input_len, &scratch);
				if (!measured)
					continue;
				j->cpu[j->n] = scratch.cpu_us;
				j->samples[j->n++] = scratch.us;
				note_wait_rss(scratch.rss_kib, &wait_rss_lo, &wait_rss_hi);
				if (strcmp(classify(j->c->measured, &scratch), j->answer) != 0)
					j->mismatches++;
			}
		}
	}
	/* untimed: peak RSS of each program on its own (see traced_peak_rss) */
	for (size_t k = 0; k < n_jobs; k++) {
		job *j = &jobs[k];
		char *fargv[2] = {floor_bin.path, NULL};

		for (int r = 0; r < RSS_RUNS && !j->na; r++) {
			long kib;

			restore(j);
			kib = traced_peak_rss(j->cmd.argv, j->cmd.envp, j->cmd.input, j->cmd.input_len);
			if (kib > j->rss_max)
				j->rss_max = kib;
			kib = traced_peak_rss(fargv, j->cmd.envp, j->cmd.input, j->cmd.input_len);
			if (kib > floor_rss)
				floor_rss = kib;
		}
	}
	fs = summarize(floor_samples, n_floor);
	fcpu = summarize(floor_cpu, n_floor);
	if (n_floor2)
		f2s = summarize(floor2_samples, n_floor2);
	for (size_t k = 0; k < n_jobs; k++) {
		jobs[k].st = summarize(jobs[k].samples, jobs[k].n);
		jobs[k].cpu_p50 = summarize(jobs[k].cpu, jobs[k].n).p50;
	}

	if (opt.csv) {
		printf("%s,floor,floor,allow,%zu,%.1f,%.1f,%.1f,%.1f,1.000,%ld,0\n", sz->key, n_floor,
		       fs.p50, fs.p90, fs.p99, fcpu.p50, floor_rss);
		if (n_floor2)
			printf("%s,floor2,floor2,allow,%zu,%.1f,%.1f,%.1f,,%.3f,,0\n", sz->key, n_floor2,
			       f2s.p50, f2s.p90, f2s.p99, f2s.p50 / fs.p50);
		for (size_t k = 0; k < n_jobs; k++) {
			const job *j = &jobs[k];

			if (j->na)
				printf("%s,\"%s\",%s,n/a,0,,,,,,,\n", sz->key, j->c->name, bins[j->who].label);
			else
				printf("%s,\"%s\",%s,%s,%zu,%.1f,%.1f,%.1f,%.1f,%.3f,%ld,%ld\n", sz->key,
				       j->c->name, bins[j->who].label, j->answer, j->n, j->st.p50, j->st.p90,
				       j->st.p99, j->cpu_p50, j->st.p50 / fs.p50, j->rss_max, j->mismatches);
		}
	} else {
		if (sz->roz_prompts)
			printf("\n== after %ld #roz prompts ==\n", sz->roz_prompts);
		else
			printf("\n== %s ==\n", sz->title);
		if (ev_r >= 0)
			printf("reviewed base: %ld trace events, %ld bytes", ev_r, bytes_r);
		if (ev_p >= 0)
			printf("%splain base: %ld trace events, %ld bytes", ev_r >= 0 ? "; " : "", ev_p,
			       bytes_p);
		if (ev_r >= 0 || ev_p >= 0)
			printf(" (files written by %s, before each case's set-up)\n", bins[0].label);
		printf("floor: p50 %.0f µs, p90 %.0f, p99 %.0f, peak RSS %ld KiB, CPU %.0f µs (%zu runs)\n",
		       fs.p50, fs.p90, fs.p99, floor_rss, fcpu.p50, n_floor);
		if (n_floor2)
			printf("second floor (read stdin, write 1 KiB, rename): p50 %.0f µs, p90 %.0f, p99 %.0f, "
			       "%.2f×floor (%zu runs); ×2nd below is p50 over it\n",
			       f2s.p50, f2s.p90, f2s.p99, f2s.p50 / fs.p50, n_floor2);
		/* "µ" and "×" take two bytes and one column: each width is one more than it shows */
		printf("%-46s  %-8s %9s %9s %9s %8s %8s %9s", "case", "answer", "p50 µs", "p90 µs",
		       "p99 µs", "×floor", "RSS KiB", "CPU µs");
		if (n_floor2)
			printf(" %8s", "×2nd");
		if (n_bins > 1)
			printf("  | %-8s %9s %9s %9s %8s %8s %9s  %s", bins[1].label, "p50 µs", "p90 µs",
			       "p99 µs", "×floor", "RSS KiB", "CPU µs", opt.shell ? "sh/exec" : "theirs/ours");
		printf("\n");
		for (size_t k = 0; k < n_jobs; k += (size_t)n_bins) {
			printf("%-46s", jobs[k].c->name);
			print_stats_cols(&jobs[k], fs.p50, n_floor2 ? f2s.p50 : 0);
			if (n_bins > 1) {
				printf("  |");
				print_stats_cols(&jobs[k + 1], fs.p50, n_floor2 ? f2s.p50 : 0);
				if (jobs[k + 1].na) {
					printf("  n/a");
				} else {
					/* a ratio of two different answers compares different work */
					differ |= strcmp(jobs[k].answer, jobs[k + 1].answer) != 0;
					printf("  %.2f%s", jobs[k + 1].st.p50 / jobs[k].st.p50,
					       strcmp(jobs[k].answer, jobs[k + 1].answer) ? " *" : "");
				}
			}
			printf("\n");
		}
		if (differ)
			printf("* the two answered differently, so the pair did different work\n");
		{
			const job *part[5] = {NULL};

			for (size_t k = 0; k < n_jobs; k++)
				if (jobs[k].who == 0 && detect_of(jobs[k].c->repo)->sum && !jobs[k].na)
					part[detect_of(jobs[k].c->repo)->sum] = &jobs[k];
			if (part[1] && part[2] && part[3] && part[4]) {
				double u = part[1]->st.p50 + part[2]->st.p50, g = part[3]->st.p50 + part[4]->st.p50;

				printf("Bash call in %d files, pre + post p50: no intents %.0f µs (%.2f× two floors), "
				       "20 intents %.0f µs (%.2f× two floors); governed/ungoverned %.2f\n",
				       REPO_1K_FILES, u, u / (2 * fs.p50), g, g / (2 * fs.p50), g / u);
			}
		}
		for (size_t k = 0; k < n_jobs; k++)
			if (jobs[k].mismatches)
				printf("warning: %s, %s: %ld runs failed or answered other than %s\n",
				       jobs[k].c->name, bins[jobs[k].who].label, jobs[k].mismatches,
				       jobs[k].answer);
		printf("RSS: peak VmHWM of %d traced runs each; wait4's ru_maxrss read %ld-%ld KiB "
		       "over the timed runs (never below this process's own peak)\n",
		       RSS_RUNS, wait_rss_lo, wait_rss_hi);
		printf("CPU µs: p50 of the child's user + system time. (%.1f s for this table; load "
		       "average %s at its end)\n",
		       (now_us() - t_start) / 1e6, load_average(load, sizeof(load)));
	}
	fflush(stdout);
	for (size_t k = 0; k < n_jobs; k++) {
		free(jobs[k].samples);
		free(jobs[k].cpu);
	}
	free(jobs);
	free(order);
	free(floor_samples);
	free(floor_cpu);
	free(floor2_samples);
	if (!keep_work)
		rmtree(dir);
}

/* ---- the repositories governance reads ------------------------------------------------- */

/*
 * Twenty intents the way a team would keep them: an area of the code each,
 * 3-5 owned globs, two constraints, two or three acceptance criteria, a date;
 * most IN_PROGRESS, some DRAFT or COMPLETED. About 9 KB of YAML, all of which
 * a governed pre-tool-use reads and checks.
 */
static const struct {
	const char *dir, *name;
} areas[20] = {
	{"auth", "JWT authentication migration"},   {"search", "Full-text search on orders"},
	{"notify", "Email and push notifications"}, {"reports", "Monthly sales reports"},
	{"api", "Public API v2 pagination"},        {"ui", "Design tokens in the web UI"},
	{"billing", "Invoices with tax lines"},     {"payments", "Card payments through the new gateway"},
	{"inventory", "Stock levels per warehouse"}, {"shipping", "Carrier rates and labels"},
	{"i18n", "German and French translations"}, {"audit", "Audit log for admin actions"},
	{"cache", "Response cache for product pages"}, {"export", "CSV and XLSX exports"},
	{"import", "Bulk product import"},          {"accounts", "Account deletion on request"},
	{"webhooks", "Signed outgoing webhooks"},   {"scheduler", "Retries in the job scheduler"},
	{"metrics", "Service metrics and dashboards"}, {"onboarding", "Onboarding checklist"},
};

static size_t intents_yaml(char *buf, size_t cap)
{
	static const char *const status[7] = {"IN_PROGRESS", "IN_PROGRESS", "IN_PROGRESS", "DRAFT",
					      "IN_PROGRESS", "COMPLETED",   "IN_PROGRESS"};
	size_t len = 0;

#define ADD(...)                                                                                     \
	do {                                                                                         \
		int n_ = snprintf(buf + len, cap - len, __VA_ARGS__);                                \
		if (n_ < 0 || (size_t)n_ >= cap - len)                                               \
			die("the intents file does not fit");                                        \
		len += (size_t)n_;                                                                   \
	} while (0)
	ADD("active_intents:\n");
	for (int k = 0; k < 20; k++) {
		const char *d = areas[k].dir;

		ADD("  - id: INT-%03d\n    name: \"%s\"\n    status: %s\n", k + 1, areas[k].name,
		    status[k % 7]);
		ADD("    created_at: \"2025-%02d-%02dT09:%02d:00Z\"\n", 1 + k % 5, 1 + k, 10 + k);
		ADD("    owned_scope:\n      - \"src/%s/**\"\n      - \"tests/%s/**\"\n      - \"docs/%s.md\"\n",
		    d, d, d);
		if (k % 3 >= 1)
			ADD("      - \"migrations/*_%s_*.sql\"\n", d);
		if (k % 3 == 2)
			ADD("      - \"config/%s.toml\"\n", d);
		ADD("    constraints:\n      - \"Keep the public interface of src/%s/ stable\"\n      - \"%s\"\n",
		    d, k % 2 ? "No raw SQL in request handlers" : "No new runtime dependency without approval");
		ADD("    acceptance_criteria:\n      - \"Unit tests in tests/%s/ pass\"\n"
		    "      - \"docs/%s.md describes the new behaviour\"\n",
		    d, d);
		if (k % 2 == 0)
			ADD("      - \"p95 of the %s endpoints stays under 200 ms\"\n", d);
	}
#undef ADD
	return len;
}

/*
 * A repository as Claude Code works in one: a .git directory (all roz looks
 * for) and the files the tool calls name. The governed one adds
 * .orchestration/ with the intents, a short .intentignore and lessons.
 */
static void make_repo(enum repo which, const char *name)
{
	static const char tax[] = "export const vat = {\n\trate: 0.19,\n\tround: 'half-even',\n};\n";
	static const char ignore[] = "# generated files no intent owns\ndist/\n*.min.js\ncoverage/\n";
	static const char lessons[] = "# Lessons\n\n- Money is kept in cents; never round before the "
				      "invoice total.\n- The tax tables are per country, not per currency.\n";
	char *dir = repo_dirs[which], p[PATH_CAP];

	fmt_path(dir, "%s/%s", work, name);
	make_git_stub(dir);
	fmt_path(p, "%s/src", dir);
	make_dir(p);
	fmt_path(p, "%s/src/billing", dir);
	make_dir(p);
	fmt_path(p, "%s/src/billing/tax.ts", dir);
	write_file(p, tax, sizeof(tax) - 1, 0600);
	fmt_path(p, "%s/src/billing/invoice.ts", dir);
	write_file(p, "export function invoiceTotal(lines) {\n\treturn 0;\n}\n", 51, 0600);
	fmt_path(p, "%s/src/billing/notes.txt", dir);
	write_file(p, "x\n", 2, 0600);
	if (which == REPO_LEDGER) {
		fmt_path(p, "%s/.orchestration", dir);
		make_dir(p);
		fmt_path(p, "%s/.orchestration/CLAUDE.md", dir);
		write_file(p, lessons, sizeof(lessons) - 1, 0600);
	}
	if (which == REPO_GOV || which == REPO_GOV1K) {
		char yaml[16384];
		size_t n = intents_yaml(yaml, sizeof(yaml));

		fmt_path(p, "%s/.orchestration", dir);
		make_dir(p);
		fmt_path(p, "%s/.orchestration/active_intents.yaml", dir);
		write_file(p, yaml, n, 0600);
		fmt_path(p, "%s/.orchestration/.intentignore", dir);
		write_file(p, ignore, sizeof(ignore) - 1, 0600);
		fmt_path(p, "%s/.orchestration/CLAUDE.md", dir);
		write_file(p, lessons, sizeof(lessons) - 1, 0600);
	}
}

/*
 * REPO_1K_FILES small text files more, in nested directories: for each of
 * the 20 areas, src/<area>/part<0-4>/ and a lib/ below each, 5 files in
 * each directory, about 60 to 450 bytes; the same every run.
 */
static void fill_repo(enum repo which)
{
	const char *dir = repo_dirs[which];
	char p[PATH_CAP], text[640];

	for (int k = 0; k < REPO_1K_FILES; k++) {
		const char *area = areas[k % 20].dir;
		int part = (k / 20) % 5, deep = (k / 100) % 2, len = 0;

		fmt_path(p, "%s/src/%s", dir, area);
		make_dir(p);
		fmt_path(p, "%s/src/%s/part%d", dir, area, part);
		make_dir(p);
		if (deep) {
			fmt_path(p, "%s/src/%s/part%d/lib", dir, area, part);
			make_dir(p);
		}
		fmt_path(p, "%s/src/%s/part%d/%sfile%04d.txt", dir, area, part, deep ? "lib/" : "", k);
		len = snprintf(text, sizeof(text), "%s item %d\n", area, k);
		for (int line = 0; line < 1 + k % 9; line++)
			len += snprintf(text + len, sizeof(text) - (size_t)len,
					"lorem ipsum dolor sit amet, consectetur elit %d\n", line);
		write_file(p, text, (size_t)len, 0600);
	}
}

/* ---- the machine and the binaries ------------------------------------------------------------ */

static void cpu_model(char *out, size_t cap)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	snprintf(out, cap, "unknown CPU");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon) {
			snprintf(out, cap, "%s", colon + 2);
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

static void install_binary(binary *b, const char *label, const char *from)
{
	char *argv[3];
	char *envp[2] = {(char *)"PATH=/usr/bin:/bin", NULL};

	if (access(from, X_OK) < 0)
		die("%s is not an executable: %s (build roz first, or pass --roz)", from, strerror(errno));
	b->label = label;
	fmt_path(b->path, "%s/bin/%s", work, label);
	copy_file(from, b->path, 0700);
	argv[0] = b->path;
	argv[1] = (char *)"--version";
	argv[2] = NULL;
	run_proc(argv, envp, "", 0, &scratch);
	if (scratch.status != 0)
		scratch.out[0] = '\0';
	scratch.out[strcspn(scratch.out, "\n")] = '\0';
	snprintf(b->version, sizeof(b->version), "%.100s", scratch.out[0] ? scratch.out : "?");
}

int main(int argc, char **argv)
{
	char cpu[256], date[64], plugin[PATH_CAP], bindir[PATH_CAP], load[32];
	const char *tmp = getenv("TMPDIR");
	struct utsname un;
	struct rusage self;
	double t0 = now_us();
	time_t t = time(NULL);

	parse_args(argc, argv);
	check_selection();
	proc_init(opt.seed);

	fmt_path(work, "%s/roz-bench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(work))
		die("mkdtemp %s: %s", work, strerror(errno));
	fmt_path(plugin, "%s/plugin", work);
	fmt_path(bindir, "%s/bin", work);
	make_dir(plugin);
	make_dir(bindir);
	install_binary(&bins[0], "ours", opt.roz);
	n_bins = 1;
	if (opt.vs && opt.shell)
		die("--vs and --shell both name the second column; give one");
	if (opt.vs) {
		install_binary(&bins[1], "theirs", opt.vs);
		n_bins = 2;
	}
	if (opt.shell) {
		char dir[PATH_CAP];

		/* the same roz, as `roz` in a directory of its own that leads PATH */
		fmt_path(dir, "%s/bin/shell-bin", work);
		make_dir(dir);
		install_binary(&bins[1], "shell-bin/roz", opt.roz);
		bins[1].label = "sh-form";
		bins[1].shell = opt.shell;
		snprintf(bins[1].env_path, sizeof(bins[1].env_path), "PATH=%s:/usr/local/bin:/usr/bin:/bin", dir);
		n_bins = 2;
	}
	install_binary(&floor_bin, "floor", opt.floor);
	if (opt.floor2)
		install_binary(&floor2_bin, "floor2", opt.floor2);
	make_repo(REPO_PLAIN, "repo-plain");
	make_repo(REPO_GOV, "repo-gov");
	make_repo(REPO_LEDGER, "repo-ledger");
	make_repo(REPO_PLAIN1K, "repo-plain-1k");
	fill_repo(REPO_PLAIN1K);
	make_repo(REPO_GOV1K, "repo-gov-1k");
	fill_repo(REPO_GOV1K);

	cpu_model(cpu, sizeof(cpu));
	uname(&un);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	printf("%sroz hook benchmark, %s\n", opt.csv ? "# " : "", date);
	printf("%smachine: %s, %ld cores, %s %s, load average %s at start\n", opt.csv ? "# " : "", cpu,
	       sysconf(_SC_NPROCESSORS_ONLN), un.sysname, un.release, load_average(load, sizeof(load)));
	printf("%sours: %s (%s)\n", opt.csv ? "# " : "", bins[0].version, opt.roz);
	if (n_bins > 1 && opt.shell)
		printf("%ssh-form: the same roz as a shell-form hook: %s -c 'roz hook <event>'\n", opt.csv ? "# " : "",
		       opt.shell);
	else if (n_bins > 1)
		printf("%stheirs: %s (%s)\n", opt.csv ? "# " : "", bins[1].version, opt.vs);
	printf("%s%ld measured runs per case and binary after %ld warm-up rounds, interleaved with the "
	       "floor; seed %lu\n",
	       opt.csv ? "# " : "", opt.runs, opt.warmup, opt.seed);
	if (opt.csv)
		printf("size,case,binary,answer,runs,p50_us,p90_us,p99_us,cpu_p50_us,x_floor,"
		       "peak_rss_kib,mismatches\n");
	fflush(stdout);

	for (size_t k = 0; k < N_SIZES; k++)
		if (size_selected(sizes[k].key))
			run_size(&sizes[k]);

	getrusage(RUSAGE_SELF, &self);
	printf("%sbench's own peak RSS: %ld KiB (a child's ru_maxrss cannot read lower: it shares this "
	       "process's memory until exec)\n",
	       opt.csv ? "# " : "", self.ru_maxrss);
	printf("%stotal: %.1f s\n", opt.csv ? "# " : "", (now_us() - t0) / 1e6);
	if (keep_work)
		fprintf(stderr, "bench: kept %s\n", work);
	else
		rmtree(work);
	return 0;
}
