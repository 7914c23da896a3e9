/*
 * roz/verify.h - does the ledger still describe the code? For each range a
 * record attributes (ranges a person wrote, `who` HUMAN, are not checked:
 * they only retire what came before), the file as it is now says:
 *
 *   intact        the same lines hash the same;
 *   moved         the lines are at other lines of the same file, or in the
 *                 file it was renamed to (a rename the caller found, e.g.
 *                 in git; followed through chains a -> b -> c);
 *   edited        the lines are nowhere: every change the agent makes is
 *                 recorded, so a change no later record explains is a
 *                 person's;
 *   missing       the file is gone, no record says it was removed and no
 *                 rename of it is known; or it could not be read, or its
 *                 path leaves the repository (`why` says which);
 *   removed       a later record removed the file (metadata.roz.removed);
 *   accepted      a later acceptance (roz ledger accept) names the file:
 *                 a person made it theirs as it is;
 *   unverifiable  the range has no SHA-256 to check it by (another tool's
 *                 record without content_hash, or another algorithm): it is
 *                 not hashed;
 *   superseded    a later record covers some of its lines (the agent or a
 *                 person changed them again, so the newer record speaks for
 *                 them), or renamed the file away; or the file is gone and
 *                 was never in this checkout's history (the caller's
 *                 renames say so: another branch's work whose record came
 *                 with a merge of the ledger). Not hashed.
 *
 * "Later" is in the records' own time order (their timestamps; the ledger's
 * order breaks ties, and is used for all when a record has no time), not
 * their place in the file: a union merge of two branches groups each
 * branch's lines. Of the later records that retire a range, the earliest
 * decides how (removed, accepted or superseded).
 *
 * Lines that are not records (malformed JSON, a torn tail, a line over
 * ROZ_LEDGER_MAX_LINE) are reported by line number and skipped; they never
 * stop the run.
 *
 * Which records are checked: all of them; or with a `since_known` callback
 * the records whose id it does not know (the ledger as it was at some
 * revision: what was added since); or with `since_revision` the records
 * from the first one (in time order) whose vcs.revision is it or starts
 * with it (at least 4 hex digits). Records not checked still retire
 * earlier ones.
 *
 * Cost and memory. The ledger comes one line at a time (roz_verify_feed)
 * and is never held: per record the engine keeps its place in the ledger
 * (offset, length, line), its rank in time and its intent (interned); per
 * range its file (interned), lines and the first 128 bits of its SHA-256,
 * which is what it is compared on. Which ranges a later record retires is
 * found per file with a segment tree over the file's line numbers (n log n,
 * whatever the order of the records). Then each file is read once, through
 * the callback, and released before the next: the ranges still standing
 * are hashed in place, and those that differ are looked for in the same
 * file only, every window of their length (each length once). A file that
 * is gone is looked up among the caller's renames (asked for once, and
 * only when some file is gone) and its ranges are looked for in the new
 * path the same way. The record id and session of an item are read again
 * from the ledger (roz_verify_at_fn) only for the items handed out.
 *
 * Nothing here touches the file system: the ledger, the files and the
 * renames all come through the caller's callbacks.
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

/* Superseded stays last: every state is <= ROZ_VERIFY_SUPERSEDED. */
typedef enum roz_verify_state {
	ROZ_VERIFY_INTACT,
	ROZ_VERIFY_MOVED,
	ROZ_VERIFY_EDITED,
	ROZ_VERIFY_MISSING,
	ROZ_VERIFY_REMOVED,
	ROZ_VERIFY_ACCEPTED,
	ROZ_VERIFY_UNVERIFIABLE,
	ROZ_VERIFY_SUPERSEDED
} roz_verify_state;

#define ROZ_VERIFY_NSTATES (ROZ_VERIFY_SUPERSEDED + 1)

/* "intact", "moved", "edited", "missing", "removed", "accepted", "unverifiable", "superseded". */
const char *roz_verify_state_name(roz_verify_state s);

/*
 * The current content of `path` (relative to the root): ROZ_OK with *text
 * (caller frees with roz_free) and *len, ROZ_ENOTFOUND when there is no
 * such file, another error when it cannot be read (reported as missing,
 * with the reason from roz_error_last()).
 */
typedef int (*roz_verify_read_fn)(void *ud, const char *path, char **text, size_t *len);

/*
 * The `len` bytes of the ledger line fed at `offset`, again: ROZ_OK with
 * *line valid until the next call; anything else and the item says "?"
 * for what it could not read again.
 */
typedef int (*roz_verify_at_fn)(void *ud, uint64_t offset, size_t len, const char **line);

/* Whether the record `id` was already in the ledger at the `since` revision (so it is not checked). */
typedef bool (*roz_verify_known_fn)(void *ud, const char *id);

/*
 * Renames the caller knows of (from -> to, paths relative to the root), in
 * no particular order (the first given of a path holds); and the gone
 * files that were never part of this checkout's history at all (`absent`:
 * their records came with a merge of the ledger from work that was not
 * merged, e.g. a cherry-pick of another commit): their ranges are not
 * this code's to answer for, and count as superseded, not missing.
 */
typedef struct roz_verify_renames {
	char **from, **to;
	size_t n, cap;
	char **absent;
	size_t nabsent, capabsent;
} roz_verify_renames;

/* Add one rename (copied). ROZ_OK or ROZ_ENOMEM. */
int roz_verify_renames_add(roz_verify_renames *r, const char *from, const char *to) ROZ_WARN_UNUSED;
/* Add one path that was never here (copied). ROZ_OK or ROZ_ENOMEM. */
int roz_verify_renames_absent(roz_verify_renames *r, const char *path) ROZ_WARN_UNUSED;
void roz_verify_renames_dispose(roz_verify_renames *r);

/* What the engine knows that helps find renames: where the records start, and which files are gone. */
typedef struct roz_verify_rename_hint {
	const char *revision;   /* vcs.revision of the earliest record that has one, or NULL */
	roz_time time;          /* the earliest record's time, when has_time */
	bool has_time;
	const char *const *gone; /* the paths of the files that are not there */
	size_t ngone;
} roz_verify_rename_hint;

/*
 * Called at most once, and only when a file the ledger names is gone: fill
 * `out` with the renames made since the records began (and the gone paths
 * that were never here). A failure other than ROZ_ENOMEM is as good as no
 * renames.
 */
typedef int (*roz_verify_renames_fn)(void *ud, const roz_verify_rename_hint *hint, roz_verify_renames *out);

/* Each record as it is read (ledger order), for a caller that aggregates it (the intent map). */
typedef int (*roz_verify_record_fn)(void *ud, const roz_ledger_rec *rec, size_t line);

typedef struct roz_verify_opts {
	roz_verify_read_fn read;          /* required */
	void *read_ud;
	roz_verify_at_fn at;              /* NULL: items carry no record id or session ("?" and NULL) */
	void *at_ud;
	roz_verify_known_fn since_known;  /* NULL: no such filter */
	void *since_ud;
	const char *since_revision;       /* NULL: no such filter (ignored with since_known) */
	roz_verify_renames_fn renames;    /* NULL: no renames */
	void *renames_ud;
	roz_verify_record_fn on_record;   /* NULL: none; an error it returns ends the feed */
	void *record_ud;
} roz_verify_opts;

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
	char *why;                 /* MISSING for a file that could not be read, or NULL */
} roz_verify_item;

typedef struct roz_verify_bad_line {
	size_t line;
	char *why;
} roz_verify_bad_line;

typedef struct roz_verify_report {
	roz_verify_item *items;    /* roz_verify_run: every item, in ledger order; otherwise empty */
	size_t n, cap;
	roz_verify_bad_line *bad;  /* in ledger order */
	size_t nbad, capbad;
	size_t records;            /* records read (all of them) */
	size_t ranges;             /* ranges checked: the sum of counts */
	size_t counts[ROZ_VERIFY_NSTATES];
	size_t unreadable;         /* of the missing, those whose file could not be read (`why`) */
	bool since_found;          /* a since filter was given and found where to start */
} roz_verify_report;

typedef struct roz_verify roz_verify;

/* Start a run. ROZ_OK or ROZ_ENOMEM; *out to release with roz_verify_free(). */
int roz_verify_begin(const roz_verify_opts *opts, roz_verify **out) ROZ_WARN_UNUSED;

/*
 * The next line of the ledger, without its "\n": `offset` is its place in
 * the ledger (for roz_verify_at_fn), `ended` false for a last line without
 * "\n" (a torn write). `line` NULL is a line over ROZ_LEDGER_MAX_LINE the
 * caller did not keep. Blank lines count and are skipped. ROZ_OK, ROZ_ENOMEM
 * or what on_record returned.
 */
int roz_verify_feed(roz_verify *v, const char *line, size_t len, uint64_t offset, bool ended) ROZ_WARN_UNUSED;

/*
 * After the last line: decide every range's state, reading the files, and
 * fill `out` (zeroed here) with the counts and the lines that are not
 * records. ROZ_OK or ROZ_ENOMEM (out is then empty).
 */
int roz_verify_settle(roz_verify *v, roz_verify_report *out) ROZ_WARN_UNUSED;

/* Which items roz_verify_each hands out. */
enum {
	ROZ_VERIFY_EACH_ALL = 1, /* intact and superseded ones too (default: only the others) */
	ROZ_VERIFY_EACH_IDS = 2  /* with record_id and session_id, read again from the ledger */
};

/*
 * The item `it` is valid during the call only (it points into the engine). A
 * non-zero return stops the walk and is returned.
 */
typedef int (*roz_verify_item_fn)(void *ud, const roz_verify_item *it);

/* After roz_verify_settle: the items, in ledger order. ROZ_OK, ROZ_ENOMEM or what fn returned. */
int roz_verify_each(roz_verify *v, unsigned flags, roz_verify_item_fn fn, void *ud) ROZ_WARN_UNUSED;

void roz_verify_free(roz_verify *v);

/*
 * The whole run over a ledger held in memory (`len` bytes), every item in
 * the report, owned by it. `since` is since_revision. ROZ_OK or ROZ_ENOMEM.
 */
int roz_verify_run(const char *ledger, size_t len, const char *since, roz_verify_read_fn read, void *ud,
		   roz_verify_report *out) ROZ_WARN_UNUSED;
void roz_verify_report_dispose(roz_verify_report *r);

#ifdef __cplusplus
}
#endif

#endif
