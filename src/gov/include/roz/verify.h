/*
 * roz/verify.h - does the ledger still describe the code? For each range a
 * record attributes, the file as it is now says:
 *
 *   intact      the same lines hash the same;
 *   moved       the hash is found at other lines of the file, or in another
 *               file the ledger names (the first such place is reported);
 *   changed     found nowhere;
 *   missing     the file is gone;
 *   superseded  a later record of the same file covers some of its lines:
 *               the agent changed them again, so the newer record speaks
 *               for them (not a failure; not hashed).
 *
 * Lines that are not records (malformed JSON, a torn tail) are reported by
 * line number and skipped; they never stop the run. With `since`, only the
 * records from the first one whose vcs.revision is `since` onward are
 * checked (the ledger is in the order things happened); earlier ones still
 * supersede.
 *
 * Cost: each file is read once, through the callback, and a hash is
 * computed per checked range. The ranges not found in place are sorted by
 * hash, one group per length; every window of that length in the files the
 * ledger names (its own file first) is hashed once and looked up among
 * them. Memory is the ranges', not the windows'.
 *
 * Ownership: the report owns everything in it; roz_verify_report_dispose().
 */
#ifndef ROZ_VERIFY_H
#define ROZ_VERIFY_H

#include "roz/common.h"
#include "roz/ledger.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum roz_verify_state {
	ROZ_VERIFY_INTACT,
	ROZ_VERIFY_MOVED,
	ROZ_VERIFY_CHANGED,
	ROZ_VERIFY_MISSING,
	ROZ_VERIFY_SUPERSEDED
} roz_verify_state;

/* "intact", "moved", "changed", "missing", "superseded". */
const char *roz_verify_state_name(roz_verify_state s);

/*
 * The current content of `path` (relative to the root): ROZ_OK with *text
 * (caller frees with roz_free) and *len, ROZ_ENOTFOUND when there is no
 * such file, another error when it cannot be read (reported as missing,
 * with the reason).
 */
typedef int (*roz_verify_read_fn)(void *ud, const char *path, char **text, size_t *len);

typedef struct roz_verify_item {
	size_t line;               /* the record's line in the ledger, 1-based */
	char *record_id;
	char *intent_id;           /* or NULL */
	char *session_id;          /* or NULL */
	char *path;
	unsigned long start_line, end_line;
	roz_verify_state state;
	char *moved_path;          /* MOVED: where it is now */
	unsigned long moved_start, moved_end;
	char *why;                 /* MISSING for a read error, or NULL */
} roz_verify_item;

typedef struct roz_verify_bad_line {
	size_t line;
	char *why;
} roz_verify_bad_line;

typedef struct roz_verify_report {
	roz_verify_item *items;
	size_t n, cap;
	roz_verify_bad_line *bad;
	size_t nbad, capbad;
	size_t records;            /* records read (all of them) */
	size_t counts[ROZ_VERIFY_SUPERSEDED + 1];
	bool since_found;          /* `since` was given and found */
} roz_verify_report;

/*
 * Verify the ledger text (the whole file). ROZ_OK or ROZ_ENOMEM. A report
 * passes when counts[CHANGED] and counts[MISSING] are 0.
 */
int roz_verify_run(const char *ledger, size_t len, const char *since, roz_verify_read_fn read,
		   void *ud, roz_verify_report *out) ROZ_WARN_UNUSED;
void roz_verify_report_dispose(roz_verify_report *r);

#ifdef __cplusplus
}
#endif

#endif
