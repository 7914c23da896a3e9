/*
 * cmd_context.c - `roz context`: what the user asked for and what triggered
 * the review, printed for the reviewer, who must judge the work against
 * the request rather than against the agent's own summary.
 *
 * In a governed repository the request has a second half: the intent the
 * session selected, whose constraints and acceptance criteria the work
 * must meet, and the ledger's record of what the session changed, so the
 * reviewer reads the lines the agent wrote rather than the ones it names.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "context_work.h"
#include "output.h"
#include "roz/intents.h"
#include "roz/json.h"
#include "roz/ledger.h"
#include "roz/lines.h"
#include "roz/orchestration.h"
#include "roz/session.h"
#include "trace_view.h"

static void help(void)
{
	printf("usage: roz context <session-id> [--json]\n\n"
	       "Show a session's review state, what triggered a gate, and the prompts the\n"
	       "user wrote, so the reviewer can check the work against what was asked. Run\n"
	       "in a governed repository, it also shows the session's intent (constraints,\n"
	       "acceptance criteria) and the files and lines the ledger records it changed.\n\n"
	       "Options:\n"
	       "      --json  one JSON document, for scripts\n"
	       "  -h, --help  show this help\n");
}

/* Print text, made safe for a terminal, with every line indented. */
static void indented(FILE *f, const char *pad, const char *text, const char *more)
{
	char *safe = cli_safe(text, true);
	const char *p = safe ? safe : "(out of memory)", *nl;

	while (*p) {
		nl = strchr(p, '\n');
		fprintf(f, "%s%s%.*s\n", pad, more, (int)(nl ? nl - p : (long)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
	roz_free(safe);
}

void cli_print_governance(FILE *f, const roz_session *s, const char *pad)
{
	const roz_session_gov *g = &s->gov;
	char at[ROZ_TIME_BUFSZ];

	if (!g->present)
		return;
	fprintf(f, "%sGovernance: %s, ", pad, roz_session_gov_phase_name(g->phase));
	if (g->intent_id) {
		fputs("intent ", f);
		cli_put_safe(f, g->intent_id, false);
		if (g->refactor)
			fputs(" (refactor)", f);
		if (g->selected_at.set)
			fprintf(f, " since %s", roz_time_format_sec(g->selected_at.t, at));
	} else {
		fputs("no intent selected", f);
	}
	fprintf(f, "; %u refusal%s in a row, %u handed to the person, %zu file%s seen\n",
		(unsigned)g->denials, g->denials == 1 ? "" : "s", (unsigned)g->escalations, g->n_files,
		g->n_files == 1 ? "" : "s");
}

/*
 * The detours asked about since the gate's denial: lines roz could not see
 * through that the agent ran while it waited for this review. The reviewer
 * is to know the agent tried another way. Calls `each` with every one.
 */
static void each_detour(const roz_session *s, void (*each)(void *, const roz_trace_event *), void *ud)
{
	const roz_gate_trigger *g = s->review.gate_trigger;

	for (size_t i = 0; g && i < s->n_trace; i++) {
		roz_trace_event ev;

		if (roz_session_trace_event_parse(&s->trace[i], &ev) < 0)
			continue;
		if (!strcmp(ev.event_type, "gate_detour") && ev.has_timestamp &&
		    !roz_time_before(ev.timestamp, g->triggered_at))
			each(ud, &ev);
		roz_session_trace_event_dispose(&ev);
	}
}

static const char *payload_str(const roz_trace_event *ev, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev->payload, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

struct detour_text {
	FILE *f;
	const char *pad;
	unsigned n;
};

static void detour_line(void *ud, const roz_trace_event *ev)
{
	struct detour_text *t = ud;
	char a[ROZ_TIME_BUFSZ];

	if (!t->n++)
		fprintf(t->f, "%s  Detours asked about while it was pending (the agent tried another way):\n",
			t->pad);
	fprintf(t->f, "%s    [%s] ", t->pad, roz_time_format_sec(ev->timestamp, a));
	cli_put_safe(t->f, payload_str(ev, "call"), false);
	fprintf(t->f, "\n%s      ", t->pad);
	cli_put_safe(t->f, payload_str(ev, "why"), false);
	fputc('\n', t->f);
}

static void print_detours(FILE *f, const roz_session *s, const char *pad)
{
	struct detour_text t = {f, pad, 0};

	each_detour(s, detour_line, &t);
}

static void detour_json(void *ud, const roz_trace_event *ev)
{
	roz_buf *b = ud;
	char ts[ROZ_TIME_BUFSZ];

	roz_buf_adds(b, b->ptr[b->len - 1] == '[' ? "{\"call\":" : ",{\"call\":");
	roz_json_add_string(b, payload_str(ev, "call"));
	roz_buf_adds(b, ",\"why\":");
	roz_json_add_string(b, payload_str(ev, "why"));
	roz_buf_addf(b, ",\"at\":\"%s\"}", roz_time_format(ev->timestamp, ts));
}

void cli_print_context(FILE *f, const roz_session *s, const roz_config *config, const char *pad)
{
	const roz_review_state *r = &s->review;
	char a[ROZ_TIME_BUFSZ];

	fprintf(f, "%sSession:  %s\n", pad, s->session_id);
	fprintf(f, "%sCreated:  %s\n", pad, roz_time_format_sec(s->created_at, a));
	fprintf(f, "%sUpdated:  %s\n", pad, roz_time_format_sec(s->updated_at, a));
	fprintf(f, "%sReview:   %s\n", pad, r->enabled ? "enabled" : "not enabled");
	fprintf(f, "%sDecision: %s%s%s", pad, roz_session_decision_kind_name(r->decision.kind),
		cli_verdict_overridden(s) ? " (override)" : "", r->decision.summary ? " - " : "");
	cli_put_safe(f, r->decision.summary ? r->decision.summary : "", true);
	fputc('\n', f);
	if (r->decision.message_to_agent) {
		/* whole: a Stop answer quotes it only up to its bound */
		fprintf(f, "%sMessage to the agent:\n", pad);
		indented(f, pad, r->decision.message_to_agent, "  ");
	}
	/* what earlier reviewers asked for, newest first: the agent may be pointed here after a later verdict */
	for (size_t i = r->n_history, shown = 0; i-- > 0;) {
		const roz_decision *d = &r->history[i].decision;

		if (d->kind != ROZ_DECISION_ISSUES || !d->message_to_agent)
			continue;
		if (!shown++)
			fprintf(f, "%sEarlier messages to the agent (newest first):\n", pad);
		fprintf(f, "%s  [until %s] ", pad, roz_time_format_sec(r->history[i].timestamp, a));
		cli_put_safe(f, d->summary ? d->summary : "", true);
		fputc('\n', f);
		indented(f, pad, d->message_to_agent, "    ");
	}
	fprintf(f, "%sBlocks:   %u of %u\n", pad, (unsigned)r->block_count, (unsigned)config->max_blocks);
	if (s->gov.present) {
		fprintf(f, "%sIntent:   ", pad);
		cli_put_safe(f, s->gov.intent_id ? s->gov.intent_id : "none selected", false);
		fprintf(f, " (%s)\n", roz_session_gov_phase_name(s->gov.phase));
	}
	if (r->gate_trigger) {
		const roz_gate_trigger *g = r->gate_trigger;
		roz_buf input = ROZ_BUF_INIT;

		if (g->tool_input.value)
			roz_json_add_value(&input, g->tool_input.value, ROZ_JSON_TABS);

		fprintf(f, "%s\n%sGate trigger:\n", pad, pad);
		fprintf(f, "%s  Tool:     ", pad);
		cli_put_safe(f, g->tool_name, false);
		fprintf(f, "\n%s  Pattern:  ", pad);
		cli_put_safe(f, g->pattern_matched, false);
		fputc('\n', f);
		fprintf(f, "%s  At:       %s\n", pad, roz_time_format_sec(g->triggered_at, a));
		fprintf(f, "%s  Input:\n", pad);
		indented(f, pad, input.len && !roz_buf_failed(&input) ? roz_buf_cstr(&input) : "null", "    ");
		if (g->tool_input.truncated)
			fprintf(f, "%s    (shortened; the original was %llu bytes, sha256 %s)\n", pad,
				(unsigned long long)g->tool_input.original_size,
				g->tool_input.original_hash ? g->tool_input.original_hash : "?");
		roz_buf_dispose(&input);
		print_detours(f, s, pad);
	}
	fprintf(f, "%s\n%sUser prompts:%s\n", pad, pad, r->n_prompts ? "" : " (none)");
	for (size_t i = 0; i < r->n_prompts; i++) {
		fprintf(f, "%s  [%zu]\n", pad, i + 1);
		indented(f, pad, r->prompts[i], "    ");
	}
}

/* Ledger entries shown at most; the rest are counted. */
#define RECORD_MAX 50u

/* The session's intent and its part of the ledger, when the repository it runs in is governed. */
typedef struct record_view {
	bool have;                  /* an intent selected and the repository governed */
	roz_orchestration o;
	const roz_intent *intent;   /* NULL when the intents file no longer declares it */
	roz_ledger_rec *mine;       /* this session's records, in ledger order, as far as shown */
	size_t nmine, cap;
	size_t kept, entries;       /* files over the records kept, and over all this session's */
	char *problem;              /* why the ledger could not be read, or NULL */
} record_view;

/*
 * Whether a ledger line may hold `sid` as a JSON string: it holds the id's
 * bytes, or an escape (a writer may spell any character of a string as
 * \uXXXX, and must so spell a quote, backslash or control character). A
 * line that passes is parsed and its session compared exactly; one that
 * does not cannot be the session's. A million records are read this way
 * without parsing the others' (the id is in every line of its session, in
 * metadata.roz.session_id and the conversation's url).
 */
static bool may_hold(const char *line, size_t len, const char *sid, size_t sidlen)
{
	return memchr(line, '\\', len) || memmem(line, len, sid, sidlen);
}

/*
 * Keep `rec` (taken) while the records kept hold fewer than RECORD_MAX
 * files: those are shown; of the rest only their files are counted, so
 * memory stays that of fifty entries however long the session ran.
 */
static int record_add(record_view *v, roz_ledger_rec *rec)
{
	v->entries += rec->nfiles;
	if (v->kept >= RECORD_MAX) {
		roz_ledger_rec_dispose(rec);
		return ROZ_OK;
	}
	if (roz_alloc_array_reserve((void **)&v->mine, &v->cap, sizeof(*v->mine), v->nmine + 1) < 0) {
		roz_ledger_rec_dispose(rec);
		return ROZ_ENOMEM;
	}
	v->kept += rec->nfiles;
	v->mine[v->nmine++] = *rec;
	return ROZ_OK;
}

/*
 * This session's records, streamed from the ledger (none when there is no
 * ledger); when it cannot be read, v->problem says why.
 */
static void records_read(const roz_session *s, record_view *v)
{
	char *path = roz_asprintf("%s/%s", strcmp(v->o.root, "/") ? v->o.root : "", ROZ_LEDGER_FILE);
	size_t sidlen = strlen(s->session_id);
	roz_lines *l = NULL;
	int rc = path ? roz_lines_open(path, ROZ_LEDGER_MAX_LINE, &l) : ROZ_ENOMEM;

	roz_free(path);
	while (rc == ROZ_OK) {
		const char *line;
		size_t len;
		uint64_t offset;
		bool ended;
		roz_ledger_rec rec;

		rc = roz_lines_next(l, &line, &len, &offset, &ended);
		/* a line too long to be a record, or that cannot be this session's, is not parsed */
		if (rc != ROZ_OK || !line || !may_hold(line, len, s->session_id, sidlen))
			continue;
		memset(&rec, 0, sizeof(rec));
		rc = roz_ledger_line_parse(line, len, &rec);
		if (rc == ROZ_EPARSE || (rc == ROZ_OK && (!rec.session_id || strcmp(rec.session_id, s->session_id)))) {
			/* not a record (malformed, a torn tail), or another session's: skipped */
			roz_ledger_rec_dispose(&rec);
			rc = ROZ_OK;
			continue;
		}
		if (rc == ROZ_OK)
			rc = record_add(v, &rec);
		else
			roz_ledger_rec_dispose(&rec);
	}
	roz_lines_close(l);
	if (rc == ROZ_ENOMEM)
		v->problem = roz_strdup("out of memory reading the ledger");
	else if (rc != ROZ_ENOTFOUND)
		v->problem = roz_strdup(roz_error_last());
}

static void record_load(const roz_session *s, record_view *v)
{
	char cwd[4096];

	memset(v, 0, sizeof(*v));
	if (!s->gov.intent_id || !getcwd(cwd, sizeof cwd) || roz_orchestration_find(cwd, &v->o) < 0 ||
	    !v->o.governed || roz_orchestration_load(&v->o, ROZ_ORCH_INTENTS) < 0)
		return;
	v->have = true;
	if (v->o.intents_ok)
		v->intent = roz_intents_find(&v->o.intents, s->gov.intent_id);
	records_read(s, v);
}

static void record_dispose(record_view *v)
{
	roz_orchestration_dispose(&v->o);
	for (size_t i = 0; i < v->nmine; i++)
		roz_ledger_rec_dispose(&v->mine[i]);
	roz_free(v->mine);
	roz_free(v->problem);
}

static void print_items(FILE *f, const char *title, char *const *items, size_t n)
{
	fprintf(f, "  %s:%s\n", title, n ? "" : " (none)");
	for (size_t i = 0; i < n; i++) {
		char *safe = cli_safe(items[i], true);
		const char *p = safe ? safe : "(out of memory)", *nl;

		/* a criterion written as a YAML block keeps its lines, under its dash */
		for (bool first = true; *p; first = false) {
			nl = strchr(p, '\n');
			fprintf(f, "    %s%.*s\n", first ? "- " : "  ", (int)(nl ? nl - p : (long)strlen(p)), p);
			if (!nl)
				break;
			p = nl + 1;
		}
		roz_free(safe);
	}
}

static void print_record(FILE *f, const roz_session *s, const record_view *v)
{
	char ts[ROZ_TIME_BUFSZ];
	size_t shown = 0;

	if (!v->have)
		return;
	fputs("\nIntent ", f);
	cli_put_safe(f, s->gov.intent_id, false);
	if (!v->intent) {
		fprintf(f, ": %s\n", v->o.intents_ok ? "no longer declared in " ROZ_ORCH_INTENTS_FILE
						    : "the intents file cannot be used");
	} else {
		fputs(": ", f);
		cli_put_safe(f, v->intent->name, false);
		fprintf(f, " (%s)\n", roz_intents_status_name(v->intent->status));
		print_items(f, "Constraints", v->intent->constraints, v->intent->nconstraints);
		print_items(f, "Acceptance criteria", v->intent->criteria, v->intent->ncriteria);
	}
	fprintf(f, "\nRecorded changes (%s, this session):", ROZ_LEDGER_FILE);
	if (v->problem) {
		fputs(" cannot be read: ", f);
		cli_put_safe(f, v->problem, false);
		fputc('\n', f);
		return;
	}
	fputs(v->entries ? "\n" : " (none)\n", f);
	for (size_t i = 0; i < v->nmine && shown < RECORD_MAX; i++) {
		const roz_ledger_rec *r = &v->mine[i];

		for (size_t k = 0; k < r->nfiles && shown < RECORD_MAX; k++, shown++) {
			const roz_ledger_ranges *g = &r->files[k].ranges;

			fprintf(f, "  %s  ", r->has_timestamp ? roz_time_format_sec(r->timestamp, ts) : "-");
			cli_put_safe(f, r->files[k].path ? r->files[k].path : "?", false);
			fputs(g->n ? "  lines " : "  (no lines)", f);
			for (size_t j = 0; j < g->n; j++)
				fprintf(f, "%s%lu-%lu", j ? ", " : "", g->items[j].start_line, g->items[j].end_line);
			fputc('\n', f);
		}
	}
	if (v->entries > shown)
		fprintf(f, "  ... and %zu more\n", v->entries - shown);
}

/* ,"intent":{...},"ledger":{...} when there is a record view. */
static void json_record(roz_buf *b, const record_view *v)
{
	char ts[ROZ_TIME_BUFSZ];
	size_t shown = 0;

	if (!v->have)
		return;
	roz_buf_adds(b, ",\"intent\":");
	if (v->intent) {
		roz_buf_adds(b, "{\"id\":");
		roz_json_add_string(b, v->intent->id);
		roz_buf_adds(b, ",\"name\":");
		roz_json_add_string(b, v->intent->name);
		roz_buf_addf(b, ",\"status\":\"%s\",\"constraints\":", roz_intents_status_name(v->intent->status));
		roz_json_add_string_array(b, v->intent->constraints, v->intent->nconstraints);
		roz_buf_adds(b, ",\"acceptance_criteria\":");
		roz_json_add_string_array(b, v->intent->criteria, v->intent->ncriteria);
		roz_buf_addc(b, '}');
	} else {
		roz_buf_adds(b, "null");
	}
	roz_buf_adds(b, ",\"ledger\":{\"error\":");
	if (v->problem)
		roz_json_add_string(b, v->problem);
	else
		roz_buf_adds(b, "null");
	roz_buf_adds(b, ",\"entries\":[");
	for (size_t i = 0; i < v->nmine && shown < RECORD_MAX; i++) {
		const roz_ledger_rec *r = &v->mine[i];

		for (size_t k = 0; k < r->nfiles && shown < RECORD_MAX; k++, shown++) {
			const roz_ledger_ranges *g = &r->files[k].ranges;

			roz_buf_adds(b, shown ? ",{\"timestamp\":" : "{\"timestamp\":");
			if (r->has_timestamp)
				roz_buf_addf(b, "\"%s\"", roz_time_format_sec(r->timestamp, ts));
			else
				roz_buf_adds(b, "null");
			roz_buf_adds(b, ",\"record_id\":");
			if (r->id)
				roz_json_add_string(b, r->id);
			else
				roz_buf_adds(b, "null");
			roz_buf_adds(b, ",\"path\":");
			roz_json_add_string(b, r->files[k].path ? r->files[k].path : "");
			roz_buf_adds(b, ",\"ranges\":[");
			for (size_t j = 0; j < g->n; j++)
				roz_buf_addf(b, "%s{\"start_line\":%lu,\"end_line\":%lu}", j ? "," : "",
					     g->items[j].start_line, g->items[j].end_line);
			roz_buf_adds(b, "]}");
		}
	}
	roz_buf_addf(b, "],\"total\":%zu,\"more\":%zu}", v->entries, v->entries - shown);
}

static void add_opt(roz_buf *b, const char *key, const char *val)
{
	roz_buf_addf(b, ",\"%s\":", key);
	if (val)
		roz_json_add_string(b, val);
	else
		roz_buf_adds(b, "null");
}

static int print_json(const roz_session *s, const roz_config *config, const record_view *v,
		      const cli_work_view *wv)
{
	const roz_review_state *r = &s->review;
	roz_buf b = ROZ_BUF_INIT;
	char ts[ROZ_TIME_BUFSZ];

	roz_buf_adds(&b, "{\"session_id\":");
	roz_json_add_string(&b, s->session_id);
	roz_buf_addf(&b, ",\"created_at\":\"%s\"", roz_time_format(s->created_at, ts));
	roz_buf_addf(&b, ",\"updated_at\":\"%s\"", roz_time_format(s->updated_at, ts));
	roz_buf_addf(&b, ",\"review\":{\"enabled\":%s,\"state\":\"%s\",\"decision\":{\"type\":\"%s\"",
		     r->enabled ? "true" : "false", cli_review_state(s),
		     roz_session_decision_kind_name(r->decision.kind));
	add_opt(&b, "summary", r->decision.summary);
	add_opt(&b, "message_to_agent", r->decision.message_to_agent);
	add_opt(&b, "second_opinions", r->decision.second_opinions);
	roz_buf_addf(&b, ",\"override\":%s", cli_verdict_overridden(s) ? "true" : "false");
	roz_buf_addf(&b, "},\"block_count\":%u,\"max_blocks\":%u}", (unsigned)r->block_count,
		     (unsigned)config->max_blocks);
	if (s->gov.present) {
		roz_buf_adds(&b, ",\"governance\":{\"state\":");
		roz_json_add_string(&b, roz_session_gov_phase_name(s->gov.phase));
		roz_buf_adds(&b, ",\"intent_id\":");
		if (s->gov.intent_id)
			roz_json_add_string(&b, s->gov.intent_id);
		else
			roz_buf_adds(&b, "null");
		roz_buf_addc(&b, '}');
	}
	roz_buf_adds(&b, ",\"gate_trigger\":");
	if (r->gate_trigger) {
		const roz_gate_trigger *g = r->gate_trigger;

		roz_buf_adds(&b, "{\"tool\":");
		roz_json_add_string(&b, g->tool_name);
		roz_buf_adds(&b, ",\"pattern\":");
		roz_json_add_string(&b, g->pattern_matched);
		roz_buf_addf(&b, ",\"triggered_at\":\"%s\",\"tool_input\":", roz_time_format(g->triggered_at, ts));
		if (g->tool_input.value)
			roz_json_add_canonical(&b, g->tool_input.value);
		else
			roz_buf_adds(&b, "null");
		roz_buf_addf(&b, ",\"truncated\":%s", g->tool_input.truncated ? "true" : "false");
		if (g->tool_input.truncated) {
			roz_buf_addf(&b, ",\"original_size\":%llu", (unsigned long long)g->tool_input.original_size);
			add_opt(&b, "original_hash", g->tool_input.original_hash);
		}
		/* only when there were any: the document is otherwise what it was */
		{
			size_t at = b.len;

			roz_buf_adds(&b, ",\"detours\":[");
			each_detour(s, detour_json, &b);
			if (!roz_buf_failed(&b) && b.ptr[b.len - 1] == '[')
				b.len = at;
			else
				roz_buf_addc(&b, ']');
		}
		roz_buf_addc(&b, '}');
	} else {
		roz_buf_adds(&b, "null");
	}
	roz_buf_adds(&b, ",\"user_prompts\":[");
	for (size_t i = 0; i < r->n_prompts; i++) {
		if (i)
			roz_buf_addc(&b, ',');
		roz_json_add_string(&b, r->prompts[i]);
	}
	roz_buf_addc(&b, ']');
	cli_work_json(&b, s, wv);
	json_record(&b, v);
	roz_buf_adds(&b, "}\n");
	return cli_emit(&b);
}

int cmd_context(int argc, char **argv)
{
	roz_config config;
	roz_session *s = NULL;
	bool json;
	char *sid;
	int rc = cli_session_command(argc, argv, "context", help, &json, NULL, &sid);

	if (rc != ROZ_EXIT_OK)
		return rc < 0 ? ROZ_EXIT_OK : rc;
	if (cli_load_config(&config) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	rc = cli_read_session(&config, "context", sid, &s);
	if (rc == ROZ_EXIT_OK) {
		record_view v;
		cli_work_view wv;

		record_load(s, &v);
		cli_work_load(s, &config, &wv);
		if (json) {
			rc = print_json(s, &config, &v, &wv);
		} else {
			cli_print_context(stdout, s, &config, "");
			cli_work_print(stdout, s, &wv);
			print_record(stdout, s, &v);
		}
		cli_work_dispose(&wv);
		record_dispose(&v);
	}
	roz_session_free(s);
	roz_config_dispose(&config);
	return cli_finish_stdout(rc);
}
