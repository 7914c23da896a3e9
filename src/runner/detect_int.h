/*
 * detect_int.h - what the detection step (detect.c) and the way it looks
 * at the tree (detect_look.c) share. Private to src/runner/.
 */
#ifndef ROZ_DETECT_INT_H
#define ROZ_DETECT_INT_H

#include <stdint.h>
#include <time.h>

#include "governance.h"
#include "roz/tree.h"
#include "roz/watch.h"

static inline int64_t gov_ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * What a look found: the whole tree (picks NULL), or a walk of only what
 * moved (t) with the picks it walked and what it takes out of the snapshot
 * (gone: copies of the snapshot's entries, their paths the snapshot's),
 * to be compared and saved without the whole patched tree being made
 * (roz_tree_patch_dropped, roz_tree_save_patched).
 */
typedef struct gov_sight {
	roz_tree t;
	roz_tree_pick *picks;
	size_t npicks;
	roz_tree_entry *gone;
	size_t ngone, kept;   /* kept: the entries of the snapshot brought up to date */
	size_t moved;         /* paths the watcher named (SIZE_MAX: a whole walk) */
	roz_watch_answer ans; /* the watcher's answer, which holds most of the picks' paths */
} gov_sight;

void gov_sight_dispose(gov_sight *n);

/*
 * The tree now, into *out (detect_look.c says how). ROZ_OK; ROZ_EINVALID
 * when it is too large (out->t an empty snapshot marked truncated);
 * ROZ_ENOMEM; another error, warned on res->notes.
 */
int gov_look(gov_run *g, const roz_env *env, const roz_tree *before, gov_sight *out, roz_hook_result *res,
	     const char *event);

/* Another session's snapshot of this repository (beside `own`), stamped by a watcher and whole: ROZ_OK or ROZ_ENOTFOUND. */
int gov_sibling_snapshot(const char *own, roz_tree *out);

/* A warning about detection on the hook's stderr notes. */
void gov_detect_warn(roz_hook_result *res, const char *event, const char *what);

#endif
