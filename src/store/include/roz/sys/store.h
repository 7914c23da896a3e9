/*
 * roz/sys/store.h - what a storage backend implements.
 *
 * A backend is a struct whose first member is a roz_store holding this
 * table; it casts back to its own type inside each method. The table is
 * versioned and only ever grows by appending methods, so a backend written
 * against version N keeps working. roz_store_*() in store.c validate ids
 * and the version before calling in, so methods may assume a valid id.
 *
 * Each method follows the contract in roz/store.h and sets the error
 * message on failure.
 */
#ifndef ROZ_SYS_STORE_H
#define ROZ_SYS_STORE_H

#include "roz/store.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_STORE_VERSION 1

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
};

#ifdef __cplusplus
}
#endif

#endif
