/*
 * intent_map.c - .orchestration/intent_map.md from the ledger's records:
 * per intent, the files it changed, the lines, when, and whether they
 * still verify (roz/intent_map.h).
 *
 * The ledger may hold a million records, so they are not kept: each
 * (intent, file) pair is one row, found by hashing, that keeps its ranges
 * (merged whenever they pile up), its latest time and its verify counts.
 * Writing sorts the rows once by intent and path; each section is a run of
 * them, found by binary search.
 */
#include <stdlib.h>
#include <string.h>

#include "roz/intent_map.h"
#include "roz/digest.h"
#include "roz/utf8.h"

/* ---- reading the ledger ---------------------------------------------- */

int roz_intent_map_records_parse(const char *ledger, size_t len, roz_intent_map_records *out)
{
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	while (i < len) {
		const char *line = ledger + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;
		bool blank = true;
		roz_ledger_rec rec;
		int rc;

		i += n + (nl ? 1 : 0);
		for (size_t k = 0; k < n && blank; k++)
			blank = line[k] == ' ' || line[k] == '\t' || line[k] == '\r';
		if (blank)
			continue;
		memset(&rec, 0, sizeof(rec));
		rc = roz_ledger_line_parse(line, n, &rec);
		if (rc == ROZ_EPARSE) {
			roz_ledger_rec_dispose(&rec);
			out->bad++;
			continue;
		}
		if (rc < 0 || roz_alloc_array_reserve((void **)&out->items, &out->cap, sizeof(*out->items),
						      out->n + 1) < 0) {
			roz_ledger_rec_dispose(&rec);
			roz_intent_map_records_dispose(out);
			return ROZ_ENOMEM;
		}
		out->items[out->n++] = rec;
	}
	return ROZ_OK;
}

void roz_intent_map_records_dispose(roz_intent_map_records *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		roz_ledger_rec_dispose(&r->items[i]);
	roz_free(r->items);
	memset(r, 0, sizeof(*r));
}

/* ---- Markdown --------------------------------------------------------- */

/*
 * Append s as inline Markdown text on one line: the characters that start
 * emphasis, code, links, HTML, entities or a table cell are escaped; line
 * breaks and tabs become a space, other control characters and malformed
 * bytes U+FFFD. Escaping inline characters is enough, since the text never
 * starts a line of the map.
 */
static void md_text(roz_buf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0, i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n;

		if (c == '\n' || c == '\r' || c == '\t') {
			roz_buf_addc(b, ' ');
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			roz_utf8_add(b, 0xfffd);
			i++;
		} else if (strchr("\\`*_[]<>|~&", c)) {
			roz_buf_addc(b, '\\');
			roz_buf_addc(b, (char)c);
			i++;
		} else if (c < 0x80) {
			roz_buf_addc(b, (char)c);
			i++;
		} else if ((n = roz_utf8_char_len(s + i, len - i)) == 0) {
			roz_utf8_add(b, 0xfffd);
			i++;
		} else {
			roz_buf_add(b, s + i, n);
			i += n;
		}
	}
}

/* ---- rows ------------------------------------------------------------- */

/* The states the Verifies column counts, in its order; retired ranges are not counted. */
static const struct {
	roz_verify_state s;
	char name[13];
} shown[] = {{ROZ_VERIFY_INTACT, "intact"},
	     {ROZ_VERIFY_MOVED, "moved"},
	     {ROZ_VERIFY_EDITED, "edited"},
	     {ROZ_VERIFY_MISSING, "missing"},
	     {ROZ_VERIFY_UNVERIFIABLE, "unverifiable"}};
#define NSHOWN (sizeof(shown) / sizeof(shown[0]))

typedef struct span {
	unsigned long start, end;
} span;

/* One intent and one path: a row of the map. */
typedef struct row {
	size_t intent;       /* offset of the intent in the arena, or NO_INTENT */
	size_t path;         /* offset of the path */
	size_t key;          /* offset of the key (intent and path together) */
	span *spans;
	size_t n, cap, merged; /* spans[0, merged) are sorted and apart */
	roz_time last;
	bool has_last;
	bool named;          /* a record named it (a row is shown only then) */
	size_t counts[NSHOWN];
} row;

#define NO_INTENT ((size_t)-1)

struct roz_intent_map {
	char *arena;
	size_t len, cap;
	row *rows;
	size_t n, caprows;
	size_t *slots;       /* row + 1, 0 empty */
	size_t nslots;
	roz_buf key;         /* scratch */
};

int roz_intent_map_new(roz_intent_map **out)
{
	*out = roz_calloc(1, sizeof(**out));
	return *out ? ROZ_OK : ROZ_ENOMEM;
}

void roz_intent_map_free(roz_intent_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		roz_free(m->rows[i].spans);
	roz_free(m->rows);
	roz_free(m->slots);
	roz_free(m->arena);
	roz_buf_dispose(&m->key);
	roz_free(m);
}

/* The key of a row: "-" for no intent, else "+" and the id; a NUL; the path. */
static int make_key(roz_intent_map *m, const char *intent, const char *path)
{
	roz_buf_reset(&m->key);
	roz_buf_addc(&m->key, intent ? '+' : '-');
	if (intent)
		roz_buf_adds(&m->key, intent);
	roz_buf_addc(&m->key, '\0');
	roz_buf_adds(&m->key, path);
	return roz_buf_failed(&m->key);
}

static size_t arena_add(roz_intent_map *m, const char *s, size_t n, int *rc)
{
	size_t at = m->len;

	if (roz_alloc_array_reserve((void **)&m->arena, &m->cap, 1, m->len + n + 1) != ROZ_OK) {
		*rc = ROZ_ENOMEM;
		return 0;
	}
	memcpy(m->arena + at, s, n);
	m->arena[at + n] = '\0';
	m->len += n + 1;
	return at;
}

static int slots_grow(roz_intent_map *m)
{
	size_t cap = m->nslots ? m->nslots * 2 : 64, *slots = roz_calloc(cap, sizeof(*slots));

	if (!slots)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		const row *r = &m->rows[i];
		size_t klen = r->path - r->key + strlen(m->arena + r->path);
		size_t j = (size_t)roz_hash_fnv1a(m->arena + r->key, klen) & (cap - 1);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = i + 1;
	}
	roz_free(m->slots);
	m->slots = slots;
	m->nslots = cap;
	return ROZ_OK;
}

/* The row of intent and path, made when new. */
static int row_of(roz_intent_map *m, const char *intent, const char *path, row **out)
{
	size_t j, klen, plen = strlen(path);
	int rc = ROZ_OK;
	row *r;

	if (make_key(m, intent, path) != ROZ_OK ||
	    ((m->n + 1) * 2 > m->nslots && slots_grow(m) != ROZ_OK))
		return ROZ_ENOMEM;
	klen = m->key.len;
	j = (size_t)roz_hash_fnv1a(m->key.ptr, klen) & (m->nslots - 1);
	for (; m->slots[j]; j = (j + 1) & (m->nslots - 1)) {
		r = &m->rows[m->slots[j] - 1];
		if (r->path - r->key + strlen(m->arena + r->path) == klen &&
		    memcmp(m->arena + r->key, m->key.ptr, klen) == 0) {
			*out = r;
			return ROZ_OK;
		}
	}
	if (roz_alloc_array_reserve((void **)&m->rows, &m->caprows, sizeof(*m->rows), m->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	r = &m->rows[m->n];
	memset(r, 0, sizeof(*r));
	/* the key holds both strings: the intent after its mark, the path after the NUL */
	r->key = arena_add(m, m->key.ptr, klen, &rc);
	if (rc != ROZ_OK)
		return rc;
	r->intent = intent ? r->key + 1 : NO_INTENT;
	r->path = r->key + klen - plen;
	m->slots[j] = ++m->n;
	*out = r;
	return ROZ_OK;
}

static int span_cmp(const void *a, const void *b)
{
	const span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Sort the row's spans and join those that overlap or touch: one stretch of the agent's lines. */
static void spans_merge(row *r)
{
	size_t merged = 0;

	if (!r->n)
		return;
	qsort(r->spans, r->n, sizeof(*r->spans), span_cmp);
	for (size_t i = 1; i < r->n; i++) {
		span *last = &r->spans[merged];

		if (r->spans[i].start <= last->end + 1) {
			if (r->spans[i].end > last->end)
				last->end = r->spans[i].end;
		} else {
			r->spans[++merged] = r->spans[i];
		}
	}
	r->n = r->merged = merged + 1;
}

int roz_intent_map_add_record(roz_intent_map *m, const roz_ledger_rec *rec)
{
	for (size_t i = 0; i < rec->nfiles; i++) {
		const roz_ledger_rfile *f = &rec->files[i];
		row *r;

		if (row_of(m, rec->intent_id, f->path ? f->path : "", &r) != ROZ_OK)
			return ROZ_ENOMEM;
		r->named = true;
		if (rec->has_timestamp && (!r->has_last || roz_time_after(rec->timestamp, r->last))) {
			r->last = rec->timestamp;
			r->has_last = true;
		}
		for (size_t k = 0; k < f->ranges.n; k++) {
			/* merged when they pile up, so a row holds about what its file's stretches are */
			if (r->n == r->cap && r->n >= 2 * r->merged + 64)
				spans_merge(r);
			if (roz_alloc_array_reserve((void **)&r->spans, &r->cap, sizeof(*r->spans), r->n + 1) != ROZ_OK)
				return ROZ_ENOMEM;
			r->spans[r->n++] = (span){f->ranges.items[k].start_line, f->ranges.items[k].end_line};
		}
	}
	return ROZ_OK;
}

int roz_intent_map_add_item(roz_intent_map *m, const char *intent_id, const char *path, roz_verify_state state)
{
	row *r;

	if (row_of(m, intent_id, path ? path : "", &r) != ROZ_OK)
		return ROZ_ENOMEM;
	for (size_t k = 0; k < NSHOWN; k++)
		if (shown[k].s == state)
			r->counts[k]++;
	return ROZ_OK;
}

/* ---- writing ------------------------------------------------------------ */

/* A named row, with its strings, as the map lists it. */
typedef struct line {
	const char *intent; /* NULL: none */
	const char *path;
	const row *r;
} line;

typedef struct writer {
	roz_buf *out;
	line *rows;   /* by intent (none last), then path */
	size_t n;
	bool verified;
} writer;

/* By intent (none last), then path. */
static int key_cmp(const char *ia, const char *pa, const char *ib, const char *pb)
{
	int c;

	if (!ia != !ib)
		return ia ? -1 : 1;
	if (ia && (c = strcmp(ia, ib)) != 0)
		return c;
	return strcmp(pa, pb);
}

static int line_cmp(const void *a, const void *b)
{
	const line *x = a, *y = b;

	return key_cmp(x->intent, x->path, y->intent, y->path);
}

static bool same_intent(const char *a, const char *b)
{
	return !a == !b && (!a || strcmp(a, b) == 0);
}

/* First row of intent `id` (NULL: none); n when there is none. */
static size_t first_of(const writer *w, const char *id)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(w->rows[mid].intent, w->rows[mid].path, id, "") < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->n && same_intent(w->rows[lo].intent, id) ? lo : w->n;
}

/* Rows [a, b) of one intent end where the intent changes. */
static size_t run_end(const writer *w, size_t a)
{
	size_t b = a;

	while (b < w->n && same_intent(w->rows[b].intent, w->rows[a].intent))
		b++;
	return b;
}

static void ranges_cell(roz_buf *out, const row *r)
{
	size_t shown_n = 0;

	if (!r->n) {
		roz_buf_adds(out, "-");
		return;
	}
	for (size_t i = 0; i < r->n && shown_n < ROZ_INTENT_MAP_RANGES_MAX; i++, shown_n++) {
		const span *g = &r->spans[i];

		if (i)
			roz_buf_adds(out, ", ");
		if (g->start == g->end)
			roz_buf_addf(out, "%lu", g->start);
		else
			roz_buf_addf(out, "%lu-%lu", g->start, g->end);
	}
	if (r->n > shown_n)
		roz_buf_addf(out, ", ... and %zu more", r->n - shown_n);
}

static void verifies_cell(roz_buf *out, const row *r)
{
	size_t any = 0;

	for (size_t k = 0; k < NSHOWN; k++)
		if (r->counts[k])
			roz_buf_addf(out, "%s%zu %s", any++ ? ", " : "", r->counts[k], shown[k].name);
	if (!any)
		roz_buf_adds(out, "-");
}

/* The table of rows [a, b), all of one intent; a note when there are none. */
static void table(writer *w, size_t a, size_t b)
{
	char ts[ROZ_TIME_BUFSZ];

	if (a == b) {
		roz_buf_adds(w->out, "\nNo recorded changes.\n");
		return;
	}
	roz_buf_adds(w->out, w->verified ? "\n| File | Ranges | Last Modified | Verifies |\n"
					   "|------|--------|---------------|----------|\n"
					 : "\n| File | Ranges | Last Modified |\n"
					   "|------|--------|---------------|\n");
	for (; a < b; a++) {
		const row *r = w->rows[a].r;

		roz_buf_adds(w->out, "| ");
		md_text(w->out, w->rows[a].path);
		roz_buf_adds(w->out, " | ");
		ranges_cell(w->out, r);
		roz_buf_addf(w->out, " | %s |", r->has_last ? roz_time_format_sec(r->last, ts) : "-");
		if (w->verified) {
			roz_buf_addc(w->out, ' ');
			verifies_cell(w->out, r);
			roz_buf_adds(w->out, " |");
		}
		roz_buf_addc(w->out, '\n');
	}
}

int roz_intent_map_write(roz_intent_map *m, const roz_intents *intents, size_t records, size_t bad,
			 bool verified, roz_buf *out)
{
	writer w = {.out = out, .verified = verified};
	int rc = ROZ_ENOMEM;

	if (m->n && !(w.rows = roz_calloc(m->n, sizeof(*w.rows))))
		goto out;
	for (size_t i = 0; i < m->n; i++)
		if (m->rows[i].named) {
			row *r = &m->rows[i];

			spans_merge(r);
			w.rows[w.n++] = (line){r->intent == NO_INTENT ? NULL : m->arena + r->intent, m->arena + r->path, r};
		}
	if (w.n)
		qsort(w.rows, w.n, sizeof(*w.rows), line_cmp);

	roz_buf_addf(out, "# Intent Map\n\nWritten by `roz intent map` from %s: %zu record%s", ROZ_LEDGER_FILE,
		     records, records == 1 ? "" : "s");
	if (bad)
		roz_buf_addf(out, " and %zu unreadable line%s, skipped", bad, bad == 1 ? "" : "s");
	roz_buf_adds(out, ". Ranges are the lines the agent's writes put in each file");
	if (verified)
		roz_buf_adds(out, "; Verifies is what `roz ledger verify` finds in them now");
	roz_buf_adds(out, ".\n");

	/* the declared intents, in the file's order */
	for (size_t i = 0; intents && i < intents->n; i++) {
		const roz_intent *it = &intents->items[i];
		size_t a = first_of(&w, it->id);

		roz_buf_adds(out, "\n## ");
		md_text(out, it->id);
		roz_buf_adds(out, ": ");
		md_text(out, it->name);
		roz_buf_addf(out, "\n\n**Status:** %s  \n**Scope:** ", roz_intents_status_name(it->status));
		for (size_t k = 0; k < it->nscope; k++) {
			if (k)
				roz_buf_adds(out, ", ");
			md_text(out, it->scope[k]);
		}
		if (!it->nscope)
			roz_buf_adds(out, "(none)");
		roz_buf_addc(out, '\n');
		table(&w, a, a < w.n ? run_end(&w, a) : w.n);
	}
	/* intents the ledger names but the file no longer declares, by id */
	for (size_t a = 0; a < w.n && w.rows[a].intent;) {
		size_t b = run_end(&w, a);

		if (!intents || !roz_intents_find(intents, w.rows[a].intent)) {
			roz_buf_adds(out, "\n## ");
			md_text(out, w.rows[a].intent);
			roz_buf_adds(out, ": (not in active_intents.yaml)\n\n**Status:** unknown  \n**Scope:** unknown\n");
			table(&w, a, b);
		}
		a = b;
	}
	/* writes made with no intent selected */
	{
		size_t a = first_of(&w, NULL);

		if (a < w.n) {
			roz_buf_adds(out, "\n## No intent\n\nWrites made while no intent was selected.\n");
			table(&w, a, w.n);
		}
	}
	rc = roz_buf_failed(out) ? ROZ_ENOMEM : ROZ_OK;
out:
	roz_free(w.rows);
	return rc;
}

int roz_intent_map_render(const roz_intents *intents, const roz_ledger_rec *recs, size_t nrecs, size_t bad,
			  const roz_verify_report *verify, roz_buf *out)
{
	roz_intent_map *m;
	int rc;

	if (roz_intent_map_new(&m) != ROZ_OK)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < nrecs; i++)
		if ((rc = roz_intent_map_add_record(m, &recs[i])) != ROZ_OK)
			goto out;
	for (size_t i = 0; verify && i < verify->n; i++)
		if ((rc = roz_intent_map_add_item(m, verify->items[i].intent_id, verify->items[i].path,
						  verify->items[i].state)) != ROZ_OK)
			goto out;
	rc = roz_intent_map_write(m, intents, nrecs, bad, verify != NULL, out);
out:
	roz_intent_map_free(m);
	return rc;
}
