/*
 * compact.c - which records of the ledger no longer speak for any line
 * (roz/compact.h), and the order every reader takes records in.
 *
 * Lines are taken one at a time and each record is parsed once, keeping
 * only its place, its time and what its files did: per range the path (an
 * index into the paths met), the lines, and the record. Planning then
 * walks the records in order with, per path, the ranges standing; each
 * range taken over or retired leaves an edge from its record to
 * the record that did it. A record whose range stands at the end stays,
 * and so does every record an edge leads to from one that stays: the
 * records left in the active ledger then read exactly as they did. The
 * rules are roz ledger verify's (roz/verify.h), so what verify reports of
 * the records left is what it reported of them before.
 */
#include "roz/compact.h"
#include "roz/digest.h"

#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

bool roz_ledger_line_time(const char *s, size_t n, roz_time *t)
{
	static const char key[] = "\"timestamp\":\"";
	const char *at = NULL, *end;
	char buf[64];

	for (size_t i = 0; i + sizeof key - 1 <= n && !at; i++)
		if (s[i] == '"' && memcmp(s + i, key, sizeof key - 1) == 0)
			at = s + i + sizeof key - 1;
	if (!at || !(end = memchr(at, '"', (size_t)(s + n - at))) || (size_t)(end - at) >= sizeof buf)
		return false;
	memcpy(buf, at, (size_t)(end - at));
	buf[end - at] = '\0';
	return roz_time_parse(buf, t) == ROZ_OK;
}

void roz_ledger_order_see(roz_ledger_order *o, bool timed, roz_time t)
{
	if (!timed)
		o->untimed = true;
	if (o->untimed)
		return;
	if (o->any && roz_time_cmp(t, o->last) < 0)
		o->unordered = true;
	if (!o->any || roz_time_cmp(t, o->latest) > 0)
		o->latest = t;
	o->last = t;
	o->any = true;
}

bool roz_ledger_order_follows(const roz_ledger_order *o, bool timed, roz_time t)
{
	if (o->untimed)
		return true;
	return timed && (!o->any || roz_time_cmp(t, o->latest) >= 0);
}

bool roz_ledger_order_sorts(const roz_ledger_order *o)
{
	return !o->untimed && o->unordered;
}

void roz_compact_month(roz_time t, char out[8])
{
	char ts[ROZ_TIME_BUFSZ];

	roz_time_format_sec(t, ts);
	memcpy(out, ts, 7);
	out[7] = '\0';
}

/* A range as the rules need it. */
typedef struct crange {
	size_t path;
	unsigned long start, end;
	size_t rec;
} crange;

/* One file of a record: what it did to its path, and its ranges [r0, r0 + nr). */
typedef struct cop {
	size_t path, from;   /* from: NONE unless renamed from another path */
	bool removed;
	size_t r0, nr;
} cop;

typedef struct crec {
	size_t line;         /* index into lines */
	bool has_time;       /* a time of its own: it may move */
	roz_time own;
	bool accept;
	size_t o0, no;
} crec;

/* "If `from` stays, `to` stays." */
typedef struct edge {
	size_t from, to;
} edge;

/* The ranges standing on one path. */
typedef struct standing {
	size_t *r;
	size_t n, cap;
} standing;

struct roz_compact {
	roz_compact_line *lines;
	size_t nlines, caplines;
	crec *recs;
	size_t nrecs, caprecs;
	cop *ops;
	size_t nops, capops;
	crange *ranges;
	size_t nranges, capranges;
	char **paths;
	size_t npaths, cappaths;
	size_t *ptab;        /* path -> index, open addressing */
	size_t ptab_cap;
	roz_ledger_order order;
	edge *edges;
	size_t nedges, capedges;
	bool planned;
	size_t moved;
};

roz_compact *roz_compact_new(void)
{
	return roz_calloc(1, sizeof(roz_compact));
}

const roz_ledger_order *roz_compact_order(const roz_compact *c)
{
	return &c->order;
}

void roz_compact_free(roz_compact *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->npaths; i++)
		roz_free(c->paths[i]);
	roz_free(c->paths);
	roz_free(c->ptab);
	roz_free(c->lines);
	roz_free(c->recs);
	roz_free(c->ops);
	roz_free(c->ranges);
	roz_free(c->edges);
	roz_free(c);
}

static int ptab_grow(roz_compact *c)
{
	size_t cap = c->ptab_cap ? c->ptab_cap * 2 : 64, *tab;

	if (!(tab = roz_malloc(cap * sizeof *tab)))
		return ROZ_ENOMEM;
	for (size_t i = 0; i < cap; i++)
		tab[i] = NONE;
	for (size_t i = 0; i < c->npaths; i++) {
		size_t j = (size_t)roz_hash_fnv1a(c->paths[i], strlen(c->paths[i])) & (cap - 1);

		while (tab[j] != NONE)
			j = (j + 1) & (cap - 1);
		tab[j] = i;
	}
	roz_free(c->ptab);
	c->ptab = tab;
	c->ptab_cap = cap;
	return ROZ_OK;
}

static int path_index(roz_compact *c, const char *path, size_t *out)
{
	size_t j;

	if ((c->npaths + 1) * 2 > c->ptab_cap && ptab_grow(c) != ROZ_OK)
		return ROZ_ENOMEM;
	for (j = (size_t)roz_hash_fnv1a(path, strlen(path)) & (c->ptab_cap - 1); c->ptab[j] != NONE;
	     j = (j + 1) & (c->ptab_cap - 1))
		if (strcmp(c->paths[c->ptab[j]], path) == 0) {
			*out = c->ptab[j];
			return ROZ_OK;
		}
	if (roz_alloc_array_reserve((void **)&c->paths, &c->cappaths, sizeof *c->paths, c->npaths + 1) != ROZ_OK ||
	    !(c->paths[c->npaths] = roz_strdup(path)))
		return ROZ_ENOMEM;
	c->ptab[j] = c->npaths;
	*out = c->npaths++;
	return ROZ_OK;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* A parsed record's files and ranges into the plan. */
static int take_record(roz_compact *c, const roz_ledger_rec *rec, crec *cr)
{
	cr->o0 = c->nops;
	for (size_t i = 0; i < rec->nfiles; i++) {
		const roz_ledger_rfile *f = &rec->files[i];
		cop o = {0, NONE, f->removed, c->nranges, f->ranges.n};

		if (!f->path)
			continue;
		if (path_index(c, f->path, &o.path) != ROZ_OK ||
		    (f->from && path_index(c, f->from, &o.from) != ROZ_OK))
			return ROZ_ENOMEM;
		if (o.from == o.path)
			o.from = NONE;
		if (roz_alloc_array_reserve((void **)&c->ranges, &c->capranges, sizeof *c->ranges,
					    c->nranges + f->ranges.n) != ROZ_OK ||
		    roz_alloc_array_reserve((void **)&c->ops, &c->capops, sizeof *c->ops, c->nops + 1) != ROZ_OK)
			return ROZ_ENOMEM;
		for (size_t j = 0; j < f->ranges.n; j++)
			c->ranges[c->nranges++] = (crange){o.path, f->ranges.items[j].start_line,
							   f->ranges.items[j].end_line, c->nrecs};
		c->ops[c->nops++] = o;
	}
	cr->no = c->nops - cr->o0;
	return ROZ_OK;
}

int roz_compact_add(roz_compact *c, const char *s, size_t n, uint64_t offset, bool ended)
{
	roz_compact_line *l;
	roz_ledger_rec rec;
	int rc;

	if (c->planned) {
		roz_error_set("the compaction was already planned");
		return ROZ_EINVALID;
	}
	if (roz_alloc_array_reserve((void **)&c->lines, &c->caplines, sizeof *c->lines, c->nlines + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	l = &c->lines[c->nlines++];
	memset(l, 0, sizeof *l);
	l->line = c->nlines;
	l->offset = offset;
	l->len = n;
	l->ended = ended;
	if (!s || blank(s, n))
		return ROZ_OK; /* blank, or too long to be a record: it stays */
	roz_error_clear();
	rc = roz_ledger_line_parse(s, n, &rec);
	if (rc == ROZ_ENOMEM)
		return rc;
	if (rc != ROZ_OK)
		return ROZ_OK; /* not a record: it stays where it is */
	if (roz_alloc_array_reserve((void **)&c->recs, &c->caprecs, sizeof *c->recs, c->nrecs + 1) != ROZ_OK) {
		roz_ledger_rec_dispose(&rec);
		return ROZ_ENOMEM;
	}
	l->record = true;
	roz_ledger_order_see(&c->order, rec.has_timestamp, rec.timestamp);
	c->recs[c->nrecs] = (crec){c->nlines - 1, rec.has_timestamp, rec.timestamp, rec.accept, 0, 0};
	rc = take_record(c, &rec, &c->recs[c->nrecs]);
	roz_ledger_rec_dispose(&rec);
	if (rc != ROZ_OK)
		return rc;
	c->nrecs++;
	return ROZ_OK;
}

/* ---- planning ------------------------------------------------------------ */

typedef struct plan {
	roz_compact *c;
	standing *st;        /* per path */
	size_t *pos;         /* record -> its place in the order */
} plan;

static int add_edge(roz_compact *c, size_t from, size_t to)
{
	if (roz_alloc_array_reserve((void **)&c->edges, &c->capedges, sizeof *c->edges, c->nedges + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	c->edges[c->nedges++] = (edge){from, to};
	return ROZ_OK;
}

/* Every range standing on `path` not of record `rec` goes; `rec` answers for it. */
static int retire_all(plan *p, size_t path, size_t rec)
{
	standing *s = &p->st[path];

	for (size_t i = 0; i < s->n;) {
		size_t owner = p->c->ranges[s->r[i]].rec;

		if (owner != rec) {
			if (add_edge(p->c, owner, rec) != ROZ_OK)
				return ROZ_ENOMEM;
			s->r[i] = s->r[--s->n];
			continue;
		}
		i++;
	}
	return ROZ_OK;
}

/* Range ri takes over the earlier ranges of its path it overlaps, and stands. */
static int supersede(plan *p, size_t ri)
{
	const crange *g = &p->c->ranges[ri];
	standing *s = &p->st[g->path];

	for (size_t i = 0; i < s->n;) {
		const crange *a = &p->c->ranges[s->r[i]];

		if (a->rec != g->rec && a->start <= g->end && g->start <= a->end) {
			if (add_edge(p->c, a->rec, g->rec) != ROZ_OK)
				return ROZ_ENOMEM;
			s->r[i] = s->r[--s->n];
			continue;
		}
		i++;
	}
	if (roz_alloc_array_reserve((void **)&s->r, &s->cap, sizeof *s->r, s->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	s->r[s->n++] = ri;
	return ROZ_OK;
}

static int take_in_order(plan *p, size_t ri)
{
	roz_compact *c = p->c;
	const crec *r = &c->recs[ri];

	for (size_t k = 0; k < r->no; k++) {
		const cop *o = &c->ops[r->o0 + k];

		/* the old name's ranges are taken over by the rename, as verify reads it */
		if (o->from != NONE && retire_all(p, o->from, ri) != ROZ_OK)
			return ROZ_ENOMEM;
		if ((o->removed || r->accept) && retire_all(p, o->path, ri) != ROZ_OK)
			return ROZ_ENOMEM;
		for (size_t j = 0; j < o->nr; j++)
			if (supersede(p, o->r0 + j) != ROZ_OK)
				return ROZ_ENOMEM;
	}
	return ROZ_OK;
}

/* A record's place in the order: by (time, ledger line), as verify reads an unordered ledger. */
typedef struct okey {
	roz_time t;
	size_t line, rec;
} okey;

static int by_time(const void *x, const void *y)
{
	const okey *a = x, *b = y;
	int d = roz_time_cmp(a->t, b->t);

	return d ? d : a->line < b->line ? -1 : a->line > b->line;
}

static int by_from(const void *x, const void *y)
{
	const edge *a = x, *b = y;

	return a->from < b->from ? -1 : a->from > b->from;
}

int roz_compact_plan(roz_compact *c, const roz_compact_line **lines, size_t *n, size_t *moved)
{
	plan p = {c, NULL, NULL};
	size_t *order = NULL;
	bool *stays = NULL;
	int rc = ROZ_ENOMEM;

	*lines = c->lines;
	*n = c->nlines;
	*moved = c->moved;
	/* decided once: asking again gives the same answer */
	if (c->planned || !c->nrecs) {
		c->planned = true;
		return ROZ_OK;
	}
	if (!(order = roz_calloc(c->nrecs, sizeof *order)) || !(p.pos = roz_calloc(c->nrecs, sizeof *p.pos)) ||
	    !(stays = roz_calloc(c->nrecs, sizeof *stays)) ||
	    (c->npaths && !(p.st = roz_calloc(c->npaths, sizeof *p.st))))
		goto out;
	for (size_t i = 0; i < c->nrecs; i++)
		order[i] = i;
	if (roz_ledger_order_sorts(&c->order)) {
		okey *keys = roz_calloc(c->nrecs, sizeof *keys);

		if (!keys)
			goto out;
		for (size_t i = 0; i < c->nrecs; i++)
			keys[i] = (okey){c->recs[i].own, c->recs[i].line, i};
		qsort(keys, c->nrecs, sizeof *keys, by_time);
		for (size_t i = 0; i < c->nrecs; i++)
			order[i] = keys[i].rec;
		roz_free(keys);
	}
	for (size_t k = 0; k < c->nrecs; k++) {
		p.pos[order[k]] = k;
		if (take_in_order(&p, order[k]) != ROZ_OK)
			goto out;
	}
	/* what stands speaks for lines; a record that cannot move without the others changing stays */
	for (size_t i = 0; i < c->npaths; i++)
		for (size_t j = 0; j < p.st[i].n; j++)
			stays[c->ranges[p.st[i].r[j]].rec] = true;
	for (size_t i = 0; i < c->nrecs; i++)
		if (!c->recs[i].has_time)
			stays[i] = true;
	/* edges lead forward in the order: one walk in that order closes the set */
	for (size_t i = 0; i < c->nedges; i++)
		c->edges[i].from = p.pos[c->edges[i].from];
	if (c->nedges) /* no edge: no array to sort, and qsort wants one */
		qsort(c->edges, c->nedges, sizeof *c->edges, by_from);
	for (size_t k = 0, e = 0; k < c->nrecs; k++) {
		for (; e < c->nedges && c->edges[e].from < k; e++)
			;
		for (; e < c->nedges && c->edges[e].from == k; e++)
			if (stays[order[k]])
				stays[c->edges[e].to] = true;
	}
	for (size_t i = 0; i < c->nrecs; i++) {
		roz_compact_line *l = &c->lines[c->recs[i].line];

		l->move = !stays[i];
		if (l->move) {
			roz_compact_month(c->recs[i].own, l->month);
			++*moved;
		}
	}
	c->planned = true;
	c->moved = *moved;
	rc = ROZ_OK;
out:
	if (rc != ROZ_OK)
		roz_error_set("out of memory while planning the compaction");
	for (size_t i = 0; p.st && i < c->npaths; i++)
		roz_free(p.st[i].r);
	roz_free(p.st);
	roz_free(p.pos);
	roz_free(order);
	roz_free(stays);
	return rc;
}
