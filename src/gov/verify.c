/*
#include "roz/digest.h"
 * verify.c - does the ledger still describe the code (roz/verify.h): the
#include "roz/digest.h"
 * run's state, the ledger read one line at a time, and the items handed
#include "roz/digest.h"
 * out. What each range is found to be is decided in verify_settle.c.
#include "roz/digest.h"
 *
#include "roz/digest.h"
 * The ledger is never held: a record is parsed as its line goes by and
#include "roz/digest.h"
 * only what deciding needs is kept (verify_int.h), compactly, so a million
#include "roz/digest.h"
 * records fit in a few tens of megabytes. What an item shows beyond that
#include "roz/digest.h"
 * (the record's id and session) is read again from the ledger by offset,
#include "roz/digest.h"
 * only for the items handed out.
#include "roz/digest.h"
 */
#include "roz/digest.h"
#include "verify_int.h"
#include "roz/digest.h"

#include "roz/digest.h"
#include <stdlib.h>
#include "roz/digest.h"
#include <string.h>
#include "roz/digest.h"

#include "roz/digest.h"
static const char state_names[][13] = {
#include "roz/digest.h"
	[ROZ_VERIFY_INTACT] = "intact",     [ROZ_VERIFY_MOVED] = "moved",
#include "roz/digest.h"
	[ROZ_VERIFY_EDITED] = "edited",     [ROZ_VERIFY_MISSING] = "missing",
#include "roz/digest.h"
	[ROZ_VERIFY_REMOVED] = "removed",   [ROZ_VERIFY_ACCEPTED] = "accepted",
#include "roz/digest.h"
	[ROZ_VERIFY_UNVERIFIABLE] = "unverifiable", [ROZ_VERIFY_SUPERSEDED] = "superseded",
#include "roz/digest.h"
};
#include "roz/digest.h"

#include "roz/digest.h"
const char *roz_verify_state_name(roz_verify_state s)
#include "roz/digest.h"
{
#include "roz/digest.h"
	if ((size_t)s >= sizeof state_names / sizeof state_names[0])
#include "roz/digest.h"
		return "edited";
#include "roz/digest.h"
	return state_names[s];
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* ---- interned strings --------------------------------------------------- */
#include "roz/digest.h"

#include "roz/digest.h"
static uint64_t str_hash(const char *s)
#include "roz/digest.h"
{
#include "roz/digest.h"
	return roz_hash_fnv1a(s, strlen(s));
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
void vstr_dispose(vstr *t)
#include "roz/digest.h"
{
#include "roz/digest.h"
	roz_free(t->arena);
#include "roz/digest.h"
	roz_free(t->off);
#include "roz/digest.h"
	roz_free(t->slots);
#include "roz/digest.h"
	memset(t, 0, sizeof *t);
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
const char *vstr_get(const vstr *t, uint32_t i)
#include "roz/digest.h"
{
#include "roz/digest.h"
	return t->arena + t->off[i];
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
static int vstr_grow(vstr *t)
#include "roz/digest.h"
{
#include "roz/digest.h"
	size_t cap = t->nslots ? t->nslots * 2 : 64;
#include "roz/digest.h"
	uint32_t *slots = roz_calloc(cap, sizeof *slots);
#include "roz/digest.h"

#include "roz/digest.h"
	if (!slots)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	for (size_t i = 0; i < t->n; i++) {
#include "roz/digest.h"
		size_t j = (size_t)str_hash(vstr_get(t, (uint32_t)i)) & (cap - 1);
#include "roz/digest.h"

#include "roz/digest.h"
		while (slots[j])
#include "roz/digest.h"
			j = (j + 1) & (cap - 1);
#include "roz/digest.h"
		slots[j] = (uint32_t)i + 1;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	roz_free(t->slots);
#include "roz/digest.h"
	t->slots = slots;
#include "roz/digest.h"
	t->nslots = cap;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
int vstr_intern(vstr *t, const char *s, uint32_t *out)
#include "roz/digest.h"
{
#include "roz/digest.h"
	size_t n = strlen(s) + 1, j;
#include "roz/digest.h"

#include "roz/digest.h"
	if ((t->n + 1) * 2 > t->nslots && vstr_grow(t) != ROZ_OK)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	j = (size_t)str_hash(s) & (t->nslots - 1);
#include "roz/digest.h"
	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1))
#include "roz/digest.h"
		if (strcmp(vstr_get(t, t->slots[j] - 1), s) == 0) {
#include "roz/digest.h"
			*out = t->slots[j] - 1;
#include "roz/digest.h"
			return ROZ_OK;
#include "roz/digest.h"
		}
#include "roz/digest.h"
	if (t->n >= UINT32_MAX - 1 ||
#include "roz/digest.h"
	    roz_alloc_array_reserve((void **)&t->arena, &t->cap, 1, t->len + n) != ROZ_OK ||
#include "roz/digest.h"
	    roz_alloc_array_reserve((void **)&t->off, &t->capoff, sizeof *t->off, t->n + 1) != ROZ_OK)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	memcpy(t->arena + t->len, s, n);
#include "roz/digest.h"
	t->off[t->n] = t->len;
#include "roz/digest.h"
	t->len += n;
#include "roz/digest.h"
	t->slots[j] = (uint32_t)t->n + 1;
#include "roz/digest.h"
	*out = (uint32_t)t->n++;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* The index of s when it is interned, or false. */
#include "roz/digest.h"
bool vstr_find(const vstr *t, const char *s, uint32_t *out)
#include "roz/digest.h"
{
#include "roz/digest.h"
	size_t j;
#include "roz/digest.h"

#include "roz/digest.h"
	if (!t->nslots)
#include "roz/digest.h"
		return false;
#include "roz/digest.h"
	for (j = (size_t)str_hash(s) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
#include "roz/digest.h"
		if (strcmp(vstr_get(t, t->slots[j] - 1), s) == 0) {
#include "roz/digest.h"
			*out = t->slots[j] - 1;
#include "roz/digest.h"
			return true;
#include "roz/digest.h"
		}
#include "roz/digest.h"
	return false;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* ---- the renames the caller gives ------------------------------------------ */
#include "roz/digest.h"

#include "roz/digest.h"
int roz_verify_renames_add(roz_verify_renames *r, const char *from, const char *to)
#include "roz/digest.h"
{
#include "roz/digest.h"
	char *f, *t;
#include "roz/digest.h"

#include "roz/digest.h"
	if (r->n == r->cap) {
#include "roz/digest.h"
		size_t cap = r->cap ? r->cap * 2 : 16;
#include "roz/digest.h"
		char **nf = roz_realloc(r->from, cap * sizeof *nf), **nt;
#include "roz/digest.h"

#include "roz/digest.h"
		if (!nf)
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		r->from = nf;
#include "roz/digest.h"
		if (!(nt = roz_realloc(r->to, cap * sizeof *nt)))
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		r->to = nt;
#include "roz/digest.h"
		r->cap = cap;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	f = roz_strdup(from);
#include "roz/digest.h"
	t = roz_strdup(to);
#include "roz/digest.h"
	if (!f || !t) {
#include "roz/digest.h"
		roz_free(f);
#include "roz/digest.h"
		roz_free(t);
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	r->from[r->n] = f;
#include "roz/digest.h"
	r->to[r->n++] = t;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
int roz_verify_renames_absent(roz_verify_renames *r, const char *path)
#include "roz/digest.h"
{
#include "roz/digest.h"
	char *p;
#include "roz/digest.h"

#include "roz/digest.h"
	if (roz_alloc_array_reserve((void **)&r->absent, &r->capabsent, sizeof *r->absent, r->nabsent + 1) != ROZ_OK ||
#include "roz/digest.h"
	    !(p = roz_strdup(path)))
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	r->absent[r->nabsent++] = p;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
void roz_verify_renames_dispose(roz_verify_renames *r)
#include "roz/digest.h"
{
#include "roz/digest.h"
	if (!r)
#include "roz/digest.h"
		return;
#include "roz/digest.h"
	for (size_t i = 0; i < r->n; i++) {
#include "roz/digest.h"
		roz_free(r->from[i]);
#include "roz/digest.h"
		roz_free(r->to[i]);
#include "roz/digest.h"
	}
#include "roz/digest.h"
	for (size_t i = 0; i < r->nabsent; i++)
#include "roz/digest.h"
		roz_free(r->absent[i]);
#include "roz/digest.h"
	roz_free(r->absent);
#include "roz/digest.h"
	roz_free(r->from);
#include "roz/digest.h"
	roz_free(r->to);
#include "roz/digest.h"
	memset(r, 0, sizeof *r);
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* ---- the run -------------------------------------------------------------- */
#include "roz/digest.h"

#include "roz/digest.h"
int roz_verify_begin(const roz_verify_opts *opts, roz_verify **out)
#include "roz/digest.h"
{
#include "roz/digest.h"
	roz_verify *v = roz_calloc(1, sizeof *v);
#include "roz/digest.h"

#include "roz/digest.h"
	*out = NULL;
#include "roz/digest.h"
	if (!v)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	v->o = *opts;
#include "roz/digest.h"
	v->timed = v->ordered = true;
#include "roz/digest.h"
	*out = v;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
void roz_verify_free(roz_verify *v)
#include "roz/digest.h"
{
#include "roz/digest.h"
	if (!v)
#include "roz/digest.h"
		return;
#include "roz/digest.h"
	vstr_dispose(&v->paths);
#include "roz/digest.h"
	vstr_dispose(&v->intents);
#include "roz/digest.h"
	vstr_dispose(&v->whys);
#include "roz/digest.h"
	roz_free(v->recs);
#include "roz/digest.h"
	roz_free(v->times);
#include "roz/digest.h"
	roz_free(v->ents);
#include "roz/digest.h"
	roz_free(v->big);
#include "roz/digest.h"
	roz_free(v->moved);
#include "roz/digest.h"
	roz_free(v->bad);
#include "roz/digest.h"
	roz_free(v->file_why);
#include "roz/digest.h"
	roz_free(v->hint_rev);
#include "roz/digest.h"
	roz_free(v->first_rev);
#include "roz/digest.h"
	roz_free(v->id);
#include "roz/digest.h"
	roz_free(v->session);
#include "roz/digest.h"
	roz_free(v);
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
static int add_bad(roz_verify *v, const char *prefix, const char *detail)
#include "roz/digest.h"
{
#include "roz/digest.h"
	char *why = roz_asprintf("%s%s", prefix, detail && *detail ? detail : "not a record");
#include "roz/digest.h"
	uint32_t w;
#include "roz/digest.h"
	int rc;
#include "roz/digest.h"

#include "roz/digest.h"
	if (!why)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	rc = vstr_intern(&v->whys, why, &w);
#include "roz/digest.h"
	roz_free(why);
#include "roz/digest.h"
	if (rc != ROZ_OK ||
#include "roz/digest.h"
	    roz_alloc_array_reserve((void **)&v->bad, &v->capbad, sizeof *v->bad, v->nbad + 1) != ROZ_OK)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	v->bad[v->nbad].line = v->line;
#include "roz/digest.h"
	v->bad[v->nbad++].why = w;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* One entry: a range of the record, or what the record did to a whole file. */
#include "roz/digest.h"
static int add_ent(roz_verify *v, uint32_t file, uint8_t kind, const roz_ledger_range *rg)
#include "roz/digest.h"
{
#include "roz/digest.h"
	vent *e;
#include "roz/digest.h"

#include "roz/digest.h"
	if (v->nents >= UINT32_MAX - 1 ||
#include "roz/digest.h"
	    roz_alloc_array_reserve((void **)&v->ents, &v->capents, sizeof *v->ents, v->nents + 1) != ROZ_OK)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	e = &v->ents[v->nents];
#include "roz/digest.h"
	memset(e, 0, sizeof *e);
#include "roz/digest.h"
	e->rec = (uint32_t)v->nrecs;
#include "roz/digest.h"
	e->file = file;
#include "roz/digest.h"
	e->kind = kind;
#include "roz/digest.h"
	e->state = VSTATE_OPEN;
#include "roz/digest.h"
	if (rg) {
#include "roz/digest.h"
		if (rg->who == ROZ_LEDGER_WHO_HUMAN)
#include "roz/digest.h"
			e->flags |= VF_HUMAN;
#include "roz/digest.h"
		if (rg->hash_kind == ROZ_LEDGER_HASH_SHA256 && vhex_bytes(rg->hash, e->hash))
#include "roz/digest.h"
			e->flags |= VF_SHA;
#include "roz/digest.h"
		if (rg->start_line < UINT32_MAX && rg->end_line < UINT32_MAX) {
#include "roz/digest.h"
			e->start = (uint32_t)rg->start_line;
#include "roz/digest.h"
			e->end = (uint32_t)rg->end_line;
#include "roz/digest.h"
		} else {
#include "roz/digest.h"
			/* line numbers past 2^32 (the schema allows 2^53) are kept aside */
#include "roz/digest.h"
			e->flags |= VF_BIG;
#include "roz/digest.h"
			if (roz_alloc_array_reserve((void **)&v->big, &v->capbig, sizeof *v->big, v->nbig + 1) !=
#include "roz/digest.h"
			    ROZ_OK)
#include "roz/digest.h"
				return ROZ_ENOMEM;
#include "roz/digest.h"
			v->big[v->nbig++] = (vbig){v->nents, rg->start_line, rg->end_line};
#include "roz/digest.h"
		}
#include "roz/digest.h"
	}
#include "roz/digest.h"
	v->nents++;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/*
#include "roz/digest.h"
 * Whether a record's revision is `since`: the same hash, or one `since`
#include "roz/digest.h"
 * abbreviates (at least 4 hex digits, as git abbreviates).
#include "roz/digest.h"
 */
#include "roz/digest.h"
static bool same_revision(const char *rev, const char *since)
#include "roz/digest.h"
{
#include "roz/digest.h"
	size_t n = strlen(since);
#include "roz/digest.h"

#include "roz/digest.h"
	if (strcmp(rev, since) == 0)
#include "roz/digest.h"
		return true;
#include "roz/digest.h"
	if (n < 4 || n >= strlen(rev) || strspn(since, "0123456789abcdefABCDEF") != n)
#include "roz/digest.h"
		return false;
#include "roz/digest.h"
	for (size_t i = 0; i < n; i++)
#include "roz/digest.h"
		if ((rev[i] | 0x20) != (since[i] | 0x20))
#include "roz/digest.h"
			return false;
#include "roz/digest.h"
	return true;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* Where renames are looked for from: the earliest record's revision and time. */
#include "roz/digest.h"
static int note_hint(roz_verify *v, const roz_ledger_rec *rec)
#include "roz/digest.h"
{
#include "roz/digest.h"
	if (rec->revision && !v->first_rev && !(v->first_rev = roz_strdup(rec->revision)))
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	if (!rec->has_timestamp)
#include "roz/digest.h"
		return ROZ_OK;
#include "roz/digest.h"
	if (!v->has_min_time || roz_time_before(rec->timestamp, v->min_time)) {
#include "roz/digest.h"
		v->min_time = rec->timestamp;
#include "roz/digest.h"
		v->has_min_time = true;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	if (rec->revision && (!v->hint_rev || roz_time_before(rec->timestamp, v->hint_time))) {
#include "roz/digest.h"
		char *r = roz_strdup(rec->revision);
#include "roz/digest.h"

#include "roz/digest.h"
		if (!r)
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		roz_free(v->hint_rev);
#include "roz/digest.h"
		v->hint_rev = r;
#include "roz/digest.h"
		v->hint_time = rec->timestamp;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
static int take_record(roz_verify *v, const roz_ledger_rec *rec, uint64_t offset, size_t len)
#include "roz/digest.h"
{
#include "roz/digest.h"
	vrec *r;
#include "roz/digest.h"
	int rc;
#include "roz/digest.h"

#include "roz/digest.h"
	if (v->nrecs >= UINT32_MAX - 1 ||
#include "roz/digest.h"
	    roz_alloc_array_reserve((void **)&v->recs, &v->caprecs, sizeof *v->recs, v->nrecs + 1) != ROZ_OK ||
#include "roz/digest.h"
	    roz_alloc_array_reserve((void **)&v->times, &v->captimes, sizeof *v->times, v->nrecs + 1) != ROZ_OK)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	r = &v->recs[v->nrecs];
#include "roz/digest.h"
	memset(r, 0, sizeof *r);
#include "roz/digest.h"
	r->offset = offset;
#include "roz/digest.h"
	r->len = (uint32_t)len;
#include "roz/digest.h"
	r->line = v->line;
#include "roz/digest.h"
	if (rec->intent_id) {
#include "roz/digest.h"
		uint32_t i;
#include "roz/digest.h"

#include "roz/digest.h"
		/* a session's records come in runs under one intent */
#include "roz/digest.h"
		if (v->last_intent && strcmp(vstr_get(&v->intents, v->last_intent - 1), rec->intent_id) == 0)
#include "roz/digest.h"
			i = v->last_intent - 1;
#include "roz/digest.h"
		else if (vstr_intern(&v->intents, rec->intent_id, &i) != ROZ_OK)
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		r->intent = v->last_intent = i + 1;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	/* with since_revision, which records are checked is known once they are in time order */
#include "roz/digest.h"
	if (v->o.since_known)
#include "roz/digest.h"
		r->checked = !(rec->id && v->o.since_known(v->o.since_ud, rec->id));
#include "roz/digest.h"
	else if (v->o.since_revision)
#include "roz/digest.h"
		r->rev_match = rec->revision && same_revision(rec->revision, v->o.since_revision);
#include "roz/digest.h"
	else
#include "roz/digest.h"
		r->checked = true;
#include "roz/digest.h"
	v->times[v->nrecs] = rec->timestamp;
#include "roz/digest.h"
	if (!rec->has_timestamp)
#include "roz/digest.h"
		v->timed = false;
#include "roz/digest.h"
	else if (v->nrecs && roz_time_before(rec->timestamp, v->last_time))
#include "roz/digest.h"
		v->ordered = false;
#include "roz/digest.h"
	if (rec->has_timestamp)
#include "roz/digest.h"
		v->last_time = rec->timestamp;
#include "roz/digest.h"
	if (note_hint(v, rec) != ROZ_OK)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	for (size_t i = 0; i < rec->nfiles; i++) {
#include "roz/digest.h"
		const roz_ledger_rfile *rf = &rec->files[i];
#include "roz/digest.h"
		uint32_t fi, from;
#include "roz/digest.h"

#include "roz/digest.h"
		if (!rf->path)
#include "roz/digest.h"
			continue;
#include "roz/digest.h"
		/* records come in runs on the same file: the last one is tried before the table */
#include "roz/digest.h"
		if (v->paths.n && strcmp(vstr_get(&v->paths, v->last_path), rf->path) == 0)
#include "roz/digest.h"
			fi = v->last_path;
#include "roz/digest.h"
		else if (vstr_intern(&v->paths, rf->path, &fi) != ROZ_OK)
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		v->last_path = fi;
#include "roz/digest.h"
		if (rf->removed && add_ent(v, fi, VK_REMOVED, NULL) != ROZ_OK)
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		if (rec->accept && add_ent(v, fi, VK_ACCEPT, NULL) != ROZ_OK)
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		if (rf->from && strcmp(rf->from, rf->path) != 0 &&
#include "roz/digest.h"
		    (vstr_intern(&v->paths, rf->from, &from) != ROZ_OK || add_ent(v, from, VK_AWAY, NULL) != ROZ_OK))
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		for (size_t j = 0; j < rf->ranges.n; j++)
#include "roz/digest.h"
			if ((rc = add_ent(v, fi, VK_RANGE, &rf->ranges.items[j])) != ROZ_OK)
#include "roz/digest.h"
				return rc;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	v->nrecs++;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
static bool blank(const char *s, size_t n)
#include "roz/digest.h"
{
#include "roz/digest.h"
	for (size_t i = 0; i < n; i++)
#include "roz/digest.h"
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
#include "roz/digest.h"
			return false;
#include "roz/digest.h"
	return true;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
int roz_verify_feed(roz_verify *v, const char *line, size_t len, uint64_t offset, bool ended)
#include "roz/digest.h"
{
#include "roz/digest.h"
	roz_ledger_rec rec;
#include "roz/digest.h"
	int rc;
#include "roz/digest.h"

#include "roz/digest.h"
	v->line++;
#include "roz/digest.h"
	if (!line || len > ROZ_LEDGER_MAX_LINE)
#include "roz/digest.h"
		return add_bad(v, "", "longer than a record can be (1 MiB)");
#include "roz/digest.h"
	if (blank(line, len))
#include "roz/digest.h"
		return ROZ_OK;
#include "roz/digest.h"
	roz_error_clear();
#include "roz/digest.h"
	rc = roz_ledger_line_parse(line, len, &rec);
#include "roz/digest.h"
	if (rc == ROZ_ENOMEM)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	if (rc != ROZ_OK)
#include "roz/digest.h"
		/* a last line with no "\n" is a write that did not finish */
#include "roz/digest.h"
		return add_bad(v, ended ? "" : "torn last line (no newline at its end): ", roz_error_last());
#include "roz/digest.h"
	rc = take_record(v, &rec, offset, len);
#include "roz/digest.h"
	if (rc == ROZ_OK && v->o.on_record)
#include "roz/digest.h"
		rc = v->o.on_record(v->o.record_ud, &rec, v->line);
#include "roz/digest.h"
	roz_ledger_rec_dispose(&rec);
#include "roz/digest.h"
	return rc;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* ---- items ---------------------------------------------------------------- */
#include "roz/digest.h"

#include "roz/digest.h"
/* The exact lines of entry i. */
#include "roz/digest.h"
void vent_bounds(const roz_verify *v, size_t i, unsigned long *start, unsigned long *end)
#include "roz/digest.h"
{
#include "roz/digest.h"
	const vent *e = &v->ents[i];
#include "roz/digest.h"
	size_t lo = 0, hi = v->nbig;
#include "roz/digest.h"

#include "roz/digest.h"
	if (!(e->flags & VF_BIG)) {
#include "roz/digest.h"
		*start = e->start;
#include "roz/digest.h"
		*end = e->end;
#include "roz/digest.h"
		return;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	while (lo < hi) {
#include "roz/digest.h"
		size_t mid = lo + (hi - lo) / 2;
#include "roz/digest.h"

#include "roz/digest.h"
		if (v->big[mid].ent < i)
#include "roz/digest.h"
			lo = mid + 1;
#include "roz/digest.h"
		else
#include "roz/digest.h"
			hi = mid;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	*start = v->big[lo].start;
#include "roz/digest.h"
	*end = v->big[lo].end;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* The record's id and session, read again from its line; "?" and NULL when that fails. */
#include "roz/digest.h"
static int record_ids(roz_verify *v, uint32_t rec)
#include "roz/digest.h"
{
#include "roz/digest.h"
	const vrec *r = &v->recs[rec];
#include "roz/digest.h"
	const char *line;
#include "roz/digest.h"
	roz_ledger_rec pr;
#include "roz/digest.h"
	int rc;
#include "roz/digest.h"

#include "roz/digest.h"
	if (v->id_rec == rec + 1)
#include "roz/digest.h"
		return ROZ_OK;
#include "roz/digest.h"
	v->id_rec = rec + 1;
#include "roz/digest.h"
	roz_free(v->id);
#include "roz/digest.h"
	roz_free(v->session);
#include "roz/digest.h"
	v->id = v->session = NULL;
#include "roz/digest.h"
	if (v->o.at && v->o.at(v->o.at_ud, r->offset, r->len, &line) == ROZ_OK) {
#include "roz/digest.h"
		rc = roz_ledger_line_parse(line, r->len, &pr);
#include "roz/digest.h"
		if (rc == ROZ_ENOMEM)
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		if (rc == ROZ_OK) {
#include "roz/digest.h"
			v->id = pr.id;
#include "roz/digest.h"
			v->session = pr.session_id;
#include "roz/digest.h"
			pr.id = pr.session_id = NULL;
#include "roz/digest.h"
			roz_ledger_rec_dispose(&pr);
#include "roz/digest.h"
		}
#include "roz/digest.h"
	}
#include "roz/digest.h"
	if (!v->id && !(v->id = roz_strdup("?")))
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
static int moved_cmp_ent(const void *key, const void *elem)
#include "roz/digest.h"
{
#include "roz/digest.h"
	size_t k = *(const size_t *)key, e = ((const vmoved *)elem)->ent;
#include "roz/digest.h"

#include "roz/digest.h"
	return k < e ? -1 : k > e;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
int roz_verify_each(roz_verify *v, unsigned flags, roz_verify_item_fn fn, void *ud)
#include "roz/digest.h"
{
#include "roz/digest.h"
	for (size_t i = 0; i < v->nents; i++) {
#include "roz/digest.h"
		const vent *e = &v->ents[i];
#include "roz/digest.h"
		const vrec *r = &v->recs[e->rec];
#include "roz/digest.h"
		roz_verify_item it;
#include "roz/digest.h"
		char *nothing = NULL;
#include "roz/digest.h"
		int rc;
#include "roz/digest.h"

#include "roz/digest.h"
		if (!vent_is_item(v, e))
#include "roz/digest.h"
			continue;
#include "roz/digest.h"
		if (!(flags & ROZ_VERIFY_EACH_ALL) &&
#include "roz/digest.h"
		    (e->state == ROZ_VERIFY_INTACT || e->state == ROZ_VERIFY_SUPERSEDED))
#include "roz/digest.h"
			continue;
#include "roz/digest.h"
		if ((flags & ROZ_VERIFY_EACH_IDS) && (rc = record_ids(v, e->rec)) != ROZ_OK)
#include "roz/digest.h"
			return rc;
#include "roz/digest.h"
		memset(&it, 0, sizeof it);
#include "roz/digest.h"
		it.line = r->line;
#include "roz/digest.h"
		/* the item lends the engine's strings: const for the callback, as the header says */
#include "roz/digest.h"
		it.record_id = (flags & ROZ_VERIFY_EACH_IDS) ? v->id : nothing;
#include "roz/digest.h"
		it.session_id = (flags & ROZ_VERIFY_EACH_IDS) ? v->session : nothing;
#include "roz/digest.h"
		it.intent_id = r->intent ? (char *)(uintptr_t)vstr_get(&v->intents, r->intent - 1) : nothing;
#include "roz/digest.h"
		it.path = (char *)(uintptr_t)vstr_get(&v->paths, e->file);
#include "roz/digest.h"
		vent_bounds(v, i, &it.start_line, &it.end_line);
#include "roz/digest.h"
		it.state = (roz_verify_state)e->state;
#include "roz/digest.h"
		if (e->state == ROZ_VERIFY_MOVED) {
#include "roz/digest.h"
			const vmoved *m = bsearch(&i, v->moved, v->nmoved, sizeof *v->moved, moved_cmp_ent);
#include "roz/digest.h"

#include "roz/digest.h"
			if (m) {
#include "roz/digest.h"
				it.moved_path = (char *)(uintptr_t)vstr_get(&v->paths, m->file);
#include "roz/digest.h"
				it.moved_start = m->start;
#include "roz/digest.h"
				it.moved_end = m->start + (it.end_line - it.start_line);
#include "roz/digest.h"
			}
#include "roz/digest.h"
		}
#include "roz/digest.h"
		if (e->state == ROZ_VERIFY_MISSING && v->file_why && v->file_why[e->file])
#include "roz/digest.h"
			it.why = (char *)(uintptr_t)vstr_get(&v->whys, v->file_why[e->file] - 1);
#include "roz/digest.h"
		if ((rc = fn(ud, &it)) != ROZ_OK)
#include "roz/digest.h"
			return rc;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* ---- the report ------------------------------------------------------- */
#include "roz/digest.h"

#include "roz/digest.h"
void roz_verify_report_dispose(roz_verify_report *r)
#include "roz/digest.h"
{
#include "roz/digest.h"
	if (!r)
#include "roz/digest.h"
		return;
#include "roz/digest.h"
	for (size_t i = 0; i < r->n; i++) {
#include "roz/digest.h"
		roz_verify_item *it = &r->items[i];
#include "roz/digest.h"

#include "roz/digest.h"
		roz_free(it->record_id);
#include "roz/digest.h"
		roz_free(it->intent_id);
#include "roz/digest.h"
		roz_free(it->session_id);
#include "roz/digest.h"
		roz_free(it->path);
#include "roz/digest.h"
		roz_free(it->moved_path);
#include "roz/digest.h"
		roz_free(it->why);
#include "roz/digest.h"
	}
#include "roz/digest.h"
	roz_free(r->items);
#include "roz/digest.h"
	for (size_t i = 0; i < r->nbad; i++)
#include "roz/digest.h"
		roz_free(r->bad[i].why);
#include "roz/digest.h"
	roz_free(r->bad);
#include "roz/digest.h"
	memset(r, 0, sizeof *r);
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* The lines that are not records, into the report (which owns its copies). */
#include "roz/digest.h"
int vreport_bad(const roz_verify *v, roz_verify_report *out)
#include "roz/digest.h"
{
#include "roz/digest.h"
	if (!v->nbad)
#include "roz/digest.h"
		return ROZ_OK;
#include "roz/digest.h"
	if (!(out->bad = roz_calloc(v->nbad, sizeof *out->bad)))
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	out->capbad = v->nbad;
#include "roz/digest.h"
	for (size_t i = 0; i < v->nbad; i++) {
#include "roz/digest.h"
		out->bad[i].line = v->bad[i].line;
#include "roz/digest.h"
		if (!(out->bad[i].why = roz_strdup(vstr_get(&v->whys, v->bad[i].why))))
#include "roz/digest.h"
			return ROZ_ENOMEM;
#include "roz/digest.h"
		out->nbad++;
#include "roz/digest.h"
	}
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
static char *dup_or_null(const char *s, bool *oom)
#include "roz/digest.h"
{
#include "roz/digest.h"
	char *d;
#include "roz/digest.h"

#include "roz/digest.h"
	if (!s)
#include "roz/digest.h"
		return NULL;
#include "roz/digest.h"
	if (!(d = roz_strdup(s)))
#include "roz/digest.h"
		*oom = true;
#include "roz/digest.h"
	return d;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* roz_verify_item_fn: a copy of each item into the report. */
#include "roz/digest.h"
static int keep_item(void *ud, const roz_verify_item *it)
#include "roz/digest.h"
{
#include "roz/digest.h"
	roz_verify_report *r = ud;
#include "roz/digest.h"
	roz_verify_item *c;
#include "roz/digest.h"
	bool oom = false;
#include "roz/digest.h"

#include "roz/digest.h"
	if (roz_alloc_array_reserve((void **)&r->items, &r->cap, sizeof *r->items, r->n + 1) != ROZ_OK)
#include "roz/digest.h"
		return ROZ_ENOMEM;
#include "roz/digest.h"
	c = &r->items[r->n++];
#include "roz/digest.h"
	*c = *it;
#include "roz/digest.h"
	c->record_id = dup_or_null(it->record_id ? it->record_id : "", &oom);
#include "roz/digest.h"
	c->intent_id = dup_or_null(it->intent_id, &oom);
#include "roz/digest.h"
	c->session_id = dup_or_null(it->session_id, &oom);
#include "roz/digest.h"
	c->path = dup_or_null(it->path, &oom);
#include "roz/digest.h"
	c->moved_path = dup_or_null(it->moved_path, &oom);
#include "roz/digest.h"
	c->why = dup_or_null(it->why, &oom);
#include "roz/digest.h"
	return oom ? ROZ_ENOMEM : ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
/* roz_verify_at_fn over a ledger in memory. */
#include "roz/digest.h"
typedef struct membuf {
#include "roz/digest.h"
	const char *text;
#include "roz/digest.h"
	size_t len;
#include "roz/digest.h"
} membuf;
#include "roz/digest.h"

#include "roz/digest.h"
static int mem_at(void *ud, uint64_t offset, size_t len, const char **line)
#include "roz/digest.h"
{
#include "roz/digest.h"
	const membuf *m = ud;
#include "roz/digest.h"

#include "roz/digest.h"
	if (offset > m->len || len > m->len - offset)
#include "roz/digest.h"
		return ROZ_EINVALID;
#include "roz/digest.h"
	*line = m->text + offset;
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
}
#include "roz/digest.h"

#include "roz/digest.h"
int roz_verify_run(const char *ledger, size_t len, const char *since, roz_verify_read_fn read, void *ud,
#include "roz/digest.h"
		   roz_verify_report *out)
#include "roz/digest.h"
{
#include "roz/digest.h"
	membuf m = {ledger ? ledger : "", ledger ? len : 0};
#include "roz/digest.h"
	roz_verify_opts o;
#include "roz/digest.h"
	roz_verify *v = NULL;
#include "roz/digest.h"
	size_t pos = 0;
#include "roz/digest.h"
	int rc;
#include "roz/digest.h"

#include "roz/digest.h"
	memset(out, 0, sizeof *out);
#include "roz/digest.h"
	memset(&o, 0, sizeof o);
#include "roz/digest.h"
	o.read = read;
#include "roz/digest.h"
	o.read_ud = ud;
#include "roz/digest.h"
	o.at = mem_at;
#include "roz/digest.h"
	o.at_ud = &m;
#include "roz/digest.h"
	o.since_revision = since;
#include "roz/digest.h"
	if ((rc = roz_verify_begin(&o, &v)) != ROZ_OK)
#include "roz/digest.h"
		goto fail;
#include "roz/digest.h"
	while (pos < m.len) {
#include "roz/digest.h"
		const char *s = m.text + pos, *nl = memchr(s, '\n', m.len - pos);
#include "roz/digest.h"
		size_t n = nl ? (size_t)(nl - s) : m.len - pos;
#include "roz/digest.h"

#include "roz/digest.h"
		if ((rc = roz_verify_feed(v, s, n, pos, nl != NULL)) != ROZ_OK)
#include "roz/digest.h"
			goto fail;
#include "roz/digest.h"
		pos += n + (nl ? 1 : 0);
#include "roz/digest.h"
	}
#include "roz/digest.h"
	if ((rc = roz_verify_settle(v, out)) != ROZ_OK ||
#include "roz/digest.h"
	    (rc = roz_verify_each(v, ROZ_VERIFY_EACH_ALL | ROZ_VERIFY_EACH_IDS, keep_item, out)) != ROZ_OK)
#include "roz/digest.h"
		goto fail;
#include "roz/digest.h"
	roz_verify_free(v);
#include "roz/digest.h"
	return ROZ_OK;
#include "roz/digest.h"
fail:
#include "roz/digest.h"
	roz_verify_free(v);
#include "roz/digest.h"
	roz_verify_report_dispose(out);
#include "roz/digest.h"
	roz_error_set("out of memory while verifying the ledger");
#include "roz/digest.h"
	return ROZ_ENOMEM;
#include "roz/digest.h"
}
#include "roz/digest.h"
