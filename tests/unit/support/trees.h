/*
 * trees.h - what the tests of working-tree snapshots (roz/tree.h) share:
 * a walk that fails the test when it fails, a tree's paths as text, and
 * entry-by-entry comparison.
 */
#ifndef ROZ_TEST_TREES_H
#define ROZ_TEST_TREES_H

#include "roz/tree.h"

/* roz_tree_walk, failing the test with the reason when it fails. */
void t_tree_walk(const char *root, const roz_tree_opts *o, roz_tree *t);

/* The paths of a tree, one per line (caller frees): what most tests compare. */
char *t_tree_listing(const roz_tree *t);

/* Every stat field and the path the same. */
void t_assert_same_entry(const roz_tree_entry *x, const roz_tree_entry *y);

#endif
