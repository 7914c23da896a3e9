/*
 * tree_int.h - what the walk (tree.c) and the snapshot file (tree_file.c)
 * must agree on. Private to src/io/.
 */
#ifndef ROZ_TREE_INT_H
#define ROZ_TREE_INT_H

#include <limits.h>

/* A path of this many bytes or more is never listed, so never saved or loaded either. */
#define TREE_PATH_MAX PATH_MAX

#include "roz/tree.h"

typedef void (*tree_each_fn)(void *ud, const roz_tree_entry *e);

/*
 * The patch of roz_tree_patch without making it (tree_patch.c): each(ud,
 * e) for every entry of the result in order (each may be NULL), gone(ud, e)
 * for every entry of `before` it does not keep (may be NULL); the result's
 * entry count and path bytes (NULs included) into *n and *bytes. ROZ_OK or
 * ROZ_ENOMEM.
 */
int tree_patch_each(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks, size_t npicks,
		    tree_each_fn each, tree_each_fn gone, void *ud, size_t *n, size_t *bytes);

#endif
