/* cmd_ledger_blame.c - `roz ledger blame`: being written. */
#include "cli.h"

int cmd_ledger_blame(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_usage_error("ledger", "blame is not available yet");
}
