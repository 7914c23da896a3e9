/*
 * cmd_context.c - `roz context`: what the user asked for and what triggered
 * the review, printed for the reviewer, who must judge the work against
 * the request rather than against the agent's own summary.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "roz/json.h"
#include "roz/session.h"
#include "trace_view.h"

static void help(void)
{
	printf("usage: roz context <session-id> [--json]\n\n"
	       "Show a session's review state, what triggered a gate, and the prompts the\n"
	       "user wrote, so the reviewer can check the work against what was asked.\n\n"
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
	}
	fprintf(f, "%s\n%sUser prompts:%s\n", pad, pad, r->n_prompts ? "" : " (none)");
	for (size_t i = 0; i < r->n_prompts; i++) {
		fprintf(f, "%s  [%zu]\n", pad, i + 1);
		indented(f, pad, r->prompts[i], "    ");
	}
}

static void add_opt(roz_buf *b, const char *key, const char *val)
{
	roz_buf_addf(b, ",\"%s\":", key);
	if (val)
		roz_json_add_string(b, val);
	else
		roz_buf_adds(b, "null");
}

static int print_json(const roz_session *s, const roz_config *config)
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
	roz_buf_adds(&b, "]}\n");
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
		if (json)
			rc = print_json(s, &config);
		else
			cli_print_context(stdout, s, &config, "");
	}
	roz_session_free(s);
	roz_config_dispose(&config);
	return cli_finish_stdout(rc);
}
