/*
 * roz/hook_io.h - what Claude Code sends a hook and what roz answers.
 *
 * Input: one JSON object on stdin, judged field by field, so that one bad
 * field costs only that field and never a review or a gate:
 *
 *   required      session_id (a string, with no flaw below). Without it, or
 *                 when the text is not a JSON object at all, the input is
 *                 rejected (ROZ_EINVALID): the runner answers {}, or `ask`
 *                 for a PreToolUse while gates are configured.
 *   decisive      what gates judge: tool_name, tool_input itself, a Bash
 *                 call's tool_input.command, another tool's
 *                 tool_input.file_path and notebook_path (the store guard).
 *                 A flaw there, or a tool_name that is not a string, sets
 *                 tool_unreadable; with gates configured the runner answers
 *                 `ask` unless a refusal or a gate matched by name decides.
 *                 prompt of another type reads as "" (a prompt, but no
 *                 #roz); agent_type / agent_id of another type read as
 *                 absent (not the reviewer); stop_hook_active that is not a
 *                 boolean is ignored (-1); background_tasks that is not an
 *                 array reads as no tasks.
 *   not needed    cwd, transcript_path, permission_mode, hook_event_name,
 *                 prompt_id, tool_use_id, source, model,
 *                 agent_transcript_path, last_assistant_message, reason:
 *                 another type reads as absent. tool_response and effort
 *                 are kept as any JSON. Unknown fields are ignored.
 *
 * Every malformed field read this way leaves a line in `warnings`, naming
 * it. JSON that C cannot carry is rewritten before parsing: \u0000 (cJSON
 * would end the string there), lone UTF-16 surrogates, bytes that are not
 * UTF-8 and raw control characters inside strings become U+FFFD or their
 * escape, and a container nested past ROZ_JSON_MAX_DEPTH becomes a note;
 * each such flaw is a warning too, and in a decisive field it also sets
 * tool_unreadable. Text that is not JSON in shape is rejected.
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
 * Ownership: string pointers in roz_hook_input borrow from `root` (prompt
 * may also point to a constant ""); `warnings`, `tool_unreadable` and
 * `root` are owned by the input and released by roz_hook_input_dispose().
 * roz_hook_output owns its strings.
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
	/* what was malformed and how it was read: lines without a "roz:" prefix, each ending in '\n' */
	roz_buf warnings;
	/* why a gate could not judge this tool call (a decisive field was unreadable), or NULL */
	char *tool_unreadable;
} roz_hook_input;

/*
 * Parse hook input. ROZ_OK (with any warnings in in->warnings), ROZ_EINVALID
 * (the input cannot be used at all; the reason names the field or the JSON
 * problem) or ROZ_ENOMEM. On failure `in` is cleared.
 */
int roz_hook_input_parse(const char *text, size_t len, roz_hook_input *in) ROZ_WARN_UNUSED;
void roz_hook_input_dispose(roz_hook_input *in);

typedef enum roz_output_kind {
	ROZ_OUTPUT_ALLOW,   /* {} */
	ROZ_OUTPUT_BLOCK,   /* decision: block */
	ROZ_OUTPUT_CONTEXT, /* additionalContext */
	ROZ_OUTPUT_DENY,    /* PreToolUse deny */
	ROZ_OUTPUT_ASK      /* PreToolUse ask */
} roz_output_kind;

/*
 * The most text one answer carries, in characters as Claude Code counts
 * them (UTF-16 code units). Claude Code shows a hook's text inline up to
 * about 10,000 characters and past that only a preview, so roz stays under
 * it: a longer text is cut at the end of a line (within a line longer than
 * the bound, at a character) and ends with a note saying how much was left
 * out and how to see it (the answer's `more`).
 */
#define ROZ_OUTPUT_MAX_CHARS 9000

typedef struct roz_hook_output {
	roz_output_kind kind;
	char *text;             /* reason or context; NULL for ALLOW */
	const char *event_name; /* CONTEXT: "SessionStart", "UserPromptSubmit", ... */
	const char *more;       /* how to see what a cut left out ("`roz context X` shows it"); borrowed */
} roz_hook_output;

void roz_hook_output_dispose(roz_hook_output *out); /* back to ALLOW */
/* Set kind and text (copied). ROZ_OK or ROZ_ENOMEM (output left ALLOW). */
int roz_hook_output_set(roz_hook_output *out, roz_output_kind kind, const char *text) ROZ_WARN_UNUSED;
/* Same, taking ownership of text (which may be NULL after a failed build). */
int roz_hook_output_take(roz_hook_output *out, roz_output_kind kind, char *text) ROZ_WARN_UNUSED;
/* Append the JSON answer plus a newline, its text cut to ROZ_OUTPUT_MAX_CHARS. */
int roz_hook_output_write(const roz_hook_output *out, roz_buf *b) ROZ_WARN_UNUSED;

/*
 * Append text (valid UTF-8) to b, whole when it is at most max_chars UTF-16
 * code units, else cut to fit with the note included: whole lines while
 * they fit (a single line longer than that: whole characters), then
 * "[roz: N more lines (M characters) not shown here; <more>.]". Returns how
 * many characters it left out.
 */
size_t roz_hook_text_add_clipped(roz_buf *b, const char *text, size_t max_chars, const char *more);

#ifdef __cplusplus
}
#endif

#endif
