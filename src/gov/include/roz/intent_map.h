/*
 * roz/intent_map.h - .orchestration/intent_map.md: which files each intent
 * changed, from the ledger (roz/ledger.h), for people and for the agents
 * that plan the next change (docs/governance.md, "The intent map").
 *
 *   # Intent Map
 *
 *   ## INT-001: JWT Authentication Migration
 *
 *   **Status:** IN_PROGRESS
 *   **Scope:** src/auth/\*\*, src/middleware/jwt.ts
 *
 *   | File | Ranges | Last Modified | Verifies |
 *   |------|--------|---------------|----------|
 *   | src/auth/jwt.ts | 1-40, 52-60 | 2026-02-18T14:30:00Z | 2 intact, 1 moved |
 *
 *   ## No intent
 *   ...
 *
 * Intents come in the intents file's order, then intents the ledger names
 * that the file no longer declares (by id), then "No intent" for records
 * made with none selected. Files are sorted by path (bytes). Ranges are the
 * lines the records attribute to the file under that intent, merged. The
 * Verifies column is there only when verification is given: per file,
 * how many of its ranges under that intent are intact, moved, edited,
 * missing or unverifiable now (those a later record retired: superseded,
 * removed, accepted, are not counted). Text from the intents file and the
 * ledger is Markdown-escaped and made one line, so a name or a path cannot
 * break the table or the headings. The same input always gives the same
 * bytes: the map holds no time of its own.
 *
 * The map is built as the ledger goes by (roz_intent_map_add_record, then
 * roz_intent_map_add_item for what verify found): per intent and file it
 * keeps the merged ranges, the latest time and the counts, never the
 * records, so a ledger of a million records costs what its files do.
 *
 * Ownership: roz_intent_map_records owns its records; release with
 * roz_intent_map_records_dispose(). roz_intent_map_free() releases a map.
 */
#ifndef ROZ_INTENT_MAP_H
#define ROZ_INTENT_MAP_H

#include "roz/common.h"
#include "roz/intents.h"
#include "roz/ledger.h"
#include "roz/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_INTENT_MAP_FILE ".orchestration/intent_map.md"
/* Ranges shown in one cell; the rest are counted ("... and 12 more"). */
#define ROZ_INTENT_MAP_RANGES_MAX 20u

/* The records of a ledger, in its order. */
typedef struct roz_intent_map_records {
	roz_ledger_rec *items;
	size_t n, cap;
	size_t bad;        /* lines that are not records (malformed, a torn tail); skipped */
} roz_intent_map_records;

/*
 * Read every line of the ledger text (blank lines are skipped, lines that
 * do not parse are counted in `bad`). `out` must be zeroed or disposed.
 * ROZ_OK or ROZ_ENOMEM (out is then empty).
 */
int roz_intent_map_records_parse(const char *ledger, size_t len, roz_intent_map_records *out) ROZ_WARN_UNUSED;
void roz_intent_map_records_dispose(roz_intent_map_records *r);

typedef struct roz_intent_map roz_intent_map;

/* An empty map. ROZ_OK or ROZ_ENOMEM (*out NULL). */
int roz_intent_map_new(roz_intent_map **out) ROZ_WARN_UNUSED;

/* One record of the ledger, in any order. ROZ_OK or ROZ_ENOMEM. */
int roz_intent_map_add_record(roz_intent_map *m, const roz_ledger_rec *rec) ROZ_WARN_UNUSED;

/*
 * What verify found for one range of `path` under `intent_id` (NULL: none).
 * Counted in the row of that intent and path, if a record gave it one.
 * ROZ_OK or ROZ_ENOMEM.
 */
int roz_intent_map_add_item(roz_intent_map *m, const char *intent_id, const char *path,
			    roz_verify_state state) ROZ_WARN_UNUSED;

/*
 * Append the map under `intents` (may be NULL) to `out`: `records` and
 * `bad` (ledger lines skipped) are said in its preamble, and `verified`
 * adds the Verifies column. ROZ_OK or ROZ_ENOMEM.
 */
int roz_intent_map_write(roz_intent_map *m, const roz_intents *intents, size_t records, size_t bad,
			 bool verified, roz_buf *out) ROZ_WARN_UNUSED;
void roz_intent_map_free(roz_intent_map *m);

/*
 * The map of records held in memory: roz_intent_map_add_record for each
 * of `recs`, roz_intent_map_add_item for each item of `verify` (the report
 * of roz_verify_run over the same ledger; may be NULL: no Verifies), then
 * roz_intent_map_write. ROZ_OK or ROZ_ENOMEM.
 */
int roz_intent_map_render(const roz_intents *intents, const roz_ledger_rec *recs, size_t nrecs, size_t bad,
			  const roz_verify_report *verify, roz_buf *out) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
