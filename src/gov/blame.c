/*
 * blame.c - which record wrote each line of a file now (roz/blame.h).
 *
 * First the file's names through time: walking the records from the last
 * back, the name a record must use to speak of the file (a rename into the
 * name makes earlier records speak of the old one; a rename of the name
 * away ends the file's history there). Then the records in order keep
 * the file's standing ranges by verify's rules. Each standing range is
 * hashed where it was put; those that do not hash the same are looked for
 * one length at a time, every window of that length hashed once. Last,
 * the ranges paint their lines, the oldest first, so a later record wins.
 */
#include "roz/blame.h"
#include "roz/digest.h"

#include <stdlib.h>
#include <string.h>

static const char state_names[][13] = {
	[ROZ_BLAME_NONE] = "none",         [ROZ_BLAME_WRITTEN] = "written",   [ROZ_BLAME_MOVED] = "moved",
	[ROZ_BLAME_EDITED] = "edited",     [ROZ_BLAME_ACCEPTED] = "accepted", [ROZ_BLAME_UNVERIFIABLE] = "unverifiable",
};

const char *roz_blame_state_name(roz_blame_state s)
{
	if ((size_t)s >= sizeof state_names / sizeof state_names[0])
		return "none";
	return state_names[s];
}

static bool has_name(char **names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return true;
	return false;
}

int roz_blame_names(const char *path, const roz_ledger_rec *recs, size_t nrecs, char ***names, size_t *nnames)
{
	char **v = NULL;
	size_t n = 0, cap = 0, done = 0;

	*names = NULL;
	*nnames = 0;
	/* each name found is looked at in turn: a chain of renames is followed to its start */
	for (const char *want = path; want; want = done < n ? v[done++] : NULL) {
		for (size_t i = 0; i < nrecs; i++)
			for (size_t j = 0; j < recs[i].nfiles; j++) {
				const roz_ledger_rfile *f = &recs[i].files[j];

				if (!f->from || !f->path || strcmp(f->path, want) != 0 || strcmp(f->from, path) == 0 ||
				    has_name(v, n, f->from))
					continue;
				if (roz_alloc_array_reserve((void **)&v, &cap, sizeof *v, n + 1) != ROZ_OK ||
				    !(v[n] = roz_strdup(f->from))) {
					for (size_t k = 0; k < n; k++)
						roz_free(v[k]);
					roz_free(v);
					return ROZ_ENOMEM;
				}
				n++;
			}
	}
	*names = v;
	*nnames = n;
	return ROZ_OK;
}

/* A range standing for the file. */
typedef struct claim {
	size_t rec, seq;
	const roz_ledger_range *rg;
	unsigned char state;
	unsigned long at;      /* where it is now (moved: the first line found) */
} claim;

typedef struct bctx {
	claim *c;
	size_t n, cap, seq;
	const char *text;
	size_t len;
	size_t *starts;
	unsigned long nlines;
} bctx;

/* Drop every claim not of record `rec` that overlaps [start, end] (all of them when start is 0). */
static void drop(bctx *b, size_t rec, unsigned long start, unsigned long end)
{
	size_t k = 0;

	for (size_t i = 0; i < b->n; i++) {
		const claim *c = &b->c[i];

		if (c->rec != rec && (!start || (c->rg->start_line <= end && start <= c->rg->end_line)))
			continue;
		b->c[k++] = *c;
	}
	b->n = k;
}

static int take(bctx *b, const roz_ledger_rec *r, size_t ri, const char *name)
{
	for (size_t j = 0; j < r->nfiles; j++) {
		const roz_ledger_rfile *f = &r->files[j];

		if (!f->path || strcmp(f->path, name) != 0)
			continue;
		if (f->removed || r->accept)
			drop(b, ri, 0, 0);
		for (size_t k = 0; k < f->ranges.n; k++) {
			const roz_ledger_range *g = &f->ranges.items[k];

			drop(b, ri, g->start_line, g->end_line);
			if (roz_alloc_array_reserve((void **)&b->c, &b->cap, sizeof *b->c, b->n + 1) != ROZ_OK)
				return ROZ_ENOMEM;
			b->c[b->n++] = (claim){ri, b->seq++, g, ROZ_BLAME_NONE, 0};
		}
	}
	return ROZ_OK;
}

/* The hex SHA-256 of lines [s, s + k - 1] of the file (in range). */
static void window_hash(const bctx *b, unsigned long s, unsigned long k, char out[ROZ_SHA256_HEX_SIZE])
{
	unsigned long last = s + k - 1;
	size_t from = b->starts[s - 1], to;

	if (last < b->nlines)
		to = b->starts[last] - 1;
	else
		to = b->len && b->text[b->len - 1] == '\n' ? b->len - 1 : b->len;
	roz_digest_sha256_hex(b->text + from, to - from, out);
}

static int by_length(const void *x, const void *y)
{
	const claim *a = *(const claim *const *)x, *c = *(const claim *const *)y;
	unsigned long ka = a->rg->end_line - a->rg->start_line, kc = c->rg->end_line - c->rg->start_line;

	return ka < kc ? -1 : ka > kc;
}

/* Where each claim stands now. */
static int judge(bctx *b)
{
	claim **look = NULL;
	size_t nlook = 0;
	char h[ROZ_SHA256_HEX_SIZE];

	for (size_t i = 0; i < b->n; i++) {
		claim *c = &b->c[i];
		const roz_ledger_range *g = c->rg;

		if (g->who == ROZ_LEDGER_WHO_HUMAN) {
			c->state = ROZ_BLAME_ACCEPTED;
			continue;
		}
		if (g->hash_kind != ROZ_LEDGER_HASH_SHA256 || !g->hash[0]) {
			c->state = ROZ_BLAME_UNVERIFIABLE;
			continue;
		}
		if (g->end_line <= b->nlines) {
			window_hash(b, g->start_line, g->end_line - g->start_line + 1, h);
			if (strcmp(h, g->hash) == 0) {
				c->state = ROZ_BLAME_WRITTEN;
				continue;
			}
		}
		c->state = ROZ_BLAME_EDITED;
		if (g->end_line - g->start_line < b->nlines) {
			if (!look && !(look = roz_calloc(b->n, sizeof *look)))
				return ROZ_ENOMEM;
			look[nlook++] = c;
		}
	}
	/* one length at a time, each window of that length hashed once (qsort wants an array, even of none) */
	if (nlook)
		qsort(look, nlook, sizeof *look, by_length);
	for (size_t i = 0; i < nlook;) {
		unsigned long k = look[i]->rg->end_line - look[i]->rg->start_line + 1;
		size_t j = i, left;

		while (j < nlook && look[j]->rg->end_line - look[j]->rg->start_line + 1 == k)
			j++;
		left = j - i;
		for (unsigned long s = 1; s + k - 1 <= b->nlines && left; s++) {
			window_hash(b, s, k, h);
			for (size_t m = i; m < j; m++)
				if (look[m]->state == ROZ_BLAME_EDITED && strcmp(h, look[m]->rg->hash) == 0) {
					look[m]->state = ROZ_BLAME_MOVED;
					look[m]->at = s;
					left--;
				}
		}
		i = j;
	}
	roz_free(look);
	return ROZ_OK;
}

static int by_seq(const void *x, const void *y)
{
	const claim *a = x, *c = y;

	return a->seq < c->seq ? -1 : a->seq > c->seq;
}

int roz_blame_run(const char *path, const roz_ledger_rec *recs, size_t nrecs, const char *text, size_t len,
		  roz_blame_line **out, unsigned long *nlines)
{
	bctx b;
	const char **names = NULL;
	const char *name = path;
	roz_blame_line *lines = NULL;
	int rc = ROZ_ENOMEM;

	memset(&b, 0, sizeof b);
	*out = NULL;
	*nlines = 0;
	b.text = text ? text : "";
	b.len = text ? len : 0;
	b.nlines = roz_ledger_line_count(b.text, b.len);
	if (b.nlines && !(b.starts = roz_calloc(b.nlines, sizeof *b.starts)))
		goto out;
	for (size_t i = 0, n = 1; b.nlines && i + 1 < b.len; i++)
		if (b.text[i] == '\n')
			b.starts[n++] = i + 1;
	/* the file's name as each record must speak of it, from the last record back */
	if (nrecs && !(names = roz_calloc(nrecs, sizeof *names)))
		goto out;
	for (size_t i = nrecs; i-- > 0 && name;) {
		const char *before = name;

		names[i] = name;
		for (size_t j = 0; j < recs[i].nfiles; j++) {
			const roz_ledger_rfile *f = &recs[i].files[j];

			if (!f->from || !f->path)
				continue;
			if (strcmp(f->path, name) == 0 && strcmp(f->from, name) != 0)
				before = f->from;
			else if (strcmp(f->from, name) == 0 && strcmp(f->path, name) != 0 && before == name)
				before = NULL; /* the name was left: what it held before is another file's */
		}
		name = before;
	}
	for (size_t i = 0; i < nrecs; i++)
		if (names[i] && take(&b, &recs[i], i, names[i]) != ROZ_OK)
			goto out;
	if (judge(&b) != ROZ_OK)
		goto out;
	if (b.n)
		qsort(b.c, b.n, sizeof *b.c, by_seq);
	if (b.nlines && !(lines = roz_calloc(b.nlines, sizeof *lines)))
		goto out;
	for (unsigned long l = 0; l < b.nlines; l++)
		lines[l] = (roz_blame_line){ROZ_BLAME_NO_RECORD, ROZ_BLAME_NONE, 0, 0};
	for (size_t i = 0; i < b.n; i++) {
		const claim *c = &b.c[i];
		unsigned long from = c->state == ROZ_BLAME_MOVED ? c->at : c->rg->start_line;
		unsigned long to = from + (c->rg->end_line - c->rg->start_line);

		if (to > b.nlines)
			to = b.nlines;
		for (unsigned long l = from; l <= to; l++)
			lines[l - 1] = (roz_blame_line){c->rec, c->state, c->rg->start_line, c->rg->end_line};
	}
	*out = lines;
	*nlines = b.nlines;
	lines = NULL;
	rc = ROZ_OK;
out:
	if (rc != ROZ_OK)
		roz_error_set("out of memory while blaming '%s'", path);
	roz_free(lines);
	roz_free(names);
	roz_free(b.starts);
	roz_free(b.c);
	return rc;
}

int roz_blame_names_merge(char ***names, size_t *n, char **found, size_t nfound, size_t *fresh)
{
	char **grown = nfound ? roz_realloc(*names, (*n + nfound) * sizeof **names) : *names;

	*fresh = 0;
	if (nfound && !grown) {
		for (size_t i = 0; i < nfound; i++)
			roz_free(found[i]);
		roz_free(found);
		return ROZ_ENOMEM;
	}
	*names = grown;
	for (size_t i = 0; i < nfound; i++) {
		bool known = false;

		for (size_t j = 0; j < *n && !known; j++)
			known = strcmp((*names)[j], found[i]) == 0;
		if (known) {
			roz_free(found[i]);
			continue;
		}
		/* a name not met before: the caller reads the ledger again for its records */
		(*names)[(*n)++] = found[i];
		(*fresh)++;
	}
	roz_free(found);
	return ROZ_OK;
}
