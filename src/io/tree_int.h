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

#include <string.h>

/*
 * strcmp's sign for the path `s` against the key: its first `len` bytes
 * `key` (holding no NUL), or, when `under`, `key` followed by '/' (what
 * sorts with everything under it). The picked walk and the patch both
 * search sorted paths with it.
 */
static inline int tree_key_cmp(const char *s, const char *key, size_t len, bool under)
{
	int c = strncmp(s, key, len);
	unsigned char x;

	if (c)
		return c;
	x = (unsigned char)s[len];
	if (!under)
		return x != 0;
	return x < '/' ? -1 : x > '/' ? 1 : s[len + 1] != 0;
}

/* Whether the path `s` lies under the `len` bytes of `key`. */
static inline bool tree_under(const char *s, const char *key, size_t len)
{
	return strncmp(s, key, len) == 0 && s[len] == '/';
}

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
