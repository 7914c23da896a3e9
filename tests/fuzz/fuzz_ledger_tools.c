/*
 * fuzz_ledger_tools.c - the two pure cores behind roz ledger compact and
 * roz ledger blame, on arbitrary bytes split at the first NUL into a
 * ledger and the content of the file blamed (no NUL: an empty file).
 *
 * Compact: every line of the ledger goes to the planner as
 * cmd_ledger_compact.c feeds it (a line past LONG_LINE stands for one too
 * long to hold), and the plan is read to the end. It must hold every line
 * in ledger order as given; a line is a record exactly when it parses;
 * only a record with a time of its own moves, to the month of that time;
 * the count moved adds up; asking again gives the same plan; and the
 * lines that stay, planned again, move nothing (what stays reads as
 * before, so nothing more is left to move).
 *
 * Blame: the records naming the path of the last record's first file
 * ("a.c" when there is none), and every earlier name roz_blame_names
 * finds for it, round after round, in the readers' order (as
 * cmd_ledger_blame.c gathers them), blamed against the content. Every
 * line of the file gets one entry; a record given, or none with state
 * none; a range from line 1 that covers its line unless it moved; a
 * moved range no longer than the file.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/blame.h"
#include "roz/compact.h"
#include "roz/ledger.h"

/* Longer lines stand for those the reader cannot hold (ROZ_LEDGER_MAX_LINE in roz). */
#define LONG_LINE 8192
/* Rounds of earlier names followed back, as roz ledger blame does. */
#define MAX_ROUNDS 32

typedef struct line {
	const char *s;       /* NULL: too long */
	size_t len;
	uint64_t offset;
	bool ended;
} line;

/* A record of the ledger, parsed once. */
typedef struct prec {
	roz_ledger_rec rec;
	size_t line;         /* 1-based */
} prec;

typedef struct ledger {
	line *lines;
	size_t nlines;
	prec *recs;
	size_t nrecs;
	bool *parses;        /* per line: it reads as a record */
	roz_ledger_order order;
} ledger;

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

static void split_lines(const char *text, size_t size, ledger *l)
{
	size_t n = 0;

	for (size_t i = 0; i < size; i++)
		if (text[i] == '\n')
			n++;
	if (size && text[size - 1] != '\n')
		n++;
	l->lines = n ? roz_calloc(n, sizeof *l->lines) : NULL;
	FUZZ_CHECK(!n || l->lines);
	for (size_t pos = 0; pos < size;) {
		const char *s = text + pos, *nl = memchr(s, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - s) : size - pos;

		l->lines[l->nlines++] = (line){len > LONG_LINE ? NULL : s, len, pos, nl != NULL};
		pos += len + (nl ? 1 : 0);
	}
	FUZZ_CHECK(l->nlines == n);
}

static void parse_all(ledger *l)
{
	l->recs = l->nlines ? roz_calloc(l->nlines, sizeof *l->recs) : NULL;
	l->parses = l->nlines ? roz_calloc(l->nlines, sizeof *l->parses) : NULL;
	FUZZ_CHECK(!l->nlines || (l->recs && l->parses));
	for (size_t i = 0; i < l->nlines; i++) {
		const line *ln = &l->lines[i];
		roz_ledger_rec *r = &l->recs[l->nrecs].rec;
		roz_time t;
		int rc;

		if (!ln->s || blank(ln->s, ln->len))
			continue;
		/* the cheap look at a line's time: only in bounds */
		(void)roz_ledger_line_time(ln->s, ln->len, &t);
		rc = roz_ledger_line_parse(ln->s, ln->len, r);
		FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_EPARSE);
		if (rc != ROZ_OK)
			continue;
		l->parses[i] = true;
		roz_ledger_order_see(&l->order, r->has_timestamp, r->timestamp);
		l->recs[l->nrecs++].line = i + 1;
	}
}

static void ledger_dispose(ledger *l)
{
	for (size_t i = 0; i < l->nrecs; i++)
		roz_ledger_rec_dispose(&l->recs[i].rec);
	roz_free(l->recs);
	roz_free(l->parses);
	roz_free(l->lines);
}

/* ---- compact ------------------------------------------------------------- */

static bool is_month(const char *m)
{
	for (int i = 0; i < 7; i++)
		if (i == 4 ? m[i] != '-' : (m[i] < '0' || m[i] > '9'))
			return false;
	return m[7] == '\0';
}

static roz_compact *plan_lines(const ledger *l, const bool *skip)
{
	roz_compact *c = roz_compact_new();

	FUZZ_CHECK(c);
	for (size_t i = 0; i < l->nlines; i++) {
		const line *ln = &l->lines[i];

		if (!skip || !skip[i])
			FUZZ_CHECK(roz_compact_add(c, ln->s, ln->len, ln->offset, ln->ended) == ROZ_OK);
	}
	return c;
}

static void fuzz_compact(const ledger *l)
{
	roz_compact *c = plan_lines(l, NULL), *again;
	const roz_compact_line *lines, *lines2;
	const roz_ledger_order *o;
	size_t n, moved, n2, moved2, counted = 0, rec = 0;
	bool *gone;

	FUZZ_CHECK(roz_compact_plan(c, &lines, &n, &moved) == ROZ_OK);
	FUZZ_CHECK(n == l->nlines && (!n || lines));
	o = roz_compact_order(c);
	FUZZ_CHECK(o->untimed == l->order.untimed && roz_ledger_order_sorts(o) == roz_ledger_order_sorts(&l->order));
	for (size_t i = 0; i < n; i++) {
		const roz_compact_line *cl = &lines[i];

		FUZZ_CHECK(cl->line == i + 1 && cl->offset == l->lines[i].offset && cl->len == l->lines[i].len &&
			   cl->ended == l->lines[i].ended);
		FUZZ_CHECK(cl->record == l->parses[i]);
		if (cl->record)
			rec++;
		if (!cl->move)
			continue;
		counted++;
		FUZZ_CHECK(cl->record && is_month(cl->month));
		{
			const roz_ledger_rec *r = &l->recs[rec - 1].rec;
			char m[8];

			FUZZ_CHECK(l->recs[rec - 1].line == i + 1 && r->has_timestamp);
			roz_compact_month(r->timestamp, m);
			FUZZ_CHECK(strcmp(m, cl->month) == 0);
		}
	}
	FUZZ_CHECK(rec == l->nrecs && counted == moved);
	/* asked again: the same plan */
	FUZZ_CHECK(roz_compact_plan(c, &lines2, &n2, &moved2) == ROZ_OK);
	FUZZ_CHECK(lines2 == lines && n2 == n && moved2 == moved);
	/* a record added now follows the order or not, as the plan's order says */
	for (size_t i = 0; i < l->nrecs; i++)
		(void)roz_ledger_order_follows(o, l->recs[i].rec.has_timestamp, l->recs[i].rec.timestamp);
	if (moved) {
		/* what stays reads as before: planned again, nothing more moves */
		FUZZ_CHECK((gone = roz_calloc(n, sizeof *gone)));
		for (size_t i = 0; i < n; i++)
			gone[i] = lines[i].move;
		again = plan_lines(l, gone);
		FUZZ_CHECK(roz_compact_plan(again, &lines2, &n2, &moved2) == ROZ_OK);
		FUZZ_CHECK(n2 == n - moved && moved2 == 0);
		roz_compact_free(again);
		roz_free(gone);
	}
	roz_compact_free(c);
}

/* ---- blame --------------------------------------------------------------- */

static bool names_one(const roz_ledger_rec *r, char *const *names, size_t nnames)
{
	for (size_t i = 0; i < r->nfiles; i++)
		for (size_t j = 0; j < nnames; j++)
			if ((r->files[i].path && strcmp(r->files[i].path, names[j]) == 0) ||
			    (r->files[i].from && strcmp(r->files[i].from, names[j]) == 0))
				return true;
	return false;
}

typedef struct okey {
	roz_time t;
	size_t line, i;
} okey;

static int by_time(const void *x, const void *y)
{
	const okey *a = x, *b = y;
	int c = roz_time_cmp(a->t, b->t);

	return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

/* The records naming one of `names` (shallow copies), in the readers' order. */
static size_t gather(const ledger *l, char *const *names, size_t nnames, roz_ledger_rec *out, size_t *lineno)
{
	okey *k;
	size_t n = 0;

	FUZZ_CHECK((k = roz_calloc(l->nrecs + 1, sizeof *k)));
	for (size_t i = 0; i < l->nrecs; i++)
		if (names_one(&l->recs[i].rec, names, nnames))
			k[n++] = (okey){l->recs[i].rec.timestamp, l->recs[i].line, i};
	if (!l->order.untimed)
		qsort(k, n, sizeof *k, by_time);
	for (size_t i = 0; i < n; i++) {
		out[i] = l->recs[k[i].i].rec;
		lineno[i] = k[i].line;
	}
	roz_free(k);
	return n;
}

static const char *blamed_path(const ledger *l)
{
	for (size_t i = l->nrecs; i-- > 0;)
		if (l->recs[i].rec.nfiles && l->recs[i].rec.files[0].path)
			return l->recs[i].rec.files[0].path;
	return "a.c";
}

static void fuzz_blame(const ledger *l, const char *text, size_t len)
{
	const char *path = blamed_path(l);
	char **names;
	size_t nnames = 1, n = 0, *lineno;
	roz_ledger_rec *recs;
	roz_blame_line *out;
	unsigned long nlines;

	FUZZ_CHECK((names = roz_calloc(1, sizeof *names)) && (names[0] = roz_strdup(path)));
	FUZZ_CHECK((recs = roz_calloc(l->nrecs + 1, sizeof *recs)));
	FUZZ_CHECK((lineno = roz_calloc(l->nrecs + 1, sizeof *lineno)));
	for (int round = 0; round < MAX_ROUNDS; round++) {
		char **found;
		size_t nfound, fresh = 0;

		n = gather(l, names, nnames, recs, lineno);
		FUZZ_CHECK(roz_blame_names(path, recs, n, &found, &nfound) == ROZ_OK);
		FUZZ_CHECK(!nfound == !found);
		for (size_t i = 0; i < nfound; i++) {
			FUZZ_CHECK(found[i] && strcmp(found[i], path) != 0);
			for (size_t j = 0; j < i; j++)
				FUZZ_CHECK(strcmp(found[j], found[i]) != 0);
		}
		FUZZ_CHECK(roz_blame_names_merge(&names, &nnames, found, nfound, &fresh) == ROZ_OK);
		if (!fresh)
			break;
	}
	FUZZ_CHECK(roz_blame_run(path, recs, n, text, len, &out, &nlines) == ROZ_OK);
	FUZZ_CHECK(nlines == roz_ledger_line_count(text, len) && !nlines == !out);
	for (unsigned long i = 0; i < nlines; i++) {
		const roz_blame_line *b = &out[i];
		const char *name = roz_blame_state_name((roz_blame_state)b->state);

		FUZZ_CHECK(name && name[0]);
		FUZZ_CHECK(b->state <= ROZ_BLAME_UNVERIFIABLE);
		if (b->rec == ROZ_BLAME_NO_RECORD) {
			FUZZ_CHECK(b->state == ROZ_BLAME_NONE && b->start == 0 && b->end == 0);
			continue;
		}
		FUZZ_CHECK(b->rec < n && b->state != ROZ_BLAME_NONE);
		FUZZ_CHECK(lineno[b->rec] >= 1 && lineno[b->rec] <= l->nlines);
		FUZZ_CHECK(b->start >= 1 && b->start <= b->end);
		if (b->state == ROZ_BLAME_MOVED)
			FUZZ_CHECK(b->end - b->start < nlines);
		else
			FUZZ_CHECK(b->start <= i + 1 && i + 1 <= b->end);
		if (b->state == ROZ_BLAME_WRITTEN)
			FUZZ_CHECK(b->end <= nlines);
	}
	FUZZ_CHECK(strcmp(roz_blame_state_name((roz_blame_state)99), "none") == 0);
	roz_free(out);
	for (size_t i = 0; i < nnames; i++)
		roz_free(names[i]);
	roz_free(names);
	roz_free(recs);
	roz_free(lineno);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(data, '\0', size);
	size_t split = nul ? (size_t)(nul - text) : size;
	ledger l;

	fuzz_init();
	memset(&l, 0, sizeof l);
	split_lines(text, split, &l);
	parse_all(&l);
	fuzz_compact(&l);
	fuzz_blame(&l, nul ? nul + 1 : "", nul ? size - split - 1 : 0);
	ledger_dispose(&l);
	return 0;
}
