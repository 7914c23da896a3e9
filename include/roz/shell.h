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
 *     dropped (`\/usr/bin/git` -> `git`); git's helper programs are read as
 *     git itself (`/usr/lib/git-core/git-push x` -> also `git push x`);
 *   - wrappers yield the wrapper line and the line of the command they run
 *     (their own options and operands skipped):
 *       running as someone or somewhere else: sudo, doas, su -c, runuser,
 *         sg, setpriv, pkexec, chroot, unshare, nsenter, firejail, fakeroot,
 *         fakechroot;
 *       scheduling and limits: nice, ionice, chrt, taskset, numactl, cgexec,
 *         prlimit, cpulimit, timeout, systemd-run, systemd-inhibit, flock;
 *       tracing and debugging: strace, ltrace, valgrind, catchsegv, time;
 *       terminals and sessions: script -c, unbuffer, stdbuf, setsid, nohup,
 *         dbus-run-session, xvfb-run, rlwrap, chronic, caffeinate;
 *       environment and lookup: env, command, builtin, exec, busybox,
 *         eatmydata, nocache, faketime, proxychains, torsocks, noglob,
 *         nocorrect;
 *       repeating and feeding: xargs, parallel, watch, entr, find -exec;
 *       remote and terminal sessions: ssh HOST cmd, tmux new|neww|splitw|
 *         respawn*|run-shell|if-shell|popup (and tmux -c), screen, at, batch;
 *       project and package environments: npx, npm exec|x, pnpm exec|dlx,
 *         yarn exec|dlx, bunx, bun x|exec, uv run, uvx, poetry|pipenv|pdm|
 *         hatch|rye|pixi|devbox run, conda|mamba|micromamba run, bundle exec,
 *         nix develop|shell -c, nix-shell --run|--command, direnv exec,
 *         mise exec|x, asdf exec, dotenv, dotenvx run, env-cmd, cross-env,
 *         cross-env-shell;
 *       sandboxes and measuring: sandbox-exec, bwrap, perf record|stat|trace,
 *         hyperfine (its operands are shell text), heaptrack, gdb --args;
 *     the rule for adding one: it runs a command given by its remaining
 *     arguments (or by one option's value), whatever that command is;
 *     long options are read as GNU getopt reads them, unique prefixes too;
 *   - `sh|bash|zsh|dash|ksh|csh|tcsh|fish|elvish|nu|xonsh -c <payload>` (any
 *     option spelling: -c, -lc, -ec, --command=, ...), `pwsh -Command`, and
 *     shells fed a here-document or here-string are parsed recursively, as
 *     is a script a shell or `source` reads from /dev/stdin, `-`, a
 *     /dev/fd/N the same command feeds, or `<(echo|printf text)`; a script
 *     from any other process substitution or descriptor is dynamic;
 *   - `rm` with recursive and force options in any spelling (-r -f, -fr,
 *     --rec --fo) is reported once more as `rm -rf <operands>` (or
 *     `rm -r <operands>`), so one gate pattern holds them all;
 *   - a command that runs what the line does not show carries `opaque`: a
 *     script file given to a shell or `source`, a program run from a path
 *     outside the system directories, a shell given BASH_ENV or ENV, a task
 *     runner running the project's own definitions (make, just, task, rake,
 *     npm run|test|start, yarn/pnpm <script>, bun run, cargo run, go run,
 *     gradle, mvn, tox, nox, invoke, doit, ...), keys typed into a terminal
 *     (tmux send-keys, screen -X), and editor, debugger and database shell
 *     commands that can run anything (vim -c, emacs --eval, gdb -ex, psql,
 *     sqlite3, mysql); their `!`/`shell`/`.shell`/`system` text is parsed;
 *   - commands inside $(...), backticks, <(...), >(...), ( ... ), { ...; },
 *     and if/while/until/for/case bodies are found too.
 *
 * Arguments, comments and here-document bodies are data and never become
 * commands.
 *
 * What is known only at run time. A word may hold text the shell computes
 * when the line runs: parameter expansion, command or arithmetic
 * substitution, brace expansion, unquoted glob characters, or text a wrapper
 * puts in (xargs and parallel append arguments and fill in `{}`, find -exec
 * fills in `{}`). Each command says how much of its line is known before it
 * runs (`known`, per word in `info`); a gate then asks whether its pattern
 * could match some completion of that known start. A command is also
 * treated as unknown from its name on when the line defines an alias of that
 * name, and git commands from their subcommand on when the line sets git
 * configuration (`git -c alias.x=...`, `GIT_CONFIG_*=`), because either can
 * turn `p` into `push`.
 *
 * When what runs cannot be known at all (a computed command word, `eval`
 * of an expansion, a shell or `source` reading generated text, an
 * arithmetic context that could run a `$(...)` written inside quotes) the
 * result carries ROZ_SHELL_DYNAMIC; when the line does not parse
 * (unterminated quote, unbalanced parenthesis, nesting too deep) it carries
 * ROZ_SHELL_UNPARSED. In both cases `reason` says why, so a gate can ask the
 * human instead of guessing.
 *
 * The result also lists the files the line writes through redirections
 * (`>`, `>>`, `>|`, `&>`, `<>`, `>&file`) and the variables it assigns, so
 * callers can tell where the line writes and what it changes in the shell.
 *
 * The reader is five files: src/core/shell_lex.c (tokens), shell_parse.c
 * (the grammar), shell_rules.c (nested shells and the other rules above),
 * shell_wrap.c (the wrappers and the programs with small rules of their
 * own, where a new one is added) and shell_git.c (git's own rules).
 *
 * Ownership: roz_shell_parse() fills a caller-provided result that is
 * released with roz_shell_result_dispose().
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

/* Kinds of text in a word that the shell computes when the line runs. */
enum {
	ROZ_SHELL_PART_EXPANSION = 1u << 0, /* $x, ${x...}, $(...), `...`, $((...)), <(...) */
	ROZ_SHELL_PART_GLOB = 1u << 1,      /* unquoted *, ? or [...] */
	ROZ_SHELL_PART_BRACE = 1u << 2,     /* unquoted {a,b} or {1..3} */
	ROZ_SHELL_PART_FED = 1u << 3,       /* filled in by xargs -I or parallel */
	ROZ_SHELL_PART_FOUND = 1u << 4      /* a `{}` find -exec fills with each path it finds */
};

typedef struct roz_shell_word {
	size_t known;      /* bytes before the first computed part; the word's length when none */
	size_t known_home; /* the same, counting a leading $HOME or ${HOME} as known */
	unsigned parts;    /* ROZ_SHELL_PART_* the word holds */
} roz_shell_word;

typedef struct roz_shell_cmd {
	char **words;   /* normalized words; words[0] is the command name */
	size_t nwords;
	char *line;     /* words joined by single spaces */
	unsigned depth; /* 0 at top level, +1 per substitution or nested shell */
	roz_shell_word *info; /* per word: what of it is known before the line runs */
	size_t known;         /* bytes of line known before it runs; strlen(line) when all */
	bool more_args;       /* arguments are appended at run time (xargs, parallel) */
	bool wrapper;         /* runs another command, reported after it */
	const char *why;      /* static text: why `known` stops short, when not a word's own text */
	const char *opaque;   /* static text: what it runs that the line does not show (a script
			       * file, a project's task, a git alias), or NULL */
} roz_shell_cmd;

/* A file a redirection writes. */
typedef struct roz_shell_redir {
	char *path;          /* the target word, quotes removed */
	roz_shell_word info;
	unsigned depth;
} roz_shell_redir;

typedef struct roz_shell_result {
	roz_shell_cmd *cmds; /* in the order they appear in the line */
	size_t ncmds, cap;
	unsigned flags;      /* ROZ_SHELL_DYNAMIC | ROZ_SHELL_UNPARSED */
	char *reason;        /* first reason for a flag, or NULL */
	roz_shell_redir *redirs; /* output redirections to files, in order */
	size_t nredirs, capredirs;
	char **names;        /* variables the line assigns (NAME=, export, read, for, ...) */
	size_t nnames, capnames;
} roz_shell_result;

/*
 * Parse `len` bytes of a shell line. Returns ROZ_OK (even when flags are
 * set: what could be found is still reported) or ROZ_ENOMEM.
 */
int roz_shell_parse(const char *text, size_t len, roz_shell_result *out);
void roz_shell_result_dispose(roz_shell_result *res);

/* True when the line assigns variable `name` somewhere. */
bool roz_shell_assigns(const roz_shell_result *res, const char *name);

#ifdef __cplusplus
}
#endif

#endif
