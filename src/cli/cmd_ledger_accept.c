/* cmd_ledger_accept.c - `roz ledger accept`: being written. */
#include "cli.h"

int cmd_ledger_accept(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_usage_error("ledger", "accept is not available yet");
}
