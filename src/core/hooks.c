/*
 * hooks.c - the review state machine: what each hook does to a session and
 * what it answers Claude Code. Pure functions of (input, session, env). The
 * circuit breaker (breaker.c), verdicts and their tickets (decide.c) and the
 * block message (template.c) are modules of their own that the handlers use.
 */
#include "roz/hooks.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "roz/breaker.h"
#include "roz/decide.h"
#include "roz/template.h"
#include "roz/utf8.h"
#include "trace_event.h"

/* How often one reviewer's stop is held for want of a verdict before it is let go. */
#define REVIEWER_STOP_LIMIT 2

static const struct {
	const char *name;
	roz_hook_event ev;
} event_names[] = {
	{"session-start", ROZ_HOOK_SESSION_START}, {"user-prompt", ROZ_HOOK_USER_PROMPT},
	{"pre-tool-use", ROZ_HOOK_PRE_TOOL_USE},   {"stop", ROZ_HOOK_STOP},
	{"subagent-start", ROZ_HOOK_SUBAGENT_START}, {"subagent-stop", ROZ_HOOK_SUBAGENT_STOP},
	{"session-end", ROZ_HOOK_SESSION_END},     {"post-tool-use", ROZ_HOOK_POST_TOOL_USE},
};

roz_hook_event roz_hook_event_parse(const char *name)
{
	for (size_t i = 0; name && i < sizeof(event_names) / sizeof(event_names[0]); i++)
		if (strcmp(name, event_names[i].name) == 0)
			return event_names[i].ev;
	return ROZ_HOOK_UNKNOWN;
}

const char *roz_hook_event_name(roz_hook_event ev)
{
	for (size_t i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
		if (event_names[i].ev == ev)
			return event_names[i].name;
	return "unknown";
}

void roz_hook_plan_dispose(roz_hook_plan *plan)
{
	roz_gate_match_dispose(&plan->gate);
	memset(plan, 0, sizeof(*plan));
}

void roz_hook_result_init(roz_hook_result *res)
{
	memset(res, 0, sizeof(*res));
	res->output.kind = ROZ_OUTPUT_ALLOW;
	roz_buf_init(&res->notes);
}

void roz_hook_result_dispose(roz_hook_result *res)
{
	roz_hook_output_dispose(&res->output);
	roz_buf_dispose(&res->notes);
	res->save = false;
}

static void note(roz_hook_result *res, const char *level, const char *fmt, ...) ROZ_PRINTF(3, 4);

static void note(roz_hook_result *res, const char *level, const char *fmt, ...)
{
	va_list ap;

	roz_buf_addf(&res->notes, "roz: %s: ", level);
	va_start(ap, fmt);
	roz_buf_vaddf(&res->notes, fmt, ap);
	va_end(ap);
	roz_buf_addc(&res->notes, '\n');
}

/* Length of the Unicode white space character at p (as Rust's trim sees it), or 0. */
static size_t space_len(const unsigned char *p)
{
	if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		return 1;
	if (p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0))
		return 2;
	if (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80)
		return 3; /* U+1680 */
	if (p[0] == 0xE2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 ||
					       p[2] == 0xA9 || p[2] == 0xAF))
		return 3; /* U+2000..200A, U+2028, U+2029, U+202F */
	if (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F)
		return 3; /* U+205F */
	if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80)
		return 3; /* U+3000, the ideographic space of CJK input */
	return 0;
}

static const char *skip_space(const char *s)
{
	size_t n;

	while ((n = space_len((const unsigned char *)s)) != 0)
		s += n;
	return s;
}

/* A background task's result comes back as a user turn; it is not a prompt. */
static bool is_task_notification(const char *prompt)
{
	return strncmp(skip_space(prompt), "<task-notification>", 19) == 0;
}

static bool is_reviewer(const roz_hook_input *in)
{
	return in->agent_type && strcmp(in->agent_type, ROZ_REVIEWER_AGENT) == 0;
}

/* A tool call made from inside the reviewer: Claude Code names the agent on it. */
static bool from_reviewer(const roz_hook_input *in)
{
	return is_reviewer(in) && in->agent_id && *in->agent_id;
}

static bool str_field_is(const cJSON *obj, const char *name, const char *want)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
}

/* Stop input lists running background tasks; is a reviewer among them? */
static bool reviewer_running_in_background(const roz_hook_input *in)
{
	const cJSON *task;

	cJSON_ArrayForEach(task, in->background_tasks) {
		if (str_field_is(task, "type", "subagent") && str_field_is(task, "status", "running") &&
		    str_field_is(task, "agent_type", ROZ_REVIEWER_AGENT))
			return true;
	}
	return false;
}

/* Is this running task, as a Stop input lists it, the reviewer run `agent_id`? */
static bool listed_as_running(const roz_hook_input *in, const char *agent_id)
{
	const cJSON *task;

	cJSON_ArrayForEach(task, in->background_tasks) {
		if (str_field_is(task, "id", agent_id) && str_field_is(task, "status", "running"))
			return true;
	}
	return false;
}

/* An Agent tool call that starts the reviewer (the tool was called Task before). */
static bool starts_reviewer(const roz_hook_input *in)
{
	const cJSON *type = cJSON_IsObject(in->tool_input)
				    ? cJSON_GetObjectItemCaseSensitive(in->tool_input, "subagent_type")
				    : NULL;

	return in->tool_name && (strcmp(in->tool_name, "Agent") == 0 || strcmp(in->tool_name, "Task") == 0) &&
	       cJSON_IsString(type) && strcmp(type->valuestring, ROZ_REVIEWER_AGENT) == 0;
}

int roz_hook_prepare(roz_hook_event ev, const roz_hook_input *in, const roz_config *config,
		     roz_hook_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	switch (ev) {
	case ROZ_HOOK_USER_PROMPT:
		plan->is_notification = in->prompt && is_task_notification(in->prompt);
		plan->needs_session = !plan->is_notification;
		return ROZ_OK;
	case ROZ_HOOK_PRE_TOOL_USE: {
		int rc = roz_gate_check(config, in->tool_name, in->tool_input, in->cwd, &plan->gate);

		/* refusals need no state; only a gate that may start a review does */
		plan->needs_session = plan->gate.matched && !plan->gate.touches_store &&
				      !(plan->gate.roz_runs & ROZ_RUNS_HOOK) &&
				      !((plan->gate.roz_runs & ROZ_RUNS_DECIDE) && !from_reviewer(in)) &&
				      !is_reviewer(in);
		/* the reviewer's own `roz decide` is issued a ticket, kept in the session */
		plan->needs_session |= (plan->gate.roz_runs & ROZ_RUNS_DECIDE) &&
				       !(plan->gate.roz_runs & ROZ_RUNS_HOOK) && !plan->gate.matched &&
				       from_reviewer(in) && config->require_reviewer;
		/* a line roz cannot see through is a detour while a gate's denial is pending */
		plan->needs_session |= !plan->gate.matched && (plan->gate.opaque || plan->gate.unsure) &&
				       !plan->gate.roz_runs && !is_reviewer(in);
		/* starting the reviewer: one run at a time, so the session is consulted */
		plan->starts_reviewer = !plan->gate.matched && !is_reviewer(in) && starts_reviewer(in);
		plan->needs_session |= plan->starts_reviewer;
		return rc;
	}
	case ROZ_HOOK_SUBAGENT_START:
	case ROZ_HOOK_SUBAGENT_STOP:
		plan->needs_session = is_reviewer(in);
		return ROZ_OK;
	case ROZ_HOOK_SESSION_START:
	case ROZ_HOOK_STOP:
	case ROZ_HOOK_SESSION_END:
		plan->needs_session = true;
		return ROZ_OK;
	default:
		return ROZ_OK;
	}
}

/* ---- shared steps ------------------------------------------------------------ */

static int get_or_create(roz_session **session, const roz_hook_input *in, const roz_env *env)
{
	return *session ? ROZ_OK : roz_session_new(in->session_id, env->now, session);
}

/* A review cycle begins: the work's baseline (roz/work.h), or a note that approvals go unbound. */
static int begin_work(roz_session *s, const roz_env *env, roz_hook_result *res)
{
	const char *why = NULL;
	int rc = roz_work_begin(s, env->work, &why);

	if (rc == ROZ_OK && why && env->work)
		note(res, "warning",
		     "cannot note the working tree for session %s (%s); an approval this cycle will not be "
		     "checked against later changes",
		     s->session_id, why);
	return rc;
}

/* ---- session-start ------------------------------------------------------------ */

static int on_session_start(const roz_hook_input *in, const roz_env *env, roz_session **session,
			    roz_hook_result *res)
{
	int rc;

	if (!*session) {
		roz_buf p = ROZ_BUF_INIT;

		if ((rc = roz_session_new(in->session_id, env->now, session)) < 0)
			return rc;
		kv_str(&p, "cwd", in->cwd);
		kv_str(&p, "source", in->source);
		kv_end(&p);
		rc = add_event(*session, env, ROZ_EVENT_SESSION_START, &p);
		roz_buf_dispose(&p);
		if (rc < 0)
			return rc;
		res->save = true;
	}
	if (env->second_opinions) {
		char *ctx = roz_asprintf("roz: second-opinion tools available to the reviewer: %s",
					 env->second_opinions);

		res->output.event_name = "SessionStart";
		return roz_hook_output_take(&res->output, ROZ_OUTPUT_CONTEXT, ctx);
	}
	return ROZ_OK;
}

/* ---- user-prompt ----------------------------------------------------------------- */

static int on_user_prompt(const roz_hook_input *in, const roz_env *env, const roz_hook_plan *plan,
			  roz_session **session, roz_hook_result *res)
{
	const char *prompt = in->prompt ? in->prompt : "", *p = prompt;
	roz_review_state *r;
	bool enable;
	int rc;

	if (plan->is_notification)
		return ROZ_OK;
	if ((rc = get_or_create(session, in, env)) < 0)
		return rc;
	r = &(*session)->review;
	/* a prompt after an approval is a new request: prompt isolation is over */
	if (r->decision.kind == ROZ_DECISION_COMPLETE)
		r->review_started_at.set = false;
	r->last_prompt_at.set = true;
	r->last_prompt_at.t = env->now;
	p = skip_space(p);
	switch (env->config->mode) {
	case ROZ_MODE_ALWAYS: enable = true; break;
	case ROZ_MODE_NEVER: enable = false; break;
	default: enable = strncmp(p, "#roz", 4) == 0;
	}
	if (enable) {
		roz_buf payload = ROZ_BUF_INIT;
		char *stored = roz_session_prompt_truncate(prompt);

		if (!stored || (rc = roz_session_add_prompt(*session, prompt)) < 0) {
			roz_free(stored);
			return ROZ_ENOMEM;
		}
		r->enabled = true;
		roz_session_decision_dispose(&r->decision);
		roz_breaker_start_cycle(*session);
		if ((rc = begin_work(*session, env, res)) < 0) {
			roz_free(stored);
			return rc;
		}
		kv_str(&payload, "prompt", stored);
		kv_end(&payload);
		roz_free(stored);
		rc = add_event(*session, env, ROZ_EVENT_PROMPT_RECEIVED, &payload);
		roz_buf_dispose(&payload);
		if (rc < 0)
			return rc;
	}
	(*session)->updated_at = env->now;
	res->save = true;
	return ROZ_OK;
}

/* ---- stop ---------------------------------------------------------------------------- */

/*
 * What a Stop answers after an ISSUES verdict: the reviewer's message, then
 * how to get the next review. However long the message, the answer stays
 * within ROZ_OUTPUT_MAX_CHARS and keeps its end (the SESSION_ID the next
 * review needs): the message is what gets cut, and `roz context` shows it
 * whole.
 */
static char *issues_message(const roz_session *s)
{
	const roz_decision *d = &s->review.decision;
	const char *msg = d->message_to_agent ? d->message_to_agent : d->summary ? d->summary : "";
	roz_buf b = ROZ_BUF_INIT, tail = ROZ_BUF_INIT;
	static const char head[] = "roz: the reviewer found problems to fix before you finish:\n\n";
	size_t room;
	char *more;

	roz_buf_addf(&tail,
		     "\n\nFix them, then start the reviewer again (the Agent tool with "
		     "subagent_type \"roz:roz\") with a prompt that begins with this line:\n\n"
		     "SESSION_ID=%s\n\n"
		     "If it runs in the background, end your turn once it has started: you "
		     "will be notified when it finishes.\n",
		     s->session_id);
	more = roz_asprintf("`roz context %s` shows the reviewer's whole message", s->session_id);
	room = roz_utf8_utf16_len(head, strlen(head)) + roz_utf8_utf16_len(roz_buf_cstr(&tail), tail.len);
	roz_buf_adds(&b, head);
	roz_hook_text_add_clipped(&b, msg, ROZ_OUTPUT_MAX_CHARS > room ? ROZ_OUTPUT_MAX_CHARS - room : 0, more);
	roz_buf_add(&b, roz_buf_cstr(&tail), tail.len);
	if (!more || roz_buf_failed(&tail) < 0 || roz_buf_failed(&b) < 0) {
		roz_buf_dispose(&b);
		b.oom = true;
	}
	roz_free(more);
	roz_buf_dispose(&tail);
	return roz_buf_detach(&b, NULL);
}

/*
 * Before a new attempt is recorded, settle the previous one: still pending
 * and no reviewer started since it was made means the agent never spawned one.
 */
static int settle_previous_attempt(roz_session *s)
{
	const roz_opt_time *started = &s->review.reviewer_started_at;
	roz_attempt *a;
	int rc = roz_session_pending_attempt(s, &a);

	if (a && !(started->set && !roz_time_before(started->t, a->timestamp)))
		a->outcome = ROZ_OUTCOME_NOT_SPAWNED;
	return rc;
}

/*
 * Reviewer runs: a launch is recorded when the main agent calls the Agent
 * tool for roz:roz (agent id still unknown, ""), bound to the agent's id at
 * its SubagentStart and removed at its SubagentStop. A launch that never
 * started, or a run whose stop never came, must not hold the session
 * forever, so each is live only for a while; a Stop's background_tasks,
 * when present, is the last word on which runs still work.
 */
#define REVIEWER_LAUNCH_SECONDS 60
#define REVIEWER_STALE_SECONDS 3600

static bool run_live(const roz_reviewer_run *run, roz_time now)
{
	int64_t limit = *run->agent_id ? REVIEWER_STALE_SECONDS : REVIEWER_LAUNCH_SECONDS;

	return !roz_time_after(now, roz_time_add(run->started_at, limit));
}

/* A run that holds the place of the one reviewer: live, and not already finishing. */
static const roz_reviewer_run *live_run(const roz_session *s, roz_time now)
{
	for (size_t i = s->review.n_reviewers; i-- > 0;)
		if (run_live(&s->review.reviewers[i], now) && !s->review.reviewers[i].stop_blocks)
			return &s->review.reviewers[i];
	return NULL;
}

/* Forget runs that can no longer be working. */
static void prune_runs(roz_session *s, const roz_hook_input *in, roz_time now)
{
	roz_review_state *r = &s->review;

	for (size_t i = r->n_reviewers; i-- > 0;) {
		const roz_reviewer_run *run = &r->reviewers[i];
		/*
		 * A run whose stop is being held keeps its count, however long
		 * ago it started, or a reviewer could be held again and again; it
		 * no longer holds the place, and goes when its stop is let go.
		 */
		bool gone = !run->stop_blocks &&
			    (!run_live(run, now) ||
			     (*run->agent_id && in->background_tasks && !listed_as_running(in, run->agent_id)));

		if (gone)
			roz_session_reviewer_remove(s, &r->reviewers[i]);
	}
}

/* The run a reviewer's SubagentStart/Stop belongs to: its own, or the launch waiting for an id. */
static int bind_run(roz_session *s, const char *agent_id, roz_time now, roz_reviewer_run **out)
{
	roz_reviewer_run *run = roz_session_reviewer_find(s, agent_id);
	char *id;

	*out = run;
	if (run || !agent_id || !*agent_id)
		return ROZ_OK;
	run = roz_session_reviewer_find(s, "");
	if (!run || !run_live(run, now))
		return ROZ_OK;
	if (!(id = roz_strdup(agent_id)))
		return ROZ_ENOMEM;
	roz_free(run->agent_id);
	run->agent_id = id;
	*out = run;
	return ROZ_OK;
}

/*
 * Is a reviewer working on this session while the agent stops? A
 * foreground reviewer never is (the agent waits inside the Agent call), so
 * only the Stop input's list of background tasks can say so. Without that
 * list roz assumes nothing is working: a missing list never lets a stop go.
 */
static bool reviewer_working(const roz_hook_input *in)
{
	return in->background_tasks && reviewer_running_in_background(in);
}

/* The files named in a stale block (the rest are in `roz context`). */
#define STALE_LISTED 40

/*
 * What a stop (gated: NULL) or a gated call's retry (`g`) gets when the work
 * changed after the approval: the files, and the review of just those.
 */
static char *stale_message(const roz_session *s, const roz_gate_match *g)
{
	const roz_review_work *w = &s->review.work;
	roz_buf b = ROZ_BUF_INIT;
	size_t shown = w->n_stale < STALE_LISTED ? w->n_stale : STALE_LISTED;

	if (g)
		roz_buf_addf(&b, "roz: the work changed after the reviewer approved `%s`, so that approval no "
				 "longer covers it.\n\n", g->tool_key);
	else
		roz_buf_adds(&b, "roz: the work changed after the reviewer approved it, so that approval no "
				 "longer covers it.\n\n");
	roz_buf_adds(&b, "Changed since the approval:\n");
	for (size_t i = 0; i < shown; i++)
		roz_buf_addf(&b, "  %s\n", w->stale[i]);
	if (shown < w->n_stale)
		roz_buf_addf(&b, "  ... and %zu more (`roz context %s` lists them all)\n", w->n_stale - shown,
			     s->session_id);
	roz_buf_addf(&b,
		     "\nStart the reviewer again with the Agent tool, subagent_type \"roz:roz\", to review just "
		     "these changes, with this prompt:\n\n"
		     "```\n"
		     "SESSION_ID=%s\n"
		     "ROUND=%u\n\n"
		     "## Changed since the last approval\n",
		     s->session_id, (unsigned)w->round + 1);
	for (size_t i = 0; i < shown; i++)
		roz_buf_addf(&b, "%s\n", w->stale[i]);
	roz_buf_adds(&b, "\n## Why\n[Why you changed these files after the approval]\n```\n\n");
	roz_buf_adds(&b, g ? "Once the reviewer approves, run the action again."
			   : "Once the reviewer approves, you can stop.");
	if (roz_buf_failed(&b) < 0) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}

/*
 * Whether the approval still covers the work (roz/work.h); a stale one is
 * recorded (the files, the round) and set aside: the decision goes back to
 * pending, the gate's approval with it.
 */
static int approval_stale(roz_session *s, const roz_env *env, roz_hook_result *res, bool *stale)
{
	roz_review_state *r = &s->review;
	roz_work_verdict v = ROZ_WORK_HOLDS;
	const char *why = NULL;
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	*stale = false;
	if ((rc = roz_work_check(s, env->work, env->config, &v, &why)) < 0)
		return rc;
	if (why)
		note(res, "warning", "cannot compare the work with what the reviewer approved in session %s (%s); "
				     "the approval stands", s->session_id, why);
	if (v != ROZ_WORK_STALE)
		return ROZ_OK;
	*stale = true;
	roz_buf_adds(&p, "{\"files\":[");
	for (size_t i = 0; i < r->work.n_stale; i++) {
		if (i)
			roz_buf_addc(&p, ',');
		roz_json_add_string(&p, r->work.stale[i]);
	}
	roz_buf_addf(&p, "],\"round\":%u", (unsigned)r->work.round + 1);
	kv_str(&p, "summary", r->decision.summary);
	kv_end(&p);
	rc = add_event(s, env, ROZ_EVENT_APPROVAL_STALE, &p);
	roz_buf_dispose(&p);
	if (rc < 0)
		return rc;
	roz_session_decision_dispose(&r->decision);
	r->decision_trusted = false;
	r->gate_approved_at.set = false;
	return ROZ_OK;
}

typedef enum stop_outcome {
	STOP_IDLE,     /* no review asked for */
	STOP_COOLING,  /* the breaker tripped and is cooling down */
	STOP_APPROVED, /* a vouched-for COMPLETE */
	STOP_WAIT,     /* a reviewer is at work: its verdict is checked at the next stop */
	STOP_TRIP,     /* max_blocks blocks asked for reviews that never came */
	STOP_BLOCK     /* ask for a review, or for the fixes it found */
} stop_outcome;

/* What this stop will get, decided before anything is recorded. */
static stop_outcome stop_plan(const roz_session *s, const roz_config *cfg, bool working, roz_time now,
			      bool *reset)
{
	const roz_review_state *r = &s->review;

	*reset = false;
	if (!r->enabled)
		return STOP_IDLE;
	if (r->circuit_breaker_tripped) {
		if (roz_breaker_cooling(s, cfg, now))
			return STOP_COOLING;
		/* the cooldown has passed: review resumes from a clean slate */
		*reset = true;
		return working ? STOP_WAIT : cfg->max_blocks ? STOP_BLOCK : STOP_TRIP;
	}
	if (roz_decide_approves(s, cfg))
		return STOP_APPROVED;
	/*
	 * Waiting is not a failed attempt and costs the agent nothing: the turn
	 * ends, and Claude Code wakes the agent when the reviewer finishes.
	 */
	if (working)
		return STOP_WAIT;
	/* exactly max_blocks blocks per review cycle; the next stop trips the breaker */
	return r->block_count >= cfg->max_blocks ? STOP_TRIP : STOP_BLOCK;
}

static int on_stop(const roz_hook_input *in, const roz_env *env, roz_session **session,
		   roz_hook_result *res)
{
	const roz_config *cfg = env->config;
	roz_session *s = *session;
	roz_review_state *r;
	roz_buf payload = ROZ_BUF_INIT;
	char num[32], *template_id = NULL, *msg = NULL;
	bool working, reset;
	stop_outcome outcome;
	int rc;

	if (!s)
		return ROZ_OK; /* nothing was ever asked of this session */
	r = &s->review;
	prune_runs(s, in, env->now);
	working = reviewer_working(in);
	outcome = stop_plan(s, cfg, working, env->now, &reset);
	snprintf(num, sizeof(num), "%u", (unsigned)cfg->max_blocks);
	if (working)
		kv_raw(&payload, "background_reviewer", "true");
	if (outcome == STOP_WAIT)
		kv_str(&payload, "let_through", "reviewer_working");
	else if (outcome == STOP_TRIP || outcome == STOP_COOLING)
		kv_str(&payload, "let_through", "circuit_breaker");
	kv_raw(&payload, "max_blocks", num);
	kv_raw(&payload, "stop_hook_active", in->stop_hook_active == 1 ? "true" : "false");
	kv_end(&payload);
	rc = add_event(s, env, ROZ_EVENT_STOP_HOOK_CALLED, &payload);
	roz_buf_dispose(&payload);
	if (rc < 0)
		return rc;
	s->updated_at = env->now;
	res->save = true;
	if (reset) {
		roz_breaker_start_cycle(s);
		roz_session_decision_dispose(&r->decision);
		if ((rc = begin_work(s, env, res)) < 0)
			return rc;
		note(res, "info", "circuit breaker reset after cooldown in session %s", s->session_id);
	}
	if (outcome == STOP_APPROVED) {
		bool stale = false;

		if ((rc = approval_stale(s, env, res, &stale)) < 0)
			return rc;
		if (!stale)
			return ROZ_OK;
		/*
		 * the approval no longer covers the work: a review of what changed. The review
		 * that approved came, so the breaker counts this round's blocks afresh (it
		 * bounds reviews that never come); a reviewer already at work is waited for.
		 */
		r->block_count = 0;
		outcome = working ? STOP_WAIT : r->block_count >= cfg->max_blocks ? STOP_TRIP : STOP_BLOCK;
	}
	switch (outcome) {
	case STOP_IDLE:
	case STOP_APPROVED:
		return ROZ_OK;
	case STOP_COOLING:
	case STOP_TRIP:
		roz_breaker_trip(s, env->now);
		note(res, "warning",
		     "circuit breaker tripped after %u blocks in session %s; letting the agent stop unreviewed",
		     (unsigned)r->block_count, s->session_id);
		return ROZ_OK;
	case STOP_WAIT:
		r->wait_blocks++;
		note(res, "info",
		     "the roz:roz reviewer is still working on session %s; this turn may end, and its "
		     "verdict is checked when the agent next stops",
		     s->session_id);
		return ROZ_OK;
	case STOP_BLOCK:
		break;
	}
	if (r->decision.kind == ROZ_DECISION_COMPLETE) {
		/* a verdict no reviewer vouched for: recorded, then set aside */
		roz_buf p = ROZ_BUF_INIT;

		kv_str(&p, "reason", "no roz:roz reviewer vouched for this COMPLETE");
		kv_str(&p, "summary", r->decision.summary);
		kv_end(&p);
		rc = add_event(s, env, ROZ_EVENT_DECISION_IGNORED, &p);
		roz_buf_dispose(&p);
		if (rc < 0)
			return rc;
		note(res, "warning", "ignoring a COMPLETE in session %s that no reviewer vouched for",
		     s->session_id);
	}
	if (r->decision.kind == ROZ_DECISION_ISSUES) {
		template_id = roz_template_select(cfg, env);
		msg = issues_message(s);
	} else if (r->work.n_stale) {
		if ((rc = settle_previous_attempt(s)) < 0)
			return rc;
		template_id = roz_strdup("stale");
		msg = stale_message(s, NULL);
	} else {
		if ((rc = settle_previous_attempt(s)) < 0)
			return rc;
		msg = roz_template_block_message(s, env, &template_id);
	}
	if (!msg || !template_id || (rc = roz_session_add_attempt(s, template_id, env->now)) < 0) {
		roz_free(msg);
		roz_free(template_id);
		return ROZ_ENOMEM;
	}
	roz_free(template_id);
	r->block_count++;
	return roz_hook_output_take(&res->output, ROZ_OUTPUT_BLOCK, msg);
}

/* ---- subagent-start / subagent-stop ---------------------------------------------------- */

static int on_subagent_start(const roz_hook_input *in, const roz_env *env, roz_session **session,
			     roz_hook_result *res)
{
	roz_reviewer_run *run;
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	if (!is_reviewer(in))
		return ROZ_OK;
	if ((rc = get_or_create(session, in, env)) < 0 ||
	    (rc = bind_run(*session, in->agent_id, env->now, &run)) < 0)
		return rc;
	if (run) {
		/* the launch recorded at the Agent call: the review starts now */
		run->started_at = env->now;
		(*session)->review.reviewer_started_at.set = true;
		(*session)->review.reviewer_started_at.t = env->now;
	} else if ((rc = roz_session_reviewer_start(*session, in->agent_id, env->now)) < 0) {
		return rc;
	}
	kv_str(&p, "agent_id", in->agent_id ? in->agent_id : "");
	kv_end(&p);
	rc = add_event(*session, env, ROZ_EVENT_REVIEWER_STARTED, &p);
	roz_buf_dispose(&p);
	res->save = rc == ROZ_OK;
	return rc;
}

static int reviewer_stopped(roz_session *s, const roz_env *env, roz_reviewer_run *run,
			    const char *agent_id, const char *verdict)
{
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	kv_str(&p, "agent_id", agent_id ? agent_id : "");
	kv_str(&p, "verdict", verdict);
	kv_end(&p);
	rc = add_event(s, env, ROZ_EVENT_REVIEWER_STOPPED, &p);
	roz_buf_dispose(&p);
	roz_session_reviewer_remove(s, run);
	return rc;
}

/*
 * The reviewer's stop is held (at most REVIEWER_STOP_LIMIT times) until it
 * has a verdict to show; after that it is let go and the attempt is
 * recorded as having produced no decision.
 */
static int hold_reviewer(roz_session *s, const roz_env *env, roz_reviewer_run *run,
			 const roz_hook_input *in, roz_hook_result *res, char *why)
{
	if (!why)
		return ROZ_ENOMEM;
	if (run->stop_blocks >= REVIEWER_STOP_LIMIT) {
		roz_attempt *a;
		int rc = roz_session_pending_attempt(s, &a);

		roz_free(why);
		if (rc < 0)
			return rc;
		if (a)
			a->outcome = ROZ_OUTCOME_NO_DECISION;
		note(res, "warning", "the reviewer in session %s stopped without a usable verdict",
		     s->session_id);
		return reviewer_stopped(s, env, run, in->agent_id, "none");
	}
	run->stop_blocks++;
	return roz_hook_output_take(&res->output, ROZ_OUTPUT_BLOCK, why);
}

static int on_subagent_stop(const roz_hook_input *in, const roz_env *env, roz_session **session,
			    roz_hook_result *res)
{
	roz_session *s = *session;
	char a[ROZ_TIME_BUFSZ], b[ROZ_TIME_BUFSZ];
	roz_opt_time decided, lower = {false, {0, 0}};
	roz_reviewer_run *run;
	int rc;

	if (!is_reviewer(in))
		return ROZ_OK;
	if (!s) {
		note(res, "warning", "reviewer stopped in session %s, which roz has no record of",
		     in->session_id);
		return ROZ_OK;
	}
	res->save = true;
	if ((rc = bind_run(s, in->agent_id, env->now, &run)) < 0)
		return rc;
	if (run) {
		lower.set = true;
		lower.t = run->started_at;
	} else {
		/* no SubagentStart was seen: the review began at the last block or gate */
		roz_attempt *newest;

		if ((rc = roz_session_newest_attempt(s, &newest)) < 0)
			return rc;
		if (newest) {
			lower.set = true;
			lower.t = newest->timestamp;
		} else {
			lower = s->review.review_started_at;
		}
		if ((rc = roz_session_reviewer_start(s, in->agent_id, lower.set ? lower.t : env->now)) < 0)
			return rc;
		run = roz_session_reviewer_find(s, in->agent_id);
	}
	if (s->review.decision.kind == ROZ_DECISION_PENDING)
		return hold_reviewer(
			s, env, run, in, res,
			roz_asprintf("roz: you are finishing without recording a verdict. Run one of:\n\n"
				     "  roz decide %s COMPLETE \"<what you verified>\"\n"
				     "  roz decide %s ISSUES \"<what is wrong>\" --message \"<what to fix>\"\n",
				     s->session_id, s->session_id));
	decided = roz_session_decided_at(s);
	if (decided.set && lower.set && roz_time_before(decided.t, lower.t))
		return hold_reviewer(
			s, env, run, in, res,
			roz_asprintf("roz: the recorded verdict (%s) predates this review (started %s), "
				     "so it is not yours. Record your own with: roz decide %s "
				     "COMPLETE|ISSUES \"<summary>\"",
				     roz_time_format_sec(decided.t, a), roz_time_format_sec(lower.t, b),
				     s->session_id));
	if (decided.set && roz_time_after(decided.t, roz_time_add(env->now, ROZ_DECISION_SKEW_SECONDS)))
		return hold_reviewer(
			s, env, run, in, res,
			roz_asprintf("roz: the recorded verdict is dated %s, in the future (now %s); it "
				     "cannot come from this review. Record your own with: roz decide %s "
				     "COMPLETE|ISSUES \"<summary>\"",
				     roz_time_format_sec(decided.t, a), roz_time_format_sec(env->now, b),
				     s->session_id));
	if (s->review.decision_contested && !s->review.decision_trusted)
		return hold_reviewer(
			s, env, run, in, res,
			roz_asprintf("roz: the recorded verdict was contested: a second `roz decide` "
				     "presented the ticket it was recorded with, so roz cannot tell "
				     "whether it was yours. Record your verdict again with: roz decide "
				     "%s COMPLETE|ISSUES \"<summary>\"",
				     s->session_id));
	if (s->review.decision_agent_id && !s->review.decision_trusted &&
	    strcmp(s->review.decision_agent_id, in->agent_id ? in->agent_id : "") != 0)
		return hold_reviewer(
			s, env, run, in, res,
			roz_asprintf("roz: the recorded verdict was made with another reviewer's ticket "
				     "(agent %s), so it is not yours. Record your own with: roz decide "
				     "%s COMPLETE|ISSUES \"<summary>\"",
				     s->review.decision_agent_id, s->session_id));
	/*
	 * A verdict recorded while this reviewer ran: it vouches for it. The
	 * attempt it answers is settled here, unless `roz decide` already did
	 * (no reviewer required, an override, or an earlier voucher).
	 */
	if (!s->review.decision_trusted && env->config->require_reviewer &&
	    (rc = roz_decide_attempt_succeeded(s)) < 0)
		return rc;
	s->review.decision_trusted = true;
	return reviewer_stopped(s, env, run, in->agent_id,
				roz_session_decision_kind_name(s->review.decision.kind));
}

/* ---- pre-tool-use ------------------------------------------------------------------ */

static int gate_allowed(roz_session *s, const roz_env *env, const char *key, const char *reason)
{
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	kv_str(&p, "reason", reason);
	kv_str(&p, "tool", key);
	kv_end(&p);
	rc = add_event(s, env, ROZ_EVENT_GATE_ALLOWED, &p);
	roz_buf_dispose(&p);
	return rc;
}

static char *gate_message(const roz_session *s, const roz_gate_match *g)
{
	return roz_asprintf(
		"roz: this action needs an independent review first.\n\n"
		"Gated: `%s` (matched `%s`)\n\n"
		"Start the reviewer with the Agent tool, subagent_type \"roz:roz\", and this prompt:\n\n"
		"```\n"
		"SESSION_ID=%s\n\n"
		"## What you are about to do\n"
		"[The gated action and why]\n\n"
		"## Work so far\n"
		"[What you changed, and the files]\n"
		"```\n\n"
		"Once the reviewer approves, run the action again.",
		g->tool_key, g->pattern, s->session_id);
}

static char *self_approval_message(const roz_hook_input *in)
{
	return roz_asprintf("roz: only the roz:roz reviewer can record a verdict, so `roz decide` is "
			    "refused here.\n\nStart the reviewer with the Agent tool "
			    "(subagent_type \"roz:roz\") and a prompt that begins with this line:\n\n"
			    "SESSION_ID=%s\n",
			    in->session_id);
}

/*
 * The main agent starts roz:roz. One reviewer per attempt: while one works
 * (in the background, on Claude Code 2.1.3xx by default) another would
 * review the same work and race it to a verdict, so it is refused and the
 * agent told to wait. Otherwise the launch is recorded, which also tells a
 * stop that comes before the reviewer's SubagentStart that one is coming.
 */
static int reviewer_launch(const roz_hook_input *in, const roz_env *env, roz_session **session,
			   roz_hook_result *res)
{
	const roz_reviewer_run *run;
	char when[ROZ_TIME_BUFSZ];
	int rc;

	if ((rc = get_or_create(session, in, env)) < 0)
		return rc;
	run = live_run(*session, env->now);
	if (run) {
		note(res, "info", "refused a second roz:roz reviewer in session %s while one works",
		     (*session)->session_id);
		return roz_hook_output_take(
			&res->output, ROZ_OUTPUT_DENY,
			roz_asprintf("roz: a roz:roz reviewer started at %s is already reviewing this "
				     "session. Do not start another one: end your turn, and you will be "
				     "notified when it finishes; roz checks its verdict when you next "
				     "stop. (SESSION_ID=%s)",
				     roz_time_format_sec(run->started_at, when), (*session)->session_id));
	}
	if ((rc = roz_session_reviewer_start(*session, "", env->now)) < 0)
		return rc;
	(*session)->updated_at = env->now;
	res->save = true;
	return ROZ_OK;
}

/*
 * A verdict ticket for the reviewer call `in`: `roz decide` without
 * --override records only with one (see roz_decide_record).
 */
static int issue_ticket(roz_session *s, const roz_hook_input *in, const roz_env *env,
			roz_hook_result *res)
{
	int rc;

	roz_session_tickets_prune(s, env->now, ROZ_TICKET_TTL_SECONDS);
	if ((rc = roz_session_ticket_add(s, in->agent_id, in->tool_use_id, env->now)) < 0)
		return rc;
	s->updated_at = env->now;
	res->save = true;
	return ROZ_OK;
}

/* A call that could write into roz's storage, depending on what it computes, is the user's to allow. */
static int store_ask(roz_hook_result *res, roz_gate_store_verdict store, const char *why)
{
	if (store != ROZ_GATE_STORE_ASK)
		return ROZ_OK;
	return roz_hook_output_take(&res->output, ROZ_OUTPUT_ASK,
				    roz_asprintf("roz: %s. Tools may not write roz's record of the review; "
						 "please look at this call before it runs.",
						 why));
}

/*
 * A gate denied the agent a call and no review has approved it since; now
 * it runs a line whose effect roz cannot read (a script, an interpreter, a
 * task runner, a computed word). That is how an agent gets around a guard,
 * so the person decides, told which gate is pending and what it denied.
 */
static int detour(roz_session *s, const roz_hook_input *in, const roz_env *env,
		  const roz_gate_match *g, roz_hook_result *res)
{
	const roz_gate_trigger *t = s->review.gate_trigger;
	const char *why = g->opaque ? g->opaque : g->unsure;
	const char *command = NULL;
	roz_buf p = ROZ_BUF_INIT;
	char *call;
	int rc;

	if (cJSON_IsObject(in->tool_input)) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(in->tool_input, "command");

		command = cJSON_IsString(c) ? c->valuestring : NULL;
	}
	call = roz_asprintf("Bash:%.*s", (int)roz_utf8_cut(command ? command : "", strlen(command ? command : ""),
							     ROZ_MAX_KEY_DISPLAY),
			    command ? command : "");
	if (!call)
		return ROZ_ENOMEM;
	kv_str(&p, "call", call);
	kv_str(&p, "denied", t->tool_name);
	kv_str(&p, "pattern", t->pattern_matched);
	kv_str(&p, "why", why);
	kv_end(&p);
	roz_free(call);
	rc = add_event(s, env, ROZ_EVENT_GATE_DETOUR, &p);
	roz_buf_dispose(&p);
	if (rc < 0)
		return rc;
	s->updated_at = env->now;
	res->save = true;
	return roz_hook_output_take(
		&res->output, ROZ_OUTPUT_ASK,
		roz_asprintf("roz: the gate `%s` denied `%s` and no review has approved it yet. This line "
			     "runs what roz cannot read (%s), so it could do the gated action another "
			     "way. Please look at it before it runs. (The agent gets past the gate by "
			     "having the roz:roz reviewer approve; SESSION_ID=%s.)",
			     t->pattern_matched ? t->pattern_matched : "?", t->tool_name ? t->tool_name : "?",
			     why, s->session_id));
}

static int on_pre_tool_use(const roz_hook_input *in, const roz_env *env, const roz_hook_plan *plan,
			   roz_session **session, roz_hook_result *res)
{
	const roz_gate_match *g = &plan->gate;
	roz_gate_store_verdict store;
	char store_why[512];
	roz_session *s;
	roz_review_state *r;
	roz_buf p = ROZ_BUF_INIT;
	bool stale_text;
	int rc;

	/* roz's own machinery is off limits to the agent, gates or no gates */
	if (g->roz_runs & ROZ_RUNS_HOOK)
		return roz_hook_output_set(&res->output, ROZ_OUTPUT_DENY,
					   "roz: `roz hook` is run by Claude Code itself; running it from a "
					   "tool call is refused.");
	if ((g->roz_runs & ROZ_RUNS_DECIDE) && !from_reviewer(in))
		return roz_hook_output_take(&res->output, ROZ_OUTPUT_DENY, self_approval_message(in));
	/* the reviewer's own call: leave for the one verdict it is about to record */
	if ((g->roz_runs & ROZ_RUNS_DECIDE) && !g->matched && *session && env->config->require_reviewer &&
	    (rc = issue_ticket(*session, in, env, res)) < 0)
		return rc;
	/* the agent has no route to the store: resolved against cwd, home and links */
	if ((rc = roz_gate_check_store(g, env->config, in->cwd, &env->paths, &store, store_why,
				       sizeof(store_why))) < 0)
		return rc;
	if (g->touches_store || store == ROZ_GATE_STORE_DENY)
		return roz_hook_output_take(
			&res->output, ROZ_OUTPUT_DENY,
			roz_asprintf("roz: the files under roz's storage are its record of the review; tools "
				     "may not write or delete them (%s).",
				     store_why[0] ? store_why : "the call writes there"));
	/*
	 * The reviewer checks gated actions, it does not take them. Refusing one
	 * must not start a new review either: that would clear the verdict it
	 * is about to record and reset the breaker's count, trapping the agent.
	 */
	if (is_reviewer(in) && g->matched)
		return roz_hook_output_take(
			&res->output, ROZ_OUTPUT_DENY,
			roz_asprintf("roz: the reviewer does not run gated actions (`%s` matched `%s`); it "
				     "reviews them. Record your verdict with roz decide instead.",
				     g->tool_key, g->pattern));
	if (plan->starts_reviewer)
		return reviewer_launch(in, env, session, res);
	if (!g->matched) {
		bool held = false;

		/* the config does not say what is gated: a call that could be is the user's to allow */
		if ((rc = roz_config_held(env->config, in->tool_name, in->tool_input, &held)) < 0)
			return rc;
		if (held)
			return roz_hook_output_take(&res->output, ROZ_OUTPUT_ASK,
						    roz_config_hold_message(env->config));
		if ((g->opaque || g->unsure) && *session && !is_reviewer(in) &&
		    roz_gate_detour_window(*session, env->config, env->now))
			return detour(*session, in, env, g, res);
		if (!g->unsure)
			return store_ask(res, store, store_why);
		return roz_hook_output_take(
			&res->output, ROZ_OUTPUT_ASK,
			roz_asprintf("roz: gates are configured and roz cannot tell which command this "
				     "line runs (%s), so it cannot check them. Please look at it "
				     "before it runs.",
				     g->unsure));
	}
	if ((rc = get_or_create(session, in, env)) < 0)
		return rc;
	s = *session;
	r = &s->review;
	res->save = true;
	/* a gate's approval covers the gated command, not a write that could reach the store */
	if (roz_breaker_cooling(s, env->config, env->now))
		return (rc = gate_allowed(s, env, g->tool_key, "circuit_breaker")) < 0 ? rc
										: store_ask(res, store, store_why);
	if (roz_gate_approved(s, env->config, env->now)) {
		bool stale = false;

		if ((rc = approval_stale(s, env, res, &stale)) < 0)
			return rc;
		if (!stale) {
			if (env->config->approval_scope == ROZ_SCOPE_TOOL)
				r->gate_approved_at.set = false;
			return (rc = gate_allowed(s, env, g->tool_key, "approved")) < 0
				       ? rc
				       : store_ask(res, store, store_why);
		}
	} else if (!r->work.n_stale) {
		/*
		 * a new review cycle; one whose approval went stale carries on, with its
		 * baseline, and so does the work of a task still under review (its
		 * baseline is where that work began)
		 */
		bool task_open = r->enabled && r->work.base_set && r->decision.kind != ROZ_DECISION_COMPLETE;

		r->decision_trusted = false;
		roz_session_decision_dispose(&r->decision);
		roz_breaker_start_cycle(s);
		if (!task_open && (rc = begin_work(s, env, res)) < 0)
			return rc;
	}
	r->enabled = true;
	r->review_started_at.set = true;
	r->review_started_at.t = env->now;
	if ((rc = roz_session_set_gate_trigger(s, g->tool_key, in->tool_input, g->pattern, env->now)) < 0)
		return rc;
	kv_str(&p, "pattern", g->pattern);
	kv_str(&p, "tool", g->tool_key);
	/* after a stale approval, until a newer verdict says otherwise, the files are what to review */
	stale_text = r->work.n_stale && r->decision.kind == ROZ_DECISION_PENDING;
	if (stale_text)
		kv_raw(&p, "stale", "true");
	kv_end(&p);
	rc = add_event(s, env, ROZ_EVENT_GATE_BLOCKED, &p);
	roz_buf_dispose(&p);
	if (rc < 0)
		return rc;
	s->updated_at = env->now;
	return roz_hook_output_take(&res->output, ROZ_OUTPUT_DENY,
				    stale_text ? stale_message(s, g) : gate_message(s, g));
}

/* ---- session-end ---------------------------------------------------------------------- */

static int on_session_end(const roz_hook_input *in, const roz_env *env, roz_session **session,
			  roz_hook_result *res)
{
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	if (!*session) {
		note(res, "warning", "session-end for session %s, which roz has no record of",
		     in->session_id);
		return ROZ_OK;
	}
	kv_str(&p, "cwd", in->cwd);
	kv_str(&p, "reason", in->reason ? in->reason : "unknown");
	kv_end(&p);
	rc = add_event(*session, env, ROZ_EVENT_SESSION_END, &p);
	roz_buf_dispose(&p);
	if (rc < 0)
		return rc;
	res->save = true;
	return ROZ_OK;
}

int roz_hook_trace(roz_session *s, const roz_env *env, roz_event_type type, const char *payload)
{
	char id[ROZ_UUID_SIZE];
	int rc;

	if ((rc = env->new_id(env->ud, id)) < 0)
		return rc;
	return roz_session_trace_add(s, type, id, env->now, payload);
}

int roz_hook_handle(roz_hook_event ev, const roz_hook_input *in, const roz_env *env,
		    const roz_hook_plan *plan, roz_session **session, roz_hook_result *res)
{
	switch (ev) {
	case ROZ_HOOK_SESSION_START: return on_session_start(in, env, session, res);
	case ROZ_HOOK_USER_PROMPT: return on_user_prompt(in, env, plan, session, res);
	case ROZ_HOOK_PRE_TOOL_USE: return on_pre_tool_use(in, env, plan, session, res);
	case ROZ_HOOK_STOP: return on_stop(in, env, session, res);
	case ROZ_HOOK_SUBAGENT_STOP: return on_subagent_stop(in, env, session, res);
	case ROZ_HOOK_SESSION_END: return on_session_end(in, env, session, res);
	case ROZ_HOOK_SUBAGENT_START: return on_subagent_start(in, env, session, res);
	case ROZ_HOOK_POST_TOOL_USE: return ROZ_OK; /* the review has nothing to learn from it */
	default:
		note(res, "warning", "unknown hook event; answering {}");
		return ROZ_OK;
	}
}
