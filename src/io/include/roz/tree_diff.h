/*
 * roz/tree_diff.h - what changed between two snapshots of a working tree
 * (roz/tree.h), as the changes detection judges (roz/detect.h).
 *
 * Only changes made since `since_ns` count (the start of the tool call,
 * on the clock file times use): a file whose change time is older was
 * changed before the call, by someone else, and is not the call's doing.
 * A removal counts when the nearest directory still standing above it
 * changed since then. A removal and a creation of the same inode are one
 * rename. A directory is reported only when it is created, removed or
 * its mode changes: its other changes are its entries'.
 */
#ifndef ROZ_TREE_DIFF_H
#define ROZ_TREE_DIFF_H

#include "roz/detect.h"
#include "roz/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Append to *out every change from `before` to `after` made since
 * `since_ns` (`root_ctime_ns`: the root directory's change time now, which
 * the snapshots do not hold); *others (may be NULL) counts the differences older than
 * that. ROZ_OK or ROZ_ENOMEM.
 */
int roz_tree_diff(const roz_tree *before, const roz_tree *after, int64_t root_ctime_ns, int64_t since_ns,
		  roz_changes *out, size_t *others) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
