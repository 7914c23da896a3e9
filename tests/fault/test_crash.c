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
 */
#include "faultlib.h"

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
/* The next hook must not wait on a dead holder: well under the 3 s lock timeout. */
#define FOLLOW_UP_LIMIT_US 1500000

/*
 * Two homes, alternating by round: one syncs to disk before each rename
 * (fsync = true, so the temp file lives for milliseconds), one does not.
 */
static const char *const configs[2] = {
	"[review.gates]\ntools = [\"Bash:git push*\"]\n\n[storage]\nfsync = true\n",
	"[review.gates]\ntools = [\"Bash:git push*\"]\n",
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

/* The state the call writes, from an unkilled run on a copy of `before`; *usec is how long it took. */
static char *reference_after(const fl_home *ref, const call *c, const char *before, size_t len, int round,
			     int64_t *usec)
{
	fl_result r;
	char *after;

	fl_set_session(ref, before, len);
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
	return after;
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
	fl_leftovers l;
	fl_result r;
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
	after = reference_after(ref, c, before, before_len, round, &ref_us);
	delay = (long)(fl_rand(rng) % (uint64_t)((ref_us > MAX_DELAY_US ? ref_us : MAX_DELAY_US) + 1));
	snprintf(what, sizeof(what), "seed %llu round %d (%s, fsync %s, killed after %ld us)",
		 (unsigned long long)seed, round, c->name, round % 2 ? "off" : "on", delay);

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
	if (now_len == before_len && memcmp(now, before, now_len) == 0) {
		where = l.tmp ? L_MID_WRITE : L_BEFORE_WRITE;
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
		if (!ok_outcome(c, &r) || where != L_RENAMED || l.tmp)
			fail_msg("%s: finished unkilled but went wrong: exit %d, stdout '%s', stderr '%s', left:%s",
				 what, r.status, r.out, r.err, l.names);
		where = L_EXITED;
	}
	stats.landed[ci][where]++;
	stats.stale_temps += l.tmp;
	fl_result_dispose(&r);

	/* the next hook takes over at once and writes over the dead writer's temp file */
	run_call(h, &follow, &r);
	if (r.status != 0 || strcmp(r.out, "{}\n") != 0 || *r.err)
		fail_msg("%s: the next hook went wrong: exit %d, stdout '%s', stderr '%s'", what, r.status, r.out,
			 r.err);
	if (r.usec > FOLLOW_UP_LIMIT_US)
		fail_msg("%s: the next hook took %lld us; a dead holder's lock must not make it wait", what,
			 (long long)r.usec);
	if (r.usec > stats.max_follow_up_us)
		stats.max_follow_up_us = r.usec;
	fl_result_dispose(&r);
	{
		fl_leftovers after_follow;
		size_t len;
		char *text;

		fl_leftovers_scan(h, &after_follow);
		if (after_follow.tmp || after_follow.other || after_follow.corrupt)
			fail_msg("%s: after the next hook, still in sessions/:%s (before it:%s)", what,
				 after_follow.names, l.names);
		stats.cleaned_temps += l.tmp;
		text = fl_get_session(h, &len);
		if (!text || !fl_session_parses(text, len))
			fail_msg("%s: after the next hook the session file is %s", what, text ? "unreadable" : "gone");
		free(text);
	}
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
		printf("\n  %s\ncrash: %ld kills left a temp file (all %ld written over by the next hook); slowest "
		       "next hook %.2f ms\n",
		       landing_legend, stats.stale_temps, stats.cleaned_temps, stats.max_follow_up_us / 1e3);
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
