/*
 * roz/intents.h - the intents file, .orchestration/active_intents.yaml:
 * what work is authorised in a repository, and the <intent_context> block
 * the agent reads when it selects one.
 *
 *   active_intents:
 *     - id: "INT-001"                      required, unique, 1-128 visible ASCII characters
 *       name: "JWT Authentication Migration"   required, not empty
 *       status: "IN_PROGRESS"              required: DRAFT | IN_PROGRESS | COMPLETED | ARCHIVED
 *       owned_scope: ["src/auth/"]         globs, see roz/scope.h
 *       constraints: ["..."]
 *       acceptance_criteria: ["..."]
 *       created_at: "2026-02-18T12:00:00Z" optional, kept as written
 *       updated_at: "2026-02-18T14:30:00Z" optional, kept as written
 *
 * Keys roz does not know are ignored, so a newer file still reads. A scalar
 * YAML would take for a number or a boolean (`id: 001`) is its text
 * ("001"); `~`, `null` and nothing mean absent (an empty list, for the
 * three lists). Strings hold no NUL and no control character but tab.
 *
 * The file is all or nothing: the first problem refuses the whole file, so
 * a half-read file never authorises a change its author did not mean.
 *
 * Ownership: a roz_intents owns its items and all their strings; release
 * it with roz_intents_dispose(). A roz_intents_error owns its message;
 * release it with roz_intents_error_dispose().
 */
#ifndef ROZ_INTENTS_H
#define ROZ_INTENTS_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum roz_intent_status {
	ROZ_INTENT_DRAFT,
	ROZ_INTENT_IN_PROGRESS,
	ROZ_INTENT_COMPLETED,
	ROZ_INTENT_ARCHIVED
} roz_intent_status;

typedef struct roz_intent {
	char *id, *name;
	roz_intent_status status;
	char **scope; size_t nscope;            /* owned_scope globs */
	char **constraints; size_t nconstraints;
	char **criteria; size_t ncriteria;      /* acceptance_criteria */
	char *created_at, *updated_at;          /* NULL when absent */
	unsigned line;                          /* 1-based line where the entry starts */
} roz_intent;

typedef struct roz_intents {
	roz_intent *items;
	size_t n;
} roz_intents;

typedef struct roz_intents_error {
	unsigned line, col; /* 1-based; col counts characters, as an editor does */
	char *message;      /* one sentence, no file name, no position */
} roz_intents_error;

#define ROZ_INTENTS_MAX_BYTES (1024 * 1024) /* larger files are refused by the caller and by parse */
#define ROZ_INTENTS_MAX (1000)              /* intents per file */
#define ROZ_INTENTS_ID_MAX (128)            /* bytes in an id */
/* Values read, aliases counted each time they are used: bounds the work of an alias bomb. */
#define ROZ_INTENTS_NODES_MAX (100000)
/*
 * libyaml's work grows with the nesting depth times the length, and with
 * the anchors times the aliases; an intents file needs little of either.
 */
#define ROZ_INTENTS_DEPTH_MAX (64)   /* lists and mappings inside each other */
#define ROZ_INTENTS_ANCHORS_MAX (100) /* anchors (&name) in the file */

/*
 * Read `len` bytes of `text` (need not be NUL-terminated) into `out`, which
 * the caller owns and which is overwritten (dispose it first if it holds
 * intents). Returns:
 *   ROZ_OK;
 *   ROZ_EPARSE   not YAML (libyaml's problem, at its position), not UTF-8
 *                (at the first bad byte), or over ROZ_INTENTS_MAX_BYTES;
 *   ROZ_EINVALID YAML that breaks the schema: no `active_intents`, a value
 *                of the wrong type, a missing or empty id or name, a
 *                duplicate id or key, an unknown status, an unusable glob,
 *                a control character, over ROZ_INTENTS_MAX intents,
 *                ROZ_INTENTS_NODES_MAX values, ROZ_INTENTS_DEPTH_MAX levels
 *                or ROZ_INTENTS_ANCHORS_MAX anchors, a second document;
 *   ROZ_ENOMEM.
 * On any failure `out` is empty and, when `err` is not NULL, it holds the
 * first problem (err->message may be NULL when memory ran out); `err` is
 * overwritten, so dispose of an earlier error first. roz_error_last() then
 * reads "<line>:<col>: <message>". An empty file is valid, with 0 intents.
 */
int roz_intents_parse(const char *text, size_t len, roz_intents *out, roz_intents_error *err)
	ROZ_WARN_UNUSED;

/* The intent with this id (exact, case-sensitive), or NULL. Borrowed from `ints`. */
const roz_intent *roz_intents_find(const roz_intents *ints, const char *id);

/* "DRAFT", "IN_PROGRESS", "COMPLETED", "ARCHIVED"; "UNKNOWN" for anything else. */
const char *roz_intents_status_name(roz_intent_status s);

/*
 * Append the <intent_context> block for `it` to `out`, ending with a
 * newline. Text and attribute values are XML-escaped (& < > " '); bytes
 * XML 1.0 cannot carry (control characters but tab, LF and CR, U+FFFE,
 * U+FFFF, malformed UTF-8) become U+FFFD. Memory failure is left in `out`
 * (roz_buf_failed).
 */
void roz_intents_context_xml(const roz_intent *it, roz_buf *out);

/* Free every intent and leave `ints` empty. NULL is a no-op. */
void roz_intents_dispose(roz_intents *ints);

/* Free the message and leave `err` empty. NULL is a no-op. */
void roz_intents_error_dispose(roz_intents_error *err);

#ifdef __cplusplus
}
#endif

#endif
