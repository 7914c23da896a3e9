/*
 * path.c - making a path from a tool call absolute and folding it, lexically
 * or by following symbolic links through a callback, and asking whether it
 * lies inside a directory. Pure: the file system is the caller's business.
 */
#include "roz/path.h"

#include <string.h>

/* The text after a leading `~` or `$HOME` / `${HOME}`, or NULL when the path does not start so. */
static const char *after_home(const char *path)
{
	static const char *const spellings[] = {"~", "$HOME", "${HOME}"};

	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		size_t n = strlen(spellings[i]);

		if (strncmp(path, spellings[i], n) == 0 && (path[n] == '/' || path[n] == '\0'))
			return path + n;
	}
	return NULL;
}

/* The path made absolute, not yet folded. */
static int join(const char *base, const char *home, const char *path, roz_buf *b)
{
	const char *rest;

	if (!*path) {
		roz_error_set("an empty path names no file");
		return ROZ_EINVALID;
	}
	roz_buf_grow(b, strlen(path) + (base ? strlen(base) : 0) + (home ? strlen(home) : 0) + 2);
	if (path[0] == '/') {
		roz_buf_adds(b, path);
	} else if ((rest = after_home(path)) != NULL) {
		if (!home || home[0] != '/') {
			roz_error_set("'%.80s' starts at the home directory, which is not known", path);
			return ROZ_EINVALID;
		}
		roz_buf_adds(b, home);
		roz_buf_addc(b, '/');
		roz_buf_adds(b, rest);
	} else if (path[0] == '~' && path[1] != '+') {
		/* ~user and ~- (the previous directory) name places only the shell knows */
		roz_error_set("'%.80s' starts at a directory roz cannot know", path);
		return ROZ_EINVALID;
	} else {
		if (!base || base[0] != '/') {
			roz_error_set("'%.80s' is relative and there is no working directory", path);
			return ROZ_EINVALID;
		}
		roz_buf_adds(b, base);
		roz_buf_addc(b, '/');
		/* ~+ is the working directory itself */
		roz_buf_adds(b, path[0] == '~' ? path + 2 : path);
	}
	return roz_buf_failed(b);
}

/* Append one component to a folded path held in b ("/" or "/a/b"). */
static void push(roz_buf *b, const char *comp, size_t n)
{
	if (b->len > 1)
		roz_buf_addc(b, '/');
	roz_buf_add(b, comp, n);
}

/* Drop the last component of a folded path; the root stays the root. */
static void pop(roz_buf *b)
{
	char *slash;

	if (b->len <= 1)
		return;
	slash = strrchr(b->ptr, '/');
	b->len = slash == b->ptr ? 1 : (size_t)(slash - b->ptr);
	b->ptr[b->len] = '\0';
}

/* Fold `.`, `..` and repeated slashes of an absolute path into b. */
static void fold(roz_buf *b, const char *s)
{
	/* the folded path is never longer than the text: one allocation */
	roz_buf_grow(b, strlen(s) + 1);
	roz_buf_adds(b, "/");
	while (*s) {
		size_t n;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 2 && s[0] == '.' && s[1] == '.')
			pop(b);
		else if (n && !(n == 1 && s[0] == '.'))
			push(b, s, n);
		s += n;
	}
}

int roz_path_normalize(const char *base, const char *home, const char *path, char **out)
{
	roz_buf joined = ROZ_BUF_INIT, b = ROZ_BUF_INIT;
	int rc;

	*out = NULL;
	if ((rc = join(base, home, path, &joined)) < 0)
		goto out;
	fold(&b, joined.ptr);
	if ((rc = roz_buf_failed(&b)) == ROZ_OK)
		*out = roz_buf_detach(&b, NULL);
out:
	roz_buf_dispose(&joined);
	roz_buf_dispose(&b);
	return rc;
}

/*
 * Walk the components left to right as the kernel does: `cur` is always
 * the physical directory reached so far, so `..` leaves where a link went,
 * and a link's target is read in place of the component, followed by the
 * components still to come.
 */
int roz_path_resolve(const roz_path_fs *fs, const char *base, const char *path, char **out)
{
	roz_buf todo = ROZ_BUF_INIT, next = ROZ_BUF_INIT, cur = ROZ_BUF_INIT;
	unsigned links = 0;
	size_t at = 0;
	int rc;

	if (!fs || !fs->read_link)
		return roz_path_normalize(base, fs ? fs->home : NULL, path, out);
	*out = NULL;
	if ((rc = join(base, fs->home, path, &todo)) < 0)
		goto out;
	roz_buf_adds(&cur, "/");
	while (at < todo.len && (rc = roz_buf_failed(&cur)) == ROZ_OK) {
		const char *s = todo.ptr + at;
		size_t n, keep;
		char *target = NULL;

		if (*s == '/') {
			at++;
			continue;
		}
		n = strcspn(s, "/");
		at += n;
		if (n == 1 && s[0] == '.')
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			pop(&cur);
			continue;
		}
		keep = cur.len;
		push(&cur, s, n);
		if ((rc = roz_buf_failed(&cur)) < 0)
			goto out;
		rc = fs->read_link(fs->ud, cur.ptr, &target);
		if (rc == ROZ_ENOTFOUND || (rc == ROZ_OK && (!target || !*target))) {
			roz_free(target);
			rc = ROZ_OK;
			continue;
		}
		if (rc < 0)
			goto out;
		if (++links > ROZ_PATH_MAX_LINKS) {
			roz_free(target);
			roz_error_set("'%.80s' goes through more than %d symbolic links", path,
				      ROZ_PATH_MAX_LINKS);
			rc = ROZ_EINVALID;
			goto out;
		}
		/* the link is replaced by its target, read from the link's directory or the root */
		cur.len = target[0] == '/' ? 1 : keep;
		cur.ptr[cur.len] = '\0';
		roz_buf_reset(&next);
		roz_buf_adds(&next, target);
		roz_buf_addc(&next, '/');
		roz_buf_adds(&next, todo.ptr + at);
		roz_free(target);
		if ((rc = roz_buf_failed(&next)) < 0)
			goto out;
		roz_buf_reset(&todo);
		roz_buf_add(&todo, next.ptr, next.len);
		at = 0;
	}
	if (rc == ROZ_OK && (rc = roz_buf_failed(&todo)) == ROZ_OK && (rc = roz_buf_failed(&cur)) == ROZ_OK)
		*out = roz_buf_detach(&cur, NULL);
out:
	roz_buf_dispose(&todo);
	roz_buf_dispose(&next);
	roz_buf_dispose(&cur);
	return rc;
}

bool roz_path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}
