/*
 * store.c - the user-facing store calls: check the version and the session
 * id, then hand over to the backend's method table, reading a method added
 * after version 1 only when the backend's version has it.
 */
#include "roz/sys/store.h"

#include <stdint.h>
#include <string.h>

static int check(roz_store *store, const char *id)
{
	if (!store) {
		roz_error_set("no store");
		return ROZ_EINVALID;
	}
	/* every version up to this one is a prefix of today's table; 0 was never one */
	if (store->version < 1 || store->version > ROZ_STORE_VERSION) {
		roz_error_set("store has unsupported version %u (this roz knows versions 1 to %d)",
			      store->version, ROZ_STORE_VERSION);
		return ROZ_EINVALID;
	}
	if (id && !roz_session_id_valid(id)) {
		roz_error_set("invalid session id '%.*s'", 80, id);
		return ROZ_EINVALID;
	}
	return ROZ_OK;
}

/* A backend before version 3 stores the trace inline: what it reads is compacted here. */
static int compact_old(roz_store *store, int rc, roz_session **out)
{
	roz_session *s = *out;

	if (rc < 0 || store->version >= 3)
		return rc;
	if (roz_session_trace_compact(s->trace, &s->n_trace, ROZ_TRACE_MAX_DEFAULT) < 0) {
		roz_session_free(s);
		*out = NULL;
		return ROZ_ENOMEM;
	}
	return rc;
}

int roz_store_get(roz_store *store, const char *id, roz_session **out)
{
	int rc;

	*out = NULL;
	if ((rc = check(store, id ? id : "")) < 0)
		return rc;
	return compact_old(store, store->get(store, id, out), out);
}

int roz_store_get_state(roz_store *store, const char *id, roz_session **out)
{
	int rc;

	*out = NULL;
	if ((rc = check(store, id ? id : "")) < 0)
		return rc;
	/* the version first: in an older backend the bytes past its table are its own */
	if (store->version < 3)
		return compact_old(store, store->get(store, id, out), out);
	return store->get_state(store, id, out);
}

void roz_store_set_trace_cap(roz_store *store, size_t max_events)
{
	if (check(store, NULL) == ROZ_OK && store->version >= 3)
		store->set_trace_cap(store, max_events);
}

int roz_store_put(roz_store *store, roz_session *session)
{
	size_t fresh;
	int rc = check(store, session && session->session_id ? session->session_id : "");

	if (rc < 0 || (rc = store->put(store, session)) < 0)
		return rc;
	/* what was appended is stored now: putting the session again adds only what is added since */
	if (store->version >= 3) {
		fresh = session->n_trace - session->trace_saved;
		session->trace_kept = session->trace_kept > SIZE_MAX - fresh ? SIZE_MAX : session->trace_kept + fresh;
		session->trace_saved = session->n_trace;
		session->trace_inline = false;
	}
	return ROZ_OK;
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

int roz_store_sweep(roz_store *store, const roz_store_sweep_opts *opts, char ***removed, size_t *n)
{
	int rc = check(store, NULL);

	*removed = NULL;
	*n = 0;
	if (rc < 0)
		return rc;
	if (!opts) {
		roz_error_set("sweep needs its options");
		return ROZ_EINVALID;
	}
	/* the version first: in an older backend the bytes past its table are its own */
	if (store->version < 2 || !store->sweep) {
		roz_error_set("sweeping is not supported by this backend (store version %u)", store->version);
		return ROZ_EINVALID;
	}
	return store->sweep(store, opts, removed, n);
}

void roz_store_free(roz_store *store)
{
	if (store)
		store->free(store);
}
