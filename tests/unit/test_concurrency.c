/*
 * test_concurrency.c - many real `roz` processes on one session at once, as
 * Claude Code runs hooks: no update is lost, the session file is valid JSON
 * at every instant, nothing is left behind, and a busy lock is waited on
 * only as long as configured.
 */
#include "support.h"

#include "roz/digest.h"
#include "roz/ledger.h"
#include "roz/session_json.h"
#include "roz/store.h"
#include "roz/tree.h"
#include "roz/watch.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Longest any batch of processes may take before the test gives up on it. */
#define BATCH_DEADLINE_MS 120000
/*
 * The lock wait of the homes whose hooks all run at once: longer than any
 * batch may take, so however slowly a loaded machine runs them, every hook
 * gets the lock, and an update lost can only be one the lock let through.
 */
#define PATIENT "\n[storage]\nlock_timeout_ms = 150000\n"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * How much later than asked a timed wait may end: a loaded machine is slow
 * to start and wake a process, valgrind (ROZ_UNDER_VALGRIND) far slower.
 */
static int64_t late_ms(void)
{
	const char *v = getenv("ROZ_UNDER_VALGRIND");

	return v && *v && strcmp(v, "0") != 0 ? 20000 : 2000;
}

/* A throwaway ROZ_HOME with its config, and a place for each child's stdin, stdout and stderr. */
typedef struct home {
	char *dir;
	char *sessions;
	char *io;
	char *file; /* sessions/<id>.json */
	const char *id;
} home;

static void home_make(home *h, const char *id, const char *config)
{
	char *path;

	h->dir = t_mkdtemp();
	h->sessions = t_sprintf("%s/sessions", h->dir);
	h->io = t_sprintf("%s/io", h->dir);
	h->file = t_sprintf("%s/%s.json", h->sessions, id);
	h->id = id;
	assert_int_equal(mkdir(h->io, 0700), 0);
	path = t_sprintf("%s/config.toml", h->dir);
	t_write_file(path, config);
	free(path);
}

static void home_dispose(home *h)
{
	t_rmtree(h->dir);
	free(h->dir);
	free(h->sessions);
	free(h->io);
	free(h->file);
}

/* One roz process started by the test. */
typedef struct proc {
	pid_t pid;
	int status; /* exit status, 128+signal, -1 while running */
	int idx;    /* names its files in io/ */
	int kind;
	char label[96];
} proc;

/*
 * Start `roz <args...>` with stdin_text on its stdin and its output in
 * io/out-<idx> and io/err-<idx>. The environment is built from scratch so
 * nothing of the caller's (ROZ_CONFIG, ROZ_STORAGE_PATH, ...) leaks in.
 */
static pid_t spawn_roz(const home *h, int idx, const char *stdin_text, const char *const *args)
{
	char *in = t_sprintf("%s/in-%d", h->io, idx), *out = t_sprintf("%s/out-%d", h->io, idx);
	char *err = t_sprintf("%s/err-%d", h->io, idx);
	char *argv[16], *envp[5];
	int n = 0;
	pid_t pid;

	t_write_file(in, stdin_text ? stdin_text : "");
	argv[n++] = t_sprintf("%s", ROZ_BINARY);
	for (; args[n - 1] && n < 15; n++)
		argv[n] = t_sprintf("%s", args[n - 1]);
	argv[n] = NULL;
	envp[0] = t_sprintf("PATH=%s", "/usr/bin:/bin");
	envp[1] = t_sprintf("HOME=%s", h->dir);
	envp[2] = t_sprintf("ROZ_HOME=%s", h->dir);
	envp[3] = t_sprintf("ROZ_WATCH_IDLE_S=60"); /* a watcher a hook starts outlives the test by at most this */
	envp[4] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd0 = open(in, O_RDONLY);
		int fd1 = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fd2 = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd0 < 0 || fd1 < 0 || fd2 < 0 || dup2(fd0, 0) < 0 || dup2(fd1, 1) < 0 || dup2(fd2, 2) < 0)
			_exit(126);
		execve(ROZ_BINARY, argv, envp);
		_exit(127);
	}
	for (int i = 0; i < n; i++)
		free(argv[i]);
	for (int i = 0; i < 4; i++)
		free(envp[i]);
	free(in);
	free(out);
	free(err);
	return pid;
}

/* What process idx printed on stream "out" or "err", trailing white space removed. Caller frees. */
static char *captured(const home *h, int idx, const char *stream)
{
	char *path = t_sprintf("%s/%s-%d", h->io, stream, idx), *text = t_read_file(path, NULL);
	size_t n;

	if (!text)
		fail_msg("no %s captured for process %d", stream, idx);
	n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	free(path);
	return text;
}

/* The session file must exist and be one JSON object for this session, whenever it is read. */
static void check_file_is_json(const home *h, int read_no)
{
	char *text = t_read_file(h->file, NULL);
	const char *sid;
	cJSON *doc;

	if (!text)
		fail_msg("read %d: the session file %s was missing", read_no, h->file);
	doc = cJSON_Parse(text);
	if (!cJSON_IsObject(doc))
		fail_msg("read %d: the session file is not a JSON object:\n%.300s", read_no, text);
	sid = cJSON_GetStringValue(cJSON_GetObjectItem(doc, "session_id"));
	if (!sid || strcmp(sid, h->id) != 0)
		fail_msg("read %d: the session file names another session", read_no);
	cJSON_Delete(doc);
	free(text);
}

static void kill_all(proc *ps, int n)
{
	for (int i = 0; i < n; i++) {
		if (ps[i].status < 0) {
			kill(ps[i].pid, SIGKILL);
			waitpid(ps[i].pid, NULL, 0);
		}
	}
}

/*
 * Reap every process, reading and parsing the session file over and over
 * while they run. Returns how many reads were made.
 */
static int wait_all_reading(const home *h, proc *ps, int n)
{
	int64_t deadline = now_ms() + BATCH_DEADLINE_MS;
	int left = n, reads = 0;

	while (left > 0) {
		check_file_is_json(h, ++reads);
		for (int i = 0; i < n; i++) {
			int st;
			pid_t r;

			if (ps[i].status >= 0)
				continue;
			r = waitpid(ps[i].pid, &st, WNOHANG);
			if (r < 0)
				fail_msg("waitpid: %s", strerror(errno));
			if (r == 0)
				continue;
			ps[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			left--;
		}
		if (left && now_ms() > deadline) {
			kill_all(ps, n);
			fail_msg("%d of %d roz processes still running after %d s", left, n,
				 BATCH_DEADLINE_MS / 1000);
		}
		sleep_us(300);
	}
	check_file_is_json(h, ++reads);
	return reads;
}

/*
 * The whole session as the store reads it back (state and trace, every
 * event: these homes set a cap far above what the tests write), as JSON.
 */
static cJSON *load_doc(const home *h)
{
	roz_store *store = NULL;
	roz_session *s = NULL;
	roz_buf b = ROZ_BUF_INIT;
	char *text = t_read_file(h->file, NULL);
	cJSON *doc;
	int rc;

	/* the state file on its own is JSON roz reads back */
	assert_non_null(text);
	doc = cJSON_Parse(text);
	assert_true(cJSON_IsObject(doc));
	cJSON_Delete(doc);
	free(text);
	assert_int_equal(roz_store_file_open(h->dir, NULL, &store), ROZ_OK);
	roz_store_set_trace_cap(store, 100000);
	rc = roz_store_get(store, h->id, &s);
	if (rc != ROZ_OK)
		fail_msg("roz cannot read the final session back: %s (%s)", roz_error_name(rc), roz_error_last());
	assert_int_equal(roz_session_json_write(s, &b), ROZ_OK);
	doc = cJSON_Parse(roz_buf_cstr(&b));
	assert_true(cJSON_IsObject(doc));
	roz_buf_dispose(&b);
	roz_session_free(s);
	roz_store_free(store);
	return doc;
}

static const char *event_type(const cJSON *ev)
{
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "event_type"));

	return t ? t : "";
}

static int count_events(const cJSON *trace, const char *type)
{
	const cJSON *ev;
	int n = 0;

	cJSON_ArrayForEach(ev, trace) {
		if (strcmp(event_type(ev), type) == 0)
			n++;
	}
	return n;
}

/* Every event id is distinct: an event written twice would mean an update applied twice. */
static void expect_unique_ids(const cJSON *trace)
{
	int n = cJSON_GetArraySize(trace);

	for (int i = 0; i < n; i++) {
		const char *a = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(trace, i), "id"));

		assert_non_null(a);
		for (int j = i + 1; j < n; j++) {
			const char *b = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(trace, j), "id"));

			if (b && strcmp(a, b) == 0)
				fail_msg("trace events %d and %d share the id %s", i, j, a);
		}
	}
}

/* Nothing but the session, its trace and its lock file: no temp file from a write. */
static void expect_only_session_file(const home *h)
{
	char *want = t_sprintf("%s.json", h->id), *lockf = t_sprintf("%s.lock", h->id);
	char *trace = t_sprintf("%s.trace.jsonl", h->id);
	struct dirent *de;
	DIR *d = opendir(h->sessions);
	int found = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strcmp(de->d_name, lockf) == 0 || strcmp(de->d_name, trace) == 0)
			continue;
		if (strcmp(de->d_name, want) != 0) {
			closedir(d);
			fail_msg("left behind in %s: %s", h->sessions, de->d_name);
		}
		found++;
	}
	closedir(d);
	assert_int_equal(found, 1);
	free(want);
	free(lockf);
	free(trace);
}

static void run_ok(const home *h, const char *stdin_text, const char *const *args, t_run *r)
{
	char *env0 = t_sprintf("ROZ_HOME=%s", h->dir);
	const char *env[] = {env0, NULL};

	t_run_roz(r, stdin_text, env, args);
	free(env0);
}

static void session_start(const home *h)
{
	char *in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/tmp\",\"source\":\"startup\"}", h->id);
	const char *args[] = {"hook", "session-start", NULL};
	t_run r;

	run_ok(h, in, args, &r);
	if (r.status != 0)
		fail_msg("session-start exited %d: %s", r.status, r.err);
	check_file_is_json(h, 0);
	t_run_dispose(&r);
	free(in);
}

/* ---- 64 prompts at once ----------------------------------------------------------- */

#define N_PROMPTS 64

static void test_parallel_prompts_lose_nothing(void **state)
{
	home h;
	proc ps[N_PROMPTS];
	const char *args[] = {"hook", "user-prompt", NULL};
	bool seen[N_PROMPTS] = {false};
	const cJSON *trace, *prompts, *ev;
	const char *order[N_PROMPTS];
	cJSON *doc;
	int n = 0, reads;

	(void)state;
	home_make(&h, "conc-64", "[trace]\nmax_events = 100000\n" PATIENT);
	session_start(&h);
	/* every process is started before any is waited on */
	for (int i = 0; i < N_PROMPTS; i++) {
		char *in = t_sprintf("{\"session_id\":\"conc-64\",\"cwd\":\"/tmp\",\"prompt\":\"#roz task %d\"}", i);

		ps[i].pid = spawn_roz(&h, i, in, args);
		ps[i].status = -1;
		ps[i].idx = i;
		free(in);
	}
	reads = wait_all_reading(&h, ps, N_PROMPTS);
	assert_true(reads > 1);
	for (int i = 0; i < N_PROMPTS; i++) {
		char *out = captured(&h, i, "out"), *err = captured(&h, i, "err");

		if (ps[i].status != 0 || strcmp(out, "{}") != 0 || *err)
			fail_msg("prompt %d: exit %d, stdout '%s', stderr '%s'", i, ps[i].status, out, err);
		free(out);
		free(err);
	}

	doc = load_doc(&h);
	trace = cJSON_GetObjectItem(doc, "trace");
	assert_true(cJSON_IsArray(trace));
	cJSON_ArrayForEach(ev, trace) {
		const char *p;
		int k = -1, used = 0;

		if (strcmp(event_type(ev), "prompt_received") != 0)
			continue;
		p = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "payload"), "prompt"));
		if (!p || sscanf(p, "#roz task %d%n", &k, &used) != 1 || p[used] || k < 0 || k >= N_PROMPTS)
			fail_msg("unexpected prompt in the trace: %s", p ? p : "(none)");
		if (seen[k])
			fail_msg("prompt %d recorded twice", k);
		seen[k] = true;
		order[n++] = p;
	}
	for (int i = 0; i < N_PROMPTS; i++)
		if (!seen[i])
			fail_msg("prompt %d was lost (%d of %d recorded)", i, n, N_PROMPTS);
	assert_int_equal(n, N_PROMPTS);
	/* the session start plus one event per prompt, nothing else */
	assert_int_equal(cJSON_GetArraySize(trace), N_PROMPTS + 1);
	assert_int_equal(count_events(trace, "session_start"), 1);
	expect_unique_ids(trace);

	/* the stored prompts are the latest 50, in the order they were applied */
	prompts = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "review"), "user_prompts");
	assert_true(cJSON_IsArray(prompts));
	assert_int_equal(cJSON_GetArraySize(prompts), ROZ_MAX_PROMPTS);
	for (int i = 0; i < ROZ_MAX_PROMPTS; i++) {
		const char *p = cJSON_GetStringValue(cJSON_GetArrayItem(prompts, i));

		assert_non_null(p);
		if (strcmp(p, order[N_PROMPTS - ROZ_MAX_PROMPTS + i]) != 0)
			fail_msg("user_prompts[%d] is '%s', expected '%s'", i, p,
				 order[N_PROMPTS - ROZ_MAX_PROMPTS + i]);
	}
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "review"), "enabled")));
	expect_only_session_file(&h);
	cJSON_Delete(doc);
	home_dispose(&h);
}

/* ---- every kind of writer at once --------------------------------------------------- */

enum {
	K_PROMPT,       /* "#roz ..." prompt: prompt_received */
	K_PLAIN_PROMPT, /* a prompt without #roz: saved, no event */
	K_STOP,         /* stop_hook_called */
	K_GATED,        /* gate_blocked or gate_allowed */
	K_UNGATED,      /* a tool no gate covers: the session is not even opened */
	K_END,          /* session_end */
	K_DECIDE,       /* roz decide: roz_decision */
	K_START,        /* session-start on an existing session: nothing */
	K__COUNT
};

static const int kind_events[K__COUNT] = {1, 0, 1, 1, 0, 1, 1, 0};

static pid_t spawn_kind(const home *h, int idx, int kind, int round, char *label, size_t label_size)
{
	const char *hook = NULL;
	char *in = NULL;
	pid_t pid;

	switch (kind) {
	case K_PROMPT:
		hook = "user-prompt";
		in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/tmp\",\"prompt\":\"#roz round %d job %d\"}",
			       h->id, round, idx);
		break;
	case K_PLAIN_PROMPT:
		hook = "user-prompt";
		in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/tmp\",\"prompt\":\"what is %d?\"}", h->id, idx);
		break;
	case K_STOP:
		hook = "stop";
		in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/tmp\",\"stop_hook_active\":false}", h->id);
		break;
	case K_GATED:
	case K_UNGATED:
		hook = "pre-tool-use";
		in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/tmp\",\"tool_name\":\"Bash\","
			       "\"tool_input\":{\"command\":\"%s\"}}",
			       h->id, kind == K_GATED ? "git push origin main" : "ls -la");
		break;
	case K_END:
		hook = "session-end";
		in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/tmp\",\"reason\":\"other\"}", h->id);
		break;
	case K_START:
		hook = "session-start";
		in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/tmp\",\"source\":\"resume\"}", h->id);
		break;
	default:
		break;
	}
	if (kind == K_DECIDE) {
		const char *args[] = {"decide", h->id, "COMPLETE", "ok", NULL};

		snprintf(label, label_size, "round %d: roz decide %s COMPLETE", round, h->id);
		return spawn_roz(h, idx, NULL, args);
	}
	{
		const char *args[] = {"hook", hook, NULL};

		snprintf(label, label_size, "round %d: roz hook %s (kind %d)", round, hook, kind);
		pid = spawn_roz(h, idx, in, args);
	}
	free(in);
	return pid;
}

#define ROUNDS 8
#define PER_ROUND 32

static void test_mixed_writers_lose_nothing(void **state)
{
	home h;
	proc ps[PER_ROUND];
	int launched[K__COUNT] = {0}, expected = 1; /* the session_start event */
	const cJSON *trace;
	cJSON *doc;

	(void)state;
	/* verdicts here come from plain `roz decide` runs; trusting them keeps the event count exact */
	home_make(&h, "mix", "[trace]\nmax_events = 100000\n\n[review]\nrequire_reviewer = false\n\n"
			     "[review.gates]\ntools = [\"Bash:git push*\"]\n" PATIENT);
	session_start(&h);
	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < PER_ROUND; i++) {
			/* rotate so every round starts a different mix in a different order */
			int kind = (i * 3 + round) % K__COUNT;

			ps[i].kind = kind;
			ps[i].idx = round * PER_ROUND + i;
			ps[i].status = -1;
			ps[i].pid = spawn_kind(&h, ps[i].idx, kind, round, ps[i].label, sizeof(ps[i].label));
			launched[kind]++;
			expected += kind_events[kind];
		}
		wait_all_reading(&h, ps, PER_ROUND);
		for (int i = 0; i < PER_ROUND; i++) {
			char *out = captured(&h, ps[i].idx, "out"), *err = captured(&h, ps[i].idx, "err");

			if (ps[i].status != 0)
				fail_msg("%s exited %d: %s", ps[i].label, ps[i].status, err);
			/* a lock that could not be had would have cost an update */
			if (strstr(err, "timed out") || strstr(err, "corrupt") || strstr(err, "cannot"))
				fail_msg("%s warned: %s", ps[i].label, err);
			if (ps[i].kind == K_DECIDE) {
				assert_string_equal(out, "Recorded COMPLETE for session mix.");
			} else {
				cJSON *answer = cJSON_Parse(out);

				if (!cJSON_IsObject(answer))
					fail_msg("%s answered something that is not a JSON object: '%s'",
						 ps[i].label, out);
				cJSON_Delete(answer);
			}
			if (ps[i].kind == K_UNGATED || ps[i].kind == K_PLAIN_PROMPT || ps[i].kind == K_END)
				assert_string_equal(out, "{}");
			free(out);
			free(err);
		}
	}
	/* the rotation really did mix every kind */
	for (int k = 0; k < K__COUNT; k++)
		assert_true(launched[k] >= ROUNDS * PER_ROUND / K__COUNT - 1);

	doc = load_doc(&h);
	trace = cJSON_GetObjectItem(doc, "trace");
	assert_true(cJSON_IsArray(trace));
	if (cJSON_GetArraySize(trace) != expected)
		fail_msg("the trace holds %d events, expected %d", cJSON_GetArraySize(trace), expected);
	assert_int_equal(count_events(trace, "session_start"), 1);
	assert_int_equal(count_events(trace, "prompt_received"), launched[K_PROMPT]);
	assert_int_equal(count_events(trace, "stop_hook_called"), launched[K_STOP]);
	assert_int_equal(count_events(trace, "gate_blocked") + count_events(trace, "gate_allowed"),
			 launched[K_GATED]);
	assert_int_equal(count_events(trace, "session_end"), launched[K_END]);
	assert_int_equal(count_events(trace, "roz_decision"), launched[K_DECIDE]);
	expect_unique_ids(trace);
	/* every verdict went into the history (capped at its limit) */
	{
		const cJSON *hist = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "review"), "decision_history");
		int want = launched[K_DECIDE] < ROZ_MAX_HISTORY ? launched[K_DECIDE] : ROZ_MAX_HISTORY;

		assert_int_equal(cJSON_GetArraySize(hist), want);
	}
	expect_only_session_file(&h);
	cJSON_Delete(doc);
	home_dispose(&h);
}

/* ---- governance: one session's state, many hooks ----------------------------------------- */

/*
 * In a repository that declares intents, 64 hooks of one session at once:
 * half remember a file they read (PostToolUse), half are changes in scope
 * (PreToolUse) after one selection. Every file is remembered with its hash,
 * every change is allowed, the selection is traced once, nothing refused.
 */
#define GOV_PARALLEL 64
static void test_parallel_governed_hooks_lose_nothing(void **state)
{
	home h;
	proc ps[GOV_PARALLEL];
	char *repo = t_mkdtemp(), *path, *sel;
	const char *const hook_pre[] = {"hook", "pre-tool-use", NULL};
	const char *const hook_post[] = {"hook", "post-tool-use", NULL};
	const cJSON *gov, *files, *trace;
	cJSON *doc;
	t_run r;

	(void)state;
	home_make(&h, "gov", "[trace]\nmax_events = 100000\n" PATIENT);
	path = t_sprintf("%s/.git/HEAD", repo);
	t_write_file(path, "ref: refs/heads/main\n");
	free(path);
	path = t_sprintf("%s/.orchestration/active_intents.yaml", repo);
	t_write_file(path, "active_intents:\n  - id: INT-001\n    name: One\n    status: IN_PROGRESS\n"
			   "    owned_scope: [\"src/**\"]\n");
	free(path);
	for (int i = 0; i < GOV_PARALLEL; i++) {
		char *f = t_sprintf("%s/src/read-%d.c", repo, i), *body = t_sprintf("file %d\n", i);

		t_write_file(f, body);
		free(f);
		free(body);
	}
	session_start(&h);
	sel = t_sprintf("{\"session_id\":\"gov\",\"cwd\":\"%s\",\"tool_name\":\"Bash\","
			"\"tool_input\":{\"command\":\"roz intent select INT-001\"}}",
			repo);
	run_ok(&h, sel, hook_pre, &r);
	assert_string_equal(r.out, "{}\n");
	free(r.out);
	free(r.err);
	free(sel);
	for (int i = 0; i < GOV_PARALLEL; i++) {
		char *in;

		if (i % 2)
			in = t_sprintf("{\"session_id\":\"gov\",\"cwd\":\"%s\",\"tool_name\":\"Read\","
				       "\"tool_input\":{\"file_path\":\"%s/src/read-%d.c\"}}",
				       repo, repo, i);
		else
			in = t_sprintf("{\"session_id\":\"gov\",\"cwd\":\"%s\",\"tool_name\":\"Write\","
				       "\"tool_input\":{\"file_path\":\"src/new-%d.c\",\"content\":\"x\"}}",
				       repo, i);
		ps[i].idx = i;
		ps[i].status = -1;
		ps[i].kind = i % 2;
		snprintf(ps[i].label, sizeof(ps[i].label), "%s #%d", i % 2 ? "post-tool-use Read" : "pre-tool-use Write", i);
		ps[i].pid = spawn_roz(&h, i, in, i % 2 ? hook_post : hook_pre);
		free(in);
	}
	wait_all_reading(&h, ps, GOV_PARALLEL);
	for (int i = 0; i < GOV_PARALLEL; i++) {
		char *out = captured(&h, i, "out"), *err = captured(&h, i, "err");

		if (ps[i].status != 0 || strcmp(out, "{}") != 0 || err[0])
			fail_msg("%s: exit %d, answered '%s', stderr '%s'", ps[i].label, ps[i].status, out, err);
		free(out);
		free(err);
	}
	doc = load_doc(&h);
	gov = cJSON_GetObjectItem(doc, "governance");
	files = cJSON_GetObjectItem(gov, "files");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(gov, "intent_id")), "INT-001");
	assert_int_equal(cJSON_GetArraySize(files), GOV_PARALLEL / 2);
	for (int i = 1; i < GOV_PARALLEL; i += 2) {
		char *want = t_sprintf("%s/src/read-%d.c", repo, i), *body = t_sprintf("file %d\n", i);
		char hash[65];
		const cJSON *f;
		bool found = false;

		roz_digest_sha256_hex(body, strlen(body), hash);
		cJSON_ArrayForEach(f, files)
			if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "path")), want) == 0) {
				assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(f, "sha256")), hash);
				found = true;
			}
		if (!found)
			fail_msg("%s was read but is not remembered", want);
		free(want);
		free(body);
	}
	trace = cJSON_GetObjectItem(doc, "trace");
	assert_int_equal(count_events(trace, "intent_selected"), 1);
	assert_int_equal(count_events(trace, "governance_refused"), 0);
	expect_only_session_file(&h);
	cJSON_Delete(doc);
	home_dispose(&h);
	t_rmtree(repo);
	free(repo);
}

/*
 * Detection under load: after one call took the snapshot, 32 files are made
 * in scope and 32 outside it, and 64 PostToolUse hooks of the session run at
 * once. Whichever compares first finds all of it; none loses a change or
 * tells one twice: the session keeps exactly the 32 out-of-scope files as
 * violations, the snapshot left behind loads whole and holds every file,
 * and no temporary snapshot is left.
 */
/* Each copy under trees/<name>/ is whole: its header's size is what follows; no temporary is left. */
static void check_copies(const char *trees, const char *name)
{
	char *dir = t_sprintf("%s/%s", trees, name);
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char *f, *text, *nl;
		size_t len = 0;
		unsigned long long mtime, size, ino;

		if (de->d_name[0] == '.')
			continue;
		if (strstr(de->d_name, ".tmp"))
			fail_msg("a half-written copy in %s: %s", name, de->d_name);
		f = t_sprintf("%s/%s", dir, de->d_name);
		text = t_read_file(f, &len);
		assert_non_null(text);
		assert_non_null(nl = memchr(text, '\n', len));
		assert_int_equal(sscanf(text, "roz-shadow 1 %llu %llu %llu", &mtime, &size, &ino), 3);
		assert_int_equal(size, len - (size_t)(nl + 1 - text));
		free(text);
		free(f);
	}
	closedir(d);
	free(dir);
}

/*
 * 64 PostToolUse hooks of one session at once after a line that made 64
 * files, half out of scope: told once, each violation kept once, one
 * snapshot, whole. Run with detection walking the tree and with it asking
 * the repository's watcher (started before the session's first call).
 */
static void parallel_detection(bool watched)
{
	home h;
	proc ps[GOV_PARALLEL];
	char *repo = t_mkdtemp(), *path, *in, *trees;
	const char *const hook_pre[] = {"hook", "pre-tool-use", NULL};
	const char *const hook_post[] = {"hook", "post-tool-use", NULL};
	const cJSON *viol, *v;
	cJSON *doc;
	roz_tree t;
	DIR *d;
	struct dirent *de;
	int nsnap = 0, blocks = 0;
	t_run r;
	char root[PATH_MAX];
	pid_t watcher = -1;

	home_make(&h, "det",
		  watched ? "[trace]\nmax_events = 100000\n[governance]\ndetect_watch = true\n" PATIENT
			  : "[trace]\nmax_events = 100000\n[governance]\ndetect_watch = false\n" PATIENT);
	assert_non_null(realpath(repo, root));
	path = t_sprintf("%s/.git/HEAD", repo);
	t_write_file(path, "ref: refs/heads/main\n");
	free(path);
	path = t_sprintf("%s/.orchestration/active_intents.yaml", repo);
	t_write_file(path, "active_intents:\n  - id: INT-001\n    name: One\n    status: IN_PROGRESS\n"
			   "    owned_scope: [\"src/**\"]\n");
	free(path);
	path = t_sprintf("%s/src/keep.c", repo);
	t_write_file(path, "keep\n");
	free(path);
	if (watched) {
		roz_watch_answer a;
		int rc = ROZ_ENOTFOUND;

		watcher = fork();
		assert_true(watcher >= 0);
		if (watcher == 0) {
			char *argv[] = {strdup("roz"), strdup("watch"), root, h.dir, NULL};

			setenv("ROZ_WATCH_IDLE_S", "60", 1);
			if (freopen("/dev/null", "w", stdout) && freopen("/dev/null", "w", stderr))
				execv(ROZ_BINARY, argv);
			_exit(127);
		}
		for (int i = 0; i < 500 && rc == ROZ_ENOTFOUND; i++)
			if ((rc = roz_watch_ask(root, 0, 0, 1000, &a)) == ROZ_ENOTFOUND)
				usleep(10000);
		assert_int_equal(rc, ROZ_OK);
		roz_watch_answer_dispose(&a);
	}
	session_start(&h);
	in = t_sprintf("{\"session_id\":\"det\",\"cwd\":\"%s\",\"tool_name\":\"Bash\","
		       "\"tool_input\":{\"command\":\"roz intent select INT-001\"}}",
		       repo);
	run_ok(&h, in, hook_pre, &r);
	assert_string_equal(r.out, "{}\n");
	free(r.out);
	free(r.err);
	free(in);
	for (int i = 0; i < GOV_PARALLEL; i++) {
		char *f = t_sprintf("%s/%s/gen-%d.c", repo, i % 2 ? "docs" : "src", i);

		t_write_file(f, "generated\n");
		free(f);
	}
	for (int i = 0; i < GOV_PARALLEL; i++) {
		in = t_sprintf("{\"session_id\":\"det\",\"cwd\":\"%s\",\"tool_name\":\"Bash\","
			       "\"tool_input\":{\"command\":\"sh gen.sh %d\"}}",
			       repo, i);
		ps[i].idx = i;
		ps[i].status = -1;
		ps[i].kind = 0;
		snprintf(ps[i].label, sizeof(ps[i].label), "post-tool-use Bash #%d", i);
		ps[i].pid = spawn_roz(&h, i, in, hook_post);
		free(in);
	}
	wait_all_reading(&h, ps, GOV_PARALLEL);
	for (int i = 0; i < GOV_PARALLEL; i++) {
		char *out = captured(&h, i, "out"), *err = captured(&h, i, "err");

		if (ps[i].status != 0 || err[0])
			fail_msg("%s: exit %d, stderr '%s'", ps[i].label, ps[i].status, err);
		if (strstr(out, "\"decision\":\"block\""))
			blocks++;
		else if (strcmp(out, "{}") != 0)
			fail_msg("%s answered '%s'", ps[i].label, out);
		free(out);
		free(err);
	}
	/* told once, by whichever compared first */
	assert_int_equal(blocks, 1);
	doc = load_doc(&h);
	viol = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "governance"), "violations");
	assert_int_equal(cJSON_GetArraySize(viol), GOV_PARALLEL / 2);
	cJSON_ArrayForEach(v, viol) {
		const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(v, "path"));

		assert_non_null(p);
		assert_int_equal(strncmp(p, "docs/gen-", 9), 0);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(v, "code")), "SCOPE_VIOLATION");
	}
	cJSON_Delete(doc);
	/* one snapshot, whole, with every file; nothing half written beside it */
	trees = t_sprintf("%s/trees", h.dir);
	assert_non_null(d = opendir(trees));
	while ((de = readdir(d)) != NULL) {
		char *f;

		if (de->d_name[0] == '.')
			continue;
		if (strstr(de->d_name, ".files") && !strstr(de->d_name, ".tmp")) {
			/* the copies of what the session's calls left: whole, none half written */
			check_copies(trees, de->d_name);
			continue;
		}
		if (strncmp(de->d_name, "watch-", 6) == 0 &&
		    (strstr(de->d_name, ".start") || strstr(de->d_name, ".off")))
			continue; /* when a watcher was last started, or why it could not watch */
		if (!strstr(de->d_name, ".tree") || strstr(de->d_name, ".tmp"))
			fail_msg("a stray file in trees/: %s", de->d_name);
		nsnap++;
		f = t_sprintf("%s/%s", trees, de->d_name);
		assert_int_equal(roz_tree_load(f, &t), ROZ_OK);
		for (int i = 0; i < GOV_PARALLEL; i++) {
			char *rel = t_sprintf("%s/gen-%d.c", i % 2 ? "docs" : "src", i);

			if (!roz_tree_find(&t, rel))
				fail_msg("the snapshot lacks %s", rel);
			free(rel);
		}
		if (watched && t.watch_id == 0)
			fail_msg("the snapshot was not stamped by the watcher: the hooks did not ask it");
		roz_tree_dispose(&t);
		free(f);
	}
	closedir(d);
	assert_int_equal(nsnap, 1);
	free(trees);
	home_dispose(&h);
	t_rmtree(repo);
	free(repo);
	if (watcher > 0) {
		int st;

		/* its root gone, it ends */
		for (int i = 0; i < 500 && waitpid(watcher, &st, WNOHANG) != watcher; i++)
			usleep(10000);
	}
}

static void test_parallel_detection_loses_nothing(void **state)
{
	(void)state;
	parallel_detection(false);
}

static void test_parallel_detection_with_the_watcher_loses_nothing(void **state)
{
	(void)state;
	parallel_detection(true);
}

/*
 * 64 PostToolUse hooks of two sessions at once, each recording a write in
 * the same ledger: 64 lines, every one a whole record that reads back, each
 * write recorded once.
 */
static void test_parallel_ledger_appends_are_whole(void **state)
{
	home h;
	proc ps[GOV_PARALLEL];
	char *repo = t_mkdtemp(), *path, *text, *line, *nl;
	const char *const hook_post[] = {"hook", "post-tool-use", NULL};
	bool seen[GOV_PARALLEL] = {false};
	int lines = 0;

	(void)state;
	home_make(&h, "ledger-a", "[trace]\nmax_events = 100000\n" PATIENT);
	path = t_sprintf("%s/.git/HEAD", repo);
	t_write_file(path, "ref: refs/heads/main\n");
	free(path);
	path = t_sprintf("%s/.orchestration/CLAUDE.md", repo);
	t_write_file(path, "# Lessons\n");
	free(path);
	session_start(&h); /* the file the checks read while the hooks run */
	for (int i = 0; i < GOV_PARALLEL; i++) {
		/* files of different sizes, some larger than a pipe's atomic write */
		size_t n = 64 + (size_t)i * 300;
		char *f = t_sprintf("%s/src/f%d.c", repo, i), *body = calloc(1, n + 1);

		for (size_t k = 0; k < n; k++)
			body[k] = k % 50 == 49 ? '\n' : (char)('a' + (i + (int)k) % 26);
		t_write_file(f, body);
		free(f);
		free(body);
	}
	for (int i = 0; i < GOV_PARALLEL; i++) {
		char *in = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"%s\",\"tool_name\":\"Write\","
				     "\"tool_input\":{\"file_path\":\"%s/src/f%d.c\",\"content\":\"x\"}}",
				     i % 2 ? "ledger-a" : "ledger-b", repo, repo, i);

		ps[i].idx = i;
		ps[i].status = -1;
		ps[i].kind = 0;
		snprintf(ps[i].label, sizeof(ps[i].label), "post-tool-use Write #%d", i);
		ps[i].pid = spawn_roz(&h, i, in, hook_post);
		free(in);
	}
	wait_all_reading(&h, ps, GOV_PARALLEL);
	for (int i = 0; i < GOV_PARALLEL; i++) {
		char *out = captured(&h, i, "out"), *err = captured(&h, i, "err");

		if (ps[i].status != 0 || strcmp(out, "{}") != 0 || err[0])
			fail_msg("%s: exit %d, answered '%s', stderr '%s'", ps[i].label, ps[i].status, out, err);
		free(out);
		free(err);
	}
	path = t_sprintf("%s/.orchestration/agent_trace.jsonl", repo);
	text = t_read_file(path, NULL);
	assert_non_null(text);
	assert_int_equal(text[strlen(text) - 1], '\n');
	for (line = text; *line; line = nl + 1) {
		roz_ledger_rec rec;
		int f = -1;

		nl = strchr(line, '\n');
		assert_non_null(nl);
		if (roz_ledger_line_parse(line, (size_t)(nl - line), &rec) != ROZ_OK)
			fail_msg("line %d is not a whole record: %.*s", lines + 1, (int)(nl - line), line);
		assert_int_equal(rec.nfiles, 1);
		assert_int_equal(sscanf(rec.files[0].path, "src/f%d.c", &f), 1);
		assert_true(f >= 0 && f < GOV_PARALLEL && !seen[f]);
		seen[f] = true;
		assert_string_equal(rec.session_id, f % 2 ? "ledger-a" : "ledger-b");
		roz_ledger_rec_dispose(&rec);
		lines++;
	}
	assert_int_equal(lines, GOV_PARALLEL);
	free(text);
	free(path);
	home_dispose(&h);
	t_rmtree(repo);
	free(repo);
}

/* ---- a lock held too long --------------------------------------------------------------- */

static void test_busy_lock_bounded_wait(void **state)
{
	home h;
	roz_store *store = NULL;
	roz_lock *lock = NULL;
	char *before, *in;
	const char *stop[] = {"hook", "stop", NULL};
	const char *decide[] = {"decide", "held", "COMPLETE", "ok", NULL};
	const cJSON *trace;
	cJSON *doc;
	int64_t t0, elapsed;
	t_run r;

	(void)state;
	home_make(&h, "held", "[storage]\nlock_timeout_ms = 300\n");
	session_start(&h);
	before = t_read_file(h.file, NULL);
	assert_non_null(before);
	in = t_sprintf("{\"session_id\":\"held\",\"cwd\":\"/tmp\",\"stop_hook_active\":false}");

	/* the test process holds the session, as a hung hook would */
	assert_int_equal(roz_store_file_open(h.dir, NULL, &store), ROZ_OK);
	assert_int_equal(roz_store_lock(store, "held", 1000, &lock), ROZ_OK);

	t0 = now_ms();
	run_ok(&h, in, stop, &r);
	elapsed = now_ms() - t0;
	if (r.status != 0)
		fail_msg("stop on a busy session exited %d: %s", r.status, r.err);
	assert_string_equal(r.out, "{}\n");
	/* it waited for the lock (not some other failure) as long as configured, and said so */
	if (!strstr(r.err, "roz: warning:") || !strstr(r.err, "timed out after 300 ms waiting for the lock"))
		fail_msg("stop on a busy session did not warn of its 300 ms wait for the lock; stderr: '%s'", r.err);
	if (elapsed < 250 || elapsed >= 300 + late_ms())
		fail_msg("stop on a busy session took %lld ms; lock_timeout_ms is 300", (long long)elapsed);
	t_run_dispose(&r);
	/* it did not write without the lock */
	{
		char *now = t_read_file(h.file, NULL);

		assert_non_null(now);
		assert_string_equal(now, before);
		free(now);
	}

	/* a verdict cannot be recorded either: it fails, visibly and in bounded time */
	t0 = now_ms();
	run_ok(&h, NULL, decide, &r);
	elapsed = now_ms() - t0;
	assert_int_not_equal(r.status, 0);
	if (!strstr(r.err, "timed out after 300 ms waiting for the lock"))
		fail_msg("decide on a busy session did not tell of its 300 ms wait for the lock; stderr: '%s'", r.err);
	if (elapsed < 250 || elapsed >= 300 + late_ms())
		fail_msg("decide on a busy session took %lld ms; lock_timeout_ms is 300", (long long)elapsed);
	t_run_dispose(&r);

	/* once released, the next hook goes through */
	roz_store_unlock(store, lock);
	run_ok(&h, in, stop, &r);
	if (r.status != 0 || strcmp(r.out, "{}\n") != 0 || *r.err)
		fail_msg("stop after the lock was released: exit %d, stdout '%s', stderr '%s'", r.status, r.out,
			 r.err);
	t_run_dispose(&r);
	doc = load_doc(&h);
	trace = cJSON_GetObjectItem(doc, "trace");
	assert_int_equal(count_events(trace, "stop_hook_called"), 1);
	assert_int_equal(count_events(trace, "roz_decision"), 0);
	assert_int_equal(cJSON_GetArraySize(trace), 2);
	cJSON_Delete(doc);
	expect_only_session_file(&h);

	roz_store_free(store);
	free(before);
	free(in);
	home_dispose(&h);
}

/* A roz that waits forever on a lock must fail the suite, not hang it. */
static int arm_watchdog(void **state)
{
	(void)state;
	alarm(180);
	return 0;
}

static int disarm_watchdog(void **state)
{
	(void)state;
	alarm(0);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parallel_prompts_lose_nothing, arm_watchdog, disarm_watchdog),
		cmocka_unit_test_setup_teardown(test_mixed_writers_lose_nothing, arm_watchdog, disarm_watchdog),
		cmocka_unit_test_setup_teardown(test_busy_lock_bounded_wait, arm_watchdog, disarm_watchdog),
		cmocka_unit_test_setup_teardown(test_parallel_governed_hooks_lose_nothing, arm_watchdog,
						disarm_watchdog),
		cmocka_unit_test_setup_teardown(test_parallel_detection_with_the_watcher_loses_nothing, arm_watchdog,
						disarm_watchdog),
		cmocka_unit_test_setup_teardown(test_parallel_detection_loses_nothing, arm_watchdog,
						disarm_watchdog),
		cmocka_unit_test_setup_teardown(test_parallel_ledger_appends_are_whole, arm_watchdog,
						disarm_watchdog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
