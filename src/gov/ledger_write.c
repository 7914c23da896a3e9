/*
 * ledger_write.c - an Agent Trace record as one JSON line (roz/ledger.h):
 * what the runner hands in, written with the schema's bounds kept (UTF-8
 * repaired, a model id cut to its maxLength, ranges dropped before the
 * line outgrows ROZ_LEDGER_MAX_LINE). Nothing here reads the file system
 * or the clock.
 */
#include "roz/ledger.h"

#include "roz/json.h"
#include "roz/utf8.h"

#include <string.h>

/* The schema's bound on a model id (maxLength). */
#define MODEL_ID_MAX 250u

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

static const char *who_name(unsigned char who)
{
	switch (who) {
	case ROZ_LEDGER_WHO_MIXED:
		return "mixed";
	case ROZ_LEDGER_WHO_HUMAN:
		return "human";
	case ROZ_LEDGER_WHO_UNKNOWN:
		return "unknown";
	default:
		return "ai";
	}
}

/*
 * A range is written by its conversation's contributor (`conv`) unless it
 * says otherwise: lines the agent rewrote are "mixed" (and name the model
 * that rewrote them, when it is known), so a reader does not take a
 * person's line, reworded, for the agent's own. A range left ai is its
 * conversation's, whatever that is.
 */
static void add_ranges(roz_buf *b, const roz_ledger_ranges *r, unsigned char conv, const char *model)
{
	for (size_t i = 0; r && i < r->n; i++) {
		const roz_ledger_range *g = &r->items[i];

		roz_buf_addf(b, "%s{\"start_line\":%lu,\"end_line\":%lu", i ? "," : "", g->start_line,
			     g->end_line);
		/* a range read from another tool may have no hash roz can check: none is written */
		if (g->hash[0])
			roz_buf_addf(b, ",\"content_hash\":\"sha256:%.64s\"", g->hash);
		if (g->who != ROZ_LEDGER_WHO_AI && g->who != conv) {
			roz_buf_addf(b, ",\"contributor\":{\"type\":\"%s\"", who_name(g->who));
			if (g->who == ROZ_LEDGER_WHO_MIXED && set(model)) {
				roz_buf_adds(b, ",\"model_id\":");
				add_model_id(b, model);
			}
			roz_buf_addc(b, '}');
		}
		roz_buf_addc(b, '}');
	}
}

/* metadata.roz.removed and .renamed: written only when the record has such files. */
static void add_changes(roz_buf *b, const roz_ledger_record_in *in)
{
	bool any = false;

	for (size_t i = 0; i < in->nfiles; i++) {
		if (!in->files[i].removed)
			continue;
		roz_buf_adds(b, any ? "," : ",\"removed\":[");
		add_str(b, in->files[i].path ? in->files[i].path : "");
		any = true;
	}
	if (any)
		roz_buf_addc(b, ']');
	any = false;
	for (size_t i = 0; i < in->nfiles; i++) {
		if (in->files[i].removed || !set(in->files[i].from))
			continue;
		roz_buf_adds(b, any ? ",{\"from\":" : ",\"renamed\":[{\"from\":");
		add_str(b, in->files[i].from);
		roz_buf_adds(b, ",\"to\":");
		add_str(b, in->files[i].path ? in->files[i].path : "");
		roz_buf_addc(b, '}');
		any = true;
	}
	if (any)
		roz_buf_addc(b, ']');
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
		if (in->accept) {
			/* a person's acceptance: no conversation to point to, no model, no intent */
			roz_buf_adds(b, "\"contributor\":{\"type\":\"human\"},\"ranges\":[");
			if (with_ranges && !f->removed)
				add_ranges(b, f->ranges, ROZ_LEDGER_WHO_HUMAN, NULL);
			roz_buf_adds(b, "]}]}");
			continue;
		}
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
		/* a removed file has no lines left to attribute */
		if (with_ranges && !f->removed)
			add_ranges(b, f->ranges, ROZ_LEDGER_WHO_AI, in->model_id);
		roz_buf_addc(b, ']');
		if (set(in->intent_id)) {
			roz_buf_adds(b, ",\"related\":[{\"type\":\"specification\",\"url\":");
			add_uri(b, "urn:roz:intent:", in->intent_id, false);
			roz_buf_adds(b, "}]");
		}
		roz_buf_adds(b, "}]}");
	}
	if (in->accept) {
		roz_buf_adds(b, "],\"metadata\":{\"roz\":{\"action\":\"accept\",\"accepted_by\":");
		add_str(b, set(in->accepted_by) ? in->accepted_by : NULL);
		roz_buf_adds(b, ",\"session_id\":null,\"tool_name\":");
		add_str(b, set(in->tool_name) ? in->tool_name : "roz ledger accept");
		add_changes(b, in);
		roz_buf_adds(b, "}}}");
		return;
	}
	roz_buf_adds(b, "],\"metadata\":{\"roz\":{\"intent_id\":");
	add_str(b, set(in->intent_id) ? in->intent_id : NULL);
	roz_buf_addf(b, ",\"mutation_class\":\"%s\",\"session_id\":",
		     in->refactor ? "AST_REFACTOR" : "INTENT_EVOLUTION");
	add_str(b, in->session_id);
	roz_buf_adds(b, ",\"tool_name\":");
	add_str(b, in->tool_name);
	add_changes(b, in);
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
