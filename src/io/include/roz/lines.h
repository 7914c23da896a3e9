/*
 * roz/lines.h - reading a file of lines (the governance ledger, a JSON
 * Lines file) one line at a time, in memory that does not grow with it.
 *
 * A ledger can hold a million records, close to a gigabyte: a reader that
 * loads it whole needs that much memory and a size cap, past which it must
 * refuse. This reader holds one block of the file (1 MiB) and the line
 * being returned, never more than `max_line` bytes of it: a longer line is
 * counted and skipped as it streams past, so its caller can report it
 * without holding it. A line seen once can be read again by its offset
 * (roz_lines_at), which lets a caller keep offsets instead of lines.
 *
 * Lines end at "\n"; a "\r" before it stays part of the line, and NUL bytes
 * are part of a line like any other byte. The last line of a file need not
 * end in "\n" (a torn write): it is returned and says so. Blank lines are
 * returned like any other: what a blank line means is the caller's
 * business.
 *
 * The file is read as it was when opened: bytes appended after the open
 * (another process writing the ledger meanwhile) are not read, so a reader
 * sees a consistent prefix of an append-only file.
 */
#ifndef ROZ_LINES_H
#define ROZ_LINES_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roz_lines roz_lines;

/*
 * Open the regular file at `path` for reading line by line, keeping lines
 * of at most `max_line` bytes. It is opened non-blocking (a FIFO planted in
 * its place must not hang the reader) and refused when it is not a
 * regular file. ROZ_OK with *out to release with roz_lines_close();
 * ROZ_ENOTFOUND when there is no such file; ROZ_EINVALID (not a regular
 * file) or ROZ_EIO, roz_error_last() saying why and naming the path;
 * ROZ_ENOMEM. *out is NULL on failure.
 */
int roz_lines_open(const char *path, size_t max_line, roz_lines **out) ROZ_WARN_UNUSED;

/*
 * The next line. *line points into the reader's buffer, valid until the
 * next call on `l`, and is followed by a NUL byte (the line itself may hold
 * others, so *len is what counts); *len excludes the "\n"; *offset is the
 * line's first byte in the file; *ended is false for a last line without
 * "\n". A line longer than max_line is returned with *len its full length
 * and *line NULL: it was skipped without being held in memory. ROZ_OK;
 * ROZ_ENOTFOUND at the end of the file; ROZ_EIO (a read failed,
 * roz_error_last() names the path); ROZ_ENOMEM.
 */
int roz_lines_next(roz_lines *l, const char **line, size_t *len, uint64_t *offset, bool *ended) ROZ_WARN_UNUSED;

/*
 * Read again the `len` bytes at `offset` (a line roz_lines_next() gave,
 * len <= max_line), with pread(2): the streaming position is left as it is.
 * *line, NUL-terminated, is valid until the next call on `l`. ROZ_OK;
 * ROZ_EIO (a read failed, or the file is shorter than it was: it was
 * replaced or truncated); ROZ_EINVALID (len > max_line); ROZ_ENOMEM.
 */
int roz_lines_at(roz_lines *l, uint64_t offset, size_t len, const char **line) ROZ_WARN_UNUSED;

/* The file's size when it was opened: what roz_lines_next() reads to. */
uint64_t roz_lines_size(const roz_lines *l);

/*
 * The size of each read, 1 MiB unless set; call it before the first
 * roz_lines_next(). Tests make it a few bytes to put line ends at every
 * place a block can end.
 */
void roz_lines_set_block(roz_lines *l, size_t block);

/* Close the file and release the reader. NULL is accepted. */
void roz_lines_close(roz_lines *l);

#ifdef __cplusplus
}
#endif

#endif
