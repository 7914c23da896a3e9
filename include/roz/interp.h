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
 *
 * The same reading also lists the shell command lines such a program
 * starts (roz_interp_scan_cmd), so a `Bash:git push*` gate can see the
 * `git push` in `python3 -c 'import os; os.system("git push")'`. It is a
 * scanner, not a parser: it looks for the calls each language starts
 * processes with (os.system, subprocess.run, child_process.execSync,
 * system, backticks, qx, io.popen, `print | "cmd"`, do shell script, ...)
 * wherever they appear in the program text, even inside a string, and
 * takes their string-literal arguments. A call whose command is computed
 * (a variable, a concatenation with one, an f-string, a format) makes the
 * scan dynamic.
 *
 * The module is three files: src/core/interp.c (the interpreter table and
 * which program a command runs), interp_lex.c (the scan's reading of string
 * literals and arguments) and interp_calls.c (the calls that start
 * processes, and the scanners for each language).
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

/* At most this many lines are listed, each at most ROZ_INTERP_LINE_MAX bytes. */
#define ROZ_INTERP_LINES_MAX 64
#define ROZ_INTERP_LINE_MAX 4096

/* What one command hands to a script interpreter, and what that program starts. */
typedef struct roz_interp_scan {
	/*
	 * Static: the interpreter's name ("python", "node", "awk", ...) when the
	 * command runs one on some program (inline, a script file, a module,
	 * standard input); NULL for any other command and for an interpreter
	 * that only reports its version or help (`python3 --version`).
	 */
	const char *interpreter;
	/*
	 * The whole program is on the line: inline code (-c, -e, -r, --eval,
	 * awk's program text, -Command) or a here-document or here-string on
	 * standard input. `lines` then holds everything the program starts that
	 * can be read as text. False for a script file, a module (`-m`), code
	 * the interpreter loads first (`-r ./x`, `--require`), an encoded
	 * command, and a program piped in (its text is judged from the line all
	 * the same, as roz_interp_runs_decide does).
	 */
	bool whole;
	/*
	 * The program starts a command it builds at run time (a variable, a
	 * concatenation with one, an f-string, a format, a value passed to
	 * eval), or starts more than `lines` can hold: a gate cannot know
	 * what runs from `lines` alone.
	 */
	bool dynamic;
	/*
	 * Shell command lines the program starts, as literal text (owned): a
	 * string handed to a shell as it is written (`os.system("git push")`
	 * -> `git push`), an argument list as its words joined by spaces, each
	 * quoted for the shell when it needs it (`["git","push","a b"]` -> `git
	 * push 'a b'`). The program's path is kept as written (`/usr/bin/git`),
	 * and a line may hold several commands (`cd x && git push`): read each
	 * with roz_shell_parse before matching. For a computed command, the
	 * literal start is listed when there is one (`"git push " + b` -> `git
	 * push`). Blank lines are dropped and duplicates listed once.
	 */
	char **lines;
	size_t nlines, cap;
} roz_interp_scan;

/*
 * Scan `cmd` (one simple command as the lexer reports it; words[0] is the
 * interpreter's basename). `line` is the whole Bash line (borrowed, may be
 * NULL): a program read from standard input (a here-document, a
 * here-string, a pipe) is looked for in it. `out` is filled from scratch;
 * dispose it after either return. Returns ROZ_OK or ROZ_ENOMEM.
 */
int roz_interp_scan_cmd(const roz_shell_cmd *cmd, const char *line, roz_interp_scan *out);
void roz_interp_scan_dispose(roz_interp_scan *s);

#ifdef __cplusplus
}
#endif

#endif
