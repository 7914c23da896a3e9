/*
 * tree_diff.c - two snapshots of a working tree compared in one pass over
 * their sorted entries (roz/tree_diff.h).
 */
#include "roz/tree_diff.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The nearest directory of `path` that `t` still holds, or NULL for the root. */
static const roz_tree_entry *standing_parent(const roz_tree *t, const char *path, char *buf, size_t size)
{
	size_t len = strlen(path);

	if (len >= size)
		return NULL;
	memcpy(buf, path, len + 1);
	for (;;) {
		char *slash = strrchr(buf, '/');
		const roz_tree_entry *e;

		if (!slash)
			return NULL;
		*slash = '\0';
		if ((e = roz_tree_find(t, buf)) && S_ISDIR(e->mode))
			return e;
	}
}

static bool same_type(uint32_t a, uint32_t b)
{
	return (a & S_IFMT) == (b & S_IFMT);
}

typedef struct pending {
	const roz_tree_entry *e;
	bool used;
} pending;

static int by_ino(const void *x, const void *y)
{
	const pending *a = x, *b = y;

	return a->e->ino < b->e->ino ? -1 : a->e->ino > b->e->ino;
}

int roz_tree_diff(const roz_tree *before, const roz_tree *after, int64_t root_ctime_ns, int64_t since_ns,
		  roz_changes *out, size_t *others)
{
	pending *gone = NULL, *born = NULL;
	size_t ngone = 0, nborn = 0, i = 0, j = 0, old = 0;
	char buf[4096];
	int rc = ROZ_OK;

	if ((before->n && !(gone = roz_calloc(before->n, sizeof *gone))) ||
	    (after->n && !(born = roz_calloc(after->n, sizeof *born)))) {
		rc = ROZ_ENOMEM;
		goto out;
	}
	while (i < before->n || j < after->n) {
		const roz_tree_entry *b = i < before->n ? &before->items[i] : NULL;
		const roz_tree_entry *a = j < after->n ? &after->items[j] : NULL;
		int cmp = !b ? 1 : !a ? -1 : strcmp(b->path, a->path);

		if (cmp < 0) {
			/* gone: the call's doing when the directory that held it changed during the call */
			const roz_tree_entry *p = standing_parent(after, b->path, buf, sizeof buf);
			int64_t when = p ? p->ctime_ns : root_ctime_ns;

			if (when >= since_ns)
				gone[ngone++].e = b;
			else
				old++;
			i++;
			continue;
		}
		if (cmp > 0) {
			if (a->ctime_ns >= since_ns)
				born[nborn++].e = a;
			else
				old++;
			j++;
			continue;
		}
		i++, j++;
		{
			bool dir = S_ISDIR(a->mode) && S_ISDIR(b->mode);
			bool type = !same_type(a->mode, b->mode);
			bool content = !dir && (a->size != b->size || a->mtime_ns != b->mtime_ns || a->ino != b->ino);
			bool mode = (a->mode & 07777) != (b->mode & 07777);
			bool linked = !dir && a->nlink != b->nlink;
			roz_change_kind k;

			if (!type && !content && !mode && !linked)
				continue;
			/* every such change moves the change time, which nobody can set back */
			if (a->ctime_ns < since_ns) {
				old++;
				continue;
			}
			k = type || content ? ROZ_CHANGE_MODIFIED : mode ? ROZ_CHANGE_MODE : ROZ_CHANGE_LINKED;
			if ((rc = roz_changes_add(out, k, a->path, NULL, dir, true)) < 0)
				goto out;
		}
	}
	/* a removal and a creation of the same file are a rename (creations sorted by inode) */
	if (nborn)
		qsort(born, nborn, sizeof *born, by_ino);
	for (size_t g = 0; g < ngone; g++) {
		size_t lo = 0, hi = nborn;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (born[mid].e->ino < gone[g].e->ino)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t n = lo; n < nborn && born[n].e->ino == gone[g].e->ino; n++) {
			if (born[n].used || !same_type(born[n].e->mode, gone[g].e->mode))
				continue;
			born[n].used = gone[g].used = true;
			if ((rc = roz_changes_add(out, ROZ_CHANGE_RENAMED, born[n].e->path, gone[g].e->path,
						  S_ISDIR(born[n].e->mode), false)) < 0)
				goto out;
			break;
		}
	}
	for (size_t g = 0; g < ngone; g++)
		if (!gone[g].used && (rc = roz_changes_add(out, ROZ_CHANGE_REMOVED, gone[g].e->path, NULL,
							   S_ISDIR(gone[g].e->mode), true)) < 0)
			goto out;
	for (size_t n = 0; n < nborn; n++)
		if (!born[n].used && (rc = roz_changes_add(out, ROZ_CHANGE_CREATED, born[n].e->path, NULL,
							   S_ISDIR(born[n].e->mode), false)) < 0)
			goto out;
out:
	roz_free(gone);
	roz_free(born);
	if (others)
		*others = old;
	return rc;
}
