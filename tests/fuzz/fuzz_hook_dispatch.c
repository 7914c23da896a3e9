/*
 * fuzz_hook_dispatch.c - short sequences of hook calls through the real
 * handlers, the way the runner makes them (parse, prepare, load, handle,
 * save, answer), over a memory store and a clock the input controls. It
 * checks what roz promises Claude Code (answers it accepts, never "allow",
 * no endless blocking) and what it promises itself (sessions that reload
 * to the same text, within their caps).
 *
 * Input layout (so one input can walk the review state machine):
 *
 *   byte 0      config variant (see variants[])
 *   byte 1      start of the clock
 *   then steps separated by SEP (0x1E, which valid JSON never contains):
 *     byte 0    event: % 8 picks session-start .. session-end, or 7 for a
 *               `roz decide` by the reviewer; the high bits are its options
 *     byte 1    how far the clock moves before this step
 *     rest      the hook input JSON
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "fuzz.h"
#include "roz/breaker.h"
#include "roz/decide.h"
#include "roz/hooks.h"
#include "roz/json.h"
#include "roz/session_json.h"
#include "roz/store.h"

#define SEP 0x1E
#define MAX_STEPS 64
#define STEP_DECIDE 7
/* How often one reviewer's stop may be held (REVIEWER_STOP_LIMIT in hooks.c). */
#define REVIEWER_HOLDS 2
/* Where the fuzzed config says sessions live, so file tools can aim at it. */
#define STORAGE "/home/u/.roz"
/* 2026-01-01T00:00:00Z */
#define CLOCK_BASE INT64_C(1767225600)

/* Configs to fuzz under: no gates, gates in each approval scope, no reviewer needed, tiny caps. */
static const struct {
	const char *toml;
	const char *second_opinions;
} variants[] = {
	/* 0: the defaults, no gates */
	{"", NULL},
	/* 1: Bash and MCP gates, approvals last until the next prompt */
	{"[review.gates]\ntools = [\"Bash:git push*\", \"Bash:gh issue close*\", \"mcp__*\"]\n",
	 "codex, gemini"},
	/* 2: tool scope, approvals expire after a minute */
	{"[review.gates]\ntools = [\"Bash:git push*\", \"mcp__tissue__close*\", \"Write\"]\n"
	 "approval_scope = \"tool\"\napproval_ttl_seconds = 60\n",
	 NULL},
	/* 3: require_reviewer off, session scope */
	{"[review]\nrequire_reviewer = false\n[review.gates]\n"
	 "tools = [\"Bash:git push*\", \"mcp__*\"]\napproval_scope = \"session\"\n",
	 "codex"},
	/* 4: every tool gated, one block per cycle, a short cooldown, a tiny trace */
	{"[review.gates]\ntools = [\"*\"]\n[circuit_breaker]\nmax_blocks = 1\ncooldown_seconds = 5\n"
	 "[trace]\nmax_events = 4\n",
	 NULL},
	/* 5: every prompt reviewed, templates picked at random, a one-event trace */
	{"[review]\nmode = \"always\"\n[templates]\nactive = \"random\"\n"
	 "weights = { default = 1, strict = 3, never = 0 }\n[trace]\nmax_events = 1\n",
	 NULL},
	/* 6: review never, narrow gates, no trace at all */
	{"[review]\nmode = \"never\"\n[review.gates]\ntools = [\"Edit\", \"Bash:rm *\"]\n"
	 "[trace]\nmax_events = 0\n",
	 NULL},
	/* 7: no blocks allowed, no reviewer required, every Bash line gated */
	{"[review]\nrequire_reviewer = false\n[review.gates]\ntools = [\"Bash:*\"]\n"
	 "[circuit_breaker]\nmax_blocks = 0\n[trace]\nmax_events = 2\n",
	 NULL},
};
#define N_VARIANTS (sizeof(variants) / sizeof(variants[0]))

/* Parsed once: the configs never change, and building them per input would dominate. */
static roz_config configs[N_VARIANTS];
static bool configs_ready;
/* ROZ_FUZZ_TRACE=1 prints every step and answer, to read a reproducer by. */
static bool tracing;
static const char *const kind_names[] = {"{}", "block", "context", "deny", "ask"};

/* Consecutive refusals, keyed by a hash of what they are about. */
typedef struct streak {
	uint64_t key;
	unsigned n;
} streak;

#define MAX_STREAKS 16

/* The text last stored for a session, to compare with the next load. */
typedef struct saved {
	char *sid;
	char *json;
	size_t len;
} saved;

#define MAX_SAVED 8

typedef struct run {
	const roz_config *config;
	const char *second_opinions;
	roz_store *store;
	roz_time now;
	unsigned ids;
	uint64_t rng;
	streak stops[MAX_STREAKS];  /* blocked stops per session since its last prompt or agent tool call */
	streak holds[MAX_STREAKS];  /* held reviewer stops per (session, agent) */
	saved saved[MAX_SAVED];
	size_t n_saved;
} run;

static void build_configs(void)
{
	for (size_t i = 0; i < N_VARIANTS; i++) {
		roz_config *c = &configs[i];

		FUZZ_CHECK(roz_config_init(c) == ROZ_OK);
		FUZZ_CHECK(roz_config_apply_toml(c, variants[i].toml, strlen(variants[i].toml),
						 "variant.toml", NULL, NULL) == ROZ_OK);
		c->storage_path = roz_strdup(STORAGE);
		FUZZ_CHECK(c->storage_path != NULL);
	}
	tracing = getenv("ROZ_FUZZ_TRACE") != NULL;
	configs_ready = true;
}

/* ---- the deterministic environment ------------------------------------------ */

static int counter_id(void *ud, char out[ROZ_UUID_SIZE])
{
	run *r = ud;

	snprintf(out, ROZ_UUID_SIZE, "id-%u", ++r->ids);
	return ROZ_OK;
}

/* xorshift64: any fixed sequence will do, as long as the input decides it. */
static uint64_t det_random(void *ud, uint64_t bound)
{
	run *r = ud;

	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return bound ? r->rng % bound : 0;
}

static void env_for(run *r, roz_hook_event ev, roz_env *env)
{
	memset(env, 0, sizeof(*env));
	env->now = r->now;
	env->config = r->config;
	env->new_id = counter_id;
	env->random = det_random;
	env->load_template = NULL; /* the built-in template */
	/* the runner looks for second-opinion tools only at session start */
	env->second_opinions = ev == ROZ_HOOK_SESSION_START ? r->second_opinions : NULL;
	env->ud = r;
}

/* Move the clock: small steps, the 5 s decision skew, cooldowns, TTLs, and backwards. */
static void advance(run *r, uint8_t step)
{
	static const int64_t ms[] = {1, 999, 4000, 5001, 60000, 301000, 3601000, -10000};
	int64_t delta = ms[step & 7] + (step >> 3);
	int64_t ns = (int64_t)r->now.nsec + (delta % 1000) * 1000000;

	r->now.sec += delta / 1000 + ns / 1000000000;
	r->now.nsec = (int32_t)(ns % 1000000000);
	if (r->now.nsec < 0) {
		r->now.nsec += 1000000000;
		r->now.sec--;
	}
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return (h ^ 0xff) * UINT64_C(1099511628211); /* separates "ab"+"c" from "a"+"bc" */
}

static streak *streak_for(streak *tab, uint64_t key)
{
	for (size_t i = 0; i < MAX_STREAKS; i++)
		if (tab[i].n && tab[i].key == key)
			return &tab[i];
	for (size_t i = 0; i < MAX_STREAKS; i++)
		if (!tab[i].n) {
			tab[i].key = key;
			return &tab[i];
		}
	return NULL; /* table full: stop tracking rather than guess */
}

static void streak_reset(streak *tab, uint64_t key)
{
	for (size_t i = 0; i < MAX_STREAKS; i++)
		if (tab[i].n && tab[i].key == key)
			tab[i].n = 0;
}

/*
 * A reviewer start may push an old run out of the session's list, after
 * which that agent's stop counts from zero again; so any start clears every
 * hold streak (too often is safe, the check only gets weaker).
 */
static void streak_clear(streak *tab)
{
	for (size_t i = 0; i < MAX_STREAKS; i++)
		tab[i].n = 0;
}

/* ---- invariants ----------------------------------------------------------- */

/* The caps and counters a saved session stays within. */
static void check_session(run *r, const roz_session *s)
{
	const roz_review_state *rv = &s->review;
	const roz_config *c = r->config;

	FUZZ_CHECK(rv->n_prompts <= ROZ_MAX_PROMPTS);
	for (size_t i = 0; i < rv->n_prompts; i++)
		/* cut at the cap, plus the note saying how long it was */
		FUZZ_CHECK(strlen(rv->prompts[i]) <= ROZ_MAX_PROMPT_BYTES + 64);
	FUZZ_CHECK(rv->n_history <= ROZ_MAX_HISTORY);
	FUZZ_CHECK(rv->n_attempts <= ROZ_MAX_ATTEMPTS);
	FUZZ_CHECK(rv->n_reviewers <= ROZ_MAX_REVIEWER_RUNS);
	FUZZ_CHECK(rv->block_count <= c->max_blocks);
}

static saved *saved_find(run *r, const char *sid)
{
	for (size_t i = 0; i < r->n_saved; i++)
		if (strcmp(r->saved[i].sid, sid) == 0)
			return &r->saved[i];
	return NULL;
}

/* A session's state, as the store saves it (the trace is checked on its own). */
static int state_text(const roz_session *s, roz_buf *b)
{
	return roz_session_json_write_state(s, 0, b);
}

/* A session loaded from the store must save to exactly the state stored last. */
static void check_reload(const saved *sv, const roz_session *loaded)
{
	roz_buf b = ROZ_BUF_INIT;

	FUZZ_CHECK(state_text(loaded, &b) == ROZ_OK);
	if (b.len != sv->len || memcmp(b.ptr, sv->json, b.len) != 0) {
		fprintf(stderr, "saved:    %s\nreloaded: %s\n", sv->json, b.ptr);
		FUZZ_CHECK(!"a stored session does not reload to the same text");
	}
	roz_buf_dispose(&b);
}

/* After a get: compare with what was saved (parsing the store twice per step would halve the speed). */
static void check_loaded(run *r, const char *sid, const roz_session *loaded)
{
	const saved *sv = saved_find(r, sid);

	if (sv && loaded)
		check_reload(sv, loaded);
}

/* After a put: check the session, and remember its text for the next load. */
static void after_put(run *r, const roz_session *s)
{
	saved *sv = saved_find(r, s->session_id);
	roz_buf b = ROZ_BUF_INIT;

	check_session(r, s);
	FUZZ_CHECK(state_text(s, &b) == ROZ_OK);
	if (!sv && r->n_saved < MAX_SAVED) {
		sv = &r->saved[r->n_saved++];
		sv->sid = roz_strdup(s->session_id);
		FUZZ_CHECK(sv->sid != NULL);
	} else if (sv) {
		roz_free(sv->json);
	}
	if (sv) {
		sv->json = roz_buf_detach(&b, &sv->len);
		return;
	}
	/* more sessions than the table holds: check this one at once */
	{
		saved now = {NULL, b.ptr, b.len};
		roz_session *back = NULL;

		FUZZ_CHECK(roz_store_get(r->store, s->session_id, &back) == ROZ_OK);
		FUZZ_CHECK(back->n_trace <= r->config->max_events);
		check_reload(&now, back);
		roz_session_free(back);
		roz_buf_dispose(&b);
	}
}

/* At the end of an input, every session saved since its last load is loaded once more. */
static void check_all_saved(run *r)
{
	for (size_t i = 0; i < r->n_saved; i++) {
		roz_session *back = NULL;

		/* read whole: the trace a reader sees stays within the cap */
		FUZZ_CHECK(roz_store_get(r->store, r->saved[i].sid, &back) == ROZ_OK);
		FUZZ_CHECK(back->n_trace <= r->config->max_events);
		check_reload(&r->saved[i], back);
		roz_session_free(back);
		roz_free(r->saved[i].sid);
		roz_free(r->saved[i].json);
	}
	r->n_saved = 0;
}

static bool str_is(const cJSON *obj, const char *name, const char *want)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsString(v) && (!want || strcmp(v->valuestring, want) == 0);
}

/* No key or string anywhere in an answer may be "allow" (or the older "approve"). */
static void check_no_allow(const cJSON *v)
{
	const cJSON *c;

	if (v->string)
		FUZZ_CHECK(strcmp(v->string, "allow") != 0 && strcmp(v->string, "approve") != 0);
	if (cJSON_IsString(v))
		FUZZ_CHECK(strcmp(v->valuestring, "allow") != 0 && strcmp(v->valuestring, "approve") != 0);
	cJSON_ArrayForEach(c, v) check_no_allow(c);
}

/* The answer is one of the shapes Claude Code accepts, and fits the event. */
static void check_output(roz_hook_event ev, const roz_hook_output *o)
{
	roz_buf b = ROZ_BUF_INIT;
	cJSON *root = NULL;
	const cJSON *hso;

	FUZZ_CHECK(roz_hook_output_write(o, &b) == ROZ_OK);
	FUZZ_CHECK(b.len && b.ptr[b.len - 1] == '\n');
	FUZZ_CHECK(roz_json_valid(b.ptr, b.len));
	FUZZ_CHECK(!memmem(b.ptr, b.len, "\"allow\"", 7));
	FUZZ_CHECK(roz_json_parse(b.ptr, b.len, &root) == ROZ_OK);
	FUZZ_CHECK(cJSON_IsObject(root));
	check_no_allow(root);
	hso = cJSON_GetObjectItemCaseSensitive(root, "hookSpecificOutput");
	switch (o->kind) {
	case ROZ_OUTPUT_ALLOW:
		FUZZ_CHECK(strcmp(b.ptr, "{}\n") == 0);
		break;
	case ROZ_OUTPUT_BLOCK:
		FUZZ_CHECK(ev == ROZ_HOOK_STOP || ev == ROZ_HOOK_SUBAGENT_STOP);
		FUZZ_CHECK(strncmp(b.ptr, "{\"decision\":\"block\",\"reason\":", 29) == 0);
		FUZZ_CHECK(str_is(root, "reason", NULL) && o->text && *o->text);
		break;
	case ROZ_OUTPUT_CONTEXT:
		FUZZ_CHECK(ev == ROZ_HOOK_SESSION_START);
		FUZZ_CHECK(str_is(hso, "hookEventName", "SessionStart"));
		FUZZ_CHECK(str_is(hso, "additionalContext", NULL) && o->text && *o->text);
		break;
	case ROZ_OUTPUT_DENY:
	case ROZ_OUTPUT_ASK:
		FUZZ_CHECK(ev == ROZ_HOOK_PRE_TOOL_USE);
		FUZZ_CHECK(str_is(hso, "hookEventName", "PreToolUse"));
		FUZZ_CHECK(str_is(hso, "permissionDecision", o->kind == ROZ_OUTPUT_DENY ? "deny" : "ask"));
		FUZZ_CHECK(str_is(hso, "permissionDecisionReason", NULL) && o->text && *o->text);
		break;
	default:
		FUZZ_CHECK(!"unknown output kind");
	}
	/* a stop is either let go or blocked, nothing else */
	if (ev == ROZ_HOOK_STOP || ev == ROZ_HOOK_SUBAGENT_STOP)
		FUZZ_CHECK(o->kind == ROZ_OUTPUT_ALLOW || o->kind == ROZ_OUTPUT_BLOCK);
	cJSON_Delete(root);
	roz_buf_dispose(&b);
}

static bool from_reviewer(const roz_hook_input *in)
{
	return in->agent_type && strcmp(in->agent_type, ROZ_REVIEWER_AGENT) == 0 && in->agent_id &&
	       *in->agent_id;
}

/* The refusals roz makes whatever the gates and the session say. */
static void check_tool_refusals(const roz_hook_plan *plan, const roz_hook_input *in,
				const roz_hook_output *o)
{
	if (plan->gate.roz_runs & ROZ_RUNS_HOOK)
		FUZZ_CHECK(o->kind == ROZ_OUTPUT_DENY);
	if ((plan->gate.roz_runs & ROZ_RUNS_DECIDE) && !from_reviewer(in))
		FUZZ_CHECK(o->kind == ROZ_OUTPUT_DENY);
	if (plan->gate.touches_store)
		FUZZ_CHECK(o->kind == ROZ_OUTPUT_DENY);
}

/*
 * roz never traps the agent: between two things the user or the agent does
 * that can start a new review cycle (a prompt, a tool call of the agent's
 * own), a session's stops are blocked at most max_blocks times; a stop
 * while a reviewer works in the background is never blocked. The
 * reviewer's tool calls do not count: the agent cannot stop them, so if
 * they restarted the cycle the blocks would have no bound.
 */
static void count_stop(run *r, const char *sid, roz_output_kind kind)
{
	streak *st = streak_for(r->stops, hash_str(0, sid));

	if (!st || kind != ROZ_OUTPUT_BLOCK)
		return;
	st->n++;
	FUZZ_CHECK(st->n <= (uint64_t)r->config->max_blocks);
}

/* Nor the reviewer: its stop is held at most twice in a row. */
static void count_hold(run *r, const roz_hook_input *in, roz_output_kind kind)
{
	uint64_t key = hash_str(hash_str(0, in->session_id), in->agent_id);
	streak *st;

	if (kind != ROZ_OUTPUT_BLOCK) {
		streak_reset(r->holds, key);
		return;
	}
	if (!(st = streak_for(r->holds, key)))
		return;
	st->n++;
	FUZZ_CHECK(st->n <= REVIEWER_HOLDS);
}

/* ---- one step --------------------------------------------------------------- */

static void hook(run *r, roz_hook_event ev, const char *json, size_t len)
{
	roz_hook_input in;
	roz_hook_plan plan;
	roz_hook_result res;
	roz_session *s = NULL;
	roz_env env;
	bool cooling = false, approved = false;
	int rc;

	memset(&plan, 0, sizeof(plan));
	roz_hook_result_init(&res);
	rc = roz_hook_input_parse(json, len, &in);
	if (rc < 0) {
		if (tracing)
			fprintf(stderr, "step %s: input rejected: %s\n", roz_hook_event_name(ev),
				roz_error_last());
		/* rejected input: the runner answers {} */
		FUZZ_CHECK(rc == ROZ_EINVALID);
		check_output(ev, &res.output);
		roz_hook_result_dispose(&res);
		return;
	}
	/* only session_id is required; every other field may be absent or read as absent */
	FUZZ_CHECK(in.session_id);
	FUZZ_CHECK(roz_hook_prepare(ev, &in, r->config, &plan) == ROZ_OK);
	if (plan.needs_session) {
		/* the runner answers {} for ids it cannot store, without calling the handler */
		if (!roz_session_id_valid(in.session_id))
			goto answer;
		rc = roz_store_get_state(r->store, in.session_id, &s);
		FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_ENOTFOUND);
		check_loaded(r, in.session_id, s);
		if (s) {
			cooling = roz_breaker_cooling(s, r->config, r->now);
			approved = roz_gate_approved(s, r->config, r->now);
		}
	}
	env_for(r, ev, &env);
	rc = roz_hook_handle(ev, &in, &env, &plan, &s, &res);
	/* a handler error makes the runner answer {}: a gate would fail open */
	FUZZ_CHECK(rc == ROZ_OK);
	/* the runner has no store open unless the plan asked for the session */
	FUZZ_CHECK(!res.save || plan.needs_session);
	if (res.save) {
		FUZZ_CHECK(s != NULL);
		FUZZ_CHECK(strcmp(s->session_id, in.session_id) == 0);
		FUZZ_CHECK(roz_store_put(r->store, s) == ROZ_OK);
		after_put(r, s);
	}
	if (ev == ROZ_HOOK_PRE_TOOL_USE) {
		check_tool_refusals(&plan, &in, &res.output);
		/* a gated call with no standing approval is denied, unless the breaker cools */
		if (plan.needs_session && plan.gate.matched && !cooling && !approved)
			FUZZ_CHECK(res.output.kind == ROZ_OUTPUT_DENY);
	}
answer:
	if (tracing)
		fprintf(stderr, "step %s (%.60s): %s%s; %s", roz_hook_event_name(ev), in.session_id,
			kind_names[res.output.kind], res.save ? ", saved" : "",
			res.notes.len ? roz_buf_cstr(&res.notes) : "\n");
	check_output(ev, &res.output);
	switch (ev) {
	case ROZ_HOOK_STOP:
		count_stop(r, in.session_id, res.output.kind);
		break;
	case ROZ_HOOK_SUBAGENT_STOP:
		count_hold(r, &in, res.output.kind);
		break;
	case ROZ_HOOK_PRE_TOOL_USE:
		if (from_reviewer(&in))
			break;
		/* fall through */
	case ROZ_HOOK_USER_PROMPT:
		streak_reset(r->stops, hash_str(0, in.session_id));
		break;
	case ROZ_HOOK_SUBAGENT_START:
		streak_clear(r->holds);
		break;
	default:
		break;
	}
	roz_session_free(s);
	roz_hook_result_dispose(&res);
	roz_hook_plan_dispose(&plan);
	roz_hook_input_dispose(&in);
}

/* `roz decide` as the reviewer runs it; the step's JSON names the session and the words. */
static void decide(run *r, unsigned opts, const char *json, size_t len)
{
	roz_hook_input in;
	roz_session *s = NULL;
	roz_env env;
	const char *summary;
	bool with_extras = opts & 4;
	int rc;

	if (roz_hook_input_parse(json, len, &in) < 0)
		return;
	if (!roz_session_id_valid(in.session_id) ||
	    roz_store_get_state(r->store, in.session_id, &s) == ROZ_ENOTFOUND) {
		roz_hook_input_dispose(&in);
		return;
	}
	FUZZ_CHECK(s != NULL);
	check_loaded(r, in.session_id, s);
	summary = in.last_assistant_message ? in.last_assistant_message : in.prompt ? in.prompt : "checked";
	env_for(r, ROZ_HOOK_UNKNOWN, &env);
	rc = roz_decide_apply(s, opts & 1 ? ROZ_DECISION_ISSUES : ROZ_DECISION_COMPLETE, summary,
			      with_extras ? in.reason : NULL, with_extras ? in.model : NULL,
			      (opts & 2) != 0, &env);
	FUZZ_CHECK(rc == ROZ_OK);
	if (tracing)
		fprintf(stderr, "step decide %s (%.60s)\n", opts & 1 ? "ISSUES" : "COMPLETE", in.session_id);
	FUZZ_CHECK(roz_store_put(r->store, s) == ROZ_OK);
	after_put(r, s);
	roz_session_free(s);
	roz_hook_input_dispose(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run r;
	size_t pos = 2, steps = 0;
	uint64_t seed = 0;

	fuzz_init();
	if (!configs_ready)
		build_configs();
	if (size < 2)
		return 0;
	memset(&r, 0, sizeof(r));
	r.config = &configs[data[0] % N_VARIANTS];
	r.second_opinions = variants[data[0] % N_VARIANTS].second_opinions;
	/* whole days apart, with fractions of a second that need 3, 6 or 9 digits */
	r.now = roz_time_make(CLOCK_BASE + (int64_t)data[1] * 86400, (int32_t)data[1] * 3906250);
	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * UINT64_C(1099511628211);
	r.rng = seed | 1; /* xorshift must not start at zero */
	FUZZ_CHECK(roz_store_memory_new(&r.store) == ROZ_OK);
	roz_store_set_trace_cap(r.store, r.config->max_events);

	while (pos < size && steps < MAX_STEPS) {
		const uint8_t *end = memchr(data + pos, SEP, size - pos);
		size_t seg_end = end ? (size_t)(end - data) : size;

		if (seg_end - pos >= 2) {
			uint8_t evb = data[pos], stepb = data[pos + 1];
			const char *json = (const char *)data + pos + 2;
			size_t len = seg_end - pos - 2;

			advance(&r, stepb);
			if (evb % 8 == STEP_DECIDE)
				decide(&r, evb >> 3, json, len);
			else
				hook(&r, (roz_hook_event)(evb % 8), json, len);
			steps++;
		}
		pos = seg_end + 1;
	}
	check_all_saved(&r);
	roz_store_free(r.store);
	return 0;
}
