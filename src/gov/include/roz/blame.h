/*
 * roz/blame.h - which record wrote each line of a file as it is now: what
 * `roz ledger blame` shows, the ledger's answer to "who wrote this line?".
 *
 * The records are those that name the file, in the order every ledger
 * reader takes them (roz/compact.h): by their own time, ties in ledger
 * order. Renames are followed back: a record renaming B into the file
 * makes the ranges B's earlier records hold the file's, and a file's
 * earlier name can have an earlier name in turn. The rules are verify's:
 * a range takes over every earlier range of the file it overlaps; a
 * removal, or a person's acceptance, retires every earlier range of the
 * file; a range a person stands for (contributor human) is never hashed.
 *
 * Each range still standing then says, for the file now:
 *   written       its lines hash the same where it put them;
 *   moved         the same lines are found elsewhere in the file (the
 *                 first place): those lines are marked;
 *   edited        found nowhere: its lines (cut to the file's length) were
 *                 changed since;
 *   accepted      a person stands for them (roz ledger accept);
 *   unverifiable  it holds no SHA-256 to check it by.
 * A later record wins a line over an earlier one; a line no range covers
 * is `none`.
 *
 * Pure: the caller reads the ledger and the file.
 */
#ifndef ROZ_BLAME_H
#define ROZ_BLAME_H

#include "roz/common.h"
#include "roz/ledger.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_BLAME_NO_RECORD ((size_t)-1)

typedef enum roz_blame_state {
	ROZ_BLAME_NONE = 0,
	ROZ_BLAME_WRITTEN,
	ROZ_BLAME_MOVED,
	ROZ_BLAME_EDITED,
	ROZ_BLAME_ACCEPTED,
	ROZ_BLAME_UNVERIFIABLE
} roz_blame_state;

/* "none", "written", "moved", "edited", "accepted", "unverifiable". */
const char *roz_blame_state_name(roz_blame_state s);

typedef struct roz_blame_line {
	size_t rec;                 /* index into the records given, or ROZ_BLAME_NO_RECORD */
	unsigned char state;        /* roz_blame_state */
	unsigned long start, end;   /* the range as its record wrote it (0 for none) */
} roz_blame_line;

/*
 * The names `path` had before: every path a record renamed into it, or
 * into one of those, from (`recs` in any order; a rename made after the
 * name was left is weeded out by roz_blame_run). *names (each and the
 * array freed by the caller with roz_free) excludes `path`. The caller
 * gathers the records of these too and runs again until no name is new.
 * ROZ_OK or ROZ_ENOMEM.
 */
int roz_blame_names(const char *path, const roz_ledger_rec *recs, size_t nrecs, char ***names,
		    size_t *nnames) ROZ_WARN_UNUSED;

/*
 * Add to `*names` (`*n` of them) the `found` ones it does not hold yet,
 * taking `found` and each of its strings (freed when already held): *fresh
 * says how many were new, so the caller knows whether to gather again.
 * ROZ_OK or ROZ_ENOMEM (`found` freed either way).
 */
int roz_blame_names_merge(char ***names, size_t *n, char **found, size_t nfound, size_t *fresh) ROZ_WARN_UNUSED;

/*
 * Blame `path`, whose content now is text (len bytes), by `recs` (every
 * record naming it or one of its earlier names, in the readers' order;
 * others are ignored). *out (caller frees with roz_free; NULL for an
 * empty file) gets one entry per line, *nlines of them. ROZ_OK or
 * ROZ_ENOMEM.
 */
int roz_blame_run(const char *path, const roz_ledger_rec *recs, size_t nrecs, const char *text, size_t len,
		  roz_blame_line **out, unsigned long *nlines) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
