/*
 * cli.h - what the command implementations share: exit codes, error
 * printing, and opening config and store the way every command does.
 * Only src/cli/ prints to the terminal and decides exit statuses.
 */
#ifndef ROZ_CLI_H
#define ROZ_CLI_H

#include <stdio.h>

#include "roz/config.h"
#include "roz/store.h"

/* Exit statuses, mapped in one place. */
enum {
	ROZ_EXIT_OK = 0,      /* success */
	ROZ_EXIT_FAILURE = 1, /* the command failed */
	ROZ_EXIT_USAGE = 2    /* the command line was wrong */
};

typedef int (*cli_command_fn)(int argc, char **argv);

int cmd_hook(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_context(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_intent(int argc, char **argv);
/* `roz intent violations` (accept false) and `roz intent accept PATH...|--all`, given what follows the verb. */
int cmd_intent_violations(int argc, char **argv, bool accept);
int cmd_lesson(int argc, char **argv);

/*
 * roz_verify_read_fn over the repository at `ud` (its root): a file the
 * ledger names, read whole; a path that is absolute or leaves the root is
 * not read (ROZ_EINVALID). In cmd_ledger.c.
 */
int cli_ledger_read_source(void *ud, const char *path, char **text, size_t *len);
int cmd_ledger(int argc, char **argv);
/* `roz ledger accept|blame|compact ...`, given the arguments from the verb on (argv[0] is the verb). */
int cmd_ledger_accept(int argc, char **argv);
int cmd_ledger_blame(int argc, char **argv);
int cmd_ledger_compact(int argc, char **argv);

/*
 * Read one session for a command that only looks (context, debug, trace):
 * reports a bad id (ROZ_EXIT_USAGE), a missing or unreadable session
 * (ROZ_EXIT_FAILURE) itself. *out belongs to the caller.
 */
int cli_read_session(const roz_config *config, const char *command, const char *sid,
		     roz_session **out);

/*
 * Parse `<command> [--json] [-v] <session-id>`. Returns ROZ_EXIT_OK with
 * the options set, -1 after printing help, or an exit status for a usage
 * error. Pass verbose NULL when the command has no -v.
 */
int cli_session_command(int argc, char **argv, const char *command, void (*help)(void),
			bool *json, bool *verbose, char **sid);

/* A positive whole number no larger than max, from an option value. */
bool cli_parse_count(const char *s, long max, long *out);

/* "roz: error: <message>" on stderr. */
void cli_error(const char *fmt, ...) ROZ_PRINTF(1, 2);
/* "roz: warning: <message>" on stderr. */
void cli_warning(const char *fmt, ...) ROZ_PRINTF(1, 2);
/* Report a usage problem for `roz <command>` and return ROZ_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) ROZ_PRINTF(2, 3);

/* True when argv[1] asks for help (-h/--help). */
bool cli_wants_help(int argc, char **argv);

/*
 * Load config for a command: a file that does not parse is an error
 * (reported here) and returns ROZ_EXIT_FAILURE; warnings are printed.
 */
int cli_load_config(roz_config *config);
int cli_open_store(const roz_config *config, roz_store **store);
/*
 * The store roz keeps sessions in: the file store `config` names, its
 * repairs reported through warn (NULL: quietly). Shaped as the runner's
 * roz_runner_open_store_fn (ud unused), which is how hooks and roz decide
 * get it. *out belongs to the caller.
 */
int cli_store_open(void *ud, const roz_config *config, roz_store_warn_fn warn, void *warn_ud,
		   roz_store **out);

/* The reviewer's view of a session (roz context), each line prefixed with pad. */
void cli_print_context(FILE *f, const roz_session *s, const roz_config *config, const char *pad);
/* One line on the session's governance state, when governance has touched it. */
void cli_print_governance(FILE *f, const roz_session *s, const char *pad);

/* Print a built document (reporting a failed build) and free it. An exit status. */
int cli_emit(roz_buf *b);

/* Flush stdout and report a failed write. ROZ_EXIT_OK or ROZ_EXIT_FAILURE. */
int cli_finish_stdout(int status);

#endif
