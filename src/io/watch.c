/*
 * watch.c - the watcher's side of roz/watch.h: inotify on every directory
 * the walk lists, a log of what moved, and answers on an abstract socket.
 *
 * One thread, one poll over two descriptors: the inotify queue and the
 * listening socket. A question is answered only after the queue has been
 * read to its end, so the answer covers every change made before the
 * question was sent. A question is one line, "since <id> <gen>\n"; the
 * answer is "roz-watch 1 <id> <gen> <known> <n>\n" and n picks, each a
 * kind byte ('d' deep, 's' the path alone) and the path, NUL-terminated;
 * then the watcher closes the connection.
 *
 * Watches. A watch is put on a directory before the directory is listed,
 * so whatever is made in it later comes as an event and whatever was there
 * before is listed: a directory that appears (made, or moved in) is logged
 * deep, its own subdirectories are watched as the picked walk of it finds
 * them, and the hook that gets the answer walks it again after all that.
 * A directory moved away or removed is logged deep (the hook drops what it
 * held) and the watches under its old name are removed, since their paths
 * no longer lead there. Events on a path with a `.git` component are not
 * the working tree's and are skipped; `.git/info/` is watched for its
 * `exclude`.
 *
 * What forces a whole walk: the kernel's queue overflowing (events lost),
 * a `.gitignore` or `.git/info/exclude` changing (what the tree lists and
 * which directories need watching change with them). The watcher walks
 * again, watches what it finds, and from then on answers only questions
 * about generations from that walk on.
 */
#include "roz/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "roz/common.h"
#include "roz/digest.h"
#include "roz/file.h"
#include "roz/random.h"
#include "watch_int.h"

/* The log keeps at most this many entries; past it, the older half goes. */
#define LOG_MAX 65536u
/* An answer holds at most this many picks; past it a walk is cheaper, and it says "not known". */
#define ANSWER_MAX 20000u
#define IDLE_DEFAULT_NS (30LL * 60 * 1000000000LL)
/* How long a client may take to ask, or to take its answer. */
#define CLIENT_TIMEOUT_MS 2000
#define MASK                                                                                               \
	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |    \
	 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)
/* A file with more than one name: a write through a name outside the tree is seen on the file itself. */
#define FILE_MASK (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DONT_FOLLOW)
#define INFO_MASK (IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR)

typedef struct logged {
	uint64_t gen;
	uint32_t off; /* of the path in the pool */
	bool deep;
} logged;

typedef struct watcher {
	const roz_watch_opts *o;
	int ino, lsn;
	int root_wd, info_wd;
	char **wd_path; /* by watch descriptor: the directory's path relative to the root ("" for the root) */
	size_t nwd;
	uint64_t id, gen, known_from; /* a question about generation g is answerable when g >= known_from */
	logged *log;
	size_t nlog, log_cap;
	roz_buf pool;
	bool rewalk, stop;
	char abs[PATH_MAX];
} watcher;

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int roz_watch_socket_name(const char *root, struct sockaddr_un *a, socklen_t *len)
{
	char hex[ROZ_SHA256_HEX_SIZE];
	int n;

	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	roz_digest_sha256_hex(root, strlen(root), hex);
	hex[32] = '\0';
	/* abstract: the name starts with a NUL and is exactly this long */
	n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "roz-watch-%lu-%s", (unsigned long)getuid(), hex);
	if (n < 0 || (size_t)n >= sizeof a->sun_path - 1)
		return ROZ_EINVALID;
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	return ROZ_OK;
}

char *roz_watch_note_path(const char *storage, const char *root)
{
	char hex[ROZ_SHA256_HEX_SIZE];

	if (!storage || !root)
		return NULL;
	roz_digest_sha256_hex(root, strlen(root), hex);
	hex[16] = '\0';
	return roz_asprintf("%s/trees/watch-%s.off", storage, hex);
}

/* Leave the note that watching this root is off, and why (written beside, then renamed: whole or absent). */
static void note_off(const roz_watch_opts *o, const char *why)
{
	char *path = roz_watch_note_path(o->storage, o->root), *dir = NULL, *tmp = NULL;
	int fd;

	if (!path || !(dir = roz_asprintf("%s/trees", o->storage)) || !(tmp = roz_asprintf("%s.%ld", path, (long)getpid())))
		goto out;
	(void)mkdir(dir, 0700);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		goto out;
	if (roz_file_write_all(fd, why, strlen(why)) == ROZ_OK && roz_file_write_all(fd, "\n", 1) == ROZ_OK &&
	    close(fd) == 0) {
		fd = -1;
		if (rename(tmp, path) == 0)
			goto out;
	}
	if (fd >= 0)
		close(fd);
	(void)unlink(tmp);
out:
	roz_free(tmp);
	roz_free(dir);
	roz_free(path);
}

/* ---- the log ------------------------------------------------------------ */

/* Drop the older half of the log: questions about what it held are no longer answerable. */
static int trim(watcher *w)
{
	size_t keep = w->nlog / 2, from = w->nlog - keep;
	roz_buf pool = ROZ_BUF_INIT;

	w->known_from = w->log[from - 1].gen;
	for (size_t i = 0; i < keep; i++) {
		logged e = w->log[from + i];
		const char *p = w->pool.ptr + e.off;

		e.off = (uint32_t)pool.len;
		roz_buf_add(&pool, p, strlen(p) + 1);
		w->log[i] = e;
	}
	if (roz_buf_failed(&pool)) {
		roz_buf_dispose(&pool);
		return ROZ_ENOMEM;
	}
	roz_buf_dispose(&w->pool);
	w->pool = pool;
	w->nlog = keep;
	return ROZ_OK;
}

static int log_path(watcher *w, const char *rel, bool deep)
{
	int rc;

	if (w->nlog >= LOG_MAX && (rc = trim(w)) < 0)
		return rc;
	if (w->pool.len > UINT32_MAX - PATH_MAX) {
		if ((rc = trim(w)) < 0)
			return rc;
	}
	if (roz_alloc_array_reserve((void **)&w->log, &w->log_cap, sizeof *w->log, w->nlog + 1) < 0)
		return ROZ_ENOMEM;
	w->log[w->nlog].gen = w->gen + 1;
	w->log[w->nlog].off = (uint32_t)w->pool.len;
	w->log[w->nlog].deep = deep;
	roz_buf_add(&w->pool, rel, strlen(rel) + 1);
	if (roz_buf_failed(&w->pool))
		return ROZ_ENOMEM;
	w->nlog++;
	return ROZ_OK;
}

/* ---- watches ------------------------------------------------------------ */

static int remember_wd(watcher *w, int wd, const char *rel)
{
	char *copy;

	if (wd < 0)
		return ROZ_OK;
	if ((size_t)wd >= w->nwd) {
		size_t n = w->nwd;

		if (roz_alloc_array_reserve((void **)&w->wd_path, &n, sizeof *w->wd_path, (size_t)wd + 1) < 0)
			return ROZ_ENOMEM;
		memset(w->wd_path + w->nwd, 0, (n - w->nwd) * sizeof *w->wd_path);
		w->nwd = n;
	}
	if (w->wd_path[wd] && strcmp(w->wd_path[wd], rel) == 0)
		return ROZ_OK;
	if (!(copy = roz_strdup(rel)))
		return ROZ_ENOMEM;
	roz_free(w->wd_path[wd]);
	w->wd_path[wd] = copy;
	return ROZ_OK;
}

/* Watch the directory `rel` ("" the root). ROZ_OK (also when it is gone), ROZ_EIO (no room), ROZ_ENOMEM. */
static int watch_dir(watcher *w, const char *rel, int *wd_out)
{
	int n = rel[0] ? snprintf(w->abs, sizeof w->abs, "%s/%s", w->o->root, rel)
		       : snprintf(w->abs, sizeof w->abs, "%s", w->o->root);
	int wd;

	if (n < 0 || (size_t)n >= sizeof w->abs)
		return ROZ_OK;
	if ((wd = inotify_add_watch(w->ino, w->abs, MASK)) < 0) {
		if (errno == ENOSPC || errno == ENOMEM) {
			roz_error_set("cannot watch %s: the user's inotify watch limit is reached "
				      "(/proc/sys/fs/inotify/max_user_watches)",
				      w->abs);
			return errno == ENOMEM ? ROZ_ENOMEM : ROZ_EIO;
		}
		return ROZ_OK; /* gone, or not a directory any more: its parent's event says so */
	}
	if (wd_out)
		*wd_out = wd;
	return remember_wd(w, wd, rel);
}

/* Forget (and remove) every watch at `rel` or under it: their paths no longer lead there. */
static void unwatch_under(watcher *w, const char *rel)
{
	size_t len = strlen(rel);

	for (size_t wd = 0; wd < w->nwd; wd++) {
		const char *p = w->wd_path[wd];

		if (!p || (int)wd == w->root_wd || (int)wd == w->info_wd)
			continue;
		if (strncmp(p, rel, len) == 0 && (p[len] == '\0' || p[len] == '/')) {
			(void)inotify_rm_watch(w->ino, (int)wd);
			roz_free(w->wd_path[wd]);
			w->wd_path[wd] = NULL;
		}
	}
}

/*
 * Watch the regular file `rel` when it has more than one name: a change
 * through a name outside the tree (or in an ignored directory) comes to
 * no directory watched, but to the file's own watch. Its other names in
 * the tree are the hook's to find (by inode).
 */
static int watch_linked(watcher *w, const char *rel, const struct stat *known)
{
	struct stat st;
	int wd;

	if (snprintf(w->abs, sizeof w->abs, "%s/%s", w->o->root, rel) >= (int)sizeof w->abs)
		return ROZ_OK;
	if (!known) {
		if (lstat(w->abs, &st) < 0)
			return ROZ_OK;
		known = &st;
	}
	if (!S_ISREG(known->st_mode) || known->st_nlink < 2)
		return ROZ_OK;
	if ((wd = inotify_add_watch(w->ino, w->abs, FILE_MASK)) < 0)
		return errno == ENOMEM ? ROZ_ENOMEM : ROZ_OK; /* no room: the hook's inode look still finds its names */
	return remember_wd(w, wd, rel);
}

/* Watch every directory in t (the root included: "" when whole), and every file with other names. */
static int watch_tree(watcher *w, const roz_tree *t)
{
	int rc;

	for (size_t i = 0; i < t->n; i++) {
		const roz_tree_entry *e = &t->items[i];

		if ((e->mode & S_IFMT) == S_IFDIR)
			rc = watch_dir(w, e->path, NULL);
		else if ((e->mode & S_IFMT) == S_IFREG && e->nlink > 1)
			rc = watch_linked(w, e->path, NULL);
		else
			continue;
		if (rc < 0)
			return rc;
	}
	return ROZ_OK;
}

static void walk_opts(const watcher *w, roz_tree_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_entries = w->o->max_entries;
	o->fold_case = w->o->fold_case;
}

/*
 * The whole tree again: watch the root, `.git/info`, then every directory
 * the walk lists (a watch is added before the walk reaches the directory,
 * or the walk of it was after a change the watch missed: then the answer
 * that follows is "not known" and the hook walks after this).
 */
static int walk_all(watcher *w)
{
	roz_tree t = {0};
	roz_tree_opts o;
	int rc, wd;

	if ((rc = watch_dir(w, "", &w->root_wd)) < 0)
		return rc;
	if (w->root_wd < 0) {
		roz_error_set_errno(errno, "cannot watch %s", w->o->root);
		return ROZ_EIO;
	}
	if (snprintf(w->abs, sizeof w->abs, "%s/.git/info", w->o->root) < (int)sizeof w->abs &&
	    (wd = inotify_add_watch(w->ino, w->abs, INFO_MASK)) >= 0) {
		w->info_wd = wd;
		if ((rc = remember_wd(w, wd, ".git/info")) < 0)
			return rc;
	}
	walk_opts(w, &o);
	if ((rc = roz_tree_walk(w->o->root, &o, &t)) < 0)
		return rc;
	if (t.truncated) {
		roz_error_set("%s holds more than %zu entries past its ignore files", w->o->root,
			      w->o->max_entries ? w->o->max_entries : (size_t)ROZ_TREE_MAX_ENTRIES);
		roz_tree_dispose(&t);
		return ROZ_EIO;
	}
	rc = watch_tree(w, &t);
	/* a directory the tree no longer lists (ignored now, or gone) is watched no more */
	for (size_t i = 0; rc == ROZ_OK && i < w->nwd; i++) {
		const roz_tree_entry *e;

		if (!w->wd_path[i] || (int)i == w->root_wd || (int)i == w->info_wd)
			continue;
		if (!(e = roz_tree_find(&t, w->wd_path[i])) ||
		    ((e->mode & S_IFMT) != S_IFDIR && !((e->mode & S_IFMT) == S_IFREG && e->nlink > 1))) {
			(void)inotify_rm_watch(w->ino, (int)i);
			roz_free(w->wd_path[i]);
			w->wd_path[i] = NULL;
		}
	}
	roz_tree_dispose(&t);
	if (rc < 0)
		return rc;
	/* what was asked about before this walk is not answerable */
	w->gen++;
	w->known_from = w->gen;
	w->rewalk = false;
	return ROZ_OK;
}

/* A directory that appeared at `rel`: it and every directory the walk lists under it are watched. */
static int watch_new(watcher *w, const char *rel)
{
	roz_tree_pick pick = {rel, true};
	roz_tree t = {0};
	roz_tree_opts o;
	int rc;

	walk_opts(w, &o);
	o.only = &pick;
	o.nonly = 1;
	if ((rc = watch_dir(w, rel, NULL)) < 0)
		return rc;
	if ((rc = roz_tree_walk(w->o->root, &o, &t)) < 0)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK;
	if (t.truncated)
		w->rewalk = true;
	if (!roz_tree_find(&t, rel))
		unwatch_under(w, rel); /* ignored (or gone already): nothing under it is the tree's */
	/* the directory itself (and the ones above it) are watched already; watch_dir says so cheaply */
	rc = watch_tree(w, &t);
	roz_tree_dispose(&t);
	return rc;
}

/* ---- events ------------------------------------------------------------- */

static bool is_git_path(const char *rel)
{
	const char *p = rel;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 4 && memcmp(p, ".git", 4) == 0)
			return true;
		if (!slash)
			return false;
		p = slash + 1;
	}
}

static int one_event(watcher *w, const struct inotify_event *ev)
{
	const char *dir;
	char rel[PATH_MAX];
	bool is_dir = (ev->mask & IN_ISDIR) != 0;
	int n;

	if (ev->mask & IN_Q_OVERFLOW) {
		w->rewalk = true;
		return ROZ_OK;
	}
	if (ev->wd < 0 || (size_t)ev->wd >= w->nwd || !(dir = w->wd_path[ev->wd]))
		return ROZ_OK;
	if (ev->mask & IN_IGNORED) {
		if (ev->wd == w->root_wd)
			w->stop = true;
		if (ev->wd == w->info_wd)
			w->info_wd = -1;
		roz_free(w->wd_path[ev->wd]);
		w->wd_path[ev->wd] = NULL;
		return ROZ_OK;
	}
	if (ev->wd == w->info_wd) {
		if (ev->len && strcmp(ev->name, "exclude") == 0)
			w->rewalk = true;
		return ROZ_OK;
	}
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
		if (ev->wd == w->root_wd)
			w->stop = true;
		return ROZ_OK; /* the parent's event names it */
	}
	if (!ev->len || !ev->name[0]) {
		/* a watched directory's own attributes (the root's are not listed), or a linked file's change */
		return dir[0] ? log_path(w, dir, false) : ROZ_OK;
	}
	n = dir[0] ? snprintf(rel, sizeof rel, "%s/%s", dir, ev->name) : snprintf(rel, sizeof rel, "%s", ev->name);
	if (n < 0 || (size_t)n >= sizeof rel || is_git_path(rel))
		return ROZ_OK;
	if (strcmp(ev->name, ".gitignore") == 0 && !(ev->mask & (IN_ATTRIB)))
		w->rewalk = true;
	if (is_dir && (ev->mask & (IN_CREATE | IN_MOVED_TO))) {
		int rc = watch_new(w, rel);

		return rc < 0 ? rc : log_path(w, rel, true);
	}
	if (is_dir && (ev->mask & (IN_DELETE | IN_MOVED_FROM))) {
		unwatch_under(w, rel);
		return log_path(w, rel, true);
	}
	if (!is_dir && (ev->mask & (IN_CREATE | IN_MOVED_TO | IN_ATTRIB))) {
		/* a name made for a file that has others, or a link count that grew */
		int rc = watch_linked(w, rel, NULL);

		if (rc < 0)
			return rc;
	}
	return log_path(w, rel, false);
}

/* Read every event queued: the log then holds every change made until now. */
static int drain(watcher *w)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	size_t before = w->nlog;
	int rc = ROZ_OK;

	for (;;) {
		ssize_t got = read(w->ino, buf, sizeof buf);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		for (char *p = buf; p < buf + got && rc == ROZ_OK;) {
			const struct inotify_event *ev = (const struct inotify_event *)(void *)p;

			rc = one_event(w, ev);
			p += sizeof *ev + ev->len;
		}
		if (rc < 0)
			return rc;
	}
	if (w->nlog != before || w->rewalk)
		w->gen++;
	if (w->rewalk && !w->stop)
		rc = walk_all(w);
	return rc;
}

/* ---- answers ------------------------------------------------------------ */

/* The answer to "since <id> <gen>" into *out. */
static int answer(const watcher *w, uint64_t id, uint64_t since, roz_buf *out)
{
	roz_tree_pick *picks = NULL;
	size_t n = 0, cap = 0, first = w->nlog;
	bool known = id == w->id && since >= w->known_from && since <= w->gen;
	int rc = ROZ_OK;

	while (known && first > 0 && w->log[first - 1].gen > since)
		first--;
	if (known && w->nlog - first > ANSWER_MAX * 4)
		known = false;
	for (size_t i = first; known && i < w->nlog; i++) {
		if (roz_alloc_array_reserve((void **)&picks, &cap, sizeof *picks, n + 1) < 0) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		picks[n].path = w->pool.ptr + w->log[i].off;
		picks[n++].deep = w->log[i].deep;
	}
	if (known && n) {
		size_t k = 0;

		qsort(picks, n, sizeof *picks, roz_tree_pick_cmp);
		for (size_t i = 0; i < n; i++) {
			if (k && strcmp(picks[k - 1].path, picks[i].path) == 0) {
				picks[k - 1].deep = picks[k - 1].deep || picks[i].deep;
				continue;
			}
			picks[k++] = picks[i];
		}
		n = k;
		if (n > ANSWER_MAX)
			known = false;
	}
	roz_buf_addf(out, "roz-watch 1 %016llx %llu %d %zu\n", (unsigned long long)w->id,
		     (unsigned long long)w->gen, known ? 1 : 0, known ? n : (size_t)0);
	for (size_t i = 0; known && i < n; i++) {
		roz_buf_addc(out, picks[i].deep ? 'd' : 's');
		roz_buf_add(out, picks[i].path, strlen(picks[i].path) + 1);
	}
	rc = roz_buf_failed(out);
out:
	roz_free(picks);
	return rc;
}

/* Send it all; a client gone is no signal to die of (MSG_NOSIGNAL). */
static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t put = send(fd, p, n, MSG_NOSIGNAL);

		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0)
			return;
		p += put;
		n -= (size_t)put;
	}
}

static bool same_user(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof cr;

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 && cr.uid == getuid();
}

static void set_timeouts(int fd, int ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* One client: its question, every queued event, the answer. */
static int serve_one(watcher *w, int fd)
{
	char q[128];
	size_t len = 0;
	unsigned long long id, since;
	roz_buf out = ROZ_BUF_INIT;
	int rc = ROZ_OK;

	set_timeouts(fd, CLIENT_TIMEOUT_MS);
	if (!same_user(fd))
		return ROZ_OK;
	while (len < sizeof q - 1) {
		ssize_t got = recv(fd, q + len, sizeof q - 1 - len, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return ROZ_OK;
		len += (size_t)got;
		if (memchr(q, '\n', len))
			break;
	}
	q[len] = '\0';
	if (sscanf(q, "since %llx %llu", &id, &since) != 2)
		return ROZ_OK;
	if ((rc = drain(w)) < 0)
		return rc;
	if ((rc = answer(w, (uint64_t)id, (uint64_t)since, &out)) == ROZ_OK)
		send_all(fd, out.ptr, out.len);
	roz_buf_dispose(&out);
	return rc;
}

static void watcher_dispose(watcher *w)
{
	for (size_t i = 0; i < w->nwd; i++)
		roz_free(w->wd_path[i]);
	roz_free(w->wd_path);
	roz_free(w->log);
	roz_buf_dispose(&w->pool);
	if (w->ino >= 0)
		close(w->ino);
	if (w->lsn >= 0)
		close(w->lsn);
}

static void ready(const roz_watch_opts *o)
{
	if (o->ready_fd >= 0) {
		(void)!write(o->ready_fd, "r", 1);
		close(o->ready_fd);
	}
}

int roz_watch_serve(const roz_watch_opts *o)
{
	watcher w = {.o = o, .ino = -1, .lsn = -1, .root_wd = -1, .info_wd = -1};
	struct sockaddr_un addr;
	socklen_t alen;
	int64_t idle = o->idle_ns > 0 ? o->idle_ns : IDLE_DEFAULT_NS, last;
	bool claimed = false, told = false;
	int rc;

	if (!o->root || o->root[0] != '/') {
		roz_error_set("roz watch: the root must be an absolute path");
		rc = ROZ_EINVALID;
		goto out;
	}
	if (roz_random_bytes(&w.id, sizeof w.id) < 0 || w.id == 0)
		w.id = (uint64_t)mono_ns() ^ ((uint64_t)getpid() << 32) ^ 1u;
	if ((rc = roz_watch_socket_name(o->root, &addr, &alen)) < 0) {
		roz_error_set("roz watch: no socket name for %s", o->root);
		goto out;
	}
	/* the name is the claim: a second watcher of the same root ends here */
	if ((w.lsn = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		roz_error_set_errno(errno, "roz watch: socket");
		rc = ROZ_EIO;
		goto out;
	}
	if (bind(w.lsn, (struct sockaddr *)&addr, alen) < 0) {
		rc = errno == EADDRINUSE ? ROZ_OK : ROZ_EIO;
		if (rc < 0)
			roz_error_set_errno(errno, "roz watch: bind");
		goto out;
	}
	claimed = true;
	/* a working directory inside the root would keep it from being gone when it is removed */
	if (chdir("/") < 0) {
		roz_error_set_errno(errno, "roz watch: chdir /");
		rc = ROZ_EIO;
		goto out;
	}
	if ((w.ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		roz_error_set_errno(errno, "cannot start inotify (/proc/sys/fs/inotify/max_user_instances)");
		rc = ROZ_EIO;
		goto out;
	}
	w.gen = 1;
	if ((rc = walk_all(&w)) < 0)
		goto out;
	/* listening says it is ready: until then a hook finds no watcher and walks */
	if (listen(w.lsn, 128) < 0) {
		roz_error_set_errno(errno, "roz watch: listen");
		rc = ROZ_EIO;
		goto out;
	}
	ready(o);
	told = true;
	last = mono_ns();
	while (!w.stop) {
		struct pollfd p[2] = {{w.ino, POLLIN, 0}, {w.lsn, POLLIN, 0}};
		int64_t left = idle - (mono_ns() - last);
		int got;

		if (left <= 0)
			break;
		got = poll(p, 2, left / 1000000 > INT_MAX ? INT_MAX : (int)(left / 1000000) + 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			roz_error_set_errno(errno, "roz watch: poll");
			rc = ROZ_EIO;
			break;
		}
		if ((p[0].revents & POLLIN) && (rc = drain(&w)) < 0)
			break;
		if (p[1].revents & POLLIN) {
			int c = accept4(w.lsn, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0) {
				rc = serve_one(&w, c);
				close(c);
				last = mono_ns();
				if (rc < 0)
					break;
			}
		}
	}
out:
	if (rc == ROZ_EIO && claimed)
		note_off(o, roz_error_last());
	if (!told)
		ready(o);
	watcher_dispose(&w);
	return rc;
}
