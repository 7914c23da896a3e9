/*
 * cmd_context.c - `roz context`: what the user asked for and what triggered
 * the review, printed for the reviewer, who must judge the work against
 * the request rather than against the agent's own summary.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "roz/session.h"

static void help(void)
{
	printf("usage: roz context <session-id>\n\n"
	       "Show a session's review state, what triggered a gate, and the prompts the\n"
	       "user wrote, so the reviewer can check the work against what was asked.\n");
}

/* Print text with every line indented. */
static void indented(FILE *f, const char *pad, const char *text, const char *more)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		fprintf(f, "%s%s%.*s\n", pad, more, (int)(nl ? nl - p : (long)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

void cli_print_context(FILE *f, const roz_session *s, const roz_config *config, const char *pad)
{
	const roz_review_state *r = &s->review;
	char a[ROZ_TIME_BUFSZ];

	fprintf(f, "%sSession:  %s\n", pad, s->session_id);
	fprintf(f, "%sCreated:  %s\n", pad, roz_time_format_sec(s->created_at, a));
	fprintf(f, "%sUpdated:  %s\n", pad, roz_time_format_sec(s->updated_at, a));
	fprintf(f, "%sReview:   %s\n", pad, r->enabled ? "enabled" : "not enabled");
	fprintf(f, "%sDecision: %s%s%s\n", pad, roz_decision_kind_name(r->decision.kind),
		r->decision.summary ? " - " : "", r->decision.summary ? r->decision.summary : "");
	fprintf(f, "%sBlocks:   %u of %u\n", pad, (unsigned)r->block_count, (unsigned)config->max_blocks);
	if (r->gate_trigger) {
		const roz_gate_trigger *g = r->gate_trigger;
		char *input = g->tool_input.value ? cJSON_Print(g->tool_input.value) : NULL;

		fprintf(f, "%s\n%sGate trigger:\n", pad, pad);
		fprintf(f, "%s  Tool:     %s\n", pad, g->tool_name);
		fprintf(f, "%s  Pattern:  %s\n", pad, g->pattern_matched);
		fprintf(f, "%s  At:       %s\n", pad, roz_time_format_sec(g->triggered_at, a));
		fprintf(f, "%s  Input:\n", pad);
		indented(f, pad, input ? input : "null", "    ");
		if (g->tool_input.truncated)
			fprintf(f, "%s    (shortened; the original was %llu bytes, sha256 %s)\n", pad,
				(unsigned long long)g->tool_input.original_size,
				g->tool_input.original_hash ? g->tool_input.original_hash : "?");
		roz_free(input);
	}
	fprintf(f, "%s\n%sUser prompts:%s\n", pad, pad, r->n_prompts ? "" : " (none)");
	for (size_t i = 0; i < r->n_prompts; i++) {
		fprintf(f, "%s  [%zu]\n", pad, i + 1);
		indented(f, pad, r->prompts[i], "    ");
	}
}

int cmd_context(int argc, char **argv)
{
	roz_config config;
	roz_store *store = NULL;
	roz_session *s = NULL;
	int rc, status = ROZ_EXIT_FAILURE;

	if (cli_wants_help(argc, argv)) {
		help();
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	if (argc != 2)
		return cli_usage_error("context", "expected <session-id>");
	if (!roz_session_id_valid(argv[1]))
		return cli_usage_error("context", "'%s' is not a session id", argv[1]);
	if (cli_load_config(&config) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	if (cli_open_store(&config, &store) != ROZ_EXIT_OK)
		goto out;
	rc = roz_store_get(store, argv[1], &s);
	if (rc == ROZ_ENOTFOUND) {
		cli_error("no session '%s' (check the SESSION_ID you were given)", argv[1]);
		goto out;
	}
	if (rc < 0) {
		cli_error("cannot read session '%s': %s", argv[1], roz_error_last());
		goto out;
	}
	cli_print_context(stdout, s, &config, "");
	status = ROZ_EXIT_OK;
out:
	roz_session_free(s);
	roz_store_free(store);
	roz_config_free(&config);
	return cli_finish_stdout(status);
}
