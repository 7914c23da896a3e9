/*
 * hookenv.h - a deterministic harness for the hook handlers: fixed clock,
 * counting ids, scripted randomness, an in-memory store, and a runner that
 * does what the real one does around roz_hook_handle (load, handle, save).
 */
#ifndef ROZ_TEST_HOOKENV_H
#define ROZ_TEST_HOOKENV_H

#include "support.h"

#include "roz/hooks.h"
#include "roz/store.h"

typedef struct t_hooks {
	roz_config config;
	roz_store *store;
	roz_time now;
	unsigned ids;            /* ids handed out so far */
	unsigned reviews;        /* reviewer runs started by th_review */
	uint64_t next_random;    /* what env->random returns (mod bound) */
	const char *template_text; /* returned by the template loader, or NULL */
	char *loaded_template_id;  /* the id last asked of the loader */
	const char *second_opinions;
	const roz_work_ops *work;  /* the handlers' look at the working tree (roz_env.work), or NULL */
} t_hooks;

typedef struct t_out {
	roz_output_kind kind;
	char *text;  /* reason/context, or NULL */
	char *json;  /* exactly what would be printed */
	char *notes; /* stderr lines */
	bool saved;
} t_out;

/* Defaults, a memory store, and now = 2026-01-01T00:00:00Z. */
void th_init(t_hooks *h);
void th_dispose(t_hooks *h);
void th_advance_ms(t_hooks *h, int64_t ms);
/* Gate patterns (NULL-terminated) and scope; replaces any previous gates. */
void th_gates(t_hooks *h, roz_approval_scope scope, const char *const *patterns);

/* Run `ev` on hook input built from the printf-style JSON. Returns the output kind. */
roz_output_kind th_run(t_hooks *h, roz_hook_event ev, t_out *out, const char *fmt, ...) ROZ_PRINTF(4, 5);
void th_out_dispose(t_out *out);

/* Shorthands: run and discard the output, returning its kind. */
roz_output_kind th_prompt(t_hooks *h, const char *sid, const char *prompt);
roz_output_kind th_stop(t_hooks *h, const char *sid);
roz_output_kind th_bash(t_hooks *h, const char *sid, const char *command);
roz_output_kind th_tool(t_hooks *h, const char *sid, const char *tool_name);
roz_output_kind th_reviewer_stop(t_hooks *h, const char *sid);

/* A reviewer hook (SubagentStart or SubagentStop of roz:roz with this agent id). */
roz_output_kind th_reviewer(t_hooks *h, roz_hook_event ev, const char *sid, const char *agent_id);
/* A whole reviewer run: it starts, records this verdict, and stops (which must be allowed). */
void th_review(t_hooks *h, const char *sid, roz_decision_kind kind, const char *summary,
	       const char *message);

/* `roz decide` on the stored session, by whoever runs it (not vouched for by a reviewer). */
void th_decide(t_hooks *h, const char *sid, roz_decision_kind kind, const char *summary,
	       const char *message);

void th_decide_full(t_hooks *h, const char *sid, roz_decision_kind kind, const char *summary,
		    const char *message, const char *opinions);

/* The stored session (caller frees with roz_session_free), or NULL. */
roz_session *th_get(t_hooks *h, const char *sid);
void th_put(t_hooks *h, roz_session *s);
/* Number of trace events of a type in the stored session. */
size_t th_count_events(t_hooks *h, const char *sid, roz_event_type type);

#endif
