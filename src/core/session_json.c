/*
 * session_json.c - a session to and from the JSON text stored on disk, in
 * the Rust roz's field names and shapes. The review part is small and goes
 * through cJSON; the trace is checked by the scanner and kept as text.
 */
#include "roz/session_json.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <string.h>

#include "roz/json.h"

/* ---- reading ---------------------------------------------------------------- */

static int corrupt(const char *field, const char *what)
{
	roz_error_set("field '%s' %s", field, what);
	return ROZ_ECORRUPT;
}

static bool is_absent(const cJSON *v)
{
	return !v || cJSON_IsNull(v);
}

static int get_bool(const cJSON *obj, const char *name, bool *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	if (is_absent(v))
		return ROZ_OK;
	if (!cJSON_IsBool(v))
		return corrupt(name, "is not true or false");
	*out = cJSON_IsTrue(v);
	return ROZ_OK;
}

static int get_u64(const cJSON *obj, const char *name, uint64_t max, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	if (is_absent(v))
		return ROZ_OK;
	if (!roz_json_uint(v, max, out))
		return corrupt(name, "is not a non-negative integer");
	return ROZ_OK;
}

/* A string field; *out stays NULL when absent or null. */
static int get_str(const cJSON *obj, const char *name, bool required, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	*out = NULL;
	if (is_absent(v))
		return required ? corrupt(name, "is missing") : ROZ_OK;
	if (!cJSON_IsString(v))
		return corrupt(name, "is not a string");
	*out = roz_strdup(v->valuestring);
	return *out ? ROZ_OK : ROZ_ENOMEM;
}

static int time_value(const cJSON *v, const char *name, roz_time *out)
{
	if (!cJSON_IsString(v) || roz_time_parse(v->valuestring, out) < 0)
		return corrupt(name, "is not an RFC 3339 timestamp");
	return ROZ_OK;
}

static int get_time(const cJSON *obj, const char *name, roz_time *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	if (is_absent(v))
		return corrupt(name, "is missing");
	return time_value(v, name, out);
}

static int get_opt_time(const cJSON *obj, const char *name, roz_opt_time *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	out->set = false;
	if (is_absent(v))
		return ROZ_OK;
	out->set = true;
	return time_value(v, name, &out->t);
}

static int read_decision(const cJSON *v, roz_decision *d)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(v, "type");
	int rc;

	roz_session_decision_dispose(d);
	if (!cJSON_IsObject(v) || !cJSON_IsString(type))
		return corrupt("decision", "is not a tagged decision object");
	if (strcmp(type->valuestring, "pending") == 0)
		return ROZ_OK;
	if (strcmp(type->valuestring, "complete") == 0) {
		d->kind = ROZ_DECISION_COMPLETE;
		if ((rc = get_str(v, "summary", true, &d->summary)) < 0 ||
		    (rc = get_str(v, "second_opinions", false, &d->second_opinions)) < 0)
			return rc;
		return ROZ_OK;
	}
	if (strcmp(type->valuestring, "issues") == 0) {
		d->kind = ROZ_DECISION_ISSUES;
		if ((rc = get_str(v, "summary", true, &d->summary)) < 0 ||
		    (rc = get_str(v, "message_to_agent", false, &d->message_to_agent)) < 0)
			return rc;
		return ROZ_OK;
	}
	return corrupt("decision.type", "is not pending, complete or issues");
}

/* The array under `name` (NULL when absent), or an error if it is not one. */
static int get_array(const cJSON *obj, const char *name, const cJSON **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	*out = NULL;
	if (is_absent(v))
		return ROZ_OK;
	if (!cJSON_IsArray(v))
		return corrupt(name, "is not an array");
	*out = v;
	return ROZ_OK;
}

/* Index of the first element kept when only the newest `cap` are. */
static int first_kept(const cJSON *arr, size_t cap)
{
	int n = cJSON_GetArraySize(arr);

	return (size_t)n > cap ? n - (int)cap : 0;
}

static int read_history(const cJSON *review, roz_review_state *r)
{
	const cJSON *arr, *item;
	int rc, i = 0, skip;

	if ((rc = get_array(review, "decision_history", &arr)) < 0 || !arr)
		return rc;
	skip = first_kept(arr, ROZ_MAX_HISTORY);
	cJSON_ArrayForEach(item, arr) {
		roz_decision_record rec;

		if (i++ < skip)
			continue;
		memset(&rec, 0, sizeof(rec));
		if (!cJSON_IsObject(item))
			return corrupt("decision_history", "holds a non-object");
		if ((rc = get_time(item, "timestamp", &rec.timestamp)) < 0)
			return rc;
		if ((rc = roz_alloc_array_reserve((void **)&r->history, &r->cap_history, sizeof(*r->history),
						  r->n_history + 1)) < 0)
			return rc;
		rc = read_decision(cJSON_GetObjectItemCaseSensitive(item, "decision"), &rec.decision);
		r->history[r->n_history++] = rec; /* stored even on error so it is freed */
		if (rc < 0)
			return rc;
	}
	return ROZ_OK;
}

static int read_prompts(const cJSON *review, roz_review_state *r)
{
	const cJSON *arr, *item;
	int rc, i = 0, skip;

	if ((rc = get_array(review, "user_prompts", &arr)) < 0 || !arr)
		return rc;
	skip = first_kept(arr, ROZ_MAX_PROMPTS);
	cJSON_ArrayForEach(item, arr) {
		char *p;

		if (i++ < skip)
			continue;
		if (!cJSON_IsString(item))
			return corrupt("user_prompts", "holds a non-string");
		if ((rc = roz_alloc_array_reserve((void **)&r->prompts, &r->cap_prompts, sizeof(*r->prompts),
						  r->n_prompts + 1)) < 0)
			return rc;
		p = roz_strdup(item->valuestring);
		if (!p)
			return ROZ_ENOMEM;
		r->prompts[r->n_prompts++] = p;
	}
	return ROZ_OK;
}

static int read_gate_trigger(const cJSON *review, roz_review_state *r)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(review, "gate_trigger"), *ti, *value;
	roz_gate_trigger *g;
	uint64_t size = 0;
	int rc;

	if (is_absent(v))
		return ROZ_OK;
	if (!cJSON_IsObject(v))
		return corrupt("gate_trigger", "is not an object");
	g = roz_calloc(1, sizeof(*g));
	if (!g)
		return ROZ_ENOMEM;
	r->gate_trigger = g;
	if ((rc = get_str(v, "tool_name", true, &g->tool_name)) < 0 ||
	    (rc = get_str(v, "pattern_matched", true, &g->pattern_matched)) < 0 ||
	    (rc = get_time(v, "triggered_at", &g->triggered_at)) < 0)
		return rc;
	ti = cJSON_GetObjectItemCaseSensitive(v, "tool_input");
	if (!cJSON_IsObject(ti))
		return corrupt("gate_trigger.tool_input", "is not an object");
	value = cJSON_GetObjectItemCaseSensitive(ti, "value");
	g->tool_input.value = value ? cJSON_Duplicate(value, true) : cJSON_CreateNull();
	if (!g->tool_input.value)
		return ROZ_ENOMEM;
	if ((rc = get_bool(ti, "truncated", &g->tool_input.truncated)) < 0 ||
	    (rc = get_str(ti, "original_hash", false, &g->tool_input.original_hash)) < 0)
		return rc;
	if (!is_absent(cJSON_GetObjectItemCaseSensitive(ti, "original_size"))) {
		if ((rc = get_u64(ti, "original_size", UINT64_MAX, &size)) < 0)
			return rc;
		g->tool_input.has_original_size = true;
		g->tool_input.original_size = size;
	}
	return ROZ_OK;
}

static int read_outcome(const cJSON *v, roz_attempt *a)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(v, "type");
	static const roz_outcome_kind kinds[] = {ROZ_OUTCOME_PENDING, ROZ_OUTCOME_SUCCESS,
						 ROZ_OUTCOME_NOT_SPAWNED, ROZ_OUTCOME_NO_DECISION,
						 ROZ_OUTCOME_BAD_SESSION_ID};
	uint64_t blocks = 0;
	int rc;

	if (!cJSON_IsObject(v) || !cJSON_IsString(type))
		return corrupt("attempts.outcome", "is not a tagged outcome object");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(type->valuestring, roz_session_outcome_kind_name(kinds[i])) != 0)
			continue;
		a->outcome = kinds[i];
		if (kinds[i] != ROZ_OUTCOME_SUCCESS)
			return ROZ_OK;
		if ((rc = get_str(v, "decision_type", true, &a->decision_type)) < 0 ||
		    (rc = get_u64(v, "blocks_needed", UINT32_MAX, &blocks)) < 0)
			return rc;
		a->blocks_needed = (uint32_t)blocks;
		return ROZ_OK;
	}
	return corrupt("attempts.outcome.type", "is not a known outcome");
}

static int read_attempts(const cJSON *review, roz_review_state *r)
{
	const cJSON *arr, *item;
	int rc, i = 0, skip;

	if ((rc = get_array(review, "attempts", &arr)) < 0 || !arr)
		return rc;
	skip = first_kept(arr, ROZ_MAX_ATTEMPTS);
	cJSON_ArrayForEach(item, arr) {
		roz_attempt *a;

		if (i++ < skip)
			continue;
		if (!cJSON_IsObject(item))
			return corrupt("attempts", "holds a non-object");
		if ((rc = roz_alloc_array_reserve((void **)&r->attempts, &r->cap_attempts,
						  sizeof(*r->attempts), r->n_attempts + 1)) < 0)
			return rc;
		a = &r->attempts[r->n_attempts++];
		memset(a, 0, sizeof(*a));
		if ((rc = get_str(item, "template_id", true, &a->template_id)) < 0 ||
		    (rc = get_time(item, "timestamp", &a->timestamp)) < 0 ||
		    (rc = read_outcome(cJSON_GetObjectItemCaseSensitive(item, "outcome"), a)) < 0)
			return rc;
	}
	return ROZ_OK;
}

static int read_reviewers(const cJSON *review, roz_review_state *r)
{
	const cJSON *arr, *item;
	uint64_t blocks = 0;
	int rc, i = 0, skip;

	if ((rc = get_array(review, "reviewers", &arr)) < 0 || !arr)
		return rc;
	skip = first_kept(arr, ROZ_MAX_REVIEWER_RUNS);
	cJSON_ArrayForEach(item, arr) {
		roz_reviewer_run *run;

		if (i++ < skip)
			continue;
		if (!cJSON_IsObject(item))
			return corrupt("reviewers", "holds a non-object");
		if ((rc = roz_alloc_array_reserve((void **)&r->reviewers, &r->cap_reviewers,
						  sizeof(*r->reviewers), r->n_reviewers + 1)) < 0)
			return rc;
		run = &r->reviewers[r->n_reviewers++];
		memset(run, 0, sizeof(*run));
		if ((rc = get_str(item, "agent_id", true, &run->agent_id)) < 0 ||
		    (rc = get_time(item, "started_at", &run->started_at)) < 0 ||
		    (rc = get_u64(item, "stop_blocks", UINT32_MAX, &blocks)) < 0)
			return rc;
		run->stop_blocks = (uint32_t)blocks;
	}
	return ROZ_OK;
}

static int read_tickets(const cJSON *review, roz_review_state *r)
{
	const cJSON *arr, *item;
	int rc, i = 0, skip;

	if ((rc = get_array(review, "verdict_tickets", &arr)) < 0 || !arr)
		return rc;
	skip = first_kept(arr, ROZ_MAX_TICKETS);
	cJSON_ArrayForEach(item, arr) {
		roz_verdict_ticket *t;

		if (i++ < skip)
			continue;
		if (!cJSON_IsObject(item))
			return corrupt("verdict_tickets", "holds a non-object");
		if ((rc = roz_alloc_array_reserve((void **)&r->tickets, &r->cap_tickets, sizeof(*r->tickets),
						  r->n_tickets + 1)) < 0)
			return rc;
		t = &r->tickets[r->n_tickets++];
		memset(t, 0, sizeof(*t));
		if ((rc = get_str(item, "agent_id", true, &t->agent_id)) < 0 ||
		    (rc = get_str(item, "tool_use_id", false, &t->tool_use_id)) < 0 ||
		    (rc = get_time(item, "issued_at", &t->issued_at)) < 0 ||
		    (rc = get_bool(item, "used", &t->used)) < 0)
			return rc;
	}
	return ROZ_OK;
}

/* review.work (roz_review_work): what the approval saw; absent in files older than it. */
static int read_work(const cJSON *review, roz_review_work *w)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(review, "work"), *a, *it;
	uint64_t touched = 0, round = 0;
	size_t cap = 0;
	int rc;

	if (is_absent(o))
		return ROZ_OK;
	if (!cJSON_IsObject(o))
		return corrupt("work", "is not an object");
	if ((rc = get_bool(o, "base_set", &w->base_set)) < 0 || (rc = get_str(o, "root", false, &w->root)) < 0 ||
	    (rc = get_str(o, "base_tree", false, &w->base_tree)) < 0 ||
	    (rc = get_u64(o, "base_touched", UINT64_MAX, &touched)) < 0 ||
	    (rc = get_bool(o, "approved_set", &w->approved_set)) < 0 ||
	    (rc = get_str(o, "approved_tree", false, &w->approved_tree)) < 0 ||
	    (rc = get_u64(o, "round", UINT32_MAX, &round)) < 0)
		return rc;
	w->base_touched = touched;
	w->round = (uint32_t)round;
	a = cJSON_GetObjectItemCaseSensitive(o, "approved");
	if (!is_absent(a) && !cJSON_IsArray(a))
		return corrupt("work.approved", "is not an array");
	cJSON_ArrayForEach(it, a)
	{
		char *path = NULL, *hash = NULL;
		uint64_t mode = 0;

		if (!cJSON_IsObject(it))
			return corrupt("work.approved", "holds a non-object");
		if ((rc = get_str(it, "path", true, &path)) < 0 || (rc = get_str(it, "hash", false, &hash)) < 0 ||
		    (rc = get_u64(it, "mode", UINT32_MAX, &mode)) < 0) {
			roz_free(path);
			roz_free(hash);
			return rc;
		}
		if (hash && strlen(hash) >= ROZ_SHA256_HEX_SIZE)
			rc = corrupt("work.approved", "holds a hash too long");
		else
			rc = roz_fingerprint_put(&w->approved, path, hash ? hash : "", (uint32_t)mode);
		roz_free(path);
		roz_free(hash);
		if (rc < 0)
			return rc;
	}
	a = cJSON_GetObjectItemCaseSensitive(o, "stale");
	if (!is_absent(a) && !cJSON_IsArray(a))
		return corrupt("work.stale", "is not an array");
	cJSON_ArrayForEach(it, a)
	{
		if (!cJSON_IsString(it))
			return corrupt("work.stale", "holds a non-string");
		if ((rc = roz_alloc_array_reserve((void **)&w->stale, &cap, sizeof *w->stale, w->n_stale + 1)) < 0)
			return rc;
		if (!(w->stale[w->n_stale] = roz_strdup(it->valuestring)))
			return ROZ_ENOMEM;
		w->n_stale++;
	}
	return ROZ_OK;
}

static void write_work(roz_buf *b, const roz_review_work *w)
{
	roz_buf_adds(b, "{\"base_set\":");
	roz_buf_adds(b, w->base_set ? "true" : "false");
	if (w->root) {
		roz_buf_adds(b, ",\"root\":");
		roz_json_add_string(b, w->root);
	}
	if (w->base_tree) {
		roz_buf_adds(b, ",\"base_tree\":");
		roz_json_add_string(b, w->base_tree);
	}
	if (w->base_touched)
		roz_buf_addf(b, ",\"base_touched\":%llu", (unsigned long long)w->base_touched);
	if (w->round)
		roz_buf_addf(b, ",\"round\":%u", (unsigned)w->round);
	if (w->approved_set) {
		roz_buf_adds(b, ",\"approved_set\":true");
		if (w->approved_tree) {
			roz_buf_adds(b, ",\"approved_tree\":");
			roz_json_add_string(b, w->approved_tree);
		}
		roz_buf_adds(b, ",\"approved\":[");
		for (size_t i = 0; i < w->approved.n; i++) {
			const roz_fp_file *f = &w->approved.items[i];

			roz_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
			roz_json_add_string(b, f->path);
			roz_buf_adds(b, ",\"hash\":");
			roz_json_add_string(b, f->hash);
			roz_buf_addf(b, ",\"mode\":%u}", (unsigned)f->mode);
		}
		roz_buf_addc(b, ']');
	}
	if (w->n_stale) {
		roz_buf_adds(b, ",\"stale\":[");
		for (size_t i = 0; i < w->n_stale; i++) {
			if (i)
				roz_buf_addc(b, ',');
			roz_json_add_string(b, w->stale[i]);
		}
		roz_buf_addc(b, ']');
	}
	roz_buf_addc(b, '}');
}

/* Takes the parsed review object over and frees it. */
static int read_review(cJSON *review, roz_review_state *r)
{
	const cJSON *decision;
	uint64_t blocks = 0, waits = 0;
	int rc;

	if (!cJSON_IsObject(review)) {
		cJSON_Delete(review);
		return corrupt("review", "is not an object");
	}
	decision = cJSON_GetObjectItemCaseSensitive(review, "decision");
	if ((rc = get_bool(review, "enabled", &r->enabled)) < 0 ||
	    (!is_absent(decision) && (rc = read_decision(decision, &r->decision)) < 0) ||
	    (rc = read_history(review, r)) < 0 || (rc = read_prompts(review, r)) < 0 ||
	    (rc = read_gate_trigger(review, r)) < 0 ||
	    (rc = get_opt_time(review, "gate_approved_at", &r->gate_approved_at)) < 0 ||
	    (rc = get_opt_time(review, "last_prompt_at", &r->last_prompt_at)) < 0 ||
	    (rc = get_opt_time(review, "review_started_at", &r->review_started_at)) < 0 ||
	    (rc = get_u64(review, "block_count", UINT32_MAX, &blocks)) < 0 ||
	    (rc = get_bool(review, "circuit_breaker_tripped", &r->circuit_breaker_tripped)) < 0 ||
	    (rc = get_opt_time(review, "circuit_breaker_tripped_at", &r->circuit_breaker_tripped_at)) < 0 ||
	    (rc = read_attempts(review, r)) < 0 ||
	    (rc = get_bool(review, "decision_trusted", &r->decision_trusted)) < 0 ||
	    (rc = read_reviewers(review, r)) < 0 ||
	    (rc = get_opt_time(review, "last_reviewer_started_at", &r->reviewer_started_at)) < 0 ||
	    (rc = get_u64(review, "wait_blocks", UINT32_MAX, &waits)) < 0 ||
	    (rc = read_tickets(review, r)) < 0 ||
	    (rc = get_str(review, "decision_agent_id", false, &r->decision_agent_id)) < 0 ||
	    (rc = get_bool(review, "decision_override", &r->decision_override)) < 0 ||
	    (rc = get_bool(review, "decision_contested", &r->decision_contested)) < 0 ||
	    (rc = read_work(review, &r->work)) < 0) {
		cJSON_Delete(review);
		if (rc != ROZ_ENOMEM)
			roz_error_prefix("review");
		return rc;
	}
	r->block_count = (uint32_t)blocks;
	r->wait_blocks = (uint32_t)waits;
	cJSON_Delete(review);
	return ROZ_OK;
}

typedef struct load_ctx {
	roz_session *s;
	bool lazy; /* keep the history and the prompts as text */
	bool have_id, have_created, have_updated, have_review, have_trace;
} load_ctx;

/* The review's members, built into an object for read_review; the long lists kept as text when lazy. */
typedef struct review_ctx {
	cJSON *obj;
	roz_review_state *r;
	bool lazy;
	unsigned seen; /* the lists met so far, one bit each */
} review_ctx;

static bool key_is(roz_json_span key, const char *name)
{
	return key.len == strlen(name) && memcmp(key.ptr, name, key.len) == 0;
}

static int string_span(roz_json_span v, const char *name, char **out)
{
	cJSON *s = NULL;
	int rc;

	*out = NULL;
	if ((rc = roz_json_parse(v.ptr, v.len, &s)) < 0)
		return rc == ROZ_ENOMEM ? rc : corrupt(name, "is not valid JSON");
	if (!cJSON_IsString(s)) {
		cJSON_Delete(s);
		return corrupt(name, "is not a string");
	}
	*out = roz_strdup(s->valuestring);
	cJSON_Delete(s);
	return *out ? ROZ_OK : ROZ_ENOMEM;
}

static int time_span(roz_json_span v, const char *name, roz_time *out)
{
	char *text;
	int rc = string_span(v, name, &text);

	if (rc < 0)
		return rc;
	rc = roz_time_parse(text, out);
	roz_free(text);
	return rc < 0 ? corrupt(name, "is not an RFC 3339 timestamp") : ROZ_OK;
}

static int on_event(void *ud, roz_json_span value)
{
	load_ctx *c = ud;
	char *copy;

	roz_buf b = ROZ_BUF_INIT;
	size_t len;

	if (!roz_json_span_is(value, '{'))
		return corrupt("trace", "holds a non-object");
	/* one line each: the store appends them to a file of lines (the Rust roz pretty-prints) */
	roz_json_add_compact(&b, value.ptr, value.len);
	if (roz_buf_failed(&b) || !(copy = roz_buf_detach(&b, &len))) {
		roz_buf_dispose(&b);
		return ROZ_ENOMEM;
	}
	if (roz_session_trace_push_raw(c->s, copy, len) < 0) {
		roz_free(copy);
		return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

static bool key_is(roz_json_span key, const char *name);

/* Keep a list as its text, if it is one a hook may not need and is laid out on one line. */
static int keep_raw(review_ctx *c, roz_json_span key, const char *s, size_t len, size_t *pos, bool *kept)
{
	size_t start = *pos;
	unsigned bit;
	char **raw;
	size_t *raw_len;
	int rc;

	*kept = false;
	if (key_is(key, "decision_history")) {
		raw = &c->r->raw_history;
		raw_len = &c->r->raw_history_len;
		bit = 1;
	} else if (key_is(key, "user_prompts")) {
		raw = &c->r->raw_prompts;
		raw_len = &c->r->raw_prompts_len;
		bit = 2;
	} else if (key_is(key, "attempts")) {
		raw = &c->r->raw_attempts;
		raw_len = &c->r->raw_attempts_len;
		bit = 4;
	} else {
		return ROZ_OK;
	}
	if ((rc = roz_json_skip_value(s, len, pos)) < 0)
		return rc;
	/* a second copy of the key is passed over, as the reader takes the first */
	if (c->seen & bit) {
		*kept = true;
		return ROZ_OK;
	}
	c->seen |= bit;
	/* null, or a pretty-printed list: parsed as any other member */
	if (s[start] != '[' || memchr(s + start, '\n', *pos - start)) {
		*pos = start;
		return ROZ_OK;
	}
	if (!(*raw = roz_strndup(s + start, *pos - start)))
		return ROZ_ENOMEM;
	*raw_len = *pos - start;
	*kept = true;
	return ROZ_OK;
}

static int on_review_member(void *ud, roz_json_span key, const char *s, size_t len, size_t *pos)
{
	review_ctx *c = ud;
	cJSON *v = NULL;
	char *name;
	bool kept = false;
	int rc;

	if (c->lazy && (rc = keep_raw(c, key, s, len, pos, &kept)) < 0)
		return rc;
	if (kept)
		return ROZ_OK;
	if ((rc = roz_json_parse_at(s, len, pos, &v)) < 0)
		return rc;
	/* a key with escapes is read as JSON, as the parser would have */
	if (memchr(key.ptr, '\\', key.len)) {
		cJSON *k = NULL;

		rc = roz_json_parse(key.ptr - 1, key.len + 2, &k);
		name = rc == ROZ_OK && cJSON_IsString(k) ? roz_strdup(k->valuestring) : NULL;
		cJSON_Delete(k);
	} else {
		name = roz_strndup(key.ptr, key.len);
	}
	if (!name) {
		cJSON_Delete(v);
		return ROZ_ENOMEM;
	}
	rc = cJSON_AddItemToObject(c->obj, name, v) ? ROZ_OK : ROZ_ENOMEM;
	if (rc < 0)
		cJSON_Delete(v); /* a member left out would read as absent: no guessing */
	roz_free(name);
	return rc;
}

/* The review object at s[*pos]: its members walked once into an object, the long lists kept as text when lazy. */
static int review_at(load_ctx *lc, const char *s, size_t len, size_t *pos)
{
	review_ctx c = {NULL, &lc->s->review, lc->lazy, 0};
	size_t start = *pos;
	int rc;

	if (start >= len || s[start] != '{') {
		if ((rc = roz_json_skip_value(s, len, pos)) < 0)
			return rc;
		return corrupt("review", "is not an object");
	}
	if (!(c.obj = cJSON_CreateObject()))
		return ROZ_ENOMEM;
	rc = roz_json_walk_members(s, len, pos, on_review_member, &c);
	if (rc < 0) {
		cJSON_Delete(c.obj);
		return rc;
	}
	return read_review(c.obj, &lc->s->review);
}

/* The review is parsed and the trace split into events as the walk reaches them: one pass. */
static int on_member(void *ud, roz_json_span key, const char *s, size_t len, size_t *pos)
{
	load_ctx *c = ud;
	roz_json_span value = {s + *pos, 0};
	int rc;

	if (key_is(key, "review")) {
		if (c->have_review)
			return corrupt("review", "appears twice");
		c->have_review = true;
		return review_at(c, s, len, pos);
	}
	if (key_is(key, "governance")) {
		cJSON *gov = NULL;

		if (c->s->gov.present)
			return corrupt("governance", "appears twice");
		if ((rc = roz_json_parse_at(s, len, pos, &gov)) < 0)
			return rc;
		rc = cJSON_IsNull(gov) ? ROZ_OK : roz_session_gov_read(gov, &c->s->gov);
		cJSON_Delete(gov);
		return rc;
	}
	if (key_is(key, "trace")) {
		if (c->have_trace)
			return corrupt("trace", "appears twice");
		c->have_trace = true;
		if (*pos < len && s[*pos] == '[')
			return roz_json_walk_elements(s, len, pos, on_event, c);
		if ((rc = roz_json_skip_value(s, len, pos)) < 0)
			return rc;
		return value.ptr[0] == 'n' ? ROZ_OK : corrupt("trace", "is not an array");
	}
	if ((rc = roz_json_skip_value(s, len, pos)) < 0)
		return rc;
	value.len = (size_t)(s + *pos - value.ptr);
	if (key_is(key, "trace_events")) {
		size_t n = 0;

		for (size_t i = 0; i < value.len; i++) {
			unsigned d = (unsigned)(value.ptr[i] - '0');

			if (d > 9 || n > (SIZE_MAX - d) / 10)
				return corrupt("trace_events", "is not a count");
			n = n * 10 + d;
		}
		if (value.len == 0)
			return corrupt("trace_events", "is not a count");
		c->s->trace_kept = n;
		return ROZ_OK;
	}
	if (key_is(key, "session_id")) {
		roz_free(c->s->session_id);
		c->have_id = true;
		return string_span(value, "session_id", &c->s->session_id);
	}
	if (key_is(key, "created_at")) {
		c->have_created = true;
		return time_span(value, "created_at", &c->s->created_at);
	}
	if (key_is(key, "updated_at")) {
		c->have_updated = true;
		return time_span(value, "updated_at", &c->s->updated_at);
	}
	return ROZ_OK;
}

static int parse(const char *text, size_t len, bool lazy, roz_session **out)
{
	load_ctx c;
	roz_json_span doc = {text, len};
	int rc;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.lazy = lazy;
	c.s = roz_calloc(1, sizeof(*c.s));
	if (!c.s)
		return ROZ_ENOMEM;
	/* the walk validates the whole document as it goes */
	rc = roz_json_each_member_at(doc, on_member, &c);
	if (rc == ROZ_EPARSE) {
		roz_error_prefix("not a valid JSON object");
		goto fail;
	}
	if (rc < 0)
		goto fail;
	if (!c.have_id || !c.have_created || !c.have_updated || !c.have_review) {
		rc = corrupt(!c.have_id ? "session_id" : !c.have_review ? "review"
			     : !c.have_created ? "created_at" : "updated_at", "is missing");
		goto fail;
	}
	*out = c.s;
	return ROZ_OK;
fail:
	roz_session_free(c.s);
	return rc == ROZ_ENOMEM ? ROZ_ENOMEM : ROZ_ECORRUPT;
}

int roz_session_json_parse(const char *text, size_t len, roz_session **out)
{
	return parse(text, len, false, out);
}

int roz_session_json_parse_state(const char *text, size_t len, roz_session **out)
{
	return parse(text, len, true, out);
}

/* Parse one list kept as text, by the reader used for whole files. */
static int load_list(roz_review_state *r, char **raw, size_t raw_len, const char *key,
		     int (*read)(const cJSON *review, roz_review_state *r))
{
	cJSON *wrap, *arr = NULL;
	int rc;

	if (!*raw)
		return ROZ_OK;
	if ((rc = roz_json_parse(*raw, raw_len, &arr)) < 0)
		return rc == ROZ_ENOMEM ? rc : corrupt(key, "is not valid JSON");
	if (!(wrap = cJSON_CreateObject())) {
		cJSON_Delete(arr);
		return ROZ_ENOMEM;
	}
	if (!cJSON_AddItemToObject(wrap, key, arr)) {
		cJSON_Delete(arr);
		cJSON_Delete(wrap);
		return ROZ_ENOMEM;
	}
	rc = read(wrap, r);
	cJSON_Delete(wrap);
	if (rc < 0)
		return rc == ROZ_ENOMEM ? rc : (roz_error_prefix("review"), ROZ_ECORRUPT);
	roz_free(*raw);
	*raw = NULL;
	return ROZ_OK;
}

/* The older attempts kept as text parsed in front of the newer ones, the newest ROZ_MAX_ATTEMPTS kept. */
static int load_attempts(roz_review_state *r)
{
	roz_attempt *newer = r->attempts;
	size_t n_newer = r->n_attempts, cap_newer = r->cap_attempts, drop;
	int rc;

	if (!r->raw_attempts)
		return ROZ_OK;
	r->attempts = NULL;
	r->n_attempts = r->cap_attempts = 0;
	rc = load_list(r, &r->raw_attempts, r->raw_attempts_len, "attempts", read_attempts);
	if (rc == ROZ_OK && n_newer &&
	    roz_alloc_array_reserve((void **)&r->attempts, &r->cap_attempts, sizeof(*r->attempts),
				    r->n_attempts + n_newer) < 0)
		rc = ROZ_ENOMEM;
	if (rc < 0) {
		/* back as it was: the newer ones stay the session's, the older ones its text */
		for (size_t i = 0; i < r->n_attempts; i++) {
			roz_free(r->attempts[i].template_id);
			roz_free(r->attempts[i].decision_type);
		}
		roz_free(r->attempts);
		r->attempts = newer;
		r->n_attempts = n_newer;
		r->cap_attempts = cap_newer;
		return rc;
	}
	if (n_newer)
		memcpy(r->attempts + r->n_attempts, newer, n_newer * sizeof(*newer));
	r->n_attempts += n_newer;
	roz_free(newer);
	drop = r->n_attempts > ROZ_MAX_ATTEMPTS ? r->n_attempts - ROZ_MAX_ATTEMPTS : 0;
	if (!drop)
		return ROZ_OK;
	for (size_t i = 0; i < drop; i++) {
		roz_free(r->attempts[i].template_id);
		roz_free(r->attempts[i].decision_type);
	}
	memmove(r->attempts, r->attempts + drop, (r->n_attempts - drop) * sizeof(*r->attempts));
	r->n_attempts -= drop;
	return ROZ_OK;
}

int roz_session_json_lists_load(roz_session *s)
{
	roz_review_state *r = &s->review;
	int rc = load_list(r, &r->raw_history, r->raw_history_len, "decision_history", read_history);

	if (rc == ROZ_OK)
		rc = load_list(r, &r->raw_prompts, r->raw_prompts_len, "user_prompts", read_prompts);
	return rc < 0 ? rc : load_attempts(r);
}

static int last_element(void *ud, roz_json_span value)
{
	*(roz_json_span *)ud = value;
	return ROZ_OK;
}

roz_opt_time roz_session_json_history_last(const roz_session *s)
{
	const roz_review_state *r = &s->review;
	roz_opt_time t = {false, {0, 0}};
	roz_json_span arr = {r->raw_history, r->raw_history_len}, last = {NULL, 0};
	cJSON *item = NULL;

	if (!r->raw_history) {
		if (r->n_history) {
			t.set = true;
			t.t = r->history[r->n_history - 1].timestamp;
		}
		return t;
	}
	if (roz_json_each_element(arr, last_element, &last) < 0 || !last.ptr ||
	    roz_json_parse(last.ptr, last.len, &item) < 0)
		return t;
	t.set = get_time(item, "timestamp", &t.t) == ROZ_OK;
	cJSON_Delete(item);
	return t;
}

/* ---- writing ---------------------------------------------------------------- */

/* Writers avoid printf: formatting dominated the cost of saving a session. */
static void add_time(roz_buf *b, roz_time t)
{
	char ts[ROZ_TIME_BUFSZ + 2];

	ts[0] = '"';
	roz_time_format(t, ts + 1);
	strcat(ts, "\"");
	roz_buf_adds(b, ts);
}

static void add_uint(roz_buf *b, uint64_t v)
{
	char digits[24], *p = digits + sizeof(digits);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	roz_buf_add(b, p, (size_t)(digits + sizeof(digits) - p));
}

static void add_key(roz_buf *b, bool *first, const char *key)
{
	if (!*first)
		roz_buf_addc(b, ',');
	*first = false;
	roz_buf_addc(b, '"');
	roz_buf_adds(b, key);
	roz_buf_adds(b, "\":");
}

static void add_opt_string(roz_buf *b, const char *s)
{
	if (s)
		roz_json_add_string(b, s);
	else
		roz_buf_adds(b, "null");
}

static void write_decision(roz_buf *b, const roz_decision *d)
{
	roz_buf_adds(b, "{\"type\":\"");
	roz_buf_adds(b, roz_session_decision_kind_name(d->kind));
	roz_buf_addc(b, '"');
	if (d->kind == ROZ_DECISION_COMPLETE) {
		roz_buf_adds(b, ",\"summary\":");
		roz_json_add_string(b, d->summary ? d->summary : "");
		if (d->second_opinions) {
			roz_buf_adds(b, ",\"second_opinions\":");
			roz_json_add_string(b, d->second_opinions);
		}
	} else if (d->kind == ROZ_DECISION_ISSUES) {
		roz_buf_adds(b, ",\"summary\":");
		roz_json_add_string(b, d->summary ? d->summary : "");
		roz_buf_adds(b, ",\"message_to_agent\":");
		add_opt_string(b, d->message_to_agent);
	}
	roz_buf_addc(b, '}');
}

static void write_json_value(roz_buf *b, const cJSON *v)
{
	if (v)
		roz_json_add_value(b, v, ROZ_JSON_COMPACT); /* keys in the order they came */
	else
		roz_buf_adds(b, "null");
}

static void write_gate_trigger(roz_buf *b, const roz_gate_trigger *g)
{
	roz_buf_adds(b, "{\"tool_name\":");
	roz_json_add_string(b, g->tool_name);
	roz_buf_adds(b, ",\"tool_input\":{\"value\":");
	write_json_value(b, g->tool_input.value);
	roz_buf_adds(b, g->tool_input.truncated ? ",\"truncated\":true" : ",\"truncated\":false");
	if (g->tool_input.original_hash) {
		roz_buf_adds(b, ",\"original_hash\":");
		roz_json_add_string(b, g->tool_input.original_hash);
	}
	if (g->tool_input.has_original_size) {
		roz_buf_adds(b, ",\"original_size\":");
		add_uint(b, g->tool_input.original_size);
	}
	roz_buf_adds(b, "},\"triggered_at\":");
	add_time(b, g->triggered_at);
	roz_buf_adds(b, ",\"pattern_matched\":");
	roz_json_add_string(b, g->pattern_matched);
	roz_buf_addc(b, '}');
}

/* Whether a list's text "[...]" holds anything but white space. */
static bool raw_has_elements(const char *raw, size_t len)
{
	return roz_json_skip_ws(raw, len, 1) < len - 1;
}

static void write_review(roz_buf *b, const roz_review_state *r)
{
	bool first = true;

	roz_buf_addc(b, '{');
	add_key(b, &first, "enabled");
	roz_buf_adds(b, r->enabled ? "true" : "false");
	add_key(b, &first, "decision");
	write_decision(b, &r->decision);
	add_key(b, &first, "decision_history");
	if (r->raw_history)
		roz_buf_add(b, r->raw_history, r->raw_history_len);
	else
		roz_buf_addc(b, '[');
	for (size_t i = 0; !r->raw_history && i < r->n_history; i++) {
		roz_buf_adds(b, i ? ",{\"decision\":" : "{\"decision\":");
		write_decision(b, &r->history[i].decision);
		roz_buf_adds(b, ",\"timestamp\":");
		add_time(b, r->history[i].timestamp);
		roz_buf_addc(b, '}');
	}
	if (!r->raw_history)
		roz_buf_addc(b, ']');
	add_key(b, &first, "user_prompts");
	if (r->raw_prompts) {
		roz_buf_add(b, r->raw_prompts, r->raw_prompts_len);
	} else {
		roz_buf_addc(b, '[');
		for (size_t i = 0; i < r->n_prompts; i++) {
			if (i)
				roz_buf_addc(b, ',');
			roz_json_add_string(b, r->prompts[i]);
		}
		roz_buf_addc(b, ']');
	}
	if (r->gate_trigger) {
		add_key(b, &first, "gate_trigger");
		write_gate_trigger(b, r->gate_trigger);
	}
	if (r->gate_approved_at.set) {
		add_key(b, &first, "gate_approved_at");
		add_time(b, r->gate_approved_at.t);
	}
	/* the Rust roz writes last_prompt_at even when unset (as null) */
	add_key(b, &first, "last_prompt_at");
	if (r->last_prompt_at.set)
		add_time(b, r->last_prompt_at.t);
	else
		roz_buf_adds(b, "null");
	if (r->review_started_at.set) {
		add_key(b, &first, "review_started_at");
		add_time(b, r->review_started_at.t);
	}
	add_key(b, &first, "block_count");
	add_uint(b, r->block_count);
	add_key(b, &first, "circuit_breaker_tripped");
	roz_buf_adds(b, r->circuit_breaker_tripped ? "true" : "false");
	if (r->circuit_breaker_tripped_at.set) {
		add_key(b, &first, "circuit_breaker_tripped_at");
		add_time(b, r->circuit_breaker_tripped_at.t);
	}
	if (r->n_attempts || r->raw_attempts) {
		/* the older attempts as read, then the newer ones a hook parsed or added */
		bool more = r->raw_attempts && raw_has_elements(r->raw_attempts, r->raw_attempts_len);

		add_key(b, &first, "attempts");
		if (r->raw_attempts)
			roz_buf_add(b, r->raw_attempts, r->raw_attempts_len - 1); /* all but its ']' */
		else
			roz_buf_addc(b, '[');
		for (size_t i = 0; i < r->n_attempts; i++) {
			const roz_attempt *a = &r->attempts[i];

			roz_buf_adds(b, i || more ? ",{\"template_id\":" : "{\"template_id\":");
			roz_json_add_string(b, a->template_id);
			roz_buf_adds(b, ",\"timestamp\":");
			add_time(b, a->timestamp);
			roz_buf_adds(b, ",\"outcome\":{\"type\":\"");
			roz_buf_adds(b, roz_session_outcome_kind_name(a->outcome));
			roz_buf_addc(b, '"');
			if (a->outcome == ROZ_OUTCOME_SUCCESS) {
				roz_buf_adds(b, ",\"decision_type\":");
				roz_json_add_string(b, a->decision_type ? a->decision_type : "");
				roz_buf_adds(b, ",\"blocks_needed\":");
				add_uint(b, a->blocks_needed);
			}
			roz_buf_adds(b, "}}");
		}
		roz_buf_addc(b, ']');
	}
	/* fields the Rust roz does not have: written only when they say something */
	if (r->decision_trusted) {
		add_key(b, &first, "decision_trusted");
		roz_buf_adds(b, "true");
	}
	if (r->n_reviewers) {
		add_key(b, &first, "reviewers");
		roz_buf_addc(b, '[');
		for (size_t i = 0; i < r->n_reviewers; i++) {
			roz_buf_adds(b, i ? ",{\"agent_id\":" : "{\"agent_id\":");
			roz_json_add_string(b, r->reviewers[i].agent_id);
			roz_buf_adds(b, ",\"started_at\":");
			add_time(b, r->reviewers[i].started_at);
			roz_buf_adds(b, ",\"stop_blocks\":");
			add_uint(b, r->reviewers[i].stop_blocks);
			roz_buf_addc(b, '}');
		}
		roz_buf_addc(b, ']');
	}
	if (r->reviewer_started_at.set) {
		add_key(b, &first, "last_reviewer_started_at");
		add_time(b, r->reviewer_started_at.t);
	}
	if (r->wait_blocks) {
		add_key(b, &first, "wait_blocks");
		add_uint(b, r->wait_blocks);
	}
	if (r->n_tickets) {
		add_key(b, &first, "verdict_tickets");
		roz_buf_addc(b, '[');
		for (size_t i = 0; i < r->n_tickets; i++) {
			const roz_verdict_ticket *t = &r->tickets[i];

			roz_buf_adds(b, i ? ",{\"agent_id\":" : "{\"agent_id\":");
			roz_json_add_string(b, t->agent_id);
			if (t->tool_use_id) {
				roz_buf_adds(b, ",\"tool_use_id\":");
				roz_json_add_string(b, t->tool_use_id);
			}
			roz_buf_adds(b, ",\"issued_at\":");
			add_time(b, t->issued_at);
			if (t->used)
				roz_buf_adds(b, ",\"used\":true");
			roz_buf_addc(b, '}');
		}
		roz_buf_addc(b, ']');
	}
	if (r->decision_agent_id) {
		add_key(b, &first, "decision_agent_id");
		roz_json_add_string(b, r->decision_agent_id);
	}
	if (r->decision_override) {
		add_key(b, &first, "decision_override");
		roz_buf_adds(b, "true");
	}
	if (r->decision_contested) {
		add_key(b, &first, "decision_contested");
		roz_buf_adds(b, "true");
	}
	if (r->work.base_set || r->work.approved_set || r->work.n_stale || r->work.round) {
		add_key(b, &first, "work");
		write_work(b, &r->work);
	}
	roz_buf_addc(b, '}');
}

static void write_head(const roz_session *s, roz_buf *b)
{
	roz_buf_adds(b, "{\"session_id\":");
	roz_json_add_string(b, s->session_id);
	roz_buf_adds(b, ",\"review\":");
	write_review(b, &s->review);
	if (s->gov.present) {
		roz_buf_adds(b, ",\"governance\":");
		roz_session_gov_write(&s->gov, b);
	}
}

static int write_tail(const roz_session *s, roz_buf *b)
{
	roz_buf_adds(b, ",\"created_at\":");
	add_time(b, s->created_at);
	roz_buf_adds(b, ",\"updated_at\":");
	add_time(b, s->updated_at);
	roz_buf_adds(b, "}\n");
	return roz_buf_failed(b);
}

int roz_session_json_write(const roz_session *s, roz_buf *b)
{
	write_head(s, b);
	roz_buf_adds(b, ",\"trace\":[");
	for (size_t i = 0; i < s->n_trace; i++) {
		if (i)
			roz_buf_addc(b, ',');
		roz_buf_add(b, s->trace[i].json, s->trace[i].len);
	}
	roz_buf_addc(b, ']');
	return write_tail(s, b);
}

int roz_session_json_write_state(const roz_session *s, size_t trace_events, roz_buf *b)
{
	write_head(s, b);
	roz_buf_addf(b, ",\"trace\":[],\"trace_events\":%zu", trace_events);
	return write_tail(s, b);
}

/* ---- the lists kept as text ---------------------------------------------------------- */

typedef struct spans {
	roz_json_span *v;
	size_t n, cap;
} spans;

static int collect(void *ud, roz_json_span value)
{
	spans *sp = ud;

	if (roz_alloc_array_reserve((void **)&sp->v, &sp->cap, sizeof(*sp->v), sp->n + 1) < 0)
		return ROZ_ENOMEM;
	sp->v[sp->n++] = value;
	return ROZ_OK;
}

/* Add an element's JSON text to a list kept as text, dropping the oldest past `cap`. */
static int raw_push(char **raw, size_t *raw_len, const char *elem, size_t elem_len, size_t cap)
{
	roz_json_span arr = {*raw, *raw_len};
	spans sp = {NULL, 0, 0};
	roz_buf b = ROZ_BUF_INIT;
	size_t drop;
	int rc = roz_json_each_element(arr, collect, &sp);

	if (rc < 0) {
		roz_free(sp.v);
		return rc == ROZ_ENOMEM ? rc : corrupt("review", "holds a list that is not valid JSON");
	}
	drop = sp.n + 1 > cap ? sp.n + 1 - cap : 0;
	roz_buf_addc(&b, '[');
	if (drop < sp.n) {
		const char *from = sp.v[drop].ptr, *to = sp.v[sp.n - 1].ptr + sp.v[sp.n - 1].len;

		roz_buf_add(&b, from, (size_t)(to - from));
		roz_buf_addc(&b, ',');
	}
	roz_buf_add(&b, elem, elem_len);
	roz_buf_addc(&b, ']');
	roz_free(sp.v);
	if ((rc = roz_buf_failed(&b)) < 0) {
		roz_buf_dispose(&b);
		return rc;
	}
	roz_free(*raw);
	*raw = roz_buf_detach(&b, raw_len);
	return ROZ_OK;
}

int roz_session_json_prompt_push(roz_session *s, const char *stored)
{
	roz_review_state *r = &s->review;
	roz_buf b = ROZ_BUF_INIT;
	int rc;

	roz_json_add_string(&b, stored);
	if ((rc = roz_buf_failed(&b)) == ROZ_OK)
		rc = raw_push(&r->raw_prompts, &r->raw_prompts_len, b.ptr, b.len, ROZ_MAX_PROMPTS);
	roz_buf_dispose(&b);
	return rc;
}

int roz_session_json_history_push(roz_session *s, const roz_decision *replaced, roz_time at)
{
	roz_review_state *r = &s->review;
	roz_buf b = ROZ_BUF_INIT;
	int rc;

	roz_buf_adds(&b, "{\"decision\":");
	write_decision(&b, replaced);
	roz_buf_adds(&b, ",\"timestamp\":");
	add_time(&b, at);
	roz_buf_addc(&b, '}');
	if ((rc = roz_buf_failed(&b)) == ROZ_OK)
		rc = raw_push(&r->raw_history, &r->raw_history_len, b.ptr, b.len, ROZ_MAX_HISTORY);
	roz_buf_dispose(&b);
	return rc;
}

/*
 * Parse the attempts from element `from` of the text on, in front of the
 * ones already parsed; the text keeps the older ones (or goes when none
 * are left).
 */
static int split_attempts(roz_review_state *r, const spans *sp, size_t from)
{
	roz_review_state part;
	roz_buf head = ROZ_BUF_INIT, tail = ROZ_BUF_INIT;
	const char *end = r->raw_attempts + r->raw_attempts_len;
	int rc;

	memset(&part, 0, sizeof(part));
	roz_buf_addc(&tail, '[');
	roz_buf_add(&tail, sp->v[from].ptr, (size_t)(end - sp->v[from].ptr));
	if (from) {
		const char *last = sp->v[from - 1].ptr + sp->v[from - 1].len;

		roz_buf_add(&head, r->raw_attempts, (size_t)(last - r->raw_attempts));
		roz_buf_addc(&head, ']');
	}
	if ((rc = roz_buf_failed(&tail)) < 0 || (rc = roz_buf_failed(&head)) < 0)
		goto out;
	part.raw_attempts = tail.ptr;
	part.raw_attempts_len = tail.len;
	/* the newer ones go behind the parsed part, as load_attempts puts them */
	part.attempts = r->attempts;
	part.n_attempts = r->n_attempts;
	part.cap_attempts = r->cap_attempts;
	if ((rc = load_attempts(&part)) < 0) {
		r->attempts = part.attempts; /* load_attempts gave them back on failure */
		goto out;
	}
	tail.ptr = NULL; /* load_attempts freed it */
	r->attempts = part.attempts;
	r->n_attempts = part.n_attempts;
	r->cap_attempts = part.cap_attempts;
	roz_free(r->raw_attempts);
	r->raw_attempts = NULL;
	r->raw_attempts_len = 0;
	if (from)
		r->raw_attempts = roz_buf_detach(&head, &r->raw_attempts_len);
out:
	roz_buf_dispose(&head);
	roz_buf_dispose(&tail);
	return rc;
}

/* The spans of the attempts kept as text. */
static int attempt_spans(const roz_review_state *r, spans *sp)
{
	roz_json_span arr = {r->raw_attempts, r->raw_attempts_len};
	int rc = roz_json_each_element(arr, collect, sp);

	if (rc < 0 && rc != ROZ_ENOMEM)
		rc = corrupt("review.attempts", "is not valid JSON");
	return rc;
}

int roz_session_json_attempts_pending(roz_session *s)
{
	static const char pending[] = "\"pending\"";
	roz_review_state *r = &s->review;
	int rc = ROZ_OK;

	/* each round parses from the newest text that may be pending: one without the word is not */
	while (rc == ROZ_OK && r->raw_attempts) {
		spans sp = {NULL, 0, 0};
		size_t i;

		for (i = 0; i < r->n_attempts; i++)
			if (r->attempts[i].outcome == ROZ_OUTCOME_PENDING)
				return ROZ_OK; /* the newest pending one is parsed already */
		if ((rc = attempt_spans(r, &sp)) == ROZ_OK) {
			for (i = sp.n; i-- > 0;)
				if (memmem(sp.v[i].ptr, sp.v[i].len, pending, sizeof(pending) - 1))
					break;
			if (i == (size_t)-1) {
				roz_free(sp.v);
				return ROZ_OK; /* none is */
			}
			rc = split_attempts(r, &sp, i);
		}
		roz_free(sp.v);
	}
	return rc;
}

int roz_session_json_attempts_newest(roz_session *s)
{
	roz_review_state *r = &s->review;
	spans sp = {NULL, 0, 0};
	int rc;

	if (r->n_attempts || !r->raw_attempts)
		return ROZ_OK;
	if ((rc = attempt_spans(r, &sp)) == ROZ_OK && sp.n)
		rc = split_attempts(r, &sp, sp.n - 1);
	roz_free(sp.v);
	return rc;
}

int roz_session_json_attempts_room(roz_session *s)
{
	roz_review_state *r = &s->review;
	spans sp = {NULL, 0, 0};
	roz_buf head = ROZ_BUF_INIT;
	size_t drop;
	int rc;

	if (!r->raw_attempts)
		return ROZ_OK;
	if ((rc = attempt_spans(r, &sp)) < 0)
		goto out;
	/* the text's oldest go first, so the parsed ones and one more fit the cap */
	drop = sp.n + r->n_attempts + 1 > ROZ_MAX_ATTEMPTS ? sp.n + r->n_attempts + 1 - ROZ_MAX_ATTEMPTS : 0;
	if (!drop)
		goto out;
	if (drop >= sp.n) {
		roz_free(r->raw_attempts);
		r->raw_attempts = NULL;
		r->raw_attempts_len = 0;
		goto out;
	}
	roz_buf_addc(&head, '[');
	roz_buf_add(&head, sp.v[drop].ptr, (size_t)(r->raw_attempts + r->raw_attempts_len - sp.v[drop].ptr));
	if ((rc = roz_buf_failed(&head)) == ROZ_OK) {
		roz_free(r->raw_attempts);
		r->raw_attempts = roz_buf_detach(&head, &r->raw_attempts_len);
	}
out:
	roz_buf_dispose(&head);
	roz_free(sp.v);
	return rc;
}
