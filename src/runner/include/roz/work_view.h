/*
 * roz/work_view.h - the runner's view of the working tree for the review
 * (roz/work.h): the baseline and fingerprints through git (roz/worktree.h),
 * the mark a tool call clears, and the list of files written outside the
 * repository.
 *
 * Files, under <storage>/trees/ (made private, 0700):
 *
 *   <session>-<root>.index  git's index of the working tree as last looked
 *                           at (the root as the first 16 hex digits of the
 *                           SHA-256 of its path), so a look hashes only what
 *                           moved since
 *   <session>.armed         there from an approval until a tool call that
 *                           can write: while it is, a stop need not look
 *                           (made before the approval's look, so a call
 *                           during that look clears it)
 *   <session>.touched       the files the session's Write, Edit, MultiEdit
 *                           and NotebookEdit calls wrote outside its
 *                           repository, a line each (absolute paths), for
 *                           work outside any repository
 *
 * `roz clean` removes them with their session.
 */
#ifndef ROZ_WORK_VIEW_H
#define ROZ_WORK_VIEW_H

#include "roz/hook_io.h"
#include "roz/work.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest one git run may take for a look (then the look fails, and the gate stays open). */
#define ROZ_WORK_GIT_TIMEOUT_MS 2000u

typedef struct roz_work_view {
	const char *storage; /* the config's storage_path */
	const char *sid;     /* a valid session id */
	const char *cwd;     /* where the session works (absolute), or NULL */
} roz_work_view;

/* ops over v (borrowed: keep v and its strings while ops is used). No I/O. */
void roz_work_view_ops(roz_work_view *v, roz_work_ops *ops);

/*
 * Around a tool call: one that can write (not Read, not an Agent or Task
 * launch, not the reviewer's own) clears the session's mark, before it runs
 * (PreToolUse: a call that fails gets no PostToolUse) and after (`after`,
 * PostToolUse: a call that ran while an approval was being recorded); and
 * after it, a file a Write, Edit, MultiEdit or NotebookEdit wrote outside
 * the session's repository is added to its list. Failures are ignored: the
 * next look sees the tree.
 */
void roz_work_tool_call(const char *storage, bool after, const roz_hook_input *in);

/*
 * The files the session wrote outside its repository since `from` bytes of
 * its list, each once, in *paths (a NULL-terminated array; free with
 * roz_work_paths_free). ROZ_OK (none: an empty list), ROZ_EIO, ROZ_ENOMEM.
 */
int roz_work_touched(const roz_work_view *v, uint64_t from, char ***paths, size_t *n) ROZ_WARN_UNUSED;
void roz_work_paths_free(char **paths);

/* <storage>/trees/<sid>-<root>.index (made: the folder), or NULL with roz_error_last set. */
char *roz_work_index_path(const roz_work_view *v, const char *root);

#ifdef __cplusplus
}
#endif

#endif
