/*
 * intent_map.c - .orchestration/intent_map.md from the ledger's records:
 * per intent, the files it changed, the lines, when, and whether they
 * still verify (roz/intent_map.h).
 *
 * The ledger may hold 100,000 records, so records are not matched against
 * each intent in turn: every (record, file) pair is sorted once by intent
 * and path, and each section is a run of that array, found by binary
 * search. Verify items are sorted the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "roz/intent_map.h"
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

/* ---- grouping --------------------------------------------------------- */

/* One file of one record. */
typedef struct entry {
	const char *intent; /* NULL: none selected */
	const char *path;
	const roz_ledger_rec *rec;
	const roz_ledger_rfile *file;
} entry;

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

static int entry_cmp(const void *a, const void *b)
{
	const entry *x = a, *y = b;

	return key_cmp(x->intent, x->path, y->intent, y->path);
}

static int item_cmp(const void *a, const void *b)
{
	const roz_verify_item *x = *(const roz_verify_item *const *)a, *y = *(const roz_verify_item *const *)b;

	return key_cmp(x->intent_id, x->path ? x->path : "", y->intent_id, y->path ? y->path : "");
}

/* First entry of intent `id` (NULL: none) at or after any path; n when there is none. */
static size_t first_of(const entry *e, size_t n, const char *id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(e[mid].intent, e[mid].path, id, "") < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && (!e[lo].intent == !id) && (!id || strcmp(e[lo].intent, id) == 0) ? lo : n;
}

static bool same_intent(const char *a, const char *b)
{
	return !a == !b && (!a || strcmp(a, b) == 0);
}

static int range_cmp(const void *a, const void *b)
{
	const roz_ledger_range *x = a, *y = b;

	if (x->start_line != y->start_line)
		return x->start_line < y->start_line ? -1 : 1;
	return (x->end_line > y->end_line) - (x->end_line < y->end_line);
}

/* ---- one section ------------------------------------------------------ */

typedef struct render {
	roz_buf *out;
	const roz_verify_item **items; /* sorted by item_cmp */
	size_t nitems;
	bool verify;
	roz_ledger_range *scratch;
	size_t cap;
} render;

/* The ranges cell of entries [a, b) (one intent, one path). */
static int ranges_cell(render *r, const entry *e, size_t a, size_t b)
{
	size_t n = 0, shown = 0, merged = 0;

	for (size_t i = a; i < b; i++)
		n += e[i].file->ranges.n;
	if (!n) {
		roz_buf_adds(r->out, "-");
		return ROZ_OK;
	}
	if (roz_alloc_array_reserve((void **)&r->scratch, &r->cap, sizeof(*r->scratch), n) < 0)
		return ROZ_ENOMEM;
	n = 0;
	for (size_t i = a; i < b; i++)
		for (size_t k = 0; k < e[i].file->ranges.n; k++)
			r->scratch[n++] = e[i].file->ranges.items[k];
	qsort(r->scratch, n, sizeof(*r->scratch), range_cmp);
	/* overlapping and touching ranges are one stretch of the agent's lines */
	for (size_t i = 1; i < n; i++) {
		roz_ledger_range *last = &r->scratch[merged];

		if (r->scratch[i].start_line <= last->end_line + 1) {
			if (r->scratch[i].end_line > last->end_line)
				last->end_line = r->scratch[i].end_line;
		} else {
			r->scratch[++merged] = r->scratch[i];
		}
	}
	n = merged + 1;
	for (size_t i = 0; i < n && shown < ROZ_INTENT_MAP_RANGES_MAX; i++, shown++) {
		const roz_ledger_range *g = &r->scratch[i];

		if (i)
			roz_buf_adds(r->out, ", ");
		if (g->start_line == g->end_line)
			roz_buf_addf(r->out, "%lu", g->start_line);
		else
			roz_buf_addf(r->out, "%lu-%lu", g->start_line, g->end_line);
	}
	if (n > shown)
		roz_buf_addf(r->out, ", ... and %zu more", n - shown);
	return ROZ_OK;
}

/* The Verifies cell for one intent and path. */
static void verifies_cell(render *r, const char *intent, const char *path)
{
	static const struct {
		roz_verify_state s;
		const char *name;
	} shown[] = {{ROZ_VERIFY_INTACT, "intact"},
		     {ROZ_VERIFY_MOVED, "moved"},
		     {ROZ_VERIFY_CHANGED, "changed"},
		     {ROZ_VERIFY_MISSING, "missing"}};
	size_t count[sizeof(shown) / sizeof(shown[0])] = {0}, lo = 0, hi = r->nitems, any = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const roz_verify_item *it = r->items[mid];

		if (key_cmp(it->intent_id, it->path ? it->path : "", intent, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < r->nitems; lo++) {
		const roz_verify_item *it = r->items[lo];

		if (key_cmp(it->intent_id, it->path ? it->path : "", intent, path) != 0)
			break;
		for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
			if (it->state == shown[k].s)
				count[k]++;
	}
	for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
		if (count[k])
			roz_buf_addf(r->out, "%s%zu %s", any++ ? ", " : "", count[k], shown[k].name);
	if (!any)
		roz_buf_adds(r->out, "-");
}

/* The table of entries [a, b), all of one intent; a note when there are none. */
static int table(render *r, const entry *e, size_t a, size_t b)
{
	char ts[ROZ_TIME_BUFSZ];

	if (a == b) {
		roz_buf_adds(r->out, "\nNo recorded changes.\n");
		return ROZ_OK;
	}
	roz_buf_adds(r->out, r->verify ? "\n| File | Ranges | Last Modified | Verifies |\n"
					 "|------|--------|---------------|----------|\n"
				       : "\n| File | Ranges | Last Modified |\n"
					 "|------|--------|---------------|\n");
	while (a < b) {
		size_t end = a + 1;
		const roz_time *last = NULL;

		while (end < b && strcmp(e[end].path, e[a].path) == 0)
			end++;
		for (size_t i = a; i < end; i++)
			if (e[i].rec->has_timestamp && (!last || roz_time_after(e[i].rec->timestamp, *last)))
				last = &e[i].rec->timestamp;
		roz_buf_adds(r->out, "| ");
		md_text(r->out, e[a].path);
		roz_buf_adds(r->out, " | ");
		if (ranges_cell(r, e, a, end) < 0)
			return ROZ_ENOMEM;
		roz_buf_addf(r->out, " | %s |", last ? roz_time_format_sec(*last, ts) : "-");
		if (r->verify) {
			roz_buf_addc(r->out, ' ');
			verifies_cell(r, e[a].intent, e[a].path);
			roz_buf_adds(r->out, " |");
		}
		roz_buf_addc(r->out, '\n');
		a = end;
	}
	return ROZ_OK;
}

/* Entries [a, b) of intent `id` end where the intent changes. */
static size_t run_end(const entry *e, size_t n, size_t a)
{
	size_t b = a;

	while (b < n && same_intent(e[b].intent, e[a].intent))
		b++;
	return b;
}

int roz_intent_map_render(const roz_intents *intents, const roz_ledger_rec *recs, size_t nrecs, size_t bad,
			  const roz_verify_report *verify, roz_buf *out)
{
	render r = {.out = out, .verify = verify != NULL};
	entry *e = NULL;
	size_t n = 0, total = 0;
	int rc = ROZ_ENOMEM;

	for (size_t i = 0; i < nrecs; i++)
		total += recs[i].nfiles;
	if (total && !(e = roz_calloc(total, sizeof(*e))))
		goto out;
	for (size_t i = 0; i < nrecs; i++)
		for (size_t k = 0; k < recs[i].nfiles; k++)
			e[n++] = (entry){recs[i].intent_id, recs[i].files[k].path ? recs[i].files[k].path : "",
					 &recs[i], &recs[i].files[k]};
	if (n)
		qsort(e, n, sizeof(*e), entry_cmp);
	if (verify && verify->n) {
		if (!(r.items = roz_calloc(verify->n, sizeof(*r.items))))
			goto out;
		for (size_t i = 0; i < verify->n; i++)
			r.items[i] = &verify->items[i];
		r.nitems = verify->n;
		qsort(r.items, r.nitems, sizeof(*r.items), item_cmp);
	}

	roz_buf_addf(out, "# Intent Map\n\nWritten by `roz intent map` from %s: %zu record%s", ROZ_LEDGER_FILE,
		     nrecs, nrecs == 1 ? "" : "s");
	if (bad)
		roz_buf_addf(out, " and %zu unreadable line%s, skipped", bad, bad == 1 ? "" : "s");
	roz_buf_adds(out, ". Ranges are the lines the agent's writes put in each file");
	if (verify)
		roz_buf_adds(out, "; Verifies is what `roz ledger verify` finds in them now");
	roz_buf_adds(out, ".\n");

	/* the declared intents, in the file's order */
	for (size_t i = 0; intents && i < intents->n; i++) {
		const roz_intent *it = &intents->items[i];
		size_t a = first_of(e, n, it->id);

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
		if (table(&r, e, a, a < n ? run_end(e, n, a) : n) < 0)
			goto out;
	}
	/* intents the ledger names but the file no longer declares, by id */
	for (size_t a = 0; a < n && e[a].intent;) {
		size_t b = run_end(e, n, a);

		if (!intents || !roz_intents_find(intents, e[a].intent)) {
			roz_buf_adds(out, "\n## ");
			md_text(out, e[a].intent);
			roz_buf_adds(out, ": (not in active_intents.yaml)\n\n**Status:** unknown  \n**Scope:** unknown\n");
			if (table(&r, e, a, b) < 0)
				goto out;
		}
		a = b;
	}
	/* writes made with no intent selected */
	{
		size_t a = first_of(e, n, NULL);

		if (a < n) {
			roz_buf_adds(out, "\n## No intent\n\nWrites made while no intent was selected.\n");
			if (table(&r, e, a, n) < 0)
				goto out;
		}
	}
	rc = roz_buf_failed(out) ? ROZ_ENOMEM : ROZ_OK;
out:
	roz_free(e);
	roz_free(r.items);
	roz_free(r.scratch);
	return rc;
}
