/*
 * trace_file.h - a session's trace as the file store keeps it: one event per
 * line in <id>.trace.jsonl beside the state file, appended to under the
 * session's lock and rewritten only to compact it. Private to the store.
 */
#ifndef ROZ_TRACE_FILE_H
#define ROZ_TRACE_FILE_H

#include <sys/types.h>

#include "roz/session.h"

/* The suffix of a trace file after the session id. */
#define ROZ_TRACE_FILE_SUFFIX ".trace.jsonl"

/*
 * The events of the trace file at `path`, oldest first, into a new array
 * (*ev, *n; the caller frees each text and the array). A line that is not a
 * JSON object, and a last line without its "\n" (a torn tail), are left
 * out. No file: ROZ_OK and none. The file must be a regular file owned by
 * `owner` or `dir_owner`; ROZ_EIO with the reason otherwise, or when it
 * cannot be read; ROZ_ENOMEM.
 */
int roz_trace_file_read(const char *path, uid_t owner, uid_t dir_owner, roz_trace_entry **ev,
			size_t *n) ROZ_WARN_UNUSED;

/* Free what roz_trace_file_read handed out (NULL is a no-op). */
void roz_trace_file_entries_free(roz_trace_entry *ev, size_t n);

/* Append the events' lines, as the file holds them (each text and a "\n"), to `b`. */
int roz_trace_file_lines(const roz_trace_entry *ev, size_t n, roz_buf *b) ROZ_WARN_UNUSED;

/*
 * Append `len` bytes of such lines with one write(2) (roz/append.h: a torn
 * tail a crash left is healed in the same write), creating the file 0600.
 * Nothing is allocated, so once the lines are made only the file can fail.
 * A caller holding the session's lock (`locked`) keeps other writers out;
 * without it the file's own flock does. ROZ_OK (also for no lines),
 * ROZ_EINVALID (not a regular file), ROZ_ETIMEOUT or ROZ_EIO.
 */
int roz_trace_file_append(const char *path, const char *lines, size_t len, bool locked) ROZ_WARN_UNUSED;

/*
 * Replace the file at `path` with exactly these events: written to `fd`, a
 * temp file `tmp` the caller created afresh (this closes it), synced when
 * `fsync`, renamed over `path`. A reader sees the old file or the new one.
 * ROZ_OK, ROZ_EIO or ROZ_ENOMEM (the old file stays, the temp file goes).
 */
int roz_trace_file_replace(int fd, const char *tmp, const char *path, const roz_trace_entry *ev, size_t n,
			   bool fsync) ROZ_WARN_UNUSED;

#endif
