/*
 * test_background.c - the review loop when the reviewer runs in the
 * background (Claude Code 2.1.3xx does so by default): stops while it works
 * end the turn without costing a block, one reviewer works at a time, its
 * verdict is enforced at the stop after it finishes, and a task
 * notification is never taken for the user's prompt.
 */
#include "hookenv.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define SID "bg-1"

static int setup(void **state)
{
	t_hooks *h = test_malloc(sizeof(*h));

	th_init(h);
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	th_dispose(*state);
	test_free(*state);
	return 0;
}

/* A Stop whose background_tasks lists agent `id` with `status` ("" lists nothing). */
static roz_output_kind stop_listing(t_hooks *h, const char *id, const char *status, t_out *out)
{
	if (!*id)
		return th_run(h, ROZ_HOOK_STOP, out,
			      "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"stop_hook_active\":false,"
			      "\"background_tasks\":[]}",
			      SID);
	return th_run(h, ROZ_HOOK_STOP, out,
		      "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"stop_hook_active\":false,"
		      "\"background_tasks\":[{\"id\":\"%s\",\"type\":\"subagent\",\"status\":\"%s\","
		      "\"description\":\"roz review\",\"agent_type\":\"roz:roz\"}]}",
		      SID, id, status);
}

static roz_output_kind stop_while(t_hooks *h, const char *id)
{
	t_out out;
	roz_output_kind k = stop_listing(h, id, "running", &out);

	th_out_dispose(&out);
	return k;
}

/* The main agent's Agent call for roz:roz. */
static roz_output_kind launch(t_hooks *h, t_out *out)
{
	return th_run(h, ROZ_HOOK_PRE_TOOL_USE, out,
		      "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"Agent\",\"tool_input\":"
		      "{\"description\":\"roz review\",\"prompt\":\"SESSION_ID=%s\","
		      "\"subagent_type\":\"roz:roz\"}}",
		      SID, SID);
}

static roz_output_kind launch_kind(t_hooks *h)
{
	t_out out;
	roz_output_kind k = launch(h, &out);

	th_out_dispose(&out);
	return k;
}

/* A task notification turn, as Claude Code starts it when a background agent ends. */
static void notification(t_hooks *h, const char *id)
{
	t_out out;

	assert_int_equal(th_run(h, ROZ_HOOK_USER_PROMPT, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"prompt\":\"<task-notification>\\n"
				"<task-id>%s</task-id>\\n<status>completed</status>\\n"
				"<result>Review recorded.</result>\\n</task-notification>\"}",
				SID, id),
			 ROZ_OUTPUT_ALLOW);
	assert_false(out.saved);
	th_out_dispose(&out);
}

/* A #roz task whose first stop was blocked and whose reviewer (launched by the agent) has started. */
static void reviewer_started(t_hooks *h, const char *agent_id)
{
	th_prompt(h, SID, "#roz add the feature");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, agent_id);
}

static void record(t_hooks *h, roz_decision_kind kind, const char *summary, const char *message)
{
	th_decide(h, SID, kind, summary, message);
}

/* ---- the whole loop ------------------------------------------------------------------- */

static void background_reviewer_approves(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

reviewer_started(h, "ag1");
	/* the agent ends its turn while the reviewer works: let through, said on stderr */
	assert_int_equal(stop_listing(h, "ag1", "running", &out), ROZ_OUTPUT_ALLOW);
	assert_non_null(strstr(out.notes, "still working on session " SID));
	assert_non_null(strstr(out.notes, "checked when the agent next stops"));
	th_out_dispose(&out);
	th_advance_ms(h, 2000);
	record(h, ROZ_DECISION_COMPLETE, "all there", NULL);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag1"), ROZ_OUTPUT_ALLOW);
	notification(h, "ag1");
	assert_int_equal(stop_listing(h, "", "", &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);

	s = th_get(h, SID);
	assert_int_equal(s->review.block_count, 1);
	assert_int_equal(s->review.wait_blocks, 1);
	assert_int_equal(s->review.n_attempts, 1);
	assert_int_equal(s->review.attempts[0].outcome, ROZ_OUTCOME_SUCCESS);
	assert_int_equal(s->review.n_prompts, 1);
	assert_int_equal(s->review.n_reviewers, 0);
	assert_true(s->review.decision_trusted);
	roz_session_free(s);
}

static void background_issues_reach_the_agent_and_the_fix_gets_its_own_review(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

reviewer_started(h, "ag1");
	assert_int_equal(stop_while(h, "ag1"), ROZ_OUTPUT_ALLOW);
	th_advance_ms(h, 1000);
	record(h, ROZ_DECISION_ISSUES, "no tests", "add a test for the empty input");
	/* recorded but its reviewer still runs: the turn may still end */
	assert_int_equal(stop_while(h, "ag1"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag1"), ROZ_OUTPUT_ALLOW);
	notification(h, "ag1");
	/* the stop after the notification carries the reviewer's message */
	assert_int_equal(stop_listing(h, "", "", &out), ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "add a test for the empty input"));
	assert_non_null(strstr(out.text, "SESSION_ID=" SID));
	th_out_dispose(&out);
	/* the fix, and a second reviewer: the old ISSUES does not leak into its run */
	th_advance_ms(h, 1000);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "ag2");
	assert_int_equal(stop_while(h, "ag2"), ROZ_OUTPUT_ALLOW);
	th_advance_ms(h, 1000);
	record(h, ROZ_DECISION_COMPLETE, "test added", NULL);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag2"), ROZ_OUTPUT_ALLOW);
	notification(h, "ag2");
	assert_int_equal(stop_listing(h, "", "", &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);

	s = th_get(h, SID);
	assert_int_equal(s->review.block_count, 2);
	assert_int_equal(s->review.wait_blocks, 3);
	assert_int_equal(s->review.n_attempts, 2);
	assert_int_equal(s->review.attempts[0].outcome, ROZ_OUTCOME_SUCCESS);
	assert_string_equal(s->review.attempts[0].decision_type, "issues");
	assert_int_equal(s->review.attempts[1].outcome, ROZ_OUTCOME_SUCCESS);
	assert_string_equal(s->review.attempts[1].decision_type, "complete");
	roz_session_free(s);
}

static void waiting_never_spends_the_breakers_budget(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

reviewer_started(h, "slow");
	/* a slow reviewer: the agent is woken many times (other tasks, the user) and ends its turn */
	for (int i = 0; i < 20; i++) {
		th_advance_ms(h, 30000);
		assert_int_equal(stop_while(h, "slow"), ROZ_OUTPUT_ALLOW);
	}
	s = th_get(h, SID);
	assert_int_equal(s->review.block_count, 1);
	assert_false(s->review.circuit_breaker_tripped);
	assert_int_equal(s->review.wait_blocks, 20);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_STOP_HOOK_CALLED), 21);
	roz_session_free(s);
	/* still nothing to show for it once it has gone: the review is asked for again */
	th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "slow");
	th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "slow");
	th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "slow");
	assert_int_equal(stop_while(h, ""), ROZ_OUTPUT_BLOCK);
}

static void the_trace_says_why_a_stop_was_let_through(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_trace_event ev;
	t_out out;
	int waits = 0, breaker = 0;

	h->config.max_blocks = 1;
	th_prompt(h, SID, "#roz add the feature");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	assert_int_equal(stop_while(h, "ag1"), ROZ_OUTPUT_ALLOW);
	/* no review came and the budget is spent: let go, and said so */
	assert_int_equal(stop_listing(h, "", "", &out), ROZ_OUTPUT_ALLOW);
	assert_non_null(strstr(out.notes, "circuit breaker tripped"));
	th_out_dispose(&out);
	s = th_get(h, SID);
	for (size_t i = 0; i < s->n_trace; i++) {
		assert_int_equal(roz_session_trace_event_parse(&s->trace[i], &ev), ROZ_OK);
		if (strcmp(ev.event_type, "stop_hook_called") == 0) {
			const cJSON *why = cJSON_GetObjectItemCaseSensitive(ev.payload, "let_through");

			if (cJSON_IsString(why) && strcmp(why->valuestring, "reviewer_working") == 0)
				waits++;
			if (cJSON_IsString(why) && strcmp(why->valuestring, "circuit_breaker") == 0)
				breaker++;
		}
		roz_session_trace_event_dispose(&ev);
	}
	assert_int_equal(waits, 1);
	assert_int_equal(breaker, 1);
	assert_true(s->review.circuit_breaker_tripped);
	roz_session_free(s);
}

/* ---- one reviewer at a time ----------------------------------------------------------- */

static void a_second_reviewer_is_refused_while_one_works(void **state)
{
	t_hooks *h = *state;
	t_out out;

	th_prompt(h, SID, "#roz add the feature");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
	/* before its SubagentStart arrives: the launch itself holds the place */
	assert_int_equal(launch(h, &out), ROZ_OUTPUT_DENY);
	assert_non_null(strstr(out.text, "already reviewing this session"));
	assert_non_null(strstr(out.text, "end your turn"));
	assert_non_null(strstr(out.text, "SESSION_ID=" SID));
	th_out_dispose(&out);
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "ag1");
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_DENY);
	/* once it has stopped, the next review may start */
	record(h, ROZ_DECISION_ISSUES, "gaps", "fill them");
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag1"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
}

static void a_launch_that_never_started_does_not_hold_the_session(void **state)
{
	t_hooks *h = *state;

	th_prompt(h, SID, "#roz add the feature");
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_DENY);
	th_advance_ms(h, 61 * 1000);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
}

static void a_reviewer_that_vanished_does_not_hold_the_session(void **state)
{
	t_hooks *h = *state;

reviewer_started(h, "ag1");
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_DENY);
	/* killed without a SubagentStop: the next Stop no longer lists it */
	assert_int_equal(stop_while(h, ""), ROZ_OUTPUT_BLOCK);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
}

static void a_stale_reviewer_run_expires(void **state)
{
	t_hooks *h = *state;

	th_prompt(h, SID, "#roz add the feature");
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "ag1");
	th_advance_ms(h, 3599 * 1000);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_DENY);
	th_advance_ms(h, 2 * 1000);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
}

static void other_agents_and_the_reviewers_own_calls_are_not_launches(void **state)
{
	t_hooks *h = *state;
	t_out out;

	th_prompt(h, SID, "#roz add the feature");
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
	/* an Explore agent is none of roz's business, and asks nothing of the store */
	assert_int_equal(th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"Agent\",\"tool_input\":"
				"{\"description\":\"look\",\"prompt\":\"find it\",\"subagent_type\":\"Explore\"}}",
				SID),
			 ROZ_OUTPUT_ALLOW);
	assert_false(out.saved);
	th_out_dispose(&out);
	/* the older name of the tool starts a reviewer too */
	assert_int_equal(th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"Task\",\"tool_input\":"
				"{\"description\":\"r\",\"prompt\":\"p\",\"subagent_type\":\"roz:roz\"}}",
				SID),
			 ROZ_OUTPUT_DENY);
	th_out_dispose(&out);
}

static void a_held_reviewer_is_not_held_again_after_a_stop(void **state)
{
	t_hooks *h = *state;

	th_prompt(h, SID, "#roz add the feature");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "ag1");
	/* no verdict: its stop is held; a main-agent stop that does not list it comes between */
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag1"), ROZ_OUTPUT_BLOCK);
	assert_int_equal(stop_while(h, ""), ROZ_OUTPUT_BLOCK);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag1"), ROZ_OUTPUT_BLOCK);
	assert_int_equal(stop_while(h, ""), ROZ_OUTPUT_BLOCK);
	/* twice is the limit, whatever came between */
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag1"), ROZ_OUTPUT_ALLOW);
	/* and a reviewer on its way out does not keep the next one from starting */
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "ag2");
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag2"), ROZ_OUTPUT_BLOCK);
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
}

/* ---- foreground reviewers and old inputs ------------------------------------------------- */

static void a_foreground_review_is_unchanged(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	/* 2.1.197's default: the Agent call returns only after the reviewer's SubagentStop */
reviewer_started(h, "fg");
	th_advance_ms(h, 1000);
	record(h, ROZ_DECISION_COMPLETE, "ok", NULL);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "fg"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_int_equal(s->review.wait_blocks, 0);
	assert_int_equal(s->review.n_reviewers, 0);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_REVIEWER_STARTED), 1);
	roz_session_free(s);
}

static void without_a_task_list_a_stop_is_never_let_through(void **state)
{
	t_hooks *h = *state;

	/* a reviewer roz saw start, and a Stop input that lists no tasks at all */
	th_prompt(h, SID, "#roz add the feature");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "ag1");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

/*
 * A Stop input exactly as the newest release in the matrix sends it (a
 * fixture captured from it), made this session's: the session id, and the
 * id of the reviewer task it lists, if any, set to ours.
 */
static roz_output_kind stop_as_captured(t_hooks *h, const char *fixture, const char *agent_id, t_out *out)
{
	char *path = t_sprintf("%s/tests/e2e/fixtures/hook-inputs/2.1.332/%s", ROZ_SOURCE_DIR, fixture);
	char *text = t_read_file(path, NULL), *json;
	cJSON *doc = cJSON_Parse(text), *task;
	roz_output_kind k;

	assert_non_null(doc);
	cJSON_ReplaceItemInObject(doc, "session_id", cJSON_CreateString(SID));
	cJSON_ArrayForEach(task, cJSON_GetObjectItemCaseSensitive(doc, "background_tasks"))
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(task, "agent_type")))
			cJSON_ReplaceItemInObject(task, "id", cJSON_CreateString(agent_id));
	json = cJSON_PrintUnformatted(doc);
	k = th_run(h, ROZ_HOOK_STOP, out, "%s", json);
	cJSON_free(json);
	cJSON_Delete(doc);
	free(text);
	free(path);
	return k;
}

/* On the newest release's own Stop inputs, its task list decides whether the reviewer still works. */
static void the_newest_release_says_whether_the_reviewer_works(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	reviewer_started(h, "ag1");
	/* it lists the reviewer as running: the turn may end, no block is spent */
	assert_int_equal(stop_as_captured(h, "Stop-background-running.json", "ag1", &out), ROZ_OUTPUT_ALLOW);
	assert_non_null(strstr(out.notes, "still working on session " SID));
	th_out_dispose(&out);
	/* an empty list, though roz saw the reviewer start and no stop: it is not working */
	assert_int_equal(stop_as_captured(h, "Stop.json", "ag1", &out), ROZ_OUTPUT_BLOCK);
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_int_equal(s->review.n_reviewers, 0);
	assert_int_equal(s->review.wait_blocks, 1);
	roz_session_free(s);
	/* the next reviewer approves; after its notification the stop goes through */
	assert_int_equal(launch_kind(h), ROZ_OUTPUT_ALLOW);
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "ag2");
	record(h, ROZ_DECISION_COMPLETE, "all there", NULL);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "ag2"), ROZ_OUTPUT_ALLOW);
	notification(h, "ag2");
	assert_int_equal(stop_as_captured(h, "Stop-after-notification.json", "ag2", &out), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
}

/* ---- notifications --------------------------------------------------------------------------- */

static void a_notification_is_not_a_prompt(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	const char *const gate[] = {"Bash:git push*", NULL};

	th_gates(h, ROZ_SCOPE_PROMPT, gate);
	th_prompt(h, SID, "#roz ship it");
	assert_int_equal(th_bash(h, SID, "git push"), ROZ_OUTPUT_DENY);
	th_advance_ms(h, 1000);
	th_review(h, SID, ROZ_DECISION_COMPLETE, "fine to push", NULL);
	th_advance_ms(h, 1000);
	/* a background task ends: its notification must not end the prompt-scoped approval */
	notification(h, "other-task");
	assert_int_equal(th_bash(h, SID, "git push"), ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_int_equal(s->review.n_prompts, 1);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_PROMPT_RECEIVED), 1);
	roz_session_free(s);
}

static void a_verdict_after_the_last_stop_is_kept(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

reviewer_started(h, "late");
	assert_int_equal(stop_while(h, "late"), ROZ_OUTPUT_ALLOW);
	/* the person leaves while the reviewer still works */
	assert_int_equal(th_run(h, ROZ_HOOK_SESSION_END, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"reason\":\"prompt_input_exit\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	th_advance_ms(h, 5000);
	record(h, ROZ_DECISION_COMPLETE, "checked after the session ended", NULL);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "late"), ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_true(s->review.decision_trusted);
	assert_int_equal(s->review.attempts[0].outcome, ROZ_OUTCOME_SUCCESS);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_ROZ_DECISION), 1);
	roz_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(background_reviewer_approves, setup, teardown),
		cmocka_unit_test_setup_teardown(background_issues_reach_the_agent_and_the_fix_gets_its_own_review,
						setup, teardown),
		cmocka_unit_test_setup_teardown(waiting_never_spends_the_breakers_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(the_trace_says_why_a_stop_was_let_through, setup, teardown),
		cmocka_unit_test_setup_teardown(a_second_reviewer_is_refused_while_one_works, setup, teardown),
		cmocka_unit_test_setup_teardown(a_launch_that_never_started_does_not_hold_the_session, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_reviewer_that_vanished_does_not_hold_the_session, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_stale_reviewer_run_expires, setup, teardown),
		cmocka_unit_test_setup_teardown(a_held_reviewer_is_not_held_again_after_a_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(other_agents_and_the_reviewers_own_calls_are_not_launches, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_foreground_review_is_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(without_a_task_list_a_stop_is_never_let_through, setup, teardown),
		cmocka_unit_test_setup_teardown(the_newest_release_says_whether_the_reviewer_works, setup, teardown),
		cmocka_unit_test_setup_teardown(a_notification_is_not_a_prompt, setup, teardown),
		cmocka_unit_test_setup_teardown(a_verdict_after_the_last_stop_is_kept, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
