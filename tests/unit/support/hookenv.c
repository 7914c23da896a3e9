/*
 * hookenv.c - the deterministic hook harness: the same load/handle/save
 * cycle as the runner, over a memory store, with a clock tests control.
 */
#include "hookenv.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roz/decide.h"
#include "roz/json.h"
#include "roz/session_json.h"

static int fake_id(void *ud, char out[ROZ_UUID_SIZE])
{
	t_hooks *h = ud;

	snprintf(out, ROZ_UUID_SIZE, "id-%u", ++h->ids);
	return ROZ_OK;
}

static uint64_t fake_random(void *ud, uint64_t bound)
{
	return ((t_hooks *)ud)->next_random % bound;
}

static char *fake_template(void *ud, const char *id)
{
	t_hooks *h = ud;

	free(h->loaded_template_id);
	h->loaded_template_id = strdup(id);
	return h->template_text ? roz_strdup(h->template_text) : NULL;
}

void th_init(t_hooks *h)
{
	memset(h, 0, sizeof(*h));
	roz_alloc_init();
	assert_int_equal(roz_config_init(&h->config), ROZ_OK);
	assert_int_equal(roz_store_memory_new(&h->store), ROZ_OK);
	assert_int_equal(roz_time_parse("2026-01-01T00:00:00Z", &h->now), ROZ_OK);
}

void th_dispose(t_hooks *h)
{
	roz_store_free(h->store);
	roz_config_dispose(&h->config);
	free(h->loaded_template_id);
	memset(h, 0, sizeof(*h));
}

void th_advance_ms(t_hooks *h, int64_t ms)
{
	int64_t ns = (int64_t)h->now.nsec + (ms % 1000) * 1000000;

	h->now.sec += ms / 1000 + ns / 1000000000;
	h->now.nsec = (int32_t)(ns % 1000000000);
	if (h->now.nsec < 0) {
		h->now.nsec += 1000000000;
		h->now.sec--;
	}
}

void th_gates(t_hooks *h, roz_approval_scope scope, const char *const *patterns)
{
	size_t n = 0;

	for (size_t i = 0; i < h->config.n_gate_tools; i++)
		roz_free(h->config.gate_tools[i]);
	roz_free(h->config.gate_tools);
	while (patterns && patterns[n])
		n++;
	h->config.gate_tools = roz_calloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		h->config.gate_tools[i] = roz_strdup(patterns[i]);
	h->config.n_gate_tools = n;
	h->config.approval_scope = scope;
}

static void env_for(t_hooks *h, roz_env *env)
{
	memset(env, 0, sizeof(*env));
	env->now = h->now;
	env->config = &h->config;
	env->new_id = fake_id;
	env->random = fake_random;
	env->load_template = fake_template;
	env->second_opinions = h->second_opinions;
	env->work = h->work;
	env->ud = h;
}

static roz_output_kind run_text(t_hooks *h, roz_hook_event ev, t_out *out, const char *json)
{
	roz_hook_input in;
	roz_hook_plan plan;
	roz_hook_result res;
	roz_session *s = NULL;
	roz_buf b = ROZ_BUF_INIT;
	roz_env env;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = roz_hook_input_parse(json, strlen(json), &in);
	if (rc != ROZ_OK)
		fail_msg("hook input did not parse: %s\n%s", roz_error_last(), json);
	assert_int_equal(roz_hook_prepare(ev, &in, &h->config, &plan), ROZ_OK);
	/* as the runner does: the store keeps the configured trace, a hook reads the state alone */
	roz_store_set_trace_cap(h->store, h->config.max_events);
	if (plan.needs_session) {
		rc = roz_store_get_state(h->store, in.session_id, &s);
		if (rc != ROZ_OK && rc != ROZ_ENOTFOUND)
			fail_msg("store get failed: %s", roz_error_last());
	}
	env_for(h, &env);
	roz_hook_result_init(&res);
	rc = roz_hook_handle(ev, &in, &env, &plan, &s, &res);
	if (rc != ROZ_OK)
		fail_msg("handler failed: %s", roz_error_last());
	if (res.save) {
		assert_non_null(s);
		assert_int_equal(roz_store_put(h->store, s), ROZ_OK);
	}
	assert_int_equal(roz_hook_output_write(&res.output, &b), ROZ_OK);
	out->kind = res.output.kind;
	out->text = res.output.text ? strdup(res.output.text) : NULL;
	out->json = strdup(roz_buf_cstr(&b));
	out->notes = strdup(roz_buf_cstr(&res.notes));
	out->saved = res.save;
	roz_buf_dispose(&b);
	roz_hook_result_dispose(&res);
	roz_hook_plan_dispose(&plan);
	roz_hook_input_dispose(&in);
	roz_session_free(s);
	/* every hook call happens a little later than the one before */
	th_advance_ms(h, 1);
	return out->kind;
}

roz_output_kind th_run(t_hooks *h, roz_hook_event ev, t_out *out, const char *fmt, ...)
{
	char *json;
	va_list ap;
	roz_output_kind k;

	va_start(ap, fmt);
	if (vasprintf(&json, fmt, ap) < 0)
		fail_msg("vasprintf");
	va_end(ap);
	k = run_text(h, ev, out, json);
	free(json);
	return k;
}

void th_out_dispose(t_out *out)
{
	free(out->text);
	free(out->json);
	free(out->notes);
	memset(out, 0, sizeof(*out));
}

static char *quoted(const char *s)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_json_add_string(&b, s);
	return roz_buf_detach(&b, NULL);
}

static roz_output_kind run_discard(t_hooks *h, roz_hook_event ev, const char *json)
{
	t_out out;
	roz_output_kind k = run_text(h, ev, &out, json);

	th_out_dispose(&out);
	return k;
}

roz_output_kind th_prompt(t_hooks *h, const char *sid, const char *prompt)
{
	char *q = quoted(prompt), *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"prompt\":%s}", sid, q);
	roz_output_kind k = run_discard(h, ROZ_HOOK_USER_PROMPT, json);

	roz_free(q);
	free(json);
	return k;
}

roz_output_kind th_stop(t_hooks *h, const char *sid)
{
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\"}", sid);
	roz_output_kind k = run_discard(h, ROZ_HOOK_STOP, json);

	free(json);
	return k;
}

roz_output_kind th_bash(t_hooks *h, const char *sid, const char *command)
{
	char *q = quoted(command);
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"Bash\","
			       "\"tool_input\":{\"command\":%s}}", sid, q);
	roz_output_kind k = run_discard(h, ROZ_HOOK_PRE_TOOL_USE, json);

	roz_free(q);
	free(json);
	return k;
}

roz_output_kind th_tool(t_hooks *h, const char *sid, const char *tool_name)
{
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"tool_name\":\"%s\","
			       "\"tool_input\":{\"issue_id\":\"123\"}}", sid, tool_name);
	roz_output_kind k = run_discard(h, ROZ_HOOK_PRE_TOOL_USE, json);

	free(json);
	return k;
}

roz_output_kind th_reviewer_stop(t_hooks *h, const char *sid)
{
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_id\":\"a1\","
			       "\"agent_type\":\"roz:roz\"}", sid);
	roz_output_kind k = run_discard(h, ROZ_HOOK_SUBAGENT_STOP, json);

	free(json);
	return k;
}

void th_decide(t_hooks *h, const char *sid, roz_decision_kind kind, const char *summary,
	       const char *message)
{
	th_decide_full(h, sid, kind, summary, message, NULL);
}

void th_decide_full(t_hooks *h, const char *sid, roz_decision_kind kind, const char *summary,
		    const char *message, const char *opinions)
{
	roz_session *s = th_get(h, sid);
	roz_env env;

	if (!s)
		fail_msg("decide: no session %s", sid);
	env_for(h, &env);
	assert_int_equal(roz_decide_apply(s, kind, summary, message, opinions, false, &env), ROZ_OK);
	th_put(h, s);
	roz_session_free(s);
	th_advance_ms(h, 1);
}

roz_output_kind th_reviewer(t_hooks *h, roz_hook_event ev, const char *sid, const char *agent_id)
{
	char *json = t_sprintf("{\"session_id\":\"%s\",\"cwd\":\"/w\",\"agent_id\":\"%s\","
			       "\"agent_type\":\"roz:roz\"}", sid, agent_id);
	roz_output_kind k = run_discard(h, ev, json);

	free(json);
	return k;
}

void th_review(t_hooks *h, const char *sid, roz_decision_kind kind, const char *summary,
	       const char *message)
{
	char agent[32];

	snprintf(agent, sizeof(agent), "rv-%u", ++h->reviews);
	th_reviewer(h, ROZ_HOOK_SUBAGENT_START, sid, agent);
	th_decide(h, sid, kind, summary, message);
	if (th_reviewer(h, ROZ_HOOK_SUBAGENT_STOP, sid, agent) != ROZ_OUTPUT_ALLOW)
		fail_msg("the reviewer's stop was held after it decided");
}

roz_session *th_get(t_hooks *h, const char *sid)
{
	roz_session *s = NULL;
	int rc = roz_store_get(h->store, sid, &s);

	if (rc == ROZ_ENOTFOUND)
		return NULL;
	if (rc != ROZ_OK)
		fail_msg("store get: %s", roz_error_last());
	return s;
}

void th_put(t_hooks *h, roz_session *s)
{
	assert_int_equal(roz_store_put(h->store, s), ROZ_OK);
}

size_t th_count_events(t_hooks *h, const char *sid, roz_event_type type)
{
	roz_session *s = th_get(h, sid);
	size_t n = 0;

	if (!s)
		return 0;
	for (size_t i = 0; i < s->n_trace; i++) {
		roz_trace_event ev;

		assert_int_equal(roz_session_trace_event_parse(&s->trace[i], &ev), ROZ_OK);
		if (strcmp(ev.event_type, roz_session_event_type_name(type)) == 0)
			n++;
		roz_session_trace_event_dispose(&ev);
	}
	roz_session_free(s);
	return n;
}
