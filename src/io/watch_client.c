/*
 * watch_client.c - the hooks' side of roz/watch.h: ask the watcher, start
 * one, read the note that says watching is off.
 */
#include "roz/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "roz/common.h"
#include "roz/file.h"
#include "watch_int.h"

extern char **environ;

/* An answer larger than this is not one the watcher sends (ANSWER_MAX picks of PATH_MAX at most, bounded). */
#define ANSWER_BYTES_MAX ((size_t)64 << 20)
#define NOTE_MAX 4096
/* A note that watching is off holds this long; a start, this long (the watcher may still be walking). */
#define OFF_FOR_NS (3600LL * 1000000000LL)
#define START_AGAIN_NS (10LL * 1000000000LL)

void roz_watch_answer_dispose(roz_watch_answer *a)
{
	if (!a)
		return;
	roz_free(a->picks);
	roz_free(a->pool);
	memset(a, 0, sizeof *a);
}

static int64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wait until fd is ready for `events`, at most until `deadline` (mono_ms). */
static bool wait_for(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd p = {fd, events, 0};
		int64_t left = deadline - mono_ms();
		int got;

		if (left <= 0)
			return false;
		got = poll(&p, 1, (int)left);
		if (got < 0 && errno == EINTR)
			continue;
		return got > 0;
	}
}

static bool same_user(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof cr;

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 && cr.uid == getuid();
}

int roz_watch_answer_parse(char *text, size_t len, roz_watch_answer *out)
{
	char *nl = memchr(text, '\n', len), *p, *end = text + len;
	unsigned long long id, gen;
	int known;
	size_t n, i = 0;

	memset(out, 0, sizeof *out);
	if (!nl)
		return ROZ_EIO;
	*nl = '\0';
	if (sscanf(text, "roz-watch 1 %llx %llu %d %zu", &id, &gen, &known, &n) != 4 || (known != 0 && known != 1) ||
	    n > len || (!known && n)) {
		*nl = '\n';
		return ROZ_EIO;
	}
	out->id = id;
	out->gen = gen;
	out->known = known == 1;
	if (n && !(out->picks = roz_calloc(n, sizeof *out->picks)))
		return ROZ_ENOMEM;
	for (p = nl + 1; i < n; i++) {
		char *z;

		if (p >= end || (*p != 'd' && *p != 's') || !(z = memchr(p + 1, '\0', (size_t)(end - p - 1))) ||
		    z == p + 1 || (i && strcmp(out->picks[i - 1].path, p + 1) >= 0)) {
			/* not a pick, or not after the last: not a watcher's answer */
			roz_free(out->picks);
			memset(out, 0, sizeof *out);
			*nl = '\n';
			return ROZ_EIO;
		}
		out->picks[i].deep = *p == 'd';
		out->picks[i].path = p + 1;
		p = z + 1;
	}
	if (p != end) {
		roz_free(out->picks);
		memset(out, 0, sizeof *out);
		*nl = '\n';
		return ROZ_EIO;
	}
	out->n = n;
	out->pool = text;
	return ROZ_OK;
}

int roz_watch_ask(const char *root, uint64_t id, uint64_t since, int timeout_ms, roz_watch_answer *out)
{
	struct sockaddr_un addr;
	socklen_t alen;
	char q[64];
	roz_buf got = ROZ_BUF_INIT;
	int64_t deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 1);
	int fd = -1, rc, qn;

	memset(out, 0, sizeof *out);
	if (!root || roz_watch_socket_name(root, &addr, &alen) < 0)
		return ROZ_ENOTFOUND;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0) {
		roz_error_set_errno(errno, "cannot ask the watcher");
		return ROZ_EIO;
	}
	if (connect(fd, (struct sockaddr *)&addr, alen) < 0) {
		int err = errno;

		if (err == EINPROGRESS || err == EAGAIN) {
			/* the watcher's backlog is full: it is busy; a walk answers instead */
			close(fd);
			roz_error_set("the watcher of %s is busy", root);
			return ROZ_EIO;
		}
		close(fd);
		return ROZ_ENOTFOUND;
	}
	if (!same_user(fd)) {
		close(fd);
		roz_error_set("the watcher socket of %s belongs to another user", root);
		return ROZ_EIO;
	}
	qn = snprintf(q, sizeof q, "since %llx %llu\n", (unsigned long long)id, (unsigned long long)since);
	if (send(fd, q, (size_t)qn, MSG_NOSIGNAL) != qn) {
		close(fd);
		roz_error_set_errno(errno, "cannot ask the watcher of %s", root);
		return ROZ_EIO;
	}
	rc = ROZ_OK;
	for (;;) {
		ssize_t n;

		if (!roz_buf_grow(&got, 64 * 1024)) {
			rc = ROZ_ENOMEM;
			break;
		}
		n = recv(fd, got.ptr + got.len, got.cap - got.len - 1, 0);
		if (n > 0) {
			got.len += (size_t)n;
			if (got.len > ANSWER_BYTES_MAX) {
				rc = ROZ_EIO;
				roz_error_set("the watcher of %s answered too much", root);
				break;
			}
			continue;
		}
		if (n == 0)
			break;
		if (errno == EINTR)
			continue;
		if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(fd, POLLIN, deadline))
			continue;
		rc = ROZ_EIO;
		roz_error_set("the watcher of %s did not answer in %d ms", root, timeout_ms);
		break;
	}
	close(fd);
	if (rc == ROZ_OK) {
		got.ptr[got.len] = '\0';
		if ((rc = roz_watch_answer_parse(got.ptr, got.len, out)) == ROZ_OK) {
			got.ptr = NULL; /* the pool now */
			got.len = got.cap = 0;
		} else if (rc == ROZ_EIO) {
			roz_error_set("the watcher of %s answered something else", root);
		}
	}
	if (rc < 0) {
		roz_free(out->picks);
		out->picks = NULL;
		out->n = 0;
		out->pool = NULL;
	}
	roz_buf_dispose(&got);
	return rc;
}

/* execv takes char *const argv[] for historical reasons and never writes through it. */
static char *arg(const char *s)
{
	char *p;

	memcpy(&p, &s, sizeof p);
	return p;
}

/* Where the last start was noted: the note's path with ".start" for ".off". */
static char *start_note(const char *storage, const char *root)
{
	char *p = roz_watch_note_path(storage, root);
	size_t n = p ? strlen(p) : 0;
	char *s = p ? roz_asprintf("%.*s.start", (int)(n - 4), p) : NULL;

	roz_free(p);
	return s;
}

static int64_t mtime_ns(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0 ? (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec
					     : INT64_MIN;
}

int roz_watch_start(const char *exe, const char *root, const char *storage, bool fold_case, size_t max_entries,
		    int64_t now_ns)
{
	char *argv[8], max[48];
	char *started = NULL;
	size_t k = 0;
	int64_t last;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid;
	int rc, fd;

	if (!exe || !root || !storage)
		return 0;
	if (roz_watch_is_off(storage, root, now_ns, NULL) || !(started = start_note(storage, root)))
		return 0;
	last = mtime_ns(started);
	if (last != INT64_MIN && now_ns - last < START_AGAIN_NS && now_ns >= last) {
		roz_free(started);
		return 0;
	}
	/* noted before it starts: the hooks that find no watcher in the next seconds do not start more */
	if ((fd = open(started, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0) {
		(void)futimens(fd, NULL);
		close(fd);
	}
	roz_free(started);
	argv[k++] = arg("roz");
	argv[k++] = arg("watch");
	if (fold_case)
		argv[k++] = arg("--fold-case");
	if (max_entries) {
		snprintf(max, sizeof max, "--max-entries=%zu", max_entries);
		argv[k++] = max;
	}
	argv[k++] = arg(root);
	argv[k++] = arg(storage);
	argv[k] = NULL;
	/*
	 * posix_spawn in a session of its own, its standard streams on /dev/null (nothing of the
	 * hook's output is kept open by it: Claude Code waits for those to close); roz's own
	 * descriptors are all close-on-exec, and `roz watch` closes any other it inherits. Not
	 * waited for: it outlives this hook, and is its init's to reap once this hook is gone.
	 */
	if ((rc = posix_spawn_file_actions_init(&fa)) != 0 || (rc = posix_spawnattr_init(&at)) != 0) {
		roz_error_set_errno(rc, "cannot start a watcher");
		return ROZ_EIO;
	}
	for (int std = 0; std < 3 && rc == 0; std++)
		rc = posix_spawn_file_actions_addopen(&fa, std, "/dev/null", std ? O_WRONLY : O_RDONLY, 0);
	if (rc == 0)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (rc == 0) {
		sigset_t none, all;

		sigemptyset(&none);
		sigfillset(&all);
		(void)posix_spawnattr_setsigmask(&at, &none);
		(void)posix_spawnattr_setsigdefault(&at, &all);
		rc = posix_spawn(&pid, exe, &fa, &at, argv, environ);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		roz_error_set_errno(rc, "cannot start a watcher (%s)", exe);
		return ROZ_EIO;
	}
	return 1;
}

bool roz_watch_is_off(const char *storage, const char *root, int64_t now_ns, char **why)
{
	char *path = roz_watch_note_path(storage, root), *text = NULL;
	int64_t at = mtime_ns(path);
	size_t len;
	bool off = at != INT64_MIN && now_ns - at < OFF_FOR_NS;

	if (why)
		*why = NULL;
	if (off && why && roz_file_read_path(path, O_NOFOLLOW, NOTE_MAX, &text, &len) == ROZ_OK) {
		while (len && text[len - 1] == '\n')
			text[--len] = '\0';
		*why = text;
	}
	roz_free(path);
	return off;
}
