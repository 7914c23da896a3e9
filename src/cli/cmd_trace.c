/*
 * cmd_trace.c - `roz trace`: a session's events as a timeline, with the
 * payloads on request, or as JSON for scripts.
 */
#include <cjson/cJSON.h>
#include <stdio.h>

#include "cli.h"
#include "roz/json.h"
#include "trace_view.h"

static void help(void)
{
	printf("usage: roz trace <session-id> [-v|--verbose] [--json]\n\n"
	       "Show what happened in a session, one event per line in local time.\n\n"
	       "Options:\n"
	       "  -v, --verbose  show each event's full payload\n"
	       "      --json     one JSON document, for scripts\n"
	       "  -h, --help     show this help\n");
}

static int print_json(const roz_session *s)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_buf_adds(&b, "{\"session_id\":");
	roz_json_add_string(&b, s->session_id);
	if (s->gov.present) {
		roz_buf_adds(&b, ",\"governance\":");
		roz_session_gov_write(&s->gov, &b);
	}
	roz_buf_adds(&b, ",\"events\":[");
	for (size_t i = 0; i < s->n_trace; i++) {
		struct cJSON *ev = NULL;

		if (i)
			roz_buf_addc(&b, ',');
		/* each event as stored, in one canonical line */
		if (roz_json_parse(s->trace[i].json, s->trace[i].len, &ev) == ROZ_OK)
			roz_json_add_canonical(&b, ev);
		else
			roz_buf_adds(&b, "null");
		cJSON_Delete(ev);
	}
	roz_buf_adds(&b, "]}\n");
	return cli_emit(&b);
}

int cmd_trace(int argc, char **argv)
{
	roz_config config;
	roz_session *s = NULL;
	bool json, verbose;
	char *sid;
	int rc = cli_session_command(argc, argv, "trace", help, &json, &verbose, &sid);

	if (rc != ROZ_EXIT_OK)
		return rc < 0 ? ROZ_EXIT_OK : rc;
	if (cli_load_config(&config) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	rc = cli_read_session(&config, "trace", sid, &s);
	if (rc == ROZ_EXIT_OK) {
		if (json)
			rc = print_json(s);
		else if (!s->n_trace)
			printf("Session %s has no events.\n", s->session_id);
		else {
			cli_print_governance(stdout, s, "");
			cli_print_trace(stdout, s, "", verbose);
		}
	}
	roz_session_free(s);
	roz_config_dispose(&config);
	return cli_finish_stdout(rc);
}
