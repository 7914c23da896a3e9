/*
 * store.c - the user-facing store calls: check the version and the session
 * id, then hand over to the backend's method table.
 */
#include "roz/sys/store.h"

#include <string.h>

static int check(roz_store *store, const char *id)
{
	if (!store || store->version != ROZ_STORE_VERSION) {
		roz_error_set("store has unsupported version %u", store ? store->version : 0);
		return ROZ_EINVALID;
	}
	if (id && !roz_session_id_valid(id)) {
		roz_error_set("invalid session id '%.*s'", 80, id);
		return ROZ_EINVALID;
	}
	return ROZ_OK;
}

int roz_store_get(roz_store *store, const char *id, roz_session **out)
{
	int rc;

	*out = NULL;
	if ((rc = check(store, id ? id : "")) < 0)
		return rc;
	return store->get(store, id, out);
}

int roz_store_put(roz_store *store, const roz_session *session)
{
	int rc = check(store, session && session->session_id ? session->session_id : "");

	return rc < 0 ? rc : store->put(store, session);
}

int roz_store_delete(roz_store *store, const char *id)
{
	int rc = check(store, id ? id : "");

	return rc < 0 ? rc : store->del(store, id);
}

int roz_store_list(roz_store *store, char ***ids, size_t *n)
{
	int rc = check(store, NULL);

	*ids = NULL;
	*n = 0;
	return rc < 0 ? rc : store->list(store, ids, n);
}

void roz_store_ids_free(char **ids)
{
	if (!ids)
		return;
	for (char **p = ids; *p; p++)
		roz_free(*p);
	roz_free(ids);
}

int roz_store_lock(roz_store *store, const char *id, uint32_t timeout_ms, roz_lock **out)
{
	int rc;

	*out = NULL;
	if ((rc = check(store, id ? id : "")) < 0)
		return rc;
	return store->lock(store, id, timeout_ms, out);
}

void roz_store_unlock(roz_store *store, roz_lock *lock)
{
	if (store && lock)
		store->unlock(store, lock);
}

int roz_store_quarantine(roz_store *store, const char *id, roz_time now, char **moved_to)
{
	int rc;

	*moved_to = NULL;
	if ((rc = check(store, id ? id : "")) < 0)
		return rc;
	return store->quarantine(store, id, now, moved_to);
}

void roz_store_free(roz_store *store)
{
	if (store)
		store->free(store);
}
