/* cmd_ledger_compact.c - `roz ledger compact`: being written. */
#include "cli.h"

int cmd_ledger_compact(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_usage_error("ledger", "compact is not available yet");
}
