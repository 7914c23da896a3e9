/*
 * store_memory.c - sessions kept in memory: the state as its JSON text, so
 * tests run the same serialisation as the file store and every get hands
 * back an independent copy, and the trace as a list of event texts that
 * puts append to, compacted as the file store compacts its file.
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
	roz_trace_entry *trace;
	size_t n_trace, cap_trace;
} mem_entry;

typedef struct mem_store {
	roz_store parent;
	mem_entry *items;
	size_t n, cap;
	pthread_mutex_t mu;    /* guards items and held */
	pthread_cond_t freed;  /* signalled when a session lock is released */
	struct roz_lock *held; /* session locks currently held */
	size_t max_events;     /* the trace cap */
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

static void entry_trace_free(mem_entry *e)
{
	for (size_t i = 0; i < e->n_trace; i++)
		roz_free(e->trace[i].json);
	roz_free(e->trace);
	e->trace = NULL;
	e->n_trace = e->cap_trace = 0;
}

/* Under the mutex: the session's state, its trace not read; a hook's (lazy) or whole. */
static int state_of(mem_store *ms, const char *id, bool lazy, mem_entry **e, roz_session **out)
{
	if (!(*e = find(ms, id))) {
		roz_error_set("session '%s' not found", id);
		return ROZ_ENOTFOUND;
	}
	return lazy ? roz_session_json_parse_state((*e)->json, (*e)->len, out)
		    : roz_session_json_parse((*e)->json, (*e)->len, out);
}

static int mem_get_state(roz_store *store, const char *id, roz_session **out)
{
	mem_store *ms = (mem_store *)store;
	mem_entry *e;
	int rc;

	pthread_mutex_lock(&ms->mu);
	rc = state_of(ms, id, true, &e, out);
	pthread_mutex_unlock(&ms->mu);
	return rc;
}

static int mem_get(roz_store *store, const char *id, roz_session **out)
{
	mem_store *ms = (mem_store *)store;
	roz_session *s = NULL;
	mem_entry *e;
	size_t cap;
	int rc;

	pthread_mutex_lock(&ms->mu);
	rc = state_of(ms, id, false, &e, &s);
	for (size_t i = 0; rc == ROZ_OK && i < e->n_trace; i++) {
		char *copy = roz_strndup(e->trace[i].json, e->trace[i].len);

		if (!copy || roz_session_trace_push_raw(s, copy, e->trace[i].len) < 0) {
			roz_free(copy);
			rc = ROZ_ENOMEM;
		}
	}
	cap = ms->max_events;
	pthread_mutex_unlock(&ms->mu);
	if (rc == ROZ_OK)
		rc = roz_session_trace_compact(s->trace, &s->n_trace, cap);
	if (rc < 0) {
		roz_session_free(s);
		return rc;
	}
	s->trace_saved = s->n_trace;
	*out = s;
	return ROZ_OK;
}

/* Copies of the events the session added since it was read; NULL with none or out of memory. */
static roz_trace_entry *new_events(const roz_session *session, size_t *n, int *rc)
{
	roz_trace_entry *ev;

	*n = session->n_trace > session->trace_saved ? session->n_trace - session->trace_saved : 0;
	*rc = ROZ_OK;
	if (!*n)
		return NULL;
	if (!(ev = roz_calloc(*n, sizeof(*ev)))) {
		*rc = ROZ_ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < *n; i++) {
		const roz_trace_entry *from = &session->trace[session->trace_saved + i];

		if (!(ev[i].json = roz_strndup(from->json, from->len))) {
			for (size_t j = 0; j < i; j++)
				roz_free(ev[j].json);
			roz_free(ev);
			*rc = ROZ_ENOMEM;
			return NULL;
		}
		ev[i].len = from->len;
	}
	return ev;
}

static int mem_put(roz_store *store, const roz_session *session)
{
	mem_store *ms = (mem_store *)store;
	roz_buf b = ROZ_BUF_INIT;
	roz_trace_entry *ev;
	size_t n_ev, kept;
	mem_entry *e;
	bool made = false;
	int rc;

	ev = new_events(session, &n_ev, &rc);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&ms->mu);
	e = find(ms, session->session_id);
	kept = ms->max_events ? (e ? e->n_trace : 0) + n_ev : 0;
	if ((rc = roz_session_json_write_state(session, kept, &b)) < 0)
		goto out;
	if (!e) {
		char *id = roz_strdup(session->session_id);

		if (!id ||
		    roz_alloc_array_reserve((void **)&ms->items, &ms->cap, sizeof(*ms->items), ms->n + 1) < 0) {
			roz_free(id);
			rc = ROZ_ENOMEM;
			goto out;
		}
		e = &ms->items[ms->n];
		memset(e, 0, sizeof(*e));
		e->id = id;
		made = true;
	}
	/* the state and the events land together or not at all: room first, then nothing fails */
	if (roz_alloc_array_reserve((void **)&e->trace, &e->cap_trace, sizeof(*e->trace), e->n_trace + n_ev) < 0) {
		if (made) {
			roz_free(e->id);
			roz_free(e->trace);
		}
		rc = ROZ_ENOMEM;
		goto out;
	}
	if (made)
		ms->n++;
	if (n_ev)
		memcpy(e->trace + e->n_trace, ev, n_ev * sizeof(*ev));
	e->n_trace += n_ev;
	roz_free(ev);
	ev = NULL;
	n_ev = 0;
	if (!ms->max_events)
		entry_trace_free(e);
	else if (roz_store_trace_due(e->n_trace, ms->max_events) &&
		 roz_session_trace_compact(e->trace, &e->n_trace, ms->max_events) < 0) {
		/* a trace one compaction late is still a trace: the next put tries again */
	}
	roz_free(e->json);
	e->json = roz_buf_detach(&b, &e->len);
out:
	pthread_mutex_unlock(&ms->mu);
	for (size_t i = 0; i < n_ev; i++)
		roz_free(ev[i].json);
	roz_free(ev);
	roz_buf_dispose(&b);
	return rc;
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
		entry_trace_free(e);
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

static void mem_set_trace_cap(roz_store *store, size_t max_events)
{
	mem_store *ms = (mem_store *)store;

	pthread_mutex_lock(&ms->mu);
	ms->max_events = max_events;
	pthread_mutex_unlock(&ms->mu);
}

static void mem_free(roz_store *store)
{
	mem_store *ms = (mem_store *)store;

	for (size_t i = 0; i < ms->n; i++) {
		roz_free(ms->items[i].id);
		roz_free(ms->items[i].json);
		entry_trace_free(&ms->items[i]);
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
	ms->parent.get_state = mem_get_state;
	ms->parent.set_trace_cap = mem_set_trace_cap;
	ms->max_events = ROZ_TRACE_MAX_DEFAULT;
	*out = &ms->parent;
	return ROZ_OK;
}
