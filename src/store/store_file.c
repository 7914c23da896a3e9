/*
 * store_file.c - sessions as JSON files under <dir>/sessions/, private to
 * their owner. Writes go to a temp file renamed over the target; a
 * per-session flock()ed lock file serialises read-modify-write cycles.
 * Nothing but a regular file in a directory only its owner can write is
 * ever read, locked or written (storage.md, "Who may write there").
 */
#include "roz/sys/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "roz/clock.h"
#include "roz/file.h"
#include "roz/random.h"
#include "roz/session_json.h"

#include "trace_file.h"

/* A session file larger than this is treated as corrupt rather than read. */
#define MAX_SESSION_FILE (64u * 1024u * 1024u)

typedef struct file_store {
	roz_store parent;
	char *root;   /* the storage directory */
	char *dir;    /* root/sessions */
	bool fsync;
	bool dir_ok;  /* dir exists and passed its check */
	uid_t euid;   /* who roz runs as, and dir's owner: the owners a file may have */
	uid_t dir_uid;
	roz_store_warn_fn warn;
	void *warn_ud;
	struct roz_lock *held; /* session locks this handle holds */
	size_t max_events;     /* the trace cap */
} file_store;

struct roz_lock {
	int fd;
	char *path;
	char *id;
	struct roz_lock *next;
};

static bool holds_lock(const file_store *fs, const char *id)
{
	for (const struct roz_lock *l = fs->held; l; l = l->next)
		if (strcmp(l->id, id) == 0)
			return true;
	return false;
}

/* The one temp file of a session, used only by the holder of its lock. */
#define HELD_TEMP ".json.tmp-locked"

static char *path_for(const file_store *fs, const char *id, const char *suffix)
{
	return roz_asprintf("%s/%s%s", fs->dir, id, suffix);
}

/* What a file type is called in a message: "'x' is a FIFO, not a session file". */
static const char *kind_of(mode_t mode)
{
	if (S_ISREG(mode))
		return "a file";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	return "something other than a file";
}

/*
 * Only a regular file belonging to roz's user (or to the owner of the
 * sessions directory, when that is someone else) is read or locked: a FIFO
 * would hang the hook, and a stranger's file could carry a forged verdict.
 */
static int check_file(const file_store *fs, const char *path, const struct stat *st, const char *what)
{
	if (!S_ISREG(st->st_mode)) {
		roz_error_set("'%s' is %s, not a %s", path, kind_of(st->st_mode), what);
		return ROZ_EIO;
	}
	if (st->st_uid != fs->euid && st->st_uid != fs->dir_uid) {
		roz_error_set("'%s' belongs to another user (uid %lu), not a %s roz wrote", path,
			      (unsigned long)st->st_uid, what);
		return ROZ_EIO;
	}
	return ROZ_OK;
}

/* A failed open, said as plainly as possible: what is at the path if it is not a file. */
static void set_open_error(int err, const char *path, const char *what)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		roz_error_set("'%s' is %s, not a %s", path, kind_of(st.st_mode), what);
	else
		roz_error_set_errno(err, "cannot open '%s'", path);
}

/*
 * Make a directory roz's user owns private again (0700), and say so. The
 * directory is opened without following links and checked to be the one
 * that was judged, so the change lands on nothing else.
 */
static int tighten(file_store *fs, const char *path, const struct stat *st, bool follow)
{
	struct stat now;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)), err = 0;

	if (fd < 0 || fstat(fd, &now) < 0)
		err = errno;
	else if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		err = EAGAIN; /* replaced between the two looks: judge nothing unseen */
	else if (fchmod(fd, 0700) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		roz_error_set_errno(err, "cannot make '%s' private", path);
		return ROZ_EIO;
	}
	if (fs->warn) {
		char *msg = roz_asprintf("'%s' was writable by group or others (mode %o); made it private "
					 "(mode 700)", path, (unsigned)(st->st_mode & 07777));

		if (msg)
			fs->warn(fs->warn_ud, msg);
		roz_free(msg);
	}
	return ROZ_OK;
}

/*
 * The rules for the storage and sessions directories (storage.md): a
 * directory, not a link (the storage directory may be one; its target is
 * judged), and nobody but its owner may write to it. roz tightens one its
 * user owns and refuses one that belongs to someone else.
 */
static int judge_dir(file_store *fs, const char *path, const struct stat *st, bool follow)
{
	if (S_ISLNK(st->st_mode)) {
		roz_error_set("'%s' is a symbolic link; roz keeps sessions only in a real directory "
			      "(remove the link, or set ROZ_STORAGE_PATH to a directory of your own)", path);
		return ROZ_EIO;
	}
	if (!S_ISDIR(st->st_mode)) {
		roz_error_set("'%s' is %s, not a directory (move it away and roz will create the "
			      "directory)", path, kind_of(st->st_mode));
		return ROZ_EIO;
	}
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return ROZ_OK;
	if (st->st_uid != fs->euid) {
		roz_error_set("'%s' belongs to another user (uid %lu) and others can write to it (mode "
			      "%o); roz will not keep sessions there (set ROZ_HOME or ROZ_STORAGE_PATH "
			      "to a directory of your own)", path, (unsigned long)st->st_uid,
			      (unsigned)(st->st_mode & 07777));
		return ROZ_EIO;
	}
	return tighten(fs, path, st, follow);
}

/* mkdir -p with private permissions for the directories roz creates. */
static int make_parents(const char *dir)
{
	char *p = roz_strdup(dir);
	int rc = ROZ_OK;

	if (!p)
		return ROZ_ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			roz_error_set_errno(errno, "cannot create directory '%s'", p);
			rc = ROZ_EIO;
			break;
		}
		*s = '/';
	}
	if (rc == ROZ_OK && mkdir(p, 0700) < 0 && errno != EEXIST) {
		roz_error_set_errno(errno, "cannot create directory '%s'", p);
		rc = ROZ_EIO;
	}
	roz_free(p);
	return rc;
}

/*
 * The sessions directory is about to be made: the storage directory it goes
 * in is created, or judged (following a link to it), first.
 */
static int make_dir(file_store *fs)
{
	struct stat st;
	int rc;

	if (stat(fs->root, &st) < 0) {
		if (errno != ENOENT) {
			roz_error_set_errno(errno, "cannot use storage directory '%s'", fs->root);
			return ROZ_EIO;
		}
		if ((rc = make_parents(fs->root)) < 0)
			return rc;
		if (stat(fs->root, &st) < 0) {
			roz_error_set_errno(errno, "cannot use storage directory '%s'", fs->root);
			return ROZ_EIO;
		}
	}
	if ((rc = judge_dir(fs, fs->root, &st, true)) < 0)
		return rc;
	if (mkdir(fs->dir, 0700) < 0 && errno != EEXIST) {
		roz_error_set_errno(errno, "cannot create directory '%s'", fs->dir);
		return ROZ_EIO;
	}
	return ROZ_OK;
}

/*
 * Check the sessions directory before the first file in it is touched: one
 * lstat per store handle when all is well, which is every hook but the
 * first. With create, a missing directory is made; without, ROZ_ENOTFOUND
 * says there is nothing stored yet.
 */
static int use_dir(file_store *fs, bool create)
{
	struct stat st;
	int rc;

	if (fs->dir_ok)
		return ROZ_OK;
	fs->euid = geteuid();
	if (lstat(fs->dir, &st) < 0) {
		if (errno != ENOENT) {
			roz_error_set_errno(errno, "cannot use '%s'", fs->dir);
			return ROZ_EIO;
		}
		if (!create)
			return ROZ_ENOTFOUND;
		if ((rc = make_dir(fs)) < 0)
			return rc;
		if (lstat(fs->dir, &st) < 0) {
			roz_error_set_errno(errno, "cannot use '%s'", fs->dir);
			return ROZ_EIO;
		}
	}
	if ((rc = judge_dir(fs, fs->dir, &st, false)) < 0)
		return rc;
	fs->dir_uid = st.st_uid;
	fs->dir_ok = true;
	return ROZ_OK;
}

static int read_fd(int fd, const char *path, off_t size, char **text, size_t *len)
{
	int rc = roz_file_read_fd(fd, size > 0 ? (size_t)size : 0, MAX_SESSION_FILE, text, len);

	if (rc == ROZ_EIO) {
		roz_error_set_errno(errno, "cannot read '%s'", path);
	} else if (rc == ROZ_EINVALID) {
		roz_error_set("'%s' is larger than %u bytes", path, MAX_SESSION_FILE);
		rc = ROZ_ECORRUPT;
	}
	return rc;
}

/*
 * Open a session file for reading. O_NONBLOCK makes the open of a FIFO
 * return at once instead of waiting for a writer; the type check then
 * refuses it, and the flag is cleared so reads of the file block as usual.
 */
static int open_session(file_store *fs, const char *id, const char *path, int *fd_out, off_t *size)
{
	struct stat st;
	int fd, rc;

	if ((rc = use_dir(fs, false)) < 0) {
		if (rc == ROZ_ENOTFOUND)
			roz_error_set("session '%s' not found", id);
		return rc;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT) {
			roz_error_set("session '%s' not found", id);
			return ROZ_ENOTFOUND;
		}
		set_open_error(errno, path, "session file");
		return ROZ_EIO;
	}
	if (fstat(fd, &st) < 0) {
		roz_error_set_errno(errno, "cannot read '%s'", path);
		rc = ROZ_EIO;
	} else if ((rc = check_file(fs, path, &st, "session file")) == ROZ_OK && fcntl(fd, F_SETFL, 0) < 0) {
		roz_error_set_errno(errno, "cannot read '%s'", path);
		rc = ROZ_EIO;
	}
	if (rc < 0) {
		close(fd);
		return rc;
	}
	*fd_out = fd;
	*size = st.st_size;
	return ROZ_OK;
}

/* The state file read and parsed, nothing more. */
static int read_state(file_store *fs, const char *id, roz_session **out)
{
	char *path = path_for(fs, id, ".json"), *text = NULL;
	size_t len = 0;
	off_t size = 0;
	int fd = -1, rc;

	if (!path)
		return ROZ_ENOMEM;
	if ((rc = open_session(fs, id, path, &fd, &size)) < 0) {
		roz_free(path);
		return rc;
	}
	rc = read_fd(fd, path, size, &text, &len);
	close(fd);
	if (rc == ROZ_OK) {
		rc = roz_session_json_parse_state(text, len, out);
		if (rc == ROZ_ECORRUPT)
			roz_error_prefix("'%s'", path);
	}
	if (rc == ROZ_OK && strcmp((*out)->session_id, id) != 0) {
		/* a file copied under another name still belongs to the name it has */
		char *copy = roz_strdup(id);

		if (!copy) {
			roz_session_free(*out);
			*out = NULL;
			rc = ROZ_ENOMEM;
		} else {
			roz_free((*out)->session_id);
			(*out)->session_id = copy;
		}
	}
	roz_free(text);
	roz_free(path);
	return rc;
}

/*
 * A file from before the trace moved beside the state holds its events
 * inline: they are to be appended to the trace file, before the state that
 * drops them is saved. If a writer died between those two steps, the trace
 * file has them already: then its lines include the newest of them.
 */
static int note_inline(file_store *fs, roz_session *s)
{
	roz_trace_entry *ev = NULL, *last;
	size_t n = 0;
	char *path;
	bool moved = false;
	int rc;

	s->trace_saved = 0;
	s->trace_inline = s->n_trace > 0;
	if (!s->n_trace)
		return ROZ_OK;
	if (!(path = path_for(fs, s->session_id, ROZ_TRACE_FILE_SUFFIX)))
		return ROZ_ENOMEM;
	rc = roz_trace_file_read(path, fs->euid, fs->dir_uid, &ev, &n);
	roz_free(path);
	if (rc == ROZ_ENOMEM)
		return rc;
	last = &s->trace[s->n_trace - 1];
	for (size_t i = n; rc == ROZ_OK && i-- > 0 && !moved;)
		moved = ev[i].len == last->len && memcmp(ev[i].json, last->json, last->len) == 0;
	roz_trace_file_entries_free(ev, n);
	if (moved) {
		for (size_t i = 0; i < s->n_trace; i++)
			roz_free(s->trace[i].json);
		s->n_trace = 0;
		s->trace_inline = false;
	}
	return ROZ_OK;
}

static int file_get_state(roz_store *store, const char *id, roz_session **out)
{
	file_store *fs = (file_store *)store;
	int rc = read_state(fs, id, out);

	if (rc == ROZ_OK && (rc = note_inline(fs, *out)) < 0) {
		roz_session_free(*out);
		*out = NULL;
	}
	return rc;
}

/* The whole session: its state, then the trace file's events and any not yet moved there. */
static int file_get(roz_store *store, const char *id, roz_session **out)
{
	file_store *fs = (file_store *)store;
	roz_trace_entry *ev = NULL;
	roz_session *s = NULL;
	size_t n = 0;
	char *path = NULL;
	int rc;

	if ((rc = file_get_state(store, id, &s)) < 0)
		return rc;
	/* read whole: every list parsed, so one of the wrong shape is found now */
	if ((rc = roz_session_json_lists_load(s)) < 0) {
		if (rc == ROZ_ECORRUPT)
			roz_error_prefix("'%s/%s.json'", fs->dir, id);
		goto out;
	}
	if (!(path = path_for(fs, id, ROZ_TRACE_FILE_SUFFIX))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	if ((rc = roz_trace_file_read(path, fs->euid, fs->dir_uid, &ev, &n)) < 0)
		goto out;
	if (s->n_trace) {
		/* events still inline follow the file's, unsaved, so a put moves them */
		roz_trace_entry *all = roz_calloc(n + s->n_trace, sizeof(*all));

		if (!all) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		if (n)
			memcpy(all, ev, n * sizeof(*ev));
		memcpy(all + n, s->trace, s->n_trace * sizeof(*all));
		roz_free(ev);
		ev = all;
		n += s->n_trace;
		s->trace_saved = n - s->n_trace;
		s->n_trace = 0;
	} else {
		rc = roz_session_trace_compact(ev, &n, fs->max_events);
		if (rc < 0)
			goto out;
		s->trace_saved = n;
	}
	roz_free(s->trace);
	s->trace = ev;
	s->n_trace = s->cap_trace = n;
	ev = NULL;
	n = 0;
out:
	roz_free(path);
	if (rc < 0) {
		roz_trace_file_entries_free(ev, n);
		roz_session_free(s);
		return rc;
	}
	*out = s;
	return ROZ_OK;
}

static int write_all(int fd, const char *data, size_t len, const char *path)
{
	if (roz_file_write_all(fd, data, len) == ROZ_OK)
		return ROZ_OK;
	roz_error_set_errno(errno, "cannot write '%s'", path);
	return ROZ_EIO;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = ROZ_OK;

	if (fd < 0 || fsync(fd) < 0) {
		roz_error_set_errno(errno, "cannot sync directory '%s'", dir);
		rc = ROZ_EIO;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * A temp file a writer killed under the lock left behind is the lock
 * holder's to replace, but only if it is a file: anything else at that name
 * was not made by roz, so it is reported and left where it is.
 */
static int remove_leftover(const char *tmp)
{
	struct stat st;

	if (lstat(tmp, &st) < 0)
		return errno == ENOENT ? ROZ_OK : (roz_error_set_errno(errno, "cannot create '%s'", tmp), ROZ_EIO);
	if (!S_ISREG(st.st_mode)) {
		roz_error_set("'%s' is %s, not a temp file roz wrote", tmp, kind_of(st.st_mode));
		return ROZ_EIO;
	}
	if (unlink(tmp) < 0 && errno != ENOENT) {
		roz_error_set_errno(errno, "cannot replace '%s'", tmp);
		return ROZ_EIO;
	}
	return ROZ_OK;
}

/*
 * Create a temp file afresh (O_EXCL: what is written to is a new file).
 * Under the session's lock its name is the holder's, so one a killed
 * writer left is replaced first, if it is a file.
 */
static int open_temp(const char *tmp, bool locked, int *fd)
{
	int rc;

	*fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*fd < 0 && errno == EEXIST && locked) {
		if ((rc = remove_leftover(tmp)) < 0)
			return rc;
		*fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (*fd < 0) {
		roz_error_set_errno(errno, "cannot create '%s'", tmp);
		return ROZ_EIO;
	}
	return ROZ_OK;
}

/* Replace the state file: a temp file renamed over it. */
static int put_state(file_store *fs, const roz_session *session, size_t trace_events)
{
	roz_buf json = ROZ_BUF_INIT;
	char *path = NULL, *tmp = NULL;
	unsigned char rnd[6];
	bool locked = holds_lock(fs, session->session_id), made = false;
	int fd = -1, rc;

	if ((rc = roz_session_json_write_state(session, trace_events, &json)) < 0)
		goto out;
	if ((rc = use_dir(fs, true)) < 0)
		goto out;
	if (!locked && (rc = roz_random_bytes(rnd, sizeof(rnd))) < 0)
		goto out;
	path = path_for(fs, session->session_id, ".json");
	/*
	 * Under the session's lock no one else writes it, so its temp file has a
	 * fixed name: one a killed writer left is replaced. Without the lock
	 * (tests, tools) each writer takes a name of its own. Either way the
	 * file is created here (O_EXCL), so what is written to is a new file.
	 */
	if (locked)
		tmp = path_for(fs, session->session_id, HELD_TEMP);
	else
		tmp = roz_asprintf("%s/%s.json.tmp-%ld-%02x%02x%02x%02x%02x%02x", fs->dir,
				   session->session_id, (long)getpid(), rnd[0], rnd[1], rnd[2],
				   rnd[3], rnd[4], rnd[5]);
	if (!path || !tmp) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	if ((rc = open_temp(tmp, locked, &fd)) < 0)
		goto out;
	made = true;
	if ((rc = write_all(fd, json.ptr, json.len, tmp)) < 0)
		goto out;
	if (fs->fsync && fdatasync(fd) < 0) {
		roz_error_set_errno(errno, "cannot sync '%s'", tmp);
		rc = ROZ_EIO;
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		roz_error_set_errno(errno, "cannot write '%s'", tmp);
		rc = ROZ_EIO;
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		roz_error_set_errno(errno, "cannot replace '%s'", path);
		rc = ROZ_EIO;
		goto out;
	}
	made = false; /* renamed: nothing left to clean up; the caller syncs the directory */
out:
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(tmp); /* only a file this call created */
	roz_free(tmp);
	roz_free(path);
	roz_buf_dispose(&json);
	return rc;
}

/* A stored count plus new events, kept from wrapping. */
static size_t count_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/*
 * The trace rewritten to its cap: what the file holds, then the new events,
 * compacted. ROZ_OK and *kept set once the new file is in place; an error
 * leaves the old file as it was.
 */
static int compact_trace(file_store *fs, const roz_session *session, const char *path, size_t *kept)
{
	const roz_trace_entry *fresh = session->trace + session->trace_saved;
	size_t n_fresh = session->n_trace - session->trace_saved, n = 0;
	roz_trace_entry *ev = NULL, *all;
	char *tmp = NULL;
	int rc;

	if ((rc = roz_trace_file_read(path, fs->euid, fs->dir_uid, &ev, &n)) < 0)
		return rc;
	if (!(all = roz_realloc(ev, (n + n_fresh + 1) * sizeof(*ev)))) {
		roz_trace_file_entries_free(ev, n);
		return ROZ_ENOMEM;
	}
	ev = all;
	for (size_t i = 0; i < n_fresh; i++, n++) {
		if (!(ev[n].json = roz_strndup(fresh[i].json, fresh[i].len))) {
			roz_trace_file_entries_free(ev, n);
			return ROZ_ENOMEM;
		}
		ev[n].len = fresh[i].len;
	}
	if ((rc = roz_session_trace_compact(ev, &n, fs->max_events)) == ROZ_OK) {
		int fd;

		if (!(tmp = path_for(fs, session->session_id, ROZ_TRACE_FILE_SUFFIX ".tmp-locked")))
			rc = ROZ_ENOMEM;
		else if ((rc = open_temp(tmp, true, &fd)) == ROZ_OK)
			rc = roz_trace_file_replace(fd, tmp, path, ev, n, fs->fsync);
	}
	if (rc == ROZ_OK)
		*kept = n;
	roz_free(tmp);
	roz_trace_file_entries_free(ev, n);
	return rc;
}

/*
 * The state by atomic rename, the new events appended beside it. Usually
 * the state goes first: a writer that dies before the append loses only
 * its events. Events moving out of an older file's inline trace go first
 * instead, since the new state no longer holds them (a reader finds them
 * moved, note_inline). A trace grown to twice the cap is rewritten to the
 * cap before the state that counts it.
 */
static int file_put(roz_store *store, const roz_session *session)
{
	file_store *fs = (file_store *)store;
	size_t n_fresh = session->n_trace > session->trace_saved ? session->n_trace - session->trace_saved : 0;
	size_t kept = count_add(session->trace_kept, n_fresh), cap = fs->max_events;
	bool locked = holds_lock(fs, session->session_id);
	roz_buf lines = ROZ_BUF_INIT;
	char *path = NULL;
	int rc;

	if ((rc = use_dir(fs, true)) < 0)
		return rc;
	if (!(path = path_for(fs, session->session_id, ROZ_TRACE_FILE_SUFFIX)))
		return ROZ_ENOMEM;
	if (cap == 0) {
		/* no trace is kept: the file goes (one that stays is uncounted, harmless) */
		if ((rc = put_state(fs, session, 0)) == ROZ_OK)
			(void)unlink(path);
		goto out;
	}
	/* only the lock holder rewrites: the temp file's name is the lock's */
	if (locked && roz_store_trace_due(kept, cap) && compact_trace(fs, session, path, &kept) == ROZ_OK) {
		rc = put_state(fs, session, kept);
		goto out;
	}
	/* made before anything is written: after the state only the file can fail */
	if ((rc = roz_trace_file_lines(session->trace + session->trace_saved, n_fresh, &lines)) < 0)
		goto out;
	if (session->trace_inline) {
		if ((rc = roz_trace_file_append(path, lines.ptr, lines.len, locked)) == ROZ_OK)
			rc = put_state(fs, session, kept);
		goto out;
	}
	if ((rc = put_state(fs, session, kept)) < 0)
		goto out;
	if (roz_trace_file_append(path, lines.ptr, lines.len, locked) < 0 && fs->warn) {
		/* the state stands: saying the put failed would make the hook answer as if nothing was kept */
		char why[600];

		snprintf(why, sizeof(why), "the session is saved, but %zu trace event%s could not be: %s", n_fresh,
			 n_fresh == 1 ? "" : "s", roz_error_last());
		fs->warn(fs->warn_ud, why);
	}
out:
	/*
	 * The new state is in place and readable, its events beside it. The
	 * directory is synced last, so the append follows the rename at once. A
	 * failed sync only weakens durability across a power cut, so it is not
	 * a failed write, which would make callers answer as if nothing was kept.
	 */
	if (rc == ROZ_OK && fs->fsync)
		(void)sync_dir(fs->dir);
	roz_buf_dispose(&lines);
	roz_free(path);
	return rc;
}

static bool is_session_file(const char *name, size_t *id_len)
{
	size_t n = strlen(name);

	if (n <= 5 || strcmp(name + n - 5, ".json") != 0)
		return false;
	*id_len = n - 5;
	return true;
}

static int file_list(roz_store *store, char ***ids, size_t *n)
{
	file_store *fs = (file_store *)store;
	char **out = NULL;
	size_t cap = 0, count = 0, id_len;
	struct dirent *de;
	DIR *d;
	int rc = use_dir(fs, false);

	if (rc < 0 && rc != ROZ_ENOTFOUND)
		return rc;
	d = rc == ROZ_OK ? opendir(fs->dir) : NULL;
	if (!d) {
		if (rc == ROZ_ENOTFOUND || errno == ENOENT) {
			*ids = roz_calloc(1, sizeof(char *));
			return *ids ? ROZ_OK : ROZ_ENOMEM;
		}
		roz_error_set_errno(errno, "cannot list '%s'", fs->dir);
		return ROZ_EIO;
	}
	while ((de = readdir(d)) != NULL) {
		char *id;

		if (!is_session_file(de->d_name, &id_len))
			continue;
		id = roz_strndup(de->d_name, id_len);
		if (!id || roz_alloc_array_reserve((void **)&out, &cap, sizeof(*out), count + 2) < 0) {
			roz_free(id);
			goto nomem;
		}
		if (!roz_session_id_valid(id)) {
			roz_free(id);
			continue;
		}
		out[count++] = id;
		out[count] = NULL;
	}
	closedir(d);
	if (!out && !(out = roz_calloc(1, sizeof(char *))))
		return ROZ_ENOMEM;
	*ids = out;
	*n = count;
	return ROZ_OK;
nomem:
	closedir(d);
	if (out) {
		out[count] = NULL;
		roz_store_ids_free(out);
	}
	return ROZ_ENOMEM;
}

/* Remove a session's file if it is a regular file: what roz did not make, it does not delete. */
static int unlink_file(const char *path, const char *what)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? ROZ_OK : (roz_error_set_errno(errno, "cannot remove '%s'", path), ROZ_EIO);
	if (!S_ISREG(st.st_mode)) {
		roz_error_set("'%s' is %s, not a %s; left it alone", path, kind_of(st.st_mode), what);
		return ROZ_EIO;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		roz_error_set_errno(errno, "cannot remove '%s'", path);
		return ROZ_EIO;
	}
	return ROZ_OK;
}

static int file_del(roz_store *store, const char *id)
{
	file_store *fs = (file_store *)store;
	char *path;
	int rc = use_dir(fs, false);

	if (rc == ROZ_ENOTFOUND)
		return ROZ_OK;
	if (rc < 0)
		return rc;
	/* the trace first: a state left alone is a session; a trace left alone would be inherited */
	if (!(path = path_for(fs, id, ROZ_TRACE_FILE_SUFFIX)))
		return ROZ_ENOMEM;
	rc = unlink_file(path, "session trace");
	roz_free(path);
	if (rc < 0)
		return rc;
	if (!(path = path_for(fs, id, ".json")))
		return ROZ_ENOMEM;
	rc = unlink_file(path, "session file");
	roz_free(path);
	/*
	 * Under its lock the session's other files go too: a waiter that then
	 * wins the flock on the unlinked lock file sees that and starts over.
	 */
	if (rc == ROZ_OK && holds_lock(fs, id)) {
		static const char *const extra[] = {HELD_TEMP, ROZ_TRACE_FILE_SUFFIX ".tmp-locked", ".lock"};

		for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
			if (!(path = path_for(fs, id, extra[i])))
				return ROZ_ENOMEM;
			(void)unlink_file(path, "file roz wrote");
			roz_free(path);
		}
	}
	return rc;
}

/*
 * The lock is <id>.lock, held with flock(). The file stays between hooks
 * (creating and removing a file on every hook costs more than the rest of
 * the store's work on some file systems) and goes with its session: the
 * holder that deletes the session unlinks it, so a waiter that wins the
 * flock on an unlinked file starts over. A process that dies releases its
 * flock with its last descriptor.
 */
static int file_lock(roz_store *store, const char *id, uint32_t timeout_ms, roz_lock **out)
{
	file_store *fs = (file_store *)store;
	int64_t deadline = roz_clock_monotonic_ms() + timeout_ms;
	unsigned delay = 1;
	roz_lock *lk;
	int rc;

	if ((rc = use_dir(fs, true)) < 0)
		return rc;
	lk = roz_calloc(1, sizeof(*lk));
	if (!lk)
		return ROZ_ENOMEM;
	lk->fd = -1;
	lk->path = path_for(fs, id, ".lock");
	if (!lk->path) {
		roz_free(lk);
		return ROZ_ENOMEM;
	}
	for (;;) {
		struct stat fst, pst;
		bool created = true;

		lk->fd = open(lk->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (lk->fd < 0 && errno == EEXIST) {
			created = false;
			/* O_NONBLOCK: a FIFO planted at this name must not hang the hook */
			lk->fd = open(lk->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
			if (lk->fd < 0 && errno == ENOENT) {
				if (roz_clock_monotonic_ms() < deadline)
					continue; /* released between our two opens */
				roz_error_set("timed out after %u ms waiting for the lock on session '%s'",
					      (unsigned)timeout_ms, id);
				rc = ROZ_ETIMEOUT;
				break;
			}
		}
		if (lk->fd < 0) {
			set_open_error(errno, lk->path, "lock file");
			rc = ROZ_EIO;
			break;
		}
		/* the descriptor's file never changes: it is checked before it is locked */
		if (fstat(lk->fd, &fst) < 0) {
			roz_error_set_errno(errno, "cannot lock '%s'", lk->path);
			rc = ROZ_EIO;
			goto fail;
		}
		if ((rc = check_file(fs, lk->path, &fst, "lock file")) < 0)
			goto fail;
		while (flock(lk->fd, LOCK_EX | LOCK_NB) < 0) {
			if (errno != EWOULDBLOCK && errno != EINTR) {
				roz_error_set_errno(errno, "cannot lock '%s'", lk->path);
				rc = ROZ_EIO;
				/*
				 * A file we created and nobody could lock either (the error is
				 * not contention) would only be left behind: remove it.
				 */
				if (created)
					unlink(lk->path);
				goto fail;
			}
			if (roz_clock_monotonic_ms() >= deadline) {
				roz_error_set("timed out after %u ms waiting for the lock on session '%s'",
					      (unsigned)timeout_ms, id);
				rc = ROZ_ETIMEOUT;
				goto fail;
			}
			roz_clock_sleep_ms(delay);
			if (delay < 8)
				delay *= 2;
		}
		if (lstat(lk->path, &pst) == 0 && fst.st_ino == pst.st_ino && fst.st_dev == pst.st_dev) {
			if (!(lk->id = roz_strdup(id))) {
				if (created)
					unlink(lk->path); /* ours, empty, and not handed out */
				rc = ROZ_ENOMEM;
				goto fail;
			}
			lk->next = fs->held;
			fs->held = lk;
			*out = lk;
			return ROZ_OK;
		}
		/* the file we locked was released and unlinked meanwhile */
		close(lk->fd);
		lk->fd = -1;
		if (roz_clock_monotonic_ms() >= deadline) {
			roz_error_set("timed out after %u ms waiting for the lock on session '%s'",
				      (unsigned)timeout_ms, id);
			rc = ROZ_ETIMEOUT;
			break;
		}
	}
fail:
	if (lk->fd >= 0)
		close(lk->fd);
	roz_free(lk->path);
	roz_free(lk);
	return rc;
}

static void file_unlock(roz_store *store, roz_lock *lk)
{
	file_store *fs = (file_store *)store;

	for (roz_lock **p = &fs->held; *p; p = &(*p)->next) {
		if (*p == lk) {
			*p = lk->next;
			break;
		}
	}
	close(lk->fd);
	roz_free(lk->id);
	roz_free(lk->path);
	roz_free(lk);
}

/*
 * The trace of a session moved aside goes with it, under the same suffix
 * (<id>.trace.jsonl.corrupt-<time>[-N]), so the fresh session starts its
 * own. Best effort: a trace that stays is only a longer history.
 */
static void move_trace_aside(file_store *fs, const char *id, const char *suffix)
{
	char *from = path_for(fs, id, ROZ_TRACE_FILE_SUFFIX), *to = from ? roz_asprintf("%s%s", from, suffix) : NULL;
	struct stat st;

	if (to && lstat(from, &st) == 0 && S_ISREG(st.st_mode)) {
		if (link(from, to) == 0)
			unlink(from);
		else if (errno != EEXIST)
			(void)rename(from, to); /* file systems without hard links */
	}
	roz_free(from);
	roz_free(to);
}

static int file_quarantine(roz_store *store, const char *id, roz_time now, char **moved_to)
{
	file_store *fs = (file_store *)store;
	char stamp[ROZ_TIME_BUFSZ], compact[32], *from = path_for(fs, id, ".json"), *to = NULL;
	size_t k = 0;
	int rc = ROZ_OK;

	if (!from)
		return ROZ_ENOMEM;
	if ((rc = use_dir(fs, false)) == ROZ_OK) {
		struct stat st;

		/* only a file roz could read and found corrupt is moved */
		if (lstat(from, &st) < 0) {
			if (errno == ENOENT)
				rc = ROZ_ENOTFOUND; /* other errors: link() below says them */
		} else if (!S_ISREG(st.st_mode)) {
			roz_error_set("'%s' is %s, not a session file; left it alone", from, kind_of(st.st_mode));
			rc = ROZ_EIO;
		}
	}
	if (rc < 0) {
		if (rc == ROZ_ENOTFOUND)
			roz_error_set("session '%s' not found", id);
		roz_free(from);
		return rc;
	}
	roz_time_format_sec(now, stamp);
	/* 2026-11-22T02:18:05Z -> 20261122T021805Z: no colons in file names */
	for (const char *p = stamp; *p && k + 1 < sizeof(compact); p++)
		if (*p != '-' && *p != ':')
			compact[k++] = *p;
	compact[k] = '\0';
	rc = ROZ_EIO;
	roz_error_set("cannot move '%s' aside: every name for this second is taken", from);
	for (int n = 0; n < 100; n++) {
		roz_free(to);
		to = n ? roz_asprintf("%s.corrupt-%s-%d", from, compact, n)
		       : roz_asprintf("%s.corrupt-%s", from, compact);
		if (!to) {
			rc = ROZ_ENOMEM;
			break;
		}
		/* link() refuses to overwrite, so an earlier quarantine is never lost */
		if (link(from, to) == 0) {
			unlink(from);
			rc = ROZ_OK;
			move_trace_aside(fs, id, to + strlen(from));
			break;
		}
		if (errno == EEXIST)
			continue;
		if (errno == ENOENT) {
			roz_error_set("session '%s' not found", id);
			rc = ROZ_ENOTFOUND;
		} else if (rename(from, to) == 0) {
			rc = ROZ_OK; /* file systems without hard links */
			move_trace_aside(fs, id, to + strlen(from));
		} else {
			roz_error_set_errno(errno, "cannot move '%s' aside", from);
		}
		break;
	}
	roz_free(from);
	if (rc == ROZ_OK)
		*moved_to = to;
	else
		roz_free(to);
	return rc;
}

/* ---- sweeping up what was left behind ------------------------------------------------ */

/* A temp or lock file younger than this may belong to a hook working right now. */
#define IN_USE_SECONDS 60

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

/*
 * When a corrupt file was moved aside, from the time in its name
 * (<id>.json.corrupt-20261122T021805Z, maybe with -N after it), or -1. The
 * move keeps the file's own mtime, the time of its last write, which may
 * be long ago: judged by that alone, evidence moved aside a moment ago
 * would go with the next sweep.
 */
static int64_t moved_aside_at(const char *name)
{
	const char *p = strstr(name, ".corrupt-");
	char text[32];
	roz_time t;

	if (!p)
		return -1;
	p += strlen(".corrupt-");
	if (strlen(p) < 16 || p[8] != 'T' || p[15] != 'Z' || (p[16] && p[16] != '-'))
		return -1;
	for (int i = 0; i < 15; i++)
		if (i != 8 && (p[i] < '0' || p[i] > '9'))
			return -1;
	snprintf(text, sizeof(text), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", p, p + 4, p + 6, p + 9, p + 11, p + 13);
	return roz_time_parse(text, &t) == ROZ_OK ? t.sec : -1;
}

/*
 * A lock file whose session was never saved (its first hook failed to
 * write) goes, under the lock, so a hook creating that session right now
 * keeps it; true when it went (or, dry, would go).
 */
static bool orphan_lock_removed(file_store *fs, const char *name, bool dry_run)
{
	char *id = roz_strndup(name, strlen(name) - strlen(".lock")), *path = NULL;
	roz_lock *lock = NULL;
	struct stat st;
	bool gone = false;

	if (!id || !roz_session_id_valid(id) || file_lock(&fs->parent, id, 500, &lock) < 0) {
		roz_free(id);
		return false;
	}
	/* removing the session under its lock takes its lock and temp files with it */
	if ((path = path_for(fs, id, ".json")) && lstat(path, &st) < 0 && errno == ENOENT)
		gone = dry_run || file_del(&fs->parent, id) == ROZ_OK;
	file_unlock(&fs->parent, lock);
	roz_free(path);
	roz_free(id);
	return gone;
}

static int file_sweep(roz_store *store, const roz_store_sweep_opts *opts, char ***removed, size_t *n)
{
	file_store *fs = (file_store *)store;
	char **out = NULL;
	size_t cap = 0, count = 0;
	struct dirent *de;
	DIR *d;
	int rc = use_dir(fs, false);

	if (rc < 0 && rc != ROZ_ENOTFOUND)
		return rc;
	d = rc == ROZ_OK ? opendir(fs->dir) : NULL;
	if (!d && rc == ROZ_OK && errno != ENOENT) {
		roz_error_set_errno(errno, "cannot list '%s'", fs->dir);
		return ROZ_EIO;
	}
	rc = ROZ_OK;
	while (d && (de = readdir(d)) != NULL) {
		bool lockf = ends_with(de->d_name, ".lock");
		bool temp = strstr(de->d_name, ".json.tmp-") || strstr(de->d_name, ROZ_TRACE_FILE_SUFFIX ".tmp-");
		struct stat st;
		int64_t age_from, moved_at;
		char *name;

		if (!lockf && !temp && !strstr(de->d_name, ".json.corrupt-") &&
		    !strstr(de->d_name, ROZ_TRACE_FILE_SUFFIX ".corrupt-"))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		/* a moved-aside file is as old as the later of its last write and its move */
		age_from = (int64_t)st.st_mtime;
		if ((moved_at = moved_aside_at(de->d_name)) > age_from)
			age_from = moved_at;
		if (!opts->all && age_from >= opts->before.sec)
			continue;
		if ((lockf || temp) && (int64_t)st.st_mtime > opts->now.sec - IN_USE_SECONDS)
			continue;
		if (lockf && !orphan_lock_removed(fs, de->d_name, opts->dry_run))
			continue;
		if (!lockf && !opts->dry_run && unlinkat(dirfd(d), de->d_name, 0) < 0)
			continue;
		if (!(name = roz_strdup(de->d_name)) ||
		    roz_alloc_array_reserve((void **)&out, &cap, sizeof(*out), count + 2) < 0) {
			roz_free(name);
			rc = ROZ_ENOMEM;
			break;
		}
		out[count++] = name;
		out[count] = NULL;
	}
	if (d)
		closedir(d);
	if (rc == ROZ_OK && !out && !(out = roz_calloc(1, sizeof(char *))))
		rc = ROZ_ENOMEM;
	if (rc < 0) {
		if (out)
			out[count] = NULL;
		roz_store_ids_free(out);
		return rc;
	}
	*removed = out;
	*n = count;
	return ROZ_OK;
}

static void file_set_trace_cap(roz_store *store, size_t max_events)
{
	((file_store *)store)->max_events = max_events;
}

static void file_free(roz_store *store)
{
	file_store *fs = (file_store *)store;

	roz_free(fs->root);
	roz_free(fs->dir);
	roz_free(fs);
}

int roz_store_file_open(const char *dir, const roz_store_file_opts *opts, roz_store **out)
{
	file_store *fs;

	*out = NULL;
	if (!dir || !*dir) {
		roz_error_set("no storage directory");
		return ROZ_EINVALID;
	}
	fs = roz_calloc(1, sizeof(*fs));
	if (!fs)
		return ROZ_ENOMEM;
	fs->root = roz_strdup(dir);
	fs->dir = roz_asprintf("%s/sessions", dir);
	if (!fs->root || !fs->dir) {
		file_free(&fs->parent);
		return ROZ_ENOMEM;
	}
	fs->fsync = opts && opts->fsync;
	fs->parent.version = ROZ_STORE_VERSION;
	fs->parent.get = file_get;
	fs->parent.put = file_put;
	fs->parent.list = file_list;
	fs->parent.del = file_del;
	fs->parent.lock = file_lock;
	fs->parent.unlock = file_unlock;
	fs->parent.quarantine = file_quarantine;
	fs->parent.free = file_free;
	fs->parent.sweep = file_sweep;
	fs->parent.get_state = file_get_state;
	fs->parent.set_trace_cap = file_set_trace_cap;
	fs->max_events = ROZ_TRACE_MAX_DEFAULT;
	*out = &fs->parent;
	return ROZ_OK;
}

void roz_store_file_on_warning(roz_store *store, roz_store_warn_fn warn, void *ud)
{
	if (store && store->get == file_get) {
		((file_store *)store)->warn = warn;
		((file_store *)store)->warn_ud = ud;
	}
}
