/*
 * ledger.c - the lines a write put in a file and their hashes (roz/ledger.h).
 * The record as a line is ledger_write.c; a line read back, ledger_read.c.
 *
 * The rules are written in roz/ledger.h. Everything here works on text the
 * runner hands in (the file after the write); nothing
 * reads the file system or the clock.
 *
 * Lines are found by scanning for "\n" with memchr from a cursor that only
 * moves forward, so the ranges of one write, sorted, cost one pass over the
 * content whatever their number.
 */
#include "roz/ledger.h"

#include "roz/json.h"
#include "roz/linediff.h"
#include "roz/utf8.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* The largest line number the schema allows. */
#define LINE_MAX_NUMBER UINT64_C(9007199254740991)

void roz_ledger_ranges_dispose(roz_ledger_ranges *r)
{
	if (!r)
		return;
	roz_free(r->items);
	memset(r, 0, sizeof *r);
}

/* ---- lines -------------------------------------------------------------- */

unsigned long roz_ledger_line_count(const char *text, size_t len)
{
	unsigned long n = 0;
	const char *p = text, *end = text + len;

	if (!text || len == 0)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		n++;
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

/* A place in the text: the byte where line `line` starts. */
struct cursor {
	size_t pos;
	unsigned long line;
};

/*
 * Move c forward to the start of line `line` (>= c->line), or to the end of
 * the text when there are fewer lines.
 */
static void cursor_to_line(struct cursor *c, const char *text, size_t len, unsigned long line)
{
	while (c->line < line && c->pos < len) {
		const char *nl = memchr(text + c->pos, '\n', len - c->pos);

		if (!nl) {
			c->pos = len;
			break;
		}
		c->pos = (size_t)(nl - text) + 1;
		c->line++;
	}
}

/* Move c forward to the line holding byte `pos` (>= c->pos). */
static void cursor_to_byte(struct cursor *c, const char *text, size_t pos)
{
	while (c->pos < pos) {
		const char *nl = memchr(text + c->pos, '\n', pos - c->pos);

		if (!nl)
			break;
		c->pos = (size_t)(nl - text) + 1;
		c->line++;
	}
}

/*
 * Lines [start, end] joined by "\n" without their terminators are exactly
 * the bytes from the start of `start` to the end of `end` less its "\n",
 * so one contiguous digest covers them. c is left at the start of `start`.
 */
static void hash_from(struct cursor *c, const char *text, size_t len, unsigned long start,
		      unsigned long end, char out[ROZ_SHA256_HEX_SIZE])
{
	size_t from, to;
	const char *nl;

	cursor_to_line(c, text, len, start < 1 ? 1 : start);
	from = c->pos;
	to = from;
	for (unsigned long l = start < 1 ? 1 : start; to < len; l++) {
		nl = memchr(text + to, '\n', len - to);
		if (!nl) {
			to = len;
			break;
		}
		if (l >= end) {
			to = (size_t)(nl - text);
			break;
		}
		to = (size_t)(nl - text) + 1;
	}
	/* past the last line: the lines that are there, without the final "\n" */
	if (to > from && to == len && text[to - 1] == '\n' && end > start)
		to--;
	roz_digest_sha256_hex(len ? text + from : "", to - from, out);
}

void roz_ledger_hash_lines(const char *text, size_t len, unsigned long start, unsigned long end,
			   char out[ROZ_SHA256_HEX_SIZE])
{
	struct cursor c = {0, 1};

	if (!text)
		len = 0;
	hash_from(&c, text ? text : "", len, start, end, out);
}

/* ---- ranges of a write ---------------------------------------------------- */

int roz_ledger_ranges_add(roz_ledger_ranges *r, unsigned long start, unsigned long end)
{
	if (r->n == r->cap &&
	    roz_alloc_array_reserve((void **)&r->items, &r->cap, sizeof *r->items, r->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	r->items[r->n].start_line = start;
	r->items[r->n].end_line = end;
	r->items[r->n].hash[0] = '\0';
	r->items[r->n].who = ROZ_LEDGER_WHO_AI;
	r->items[r->n].hash_kind = ROZ_LEDGER_HASH_NONE;
	r->n++;
	return ROZ_OK;
}

/*
 * The lines each occurrence of new_string spans, one edit at a time.
 * Occurrences come in order, so one sharing a line with the one before
 * extends it rather than adding a range: a replace_all of a short text in a
 * huge file makes at most one range per line.
 */
static int ranges_of_edit(const cJSON *edit, const char *content, size_t len, roz_ledger_ranges *r)
{
	const cJSON *ns;
	bool all;
	struct cursor c = {0, 1};
	size_t nlen, from = 0, first = r->n;

	if (!cJSON_IsObject(edit))
		return ROZ_OK;
	ns = cJSON_GetObjectItemCaseSensitive(edit, "new_string");
	all = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(edit, "replace_all"));
	if (!cJSON_IsString(ns) || !ns->valuestring)
		return ROZ_OK;
	nlen = strlen(ns->valuestring);
	if (nlen == 0)
		return ROZ_OK; /* a deletion leaves nothing to attribute */
	while (from < len && nlen <= len - from) {
		const char *hit = memmem(content + from, len - from, ns->valuestring, nlen);
		size_t at;
		unsigned long start, end;

		if (!hit)
			break;
		at = (size_t)(hit - content);
		cursor_to_byte(&c, content, at);
		start = c.line;
		/* the line of its last byte: a new_string ending in "\n" ends on that "\n"'s line */
		cursor_to_byte(&c, content, at + nlen - 1);
		end = c.line;
		if (r->n > first && start <= r->items[r->n - 1].end_line) {
			if (end > r->items[r->n - 1].end_line)
				r->items[r->n - 1].end_line = end;
		} else if (roz_ledger_ranges_add(r, start, end) != ROZ_OK) {
			return ROZ_ENOMEM;
		}
		if (!all)
			break;
		from = at + nlen;
	}
	return ROZ_OK;
}

static int range_cmp(const void *a, const void *b)
{
	const roz_ledger_range *x = a, *y = b;

	if (x->start_line != y->start_line)
		return x->start_line < y->start_line ? -1 : 1;
	if (x->end_line != y->end_line)
		return x->end_line < y->end_line ? -1 : 1;
	return 0;
}

/* Sort, merge the ranges that overlap (not those that only touch), then hash each. */
static void settle(roz_ledger_ranges *r, const char *content, size_t len)
{
	struct cursor c = {0, 1};
	size_t k = 0;

	if (r->n == 0)
		return;
	qsort(r->items, r->n, sizeof *r->items, range_cmp);
	for (size_t i = 1; i < r->n; i++) {
		if (r->items[i].start_line <= r->items[k].end_line) {
			if (r->items[i].end_line > r->items[k].end_line)
				r->items[k].end_line = r->items[i].end_line;
			/* lines both claim: the claim that says less of the agent stands */
			if (r->items[k].who == ROZ_LEDGER_WHO_AI)
				r->items[k].who = r->items[i].who;
		} else {
			r->items[++k] = r->items[i];
		}
	}
	r->n = k + 1;
	for (size_t i = 0; i < r->n; i++)
		hash_from(&c, content, len, r->items[i].start_line, r->items[i].end_line, r->items[i].hash);
}

int roz_ledger_ranges_of_write(const char *tool_name, const cJSON *tool_input, bool whole,
			       const char *content, size_t len, roz_ledger_ranges *out)
{
	int rc = ROZ_OK;

	memset(out, 0, sizeof *out);
	if (!content)
		len = 0;
	if (!tool_name)
		tool_name = "";
	if (whole || !strcmp(tool_name, "Write") || !strcmp(tool_name, "NotebookEdit")) {
		unsigned long n = roz_ledger_line_count(content, len);

		if (n > 0)
			rc = roz_ledger_ranges_add(out, 1, n);
	} else if (!strcmp(tool_name, "Edit")) {
		rc = ranges_of_edit(tool_input, content, len, out);
	} else if (!strcmp(tool_name, "MultiEdit")) {
		const cJSON *edits = cJSON_GetObjectItemCaseSensitive(tool_input, "edits");
		const cJSON *e;

		if (cJSON_IsArray(edits))
			cJSON_ArrayForEach(e, edits)
				if ((rc = ranges_of_edit(e, content, len, out)) != ROZ_OK)
					break;
	}
	if (rc != ROZ_OK) {
		roz_ledger_ranges_dispose(out);
		roz_error_set("out of memory finding the ranges of a write");
		return rc;
	}
	settle(out, content, len);
	return ROZ_OK;
}

/* A patch's line number: an integer in 0..2^53-1. */
static bool patch_number(const cJSON *v, unsigned long *out)
{
	uint64_t n;

	if (!roz_json_uint(v, LINE_MAX_NUMBER, &n))
		return false;
	*out = (unsigned long)n;
	return true;
}

/*
 * Whether the run of changed lines starting at `l` (up to the next kept
 * line or the hunk's end) removes any: then the lines it adds replace them.
 */
static bool run_removes(const cJSON *l)
{
	for (; l && cJSON_IsString(l) && l->valuestring[0] != ' '; l = l->next)
		if (l->valuestring[0] == '-')
			return true;
	return false;
}

/* Add line `at` to the last range when it follows it with the same contributor, else as a range of its own. */
static int add_line(roz_ledger_ranges *r, unsigned long at, unsigned char who)
{
	if (r->n && r->items[r->n - 1].end_line + 1 == at && r->items[r->n - 1].who == who) {
		r->items[r->n - 1].end_line = at;
		return ROZ_OK;
	}
	if (roz_ledger_ranges_add(r, at, at) != ROZ_OK)
		return ROZ_ENOMEM;
	r->items[r->n - 1].who = who;
	return ROZ_OK;
}

int roz_ledger_ranges_of_patch(const cJSON *tool_response, const char *content, size_t len,
			       roz_ledger_ranges *out, bool *used)
{
	const cJSON *patch = cJSON_GetObjectItemCaseSensitive(tool_response, "structuredPatch");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(tool_response, "type"), *h;
	unsigned long lines = roz_ledger_line_count(content, content ? len : 0);
	int rc = ROZ_OK;

	memset(out, 0, sizeof *out);
	*used = false;
	if (!content)
		len = 0;
	/* a file the Write made: the patch is empty, the whole file is the call's */
	if (!cJSON_IsArray(patch) || (cJSON_IsString(type) && strcmp(type->valuestring, "create") == 0))
		return ROZ_OK;
	cJSON_ArrayForEach(h, patch) {
		const cJSON *body = cJSON_GetObjectItemCaseSensitive(h, "lines"), *l;
		unsigned long at, count, kept_or_added = 0;
		bool in_run = false, replaces = false;

		if (!cJSON_IsObject(h) || !cJSON_IsArray(body) ||
		    !patch_number(cJSON_GetObjectItemCaseSensitive(h, "newStart"), &at) ||
		    !patch_number(cJSON_GetObjectItemCaseSensitive(h, "newLines"), &count))
			goto not_a_patch;
		cJSON_ArrayForEach(l, body) {
			if (!cJSON_IsString(l) || !l->valuestring[0])
				goto not_a_patch;
			if (l->valuestring[0] != ' ' && !in_run)
				replaces = run_removes(l);
			in_run = l->valuestring[0] != ' ';
			switch (l->valuestring[0]) {
			case ' ':
				at++;
				kept_or_added++;
				break;
			case '+':
				if (at < 1 || at > lines)
					goto not_a_patch;
				if ((rc = add_line(out, at, replaces ? ROZ_LEDGER_WHO_MIXED : ROZ_LEDGER_WHO_AI)) != ROZ_OK)
					goto fail;
				at++;
				kept_or_added++;
				break;
			case '-':
			case '\\': /* "\ No newline at end of file" */
				break;
			default:
				goto not_a_patch;
			}
		}
		if (kept_or_added != count)
			goto not_a_patch;
	}
	*used = true;
	settle(out, content, len);
	return ROZ_OK;
not_a_patch:
	roz_ledger_ranges_dispose(out);
	return ROZ_OK;
fail:
	roz_ledger_ranges_dispose(out);
	roz_error_set("out of memory reading a file tool's patch");
	return rc;
}

/*
 * Each span's place among the lines both texts keep: how many kept lines
 * come before it. Spans are sorted and never touch, so a place holds at
 * most one span of each text.
 */
static unsigned long kept_before(const roz_line_span *spans, size_t i, unsigned long *changed)
{
	unsigned long k = spans[i].start - 1 - *changed;

	*changed += spans[i].end - spans[i].start + 1;
	return k;
}

/*
 * Mark MIXED the added spans that stand where the change removed lines of
 * `before`: the lines the other way round (what `before` has that `content`
 * does not) sit at the same place among the kept lines.
 */
static int mark_replacing(const char *before, size_t blen, const char *content, size_t len,
			  const roz_line_span *added, size_t nadded, roz_ledger_ranges *out)
{
	roz_line_span *gone = NULL;
	size_t ngone = 0, j = 0;
	unsigned long ca = 0, cg = 0, kg = 0;
	int rc;

	if ((rc = roz_line_diff_added(content, len, before, blen, &gone, &ngone)) != ROZ_OK)
		return rc;
	if (ngone)
		kg = kept_before(gone, 0, &cg);
	for (size_t i = 0; i < nadded; i++) {
		unsigned long ka = kept_before(added, i, &ca);

		while (j < ngone && kg < ka && ++j < ngone)
			kg = kept_before(gone, j, &cg);
		if (j < ngone && kg == ka)
			out->items[i].who = ROZ_LEDGER_WHO_MIXED;
	}
	roz_free(gone);
	return ROZ_OK;
}

int roz_ledger_ranges_of_change(const char *before, size_t blen, const char *content, size_t len,
				roz_ledger_ranges *out)
{
	roz_line_span *spans = NULL;
	size_t n = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (!content)
		len = 0;
	if (!before)
		blen = 0;
	if ((rc = roz_line_diff_added(before, blen, content, len, &spans, &n)) == ROZ_OK)
		for (size_t i = 0; i < n && rc == ROZ_OK; i++)
			rc = roz_ledger_ranges_add(out, spans[i].start, spans[i].end);
	if (rc == ROZ_OK && n && blen)
		rc = mark_replacing(before, blen, content, len, spans, n, out);
	roz_free(spans);
	if (rc != ROZ_OK) {
		roz_ledger_ranges_dispose(out);
		roz_error_set("out of memory finding the lines a change added");
		return rc;
	}
	settle(out, content, len);
	return ROZ_OK;
}
