/*
 * test_faults.c - fails libc calls one at a time (open, read, write, fsync,
 * rename, close, flock, mkdir, link, unlink, malloc, ...) inside every hook
 * that writes, and proves roz still answers safely and keeps its file whole.
 *
 * Two walks: the real `roz` under the LD_PRELOAD shim (failshim.c), failing
 * the Nth call of each function for every N the hook reaches; and roz_runner_hook
 * in this process under roz's own allocator countdown, which also runs in
 * sanitizer builds where the shim cannot. Both pin the clock and randomness so
 * the state a hook writes is known to the byte.
 */
#include "faultlib.h"
#include "stores.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "roz/config_load.h"
#include "roz/runner.h"
#include "roz/session_json.h"

#define SID "fault-session-1"
#define T0 1767225600L /* 2026-01-01T00:00:00Z: the fixtures' history starts here */
#define WALK_TIME (T0 + 5000)
/* fsync on, so fdatasync and the directory sync are on the path too; one gate to deny */
#define CONFIG "[review.gates]\ntools = [\"Bash:git push*\"]\n\n[storage]\nfsync = true\n"

/* ---- what the hooks are fed ---------------------------------------------------------- */

typedef struct step {
	const char *event; /* hook event, or "decide" */
	const char *input; /* hook stdin */
	const char *verdict, *summary, *message;
} step;

#define IN(fields) "{\"session_id\":\"" SID "\",\"cwd\":\"/work/app\"" fields "}"
#define HOOK(ev, fields) {ev, IN(fields), NULL, NULL, NULL}
#define DECIDE(v, s, m) {"decide", NULL, v, s, m}
#define REVIEWER(id) ",\"agent_id\":\"" id "\",\"agent_type\":\"roz:roz\""
/* The reviewer's own Bash call to roz decide: it is issued the ticket the verdict needs. */
#define DECIDE_CALL(id) \
	HOOK("pre-tool-use", ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"roz decide " SID " COMPLETE ok\"}" REVIEWER(id))

/* A session with some history: a question, a reviewed task sent back once, a gated push, a new task. */
static const step base_steps[] = {
	HOOK("session-start", ",\"source\":\"startup\""),
	HOOK("user-prompt", ",\"prompt\":\"how does the signup form validate emails?\""),
	HOOK("user-prompt", ",\"prompt\":\"#roz add input validation to the signup form\""),
	HOOK("stop", ",\"stop_hook_active\":false"),
	HOOK("subagent-start", REVIEWER("rv-1")),
	DECIDE_CALL("rv-1"),
	DECIDE("ISSUES", "an empty email is accepted", "reject an empty email and add a test for it"),
	HOOK("subagent-stop", REVIEWER("rv-1")),
	HOOK("stop", ",\"stop_hook_active\":true"),
	HOOK("pre-tool-use", ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git push origin signup\"}"),
	HOOK("user-prompt", ",\"prompt\":\"#roz also check the password rules\""),
	HOOK("stop", ",\"stop_hook_active\":false"),
};

typedef struct kind {
	const char *name;
	step hook;     /* the call under test */
	step prep[3];  /* run after the base history to reach the state it needs */
	int n_prep;
	bool corrupt;  /* start from the base file torn in two instead */
	bool fresh;    /* start from nothing: no session file, no sessions/ directory */
	const char *expect; /* a piece of the unfaulted answer, to know the walk tests what it says */
} kind;

static const kind kinds[] = {
	{"user-prompt #roz", HOOK("user-prompt", ",\"prompt\":\"#roz and keep the old error messages\""),
	 {{0}}, 0, false, false, "{}\n"},
	{"stop (blocks)", HOOK("stop", ",\"stop_hook_active\":false"), {{0}}, 0, false, false,
	 "\"decision\":\"block\""},
	{"pre-tool-use (gated)",
	 HOOK("pre-tool-use", ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"cd app && git push origin main\"}"),
	 {{0}}, 0, false, false, "\"permissionDecision\":\"deny\""},
	{"subagent-start", HOOK("subagent-start", REVIEWER("rv-2")), {{0}}, 0, false, false, "{}\n"},
	{"subagent-stop (verdict)", HOOK("subagent-stop", REVIEWER("rv-2")),
	 {HOOK("subagent-start", REVIEWER("rv-2")), DECIDE_CALL("rv-2"),
	  DECIDE("COMPLETE", "validation and its tests look right", NULL)},
	 3, false, false, "{}\n"},
	{"session-end", HOOK("session-end", ",\"reason\":\"logout\""), {{0}}, 0, false, false, "{}\n"},
	{"roz decide", DECIDE("ISSUES", "a 7-character password is accepted", "require at least 8 characters"),
	 {HOOK("subagent-start", REVIEWER("rv-2")), DECIDE_CALL("rv-2")}, 2, false, false,
	 "Recorded ISSUES for session " SID ".\n"},
	{"user-prompt, torn file", HOOK("user-prompt", ",\"prompt\":\"#roz try again\""), {{0}}, 0, true, false,
	 "{}\n"},
	/* the first hook on a new machine: sessions/ is created on the way */
	{"session-start, new home", HOOK("session-start", ",\"source\":\"startup\""), {{0}}, 0, false, true,
	 "{}\n"},
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Column heads for the summary, in the order of kinds[]. */
static const char *const kind_tags[] = {"prompt", "stop", "gated", "sa-start", "sa-stop",
					"end", "decide", "torn", "new-home"};
_Static_assert(sizeof(kind_tags) / sizeof(kind_tags[0]) == N_KINDS, "one tag per kind");

static bool is_decide(const step *s)
{
	return strcmp(s->event, "decide") == 0;
}

/* A gated call roz could not judge (its input or its session unreadable): the user is asked. */
static bool asked_about_store(const char *out)
{
	return strstr(out, "\"permissionDecision\":\"ask\"") &&
	       (strstr(out, "cannot be read") || strstr(out, "could not read this tool call"));
}

/* A fault that leaves no memory: the runner's last resort, {}, is all that is left. */
static bool out_of_memory(const char *func)
{
	return strcmp(func, "malloc") == 0 || strcmp(func, "calloc") == 0 || strcmp(func, "realloc") == 0;
}

/* ---- what is failed ---------------------------------------------------------------------- */

/* The shim's function families, in its report order. */
static const char *const funcs[] = {
	"open", "read", "write", "fsync", "fdatasync", "rename", "close",
	"flock", "mkdir", "link", "unlink", "malloc", "calloc", "realloc",
};
#define N_FUNCS (sizeof(funcs) / sizeof(funcs[0]))

typedef struct fault_spec {
	const char *func, *err;
	long times;    /* calls failed from the Nth; 0 = every one from there */
	bool harmless; /* roz must ride it out and answer as if nothing happened */
	long stride;   /* walk every stride-th N (and the last); 0 means 1 */
} fault_spec;

static const fault_spec specs[] = {
	{"open", "EACCES", 1, false, 1},
	{"read", "EIO", 1, false, 1},
	{"write", "ENOSPC", 1, false, 1},
	{"fsync", "EIO", 1, false, 1},
	{"fdatasync", "EIO", 1, false, 1},
	{"rename", "EIO", 1, false, 1},
	{"close", "EIO", 1, false, 1},
	{"flock", "ENOLCK", 1, false, 1},
	{"mkdir", "EACCES", 1, false, 1},
	{"link", "EPERM", 1, false, 1},
	{"unlink", "EACCES", 1, false, 1},
	{"malloc", "ENOMEM", 1, false, 1},
	{"calloc", "ENOMEM", 1, false, 1},
	{"realloc", "ENOMEM", 1, false, 1},
	/* interrupted and partial transfers are normal; they must change nothing */
	{"read", "EINTR", 1, true, 1},
	{"write", "EINTR", 1, true, 1},
	{"flock", "EINTR", 1, true, 1},
	{"read", "SHORT", 1, true, 1},
	{"write", "SHORT", 1, true, 1},
	/* a disk that stays full, memory that stays exhausted */
	{"write", "ENOSPC", 0, false, 1},
	/* from one N on, roz's path is the same as for the single failure: a sample is enough */
	{"malloc", "ENOMEM", 0, false, 4},
	{"calloc", "ENOMEM", 0, false, 2},
	{"realloc", "ENOMEM", 0, false, 2},
};
#define N_SPECS (sizeof(specs) / sizeof(specs[0]))

static int func_index(const char *name)
{
	for (size_t i = 0; i < N_FUNCS; i++)
		if (strcmp(funcs[i], name) == 0)
			return (int)i;
	fail_msg("unknown function %s", name);
	return -1;
}

/* ---- violations ------------------------------------------------------------------------------ */

/*
 * A broken invariant in one faulted run. Normally it fails the test at once;
 * with ROZ_FAULT_KEEP_GOING=1 every violation is printed and the walk goes on,
 * to see them all. Bugs already reported (known_bugs) are printed once and do
 * not fail the suite unless ROZ_FAULT_STRICT=1, which the "fault-known-bugs"
 * test sets (and expects to fail until roz is fixed).
 */
typedef struct known_bug {
	const char *id;
	const char *match[3]; /* all must occur in the violation's message */
	const char *summary;
} known_bug;

static const known_bug known_bugs[] = {
	/* empty: every bug this walk found has been fixed; add new ones here */
	{NULL, {NULL, NULL, NULL}, NULL},
};
#define N_KNOWN (sizeof(known_bugs) / sizeof(known_bugs[0]))

static long known_hits[N_KNOWN];
static long violations;
static bool keep_going, strict;
static jmp_buf case_env;
static bool case_active;

/* Heap blocks of the current case, freed when it ends however it ends (valgrind counts leaks). */
static void *case_mem[64];
static int n_case_mem;

static void *track(void *p)
{
	if (n_case_mem >= (int)(sizeof(case_mem) / sizeof(case_mem[0])))
		fail_msg("too many tracked blocks in one case");
	case_mem[n_case_mem++] = p;
	return p;
}

static void track_result(fl_result *r)
{
	track(r->out);
	track(r->err);
}

static void case_end(void)
{
	while (n_case_mem > 0)
		free(case_mem[--n_case_mem]);
	case_active = false;
}

static bool known_match(const known_bug *b, const char *msg)
{
	if (!b->id)
		return false;
	for (int i = 0; i < 3 && b->match[i]; i++)
		if (!strstr(msg, b->match[i]))
			return false;
	return true;
}

static void violation(const char *fmt, ...) ROZ_PRINTF(1, 2);

static void violation(const char *fmt, ...)
{
	static char msg[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < N_KNOWN; i++) {
		if (!known_bugs[i].id || !known_match(&known_bugs[i], msg))
			continue;
		if (!known_hits[i]++)
			printf("[KNOWN BUG ] %s: %s\n             first case: %s\n", known_bugs[i].id,
			       known_bugs[i].summary, msg);
		/* the rest of the case still runs: the follow-up must cope with what the bug left */
		if (!strict && case_active)
			return;
		break;
	}
	if (keep_going && case_active) {
		printf("[VIOLATION ] %s\n", msg);
		violations++;
		longjmp(case_env, 1);
	}
	case_end();
	fail_msg("%s", msg);
}

/* Run one case; a violation inside ends the case (see violation()). */
typedef void (*case_fn)(size_t a, size_t b, long c);

static void run_case(case_fn fn, size_t a, size_t b, long c)
{
	case_active = true;
	if (setjmp(case_env) == 0)
		fn(a, b, c);
	case_end();
}

static void end_of_walk(const char *name)
{
	long n = violations;

	violations = 0;
	if (n)
		fail_msg("%s: %ld violations (listed above)", name, n);
}

/* ---- expected states ------------------------------------------------------------------------ */

/* One hook's starting point and what the unfaulted hook makes of it. */
typedef struct fixture {
	const kind *k;
	char *before, *after, *ref_out, *ref_err;
	size_t before_len, after_len;
	char *tbefore, *tafter; /* the trace files before and after (NULL: none) */
	size_t tbefore_len, tafter_len;
	int ref_status;
	long count[N_FUNCS]; /* calls the unfaulted hook makes (shim walk) */
	long allocs;         /* roz_malloc calls it makes (in-process walk) */
} fixture;

/* The gated call: what fails around it may cost an answer, never the gate. */
static bool is_gated(const fixture *fx)
{
	return strcmp(fx->k->name, "pre-tool-use (gated)") == 0;
}

static void fixture_dispose(fixture *fx)
{
	free(fx->before);
	free(fx->after);
	free(fx->tbefore);
	free(fx->tafter);
	free(fx->ref_out);
	free(fx->ref_err);
	memset(fx, 0, sizeof(*fx));
}

/* Put the home back to the fixture's starting point. */
static void reset_home(const fl_home *h, const fixture *fx)
{
	fl_set_session(h, fx->before, fx->before_len);
	fl_set_trace(h, fx->tbefore, fx->tbefore_len);
	if (fx->k->fresh && rmdir(h->sessions) < 0)
		fail_msg("rmdir %s: %s", h->sessions, strerror(errno));
}

enum state { S_BEFORE, S_AFTER, S_MOVED };
static const char *const state_names[] = {"before", "after", "moved aside"};

static bool same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	return a && b && alen == blen && memcmp(a, b, alen) == 0;
}

/*
 * The trace after a run: whole events, and the trace that goes with the
 * state: the one before, with the state before (the state is saved first);
 * with the new state, the new trace or, when the append itself failed, the
 * one before (the hook's events are lost, nothing else), or the one before
 * and part of a line when a write was cut short.
 */
static void check_trace(const fl_home *h, const fixture *fx, enum state st, const char *what)
{
	size_t len = 0;
	char *now = track(fl_get_trace(h, &len));
	fl_trace_lines tl;

	fl_trace_count(now, len, &tl);
	if (tl.bad)
		violation("%s: the trace holds %ld line(s) that are not events", what, tl.bad);
	if (st == S_MOVED)
		return;
	/* a write cut short after the new state: the trace before, then part of a line the next append ends */
	if (tl.torn && st == S_AFTER && (!fx->tbefore || (len > fx->tbefore_len &&
							  memcmp(now, fx->tbefore, fx->tbefore_len) == 0)))
		return;
	/* an empty file is no trace: the append that created it failed */
	if (same_bytes(now, len, fx->tbefore, fx->tbefore_len) || ((!now || !len) && !fx->tbefore))
		return;
	if (st == S_AFTER && same_bytes(now, len, fx->tafter, fx->tafter_len))
		return;
	violation("%s: with the state %s, the trace is neither the one before nor the one the hook "
		  "writes:\n%.600s", what, st == S_AFTER ? "after" : "before", now ? now : "(none)");
}

/*
 * The directory after a run: the session file is byte for byte the state
 * before or the state the unfaulted hook writes (for a torn file, also: moved
 * aside with nothing new saved yet), every quarantined copy holds the torn
 * bytes, and no temp file is left. The session's lock file may be there:
 * it stays between hooks by design.
 */
static enum state check_state(const fl_home *h, const fixture *fx, const char *what, bool *pristine)
{
	fl_leftovers l;
	size_t len = 0;
	char *now = track(fl_get_session(h, &len));
	enum state st = S_BEFORE;

	*pristine = false;
	fl_leftovers_scan(h, &l);
	if (l.tmp || l.other)
		violation("%s: left behind in sessions/:%s", what, l.names);
	if (l.corrupt) {
		char *names = track(strdup(l.names)), *save = NULL;

		if (!fx->k->corrupt || l.corrupt > 1)
			violation("%s: unexpected files moved aside:%s", what, l.names);
		for (char *n = strtok_r(names, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
			char *path, *text;
			size_t tlen = 0;

			if (!strstr(n, ".corrupt-"))
				continue;
			path = track(t_sprintf("%s/%s", h->sessions, n));
			text = track(t_read_file(path, &tlen));
			if (!same_bytes(text, tlen, fx->before, fx->before_len))
				violation("%s: %s does not hold the torn file's bytes", what, n);
		}
	}
	if (!now && !fx->before) {
		st = S_BEFORE;
	} else if (!now) {
		if (!fx->k->corrupt || l.corrupt != 1)
			violation("%s: the session file is gone", what);
		st = S_MOVED;
	} else if (same_bytes(now, len, fx->before, fx->before_len)) {
		st = S_BEFORE;
	} else if (same_bytes(now, len, fx->after, fx->after_len)) {
		st = S_AFTER;
		if (fx->k->corrupt && l.corrupt != 1)
			violation("%s: a fresh session was saved but the torn file was not kept", what);
	} else {
		violation("%s: the session file is neither the state before the hook nor the state it "
			  "writes (%zu bytes, %s):\n%.600s",
			  what, len, fl_session_parses(now, len) ? "parses" : "DOES NOT PARSE", now);
	}
	check_trace(h, fx, st, what);
	*pristine = st == S_BEFORE && !l.corrupt;
	return st;
}

/* A "roz: warning:" line that the unfaulted run did not print and that says what failed. */
static bool new_failure_warning(const char *err, const char *ref_err)
{
	const char *line = err;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *copy = strndup(line, n);
		bool hit = strncmp(copy, "roz: warning:", 13) == 0 && !strstr(ref_err, copy) &&
			   (strstr(copy, "cannot") || strstr(copy, "out of memory") || strstr(copy, "could not") ||
			    strstr(copy, "failed") || strstr(copy, "timed out"));

		free(copy);
		if (hit)
			return true;
		line = end ? end + 1 : NULL;
	}
	return false;
}

/* Tallies for the summary: per fault spec and hook kind. */
static struct {
	long runs[N_SPECS][N_KINDS];
	long changed[N_SPECS][N_KINDS]; /* the fault changed the outcome: {} or exit 1 */
	long stdout_full, full_disk, tmpfs;
	long ip_runs[N_KINDS], ip_changed[N_KINDS], ip_silent[N_KINDS], ip_allocs[N_KINDS];
} stats;

/*
 * The next N to fail after n, up to last: every stride-th one and always the
 * last. Under valgrind (scripts/dev's memcheck pass) only `samples` points
 * spread over the range: the roz processes are not under valgrind there, so
 * the walk proves little more than the driver's own hygiene; the normal
 * build walks every N (the sticky exhaustion specs every stride-th).
 */
static long next_n(long n, long last, long stride, long samples)
{
	if (fl_under_valgrind())
		stride = last / samples > 1 ? last / samples : 1;
	else if (stride < 1 || n < 3)
		stride = 1;
	if (n < last && n + stride > last)
		return last;
	return n + stride;
}

/* ======================================================================================= */
/* The shim walk: the real roz, one failed call per run                                    */
/* ======================================================================================= */

typedef struct report {
	bool present;
	long count[N_FUNCS];
	long fired;
	char call[600]; /* "unlink 1 /path/x.lock" */
} report;

typedef struct shim_run {
	long when, seed;
	const fault_spec *fault;
	long nth;
	const char *stdout_path;
} shim_run;

static char *report_path(const fl_home *h)
{
	return t_sprintf("%s/report", h->io);
}

static void run_cli(const fl_home *h, const step *s, const shim_run *o, fl_result *r)
{
	const char *argv[10];
	char *env[12];
	const char *envc[12];
	int na = 0, ne = 0;
	char *rp = report_path(h);

	if (is_decide(s)) {
		argv[na++] = "decide";
		argv[na++] = SID;
		argv[na++] = s->verdict;
		argv[na++] = s->summary;
		if (s->message) {
			argv[na++] = "-m";
			argv[na++] = s->message;
		}
	} else {
		argv[na++] = "hook";
		argv[na++] = s->event;
	}
	argv[na] = NULL;
	unlink(rp);
	env[ne++] = t_sprintf("LD_PRELOAD=%s", FAILSHIM_PATH);
	env[ne++] = t_sprintf("FAILSHIM_REPORT=%s", rp);
	env[ne++] = t_sprintf("FAILSHIM_REALTIME=%ld", o->when);
	env[ne++] = t_sprintf("FAILSHIM_SEED=%ld", o->seed);
	if (o->fault) {
		env[ne++] = t_sprintf("FAILSHIM_FUNC=%s", o->fault->func);
		env[ne++] = t_sprintf("FAILSHIM_ERRNO=%s", o->fault->err);
		env[ne++] = t_sprintf("FAILSHIM_NTH=%ld", o->nth);
		env[ne++] = t_sprintf("FAILSHIM_TIMES=%ld", o->fault->times);
	}
	for (int i = 0; i < ne; i++)
		envc[i] = env[i];
	envc[ne] = NULL;
	{
		fl_cmd c = {argv, s->input, envc, o->stdout_path};

		fl_run(h, &c, r);
	}
	for (int i = 0; i < ne; i++)
		free(env[i]);
	free(rp);
}

static void read_report(const fl_home *h, report *rep)
{
	char *rp = report_path(h), *text = t_read_file(rp, NULL), *save = NULL;

	memset(rep, 0, sizeof(*rep));
	free(rp);
	if (!text)
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[32];
		long n;

		if (sscanf(line, "count %31s %ld", name, &n) == 2)
			rep->count[func_index(name)] = n;
		else if (sscanf(line, "fired %ld", &n) == 1)
			rep->fired = n;
		else if (strncmp(line, "call ", 5) == 0)
			snprintf(rep->call, sizeof(rep->call), "%s", line + 5);
		else if (strcmp(line, "end") == 0)
			rep->present = true;
	}
	free(text);
}

static fl_home shim_home;
static fixture shim_fx[N_KINDS];
static char *shim_base, *shim_base_trace;
static size_t shim_base_len, shim_base_trace_len;

static void must_succeed(const step *s, const fl_result *r, const char *phase)
{
	if (r->status != 0 || (!is_decide(s) && !fl_one_json_object(r->out)))
		fail_msg("%s: %s %s exited %d\nstdout: %s\nstderr: %s", phase, s->event,
			 s->input ? s->input : s->verdict, r->status, r->out, r->err);
}

/* Run the base history once; every fixture starts from its file. */
static void build_base(const fl_home *h)
{
	fl_set_session(h, NULL, 0);
	for (size_t i = 0; i < sizeof(base_steps) / sizeof(base_steps[0]); i++) {
		shim_run o = {T0 + 10 * (long)i, 1 + (long)i, NULL, 0, NULL};
		fl_result r;

		run_cli(h, &base_steps[i], &o, &r);
		must_succeed(&base_steps[i], &r, "building the base session");
		fl_result_dispose(&r);
	}
	shim_base = fl_get_session(h, &shim_base_len);
	assert_non_null(shim_base);
	shim_base_trace = fl_get_trace(h, &shim_base_trace_len);
	assert_non_null(shim_base_trace);
}

static long walk_seed(size_t k)
{
	return 5000 + (long)k;
}

/* ROZ_FAULT_DUMP=<dir>: keep each fixture's states there, to look at. */
static void dump_fixture(size_t k, const fixture *fx)
{
	const char *dir = getenv("ROZ_FAULT_DUMP");
	char *path;

	if (!dir || !*dir)
		return;
	path = t_sprintf("%s/%zu-before.json", dir, k);
	t_write_file(path, fx->before ? fx->before : "");
	free(path);
	path = t_sprintf("%s/%zu-after.json", dir, k);
	t_write_file(path, fx->after);
	free(path);
}

static void build_fixture(const fl_home *h, size_t k, fixture *fx)
{
	const kind *kd = &kinds[k];
	shim_run o = {WALK_TIME, walk_seed(k), NULL, 0, NULL};
	fl_result r;
	report rep;
	char *again;
	size_t again_len;

	memset(fx, 0, sizeof(*fx));
	fx->k = kd;
	fl_set_session(h, shim_base, shim_base_len);
	fl_set_trace(h, shim_base_trace, shim_base_trace_len);
	for (int i = 0; i < kd->n_prep; i++) {
		shim_run p = {WALK_TIME - 100 + 10 * i, 1000 + i, NULL, 0, NULL};

		run_cli(h, &kd->prep[i], &p, &r);
		must_succeed(&kd->prep[i], &r, kd->name);
		fl_result_dispose(&r);
	}
	if (kd->corrupt) {
		/* a file cut off mid-write, as a crash without rename would leave */
		fx->before_len = shim_base_len * 2 / 3;
		fx->before = strndup(shim_base, fx->before_len);
	} else if (!kd->fresh) {
		fx->before = fl_get_session(h, &fx->before_len);
		fx->tbefore = fl_get_trace(h, &fx->tbefore_len);
	}

	/* the unfaulted run, counting every call */
	reset_home(h, fx);
	run_cli(h, &kd->hook, &o, &r);
	read_report(h, &rep);
	if (!rep.present)
		fail_msg("%s: the shim wrote no report; is %s loadable?", kd->name, FAILSHIM_PATH);
	must_succeed(&kd->hook, &r, kd->name);
	if (!strstr(r.out, kd->expect))
		fail_msg("%s: the unfaulted answer is not what this walk is meant to test:\n%s\nstderr: %s", kd->name,
			 r.out, r.err);
	if (!kd->corrupt && *r.err)
		fail_msg("%s: the unfaulted run warned: %s", kd->name, r.err);
	memcpy(fx->count, rep.count, sizeof(fx->count));
	fx->after = fl_get_session(h, &fx->after_len);
	fx->tafter = fl_get_trace(h, &fx->tafter_len);
	assert_non_null(fx->after);
	assert_true(fl_session_parses(fx->after, fx->after_len));
	fx->ref_out = strdup(r.out);
	fx->ref_err = strdup(r.err);
	fx->ref_status = r.status;
	fl_result_dispose(&r);

	dump_fixture(k, fx);

	/* the pinned clock and randomness make a second run write the very same bytes */
	reset_home(h, fx);
	run_cli(h, &kd->hook, &o, &r);
	again = fl_get_session(h, &again_len);
	if (!same_bytes(again, again_len, fx->after, fx->after_len) || strcmp(r.out, fx->ref_out) != 0)
		fail_msg("%s: two unfaulted runs differ; the walk needs them identical", kd->name);
	free(again);
	fl_result_dispose(&r);
}

static int shim_setup(void **state)
{
	(void)state;
	if (!*FAILSHIM_PATH)
		return 0;
	fl_home_make(&shim_home, SID, CONFIG);
	build_base(&shim_home);
	for (size_t k = 0; k < N_KINDS; k++)
		build_fixture(&shim_home, k, &shim_fx[k]);
	return 0;
}

static int shim_teardown(void **state)
{
	(void)state;
	for (size_t k = 0; k < N_KINDS; k++)
		fixture_dispose(&shim_fx[k]);
	free(shim_base);
	shim_base = NULL;
	free(shim_base_trace);
	shim_base_trace = NULL;
	fl_home_dispose(&shim_home);
	return 0;
}

static bool skip_without_shim(void)
{
	static bool told;

	if (*FAILSHIM_PATH)
		return false;
	if (!told)
		printf("the LD_PRELOAD shim cannot run in sanitizer builds (the sanitizer runtime must come "
		       "first); the in-process allocator walk still runs\n");
	told = true;
	skip();
	return true;
}

/*
 * After the follow-up the trace has every event it had before the fault,
 * and at most one line that is not an event: what a cut write left, ended
 * by the next append (a follow-up that adds no event leaves it open, and
 * readers pass over it; test_store checks the healing itself).
 */
static void follow_up_trace(const fl_home *h, const fixture *fx, const char *what)
{
	size_t len = 0;
	char *now = track(fl_get_trace(h, &len));
	fl_trace_lines tl, was;

	fl_trace_count(now, len, &tl);
	fl_trace_count(fx->tbefore, fx->tbefore_len, &was);
	if (tl.bad > 1 || tl.events < was.events)
		violation("%s; after the follow-up the trace has %ld events (%ld before), %ld broken line(s)",
			  what, tl.events, was.events, tl.bad);
}

/* After any fault: the same call again, unfaulted, must work; from an untouched start, exactly as normal. */
static void follow_up(const fl_home *h, size_t k, const fixture *fx, bool pristine, const char *what)
{
	shim_run o = {WALK_TIME, walk_seed(k), NULL, 0, NULL};
	fl_leftovers l;
	fl_result r;
	size_t len = 0;
	char *now;

	run_cli(h, &fx->k->hook, &o, &r);
	track_result(&r);
	now = track(fl_get_session(h, &len));
	if (pristine) {
		size_t tlen = 0;
		char *trace = track(fl_get_trace(h, &tlen));

		if (r.status != fx->ref_status || strcmp(r.out, fx->ref_out) != 0 ||
		    !same_bytes(now, len, fx->after, fx->after_len) ||
		    !(same_bytes(trace, tlen, fx->tafter, fx->tafter_len) || (!trace && !fx->tafter)))
			violation("%s; then the same call without a fault did not do what it normally does: "
				  "exit %d, stdout '%s', stderr '%s'",
				  what, r.status, r.out, r.err);
	} else if (is_decide(&fx->k->hook)) {
		/*
		 * The faulted run may have spent the ticket before failing (stdout
		 * on a full disk): the reviewer's retry is a new Bash call, which
		 * gets a ticket of its own.
		 */
		static const step retry_call = DECIDE_CALL("rv-2");

		run_cli(h, &retry_call, &o, &r);
		track_result(&r);
		run_cli(h, &fx->k->hook, &o, &r);
		track_result(&r);
		now = track(fl_get_session(h, &len));
		if (r.status != 0 || strncmp(r.out, "Recorded ", 9) != 0)
			violation("%s; then roz decide without a fault failed: exit %d, stderr '%s'", what,
				  r.status, r.err);
	} else if (r.status != 0 || !fl_one_json_object(r.out) || strstr(r.out, "\"allow\"") ||
		   strstr(r.err, "timed out") || strstr(r.err, "cannot")) {
		violation("%s; then the same hook without a fault went wrong: exit %d, stdout '%s', stderr '%s'",
			  what, r.status, r.out, r.err);
	}
	if (!now || !fl_session_parses(now, len))
		violation("%s; after the follow-up the session file %s", what,
			  now ? "does not parse" : "is missing");
	follow_up_trace(h, fx, what);
	fl_leftovers_scan(h, &l);
	if (l.tmp || l.other)
		violation("%s; the follow-up left behind:%s", what, l.names);
}

/* One faulted run of kind k and everything that must hold after it. */
static void fault_once(size_t k, size_t si, long n)
{
	const fl_home *h = &shim_home;
	const fixture *fx = &shim_fx[k];
	const fault_spec *f = &specs[si];
	shim_run o = {WALK_TIME, walk_seed(k), f, n, NULL};
	char what[900];
	bool pristine, changed, held;
	enum state st;
	fl_result r;
	report rep;

	reset_home(h, fx);
	run_cli(h, &fx->k->hook, &o, &r);
	track_result(&r);
	read_report(h, &rep);
	snprintf(what, sizeof(what), "[%s] %s call #%ld fails with %s%s (%s)", fx->k->name, f->func, n, f->err,
		 f->times == 0 ? " and every one after it" : "", rep.fired ? rep.call : "did not fire");
	stats.runs[si][k]++;
	if (r.signaled)
		violation("%s: roz died of signal %d\nstderr: %s", what, r.status - 128, r.err);
	if (!rep.present)
		violation("%s: roz exited without running its exit handlers (status %d)\nstderr: %s", what,
			  r.status, r.err);
	/* the calls before the Nth are those of the counting run, so the Nth one happens */
	if (rep.fired < 1)
		violation("%s: the fault never fired though the unfaulted run made %ld such calls", what,
			  fx->count[func_index(f->func)]);
	st = check_state(h, fx, what, &pristine);

	if (is_decide(&fx->k->hook)) {
		changed = r.status != 0;
		if (r.status == 0 && (strcmp(r.out, fx->ref_out) != 0 || st != S_AFTER))
			violation("%s: roz decide exited 0 (stdout '%s') but the session is in the state %s", what,
				  r.out, state_names[st]);
		if (r.status == 1 && !strstr(r.err, "roz: error:"))
			violation("%s: roz decide failed without 'roz: error:'; stderr '%s'", what, r.err);
		if (r.status != 0 && r.status != 1)
			violation("%s: roz decide exited %d, expected 0 or 1; stderr '%s'", what, r.status, r.err);
	} else {
		if (r.status != 0)
			violation("%s: exit status %d; a hook must always exit 0\nstdout: %s\nstderr: %s", what,
				  r.status, r.out, r.err);
		if (!fl_one_json_object(r.out))
			violation("%s: stdout is not one JSON object: '%s'\nstderr: %s", what, r.out, r.err);
		if (strstr(r.out, "\"allow\""))
			violation("%s: answered allow: %s", what, r.out);
		/* a config that cannot be read leaves the gates unknown: the call is put to the user */
		held = strstr(r.out, "\"permissionDecision\":\"ask\"") &&
		       strstr(r.out, "cannot tell which tools are gated");
		/* a gated call whose session cannot be read is asked about, never let through */
		held = held || (is_gated(fx) && asked_about_store(r.out));
		if (is_gated(fx) && strcmp(r.out, "{}\n") == 0 && !out_of_memory(f->func))
			violation("%s: the gate opened: answered {}\nstderr: %s", what, r.err);
		if (strcmp(r.out, "{}\n") != 0 && strcmp(r.out, fx->ref_out) != 0 && !held)
			violation("%s: answered neither {} nor the normal answer:\n%s\nnormal:\n%s", what, r.out,
				  fx->ref_out);
		/* a block the session does not remember would loop; a gate's refusal needs no memory */
		if (strcmp(r.out, "{}\n") != 0 && !held && st != S_AFTER && !is_gated(fx))
			violation("%s: answered '%.60s...' but the session is in the state %s", what, r.out,
				  state_names[st]);
		changed = strcmp(r.out, fx->ref_out) != 0 || st != S_AFTER;
		if (changed && !new_failure_warning(r.err, fx->ref_err))
			violation("%s: answered %.60s (session %s) without a 'roz: warning:' saying what failed; "
				  "stderr: '%s'",
				  what, r.out, state_names[st], r.err);
	}
	if (f->harmless && changed)
		violation("%s: an interrupted or partial call must be retried, not change the outcome; "
			  "exit %d, stdout '%s', stderr '%s', session %s",
			  what, r.status, r.out, r.err, state_names[st]);
	stats.changed[si][k] += changed;
	follow_up(h, k, fx, pristine, what);
}

static void test_shim_walk(void **state)
{
	(void)state;
	if (skip_without_shim())
		return;
	for (size_t k = 0; k < N_KINDS; k++) {
		for (size_t si = 0; si < N_SPECS; si++) {
			long last = shim_fx[k].count[func_index(specs[si].func)];

			for (long n = 1; n <= last; n = next_n(n, last, specs[si].stride, 1))
				run_case(fault_once, k, si, n);
		}
	}
	end_of_walk("shim walk");
}

static void stdout_fails_once(size_t k, size_t unused1, long unused2)
{
	const fixture *fx = &shim_fx[k];
	shim_run o = {WALK_TIME, walk_seed(k), NULL, 0, "/dev/full"};
	char what[200];
	bool pristine;
	fl_result r;

	snprintf(what, sizeof(what), "[%s] with stdout on /dev/full", fx->k->name);
	reset_home(&shim_home, fx);
	run_cli(&shim_home, &fx->k->hook, &o, &r);
	track_result(&r);
	stats.stdout_full++;
	if (r.status != 1 || !strstr(r.err, "roz: error:") || !strstr(r.err, "standard output"))
		violation("%s: expected exit 1 and 'roz: error: cannot write to standard output'; exit %d, "
			  "stderr '%s'",
			  what, r.status, r.err);
	check_state(&shim_home, fx, what, &pristine);
	follow_up(&shim_home, k, fx, pristine, what);
}

/* Nobody reads an answer that could not be written: exit 1 and say so. */
static void test_stdout_fails(void **state)
{
	(void)state;
	if (skip_without_shim())
		return;
	for (size_t k = 0; k < N_KINDS; k++)
		run_case(stdout_fails_once, k, 0, 0);
	end_of_walk("stdout on /dev/full");
}

/* The hooks' answer on a full disk: {} and a warning; the session file keeps its old bytes. */
static void expect_full_disk_answer(const fl_home *h, const fixture *fx, const fl_result *r, const char *what)
{
	bool pristine;
	enum state st;

	if (is_decide(&fx->k->hook)) {
		if (r->status != 1 || !strstr(r->err, "roz: error:"))
			violation("%s: roz decide should fail with 'roz: error:'; exit %d, stderr '%s'", what,
				  r->status, r->err);
	} else if (is_gated(fx)) {
		/* the gate's refusal stands though it cannot be saved; the warning says so */
		if (r->status != 0 || (strcmp(r->out, fx->ref_out) != 0 && !asked_about_store(r->out)) ||
		    !new_failure_warning(r->err, fx->ref_err))
			violation("%s: expected exit 0, the gate's refusal (or ask) and a warning; exit %d, "
				  "stdout '%s', stderr '%s'",
				  what, r->status, r->out, r->err);
	} else if (r->status != 0 || strcmp(r->out, "{}\n") != 0 || !new_failure_warning(r->err, fx->ref_err)) {
		violation("%s: expected exit 0, {} and a warning; exit %d, stdout '%s', stderr '%s'", what,
			  r->status, r->out, r->err);
	}
	st = check_state(h, fx, what, &pristine);
	if (st == S_AFTER)
		violation("%s: a new session file was written on a full disk", what);
}

static void full_disk_once(size_t k, size_t unused1, long unused2)
{
	static const fault_spec every_write = {"write", "ENOSPC", 0, false, 1};
	const fixture *fx = &shim_fx[k];
	shim_run o = {WALK_TIME, walk_seed(k), &every_write, 1, NULL};
	char what[200];
	fl_result r;

	snprintf(what, sizeof(what), "[%s] every write fails with ENOSPC", fx->k->name);
	reset_home(&shim_home, fx);
	run_cli(&shim_home, &fx->k->hook, &o, &r);
	track_result(&r);
	stats.full_disk++;
	expect_full_disk_answer(&shim_home, fx, &r, what);
	follow_up(&shim_home, k, fx, !fx->k->corrupt, what);
}

static void test_full_disk_shim(void **state)
{
	(void)state;
	if (skip_without_shim())
		return;
	for (size_t k = 0; k < N_KINDS; k++)
		run_case(full_disk_once, k, 0, 0);
	end_of_walk("every write ENOSPC");
}

/* ---- a real full file system ------------------------------------------------------------- */

static char *tmpfs_dir;
static fl_home tmpfs_home;

static int tmpfs_teardown(void **state)
{
	(void)state;
	fl_home_dispose(&tmpfs_home);
	if (tmpfs_dir) {
		umount2(tmpfs_dir, MNT_DETACH);
		rmdir(tmpfs_dir);
		free(tmpfs_dir);
		tmpfs_dir = NULL;
	}
	return 0;
}

/* Fill the file system holding `dir` to the last byte. */
static void fill_up(const char *dir)
{
	char *path = t_sprintf("%s/filler", dir), block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	memset(block, 'x', sizeof(block));
	for (size_t size = sizeof(block); size; size /= 2)
		while (write(fd, block, size) == (ssize_t)size)
			;
	close(fd);
	free(path);
}

static void tmpfs_once(size_t k, size_t unused1, long unused2)
{
	const fixture *fx = &shim_fx[k];
	shim_run o = {WALK_TIME, walk_seed(k), NULL, 0, NULL};
	char what[200], *filler = track(t_sprintf("%s/filler", tmpfs_dir));
	fl_result r;

	snprintf(what, sizeof(what), "[%s] on a full 64 KiB tmpfs", fx->k->name);
	reset_home(&tmpfs_home, fx);
	fill_up(tmpfs_dir);
	run_cli(&tmpfs_home, &fx->k->hook, &o, &r);
	track_result(&r);
	stats.tmpfs++;
	unlink(filler); /* room again before any check can end the case */
	expect_full_disk_answer(&tmpfs_home, fx, &r, what);
	follow_up(&tmpfs_home, k, fx, !fx->k->corrupt, what);
}

static void test_full_tmpfs(void **state)
{
	const char *parent = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	(void)state;
	if (skip_without_shim())
		return;
	if (geteuid() != 0) {
		printf("a real full file system needs root to mount a 64 KiB tmpfs\n");
		skip();
	}
	tmpfs_dir = t_sprintf("%s/roz-fault-tmpfs-XXXXXX", parent);
	if (!mkdtemp(tmpfs_dir))
		fail_msg("mkdtemp: %s", strerror(errno));
	if (mount("tmpfs", tmpfs_dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0700") < 0) {
		printf("cannot mount a tmpfs here (%s); the shim's full disk still ran\n", strerror(errno));
		skip();
	}
	fl_home_make_in(&tmpfs_home, tmpfs_dir, SID, CONFIG);
	for (size_t k = 0; k < N_KINDS; k++)
		run_case(tmpfs_once, k, 0, 0);
	end_of_walk("full tmpfs");
}

/* ======================================================================================= */
/* The in-process walk: roz_runner_hook with roz's allocator failing from the Nth call on  */
/* ======================================================================================= */

/* roz's wall clock and getrandom() are routed here (-Wl,--wrap) so runs can be repeated exactly. */
static struct {
	bool on;
	long now;
	uint64_t rng;
	long allocs; /* roz_malloc calls the last ip_run made */
} fake;

int __real_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts);
ssize_t __real_getrandom(void *buf, size_t n, unsigned int flags);
ssize_t __wrap_getrandom(void *buf, size_t n, unsigned int flags);

int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (fake.on && clk == CLOCK_REALTIME) {
		ts->tv_sec = fake.now;
		ts->tv_nsec = 0;
		return 0;
	}
	return __real_clock_gettime(clk, ts);
}

ssize_t __wrap_getrandom(void *buf, size_t n, unsigned int flags)
{
	unsigned char *p = buf;

	if (!fake.on)
		return __real_getrandom(buf, n, flags);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(fl_rand(&fake.rng) >> 56);
	return (ssize_t)n;
}

static void fake_start(long when, long seed)
{
	fake.on = true;
	fake.now = when;
	fake.rng = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 1;
}

static const char *ip_getenv(void *ud, const char *name)
{
	const fl_home *h = ud;

	if (strcmp(name, "ROZ_HOME") == 0 || strcmp(name, "HOME") == 0)
		return h->dir;
	if (strcmp(name, "PATH") == 0)
		return "/usr/bin:/bin";
	return NULL;
}

static void ip_warn(void *ud, const char *msg)
{
	roz_buf_addf(ud, "roz: warning: %s\n", msg);
}

/*
 * One call in this process, as the CLI would make it. For a hook, `answer`
 * is what `roz hook` would print (it prints {} itself when the runner could
 * not build one); for decide, rc < 0 is the CLI's exit 1.
 */
static int ip_run(const fl_home *h, const step *s, long when, long seed, char **answer, roz_buf *err)
{
	roz_buf out = ROZ_BUF_INIT;
	int rc;

	fake_start(when, seed);
	*answer = NULL;
	if (is_decide(s)) {
		roz_runner_opts opts = {.open_store = t_file_store_open};
		roz_config cfg;
		roz_decide_request req;

		/* as cli_load_config: a config that does not load stops the command */
		rc = roz_config_load(&cfg, ip_getenv, (void *)(uintptr_t)h, ip_warn, err);
		if (rc >= 0) {
			memset(&req, 0, sizeof(req));
			req.session_id = SID;
			req.kind = strcmp(s->verdict, "COMPLETE") == 0 ? ROZ_DECISION_COMPLETE : ROZ_DECISION_ISSUES;
			req.summary = s->summary;
			req.message = s->message;
			rc = roz_runner_decide(&cfg, &req, &opts);
			roz_config_dispose(&cfg);
		} else if (rc != ROZ_ENOMEM) {
			roz_config_dispose(&cfg); /* loaded, with an error: still allocated */
		}
		if (rc < 0)
			roz_buf_addf(err, "roz: error: %s\n", roz_error_last());
	} else {
		roz_runner_opts opts = {ip_getenv, (void *)(uintptr_t)h, .open_store = t_file_store_open};

		rc = roz_runner_hook(s->event, s->input, strlen(s->input), &out, err, &opts);
	}
	fake.on = false;
	fake.allocs = roz_alloc_count();
	roz_alloc_fail_after(-1);
	if (!is_decide(s))
		*answer = strdup(rc == ROZ_OK && !out.oom && out.len ? out.ptr : "{}\n");
	roz_buf_dispose(&out);
	return rc;
}

static fl_home ip_home;
static fixture ip_fx[N_KINDS];

static void ip_must_succeed(const step *s, int rc, const char *answer, const roz_buf *err, const char *phase)
{
	if (rc != ROZ_OK || (answer && !fl_one_json_object(answer)))
		fail_msg("%s: %s failed in process: %s (%s)\n%s", phase, s->event, roz_error_name(rc),
			 roz_error_last(), roz_buf_cstr(err));
}

static void ip_step(const fl_home *h, const step *s, long when, long seed, const char *phase)
{
	roz_buf err = ROZ_BUF_INIT;
	char *answer;
	int rc = ip_run(h, s, when, seed, &answer, &err);

	ip_must_succeed(s, rc, answer, &err, phase);
	free(answer);
	roz_buf_dispose(&err);
}

static char *ip_base_trace;
static size_t ip_base_trace_len;

static void ip_build_fixture(const fl_home *h, const char *base, size_t base_len, size_t k, fixture *fx)
{
	const kind *kd = &kinds[k];
	roz_buf err = ROZ_BUF_INIT;
	char *answer, *again;
	size_t again_len;
	int rc;

	memset(fx, 0, sizeof(*fx));
	fx->k = kd;
	fl_set_session(h, base, base_len);
	fl_set_trace(h, ip_base_trace, ip_base_trace_len);
	for (int i = 0; i < kd->n_prep; i++)
		ip_step(h, &kd->prep[i], WALK_TIME - 100 + 10 * i, 1000 + i, kd->name);
	if (kd->corrupt) {
		fx->before_len = base_len * 2 / 3;
		fx->before = strndup(base, fx->before_len);
	} else if (!kd->fresh) {
		fx->before = fl_get_session(h, &fx->before_len);
		fx->tbefore = fl_get_trace(h, &fx->tbefore_len);
	}
	reset_home(h, fx);
	roz_alloc_fail_after(-1);
	rc = ip_run(h, &kd->hook, WALK_TIME, walk_seed(k), &answer, &err);
	fx->allocs = fake.allocs;
	ip_must_succeed(&kd->hook, rc, answer, &err, kd->name);
	if (answer && !strstr(answer, kd->expect))
		fail_msg("%s: the unfaulted in-process answer is not what this walk tests: %s", kd->name, answer);
	fx->after = fl_get_session(h, &fx->after_len);
	fx->tafter = fl_get_trace(h, &fx->tafter_len);
	assert_non_null(fx->after);
	fx->ref_out = answer ? answer : strdup("");
	fx->ref_err = strdup(roz_buf_cstr(&err));
	fx->ref_status = 0;
	roz_buf_dispose(&err);

	reset_home(h, fx);
	rc = ip_run(h, &kd->hook, WALK_TIME, walk_seed(k), &answer, &err);
	again = fl_get_session(h, &again_len);
	if (rc != ROZ_OK || !same_bytes(again, again_len, fx->after, fx->after_len))
		fail_msg("%s: two unfaulted in-process runs differ; the walk needs them identical", kd->name);
	free(again);
	free(answer);
	roz_buf_dispose(&err);
}

static int ip_setup(void **state)
{
	char *base;
	size_t base_len;

	(void)state;
	fl_home_make(&ip_home, SID, CONFIG);
	for (size_t i = 0; i < sizeof(base_steps) / sizeof(base_steps[0]); i++)
		ip_step(&ip_home, &base_steps[i], T0 + 10 * (long)i, 1 + (long)i, "building the base session");
	base = fl_get_session(&ip_home, &base_len);
	assert_non_null(base);
	ip_base_trace = fl_get_trace(&ip_home, &ip_base_trace_len);
	for (size_t k = 0; k < N_KINDS; k++)
		ip_build_fixture(&ip_home, base, base_len, k, &ip_fx[k]);
	free(base);
	free(ip_base_trace);
	ip_base_trace = NULL;
	return 0;
}

static int ip_teardown(void **state)
{
	(void)state;
	for (size_t k = 0; k < N_KINDS; k++)
		fixture_dispose(&ip_fx[k]);
	fl_home_dispose(&ip_home);
	return 0;
}

/* The trace file is the one the unfaulted hook writes. */
static bool same_trace(const fl_home *h, const fixture *fx)
{
	size_t len = 0;
	char *now = track(fl_get_trace(h, &len));

	return same_bytes(now, len, fx->tafter, fx->tafter_len) || (!now && !fx->tafter);
}

static void ip_follow_up(size_t k, const fixture *fx, bool pristine, const char *what)
{
	roz_buf err = ROZ_BUF_INIT;
	char *answer, *now;
	size_t len = 0;
	fl_leftovers l;
	int rc = ip_run(&ip_home, &fx->k->hook, WALK_TIME, walk_seed(k), &answer, &err);

	track(answer);
	track(err.ptr);
	now = track(fl_get_session(&ip_home, &len));
	if (rc != ROZ_OK || (answer && (!fl_one_json_object(answer) || strstr(answer, "\"allow\""))))
		violation("%s; then the same call without a fault failed: %s, %s", what, roz_error_name(rc),
			  roz_buf_cstr(&err));
	if (pristine && ((answer && strcmp(answer, fx->ref_out) != 0) ||
			 !same_bytes(now, len, fx->after, fx->after_len) || !same_trace(&ip_home, fx)))
		violation("%s; then the same call without a fault did not do what it normally does", what);
	if (!now || !fl_session_parses(now, len))
		violation("%s; after the follow-up the session file %s", what,
			  now ? "does not parse" : "is missing");
	follow_up_trace(&ip_home, fx, what);
	fl_leftovers_scan(&ip_home, &l);
	if (l.tmp || l.other)
		violation("%s; the follow-up left behind:%s", what, l.names);
}

static void ip_fault_once(size_t k, size_t unused, long n)
{
	const fixture *fx = &ip_fx[k];
	roz_buf err = ROZ_BUF_INIT;
	char what[300], *answer;
	bool pristine, changed;
	enum state st;
	int rc;

	snprintf(what, sizeof(what), "[%s, in process] allocation #%ld and every one after it fail", fx->k->name,
		 n + 1);
	reset_home(&ip_home, fx);
	roz_alloc_fail_after(n);
	rc = ip_run(&ip_home, &fx->k->hook, WALK_TIME, walk_seed(k), &answer, &err);
	track(answer);
	track(err.ptr);
	stats.ip_runs[k]++;
	st = check_state(&ip_home, fx, what, &pristine);
	if (is_decide(&fx->k->hook)) {
		if (rc == ROZ_OK && st != S_AFTER)
			violation("%s: roz decide succeeded but the session is in the state %s", what,
				  state_names[st]);
		changed = rc != ROZ_OK;
	} else {
		if (rc != ROZ_OK && rc != ROZ_ENOMEM)
			violation("%s: roz_runner_hook returned %s", what, roz_error_name(rc));
		if (!fl_one_json_object(answer) || strstr(answer, "\"allow\""))
			violation("%s: unsafe answer '%s'", what, answer);
		if (strcmp(answer, "{}\n") != 0 && strcmp(answer, fx->ref_out) != 0)
			violation("%s: answered neither {} nor the normal answer: %s", what, answer);
		if (strcmp(answer, "{}\n") != 0 && st != S_AFTER)
			violation("%s: answered '%.60s...' but the session is in the state %s", what, answer,
				  state_names[st]);
		changed = strcmp(answer, fx->ref_out) != 0 || st != S_AFTER;
		if (changed && !new_failure_warning(roz_buf_cstr(&err), fx->ref_err)) {
			/*
			 * With every allocation failing the warning itself may find no
			 * memory. roz_runner_hook then leaves err marked out of memory, and
			 * its caller (`roz hook`) prints a fixed warning line; the shim
			 * walk checks that line in the real process.
			 */
			if (err.oom) {
				stats.ip_silent[k]++;
			} else {
				violation("%s: answered {} (session %s) without a warning; err '%s'", what,
					  state_names[st], roz_buf_cstr(&err));
			}
		}
	}
	stats.ip_changed[k] += changed;
	ip_follow_up(k, fx, pristine, what);
}

static void test_inprocess_alloc_walk(void **state)
{
	(void)state;
	for (size_t k = 0; k < N_KINDS; k++) {
		long last = ip_fx[k].allocs;

		stats.ip_allocs[k] = last;
		for (long n = 0; n < last; n = next_n(n, last - 1, 1, 24))
			run_case(ip_fault_once, k, 0, n);
	}
	end_of_walk("in-process allocator walk");
}

/* ---- summary --------------------------------------------------------------------------------- */

static void print_summary(void)
{
	long total = 0, changed = 0;

	if (*FAILSHIM_PATH && stats.runs[0][0]) {
		printf("\nShim walk: faulted runs per function (outcome changed: {} or exit 1)\n%-22s", "");
		for (size_t k = 0; k < N_KINDS; k++)
			printf(" %9s", kind_tags[k]);
		printf("\n");
		for (size_t si = 0; si < N_SPECS; si++) {
			char label[40];

			snprintf(label, sizeof(label), "%s %s%s", specs[si].func, specs[si].err,
				 specs[si].times == 0 ? " (all)" : "");
			printf("%-22s", label);
			for (size_t k = 0; k < N_KINDS; k++) {
				char cell[24];

				snprintf(cell, sizeof(cell), "%ld(%ld)", stats.runs[si][k], stats.changed[si][k]);
				printf(" %9s", cell);
				total += stats.runs[si][k];
				changed += stats.changed[si][k];
			}
			printf("\n");
		}
		printf("shim walk: %ld faulted runs, %ld changed the outcome; stdout on /dev/full: %ld; "
		       "every write ENOSPC: %ld; full tmpfs: %ld\n",
		       total, changed, stats.stdout_full, stats.full_disk, stats.tmpfs);
	}
	total = changed = 0;
	printf("\nIn-process allocator walk (allocations per call; runs; changed; warning lost to OOM)\n");
	for (size_t k = 0; k < N_KINDS; k++) {
		printf("  %-26s %5ld allocs %5ld runs %5ld changed %5ld silent\n", kinds[k].name, stats.ip_allocs[k],
		       stats.ip_runs[k], stats.ip_changed[k], stats.ip_silent[k]);
		total += stats.ip_runs[k];
	}
	printf("in-process walk: %ld runs\n", total);
	for (size_t i = 0; i < N_KNOWN; i++) {
		if (!known_bugs[i].id)
			continue;
		if (known_hits[i])
			printf("known bug %s: %ld cases\n", known_bugs[i].id, known_hits[i]);
		else if (*FAILSHIM_PATH)
			printf("known bug %s did not occur: if roz was fixed, remove it from known_bugs\n",
			       known_bugs[i].id);
	}
}

int main(void)
{
	const struct CMUnitTest shim_tests[] = {
		cmocka_unit_test(test_shim_walk),
		cmocka_unit_test(test_stdout_fails),
		cmocka_unit_test(test_full_disk_shim),
		cmocka_unit_test_teardown(test_full_tmpfs, tmpfs_teardown),
	};
	const struct CMUnitTest ip_tests[] = {
		cmocka_unit_test(test_inprocess_alloc_walk),
	};
	int failed;

	roz_alloc_init();
	keep_going = getenv("ROZ_FAULT_KEEP_GOING") && strcmp(getenv("ROZ_FAULT_KEEP_GOING"), "0") != 0;
	strict = getenv("ROZ_FAULT_STRICT") && strcmp(getenv("ROZ_FAULT_STRICT"), "0") != 0;
	failed = cmocka_run_group_tests_name("fault injection, real roz under the shim", shim_tests, shim_setup,
					     shim_teardown);
	failed += cmocka_run_group_tests_name("fault injection, allocator walk in process", ip_tests, ip_setup,
					      ip_teardown);
	print_summary();
	return failed ? 1 : 0;
}
