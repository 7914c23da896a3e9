/*
 * decide.c - recording the reviewer's verdict: the `roz decide` command's
 * rules (tickets, overrides, contested verdicts) and what the verdict does to
 * the session. Pure functions of (session, env), like the hook handlers.
 */
#include "roz/decide.h"

#include <string.h>

#include "trace_event.h"

/* COMPLETE counts when a reviewer vouched for it, or when no reviewer is required. */
bool roz_decide_approves(const roz_session *s, const roz_config *config)
{
	return s->review.decision.kind == ROZ_DECISION_COMPLETE &&
	       (s->review.decision_trusted || !config->require_reviewer);
}

int roz_decide_attempt_succeeded(roz_session *s)
{
	roz_attempt *a;
	char *type;
	int rc = roz_session_pending_attempt(s, &a);

	if (rc < 0 || !a)
		return rc;
	type = roz_strdup(roz_session_decision_kind_name(s->review.decision.kind));
	if (!type)
		return ROZ_ENOMEM;
	roz_free(a->decision_type);
	a->decision_type = type;
	a->outcome = ROZ_OUTCOME_SUCCESS;
	a->blocks_needed = s->review.block_count;
	return ROZ_OK;
}

/* `ticket` is the reviewer ticket the verdict uses, or NULL. */
static int record_verdict(roz_session *s, roz_decision_kind kind, const char *summary,
			  const char *message, const char *opinions, bool override,
			  const roz_verdict_ticket *ticket, const roz_env *env)
{
	roz_decision d = {ROZ_DECISION_PENDING, NULL, NULL, NULL};
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	if (kind == ROZ_DECISION_PENDING) {
		roz_error_set("a verdict must be COMPLETE or ISSUES");
		return ROZ_EINVALID;
	}
	if ((rc = roz_session_decision_set(&d, kind, summary, opinions, message)) < 0)
		return rc;
	rc = roz_session_record_decision(s, &d, env->now);
	roz_session_decision_dispose(&d);
	if (rc < 0)
		return rc;
	if (ticket) {
		s->review.decision_agent_id = roz_strdup(ticket->agent_id);
		if (!s->review.decision_agent_id)
			return ROZ_ENOMEM;
	}
	s->review.decision_override = override;
	if (ticket)
		kv_str(&p, "agent_id", ticket->agent_id);
	kv_str(&p, "decision", kind == ROZ_DECISION_COMPLETE ? "COMPLETE" : "ISSUES");
	if (override)
		kv_raw(&p, "override", "true");
	if (opinions)
		kv_str(&p, "second_opinions", opinions);
	kv_str(&p, "summary", summary ? summary : "");
	if (ticket && ticket->tool_use_id)
		kv_str(&p, "tool_use_id", ticket->tool_use_id);
	kv_end(&p);
	rc = add_event(s, env, ROZ_EVENT_ROZ_DECISION, &p);
	roz_buf_dispose(&p);
	if (rc < 0)
		return rc;
	if (kind == ROZ_DECISION_COMPLETE) {
		s->review.gate_approved_at.set = true;
		s->review.gate_approved_at.t = env->now;
	}
	/* a person's override needs no reviewer; otherwise the reviewer's stop vouches */
	s->review.decision_trusted = override;
	if ((override || !env->config->require_reviewer) && (rc = roz_decide_attempt_succeeded(s)) < 0)
		return rc;
	s->updated_at = env->now;
	return ROZ_OK;
}

int roz_decide_apply(roz_session *s, roz_decision_kind kind, const char *summary,
		     const char *message, const char *opinions, bool override, const roz_env *env)
{
	return record_verdict(s, kind, summary, message, opinions, override, NULL, env);
}

/* Good from when the reviewer's call was seen until the TTL is over (a little skew allowed). */
static bool ticket_live(const roz_verdict_ticket *t, roz_time now)
{
	return !roz_time_after(t->issued_at, roz_time_add(now, ROZ_DECISION_SKEW_SECONDS)) &&
	       !roz_time_after(now, roz_time_add(t->issued_at, ROZ_TICKET_TTL_SECONDS));
}

/*
 * A used ticket presented again: two `roz decide` runs came from one
 * reviewer call, so one of them was not the reviewer's. roz cannot tell
 * which, so the verdict recorded with it loses the reviewer's voucher.
 */
static int contest(roz_session *s, const roz_verdict_ticket *used, const roz_env *env)
{
	roz_review_state *r = &s->review;
	roz_buf p = ROZ_BUF_INIT;
	int rc;

	if (r->decision_trusted || r->decision_contested || !r->decision_agent_id ||
	    strcmp(r->decision_agent_id, used->agent_id) != 0)
		return ROZ_OK;
	r->decision_contested = true;
	kv_str(&p, "agent_id", used->agent_id);
	kv_str(&p, "reason", "a second roz decide presented the ticket this verdict was recorded with");
	kv_str(&p, "summary", r->decision.summary);
	kv_end(&p);
	rc = add_event(s, env, ROZ_EVENT_DECISION_IGNORED, &p);
	roz_buf_dispose(&p);
	s->updated_at = env->now;
	return rc;
}

int roz_decide_record(roz_session *s, roz_decision_kind kind, const char *summary,
		      const char *message, const char *opinions, bool override, const roz_env *env,
		      bool *save)
{
	roz_review_state *r = &s->review;
	roz_verdict_ticket *ticket = NULL, *used = NULL, *stale = NULL;
	char when[ROZ_TIME_BUFSZ];
	int rc;

	*save = false;
	if (override || !env->config->require_reviewer) {
		rc = record_verdict(s, kind, summary, message, opinions, override, NULL, env);
		*save = rc == ROZ_OK;
		return rc;
	}
	for (size_t i = 0; i < r->n_tickets; i++) {
		roz_verdict_ticket *t = &r->tickets[i];

		if (!ticket_live(t, env->now))
			stale = t->used ? stale : t;
		else if (t->used)
			used = t;
		else if (!ticket)
			ticket = t; /* the oldest: calls are answered in the order they were made */
	}
	if (ticket) {
		/* used before anything else changes: a failure below saves nothing */
		ticket->used = true;
		rc = record_verdict(s, kind, summary, message, opinions, false, ticket, env);
		*save = rc == ROZ_OK;
		return rc;
	}
	if (used) {
		if ((rc = contest(s, used, env)) < 0)
			return rc;
		*save = r->decision_contested;
		roz_error_set("the roz:roz reviewer's call that allowed one verdict has already recorded "
			      "it; a second `roz decide` is refused, and the verdict recorded with it no "
			      "longer counts until the reviewer records its own again");
	} else if (stale) {
		roz_error_set("the roz:roz reviewer's call to `roz decide` was seen at %s; a verdict "
			      "must follow it within %d seconds. The reviewer should run roz decide "
			      "again",
			      roz_time_format_sec(stale->issued_at, when), ROZ_TICKET_TTL_SECONDS);
	} else {
		roz_error_set("no roz:roz reviewer asked to record a verdict for session %s. The "
			      "reviewer records verdicts from its own Bash tool; a person who has "
			      "reviewed the work records one from a terminal outside Claude Code "
			      "with: roz decide %s COMPLETE|ISSUES \"<summary>\" --override",
			      s->session_id, s->session_id);
	}
	return ROZ_EINVALID;
}
