/*
 * ledger.c - one Agent Trace record per write: the lines a write put in a
 * file and their hashes, the record as one JSON line, and a line read back.
 *
 * The rules are written in roz/ledger.h. Everything here works on text the
 * runner hands in (the file after the write, a line of the ledger); nothing
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

/* The schema's bounds: a model id's maxLength and the largest line number it allows. */
#define MODEL_ID_MAX 250u
#define LINE_MAX_NUMBER UINT64_C(9007199254740991)
/* Ranges read from one record, all files together. */
#define RANGES_MAX 100000u

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

static int add_range(roz_ledger_ranges *r, unsigned long start, unsigned long end)
{
	if (r->n == r->cap &&
	    roz_alloc_array_reserve((void **)&r->items, &r->cap, sizeof *r->items, r->n + 1) != ROZ_OK)
		return ROZ_ENOMEM;
	r->items[r->n].start_line = start;
	r->items[r->n].end_line = end;
	r->items[r->n].hash[0] = '\0';
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
		} else if (add_range(r, start, end) != ROZ_OK) {
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
			rc = add_range(out, 1, n);
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

		if (!cJSON_IsObject(h) || !cJSON_IsArray(body) ||
		    !patch_number(cJSON_GetObjectItemCaseSensitive(h, "newStart"), &at) ||
		    !patch_number(cJSON_GetObjectItemCaseSensitive(h, "newLines"), &count))
			goto not_a_patch;
		cJSON_ArrayForEach(l, body) {
			if (!cJSON_IsString(l) || !l->valuestring[0])
				goto not_a_patch;
			switch (l->valuestring[0]) {
			case ' ':
				at++;
				kept_or_added++;
				break;
			case '+':
				if (at < 1 || at > lines)
					goto not_a_patch;
				if (out->n && out->items[out->n - 1].end_line + 1 == at)
					out->items[out->n - 1].end_line = at;
				else if ((rc = add_range(out, at, at)) != ROZ_OK)
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

int roz_ledger_ranges_of_change(const char *before, size_t blen, const char *content, size_t len,
				roz_ledger_ranges *out)
{
	roz_line_span *spans = NULL;
	size_t n = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (!content)
		len = 0;
	if ((rc = roz_line_diff_added(before, before ? blen : 0, content, len, &spans, &n)) == ROZ_OK)
		for (size_t i = 0; i < n && rc == ROZ_OK; i++)
			rc = add_range(out, spans[i].start, spans[i].end);
	roz_free(spans);
	if (rc != ROZ_OK) {
		roz_ledger_ranges_dispose(out);
		roz_error_set("out of memory finding the lines a change added");
		return rc;
	}
	settle(out, content, len);
	return ROZ_OK;
}

/* ---- writing a record ----------------------------------------------------- */

/* A JSON string of s, repaired where it is not UTF-8; NULL writes null. */
static void add_str(roz_buf *b, const char *s)
{
	size_t len;
	roz_buf fixed = ROZ_BUF_INIT;

	if (!s) {
		roz_buf_adds(b, "null");
		return;
	}
	len = strlen(s);
	if (roz_utf8_valid(s, len)) {
		roz_json_add_stringn(b, s, len);
		return;
	}
	roz_utf8_add_repaired(&fixed, s, len);
	if (roz_buf_failed(&fixed))
		b->oom = true;
	else
		roz_json_add_stringn(b, fixed.ptr, fixed.len);
	roz_buf_dispose(&fixed);
}

/*
 * A URI as a JSON string: prefix, then id with every byte outside
 * [A-Za-z0-9._~-] percent-encoded, and "/" too unless `slashes` (a path's
 * slashes separate its segments).
 */
static void add_uri(roz_buf *b, const char *prefix, const char *id, bool slashes)
{
	static const char hex[] = "0123456789ABCDEF";

	roz_buf_addc(b, '"');
	roz_buf_adds(b, prefix);
	for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '_' || *p == '~' || *p == '-' || (slashes && *p == '/')) {
			roz_buf_addc(b, (char)*p);
		} else {
			roz_buf_addc(b, '%');
			roz_buf_addc(b, hex[*p >> 4]);
			roz_buf_addc(b, hex[*p & 15]);
		}
	}
	roz_buf_addc(b, '"');
}

/* models.dev names a model "<provider>/<model>"; Claude Code sends the model alone. */
static void add_model_id(roz_buf *b, const char *model)
{
	roz_buf m = ROZ_BUF_INIT;

	size_t len = strlen(model);
	const char *tag = strrchr(model, '[');

	if (!strchr(model, '/'))
		roz_buf_adds(&m, "anthropic/");
	/* "claude-opus-4-8[1m]": the context-size tag is how the session ran, not which model */
	if (tag && tag > model && len && model[len - 1] == ']')
		len = (size_t)(tag - model);
	roz_utf8_add_repaired(&m, model, len);
	if (roz_buf_failed(&m)) {
		b->oom = true;
	} else {
		/* the schema's maxLength, cut where a character ends */
		roz_json_add_stringn(b, m.ptr, roz_utf8_cut(m.ptr, m.len, MODEL_ID_MAX));
	}
	roz_buf_dispose(&m);
}

static bool set(const char *s)
{
	return s && *s;
}

static void add_ranges(roz_buf *b, const roz_ledger_ranges *r)
{
	for (size_t i = 0; r && i < r->n; i++) {
		const roz_ledger_range *g = &r->items[i];

		roz_buf_addf(b, "%s{\"start_line\":%lu,\"end_line\":%lu", i ? "," : "", g->start_line,
			     g->end_line);
		/* a range read from another tool may have no hash roz can check: none is written */
		if (g->hash[0])
			roz_buf_addf(b, ",\"content_hash\":\"sha256:%.64s\"", g->hash);
		roz_buf_addc(b, '}');
	}
}

static void build(const roz_ledger_record_in *in, bool with_ranges, roz_buf *b)
{
	char ts[ROZ_TIME_BUFSZ];

	roz_buf_adds(b, "{\"version\":\"" ROZ_LEDGER_VERSION "\",\"id\":");
	add_str(b, in->id);
	roz_buf_addf(b, ",\"timestamp\":\"%s\"", roz_time_format(in->timestamp, ts));
	if (set(in->revision)) {
		roz_buf_adds(b, ",\"vcs\":{\"type\":\"git\",\"revision\":");
		add_str(b, in->revision);
		roz_buf_addc(b, '}');
	}
	roz_buf_adds(b, ",\"tool\":{\"name\":\"roz\",\"version\":");
	add_str(b, in->roz_version ? in->roz_version : "");
	roz_buf_adds(b, "},\"files\":[");
	for (size_t i = 0; i < in->nfiles; i++) {
		const roz_ledger_file *f = &in->files[i];

		roz_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
		add_str(b, f->path ? f->path : "");
		roz_buf_adds(b, ",\"conversations\":[{");
		if (set(in->transcript) && in->transcript[0] == '/') {
			/* the conversation itself, as the specification's reference names it */
			roz_buf_adds(b, "\"url\":");
			add_uri(b, "file://", in->transcript, true);
			roz_buf_addc(b, ',');
		} else if (set(in->session_id)) {
			roz_buf_adds(b, "\"url\":");
			add_uri(b, "urn:claude-code:session:", in->session_id, false);
			roz_buf_addc(b, ',');
		}
		roz_buf_adds(b, "\"contributor\":{\"type\":\"ai\"");
		if (set(in->model_id)) {
			roz_buf_adds(b, ",\"model_id\":");
			add_model_id(b, in->model_id);
		}
		roz_buf_adds(b, "},\"ranges\":[");
		if (with_ranges)
			add_ranges(b, f->ranges);
		roz_buf_addc(b, ']');
		if (set(in->intent_id)) {
			roz_buf_adds(b, ",\"related\":[{\"type\":\"specification\",\"url\":");
			add_uri(b, "urn:roz:intent:", in->intent_id, false);
			roz_buf_adds(b, "}]");
		}
		roz_buf_adds(b, "}]}");
	}
	roz_buf_adds(b, "],\"metadata\":{\"roz\":{\"intent_id\":");
	add_str(b, set(in->intent_id) ? in->intent_id : NULL);
	roz_buf_addf(b, ",\"mutation_class\":\"%s\",\"session_id\":",
		     in->refactor ? "AST_REFACTOR" : "INTENT_EVOLUTION");
	add_str(b, in->session_id);
	roz_buf_adds(b, ",\"tool_name\":");
	add_str(b, in->tool_name);
	roz_buf_adds(b, "}}}");
}

int roz_ledger_record_write(const roz_ledger_record_in *in, roz_buf *out)
{
	roz_buf b = ROZ_BUF_INIT;
	int rc;

	if (!in || !set(in->id) || (in->nfiles > 0 && !in->files)) {
		roz_error_set("a ledger record needs an id and its files");
		return ROZ_EINVALID;
	}
	build(in, true, &b);
	if ((rc = roz_buf_failed(&b)) != ROZ_OK)
		goto done;
	if (b.len > ROZ_LEDGER_MAX_LINE) {
		/* the files changed are still worth recording without their lines */
		roz_buf_reset(&b);
		build(in, false, &b);
		if ((rc = roz_buf_failed(&b)) != ROZ_OK)
			goto done;
		if (b.len > ROZ_LEDGER_MAX_LINE) {
			roz_error_set("a ledger record of %zu files is %zu bytes even without its ranges, over %u",
				      in->nfiles, b.len, ROZ_LEDGER_MAX_LINE);
			rc = ROZ_EINVALID;
			goto done;
		}
	}
	roz_buf_add(out, b.ptr, b.len);
	roz_buf_addc(out, '\n');
	rc = roz_buf_failed(out);
done:
	roz_buf_dispose(&b);
	return rc;
}

/* ---- reading a record ------------------------------------------------------ */

void roz_ledger_rec_dispose(roz_ledger_rec *r)
{
	if (!r)
		return;
	roz_free(r->id);
	roz_free(r->revision);
	roz_free(r->session_id);
	roz_free(r->intent_id);
	roz_free(r->mutation_class);
	roz_free(r->model_id);
	for (size_t i = 0; i < r->nfiles; i++) {
		roz_free(r->files[i].path);
		roz_ledger_ranges_dispose(&r->files[i].ranges);
	}
	roz_free(r->files);
	memset(r, 0, sizeof *r);
}

static int bad(const char *why)
{
	roz_error_set("not an Agent Trace record: %s", why);
	return ROZ_EPARSE;
}

/* A copy of v's string, or NULL when v is not a string (a wrong type is as good as absent). */
static int copy_str(const cJSON *v, char **out)
{
	if (!cJSON_IsString(v) || !v->valuestring)
		return ROZ_OK;
	*out = roz_strdup(v->valuestring);
	return *out ? ROZ_OK : ROZ_ENOMEM;
}

static int line_number(const cJSON *v, unsigned long *out)
{
	uint64_t n;

	if (!roz_json_uint(v, UINT64_MAX, &n) || n < 1 || n > LINE_MAX_NUMBER)
		return ROZ_EPARSE;
	*out = (unsigned long)n;
	return ROZ_OK;
}

/* "sha256:" and 64 hex digits, lowercased into out; anything else leaves out empty. */
static void read_hash(const cJSON *v, char out[ROZ_SHA256_HEX_SIZE])
{
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL;

	out[0] = '\0';
	if (!s || strncmp(s, "sha256:", 7) != 0 || strlen(s) != 7 + 64)
		return;
	for (size_t i = 0; i < 64; i++) {
		char c = s[7 + i];

		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
			out[0] = '\0';
			return;
		}
		out[i] = c;
	}
	out[64] = '\0';
}

static int read_ranges(const cJSON *ranges, roz_ledger_ranges *r, size_t *total)
{
	const cJSON *g;

	if (!ranges)
		return ROZ_OK;
	if (!cJSON_IsArray(ranges))
		return bad("ranges is not an array");
	cJSON_ArrayForEach(g, ranges) {
		unsigned long start, end;

		if (!cJSON_IsObject(g))
			return bad("a range is not an object");
		if (line_number(cJSON_GetObjectItemCaseSensitive(g, "start_line"), &start) != ROZ_OK ||
		    line_number(cJSON_GetObjectItemCaseSensitive(g, "end_line"), &end) != ROZ_OK)
			return bad("a range's start_line and end_line must be whole numbers from 1");
		if (end < start)
			return bad("a range ends before it starts");
		if (++*total > RANGES_MAX)
			return bad("more than 100000 ranges");
		if (add_range(r, start, end) != ROZ_OK) {
			roz_error_set("out of memory reading a ledger record");
			return ROZ_ENOMEM;
		}
		read_hash(cJSON_GetObjectItemCaseSensitive(g, "content_hash"), r->items[r->n - 1].hash);
	}
	return ROZ_OK;
}

static int read_file(const cJSON *f, roz_ledger_rec *out, size_t *total)
{
	const cJSON *path, *convs, *c;
	roz_ledger_rfile *rf;
	int rc;

	if (!cJSON_IsObject(f))
		return bad("a file is not an object");
	path = cJSON_GetObjectItemCaseSensitive(f, "path");
	convs = cJSON_GetObjectItemCaseSensitive(f, "conversations");
	if (!cJSON_IsString(path) || !path->valuestring)
		return bad("a file has no path");
	if (convs && !cJSON_IsArray(convs))
		return bad("conversations is not an array");
	rf = &out->files[out->nfiles];
	memset(rf, 0, sizeof *rf);
	if (!(rf->path = roz_strdup(path->valuestring)))
		return ROZ_ENOMEM;
	out->nfiles++;
	cJSON_ArrayForEach(c, convs) {
		if (!cJSON_IsObject(c))
			return bad("a conversation is not an object");
		if (!out->model_id) {
			const cJSON *who = cJSON_GetObjectItemCaseSensitive(c, "contributor");

			rc = copy_str(cJSON_GetObjectItemCaseSensitive(who, "model_id"), &out->model_id);
			if (rc != ROZ_OK)
				return rc;
		}
		rc = read_ranges(cJSON_GetObjectItemCaseSensitive(c, "ranges"), &rf->ranges, total);
		if (rc != ROZ_OK)
			return rc;
	}
	return ROZ_OK;
}

static int read_record(const cJSON *doc, roz_ledger_rec *out)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files");
	const cJSON *ts = cJSON_GetObjectItemCaseSensitive(doc, "timestamp");
	const cJSON *vcs = cJSON_GetObjectItemCaseSensitive(doc, "vcs");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "roz");
	const cJSON *f;
	size_t total = 0;
	int n, rc;

	if (!cJSON_IsObject(doc))
		return bad("not a JSON object");
	if (!cJSON_IsArray(files))
		return bad("no files array");
	n = cJSON_GetArraySize(files);
	if (n > 0 && !(out->files = roz_calloc((size_t)n, sizeof *out->files)))
		return ROZ_ENOMEM;
	cJSON_ArrayForEach(f, files)
		if ((rc = read_file(f, out, &total)) != ROZ_OK)
			return rc;
	if (cJSON_IsString(ts) && ts->valuestring && roz_time_parse(ts->valuestring, &out->timestamp) == ROZ_OK)
		out->has_timestamp = true;
	if ((rc = copy_str(cJSON_GetObjectItemCaseSensitive(doc, "id"), &out->id)) != ROZ_OK ||
	    (rc = copy_str(cJSON_GetObjectItemCaseSensitive(vcs, "revision"), &out->revision)) != ROZ_OK ||
	    (rc = copy_str(cJSON_GetObjectItemCaseSensitive(meta, "session_id"), &out->session_id)) != ROZ_OK ||
	    (rc = copy_str(cJSON_GetObjectItemCaseSensitive(meta, "intent_id"), &out->intent_id)) != ROZ_OK ||
	    (rc = copy_str(cJSON_GetObjectItemCaseSensitive(meta, "mutation_class"), &out->mutation_class)) != ROZ_OK)
		return rc;
	return ROZ_OK;
}

int roz_ledger_line_parse(const char *line, size_t len, roz_ledger_rec *out)
{
	cJSON *doc = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if (!line)
		return bad("no text");
	if (len > ROZ_LEDGER_MAX_LINE) {
		roz_error_set("not an Agent Trace record: %zu bytes, over %u", len, ROZ_LEDGER_MAX_LINE);
		return ROZ_EPARSE;
	}
	rc = roz_json_parse(line, len, &doc);
	if (rc == ROZ_EPARSE)
		roz_error_prefix("not an Agent Trace record: not JSON");
	if (rc != ROZ_OK)
		return rc;
	rc = read_record(doc, out);
	if (rc == ROZ_ENOMEM)
		roz_error_set("out of memory reading a ledger record");
	if (rc != ROZ_OK)
		roz_ledger_rec_dispose(out);
	cJSON_Delete(doc);
	return rc;
}
