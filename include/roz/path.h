/*
 * roz/path.h - where a path named in a tool call really points.
 *
 * A tool call names files the way a shell or an editor would: relative to
 * the working directory, with `~`, `..`, doubled slashes and symbolic
 * links. Before roz decides whether a path lies inside a directory it
 * cares about (its own storage, and later the governance scope), the path
 * is made absolute and folded:
 *
 *   roz_path_normalize(base, home, path)   lexically: `~` and `$HOME` at the
 *       start become `home`, a relative path is joined to `base`, then `.`,
 *       `..` and repeated slashes are folded (`..` at the root stays there);
 *   roz_path_resolve(fs, base, path)       the same, following symbolic links
 *       as the kernel would, one component at a time, through fs->read_link;
 *   roz_path_under(path, dir)              path is dir or lies inside it.
 *
 * The core never touches the file system: what a link points to comes from
 * the read_link callback the runner supplies (tests supply a table). A path
 * whose links cannot be followed (a loop, more than ROZ_PATH_MAX_LINKS links)
 * is reported as an error, so the caller can treat it as unknown.
 *
 * Ownership: every `char **out` is set to a new string the caller frees, and
 * to NULL on failure. Errors: ROZ_EINVALID (with roz_error_last()) when the
 * path cannot be made absolute (a relative path with no absolute base, `~`
 * with no home, `~user`) or its links cannot be followed; ROZ_ENOMEM.
 */
#ifndef ROZ_PATH_H
#define ROZ_PATH_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How many symbolic links one resolution follows before giving up (as Linux does). */
#define ROZ_PATH_MAX_LINKS 40

/*
 * What the file system says about `path` (absolute, folded up to its last
 * component): ROZ_OK with *target (caller frees) when it is a symbolic link;
 * ROZ_ENOTFOUND when it is not a link, or does not exist; ROZ_ENOMEM.
 */
typedef int (*roz_path_read_link_fn)(void *ud, const char *path, char **target);

typedef struct roz_path_fs {
	const char *home;                /* the user's home directory, or NULL if unknown */
	roz_path_read_link_fn read_link; /* NULL: links are not followed */
	void *ud;
} roz_path_fs;

/* The lexical form of `path`: absolute, `~`/`$HOME` expanded, `.`/`..`/`//` folded. */
int roz_path_normalize(const char *base, const char *home, const char *path,
		       char **out) ROZ_WARN_UNUSED;

/*
 * The physical form of `path`: like roz_path_normalize(), but a `..` after a
 * link goes up from where the link points, as the kernel does. Components
 * that do not exist are folded lexically. With no read_link this is
 * roz_path_normalize().
 */
int roz_path_resolve(const roz_path_fs *fs, const char *base, const char *path,
		     char **out) ROZ_WARN_UNUSED;

/* True when normalised `path` is `dir` or lies inside it (`/a/bc` is not inside `/a/b`). */
bool roz_path_under(const char *path, const char *dir);

#ifdef __cplusplus
}
#endif

#endif
