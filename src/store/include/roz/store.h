/*
 * roz/store.h - where sessions live, as seen by the code that uses them.
 *
 * A store keeps one session per id: its state, and the trace of events
 * beside it. Two backends exist: files (under <dir>/sessions/, the real
 * thing) and memory (for tests). Both honour the same contract, checked by
 * one test suite, which also runs through a wrapper that fails each call in
 * turn:
 *
 *   get       ROZ_OK and the whole session, which the caller owns: its
 *             state and its trace, at most the store's trace cap of events
 *             (roz_session_trace_compact: the first, a marker, the newest;
 *             what a reader sees, whatever the store holds); ROZ_ENOTFOUND;
 *             or ROZ_ECORRUPT when the stored state cannot be read back
 *             (the stored data is left untouched; see quarantine). A trace
 *             line that cannot be read is left out, never fatal.
 *   get_state the state alone, what a hook reads: the trace holds only
 *             events an older file kept inline, not yet moved beside it.
 *             Its cost does not grow with the trace.
 *   put       replaces the state atomically (a reader sees the old state
 *             or the new one, never a mix, even if the writer dies midway)
 *             and appends the events added since the get (those after
 *             trace_saved) to the trace, all of them whole or none. A
 *             trace that has grown to twice the cap is compacted to the cap
 *             by the put that finds it so. A writer that dies between the
 *             state and the append loses that put's events, nothing else.
 *   list      ids of stored sessions, in no particular order.
 *   delete    removes a session and its trace; deleting a missing one is
 *             not an error.
 *   lock      an exclusive per-session lock, held across a read-modify-
 *             write so parallel hooks lose no update. Waits at most
 *             timeout_ms (ROZ_ETIMEOUT after). A lock left by a process
 *             that died is taken over, never waited on forever.
 *   quarantine moves a corrupt session aside (file backend:
 *             <id>.json.corrupt-<time>, its trace with it) so a fresh one
 *             can start.
 *   sweep     removes what the store left behind rather than stored: old
 *             moved-aside copies, temp files no writer came back to, locks
 *             of sessions never saved (roz clean). Added in version 2 of
 *             the backend table; a backend that predates it answers
 *             ROZ_EINVALID, "not supported by this backend".
 *
 * Every call validates the session id first (roz_session_id_valid) and
 * answers ROZ_EINVALID for anything else, so ids never become paths.
 * Errors carry a message in roz_error_last(). A call that fails hands
 * nothing back (its out parameters are NULL or 0, and a failed lock is not
 * held), and leaves what is stored in the state before the call or the
 * state after it, never one in between: a caller that is told a put
 * failed must allow that it may have landed.
 */
#ifndef ROZ_STORE_H
#define ROZ_STORE_H

#include "roz/session.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roz_store roz_store;
typedef struct roz_lock roz_lock;

typedef struct roz_store_file_opts {
	bool fsync; /* flush data and directory before reporting a put done */
} roz_store_file_opts;

/* A file store rooted at `dir` (sessions in dir/sessions). Nothing is created until written. */
int roz_store_file_open(const char *dir, const roz_store_file_opts *opts, roz_store **out) ROZ_WARN_UNUSED;
/* An empty in-memory store. */
int roz_store_memory_new(roz_store **out) ROZ_WARN_UNUSED;
void roz_store_free(roz_store *store);

int roz_store_get(roz_store *store, const char *id, roz_session **out) ROZ_WARN_UNUSED;
int roz_store_get_state(roz_store *store, const char *id, roz_session **out) ROZ_WARN_UNUSED;
/* Also marks the events it appended as saved in `session` (trace_saved). */
int roz_store_put(roz_store *store, roz_session *session) ROZ_WARN_UNUSED;

/* The trace cap a new store starts with: [trace] max_events' default. */
#define ROZ_TRACE_MAX_DEFAULT 500

/*
 * Keep at most `max_events` trace events per session (0: none). A backend
 * older than version 3 keeps ROZ_TRACE_MAX_DEFAULT whatever is asked.
 */
void roz_store_set_trace_cap(roz_store *store, size_t max_events);
int roz_store_delete(roz_store *store, const char *id) ROZ_WARN_UNUSED;
/* *ids is a NULL-terminated array the caller frees with roz_store_ids_free(). */
int roz_store_list(roz_store *store, char ***ids, size_t *n) ROZ_WARN_UNUSED;
/* Free a NULL-terminated list of names the store handed out (list, sweep); NULL is a no-op. */
void roz_store_ids_free(char **ids);

int roz_store_lock(roz_store *store, const char *id, uint32_t timeout_ms, roz_lock **out) ROZ_WARN_UNUSED;
/* Release (NULL is a no-op). Never fails from the caller's point of view. */
void roz_store_unlock(roz_store *store, roz_lock *lock);

/* *moved_to (caller frees, may be NULL on return) names where the data went. */
int roz_store_quarantine(roz_store *store, const char *id, roz_time now, char **moved_to) ROZ_WARN_UNUSED;

/* A note for the user about something the store put right by itself (borrowed message). */
typedef void (*roz_store_warn_fn)(void *ud, const char *message);

/*
 * Where a file store reports what it fixes on its own, such as a sessions
 * directory others could write to that it made private again (storage.md).
 * Without one it fixes the same things quietly. Other backends ignore it.
 */
void roz_store_file_on_warning(roz_store *store, roz_store_warn_fn warn, void *ud);

/* What a sweep looks for, and whether it removes what it finds. */
typedef struct roz_store_sweep_opts {
	roz_time now;    /* the time now: a temp or lock file younger than a minute may be in use */
	roz_time before; /* what went aside or was left before this goes */
	bool all;        /* whatever its age (`before` is ignored) */
	bool dry_run;    /* find and report, remove nothing */
} roz_store_sweep_opts;

/*
 * Remove what the store left behind, never a stored session (those go with
 * roz_store_delete). The file backend removes, from its sessions directory:
 *
 *   <id>.json.corrupt-<time>[-N]  files moved aside, dated by the later of
 *                                 their last write and the time in their
 *                                 name (the move), so one moved aside a
 *                                 moment ago stays for the whole age;
 *   <id>.json.tmp-*               temp files a killed writer left;
 *   <id>.lock                     lock files of sessions that were never
 *                                 saved, checked and removed under the
 *                                 lock, so a hook creating the session
 *                                 right now keeps it;
 *
 * each when dated before opts->before (or opts->all), temp and lock files
 * only once a minute old, and only regular files: what roz did not make it
 * does not delete. A file that cannot be removed is left out of the report.
 * The memory backend leaves nothing behind (a write replaces the session
 * whole, quarantine drops the copy, a lock lives while it is held), so its
 * sweep finds nothing and reports an empty list.
 *
 * *removed (caller frees with roz_store_ids_free) is a NULL-terminated list
 * of the names of what went, or with dry_run would go, in no particular
 * order; *n counts them. ROZ_OK; ROZ_EINVALID when the backend's version
 * predates sweep or it has none ("not supported by this backend"); or an
 * error listing the directory.
 */
int roz_store_sweep(roz_store *store, const roz_store_sweep_opts *opts, char ***removed,
		    size_t *n) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
