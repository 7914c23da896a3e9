/*
 * tree_patch.c - an earlier snapshot brought up to date by a walk of the
 * paths that moved since (roz_tree_patch, roz/tree.h).
 *
 * A watcher (roz/watch.h) says which paths moved; a picked walk (tree.c,
 * "Picked paths") lists what is there now of those paths; the patch puts
 * that in place of what the earlier tree held of them. It must cost far
 * less than the walk it replaces, and the earlier tree may hold a hundred
 * thousand entries, so nothing is done per entry but a look at a flag and
 * a copy: what a pick drops from the earlier tree is found by binary
 * search (the entry equal to the pick and, for a deep pick, the contiguous
 * run of entries starting with the pick and a '/'), the runs are sorted by
 * where they start, and one merge pass of the two sorted trees steps over
 * them. A path that both trees list is taken from the walk.
 *
 * The result is laid out as a walk's (tree.c, "Memory"): the entries, and
 * one pool holding every path in entry order, so roz_tree_dispose frees
 * it, and a save writes the pool as it is. The merge runs twice, first to
 * count the entries and the pool's bytes, then to fill them, so that each
 * is one allocation of the right size.
 *
 * A hook need not make the result at all: a fresh process pays a page
 * fault for every page it fills, and the result is as large as the tree.
 * It compares only what the patch takes out of the earlier tree
 * (roz_tree_patch_dropped, a copy of those entries, their paths
 * borrowed) with the walk, and saves the result as the merge produces it
 * (roz_tree_save_patched, tree_file.c, through tree_patch_each).
 */
#include "roz/tree.h"

#include <stdlib.h>
#include <string.h>

#include "tree_int.h"

int roz_tree_pick_cmp(const void *a, const void *b)
{
	return strcmp(((const roz_tree_pick *)a)->path, ((const roz_tree_pick *)b)->path);
}

/* Entries of the earlier tree a pick drops: items[lo..hi). */
typedef struct span {
	size_t lo, hi;
} span;


/* The first entry of t at or after lo that is not before the key of p. */
static size_t bound(const roz_tree *t, size_t lo, const char *p, size_t len, bool under)
{
	size_t hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tree_key_cmp(t->items[mid].path, p, len, under) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first entry of t at or after lo that does not start with p and a '/'. */
static size_t end_under(const roz_tree *t, size_t lo, const char *p, size_t len)
{
	size_t hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *path = t->items[mid].path;

		if (tree_under(path, p, len))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int by_start(const void *x, const void *y)
{
	const span *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/*
 * The spans of `before` the picks drop, sorted by start, into *out (n of
 * them, none empty). ROZ_OK or ROZ_ENOMEM.
 */
static int dropped(const roz_tree *before, const roz_tree_pick *picks, size_t npicks, span **out, size_t *n)
{
	span *s;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!before->n || !npicks)
		return ROZ_OK;
	if (npicks > (size_t)-1 / (2 * sizeof *s) || !(s = roz_malloc(2 * npicks * sizeof *s)))
		return ROZ_ENOMEM;
	for (size_t i = 0; i < npicks; i++) {
		const char *p = picks[i].path;
		size_t len = strlen(p), at = bound(before, 0, p, len, false);

		if (at < before->n && strcmp(before->items[at].path, p) == 0)
			s[k++] = (span){at, at + 1};
		if (picks[i].deep) {
			size_t lo = bound(before, at, p, len, true), hi = end_under(before, lo, p, len);

			if (lo < hi)
				s[k++] = (span){lo, hi};
		}
	}
	/* the picks are sorted, but a pick's run comes after the picks sorting between it and its '/' */
	qsort(s, k, sizeof *s, by_start);
	*out = s;
	*n = k;
	return ROZ_OK;
}

/*
 * The merge of `before` less the spans `drop` with `part`, in path order:
 * each(ud, e) for every entry of the result (when each is given), gone(ud,
 * e) for every entry of `before` it does not keep (dropped by a pick, or
 * listed again by the walk); the result's entries and path bytes counted
 * into *n and *bytes.
 */
static void merge(const roz_tree *before, const roz_tree *part, const span *drop, size_t ndrop,
		  tree_each_fn each, tree_each_fn gone, void *ud, size_t *n, size_t *bytes)
{
	size_t i = 0, j = 0, d = 0, until = 0, k = 0, len = 0;

	for (;;) {
		const roz_tree_entry *e;

		/* step over what the picks drop: spans may nest or overlap, so keep the furthest end */
		while (i < before->n) {
			while (d < ndrop && drop[d].lo <= i) {
				if (drop[d].hi > until)
					until = drop[d].hi;
				d++;
			}
			if (i >= until)
				break;
			if (gone)
				for (; i < until; i++)
					gone(ud, &before->items[i]);
			i = until;
		}
		if (i < before->n && j < part->n) {
			int c = strcmp(before->items[i].path, part->items[j].path);

			if (c == 0 && gone)
				gone(ud, &before->items[i]);
			if (c == 0)
				i++; /* listed again: the walk's is now */
			e = c < 0 ? &before->items[i++] : &part->items[j++];
		} else if (i < before->n) {
			e = &before->items[i++];
		} else if (j < part->n) {
			e = &part->items[j++];
		} else {
			break;
		}
		if (each)
			each(ud, e);
		k++;
		len += strlen(e->path) + 1;
	}
	*n = k;
	*bytes = len;
}

int tree_patch_each(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks, size_t npicks,
		    tree_each_fn each, tree_each_fn gone, void *ud, size_t *n, size_t *bytes)
{
	span *drop = NULL;
	size_t ndrop;
	int rc;

	if ((rc = dropped(before, picks, npicks, &drop, &ndrop)) < 0)
		return rc;
	merge(before, part, drop, ndrop, each, gone, ud, n, bytes);
	roz_free(drop);
	return ROZ_OK;
}

/* Filling the result of a patch: its entries, their paths copied into one pool. */
typedef struct fill {
	roz_tree *out;
	char *pool;
	size_t k, len;
} fill;

static void fill_one(void *ud, const roz_tree_entry *e)
{
	fill *f = ud;
	size_t sz = strlen(e->path) + 1;

	f->out->items[f->k] = *e;
	f->out->items[f->k++].path = memcpy(f->pool + f->len, e->path, sz);
	f->len += sz;
}

int roz_tree_patch(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks, size_t npicks,
		   roz_tree *out)
{
	span *drop = NULL;
	size_t ndrop, n, bytes;
	fill f = {out, NULL, 0, 0};
	int rc;

	if (!out) {
		roz_error_set("roz_tree_patch: no place for the result");
		return ROZ_EINVALID;
	}
	memset(out, 0, sizeof *out);
	if (!before || !part || (npicks && !picks)) {
		roz_error_set("roz_tree_patch: no tree or no picks");
		return ROZ_EINVALID;
	}
	if ((rc = dropped(before, picks, npicks, &drop, &ndrop)) < 0)
		goto done;
	merge(before, part, drop, ndrop, NULL, NULL, NULL, &n, &bytes);
	if (n) {
		if (n > (size_t)-1 / sizeof *out->items || !(out->items = roz_malloc(n * sizeof *out->items)) ||
		    !(f.pool = roz_malloc(bytes))) {
			roz_free(out->items);
			out->items = NULL;
			rc = ROZ_ENOMEM;
			goto done;
		}
		merge(before, part, drop, ndrop, fill_one, NULL, &f, &n, &bytes);
		out->n = n; /* items[0].path is the pool */
	}
	out->dev = part->dev ? part->dev : before->dev;
	out->taken_ns = part->taken_ns;
	out->truncated = before->truncated || part->truncated;
	out->watch_id = part->watch_id;
	out->watch_gen = part->watch_gen;
done:
	if (rc == ROZ_ENOMEM)
		roz_error_set("out of memory patching a snapshot");
	roz_free(drop);
	return rc;
}

/* Collecting what a patch does not keep of the earlier tree. */
typedef struct gone_list {
	roz_tree_entry *items;
	size_t n, cap;
	bool oom;
} gone_list;

static void gone_one(void *ud, const roz_tree_entry *e)
{
	gone_list *g = ud;

	if (g->oom)
		return;
	if (roz_alloc_array_reserve((void **)&g->items, &g->cap, sizeof *g->items, g->n + 1) < 0) {
		g->oom = true;
		return;
	}
	g->items[g->n++] = *e;
}

int roz_tree_patch_dropped(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks,
			   size_t npicks, roz_tree_entry **out, size_t *n, size_t *kept)
{
	gone_list g = {NULL, 0, 0, false};
	size_t bytes;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = tree_patch_each(before, part, picks, npicks, NULL, gone_one, &g, kept, &bytes)) < 0 || g.oom) {
		roz_free(g.items);
		roz_error_set("out of memory patching a snapshot");
		return ROZ_ENOMEM;
	}
	*out = g.items;
	*n = g.n;
	return ROZ_OK;
}
