/*
 * roz/sys/store.h - what a storage backend implements.
 *
 * A backend is a struct whose first member is a roz_store holding this
 * table; it casts back to its own type inside each method. roz_store_*()
 * in store.c validate ids and the version before calling in, so methods
 * may assume a valid id.
 *
 * Versions. The table only ever grows, by appending methods at its end,
 * and `version` says how much of it a backend filled in:
 *
 *   1  get, put, list, del, lock, unlock, quarantine, free
 *   2  sweep
 *   3  get_state, set_trace_cap (a new backend starts at
 *      ROZ_TRACE_MAX_DEFAULT). A backend of version 3 keeps the trace
 *      beside the state (roz/store.h); before it, put stored the whole
 *      session and get read it back, and store.c compacts what such a
 *      backend reads to the default cap.
 *
 * store.c accepts every version from 1 to ROZ_STORE_VERSION and refuses 0
 * and versions from the future. A backend written against version N keeps
 * working: a caller reads a method added after N only once the version
 * says it is there (roz_store_sweep answers "not supported" otherwise), and
 * never touches the bytes where a later method would be, which in an older
 * backend's struct belong to the backend itself. A method of the backend's
 * version may still be NULL where the contract allows it (sweep); the
 * methods of version 1 are all required, and so are those of version 3.
 *
 * Each method follows the contract in roz/store.h and sets the error
 * message on failure; a method that fails leaves its out parameters as the
 * caller set them (NULL) and owns nothing it was going to hand back.
 */
#ifndef ROZ_SYS_STORE_H
#define ROZ_SYS_STORE_H

#include "roz/store.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_STORE_VERSION 3

struct roz_store {
	unsigned int version;
	int (*get)(roz_store *store, const char *id, roz_session **out);
	int (*put)(roz_store *store, const roz_session *session);
	int (*list)(roz_store *store, char ***ids, size_t *n);
	int (*del)(roz_store *store, const char *id);
	int (*lock)(roz_store *store, const char *id, uint32_t timeout_ms, roz_lock **out);
	void (*unlock)(roz_store *store, roz_lock *lock);
	int (*quarantine)(roz_store *store, const char *id, roz_time now, char **moved_to);
	void (*free)(roz_store *store);
	/* version 2 */
	int (*sweep)(roz_store *store, const roz_store_sweep_opts *opts, char ***removed, size_t *n);
	/* version 3 */
	int (*get_state)(roz_store *store, const char *id, roz_session **out);
	void (*set_trace_cap)(roz_store *store, size_t max_events);
};

/*
 * Whether a put that leaves `kept` events in a trace capped at `cap` must
 * compact it: once it holds twice the cap, so compaction costs one rewrite
 * per cap's worth of events, not one per event.
 */
static inline bool roz_store_trace_due(size_t kept, size_t cap)
{
	return kept > cap && kept - cap >= (cap ? cap : 1);
}

#ifdef __cplusplus
}
#endif

#endif
