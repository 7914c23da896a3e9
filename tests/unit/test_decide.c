/*
 * test_decide.c - who can record a verdict: the reviewer, through the ticket
 * its own `roz decide` call is issued, and a person at a terminal with
 * --override. Every refusal, the accepted paths, the reviewer binding at
 * SubagentStop, a main-agent interpreter call refused and the verdict kept, and
 * how the tickets and override marks are stored.
 */
#include "hookenv.h"
#include "stores.h"

#include "roz/decide.h"
#include "roz/config_load.h"
#include "roz/json.h"
#include "roz/runner.h"
#include "roz/session_json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SID "sess-d"


/* The newest pending attempt, read without fail. */
static roz_attempt *pending_of(roz_session *s)
{
	roz_attempt *a = NULL;

	assert_int_equal(roz_session_pending_attempt(s, &a), ROZ_OK);
	return a;
}

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

static char *quoted(const char *s)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_json_add_string(&b, s);
	return roz_buf_detach(&b, NULL);
}

/* A Bash call from the reviewer run `agent` (NULL: the main agent). */
static roz_output_kind bash_by(t_hooks *h, const char *agent, const char *tool_use_id, const char *command)
{
	char *q = quoted(command), *who;
	roz_output_kind k;
	t_out out;

	who = agent ? t_sprintf(",\"agent_id\":\"%s\",\"agent_type\":\"roz:roz\"", agent) : strdup("");
	k = th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out,
		   "{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"Bash\",\"tool_use_id\":\"%s\","
		   "\"tool_input\":{\"command\":%s}%s}",
		   SID, tool_use_id, q, who);
	th_out_dispose(&out);
	roz_free(q);
	free(who);
	return k;
}

/* A reviewed task whose stop is blocked: the state a verdict is recorded in. */
static void pending_review(t_hooks *h)
{
	th_prompt(h, SID, "#roz add the retry logic");
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

/* Event ids for verdicts recorded outside the harness's hooks. */
static int decide_id(void *ud, char out[ROZ_UUID_SIZE])
{
	t_hooks *h = ud;

	snprintf(out, ROZ_UUID_SIZE, "id-%u", ++h->ids);
	return ROZ_OK;
}

/* `roz decide` as the CLI runs it, on the stored session; saves when told to. */
static int decide(t_hooks *h, roz_decision_kind kind, const char *summary, bool override, char **why)
{
	roz_session *s = th_get(h, SID);
	roz_env env;
	bool save = true;
	int rc;

	assert_non_null(s);
	memset(&env, 0, sizeof(env));
	env.now = h->now;
	env.config = &h->config;
	env.new_id = decide_id;
	env.ud = h;
	rc = roz_decide_record(s, kind, summary, NULL, NULL, override, &env, &save);
	if (why)
		*why = rc == ROZ_EINVALID ? strdup(roz_error_last()) : NULL;
	if (rc == ROZ_OK)
		assert_true(save);
	if (save)
		th_put(h, s);
	roz_session_free(s);
	th_advance_ms(h, 1);
	return rc;
}

static void expect_refused(char *why, const char *needle)
{
	assert_non_null(why);
	if (!strstr(why, needle))
		fail_msg("refusal '%s' does not say '%s'", why, needle);
	free(why);
}

/* The payload of the newest event of a type, parsed (caller deletes), or NULL. */
static cJSON *last_payload(t_hooks *h, const char *type)
{
	roz_session *s = th_get(h, SID);
	cJSON *found = NULL;

	for (size_t i = s ? s->n_trace : 0; i-- > 0 && !found;) {
		cJSON *ev = NULL;

		assert_int_equal(roz_json_parse(s->trace[i].json, s->trace[i].len, &ev), ROZ_OK);
		if (strcmp(cJSON_GetObjectItem(ev, "event_type")->valuestring, type) == 0)
			found = cJSON_DetachItemFromObject(ev, "payload");
		cJSON_Delete(ev);
	}
	roz_session_free(s);
	return found;
}

/* ---- tickets: who gets one ------------------------------------------------------------ */

static void reviewer_decide_call_issues_a_ticket(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	pending_review(h);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "rv-1"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE 'retries are bounded'"),
			 ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_int_equal(s->review.n_tickets, 1);
	assert_string_equal(s->review.tickets[0].agent_id, "rv-1");
	assert_string_equal(s->review.tickets[0].tool_use_id, "toolu_1");
	assert_false(roz_time_after(s->review.tickets[0].issued_at, h->now));
	assert_false(s->review.tickets[0].used);
	roz_session_free(s);
}

static void main_agent_decide_call_issues_no_ticket(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	t_out out;

	pending_review(h);
	assert_int_equal(bash_by(h, NULL, "toolu_1", "roz decide " SID " COMPLETE done"), ROZ_OUTPUT_DENY);
	/* a subagent of another type is the main agent's helper, not the reviewer */
	assert_int_equal(th_run(h, ROZ_HOOK_PRE_TOOL_USE, &out,
				"{\"session_id\":\"" SID "\",\"cwd\":\"/w\",\"tool_name\":\"Bash\","
				"\"tool_input\":{\"command\":\"roz decide " SID " COMPLETE x\"},"
				"\"agent_id\":\"gp-1\",\"agent_type\":\"general-purpose\"}"),
			 ROZ_OUTPUT_DENY);
	th_out_dispose(&out);
	s = th_get(h, SID);
	assert_int_equal(s->review.n_tickets, 0);
	roz_session_free(s);
}

static void reviewer_call_that_is_refused_issues_no_ticket(void **state)
{
	t_hooks *h = *state;
	static const char *const gates[] = {"Bash:git push*", NULL};
	roz_session *s;

	th_gates(h, ROZ_SCOPE_SESSION, gates);
	pending_review(h);
	/* the reviewer does not run gated actions: the whole line is refused, so no ticket */
	assert_int_equal(bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok && git push"),
			 ROZ_OUTPUT_DENY);
	s = th_get(h, SID);
	assert_int_equal(s->review.n_tickets, 0);
	roz_session_free(s);
}

static void tickets_are_capped_and_expired_ones_dropped(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	pending_review(h);
	for (int i = 0; i < ROZ_MAX_TICKETS + 3; i++)
		bash_by(h, "rv-1", "toolu_x", "roz decide " SID " COMPLETE ok");
	s = th_get(h, SID);
	assert_int_equal(s->review.n_tickets, ROZ_MAX_TICKETS);
	roz_session_free(s);
	th_advance_ms(h, (ROZ_TICKET_TTL_SECONDS + 1) * 1000);
	bash_by(h, "rv-1", "toolu_y", "roz decide " SID " COMPLETE ok");
	s = th_get(h, SID);
	assert_int_equal(s->review.n_tickets, 1);
	assert_string_equal(s->review.tickets[0].tool_use_id, "toolu_y");
	roz_session_free(s);
}

/* ---- roz decide: refusals --------------------------------------------------------------- */

static void decide_without_ticket_is_refused(void **state)
{
	t_hooks *h = *state;
	char *why;
	roz_session *s;

	pending_review(h);
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "self-approved", false, &why), ROZ_EINVALID);
	/* it tells a person what to do instead */
	expect_refused(why, "--override");
	s = th_get(h, SID);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	assert_int_equal(s->review.n_history, 0);
	roz_session_free(s);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

static void decide_with_expired_ticket_is_refused(void **state)
{
	t_hooks *h = *state;
	char *why;

	pending_review(h);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok");
	th_advance_ms(h, ROZ_TICKET_TTL_SECONDS * 1000);
	th_advance_ms(h, 1000);
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "late", false, &why), ROZ_EINVALID);
	expect_refused(why, "within 120 seconds");
}

static void ticket_is_good_for_its_whole_ttl(void **state)
{
	t_hooks *h = *state;

	pending_review(h);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok");
	th_advance_ms(h, ROZ_TICKET_TTL_SECONDS * 1000 - 10);
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "just in time", false, NULL), ROZ_OK);
}

static void ticket_from_the_future_is_not_live(void **state)
{
	t_hooks *h = *state;
	char *why;

	pending_review(h);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok");
	/* a clock that ran backwards: the ticket seems issued a minute from now */
	th_advance_ms(h, -60 * 1000);
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "from the past", false, &why), ROZ_EINVALID);
	free(why);
}

static void used_ticket_is_refused_and_contests_its_verdict(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	cJSON *p;
	char *why;

	pending_review(h);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "rv-1"), ROZ_OUTPUT_ALLOW);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " ISSUES 'no tests'");
	/* someone else's decide got there first, with the reviewer's ticket */
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "forged", false, NULL), ROZ_OK);
	/* the reviewer's own decide finds the ticket used */
	assert_int_equal(decide(h, ROZ_DECISION_ISSUES, "no tests", false, &why), ROZ_EINVALID);
	expect_refused(why, "already recorded");
	s = th_get(h, SID);
	assert_true(s->review.decision_contested);
	assert_string_equal(s->review.decision.summary, "forged");
	roz_session_free(s);
	p = last_payload(h, "decision_ignored");
	assert_non_null(p);
	assert_string_equal(cJSON_GetObjectItem(p, "summary")->valuestring, "forged");
	cJSON_Delete(p);
	/* the reviewer's stop does not vouch for it */
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "rv-1"), ROZ_OUTPUT_BLOCK);
	/* recorded anew under a fresh ticket, it counts */
	bash_by(h, "rv-1", "toolu_2", "roz decide " SID " ISSUES 'no tests'");
	assert_int_equal(decide(h, ROZ_DECISION_ISSUES, "no tests", false, NULL), ROZ_OK);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "rv-1"), ROZ_OUTPUT_ALLOW);
	s = th_get(h, SID);
	assert_true(s->review.decision_trusted);
	assert_false(s->review.decision_contested);
	roz_session_free(s);
}

static void second_decide_on_a_vouched_verdict_does_not_undo_it(void **state)
{
	t_hooks *h = *state;
	char *why;

	pending_review(h);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "rv-1"), ROZ_OUTPUT_ALLOW);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok");
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "reviewed", false, NULL), ROZ_OK);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "rv-1"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "again", false, &why), ROZ_EINVALID);
	free(why);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

/* ---- roz decide: accepted ---------------------------------------------------------------- */

static void reviewer_with_ticket_records_and_its_stop_vouches(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	cJSON *p;

	pending_review(h);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "rv-1"), ROZ_OUTPUT_ALLOW);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE 'retries are bounded'");
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "retries are bounded", false, NULL), ROZ_OK);
	s = th_get(h, SID);
	assert_string_equal(s->review.decision_agent_id, "rv-1");
	assert_true(s->review.tickets[0].used);
	assert_false(s->review.decision_trusted);
	assert_false(s->review.decision_override);
	roz_session_free(s);
	/* the trace says which reviewer call it answered */
	p = last_payload(h, "roz_decision");
	assert_string_equal(cJSON_GetObjectItem(p, "agent_id")->valuestring, "rv-1");
	assert_string_equal(cJSON_GetObjectItem(p, "tool_use_id")->valuestring, "toolu_1");
	assert_null(cJSON_GetObjectItem(p, "override"));
	cJSON_Delete(p);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, SID, "rv-1"), ROZ_OUTPUT_ALLOW);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

static void another_reviewers_stop_does_not_vouch(void **state)
{
	t_hooks *h = *state;
	t_out out;

	pending_review(h);
	assert_int_equal(th_reviewer(h, ROZ_HOOK_SUBAGENT_START, SID, "rv-1"), ROZ_OUTPUT_ALLOW);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok");
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "ok", false, NULL), ROZ_OK);
	assert_int_equal(th_run(h, ROZ_HOOK_SUBAGENT_STOP, &out,
				"{\"session_id\":\"" SID "\",\"cwd\":\"/w\",\"agent_id\":\"rv-2\","
				"\"agent_type\":\"roz:roz\"}"),
			 ROZ_OUTPUT_BLOCK);
	assert_non_null(strstr(out.text, "another reviewer's ticket"));
	th_out_dispose(&out);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_BLOCK);
}

static void oldest_live_ticket_is_used_first(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	pending_review(h);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok");
	bash_by(h, "rv-2", "toolu_2", "roz decide " SID " COMPLETE ok");
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "first", false, NULL), ROZ_OK);
	s = th_get(h, SID);
	assert_string_equal(s->review.decision_agent_id, "rv-1");
	assert_false(s->review.tickets[1].used);
	roz_session_free(s);
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "second", false, NULL), ROZ_OK);
	s = th_get(h, SID);
	assert_string_equal(s->review.decision_agent_id, "rv-2");
	roz_session_free(s);
}

static void override_records_without_ticket_and_is_marked(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	cJSON *p;

	pending_review(h);
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "I read the diff", true, NULL), ROZ_OK);
	s = th_get(h, SID);
	assert_true(s->review.decision_override);
	assert_true(s->review.decision_trusted);
	assert_null(s->review.decision_agent_id);
	roz_session_free(s);
	p = last_payload(h, "roz_decision");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "override")));
	cJSON_Delete(p);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
	/* a new verdict, by the reviewer, is no override */
	th_prompt(h, SID, "#roz and the backoff");
	th_stop(h, SID);
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok");
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "ok", false, NULL), ROZ_OK);
	s = th_get(h, SID);
	assert_false(s->review.decision_override);
	roz_session_free(s);
}

static void require_reviewer_off_needs_no_ticket(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	h->config.require_reviewer = false;
	pending_review(h);
	/* and the reviewer's call is issued none: nothing would use it */
	bash_by(h, "rv-1", "toolu_1", "roz decide " SID " COMPLETE ok");
	s = th_get(h, SID);
	assert_int_equal(s->review.n_tickets, 0);
	roz_session_free(s);
	assert_int_equal(decide(h, ROZ_DECISION_COMPLETE, "scripted approval", false, NULL), ROZ_OK);
	assert_int_equal(th_stop(h, SID), ROZ_OUTPUT_ALLOW);
}

/* ---- stored form ---------------------------------------------------------------------------- */

static void tickets_and_marks_survive_a_save(void **state)
{
	t_hooks *h = *state;
	roz_session *s, *back = NULL;
	roz_buf b = ROZ_BUF_INIT;

	(void)h;
	assert_int_equal(roz_session_new(SID, h->now, &s), ROZ_OK);
	assert_int_equal(roz_session_ticket_add(s, "rv-1", "toolu_1", h->now), ROZ_OK);
	assert_int_equal(roz_session_ticket_add(s, "rv-2", NULL, h->now), ROZ_OK);
	s->review.tickets[0].used = true;
	s->review.decision_agent_id = roz_strdup("rv-1");
	s->review.decision_override = true;
	s->review.decision_contested = true;
	assert_int_equal(roz_session_json_write(s, &b), ROZ_OK);
	assert_int_equal(roz_session_json_parse(b.ptr, b.len, &back), ROZ_OK);
	assert_int_equal(back->review.n_tickets, 2);
	assert_string_equal(back->review.tickets[0].agent_id, "rv-1");
	assert_string_equal(back->review.tickets[0].tool_use_id, "toolu_1");
	assert_true(back->review.tickets[0].used);
	assert_null(back->review.tickets[1].tool_use_id);
	assert_false(back->review.tickets[1].used);
	assert_int_equal(roz_time_cmp(back->review.tickets[1].issued_at, h->now), 0);
	assert_string_equal(back->review.decision_agent_id, "rv-1");
	assert_true(back->review.decision_override);
	assert_true(back->review.decision_contested);
	roz_buf_dispose(&b);
	roz_session_free(s);
	roz_session_free(back);
}

static void ticket_text_roz_cannot_store_is_refused(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_buf b = ROZ_BUF_INIT;
	roz_session *back = NULL;

	assert_int_equal(roz_session_new(SID, h->now, &s), ROZ_OK);
	assert_int_equal(roz_session_ticket_add(s, "rv-\xff", "toolu_1", h->now), ROZ_EINVALID);
	assert_int_equal(roz_session_ticket_add(s, "rv-1", "toolu_\xc3", h->now), ROZ_EINVALID);
	assert_int_equal(s->review.n_tickets, 0);
	/* what was stored still reads back */
	assert_int_equal(roz_session_json_write(s, &b), ROZ_OK);
	assert_int_equal(roz_session_json_parse(b.ptr, b.len, &back), ROZ_OK);
	roz_buf_dispose(&b);
	roz_session_free(back);
	roz_session_free(s);
}

static void a_new_verdict_clears_the_marks(void **state)
{
	t_hooks *h = *state;
	roz_session *s;
	roz_decision d = {ROZ_DECISION_ISSUES, NULL, NULL, NULL};

	assert_int_equal(roz_session_new(SID, h->now, &s), ROZ_OK);
	s->review.decision_agent_id = roz_strdup("rv-1");
	s->review.decision_override = true;
	s->review.decision_contested = true;
	assert_int_equal(roz_session_record_decision(s, &d, h->now), ROZ_OK);
	assert_null(s->review.decision_agent_id);
	assert_false(s->review.decision_override);
	assert_false(s->review.decision_contested);
	roz_session_free(s);
}

static void malformed_ticket_is_corrupt(void **state)
{
	static const char *const bad[] = {
		"\"verdict_tickets\":{}",
		"\"verdict_tickets\":[1]",
		"\"verdict_tickets\":[{\"issued_at\":\"2026-01-01T00:00:00Z\"}]",
		"\"verdict_tickets\":[{\"agent_id\":\"a\",\"issued_at\":\"soon\"}]",
		"\"verdict_tickets\":[{\"agent_id\":\"a\",\"issued_at\":\"2026-01-01T00:00:00Z\",\"used\":1}]",
		"\"decision_override\":\"yes\"",
		"\"decision_agent_id\":7",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *doc = t_sprintf("{\"session_id\":\"s\",\"review\":{\"enabled\":true,%s},\"trace\":[],"
				      "\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}",
				      bad[i]);
		roz_session *s = NULL;

		if (roz_session_json_parse(doc, strlen(doc), &s) != ROZ_ECORRUPT)
			fail_msg("accepted: %s", bad[i]);
		free(doc);
	}
}

/* ---- the module's own calls, on a session in hand ------------------------------------------ */

static roz_env env_of(t_hooks *h)
{
	roz_env env;

	memset(&env, 0, sizeof(env));
	env.now = h->now;
	env.config = &h->config;
	env.new_id = decide_id;
	env.ud = h;
	return env;
}

static void a_complete_counts_once_vouched_or_no_reviewer_is_required(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	assert_int_equal(roz_session_new(SID, h->now, &s), ROZ_OK);
	h->config.require_reviewer = true;
	assert_false(roz_decide_approves(s, &h->config)); /* pending */
	s->review.decision.kind = ROZ_DECISION_COMPLETE;
	assert_false(roz_decide_approves(s, &h->config));
	s->review.decision_trusted = true;
	assert_true(roz_decide_approves(s, &h->config));
	s->review.decision.kind = ROZ_DECISION_ISSUES;
	assert_false(roz_decide_approves(s, &h->config));
	s->review.decision.kind = ROZ_DECISION_COMPLETE;
	s->review.decision_trusted = false;
	h->config.require_reviewer = false;
	assert_true(roz_decide_approves(s, &h->config));
	roz_session_free(s);
}

static void the_pending_attempt_is_marked_answered(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	assert_int_equal(roz_session_new(SID, h->now, &s), ROZ_OK);
	/* no attempt pending: nothing to mark, and no error */
	assert_int_equal(roz_decide_attempt_succeeded(s), ROZ_OK);
	assert_int_equal(s->review.n_attempts, 0);
	assert_int_equal(roz_session_add_attempt(s, "default", h->now), ROZ_OK);
	s->review.block_count = 3;
	s->review.decision.kind = ROZ_DECISION_ISSUES;
	/* out of memory: an error, and the attempt still pending */
	roz_alloc_fail_after(0);
	assert_int_equal(roz_decide_attempt_succeeded(s), ROZ_ENOMEM);
	roz_alloc_fail_after(-1);
	assert_non_null(pending_of(s));
	assert_int_equal(roz_decide_attempt_succeeded(s), ROZ_OK);
	assert_null(pending_of(s));
	assert_int_equal(s->review.attempts[0].outcome, ROZ_OUTCOME_SUCCESS);
	assert_string_equal(s->review.attempts[0].decision_type, "issues");
	assert_int_equal(s->review.attempts[0].blocks_needed, 3);
	roz_session_free(s);
}

static void apply_records_and_trusts_only_an_override(void **state)
{
	t_hooks *h = *state;
	roz_env env = env_of(h);
	roz_session *s;

	h->config.require_reviewer = true;
	assert_int_equal(roz_session_new(SID, h->now, &s), ROZ_OK);
	assert_int_equal(roz_session_add_attempt(s, "default", h->now), ROZ_OK);
	/* the reviewer's verdict waits for its SubagentStop */
	assert_int_equal(roz_decide_apply(s, ROZ_DECISION_COMPLETE, "fine", NULL, "codex agreed", false, &env),
			 ROZ_OK);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_string_equal(s->review.decision.summary, "fine");
	assert_string_equal(s->review.decision.second_opinions, "codex agreed");
	assert_true(s->review.gate_approved_at.set);
	assert_false(s->review.decision_trusted);
	assert_false(s->review.decision_override);
	assert_non_null(pending_of(s));
	assert_false(roz_decide_approves(s, &h->config));
	/* an ISSUES verdict approves nothing new; a person's override is trusted at once */
	s->review.gate_approved_at.set = false;
	assert_int_equal(roz_decide_apply(s, ROZ_DECISION_ISSUES, "no", "fix it", NULL, true, &env), ROZ_OK);
	assert_false(s->review.gate_approved_at.set);
	assert_string_equal(s->review.decision.message_to_agent, "fix it");
	assert_true(s->review.decision_trusted);
	assert_true(s->review.decision_override);
	assert_null(pending_of(s));
	assert_string_equal(s->review.attempts[0].decision_type, "issues");
	/* both verdicts are in the trace */
	assert_int_equal(s->n_trace, 2);
	roz_session_free(s);
}

static void apply_without_a_reviewer_required_settles_the_attempt(void **state)
{
	t_hooks *h = *state;
	roz_env env = env_of(h);
	roz_session *s;

	h->config.require_reviewer = false;
	assert_int_equal(roz_session_new(SID, h->now, &s), ROZ_OK);
	assert_int_equal(roz_session_add_attempt(s, "default", h->now), ROZ_OK);
	assert_int_equal(roz_decide_apply(s, ROZ_DECISION_COMPLETE, "ok", NULL, NULL, false, &env), ROZ_OK);
	assert_false(s->review.decision_trusted);
	assert_true(roz_decide_approves(s, &h->config));
	assert_null(pending_of(s));
	assert_string_equal(s->review.attempts[0].decision_type, "complete");
	roz_session_free(s);
}

/* ---- interpreters (which lines count is test_interp.c's) ------------------------------------ */

static void main_agent_interpreter_call_is_denied(void **state)
{
	t_hooks *h = *state;
	roz_session *s;

	pending_review(h);
	assert_int_equal(bash_by(h, NULL, "toolu_1",
				 "env -u CLAUDE_CODE_SESSION_ID python3 -c 'import os; "
				 "os.system(\"roz decide " SID " COMPLETE ok --override\")'"),
			 ROZ_OUTPUT_DENY);
	s = th_get(h, SID);
	assert_int_equal(s->review.n_tickets, 0);
	roz_session_free(s);
}

/* ---- the real runner: file store, injected person checks ---------------------------------- */

typedef struct world {
	char *home;
	roz_config config;
	/* what the injected probe reports */
	const char *env_name;  /* the one variable set, or NULL */
	bool tty_in, tty_err;
	int procs;             /* entries in chain */
	roz_process_info chain[4];
	bool unreadable;
} world;

static const char *world_getenv(void *ud, const char *name)
{
	world *w = ud;

	if (strcmp(name, "ROZ_HOME") == 0)
		return w->home;
	if (w->env_name && strcmp(name, w->env_name) == 0)
		return "1";
	return NULL;
}

static bool world_tty(void *ud, int fd)
{
	world *w = ud;

	return fd == 0 ? w->tty_in : fd == 2 ? w->tty_err : false;
}

/* Process k of the chain has pid 100+k (this process is pid 0 when asked); its parent is the next. */
static int world_process(void *ud, long pid, roz_process_info *out)
{
	world *w = ud;
	long k = pid == 0 ? 0 : pid - 100;

	if (w->unreadable || k < 0 || k >= w->procs) {
		roz_error_set("cannot read /proc/%ld/stat", pid);
		return ROZ_EIO;
	}
	*out = w->chain[k];
	out->ppid = k + 1 < w->procs ? 100 + k + 1 : 1;
	return ROZ_OK;
}

static void chain_set(world *w, int k, const char *comm, const char *exe)
{
	snprintf(w->chain[k].comm, sizeof(w->chain[k].comm), "%s", comm);
	snprintf(w->chain[k].exe, sizeof(w->chain[k].exe), "%s", exe);
	if (k + 1 > w->procs)
		w->procs = k + 1;
}

static int world_setup(void **state)
{
	world *w = calloc(1, sizeof(*w));

	roz_alloc_init();
	w->home = t_mkdtemp();
	assert_int_equal(roz_config_load(&w->config, world_getenv, w, NULL, NULL), ROZ_OK);
	/* a person at a terminal, in a shell over ssh: what passes */
	w->tty_in = w->tty_err = true;
	chain_set(w, 0, "roz", "/usr/local/bin/roz");
	chain_set(w, 1, "bash", "/usr/bin/bash");
	chain_set(w, 2, "sshd", ""); /* root's: its executable cannot be read */
	*state = w;
	return 0;
}

static int world_teardown(void **state)
{
	world *w = *state;

	roz_config_dispose(&w->config);
	t_rmtree(w->home);
	free(w->home);
	free(w);
	return 0;
}

static void hook_in(world *w, const char *event, const char *json)
{
	roz_runner_opts opts = {world_getenv, w, .open_store = t_file_store_open};
	roz_buf out = ROZ_BUF_INIT, err = ROZ_BUF_INIT;

	assert_int_equal(roz_runner_hook(event, json, strlen(json), &out, &err, &opts), ROZ_OK);
	roz_buf_dispose(&out);
	roz_buf_dispose(&err);
}

static void world_pending(world *w)
{
	hook_in(w, "user-prompt", "{\"session_id\":\"" SID "\",\"cwd\":\"/w\",\"prompt\":\"#roz fix it\"}");
	hook_in(w, "stop", "{\"session_id\":\"" SID "\",\"cwd\":\"/w\"}");
}

static int run_decide(world *w, bool override, const char *summary)
{
	roz_person_probe probe = {world_tty, world_getenv, world_process, w};
	roz_runner_opts opts = {.open_store = t_file_store_open, .probe = &probe};
	roz_decide_request req;

	memset(&req, 0, sizeof(req));
	req.session_id = SID;
	req.kind = ROZ_DECISION_COMPLETE;
	req.summary = summary;
	req.override = override;
	return roz_runner_decide(&w->config, &req, &opts);
}

/* The stored session's decision summary and override mark, read from disk. */
static void expect_stored(world *w, const char *summary, bool override)
{
	char *path = t_sprintf("%s/sessions/%s.json", w->home, SID), *text = t_read_file(path, NULL);
	roz_session *s = NULL;

	assert_non_null(text);
	assert_int_equal(roz_session_json_parse(text, strlen(text), &s), ROZ_OK);
	if (summary)
		assert_string_equal(s->review.decision.summary, summary);
	else
		assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	assert_int_equal(s->review.decision_override, override);
	roz_session_free(s);
	free(text);
	free(path);
}

static void expect_override_refused(world *w, const char *needle)
{
	assert_int_equal(run_decide(w, true, "overridden"), ROZ_EINVALID);
	if (!strstr(roz_error_last(), needle))
		fail_msg("refusal '%s' does not say '%s'", roz_error_last(), needle);
	expect_stored(w, NULL, false);
}

static void runner_decide_needs_the_reviewers_ticket(void **state)
{
	world *w = *state;

	world_pending(w);
	assert_int_equal(run_decide(w, false, "self-approved"), ROZ_EINVALID);
	assert_non_null(strstr(roz_error_last(), "no roz:roz reviewer asked"));
	expect_stored(w, NULL, false);
	/* the reviewer's own call, through the real hook runner and store */
	hook_in(w, "pre-tool-use",
		"{\"session_id\":\"" SID "\",\"cwd\":\"/w\",\"tool_name\":\"Bash\",\"tool_use_id\":\"toolu_9\","
		"\"tool_input\":{\"command\":\"roz decide " SID " COMPLETE checked\"},"
		"\"agent_id\":\"rv-9\",\"agent_type\":\"roz:roz\"}");
	assert_int_equal(run_decide(w, false, "checked"), ROZ_OK);
	expect_stored(w, "checked", false);
	assert_int_equal(run_decide(w, false, "checked twice"), ROZ_EINVALID);
	expect_stored(w, "checked", false);
}

static void override_refused_with_claude_code_variables(void **state)
{
	world *w = *state;
	static const char *const markers[] = {"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SESSION_ID",
					      "CLAUDE_CODE_CHILD_SESSION", "CLAUDE_CODE_EXECPATH"};

	world_pending(w);
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		w->env_name = markers[i];
		expect_override_refused(w, markers[i]);
	}
}

static void override_refused_without_a_terminal(void **state)
{
	world *w = *state;

	world_pending(w);
	/* CLAUDE_CODE_SESSION_ID removed, as `env -u` does: still no person */
	w->tty_in = false;
	expect_override_refused(w, "standard input");
	w->tty_in = true;
	w->tty_err = false;
	expect_override_refused(w, "standard error");
}

static void override_refused_under_claude_code(void **state)
{
	world *w = *state;

	world_pending(w);
	/* the native build, by its executable */
	chain_set(w, 2, "2.1.331", "/home/u/.local/share/claude/versions/claude");
	chain_set(w, 3, "systemd", "/usr/lib/systemd/systemd");
	expect_override_refused(w, "process 102");
	/* the npm build under node, by its process name or its path */
	chain_set(w, 2, "claude", "/usr/bin/node");
	expect_override_refused(w, "runs under Claude Code");
	chain_set(w, 2, "MainThread", "/opt/lib/node_modules/@anthropic-ai/claude-code-linux-x64/bin");
	expect_override_refused(w, "runs under Claude Code");
}

static void override_refused_when_processes_cannot_be_read(void **state)
{
	world *w = *state;

	world_pending(w);
	w->unreadable = true;
	expect_override_refused(w, "--override cannot check who runs it");
}

static void override_accepted_for_a_person_at_a_terminal(void **state)
{
	world *w = *state;

	world_pending(w);
	assert_int_equal(run_decide(w, true, "I read the diff"), ROZ_OK);
	expect_stored(w, "I read the diff", true);
	/* a process the walk cannot read above the shell ends it, without refusing */
	w->procs = 2;
	assert_int_equal(run_decide(w, true, "and again"), ROZ_OK);
}

static void real_probe_runs_here(void **state)
{
	(void)state;
	/* under ctest stdin is not a terminal, so the real checks refuse; they must not crash */
	if (roz_runner_person_check(NULL) == ROZ_OK)
		return; /* run by hand at a terminal */
	assert_non_null(strstr(roz_error_last(), "--override"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define W(f) cmocka_unit_test_setup_teardown(f, world_setup, world_teardown)
	const struct CMUnitTest tests[] = {
		T(reviewer_decide_call_issues_a_ticket),
		T(main_agent_decide_call_issues_no_ticket),
		T(reviewer_call_that_is_refused_issues_no_ticket),
		T(tickets_are_capped_and_expired_ones_dropped),
		T(decide_without_ticket_is_refused),
		T(decide_with_expired_ticket_is_refused),
		T(ticket_is_good_for_its_whole_ttl),
		T(ticket_from_the_future_is_not_live),
		T(used_ticket_is_refused_and_contests_its_verdict),
		T(second_decide_on_a_vouched_verdict_does_not_undo_it),
		T(reviewer_with_ticket_records_and_its_stop_vouches),
		T(another_reviewers_stop_does_not_vouch),
		T(oldest_live_ticket_is_used_first),
		T(override_records_without_ticket_and_is_marked),
		T(require_reviewer_off_needs_no_ticket),
		T(tickets_and_marks_survive_a_save),
		T(ticket_text_roz_cannot_store_is_refused),
		T(a_new_verdict_clears_the_marks),
		T(malformed_ticket_is_corrupt),
		T(a_complete_counts_once_vouched_or_no_reviewer_is_required),
		T(the_pending_attempt_is_marked_answered),
		T(apply_records_and_trusts_only_an_override),
		T(apply_without_a_reviewer_required_settles_the_attempt),
		T(main_agent_interpreter_call_is_denied),
		W(runner_decide_needs_the_reviewers_ticket),
		W(override_refused_with_claude_code_variables),
		W(override_refused_without_a_terminal),
		W(override_refused_under_claude_code),
		W(override_refused_when_processes_cannot_be_read),
		W(override_accepted_for_a_person_at_a_terminal),
		W(real_probe_runs_here),
	};
#undef T
#undef W
	return cmocka_run_group_tests(tests, NULL, NULL);
}
