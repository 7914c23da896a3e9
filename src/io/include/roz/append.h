/*
 * roz/append.h - append-only files that many processes write at once: the
 * governance ledger, the shared lessons file and the sessions' traces.
 *
 * roz_append_line() adds one whole line with one write(2) to a file opened
 * with O_APPEND, under an exclusive flock(2) on the file itself, so
 * parallel hooks, subagents and sessions never interleave or tear each
 * other's lines. A crash can still leave a last line without its "\n" (a
 * torn tail): the next append sees it and starts its own line on a fresh
 * one, and readers skip a line that does not parse. A file is never
 * rewritten or truncated here. A caller that already keeps other writers
 * out (a session's trace, under the session's lock) may skip the flock.
 *
 * The file must be a regular file (a symbolic link, FIFO or device in its
 * place is refused, without blocking); it is created 0644 when missing, in
 * a directory that must exist.
 */
#ifndef ROZ_APPEND_H
#define ROZ_APPEND_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Append `line` (len bytes, ending in "\n") to `path`. Waits at most
 * lock_timeout_ms for the lock. ROZ_OK, ROZ_EINVALID (not a regular file,
 * or the line holds no final "\n"), ROZ_ETIMEOUT (the lock stayed taken),
 * ROZ_EIO (open, write or lock failed; roz_error_last says which, and what
 * was written of the line, if anything, is a torn tail the next append
 * heals) or ROZ_ENOMEM.
 */
int roz_append_line(const char *path, const char *line, size_t len, uint32_t lock_timeout_ms) ROZ_WARN_UNUSED;

/* How roz_append_lines() writes. */
typedef struct roz_append_opts {
	uint32_t lock_timeout_ms; /* the longest wait for the flock */
	bool unlocked;            /* the caller keeps every other writer out: no flock is taken */
	unsigned mode;            /* permissions of a file it creates (0644 when 0) */
} roz_append_opts;

/*
 * Append `len` bytes of whole lines (the last ending in "\n") with one
 * write(2), as roz_append_line() does for one; NULL opts are
 * roz_append_line's with a 500 ms wait. The same answers.
 */
int roz_append_lines(const char *path, const char *lines, size_t len,
		     const roz_append_opts *opts) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
