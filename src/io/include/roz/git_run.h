/*
 * roz/git_run.h - asking git about a repository, safely.
 *
 * roz runs git for what only git knows well (is this file as committed?
 * what did the index hold?). The repository's own configuration is the
 * agent's to change, so each run switches off what could make git start a
 * program or write: `--no-optional-locks` (no index refresh written),
 * `--literal-pathspecs` (a path is a path, never a pattern or magic),
 * `core.fsmonitor=false`, `core.untrackedCache=false`; commands that could
 * show a diff are given `--no-ext-diff --no-textconv` by their callers.
 * Standard input is /dev/null and what git says on stderr is dropped.
 */
#ifndef ROZ_GIT_RUN_H
#define ROZ_GIT_RUN_H

#include <stdint.h>

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Run `git --no-optional-locks ... -C <root> <args>`, with `in` (inlen
 * bytes; NULL: /dev/null) on its standard input, and collect what it writes
 * on stdout into *text (NUL-terminated, *len bytes without the NUL; free
 * with roz_free), at most `max` bytes. `in` is written whole before the
 * output is read: keep it under a pipe's capacity (64 KiB on Linux), so
 * writing it never waits on git. ROZ_OK when git ran and exited 0 within
 * the bound; ROZ_EIO otherwise (git missing, failed, or said more than
 * `max`; roz_error_last says which; *text NULL); ROZ_ENOMEM.
 */
int roz_git_output(const char *root, const char *const *args, size_t nargs, const char *in, size_t inlen,
		   size_t max, char **text, size_t *len) ROZ_WARN_UNUSED;

/* What a run may add to roz_git_output's. */
typedef struct roz_git_opts {
	/*
	 * "NAME=value" settings for git's environment, each replacing any
	 * setting of NAME roz itself was given (GIT_INDEX_FILE, say); NULL: none.
	 */
	const char *const *env;
	size_t nenv;
	/* the longest git may take, in milliseconds; then it is killed (ROZ_ETIMEOUT); 0: no bound */
	uint32_t timeout_ms;
} roz_git_opts;

/* roz_git_output with `o` (NULL: as roz_git_output); ROZ_ETIMEOUT when git ran out of time. */
int roz_git_run(const char *root, const roz_git_opts *o, const char *const *args, size_t nargs, const char *in,
		size_t inlen, size_t max, char **text, size_t *len) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
