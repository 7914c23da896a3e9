/*
 * store_memory.c - sessions kept in memory as their JSON text, so tests run
 * the same serialisation as the file store and every get hands back an
 * independent copy.
 */
#include "roz/sys/store.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "roz/session_json.h"

typedef struct mem_entry {
	char *id;
	char *json;
	size_t len;
} mem_entry;

typedef struct mem_store {
	roz_store parent;
	mem_entry *items;
	size_t n, cap;
	pthread_mutex_t mu;    /* guards items and held */
	pthread_cond_t freed;  /* signalled when a session lock is released */
	struct roz_lock *held; /* session locks currently held */
} mem_store;

struct roz_lock {
	char *id;
	struct roz_lock *next;
};

static mem_entry *find(mem_store *ms, const char *id)
{
	for (size_t i = 0; i < ms->n; i++)
		if (strcmp(ms->items[i].id, id) == 0)
			return &ms->items[i];
	return NULL;
}

static int mem_get(roz_store *store, const char *id, roz_session **out)
{
	mem_store *ms = (mem_store *)store;
	mem_entry *e;
	int rc;

	pthread_mutex_lock(&ms->mu);
	e = find(ms, id);
	if (!e) {
		roz_error_set("session '%s' not found", id);
		rc = ROZ_ENOTFOUND;
	} else {
		rc = roz_session_json_parse(e->json, e->len, out);
	}
	pthread_mutex_unlock(&ms->mu);
	return rc;
}

static int mem_put(roz_store *store, const roz_session *session)
{
	mem_store *ms = (mem_store *)store;
	roz_buf b = ROZ_BUF_INIT;
	mem_entry *e;
	int rc;

	if ((rc = roz_session_json_write(session, &b)) < 0) {
		roz_buf_dispose(&b);
		return rc;
	}
	pthread_mutex_lock(&ms->mu);
	e = find(ms, session->session_id);
	if (!e) {
		char *id = roz_strdup(session->session_id);

		if (!id ||
		    roz_alloc_array_reserve((void **)&ms->items, &ms->cap, sizeof(*ms->items), ms->n + 1) < 0) {
			roz_free(id);
			pthread_mutex_unlock(&ms->mu);
			roz_buf_dispose(&b);
			return ROZ_ENOMEM;
		}
		e = &ms->items[ms->n++];
		e->id = id;
		e->json = NULL;
	}
	roz_free(e->json);
	e->json = roz_buf_detach(&b, &e->len);
	pthread_mutex_unlock(&ms->mu);
	return ROZ_OK;
}

static int mem_list(roz_store *store, char ***ids, size_t *n)
{
	mem_store *ms = (mem_store *)store;
	char **out;
	size_t i;

	pthread_mutex_lock(&ms->mu);
	out = roz_calloc(ms->n + 1, sizeof(*out));
	for (i = 0; out && i < ms->n; i++) {
		if (!(out[i] = roz_strdup(ms->items[i].id))) {
			roz_store_ids_free(out);
			out = NULL;
		}
	}
	*n = out ? ms->n : 0;
	pthread_mutex_unlock(&ms->mu);
	*ids = out;
	return out ? ROZ_OK : ROZ_ENOMEM;
}

static int mem_del(roz_store *store, const char *id)
{
	mem_store *ms = (mem_store *)store;
	mem_entry *e;

	pthread_mutex_lock(&ms->mu);
	e = find(ms, id);
	if (e) {
		roz_free(e->id);
		roz_free(e->json);
		*e = ms->items[--ms->n];
	}
	pthread_mutex_unlock(&ms->mu);
	return ROZ_OK;
}

static struct roz_lock *find_held(mem_store *ms, const char *id)
{
	for (struct roz_lock *l = ms->held; l; l = l->next)
		if (strcmp(l->id, id) == 0)
			return l;
	return NULL;
}

static int mem_lock(roz_store *store, const char *id, uint32_t timeout_ms, roz_lock **out)
{
	mem_store *ms = (mem_store *)store;
	struct timespec deadline;
	roz_lock *lk = roz_calloc(1, sizeof(*lk));
	int rc = ROZ_OK;

	if (!lk || !(lk->id = roz_strdup(id))) {
		roz_free(lk);
		return ROZ_ENOMEM;
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (time_t)(timeout_ms / 1000);
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&ms->mu);
	while (find_held(ms, id)) {
		if (pthread_cond_timedwait(&ms->freed, &ms->mu, &deadline) == ETIMEDOUT &&
		    find_held(ms, id)) {
			roz_error_set("timed out after %u ms waiting for the lock on session '%s'",
				      (unsigned)timeout_ms, id);
			rc = ROZ_ETIMEOUT;
			break;
		}
	}
	if (rc == ROZ_OK) {
		lk->next = ms->held;
		ms->held = lk;
		*out = lk;
	}
	pthread_mutex_unlock(&ms->mu);
	if (rc < 0) {
		roz_free(lk->id);
		roz_free(lk);
	}
	return rc;
}

static void mem_unlock(roz_store *store, roz_lock *lock)
{
	mem_store *ms = (mem_store *)store;

	pthread_mutex_lock(&ms->mu);
	for (roz_lock **p = &ms->held; *p; p = &(*p)->next) {
		if (*p == lock) {
			*p = lock->next;
			break;
		}
	}
	pthread_cond_broadcast(&ms->freed);
	pthread_mutex_unlock(&ms->mu);
	roz_free(lock->id);
	roz_free(lock);
}

static int mem_quarantine(roz_store *store, const char *id, roz_time now, char **moved_to)
{
	mem_store *ms = (mem_store *)store;
	bool found;

	(void)now;
	*moved_to = NULL;
	pthread_mutex_lock(&ms->mu);
	found = find(ms, id) != NULL;
	pthread_mutex_unlock(&ms->mu);
	if (!found) {
		roz_error_set("session '%s' not found", id);
		return ROZ_ENOTFOUND;
	}
	/* memory has nowhere to keep the bad copy; dropping it is the nearest equivalent */
	return mem_del(store, id);
}

/*
 * Nothing is ever left behind here: a put replaces the session's text
 * whole under the mutex, quarantine drops the bad copy, and a lock exists
 * only while it is held. So a sweep finds nothing, dry or not.
 */
static int mem_sweep(roz_store *store, const roz_store_sweep_opts *opts, char ***removed, size_t *n)
{
	(void)store;
	(void)opts;
	*removed = roz_calloc(1, sizeof(char *));
	*n = 0;
	return *removed ? ROZ_OK : ROZ_ENOMEM;
}

static void mem_free(roz_store *store)
{
	mem_store *ms = (mem_store *)store;

	for (size_t i = 0; i < ms->n; i++) {
		roz_free(ms->items[i].id);
		roz_free(ms->items[i].json);
	}
	roz_free(ms->items);
	while (ms->held) {
		roz_lock *l = ms->held;

		ms->held = l->next;
		roz_free(l->id);
		roz_free(l);
	}
	pthread_mutex_destroy(&ms->mu);
	pthread_cond_destroy(&ms->freed);
	roz_free(ms);
}

int roz_store_memory_new(roz_store **out)
{
	mem_store *ms = roz_calloc(1, sizeof(*ms));

	*out = NULL;
	if (!ms)
		return ROZ_ENOMEM;
	pthread_mutex_init(&ms->mu, NULL);
	pthread_cond_init(&ms->freed, NULL);
	ms->parent.version = ROZ_STORE_VERSION;
	ms->parent.get = mem_get;
	ms->parent.put = mem_put;
	ms->parent.list = mem_list;
	ms->parent.del = mem_del;
	ms->parent.lock = mem_lock;
	ms->parent.unlock = mem_unlock;
	ms->parent.quarantine = mem_quarantine;
	ms->parent.free = mem_free;
	ms->parent.sweep = mem_sweep;
	*out = &ms->parent;
	return ROZ_OK;
}
