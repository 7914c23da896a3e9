/*
 * roz/session_json.h - a session as the JSON text stored in its file.
 *
 * Reading accepts what the Rust roz writes (pretty-printed, fields in any
 * order, optional fields absent or null) and what roz writes (one compact
 * line). Events an older file holds inline are read into the trace, none
 * of them saved (trace_saved 0). Unknown fields are ignored. Lists longer than roz's caps keep their
 * newest entries. Text that is not JSON, or a known field of the wrong type,
 * is ROZ_ECORRUPT with the reason in roz_error_last().
 */
#ifndef ROZ_SESSION_JSON_H
#define ROZ_SESSION_JSON_H

#include "roz/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse; *out belongs to the caller. ROZ_OK, ROZ_ECORRUPT or ROZ_ENOMEM. */
int roz_session_json_parse(const char *text, size_t len, roz_session **out) ROZ_WARN_UNUSED;

/*
 * The same for a hook, whose cost must not grow with the session: the
 * decision history, the prompts and the attempts, the bulk of a long
 * session's state, are kept as text (review.raw_history, raw_prompts,
 * raw_attempts) and written back as they were unless something parses them
 * (roz_session_json_lists_load, or the parts the setters need). Their text
 * is checked as JSON now, their entries when parsed.
 */
int roz_session_json_parse_state(const char *text, size_t len, roz_session **out) ROZ_WARN_UNUSED;

/* Parse the lists parse_state kept as text. ROZ_OK, ROZ_ECORRUPT (entries of the wrong shape) or ROZ_ENOMEM. */
int roz_session_json_lists_load(roz_session *s) ROZ_WARN_UNUSED;

/*
 * Add to a list kept as text without parsing it: a stored prompt (as
 * roz_session_prompt_truncate made it), or the decision a new one replaced
 * with the time it was replaced; the oldest entries past the cap go.
 * ROZ_OK, ROZ_ECORRUPT or ROZ_ENOMEM (the list unchanged).
 */
int roz_session_json_prompt_push(roz_session *s, const char *stored) ROZ_WARN_UNUSED;
int roz_session_json_history_push(roz_session *s, const roz_decision *replaced, roz_time at) ROZ_WARN_UNUSED;

/*
 * The attempts of a hook's state: the older ones stay text
 * (review.raw_attempts) in front of the parsed ones (review.attempts).
 * _pending parses from the newest pending one on, so that
 * roz_session_pending_attempt finds it among the parsed; _newest parses at
 * least the newest; _room drops the oldest text past the cap so that one
 * more can be added. ROZ_OK, ROZ_ECORRUPT or ROZ_ENOMEM (nothing changed).
 */
int roz_session_json_attempts_pending(roz_session *s) ROZ_WARN_UNUSED;
int roz_session_json_attempts_newest(roz_session *s) ROZ_WARN_UNUSED;
int roz_session_json_attempts_room(roz_session *s) ROZ_WARN_UNUSED;

/* When the newest history entry was made, read from the text if the history is kept as text. */
roz_opt_time roz_session_json_history_last(const roz_session *s);

/*
 * Append the session's JSON as one whole document, its trace inline (one
 * line, newline-terminated): what `roz debug` shows and what the Rust roz
 * and roz before 0.3 stored. ROZ_OK or ROZ_ENOMEM.
 */
int roz_session_json_write(const roz_session *s, roz_buf *b) ROZ_WARN_UNUSED;

/*
 * Append the session's state as its store keeps it (one line,
 * newline-terminated): the same document with an empty inline trace and
 * `trace_events`, the count of the events its store holds beside it.
 * Reading it back sets trace_kept. ROZ_OK or ROZ_ENOMEM.
 */
int roz_session_json_write_state(const roz_session *s, size_t trace_events, roz_buf *b) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
