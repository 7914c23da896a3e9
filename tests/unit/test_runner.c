/*
 * test_runner.c - the runner with the store it is given: hooks and verdicts
 * kept in a memory store and nowhere else, the store opened only when a
 * session is needed, no store at all, and a store that fails each of its
 * calls in turn, which must never cost the user more than a warning and {}.
 */
#include "stores.h"
#include "support.h"

#include "roz/config_load.h"
#include "roz/runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SID "run-1"

typedef struct world {
	char *home;    /* ROZ_HOME and HOME: the config, and where a file store would go */
	roz_store *mem;
	unsigned opened; /* stores open_counted opened */
} world;

static const char *world_getenv(void *ud, const char *name)
{
	world *w = ud;

	if (strcmp(name, "ROZ_HOME") == 0 || strcmp(name, "HOME") == 0)
		return w->home;
	if (strcmp(name, "PATH") == 0)
		return "/nonexistent";
	return NULL;
}

static int setup(void **state)
{
	world *w = calloc(1, sizeof(*w));
	char *cfg;

	assert_non_null(w);
	w->home = t_mkdtemp();
	cfg = t_sprintf("%s/config.toml", w->home);
	/* verdicts count as recorded: the tickets behind them are test_decide's business */
	t_write_file(cfg, "[review]\nrequire_reviewer = false\n[review.gates]\ntools = [\"Bash:git push*\"]\n");
	free(cfg);
	assert_int_equal(roz_store_memory_new(&w->mem), ROZ_OK);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	world *w = *state;

	roz_store_free(w->mem);
	t_rmtree(w->home);
	free(w->home);
	free(w);
	return 0;
}

/* Run a hook; its answer (caller frees), and its warnings in *err when asked for (caller frees). */
static char *hook(world *w, const roz_runner_opts *given, const char *event, const char *json, char **err)
{
	roz_runner_opts opts = *given;
	roz_buf out = ROZ_BUF_INIT, warnings = ROZ_BUF_INIT;
	char *answer;

	opts.getenv_fn = world_getenv;
	opts.env_ud = w;
	assert_int_equal(roz_runner_hook(event, json, strlen(json), &out, &warnings, &opts), ROZ_OK);
	assert_false(out.oom);
	answer = t_sprintf("%s", roz_buf_cstr(&out));
	if (err)
		*err = t_sprintf("%s", roz_buf_cstr(&warnings));
	roz_buf_dispose(&out);
	roz_buf_dispose(&warnings);
	return answer;
}

/* Run a hook for what it leaves behind. */
static void run(world *w, const roz_runner_opts *opts, const char *event, const char *json)
{
	free(hook(w, opts, event, json, NULL));
}

static void expect_answer(world *w, const roz_runner_opts *opts, const char *event, const char *json,
			  const char *want)
{
	char *err, *got = hook(w, opts, event, json, &err);

	if (!strstr(got, want))
		fail_msg("%s answered %s(stderr: %s), expected %s", event, got, err, want);
	free(got);
	free(err);
}

#define PROMPT "{\"session_id\":\"" SID "\",\"cwd\":\"/w\",\"prompt\":\"#roz fix the parser\"}"
#define STOP "{\"session_id\":\"" SID "\",\"cwd\":\"/w\"}"
#define READ_CALL                                                                                      \
	"{\"session_id\":\"" SID "\",\"cwd\":\"/w\",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"/w/a\"}}"
#define BLOCK "\"decision\":\"block\""

static roz_session *held_session(roz_store *store)
{
	roz_session *s = NULL;

	assert_int_equal(roz_store_get(store, SID, &s), ROZ_OK);
	return s;
}

/* The file store the config names is never touched when the caller gives a store. */
static void expect_no_file_store(const world *w)
{
	char *dir = t_sprintf("%s/sessions", w->home);
	struct stat st;

	if (lstat(dir, &st) == 0)
		fail_msg("the runner made '%s' though it was given a memory store", dir);
	free(dir);
}

static void hooks_keep_state_in_the_given_store(void **state)
{
	world *w = *state;
	roz_runner_opts opts = {.store = w->mem};
	roz_session *s;

	run(w, &opts, "user-prompt", PROMPT);
	expect_answer(w, &opts, "stop", STOP, BLOCK);
	s = held_session(w->mem);
	assert_true(s->review.enabled);
	assert_int_equal(s->review.block_count, 1);
	roz_session_free(s);
	/* a second stop reads what the first kept: the same review, one more block */
	expect_answer(w, &opts, "stop", STOP, BLOCK);
	s = held_session(w->mem);
	assert_int_equal(s->review.block_count, 2);
	roz_session_free(s);
	expect_no_file_store(w);
}

static void decide_records_in_the_given_store(void **state)
{
	world *w = *state;
	roz_runner_opts opts = {.store = w->mem};
	roz_decide_request req = {SID, ROZ_DECISION_COMPLETE, "looks right", NULL, NULL, NULL, false};
	roz_config config;
	roz_session *s;

	run(w, &opts, "user-prompt", PROMPT);
	expect_answer(w, &opts, "stop", STOP, BLOCK);
	assert_int_equal(roz_config_load(&config, world_getenv, w, NULL, NULL), ROZ_OK);
	assert_int_equal(roz_runner_decide(&config, &req, &opts), ROZ_OK);
	s = held_session(w->mem);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_string_equal(s->review.decision.summary, "looks right");
	roz_session_free(s);
	/* the verdict lets the agent go */
	expect_answer(w, &opts, "stop", STOP, "{}");
	/* a session the store does not hold is unknown */
	req.session_id = "nobody";
	assert_int_equal(roz_runner_decide(&config, &req, &opts), ROZ_ENOTFOUND);
	roz_config_dispose(&config);
	expect_no_file_store(w);
}

/* Hands out the world's memory store, counting: the runner frees what it opened. */
static int open_counted(void *ud, const roz_config *config, roz_store_warn_fn warn, void *warn_ud,
			roz_store **out)
{
	world *w = ud;

	(void)config;
	(void)warn;
	(void)warn_ud;
	w->opened++;
	return roz_store_memory_new(out);
}

static void store_opened_only_when_a_session_is_needed(void **state)
{
	world *w = *state;
	roz_runner_opts opts = {.open_store = open_counted, .store_ud = w};

	/* no gate matches a Read: answered without the session, so without a store */
	expect_answer(w, &opts, "pre-tool-use", READ_CALL, "{}");
	assert_int_equal(w->opened, 0);
	expect_answer(w, &opts, "stop", STOP, "{}");
	assert_int_equal(w->opened, 1);
	/* each run opens its own, and frees it (the leak checkers see the rest) */
	run(w, &opts, "user-prompt", PROMPT);
	assert_int_equal(w->opened, 2);
}

static int open_refused(void *ud, const roz_config *config, roz_store_warn_fn warn, void *warn_ud,
			roz_store **out)
{
	(void)ud;
	(void)config;
	(void)warn;
	(void)warn_ud;
	*out = NULL;
	roz_error_set_errno(EACCES, "cannot use storage directory '/nowhere'");
	return ROZ_EIO;
}

/* Without a usable store a hook warns and answers {}; a verdict fails with the reason. */
static void no_store_fails_open(void **state)
{
	world *w = *state;
	roz_runner_opts none = {NULL}, refused = {.open_store = open_refused};
	roz_decide_request req = {SID, ROZ_DECISION_COMPLETE, "looks right", NULL, NULL, NULL, false};
	roz_config config;
	char *err, *got;

	got = hook(w, &none, "user-prompt", PROMPT, &err);
	assert_string_equal(got, "{}\n");
	assert_non_null(strstr(err, "roz: warning: user-prompt: no session store was given"));
	free(got);
	free(err);
	got = hook(w, &refused, "stop", STOP, &err);
	assert_string_equal(got, "{}\n");
	assert_non_null(strstr(err, "roz: warning: stop: cannot use storage directory '/nowhere': "));
	free(got);
	free(err);
	assert_int_equal(roz_config_load(&config, world_getenv, w, NULL, NULL), ROZ_OK);
	assert_int_equal(roz_runner_decide(&config, &req, &none), ROZ_EINVALID);
	assert_non_null(strstr(roz_error_last(), "no session store"));
	assert_int_equal(roz_runner_decide(&config, &req, &refused), ROZ_EIO);
	assert_non_null(strstr(roz_error_last(), "/nowhere"));
	roz_config_dispose(&config);
	expect_no_file_store(w);
}

/* What one run through a failing store must leave: checked by each test. */
typedef void (*through_check_fn)(unsigned long n, roz_store *failing, roz_store *inner, const char *got,
				 const char *err);

/*
 * Run hook `event` with `json` on a store that holds `pending` and fails
 * its Nth call, for every call the hook makes (at least `min_calls`),
 * before the store does the work and after; `check` judges each run.
 */
static void through_failing_stores(world *w, roz_session *pending, const char *event,
				   const char *json, unsigned long min_calls, through_check_fn check)
{
	t_failing_opts fail = {0, ROZ_EIO, ENOSPC, T_FAIL_BEFORE};
	unsigned long total = 0;

	/* each run on a store of its own holding the pending review (the wrapper takes it over) */
	for (int when = T_FAIL_BEFORE; when <= T_FAIL_AFTER; when++) {
		for (unsigned long n = 0;; n++) {
			roz_store *inner, *failing;
			roz_runner_opts opts = {NULL};
			char *err, *got;

			assert_int_equal(roz_store_memory_new(&inner), ROZ_OK);
			pending->trace_saved = 0; /* every store gets the whole trace */
			assert_int_equal(roz_store_put(inner, pending), ROZ_OK);
			fail.fail_at = n;
			fail.when = (t_fail_when)when;
			assert_int_equal(t_failing_store(inner, &fail, &failing), ROZ_OK);
			opts.store = failing;
			got = hook(w, &opts, event, json, &err);
			if (n == 0) {
				total = t_failing_calls(failing);
				assert_true(total >= min_calls);
			}
			check(n, failing, inner, got, err);
			roz_store_free(failing);
			free(got);
			free(err);
			if (n >= total)
				break;
		}
	}
}

static void check_stop(unsigned long n, roz_store *failing, roz_store *inner, const char *got,
		       const char *err)
{
	roz_lock *lk = NULL;
	roz_session *s;

	if (t_failing_fired(failing)) {
		if (strcmp(got, "{}\n") != 0 || !strstr(err, "roz: warning: stop: ") ||
		    !strstr(err, "failure injected") || !strstr(err, "answering {}"))
			fail_msg("call %lu failed: answered %s with stderr '%s'", n, got, err);
	} else if (!strstr(got, BLOCK)) {
		fail_msg("call %lu (not failed): answered %s with stderr '%s'", n, got, err);
	}
	/* the review as it was, or with this stop's block: nothing else */
	s = held_session(inner);
	if (s->review.block_count > 1 || !s->review.enabled)
		fail_msg("call %lu failed: kept enabled=%d with %u blocks", n, s->review.enabled,
			 s->review.block_count);
	if (!t_failing_fired(failing) && s->review.block_count != 1)
		fail_msg("a stop that nothing failed kept %u blocks", s->review.block_count);
	roz_session_free(s);
	/* nothing the run took is still held */
	assert_int_equal(roz_store_lock(inner, SID, 0, &lk), ROZ_OK);
	roz_store_unlock(inner, lk);
}

/*
 * A pending review's stop through a store that fails its Nth call, for
 * every call the stop makes, before the store does the work and after:
 * the answer is the block, or {} with a warning naming the failure; the
 * session kept is the one before or the one after; and the lock is free.
 */
static void stop_through_a_failing_store(void **state)
{
	world *w = *state;
	roz_runner_opts plain = {.store = w->mem};
	roz_session *pending;

	run(w, &plain, "user-prompt", PROMPT);
	pending = held_session(w->mem);
	assert_int_equal(pending->review.block_count, 0);
	through_failing_stores(w, pending, "stop", STOP, 4 /* lock, get, put, unlock */, check_stop);
	roz_session_free(pending);
}

static void check_gated(unsigned long n, roz_store *failing, roz_store *inner, const char *got,
			const char *err)
{
	(void)inner;
	if (!strstr(got, "\"permissionDecision\":\"deny\"") && !strstr(got, "\"permissionDecision\":\"ask\""))
		fail_msg("call %lu (%s): the gate opened: answered %s with stderr '%s'", n,
			 t_failing_fired(failing) ? "failed" : "not failed", got, err);
	if (t_failing_fired(failing) && !strstr(err, "failure injected"))
		fail_msg("call %lu failed without a word: stderr '%s'", n, err);
}

/*
 * A gated call through a store that fails its Nth call: whatever fails,
 * the gate never opens; the answer is the gate's own refusal, or `ask`
 * naming the failure.
 */
static void gated_call_through_a_failing_store(void **state)
{
	world *w = *state;
	roz_runner_opts plain = {.store = w->mem};
	roz_session *pending;
	const char *push = "{\"session_id\":\"" SID "\",\"cwd\":\"/w\",\"tool_name\":\"Bash\","
			   "\"tool_input\":{\"command\":\"git push origin main\"}}";

	run(w, &plain, "user-prompt", PROMPT);
	pending = held_session(w->mem);
	through_failing_stores(w, pending, "pre-tool-use", push, 2 /* lock, get */, check_gated);
	roz_session_free(pending);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(hooks_keep_state_in_the_given_store, setup, teardown),
		cmocka_unit_test_setup_teardown(decide_records_in_the_given_store, setup, teardown),
		cmocka_unit_test_setup_teardown(store_opened_only_when_a_session_is_needed, setup, teardown),
		cmocka_unit_test_setup_teardown(no_store_fails_open, setup, teardown),
		cmocka_unit_test_setup_teardown(stop_through_a_failing_store, setup, teardown),
		cmocka_unit_test_setup_teardown(gated_call_through_a_failing_store, setup, teardown),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
