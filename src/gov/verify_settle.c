/*
 * verify_settle.c - what each range the ledger attributes is now
 * (roz/verify.h), once every line has been fed.
 *
 * First the records are put in time order (a rank each), and the since
 * filter decides which are checked. Then, file by file: which ranges a
 * later record retired, and how, is one sweep from the latest record back
 * to the earliest over a segment tree of the file's line numbers (each
 * elementary stretch holds the earliest later record that covered it), so
 * a file a hundred thousand records touched costs n log n, not n squared.
 * The ranges still standing are hashed in place in the file, read once and
 * released before the next; those that differ are looked for in the same
 * file, every window of their length hashed once per length and looked up
 * among them (sorted by hash). Never in other files: code the agent moved
 * elsewhere was recorded there. Files that are gone are looked up, last,
 * among the caller's renames, asked for once and only then.
 */
#include "verify_int.h"

#include "roz/digest.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/*
 * The first VHASH bytes of a range's hash read as SHA-256 (hash_kind
 * SHA256: the reader left exactly 64 lowercase hex digits, '0'-'9' being
 * 0x3N and 'a'-'f' 0x6N); false when it is not that after all.
 */
bool vhex_bytes(const char *hex, unsigned char out[VHASH])
{
	if (strnlen(hex, 65) != 64)
		return false;
	for (size_t i = 0; i < VHASH; i++) {
		unsigned hi = (unsigned char)hex[2 * i], lo = (unsigned char)hex[2 * i + 1];

		out[i] = (unsigned char)((((hi & 15) + (hi >> 6) * 9) << 4) | ((lo & 15) + (lo >> 6) * 9));
	}
	return true;
}

/* ---- time order ----------------------------------------------------------- */

typedef struct tkey {
	roz_time t;
	uint32_t rec;
} tkey;

static int tkey_cmp(const void *a, const void *b)
{
	const tkey *x = a, *y = b;
	int c = roz_time_cmp(x->t, y->t);

	return c ? c : (x->rec > y->rec) - (x->rec < y->rec);
}

/*
 * Each record's rank in time (the ledger's order breaking ties, and for
 * all when a record has no time), then which records the since filter
 * checks: with since_revision, those from the first (in time) made at it.
 */
static int rank_records(roz_verify *v, roz_verify_report *out)
{
	bool sorted = v->timed && !v->ordered, on = false;
	tkey *keys = NULL;

	if (sorted) {
		if (!(keys = roz_malloc(v->nrecs * sizeof *keys)))
			return ROZ_ENOMEM;
		for (size_t i = 0; i < v->nrecs; i++)
			keys[i] = (tkey){v->times[i], (uint32_t)i};
		qsort(keys, v->nrecs, sizeof *keys, tkey_cmp);
		for (size_t i = 0; i < v->nrecs; i++)
			v->recs[keys[i].rec].rank = (uint32_t)i;
	} else {
		for (size_t i = 0; i < v->nrecs; i++)
			v->recs[i].rank = (uint32_t)i;
	}
	roz_free(v->times);
	v->times = NULL;
	v->ordered = !sorted;
	if (v->o.since_known) {
		out->since_found = true;
	} else if (v->o.since_revision) {
		for (size_t i = 0; i < v->nrecs; i++) {
			vrec *r = &v->recs[sorted ? keys[i].rec : i];

			if (r->rev_match && !on)
				on = out->since_found = true;
			r->checked = on;
		}
	}
	roz_free(keys);
	return ROZ_OK;
}

/* ---- which later record retired a range ------------------------------------ */

/* One entry of the file being swept: its rank, and its stretch of elementary segments. */
typedef struct sent {
	uint32_t rank, ent;
	uint32_t lo, hi;  /* segments [lo, hi]; lo > hi: none */
} sent;

static int sent_cmp(const void *a, const void *b)
{
	const sent *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->ent > y->ent) - (x->ent < y->ent);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The scratch of one settle: buffers reused from file to file. */
typedef struct scratch {
	uint32_t *bucket;      /* entries grouped by file, each group in ledger order */
	size_t *first;         /* file f's entries: bucket[first[f] .. first[f + 1]) */
	sent *s;
	size_t caps;
	uint64_t *coords;
	size_t capc;
	uint32_t *mn, *tag;    /* the segment tree: min rank below, min rank over the whole node */
	size_t capt, captag;
	uint32_t *starts;      /* byte offset of each line of the file being read */
	size_t capstarts;
	uint32_t *gone;        /* files that are not there */
	size_t ngone, capgone;
} scratch;

static void st_update(scratch *c, size_t node, size_t l, size_t r, size_t ql, size_t qr, uint32_t val)
{
	size_t m;

	if (qr < l || r < ql)
		return;
	if (ql <= l && r <= qr) {
		if (val < c->tag[node])
			c->tag[node] = val;
		if (val < c->mn[node])
			c->mn[node] = val;
		return;
	}
	m = l + (r - l) / 2;
	st_update(c, 2 * node, l, m, ql, qr, val);
	st_update(c, 2 * node + 1, m + 1, r, ql, qr, val);
	val = c->mn[2 * node] < c->mn[2 * node + 1] ? c->mn[2 * node] : c->mn[2 * node + 1];
	c->mn[node] = val < c->tag[node] ? val : c->tag[node];
}

static uint32_t st_query(const scratch *c, size_t node, size_t l, size_t r, size_t ql, size_t qr)
{
	uint32_t a, b;
	size_t m;

	if (qr < l || r < ql)
		return NONE;
	if (ql <= l && r <= qr)
		return c->mn[node];
	m = l + (r - l) / 2;
	a = st_query(c, 2 * node, l, m, ql, qr);
	b = st_query(c, 2 * node + 1, m + 1, r, ql, qr);
	a = a < b ? a : b;
	return a < c->tag[node] ? a : c->tag[node];
}

/* The first of the n sorted coordinates that is >= x. */
static size_t coord_at(const uint64_t *c, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How a record that names the whole file retires its earlier ranges; the stronger kind wins in one record. */
static uint8_t whole_state(uint8_t kind)
{
	return kind == VK_ACCEPT ? ROZ_VERIFY_ACCEPTED : kind == VK_REMOVED ? ROZ_VERIFY_REMOVED : ROZ_VERIFY_SUPERSEDED;
}

static int whole_strength(uint8_t kind)
{
	return kind == VK_ACCEPT ? 3 : kind == VK_REMOVED ? 2 : 1;
}

/*
 * File f's ranges retired by later records. From the latest record back:
 * a record's ranges are first looked up (the earliest later record that
 * covered any of their lines, or named the whole file) and only then
 * entered, so a record never retires its own ranges.
 */
static int sweep_file(roz_verify *v, scratch *c, const uint32_t *ents, size_t n)
{
	size_t m = 0, nseg, k;
	uint32_t whole = NONE;
	uint8_t whole_kind = VK_AWAY;

	if (roz_alloc_array_reserve((void **)&c->s, &c->caps, sizeof *c->s, n) != ROZ_OK ||
	    roz_alloc_array_reserve((void **)&c->coords, &c->capc, sizeof *c->coords, 2 * n) != ROZ_OK)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const vent *e = &v->ents[ents[i]];

		c->s[i] = (sent){v->recs[e->rec].rank, ents[i], 1, 0};
		if (e->kind == VK_RANGE) {
			unsigned long s, t;

			vent_bounds(v, ents[i], &s, &t);
			c->coords[m++] = s;
			c->coords[m++] = (uint64_t)t + 1;
		}
	}
	/* in ledger order the ranks already rise, unless the records were put in time order */
	if (!v->ordered && n)
		qsort(c->s, n, sizeof *c->s, sent_cmp);
	if (m)
		qsort(c->coords, m, sizeof *c->coords, u64_cmp);
	{
		size_t j = 0;

		for (size_t i = 0; i < m; i++)
			if (!j || c->coords[i] != c->coords[j - 1])
				c->coords[j++] = c->coords[i];
		m = j;
	}
	nseg = m > 1 ? m - 1 : 0;
	if (nseg) {
		if (roz_alloc_array_reserve((void **)&c->mn, &c->capt, sizeof *c->mn, 4 * nseg) != ROZ_OK ||
		    roz_alloc_array_reserve((void **)&c->tag, &c->captag, sizeof *c->tag, 4 * nseg) != ROZ_OK)
			return ROZ_ENOMEM;
		memset(c->mn, 0xff, 4 * nseg * sizeof *c->mn);
		memset(c->tag, 0xff, 4 * nseg * sizeof *c->tag);
	}
	for (size_t i = 0; i < n; i++) {
		const vent *e = &v->ents[c->s[i].ent];
		unsigned long s, t;

		if (e->kind != VK_RANGE)
			continue;
		vent_bounds(v, c->s[i].ent, &s, &t);
		c->s[i].lo = (uint32_t)coord_at(c->coords, m, s);
		c->s[i].hi = (uint32_t)(coord_at(c->coords, m, (uint64_t)t + 1) - 1);
	}
	for (k = n; k > 0;) {
		uint32_t rank = c->s[k - 1].rank;
		size_t j = k;
		int strongest = 0;

		while (j > 0 && c->s[j - 1].rank == rank)
			j--;
		for (size_t i = j; i < k; i++) {
			vent *e = &v->ents[c->s[i].ent];
			uint32_t q;

			if (e->kind != VK_RANGE)
				continue;
			q = nseg && c->s[i].lo <= c->s[i].hi ? st_query(c, 1, 0, nseg - 1, c->s[i].lo, c->s[i].hi)
							      : NONE;
			if (whole != NONE && whole <= q)
				e->state = whole_state(whole_kind);
			else if (q != NONE)
				e->state = ROZ_VERIFY_SUPERSEDED;
		}
		for (size_t i = j; i < k; i++) {
			const vent *e = &v->ents[c->s[i].ent];

			if (e->kind == VK_RANGE) {
				if (nseg && c->s[i].lo <= c->s[i].hi)
					st_update(c, 1, 0, nseg - 1, c->s[i].lo, c->s[i].hi, rank);
			} else if (whole_strength(e->kind) > strongest) {
				strongest = whole_strength(e->kind);
				whole = rank;
				whole_kind = e->kind;
			}
		}
		k = j;
	}
	return ROZ_OK;
}

/* ---- the files as they are -------------------------------------------------- */

typedef struct ftext {
	const char *text;
	size_t len;
	const uint32_t *starts;
	unsigned long nlines;
} ftext;

/* Index the lines of a file, as roz/ledger.h counts them (a last line without "\n" counts). */
static int ftext_make(scratch *c, const char *text, size_t len, ftext *out)
{
	size_t n = 0;

	out->text = text;
	out->len = len;
	out->nlines = 0;
	for (const char *p = text, *end = text + len; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	if (len && text[len - 1] != '\n')
		n++;
	if (n && roz_alloc_array_reserve((void **)&c->starts, &c->capstarts, sizeof *c->starts, n) != ROZ_OK)
		return ROZ_ENOMEM;
	out->starts = c->starts;
	out->nlines = n;
	if (!n)
		return ROZ_OK;
	n = 0;
	c->starts[n++] = 0;
	for (const char *p = text, *end = text + len - 1; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
		c->starts[n++] = (uint32_t)(p - text + 1);
	return ROZ_OK;
}

/* The SHA-256 prefix of lines [start, start + k - 1] (1-based, in the file). */
static void ftext_hash(const ftext *f, unsigned long start, unsigned long k, unsigned char out[VHASH])
{
	unsigned long last = start + k - 1;
	size_t from = f->starts[start - 1], to;
	unsigned char full[ROZ_SHA256_SIZE];

	if (last < f->nlines)
		to = f->starts[last] - 1; /* before the "\n" that ends line `last` */
	else
		to = f->len && f->text[f->len - 1] == '\n' ? f->len - 1 : f->len;
	roz_digest_sha256_bytes(f->text + from, to - from, full);
	memcpy(out, full, VHASH);
}

static bool fits(const ftext *f, unsigned long start, unsigned long end)
{
	return start >= 1 && start <= end && end <= f->nlines;
}

/* A range looked for elsewhere in a file. */
typedef struct want {
	unsigned char hash[VHASH];
	unsigned long k;
	size_t ent;
	unsigned long found;  /* first line it was found at, or 0 */
} want;

static int want_cmp(const void *a, const void *b)
{
	const want *x = a, *y = b;
	int c;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	if ((c = memcmp(x->hash, y->hash, VHASH)) != 0)
		return c;
	return (x->ent > y->ent) - (x->ent < y->ent);
}

/* Every window of each wanted length, hashed once and looked up among the wants of that length. */
static void search(const ftext *f, want *w, size_t n)
{
	if (!n)
		return;
	qsort(w, n, sizeof *w, want_cmp);
	for (size_t a = 0; a < n;) {
		unsigned long k = w[a].k;
		size_t b = a, left;

		while (b < n && w[b].k == k)
			b++;
		left = b - a;
		for (unsigned long s = 1; k <= f->nlines && s + k - 1 <= f->nlines && left; s++) {
			unsigned char h[VHASH];
			size_t lo = a, hi = b;

			ftext_hash(f, s, k, h);
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (memcmp(w[mid].hash, h, VHASH) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < b && memcmp(w[lo].hash, h, VHASH) == 0; lo++)
				if (!w[lo].found) {
					w[lo].found = s;
					left--;
				}
		}
		a = b;
	}
}

static int add_moved(roz_verify *v, size_t ent, uint32_t file, unsigned long start)
{
	if (roz_alloc_array_reserve((void **)&v->moved, &v->capmoved, sizeof *v->moved, v->nmoved + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	v->moved[v->nmoved++] = (vmoved){ent, file, start};
	v->ents[ent].state = ROZ_VERIFY_MOVED;
	return ROZ_OK;
}

/*
 * The open ranges of `ents` (one file's) against `f`, the file they are
 * in now (`at`: itself, or where it was renamed to): the same lines, else
 * the same length anywhere in it (moved), else edited. A renamed file's
 * ranges found at their own lines have moved too: to the new path.
 */
static int check_text(roz_verify *v, const ftext *f, uint32_t at, bool renamed, const uint32_t *ents, size_t n)
{
	want *w = NULL;
	size_t nw = 0, cap = 0;
	int rc = ROZ_OK;

	for (size_t i = 0; i < n; i++) {
		vent *e = &v->ents[ents[i]];
		unsigned long s, t;
		unsigned char h[VHASH];

		if (e->state != VSTATE_OPEN)
			continue;
		vent_bounds(v, ents[i], &s, &t);
		if (fits(f, s, t)) {
			ftext_hash(f, s, t - s + 1, h);
			if (memcmp(h, e->hash, VHASH) == 0) {
				if (!renamed)
					e->state = ROZ_VERIFY_INTACT;
				else if ((rc = add_moved(v, ents[i], at, s)) != ROZ_OK)
					goto out;
				continue;
			}
		}
		e->state = ROZ_VERIFY_EDITED;
		/* a range longer than the file is nowhere in it */
		if (s < 1 || t < s || t - s >= f->nlines)
			continue;
		if (roz_alloc_array_reserve((void **)&w, &cap, sizeof *w, nw + 1) != ROZ_OK) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		memcpy(w[nw].hash, e->hash, VHASH);
		w[nw].k = t - s + 1;
		w[nw].ent = ents[i];
		w[nw++].found = 0;
	}
	search(f, w, nw);
	for (size_t i = 0; i < nw && rc == ROZ_OK; i++)
		if (w[i].found)
			rc = add_moved(v, w[i].ent, at, w[i].found);
out:
	roz_free(w);
	return rc;
}

/* Read a file through the callback: ROZ_OK, ROZ_ENOTFOUND, ROZ_ENOMEM, or ROZ_EIO with *why interned. */
static int read_file(roz_verify *v, const char *path, char **text, size_t *len, uint32_t *why)
{
	int rc;

	*text = NULL;
	*len = 0;
	roz_error_clear();
	rc = v->o.read(v->o.read_ud, path, text, len);
	if (rc == ROZ_OK && *len > UINT32_MAX) {
		roz_error_set("larger than 4 GiB");
		rc = ROZ_EINVALID;
	}
	if (rc == ROZ_OK) {
		if (!*text)
			*len = 0;
		return ROZ_OK;
	}
	roz_free(*text);
	*text = NULL;
	*len = 0;
	if (rc == ROZ_ENOMEM || rc == ROZ_ENOTFOUND)
		return rc;
	if (vstr_intern(&v->whys, *roz_error_last() ? roz_error_last() : roz_error_name(rc), why) != ROZ_OK)
		return ROZ_ENOMEM;
	return ROZ_EIO;
}

/* File f's open items: unverifiable ones settled without reading, the rest checked against the file. */
static int check_file(roz_verify *v, scratch *c, uint32_t f, const uint32_t *ents, size_t n)
{
	size_t open = 0;
	char *text;
	size_t len;
	uint32_t why;
	ftext ft;
	int rc;

	for (size_t i = 0; i < n; i++) {
		vent *e = &v->ents[ents[i]];

		if (!vent_is_item(v, e) || e->state != VSTATE_OPEN) {
			/* what is not an item keeps no state of its own */
			if (e->state == VSTATE_OPEN)
				e->state = ROZ_VERIFY_SUPERSEDED;
			continue;
		}
		if (!(e->flags & VF_SHA))
			e->state = ROZ_VERIFY_UNVERIFIABLE;
		else
			open++;
	}
	if (!open)
		return ROZ_OK;
	rc = read_file(v, vstr_get(&v->paths, f), &text, &len, &why);
	if (rc == ROZ_ENOMEM)
		return rc;
	if (rc != ROZ_OK) {
		for (size_t i = 0; i < n; i++)
			if (v->ents[ents[i]].state == VSTATE_OPEN)
				v->ents[ents[i]].state = ROZ_VERIFY_MISSING;
		if (rc == ROZ_EIO) {
			v->file_why[f] = why + 1;
			return ROZ_OK;
		}
		if (roz_alloc_array_reserve((void **)&c->gone, &c->capgone, sizeof *c->gone, c->ngone + 1) != ROZ_OK)
			return ROZ_ENOMEM;
		c->gone[c->ngone++] = f;
		return ROZ_OK;
	}
	if ((rc = ftext_make(c, text, len, &ft)) == ROZ_OK)
		rc = check_text(v, &ft, f, false, ents, n);
	roz_free(text);
	return rc;
}

/* ---- renames ----------------------------------------------------------------- */

/* Where `path` is now by the renames (a -> b -> c: the last that can be read), or NONE. */
static int follow(roz_verify *v, const vstr *from, const uint32_t *to, const char *path, char **text, size_t *len,
		  uint32_t *at)
{
	uint32_t chain[64], i, why;
	size_t n = 0;
	int rc;

	*at = NONE;
	while (n < sizeof chain / sizeof chain[0] && vstr_find(from, path, &i)) {
		path = vstr_get(&v->paths, to[i]);
		/* a chain that comes back on itself ends where it turns */
		for (size_t k = 0; k < n; k++)
			if (chain[k] == to[i])
				goto read;
		chain[n++] = to[i];
	}
read:
	while (n > 0) {
		rc = read_file(v, vstr_get(&v->paths, chain[n - 1]), text, len, &why);
		if (rc == ROZ_ENOMEM)
			return rc;
		if (rc == ROZ_OK) {
			*at = chain[n - 1];
			return ROZ_OK;
		}
		n--;
	}
	return ROZ_OK;
}

static int follow_renames(roz_verify *v, scratch *c)
{
	roz_verify_renames r;
	roz_verify_rename_hint hint;
	vstr from, absent;
	uint32_t *to = NULL;
	const char **gone = NULL;
	int rc = ROZ_OK;

	if (!c->ngone || !v->o.renames)
		return ROZ_OK;
	memset(&r, 0, sizeof r);
	memset(&from, 0, sizeof from);
	memset(&absent, 0, sizeof absent);
	hint.revision = v->timed && v->hint_rev ? v->hint_rev : v->first_rev;
	hint.has_time = v->has_min_time;
	hint.time = v->min_time;
	if (!(gone = roz_calloc(c->ngone, sizeof *gone)))
		return ROZ_ENOMEM;
	for (size_t g = 0; g < c->ngone; g++)
		gone[g] = vstr_get(&v->paths, c->gone[g]);
	hint.gone = gone;
	hint.ngone = c->ngone;
	rc = v->o.renames(v->o.renames_ud, &hint, &r);
	/* the paths point into the table, which interning the renames below may move */
	roz_free(gone);
	gone = NULL;
	if (rc == ROZ_ENOMEM)
		goto out;
	rc = ROZ_OK;
	if (r.n && !(to = roz_calloc(r.n, sizeof *to))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r.n; i++) {
		size_t before = from.n;
		uint32_t fi, ti;

		if (!r.from[i] || !r.to[i] || strcmp(r.from[i], r.to[i]) == 0)
			continue;
		if (vstr_intern(&from, r.from[i], &fi) != ROZ_OK || vstr_intern(&v->paths, r.to[i], &ti) != ROZ_OK) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		/* the first rename given of a path is the one that holds */
		if (from.n > before)
			to[fi] = ti;
	}
	for (size_t i = 0; i < r.nabsent; i++) {
		uint32_t k;

		if (r.absent[i] && vstr_intern(&absent, r.absent[i], &k) != ROZ_OK) {
			rc = ROZ_ENOMEM;
			goto out;
		}
	}
	for (size_t g = 0; g < c->ngone && rc == ROZ_OK; g++) {
		uint32_t f = c->gone[g], at, k;
		/* no bucket when no file has a range: nothing to point into */
		const uint32_t *ents = c->bucket ? c->bucket + c->first[f] : NULL;
		size_t n = c->first[f + 1] - c->first[f];
		char *text = NULL;
		size_t len = 0;
		ftext ft;

		if ((rc = follow(v, &from, to, vstr_get(&v->paths, f), &text, &len, &at)) != ROZ_OK)
			continue;
		if (at == NONE) {
			/* never part of this checkout's history: another branch's work, not missing here */
			if (vstr_find(&absent, vstr_get(&v->paths, f), &k))
				for (size_t i = 0; i < n; i++)
					if (vent_is_item(v, &v->ents[ents[i]]) &&
					    v->ents[ents[i]].state == ROZ_VERIFY_MISSING)
						v->ents[ents[i]].state = ROZ_VERIFY_SUPERSEDED;
			continue;
		}
		/* the file's ranges are open again, to be found in the new path */
		for (size_t i = 0; i < n; i++)
			if (vent_is_item(v, &v->ents[ents[i]]) && v->ents[ents[i]].state == ROZ_VERIFY_MISSING)
				v->ents[ents[i]].state = VSTATE_OPEN;
		if ((rc = ftext_make(c, text, len, &ft)) == ROZ_OK)
			rc = check_text(v, &ft, at, true, ents, n);
		roz_free(text);
	}
out:
	roz_free(to);
	roz_free(gone);
	vstr_dispose(&from);
	vstr_dispose(&absent);
	roz_verify_renames_dispose(&r);
	return rc;
}

/* ---- the whole settle ---------------------------------------------------------- */

static int moved_cmp(const void *a, const void *b)
{
	const vmoved *x = a, *y = b;

	return (x->ent > y->ent) - (x->ent < y->ent);
}

static int settle(roz_verify *v, scratch *c, roz_verify_report *out)
{
	size_t nfiles = v->paths.n;
	int rc;

	if ((rc = rank_records(v, out)) != ROZ_OK)
		return rc;
	if (!(c->first = roz_calloc(nfiles + 2, sizeof *c->first)) ||
	    (v->nents && !(c->bucket = roz_malloc(v->nents * sizeof *c->bucket))) ||
	    !(v->file_why = roz_calloc(nfiles + 1, sizeof *v->file_why)))
		return ROZ_ENOMEM;
	/* entries by file, each file's in ledger order: a counting sort */
	for (size_t i = 0; i < v->nents; i++)
		c->first[v->ents[i].file + 2]++;
	for (size_t f = 0; f < nfiles; f++)
		c->first[f + 2] += c->first[f + 1];
	for (size_t i = 0; i < v->nents; i++)
		c->bucket[c->first[v->ents[i].file + 1]++] = (uint32_t)i;
	for (uint32_t f = 0; f < nfiles; f++) {
		/* no bucket when no file has a range: nothing to point into */
		const uint32_t *ents = c->bucket ? c->bucket + c->first[f] : NULL;
		size_t n = c->first[f + 1] - c->first[f];

		if ((rc = sweep_file(v, c, ents, n)) != ROZ_OK || (rc = check_file(v, c, f, ents, n)) != ROZ_OK)
			return rc;
	}
	if ((rc = follow_renames(v, c)) != ROZ_OK)
		return rc;
	if (v->nmoved)
		qsort(v->moved, v->nmoved, sizeof *v->moved, moved_cmp);
	for (size_t i = 0; i < v->nents; i++) {
		const vent *e = &v->ents[i];

		if (!vent_is_item(v, e))
			continue;
		out->counts[e->state]++;
		out->ranges++;
		if (e->state == ROZ_VERIFY_MISSING && v->file_why[e->file])
			out->unreadable++;
	}
	out->records = v->nrecs;
	return vreport_bad(v, out);
}

int roz_verify_settle(roz_verify *v, roz_verify_report *out)
{
	scratch c;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&c, 0, sizeof c);
	if (v->settled) {
		roz_error_set("the ledger was already settled");
		return ROZ_EINVALID;
	}
	v->settled = true;
	rc = settle(v, &c, out);
	roz_free(c.bucket);
	roz_free(c.first);
	roz_free(c.s);
	roz_free(c.coords);
	roz_free(c.mn);
	roz_free(c.tag);
	roz_free(c.starts);
	roz_free(c.gone);
	if (rc != ROZ_OK) {
		roz_verify_report_dispose(out);
		roz_error_set("out of memory while verifying the ledger");
	}
	return rc;
}
