/*
 * cmd_debug.c - `roz debug`: everything roz stores for a session, its state
 * and its trace as one document, pretty-printed: as JSON with --json, and
 * with what could work a terminal shown as escapes without.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "roz/json.h"
#include "roz/session_json.h"

static void help(void)
{
	printf("usage: roz debug <session-id> [--json]\n\n"
	       "Print everything roz stores for a session, as indented JSON. Characters\n"
	       "that could make a terminal misbehave are shown as escapes (\\x1b, \\u202e).\n\n"
	       "Options:\n"
	       "      --json  the same JSON without escapes, for scripts\n"
	       "  -h, --help  show this help\n");
}

int cmd_debug(int argc, char **argv)
{
	roz_config config;
	roz_session *s = NULL;
	roz_buf text = ROZ_BUF_INIT, out = ROZ_BUF_INIT;
	struct cJSON *tree = NULL;
	bool json;
	char *sid;
	int rc = cli_session_command(argc, argv, "debug", help, &json, NULL, &sid);

	if (rc != ROZ_EXIT_OK)
		return rc < 0 ? ROZ_EXIT_OK : rc;
	if (cli_load_config(&config) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	rc = cli_read_session(&config, "debug", sid, &s);
	if (rc == ROZ_EXIT_OK) {
		/* through the loader and back, so what is shown is what roz understood */
		if (roz_session_json_write(s, &text) < 0 || roz_json_parse(text.ptr, text.len, &tree) < 0) {
			cli_error("cannot show session '%s': %s", sid, roz_error_last());
			rc = ROZ_EXIT_FAILURE;
		} else {
			roz_json_add_value(&out, tree, ROZ_JSON_INDENT);
			roz_buf_addc(&out, '\n');
			if (roz_buf_failed(&out)) {
				cli_error("out of memory");
				rc = ROZ_EXIT_FAILURE;
			} else if (json) {
				fwrite(out.ptr, 1, out.len, stdout);
			} else {
				cli_put_safe(stdout, out.ptr, true);
			}
		}
	}
	cJSON_Delete(tree);
	roz_buf_dispose(&text);
	roz_buf_dispose(&out);
	roz_session_free(s);
	roz_config_dispose(&config);
	return cli_finish_stdout(rc);
}
