/*
 * roz/append.h - append-only files that many processes write at once: the
 * governance ledger and the shared lessons file.
 *
 * roz_append_line() adds one whole line with one write(2) to a file opened
 * with O_APPEND, under an exclusive flock(2) on the file itself, so
 * parallel hooks, subagents and sessions never interleave or tear each
 * other's lines. A crash can still leave a last line without its "\n" (a
 * torn tail): the next append sees it and starts its own line on a fresh
 * one, and readers skip a line that does not parse. A file is never
 * rewritten or truncated here.
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

#ifdef __cplusplus
}
#endif

#endif
