/*
 * session.c - creating, freeing and growing a session: decisions, prompts,
 * attempts, the gate trigger and the trace, each within its cap.
 */
#include "roz/session.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "roz/digest.h"
#include "roz/json.h"
#include "roz/session_json.h"
#include "roz/utf8.h"
#include "roz/uuid.h"

static const char *const event_names[ROZ_EVENT__COUNT] = {
	"session_start",    "prompt_received", "gate_blocked",     "gate_allowed",
	"tool_completed",   "stop_hook_called", "roz_decision",    "trace_compacted",
	"session_end",      "reviewer_started", "reviewer_stopped", "session_recovered",
	"decision_ignored", "intent_selected", "governance_refused", "record_failed",
	"gate_detour",      "approval_stale",
};

const char *roz_session_event_type_name(roz_event_type type)
{
	return (unsigned)type < ROZ_EVENT__COUNT ? event_names[type] : "unknown";
}

int roz_session_event_type_from_name(const char *name, size_t len, roz_event_type *out)
{
	for (int i = 0; i < ROZ_EVENT__COUNT; i++) {
		if (strlen(event_names[i]) == len && memcmp(event_names[i], name, len) == 0) {
			*out = (roz_event_type)i;
			return ROZ_OK;
		}
	}
	return ROZ_ENOTFOUND;
}

bool roz_session_id_valid(const char *id)
{
	size_t n = 0;

	if (!id || !*id || *id == '.')
		return false;
	for (; id[n]; n++) {
		char c = id[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_'))
			return false;
		if (n >= ROZ_MAX_SESSION_ID)
			return false;
	}
	return true;
}

int roz_session_new(const char *session_id, roz_time now, roz_session **out)
{
	roz_session *s;

	*out = NULL;
	s = roz_calloc(1, sizeof(*s));
	if (!s)
		return ROZ_ENOMEM;
	s->session_id = roz_strdup(session_id);
	if (!s->session_id) {
		roz_free(s);
		return ROZ_ENOMEM;
	}
	s->created_at = now;
	s->updated_at = now;
	*out = s;
	return ROZ_OK;
}

/* ---- decisions ----------------------------------------------------------- */

const char *roz_session_decision_kind_name(roz_decision_kind kind)
{
	switch (kind) {
	case ROZ_DECISION_COMPLETE: return "complete";
	case ROZ_DECISION_ISSUES: return "issues";
	default: return "pending";
	}
}

void roz_session_decision_dispose(roz_decision *d)
{
	roz_free(d->summary);
	roz_free(d->second_opinions);
	roz_free(d->message_to_agent);
	memset(d, 0, sizeof(*d));
	d->kind = ROZ_DECISION_PENDING;
}

/*
 * Text the session file can hold and give back unchanged: valid UTF-8 (a C
 * string holds no NUL). Refused here, before anything is stored, because the
 * reader treats a file with such text as corrupt and the session would be lost.
 */
static int storable(const char *what, const char *s)
{
	if (s && !roz_utf8_valid(s, strlen(s))) {
		roz_error_set("%s is not valid UTF-8 text", what);
		return ROZ_EINVALID;
	}
	return ROZ_OK;
}

static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return ROZ_OK;
	*dst = roz_strdup(src);
	return *dst ? ROZ_OK : ROZ_ENOMEM;
}

int roz_session_decision_set(roz_decision *d, roz_decision_kind kind, const char *summary,
			     const char *second_opinions, const char *message_to_agent)
{
	roz_decision nd = {kind, NULL, NULL, NULL};
	int rc;

	/* every string given is checked, also one this kind does not keep: callers trace them */
	if ((rc = storable("the summary", summary)) < 0 ||
	    (rc = storable("the second-opinion text", second_opinions)) < 0 ||
	    (rc = storable("the message to the agent", message_to_agent)) < 0)
		return rc;
	if (kind != ROZ_DECISION_PENDING) {
		if (dup_opt(&nd.summary, summary ? summary : "") < 0 ||
		    (kind == ROZ_DECISION_COMPLETE && dup_opt(&nd.second_opinions, second_opinions) < 0) ||
		    (kind == ROZ_DECISION_ISSUES && dup_opt(&nd.message_to_agent, message_to_agent) < 0)) {
			roz_session_decision_dispose(&nd);
			return ROZ_ENOMEM;
		}
	}
	roz_session_decision_dispose(d);
	*d = nd;
	return ROZ_OK;
}

int roz_session_decision_copy(roz_decision *dst, const roz_decision *src)
{
	return roz_session_decision_set(dst, src->kind, src->summary, src->second_opinions,
					src->message_to_agent);
}

int roz_session_record_decision(roz_session *s, const roz_decision *d, roz_time now)
{
	roz_review_state *r = &s->review;
	roz_decision copy = {ROZ_DECISION_PENDING, NULL, NULL, NULL};
	roz_decision_record rec;
	int rc;

	if ((rc = roz_session_decision_copy(&copy, d)) < 0)
		return rc;
	if (r->raw_history) {
		/* a hook's state: the replaced decision joins the history as text */
		if ((rc = roz_session_json_history_push(s, &r->decision, now)) < 0) {
			roz_session_decision_dispose(&copy);
			return rc;
		}
		roz_session_decision_dispose(&r->decision);
		goto replace;
	}
	if (r->n_history >= ROZ_MAX_HISTORY) {
		/* drop the oldest record to stay within the cap */
		roz_session_decision_dispose(&r->history[0].decision);
		memmove(r->history, r->history + 1, (r->n_history - 1) * sizeof(*r->history));
		r->n_history--;
	}
	if ((rc = roz_alloc_array_reserve((void **)&r->history, &r->cap_history, sizeof(*r->history),
					  r->n_history + 1)) < 0) {
		roz_session_decision_dispose(&copy);
		return rc;
	}
	rec.decision = r->decision;
	rec.timestamp = now;
	r->history[r->n_history++] = rec;
replace:
	r->decision = copy;
	r->decision_trusted = false; /* until a reviewer's stop vouches for it */
	roz_free(r->decision_agent_id);
	r->decision_agent_id = NULL;
	r->decision_override = false;
	r->decision_contested = false;
	return ROZ_OK;
}

roz_opt_time roz_session_decided_at(const roz_session *s)
{
	roz_opt_time t = roz_session_json_history_last(s);

	if (t.set) {
		return t;
	} else if (s->review.decision.kind != ROZ_DECISION_PENDING) {
		/* files without history (older writers) only know the last write */
		t.set = true;
		t.t = s->updated_at;
	}
	return t;
}

/* ---- prompts ------------------------------------------------------------- */

char *roz_session_prompt_truncate(const char *prompt)
{
	size_t len = strlen(prompt), cut;

	if (len <= ROZ_MAX_PROMPT_BYTES)
		return roz_strdup(prompt);
	cut = roz_utf8_cut(prompt, len, ROZ_MAX_PROMPT_BYTES);
	return roz_asprintf("%.*s... [truncated, original %zu bytes]", (int)cut, prompt, len);
}

int roz_session_add_prompt(roz_session *s, const char *prompt)
{
	roz_review_state *r = &s->review;
	char *p;
	int rc;

	if ((rc = storable("the prompt", prompt)) < 0)
		return rc;
	if (!(p = roz_session_prompt_truncate(prompt)))
		return ROZ_ENOMEM;
	if (r->raw_prompts) {
		/* a hook's state: the prompt joins the list as text */
		rc = roz_session_json_prompt_push(s, p);
		roz_free(p);
		return rc;
	}
	if (r->n_prompts >= ROZ_MAX_PROMPTS) {
		roz_free(r->prompts[0]);
		memmove(r->prompts, r->prompts + 1, (r->n_prompts - 1) * sizeof(*r->prompts));
		r->n_prompts--;
	}
	if (roz_alloc_array_reserve((void **)&r->prompts, &r->cap_prompts, sizeof(*r->prompts),
				    r->n_prompts + 1) < 0) {
		roz_free(p);
		return ROZ_ENOMEM;
	}
	r->prompts[r->n_prompts++] = p;
	return ROZ_OK;
}

/* ---- attempts ------------------------------------------------------------ */

const char *roz_session_outcome_kind_name(roz_outcome_kind kind)
{
	switch (kind) {
	case ROZ_OUTCOME_SUCCESS: return "success";
	case ROZ_OUTCOME_NOT_SPAWNED: return "not_spawned";
	case ROZ_OUTCOME_NO_DECISION: return "no_decision";
	case ROZ_OUTCOME_BAD_SESSION_ID: return "bad_session_id";
	default: return "pending";
	}
}

static void attempt_dispose(roz_attempt *a)
{
	roz_free(a->template_id);
	roz_free(a->decision_type);
	memset(a, 0, sizeof(*a));
}

int roz_session_add_attempt(roz_session *s, const char *template_id, roz_time now)
{
	roz_review_state *r = &s->review;
	roz_attempt a;
	int rc;

	if ((rc = storable("the template id", template_id)) < 0)
		return rc;
	memset(&a, 0, sizeof(a));
	a.template_id = roz_strdup(template_id);
	if (!a.template_id)
		return ROZ_ENOMEM;
	a.timestamp = now;
	a.outcome = ROZ_OUTCOME_PENDING;
	if ((rc = roz_session_json_attempts_room(s)) < 0) {
		attempt_dispose(&a);
		return rc;
	}
	if (r->n_attempts >= ROZ_MAX_ATTEMPTS) {
		attempt_dispose(&r->attempts[0]);
		memmove(r->attempts, r->attempts + 1, (r->n_attempts - 1) * sizeof(*r->attempts));
		r->n_attempts--;
	}
	if (roz_alloc_array_reserve((void **)&r->attempts, &r->cap_attempts, sizeof(*r->attempts),
				    r->n_attempts + 1) < 0) {
		attempt_dispose(&a);
		return ROZ_ENOMEM;
	}
	r->attempts[r->n_attempts++] = a;
	return ROZ_OK;
}

int roz_session_pending_attempt(roz_session *s, roz_attempt **out)
{
	int rc = roz_session_json_attempts_pending(s);

	*out = NULL;
	if (rc < 0)
		return rc;
	for (size_t i = s->review.n_attempts; i-- > 0;) {
		if (s->review.attempts[i].outcome == ROZ_OUTCOME_PENDING) {
			*out = &s->review.attempts[i];
			break;
		}
	}
	return ROZ_OK;
}

int roz_session_newest_attempt(roz_session *s, roz_attempt **out)
{
	int rc = roz_session_json_attempts_newest(s);

	*out = rc == ROZ_OK && s->review.n_attempts ? &s->review.attempts[s->review.n_attempts - 1] : NULL;
	return rc;
}

/* ---- reviewer runs --------------------------------------------------------- */

static void run_dispose(roz_reviewer_run *run)
{
	roz_free(run->agent_id);
	memset(run, 0, sizeof(*run));
}

int roz_session_reviewer_start(roz_session *s, const char *agent_id, roz_time now)
{
	roz_review_state *r = &s->review;
	roz_reviewer_run run;
	int rc;

	if ((rc = storable("the reviewer's agent id", agent_id)) < 0)
		return rc;
	memset(&run, 0, sizeof(run));
	run.agent_id = roz_strdup(agent_id ? agent_id : "");
	if (!run.agent_id)
		return ROZ_ENOMEM;
	run.started_at = now;
	if (r->n_reviewers >= ROZ_MAX_REVIEWER_RUNS) {
		run_dispose(&r->reviewers[0]);
		memmove(r->reviewers, r->reviewers + 1, (r->n_reviewers - 1) * sizeof(*r->reviewers));
		r->n_reviewers--;
	}
	if (roz_alloc_array_reserve((void **)&r->reviewers, &r->cap_reviewers, sizeof(*r->reviewers),
				    r->n_reviewers + 1) < 0) {
		run_dispose(&run);
		return ROZ_ENOMEM;
	}
	r->reviewers[r->n_reviewers++] = run;
	r->reviewer_started_at.set = true;
	r->reviewer_started_at.t = now;
	return ROZ_OK;
}

roz_reviewer_run *roz_session_reviewer_find(roz_session *s, const char *agent_id)
{
	for (size_t i = s->review.n_reviewers; i-- > 0;)
		if (strcmp(s->review.reviewers[i].agent_id, agent_id ? agent_id : "") == 0)
			return &s->review.reviewers[i];
	return NULL;
}

void roz_session_reviewer_remove(roz_session *s, roz_reviewer_run *run)
{
	roz_review_state *r = &s->review;
	size_t i;

	if (!run)
		return;
	i = (size_t)(run - r->reviewers);
	run_dispose(run);
	memmove(r->reviewers + i, r->reviewers + i + 1, (r->n_reviewers - i - 1) * sizeof(*r->reviewers));
	r->n_reviewers--;
}

/* ---- verdict tickets ------------------------------------------------------- */

static void ticket_dispose(roz_verdict_ticket *t)
{
	roz_free(t->agent_id);
	roz_free(t->tool_use_id);
	memset(t, 0, sizeof(*t));
}

static void ticket_remove(roz_review_state *r, size_t i)
{
	ticket_dispose(&r->tickets[i]);
	memmove(r->tickets + i, r->tickets + i + 1, (r->n_tickets - i - 1) * sizeof(*r->tickets));
	r->n_tickets--;
}

int roz_session_ticket_add(roz_session *s, const char *agent_id, const char *tool_use_id, roz_time now)
{
	roz_review_state *r = &s->review;
	roz_verdict_ticket t;

	/* the reader treats text that is not UTF-8 as corruption: refuse it before storing */
	if ((agent_id && !roz_utf8_valid(agent_id, strlen(agent_id))) ||
	    (tool_use_id && !roz_utf8_valid(tool_use_id, strlen(tool_use_id)))) {
		roz_error_set("a verdict ticket's agent id or tool use id is not valid UTF-8 text");
		return ROZ_EINVALID;
	}
	memset(&t, 0, sizeof(t));
	t.agent_id = roz_strdup(agent_id ? agent_id : "");
	t.tool_use_id = tool_use_id ? roz_strdup(tool_use_id) : NULL;
	t.issued_at = now;
	if (!t.agent_id || (tool_use_id && !t.tool_use_id) ||
	    roz_alloc_array_reserve((void **)&r->tickets, &r->cap_tickets, sizeof(*r->tickets),
				    r->n_tickets + 1) < 0) {
		ticket_dispose(&t);
		return ROZ_ENOMEM;
	}
	if (r->n_tickets >= ROZ_MAX_TICKETS)
		ticket_remove(r, 0);
	r->tickets[r->n_tickets++] = t;
	return ROZ_OK;
}

void roz_session_tickets_prune(roz_session *s, roz_time now, uint64_t ttl_seconds)
{
	roz_review_state *r = &s->review;

	for (size_t i = r->n_tickets; i-- > 0;)
		if (roz_time_before(roz_time_add(r->tickets[i].issued_at, ttl_seconds), now))
			ticket_remove(r, i);
}

/* ---- gate trigger --------------------------------------------------------- */

void roz_session_truncated_input_dispose(roz_truncated_input *t)
{
	cJSON_Delete(t->value);
	roz_free(t->original_hash);
	memset(t, 0, sizeof(*t));
}

/* A string node holding s[0..len) with every malformed byte replaced by U+FFFD. */
static cJSON *repaired_string(const char *s, size_t len)
{
	roz_buf b = ROZ_BUF_INIT;
	cJSON *out;

	roz_utf8_add_repaired(&b, s, len);
	out = roz_buf_failed(&b) ? NULL : cJSON_CreateString(roz_buf_cstr(&b));
	roz_buf_dispose(&b);
	return out;
}

/* A number node's text, as the tree parser keeps it, must be a JSON number to be written raw. */
static bool raw_is_number(const char *raw)
{
	return raw && (*raw == '-' || (*raw >= '0' && *raw <= '9')) && roz_json_valid(raw, strlen(raw));
}

/*
 * A copy of a tool input that the session file can hold and give back:
 * strings and keys repaired to UTF-8, raw text that is not a number kept as
 * a string, numbers JSON cannot write as null, and containers below
 * ROZ_MAX_TOOL_INPUT_DEPTH replaced by a note. `level` is v's own depth
 * (1 for the input); *changed is set when the copy differs from v. The
 * recursion is bounded by the depth limit, not by the input.
 */
static cJSON *storable_copy(const cJSON *v, int level, bool *changed)
{
	const cJSON *child;
	cJSON *out, *item;

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		if (level > ROZ_MAX_TOOL_INPUT_DEPTH) {
			*changed = true;
			return cJSON_CreateString("[roz: nested too deep to keep, left out]");
		}
		out = cJSON_IsObject(v) ? cJSON_CreateObject() : cJSON_CreateArray();
		cJSON_ArrayForEach(child, v) {
			bool add_ok;

			item = storable_copy(child, level + 1, changed);
			if (!out || !item) {
				cJSON_Delete(item);
				cJSON_Delete(out);
				return NULL;
			}
			if (!cJSON_IsObject(v)) {
				add_ok = cJSON_AddItemToArray(out, item);
			} else if (roz_utf8_valid(child->string, strlen(child->string))) {
				add_ok = cJSON_AddItemToObject(out, child->string, item);
			} else {
				roz_buf key = ROZ_BUF_INIT;

				*changed = true;
				roz_utf8_add_repaired(&key, child->string, strlen(child->string));
				add_ok = !roz_buf_failed(&key) &&
					 cJSON_AddItemToObject(out, roz_buf_cstr(&key), item);
				roz_buf_dispose(&key);
			}
			if (!add_ok) {
				cJSON_Delete(item);
				cJSON_Delete(out);
				return NULL;
			}
		}
		return out;
	}
	if (cJSON_IsString(v)) {
		size_t len = strlen(v->valuestring);

		if (roz_utf8_valid(v->valuestring, len))
			return cJSON_CreateString(v->valuestring);
		*changed = true;
		return repaired_string(v->valuestring, len);
	}
	if (cJSON_IsRaw(v)) {
		if (raw_is_number(v->valuestring))
			return cJSON_CreateRaw(v->valuestring);
		*changed = true;
		return repaired_string(v->valuestring ? v->valuestring : "",
				       v->valuestring ? strlen(v->valuestring) : 0);
	}
	if (cJSON_IsNumber(v)) {
		if (isfinite(v->valuedouble))
			return cJSON_CreateNumber(v->valuedouble);
		*changed = true;
		return cJSON_CreateNull();
	}
	if (cJSON_IsBool(v))
		return cJSON_CreateBool(cJSON_IsTrue(v));
	if (!cJSON_IsNull(v))
		*changed = true; /* a node type JSON has no text for */
	return cJSON_CreateNull();
}

/*
 * Shrink a value to roughly `budget` bytes while keeping its shape: long
 * strings keep their first 200 bytes (or fewer) and a note of their size,
 * arrays keep ten items and a count of the rest, objects share the budget
 * among their keys, arrays among the items they keep.
 */
static cJSON *shrink(const cJSON *v, size_t budget)
{
	cJSON *out, *item;
	const cJSON *child;
	size_t n = 0;

	if (cJSON_IsString(v)) {
		size_t len = strlen(v->valuestring), cut;
		char *s;

		if (len <= budget)
			return cJSON_CreateString(v->valuestring);
		cut = roz_utf8_cut(v->valuestring, len, budget < 200 ? budget : 200);
		s = roz_asprintf("%.*s... [truncated, %zu bytes total]", (int)cut, v->valuestring, len);
		if (!s)
			return NULL;
		out = cJSON_CreateString(s);
		roz_free(s);
		return out;
	}
	if (cJSON_IsObject(v)) {
		out = cJSON_CreateObject();
		cJSON_ArrayForEach(child, v) n++;
		cJSON_ArrayForEach(child, v) {
			item = shrink(child, budget / (n ? n : 1));
			if (!out || !item || !cJSON_AddItemToObject(out, child->string, item)) {
				cJSON_Delete(item);
				cJSON_Delete(out);
				return NULL;
			}
		}
		return out;
	}
	if (cJSON_IsArray(v)) {
		int total = cJSON_GetArraySize(v), i = 0;
		size_t keep = total > 10 ? 10 : (size_t)total;
		char *more;

		out = cJSON_CreateArray();
		cJSON_ArrayForEach(child, v) {
			if (i++ == 10)
				break;
			item = shrink(child, budget / keep);
			if (!out || !item || !cJSON_AddItemToArray(out, item)) {
				cJSON_Delete(item);
				cJSON_Delete(out);
				return NULL;
			}
		}
		if (total <= 10)
			return out;
		more = roz_asprintf("... [%d more items]", total - 10);
		item = more ? cJSON_CreateString(more) : NULL;
		roz_free(more);
		if (!out || !item || !cJSON_AddItemToArray(out, item)) {
			cJSON_Delete(item);
			cJSON_Delete(out);
			return NULL;
		}
		return out;
	}
	return cJSON_Duplicate(v, true);
}

/* The canonical JSON text of v (caller frees), or NULL when memory ran out. */
static char *canonical_text(const cJSON *v, size_t *len)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_json_add_canonical(&b, v);
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, len);
}

/*
 * The last resort for an input whose shortened shape is still too big (a
 * thousand keys, one huge key): the start of its JSON text, as a string.
 */
static cJSON *as_text_prefix(const cJSON *v, size_t original_size)
{
	size_t len, cut;
	char *text = canonical_text(v, &len), *s;
	cJSON *out;

	if (!text)
		return NULL;
	/* room for escaping every byte of the cut twice over, and the note */
	cut = roz_utf8_cut(text, len, ROZ_MAX_TOOL_INPUT_STORED / 2 - 64);
	s = roz_asprintf("%.*s... [truncated, %zu bytes total]", (int)cut, text, original_size);
	roz_free(text);
	if (!s)
		return NULL;
	out = cJSON_CreateString(s);
	roz_free(s);
	return out;
}

int roz_session_truncated_input_make(const cJSON *input, roz_truncated_input *out)
{
	char *text;
	size_t len, stored_len;
	char hash[ROZ_SHA256_HEX_SIZE];
	bool changed = false;
	cJSON *value, *smaller;

	memset(out, 0, sizeof(*out));
	if (!input) {
		out->value = cJSON_CreateNull();
		return out->value ? ROZ_OK : ROZ_ENOMEM;
	}
	/* size and hash are of the canonical text: keys sorted, numbers as written */
	if (!(text = canonical_text(input, &len)))
		return ROZ_ENOMEM;
	if (!(value = storable_copy(input, 1, &changed))) {
		roz_free(text);
		return ROZ_ENOMEM;
	}
	if (len <= ROZ_MAX_TOOL_INPUT_BYTES && !changed) {
		roz_free(text);
		out->value = value;
		return ROZ_OK;
	}
	roz_digest_sha256_hex(text, len, hash);
	roz_free(text);
	if (len > ROZ_MAX_TOOL_INPUT_BYTES) {
		smaller = shrink(value, ROZ_MAX_TOOL_INPUT_BYTES);
		cJSON_Delete(value);
		if (!(value = smaller))
			return ROZ_ENOMEM;
	}
	/* the shape kept may still be large: bound what is stored, whatever the input */
	if (!(text = canonical_text(value, &stored_len))) {
		cJSON_Delete(value);
		return ROZ_ENOMEM;
	}
	roz_free(text);
	if (stored_len > ROZ_MAX_TOOL_INPUT_STORED) {
		smaller = as_text_prefix(value, len);
		cJSON_Delete(value);
		if (!(value = smaller))
			return ROZ_ENOMEM;
	}
	out->value = value;
	out->original_hash = roz_strdup(hash);
	if (!out->original_hash) {
		roz_session_truncated_input_dispose(out);
		return ROZ_ENOMEM;
	}
	out->truncated = true;
	out->has_original_size = true;
	out->original_size = len;
	return ROZ_OK;
}

void roz_session_gate_trigger_free(roz_gate_trigger *g)
{
	if (!g)
		return;
	roz_free(g->tool_name);
	roz_free(g->pattern_matched);
	roz_session_truncated_input_dispose(&g->tool_input);
	roz_free(g);
}

int roz_session_set_gate_trigger(roz_session *s, const char *tool_key, const cJSON *input,
				 const char *pattern, roz_time now)
{
	roz_gate_trigger *g;
	int rc;

	if ((rc = storable("the gated tool key", tool_key)) < 0 ||
	    (rc = storable("the gate pattern", pattern)) < 0)
		return rc;
	if (!(g = roz_calloc(1, sizeof(*g))))
		return ROZ_ENOMEM;
	g->tool_name = roz_strdup(tool_key);
	g->pattern_matched = roz_strdup(pattern);
	g->triggered_at = now;
	if (!g->tool_name || !g->pattern_matched ||
	    roz_session_truncated_input_make(input, &g->tool_input) < 0) {
		roz_session_gate_trigger_free(g);
		return ROZ_ENOMEM;
	}
	roz_session_gate_trigger_free(s->review.gate_trigger);
	s->review.gate_trigger = g;
	return ROZ_OK;
}

/* ---- trace ---------------------------------------------------------------- */

int roz_session_trace_push_raw(roz_session *s, char *json, size_t len)
{
	if (roz_alloc_array_reserve((void **)&s->trace, &s->cap_trace, sizeof(*s->trace), s->n_trace + 1) < 0)
		return ROZ_ENOMEM;
	s->trace[s->n_trace].json = json;
	s->trace[s->n_trace].len = len;
	s->n_trace++;
	return ROZ_OK;
}

static char *event_json(roz_event_type type, const char *id, roz_time now, const char *payload,
			size_t *len)
{
	roz_buf b = ROZ_BUF_INIT;
	char ts[ROZ_TIME_BUFSZ];

	roz_buf_adds(&b, "{\"id\":");
	roz_json_add_string(&b, id);
	roz_buf_addf(&b, ",\"timestamp\":\"%s\",\"event_type\":\"%s\",\"payload\":%s}",
		     roz_time_format(now, ts), roz_session_event_type_name(type), payload ? payload : "{}");
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, len);
}

int roz_session_trace_add(roz_session *s, roz_event_type type, const char *id, roz_time now,
			  const char *payload_json)
{
	size_t len;
	char *json = event_json(type, id, now, payload_json, &len);

	if (!json)
		return ROZ_ENOMEM;
	/* the loader would skip it: refuse the event, keep the session */
	if (!roz_json_valid(json, len)) {
		roz_free(json);
		roz_error_set("%s event is not valid JSON; not recorded", roz_session_event_type_name(type));
		return ROZ_EINVALID;
	}
	if (memchr(json, '\n', len) || memchr(json, '\r', len)) {
		/* the store keeps an event on one line */
		roz_buf b = ROZ_BUF_INIT;
		char *flat;

		roz_json_add_compact(&b, json, len);
		roz_free(json);
		if (roz_buf_failed(&b) || !(flat = roz_buf_detach(&b, &len))) {
			roz_buf_dispose(&b);
			return ROZ_ENOMEM;
		}
		json = flat;
	}
	if (roz_session_trace_push_raw(s, json, len) < 0) {
		roz_free(json);
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

/*
 * How many events an event stands for: a marker the `dropped_events` it
 * counts (the texts are ours or the Rust roz's, so the type is looked for
 * before anything is parsed), anything else itself.
 */
static size_t stands_for(const roz_trace_entry *e)
{
	static const char type[] = "trace_compacted";
	roz_trace_event ev;
	const cJSON *d;
	uint64_t count;
	size_t n = 1;

	if (!memmem(e->json, e->len, type, sizeof(type) - 1) ||
	    roz_session_trace_event_parse(e, &ev) < 0)
		return 1;
	d = cJSON_GetObjectItemCaseSensitive(ev.payload, "dropped_events");
	if (strcmp(ev.event_type, type) == 0 && roz_json_uint(d, SIZE_MAX / 2, &count) && count >= 1)
		n = (size_t)count;
	roz_session_trace_event_dispose(&ev);
	return n;
}

/* The marker for `dropped` events: the newest event's time, an id made from that event. */
static char *marker_json(const roz_trace_entry *newest, size_t dropped, size_t keep_start, size_t keep_end,
			 size_t *len)
{
	unsigned char md[ROZ_SHA256_SIZE];
	char id[ROZ_UUID_SIZE], payload[160];
	roz_trace_event ev;
	roz_time at = {0, 0};

	if (roz_session_trace_event_parse(newest, &ev) == ROZ_OK) {
		if (ev.has_timestamp)
			at = ev.timestamp;
		roz_session_trace_event_dispose(&ev);
	}
	roz_digest_sha256_bytes(newest->json, newest->len, md); /* its first 16 bytes name the marker */
	roz_uuid_format(md, id);
	snprintf(payload, sizeof(payload), "{\"dropped_events\":%zu,\"kept_end\":%zu,\"kept_start\":%zu}",
		 dropped, keep_end, keep_start);
	return event_json(ROZ_EVENT_TRACE_COMPACTED, id, at, payload, len);
}

int roz_session_trace_compact(roz_trace_entry *ev, size_t *n, size_t max_events)
{
	size_t keep_start, keep_end, drop, dropped = 0, len;
	char *marker;

	if (*n <= max_events)
		return ROZ_OK;
	if (max_events == 0) {
		for (size_t i = 0; i < *n; i++)
			roz_free(ev[i].json);
		*n = 0;
		return ROZ_OK;
	}
	/* keep the opening events for context, then a marker, then the newest */
	keep_start = max_events / 2 < 10 ? max_events / 2 : 10;
	keep_end = max_events - keep_start - 1;
	drop = *n - keep_start - keep_end;
	for (size_t i = keep_start; i < keep_start + drop; i++)
		dropped += stands_for(&ev[i]);
	marker = marker_json(&ev[*n - 1], dropped, keep_start, keep_end, &len);
	if (!marker)
		return ROZ_ENOMEM;
	for (size_t i = keep_start; i < keep_start + drop; i++)
		roz_free(ev[i].json);
	ev[keep_start].json = marker;
	ev[keep_start].len = len;
	memmove(ev + keep_start + 1, ev + keep_start + drop, keep_end * sizeof(*ev));
	*n = max_events;
	return ROZ_OK;
}

void roz_session_trace_event_dispose(roz_trace_event *ev)
{
	roz_free(ev->id);
	roz_free(ev->event_type);
	cJSON_Delete(ev->payload);
	memset(ev, 0, sizeof(*ev));
}

int roz_session_trace_event_parse(const roz_trace_entry *e, roz_trace_event *out)
{
	cJSON *root = NULL, *item;

	memset(out, 0, sizeof(*out));
	if (roz_json_parse(e->json, e->len, &root) < 0)
		root = NULL;
	if (!root || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		roz_error_set("trace event is not a JSON object");
		return ROZ_ECORRUPT;
	}
	item = cJSON_GetObjectItemCaseSensitive(root, "id");
	out->id = roz_strdup(cJSON_IsString(item) ? item->valuestring : "");
	item = cJSON_GetObjectItemCaseSensitive(root, "event_type");
	out->event_type = roz_strdup(cJSON_IsString(item) ? item->valuestring : "unknown");
	item = cJSON_GetObjectItemCaseSensitive(root, "timestamp");
	if (cJSON_IsString(item) && roz_time_parse(item->valuestring, &out->timestamp) == ROZ_OK)
		out->has_timestamp = true;
	out->payload = cJSON_DetachItemFromObjectCaseSensitive(root, "payload");
	cJSON_Delete(root);
	if (!out->id || !out->event_type) {
		roz_session_trace_event_dispose(out);
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

void roz_review_work_forget_stale(roz_review_work *w)
{
	for (size_t i = 0; i < w->n_stale; i++)
		roz_free(w->stale[i]);
	roz_free(w->stale);
	w->stale = NULL;
	w->n_stale = 0;
}

void roz_review_work_forget_approval(roz_review_work *w)
{
	roz_free(w->approved_tree);
	w->approved_tree = NULL;
	roz_fingerprint_dispose(&w->approved);
	w->approved_set = false;
}

void roz_review_work_dispose(roz_review_work *w)
{
	roz_review_work_forget_stale(w);
	roz_review_work_forget_approval(w);
	roz_free(w->root);
	roz_free(w->base_tree);
	memset(w, 0, sizeof *w);
}

void roz_session_free(roz_session *s)
{
	roz_review_state *r;

	if (!s)
		return;
	r = &s->review;
	roz_free(s->session_id);
	roz_session_gov_dispose(&s->gov);
	roz_session_decision_dispose(&r->decision);
	for (size_t i = 0; i < r->n_history; i++)
		roz_session_decision_dispose(&r->history[i].decision);
	roz_free(r->history);
	for (size_t i = 0; i < r->n_prompts; i++)
		roz_free(r->prompts[i]);
	roz_free(r->prompts);
	roz_session_gate_trigger_free(r->gate_trigger);
	for (size_t i = 0; i < r->n_attempts; i++)
		attempt_dispose(&r->attempts[i]);
	roz_free(r->attempts);
	for (size_t i = 0; i < r->n_reviewers; i++)
		run_dispose(&r->reviewers[i]);
	roz_free(r->reviewers);
	for (size_t i = 0; i < r->n_tickets; i++)
		ticket_dispose(&r->tickets[i]);
	roz_free(r->tickets);
	roz_free(r->decision_agent_id);
	roz_free(r->raw_history);
	roz_free(r->raw_prompts);
	roz_free(r->raw_attempts);
	roz_review_work_dispose(&r->work);
	for (size_t i = 0; i < s->n_trace; i++)
		roz_free(s->trace[i].json);
	roz_free(s->trace);
	roz_free(s);
}
