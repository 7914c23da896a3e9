/*
 * cmd_decide.c - `roz decide`: the reviewer records its verdict, or a
 * person at a terminal overrides. Locks the session like a hook does, so a
 * verdict written while hooks run is never lost; a verdict nobody stands
 * behind is refused with exit status 2.
 */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "roz/decide.h"
#include "roz/hooks.h"
#include "roz/runner.h"

static void help(void)
{
	printf("usage: roz decide <session-id> COMPLETE|ISSUES <summary> [options]\n\n"
	       "Record the reviewer's verdict for a session. COMPLETE lets the agent stop\n"
	       "(and approves gated actions); ISSUES sends --message (or the summary) back to\n"
	       "the agent as what to fix.\n\n"
	       "Options:\n"
	       "  -m, --message TEXT   what the agent must fix (ISSUES)\n"
	       "  -o, --opinions TEXT  second opinions consulted (COMPLETE)\n"
	       "      --override       record the verdict as a person, at a terminal outside\n"
	       "                       Claude Code; it counts without a reviewer run and is\n"
	       "                       shown as an override in list, context and trace\n"
	       "  -h, --help           show this help\n\n"
	       "Inside Claude Code only the roz:roz reviewer may run this: its own call to\n"
	       "roz decide lets one verdict through within %d seconds, and the verdict counts\n"
	       "once that reviewer's stop confirms it. Anything else is refused (exit 2).\n",
	       ROZ_TICKET_TTL_SECONDS);
}

/* A verdict that could not also become a lesson, or be bound to the work, still stands: say so. */
static void lesson_warning(void *ud, const char *msg)
{
	(void)ud;
	cli_warning("%s", msg);
}

int cmd_decide(int argc, char **argv)
{
	static const struct option opts[] = {
		{"message", required_argument, NULL, 'm'},
		{"opinions", required_argument, NULL, 'o'},
		{"override", no_argument, NULL, 'O'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *message = NULL, *opinions = NULL, *sid, *verdict, *summary;
	bool override = false;
	roz_runner_opts ropts = {.open_store = cli_store_open, .lessons = true, .lesson_warn = lesson_warning};
	roz_decide_request req;
	roz_decision_kind kind;
	roz_config config;
	int c, rc, status = ROZ_EXIT_FAILURE;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': message = optarg; break;
		case 'o': opinions = optarg; break;
		case 'O': override = true; break;
		case 'h': help(); return cli_finish_stdout(ROZ_EXIT_OK);
		case ':': return cli_usage_error("decide", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("decide", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 3)
		return cli_usage_error("decide", "expected <session-id> COMPLETE|ISSUES <summary>");
	sid = argv[optind];
	verdict = argv[optind + 1];
	summary = argv[optind + 2];
	if (strcasecmp(verdict, "COMPLETE") == 0)
		kind = ROZ_DECISION_COMPLETE;
	else if (strcasecmp(verdict, "ISSUES") == 0)
		kind = ROZ_DECISION_ISSUES;
	else
		return cli_usage_error("decide", "verdict must be COMPLETE or ISSUES, not '%s'", verdict);
	if (!roz_session_id_valid(sid))
		return cli_usage_error("decide", "'%s' is not a session id", sid);

	if (cli_load_config(&config) != ROZ_EXIT_OK)
		return ROZ_EXIT_FAILURE;
	memset(&req, 0, sizeof(req));
	req.session_id = sid;
	req.kind = kind;
	req.summary = summary;
	req.message = message;
	req.opinions = opinions;
	req.caller_session = getenv("CLAUDE_CODE_SESSION_ID");
	req.override = override;
	rc = roz_runner_decide(&config, &req, &ropts);
	if (rc == ROZ_ENOTFOUND) {
		cli_error("no session '%s' (check the SESSION_ID you were given)", sid);
		goto out;
	}
	if (rc == ROZ_EINVALID) {
		/* refused, not failed: say why and what a person can do instead */
		cli_error("verdict for session '%s' refused: %s", sid, roz_error_last());
		status = ROZ_EXIT_USAGE;
		goto out;
	}
	if (rc < 0) {
		cli_error("cannot record the verdict for session '%s': %s", sid, roz_error_last());
		goto out;
	}
	printf("Recorded %s for session %s.\n", kind == ROZ_DECISION_COMPLETE ? "COMPLETE" : "ISSUES",
	       sid);
	status = ROZ_EXIT_OK;
out:
	roz_config_dispose(&config);
	return cli_finish_stdout(status);
}
