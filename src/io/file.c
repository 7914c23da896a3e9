/*
 * file.c - the one loop that reads a file to its end, shared by the config
 * loader, the template loader and the file store.
 */
#include "roz/file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Room kept free for the next read; a file that fits its hint ends in one read more. */
#define READ_ROOM 4096
#define READ_STEP 8192

int roz_file_read_fd(int fd, size_t size_hint, size_t max, char **text, size_t *len)
{
	roz_buf b = ROZ_BUF_INIT;

	*text = NULL;
	/* a hint beyond the limit is read only as far as the limit shows */
	if (size_hint > max)
		size_hint = max + 1;
	if (size_hint && !roz_buf_grow(&b, size_hint + 1))
		return ROZ_ENOMEM;
	for (;;) {
		ssize_t n;

		if (b.cap - b.len < READ_ROOM && !roz_buf_grow(&b, READ_STEP)) {
			roz_buf_dispose(&b);
			return ROZ_ENOMEM;
		}
		n = read(fd, b.ptr + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			roz_error_set_errno(err, "read failed");
			roz_buf_dispose(&b);
			errno = err;
			return ROZ_EIO;
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
		if (b.len > max) {
			roz_error_set("larger than %zu bytes", max);
			roz_buf_dispose(&b);
			return ROZ_EINVALID;
		}
	}
	b.ptr[b.len] = '\0'; /* the loop grew the buffer at least once */
	*text = roz_buf_detach(&b, len);
	return *text ? ROZ_OK : ROZ_ENOMEM;
}

int roz_file_open_regular(const char *path, int flags, int *fd, struct stat *st)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | flags);
	if (*fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			roz_error_set("%s: no such file", path);
			return ROZ_ENOTFOUND;
		}
		roz_error_set_errno(errno, "%s: cannot open", path);
		return ROZ_EIO;
	}
	if (fstat(*fd, st) < 0) {
		roz_error_set_errno(errno, "%s: cannot open", path);
	} else if (!S_ISREG(st->st_mode)) {
		roz_error_set("%s: not a regular file", path);
		close(*fd);
		*fd = -1;
		return ROZ_EINVALID;
	} else {
		return ROZ_OK;
	}
	close(*fd);
	*fd = -1;
	return ROZ_EIO;
}

int roz_file_read_path_owned(const char *path, int flags, size_t max, char **text, size_t *len,
			     unsigned long *owner)
{
	struct stat st;
	int fd, rc;

	*text = NULL;
	*len = 0;
	if ((rc = roz_file_open_regular(path, flags, &fd, &st)) != ROZ_OK)
		return rc;
	rc = roz_file_read_fd(fd, (size_t)st.st_size, max, text, len);
	if (rc == ROZ_EINVALID)
		roz_error_set("%s: larger than %zu bytes", path, max);
	else if (rc == ROZ_EIO)
		roz_error_prefix("%s", path);
	if (owner)
		*owner = (unsigned long)st.st_uid;
	close(fd);
	return rc;
}

int roz_file_read_path(const char *path, int flags, size_t max, char **text, size_t *len)
{
	return roz_file_read_path_owned(path, flags, max, text, len, NULL);
}

int roz_file_write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return ROZ_EIO;
		}
		data += n;
		len -= (size_t)n;
	}
	return ROZ_OK;
}
