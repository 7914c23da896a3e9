/*
 * roz/hook_io.h - what Claude Code sends a hook and what roz answers.
 *
 * Input: one JSON object on stdin. session_id and cwd are required strings;
 * every other field roz reads is optional (absent or null), and unknown
 * fields are ignored. A known field of the wrong type is rejected, as is
 * input that is not UTF-8 JSON, so nothing half-understood reaches the
 * state machine.
 *
 * Output: exactly the shapes Claude Code accepts -
 *   allow      {}
 *   block      {"decision":"block","reason":"..."}
 *   context    {"hookSpecificOutput":{"hookEventName":"...","additionalContext":"..."}}
 *   deny, ask  {"hookSpecificOutput":{"hookEventName":"PreToolUse",
 *               "permissionDecision":"deny"|"ask","permissionDecisionReason":"..."}}
 * roz never answers "allow" for a tool: with no objection it prints {} and
 * leaves Claude Code's own permission rules in force.
 *
 * Ownership: string pointers in roz_hook_input borrow from `root`, which
 * roz_hook_input_clear() frees. roz_hook_output owns its strings.
 */
#ifndef ROZ_HOOK_IO_H
#define ROZ_HOOK_IO_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* Largest stdin roz reads; beyond it the hook fails open. */
#define ROZ_MAX_INPUT_BYTES (64u * 1024u * 1024u)

typedef struct roz_hook_input {
	struct cJSON *root;
	const char *session_id;
	const char *cwd;
	const char *transcript_path;
	const char *permission_mode;
	const char *hook_event_name;
	const char *prompt;
	const char *prompt_id;
	const char *tool_name;
	const struct cJSON *tool_input;
	const struct cJSON *tool_response;
	const char *tool_use_id;
	const char *source;
	const char *model;
	const char *agent_type;
	const char *agent_id;
	const char *agent_transcript_path;
	const char *last_assistant_message;
	const char *reason;
	const struct cJSON *background_tasks; /* array, as Claude Code sends it */
	const struct cJSON *effort;
	int stop_hook_active; /* -1 absent, else 0 or 1 */
} roz_hook_input;

/*
 * Parse hook input. ROZ_OK, ROZ_EINVALID (with a reason naming the field
 * or the JSON problem) or ROZ_ENOMEM. On failure `in` is cleared.
 */
int roz_hook_input_parse(const char *text, size_t len, roz_hook_input *in) ROZ_WARN_UNUSED;
void roz_hook_input_clear(roz_hook_input *in);

typedef enum roz_output_kind {
	ROZ_OUTPUT_ALLOW,   /* {} */
	ROZ_OUTPUT_BLOCK,   /* decision: block */
	ROZ_OUTPUT_CONTEXT, /* additionalContext */
	ROZ_OUTPUT_DENY,    /* PreToolUse deny */
	ROZ_OUTPUT_ASK      /* PreToolUse ask */
} roz_output_kind;

typedef struct roz_hook_output {
	roz_output_kind kind;
	char *text;             /* reason or context; NULL for ALLOW */
	const char *event_name; /* CONTEXT: "SessionStart", "UserPromptSubmit", ... */
} roz_hook_output;

void roz_hook_output_clear(roz_hook_output *out); /* back to ALLOW */
/* Set kind and text (copied). ROZ_OK or ROZ_ENOMEM (output left ALLOW). */
int roz_hook_output_set(roz_hook_output *out, roz_output_kind kind, const char *text) ROZ_WARN_UNUSED;
/* Same, taking ownership of text (which may be NULL after a failed build). */
int roz_hook_output_take(roz_hook_output *out, roz_output_kind kind, char *text) ROZ_WARN_UNUSED;
/* Append the JSON answer plus a newline. */
int roz_hook_output_write(const roz_hook_output *out, roz_buf *b) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
