/*
 * roz/gate.h - what a tool call is, as far as roz's gates are concerned.
 *
 * Gates are glob patterns (see roz/glob.h) over tool keys: the tool's name
 * (`Edit`, `mcp__tissue__close_issue`) or, for Bash, `Bash:<command>` for
 * every simple command the line would run, found by the shell lexer
 * (roz/shell.h). The first pattern that matches any of them wins.
 *
 * The same look at the call also tells whether it runs roz's own `decide`
 * or `hook` commands, and whether a Bash line could not be read with
 * certainty while Bash gates are configured: a dynamic command word, text
 * that does not parse, or a command whose later words are computed when it
 * runs and could then match a gate (`git $a`, `git pus[h]`, `echo push |
 * xargs git`).
 *
 * A line can also run more than its text shows: a script file, an
 * interpreter's program, a project's task, a git alias. Such a line is
 * free in itself; while a gate has denied the agent something and no review
 * has approved it, it is the likeliest way around the gate, so the hook
 * asks about it then (a detour, see roz_gate_detour_window()).
 *
 * Writes to roz's storage. The agent has no route to the store: a file tool
 * aimed there, and a Bash line that writes or deletes there (rm, mv, cp,
 * truncate, tee, dd of=, ln, sed -i, chmod, a redirection, ...), are denied.
 * Judging that takes two steps, because the second needs the file system:
 *
 *   roz_gate_check()        reads the call: the paths it writes, how, and
 *                           the directories a Bash line moves into; for a
 *                           file tool, or a Bash line a gate matched, sets
 *                           touches_store when that is certain from the
 *                           text alone (an absolute path, `..` folded);
 *   roz_gate_check_store()  resolves those paths against the hook's cwd,
 *                           the home directory and symbolic links (through
 *                           roz_path_fs) and says DENY (it lies under the
 *                           store), ASK (where it lies is known only at run
 *                           time, and it could be there) or NONE.
 *
 * Reads of the store (`cat`, `roz context`, the Read tool) stay allowed.
 *
 * Approvals. A call a gate matches goes through while the session holds an
 * approval (roz_gate_approved): a COMPLETE that counts (roz/decide.h),
 * within approval_ttl_seconds, and still valid for the approval scope.
 *
 * Ownership: a roz_gate_match owns its strings; roz_gate_match_dispose()
 * releases them.
 */
#ifndef ROZ_GATE_H
#define ROZ_GATE_H

#include "roz/config.h"
#include "roz/path.h"
#include "roz/session.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* Longest tool key kept for display; matching always uses the whole command. */
#define ROZ_MAX_KEY_DISPLAY 200

enum {
	ROZ_RUNS_DECIDE = 1u << 0, /* the call runs `roz decide` */
	ROZ_RUNS_HOOK = 1u << 1    /* the call runs `roz hook` */
};

/* How a write reaches a path. */
enum {
	ROZ_WRITE_TREE = 1u << 0,    /* removes, moves or changes it with all beneath (rm, mv, chmod) */
	ROZ_WRITE_NOFOLLOW = 1u << 1 /* acts on a final symbolic link itself, not where it points */
};

typedef struct roz_gate_write {
	char *path;     /* as written, quotes removed; may start with ~ or $HOME */
	size_t known;   /* bytes of path known before the line runs (strlen(path) when all) */
	unsigned parts; /* ROZ_SHELL_PART_* in the rest */
	unsigned how;   /* ROZ_WRITE_* */
	char *by;       /* the command or redirection that writes it, for messages */
} roz_gate_write;

typedef struct roz_gate_match {
	bool matched;
	char *tool_key;     /* the key that matched, shortened for display */
	char *pattern;      /* the pattern it matched */
	char *unsure;       /* why a Bash line could not be read, when Bash gates exist */
	char *opaque;       /* what a Bash line runs that roz cannot see through (a script, an
			     * interpreter's program, a project's task), when Bash gates exist */
	unsigned roz_runs;  /* ROZ_RUNS_* */
	bool touches_store; /* a write certainly aimed inside roz's storage, from the text alone */
	roz_gate_write *writes; /* what the call writes or deletes */
	size_t nwrites, capwrites;
	char **dirs;        /* directories a Bash line may cd into, as written (cwd aside) */
	size_t ndirs, capdirs;
	bool dir_unknown;   /* a cd to a place known only at run time */
	bool home_unknown;  /* the line assigns HOME, so `~` is not the user's home */
} roz_gate_match;

typedef enum roz_gate_store_verdict {
	ROZ_GATE_STORE_NONE, /* nothing the call writes lies under the store */
	ROZ_GATE_STORE_ASK,  /* something could, depending on what is known only at run time */
	ROZ_GATE_STORE_DENY  /* something does */
} roz_gate_store_verdict;

void roz_gate_match_dispose(roz_gate_match *m);

/*
 * Look at a tool call. ROZ_OK (with m filled in) or ROZ_ENOMEM. Needs the
 * config for the gate patterns and the storage path, and the hook's working
 * directory (NULL if unknown) for relative paths.
 */
int roz_gate_check(const roz_config *config, const char *tool_name, const struct cJSON *tool_input,
		   const char *cwd, roz_gate_match *m) ROZ_WARN_UNUSED;

/*
 * Judge the writes roz_gate_check() found against config->storage_path. fs
 * gives the home directory and symbolic links (NULL: neither is known, so
 * `~` is asked about and links are not followed). *why (a buffer of
 * why_size bytes) names the write behind an ASK or DENY. ROZ_OK or ROZ_ENOMEM.
 */
int roz_gate_check_store(const roz_gate_match *m, const roz_config *config, const char *cwd,
			 const roz_path_fs *fs, roz_gate_store_verdict *verdict, char *why,
			 size_t why_size) ROZ_WARN_UNUSED;

/*
 * True when the session holds an approval for gated calls right now: a
 * COMPLETE that counts, recorded within approval_ttl_seconds, and valid for
 * the scope (`session`: always; `tool`: until the call it lets through,
 * which the caller consumes; `prompt`: no user prompt since, prompts that
 * arrived while the review ran excepted).
 */
bool roz_gate_approved(const roz_session *s, const roz_config *config, roz_time now);

/*
 * True while a gate's denial is pending: the session's gate trigger belongs
 * to the review cycle under way, no verdict that counts has approved it,
 * and the circuit breaker is not letting gated calls through. A line that
 * could run a gated command out of roz's sight is asked about then.
 */
bool roz_gate_detour_window(const roz_session *s, const roz_config *config, roz_time now);

#ifdef __cplusplus
}
#endif

#endif
