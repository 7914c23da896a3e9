/*
 * lines.c - a file read line by line through one block of memory
 * (roz/lines.h).
 *
 * The buffer holds the bytes of the file from `base` on: [0, pos) are lines
 * already returned, [pos, len) what is not returned yet, of which [pos,
 * scan) is known to hold no "\n". A line that has not ended when the block
 * runs out is moved to the front and the next block read after it, so the
 * buffer never holds more than one block and one line of max_line bytes.
 */
#include "roz/lines.h"
#include "roz/file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINES_BLOCK (1024u * 1024u)

struct roz_lines {
	int fd;
	char *path;        /* for messages */
	size_t max_line;
	size_t block;
	uint64_t size;     /* the file's size when opened: nothing past it is read */
	char *buf;
	size_t cap, len, pos, scan;
	uint64_t base;     /* file offset of buf[0] */
	char *again;       /* roz_lines_at's line */
	size_t again_cap;
};

int roz_lines_open(const char *path, size_t max_line, roz_lines **out)
{
	struct stat st;
	roz_lines *l;
	int fd, rc;

	*out = NULL;
	if ((rc = roz_file_open_regular(path, 0, &fd, &st)) != ROZ_OK)
		return rc;
	l = roz_calloc(1, sizeof(*l));
	if (!l || !(l->path = roz_strdup(path))) {
		roz_free(l);
		close(fd);
		return ROZ_ENOMEM;
	}
	l->fd = fd;
	l->max_line = max_line;
	l->block = LINES_BLOCK;
	l->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	*out = l;
	return ROZ_OK;
}

void roz_lines_set_block(roz_lines *l, size_t block)
{
	l->block = block ? block : 1;
}

uint64_t roz_lines_size(const roz_lines *l)
{
	return l->size;
}

void roz_lines_close(roz_lines *l)
{
	if (!l)
		return;
	close(l->fd);
	roz_free(l->path);
	roz_free(l->buf);
	roz_free(l->again);
	roz_free(l);
}

/* pread until `want` bytes or the end of the file; *got is what was read. */
static int read_at(roz_lines *l, char *into, size_t want, uint64_t at, size_t *got)
{
	*got = 0;
	while (*got < want) {
		ssize_t n = pread(l->fd, into + *got, want - *got, (off_t)(at + *got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			roz_error_set_errno(errno, "%s: read failed", l->path);
			return ROZ_EIO;
		}
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return ROZ_OK;
}

/*
 * Read the next block after what the buffer holds, moving what is not
 * returned yet to the front first. *got is 0 at the end of the file (as it
 * was when opened).
 */
static int fill(roz_lines *l, size_t *got)
{
	uint64_t next = l->base + l->len;
	size_t want = l->block;
	int rc;

	*got = 0;
	if (next >= l->size)
		return ROZ_OK;
	if (l->size - next < want)
		want = (size_t)(l->size - next);
	if (l->pos) {
		memmove(l->buf, l->buf + l->pos, l->len - l->pos);
		l->base += l->pos;
		l->len -= l->pos;
		l->scan -= l->pos;
		l->pos = 0;
	}
	/* one byte more for the NUL that follows a returned line */
	if (l->cap - l->len < want + 1) {
		size_t cap = l->len + want + 1;
		char *p = roz_realloc(l->buf, cap);

		if (!p)
			return ROZ_ENOMEM;
		l->buf = p;
		l->cap = cap;
	}
	rc = read_at(l, l->buf + l->len, want, next, got);
	if (rc < 0)
		return rc;
	/* a file that shrank since the open ends here */
	if (*got < want)
		l->size = next + *got;
	l->len += *got;
	return ROZ_OK;
}

/*
 * The rest of a line longer than max_line, which starts at l->pos: read on
 * through blocks without keeping them, to its "\n" or the end of the file.
 */
static int skip_long(roz_lines *l, size_t *len, bool *ended)
{
	uint64_t count = l->len - l->pos;

	for (;;) {
		const char *nl;
		size_t got;
		int rc;

		/* nothing of the line is kept: the whole buffer is free for the next block */
		l->base += l->len;
		l->len = l->pos = l->scan = 0;
		rc = fill(l, &got);
		if (rc < 0)
			return rc;
		if (!got) {
			*len = (size_t)count;
			*ended = false;
			return ROZ_OK;
		}
		nl = memchr(l->buf, '\n', l->len);
		if (nl) {
			count += (uint64_t)(nl - l->buf);
			l->pos = l->scan = (size_t)(nl - l->buf) + 1;
			*len = (size_t)count;
			*ended = true;
			return ROZ_OK;
		}
		count += l->len;
	}
}

int roz_lines_next(roz_lines *l, const char **line, size_t *len, uint64_t *offset, bool *ended)
{
	*line = NULL;
	*len = 0;
	*offset = 0;
	*ended = false;
	for (;;) {
		char *nl = l->scan < l->len ? memchr(l->buf + l->scan, '\n', l->len - l->scan) : NULL;
		size_t got;
		int rc;

		if (nl) {
			size_t n = (size_t)(nl - (l->buf + l->pos));

			*offset = l->base + l->pos;
			*len = n;
			*ended = true;
			if (n <= l->max_line) {
				*nl = '\0';
				*line = l->buf + l->pos;
			}
			l->pos = l->scan = (size_t)(nl - l->buf) + 1;
			return ROZ_OK;
		}
		l->scan = l->len;
		if (l->len - l->pos > l->max_line) {
			*offset = l->base + l->pos;
			return skip_long(l, len, ended);
		}
		rc = fill(l, &got);
		if (rc < 0)
			return rc;
		if (!got)
			break;
	}
	if (l->pos == l->len)
		return ROZ_ENOTFOUND;
	/* the last line, without its "\n": fill() left room for the NUL */
	*offset = l->base + l->pos;
	*len = l->len - l->pos;
	l->buf[l->len] = '\0';
	*line = l->buf + l->pos;
	l->pos = l->scan = l->len;
	return ROZ_OK;
}

int roz_lines_at(roz_lines *l, uint64_t offset, size_t len, const char **line)
{
	size_t got;
	int rc;

	*line = NULL;
	if (len > l->max_line) {
		roz_error_set("%s: a line of %zu bytes is longer than %zu", l->path, len, l->max_line);
		return ROZ_EINVALID;
	}
	if (l->again_cap < len + 1) {
		char *p = roz_realloc(l->again, len + 1);

		if (!p)
			return ROZ_ENOMEM;
		l->again = p;
		l->again_cap = len + 1;
	}
	rc = read_at(l, l->again, len, offset, &got);
	if (rc < 0)
		return rc;
	if (got < len) {
		roz_error_set("%s: shorter than when it was opened (replaced or truncated?)", l->path);
		return ROZ_EIO;
	}
	l->again[len] = '\0';
	*line = l->again;
	return ROZ_OK;
}
