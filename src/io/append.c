/*
 * append.c - one whole line added to a file that many processes append to
 * at once (roz/append.h): the governance ledger, the shared lessons and
 * the sessions' traces.
 *
 * Each line lands with a single write(2) on an O_APPEND descriptor while
 * an exclusive flock(2) is held on the file itself. O_APPEND alone keeps
 * a regular file's writes from overwriting each other, but a write larger
 * than the kernel does at once, or one cut by a signal, could then be
 * split by another writer's; the lock keeps every line whole. Writers only
 * ever append; a file rewritten whole (roz ledger compact) is renamed over
 * its name while the rewriter holds the lock, and a writer that was waiting
 * for the lock then opens the name again, so its line lands in the new file.
 */
#include "roz/append.h"
#include "roz/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/*
 * Take the exclusive lock, polling as the session store does: a blocking
 * flock could wait forever on a holder that hangs, and a hook must answer.
 */
/* Times the name is opened again because the file was replaced while this writer waited for its lock. */
#define REOPEN_MAX 8

static int lock_bounded(int fd, const char *path, uint32_t timeout_ms)
{
	int64_t deadline = roz_clock_monotonic_ms() + timeout_ms;
	unsigned delay = 1;

	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			roz_error_set_errno(errno, "cannot lock '%s'", path);
			return ROZ_EIO;
		}
		if (roz_clock_monotonic_ms() >= deadline) {
			roz_error_set("timed out after %u ms waiting for the lock on '%s'", (unsigned)timeout_ms,
				      path);
			return ROZ_ETIMEOUT;
		}
		roz_clock_sleep_ms(delay);
		if (delay < 8)
			delay *= 2;
	}
	return ROZ_OK;
}

/* Whether the file's last byte is something other than "\n": a line a crash cut short. */
static int torn_tail(int fd, const char *path, bool *torn)
{
	struct stat st;
	char last;
	ssize_t n;

	*torn = false;
	/* measured under the lock: nobody appends between this look and our write */
	if (fstat(fd, &st) < 0) {
		roz_error_set_errno(errno, "cannot read '%s'", path);
		return ROZ_EIO;
	}
	if (st.st_size == 0)
		return ROZ_OK;
	do
		n = pread(fd, &last, 1, st.st_size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		roz_error_set_errno(errno, "cannot read the end of '%s'", path);
		return ROZ_EIO;
	}
	*torn = n == 1 && last != '\n';
	return ROZ_OK;
}

int roz_append_line(const char *path, const char *line, size_t len, uint32_t lock_timeout_ms)
{
	roz_append_opts o = {lock_timeout_ms, false, 0644};

	return roz_append_lines(path, line, len, &o);
}

int roz_append_lines(const char *path, const char *line, size_t len, const roz_append_opts *opts)
{
	static const roz_append_opts shared = {500, false, 0644};
	static char newline[] = "\n";
	struct iovec iov[2];
	size_t want;
	struct stat st;
	bool torn = false;
	ssize_t n;
	int fd, rc, reopened = 0;

	if (!path || !line || len == 0 || line[len - 1] != '\n') {
		roz_error_set("appended lines must end in a newline");
		return ROZ_EINVALID;
	}
	/*
	 * Read and write: the last byte is read to see a torn tail. Not
	 * following a link, not blocking on a FIFO planted at the name, and not
	 * making a terminal ours.
	 */
	if (!opts)
		opts = &shared;
again:
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
		  opts->mode ? (mode_t)opts->mode : 0644);
	if (fd < 0) {
		int err = errno;

		if (err == ELOOP || err == EISDIR || err == ENXIO || err == EOPNOTSUPP) {
			roz_error_set_errno(err, "'%s' is not a regular file", path);
			return ROZ_EINVALID;
		}
		roz_error_set_errno(err, "cannot open '%s'", path);
		return ROZ_EIO;
	}
	if (fstat(fd, &st) < 0) {
		roz_error_set_errno(errno, "cannot open '%s'", path);
		rc = ROZ_EIO;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		roz_error_set("'%s' is not a regular file", path);
		rc = ROZ_EINVALID;
		goto out;
	}
	if (!opts->unlocked && (rc = lock_bounded(fd, path, opts->lock_timeout_ms)) < 0)
		goto out;
	/*
	 * A file rewritten whole (roz ledger compact) is renamed over the name
	 * while its writer holds the lock: a line appended to the file we opened
	 * before that would be lost with it. Under the lock the name is what
	 * this writer appends to, or it opens the name again.
	 */
	if (!opts->unlocked) {
		struct stat now;

		if (lstat(path, &now) == 0 && (now.st_ino != st.st_ino || now.st_dev != st.st_dev)) {
			(void)flock(fd, LOCK_UN);
			close(fd);
			if (++reopened <= REOPEN_MAX)
				goto again;
			roz_error_set("'%s' was replaced each time it was opened; nothing was appended", path);
			return ROZ_EIO;
		}
	}
	if ((rc = torn_tail(fd, path, &torn)) < 0)
		goto unlock;
	/* the healing newline goes in the same write: a crash now cannot add a second tear */
	iov[0].iov_base = newline;
	iov[0].iov_len = torn ? 1 : 0;
	iov[1].iov_base = (void *)(uintptr_t)line; /* writev only reads it */
	iov[1].iov_len = len;
	want = iov[0].iov_len + len;
	do
		n = writev(fd, iov, 2);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		roz_error_set_errno(errno, "cannot append to '%s'", path);
		rc = ROZ_EIO;
	} else if ((size_t)n != want) {
		/*
		 * Not finished here: what landed is a torn tail the next append
		 * heals, and a second write would no longer be one record's.
		 */
		roz_error_set("'%s': only %zd of %zu bytes were appended", path, n, want);
		rc = ROZ_EIO;
	}
unlock:
	if (!opts->unlocked)
		(void)flock(fd, LOCK_UN);
out:
	close(fd);
	return rc;
}
