/*
 * trace_file.c - a session's trace as lines of JSON beside its state
 * (trace_file.h): read for the commands that show it, appended to by every
 * write, rewritten whole only when the store compacts it.
 */
#include "trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "roz/append.h"
#include "roz/file.h"
#include "roz/json.h"

/* A trace larger than this is not read (twice a cap of 100,000 large events fits). */
#define MAX_TRACE_FILE (256u * 1024u * 1024u)

void roz_trace_file_entries_free(roz_trace_entry *ev, size_t n)
{
	for (size_t i = 0; ev && i < n; i++)
		roz_free(ev[i].json);
	roz_free(ev);
}

/* Split the text into events: whole lines holding a JSON object. */
static int split(const char *text, size_t len, roz_trace_entry **out, size_t *n_out)
{
	roz_trace_entry *ev = NULL;
	size_t n = 0, cap = 0, start = 0;

	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len, k = end - start;

		/* no "\n" after it: a line a crash cut short */
		if (!nl)
			break;
		if (k && text[start] == '{' && roz_json_valid(text + start, k)) {
			char *copy = roz_strndup(text + start, k);

			if (!copy || roz_alloc_array_reserve((void **)&ev, &cap, sizeof(*ev), n + 1) < 0) {
				roz_free(copy);
				roz_trace_file_entries_free(ev, n);
				return ROZ_ENOMEM;
			}
			ev[n].json = copy;
			ev[n++].len = k;
		}
		start = end + 1;
	}
	*out = ev;
	*n_out = n;
	return ROZ_OK;
}

int roz_trace_file_read(const char *path, uid_t owner, uid_t dir_owner, roz_trace_entry **ev, size_t *n)
{
	unsigned long uid = 0;
	char *text = NULL;
	size_t len = 0;
	int rc = roz_file_read_path_owned(path, O_NOFOLLOW, MAX_TRACE_FILE, &text, &len, &uid);

	*ev = NULL;
	*n = 0;
	if (rc == ROZ_ENOTFOUND)
		return ROZ_OK;
	if (rc == ROZ_OK && uid != (unsigned long)owner && uid != (unsigned long)dir_owner) {
		roz_error_set("'%s' belongs to another user (uid %lu), not a trace roz wrote", path, uid);
		rc = ROZ_EIO;
	}
	if (rc == ROZ_OK)
		rc = split(text, len, ev, n);
	else if (rc == ROZ_EINVALID)
		rc = ROZ_EIO; /* not a file, or too large: not a trace this store reads */
	roz_free(text);
	return rc;
}

int roz_trace_file_lines(const roz_trace_entry *ev, size_t n, roz_buf *b)
{
	for (size_t i = 0; i < n; i++) {
		roz_buf_add(b, ev[i].json, ev[i].len);
		roz_buf_addc(b, '\n');
	}
	return roz_buf_failed(b);
}

int roz_trace_file_append(const char *path, const char *lines, size_t len, bool locked)
{
	roz_append_opts opts = {500, locked, 0600};

	return len ? roz_append_lines(path, lines, len, &opts) : ROZ_OK;
}

int roz_trace_file_replace(int fd, const char *tmp, const char *path, const roz_trace_entry *ev, size_t n,
			   bool fsync)
{
	roz_buf b = ROZ_BUF_INIT;
	int rc;

	if ((rc = roz_trace_file_lines(ev, n, &b)) < 0)
		goto out;
	if (roz_file_write_all(fd, b.ptr, b.len) < 0) {
		roz_error_set_errno(errno, "cannot write '%s'", tmp);
		rc = ROZ_EIO;
		goto out;
	}
	if (fsync && fdatasync(fd) < 0) {
		roz_error_set_errno(errno, "cannot sync '%s'", tmp);
		rc = ROZ_EIO;
		goto out;
	}
	rc = close(fd);
	fd = -1;
	if (rc < 0 || rename(tmp, path) < 0) {
		roz_error_set_errno(errno, rc < 0 ? "cannot write '%s'" : "cannot replace '%s'", rc < 0 ? tmp : path);
		rc = ROZ_EIO;
		goto out;
	}
	rc = ROZ_OK;
out:
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		(void)unlink(tmp);
	roz_buf_dispose(&b);
	return rc;
}
