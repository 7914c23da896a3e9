/*
 * main.c - `roz` entry point: global options, the command table, and the
 * mapping from a command's result to the process exit status.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "roz/version.h"

static const struct {
	const char *name;
	cli_command_fn fn;
	const char *summary;
} commands[] = {
	{"hook", cmd_hook, "run a Claude Code hook (JSON on stdin, JSON on stdout)"},
	{"decide", cmd_decide, "record the reviewer's verdict: COMPLETE or ISSUES"},
	{"context", cmd_context, "show what the user asked for in a session, for the reviewer"},
	{"list", cmd_list, "list recent sessions and the state of their reviews"},
	{"trace", cmd_trace, "show what happened in a session, event by event"},
	{"debug", cmd_debug, "print a session's whole stored state as JSON"},
	{"stats", cmd_stats, "compare block templates: how often each led to a verdict"},
	{"clean", cmd_clean, "remove old sessions (never one still under review)"},
	{"doctor", cmd_doctor, "check that roz is installed and wired up, with fixes"},
	{"intent", cmd_intent, "the repository's intents: list, show, select, map (governance)"},
	{"lesson", cmd_lesson, "add a lesson to the repository's shared .orchestration/CLAUDE.md"},
	{"ledger", cmd_ledger, "check the record of the agent's changes against the code"},
	{"watch", cmd_watch, "watch a repository's tree for governance detection (the hooks start it)"},
	{"demo", cmd_demo, "walk a reviewed session through the real hooks on a throwaway home"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: roz <command> [arguments]\n\n"
		   "roz is a quality gate for Claude Code: it makes the agent get an independent\n"
		   "review before it stops, and can hold chosen tool calls until one approves.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nOptions:\n"
		   "  -h, --help     show this help (also after a command: roz decide --help)\n"
		   "  -V, --version  show the version\n");
}

int main(int argc, char **argv)
{
	roz_alloc_init();
	if (argc < 2) {
		usage(stderr);
		return ROZ_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("roz %s\n", ROZ_VERSION);
		return cli_finish_stdout(ROZ_EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	cli_error("unknown command '%s'", argv[1]);
	fprintf(stderr, "Try 'roz --help'.\n");
	return ROZ_EXIT_USAGE;
}
