/*
 * ledger_read.c - one line of the ledger read back as a record
 * (roz/ledger.h): any Agent Trace record, roz's or another tool's, with
 * the schema's bounds checked and fields roz does not know ignored.
 */
#include "roz/ledger.h"

#include "roz/json.h"

#include <cjson/cJSON.h>
#include <string.h>

/* The largest line number the schema allows, and the ranges read from one record (all files). */
#define LINE_MAX_NUMBER UINT64_C(9007199254740991)
#define RANGES_MAX 100000u

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
	roz_free(r->tool);
	roz_free(r->tool_name);
	for (size_t i = 0; i < r->nfiles; i++) {
		roz_free(r->files[i].path);
		roz_free(r->files[i].from);
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
/* content_hash into a range: the hex of a SHA-256, or what kind of hash it is not. */
static void read_hash(const cJSON *v, roz_ledger_range *rg)
{
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
	char *out = rg->hash;

	out[0] = '\0';
	rg->hash_kind = s ? ROZ_LEDGER_HASH_OTHER : ROZ_LEDGER_HASH_NONE;
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
	rg->hash_kind = ROZ_LEDGER_HASH_SHA256;
}

/* A contributor object's type; `dflt` when it has none the schema knows. */
static unsigned char read_who(const cJSON *who, unsigned char dflt)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(who, "type");
	const char *s = cJSON_IsString(t) ? t->valuestring : NULL;

	if (!s)
		return dflt;
	if (strcmp(s, "ai") == 0)
		return ROZ_LEDGER_WHO_AI;
	if (strcmp(s, "mixed") == 0)
		return ROZ_LEDGER_WHO_MIXED;
	if (strcmp(s, "human") == 0)
		return ROZ_LEDGER_WHO_HUMAN;
	if (strcmp(s, "unknown") == 0)
		return ROZ_LEDGER_WHO_UNKNOWN;
	return dflt;
}

static int read_ranges(const cJSON *ranges, unsigned char who, roz_ledger_ranges *r, size_t *total)
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
		if (roz_ledger_ranges_add(r, start, end) != ROZ_OK) {
			roz_error_set("out of memory reading a ledger record");
			return ROZ_ENOMEM;
		}
		read_hash(cJSON_GetObjectItemCaseSensitive(g, "content_hash"), &r->items[r->n - 1]);
		r->items[r->n - 1].who = read_who(cJSON_GetObjectItemCaseSensitive(g, "contributor"), who);
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
		const cJSON *who = cJSON_GetObjectItemCaseSensitive(c, "contributor");

		if (!out->model_id) {
			rc = copy_str(cJSON_GetObjectItemCaseSensitive(who, "model_id"), &out->model_id);
			if (rc != ROZ_OK)
				return rc;
		}
		rc = read_ranges(cJSON_GetObjectItemCaseSensitive(c, "ranges"), read_who(who, ROZ_LEDGER_WHO_AI),
				 &rf->ranges, total);
		if (rc != ROZ_OK)
			return rc;
	}
	return ROZ_OK;
}

/* The record's file named `path`, or NULL. */
static roz_ledger_rfile *file_named(roz_ledger_rec *r, const char *path)
{
	for (size_t i = 0; path && i < r->nfiles; i++)
		if (strcmp(r->files[i].path, path) == 0)
			return &r->files[i];
	return NULL;
}

/* metadata.roz's action, removed and renamed, onto the record and its files. */
static int read_changes(const cJSON *meta, roz_ledger_rec *out)
{
	const cJSON *action = cJSON_GetObjectItemCaseSensitive(meta, "action"), *v;

	out->accept = cJSON_IsString(action) && strcmp(action->valuestring, "accept") == 0;
	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(meta, "removed")) {
		roz_ledger_rfile *f = cJSON_IsString(v) ? file_named(out, v->valuestring) : NULL;

		if (f)
			f->removed = true;
	}
	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(meta, "renamed")) {
		const cJSON *from = cJSON_GetObjectItemCaseSensitive(v, "from");
		const cJSON *to = cJSON_GetObjectItemCaseSensitive(v, "to");
		roz_ledger_rfile *f = cJSON_IsString(to) ? file_named(out, to->valuestring) : NULL;

		if (f && cJSON_IsString(from) && !f->from && !(f->from = roz_strdup(from->valuestring)))
			return ROZ_ENOMEM;
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
	    (rc = copy_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "tool"), "name"),
			   &out->tool)) != ROZ_OK ||
	    (rc = copy_str(cJSON_GetObjectItemCaseSensitive(meta, "tool_name"), &out->tool_name)) != ROZ_OK ||
	    (rc = read_changes(meta, out)) != ROZ_OK ||
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
