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
 * released with roz_hook_plan_dispose() / roz_hook_result_dispose().
 */
#ifndef ROZ_HOOKS_H
#define ROZ_HOOKS_H

#include "roz/config.h"
#include "roz/gate.h"
#include "roz/hook_io.h"
#include "roz/session.h"
#include "roz/uuid.h"
#include "roz/work.h"

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
	ROZ_HOOK_POST_TOOL_USE, /* the review ignores it; governance learns from it */
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
	/* the working tree, for binding approvals to the work (roz/work.h); NULL: not bound */
	const roz_work_ops *work;
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

void roz_hook_plan_dispose(roz_hook_plan *plan);
void roz_hook_result_init(roz_hook_result *res);
void roz_hook_result_dispose(roz_hook_result *res);

/*
 * Add an event of `type` to the session's trace, named with a fresh id from
 * the environment and stamped with its time; `payload` is JSON text (NULL
 * for none). ROZ_OK or an error (ROZ_EINVALID: not valid JSON, not added).
 */
int roz_hook_trace(roz_session *s, const roz_env *env, roz_event_type type, const char *payload) ROZ_WARN_UNUSED;

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

#ifdef __cplusplus
}
#endif

#endif
