/*
 * roz/worktree.h - a repository's working tree as git sees it, for the
 * review: the task's baseline, what the work changed since, and the
 * fingerprint an approval is bound to (roz/fingerprint.h).
 *
 * The working tree is written as a git tree object through an index file
 * of roz's own (GIT_INDEX_FILE): made as a copy of the repository's index,
 * brought up to date with every file git does not ignore (`git add -A`),
 * then `git write-tree`. The repository's own index, its branches and its
 * staged work are never touched; the blobs of changed and untracked files
 * are written to its object store, unreferenced, as `git stash` does, and
 * go with git's own garbage collection. Keeping the index file between
 * runs lets git hash only the files whose stat data moved since.
 *
 * What git ignores is not part of the work (build output, caches); a
 * submodule counts by the commit it is at, not by its own working tree.
 */
#ifndef ROZ_WORKTREE_H
#define ROZ_WORKTREE_H

#include <stdint.h>

#include "roz/common.h"
#include "roz/fingerprint.h"
#include "roz/vcs.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The working tree of the repository at `root` as a tree object, its id
 * into `out`, through the index file `index` (absolute; a copy of the
 * repository's index is made there when it is missing). Each git run may
 * take `timeout_ms` (0: no bound). ROZ_OK, ROZ_ENOTFOUND (no repository
 * at root), ROZ_ETIMEOUT, ROZ_EIO (git failed; roz_error_last says how),
 * ROZ_ENOMEM.
 */
int roz_worktree_tree(const char *root, const char *index, uint32_t timeout_ms,
		      char out[ROZ_VCS_REVISION_SIZE]) ROZ_WARN_UNUSED;

/*
 * Put into *fp each file that differs between trees `from` and `to`: its
 * path (relative to root), its blob id and mode in `to` ("" and 0 when
 * `to` has no such file). A rename is the old path gone and the new one
 * there. ROZ_OK, ROZ_ETIMEOUT, ROZ_EIO, ROZ_ENOMEM.
 */
int roz_worktree_changes(const char *root, const char *from, const char *to, uint32_t timeout_ms,
			 roz_fingerprint *fp) ROZ_WARN_UNUSED;

/* One file's change between two trees, as a reviewer reads it. */
typedef struct roz_worktree_stat {
	char *path;        /* in `to`; for a removal, in `from` */
	char *from;        /* a rename's or copy's old path, or NULL */
	char status;       /* 'A' added, 'M' modified, 'D' removed, 'R' renamed, 'T' type changed */
	bool binary;       /* no line counts */
	uint64_t added, removed; /* lines */
} roz_worktree_stat;

/*
 * The files that differ between trees `from` and `to` with lines added and
 * removed (renames paired, as `git diff -M` pairs them), at most `max`
 * (0: all) into *out (caller frees with roz_worktree_stats_free), *n of
 * them, *more those left out. ROZ_OK, ROZ_ETIMEOUT, ROZ_EIO, ROZ_ENOMEM.
 */
int roz_worktree_numstat(const char *root, const char *from, const char *to, uint32_t timeout_ms, size_t max,
			 roz_worktree_stat **out, size_t *n, size_t *more) ROZ_WARN_UNUSED;
void roz_worktree_stats_free(roz_worktree_stat *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif
