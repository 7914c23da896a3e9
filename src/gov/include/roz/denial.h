/*
 * roz/denial.h - what governance tells the agent when it refuses a call.
 *
 * Every governance refusal is one structured error: a code the agent can
 * branch on, one readable sentence, the tool it concerns and details
 * (paths, scopes, the intents it may choose). The agent reads it as the
 * reason of a PreToolUse denial, so it comes as text in two parts: the
 * sentence first, for a model or a person reading top to bottom, then the
 * same error as one JSON object, for anything that parses:
 *
 *   roz: SCOPE_VIOLATION: src/billing/invoice.c is outside INT-001's scope (src/auth/).
 *   {"error":{"code":"SCOPE_VIOLATION","message":"...","tool":"Write","details":{...}}}
 *
 * Ownership: a roz_denial owns its strings and its details text; release it
 * with roz_denial_dispose().
 */
#ifndef ROZ_DENIAL_H
#define ROZ_DENIAL_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum roz_denial_code {
	ROZ_DENIAL_NONE = 0,
	ROZ_DENIAL_INTENT_REQUIRED,     /* a change before any intent was selected */
	ROZ_DENIAL_SCOPE_VIOLATION,     /* a change outside the selected intent's scope */
	ROZ_DENIAL_STALE_FILE,          /* the file changed on disk since this session read it */
	ROZ_DENIAL_DESTRUCTIVE_BLOCKED, /* a destructive command: the person decides */
	ROZ_DENIAL_INTENT_INVALID,      /* an unknown intent, or one not IN_PROGRESS */
	ROZ_DENIAL_INTENTS_UNREADABLE,  /* the intents file cannot be used: changes wait */
	ROZ_DENIAL_TARGET_UNKNOWN,      /* where a command writes is known only when it runs */
	ROZ_DENIAL_ORCHESTRATION,       /* .orchestration/ is written through roz only */
	ROZ_DENIAL_HOOK_ERROR,          /* roz itself failed while judging a change */
	ROZ_DENIAL_OUTSIDE_REPOSITORY   /* a write outside the repository and any temporary directory */
} roz_denial_code;

typedef struct roz_denial {
	roz_denial_code code;
	char *message; /* one sentence, no trailing newline */
	char *tool;    /* the tool name from the hook input, or NULL */
	char *details; /* a JSON object as text, or NULL for {} */
} roz_denial;

/* "SCOPE_VIOLATION", ...; "NONE" for ROZ_DENIAL_NONE. */
const char *roz_denial_code_name(roz_denial_code code);

/*
 * Fill `d` (caller-owned, any previous content released). `details` is a
 * JSON object's text or NULL; it is copied, not checked. ROZ_OK or
 * ROZ_ENOMEM (then `d` is empty).
 */
int roz_denial_set(roz_denial *d, roz_denial_code code, const char *tool, const char *details,
		   const char *fmt, ...) ROZ_PRINTF(5, 6) ROZ_WARN_UNUSED;

/* Append the two-part text (sentence line, then the JSON object) to `out`. */
void roz_denial_render(const roz_denial *d, roz_buf *out);

/* Append only the JSON object {"error":{...}} to `out`. */
void roz_denial_render_json(const roz_denial *d, roz_buf *out);

void roz_denial_dispose(roz_denial *d);

#ifdef __cplusplus
}
#endif

#endif
