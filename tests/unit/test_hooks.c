/*
 * test_hooks.c - the review state machine hook by hook: what each hook
 * answers Claude Code and what it leaves in the stored session, with a
 * fixed clock so every time comparison is exact.
 */
#include "hookenv.h"

#include "roz/decide.h"
#include "roz/runner.h"
#include "roz/session_json.h"
#include "roz/template.h"
#include "roz/utf8.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SID "sess-1"

static int setup(void **state)
{
	t_hooks *h = calloc(1, sizeof(*h));

	th_init(h);
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	th_dispose(*state);
	free(*state);
	return 0;
}

static void enable_review(t_hooks *h)
{
	assert_int_equal(th_prompt(h, SID, "#roz fix the bug"), ROZ_OUTPUT_ALLOW);
}

/* ---- user-prompt ------------------------------------------------------------ */

static void prompt_with_prefix_enables_review(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	s = th_get(h, SID);
	assert_non_null(s);
	assert_true(s->review.enabled);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	assert_int_equal(s->review.n_prompts, 1);
	assert_string_equal(s->review.prompts[0], "#roz fix the bug");
	roz_session_free(s);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_PROMPT_RECEIVED), 1);
}

static void prompt_without_prefix_does_not_enable(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	assert_int_equal(th_prompt(h, SID, "fix the bug"), ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_non_null(s);
	assert_false(s->review.enabled);
	assert_int_equal(s->review.n_prompts, 0);
	assert_true(s->review.last_prompt_at.set);
	roz_session_free(s);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_PROMPT_RECEIVED), 0);
}

static void plain_prompt_keeps_review_enabled(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	th_prompt(h, SID, "also fix the tests");
	s = th_get(h, SID);
	assert_true(s->review.enabled);
	assert_int_equal(s->review.n_prompts, 1);
	roz_session_free(s);
}

static void prefix_after_whitespace_counts(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	th_prompt(h, SID, "  \n\t#roz tidy up");
	s = th_get(h, SID);
	assert_true(s->review.enabled);
	roz_session_free(s);
}

static void prefix_after_unicode_space_counts(void **state)
{
	t_hooks *h = *state;
	static const char *const spaced[] = {"\f#roz a", "\v#roz b", "\xc2\xa0#roz c",
					     "\xe3\x80\x80#roz d", "\xe2\x80\x83\xe2\x80\xaf#roz e"};
	roz_session *s;
	char sid[16];

	for (size_t i = 0; i < sizeof(spaced) / sizeof(spaced[0]); i++) {
		snprintf(sid, sizeof(sid), "u%zu", i);
		th_prompt(h, sid, spaced[i]);
		s = th_get(h, sid);
		if (!s->review.enabled)
			fail_msg("prompt %zu not taken as #roz", i);
		roz_session_free(s);
	}
	/* a zero-width joiner is not white space */
	th_prompt(h, "zw", "\xe2\x80\x8d#roz f");
	s = th_get(h, "zw");
	assert_false(s->review.enabled);
	roz_session_free(s);
}

static void prefix_in_the_middle_does_not_count(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	th_prompt(h, SID, "please #roz this");
	s = th_get(h, SID);
	assert_false(s->review.enabled);
	roz_session_free(s);
}

static void mode_always_reviews_every_prompt(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	h->config.mode = ROZ_MODE_ALWAYS;
	th_prompt(h, SID, "no prefix here");
	s = th_get(h, SID);
	assert_true(s->review.enabled);
	assert_int_equal(s->review.n_prompts, 1);
	roz_session_free(s);
}

static void mode_never_ignores_prefix(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	h->config.mode = ROZ_MODE_NEVER;
	th_prompt(h, SID, "#roz review this");
	s = th_get(h, SID);
	assert_false(s->review.enabled);
	assert_int_equal(s->review.n_prompts, 0);
	roz_session_free(s);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void new_roz_prompt_resets_decision(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	th_stop(h, SID);
	th_review(h, SID, ROZ_DECISION_ISSUES, "broken", "fix it");
	th_prompt(h, SID, "#roz another task");
	s = th_get(h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	assert_int_equal(s->review.n_prompts, 2);
	roz_session_free(s);
}

static void long_prompt_is_stored_truncated(void **state)
{
	t_hooks *h = *state;
	char *big = malloc(20000);
	roz_session *s;

	memcpy(big, "#roz ", 5);
	memset(big + 5, 'x', 19994);
	big[19999] = '\0';
	th_prompt(h, SID, big);
	s = th_get(h, SID);
	assert_true(strlen(s->review.prompts[0]) < 10300);
	assert_non_null(strstr(s->review.prompts[0], "truncated"));
	assert_non_null(strstr(s->review.prompts[0], "19999"));
	roz_session_free(s);
	free(big);
}

static void prompts_keep_the_latest_fifty(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	char p[32];

	for (int i = 0; i < 60; i++) {
		snprintf(p, sizeof(p), "#roz task %d", i);
		th_prompt(h, SID, p);
	}
	s = th_get(h, SID);
	assert_int_equal(s->review.n_prompts, 50);
	assert_string_equal(s->review.prompts[0], "#roz task 10");
	assert_string_equal(s->review.prompts[49], "#roz task 59");
	roz_session_free(s);
}

static void task_notification_is_not_a_prompt(void **state)
{
	t_hooks *h = *state;
	roz_session *before, *after;
	t_out out;

	enable_review(h);
	th_stop(h, SID);
	th_review(h, SID, ROZ_DECISION_COMPLETE, "fine", NULL);
	before = th_get(h, SID);
	assert_int_equal(th_run(h, ROZ_HOOK_USER_PROMPT, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"prompt\":"
				"\"<task-notification>\\n<task-id>t1</task-id>\\n<status>completed</status>"
				"</task-notification>\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	assert_false(out.saved);
	th_out_dispose(&out);
	after = th_get(h, SID);
	assert_int_equal(after->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_int_equal(after->review.n_prompts, before->review.n_prompts);
	assert_int_equal(roz_time_cmp(after->review.last_prompt_at.t, before->review.last_prompt_at.t), 0);
	assert_int_equal(after->n_trace, before->n_trace);
	roz_session_free(before);
	roz_session_free(after);
}

/* ---- stop ------------------------------------------------------------------------ */

static void stop_without_session_allows_and_stores_nothing(void **state)
{
	t_hooks *h = *state;
	t_out out;

	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	assert_string_equal(out.json, "{}\n");
	assert_false(out.saved);
	th_out_dispose(&out);
	assert_null(th_get(h, SID));
}

static void stop_without_review_allows(void **state)
{
	t_hooks *h = *state;

	th_prompt(h, SID, "just chatting");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_STOP_HOOK_CALLED), 1);
}

static void stop_with_pending_review_blocks_with_template(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	enable_review(h);
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID),
			 ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "SESSION_ID=" SID));
	assert_non_null(strstr(out.text, "roz:roz"));
	assert_non_null(strstr(out.text, "Agent"));
	assert_null(strstr(out.text, "{{session_id}}"));
	assert_true(strncmp(out.json, "{\"decision\":\"block\",\"reason\":", 29) == 0);
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_int_equal(s->review.block_count, 1);
	assert_int_equal(s->review.n_attempts, 1);
	assert_string_equal(s->review.attempts[0].template_id, "default");
	assert_int_equal(s->review.attempts[0].outcome, ROZ_OUTCOME_PENDING);
	roz_session_free(s);
}

static void stop_after_complete_allows(void **state)
{
	t_hooks *h = *state;

	enable_review(h);
	th_stop(h, SID);
	th_review(h, SID, ROZ_DECISION_COMPLETE, "all good", NULL);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void stop_after_issues_blocks_with_message(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	th_stop(h, SID);
	th_review(h, SID, ROZ_DECISION_ISSUES, "found bugs", "Fix the tests");
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID),
			 ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "Fix the tests"));
	assert_non_null(strstr(out.text, "SESSION_ID=" SID));
	th_out_dispose(&out);
}

/*
 * A reviewer's message of any length: the Stop answer stays within the bound
 * Claude Code shows whole, keeps the message's start and the SESSION_ID the
 * next review needs, and says where the whole message is.
 */
static void stop_after_long_issues_is_bounded(void **state)
{
	t_hooks *h = *state;
	roz_buf msg = ROZ_BUF_INIT;
	roz_session *s;
	t_out out;

	enable_review(h);
	th_stop(h, SID);
	roz_buf_adds(&msg, "FIRST-FINDING\n");
	for (int i = 0; i < 700; i++)
		roz_buf_addf(&msg, "- finding %d: the handler drops the last line of its input\n", i);
	roz_buf_adds(&msg, "LAST-FINDING");
	th_review(h, SID, ROZ_DECISION_ISSUES, "many findings", roz_buf_cstr(&msg));
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID),
			 ROZ_OUTPUT_BLOCK);
	assert_true(roz_utf8_utf16_len(out.text, strlen(out.text)) <= ROZ_OUTPUT_MAX_CHARS);
	assert_non_null(strstr(out.text, "FIRST-FINDING\n- finding 0:"));
	assert_null(strstr(out.text, "LAST-FINDING"));
	assert_non_null(strstr(out.text, "not shown here; `roz context " SID "` shows the reviewer's whole message.]"));
	assert_non_null(strstr(out.text, "SESSION_ID=" SID "\n"));
	th_out_dispose(&out);
	/* the whole message is kept */
	s = th_get(h, SID);
	assert_string_equal(s->review.decision.message_to_agent, roz_buf_cstr(&msg));
	roz_session_free(s);
	roz_buf_dispose(&msg);
}

static void stop_after_issues_without_message_uses_summary(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	th_stop(h, SID);
	th_review(h, SID, ROZ_DECISION_ISSUES, "missing error handling", NULL);
	th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID);
	assert_int_equal(out.kind, ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "missing error handling"));
	th_out_dispose(&out);
}

static bool stop_event_active(t_hooks *h, size_t index, bool *active)
{
	roz_session *s = th_get(h, SID);
	size_t seen = 0;
	bool found = false;

	for (size_t i = 0; s && i < s->n_trace && !found; i++) {
		roz_trace_event ev;

		assert_int_equal(roz_session_trace_event_parse(&s->trace[i], &ev), ROZ_OK);
		if (strcmp(ev.event_type, "stop_hook_called") == 0 && seen++ == index) {
			cJSON *a = cJSON_GetObjectItemCaseSensitive(ev.payload, "stop_hook_active");

			assert_true(cJSON_IsBool(a));
			*active = cJSON_IsTrue(a);
			found = true;
		}
		roz_session_trace_event_dispose(&ev);
	}
	roz_session_free(s);
	return found;
}

static void stop_records_stop_hook_active(void **state)
{
	t_hooks *h = *state;
	t_out out;
	bool active = false;

	enable_review(h);
	th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"stop_hook_active\":true}", SID);
	th_out_dispose(&out);
	th_stop(h, SID);
	assert_true(stop_event_active(h, 0, &active));
	assert_true(active);
	assert_true(stop_event_active(h, 1, &active));
	assert_false(active);
}

static void stop_uses_loaded_template(void **state)
{
	t_hooks *h = *state;
	t_out out;

	h->template_text = "Custom: review {{session_id}} now ({{session_id}})";
	enable_review(h);
	th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID);
	assert_string_equal(out.text, "Custom: review " SID " now (" SID ")");
	assert_string_equal(h->loaded_template_id, "default");
	th_out_dispose(&out);
}

static void pinned_template_id_is_used_and_recorded(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	roz_free(h->config.template_active);
	h->config.template_active = roz_strdup("v2");
	enable_review(h);
	th_stop(h, SID);
	assert_string_equal(h->loaded_template_id, "v2");
	s = th_get(h, SID);
	assert_string_equal(s->review.attempts[0].template_id, "v2");
	roz_session_free(s);
}

static void set_weights(t_hooks *h, const char *a, uint32_t wa, const char *b, uint32_t wb)
{
	for (size_t i = 0; i < h->config.n_weights; i++)
		roz_free(h->config.weights[i].id);
	roz_free(h->config.weights);
	h->config.weights = roz_calloc(2, sizeof(*h->config.weights));
	h->config.weights[0].id = roz_strdup(a);
	h->config.weights[0].weight = wa;
	h->config.weights[1].id = roz_strdup(b);
	h->config.weights[1].weight = wb;
	h->config.n_weights = 2;
	roz_free(h->config.template_active);
	h->config.template_active = roz_strdup("random");
}

static void random_template_follows_weights(void **state)
{
	t_hooks *h = *state;

	set_weights(h, "v1", 70, "v2", 30);
	h->next_random = 69;
	enable_review(h);
	th_stop(h, SID);
	assert_string_equal(h->loaded_template_id, "v1");
	h->next_random = 70;
	th_prompt(h, SID, "#roz again");
	th_stop(h, SID);
	assert_string_equal(h->loaded_template_id, "v2");
}

static uint64_t fixed_random(void *ud, uint64_t bound)
{
	(void)ud;
	return bound - 1;
}

static void template_selection_edge_cases(void **state)
{
	t_hooks *h = *state;
	roz_env env = {.config = &h->config, .random = fixed_random};
	char *id;

	set_weights(h, "a", 0, "b", 0);
	id = roz_template_select(&h->config, &env);
	assert_string_equal(id, "a"); /* all weights zero: the first one */
	roz_free(id);
	set_weights(h, "a", UINT32_MAX, "b", UINT32_MAX);
	id = roz_template_select(&h->config, &env); /* sums beyond 32 bits do not wrap */
	assert_string_equal(id, "b");
	roz_free(id);
	for (size_t i = 0; i < h->config.n_weights; i++)
		roz_free(h->config.weights[i].id);
	h->config.n_weights = 0;
	id = roz_template_select(&h->config, &env);
	assert_string_equal(id, "default");
	roz_free(id);
	roz_free(h->config.template_active);
	h->config.template_active = roz_strdup("pinned");
	id = roz_template_select(&h->config, &env);
	assert_string_equal(id, "pinned");
	roz_free(id);
}

/* ---- circuit breaker ---------------------------------------------------------------- */

static void breaker_allows_exactly_max_blocks(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	enable_review(h);
	for (int i = 0; i < 3; i++)
		assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	assert_non_null(strstr(out.notes, "circuit breaker tripped after 3 blocks"));
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_true(s->review.circuit_breaker_tripped);
	assert_true(s->review.circuit_breaker_tripped_at.set);
	assert_false(s->review.enabled);
	assert_int_equal(s->review.block_count, 3);
	roz_session_free(s);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void breaker_respects_configured_limit(void **state)
{
	t_hooks *h = *state;

	h->config.max_blocks = 5;
	enable_review(h);
	for (int i = 0; i < 5; i++)
		assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void breaker_with_zero_limit_never_blocks(void **state)
{
	t_hooks *h = *state;

	h->config.max_blocks = 0;
	enable_review(h);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void breaker_trips_on_issues_too(void **state)
{
	t_hooks *h = *state;

	enable_review(h);
	th_stop(h, SID);
	th_review(h, SID, ROZ_DECISION_ISSUES, "bugs", "fix");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void tripped_breaker_within_cooldown_allows(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	s = th_get(h, SID);
	s->review.circuit_breaker_tripped = true;
	s->review.circuit_breaker_tripped_at.set = true;
	s->review.circuit_breaker_tripped_at.t = h->now;
	s->review.block_count = 1;
	th_put(h, s);
	roz_session_free(s);
	th_advance_ms(h, 60 * 1000);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void breaker_resets_after_cooldown(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	enable_review(h);
	for (int i = 0; i < 4; i++)
		th_stop(h, SID);
	s = th_get(h, SID);
	assert_true(s->review.circuit_breaker_tripped);
	s->review.enabled = true; /* as a later gate or prompt would */
	th_put(h, s);
	roz_session_free(s);
	th_advance_ms(h, 301 * 1000);
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID),
			 ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.notes, "reset after cooldown"));
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_false(s->review.circuit_breaker_tripped);
	assert_int_equal(s->review.block_count, 1);
	roz_session_free(s);
}

static void legacy_trip_without_time_stays_tripped(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	s = th_get(h, SID);
	s->review.circuit_breaker_tripped = true;
	th_put(h, s);
	roz_session_free(s);
	th_advance_ms(h, 3600 * 1000);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void huge_cooldown_saturates(void **state)
{
	t_hooks *h = *state;

	h->config.cooldown_seconds = UINT64_MAX;
	h->config.max_blocks = 1;
	enable_review(h);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
	th_advance_ms(h, INT64_C(1000) * 3600 * 24 * 365 * 100);
	th_prompt(h, SID, "#roz after a century");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

static void stop_hook_active_does_not_shorten_the_cycle(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out,
					"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"stop_hook_active\":%s}", SID,
					i ? "true" : "false"),
				 ROZ_OUTPUT_BLOCK);
		th_out_dispose(&out);
	}
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"stop_hook_active\":true}", SID),
			 ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
}

/* ---- subagent-stop ---------------------------------------------------------------------- */

static void subagent_stop_ignores_other_agents(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	assert_int_equal(th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_type\":\"general-purpose\","
				"\"agent_id\":\"x\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
}

static void subagent_stop_unknown_session_allows(void **state)
{
	t_hooks *h = *state;
	t_out out;

	assert_int_equal(th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
				"{\"session_id\":\"nobody\",\"cwd\":\"/w\",\"agent_type\":\"roz:roz\"}"),
			 ROZ_OUTPUT_ALLOW);
	assert_non_null(strstr(out.notes, "no record"));
	th_out_dispose(&out);
}

static void subagent_stop_without_verdict_blocks(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	th_stop(h, SID);
	assert_int_equal(th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_type\":\"roz:roz\"}", SID),
			 ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "roz decide " SID " COMPLETE"));
	assert_non_null(strstr(out.text, "roz decide " SID " ISSUES"));
	th_out_dispose(&out);
}

static void subagent_stop_with_fresh_verdict_allows(void **state)
{
	t_hooks *h = *state;

	enable_review(h);
	th_stop(h, SID);
	th_decide(h, SID, ROZ_DECISION_COMPLETE, "verified", NULL);
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void subagent_stop_with_stale_verdict_blocks(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	th_stop(h, SID);
	th_decide(h, SID, ROZ_DECISION_ISSUES, "bugs", "fix");
	th_advance_ms(h, 60000);
	th_stop(h, SID); /* the agent fixed things and asks again: a new attempt */
	th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
	       "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_type\":\"roz:roz\"}", SID);
	assert_int_equal(out.kind, ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "predates"));
	th_out_dispose(&out);
}

static void subagent_stop_gate_start_is_lower_bound(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	enable_review(h);
	s = th_get(h, SID);
	assert_int_equal(roz_session_decision_set(&s->review.decision, ROZ_DECISION_COMPLETE, "old", NULL, NULL), ROZ_OK);
	s->updated_at = h->now;
	s->review.review_started_at.set = true;
	s->review.review_started_at.t = roz_time_add(h->now, 180);
	th_put(h, s);
	roz_session_free(s);
	th_advance_ms(h, 200 * 1000);
	th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
	       "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_type\":\"roz:roz\"}", SID);
	assert_int_equal(out.kind, ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "predates"));
	th_out_dispose(&out);
}

static void subagent_stop_future_verdict_blocks(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	enable_review(h);
	s = th_get(h, SID);
	assert_int_equal(roz_session_decision_set(&s->review.decision, ROZ_DECISION_COMPLETE, "later", NULL, NULL), ROZ_OK);
	s->updated_at = roz_time_add(h->now, 3600);
	th_put(h, s);
	roz_session_free(s);
	th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
	       "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_type\":\"roz:roz\"}", SID);
	assert_int_equal(out.kind, ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "future"));
	th_out_dispose(&out);
}

static void subagent_stop_within_skew_allows(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	s = th_get(h, SID);
	assert_int_equal(roz_session_decision_set(&s->review.decision, ROZ_DECISION_COMPLETE, "ok", NULL, NULL), ROZ_OK);
	s->updated_at = roz_time_add(h->now, 4);
	th_put(h, s);
	roz_session_free(s);
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void subagent_stop_without_lower_bound_allows(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	s = th_get(h, SID);
	assert_int_equal(roz_session_decision_set(&s->review.decision, ROZ_DECISION_COMPLETE, "ok", NULL, NULL), ROZ_OK);
	s->updated_at = h->now;
	th_put(h, s);
	roz_session_free(s);
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void subagent_stop_ignores_stop_hook_active(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	th_stop(h, SID);
	th_decide(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	assert_int_equal(th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_type\":\"roz:roz\","
				"\"stop_hook_active\":true}", SID),
			 ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
}

/* ---- session-start / session-end -------------------------------------------------------- */

static void session_start_creates_session(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_trace_event ev;
	t_out out;

	assert_int_equal(th_run(h, ROZ_HOOK_SESSION_START, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/proj\",\"source\":\"startup\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	assert_string_equal(out.json, "{}\n");
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_non_null(s);
	assert_int_equal(s->n_trace, 1);
	assert_int_equal(roz_session_trace_event_parse(&s->trace[0], &ev), ROZ_OK);
	assert_string_equal(ev.event_type, "session_start");
	assert_string_equal(cJSON_GetObjectItem(ev.payload, "source")->valuestring, "startup");
	assert_string_equal(cJSON_GetObjectItem(ev.payload, "cwd")->valuestring, "/proj");
	roz_session_trace_event_dispose(&ev);
	roz_session_free(s);
}

static void session_start_resumes_existing(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	enable_review(h);
	th_run(h, ROZ_HOOK_SESSION_START, &out,
	       "{\"session_id\":\"%s\",\"cwd\":\"/proj\",\"source\":\"resume\"}", SID);
	assert_false(out.saved);
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_true(s->review.enabled);
	assert_int_equal(s->review.n_prompts, 1);
	roz_session_free(s);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_SESSION_START), 0);
}

static void session_start_reports_second_opinions(void **state)
{
	t_hooks *h = *state;
	t_out out;

	h->second_opinions = "codex, gemini";
	assert_int_equal(th_run(h, ROZ_HOOK_SESSION_START, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/proj\",\"source\":\"startup\"}", SID),
			 ROZ_OUTPUT_CONTEXT);
	assert_string_equal(out.json, "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\","
				      "\"additionalContext\":\"roz: second-opinion tools available to the "
				      "reviewer: codex, gemini\"}}\n");
	th_out_dispose(&out);
}

static void session_end_records_reason_and_cwd(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_trace_event ev;
	t_out out;

	enable_review(h);
	assert_int_equal(th_run(h, ROZ_HOOK_SESSION_END, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/proj\",\"reason\":\"logout\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_int_equal(roz_session_trace_event_parse(&s->trace[s->n_trace - 1], &ev), ROZ_OK);
	assert_string_equal(ev.event_type, "session_end");
	assert_string_equal(cJSON_GetObjectItem(ev.payload, "reason")->valuestring, "logout");
	assert_string_equal(cJSON_GetObjectItem(ev.payload, "cwd")->valuestring, "/proj");
	roz_session_trace_event_dispose(&ev);
	assert_true(s->review.enabled); /* the review state survives the end */
	assert_int_equal(s->review.n_prompts, 1);
	roz_session_free(s);
}

static void session_end_without_reason_says_unknown(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_trace_event ev;
	t_out out;

	enable_review(h);
	th_run(h, ROZ_HOOK_SESSION_END, &out, "{\"session_id\":\"%s\",\"cwd\":\"/proj\"}", SID);
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_int_equal(roz_session_trace_event_parse(&s->trace[s->n_trace - 1], &ev), ROZ_OK);
	assert_string_equal(cJSON_GetObjectItem(ev.payload, "reason")->valuestring, "unknown");
	roz_session_trace_event_dispose(&ev);
	roz_session_free(s);
}

static void session_end_every_reason(void **state)
{
	t_hooks *h = *state;
	static const char *const reasons[] = {"clear", "logout", "prompt_input_exit", "other"};
	t_out out;

	enable_review(h);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(th_run(h, ROZ_HOOK_SESSION_END, &out,
					"{\"session_id\":\"%s\",\"cwd\":\"/p\",\"reason\":\"%s\"}", SID, reasons[i]),
				 ROZ_OUTPUT_ALLOW);
		th_out_dispose(&out);
	}
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_SESSION_END), 4);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_PROMPT_RECEIVED), 1);
}

static void session_end_for_unknown_session_allows(void **state)
{
	t_hooks *h = *state;
	t_out out;

	assert_int_equal(th_run(h, ROZ_HOOK_SESSION_END, &out,
				"{\"session_id\":\"ghost\",\"cwd\":\"/p\",\"reason\":\"other\"}"),
			 ROZ_OUTPUT_ALLOW);
	assert_false(out.saved);
	assert_non_null(strstr(out.notes, "no record"));
	th_out_dispose(&out);
	assert_null(th_get(h, "ghost"));
}

static void unknown_event_answers_empty(void **state)
{
	t_hooks *h = *state;
	t_out out;

	assert_int_equal(th_run(h, ROZ_HOOK_UNKNOWN, &out, "{\"session_id\":\"%s\",\"cwd\":\"/p\"}", SID),
			 ROZ_OUTPUT_ALLOW);
	assert_string_equal(out.json, "{}\n");
	assert_non_null(strstr(out.notes, "unknown hook"));
	th_out_dispose(&out);
	assert_int_equal(roz_hook_event_parse("post_tool_use"), ROZ_HOOK_UNKNOWN);
	assert_int_equal(roz_hook_event_parse("post-tool-use"), ROZ_HOOK_POST_TOOL_USE);
	assert_int_equal(roz_hook_event_parse("stop"), ROZ_HOOK_STOP);
	assert_string_equal(roz_hook_event_name(ROZ_HOOK_SUBAGENT_STOP), "subagent-stop");
}

/* ---- pre-tool-use: gates ---------------------------------------------------------------- */

static const char *const gh_close[] = {"Bash:gh issue close*", "mcp__tissue__close*", NULL};

static void no_gates_allow_everything(void **state)
{
	t_hooks *h = *state;

	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_ALLOW);
	assert_null(th_get(h, SID));
}

static void non_matching_tool_allows_without_touching_state(void **state)
{
	t_hooks *h = *state;
	t_out out;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	assert_int_equal(th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"Read\","
				"\"tool_input\":{\"file_path\":\"/x\"}}", SID),
			 ROZ_OUTPUT_ALLOW);
	assert_string_equal(out.json, "{}\n");
	assert_false(out.saved);
	th_out_dispose(&out);
	assert_null(th_get(h, SID));
}

static void matching_tool_is_denied_and_starts_review(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	assert_int_equal(th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"mcp__tissue__close_issue\","
				"\"tool_input\":{\"issue_id\":\"42\"}}", SID),
			 ROZ_OUTPUT_DENY);
	assert_non_null(strstr(out.text, "SESSION_ID=" SID));
	assert_non_null(strstr(out.text, "mcp__tissue__close_issue"));
	assert_true(strncmp(out.json, "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
				      "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":", 105) == 0);
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_true(s->review.enabled);
	assert_true(s->review.review_started_at.set);
	assert_non_null(s->review.gate_trigger);
	assert_string_equal(s->review.gate_trigger->tool_name, "mcp__tissue__close_issue");
	assert_string_equal(s->review.gate_trigger->pattern_matched, "mcp__tissue__close*");
	assert_string_equal(cJSON_GetObjectItem(s->review.gate_trigger->tool_input.value, "issue_id")->valuestring, "42");
	assert_false(s->review.gate_trigger->tool_input.truncated);
	roz_session_free(s);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_GATE_BLOCKED), 1);
	/* the stop that follows asks for the review */
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

static void first_matching_pattern_wins(void **state)
{
	t_hooks *h = *state;
	static const char *const pats[] = {"mcp__tissue__*", "mcp__tissue__close*", NULL};
	roz_session *s;

	th_gates(h, ROZ_SCOPE_PROMPT, pats);
	th_tool(h, SID, "mcp__tissue__close_issue");
	s = th_get(h, SID);
	assert_string_equal(s->review.gate_trigger->pattern_matched, "mcp__tissue__*");
	roz_session_free(s);
}

static void bash_command_is_normalized_for_matching(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	assert_int_equal(th_bash(h, SID, "GH_TOKEN=secret gh issue close 123"), ROZ_OUTPUT_DENY);
	s = th_get(h, SID);
	assert_string_equal(s->review.gate_trigger->tool_name, "Bash:gh issue close 123");
	roz_session_free(s);
	assert_int_equal(th_bash(h, "other", "echo y | gh issue close 9"), ROZ_OUTPUT_DENY);
	assert_int_equal(th_bash(h, "third", "gh issue list"), ROZ_OUTPUT_ALLOW);
}

static void big_tool_input_is_truncated_and_hashed(void **state)
{
	t_hooks *h = *state;
	char *cmd = malloc(20001);
	roz_session *s;

	memcpy(cmd, "gh issue close 1 --comment ", 27);
	memset(cmd + 27, 'z', 20000 - 27);
	cmd[20000] = '\0';
	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	assert_int_equal(th_bash(h, SID, cmd), ROZ_OUTPUT_DENY);
	s = th_get(h, SID);
	assert_true(s->review.gate_trigger->tool_input.truncated);
	assert_non_null(s->review.gate_trigger->tool_input.original_hash);
	assert_int_equal(strlen(s->review.gate_trigger->tool_input.original_hash), 64);
	assert_true(s->review.gate_trigger->tool_input.original_size > 20000);
	roz_session_free(s);
	free(cmd);
}

static void tripped_breaker_lets_gated_tools_through(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	enable_review(h);
	s = th_get(h, SID);
	s->review.circuit_breaker_tripped = true;
	s->review.circuit_breaker_tripped_at.set = true;
	s->review.circuit_breaker_tripped_at.t = h->now;
	th_put(h, s);
	roz_session_free(s);
	assert_int_equal(th_tool(h, SID, "mcp__tissue__close_issue"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_GATE_ALLOWED), 1);
	/* once the cooldown is over the gate holds again */
	th_advance_ms(h, 301 * 1000);
	assert_int_equal(th_tool(h, SID, "mcp__tissue__close_issue"), ROZ_OUTPUT_DENY);
}

static void full_gate_flow_deny_review_allow(void **state)
{
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	th_prompt(h, SID, "close the issue when done");
	assert_int_equal(th_bash(h, SID, "gh issue close 7"), ROZ_OUTPUT_DENY);
	th_decide(h, SID, ROZ_DECISION_COMPLETE, "work verified", NULL);
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_bash(h, SID, "gh issue close 7"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_GATE_ALLOWED), 1);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void session_scope_approval_lasts(void **state)
{
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_SESSION, gh_close);
	th_bash(h, SID, "gh issue close 1");
	th_review(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_ALLOW);
	th_prompt(h, SID, "next thing");
	assert_int_equal(th_bash(h, SID, "gh issue close 2"), ROZ_OUTPUT_ALLOW);
}

static void prompt_scope_resets_on_new_prompt(void **state)
{
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	th_prompt(h, SID, "first");
	th_bash(h, SID, "gh issue close 1");
	th_review(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_bash(h, SID, "gh issue close 2"), ROZ_OUTPUT_ALLOW);
	th_prompt(h, SID, "second task");
	assert_int_equal(th_bash(h, SID, "gh issue close 3"), ROZ_OUTPUT_DENY);
}

static void prompt_during_review_does_not_undo_approval(void **state)
{
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	th_prompt(h, SID, "close it");
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_DENY);
	th_prompt(h, SID, "hurry up please"); /* arrives while the review runs */
	th_review(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_ALLOW);
}

static void tool_scope_lets_one_call_through_per_review(void **state)
{
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_TOOL, gh_close);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_DENY);
	th_review(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_bash(h, SID, "gh issue close 2"), ROZ_OUTPUT_DENY);
	th_review(h, SID, ROZ_DECISION_COMPLETE, "ok again", NULL);
	assert_int_equal(th_bash(h, SID, "gh issue close 2"), ROZ_OUTPUT_ALLOW);
}

static void approval_ttl_expires(void **state)
{
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_SESSION, gh_close);
	h->config.has_approval_ttl = true;
	h->config.approval_ttl_seconds = 60;
	th_bash(h, SID, "gh issue close 1");
	th_review(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	th_advance_ms(h, 30 * 1000);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_ALLOW);
	th_advance_ms(h, 31 * 1000);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_DENY);
}

static void huge_ttl_never_expires(void **state)
{
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_SESSION, gh_close);
	h->config.has_approval_ttl = true;
	h->config.approval_ttl_seconds = UINT64_MAX;
	th_bash(h, SID, "gh issue close 1");
	th_review(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	th_advance_ms(h, INT64_C(1000) * 3600 * 24 * 365 * 50);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_ALLOW);
}

static void approval_needs_a_complete_decision(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	th_gates(h, ROZ_SCOPE_SESSION, gh_close);
	enable_review(h);
	s = th_get(h, SID);
	s->review.gate_approved_at.set = true;
	s->review.gate_approved_at.t = h->now;
	assert_false(roz_gate_approved(s, &h->config, h->now)); /* still pending */
	assert_int_equal(roz_session_decision_set(&s->review.decision, ROZ_DECISION_COMPLETE, "ok", NULL, NULL), ROZ_OK);
	/* a COMPLETE no reviewer vouched for approves nothing, unless no reviewer is required */
	assert_false(roz_gate_approved(s, &h->config, h->now));
	h->config.require_reviewer = false;
	assert_true(roz_gate_approved(s, &h->config, h->now));
	h->config.require_reviewer = true;
	s->review.decision_trusted = true;
	assert_true(roz_gate_approved(s, &h->config, h->now));
	s->review.gate_approved_at.set = false;
	assert_false(roz_gate_approved(s, &h->config, h->now)); /* never approved */
	roz_session_free(s);
}

static void gate_block_makes_a_stale_approval_pending(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	enable_review(h);
	th_stop(h, SID);
	th_review(h, SID, ROZ_DECISION_COMPLETE, "task one done", NULL);
	th_prompt(h, SID, "now close the issue");
	assert_int_equal(th_bash(h, SID, "gh issue close 5"), ROZ_OUTPUT_DENY);
	s = th_get(h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	roz_session_free(s);
	/* so stopping instead of getting the review is blocked */
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

/* ---- roz decide ------------------------------------------------------------------------ */

static void decide_complete_records_everything(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_time when;

	enable_review(h);
	th_stop(h, SID);
	th_stop(h, SID);
	when = h->now;
	th_decide(h, SID, ROZ_DECISION_COMPLETE, "verified", NULL);
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_string_equal(s->review.decision.summary, "verified");
	assert_int_equal(s->review.n_history, 1);
	assert_int_equal(s->review.history[0].decision.kind, ROZ_DECISION_PENDING);
	assert_int_equal(roz_time_cmp(s->review.history[0].timestamp, when), 0);
	assert_true(s->review.gate_approved_at.set);
	assert_int_equal(roz_time_cmp(s->review.gate_approved_at.t, when), 0);
	/* the first block got no reviewer (the agent just stopped again); the second succeeded */
	assert_int_equal(s->review.n_attempts, 2);
	assert_int_equal(s->review.attempts[0].outcome, ROZ_OUTCOME_NOT_SPAWNED);
	assert_int_equal(s->review.attempts[1].outcome, ROZ_OUTCOME_SUCCESS);
	assert_string_equal(s->review.attempts[1].decision_type, "complete");
	assert_int_equal(s->review.attempts[1].blocks_needed, 2);
	roz_session_free(s);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_ROZ_DECISION), 1);
}

static void decide_issues_records_message(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	th_stop(h, SID);
	th_decide(h, SID, ROZ_DECISION_ISSUES, "bugs", "Add unit tests");
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_ISSUES);
	assert_string_equal(s->review.decision.message_to_agent, "Add unit tests");
	assert_false(s->review.gate_approved_at.set);
	assert_string_equal(s->review.attempts[0].decision_type, "issues");
	roz_session_free(s);
}

static void decide_with_opinions(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_trace_event ev;

	enable_review(h);
	th_decide_full(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL, "codex agreed");
	s = th_get(h, SID);
	assert_string_equal(s->review.decision.second_opinions, "codex agreed");
	assert_int_equal(roz_session_trace_event_parse(&s->trace[s->n_trace - 1], &ev), ROZ_OK);
	assert_string_equal(ev.event_type, "roz_decision");
	assert_string_equal(cJSON_GetObjectItem(ev.payload, "decision")->valuestring, "COMPLETE");
	assert_string_equal(cJSON_GetObjectItem(ev.payload, "summary")->valuestring, "ok");
	assert_string_equal(cJSON_GetObjectItem(ev.payload, "second_opinions")->valuestring, "codex agreed");
	roz_session_trace_event_dispose(&ev);
	roz_session_free(s);
}

static void decide_history_keeps_latest_fifty(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	char sum[32];

	enable_review(h);
	for (int i = 0; i < 60; i++) {
		snprintf(sum, sizeof(sum), "round %d", i);
		th_decide(h, SID, i % 2 ? ROZ_DECISION_COMPLETE : ROZ_DECISION_ISSUES, sum, NULL);
	}
	s = th_get(h, SID);
	assert_int_equal(s->review.n_history, 50);
	/* the newest record holds the decision replaced by round 59, i.e. round 58 */
	assert_string_equal(s->review.history[49].decision.summary, "round 58");
	roz_session_free(s);
}

static void decide_rejects_pending(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_env env;

	enable_review(h);
	s = th_get(h, SID);
	memset(&env, 0, sizeof(env));
	env.config = &h->config;
	assert_int_equal(roz_decide_apply(s, ROZ_DECISION_PENDING, "x", NULL, NULL, false, &env), ROZ_EINVALID);
	roz_session_free(s);
}

/* ---- whole flows ------------------------------------------------------------------------ */

static void flow_prompt_block_complete_allow(void **state)
{
	t_hooks *h = *state;

	t_out out;

	th_run(h, ROZ_HOOK_SESSION_START, &out, "{\"session_id\":\"%s\",\"cwd\":\"/p\",\"source\":\"startup\"}", SID);
	th_out_dispose(&out);
	enable_review(h);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	th_decide(h, SID, ROZ_DECISION_COMPLETE, "changes look right", NULL);
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void flow_issues_then_fix_then_complete(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	th_decide(h, SID, ROZ_DECISION_ISSUES, "missing tests", "Add unit tests for the feature");
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	th_decide(h, SID, ROZ_DECISION_COMPLETE, "tests added", NULL);
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_int_equal(s->review.block_count, 2);
	assert_int_equal(s->review.n_attempts, 2);
	assert_int_equal(s->review.attempts[0].outcome, ROZ_OUTCOME_SUCCESS);
	assert_int_equal(s->review.attempts[1].outcome, ROZ_OUTCOME_SUCCESS);
	roz_session_free(s);
}

static void flow_block_count_increments(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	enable_review(h);
	th_stop(h, SID);
	th_stop(h, SID);
	s = th_get(h, SID);
	assert_int_equal(s->review.block_count, 2);
	roz_session_free(s);
}

static void flow_three_tasks_each_reviewed(void **state)
{
	t_hooks *h = *state;
	char p[32];

	for (int task = 0; task < 3; task++) {
		snprintf(p, sizeof(p), "#roz task %d", task);
		th_prompt(h, SID, p);
		/* two rounds of feedback per task, the most the breaker allows plus one */
		assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
		th_review(h, SID, ROZ_DECISION_ISSUES, "not yet", "keep going");
		assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
		th_review(h, SID, ROZ_DECISION_COMPLETE, "done", NULL);
		assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
	}
}

static void flow_issues_reach_agent_with_stop_hook_active(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\","
				"\"stop_hook_active\":false}", SID), ROZ_OUTPUT_BLOCK);
	th_out_dispose(&out);
	th_review(h, SID, ROZ_DECISION_ISSUES, "broken", "The parser drops the last line");
	/* Claude Code keeps stop_hook_active true for the rest of the turn */
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\","
				"\"stop_hook_active\":true}", SID), ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "The parser drops the last line"));
	th_out_dispose(&out);
	th_review(h, SID, ROZ_DECISION_COMPLETE, "fixed", NULL);
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"%s\",\"cwd\":\"/w\","
				"\"stop_hook_active\":true}", SID), ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
}

static void flow_gate_then_new_prompt_regates(void **state)
{
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_PROMPT, gh_close);
	th_prompt(h, SID, "close issue 1");
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_DENY);
	th_decide(h, SID, ROZ_DECISION_COMPLETE, "fine", NULL);
	assert_int_equal(th_reviewer_stop(h, SID), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_bash(h, SID, "gh issue close 1"), ROZ_OUTPUT_ALLOW);
	th_prompt(h, SID, "close issue 2 as well");
	assert_int_equal(th_bash(h, SID, "gh issue close 2"), ROZ_OUTPUT_DENY);
}

static void flow_lifecycle_start_prompt_end(void **state)
{
	t_hooks *h = *state;
	t_out out;
	roz_session *s;

	th_run(h, ROZ_HOOK_SESSION_START, &out, "{\"session_id\":\"%s\",\"cwd\":\"/p\",\"source\":\"startup\"}", SID);
	th_out_dispose(&out);
	enable_review(h);
	th_stop(h, SID);
	th_review(h, SID, ROZ_DECISION_COMPLETE, "ok", NULL);
	th_stop(h, SID);
	th_run(h, ROZ_HOOK_SESSION_END, &out, "{\"session_id\":\"%s\",\"cwd\":\"/p\",\"reason\":\"clear\"}", SID);
	th_out_dispose(&out);
	s = th_get(h, SID);
	/* start, prompt, stop, reviewer start, verdict, reviewer stop, stop, end */
	assert_int_equal(s->n_trace, 8);
	roz_session_free(s);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_SESSION_START), 1);
	assert_int_equal(th_count_events(h, SID, ROZ_EVENT_SESSION_END), 1);
}

/* xorshift so the sequence is the same on every run */
static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void no_hook_ever_answers_allow(void **state)
{
	t_hooks *h = *state;
	static const char *const pats[] = {"Bash:git push*", "Edit", NULL};
	uint64_t x = 0x9E3779B97F4A7C15ull;
	t_out out;

	th_gates(h, ROZ_SCOPE_TOOL, pats);
	for (int i = 0; i < 600; i++) {
		switch (rng_next(&x) % 8) {
		case 0: th_run(h, ROZ_HOOK_USER_PROMPT, &out, "{\"session_id\":\"r\",\"cwd\":\"/\",\"prompt\":\"%s\"}", rng_next(&x) % 2 ? "#roz go" : "go"); break;
		case 1: th_run(h, ROZ_HOOK_STOP, &out, "{\"session_id\":\"r\",\"cwd\":\"/\",\"stop_hook_active\":%s}", rng_next(&x) % 2 ? "true" : "false"); break;
		case 2: th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out, "{\"session_id\":\"r\",\"cwd\":\"/\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git push\"}}"); break;
		case 3: th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out, "{\"session_id\":\"r\",\"cwd\":\"/\",\"tool_name\":\"Read\",\"tool_input\":{}}"); break;
		case 4: th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out, "{\"session_id\":\"r\",\"cwd\":\"/\",\"agent_type\":\"roz:roz\"}"); break;
		case 5: th_run(h, ROZ_HOOK_SESSION_START, &out, "{\"session_id\":\"r\",\"cwd\":\"/\"}"); break;
		case 6: th_run(h, ROZ_HOOK_SESSION_END, &out, "{\"session_id\":\"r\",\"cwd\":\"/\"}"); break;
		default: {
			roz_session *s = th_get(h, "r");

			if (s) {
				roz_session_free(s);
				th_decide(h, "r", rng_next(&x) % 2 ? ROZ_DECISION_COMPLETE : ROZ_DECISION_ISSUES, "v", NULL);
			}
			continue;
		}
		}
		assert_null(strstr(out.json, "\"allow\""));
		assert_null(strstr(out.json, "\"approve\""));
		th_out_dispose(&out);
	}
}

static size_t stored_size(t_hooks *h)
{
	roz_session *s = th_get(h, SID);
	roz_buf b = ROZ_BUF_INIT;
	size_t n;

	assert_int_equal(roz_session_json_write(s, &b), ROZ_OK);
	n = b.len;
	roz_buf_dispose(&b);
	roz_session_free(s);
	return n;
}

static void state_stays_bounded_over_ten_thousand_prompts(void **state)
{
	t_hooks *h = *state;
	size_t at_1000 = 0, at_10000;
	/* memcheck runs the same logic on fewer prompts; the caps bite after 100 */
	int prompts = getenv("ROZ_UNDER_VALGRIND") ? 1500 : 10000;
	char p[64];

	/* a small trace cap keeps the run quick; the cap logic is the same at 500 */
	h->config.max_events = 80;
	for (int i = 0; i < prompts; i++) {
		/* same length every time, so sizes compare like for like */
		snprintf(p, sizeof(p), "#roz task %05d", i);
		th_prompt(h, SID, p);
		if (i % 5 == 0) {
			th_stop(h, SID);
			th_decide(h, SID, ROZ_DECISION_ISSUES, "again", "more");
		}
		if (i == 999)
			at_1000 = stored_size(h);
	}
	at_10000 = stored_size(h);
	{
		roz_session *s = th_get(h, SID);

		assert_int_equal(s->n_trace, 80);
		assert_int_equal(s->review.n_prompts, ROZ_MAX_PROMPTS);
		assert_int_equal(s->review.n_history, ROZ_MAX_HISTORY);
		assert_int_equal(s->review.n_attempts, ROZ_MAX_ATTEMPTS);
		roz_session_free(s);
	}
	/* the same size within a few bytes of counters' digits */
	assert_true(at_10000 <= at_1000 + at_1000 / 100);
}

/* ---- hostile input and stored data (issue 12) --------------------------------------------- */

/* A tool input nested `depth` levels, objects and arrays in turn. */
static char *nested_json(int depth)
{
	roz_buf b = ROZ_BUF_INIT;

	for (int i = 0; i < depth; i++)
		roz_buf_adds(&b, i % 2 ? "[" : "{\"k\":");
	roz_buf_adds(&b, "1");
	for (int i = depth; i-- > 0;)
		roz_buf_adds(&b, i % 2 ? "]" : "}");
	assert_false(b.oom);
	return roz_buf_detach(&b, NULL);
}

static int json_depth(const cJSON *v)
{
	int deepest = 0;
	const cJSON *c;

	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return 0;
	cJSON_ArrayForEach(c, v) {
		int d = json_depth(c);

		if (d > deepest)
			deepest = d;
	}
	return deepest + 1;
}

/*
 * A gated input nested just inside the parser's 512 levels was stored three
 * levels deeper, and the next hook found the session corrupt: the review was
 * lost. It is stored bounded, and the stop after it is still held.
 */
static void gated_input_at_the_parsers_depth_keeps_the_review(void **state)
{
	static const char *const pats[] = {"mcp__*", NULL};
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_PROMPT, pats);
	for (int depth = 511; depth >= 509; depth--) {
		char *input = nested_json(depth);
		roz_session *s;
		t_out out;

		assert_int_equal(th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out,
					"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"mcp__x\","
					"\"tool_input\":%s}",
					SID, input),
				 ROZ_OUTPUT_DENY);
		th_out_dispose(&out);
		/* the harness fails the test if the stored session no longer loads */
		assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
		s = th_get(h, SID);
		assert_non_null(s->review.gate_trigger);
		assert_true(s->review.gate_trigger->tool_input.truncated);
		assert_true(json_depth(s->review.gate_trigger->tool_input.value) <= ROZ_MAX_TOOL_INPUT_DEPTH);
		roz_session_free(s);
		free(input);
	}
}

/*
 * With a Bash gate, a NUL, a lone surrogate or nesting past 512 levels in
 * another member used to make the whole input unreadable, and the push was
 * answered {}. The gate judges the command.
 */
static void flaws_beside_the_command_do_not_open_the_gate(void **state)
{
	static const char *const pats[] = {"Bash:git push*", NULL};
	char *deep = nested_json(600);
	const char *const others[] = {"\"description\":\"a\\u0000b\"", "\"description\":\"\\ud800\"",
				      "\"description\":\"\\udfff x\"", deep};
	t_hooks *h = *state;

	th_gates(h, ROZ_SCOPE_PROMPT, pats);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		t_out out;
		char *member = i == 3 ? t_sprintf("\"x\":%s", deep) : strdup(others[i]);

		assert_int_equal(th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out,
					"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"Bash\","
					"\"tool_input\":{\"command\":\"git push origin main\",%s}}",
					SID, member),
				 ROZ_OUTPUT_DENY);
		assert_non_null(strstr(out.text, "Gated: `Bash:git push origin main`"));
		th_out_dispose(&out);
		free(member);
	}
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	free(deep);
}

/* Wrong types in fields the stop does not need used to answer {} and let a pending review go. */
static void wrong_types_do_not_let_a_pending_review_go(void **state)
{
	t_hooks *h = *state;
	t_out out;

	enable_review(h);
	assert_int_equal(th_run(h, ROZ_HOOK_STOP, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"stop_hook_active\":\"yes\",\"model\":7,"
				"\"permission_mode\":[\"x\"],\"agent_type\":3}",
				SID),
			 ROZ_OUTPUT_BLOCK);
	th_out_dispose(&out);
	/* an agent_type of the wrong type is not the reviewer: its stop is not a reviewer's */
	assert_int_equal(th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
				"{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_type\":[\"roz:roz\"],\"agent_id\":\"a\"}",
				SID),
			 ROZ_OUTPUT_ALLOW);
	th_out_dispose(&out);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

/* Text that is not UTF-8 in each of the verdict's strings. */
static const struct {
	roz_decision_kind kind;
	const char *summary, *message, *opinions, *names;
} bad_verdicts[] = {
	{ROZ_DECISION_ISSUES, "bad \xff", NULL, NULL, "the summary"},
	{ROZ_DECISION_ISSUES, "fine", "bad \xc3", NULL, "the message to the agent"},
	{ROZ_DECISION_COMPLETE, "fine", NULL, "bad \xed\xa0\x80", "the second-opinion text"},
	/* also an argument this kind does not keep: roz decide writes it to the trace */
	{ROZ_DECISION_ISSUES, "fine", NULL, "bad \xff", "the second-opinion text"},
};

/*
 * `roz decide <id> ISSUES $'bad \xff'` used to record the verdict, and the
 * next hook found the session file corrupt and started afresh: the review
 * was gone. The verdict is refused with nothing changed.
 */
static void decide_refuses_text_it_cannot_read_back(void **state)
{
	t_hooks *h = *state;
	roz_env env;

	enable_review(h);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
	memset(&env, 0, sizeof(env));
	env.config = &h->config;
	env.now = h->now;
	for (size_t i = 0; i < sizeof(bad_verdicts) / sizeof(bad_verdicts[0]); i++) {
		roz_session *s = th_get(h, SID);
		roz_buf before = ROZ_BUF_INIT, after = ROZ_BUF_INIT;

		assert_int_equal(roz_session_json_write(s, &before), ROZ_OK);
		assert_int_equal(roz_decide_apply(s, bad_verdicts[i].kind, bad_verdicts[i].summary,
						  bad_verdicts[i].message, bad_verdicts[i].opinions, false, &env),
				 ROZ_EINVALID);
		assert_non_null(strstr(roz_error_last(), bad_verdicts[i].names));
		assert_non_null(strstr(roz_error_last(), "not valid UTF-8"));
		assert_int_equal(roz_session_json_write(s, &after), ROZ_OK);
		assert_string_equal(after.ptr, before.ptr);
		roz_buf_dispose(&before);
		roz_buf_dispose(&after);
		roz_session_free(s);
	}
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

/* The same through the runner, against files: the stored session is left byte for byte. */
static void run_decide_refuses_text_it_cannot_read_back(void **state)
{
	roz_store_file_opts so = {false};
	roz_config config;
	roz_store *store;
	roz_runner_opts opts = {NULL};
	roz_session *s;
	char *dir = t_mkdtemp(), *path, *before, *after;

	(void)state;
	assert_int_equal(roz_config_init(&config), ROZ_OK);
	config.storage_path = roz_strdup(dir);
	config.require_reviewer = false; /* the verdict is recorded at once, if at all */
	assert_int_equal(roz_store_file_open(dir, &so, &store), ROZ_OK);
	assert_int_equal(roz_session_new("g1", roz_time_make(1767225600, 0), &s), ROZ_OK);
	s->review.enabled = true;
	assert_int_equal(roz_store_put(store, s), ROZ_OK);
	roz_session_free(s);
	opts.store = store;
	path = t_sprintf("%s/sessions/g1.json", dir);
	before = t_read_file(path, NULL);
	assert_non_null(before);
	for (size_t i = 0; i < sizeof(bad_verdicts) / sizeof(bad_verdicts[0]); i++) {
		roz_decide_request req;

		memset(&req, 0, sizeof(req));
		req.session_id = "g1";
		req.kind = bad_verdicts[i].kind;
		req.summary = bad_verdicts[i].summary;
		req.message = bad_verdicts[i].message;
		req.opinions = bad_verdicts[i].opinions;
		assert_int_equal(roz_runner_decide(&config, &req, &opts), ROZ_EINVALID);
		assert_non_null(strstr(roz_error_last(), "not valid UTF-8"));
		after = t_read_file(path, NULL);
		assert_string_equal(after, before);
		free(after);
	}
	free(before);
	free(path);
	roz_store_free(store);
	roz_config_dispose(&config);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(prompt_with_prefix_enables_review),
		T(prompt_without_prefix_does_not_enable),
		T(plain_prompt_keeps_review_enabled),
		T(prefix_after_whitespace_counts),
		T(prefix_after_unicode_space_counts),
		T(prefix_in_the_middle_does_not_count),
		T(mode_always_reviews_every_prompt),
		T(mode_never_ignores_prefix),
		T(new_roz_prompt_resets_decision),
		T(long_prompt_is_stored_truncated),
		T(prompts_keep_the_latest_fifty),
		T(task_notification_is_not_a_prompt),
		T(stop_without_session_allows_and_stores_nothing),
		T(stop_without_review_allows),
		T(stop_with_pending_review_blocks_with_template),
		T(stop_after_complete_allows),
		T(stop_after_issues_blocks_with_message),
		T(stop_after_long_issues_is_bounded),
		T(stop_after_issues_without_message_uses_summary),
		T(stop_records_stop_hook_active),
		T(stop_uses_loaded_template),
		T(pinned_template_id_is_used_and_recorded),
		T(random_template_follows_weights),
		T(template_selection_edge_cases),
		T(breaker_allows_exactly_max_blocks),
		T(breaker_respects_configured_limit),
		T(breaker_with_zero_limit_never_blocks),
		T(breaker_trips_on_issues_too),
		T(tripped_breaker_within_cooldown_allows),
		T(breaker_resets_after_cooldown),
		T(legacy_trip_without_time_stays_tripped),
		T(huge_cooldown_saturates),
		T(stop_hook_active_does_not_shorten_the_cycle),
		T(subagent_stop_ignores_other_agents),
		T(subagent_stop_unknown_session_allows),
		T(subagent_stop_without_verdict_blocks),
		T(subagent_stop_with_fresh_verdict_allows),
		T(subagent_stop_with_stale_verdict_blocks),
		T(subagent_stop_gate_start_is_lower_bound),
		T(subagent_stop_future_verdict_blocks),
		T(subagent_stop_within_skew_allows),
		T(subagent_stop_without_lower_bound_allows),
		T(subagent_stop_ignores_stop_hook_active),
		T(session_start_creates_session),
		T(session_start_resumes_existing),
		T(session_start_reports_second_opinions),
		T(session_end_records_reason_and_cwd),
		T(session_end_without_reason_says_unknown),
		T(session_end_every_reason),
		T(session_end_for_unknown_session_allows),
		T(unknown_event_answers_empty),
		T(no_gates_allow_everything),
		T(non_matching_tool_allows_without_touching_state),
		T(matching_tool_is_denied_and_starts_review),
		T(first_matching_pattern_wins),
		T(bash_command_is_normalized_for_matching),
		T(big_tool_input_is_truncated_and_hashed),
		T(tripped_breaker_lets_gated_tools_through),
		T(full_gate_flow_deny_review_allow),
		T(session_scope_approval_lasts),
		T(prompt_scope_resets_on_new_prompt),
		T(prompt_during_review_does_not_undo_approval),
		T(tool_scope_lets_one_call_through_per_review),
		T(approval_ttl_expires),
		T(huge_ttl_never_expires),
		T(approval_needs_a_complete_decision),
		T(gate_block_makes_a_stale_approval_pending),
		T(decide_complete_records_everything),
		T(decide_issues_records_message),
		T(decide_with_opinions),
		T(decide_history_keeps_latest_fifty),
		T(decide_rejects_pending),
		T(flow_prompt_block_complete_allow),
		T(flow_issues_then_fix_then_complete),
		T(flow_block_count_increments),
		T(flow_three_tasks_each_reviewed),
		T(flow_issues_reach_agent_with_stop_hook_active),
		T(flow_gate_then_new_prompt_regates),
		T(flow_lifecycle_start_prompt_end),
		T(no_hook_ever_answers_allow),
		T(state_stays_bounded_over_ten_thousand_prompts),
		T(gated_input_at_the_parsers_depth_keeps_the_review),
		T(flaws_beside_the_command_do_not_open_the_gate),
		T(wrong_types_do_not_let_a_pending_review_go),
		T(decide_refuses_text_it_cannot_read_back),
		T(run_decide_refuses_text_it_cannot_read_back),
#undef T
	};

	if (getenv("ROZ_TEST_FILTER"))
		cmocka_set_test_filter(getenv("ROZ_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
