/*
 * roz/session.h - the state roz keeps for one Claude Code session, and the
 * bounded ways it grows.
 *
 * A session is what one `<storage>/sessions/<id>.json` file holds: the
 * review state machine (enabled, decision, block count, breaker, gate
 * trigger, attempts) and a trace of events. Field names and JSON shapes are
 * those of the Rust roz, so its files load unchanged (see session_json.c).
 *
 * Everything that grows is capped so that a session that has seen 10,000
 * prompts costs what one with 50 does: stored prompts
 * the latest ROZ_MAX_PROMPTS (each cut at ROZ_MAX_PROMPT_BYTES on a UTF-8
 * boundary), decision history the latest ROZ_MAX_HISTORY, attempts the
 * latest ROZ_MAX_ATTEMPTS.
 *
 * The trace is a log beside that state, not part of it. A hook reads the
 * state without the trace and adds events; the store appends them to what
 * it holds (roz/store.h) and keeps at most its cap of them, compacted by
 * roz_session_trace_compact(): the first ones, a marker, the newest. So
 * `trace` holds the events the store already has that were read (the first
 * `trace_saved`, none when only the state was read) followed by the events
 * added since. Events are kept as their JSON text; hooks append without
 * parsing old ones, and roz_session_trace_event_parse() reads one for display.
 *
 * Nothing roz writes may be something it cannot read back: a session file
 * that does not load is moved aside and its review is lost. So the setters
 * refuse (ROZ_EINVALID, session unchanged) text that is not valid UTF-8,
 * and a trace event that is not valid JSON, before anything is stored; the
 * gate trigger's tool input, which roz does not choose, is encoded to fit.
 *
 * Ownership: a roz_session and every string and cJSON value inside it are
 * owned by the session and released by roz_session_free(). Setters copy
 * their arguments.
 */
#ifndef ROZ_SESSION_H
#define ROZ_SESSION_H

#include "roz/common.h"
#include "roz/fingerprint.h"
#include "roz/time.h"
#include "roz/session_gov.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

#define ROZ_MAX_PROMPTS 50
#define ROZ_MAX_PROMPT_BYTES (10 * 1024)
#define ROZ_MAX_HISTORY 50
#define ROZ_MAX_ATTEMPTS 50
#define ROZ_MAX_TOOL_INPUT_BYTES (10 * 1024)
/* Nesting kept of a stored tool input (its own level is 1); deeper parts become a note. */
#define ROZ_MAX_TOOL_INPUT_DEPTH 64
/* Longest JSON text a stored tool input may take, however it was shortened. */
#define ROZ_MAX_TOOL_INPUT_STORED (2 * ROZ_MAX_TOOL_INPUT_BYTES)
#define ROZ_MAX_SESSION_ID 128
#define ROZ_MAX_REVIEWER_RUNS 10
#define ROZ_MAX_TICKETS 8

typedef enum roz_decision_kind {
	ROZ_DECISION_PENDING,
	ROZ_DECISION_COMPLETE,
	ROZ_DECISION_ISSUES
} roz_decision_kind;

typedef struct roz_decision {
	roz_decision_kind kind;
	char *summary;          /* COMPLETE and ISSUES */
	char *second_opinions;  /* COMPLETE, optional */
	char *message_to_agent; /* ISSUES, optional */
} roz_decision;

typedef struct roz_decision_record {
	roz_decision decision; /* the decision that was replaced */
	roz_time timestamp;    /* when it was replaced, i.e. when the next one was made */
} roz_decision_record;

typedef struct roz_truncated_input {
	struct cJSON *value;  /* the input, or a shortened copy */
	bool truncated;
	char *original_hash;  /* SHA-256 hex of the original JSON text, when truncated */
	bool has_original_size;
	uint64_t original_size;
} roz_truncated_input;

typedef struct roz_gate_trigger {
	char *tool_name;       /* the tool key that matched, e.g. "Bash:git push" */
	roz_truncated_input tool_input;
	roz_time triggered_at;
	char *pattern_matched;
} roz_gate_trigger;

typedef enum roz_outcome_kind {
	ROZ_OUTCOME_PENDING,
	ROZ_OUTCOME_SUCCESS,
	ROZ_OUTCOME_NOT_SPAWNED,
	ROZ_OUTCOME_NO_DECISION,
	ROZ_OUTCOME_BAD_SESSION_ID
} roz_outcome_kind;

typedef struct roz_attempt {
	char *template_id;
	roz_time timestamp;
	roz_outcome_kind outcome;
	char *decision_type;    /* SUCCESS: "complete" or "issues" */
	uint32_t blocks_needed; /* SUCCESS */
} roz_attempt;

typedef enum roz_event_type {
	ROZ_EVENT_SESSION_START,
	ROZ_EVENT_PROMPT_RECEIVED,
	ROZ_EVENT_GATE_BLOCKED,
	ROZ_EVENT_GATE_ALLOWED,
	ROZ_EVENT_TOOL_COMPLETED,
	ROZ_EVENT_STOP_HOOK_CALLED,
	ROZ_EVENT_ROZ_DECISION,
	ROZ_EVENT_TRACE_COMPACTED,
	ROZ_EVENT_SESSION_END,
	ROZ_EVENT_REVIEWER_STARTED,
	ROZ_EVENT_REVIEWER_STOPPED,
	ROZ_EVENT_SESSION_RECOVERED,
	ROZ_EVENT_DECISION_IGNORED,
	ROZ_EVENT_INTENT_SELECTED,    /* governance: the session chose an intent */
	ROZ_EVENT_GOVERNANCE_REFUSED, /* governance: a change denied, or asked about */
	ROZ_EVENT_RECORD_FAILED,      /* a change could not be recorded in the ledger */
	ROZ_EVENT_GATE_DETOUR,        /* a line roz cannot read, asked about while a gate's denial is pending */
	ROZ_EVENT_APPROVAL_STALE,     /* the work changed after an approval: the files named, a new review asked */
	ROZ_EVENT__COUNT
} roz_event_type;

/* A run of the roz:roz reviewer, from its SubagentStart to its SubagentStop. */
typedef struct roz_reviewer_run {
	char *agent_id;
	roz_time started_at;
	uint32_t stop_blocks; /* times its stop was held for want of a verdict */
} roz_reviewer_run;

/*
 * Leave for one `roz decide`: issued when the reviewer's own Bash call runs
 * it, good for a short while, used by the first verdict recorded with it.
 */
typedef struct roz_verdict_ticket {
	char *agent_id;    /* the reviewer run whose call it was */
	char *tool_use_id; /* that Bash call, or NULL */
	roz_time issued_at;
	bool used;         /* a verdict was recorded with it */
} roz_verdict_ticket;

/* One trace event as JSON text: {"id":..,"timestamp":..,"event_type":..,"payload":..}. */
typedef struct roz_trace_entry {
	char *json;
	size_t len;
} roz_trace_entry;

/*
 * The task's work as the review saw it (roz/work.h): the working tree
 * when the review cycle began, and the fingerprint of what an approval saw.
 */
typedef struct roz_review_work {
	bool base_set;         /* a baseline was taken when the cycle began */
	char *root;            /* the repository whose working tree is the work, or NULL (outside one) */
	char *base_tree;       /* its working tree then, as a git tree id; NULL outside a repository */
	uint64_t base_touched; /* how much of the session's list of files written outside it there was then */
	bool approved_set;     /* the current COMPLETE is bound to `approved` */
	char *approved_tree;   /* the working tree the approval saw (git), or NULL */
	roz_fingerprint approved; /* the files changed since the baseline as approved: path, hash, mode */
	char **stale;          /* the files changed since the last approval, named in the block; may be NULL */
	size_t n_stale;
	uint32_t round;        /* approvals gone stale this cycle: a stale block asks for ROUND=round+1 */
} roz_review_work;

/* Release and zero all the work's fields; or the approval only; or the stale list only. */
void roz_review_work_dispose(roz_review_work *w);
void roz_review_work_forget_approval(roz_review_work *w);
void roz_review_work_forget_stale(roz_review_work *w);

typedef struct roz_review_state {
	bool enabled;
	roz_decision decision;
	roz_decision_record *history;
	size_t n_history, cap_history;
	char **prompts;
	size_t n_prompts, cap_prompts;
	roz_gate_trigger *gate_trigger; /* NULL when none */
	roz_opt_time gate_approved_at;
	roz_opt_time last_prompt_at;
	roz_opt_time review_started_at;
	uint32_t block_count;
	bool circuit_breaker_tripped;
	roz_opt_time circuit_breaker_tripped_at;
	roz_attempt *attempts;
	size_t n_attempts, cap_attempts;
	/* COMPLETE counts only once a reviewer's SubagentStop vouched for it */
	bool decision_trusted;
	roz_reviewer_run *reviewers; /* reviewer runs started and not yet stopped */
	size_t n_reviewers, cap_reviewers;
	roz_opt_time reviewer_started_at; /* the latest reviewer start */
	uint32_t wait_blocks; /* stops held this cycle while a background reviewer ran */
	roz_verdict_ticket *tickets; /* issued to reviewer calls of `roz decide`, oldest first */
	size_t n_tickets, cap_tickets;
	/* how the current verdict was recorded; reset by roz_session_record_decision */
	char *decision_agent_id;  /* the reviewer whose ticket it used, or NULL */
	bool decision_override;   /* a person's `roz decide --override` */
	bool decision_contested;  /* its ticket was presented again: no reviewer vouches for it */
	/*
	 * The decision history, the prompts and the older attempts as their
	 * JSON text, while a hook that loaded the state
	 * (roz_session_json_parse_state) has not needed them: NULL once parsed
	 * (roz_session_json_lists_load). The setters add to the text; the
	 * attempts a hook looks at are parsed into `attempts`, behind the text.
	 */
	char *raw_history, *raw_prompts, *raw_attempts;
	size_t raw_history_len, raw_prompts_len, raw_attempts_len;
	roz_review_work work;
} roz_review_state;

typedef struct roz_session {
	char *session_id;
	roz_review_state review;
	roz_session_gov gov; /* intent governance (roz/session_gov.h); !gov.present when untouched */
	roz_trace_entry *trace;
	size_t n_trace, cap_trace;
	size_t trace_saved;  /* the first trace_saved events of `trace` are stored already */
	bool trace_inline;   /* the rest begin with events an older file held inline */
	size_t trace_kept;   /* the store's count of the events it holds (its own business) */
	roz_time created_at;
	roz_time updated_at;
} roz_session;

/* A fresh session (review disabled, decision pending, empty trace). */
int roz_session_new(const char *session_id, roz_time now, roz_session **out) ROZ_WARN_UNUSED;
void roz_session_free(roz_session *s);

/* True for ids roz will store: 1..128 of [A-Za-z0-9_-], not starting with '.'. */
bool roz_session_id_valid(const char *id);

/* ---- decisions ----------------------------------------------------------- */

void roz_session_decision_dispose(roz_decision *d); /* frees strings, back to PENDING */
int roz_session_decision_copy(roz_decision *dst, const roz_decision *src) ROZ_WARN_UNUSED;
/*
 * Build a decision; strings are copied, NULL allowed for the optional ones.
 * ROZ_EINVALID (nothing changed) if a string given is not valid UTF-8.
 */
int roz_session_decision_set(roz_decision *d, roz_decision_kind kind, const char *summary,
			     const char *second_opinions, const char *message_to_agent) ROZ_WARN_UNUSED;
const char *roz_session_decision_kind_name(roz_decision_kind kind); /* "pending", ... */

/*
 * Replace the current decision: the old one goes to the history (stamped
 * `now`, the moment it was replaced), capped at ROZ_MAX_HISTORY.
 */
int roz_session_record_decision(roz_session *s, const roz_decision *d, roz_time now) ROZ_WARN_UNUSED;

/* When the current decision was made, or !set when that is unknown. */
roz_opt_time roz_session_decided_at(const roz_session *s);

/* ---- prompts, attempts, gate trigger ------------------------------------ */

/*
 * Store a prompt, cut at ROZ_MAX_PROMPT_BYTES, dropping the oldest past
 * ROZ_MAX_PROMPTS. ROZ_EINVALID if it is not valid UTF-8.
 */
int roz_session_add_prompt(roz_session *s, const char *prompt) ROZ_WARN_UNUSED;
/* The stored form of a prompt: itself, or cut with a note of its size. Caller frees. */
char *roz_session_prompt_truncate(const char *prompt);

int roz_session_add_attempt(roz_session *s, const char *template_id, roz_time now) ROZ_WARN_UNUSED;
/*
 * The newest attempt still PENDING / the newest attempt: *out, or NULL when
 * there is none. ROZ_OK; ROZ_ECORRUPT or ROZ_ENOMEM when the attempts a
 * hook kept as text cannot be read (*out NULL, nothing changed).
 */
int roz_session_pending_attempt(roz_session *s, roz_attempt **out) ROZ_WARN_UNUSED;
int roz_session_newest_attempt(roz_session *s, roz_attempt **out) ROZ_WARN_UNUSED;
const char *roz_session_outcome_kind_name(roz_outcome_kind kind); /* "pending", "success", ... */

/*
 * Record what triggered a gate. `input` is the tool input (borrowed; may be
 * NULL); it is stored whole if its JSON text is at most
 * ROZ_MAX_TOOL_INPUT_BYTES, else shortened, hashed and sized. Whatever the
 * input, what is stored reads back: text that is not UTF-8 is repaired
 * (U+FFFD), containers deeper than ROZ_MAX_TOOL_INPUT_DEPTH become a note,
 * and an input that still shortens to more than ROZ_MAX_TOOL_INPUT_STORED
 * bytes is kept as the start of its JSON text, in a string; any such change
 * marks it truncated, with the original's hash and size. ROZ_EINVALID if
 * tool_key or pattern is not UTF-8.
 */
int roz_session_set_gate_trigger(roz_session *s, const char *tool_key, const struct cJSON *input,
				 const char *pattern, roz_time now) ROZ_WARN_UNUSED;
void roz_session_gate_trigger_free(roz_gate_trigger *g);
int roz_session_truncated_input_make(const struct cJSON *input, roz_truncated_input *out) ROZ_WARN_UNUSED;
void roz_session_truncated_input_dispose(roz_truncated_input *t);

/* ---- reviewer runs --------------------------------------------------------- */

/* Record a reviewer start (the oldest run is dropped past ROZ_MAX_REVIEWER_RUNS). */
int roz_session_reviewer_start(roz_session *s, const char *agent_id, roz_time now) ROZ_WARN_UNUSED;
/* The run with this agent id, or NULL. */
roz_reviewer_run *roz_session_reviewer_find(roz_session *s, const char *agent_id);
/* Forget a run (no-op for NULL). */
void roz_session_reviewer_remove(roz_session *s, roz_reviewer_run *run);

/* ---- verdict tickets ------------------------------------------------------- */

/*
 * Issue a ticket (strings copied; tool_use_id may be NULL). The oldest is
 * dropped past ROZ_MAX_TICKETS. ROZ_EINVALID, storing nothing, for text
 * that is not UTF-8.
 */
int roz_session_ticket_add(roz_session *s, const char *agent_id, const char *tool_use_id,
			   roz_time now) ROZ_WARN_UNUSED;
/* Forget tickets more than `ttl_seconds` old at `now`. */
void roz_session_tickets_prune(roz_session *s, roz_time now, uint64_t ttl_seconds);

/* ---- trace ---------------------------------------------------------------- */

const char *roz_session_event_type_name(roz_event_type type); /* "session_start", ... */
/* ROZ_OK and *out set, or ROZ_ENOTFOUND for a name roz does not know. */
int roz_session_event_type_from_name(const char *name, size_t len, roz_event_type *out);

/*
 * Add an event to the trace; the store appends it at the next put.
 * `payload_json` is the payload's JSON text (NULL for `{}`); `id` its
 * identifier. ROZ_EINVALID (trace unchanged) if the event would not be
 * valid JSON, e.g. a payload with text that is not UTF-8.
 */
int roz_session_trace_add(roz_session *s, roz_event_type type, const char *id, roz_time now,
			  const char *payload_json) ROZ_WARN_UNUSED;

/*
 * Keep at most `max_events` of the `*n` events in `ev` (oldest first), in
 * place: when there are more, the first min(10, max/2) stay, then one
 * trace_compacted marker, then the newest. The marker counts every event
 * it stands for (`dropped_events`, including those an earlier marker among
 * them stood for), `kept_start` and `kept_end`, and takes the newest
 * event's time and an id made from that event, so every reader of the
 * same events sees the same marker. With max_events 0 nothing is kept.
 * Dropped texts are freed. ROZ_OK or ROZ_ENOMEM (events unchanged).
 */
int roz_session_trace_compact(roz_trace_entry *ev, size_t *n, size_t max_events) ROZ_WARN_UNUSED;

/* Take ownership of an event's JSON text (used by loaders). */
int roz_session_trace_push_raw(roz_session *s, char *json, size_t len) ROZ_WARN_UNUSED;

/* A trace event read back for display. */
typedef struct roz_trace_event {
	char *id;
	roz_time timestamp;
	bool has_timestamp;
	char *event_type;      /* as written, e.g. "gate_blocked" */
	struct cJSON *payload; /* may be NULL */
} roz_trace_event;

int roz_session_trace_event_parse(const roz_trace_entry *e, roz_trace_event *out) ROZ_WARN_UNUSED;
void roz_session_trace_event_dispose(roz_trace_event *ev);

#ifdef __cplusplus
}
#endif

#endif
