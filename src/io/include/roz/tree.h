/*
 * roz/tree.h - what a repository's working tree holds, by lstat: the
 * snapshot detection compares before and after a tool call
 * (docs/governance.md, "Detection").
 *
 * A walk lists every directory, regular file, symbolic link and other
 * non-directory under a root, with the stat fields a change moves (type
 * and mode, size, modification and change times in nanoseconds, inode,
 * link count). It never follows a link, never reads a file's content and
 * never leaves the root's file system. It skips, without descending:
 *
 *   - `.git` (a directory, or the file of a worktree or submodule) at any
 *     depth: git's own store is not the working tree;
 *   - what git ignores: the root's `.gitignore`, `.git/info/exclude`, and
 *     each directory's `.gitignore` for the paths under it (git's rules:
 *     the last matching line wins, `!` re-includes, a trailing `/` matches
 *     directories only, a pattern with a `/` before its end is anchored to
 *     the directory of its file);
 *   - what the caller's `extra` rules ignore (`.intentignore`);
 *
 * except that `.orchestration/` and everything in it is always listed,
 * whatever any ignore file says.
 *
 * Entries are sorted by path (bytewise, strcmp), which makes two snapshots
 * comparable in one merge pass. A walk stops at `max_entries`, marking the
 * snapshot truncated: the caller then knows it cannot judge the tree.
 *
 * A snapshot is saved to a file and read back whole or not at all: a
 * saved file is written beside its final name and renamed over it, and
 * its checksum is verified on load, so a torn or foreign file reads as
 * ROZ_ECORRUPT, never as a smaller tree.
 *
 * Ownership: roz_tree owns its entries and their paths; release it with
 * roz_tree_dispose().
 */
#ifndef ROZ_TREE_H
#define ROZ_TREE_H

#include <stdint.h>

#include "roz/common.h"
#include "roz/scope.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roz_tree_entry {
	char *path;         /* relative to the root, '/'-separated, no leading "./" */
	uint32_t mode;      /* st_mode: file type and permission bits */
	uint32_t nlink;
	uint64_t size;
	uint64_t ino;
	int64_t mtime_ns;   /* st_mtim, nanoseconds since the epoch */
	int64_t ctime_ns;   /* st_ctim, the same */
} roz_tree_entry;

typedef struct roz_tree {
	roz_tree_entry *items; /* sorted by path */
	size_t n;
	uint64_t dev;          /* the root's st_dev; entries on other devices are not listed */
	int64_t taken_ns;      /* CLOCK_REALTIME_COARSE when the walk began (the clock file times use) */
	bool truncated;        /* not the whole tree: the walk stopped at max_entries, or met a path
				  deeper than 256 components or longer than PATH_MAX (tree.c) */
	uint64_t watch_id;     /* the watcher (roz/watch.h) whose changes since watch_gen are all that
				  moved since this tree was true; 0: none, the next look walks */
	uint64_t watch_gen;
} roz_tree;

/*
 * A path to look at again (roz_tree_opts.only): the path itself, and, when
 * `deep` and it is a directory, everything under it.
 */
typedef struct roz_tree_pick {
	const char *path; /* relative to the root, as roz_tree_entry.path */
	bool deep;
} roz_tree_pick;

typedef struct roz_tree_opts {
	size_t max_entries;        /* 0: ROZ_TREE_MAX_ENTRIES */
	const roz_ignore *extra;   /* more paths to skip (relative to the root), or NULL */
	bool fold_case;            /* match ignore rules with ASCII case folded */
	/*
	 * Only these paths (sorted by strcmp, no two equal), or NULL for the
	 * whole tree: the walk then lists exactly the entries a whole walk
	 * would list that are a picked path, under a deep pick, or a directory
	 * on the way to a picked path, and stats nothing else.
	 */
	const roz_tree_pick *only;
	size_t nonly;
} roz_tree_opts;

#define ROZ_TREE_MAX_ENTRIES 200000u

/*
 * Walk the tree under `root` (absolute, a directory) into *out, which is
 * overwritten. ROZ_OK (out->truncated says whether it is whole), ROZ_ENOTFOUND
 * (no such directory), ROZ_EIO (the root cannot be read; roz_error_last
 * says why), ROZ_ENOMEM. Directories below the root that cannot be read
 * are listed themselves, without their contents.
 */
int roz_tree_walk(const char *root, const roz_tree_opts *o, roz_tree *out) ROZ_WARN_UNUSED;

/*
 * The tree `before` brought up to date by `part`, a walk of the same root
 * with `only` = picks (sorted, as roz_tree_opts.only): every entry of
 * `before` that is a picked path, is under a deep pick, or is listed in
 * `part` is dropped, and every entry of `part` is taken, into *out
 * (overwritten; its own copy of every path; sorted). out->taken_ns, dev and
 * the watch fields are part's, truncated is either's. When nothing outside
 * the picks changed since `before` was walked, *out is what a whole walk
 * would list now. ROZ_OK, ROZ_ENOMEM.
 */
int roz_tree_patch(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks, size_t npicks,
		   roz_tree *out) ROZ_WARN_UNUSED;

/*
 * What roz_tree_patch would take out of `before` (the entries it drops or
 * finds listed again in `part`), as *n copies of those entries whose paths
 * are before's (the caller frees only *out, with roz_free), and how many
 * entries the patched tree would hold in *kept; the patched tree itself is
 * not made. Comparing those with `part` is comparing `before` with the
 * patched tree. ROZ_OK, ROZ_ENOMEM.
 */
int roz_tree_patch_dropped(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks,
			   size_t npicks, roz_tree_entry **out, size_t *n, size_t *kept) ROZ_WARN_UNUSED;

/*
 * Save to `file` the tree roz_tree_patch(before, part, picks) would make,
 * as it is merged, without making it. ROZ_OK, ROZ_EIO, ROZ_ENOMEM.
 */
int roz_tree_save_patched(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks,
			  size_t npicks, const char *file) ROZ_WARN_UNUSED;

/* qsort/bsearch order of roz_tree_pick by path (strcmp), as roz_tree_opts.only wants them. */
int roz_tree_pick_cmp(const void *a, const void *b);

/* The entry for `path`, or NULL (binary search). */
const roz_tree_entry *roz_tree_find(const roz_tree *t, const char *path);

/*
 * Save *t to `file` (its directory must exist): written to a temporary
 * name beside it, then renamed over it. ROZ_OK, ROZ_EIO, ROZ_ENOMEM.
 */
int roz_tree_save(const roz_tree *t, const char *file) ROZ_WARN_UNUSED;

/*
 * Read a saved snapshot into *out (overwritten). ROZ_OK, ROZ_ENOTFOUND,
 * ROZ_ECORRUPT (torn, foreign or from another format version: treat as
 * absent), ROZ_EIO, ROZ_ENOMEM.
 */
int roz_tree_load(const char *file, roz_tree *out) ROZ_WARN_UNUSED;

void roz_tree_dispose(roz_tree *t);

#ifdef __cplusplus
}
#endif

#endif
