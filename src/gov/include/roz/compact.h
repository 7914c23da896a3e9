/*
 * roz/compact.h - which records of the ledger still speak for a line, and
 * the order every reader of the ledger takes them in.
 *
 * Order. Records are taken in the order of their own `timestamp`, ties in
 * ledger order; when some record has no time of its own the ledger's
 * order holds for all (as roz ledger verify reads them). Lines that are
 * not records play no part. roz_ledger_order_* decide it record by
 * record, so a reader that streams the ledger decides it as verify does.
 *
 * The rules, from the records alone (no source file is read):
 *   - a range of a file takes over every earlier range of that file it
 *     overlaps (whole ranges; a record never takes over its own);
 *   - a file the record removed (metadata.roz.removed), and every file of
 *     a person's acceptance (action "accept"), retires every earlier range
 *     of that path;
 *   - a file renamed from another (metadata.roz.renamed) retires every
 *     earlier range of the old path (verify: superseded, renamed away).
 * A range still standing after the last record speaks for lines of the
 * code. A record moves to the archive when none of its ranges stands and
 * nothing it took over or retired belongs to a record that stays
 * (so the active ledger reads exactly as before for every record left in
 * it). A record without a time of its own, and every line that is not a
 * record, stays.
 *
 * Memory: per record its place and time, per range its path (interned),
 * lines and which record took it over; never the records' text. The
 * caller feeds lines from any reader and writes the files.
 */
#ifndef ROZ_COMPACT_H
#define ROZ_COMPACT_H

#include "roz/common.h"
#include "roz/ledger.h"
#include "roz/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A plan of what moves (below). */
typedef struct roz_compact roz_compact;

/* Deciding the order record by record; zero it to start. */
typedef struct roz_ledger_order {
	bool untimed;       /* a record has no time: ledger order for all */
	bool unordered;     /* a record's time is before the one before it */
	bool any;
	roz_time last;
	roz_time latest;    /* the latest time seen */
} roz_ledger_order;

/*
 * A record's own time, found in its line without parsing it (the first
 * "timestamp":"..." member): a cheap look for a reader that parses only
 * some lines. False when there is none or it is not RFC 3339.
 */
bool roz_ledger_line_time(const char *line, size_t len, roz_time *t);

/* Take the next record (in ledger order): whether it has a time of its own, and that time. */
void roz_ledger_order_see(roz_ledger_order *o, bool timed, roz_time t);

/* Whether the records must be sorted by (time, ledger line) to be read in order. */
bool roz_ledger_order_sorts(const roz_ledger_order *o);

/*
 * Whether a record added after those `o` saw leaves the order of those as
 * it was: the order is the ledger's anyway, or the new record's time is no
 * earlier than any seen.
 */
bool roz_ledger_order_follows(const roz_ledger_order *o, bool timed, roz_time t);

/* The plan's order, as its records decided it. */
const roz_ledger_order *roz_compact_order(const roz_compact *c);

/* "YYYY-MM" of an instant, UTC (the archive a record of that time goes to). */
void roz_compact_month(roz_time t, char out[8]);

/* What happens to one line of the ledger. */
typedef struct roz_compact_line {
	size_t line;          /* 1-based */
	uint64_t offset;      /* where it starts in the ledger, as the caller gave it */
	size_t len;           /* without its "\n" */
	bool ended;           /* it ends in "\n" */
	bool record;          /* it parses as a record */
	bool move;            /* it goes to the archive */
	char month[8];        /* "YYYY-MM" when it moves */
} roz_compact_line;

/* A new plan, or NULL when memory runs out. */
roz_compact *roz_compact_new(void);
void roz_compact_free(roz_compact *c);

/*
 * Take the ledger's next line (without its "\n"; `ended` says whether it
 * had one), at `offset`; a NULL line is one too long to be held (len its
 * length). A blank line, like any line that is not a record, stays where
 * it is. ROZ_OK, ROZ_ENOMEM, or ROZ_EINVALID once the plan is made.
 */
int roz_compact_add(roz_compact *c, const char *line, size_t len, uint64_t offset, bool ended) ROZ_WARN_UNUSED;

/*
 * Decide, once every line was added (asking again gives the same
 * answer): *lines (owned by the plan, every line in ledger order) and how
 * many; *moved, the records that move. ROZ_OK or ROZ_ENOMEM.
 */
int roz_compact_plan(roz_compact *c, const roz_compact_line **lines, size_t *n, size_t *moved) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
