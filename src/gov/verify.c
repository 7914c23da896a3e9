/*
 * verify.c - does the ledger still describe the code (roz/verify.h): the
 * run's state, the ledger read one line at a time, and the items handed
 * out. What each range is found to be is decided in verify_settle.c.
 *
 * The ledger is never held: a record is parsed as its line goes by and
 * only what deciding needs is kept (verify_int.h), compactly, so a million
 * records fit in a few tens of megabytes. What an item shows beyond that
 * (the record's id and session) is read again from the ledger by offset,
 * only for the items handed out.
 */
#include "verify_int.h"

#include <stdlib.h>
#include <string.h>

static const char state_names[][13] = {
	[ROZ_VERIFY_INTACT] = "intact",     [ROZ_VERIFY_MOVED] = "moved",
	[ROZ_VERIFY_EDITED] = "edited",     [ROZ_VERIFY_MISSING] = "missing",
	[ROZ_VERIFY_REMOVED] = "removed",   [ROZ_VERIFY_ACCEPTED] = "accepted",
	[ROZ_VERIFY_UNVERIFIABLE] = "unverifiable", [ROZ_VERIFY_SUPERSEDED] = "superseded",
};

const char *roz_verify_state_name(roz_verify_state s)
{
	if ((size_t)s >= sizeof state_names / sizeof state_names[0])
		return "edited";
	return state_names[s];
}

/* ---- interned strings --------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

void vstr_dispose(vstr *t)
{
	roz_free(t->arena);
	roz_free(t->off);
	roz_free(t->slots);
	memset(t, 0, sizeof *t);
}

const char *vstr_get(const vstr *t, uint32_t i)
{
	return t->arena + t->off[i];
}

static int vstr_grow(vstr *t)
{
	size_t cap = t->nslots ? t->nslots * 2 : 64;
	uint32_t *slots = roz_calloc(cap, sizeof *slots);

	if (!slots)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = (size_t)hash_str(vstr_get(t, (uint32_t)i)) & (cap - 1);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = (uint32_t)i + 1;
	}
	roz_free(t->slots);
	t->slots = slots;
	t->nslots = cap;
	return ROZ_OK;
}

int vstr_intern(vstr *t, const char *s, uint32_t *out)
{
	size_t n = strlen(s) + 1, j;

	if ((t->n + 1) * 2 > t->nslots && vstr_grow(t) != ROZ_OK)
		return ROZ_ENOMEM;
	j = (size_t)hash_str(s) & (t->nslots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (strcmp(vstr_get(t, t->slots[j] - 1), s) == 0) {
			*out = t->slots[j] - 1;
			return ROZ_OK;
		}
	if (t->n >= UINT32_MAX - 1 ||
	    roz_alloc_array_reserve((void **)&t->arena, &t->cap, 1, t->len + n) != ROZ_OK ||
	    roz_alloc_array_reserve((void **)&t->off, &t->capoff, sizeof *t->off, t->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	memcpy(t->arena + t->len, s, n);
	t->off[t->n] = t->len;
	t->len += n;
	t->slots[j] = (uint32_t)t->n + 1;
	*out = (uint32_t)t->n++;
	return ROZ_OK;
}

/* The index of s when it is interned, or false. */
bool vstr_find(const vstr *t, const char *s, uint32_t *out)
{
	size_t j;

	if (!t->nslots)
		return false;
	for (j = (size_t)hash_str(s) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (strcmp(vstr_get(t, t->slots[j] - 1), s) == 0) {
			*out = t->slots[j] - 1;
			return true;
		}
	return false;
}

/* ---- the renames the caller gives ------------------------------------------ */

int roz_verify_renames_add(roz_verify_renames *r, const char *from, const char *to)
{
	char *f, *t;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		char **nf = roz_realloc(r->from, cap * sizeof *nf), **nt;

		if (!nf)
			return ROZ_ENOMEM;
		r->from = nf;
		if (!(nt = roz_realloc(r->to, cap * sizeof *nt)))
			return ROZ_ENOMEM;
		r->to = nt;
		r->cap = cap;
	}
	f = roz_strdup(from);
	t = roz_strdup(to);
	if (!f || !t) {
		roz_free(f);
		roz_free(t);
		return ROZ_ENOMEM;
	}
	r->from[r->n] = f;
	r->to[r->n++] = t;
	return ROZ_OK;
}

int roz_verify_renames_absent(roz_verify_renames *r, const char *path)
{
	char *p;

	if (roz_alloc_array_reserve((void **)&r->absent, &r->capabsent, sizeof *r->absent, r->nabsent + 1) != ROZ_OK ||
	    !(p = roz_strdup(path)))
		return ROZ_ENOMEM;
	r->absent[r->nabsent++] = p;
	return ROZ_OK;
}

void roz_verify_renames_dispose(roz_verify_renames *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		roz_free(r->from[i]);
		roz_free(r->to[i]);
	}
	for (size_t i = 0; i < r->nabsent; i++)
		roz_free(r->absent[i]);
	roz_free(r->absent);
	roz_free(r->from);
	roz_free(r->to);
	memset(r, 0, sizeof *r);
}

/* ---- the run -------------------------------------------------------------- */

int roz_verify_begin(const roz_verify_opts *opts, roz_verify **out)
{
	roz_verify *v = roz_calloc(1, sizeof *v);

	*out = NULL;
	if (!v)
		return ROZ_ENOMEM;
	v->o = *opts;
	v->timed = v->ordered = true;
	*out = v;
	return ROZ_OK;
}

void roz_verify_free(roz_verify *v)
{
	if (!v)
		return;
	vstr_dispose(&v->paths);
	vstr_dispose(&v->intents);
	vstr_dispose(&v->whys);
	roz_free(v->recs);
	roz_free(v->times);
	roz_free(v->ents);
	roz_free(v->big);
	roz_free(v->moved);
	roz_free(v->bad);
	roz_free(v->file_why);
	roz_free(v->hint_rev);
	roz_free(v->first_rev);
	roz_free(v->id);
	roz_free(v->session);
	roz_free(v);
}

static int add_bad(roz_verify *v, const char *prefix, const char *detail)
{
	char *why = roz_asprintf("%s%s", prefix, detail && *detail ? detail : "not a record");
	uint32_t w;
	int rc;

	if (!why)
		return ROZ_ENOMEM;
	rc = vstr_intern(&v->whys, why, &w);
	roz_free(why);
	if (rc != ROZ_OK ||
	    roz_alloc_array_reserve((void **)&v->bad, &v->capbad, sizeof *v->bad, v->nbad + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	v->bad[v->nbad].line = v->line;
	v->bad[v->nbad++].why = w;
	return ROZ_OK;
}

/* One entry: a range of the record, or what the record did to a whole file. */
static int add_ent(roz_verify *v, uint32_t file, uint8_t kind, const roz_ledger_range *rg)
{
	vent *e;

	if (v->nents >= UINT32_MAX - 1 ||
	    roz_alloc_array_reserve((void **)&v->ents, &v->capents, sizeof *v->ents, v->nents + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	e = &v->ents[v->nents];
	memset(e, 0, sizeof *e);
	e->rec = (uint32_t)v->nrecs;
	e->file = file;
	e->kind = kind;
	e->state = VSTATE_OPEN;
	if (rg) {
		if (rg->who == ROZ_LEDGER_WHO_HUMAN)
			e->flags |= VF_HUMAN;
		if (rg->hash_kind == ROZ_LEDGER_HASH_SHA256 && vhex_bytes(rg->hash, e->hash))
			e->flags |= VF_SHA;
		if (rg->start_line < UINT32_MAX && rg->end_line < UINT32_MAX) {
			e->start = (uint32_t)rg->start_line;
			e->end = (uint32_t)rg->end_line;
		} else {
			/* line numbers past 2^32 (the schema allows 2^53) are kept aside */
			e->flags |= VF_BIG;
			if (roz_alloc_array_reserve((void **)&v->big, &v->capbig, sizeof *v->big, v->nbig + 1) !=
			    ROZ_OK)
				return ROZ_ENOMEM;
			v->big[v->nbig++] = (vbig){v->nents, rg->start_line, rg->end_line};
		}
	}
	v->nents++;
	return ROZ_OK;
}

/*
 * Whether a record's revision is `since`: the same hash, or one `since`
 * abbreviates (at least 4 hex digits, as git abbreviates).
 */
static bool same_revision(const char *rev, const char *since)
{
	size_t n = strlen(since);

	if (strcmp(rev, since) == 0)
		return true;
	if (n < 4 || n >= strlen(rev) || strspn(since, "0123456789abcdefABCDEF") != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((rev[i] | 0x20) != (since[i] | 0x20))
			return false;
	return true;
}

/* Where renames are looked for from: the earliest record's revision and time. */
static int note_hint(roz_verify *v, const roz_ledger_rec *rec)
{
	if (rec->revision && !v->first_rev && !(v->first_rev = roz_strdup(rec->revision)))
		return ROZ_ENOMEM;
	if (!rec->has_timestamp)
		return ROZ_OK;
	if (!v->has_min_time || roz_time_before(rec->timestamp, v->min_time)) {
		v->min_time = rec->timestamp;
		v->has_min_time = true;
	}
	if (rec->revision && (!v->hint_rev || roz_time_before(rec->timestamp, v->hint_time))) {
		char *r = roz_strdup(rec->revision);

		if (!r)
			return ROZ_ENOMEM;
		roz_free(v->hint_rev);
		v->hint_rev = r;
		v->hint_time = rec->timestamp;
	}
	return ROZ_OK;
}

static int take_record(roz_verify *v, const roz_ledger_rec *rec, uint64_t offset, size_t len)
{
	vrec *r;
	int rc;

	if (v->nrecs >= UINT32_MAX - 1 ||
	    roz_alloc_array_reserve((void **)&v->recs, &v->caprecs, sizeof *v->recs, v->nrecs + 1) != ROZ_OK ||
	    roz_alloc_array_reserve((void **)&v->times, &v->captimes, sizeof *v->times, v->nrecs + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	r = &v->recs[v->nrecs];
	memset(r, 0, sizeof *r);
	r->offset = offset;
	r->len = (uint32_t)len;
	r->line = v->line;
	if (rec->intent_id) {
		uint32_t i;

		/* a session's records come in runs under one intent */
		if (v->last_intent && strcmp(vstr_get(&v->intents, v->last_intent - 1), rec->intent_id) == 0)
			i = v->last_intent - 1;
		else if (vstr_intern(&v->intents, rec->intent_id, &i) != ROZ_OK)
			return ROZ_ENOMEM;
		r->intent = v->last_intent = i + 1;
	}
	/* with since_revision, which records are checked is known once they are in time order */
	if (v->o.since_known)
		r->checked = !(rec->id && v->o.since_known(v->o.since_ud, rec->id));
	else if (v->o.since_revision)
		r->rev_match = rec->revision && same_revision(rec->revision, v->o.since_revision);
	else
		r->checked = true;
	v->times[v->nrecs] = rec->timestamp;
	if (!rec->has_timestamp)
		v->timed = false;
	else if (v->nrecs && roz_time_before(rec->timestamp, v->last_time))
		v->ordered = false;
	if (rec->has_timestamp)
		v->last_time = rec->timestamp;
	if (note_hint(v, rec) != ROZ_OK)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < rec->nfiles; i++) {
		const roz_ledger_rfile *rf = &rec->files[i];
		uint32_t fi, from;

		if (!rf->path)
			continue;
		/* records come in runs on the same file: the last one is tried before the table */
		if (v->paths.n && strcmp(vstr_get(&v->paths, v->last_path), rf->path) == 0)
			fi = v->last_path;
		else if (vstr_intern(&v->paths, rf->path, &fi) != ROZ_OK)
			return ROZ_ENOMEM;
		v->last_path = fi;
		if (rf->removed && add_ent(v, fi, VK_REMOVED, NULL) != ROZ_OK)
			return ROZ_ENOMEM;
		if (rec->accept && add_ent(v, fi, VK_ACCEPT, NULL) != ROZ_OK)
			return ROZ_ENOMEM;
		if (rf->from && strcmp(rf->from, rf->path) != 0 &&
		    (vstr_intern(&v->paths, rf->from, &from) != ROZ_OK || add_ent(v, from, VK_AWAY, NULL) != ROZ_OK))
			return ROZ_ENOMEM;
		for (size_t j = 0; j < rf->ranges.n; j++)
			if ((rc = add_ent(v, fi, VK_RANGE, &rf->ranges.items[j])) != ROZ_OK)
				return rc;
	}
	v->nrecs++;
	return ROZ_OK;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

int roz_verify_feed(roz_verify *v, const char *line, size_t len, uint64_t offset, bool ended)
{
	roz_ledger_rec rec;
	int rc;

	v->line++;
	if (!line || len > ROZ_LEDGER_MAX_LINE)
		return add_bad(v, "", "longer than a record can be (1 MiB)");
	if (blank(line, len))
		return ROZ_OK;
	roz_error_clear();
	rc = roz_ledger_line_parse(line, len, &rec);
	if (rc == ROZ_ENOMEM)
		return ROZ_ENOMEM;
	if (rc != ROZ_OK)
		/* a last line with no "\n" is a write that did not finish */
		return add_bad(v, ended ? "" : "torn last line (no newline at its end): ", roz_error_last());
	rc = take_record(v, &rec, offset, len);
	if (rc == ROZ_OK && v->o.on_record)
		rc = v->o.on_record(v->o.record_ud, &rec, v->line);
	roz_ledger_rec_dispose(&rec);
	return rc;
}

/* ---- items ---------------------------------------------------------------- */

/* The exact lines of entry i. */
void vent_bounds(const roz_verify *v, size_t i, unsigned long *start, unsigned long *end)
{
	const vent *e = &v->ents[i];
	size_t lo = 0, hi = v->nbig;

	if (!(e->flags & VF_BIG)) {
		*start = e->start;
		*end = e->end;
		return;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->big[mid].ent < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	*start = v->big[lo].start;
	*end = v->big[lo].end;
}

/* The record's id and session, read again from its line; "?" and NULL when that fails. */
static int record_ids(roz_verify *v, uint32_t rec)
{
	const vrec *r = &v->recs[rec];
	const char *line;
	roz_ledger_rec pr;
	int rc;

	if (v->id_rec == rec + 1)
		return ROZ_OK;
	v->id_rec = rec + 1;
	roz_free(v->id);
	roz_free(v->session);
	v->id = v->session = NULL;
	if (v->o.at && v->o.at(v->o.at_ud, r->offset, r->len, &line) == ROZ_OK) {
		rc = roz_ledger_line_parse(line, r->len, &pr);
		if (rc == ROZ_ENOMEM)
			return ROZ_ENOMEM;
		if (rc == ROZ_OK) {
			v->id = pr.id;
			v->session = pr.session_id;
			pr.id = pr.session_id = NULL;
			roz_ledger_rec_dispose(&pr);
		}
	}
	if (!v->id && !(v->id = roz_strdup("?")))
		return ROZ_ENOMEM;
	return ROZ_OK;
}

static int moved_cmp_ent(const void *key, const void *elem)
{
	size_t k = *(const size_t *)key, e = ((const vmoved *)elem)->ent;

	return k < e ? -1 : k > e;
}

int roz_verify_each(roz_verify *v, unsigned flags, roz_verify_item_fn fn, void *ud)
{
	for (size_t i = 0; i < v->nents; i++) {
		const vent *e = &v->ents[i];
		const vrec *r = &v->recs[e->rec];
		roz_verify_item it;
		char *nothing = NULL;
		int rc;

		if (!vent_is_item(v, e))
			continue;
		if (!(flags & ROZ_VERIFY_EACH_ALL) &&
		    (e->state == ROZ_VERIFY_INTACT || e->state == ROZ_VERIFY_SUPERSEDED))
			continue;
		if ((flags & ROZ_VERIFY_EACH_IDS) && (rc = record_ids(v, e->rec)) != ROZ_OK)
			return rc;
		memset(&it, 0, sizeof it);
		it.line = r->line;
		/* the item lends the engine's strings: const for the callback, as the header says */
		it.record_id = (flags & ROZ_VERIFY_EACH_IDS) ? v->id : nothing;
		it.session_id = (flags & ROZ_VERIFY_EACH_IDS) ? v->session : nothing;
		it.intent_id = r->intent ? (char *)(uintptr_t)vstr_get(&v->intents, r->intent - 1) : nothing;
		it.path = (char *)(uintptr_t)vstr_get(&v->paths, e->file);
		vent_bounds(v, i, &it.start_line, &it.end_line);
		it.state = (roz_verify_state)e->state;
		if (e->state == ROZ_VERIFY_MOVED) {
			const vmoved *m = bsearch(&i, v->moved, v->nmoved, sizeof *v->moved, moved_cmp_ent);

			if (m) {
				it.moved_path = (char *)(uintptr_t)vstr_get(&v->paths, m->file);
				it.moved_start = m->start;
				it.moved_end = m->start + (it.end_line - it.start_line);
			}
		}
		if (e->state == ROZ_VERIFY_MISSING && v->file_why && v->file_why[e->file])
			it.why = (char *)(uintptr_t)vstr_get(&v->whys, v->file_why[e->file] - 1);
		if ((rc = fn(ud, &it)) != ROZ_OK)
			return rc;
	}
	return ROZ_OK;
}

/* ---- the report ------------------------------------------------------- */

void roz_verify_report_dispose(roz_verify_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		roz_verify_item *it = &r->items[i];

		roz_free(it->record_id);
		roz_free(it->intent_id);
		roz_free(it->session_id);
		roz_free(it->path);
		roz_free(it->moved_path);
		roz_free(it->why);
	}
	roz_free(r->items);
	for (size_t i = 0; i < r->nbad; i++)
		roz_free(r->bad[i].why);
	roz_free(r->bad);
	memset(r, 0, sizeof *r);
}

/* The lines that are not records, into the report (which owns its copies). */
int vreport_bad(const roz_verify *v, roz_verify_report *out)
{
	if (!v->nbad)
		return ROZ_OK;
	if (!(out->bad = roz_calloc(v->nbad, sizeof *out->bad)))
		return ROZ_ENOMEM;
	out->capbad = v->nbad;
	for (size_t i = 0; i < v->nbad; i++) {
		out->bad[i].line = v->bad[i].line;
		if (!(out->bad[i].why = roz_strdup(vstr_get(&v->whys, v->bad[i].why))))
			return ROZ_ENOMEM;
		out->nbad++;
	}
	return ROZ_OK;
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	if (!(d = roz_strdup(s)))
		*oom = true;
	return d;
}

/* roz_verify_item_fn: a copy of each item into the report. */
static int keep_item(void *ud, const roz_verify_item *it)
{
	roz_verify_report *r = ud;
	roz_verify_item *c;
	bool oom = false;

	if (roz_alloc_array_reserve((void **)&r->items, &r->cap, sizeof *r->items, r->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	c = &r->items[r->n++];
	*c = *it;
	c->record_id = dup_or_null(it->record_id ? it->record_id : "", &oom);
	c->intent_id = dup_or_null(it->intent_id, &oom);
	c->session_id = dup_or_null(it->session_id, &oom);
	c->path = dup_or_null(it->path, &oom);
	c->moved_path = dup_or_null(it->moved_path, &oom);
	c->why = dup_or_null(it->why, &oom);
	return oom ? ROZ_ENOMEM : ROZ_OK;
}

/* roz_verify_at_fn over a ledger in memory. */
typedef struct membuf {
	const char *text;
	size_t len;
} membuf;

static int mem_at(void *ud, uint64_t offset, size_t len, const char **line)
{
	const membuf *m = ud;

	if (offset > m->len || len > m->len - offset)
		return ROZ_EINVALID;
	*line = m->text + offset;
	return ROZ_OK;
}

int roz_verify_run(const char *ledger, size_t len, const char *since, roz_verify_read_fn read, void *ud,
		   roz_verify_report *out)
{
	membuf m = {ledger ? ledger : "", ledger ? len : 0};
	roz_verify_opts o;
	roz_verify *v = NULL;
	size_t pos = 0;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&o, 0, sizeof o);
	o.read = read;
	o.read_ud = ud;
	o.at = mem_at;
	o.at_ud = &m;
	o.since_revision = since;
	if ((rc = roz_verify_begin(&o, &v)) != ROZ_OK)
		goto fail;
	while (pos < m.len) {
		const char *s = m.text + pos, *nl = memchr(s, '\n', m.len - pos);
		size_t n = nl ? (size_t)(nl - s) : m.len - pos;

		if ((rc = roz_verify_feed(v, s, n, pos, nl != NULL)) != ROZ_OK)
			goto fail;
		pos += n + (nl ? 1 : 0);
	}
	if ((rc = roz_verify_settle(v, out)) != ROZ_OK ||
	    (rc = roz_verify_each(v, ROZ_VERIFY_EACH_ALL | ROZ_VERIFY_EACH_IDS, keep_item, out)) != ROZ_OK)
		goto fail;
	roz_verify_free(v);
	return ROZ_OK;
fail:
	roz_verify_free(v);
	roz_verify_report_dispose(out);
	roz_error_set("out of memory while verifying the ledger");
	return ROZ_ENOMEM;
}
