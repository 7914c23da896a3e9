/*
 * test_crash.c - SIGKILLs hooks and `roz decide` at random moments, hundreds
 * of times, and checks that the session file is always one whole state, that
 * a dead holder's lock never wedges the next hook, and that its temp file
 * is written over by the next hook that saves the session.
 *
 * "After" is known by running the same call unkilled on a copy of the file
 * first. The two runs differ only in their clock and random ids, so states
 * are compared with times and UUIDs blanked out (fl_normalize); a file equal
 * to neither the state before nor that one fails the test.
 *
 * The trace beside the state is judged by its events' ids: whole lines only
 * (a line cut short at the end is allowed, and ended by the next append
 * before it writes), no event twice, and the call's events all there or
 * none of them: a kill between the state and the append loses that call's
 * events, nothing else. The one write that appends them can itself be cut
 * by the kill (the kernel stops a write at a page boundary for a fatal
 * signal): then the events before the cut are there and the trace ends in
 * the line it cut. With the state before, none of them, unless the kill
 * landed after a compaction, which writes the trace before the state.
 */
#include "faultlib.h"

#include "roz/store.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SID "crash-session-1"
#define DEFAULT_ROUNDS 400
#define VALGRIND_ROUNDS 40
/* a sanitized roz takes tens of milliseconds to start: fewer, slower rounds */
#define SANITIZED_ROUNDS 100
/*
 * Kills come after 0 to 2 ms, or up to as long as the unkilled run took when
 * that is longer (a sanitized build, a slow disk syncing), so they spread over
 * the whole life of the process there too.
 */
#define MAX_DELAY_US 2000

/*
 * Two homes, alternating by round: one syncs to disk before each rename
 * (fsync = true, so the temp file lives for milliseconds), one does not.
 */
static const char *const configs[2] = {
	"[review.gates]\ntools = [\"Bash:git push*\"]\n\n[storage]\nfsync = true\n",
	/* a small trace cap: the trace is compacted (rewritten) every few rounds, kills land there too */
	"[review.gates]\ntools = [\"Bash:git push*\"]\n\n[trace]\nmax_events = 12\n",
};

#define IN(fields) "{\"session_id\":\"" SID "\",\"cwd\":\"/work/app\"" fields "}"
/* The reviewer's own Bash call to roz decide: it is issued the ticket the verdict needs. */
#define DECIDE_CALL \
	IN(",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz decide " SID " COMPLETE ok\"}," \
	   "\"agent_id\":\"rv\",\"agent_type\":\"roz:roz\"")

/* The calls a review cycle makes, killed in turn. */
typedef struct call {
	const char *name;
	const char *event; /* hook event, or NULL for roz decide */
	const char *input;
	const char *argv[8]; /* roz decide's arguments */
} call;

static const call calls[] = {
	{"user-prompt #roz", "user-prompt", IN(",\"prompt\":\"#roz make the importer resumable\""), {NULL}},
	{"stop", "stop", IN(",\"stop_hook_active\":false"), {NULL}},
	{"subagent-start", "subagent-start", IN(",\"agent_id\":\"rv\",\"agent_type\":\"roz:roz\""), {NULL}},
	{"decide call", "pre-tool-use", DECIDE_CALL, {NULL}},
	{"roz decide", NULL, NULL,
	 {"decide", SID, "ISSUES", "resume skips the last batch", "-m", "re-read the last batch", NULL}},
	{"subagent-stop", "subagent-stop", IN(",\"agent_id\":\"rv\",\"agent_type\":\"roz:roz\""), {NULL}},
	{"pre-tool-use (gated)", "pre-tool-use",
	 IN(",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git push origin importer\"}"), {NULL}},
	{"decide call", "pre-tool-use", DECIDE_CALL, {NULL}},
	{"roz decide", NULL, NULL, {"decide", SID, "COMPLETE", "resume works from any batch", NULL}},
	{"session-end", "session-end", IN(",\"reason\":\"clear\""), {NULL}},
};
#define N_CALLS (sizeof(calls) / sizeof(calls[0]))

/* A writer that takes the lock and changes little: the hook that follows every kill. */
static const call follow = {"user-prompt (plain)", "user-prompt", IN(",\"prompt\":\"what is left to do?\""), {NULL}};

static void call_cmd(const call *c, fl_cmd *cmd, const char *hook_argv[3])
{
	memset(cmd, 0, sizeof(*cmd));
	if (c->event) {
		hook_argv[0] = "hook";
		hook_argv[1] = c->event;
		hook_argv[2] = NULL;
		cmd->argv = hook_argv;
		cmd->stdin_text = c->input;
	} else {
		cmd->argv = c->argv;
	}
}

/* Where a kill landed, judged from what the dead process left. */
enum landing { L_EXITED, L_BEFORE_WRITE, L_MID_WRITE, L_RENAMED, L__COUNT };
static const char *const landing_names[L__COUNT] = {"exited", "pre-write", "mid-write", "renamed"};
static const char *const landing_legend =
	"exited: finished before the kill; pre-write: killed before writing (with or without the lock);\n"
	"  mid-write: a temp file existed; renamed: the new state was in place";

static struct {
	long landed[N_CALLS][L__COUNT];
	long stale_temps, cleaned_temps;
	long events_lost, torn_tails, compacted, trace_temps;
	int64_t max_follow_up_us, total_us;
	long rounds;
} stats;

static uint64_t seed;

static void run_call(const fl_home *h, const call *c, fl_result *r)
{
	const char *hook_argv[3];
	fl_cmd cmd;

	call_cmd(c, &cmd, hook_argv);
	fl_run(h, &cmd, r);
}

static bool ok_outcome(const call *c, const fl_result *r)
{
	if (!c->event)
		return r->status == 0 && strncmp(r->out, "Recorded ", 9) == 0;
	return r->status == 0 && fl_one_json_object(r->out) && !strstr(r->out, "\"allow\"");
}

/*
 * The ids of a trace's whole events, in order (a NULL-terminated list), and
 * what else it holds; the file's bytes, and the id of a last line cut short
 * that is an event all the same (the cut fell just before its "\n").
 */
typedef struct trace_ids {
	char **ids;
	size_t n;
	fl_trace_lines lines;
	char *text;
	size_t len;
	char *torn_id;
} trace_ids;

/* The id of the event a line holds, or NULL. Caller frees. */
static char *event_id(char *line)
{
	cJSON *ev = cJSON_Parse(line), *id = cJSON_GetObjectItem(ev, "id");
	char *out = cJSON_IsObject(ev) && cJSON_IsString(id) ? strdup(id->valuestring) : NULL;

	cJSON_Delete(ev);
	return out;
}

static void trace_ids_read(const fl_home *h, trace_ids *t)
{
	size_t start = 0;
	char *copy;

	memset(t, 0, sizeof(*t));
	t->text = fl_get_trace(h, &t->len);
	fl_trace_count(t->text, t->len, &t->lines);
	t->ids = calloc((size_t)t->lines.events + 1, sizeof(char *));
	assert_non_null(t->ids);
	copy = t->text ? malloc(t->len + 1) : NULL;
	if (t->text) {
		assert_non_null(copy);
		memcpy(copy, t->text, t->len);
		copy[t->len] = '\0';
	}
	while (copy && start < t->len) {
		char *nl = memchr(copy + start, '\n', t->len - start), *id;

		if (!nl) {
			if (copy[start] == '{')
				t->torn_id = event_id(copy + start);
			break;
		}
		*nl = '\0';
		id = copy[start] == '{' ? event_id(copy + start) : NULL;
		if (id && t->n < (size_t)t->lines.events)
			t->ids[t->n++] = id;
		else
			free(id);
		start = (size_t)(nl - copy) + 1;
	}
	free(copy);
}

static void trace_ids_dispose(trace_ids *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->ids[i]);
	free(t->ids);
	free(t->text);
	free(t->torn_id);
}

static bool has_id(const trace_ids *t, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->ids[i], id) == 0)
			return true;
	return t->torn_id && strcmp(t->torn_id, id) == 0;
}

/*
 * Events in `now` that `before` does not have; fails on an event twice or a
 * line that is not one. The lines that are not events are those `before`
 * had, and its last line if a kill cut it short: the next append ends it
 * with a "\n" of its own and writes after that, never onto it.
 */
static size_t new_events(const trace_ids *now, const trace_ids *before, const char *what)
{
	long bad_allowed = before->lines.bad + (before->lines.torn ? 1 : 0);
	size_t fresh = 0;

	/* appended to (not rewritten by a compaction): what follows a line cut short starts a line */
	if (before->lines.torn && now->len > before->len && memcmp(now->text, before->text, before->len) == 0 &&
	    now->text[before->len] != '\n')
		fail_msg("%s: the trace's last line, cut short, was glued to what came next: %.60s|%.60s", what,
			 before->text + before->len - (before->len < 60 ? before->len : 60),
			 now->text + before->len);
	if (now->lines.bad > bad_allowed)
		fail_msg("%s: the trace holds %ld broken line(s), %ld expected", what, now->lines.bad, bad_allowed);
	for (size_t i = 0; i < now->n; i++) {
		for (size_t j = i + 1; j < now->n; j++)
			if (strcmp(now->ids[i], now->ids[j]) == 0)
				fail_msg("%s: the trace holds event %s twice", what, now->ids[i]);
		fresh += !has_id(before, now->ids[i]);
	}
	return fresh;
}

/* The state the call writes, from an unkilled run on a copy of `before`; *usec is how long it took. */
static char *reference_after(const fl_home *ref, const call *c, const char *before, size_t len,
			     const fl_home *h, int round, int64_t *usec, size_t *k)
{
	trace_ids tb, ta;
	fl_result r;
	size_t tlen = 0;
	char *after, *trace = fl_get_trace(h, &tlen);

	fl_set_session(ref, before, len);
	fl_set_trace(ref, trace, tlen);
	free(trace);
	trace_ids_read(ref, &tb);
	run_call(ref, c, &r);
	if (!ok_outcome(c, &r))
		fail_msg("seed %llu round %d: the unkilled %s failed on a copy: exit %d, stdout '%s', stderr '%s'",
			 (unsigned long long)seed, round, c->name, r.status, r.out, r.err);
	*usec = r.usec;
	fl_result_dispose(&r);
	after = fl_get_session(ref, NULL);
	if (!after)
		fail_msg("seed %llu round %d: the unkilled %s left no session file", (unsigned long long)seed, round,
			 c->name);
	/* how many events the call adds */
	trace_ids_read(ref, &ta);
	*k = new_events(&ta, &tb, "the unkilled reference run");
	trace_ids_dispose(&tb);
	trace_ids_dispose(&ta);
	return after;
}

/* Fails unless the session's lock is free the moment its killed holder has been reaped. */
static void dead_holder_lets_go(const fl_home *h, const char *what)
{
	roz_store *store = NULL;
	roz_lock *lk = NULL;
	int rc;

	if (roz_store_file_open(h->dir, NULL, &store) != ROZ_OK)
		fail_msg("%s: cannot open the store: %s", what, roz_error_last());
	rc = roz_store_lock(store, h->id, 0, &lk);
	if (rc != ROZ_OK)
		fail_msg("%s: the dead holder's lock was not free: %s (%s)", what, roz_error_name(rc),
			 roz_error_last());
	roz_store_unlock(store, lk);
	roz_store_free(store);
}

/* The reviewer's call that issues the ticket a verdict needs, run to completion. */
static const call ticket = {"decide call (unkilled)", "pre-tool-use", DECIDE_CALL, {NULL}};

static void one_round(fl_home *homes, const fl_home *ref, int round, uint64_t *rng)
{
	const fl_home *h = &homes[round % 2];
	const call *c = &calls[((size_t)round / 2) % N_CALLS];
	size_t ci = ((size_t)round / 2) % N_CALLS;
	int64_t ref_us = 0;
	long delay;
	size_t before_len, now_len;
	char *before, *after, *now, *n_now, *n_before, *n_after;
	const char *hook_argv[3];
	enum landing where;
	trace_ids t_before, t_now, t_follow;
	size_t k = 0, fresh;
	fl_leftovers waiting, l;
	fl_result r;
	int left_tmp;
	fl_cmd cmd;
	int64_t t0;
	pid_t pid;
	char what[300];

	/*
	 * A verdict needs a live ticket; the round that issues it may itself
	 * have been killed before writing, so the decide round issues one first.
	 */
	if (!c->event) {
		run_call(h, &ticket, &r);
		if (!ok_outcome(&ticket, &r))
			fail_msg("seed %llu round %d: the reviewer's decide call failed: exit %d, stderr '%s'",
				 (unsigned long long)seed, round, r.status, r.err);
		fl_result_dispose(&r);
	}
	before = fl_get_session(h, &before_len);
	if (!before)
		fail_msg("seed %llu round %d: no session file before the round", (unsigned long long)seed, round);
	trace_ids_read(h, &t_before);
	after = reference_after(ref, c, before, before_len, h, round, &ref_us, &k);
	delay = (long)(fl_rand(rng) % (uint64_t)((ref_us > MAX_DELAY_US ? ref_us : MAX_DELAY_US) + 1));
	snprintf(what, sizeof(what), "seed %llu round %d (%s, fsync %s, killed after %ld us)",
		 (unsigned long long)seed, round, c->name, round % 2 ? "off" : "on", delay);

	/*
	 * A compaction an earlier round's kill cut short leaves its temp file
	 * for the next compaction to write over, which may be rounds away: it is
	 * not this call's.
	 */
	fl_leftovers_scan(h, &waiting);

	/* the real thing, killed */
	call_cmd(c, &cmd, hook_argv);
	t0 = fl_now_us();
	pid = fl_spawn(h, 1, &cmd);
	fl_sleep_us(delay);
	kill(pid, SIGKILL);
	fl_reap(h, 1, pid, t0, &r);

	/* what it left, before anything else touches the directory */
	fl_leftovers_scan(h, &l);
	now = fl_get_session(h, &now_len);
	if (l.other || l.corrupt)
		fail_msg("%s: unexpected files in sessions/:%s", what, l.names);
	if (!now)
		fail_msg("%s: the session file is gone", what);
	if (!fl_session_parses(now, now_len))
		fail_msg("%s: the session file does not parse after the kill:\n%.600s", what, now);
	n_now = fl_normalize(now);
	n_before = fl_normalize(before);
	n_after = fl_normalize(after);
	/* the temp files this call left: its state's, and its compaction's unless one was already waiting */
	left_tmp = l.tmp - l.trace_tmp + (l.trace_tmp > waiting.trace_tmp ? l.trace_tmp - waiting.trace_tmp : 0);
	if (now_len == before_len && memcmp(now, before, now_len) == 0) {
		where = left_tmp ? L_MID_WRITE : L_BEFORE_WRITE;
	} else if (strcmp(n_now, n_after) == 0) {
		where = L_RENAMED;
	} else {
		fail_msg("%s: the session file is neither the state before the call nor the state it writes\n"
			 "now:    %.700s\nbefore: %.700s\nafter:  %.700s",
			 what, n_now, n_before, n_after);
		where = L_BEFORE_WRITE;
	}
	if (!r.signaled) {
		/* it finished first: then it must have finished properly */
		if (!ok_outcome(c, &r) || where != L_RENAMED || left_tmp)
			fail_msg("%s: finished unkilled but went wrong: exit %d, stdout '%s', stderr '%s', left:%s",
				 what, r.status, r.out, r.err, l.names);
		where = L_EXITED;
	}
	stats.landed[ci][where]++;
	stats.stale_temps += l.tmp - l.trace_tmp;
	fl_result_dispose(&r);

	/* the trace: whole events, none twice, the call's all there or none, or those before a cut */
	trace_ids_read(h, &t_now);
	fresh = new_events(&t_now, &t_before, what);
	if (fresh > k || (fresh != 0 && fresh != k && !t_now.lines.torn))
		fail_msg("%s: %zu of the call's %zu trace events are there: a call's events land together", what,
			 fresh, k);
	if (fresh && (where == L_BEFORE_WRITE || where == L_MID_WRITE) && t_now.n >= t_before.n + k)
		fail_msg("%s: the call's trace events landed with the state before it (the state goes first)",
			 what);
	if (where == L_EXITED && fresh != k)
		fail_msg("%s: finished unkilled, but %zu of its %zu trace events are there", what, fresh, k);
	/* the state landed, its events did not: killed between the two */
	stats.events_lost += where == L_RENAMED && !fresh ? (long)k : 0;
	stats.torn_tails += t_now.lines.torn;
	stats.compacted += t_now.n < t_before.n;

	/*
	 * A dead process holds nothing: the session's lock is had with a zero
	 * timeout, which times out on a held lock. Asked this way rather than by
	 * how long the next hook takes, which on a loaded machine, or a disk
	 * busy with others' syncs, says nothing about the lock.
	 */
	dead_holder_lets_go(h, what);
	/*
	 * The next hook takes over and writes over the dead writer's temp file.
	 * A wait on the lock would end in a warning on stderr, which fails here.
	 */
	run_call(h, &follow, &r);
	if (r.status != 0 || strcmp(r.out, "{}\n") != 0 || *r.err)
		fail_msg("%s: the next hook went wrong: exit %d, stdout '%s', stderr '%s'", what, r.status, r.out,
			 r.err);
	if (r.usec > stats.max_follow_up_us)
		stats.max_follow_up_us = r.usec;
	fl_result_dispose(&r);
	{
		fl_leftovers after_follow;
		size_t len;
		char *text;

		/*
		 * A compaction's temp file is the next compaction's to write over
		 * (and `roz clean`'s to sweep): the hooks between never look at it.
		 */
		fl_leftovers_scan(h, &after_follow);
		stats.trace_temps += after_follow.trace_tmp;
		if (after_follow.tmp > after_follow.trace_tmp || after_follow.other || after_follow.corrupt)
			fail_msg("%s: after the next hook, still in sessions/:%s (before it:%s)", what,
				 after_follow.names, l.names);
		stats.cleaned_temps += l.tmp - l.trace_tmp;
		text = fl_get_session(h, &len);
		if (!text || !fl_session_parses(text, len))
			fail_msg("%s: after the next hook the session file is %s", what, text ? "unreadable" : "gone");
		free(text);
		/*
		 * A hook that appends ends a line a kill cut short (which stays the
		 * one line that is not an event); a plain prompt appends nothing.
		 */
		trace_ids_read(h, &t_follow);
		if (new_events(&t_follow, &t_now, what) && t_follow.lines.torn)
			fail_msg("%s: the next hook appended, and the trace still ends mid-line", what);
		trace_ids_dispose(&t_follow);
	}
	trace_ids_dispose(&t_before);
	trace_ids_dispose(&t_now);
	stats.rounds++;
	free(before);
	free(after);
	free(now);
	free(n_now);
	free(n_before);
	free(n_after);
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : dflt;
}

static void test_kill_writers(void **state)
{
	const char *parent = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	long rounds = env_long("ROZ_CRASH_ROUNDS", fl_under_valgrind() ? VALGRIND_ROUNDS
						   : FAULT_SANITIZED   ? SANITIZED_ROUNDS
								       : DEFAULT_ROUNDS);
	fl_home homes[2], ref;
	uint64_t rng;
	int64_t t0 = fl_now_us();

	(void)state;
	if (rounds < 1)
		rounds = 1;
	seed = (uint64_t)env_long("ROZ_CRASH_SEED", 0);
	if (!seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	rng = seed;
	printf("crash: %ld rounds, seed %llu (rerun with ROZ_CRASH_SEED=%llu)\n", rounds,
	       (unsigned long long)seed, (unsigned long long)seed);
	/* on a real disk, where fsync takes long enough for kills to land mid-write */
	for (int i = 0; i < 2; i++) {
		const call start = {"session-start", "session-start", IN(",\"source\":\"startup\""), {NULL}};
		fl_result r;

		fl_home_make_in(&homes[i], parent, SID, configs[i]);
		run_call(&homes[i], &start, &r);
		if (r.status != 0)
			fail_msg("session-start failed: %s", r.err);
		fl_result_dispose(&r);
	}
	fl_home_make_in(&ref, parent, SID, configs[0]);
	for (int round = 0; round < rounds; round++) {
		/* the reference home must sync the same way as the home of this round */
		char *cfg = t_sprintf("%s/config.toml", ref.dir);

		t_write_file(cfg, configs[round % 2]);
		free(cfg);
		one_round(homes, &ref, round, &rng);
	}
	stats.total_us = fl_now_us() - t0;

	{
		long by_landing[L__COUNT] = {0};

		printf("crash: %ld rounds in %.1f s; where the kills landed:\n", stats.rounds, stats.total_us / 1e6);
		printf("  %-22s", "");
		for (int w = 0; w < L__COUNT; w++)
			printf(" %9s", landing_names[w]);
		printf("\n");
		for (size_t ci = 0; ci < N_CALLS; ci++) {
			printf("  %-22s", calls[ci].name);
			for (int w = 0; w < L__COUNT; w++) {
				printf(" %9ld", stats.landed[ci][w]);
				by_landing[w] += stats.landed[ci][w];
			}
			printf("\n");
		}
		printf("  %-22s", "total");
		for (int w = 0; w < L__COUNT; w++)
			printf(" %9ld", by_landing[w]);
		printf("\n  %s\ncrash: %ld kills left the state's temp file (all %ld written over by the next hook); slowest "
		       "next hook %.2f ms\n",
		       landing_legend, stats.stale_temps, stats.cleaned_temps, stats.max_follow_up_us / 1e3);
		printf("crash: trace events lost with their call (state saved, append not made): %ld; torn last "
		       "lines: %ld; kills after a compaction: %ld; rounds with a compaction's temp file waiting "
		       "for the next: %ld\n",
		       stats.events_lost, stats.torn_tails, stats.compacted, stats.trace_temps);
	}
	for (int i = 0; i < 2; i++)
		fl_home_dispose(&homes[i]);
	fl_home_dispose(&ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_writers),
	};

	return cmocka_run_group_tests_name("crash consistency", tests, NULL, NULL);
}
