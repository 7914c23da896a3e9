/*
 * orchestration.c - finding a repository's root and reading its
 * .orchestration/ files for governance (roz/orchestration.h).
 *
 * Every hook that could be governed asks "is this repository governed?";
 * the answer costs one lstat per directory level and one stat, so a
 * repository without intents pays almost nothing for the question.
 */
#include "roz/orchestration.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roz/digest.h"
#include "roz/file.h"
#include "roz/intents_cache.h"
#include "roz/utf8.h"

void roz_orchestration_dispose(roz_orchestration *o)
{
	if (!o)
		return;
	roz_free(o->root);
	roz_intents_dispose(&o->intents);
	roz_free(o->intents_problem);
	roz_ignore_dispose(&o->ignore);
	roz_free(o->ignore_problem);
	roz_free(o->lessons);
	memset(o, 0, sizeof *o);
}

static bool exists(const char *dir, const char *name)
{
	char *p = roz_asprintf("%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);
	struct stat st;
	bool ok = p && lstat(p, &st) == 0;

	roz_free(p);
	return ok;
}

/* The root's file system ignores case when the root with its case swapped is the same directory. */
static bool folds_case(const char *root)
{
	char *swapped = roz_strdup(root);
	struct stat a, b;
	bool changed = false, same = false;

	if (!swapped)
		return false;
	for (char *p = swapped; *p; p++)
		if (isalpha((unsigned char)*p)) {
			*p = (char)(islower((unsigned char)*p) ? toupper((unsigned char)*p)
							       : tolower((unsigned char)*p));
			changed = true;
		}
	if (changed && stat(root, &a) == 0 && stat(swapped, &b) == 0)
		same = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	roz_free(swapped);
	return same;
}

/* `dir` holds .orchestration/active_intents.yaml (or something there roz cannot look at). */
static bool declares(const char *dir)
{
	struct stat st;
	char *path = roz_asprintf("%s/%s", strcmp(dir, "/") ? dir : "", ROZ_ORCH_INTENTS_FILE);
	bool yes = path && (stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR));

	roz_free(path);
	return yes;
}

int roz_orchestration_repo(const char *cwd, char **root)
{
	char *dir, *slash;
	size_t n;

	*root = NULL;
	if (!cwd || cwd[0] != '/')
		return ROZ_OK;
	if (!(dir = roz_strdup(cwd)))
		return ROZ_ENOMEM;
	for (n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = '\0';
	while (!exists(dir, ".git")) {
		if (strcmp(dir, "/") == 0 || !(slash = strrchr(dir, '/'))) {
			roz_free(dir);
			return ROZ_OK;
		}
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	*root = dir;
	return ROZ_OK;
}

int roz_orchestration_find(const char *cwd, roz_orchestration *o)
{
	char *dir, *path;
	struct stat st;

	memset(o, 0, sizeof *o);
	if (!cwd || cwd[0] != '/') {
		roz_error_set("the working directory is not an absolute path");
		return ROZ_EINVALID;
	}
	if (!(dir = roz_strdup(cwd)))
		return ROZ_ENOMEM;
	/* trailing slashes do not make another directory */
	for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = '\0';
	/*
	 * The nearest repository, unless one further up declares intents: a
	 * repository made inside a governed one (git init, a .git file, a
	 * submodule) does not take its files out of governance.
	 */
	for (;;) {
		char *slash;

		if (exists(dir, ".git")) {
			if (!o->root && !(o->root = roz_strdup(dir))) {
				roz_free(dir);
				return ROZ_ENOMEM;
			}
			if (declares(dir)) {
				roz_free(o->root);
				o->root = dir;
				break;
			}
		}
		if (strcmp(dir, "/") == 0 || !(slash = strrchr(dir, '/'))) {
			roz_free(dir);
			if (o->root)
				break;
			if (!(o->root = roz_strdup(cwd)))
				return ROZ_ENOMEM;
			for (size_t n = strlen(o->root); n > 1 && o->root[n - 1] == '/'; n--)
				o->root[n - 1] = '\0';
			break;
		}
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (!(path = roz_asprintf("%s/%s", strcmp(o->root, "/") ? o->root : "", ROZ_ORCH_INTENTS_FILE)))
		return ROZ_ENOMEM;
	o->governed = stat(path, &st) == 0 || errno != ENOENT;
	roz_free(path);
	if (o->governed) {
		o->has_dir = true;
	} else {
		if (!(path = roz_asprintf("%s/%s", strcmp(o->root, "/") ? o->root : "", ROZ_ORCH_DIR)))
			return ROZ_ENOMEM;
		o->has_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		roz_free(path);
	}
	if (o->governed)
		o->fold_case = folds_case(o->root);
	return ROZ_OK;
}

/*
 * Read a file of the folder: ROZ_OK with its text, ROZ_ENOTFOUND when it
 * is not there, ROZ_EINVALID / ROZ_EIO with a message naming it. With
 * `tail`, a larger file gives its last `max` bytes and *skipped the rest.
 */
static int read_file(const char *root, const char *name, size_t max, bool tail, char **text,
		     size_t *len, size_t *skipped)
{
	char *path = roz_asprintf("%s/%s", strcmp(root, "/") ? root : "", name);
	struct stat st;
	int fd = -1, rc;

	*text = NULL;
	*len = 0;
	if (skipped)
		*skipped = 0;
	if (!path)
		return ROZ_ENOMEM;
	/* non-blocking: a FIFO planted in the folder must not hang a hook */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = errno == ENOENT || errno == ENOTDIR ? ROZ_ENOTFOUND : ROZ_EIO;
		if (rc == ROZ_EIO)
			roz_error_set_errno(errno, "%s: cannot open", path);
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		roz_error_set("%s: not a regular file", path);
		rc = ROZ_EINVALID;
		goto out;
	}
	if (tail && (size_t)st.st_size > max) {
		if (lseek(fd, st.st_size - (off_t)max, SEEK_SET) < 0) {
			roz_error_set_errno(errno, "%s: cannot seek", path);
			rc = ROZ_EIO;
			goto out;
		}
		if (skipped)
			*skipped = (size_t)st.st_size - max;
	}
	rc = roz_file_read_fd(fd, (size_t)st.st_size, max, text, len);
	if (rc == ROZ_EINVALID)
		roz_error_set("%s: larger than %zu bytes", path, max);
	else if (rc == ROZ_EIO)
		roz_error_prefix("%s", path);
out:
	if (fd >= 0)
		close(fd);
	roz_free(path);
	return rc;
}

/* ---- the cache of parsed intents (roz/intents_cache.h) ---------------------------- */

/* Largest cache file read back. */
#define CACHE_MAX (4u * 1024u * 1024u)

/* What names this version of the intents file: any change to it changes one of these. */
static bool cache_key(const roz_orchestration *o, char *key, size_t size)
{
	char *path = roz_asprintf("%s/%s", strcmp(o->root, "/") ? o->root : "", ROZ_ORCH_INTENTS_FILE);
	struct stat st;
	bool ok;

	if (!path)
		return false;
	ok = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	roz_free(path);
	if (ok)
		snprintf(key, size, "roz-intents 1 %ju %ju %jd %lld.%09ld %lld.%09ld\n", (uintmax_t)st.st_dev,
			 (uintmax_t)st.st_ino, (intmax_t)st.st_size, (long long)st.st_mtim.tv_sec,
			 st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	return ok;
}

/* The cache file of this repository: one per root, named by its hash. */
static char *cache_path(const roz_orchestration *o, const char *suffix)
{
	char hex[ROZ_SHA256_HEX_SIZE];

	roz_digest_sha256_hex(o->root, strlen(o->root), hex);
	return roz_asprintf("%s/%.32s.json%s", o->cache_dir, hex, suffix);
}

static bool cache_load(roz_orchestration *o, const char *key)
{
	char *path = cache_path(o, ""), *text = NULL;
	size_t len = 0, klen = strlen(key);
	bool ok;

	if (!path)
		return false;
	ok = roz_file_read_path(path, O_NOFOLLOW, CACHE_MAX, &text, &len) == ROZ_OK && len > klen &&
	     memcmp(text, key, klen) == 0 && roz_intents_cache_read(text + klen, len - klen, &o->intents) == ROZ_OK;
	roz_free(text);
	roz_free(path);
	return ok;
}

/* Keep the parsed intents for the next hook; a cache that cannot be written is no cache. */
static void cache_store(const roz_orchestration *o, const char *key)
{
	char *path = cache_path(o, ""), *tmp = NULL;
	roz_buf b = ROZ_BUF_INIT;
	int fd = -1;
	bool done = false;

	if (!path || !(tmp = roz_asprintf("%s.%ld.tmp", path, (long)getpid())))
		goto out;
	roz_buf_adds(&b, key);
	roz_intents_cache_write(&o->intents, &b);
	if (roz_buf_failed(&b))
		goto out;
	if (mkdir(o->cache_dir, 0700) < 0 && errno != EEXIST)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		goto out;
	for (size_t at = 0; at < b.len;) {
		ssize_t n = write(fd, b.ptr + at, b.len - at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto out;
		at += (size_t)n;
	}
	if (close(fd) < 0) {
		fd = -1;
		goto out;
	}
	fd = -1;
	done = rename(tmp, path) == 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp && !done)
		unlink(tmp);
	roz_buf_dispose(&b);
	roz_free(tmp);
	roz_free(path);
}

static int load_intents(roz_orchestration *o)
{
	char *text = NULL;
	size_t len = 0;
	roz_intents_error err = {0, 0, NULL};
	char key[160];
	bool keyed = o->cache_dir && cache_key(o, key, sizeof key);
	int rc;

	if (keyed && cache_load(o, key)) {
		o->intents_ok = true;
		o->intents_cached = true;
		return ROZ_OK;
	}

	rc = read_file(o->root, ROZ_ORCH_INTENTS_FILE, ROZ_INTENTS_MAX_BYTES, false, &text, &len, NULL);
	if (rc == ROZ_ENOMEM)
		return rc;
	if (rc == ROZ_ENOTFOUND) {
		/* it was there a moment ago: governed, but nothing to judge by */
		o->intents_problem = roz_asprintf("%s: disappeared while roz read it", ROZ_ORCH_INTENTS_FILE);
		return o->intents_problem ? ROZ_OK : ROZ_ENOMEM;
	}
	if (rc < 0) {
		o->intents_problem = roz_strdup(roz_error_last());
		return o->intents_problem ? ROZ_OK : ROZ_ENOMEM;
	}
	rc = roz_intents_parse(text, len, &o->intents, &err);
	roz_free(text);
	if (rc == ROZ_ENOMEM) {
		roz_intents_error_dispose(&err);
		return rc;
	}
	if (rc < 0) {
		o->intents_problem = roz_asprintf("%s:%u:%u: %s", ROZ_ORCH_INTENTS_FILE, err.line, err.col,
						  err.message ? err.message : roz_error_last());
		roz_intents_error_dispose(&err);
		return o->intents_problem ? ROZ_OK : ROZ_ENOMEM;
	}
	roz_intents_error_dispose(&err);
	o->intents_ok = true;
	if (keyed)
		cache_store(o, key);
	return ROZ_OK;
}

static int load_ignore(roz_orchestration *o)
{
	char *text = NULL;
	size_t len = 0, skipped = 0;
	int rc = read_file(o->root, ROZ_ORCH_IGNORE_FILE, ROZ_ORCH_IGNORE_MAX, false, &text, &len, NULL);

	if (rc == ROZ_ENOMEM)
		return rc;
	if (rc == ROZ_ENOTFOUND)
		return ROZ_OK;
	if (rc < 0) {
		o->ignore_problem = roz_strdup(roz_error_last());
		return o->ignore_problem ? ROZ_OK : ROZ_ENOMEM;
	}
	rc = roz_ignore_parse(text, len, &o->ignore, &skipped);
	roz_free(text);
	if (rc < 0)
		return rc;
	o->have_ignore = true;
	if (skipped &&
	    !(o->ignore_problem = roz_asprintf("%s: %zu line(s) are not valid patterns and were skipped",
					       ROZ_ORCH_IGNORE_FILE, skipped)))
		return ROZ_ENOMEM;
	return ROZ_OK;
}

static int load_lessons(roz_orchestration *o)
{
	int rc = read_file(o->root, ROZ_ORCH_LESSONS_FILE, ROZ_ORCH_LESSONS_MAX, true, &o->lessons,
			   &o->lessons_len, &o->lessons_skipped);

	if (rc == ROZ_ENOMEM)
		return rc;
	/* lessons are advice: a file that cannot be read is left out */
	return ROZ_OK;
}

int roz_orchestration_load(roz_orchestration *o, unsigned what)
{
	int rc = ROZ_OK;

	if (!o->has_dir)
		return ROZ_OK;
	if ((what & ROZ_ORCH_INTENTS) && o->governed && !o->intents_ok && !o->intents_problem)
		rc = load_intents(o);
	if (rc == ROZ_OK && (what & ROZ_ORCH_IGNORE) && !o->have_ignore && !o->ignore_problem)
		rc = load_ignore(o);
	if (rc == ROZ_OK && (what & ROZ_ORCH_LESSONS) && !o->lessons)
		rc = load_lessons(o);
	return rc;
}

int roz_orchestration_hash_file(void *ud, const char *path, char out[65])
{
	unsigned char block[65536];
	roz_digest_sha256 *d;
	struct stat st;
	int fd, rc = ROZ_OK;

	(void)ud;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return ROZ_ENOTFOUND;
		roz_error_set_errno(errno, "%s: cannot open", path);
		return ROZ_EIO;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ROZ_ENOTFOUND;
	}
	if (!(d = roz_digest_sha256_begin())) {
		close(fd);
		return ROZ_ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, block, sizeof block);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			roz_error_set_errno(errno, "%s: cannot read", path);
			rc = ROZ_EIO;
			break;
		}
		if (n == 0)
			break;
		roz_digest_sha256_update(d, block, (size_t)n);
	}
	close(fd);
	if (rc < 0) {
		roz_digest_sha256_abort(d);
		return rc;
	}
	roz_digest_sha256_end(d, out);
	return ROZ_OK;
}

int roz_orchestration_governed_elsewhere(void *ud, const char *abs, const char *root, char **other)
{
	char *dir;
	size_t n;

	(void)ud;
	*other = NULL;
	if (!abs || abs[0] != '/' || !(dir = roz_strdup(abs)))
		return abs && abs[0] == '/' ? ROZ_ENOMEM : ROZ_OK;
	n = strlen(dir);
	for (;;) {
		struct stat st;
		char *p;

		/* up one directory: dir[0..n) */
		while (n > 1 && dir[n - 1] != '/')
			n--;
		n = n > 1 ? n - 1 : 1;
		dir[n] = '\0';
		if (!(p = roz_asprintf("%s/.git", n > 1 ? dir : "")))
			break;
		if (lstat(p, &st) == 0) {
			roz_free(p);
			if (!(p = roz_asprintf("%s/" ROZ_ORCH_INTENTS_FILE, n > 1 ? dir : "")))
				break;
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
				roz_free(p);
				if (strcmp(dir, root) != 0)
					*other = dir;
				else
					roz_free(dir);
				return ROZ_OK;
			}
		}
		roz_free(p);
		if (n == 1) {
			roz_free(dir);
			return ROZ_OK;
		}
	}
	roz_free(dir);
	return ROZ_ENOMEM;
}
