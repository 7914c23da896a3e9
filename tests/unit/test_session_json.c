/*
 * test_session_json.c - a session to and from its stored JSON: full round
 * trips, the exact shapes the Rust roz writes and reads, its own file loaded
 * unchanged, caps on load, corrupt files and allocation failure.
 */
#include "support.h"

#include "roz/json.h"
#include "roz/session_json.h"
#include "roz/utf8.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 INT64_C(1767609000) /* 2026-01-05T10:30:00Z */

/* A session file written by the Rust roz, as one line. */
static const char fixture_compact[] =
	"{\"session_id\":\"s1\",\"review\":{\"enabled\":true,\"decision\":{\"type\":\"complete\","
	"\"summary\":\"looks fine\"},\"decision_history\":[{\"decision\":{\"type\":\"pending\"},"
	"\"timestamp\":\"2026-11-22T02:18:05.400390549Z\"}],\"user_prompts\":[\"#roz fix it\"],"
	"\"gate_approved_at\":\"2026-11-22T02:18:05.400390549Z\",\"last_prompt_at\":"
	"\"2026-11-22T02:18:05.397721633Z\",\"block_count\":1,\"circuit_breaker_tripped\":false,"
	"\"attempts\":[{\"template_id\":\"default\",\"timestamp\":\"2026-11-22T02:18:05.399176863Z\","
	"\"outcome\":{\"type\":\"success\",\"decision_type\":\"complete\",\"blocks_needed\":1}}]},"
	"\"trace\":[{\"id\":\"2058b945-bc99-4484-8101-744637cbe56a\",\"timestamp\":"
	"\"2026-11-22T02:18:05.397721633Z\",\"event_type\":\"prompt_received\",\"payload\":"
	"{\"prompt\":\"#roz fix it\"}},{\"id\":\"4ad54292-8ea2-418e-a8fa-b7f4a8f328a8\",\"timestamp\":"
	"\"2026-11-22T02:18:05.399174358Z\",\"event_type\":\"stop_hook_called\",\"payload\":"
	"{\"effective_max_blocks\":3,\"stop_hook_active\":false}}],\"created_at\":"
	"\"2026-11-22T02:18:05.397721001Z\",\"updated_at\":\"2026-11-22T02:18:05.402045053Z\"}";


/* Smallest document roz accepts; %s lets a test add members to review. */
#define MINIMAL_FMT                                                                                   \
	"{\"session_id\":\"s\",\"review\":{%s},\"created_at\":\"2026-01-05T10:30:00Z\","              \
	"\"updated_at\":\"2026-01-05T10:30:00Z\"}"

static roz_time at(int64_t offset, int32_t nsec)
{
	return roz_time_make(T0 + offset, nsec);
}

static roz_session *load(const char *text)
{
	roz_session *s = NULL;
	int rc = roz_session_json_parse(text, strlen(text), &s);

	if (rc != ROZ_OK)
		fail_msg("load failed (%d): %s\n%s", rc, roz_error_last(), text);
	assert_non_null(s);
	return s;
}

/* Load a review fragment inside the minimal document. */
static roz_session *load_review(const char *members)
{
	char *text = t_sprintf(MINIMAL_FMT, members);
	roz_session *s = load(text);

	free(text);
	return s;
}

static char *dump(const roz_session *s)
{
	roz_buf b = ROZ_BUF_INIT;

	assert_int_equal(roz_session_json_write(s, &b), ROZ_OK);
	return roz_buf_detach(&b, NULL);
}

static void assert_time(roz_time got, const char *want)
{
	char buf[ROZ_TIME_BUFSZ];

	assert_string_equal(roz_time_format(got, buf), want);
}

static void assert_opt_str_equal(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_opt_time_equal(roz_opt_time a, roz_opt_time b)
{
	assert_int_equal(a.set, b.set);
	if (a.set)
		assert_int_equal(roz_time_cmp(a.t, b.t), 0);
}

static void assert_decision_equal(const roz_decision *a, const roz_decision *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_opt_str_equal(a->summary, b->summary);
	assert_opt_str_equal(a->second_opinions, b->second_opinions);
	assert_opt_str_equal(a->message_to_agent, b->message_to_agent);
}

static void assert_sessions_equal(const roz_session *a, const roz_session *b)
{
	const roz_review_state *ra = &a->review, *rb = &b->review;

	assert_string_equal(a->session_id, b->session_id);
	assert_int_equal(ra->enabled, rb->enabled);
	assert_decision_equal(&ra->decision, &rb->decision);
	assert_int_equal(ra->n_history, rb->n_history);
	for (size_t i = 0; i < ra->n_history; i++) {
		assert_decision_equal(&ra->history[i].decision, &rb->history[i].decision);
		assert_int_equal(roz_time_cmp(ra->history[i].timestamp, rb->history[i].timestamp), 0);
	}
	assert_int_equal(ra->n_prompts, rb->n_prompts);
	for (size_t i = 0; i < ra->n_prompts; i++)
		assert_string_equal(ra->prompts[i], rb->prompts[i]);
	if (!ra->gate_trigger || !rb->gate_trigger) {
		assert_ptr_equal(ra->gate_trigger, rb->gate_trigger);
	} else {
		const roz_gate_trigger *ga = ra->gate_trigger, *gb = rb->gate_trigger;

		assert_string_equal(ga->tool_name, gb->tool_name);
		assert_string_equal(ga->pattern_matched, gb->pattern_matched);
		assert_int_equal(roz_time_cmp(ga->triggered_at, gb->triggered_at), 0);
		assert_true(cJSON_Compare(ga->tool_input.value, gb->tool_input.value, true));
		assert_int_equal(ga->tool_input.truncated, gb->tool_input.truncated);
		assert_opt_str_equal(ga->tool_input.original_hash, gb->tool_input.original_hash);
		assert_int_equal(ga->tool_input.has_original_size, gb->tool_input.has_original_size);
		assert_int_equal(ga->tool_input.original_size, gb->tool_input.original_size);
	}
	assert_opt_time_equal(ra->gate_approved_at, rb->gate_approved_at);
	assert_opt_time_equal(ra->last_prompt_at, rb->last_prompt_at);
	assert_opt_time_equal(ra->review_started_at, rb->review_started_at);
	assert_int_equal(ra->block_count, rb->block_count);
	assert_int_equal(ra->circuit_breaker_tripped, rb->circuit_breaker_tripped);
	assert_opt_time_equal(ra->circuit_breaker_tripped_at, rb->circuit_breaker_tripped_at);
	assert_int_equal(ra->n_attempts, rb->n_attempts);
	for (size_t i = 0; i < ra->n_attempts; i++) {
		const roz_attempt *x = &ra->attempts[i], *y = &rb->attempts[i];

		assert_string_equal(x->template_id, y->template_id);
		assert_int_equal(roz_time_cmp(x->timestamp, y->timestamp), 0);
		assert_int_equal(x->outcome, y->outcome);
		assert_opt_str_equal(x->decision_type, y->decision_type);
		assert_int_equal(x->blocks_needed, y->blocks_needed);
	}
	assert_int_equal(a->n_trace, b->n_trace);
	for (size_t i = 0; i < a->n_trace; i++) {
		assert_int_equal(a->trace[i].len, b->trace[i].len);
		assert_memory_equal(a->trace[i].json, b->trace[i].json, a->trace[i].len);
	}
	assert_int_equal(roz_time_cmp(a->created_at, b->created_at), 0);
	assert_int_equal(roz_time_cmp(a->updated_at, b->updated_at), 0);
}

/* A session with every field set, including awkward strings. */
static roz_session *full_session(void)
{
	roz_session *s = NULL;
	roz_decision d = {ROZ_DECISION_PENDING, NULL, NULL, NULL};
	roz_review_state *r;
	char *big = malloc(12001);
	cJSON *input;
	static const roz_outcome_kind outcomes[] = {ROZ_OUTCOME_SUCCESS, ROZ_OUTCOME_NOT_SPAWNED,
						    ROZ_OUTCOME_NO_DECISION, ROZ_OUTCOME_BAD_SESSION_ID,
						    ROZ_OUTCOME_PENDING};

	assert_int_equal(roz_session_new("full-1_x", at(0, 123456789), &s), ROZ_OK);
	r = &s->review;
	r->enabled = true;
	assert_int_equal(roz_session_decision_set(&d, ROZ_DECISION_COMPLETE, "done \"right\"", "codex: \xe2\x9c\x93", NULL),
			 ROZ_OK);
	assert_int_equal(roz_session_record_decision(s, &d, at(1, 1000)), ROZ_OK);
	assert_int_equal(roz_session_decision_set(&d, ROZ_DECISION_ISSUES, "line1\nline2", NULL, NULL), ROZ_OK);
	assert_int_equal(roz_session_record_decision(s, &d, at(2, 0)), ROZ_OK);
	assert_int_equal(roz_session_decision_set(&d, ROZ_DECISION_ISSUES, "bugs\ttab", NULL, "fix \\ them \x01"), ROZ_OK);
	assert_int_equal(roz_session_record_decision(s, &d, at(3, 500000000)), ROZ_OK);
	roz_session_decision_dispose(&d);
	assert_int_equal(roz_session_add_prompt(s, "#roz fix it"), ROZ_OK);
	assert_int_equal(roz_session_add_prompt(s, "emoji \xf0\x9f\x8e\x89 and \"quotes\"\r\n"), ROZ_OK);
	assert_non_null(big);
	memset(big, 'k', 12000);
	big[12000] = '\0';
	input = cJSON_CreateObject();
	assert_non_null(input);
	assert_non_null(cJSON_AddStringToObject(input, "command", big));
	assert_int_equal(roz_session_set_gate_trigger(s, "Bash:git push", input, "Bash:git push*", at(4, 7)), ROZ_OK);
	assert_true(r->gate_trigger->tool_input.truncated);
	cJSON_Delete(input);
	free(big);
	r->gate_approved_at = (roz_opt_time){true, at(5, 5000000)};
	r->last_prompt_at = (roz_opt_time){true, at(6, 6)};
	r->review_started_at = (roz_opt_time){true, at(7, 0)};
	r->block_count = 2;
	r->circuit_breaker_tripped = true;
	r->circuit_breaker_tripped_at = (roz_opt_time){true, at(8, 999999999)};
	for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++) {
		char id[16];

		snprintf(id, sizeof(id), "tmpl-%zu", i);
		assert_int_equal(roz_session_add_attempt(s, id, at(10 + (int64_t)i, (int32_t)i)), ROZ_OK);
		r->attempts[i].outcome = outcomes[i];
	}
	r->attempts[0].decision_type = roz_strdup("complete");
	r->attempts[0].blocks_needed = 2;
	assert_int_equal(roz_session_trace_add(s, ROZ_EVENT_SESSION_START, "e1", at(0, 1), "{\"source\":\"startup\"}"),
			 ROZ_OK);
	assert_int_equal(roz_session_trace_add(s, ROZ_EVENT_GATE_BLOCKED, "e2", at(4, 2), "{\"k\":[1,{\"x\":null}]}"),
			 ROZ_OK);
	assert_int_equal(roz_session_trace_add(s, ROZ_EVENT_SESSION_END, "e3", at(20, 0), NULL), ROZ_OK);
	s->updated_at = at(21, 210000);
	return s;
}


/*
 * The compact text of the value at a dotted path ("review.attempts.0.outcome")
 * in a JSON document, printed by cJSON; NULL when the path does not exist.
 */
static char *item_text(const char *json, const char *dotted)
{
	cJSON *root = cJSON_Parse(json);
	const cJSON *v = root;
	char path[128], *save = NULL, *name, *printed, *out = NULL;

	assert_non_null(root);
	snprintf(path, sizeof(path), "%s", dotted);
	for (name = strtok_r(path, ".", &save); name && v; name = strtok_r(NULL, ".", &save)) {
		if (name[0] >= '0' && name[0] <= '9')
			v = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, atoi(name)) : NULL;
		else
			v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, name) : NULL;
	}
	if (v) {
		printed = cJSON_PrintUnformatted(v);
		assert_non_null(printed);
		out = t_sprintf("%s", printed);
		cJSON_free(printed);
	}
	cJSON_Delete(root);
	return out;
}

static void assert_item(const char *json, const char *dotted, const char *want)
{
	char *got = item_text(json, dotted);

	if (!got)
		fail_msg("no '%s' in %s", dotted, json);
	assert_string_equal(got, want);
	free(got);
}

static void assert_no_item(const char *json, const char *dotted)
{
	char *got = item_text(json, dotted);

	if (got)
		fail_msg("'%s' should be omitted, found %s", dotted, got);
}

static roz_session *plain_session(void)
{
	roz_session *s = NULL;

	assert_int_equal(roz_session_new("s", at(0, 0), &s), ROZ_OK);
	return s;
}

/* ---- writing: shapes ------------------------------------------------------------ */

static void test_new_session_exact_text(void **state)
{
	roz_session *s = plain_session();
	char *out = dump(s);

	(void)state;
	assert_string_equal(out,
			    "{\"session_id\":\"s\",\"review\":{\"enabled\":false,\"decision\":{\"type\":\"pending\"},"
			    "\"decision_history\":[],\"user_prompts\":[],\"last_prompt_at\":null,\"block_count\":0,"
			    "\"circuit_breaker_tripped\":false},\"trace\":[],\"created_at\":\"2026-01-05T10:30:00Z\","
			    "\"updated_at\":\"2026-01-05T10:30:00Z\"}\n");
	roz_free(out);
	roz_session_free(s);
}

static void test_absent_optionals_omitted(void **state)
{
	roz_session *s = plain_session();
	char *out;

	(void)state;
	out = dump(s);
	assert_no_item(out, "review.gate_trigger");
	assert_no_item(out, "review.gate_approved_at");
	assert_no_item(out, "review.review_started_at");
	assert_no_item(out, "review.circuit_breaker_tripped_at");
	assert_no_item(out, "review.attempts");
	/* the Rust roz always writes last_prompt_at, null when unset */
	assert_item(out, "review.last_prompt_at", "null");
	assert_item(out, "review.decision_history", "[]");
	assert_item(out, "review.user_prompts", "[]");
	roz_free(out);
	roz_session_free(s);
}

static void test_set_optionals_written(void **state)
{
	roz_session *s = plain_session();
	char *out;

	(void)state;
	s->review.gate_approved_at = (roz_opt_time){true, at(1, 0)};
	s->review.last_prompt_at = (roz_opt_time){true, at(2, 500000000)};
	s->review.review_started_at = (roz_opt_time){true, at(3, 1000)};
	s->review.circuit_breaker_tripped_at = (roz_opt_time){true, at(4, 1)};
	s->review.circuit_breaker_tripped = true;
	s->review.block_count = 4294967295u;
	out = dump(s);
	assert_item(out, "review.gate_approved_at", "\"2026-01-05T10:30:01Z\"");
	assert_item(out, "review.last_prompt_at", "\"2026-01-05T10:30:02.500Z\"");
	assert_item(out, "review.review_started_at", "\"2026-01-05T10:30:03.000001Z\"");
	assert_item(out, "review.circuit_breaker_tripped_at", "\"2026-01-05T10:30:04.000000001Z\"");
	assert_item(out, "review.circuit_breaker_tripped", "true");
	assert_non_null(strstr(out, "\"block_count\":4294967295,"));
	roz_free(out);
	roz_session_free(s);
}

static void check_decision_text(roz_decision_kind kind, const char *summary, const char *opinions,
				const char *message, const char *want)
{
	roz_session *s = plain_session();
	char *out;

	assert_int_equal(roz_session_decision_set(&s->review.decision, kind, summary, opinions, message), ROZ_OK);
	out = dump(s);
	assert_non_null(strstr(out, want));
	assert_item(out, "review.decision", want);
	roz_free(out);
	roz_session_free(s);
}

static void test_decision_shapes(void **state)
{
	(void)state;
	check_decision_text(ROZ_DECISION_PENDING, NULL, NULL, NULL, "{\"type\":\"pending\"}");
	check_decision_text(ROZ_DECISION_COMPLETE, "looks fine", NULL, NULL,
			    "{\"type\":\"complete\",\"summary\":\"looks fine\"}");
	check_decision_text(ROZ_DECISION_COMPLETE, "All good", "Codex agreed", NULL,
			    "{\"type\":\"complete\",\"summary\":\"All good\",\"second_opinions\":\"Codex agreed\"}");
	/* message_to_agent is always written for issues, null when absent */
	check_decision_text(ROZ_DECISION_ISSUES, "Found bugs", NULL, NULL,
			    "{\"type\":\"issues\",\"summary\":\"Found bugs\",\"message_to_agent\":null}");
	check_decision_text(ROZ_DECISION_ISSUES, "Found bugs", NULL, "Fix the tests",
			    "{\"type\":\"issues\",\"summary\":\"Found bugs\",\"message_to_agent\":\"Fix the tests\"}");
}

static void test_history_shape(void **state)
{
	roz_session *s = plain_session();
	roz_decision d = {ROZ_DECISION_PENDING, NULL, NULL, NULL};
	char *out;

	(void)state;
	assert_int_equal(roz_session_decision_set(&d, ROZ_DECISION_COMPLETE, "ok", NULL, NULL), ROZ_OK);
	assert_int_equal(roz_session_record_decision(s, &d, at(1, 400390549)), ROZ_OK);
	roz_session_decision_dispose(&d);
	out = dump(s);
	assert_non_null(strstr(out, "\"decision_history\":[{\"decision\":{\"type\":\"pending\"},"
				    "\"timestamp\":\"2026-01-05T10:30:01.400390549Z\"}]"));
	roz_free(out);
	roz_session_free(s);
}

static void test_outcome_shapes(void **state)
{
	roz_session *s = plain_session();
	roz_review_state *r = &s->review;
	char *out;

	(void)state;
	for (int i = 0; i < 5; i++)
		assert_int_equal(roz_session_add_attempt(s, "default", at(i, 0)), ROZ_OK);
	r->attempts[0].outcome = ROZ_OUTCOME_SUCCESS;
	r->attempts[0].decision_type = roz_strdup("complete");
	r->attempts[0].blocks_needed = 2;
	r->attempts[1].outcome = ROZ_OUTCOME_NOT_SPAWNED;
	r->attempts[2].outcome = ROZ_OUTCOME_NO_DECISION;
	r->attempts[3].outcome = ROZ_OUTCOME_BAD_SESSION_ID;
	out = dump(s);
	assert_non_null(strstr(out, "\"attempts\":[{\"template_id\":\"default\",\"timestamp\":"
				    "\"2026-01-05T10:30:00Z\",\"outcome\":{\"type\":\"success\","
				    "\"decision_type\":\"complete\",\"blocks_needed\":2}},"));
	assert_item(out, "review.attempts.1.outcome", "{\"type\":\"not_spawned\"}");
	assert_item(out, "review.attempts.2.outcome", "{\"type\":\"no_decision\"}");
	assert_item(out, "review.attempts.3.outcome", "{\"type\":\"bad_session_id\"}");
	assert_item(out, "review.attempts.4.outcome", "{\"type\":\"pending\"}");
	roz_free(out);
	roz_session_free(s);
}

static void test_gate_trigger_shape(void **state)
{
	roz_session *s = plain_session();
	cJSON *in = cJSON_Parse("{\"command\":\"git push\"}");
	char *out;

	(void)state;
	assert_non_null(in);
	assert_int_equal(roz_session_set_gate_trigger(s, "Bash:git push", in, "Bash:git push*", at(1, 0)), ROZ_OK);
	out = dump(s);
	assert_non_null(strstr(out, "\"gate_trigger\":{\"tool_name\":\"Bash:git push\",\"tool_input\":"
				    "{\"value\":{\"command\":\"git push\"},\"truncated\":false},\"triggered_at\":"
				    "\"2026-01-05T10:30:01Z\",\"pattern_matched\":\"Bash:git push*\"}"));
	roz_free(out);
	cJSON_Delete(in);
	roz_session_free(s);
}

static void test_truncated_gate_trigger_shape(void **state)
{
	roz_session *s = full_session();
	char *out = dump(s), *hash;
	const roz_truncated_input *ti = &s->review.gate_trigger->tool_input;

	(void)state;
	assert_item(out, "review.gate_trigger.tool_input.truncated", "true");
	hash = t_sprintf("\"%s\"", ti->original_hash);
	assert_item(out, "review.gate_trigger.tool_input.original_hash", hash);
	/* {"command":"<12000 k>"} is 12014 bytes of JSON */
	assert_item(out, "review.gate_trigger.tool_input.original_size", "12014");
	free(hash);
	roz_free(out);
	roz_session_free(s);
}

static void test_output_is_one_valid_line(void **state)
{
	roz_session *s = full_session();
	char *out = dump(s);
	size_t len = strlen(out);

	(void)state;
	assert_true(len > 2);
	assert_int_equal(out[len - 1], '\n');
	assert_null(memchr(out, '\n', len - 1));
	assert_true(roz_json_valid(out, len));
	roz_free(out);
	roz_session_free(s);
}

static void test_to_json_appends(void **state)
{
	roz_session *s = plain_session();
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	roz_buf_adds(&b, "prefix:");
	assert_int_equal(roz_session_json_write(s, &b), ROZ_OK);
	assert_true(strncmp(roz_buf_cstr(&b), "prefix:{\"session_id\":\"s\",", 25) == 0);
	assert_int_equal(b.ptr[b.len - 1], '\n');
	roz_buf_dispose(&b);
	roz_session_free(s);
}

/* ---- round trips ------------------------------------------------------------------ */

static void test_full_round_trip(void **state)
{
	roz_session *a = full_session(), *b;
	char *first = dump(a), *second;

	(void)state;
	b = load(first);
	assert_sessions_equal(a, b);
	/* writing what was read gives the same text */
	second = dump(b);
	assert_string_equal(first, second);
	roz_free(first);
	roz_free(second);
	roz_session_free(a);
	roz_session_free(b);
}

static void test_full_round_trip_values(void **state)
{
	roz_session *a = full_session(), *b;
	char *text = dump(a);
	const roz_review_state *r;

	(void)state;
	b = load(text);
	r = &b->review;
	/* spot checks that do not rely on the comparison helper */
	assert_string_equal(b->session_id, "full-1_x");
	assert_int_equal(r->decision.kind, ROZ_DECISION_ISSUES);
	assert_string_equal(r->decision.message_to_agent, "fix \\ them \x01");
	assert_int_equal(r->n_history, 3);
	assert_string_equal(r->history[1].decision.second_opinions, "codex: \xe2\x9c\x93");
	assert_null(r->history[2].decision.message_to_agent);
	assert_string_equal(r->prompts[1], "emoji \xf0\x9f\x8e\x89 and \"quotes\"\r\n");
	assert_int_equal(r->block_count, 2);
	assert_true(r->circuit_breaker_tripped);
	assert_time(r->circuit_breaker_tripped_at.t, "2026-01-05T10:30:08.999999999Z");
	assert_int_equal(r->attempts[0].outcome, ROZ_OUTCOME_SUCCESS);
	assert_int_equal(r->attempts[0].blocks_needed, 2);
	assert_int_equal(r->attempts[3].outcome, ROZ_OUTCOME_BAD_SESSION_ID);
	assert_int_equal(b->n_trace, 3);
	assert_time(b->created_at, "2026-01-05T10:30:00.123456789Z");
	assert_time(b->updated_at, "2026-01-05T10:30:21.000210Z");
	roz_free(text);
	roz_session_free(a);
	roz_session_free(b);
}

static void test_escaped_session_id_round_trips(void **state)
{
	roz_session *a = NULL, *b;
	char *text;

	(void)state;
	assert_int_equal(roz_session_new("we\"ird\\id\n", at(0, 0), &a), ROZ_OK);
	text = dump(a);
	b = load(text);
	assert_string_equal(b->session_id, "we\"ird\\id\n");
	roz_free(text);
	roz_session_free(a);
	roz_session_free(b);
}

/* ---- reading the Rust roz's file -------------------------------------------------- */

static void check_fixture_values(const roz_session *s)
{
	const roz_review_state *r = &s->review;
	roz_trace_event e;

	assert_string_equal(s->session_id, "s1");
	assert_true(r->enabled);
	assert_int_equal(r->decision.kind, ROZ_DECISION_COMPLETE);
	assert_string_equal(r->decision.summary, "looks fine");
	assert_null(r->decision.second_opinions);
	assert_int_equal(r->n_history, 1);
	assert_int_equal(r->history[0].decision.kind, ROZ_DECISION_PENDING);
	assert_time(r->history[0].timestamp, "2026-11-22T02:18:05.400390549Z");
	assert_int_equal(r->n_prompts, 1);
	assert_string_equal(r->prompts[0], "#roz fix it");
	assert_null(r->gate_trigger);
	assert_true(r->gate_approved_at.set);
	assert_int_equal(r->gate_approved_at.t.sec, INT64_C(1795313885));
	assert_int_equal(r->gate_approved_at.t.nsec, 400390549);
	assert_true(r->last_prompt_at.set);
	assert_time(r->last_prompt_at.t, "2026-11-22T02:18:05.397721633Z");
	assert_false(r->review_started_at.set);
	assert_int_equal(r->block_count, 1);
	assert_false(r->circuit_breaker_tripped);
	assert_false(r->circuit_breaker_tripped_at.set);
	assert_int_equal(r->n_attempts, 1);
	assert_string_equal(r->attempts[0].template_id, "default");
	assert_time(r->attempts[0].timestamp, "2026-11-22T02:18:05.399176863Z");
	assert_int_equal(r->attempts[0].outcome, ROZ_OUTCOME_SUCCESS);
	assert_string_equal(r->attempts[0].decision_type, "complete");
	assert_int_equal(r->attempts[0].blocks_needed, 1);
	assert_int_equal(s->n_trace, 2);
	assert_int_equal(roz_session_trace_event_parse(&s->trace[0], &e), ROZ_OK);
	assert_string_equal(e.id, "2058b945-bc99-4484-8101-744637cbe56a");
	assert_string_equal(e.event_type, "prompt_received");
	assert_time(e.timestamp, "2026-11-22T02:18:05.397721633Z");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(e.payload, "prompt")->valuestring, "#roz fix it");
	roz_session_trace_event_dispose(&e);
	assert_int_equal(roz_session_trace_event_parse(&s->trace[1], &e), ROZ_OK);
	assert_string_equal(e.event_type, "stop_hook_called");
	assert_time(e.timestamp, "2026-11-22T02:18:05.399174358Z");
	{
		uint64_t n = 0;

		assert_true(roz_json_uint(cJSON_GetObjectItemCaseSensitive(e.payload, "effective_max_blocks"), 100, &n));
		assert_int_equal(n, 3);
	}
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e.payload, "stop_hook_active")));
	roz_session_trace_event_dispose(&e);
	assert_time(s->created_at, "2026-11-22T02:18:05.397721001Z");
	assert_time(s->updated_at, "2026-11-22T02:18:05.402045053Z");
	assert_int_equal(roz_session_decided_at(s).t.nsec, 400390549);
}

static void test_fixture_compact_loads(void **state)
{
	roz_session *s = load(fixture_compact);

	(void)state;
	check_fixture_values(s);
	roz_session_free(s);
}

static void test_fixture_pretty_loads(void **state)
{
	roz_session *s = load(t_rust_session_file);

	(void)state;
	check_fixture_values(s);
	roz_session_free(s);
}

static void test_fixture_compact_written_back_identically(void **state)
{
	roz_session *s = load(fixture_compact);
	char *out = dump(s), *want = t_sprintf("%s\n", fixture_compact);

	(void)state;
	/* same fields, same order, same nanosecond timestamps, byte for byte */
	assert_string_equal(out, want);
	free(want);
	roz_free(out);
	roz_session_free(s);
}

static void test_fixture_pretty_written_back_equivalent(void **state)
{
	roz_session *s = load(t_rust_session_file), *again;
	char *out = dump(s);
	cJSON *a = cJSON_Parse(t_rust_session_file), *b = cJSON_Parse(out);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_true(cJSON_Compare(a, b, true));
	assert_non_null(strstr(out, "\"created_at\":\"2026-11-22T02:18:05.397721001Z\""));
	assert_non_null(strstr(out, "\"updated_at\":\"2026-11-22T02:18:05.402045053Z\""));
	/* trace events travel as their text on one line each, for the store's file of lines */
	assert_non_null(strstr(out, "{\"id\":\"2058b945-bc99-4484-8101-744637cbe56a\""));
	for (size_t i = 0; i < s->n_trace; i++)
		assert_null(memchr(s->trace[i].json, '\n', s->trace[i].len));
	again = load(out);
	check_fixture_values(again);
	cJSON_Delete(a);
	cJSON_Delete(b);
	roz_free(out);
	roz_session_free(s);
	roz_session_free(again);
}

/* ---- reading: tolerance ------------------------------------------------------------ */

static void test_minimal_document_defaults(void **state)
{
	roz_session *s = load_review("");

	(void)state;
	assert_string_equal(s->session_id, "s");
	assert_false(s->review.enabled);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	assert_int_equal(s->review.n_history, 0);
	assert_int_equal(s->review.n_prompts, 0);
	assert_int_equal(s->review.n_attempts, 0);
	assert_null(s->review.gate_trigger);
	assert_false(s->review.last_prompt_at.set);
	assert_int_equal(s->review.block_count, 0);
	assert_int_equal(s->n_trace, 0);
	assert_int_equal(s->created_at.sec, T0);
	roz_session_free(s);
}

static void test_null_optionals_accepted(void **state)
{
	roz_session *s = load_review("\"gate_trigger\":null,\"gate_approved_at\":null,\"last_prompt_at\":null,"
				     "\"review_started_at\":null,\"circuit_breaker_tripped_at\":null,"
				     "\"attempts\":null,\"decision\":null,\"decision_history\":null,"
				     "\"user_prompts\":null,\"enabled\":null,\"block_count\":null");
	roz_session *t;

	(void)state;
	assert_null(s->review.gate_trigger);
	assert_false(s->review.gate_approved_at.set);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_PENDING);
	roz_session_free(s);
	t = load("{\"session_id\":\"s\",\"review\":{},\"trace\":null,\"created_at\":\"2026-01-05T10:30:00Z\","
		 "\"updated_at\":\"2026-01-05T10:30:00Z\"}");
	assert_int_equal(t->n_trace, 0);
	roz_session_free(t);
}

static void test_unknown_fields_ignored(void **state)
{
	roz_session *s = load("{\"future\":{\"x\":[1,2,{\"y\":null}]},\"session_id\":\"s\",\"version\":7,"
			      "\"review\":{\"enabled\":true,\"mystery\":\"m\",\"decision\":{\"type\":\"complete\","
			      "\"summary\":\"ok\",\"confidence\":0.9},\"attempts\":[{\"template_id\":\"t\",\"timestamp\":"
			      "\"2026-01-05T10:30:00Z\",\"outcome\":{\"type\":\"pending\",\"extra\":1},\"note\":\"n\"}]},"
			      "\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":\"2026-01-05T10:30:00Z\","
			      "\"trailing\":[]}");

	(void)state;
	assert_true(s->review.enabled);
	assert_int_equal(s->review.decision.kind, ROZ_DECISION_COMPLETE);
	assert_string_equal(s->review.decision.summary, "ok");
	assert_int_equal(s->review.n_attempts, 1);
	roz_session_free(s);
}

static void test_fields_in_any_order_with_whitespace(void **state)
{
	roz_session *s = load("\n  { \"updated_at\" : \"2026-01-05T10:30:01Z\" , \"trace\" : [ ] ,\n"
			      " \"review\" : { \"block_count\" : 2 } , \"created_at\" : \"2026-01-05T10:30:00Z\" ,"
			      " \"session_id\" : \"x\" }\n\n");

	(void)state;
	assert_string_equal(s->session_id, "x");
	assert_int_equal(s->review.block_count, 2);
	assert_int_equal(s->updated_at.sec, T0 + 1);
	roz_session_free(s);
}

static void test_block_count_saturates(void **state)
{
	roz_session *s = load_review("\"block_count\":99999999999");

	(void)state;
	assert_int_equal(s->review.block_count, UINT32_MAX);
	roz_session_free(s);
}

static void test_timestamps_with_offsets_load(void **state)
{
	roz_session *s = load("{\"session_id\":\"s\",\"review\":{\"last_prompt_at\":\"2026-01-05T12:30:00+02:00\"},"
			      "\"created_at\":\"2026-01-05t10:30:00z\",\"updated_at\":\"2026-01-05 10:30:00.5Z\"}");

	(void)state;
	assert_int_equal(s->review.last_prompt_at.t.sec, T0);
	assert_int_equal(s->created_at.sec, T0);
	assert_int_equal(s->updated_at.nsec, 500000000);
	roz_session_free(s);
}

static void test_long_lists_keep_newest(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_session *s;
	char want[32];

	(void)state;
	roz_buf_adds(&b, "\"user_prompts\":[");
	for (int i = 0; i < 60; i++)
		roz_buf_addf(&b, "%s\"p%d\"", i ? "," : "", i);
	roz_buf_adds(&b, "],\"decision_history\":[");
	for (int i = 0; i < 70; i++)
		roz_buf_addf(&b, "%s{\"decision\":{\"type\":\"complete\",\"summary\":\"h%d\"},"
				 "\"timestamp\":\"2026-01-05T10:30:%02dZ\"}", i ? "," : "", i, i % 60);
	roz_buf_adds(&b, "],\"attempts\":[");
	for (int i = 0; i < 120; i++)
		roz_buf_addf(&b, "%s{\"template_id\":\"a%d\",\"timestamp\":\"2026-01-05T10:30:00Z\","
				 "\"outcome\":{\"type\":\"pending\"}}", i ? "," : "", i);
	roz_buf_addc(&b, ']');
	s = load_review(roz_buf_cstr(&b));
	assert_int_equal(s->review.n_prompts, ROZ_MAX_PROMPTS);
	assert_string_equal(s->review.prompts[0], "p10");
	assert_string_equal(s->review.prompts[ROZ_MAX_PROMPTS - 1], "p59");
	assert_int_equal(s->review.n_history, ROZ_MAX_HISTORY);
	assert_string_equal(s->review.history[0].decision.summary, "h20");
	assert_string_equal(s->review.history[ROZ_MAX_HISTORY - 1].decision.summary, "h69");
	assert_int_equal(s->review.n_attempts, ROZ_MAX_ATTEMPTS);
	snprintf(want, sizeof(want), "a%d", 120 - ROZ_MAX_ATTEMPTS);
	assert_string_equal(s->review.attempts[0].template_id, want);
	assert_string_equal(s->review.attempts[ROZ_MAX_ATTEMPTS - 1].template_id, "a119");
	roz_session_free(s);
	roz_buf_dispose(&b);
}

static void test_large_trace_loads_verbatim(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_session *s;
	char *out;

	(void)state;
	roz_buf_adds(&b, "{\"session_id\":\"s\",\"review\":{},\"trace\":[");
	for (int i = 0; i < 1000; i++)
		roz_buf_addf(&b, "%s{\"id\":\"e%d\",\"timestamp\":\"2026-01-05T10:30:00Z\",\"event_type\":"
				 "\"tool_completed\",\"payload\":{\"i\":%d}}", i ? "," : "", i, i);
	roz_buf_adds(&b, "],\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":\"2026-01-05T10:30:00Z\"}");
	s = load(roz_buf_cstr(&b));
	assert_int_equal(s->n_trace, 1000);
	assert_int_equal(s->trace[999].len, strlen("{\"id\":\"e999\",\"timestamp\":\"2026-01-05T10:30:00Z\","
						   "\"event_type\":\"tool_completed\",\"payload\":{\"i\":999}}"));
	assert_memory_equal(s->trace[999].json, "{\"id\":\"e999\"", 12);
	out = dump(s);
	assert_non_null(strstr(out, ",{\"id\":\"e500\",\"timestamp\":\"2026-01-05T10:30:00Z\",\"event_type\":"
				    "\"tool_completed\",\"payload\":{\"i\":500}},"));
	roz_free(out);
	roz_session_free(s);
	roz_buf_dispose(&b);
}

/* ---- reading: corrupt files ------------------------------------------------------------ */

static void assert_corrupt(const char *text, const char *mentions)
{
	roz_session *s = (roz_session *)&s;
	int rc;

	roz_error_clear();
	rc = roz_session_json_parse(text, strlen(text), &s);
	if (rc != ROZ_ECORRUPT)
		fail_msg("expected ROZ_ECORRUPT, got %d for: %s", rc, text);
	assert_null(s);
	if (!strstr(roz_error_last(), mentions))
		fail_msg("error '%s' does not mention '%s' (input: %s)", roz_error_last(), mentions, text);
}

/* Corrupt a single review member inside an otherwise valid document. */
static void assert_review_corrupt(const char *members, const char *mentions)
{
	char *text = t_sprintf(MINIMAL_FMT, members);

	assert_corrupt(text, mentions);
	free(text);
}

static void test_corrupt_not_json(void **state)
{
	(void)state;
	assert_corrupt("", "JSON");
	assert_corrupt("not json", "JSON");
	assert_corrupt("{\"session_id\":\"s\"", "JSON");
	assert_corrupt("{\"session_id\":\"s\",}", "JSON");
	assert_corrupt("{} trailing", "JSON");
	assert_corrupt("{\"session_id\":\"\xff\"}", "JSON");
}

static void test_corrupt_not_an_object(void **state)
{
	(void)state;
	assert_corrupt("[1,2]", "object");
	assert_corrupt("[]", "object");
	assert_corrupt("\"session\"", "object");
	assert_corrupt("42", "object");
	assert_corrupt("null", "object");
}

static void test_corrupt_missing_required(void **state)
{
	(void)state;
	assert_corrupt("{\"review\":{},\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":\"2026-01-05T10:30:00Z\"}",
		       "session_id");
	assert_corrupt("{\"session_id\":\"s\",\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":"
		       "\"2026-01-05T10:30:00Z\"}",
		       "review");
	assert_corrupt("{\"session_id\":\"s\",\"review\":{},\"updated_at\":\"2026-01-05T10:30:00Z\"}", "created_at");
	assert_corrupt("{\"session_id\":\"s\",\"review\":{},\"created_at\":\"2026-01-05T10:30:00Z\"}", "updated_at");
	assert_corrupt("{}", "session_id");
}

static void test_corrupt_top_level_types(void **state)
{
	(void)state;
	assert_corrupt("{\"session_id\":5,\"review\":{},\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":"
		       "\"2026-01-05T10:30:00Z\"}",
		       "session_id");
	assert_corrupt("{\"session_id\":null,\"review\":{},\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":"
		       "\"2026-01-05T10:30:00Z\"}",
		       "session_id");
	assert_corrupt("{\"session_id\":\"s\",\"review\":[],\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":"
		       "\"2026-01-05T10:30:00Z\"}",
		       "review");
	assert_corrupt("{\"session_id\":\"s\",\"review\":\"r\",\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":"
		       "\"2026-01-05T10:30:00Z\"}",
		       "review");
}

static void test_corrupt_bad_timestamps(void **state)
{
	(void)state;
	assert_corrupt("{\"session_id\":\"s\",\"review\":{},\"created_at\":\"yesterday\",\"updated_at\":"
		       "\"2026-01-05T10:30:00Z\"}",
		       "created_at");
	assert_corrupt("{\"session_id\":\"s\",\"review\":{},\"created_at\":\"2026-01-05T10:30:00Z\",\"updated_at\":"
		       "1767609000}",
		       "updated_at");
	assert_corrupt("{\"session_id\":\"s\",\"review\":{},\"created_at\":\"2026-02-30T10:30:00Z\",\"updated_at\":"
		       "\"2026-01-05T10:30:00Z\"}",
		       "created_at");
	assert_review_corrupt("\"gate_approved_at\":\"2026-13-01T00:00:00Z\"", "gate_approved_at");
	assert_review_corrupt("\"last_prompt_at\":\"now\"", "last_prompt_at");
	assert_review_corrupt("\"review_started_at\":5", "review_started_at");
	assert_review_corrupt("\"circuit_breaker_tripped_at\":\"2026-01-05T10:30:00\"", "circuit_breaker_tripped_at");
	assert_review_corrupt("\"decision_history\":[{\"decision\":{\"type\":\"pending\"},\"timestamp\":\"bad\"}]",
			      "timestamp");
	assert_review_corrupt("\"decision_history\":[{\"decision\":{\"type\":\"pending\"}}]", "timestamp");
}

static void test_corrupt_scalar_types(void **state)
{
	(void)state;
	assert_review_corrupt("\"enabled\":\"yes\"", "enabled");
	assert_review_corrupt("\"enabled\":1", "enabled");
	assert_review_corrupt("\"block_count\":-1", "block_count");
	assert_review_corrupt("\"block_count\":1.5", "block_count");
	assert_review_corrupt("\"block_count\":\"3\"", "block_count");
	assert_review_corrupt("\"block_count\":true", "block_count");
	assert_review_corrupt("\"circuit_breaker_tripped\":0", "circuit_breaker_tripped");
}

static void test_corrupt_decisions(void **state)
{
	(void)state;
	assert_review_corrupt("\"decision\":{\"type\":\"maybe\"}", "decision");
	assert_review_corrupt("\"decision\":{\"type\":\"Complete\",\"summary\":\"x\"}", "decision");
	assert_review_corrupt("\"decision\":\"complete\"", "decision");
	assert_review_corrupt("\"decision\":{\"summary\":\"x\"}", "decision");
	assert_review_corrupt("\"decision\":{\"type\":5}", "decision");
	assert_review_corrupt("\"decision\":{\"type\":\"complete\"}", "summary");
	assert_review_corrupt("\"decision\":{\"type\":\"issues\",\"summary\":7}", "summary");
	assert_review_corrupt("\"decision\":{\"type\":\"issues\",\"summary\":\"x\",\"message_to_agent\":5}",
			      "message_to_agent");
	assert_review_corrupt("\"decision\":{\"type\":\"complete\",\"summary\":\"x\",\"second_opinions\":[]}",
			      "second_opinions");
	assert_review_corrupt("\"decision_history\":[{\"decision\":{\"type\":\"nope\"},"
			      "\"timestamp\":\"2026-01-05T10:30:00Z\"}]",
			      "decision");
}

static void test_corrupt_lists(void **state)
{
	(void)state;
	assert_review_corrupt("\"user_prompts\":5", "user_prompts");
	assert_review_corrupt("\"user_prompts\":\"p\"", "user_prompts");
	assert_review_corrupt("\"user_prompts\":[\"ok\",5]", "user_prompts");
	assert_review_corrupt("\"decision_history\":5", "decision_history");
	assert_review_corrupt("\"decision_history\":[5]", "decision_history");
	assert_review_corrupt("\"attempts\":5", "attempts");
	assert_review_corrupt("\"attempts\":[\"a\"]", "attempts");
	assert_review_corrupt("\"attempts\":[{\"template_id\":\"t\",\"timestamp\":\"2026-01-05T10:30:00Z\","
			      "\"outcome\":{\"type\":\"exploded\"}}]",
			      "outcome");
	assert_review_corrupt("\"attempts\":[{\"template_id\":\"t\",\"timestamp\":\"2026-01-05T10:30:00Z\"}]",
			      "outcome");
	assert_review_corrupt("\"attempts\":[{\"template_id\":\"t\",\"timestamp\":\"2026-01-05T10:30:00Z\","
			      "\"outcome\":{\"type\":\"success\",\"blocks_needed\":1}}]",
			      "decision_type");
	assert_review_corrupt("\"attempts\":[{\"template_id\":\"t\",\"timestamp\":\"2026-01-05T10:30:00Z\","
			      "\"outcome\":{\"type\":\"success\",\"decision_type\":\"complete\",\"blocks_needed\":-2}}]",
			      "blocks_needed");
	assert_review_corrupt("\"attempts\":[{\"timestamp\":\"2026-01-05T10:30:00Z\",\"outcome\":{\"type\":\"pending\"}}]",
			      "template_id");
}

static void test_corrupt_gate_trigger(void **state)
{
	(void)state;
	assert_review_corrupt("\"gate_trigger\":5", "gate_trigger");
	assert_review_corrupt("\"gate_trigger\":{\"tool_name\":\"Edit\",\"pattern_matched\":\"Edit\","
			      "\"triggered_at\":\"2026-01-05T10:30:00Z\"}",
			      "tool_input");
	assert_review_corrupt("\"gate_trigger\":{\"tool_name\":\"Edit\",\"tool_input\":{\"value\":null,"
			      "\"truncated\":false},\"triggered_at\":\"2026-01-05T10:30:00Z\"}",
			      "pattern_matched");
	assert_review_corrupt("\"gate_trigger\":{\"tool_name\":\"Edit\",\"tool_input\":{\"value\":null,"
			      "\"truncated\":\"no\"},\"triggered_at\":\"2026-01-05T10:30:00Z\",\"pattern_matched\":\"E\"}",
			      "truncated");
	assert_review_corrupt("\"gate_trigger\":{\"tool_name\":\"Edit\",\"tool_input\":{\"value\":null,"
			      "\"truncated\":true,\"original_size\":-5},\"triggered_at\":\"2026-01-05T10:30:00Z\","
			      "\"pattern_matched\":\"E\"}",
			      "original_size");
}

static void test_corrupt_trace(void **state)
{
	static const char *const traces[] = {"5", "\"t\"", "{}", "[1]", "[{},2]", "[[]]", "true"};

	(void)state;
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		char *text = t_sprintf("{\"session_id\":\"s\",\"review\":{},\"trace\":%s,\"created_at\":"
				       "\"2026-01-05T10:30:00Z\",\"updated_at\":\"2026-01-05T10:30:00Z\"}",
				       traces[i]);

		assert_corrupt(text, "trace");
		free(text);
	}
}

/* A session file names each of its parts once; the loader reads them in one pass and keeps no second copy. */
static void test_corrupt_duplicate_members(void **state)
{
	static const char *const dup[][2] = {
		{"\"review\":{},\"trace\":[],\"review\":{}", "review"},
		{"\"review\":{},\"trace\":[{}],\"trace\":[{}]", "trace"},
		{"\"review\":{},\"trace\":null,\"trace\":[]", "trace"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(dup) / sizeof(dup[0]); i++) {
		char *text = t_sprintf("{\"session_id\":\"s\",%s,\"created_at\":\"2026-01-05T10:30:00Z\","
				       "\"updated_at\":\"2026-01-05T10:30:00Z\"}",
				       dup[i][0]);

		assert_corrupt(text, dup[i][1]);
		assert_corrupt(text, "appears twice");
		free(text);
	}
}

/* A syntax error after a well-formed review and trace still makes the file corrupt, nothing leaks. */
static void test_corrupt_after_trace(void **state)
{
	static const char *const tails[] = {",", ",\"x\":}", ",\"x\":1 2}", "}x", ",\"x\":\"\\q\"}", ""};

	(void)state;
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		char *text = t_sprintf("{\"session_id\":\"s\",\"review\":{\"enabled\":true,\"prompts\":"
				       "[\"a\"]},\"trace\":[{\"e\":1},{\"e\":2}],\"created_at\":"
				       "\"2026-01-05T10:30:00Z\",\"updated_at\":\"2026-01-05T10:30:00Z\"%s",
				       tails[i]);

		assert_corrupt(text, "JSON");
		free(text);
	}
}

/* ---- allocation failure ---------------------------------------------------------------- */

/* Fail every allocation in turn: each failure is ROZ_ENOMEM, never a "corrupt" file. */
static void load_under_failures(const char *text, void (*check)(const roz_session *))
{
	roz_session *s = NULL;
	long n;
	int rc = ROZ_ENOMEM;

	for (n = 0; rc != ROZ_OK; n++) {
		if (n > 100000)
			fail_msg("no success after %ld allocations", n);
		s = (roz_session *)&s;
		roz_alloc_fail_after(n);
		rc = roz_session_json_parse(text, strlen(text), &s);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK)
			break;
		if (rc != ROZ_ENOMEM)
			fail_msg("allocation %ld failing gave %d (%s), not ROZ_ENOMEM", n, rc, roz_error_last());
		assert_null(s);
	}
	assert_true(n > 5);
	if (check)
		check(s);
	roz_session_free(s);
}

static void test_alloc_failure_fixture_compact(void **state)
{
	(void)state;
	load_under_failures(fixture_compact, check_fixture_values);
}

static void test_alloc_failure_fixture_pretty(void **state)
{
	(void)state;
	load_under_failures(t_rust_session_file, check_fixture_values);
}

static void test_alloc_failure_full_session(void **state)
{
	roz_session *s = full_session();
	char *text = dump(s);

	(void)state;
	load_under_failures(text, NULL);
	roz_free(text);
	roz_session_free(s);
}

static void test_alloc_failure_writing(void **state)
{
	roz_session *s = full_session();
	char *want = dump(s);
	long n;
	int rc = ROZ_ENOMEM;

	(void)state;
	for (n = 0; rc != ROZ_OK; n++) {
		roz_buf b = ROZ_BUF_INIT;

		assert_true(n < 100000);
		roz_alloc_fail_after(n);
		rc = roz_session_json_write(s, &b);
		roz_alloc_fail_after(-1);
		if (rc == ROZ_OK)
			assert_string_equal(roz_buf_cstr(&b), want);
		else
			assert_int_equal(rc, ROZ_ENOMEM);
		roz_buf_dispose(&b);
	}
	roz_free(want);
	roz_session_free(s);
}

/* ---- round trip: whatever a setter accepts comes back (issue 12) ------------------------- */

static uint64_t rt_rng = 0x9E3779B97F4A7C15u;

static uint64_t rt_next(uint64_t bound)
{
	rt_rng ^= rt_rng << 13;
	rt_rng ^= rt_rng >> 7;
	rt_rng ^= rt_rng << 17;
	return bound ? rt_rng % bound : 0;
}

/* A short string from pieces roz must carry, and some it must refuse. */
static char *rt_string(void)
{
	static const char *const pieces[] = {
		"a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
		"\xf0\x9f\x8e\x89", "\xef\xbf\xbd", "\\u0000", "#roz", "git push",
		/* not UTF-8: a lone continuation, a cut sequence, an encoded surrogate, overlong, past U+10FFFF */
		"\x80", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "\xff",
	};
	size_t n = (size_t)rt_next(12);
	roz_buf b = ROZ_BUF_INIT;

	roz_buf_adds(&b, "");
	for (size_t i = 0; i < n; i++) {
		/* mostly carryable text, so most calls get through */
		size_t k = rt_next(4) ? rt_next(18) : rt_next(sizeof(pieces) / sizeof(pieces[0]));

		roz_buf_adds(&b, pieces[k]);
	}
	assert_false(b.oom);
	return roz_buf_detach(&b, NULL);
}

/* A tool input: any shape, any depth (past the parser's), sometimes past the size cap. */
static cJSON *rt_tree(int depth, int max_depth)
{
	uint64_t pick = rt_next(depth >= max_depth ? 5 : 8);
	cJSON *v;

	switch (pick) {
	case 0: return cJSON_CreateNull();
	case 1: return cJSON_CreateBool(rt_next(2));
	case 2: {
		static const char *const nums[] = {"0", "-1", "12345678901234567890", "1.5e300", "3.0"};

		return cJSON_CreateRaw(nums[rt_next(5)]);
	}
	case 3: return cJSON_CreateNumber((double)rt_next(1000) / 7.0);
	case 4: {
		char *s = rt_string();

		if (rt_next(40) == 0) {
			/* one long string, past ROZ_MAX_TOOL_INPUT_BYTES on its own */
			size_t len = 11000 + (size_t)rt_next(5000);

			free(s);
			s = malloc(len + 1);
			memset(s, 'x', len);
			s[len] = '\0';
		}
		v = cJSON_CreateString(s);
		free(s);
		return v;
	}
	default: {
		bool object = pick % 2;
		size_t n = (size_t)rt_next(depth > 3 ? 2 : 6) + (depth > 3);

		v = object ? cJSON_CreateObject() : cJSON_CreateArray();
		for (size_t i = 0; i < n; i++) {
			cJSON *item = rt_tree(depth + 1, max_depth);

			if (object) {
				char *key = rt_string();

				cJSON_AddItemToObject(v, key, item);
				free(key);
			} else {
				cJSON_AddItemToArray(v, item);
			}
		}
		return v;
	}
	}
}

static bool rt_utf8(const char *s)
{
	return !s || roz_utf8_valid(s, strlen(s));
}

static void rt_assert_reloads(const roz_session *s)
{
	roz_buf first = ROZ_BUF_INIT, second = ROZ_BUF_INIT;
	roz_session *back = NULL;
	int rc;

	assert_int_equal(roz_session_json_write(s, &first), ROZ_OK);
	rc = roz_session_json_parse(first.ptr, first.len, &back);
	if (rc != ROZ_OK)
		fail_msg("a session built by its setters does not load back: %s", roz_error_last());
	assert_int_equal(roz_session_json_write(back, &second), ROZ_OK);
	assert_int_equal(second.len, first.len);
	assert_memory_equal(second.ptr, first.ptr, first.len);
	/* what a reader sees: the values themselves */
	assert_int_equal(back->review.decision.kind, s->review.decision.kind);
	if (s->review.decision.summary)
		assert_string_equal(back->review.decision.summary, s->review.decision.summary);
	assert_int_equal(back->review.n_prompts, s->review.n_prompts);
	for (size_t i = 0; i < s->review.n_prompts; i++)
		assert_string_equal(back->review.prompts[i], s->review.prompts[i]);
	assert_int_equal(back->n_trace, s->n_trace);
	if (s->review.gate_trigger) {
		const roz_truncated_input *a = &s->review.gate_trigger->tool_input;
		const roz_truncated_input *b = &back->review.gate_trigger->tool_input;
		char *ta = cJSON_PrintUnformatted(a->value), *tb = cJSON_PrintUnformatted(b->value);

		assert_string_equal(tb, ta);
		assert_true(strlen(ta) <= ROZ_MAX_TOOL_INPUT_STORED);
		assert_int_equal(b->truncated, a->truncated);
		roz_free(ta);
		roz_free(tb);
	}
	roz_session_free(back);
	roz_buf_dispose(&first);
	roz_buf_dispose(&second);
}

/*
 * The property behind issue 12's lost reviews: anything a setter accepts is
 * written and read back equal, and a setter refuses exactly the text that
 * is not UTF-8. Random strings and tool inputs of every shape and depth.
 */
static void test_setters_round_trip(void **state)
{
	roz_session *s = NULL;
	roz_decision d = {ROZ_DECISION_PENDING, NULL, NULL, NULL};
	size_t accepted = 0, refused = 0;

	(void)state;
	assert_int_equal(roz_session_new("rt", at(0, 0), &s), ROZ_OK);
	for (int round = 0; round < 400; round++) {
		char *a = rt_string(), *b = rt_string(), *c = rt_string();
		bool ok = rt_utf8(a) && rt_utf8(b) && rt_utf8(c);
		roz_time now = at(round, round * 1000);
		int rc = ROZ_OK;

		switch (round % 6) {
		case 0:
			rc = roz_session_decision_set(&d, round % 12 ? ROZ_DECISION_ISSUES : ROZ_DECISION_COMPLETE, a,
						      b, c);
			if (rc == ROZ_OK)
				assert_int_equal(roz_session_record_decision(s, &d, now), ROZ_OK);
			break;
		case 1:
			ok = rt_utf8(a);
			rc = roz_session_add_prompt(s, a);
			break;
		case 2:
			ok = rt_utf8(a);
			rc = roz_session_add_attempt(s, a, now);
			break;
		case 3:
			ok = rt_utf8(a);
			rc = roz_session_reviewer_start(s, a, now);
			break;
		case 4: {
			cJSON *input = rt_tree(0, rt_next(4) ? 8 : 600);

			ok = rt_utf8(a) && rt_utf8(b);
			rc = roz_session_set_gate_trigger(s, a, input, b, now);
			cJSON_Delete(input);
			break;
		}
		default: {
			roz_buf p = ROZ_BUF_INIT;

			ok = rt_utf8(a) && rt_utf8(b);
			roz_buf_adds(&p, "{\"summary\":");
			roz_json_add_string(&p, a);
			roz_buf_addc(&p, '}');
			assert_false(p.oom);
			rc = roz_session_trace_add(s, ROZ_EVENT_ROZ_DECISION, b, now, p.ptr);
			roz_buf_dispose(&p);
		}
		}
		if (ok)
			assert_int_equal(rc, ROZ_OK);
		else
			assert_int_equal(rc, ROZ_EINVALID);
		accepted += ok;
		refused += !ok;
		rt_assert_reloads(s);
		free(a);
		free(b);
		free(c);
	}
	/* both sides of the property were exercised */
	assert_true(accepted > 100 && refused > 30);
	roz_session_decision_dispose(&d);
	roz_session_free(s);
}

/* ---- a hook's state: the long lists kept as text ------------------------------------ */

/* The state text of a session, as the store saves it. */
static char *state_text(const roz_session *s)
{
	roz_buf b = ROZ_BUF_INIT;
	char *out;

	assert_int_equal(roz_session_json_write_state(s, 0, &b), ROZ_OK);
	out = t_sprintf("%s", roz_buf_cstr(&b));
	roz_buf_dispose(&b);
	return out;
}

/* A session `n` cycles long: n prompts, n replaced decisions, n attempts, the last one pending. */
static char *long_state(int n)
{
	roz_session *s = plain_session();
	roz_decision d = {ROZ_DECISION_PENDING, NULL, NULL, NULL};
	char *text;

	for (int i = 0; i < n; i++) {
		char p[48];

		snprintf(p, sizeof(p), "#roz task %d \"quoted\" \xc3\xa9", i);
		assert_int_equal(roz_session_add_prompt(s, p), ROZ_OK);
		assert_int_equal(roz_session_decision_set(&d, i % 2 ? ROZ_DECISION_ISSUES : ROZ_DECISION_COMPLETE, p,
							  NULL, i % 2 ? "again" : NULL),
				 ROZ_OK);
		assert_int_equal(roz_session_record_decision(s, &d, at(i, i)), ROZ_OK);
		assert_int_equal(roz_session_add_attempt(s, i % 3 ? "default" : "pending-ish", at(i, 7)), ROZ_OK);
		if (i + 1 < n)
			s->review.attempts[s->review.n_attempts - 1].outcome = ROZ_OUTCOME_SUCCESS;
	}
	roz_session_decision_dispose(&d);
	text = state_text(s);
	roz_session_free(s);
	return text;
}

/* What a hook does to the lists, on a session read whole or read as a hook reads it. */
static void hook_steps(roz_session *s, int k)
{
	roz_decision d = {ROZ_DECISION_PENDING, NULL, NULL, NULL};
	roz_attempt *a;
	roz_opt_time when;

	when = roz_session_decided_at(s);
	assert_int_equal(roz_session_pending_attempt(s, &a), ROZ_OK);
	if (a)
		a->outcome = ROZ_OUTCOME_NOT_SPAWNED;
	assert_int_equal(roz_session_add_attempt(s, "default", at(1000 + k, when.set ? when.t.nsec : 0)), ROZ_OK);
	assert_int_equal(roz_session_add_prompt(s, "#roz one more"), ROZ_OK);
	assert_int_equal(roz_session_decision_set(&d, ROZ_DECISION_ISSUES, "s", NULL, "m"), ROZ_OK);
	assert_int_equal(roz_session_record_decision(s, &d, at(2000 + k, 0)), ROZ_OK);
	roz_session_decision_dispose(&d);
	assert_int_equal(roz_session_newest_attempt(s, &a), ROZ_OK);
	assert_non_null(a);
	a->outcome = ROZ_OUTCOME_NO_DECISION;
}

/*
 * Short lists, full lists and lists over the cap: a hook that keeps them as
 * text writes, step for step, what one that parses them writes, reads the
 * same times back, and parsed whole again it is the same session.
 */
static void test_lists_as_text_write_what_parsed_lists_write(void **state)
{
	static const int sizes[] = {0, 1, 2, 49, 50, 51, 70};

	(void)state;
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		char *text = long_state(sizes[z]);
		roz_session *whole = load(text), *hook = NULL;

		assert_int_equal(roz_session_json_parse_state(text, strlen(text), &hook), ROZ_OK);
		/* nothing parsed yet: written back as read */
		if (sizes[z]) {
			assert_non_null(hook->review.raw_prompts);
			assert_int_equal(hook->review.n_prompts, 0);
		}
		{
			char *again = state_text(hook);

			assert_string_equal(again, text);
			free(again);
		}
		for (int k = 0; k < 3; k++) {
			char *a, *b;
			roz_opt_time ta = roz_session_decided_at(whole), tb = roz_session_decided_at(hook);

			assert_int_equal(ta.set, tb.set);
			assert_int_equal(roz_time_cmp(ta.t, tb.t), 0);
			hook_steps(whole, k);
			hook_steps(hook, k);
			a = state_text(whole);
			b = state_text(hook);
			if (strcmp(a, b) != 0)
				fail_msg("size %d, step %d: kept as text\n%s\nparsed\n%s", sizes[z], k, b, a);
			free(a);
			free(b);
		}
		assert_int_equal(roz_session_json_lists_load(hook), ROZ_OK);
		assert_null(hook->review.raw_history);
		assert_null(hook->review.raw_attempts);
		assert_sessions_equal(whole, hook);
		roz_session_free(whole);
		roz_session_free(hook);
		free(text);
	}
}

/* Entries of the wrong shape in a list kept as text are found when it is parsed, and nothing changes. */
static void test_lists_as_text_corrupt_found_when_parsed(void **state)
{
	static const char *const bad[] = {
		"\"user_prompts\":[\"ok\",7]",
		"\"decision_history\":[{\"decision\":{\"type\":\"nonsense\"},\"timestamp\":\"2026-01-01T00:00:00Z\"}]",
		"\"attempts\":[{\"template_id\":\"t\",\"timestamp\":\"2026-01-01T00:00:00Z\","
		"\"outcome\":{\"type\":\"pending\"}},{\"template_id\":3}]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = t_sprintf("{\"session_id\":\"s\",\"review\":{\"enabled\":true,%s},"
				       "\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}",
				       bad[i]);
		roz_session *s = NULL;
		roz_attempt *a = NULL;
		char *before;

		assert_int_equal(roz_session_json_parse(text, strlen(text), &s), ROZ_ECORRUPT);
		assert_int_equal(roz_session_json_parse_state(text, strlen(text), &s), ROZ_OK);
		before = state_text(s);
		if (i == 2) {
			assert_int_equal(roz_session_newest_attempt(s, &a), ROZ_ECORRUPT);
			assert_null(a);
		}
		assert_int_equal(roz_session_json_lists_load(s), ROZ_ECORRUPT);
		{
			char *after = state_text(s);

			assert_string_equal(after, before);
			free(after);
		}
		roz_session_free(s);
		free(before);
		free(text);
	}
}

/* The pending attempt is found behind one whose template id says "pending" and is not. */
static void test_lists_as_text_pending_look_alike(void **state)
{
	static const char text[] =
		"{\"session_id\":\"s\",\"review\":{\"enabled\":true,\"attempts\":["
		"{\"template_id\":\"a\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"outcome\":{\"type\":\"pending\"}},"
		"{\"template_id\":\"b\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"outcome\":{\"type\":\"no_decision\"}},"
		"{\"template_id\":\"pending\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"outcome\":{\"type\":\"not_spawned\"}}"
		"]},\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}";
	roz_session *s = NULL;
	roz_attempt *a = NULL;

	(void)state;
	assert_int_equal(roz_session_json_parse_state(text, sizeof(text) - 1, &s), ROZ_OK);
	assert_int_equal(roz_session_pending_attempt(s, &a), ROZ_OK);
	assert_non_null(a);
	assert_string_equal(a->template_id, "a");
	roz_session_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists_as_text_write_what_parsed_lists_write),
		cmocka_unit_test(test_lists_as_text_corrupt_found_when_parsed),
		cmocka_unit_test(test_lists_as_text_pending_look_alike),
		cmocka_unit_test(test_new_session_exact_text),
		cmocka_unit_test(test_absent_optionals_omitted),
		cmocka_unit_test(test_set_optionals_written),
		cmocka_unit_test(test_decision_shapes),
		cmocka_unit_test(test_history_shape),
		cmocka_unit_test(test_outcome_shapes),
		cmocka_unit_test(test_gate_trigger_shape),
		cmocka_unit_test(test_truncated_gate_trigger_shape),
		cmocka_unit_test(test_output_is_one_valid_line),
		cmocka_unit_test(test_to_json_appends),
		cmocka_unit_test(test_full_round_trip),
		cmocka_unit_test(test_full_round_trip_values),
		cmocka_unit_test(test_escaped_session_id_round_trips),
		cmocka_unit_test(test_fixture_compact_loads),
		cmocka_unit_test(test_fixture_pretty_loads),
		cmocka_unit_test(test_fixture_compact_written_back_identically),
		cmocka_unit_test(test_fixture_pretty_written_back_equivalent),
		cmocka_unit_test(test_minimal_document_defaults),
		cmocka_unit_test(test_null_optionals_accepted),
		cmocka_unit_test(test_unknown_fields_ignored),
		cmocka_unit_test(test_fields_in_any_order_with_whitespace),
		cmocka_unit_test(test_block_count_saturates),
		cmocka_unit_test(test_timestamps_with_offsets_load),
		cmocka_unit_test(test_long_lists_keep_newest),
		cmocka_unit_test(test_large_trace_loads_verbatim),
		cmocka_unit_test(test_corrupt_not_json),
		cmocka_unit_test(test_corrupt_not_an_object),
		cmocka_unit_test(test_corrupt_missing_required),
		cmocka_unit_test(test_corrupt_top_level_types),
		cmocka_unit_test(test_corrupt_bad_timestamps),
		cmocka_unit_test(test_corrupt_scalar_types),
		cmocka_unit_test(test_corrupt_decisions),
		cmocka_unit_test(test_corrupt_lists),
		cmocka_unit_test(test_corrupt_gate_trigger),
		cmocka_unit_test(test_corrupt_trace),
		cmocka_unit_test(test_corrupt_duplicate_members),
		cmocka_unit_test(test_corrupt_after_trace),
		cmocka_unit_test(test_alloc_failure_fixture_compact),
		cmocka_unit_test(test_alloc_failure_fixture_pretty),
		cmocka_unit_test(test_alloc_failure_full_session),
		cmocka_unit_test(test_alloc_failure_writing),
		cmocka_unit_test(test_setters_round_trip),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
