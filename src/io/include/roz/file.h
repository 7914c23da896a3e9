/*
 * roz/file.h - reading a whole file through a descriptor its caller opened.
 *
 * Opening stays with the caller, because what may be opened differs: the
 * store refuses links, FIFOs and strangers' files, the config loader
 * refuses directories. What is left is the same everywhere: read to the
 * end, retry when a signal interrupts, stop at a size limit, keep the text
 * NUL-terminated.
 */
#ifndef ROZ_FILE_H
#define ROZ_FILE_H

#include <sys/stat.h>

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Read `fd` (borrowed, left open) to its end. `size_hint` is the size the
 * caller expects (from fstat), or 0; the first allocation is made to fit
 * it. On ROZ_OK *text is the contents, NUL-terminated (caller frees), and
 * *len its length; a file may hold NUL bytes, so *len is what counts.
 * Otherwise *text is NULL and the return is ROZ_ENOMEM, ROZ_EIO (a read
 * failed; errno is the read's) or ROZ_EINVALID (more than `max` bytes).
 * The message set for the last two does not name the file: a caller that
 * knows what the file is for says so.
 */
int roz_file_read_fd(int fd, size_t size_hint, size_t max, char **text, size_t *len) ROZ_WARN_UNUSED;

/*
 * Read the regular file at `path` whole, at most `max` bytes. It is opened
 * non-blocking (a FIFO planted in its place must not hang a hook), with
 * `flags` added (O_NOFOLLOW, say). ROZ_OK with *text and *len as above;
 * ROZ_ENOTFOUND when there is no such file; ROZ_EINVALID when it is not a
 * regular file or is larger than `max`; ROZ_EIO; ROZ_ENOMEM. Messages name
 * the path.
 */
int roz_file_read_path(const char *path, int flags, size_t max, char **text, size_t *len) ROZ_WARN_UNUSED;

/*
 * Open `path` to read, as roz_file_read_path does (O_NONBLOCK, so a FIFO
 * planted at the name cannot hold the caller; `flags` added), and make
 * sure it is a regular file: ROZ_OK with *fd and *st, ROZ_ENOTFOUND,
 * ROZ_EINVALID (not a regular file) or ROZ_EIO, the reason in
 * roz_error_last() naming the path.
 */
int roz_file_open_regular(const char *path, int flags, int *fd, struct stat *st) ROZ_WARN_UNUSED;

/* The same, and the owner of the file read in *owner (when ROZ_OK). */
int roz_file_read_path_owned(const char *path, int flags, size_t max, char **text, size_t *len,
			     unsigned long *owner) ROZ_WARN_UNUSED;

/*
 * Write all `len` bytes to `fd`, retrying short writes and signals. ROZ_OK,
 * or ROZ_EIO with errno the failed write's (a write of 0 bytes is EIO); the
 * caller names the file.
 */
int roz_file_write_all(int fd, const char *data, size_t len) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
