/*
 * roz/effect.h - what a tool call can change, and where.
 *
 * Governance lets a call through freely only when it changes nothing; a
 * call that changes files needs a selected intent, and the files it names
 * must lie in that intent's scope. This module answers the two questions
 * for one PreToolUse call, from the tool name and, for Bash, from what the
 * shell reader found in the line (roz/shell.h).
 *
 * Tools. Write, Edit, MultiEdit and NotebookEdit write the file their input
 * names (roz_effect_path_field() says which field). Bash is judged line by
 * line below. Every other tool is read-only here: Read, Glob, Grep, LS,
 * WebFetch, WebSearch, TodoWrite, Agent/Task, ExitPlanMode, BashOutput,
 * KillShell, the MCP resource tools, and tools roz does not know. MCP tools
 * (`mcp__server__tool`) are outside governance: what a server does is not
 * visible to roz, and gates (`review.gates.tools`) are the way to hold them.
 *
 * Bash lines. A line is read-only only when every command in it is on the
 * list below with arguments that keep it so, and nothing is redirected to a
 * file. The reader's wrappers (sudo, env, timeout, xargs, ...) are not
 * judged themselves: the command they run is (find is the exception: its
 * own -delete and -fprint write). A line the reader marks dynamic or
 * unparsed is opaque, with the reader's reason.
 *
 *   read-only whatever the arguments: ls, cat, head, tail, more, grep,
 *     egrep, fgrep, ag, wc, cut, tr, diff, cmp, comm, stat, du, df, pwd,
 *     echo, printf, true, false, test, [, which, type, whoami, id, uname,
 *     basename, dirname, realpath, readlink, jq, od, hexdump, md5sum,
 *     sha*sum, b2sum, cksum, nl, rev, seq, sleep, cd, pushd, popd, printenv,
 *     tac, paste, join, fold, fmt, strings, base64, zcat, zipinfo, ps,
 *     pgrep, uptime, free, top, vmstat, netstat, who, lsblk, lscpu, ...,
 *     roz (roz's own store is not the repository);
 *   read-only unless an argument writes: find (-delete deletes under its
 *     starting points, -fprint, -fprintf and -fls write a file), sort (-o writes,
 *     --compress-program runs a program), uniq (a second operand is its
 *     output), sed (-i/--in-place writes its files; a `w` command or `s///w`
 *     writes a file; `e` runs commands), awk (only a static program with no
 *     `>`, `|` or `system`), yq (-i), xxd (a second operand is its output),
 *     tree (-o), less (-o/-O), rg (--pre runs a program), file (-C),
 *     date (-s), hostname (no operands), time (-o), tar (only -t/--list and
 *     -d/--diff, with options from a list; -I, -F, --to-command,
 *     --checkpoint-action, ... run programs, `-f host:file` a remote shell),
 *     unzip (only -l, -v, -t, -z, -Z, -p, -c), lsof (-D), ss (-K closes
 *     sockets, -D writes), git with a reading
 *     subcommand (status, log, diff, show, blame, grep, rev-parse, ls-files,
 *     ls-tree, cat-file, describe, shortlog, merge-base, reflog [show], the
 *     listing forms of branch, tag, remote, stash and worktree,
 *     config --get/--list, and a few more; `--output=` writes a file). In
 *     these commands a word computed at run time could be one of the writing
 *     options, so it makes the command opaque.
 *   read-only subcommands of programs that have them (src/gov/
 *     effect_programs.c has the tables): docker ps|images|logs|inspect|...,
 *     docker image|container|volume|network ls|inspect, docker compose
 *     ps|logs|config (not -o); kubectl get|describe|logs|explain|top|
 *     config view|...; gh pr|issue|run|repo|release view|list|...,
 *     gh api (not -X, -f, -F, --input); npm ls|view|outdated|audit|version
 *     (the last two without operands); pip list|show|freeze|check; go
 *     version|env (not -w, -u); cargo version; helm list|status|....
 *     Before the subcommand only the program's known global options may
 *     come (an unknown one could take the subcommand's word as its value),
 *     and options that write or run programs anywhere make it opaque
 *     (kubectl --kubeconfig, --cache-dir; docker --config; pip --log,
 *     --python; npm --cache; abbreviations too where the tool accepts them).
 *   help and versions: a known program with one word that only prints its
 *     help or version (python3 --version, cargo -V, make --help), and a
 *     known subcommand followed only by --help (docker rm --help,
 *     git commit --help).
 *   writes its operands: tee, sed -i, yq -i, cp/mv/install/ln (the
 *     destination: the last operand or -t; mv also removes its sources),
 *     rm, rmdir (with -p its parents too), unlink, shred, touch, mkdir,
 *     truncate, chmod/chown/chgrp (the operands after the mode or owner),
 *     dd of=, ss -D, git checkout -- paths / <tree-ish> -- paths / `.`,
 *     git restore (worktree), git rm, git mv, git clean (its paths, else
 *     the whole tree ".");
 *   opaque: everything else (make, make -n (its $(shell ...) and recipes
 *     with $(MAKE) run anyway), npm install, cargo build, python x.py,
 *     ./configure, patch, git commit/push/merge/switch/stash/worktree add/...,
 *     git checkout <branch>, docker rm, kubectl delete, gh pr merge, tar -x):
 *     it may change files the line does not show, so it runs under the
 *     selected intent without a scope check.
 *
 * Handed programs. A line that hands a program to what it runs is opaque,
 * however harmless its commands: git with `-c KEY=...` for a key outside a
 * short list of display settings (color.*, core.quotePath, diff.noprefix,
 * core.pager=cat, ...: core.pager, core.fsmonitor, core.sshCommand,
 * core.editor, diff.external, diff.<driver>.textconv, alias.*,
 * include.path, ... are not on it), `--config-env`, `--exec-path=DIR`,
 * `ls-remote --upload-pack/-u`, a `<transport>::` URL (ext:: runs a
 * command); and a variable set anywhere on the line (`NAME=v cmd`,
 * `export NAME=v`, `env NAME=v cmd`) that names a program or code to load:
 * GIT_EXTERNAL_DIFF, GIT_SSH(_COMMAND), GIT_PAGER, PAGER, GIT_EDITOR,
 * EDITOR, VISUAL, LESSOPEN, BASH_ENV, ENV, PATH, LD_*, GIT_CONFIG*,
 * KUBECONFIG, PYTHONPATH, NODE_OPTIONS, ... (effect_programs.c has the
 * list). The shell reader keeps no assignment's value, so `PAGER=cat` is
 * opaque too.

 * Targets. Output redirections to files are targets, except /dev/null,
 * /dev/stdout, /dev/stderr, /dev/tty and /dev/fd/N. A target is given as
 * written, quotes removed; `~/x` and `$HOME/x` stay as written for the
 * caller's roz_path_normalize(). A target computed when the line runs
 * (`> $f`, `cp a "$d"`, `xargs rm`) has path NULL and sets unknown_target;
 * so does a relative target in a line that also changes directory (cd,
 * pushd, popd, git -C, git --work-tree), and a target under `~` or $HOME in
 * a line that sets HOME, whose paths are kept. Options are
 * read as each tool reads them: combined short options (`-rf`), values
 * (`-t DIR`, `--target-directory=DIR`), and `--` ending them.
 *
 * Ownership: roz_effect_of_bash() fills a caller-provided roz_effect, which
 * owns its strings and is emptied with roz_effect_dispose().
 */
#ifndef ROZ_EFFECT_H
#define ROZ_EFFECT_H

#include "roz/common.h"
#include "roz/shell.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum roz_tool_kind {
	ROZ_TOOL_READS,       /* never changes files: Read, Glob, Grep, LS, WebFetch, WebSearch, TodoWrite,
	                         Agent/Task, ExitPlanMode, BashOutput, KillShell/KillBash, ListMcpResources...,
	                         and anything not listed below (MCP tools are outside governance) */
	ROZ_TOOL_WRITES_FILE, /* Write, Edit, MultiEdit, NotebookEdit: target from tool_input */
	ROZ_TOOL_BASH         /* Bash: judged with roz_effect_of_bash() */
} roz_tool_kind;

/* How the tool named `tool_name` can change files (NULL: ROZ_TOOL_READS). */
roz_tool_kind roz_effect_tool_kind(const char *tool_name);

/* The field of tool_input naming the file a file tool writes: "file_path" (Write/Edit/MultiEdit),
 * "notebook_path" (NotebookEdit); NULL for other tools. */
const char *roz_effect_path_field(const char *tool_name);

typedef struct roz_effect_target {
	char *path;       /* as written, quotes removed (relative to cwd or absolute); NULL when unknown */
	const char *how;  /* static text: "redirection", "tee", "sed -i", "cp", "mv", "rm", "touch", ... */
	bool placed;      /* the path says where the write lands (not relative after a cd, not under a
	                     HOME the line moves) */
} roz_effect_target;

typedef struct roz_effect {
	bool read_only;      /* every command is known to change no file and nothing else */
	bool opaque;         /* some command changes things the line does not show (make, npm install,
	                        python x.py, git commit, git push), or the line hands a program to what
	                        it runs (git -c core.pager=..., PAGER=...): it runs under the selected
	                        intent, no scope check */
	bool unknown_target; /* some write target is computed when the line runs (`> $f`, `cp a "$d"`),
	                        or relative after a `cd`/`pushd` in the same line: the caller asks */
	char *why;           /* first reason the line is not read-only, one short phrase ("make may write
	                        files", "writes src/a.c (redirection)"); NULL when read_only */
	roz_effect_target *targets; /* every file the line visibly writes or deletes, without repeats */
	size_t ntargets;
	char *select_id;     /* the id of a `roz intent select <ID>` command in the line, or NULL */
} roz_effect;

/*
 * Judge a parsed Bash line. `out` is overwritten (it need not be disposed
 * first). ROZ_OK, or ROZ_ENOMEM with `out` left empty.
 */
int roz_effect_of_bash(const roz_shell_result *sh, roz_effect *out);

/* Free what `e` holds and leave it empty; NULL is a no-op. */
void roz_effect_dispose(roz_effect *e);

#ifdef __cplusplus
}
#endif

#endif
