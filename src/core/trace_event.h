/*
 * trace_event.h - how the hook handlers (hooks.c) and `roz decide`
 * (decide.c) add an event to a session's trace: a fresh id, the hook's
 * time, and a JSON payload built key by key. Private to the core; inline
 * because each is a few lines used at many places.
 */
#ifndef ROZ_TRACE_EVENT_H
#define ROZ_TRACE_EVENT_H

#include "roz/hooks.h"
#include "roz/json.h"

/* Add an event of `type` with `payload` (NULL for none); ROZ_OK or an error. */
static inline int add_event(roz_session *s, const roz_env *env, roz_event_type type, roz_buf *payload)
{
	int rc;

	if (payload && (rc = roz_buf_failed(payload)) < 0)
		return rc;
	return roz_hook_trace(s, env, type, payload ? roz_buf_cstr(payload) : NULL);
}

/* Payload builders: keys are written in sorted order, as the reference's files have them. */
static inline void kv_str(roz_buf *b, const char *key, const char *val)
{
	roz_buf_addc(b, b->len ? ',' : '{');
	roz_json_add_string(b, key);
	roz_buf_addc(b, ':');
	if (val)
		roz_json_add_string(b, val);
	else
		roz_buf_adds(b, "null");
}

static inline void kv_raw(roz_buf *b, const char *key, const char *raw)
{
	roz_buf_addc(b, b->len ? ',' : '{');
	roz_json_add_string(b, key);
	roz_buf_addc(b, ':');
	roz_buf_adds(b, raw);
}

static inline void kv_end(roz_buf *b)
{
	roz_buf_adds(b, b->len ? "}" : "{}");
}

#endif
