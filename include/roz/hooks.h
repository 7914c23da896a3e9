/*
 * roz/hooks.h - the review state machine, one pure handler per hook.
 *
 * Calling sequence (what the runner does for `roz hook <event>`):
 *
 *   roz_hook_prepare(ev, input, config, &plan)
 *       decides, without touching storage, whether this call needs the
 *       session at all (a tool call that matches no gate does not);
 *   [lock and load the session when plan.needs_session]
 *   roz_hook_handle(ev, input, env, &plan, &session, &result)
 *       updates the session in memory and fills result.output;
 *   [write the session when result.save, unlock, print the output]
 *
 * Handlers read no clock, environment or file: `env` carries the time, the
 * config, id and random sources, the template loader and what the runner
 * found on PATH. Given the same inputs they give the same answer, which is
 * what the tests rely on.
 *
 * Ownership: *session passed in belongs to the caller and may be replaced
 * (a handler creates one when none was stored); whatever is in *session on
 * return belongs to the caller. plan and result own their contents and are
 * released with roz_hook_plan_clear() / roz_hook_result_clear().
 */
#ifndef ROZ_HOOKS_H
#define ROZ_HOOKS_H

#include "roz/config.h"
#include "roz/gate.h"
#include "roz/hook_io.h"
#include "roz/session.h"
#include "roz/uuid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum roz_hook_event {
	ROZ_HOOK_SESSION_START,
	ROZ_HOOK_USER_PROMPT,
	ROZ_HOOK_PRE_TOOL_USE,
	ROZ_HOOK_STOP,
	ROZ_HOOK_SUBAGENT_START,
	ROZ_HOOK_SUBAGENT_STOP,
	ROZ_HOOK_SESSION_END,
	ROZ_HOOK_UNKNOWN
} roz_hook_event;

/* "session-start" -> ROZ_HOOK_SESSION_START, ...; anything else ROZ_HOOK_UNKNOWN. */
roz_hook_event roz_hook_event_parse(const char *name);
const char *roz_hook_event_name(roz_hook_event ev);

/* The agent type of roz's reviewer, as Claude Code reports it. */
#define ROZ_REVIEWER_AGENT "roz:roz"

typedef struct roz_env {
	roz_time now;
	const roz_config *config;
	/* a fresh event id; ROZ_OK or an error */
	int (*new_id)(void *ud, char out[ROZ_UUID_SIZE]);
	/* a uniform random number in [0, bound), bound > 0 */
	uint64_t (*random)(void *ud, uint64_t bound);
	/* the text of template `id` (caller frees), or NULL to use the built-in one */
	char *(*load_template)(void *ud, const char *id);
	/* second-opinion tools found, e.g. "codex, gemini"; NULL for none */
	const char *second_opinions;
	/* the home directory and symbolic links, for paths in tool calls (zeroed: neither known) */
	roz_path_fs paths;
	void *ud;
} roz_env;

typedef struct roz_hook_plan {
	bool needs_session;     /* load (and lock) the stored session */
	bool is_notification;   /* a <task-notification>, not a user prompt */
	bool starts_reviewer;   /* an Agent call that starts roz:roz */
	roz_gate_match gate;    /* pre-tool-use: what the call matched */
} roz_hook_plan;

typedef struct roz_hook_result {
	roz_hook_output output;
	bool save;     /* the session changed; write it */
	roz_buf notes; /* lines for stderr ("roz: warning: ...") */
} roz_hook_result;

void roz_hook_plan_clear(roz_hook_plan *plan);
void roz_hook_result_init(roz_hook_result *res);
void roz_hook_result_clear(roz_hook_result *res);

int roz_hook_prepare(roz_hook_event ev, const roz_hook_input *in, const roz_config *config,
		     roz_hook_plan *plan) ROZ_WARN_UNUSED;

/*
 * Run the handler. Returns ROZ_OK, or an error after which the caller must
 * not save and should answer {} (the gate fails open). A handler never
 * blocks because of its own failure.
 */
int roz_hook_handle(roz_hook_event ev, const roz_hook_input *in, const roz_env *env,
		    const roz_hook_plan *plan, roz_session **session,
		    roz_hook_result *res) ROZ_WARN_UNUSED;

/* ---- pieces the CLI shares with the hooks ---------------------------------- */

/*
 * Record a verdict, as `roz decide` does: history, trace, approval time
 * (COMPLETE). The verdict is trusted (counts as an approval) only once the
 * reviewer's SubagentStop vouches for it, unless `override` says a person
 * recorded it outside Claude Code, or review.require_reviewer is off; in
 * those cases the pending attempt is marked a success at once.
 */
int roz_decide_apply(roz_session *s, roz_decision_kind kind, const char *summary,
		     const char *message, const char *opinions, bool override,
		     const roz_env *env) ROZ_WARN_UNUSED;

/* How long after the reviewer's call to `roz decide` its ticket stays good. */
#define ROZ_TICKET_TTL_SECONDS 120

/*
 * `roz decide` as the CLI runs it, on the locked session. An override (the
 * caller has made sure a person stands behind it) and any verdict while
 * review.require_reviewer is off are recorded at once. Otherwise the verdict
 * needs a ticket: the reviewer's own Bash call that runs `roz decide` is
 * issued one by pre-tool-use, good for ROZ_TICKET_TTL_SECONDS and for one
 * verdict. The oldest live ticket is used, and the verdict is bound to its
 * reviewer: only that reviewer's SubagentStop vouches for it. A used ticket
 * presented again contests the verdict recorded with it (no reviewer
 * vouches for it until one records a verdict anew).
 *
 * Returns ROZ_OK when recorded; ROZ_EINVALID when refused, with what a
 * person should do in roz_error_last(); or an error from recording. *save
 * says whether the session changed and must be saved (also on a refusal
 * that contested a verdict).
 */
int roz_decide_record(roz_session *s, roz_decision_kind kind, const char *summary,
		      const char *message, const char *opinions, bool override, const roz_env *env,
		      bool *save) ROZ_WARN_UNUSED;

/* The block message for a stop: the selected template with {{session_id}} filled in. */
extern const char roz_default_template[];
/* Choose a template id from config (an id, or "random" with weights). Caller frees. */
char *roz_template_select(const roz_config *config, const roz_env *env);

/* True when the gate has a standing approval for this session right now. */
bool roz_gate_approved(const roz_session *s, const roz_config *config, roz_time now);
/* True while a tripped circuit breaker is still cooling down. */
bool roz_breaker_cooling(const roz_session *s, const roz_config *config, roz_time now);

#ifdef __cplusplus
}
#endif

#endif
