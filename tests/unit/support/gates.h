/*
 * gates.h - helpers for the tests of the gates and the shell reader: a
 * config gating given patterns, whether a gate holds a Bash line, and a
 * parse of a line with every allocation in turn made to fail; the shell
 * reader's answers as a gate reads them.
 */
#ifndef ROZ_TEST_GATES_H
#define ROZ_TEST_GATES_H

#include "support.h"

#include "roz/config.h"
#include "roz/shell.h"

/* A default config whose gates are these n patterns. */
void t_gates(roz_config *c, const char *const *patterns, size_t n);

/* Would a gate with this pattern hold this Bash command? (An unsure reading counts.) */
bool t_gate_holds(const char *pattern, const char *command);

#define HOLDS(p, cmd) \
	do { if (!t_gate_holds(p, cmd)) fail_msg("'%s' should be held by '%s'", cmd, p); } while (0)
#define PASSES(p, cmd) \
	do { if (t_gate_holds(p, cmd)) fail_msg("'%s' should pass '%s'", cmd, p); } while (0)

/* roz_shell_parse() of `line`, which must succeed; dispose the result. */
roz_shell_result t_shell_parse_ok(const char *line);

/* The first command `r` reports as `line`, or NULL. */
const roz_shell_cmd *t_shell_find_line(const roz_shell_result *r, const char *line);

/*
 * What a gate makes of a line, from the shell reader alone: a command
 * matches the pattern (`Bash:` in front or not), or its known start could
 * grow into a match, or the line cannot be read.
 */
bool t_shell_held(const char *line, const char *pattern);

/*
 * Parse `line` with the 1st, 2nd, ... allocation failing until one parse
 * succeeds: each failure must leave an empty result, and the success must
 * find more than min_cmds commands.
 */
void t_shell_parse_oom_sweep(const char *line, size_t min_cmds);

#endif
