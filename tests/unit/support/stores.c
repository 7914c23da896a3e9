/*
 * stores.c - stores for tests: the runner's file store as the CLI opens it,
 * and a backend of its own that passes every call to another backend but
 * fails the one it was told to, before or after the real work is done.
 */
#include "stores.h"

#include <pthread.h>

#include "roz/sys/store.h"

int t_file_store_open(void *ud, const roz_config *config, roz_store_warn_fn warn, void *warn_ud,
		      roz_store **out)
{
	roz_store_file_opts so = {config->fsync};
	int rc = roz_store_file_open(config->storage_path, &so, out);

	(void)ud;
	if (rc == ROZ_OK)
		roz_store_file_on_warning(*out, warn, warn_ud);
	return rc;
}

typedef struct failing_store {
	roz_store parent;
	roz_store *inner;
	t_failing_opts opts;
	pthread_mutex_t mu; /* guards calls and fired: probes lock from other threads */
	unsigned long calls, fired;
} failing_store;

/* Count this call; true when it is the one to fail. */
static bool counts_as_failed(failing_store *fs, const char *method, bool can_fail)
{
	unsigned long n;
	bool fail;

	pthread_mutex_lock(&fs->mu);
	n = ++fs->calls;
	fail = can_fail && n == fs->opts.fail_at;
	if (fail)
		fs->fired = n;
	pthread_mutex_unlock(&fs->mu);
	if (fail)
		roz_error_set_errno(fs->opts.errnum, "cannot %s (failure injected at call %lu)", method, n);
	return fail;
}

/* The injected failure, for a call whose real result has been given back already. */
static int injected(failing_store *fs, const char *method)
{
	roz_error_set_errno(fs->opts.errnum, "cannot %s (failure injected at call %lu)", method, fs->fired);
	return fs->opts.rc;
}

static bool before(const failing_store *fs)
{
	return fs->opts.when == T_FAIL_BEFORE;
}

static int fail_get(roz_store *store, const char *id, roz_session **out)
{
	failing_store *fs = (failing_store *)store;
	bool fail = counts_as_failed(fs, "get", true);

	if (fail && before(fs))
		return fs->opts.rc;
	if (!fail)
		return fs->inner->get(fs->inner, id, out);
	if (fs->inner->get(fs->inner, id, out) == ROZ_OK)
		roz_session_free(*out);
	*out = NULL;
	return injected(fs, "get");
}

static int fail_get_state(roz_store *store, const char *id, roz_session **out)
{
	failing_store *fs = (failing_store *)store;
	bool fail = counts_as_failed(fs, "get_state", true);

	if (fail && before(fs))
		return fs->opts.rc;
	if (!fail)
		return fs->inner->get_state(fs->inner, id, out);
	if (fs->inner->get_state(fs->inner, id, out) == ROZ_OK)
		roz_session_free(*out);
	*out = NULL;
	return injected(fs, "get_state");
}

/* Not a call that can fail: the cap goes to the wrapped backend as it is. */
static void fail_set_trace_cap(roz_store *store, size_t max_events)
{
	failing_store *fs = (failing_store *)store;

	fs->inner->set_trace_cap(fs->inner, max_events);
}

static int fail_put(roz_store *store, const roz_session *session)
{
	failing_store *fs = (failing_store *)store;
	bool fail = counts_as_failed(fs, "put", true);

	if (fail && before(fs))
		return fs->opts.rc;
	if (!fail)
		return fs->inner->put(fs->inner, session);
	(void)fs->inner->put(fs->inner, session);
	return injected(fs, "put");
}

static int fail_list(roz_store *store, char ***ids, size_t *n)
{
	failing_store *fs = (failing_store *)store;
	bool fail = counts_as_failed(fs, "list", true);

	if (fail && before(fs))
		return fs->opts.rc;
	if (!fail)
		return fs->inner->list(fs->inner, ids, n);
	if (fs->inner->list(fs->inner, ids, n) == ROZ_OK)
		roz_store_ids_free(*ids);
	*ids = NULL;
	*n = 0;
	return injected(fs, "list");
}

static int fail_del(roz_store *store, const char *id)
{
	failing_store *fs = (failing_store *)store;
	bool fail = counts_as_failed(fs, "delete", true);

	if (fail && before(fs))
		return fs->opts.rc;
	if (!fail)
		return fs->inner->del(fs->inner, id);
	(void)fs->inner->del(fs->inner, id);
	return injected(fs, "delete");
}

static int fail_lock(roz_store *store, const char *id, uint32_t timeout_ms, roz_lock **out)
{
	failing_store *fs = (failing_store *)store;
	bool fail = counts_as_failed(fs, "lock", true);

	if (fail && before(fs))
		return fs->opts.rc;
	if (!fail)
		return fs->inner->lock(fs->inner, id, timeout_ms, out);
	/* taken and then reported as not taken: let it go, or it would be held by nobody */
	if (fs->inner->lock(fs->inner, id, timeout_ms, out) == ROZ_OK)
		fs->inner->unlock(fs->inner, *out);
	*out = NULL;
	return injected(fs, "lock");
}

static void fail_unlock(roz_store *store, roz_lock *lock)
{
	failing_store *fs = (failing_store *)store;

	(void)counts_as_failed(fs, "unlock", false);
	fs->inner->unlock(fs->inner, lock);
}

static int fail_quarantine(roz_store *store, const char *id, roz_time now, char **moved_to)
{
	failing_store *fs = (failing_store *)store;
	bool fail = counts_as_failed(fs, "quarantine", true);

	if (fail && before(fs))
		return fs->opts.rc;
	if (!fail)
		return fs->inner->quarantine(fs->inner, id, now, moved_to);
	if (fs->inner->quarantine(fs->inner, id, now, moved_to) == ROZ_OK)
		roz_free(*moved_to);
	*moved_to = NULL;
	return injected(fs, "quarantine");
}

static int fail_sweep(roz_store *store, const roz_store_sweep_opts *opts, char ***removed, size_t *n)
{
	failing_store *fs = (failing_store *)store;
	bool fail = counts_as_failed(fs, "sweep", true);

	if (fail && before(fs))
		return fs->opts.rc;
	if (!fail)
		return fs->inner->sweep(fs->inner, opts, removed, n);
	if (fs->inner->sweep(fs->inner, opts, removed, n) == ROZ_OK)
		roz_store_ids_free(*removed);
	*removed = NULL;
	*n = 0;
	return injected(fs, "sweep");
}

static void fail_free(roz_store *store)
{
	failing_store *fs = (failing_store *)store;

	roz_store_free(fs->inner);
	pthread_mutex_destroy(&fs->mu);
	roz_free(fs);
}

int t_failing_store(roz_store *inner, const t_failing_opts *opts, roz_store **out)
{
	failing_store *fs = roz_calloc(1, sizeof(*fs));

	*out = NULL;
	if (!fs) {
		roz_store_free(inner);
		return ROZ_ENOMEM;
	}
	fs->inner = inner;
	fs->opts = *opts;
	pthread_mutex_init(&fs->mu, NULL);
	/* what the wrapped backend has, no more: its version decides whether sweep is there */
	fs->parent.version = inner->version < ROZ_STORE_VERSION ? inner->version : ROZ_STORE_VERSION;
	fs->parent.get = fail_get;
	fs->parent.put = fail_put;
	fs->parent.list = fail_list;
	fs->parent.del = fail_del;
	fs->parent.lock = fail_lock;
	fs->parent.unlock = fail_unlock;
	fs->parent.quarantine = fail_quarantine;
	fs->parent.free = fail_free;
	fs->parent.sweep = inner->version >= 2 && inner->sweep ? fail_sweep : NULL;
	fs->parent.get_state = inner->version >= 3 ? fail_get_state : NULL;
	fs->parent.set_trace_cap = inner->version >= 3 ? fail_set_trace_cap : NULL;
	*out = &fs->parent;
	return ROZ_OK;
}

unsigned long t_failing_calls(roz_store *store)
{
	failing_store *fs = (failing_store *)store;
	unsigned long n;

	pthread_mutex_lock(&fs->mu);
	n = fs->calls;
	pthread_mutex_unlock(&fs->mu);
	return n;
}

unsigned long t_failing_fired(roz_store *store)
{
	failing_store *fs = (failing_store *)store;
	unsigned long n;

	pthread_mutex_lock(&fs->mu);
	n = fs->fired;
	pthread_mutex_unlock(&fs->mu);
	return n;
}

roz_store *t_failing_inner(roz_store *store)
{
	return ((failing_store *)store)->inner;
}
