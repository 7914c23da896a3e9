/*
 * trace_view.c - a session's trace as a timeline people can scan: local
 * time, event, and the payload squeezed onto the same line; a verdict a
 * person recorded with --override is marked as one.
 */
#include "trace_view.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "output.h"
#include "roz/json.h"
#include "roz/utf8.h"

#define VALUE_CHARS 60

/* A payload value on one line as JSON, strings cut to VALUE_CHARS characters. */
static void print_value(FILE *f, const cJSON *v)
{
	roz_buf b = ROZ_BUF_INIT;

	if (cJSON_IsString(v)) {
		const char *s = v->valuestring;
		size_t len = strlen(s), cut = roz_utf8_offset(s, len, VALUE_CHARS);

		roz_json_add_stringn(&b, s, cut);
		if (cut < len) {
			b.len--; /* reopen the string to mark the cut inside it */
			roz_buf_adds(&b, "...\"");
		}
	} else {
		roz_json_add_canonical(&b, v);
	}
	if (!roz_buf_failed(&b))
		cli_put_safe(f, b.ptr, false);
	roz_buf_dispose(&b);
}

static void print_payload(FILE *f, const cJSON *payload, const char *indent)
{
	roz_buf b = ROZ_BUF_INIT;
	char *p, *nl;

	roz_json_add_value(&b, payload, ROZ_JSON_INDENT);
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return;
	}
	for (p = b.ptr; p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0'; /* b is ours: print it one line at a time */
		fprintf(f, "%s    ", indent);
		cli_put_safe(f, p, false);
		fputc('\n', f);
	}
	roz_buf_dispose(&b);
}

bool cli_verdict_overridden(const roz_session *s)
{
	const roz_review_state *r = &s->review;

	return r->decision_override && r->decision.kind != ROZ_DECISION_PENDING;
}

/* A roz_decision event recorded with --override. */
static bool is_override(const roz_trace_event *ev)
{
	return strcmp(ev->event_type, "roz_decision") == 0 &&
	       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev->payload, "override"));
}

void cli_print_trace(FILE *f, const roz_session *s, const char *indent, bool verbose)
{
	for (size_t i = 0; i < s->n_trace; i++) {
		roz_trace_event ev;
		char when[32] = "??:??:??.???";
		const cJSON *item;
		char *type;
		bool first = true;

		if (roz_session_trace_event_parse(&s->trace[i], &ev) < 0) {
			fprintf(f, "%s(unreadable event)\n", indent);
			continue;
		}
		if (ev.has_timestamp)
			cli_local_clock(ev.timestamp, when, sizeof(when));
		fprintf(f, "%s%s%s%s  ", indent, cli_dim(), when, cli_reset());
		type = cli_safe(ev.event_type, false);
		cli_pad(f, type ? type : "?", 18);
		fputc(' ', f);
		roz_free(type);
		if (is_override(&ev)) {
			/* a person's verdict, not a reviewer's: say so before anything else */
			fprintf(f, "%sOVERRIDE%s", cli_bold(), cli_reset());
			first = false;
		}
		if (cJSON_IsObject(ev.payload)) {
			cJSON_ArrayForEach(item, ev.payload) {
				if (strcmp(item->string, "override") == 0 && is_override(&ev))
					continue; /* already said */
				fputs(first ? "" : " ", f);
				cli_put_safe(f, item->string, false);
				fputc('=', f);
				print_value(f, item);
				first = false;
			}
		}
		fputc('\n', f);
		if (verbose && ev.payload)
			print_payload(f, ev.payload, indent);
		roz_session_trace_event_dispose(&ev);
	}
}
