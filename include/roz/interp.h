/*
 * roz/interp.h - spotting `roz decide` run by a script interpreter from a
 * Bash line.
 *
 * The shell lexer (roz/shell.h) finds `roz decide` wherever the shell would
 * run it, but a line can hand the call to another language instead:
 * `python3 -c 'import os; os.system("roz decide ...")'`, `perl -e`, `node
 * -e`, `awk 'BEGIN{system(...)}'`, or a program fed on standard input
 * (`python3 <<EOF`). For such a command this module answers whether its
 * inline program (and the arguments handed to it) mentions both "roz" and
 * "decide", ignoring case; the gate then treats the line as running `roz
 * decide`.
 *
 * This is a second line of defence, and a heuristic: code that spells the
 * words in pieces or reads them from a file is not seen. What keeps a
 * verdict from the agent is the ticket `roz decide` needs (see
 * docs/security.md).
 */
#ifndef ROZ_INTERP_H
#define ROZ_INTERP_H

#include "roz/shell.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * True when `cmd` (one simple command as the lexer reports it) runs an
 * interpreter whose inline program, or the arguments passed to it, mention
 * roz and decide. `line` is the whole Bash line (borrowed, may be NULL): an
 * interpreter that reads its program from standard input is judged by it,
 * since a here-document or a pipe is where that program comes from.
 */
bool roz_interp_runs_decide(const roz_shell_cmd *cmd, const char *line);

#ifdef __cplusplus
}
#endif

#endif
