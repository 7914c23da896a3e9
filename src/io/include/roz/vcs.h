/*
 * roz/vcs.h - the revision a repository is at, read from .git without
 * running git: HEAD, the branch it names (a loose ref, else packed-refs),
 * or a detached commit; `.git` may be a file ("gitdir: ...", as in
 * worktrees and submodules), and a worktree's refs live in its common
 * directory ("commondir").
 */
#ifndef ROZ_VCS_H
#define ROZ_VCS_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_VCS_REVISION_SIZE 65 /* a SHA-1 (40) or SHA-256 (64) hex name and its NUL */

/*
 * The commit HEAD names, as lowercase hex, for the repository whose root
 * is `root`. ROZ_OK, ROZ_ENOTFOUND (no .git, or a branch with no commit
 * yet) or ROZ_EINVALID (something there is not what git writes;
 * roz_error_last says what). Reads at most a few small files.
 */
int roz_vcs_git_head(const char *root, char out[ROZ_VCS_REVISION_SIZE]) ROZ_WARN_UNUSED;

/*
 * The git directory of the repository whose root is `root`: root/.git, or
 * where a `.git` file's "gitdir:" line points (a worktree, a submodule).
 * *out is allocated. ROZ_OK, ROZ_ENOTFOUND, ROZ_EINVALID, ROZ_EIO, ROZ_ENOMEM.
 */
int roz_vcs_git_dir(const char *root, char **out) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
