/*
 * trees.c - helpers for the tests of working-tree snapshots (trees.h).
 */
#include "support.h"
#include "trees.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void t_tree_walk(const char *root, const roz_tree_opts *o, roz_tree *t)
{
	int rc = roz_tree_walk(root, o, t);

	if (rc != ROZ_OK)
		fail_msg("walk %s: %s (%s)", root, roz_error_name(rc), roz_error_last());
}

char *t_tree_listing(const roz_tree *t)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; i < t->n; i++)
		len += strlen(t->items[i].path) + 1;
	p = s = malloc(len);
	assert_non_null(s);
	for (size_t i = 0; i < t->n; i++)
		p += sprintf(p, "%s\n", t->items[i].path);
	*p = '\0';
	return s;
}

void t_assert_same_entry(const roz_tree_entry *x, const roz_tree_entry *y)
{
	assert_string_equal(x->path, y->path);
	assert_int_equal(x->mode, y->mode);
	assert_int_equal(x->nlink, y->nlink);
	assert_int_equal(x->size, y->size);
	assert_int_equal(x->ino, y->ino);
	assert_int_equal(x->mtime_ns, y->mtime_ns);
	assert_int_equal(x->ctime_ns, y->ctime_ns);
}
