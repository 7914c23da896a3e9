/*
 * tree_int.h - what the walk (tree.c) and the snapshot file (tree_file.c)
 * must agree on. Private to src/io/.
 */
#ifndef ROZ_TREE_INT_H
#define ROZ_TREE_INT_H

#include <limits.h>

/* A path of this many bytes or more is never listed, so never saved or loaded either. */
#define TREE_PATH_MAX PATH_MAX

#endif
