/*
 * trace_view.c - a session's trace as a timeline people can scan: local
 * time, event, and the payload squeezed onto the same line.
 */
#include "trace_view.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#include "roz/utf8.h"

#define VALUE_CHARS 60

/* A payload value on one line, cut to VALUE_CHARS characters. */
static void print_value(FILE *f, const cJSON *v)
{
	char *text = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
	const char *s = cJSON_IsString(v) ? v->valuestring : text ? text : "?";
	size_t len = strlen(s), cut = roz_utf8_offset(s, len, VALUE_CHARS);

	if (cJSON_IsString(v))
		fputc('"', f);
	for (size_t i = 0; i < cut; i++)
		fputc(s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i], f);
	if (cut < len)
		fputs("...", f);
	if (cJSON_IsString(v))
		fputc('"', f);
	roz_free(text);
}

void cli_print_trace(FILE *f, const roz_session *s, const char *indent)
{
	for (size_t i = 0; i < s->n_trace; i++) {
		roz_trace_event ev;
		char when[32] = "??:??:??.???";
		const cJSON *item;
		bool first = true;

		if (roz_trace_event_parse(&s->trace[i], &ev) < 0) {
			fprintf(f, "%s(unreadable event)\n", indent);
			continue;
		}
		if (ev.has_timestamp) {
			time_t t = (time_t)ev.timestamp.sec;
			struct tm tm;

			if (localtime_r(&t, &tm))
				snprintf(when, sizeof(when), "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min,
					 tm.tm_sec, (int)(ev.timestamp.nsec / 1000000));
		}
		fprintf(f, "%s%s  %-18s ", indent, when, ev.event_type);
		if (cJSON_IsObject(ev.payload)) {
			cJSON_ArrayForEach(item, ev.payload) {
				fprintf(f, "%s%s=", first ? "" : " ", item->string);
				print_value(f, item);
				first = false;
			}
		}
		fputc('\n', f);
		roz_trace_event_clear(&ev);
	}
}
