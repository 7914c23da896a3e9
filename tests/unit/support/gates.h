/*
 * gates.h - helpers for the tests of the gates and the shell reader: a
 * config gating given patterns, whether a gate holds a Bash line, and a
 * parse of a line with every allocation in turn made to fail.
 */
#ifndef ROZ_TEST_GATES_H
#define ROZ_TEST_GATES_H

#include "support.h"

#include "roz/config.h"

/* A default config whose gates are these n patterns. */
void t_gates(roz_config *c, const char *const *patterns, size_t n);

/* Would a gate with this pattern hold this Bash command? (An unsure reading counts.) */
bool t_gate_holds(const char *pattern, const char *command);

#define HOLDS(p, cmd) \
	do { if (!t_gate_holds(p, cmd)) fail_msg("'%s' should be held by '%s'", cmd, p); } while (0)
#define PASSES(p, cmd) \
	do { if (t_gate_holds(p, cmd)) fail_msg("'%s' should pass '%s'", cmd, p); } while (0)

/*
 * Parse `line` with the 1st, 2nd, ... allocation failing until one parse
 * succeeds: each failure must leave an empty result, and the success must
 * find more than min_cmds commands.
 */
void t_shell_parse_oom_sweep(const char *line, size_t min_cmds);

#endif
