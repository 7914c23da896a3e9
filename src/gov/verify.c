/*
 * verify.c - does the ledger still describe the code (roz/verify.h).
 *
 * Three passes over what the ledger says. The first reads the records in
 * ledger order and keeps, per file, the ranges currently attributed to
 * it: a record's range takes over the earlier ranges of its file that it
 * overlaps, which become superseded. The second reads each file once and
 * hashes the ranges still standing. The third looks for the ranges that
 * did not hash the same, one range length k at a time: the SHA-256 of
 * each k-line window is looked up among the ranges of that length (sorted
 * by hash), first in the ranges' own files, then, for those not found
 * there, in every file the ledger names, until all are placed. Each
 * window is hashed at most twice per length, and memory is the ranges',
 * never the windows': lengths nobody needs cost nothing.
 *
 * Nothing here touches the file system: files come through the caller's
 * read callback.
 */
#include "roz/verify.h"
#include "roz/digest.h"

#include <stdlib.h>
#include <string.h>

#define NO_ITEM ((size_t)-1)
#define HASH_BYTES 32

static const char *const state_names[] = {
	[ROZ_VERIFY_INTACT] = "intact",
	[ROZ_VERIFY_MOVED] = "moved",
	[ROZ_VERIFY_CHANGED] = "changed",
	[ROZ_VERIFY_MISSING] = "missing",
	[ROZ_VERIFY_SUPERSEDED] = "superseded",
};

const char *roz_verify_state_name(roz_verify_state s)
{
	if ((size_t)s >= sizeof state_names / sizeof state_names[0])
		return "changed";
	return state_names[s];
}

/* A range a file is currently attributed to, for supersession. */
typedef struct active {
	size_t item;     /* its item, or NO_ITEM for a record before `since` */
	size_t rec;      /* the record's number, so one record never supersedes itself */
	unsigned long start, end;
} active;

/* A file the ledger names, read at most once. */
typedef struct vfile {
	char *path;
	bool read_done;
	int read_rc;
	char *why;             /* why it could not be read, for a missing item */
	char *text;
	size_t len;
	size_t *starts;        /* byte offset of each line */
	unsigned long nlines;
	unsigned long scanned; /* the range length its windows were last looked at for as an own file */
	active *act;
	size_t nact, capact;
} vfile;

/* What the report's item does not hold but checking needs. */
typedef struct pend {
	size_t file;
	bool has_hash;
	unsigned char hash[HASH_BYTES];
	bool lookup;           /* not intact: look for it elsewhere */
} pend;

typedef struct ctx {
	roz_verify_read_fn read;
	void *ud;
	roz_verify_report *out;
	vfile *files;
	size_t nfiles, capfiles;
	size_t *ptab;          /* path -> file index, open addressing */
	size_t ptab_cap;
	pend *pend;
	size_t capp;
} ctx;

/* ---- small helpers ------------------------------------------------------ */

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* 64 hex digits to 32 bytes; false when it is not that (an empty hash). */
static bool hex_to_bytes(const char *hex, unsigned char out[HASH_BYTES])
{
	for (size_t i = 0; i < HASH_BYTES; i++) {
		int hi = roz_digest_hex_digit(hex[2 * i]), lo = hi < 0 ? -1 : roz_digest_hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return hex[2 * HASH_BYTES] == '\0';
}

static char *dup_or_null(const char *s, int *rc)
{
	char *d;

	if (!s)
		return NULL;
	if (!(d = roz_strdup(s)))
		*rc = ROZ_ENOMEM;
	return d;
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

/* A line that is not a record: `prefix` (may be "") and why. */
static int add_bad(roz_verify_report *r, size_t line, const char *prefix, const char *detail)
{
	char *why;

	if (roz_alloc_array_reserve((void **)&r->bad, &r->capbad, sizeof *r->bad, r->nbad + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	if (!(why = roz_asprintf("%s%s", prefix, detail && *detail ? detail : "not a record")))
		return ROZ_ENOMEM;
	r->bad[r->nbad].line = line;
	r->bad[r->nbad].why = why;
	r->nbad++;
	return ROZ_OK;
}

/* ---- files ------------------------------------------------------------ */

static void files_dispose(ctx *c)
{
	for (size_t i = 0; i < c->nfiles; i++) {
		vfile *f = &c->files[i];

		roz_free(f->path);
		roz_free(f->why);
		roz_free(f->text);
		roz_free(f->starts);
		roz_free(f->act);
	}
	roz_free(c->files);
	roz_free(c->ptab);
	roz_free(c->pend);
}

static int ptab_grow(ctx *c)
{
	size_t cap = c->ptab_cap ? c->ptab_cap * 2 : 64, *tab;

	if (!(tab = roz_malloc(cap * sizeof *tab)))
		return ROZ_ENOMEM;
	for (size_t i = 0; i < cap; i++)
		tab[i] = NO_ITEM;
	for (size_t i = 0; i < c->nfiles; i++) {
		size_t j = (size_t)hash_bytes(c->files[i].path, strlen(c->files[i].path)) & (cap - 1);

		while (tab[j] != NO_ITEM)
			j = (j + 1) & (cap - 1);
		tab[j] = i;
	}
	roz_free(c->ptab);
	c->ptab = tab;
	c->ptab_cap = cap;
	return ROZ_OK;
}

/* The index of `path` among the files the ledger names, adding it when new. */
static int file_index(ctx *c, const char *path, size_t *out)
{
	size_t j;

	if ((c->nfiles + 1) * 2 > c->ptab_cap && ptab_grow(c) != ROZ_OK)
		return ROZ_ENOMEM;
	j = (size_t)hash_bytes(path, strlen(path)) & (c->ptab_cap - 1);
	for (; c->ptab[j] != NO_ITEM; j = (j + 1) & (c->ptab_cap - 1))
		if (strcmp(c->files[c->ptab[j]].path, path) == 0) {
			*out = c->ptab[j];
			return ROZ_OK;
		}
	if (roz_alloc_array_reserve((void **)&c->files, &c->capfiles, sizeof *c->files, c->nfiles + 1) !=
	    ROZ_OK)
		return ROZ_ENOMEM;
	memset(&c->files[c->nfiles], 0, sizeof c->files[c->nfiles]);
	if (!(c->files[c->nfiles].path = roz_strdup(path)))
		return ROZ_ENOMEM;
	c->ptab[j] = c->nfiles;
	*out = c->nfiles++;
	return ROZ_OK;
}

/*
 * Read a file through the callback once. A file that is not there or
 * cannot be read is remembered as such; only running out of memory is an
 * error of the run.
 */
static int file_load(ctx *c, vfile *f)
{
	unsigned long n = 0;
	int rc;

	if (f->read_done)
		return ROZ_OK;
	f->read_done = true;
	roz_error_clear();
	rc = c->read(c->ud, f->path, &f->text, &f->len);
	if (rc == ROZ_ENOMEM)
		return ROZ_ENOMEM;
	f->read_rc = rc == ROZ_OK ? ROZ_OK : rc == ROZ_ENOTFOUND ? ROZ_ENOTFOUND : ROZ_EIO;
	if (rc != ROZ_OK) {
		roz_free(f->text);
		f->text = NULL;
		f->len = 0;
		if (rc != ROZ_ENOTFOUND &&
		    !(f->why = roz_strdup(*roz_error_last() ? roz_error_last() : roz_error_name(rc))))
			return ROZ_ENOMEM;
		return ROZ_OK;
	}
	if (!f->text)
		f->len = 0;
	/* Lines as roz/ledger.h counts them: a last line without "\n" counts. */
	for (size_t i = 0; i < f->len; i++)
		if (f->text[i] == '\n')
			n++;
	if (f->len && f->text[f->len - 1] != '\n')
		n++;
	f->nlines = n;
	if (!n)
		return ROZ_OK;
	if (!(f->starts = roz_calloc(n, sizeof *f->starts)))
		return ROZ_ENOMEM;
	n = 0;
	f->starts[n++] = 0;
	for (size_t i = 0; i + 1 < f->len; i++)
		if (f->text[i] == '\n')
			f->starts[n++] = i + 1;
	return ROZ_OK;
}

/* Lowercase hex digits from the digest to bytes: '0'-'9' are 0x3N, 'a'-'f' are 0x6N. */
static void digest_bytes(const char hex[ROZ_SHA256_HEX_SIZE], unsigned char out[HASH_BYTES])
{
	for (size_t i = 0; i < HASH_BYTES; i++) {
		unsigned hi = (unsigned char)hex[2 * i], lo = (unsigned char)hex[2 * i + 1];

		out[i] = (unsigned char)((((hi & 15) + (hi >> 6) * 9) << 4) | ((lo & 15) + (lo >> 6) * 9));
	}
}

/* The SHA-256 of lines [start, start + k - 1] of a loaded file (1-based, in range). */
static void file_hash(const vfile *f, unsigned long start, unsigned long k, unsigned char out[HASH_BYTES])
{
	unsigned long last = start + k - 1;
	size_t from = f->starts[start - 1], to;
	char hex[ROZ_SHA256_HEX_SIZE];

	if (last < f->nlines)
		to = f->starts[last] - 1; /* before the "\n" that ends line `last` */
	else
		to = f->len && f->text[f->len - 1] == '\n' ? f->len - 1 : f->len;
	roz_digest_sha256_hex(f->text + from, to - from, hex);
	digest_bytes(hex, out);
}

/* ---- pass 1: records, in ledger order --------------------------------- */

static bool overlaps(const active *a, unsigned long start, unsigned long end)
{
	return a->start <= end && start <= a->end;
}

/* `rng` of file f in record `recno` takes over the earlier ranges it overlaps. */
static void supersede(ctx *c, vfile *f, size_t recno, unsigned long start, unsigned long end)
{
	for (size_t i = 0; i < f->nact;) {
		active *a = &f->act[i];

		if (a->rec != recno && overlaps(a, start, end)) {
			if (a->item != NO_ITEM)
				c->out->items[a->item].state = ROZ_VERIFY_SUPERSEDED;
			*a = f->act[--f->nact];
			continue;
		}
		i++;
	}
}

static int add_item(ctx *c, const roz_ledger_rec *rec, size_t line, size_t fi, const roz_ledger_range *rg,
		    size_t *out)
{
	roz_verify_report *r = c->out;
	roz_verify_item *it;
	pend *p;
	size_t capp = c->capp;
	int rc = ROZ_OK;

	if (roz_alloc_array_reserve((void **)&r->items, &r->cap, sizeof *r->items, r->n + 1) != ROZ_OK ||
	    roz_alloc_array_reserve((void **)&c->pend, &capp, sizeof *c->pend, r->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	c->capp = capp;
	it = &r->items[r->n];
	p = &c->pend[r->n];
	memset(it, 0, sizeof *it);
	memset(p, 0, sizeof *p);
	r->n++;
	it->line = line;
	it->record_id = roz_strdup(rec->id ? rec->id : "");
	if (!it->record_id)
		rc = ROZ_ENOMEM;
	it->intent_id = dup_or_null(rec->intent_id, &rc);
	it->session_id = dup_or_null(rec->session_id, &rc);
	it->path = dup_or_null(c->files[fi].path, &rc);
	it->start_line = rg->start_line;
	it->end_line = rg->end_line;
	it->state = ROZ_VERIFY_INTACT;
	p->file = fi;
	p->has_hash = hex_to_bytes(rg->hash, p->hash);
	*out = r->n - 1;
	return rc;
}

static int take_record(ctx *c, const roz_ledger_rec *rec, size_t line, size_t recno, bool check)
{
	for (size_t i = 0; i < rec->nfiles; i++) {
		const roz_ledger_rfile *rf = &rec->files[i];
		size_t fi;

		if (!rf->path)
			continue;
		if (file_index(c, rf->path, &fi) != ROZ_OK)
			return ROZ_ENOMEM;
		for (size_t j = 0; j < rf->ranges.n; j++) {
			const roz_ledger_range *rg = &rf->ranges.items[j];
			vfile *f = &c->files[fi];
			size_t item = NO_ITEM;

			supersede(c, f, recno, rg->start_line, rg->end_line);
			if (check && add_item(c, rec, line, fi, rg, &item) != ROZ_OK)
				return ROZ_ENOMEM;
			if (roz_alloc_array_reserve((void **)&f->act, &f->capact, sizeof *f->act, f->nact + 1) !=
			    ROZ_OK)
				return ROZ_ENOMEM;
			f->act[f->nact++] = (active){item, recno, rg->start_line, rg->end_line};
		}
	}
	return ROZ_OK;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
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

/* One line of the ledger: parse it and take its record (or note why it is not one). */
static int read_line(ctx *c, const char *s, size_t n, size_t line, bool ended, const char *since, bool *check)
{
	roz_verify_report *r = c->out;
	roz_ledger_rec rec;
	int rc;

	if (n > ROZ_LEDGER_MAX_LINE)
		return add_bad(r, line, "", "longer than a record can be (1 MiB)") != ROZ_OK ? ROZ_ENOMEM : ROZ_OK;
	memset(&rec, 0, sizeof rec);
	roz_error_clear();
	rc = roz_ledger_line_parse(s, n, &rec);
	if (rc == ROZ_ENOMEM) {
		roz_ledger_rec_dispose(&rec);
		return ROZ_ENOMEM;
	}
	if (rc != ROZ_OK) {
		roz_ledger_rec_dispose(&rec);
		/* A last line with no "\n" is a write that did not finish. */
		return add_bad(r, line, ended ? "" : "torn last line (no newline at its end): ", roz_error_last()) !=
				       ROZ_OK
			       ? ROZ_ENOMEM
			       : ROZ_OK;
	}
	if (!*check && rec.revision && same_revision(rec.revision, since)) {
		*check = true;
		r->since_found = true;
	}
	rc = take_record(c, &rec, line, r->records++, *check);
	roz_ledger_rec_dispose(&rec);
	return rc;
}

/* A line of the ledger and the time its record gives, for reading the records in time order. */
typedef struct lineref {
	size_t pos, n, line;
	roz_time t;
	bool ended;
} lineref;

/* The record's own time, found without parsing the line (false: none to be found). */
static bool line_time(const char *s, size_t n, roz_time *t)
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

static int by_time(const void *x, const void *y)
{
	const lineref *a = x, *b = y;
	int c = roz_time_cmp(a->t, b->t);

	return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

/*
 * Every record, in the order of the records' own times. A ledger one
 * writer appended is in that order already and is read as it lies; lines
 * two branches both added come out of git's union merge grouped by branch,
 * so then the lines are sorted by their time first (ledger order breaking
 * ties), and a record's ranges take over only those of records made
 * before it. A record without a time keeps the ledger's order for all.
 */
static int read_records(ctx *c, const char *ledger, size_t len, const char *since)
{
	lineref *refs = NULL;
	size_t nrefs = 0, cap = 0, pos = 0, line = 0;
	bool check = !since, ordered = true, timed = true;
	int rc = ROZ_OK;

	while (pos < len) {
		const char *s = ledger + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		lineref l = {pos, n, ++line, {0, 0}, nl != NULL};

		pos += n + (nl ? 1 : 0);
		if (blank(s, n))
			continue;
		if (timed && !(n <= ROZ_LEDGER_MAX_LINE && line_time(s, n, &l.t)))
			timed = false;
		if (nrefs && timed && roz_time_cmp(l.t, refs[nrefs - 1].t) < 0)
			ordered = false;
		if (roz_alloc_array_reserve((void **)&refs, &cap, sizeof *refs, nrefs + 1) < 0) {
			roz_free(refs);
			return ROZ_ENOMEM;
		}
		refs[nrefs++] = l;
	}
	if (timed && !ordered)
		qsort(refs, nrefs, sizeof *refs, by_time);
	for (size_t i = 0; i < nrefs && rc == ROZ_OK; i++)
		rc = read_line(c, ledger + refs[i].pos, refs[i].n, refs[i].line, refs[i].ended, since, &check);
	roz_free(refs);
	return rc;
}

/* ---- pass 2: hash what still stands ------------------------------------ */

static bool range_fits(const vfile *f, unsigned long start, unsigned long end)
{
	return start >= 1 && start <= end && end <= f->nlines;
}

static int check_items(ctx *c)
{
	roz_verify_report *r = c->out;

	for (size_t i = 0; i < r->n; i++) {
		roz_verify_item *it = &r->items[i];
		pend *p = &c->pend[i];
		vfile *f = &c->files[p->file];
		unsigned char h[HASH_BYTES];

		if (it->state == ROZ_VERIFY_SUPERSEDED)
			continue;
		if (file_load(c, f) != ROZ_OK)
			return ROZ_ENOMEM;
		p->lookup = p->has_hash;
		if (f->read_rc != ROZ_OK) {
			it->state = ROZ_VERIFY_MISSING;
			if (f->why && !(it->why = roz_strdup(f->why)))
				return ROZ_ENOMEM;
			continue;
		}
		if (p->has_hash && range_fits(f, it->start_line, it->end_line)) {
			file_hash(f, it->start_line, it->end_line - it->start_line + 1, h);
			if (memcmp(h, p->hash, HASH_BYTES) == 0) {
				it->state = ROZ_VERIFY_INTACT;
				p->lookup = false;
				continue;
			}
		}
		it->state = ROZ_VERIFY_CHANGED;
	}
	return ROZ_OK;
}

/* ---- pass 3: where did the rest go ------------------------------------- */

/* A range of one length to look for, and where it was seen. */
typedef struct want {
	unsigned char hash[HASH_BYTES];
	size_t item;
	size_t file;              /* its own file */
	unsigned long own_start;  /* first place in its own file, or 0 */
	size_t any_file;          /* first place in any file (ledger order), when any_start */
	unsigned long any_start;
} want;

static int cmp_want(const void *a, const void *b)
{
	const want *x = a, *y = b;
	int c = memcmp(x->hash, y->hash, HASH_BYTES);

	if (c)
		return c;
	return x->item < y->item ? -1 : x->item > y->item;
}

/* The first of the wants (sorted by hash) with hash h, or NULL. */
static want *want_find(want *w, size_t n, const unsigned char *h)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(w[mid].hash, h, HASH_BYTES) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && memcmp(w[lo].hash, h, HASH_BYTES) == 0 ? &w[lo] : NULL;
}

/*
 * Hash every k-line window of file fi and note where each wanted range
 * is: in its own file (own), or anywhere first (any). Returns how many
 * wants were newly placed.
 */
static size_t scan_file(const vfile *f, size_t fi, unsigned long k, want *w, size_t n, bool own)
{
	size_t placed = 0;
	unsigned char h[HASH_BYTES];

	if (f->read_rc != ROZ_OK || f->nlines < k)
		return 0;
	for (unsigned long s = 1; s + k - 1 <= f->nlines; s++) {
		want *m;

		file_hash(f, s, k, h);
		if (!(m = want_find(w, n, h)))
			continue;
		for (; m < w + n && memcmp(m->hash, h, HASH_BYTES) == 0; m++) {
			if (own && m->file == fi && !m->own_start) {
				m->own_start = s;
				placed++;
			} else if (!own && !m->own_start && !m->any_start) {
				m->any_file = fi;
				m->any_start = s;
				placed++;
			}
		}
	}
	return placed;
}

/*
 * The ranges of length k that did not hash the same where they were.
 * Their own files are read first: code moved within a file stays with it,
 * and when every range is found there no other file is hashed. The rest
 * are looked for in every file the ledger names, in the order it names
 * them, until all are placed. Memory is the ranges', not the windows'.
 */
static int place_length(ctx *c, unsigned long k, const size_t *items, size_t n)
{
	roz_verify_report *r = c->out;
	want *w = roz_calloc(n, sizeof *w);
	size_t left = n;
	int rc = ROZ_OK;

	if (!w)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		memcpy(w[i].hash, c->pend[items[i]].hash, HASH_BYTES);
		w[i].item = items[i];
		w[i].file = c->pend[items[i]].file;
	}
	qsort(w, n, sizeof *w, cmp_want);
	/* the own files, each once: `items` is in ledger order, so mark them */
	for (size_t i = 0; i < n && left; i++) {
		vfile *f = &c->files[w[i].file];

		if (f->scanned == k)
			continue;
		f->scanned = k;
		left -= scan_file(f, w[i].file, k, w, n, true);
	}
	for (size_t fi = 0; fi < c->nfiles && left; fi++)
		left -= scan_file(&c->files[fi], fi, k, w, n, false);
	for (size_t i = 0; i < n; i++) {
		roz_verify_item *it = &r->items[w[i].item];
		size_t file = w[i].own_start ? w[i].file : w[i].any_file;
		unsigned long start = w[i].own_start ? w[i].own_start : w[i].any_start;

		if (!start)
			continue;
		if (!(it->moved_path = roz_strdup(c->files[file].path))) {
			rc = ROZ_ENOMEM;
			break;
		}
		it->state = ROZ_VERIFY_MOVED;
		it->moved_start = start;
		it->moved_end = start + k - 1;
		roz_free(it->why);
		it->why = NULL;
	}
	roz_free(w);
	return rc;
}

/* A range to look for, sorted by its length so each length is looked for once. */
typedef struct todo_item {
	unsigned long k;
	size_t item;
} todo_item;

static int cmp_todo(const void *a, const void *b)
{
	const todo_item *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->item < y->item ? -1 : x->item > y->item;
}

static int find_moved(ctx *c)
{
	roz_verify_report *r = c->out;
	unsigned long longest = 0;
	todo_item *todo = NULL;
	size_t *items = NULL, ntodo = 0;
	int rc = ROZ_OK;

	for (size_t i = 0; i < r->n; i++)
		if (c->pend[i].lookup)
			ntodo++;
	if (!ntodo)
		return ROZ_OK;
	/* Every file the ledger names can hold a moved range: read them all now. */
	for (size_t i = 0; i < c->nfiles; i++) {
		if (file_load(c, &c->files[i]) != ROZ_OK)
			return ROZ_ENOMEM;
		if (c->files[i].read_rc == ROZ_OK && c->files[i].nlines > longest)
			longest = c->files[i].nlines;
	}
	if (!(todo = roz_calloc(ntodo, sizeof *todo)) || !(items = roz_calloc(ntodo, sizeof *items))) {
		roz_free(todo);
		return ROZ_ENOMEM;
	}
	ntodo = 0;
	/* A range longer than every file is nowhere. */
	for (size_t i = 0; i < r->n; i++) {
		const roz_verify_item *it = &r->items[i];

		if (c->pend[i].lookup && it->start_line >= 1 && it->start_line <= it->end_line &&
		    it->end_line - it->start_line < longest)
			todo[ntodo++] = (todo_item){it->end_line - it->start_line + 1, i};
	}
	qsort(todo, ntodo, sizeof *todo, cmp_todo);
	for (size_t i = 0; i < ntodo && rc == ROZ_OK;) {
		unsigned long k = todo[i].k;
		size_t n = 0;

		for (; i < ntodo && todo[i].k == k; i++)
			items[n++] = todo[i].item;
		rc = place_length(c, k, items, n);
	}
	roz_free(todo);
	roz_free(items);
	return rc;
}

/* ---- the run ------------------------------------------------------------ */

/* An item's place: its ledger line, and where it was taken (a record's ranges stay in its order). */
typedef struct place {
	size_t line, i;
} place;

static int item_order(const void *x, const void *y)
{
	const place *a = x, *b = y;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int bad_order(const void *x, const void *y)
{
	const roz_verify_bad_line *a = x, *b = y;

	return a->line < b->line ? -1 : a->line > b->line;
}

/*
 * The report in the ledger's order, whatever order the records were read
 * in (read_records: by time), so a person and a script meet the ranges
 * where the ledger holds them. ROZ_OK or ROZ_ENOMEM.
 */
static int in_ledger_order(roz_verify_report *r)
{
	bool sorted = true;
	place *idx;
	roz_verify_item *items;

	for (size_t i = 1; i < r->nbad && sorted; i++)
		sorted = r->bad[i - 1].line < r->bad[i].line;
	if (!sorted)
		qsort(r->bad, r->nbad, sizeof *r->bad, bad_order);
	sorted = true;
	for (size_t i = 1; i < r->n && sorted; i++)
		sorted = r->items[i - 1].line <= r->items[i].line;
	if (sorted)
		return ROZ_OK;
	if (!(idx = roz_calloc(r->n, sizeof *idx)) || !(items = roz_calloc(r->n, sizeof *items))) {
		roz_free(idx);
		return ROZ_ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++)
		idx[i] = (place){r->items[i].line, i};
	qsort(idx, r->n, sizeof *idx, item_order);
	for (size_t i = 0; i < r->n; i++)
		items[i] = r->items[idx[i].i];
	memcpy(r->items, items, r->n * sizeof *items);
	roz_free(items);
	roz_free(idx);
	return ROZ_OK;
}

int roz_verify_run(const char *ledger, size_t len, const char *since, roz_verify_read_fn read, void *ud,
		   roz_verify_report *out)
{
	ctx c;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&c, 0, sizeof c);
	c.read = read;
	c.ud = ud;
	c.out = out;
	if (!ledger)
		len = 0;
	if ((rc = read_records(&c, ledger, len, since)) != ROZ_OK || (rc = check_items(&c)) != ROZ_OK ||
	    (rc = find_moved(&c)) != ROZ_OK)
		goto fail;
	if ((rc = in_ledger_order(out)) != ROZ_OK)
		goto fail;
	for (size_t i = 0; i < out->n; i++)
		out->counts[out->items[i].state]++;
	files_dispose(&c);
	return ROZ_OK;
fail:
	files_dispose(&c);
	roz_verify_report_dispose(out);
	roz_error_set("out of memory while verifying the ledger");
	return ROZ_ENOMEM;
}
