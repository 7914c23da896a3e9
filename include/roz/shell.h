/*
 * roz/shell.h - finding every command a POSIX shell line would run.
 *
 * Gates are written as `Bash:<command pattern>`, so roz must know which
 * commands a Bash tool call runs, however the agent spells it. This lexer
 * and parser reads the line the way sh does - quotes, escapes, operators,
 * here-documents, substitutions, compound commands - and reports each
 * simple command it finds, normalized for matching:
 *
 *   - assignments (`VAR=x`) and redirections (`>f`, `2>&1`, `<<EOF`) are
 *     dropped, quotes removed, words joined by single spaces;
 *   - the command word is reduced to its basename, with a leading backslash
 *     dropped (`\/usr/bin/git` -> `git`);
 *   - wrappers (sudo, env, command, builtin, exec, time, nice, nohup,
 *     timeout, stdbuf, setsid, xargs, flock, ...) yield the wrapper line and
 *     the line of the command they run;
 *   - `sh|bash|zsh|dash -c <payload>` (any option spelling: -c, -lc, -ec,
 *     ...) and shells fed a here-document or here-string are parsed
 *     recursively;
 *   - commands inside $(...), backticks, <(...), >(...), ( ... ), { ...; },
 *     and if/while/until/for/case bodies are found too.
 *
 * Arguments, comments and here-document bodies are data and never become
 * commands. When the command word cannot be known statically (eval, `$CMD`,
 * `"$(...)"`) the result carries ROZ_SHELL_DYNAMIC; when the line does not
 * parse (unterminated quote, unbalanced parenthesis, nesting too deep) it
 * carries ROZ_SHELL_UNPARSED. In both cases `reason` says why, so a gate
 * can ask the human instead of guessing.
 *
 * Ownership: roz_shell_parse() fills a caller-provided result that is
 * released with roz_shell_result_free().
 */
#ifndef ROZ_SHELL_H
#define ROZ_SHELL_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	ROZ_SHELL_DYNAMIC = 1u << 0,  /* some command word is not static text */
	ROZ_SHELL_UNPARSED = 1u << 1  /* the line (or a nested payload) does not parse */
};

typedef struct roz_shell_cmd {
	char **words;   /* normalized words; words[0] is the command name */
	size_t nwords;
	char *line;     /* words joined by single spaces */
	unsigned depth; /* 0 at top level, +1 per substitution or nested shell */
} roz_shell_cmd;

typedef struct roz_shell_result {
	roz_shell_cmd *cmds; /* in the order they appear in the line */
	size_t ncmds, cap;
	unsigned flags;      /* ROZ_SHELL_DYNAMIC | ROZ_SHELL_UNPARSED */
	char *reason;        /* first reason for a flag, or NULL */
} roz_shell_result;

/*
 * Parse `len` bytes of a shell line. Returns ROZ_OK (even when flags are
 * set: what could be found is still reported) or ROZ_ENOMEM.
 */
int roz_shell_parse(const char *text, size_t len, roz_shell_result *out);
void roz_shell_result_free(roz_shell_result *res);

#ifdef __cplusplus
}
#endif

#endif
