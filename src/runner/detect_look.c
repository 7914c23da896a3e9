/*
 * detect_look.c - how detection looks at a repository's working tree
 * (detect.c judges what it finds): by asking the repository's watcher
 * (roz/watch.h) what moved since the session's snapshot and walking only
 * that, or, when no watcher can say, by walking the whole tree; and a new
 * session's first look, from another session's snapshot brought up to
 * date when the watcher stamped one.
 */
#include "governance.h"
#include "detect_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "roz/watch.h"

static void walk_opts(const gov_run *g, roz_tree_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_entries = g->detect_max;
	o->extra = g->orch.have_ignore ? &g->orch.ignore : NULL;
	o->fold_case = g->orch.fold_case;
}

void gov_detect_warn(roz_hook_result *res, const char *event, const char *what)
{
	roz_buf_addf(&res->notes, "roz: warning: %s: governance detection: %s\n", event, what);
}

/*
 * Walk the tree. A tree past the walk's bound is ROZ_EINVALID, with *t left
 * an empty snapshot marked truncated: saved, it tells the next calls not to
 * walk again for an hour.
 */
static int walk(const gov_run *g, roz_tree *t, roz_hook_result *res, const char *event)
{
	roz_tree_opts o;
	int64_t taken;
	int rc;

	walk_opts(g, &o);
	if ((rc = roz_tree_walk(g->orch.root, &o, t)) < 0) {
		if (rc != ROZ_ENOMEM)
			gov_detect_warn(res, event, roz_error_last());
		return rc;
	}
	if (t->truncated) {
		taken = t->taken_ns;
		roz_tree_dispose(t);
		memset(t, 0, sizeof *t);
		t->truncated = true;
		t->taken_ns = taken;
		return ROZ_EINVALID;
	}
	return ROZ_OK;
}

/* How long a hook waits for the watcher's answer before it walks instead. */
#define WATCH_TIMEOUT_MS 1500

/*
 * Ask the repository's watcher (roz/watch.h) what moved since `before` was
 * true (before NULL: only its generation, to stamp a walk about to be
 * made). No watcher answering: one is started for the next calls.
 */
static int ask_watcher(gov_run *g, const roz_env *env, const roz_tree *before, roz_watch_answer *a)
{
	int rc;

	if (!g->watch_exe)
		return ROZ_ENOTFOUND;
	rc = roz_watch_ask(g->orch.root, before ? before->watch_id : 0, before ? before->watch_gen : 0,
			   WATCH_TIMEOUT_MS, a);
	if (rc == ROZ_ENOTFOUND &&
	    roz_watch_start(g->watch_exe, g->orch.root, g->storage, g->orch.fold_case, g->detect_max,
			    env->now.sec * 1000000000LL + env->now.nsec) < 0)
		return ROZ_ENOTFOUND; /* not started: this call walks, the next tries again */
	return rc;
}

/* Whether an answer moves what the tree lists (the .intentignore changed): then only a walk says. */
static bool moves_ignores(const roz_watch_answer *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->picks[i].path, ROZ_ORCH_IGNORE_FILE) == 0 ||
		    (a->picks[i].deep && strcmp(a->picks[i].path, ROZ_ORCH_DIR) == 0))
			return true;
	return false;
}

static bool linked(const roz_tree_entry *e)
{
	return e && (e->mode & S_IFMT) == S_IFREG && e->nlink > 1;
}

/*
 * A file with more than one name changes under all of them, and the
 * watcher names only the one it was changed through: every other name
 * `before` holds for the inode of a picked file with other names (before
 * or now) is picked too. *more gets the picks with those added (sorted;
 * the caller frees it), or NULL when there are none to add.
 */
static int other_names(const roz_tree *before, const roz_tree *part, const roz_tree_pick *picks, size_t n,
		       roz_tree_pick **more, size_t *nmore)
{
	uint64_t *inos = NULL;
	size_t ninos = 0, cap = 0, k = n;
	roz_tree_pick *out = NULL;
	int rc = ROZ_OK;

	*more = NULL;
	*nmore = 0;
	for (size_t i = 0; i < n + part->n; i++) {
		const roz_tree_entry *e = i < n ? roz_tree_find(before, picks[i].path) : &part->items[i - n];

		if (!linked(e))
			continue;
		if (roz_alloc_array_reserve((void **)&inos, &cap, sizeof *inos, ninos + 1) < 0) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		inos[ninos++] = e->ino;
	}
	for (size_t i = 0; ninos && i < before->n; i++) {
		const roz_tree_entry *e = &before->items[i];
		roz_tree_pick key = {e->path, false};
		size_t j;

		/* its count may have been 1 then: the other name was made by this call */
		if ((e->mode & S_IFMT) != S_IFREG)
			continue;
		for (j = 0; j < ninos && inos[j] != e->ino; j++)
			;
		if (j == ninos || bsearch(&key, picks, n, sizeof *picks, roz_tree_pick_cmp))
			continue;
		if (!out) {
			cap = 0;
			if (roz_alloc_array_reserve((void **)&out, &cap, sizeof *out, n + 1) < 0) {
				rc = ROZ_ENOMEM;
				goto out;
			}
			memcpy(out, picks, n * sizeof *out);
		} else if (roz_alloc_array_reserve((void **)&out, &cap, sizeof *out, k + 1) < 0) {
			rc = ROZ_ENOMEM;
			goto out;
		}
		out[k++] = key;
	}
	if (out) {
		qsort(out, k, sizeof *out, roz_tree_pick_cmp);
		*more = out;
		*nmore = k;
		out = NULL;
	}
out:
	roz_free(out);
	roz_free(inos);
	return rc;
}


void gov_sight_dispose(gov_sight *n)
{
	roz_tree_dispose(&n->t);
	roz_free(n->picks);
	roz_free(n->gone);
	roz_watch_answer_dispose(&n->ans);
	memset(n, 0, sizeof *n);
}

/* The picked walk: what moved, .orchestration/, and every other name of a file that did. */
static int look_again(gov_run *g, const roz_tree *before, const roz_watch_answer *a, gov_sight *out)
{
	static const roz_tree_pick orch = {ROZ_ORCH_DIR, true};
	roz_tree_pick *more = NULL, *picks;
	size_t nmore = 0, n = 0;
	bool orch_in = false;
	roz_tree_opts o;
	int rc;

	/*
	 * .orchestration/ is looked at whatever the watcher says: a name for one of its files made
	 * outside the tree while the watcher runs is not told to it (roz/watch.h), and it is a handful
	 * of entries
	 */
	if (!(picks = roz_calloc(a->n + 1, sizeof *picks)))
		return ROZ_ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		int c = strcmp(a->picks[i].path, ROZ_ORCH_DIR);

		if (!orch_in && c >= 0) {
			if (c == 0)
				continue; /* named alone by the watcher: the deep pick covers it */
			picks[n++] = orch;
			orch_in = true;
		}
		picks[n++] = a->picks[i];
	}
	if (!orch_in)
		picks[n++] = orch;
	walk_opts(g, &o);
	o.only = picks;
	o.nonly = n;
	if ((rc = roz_tree_walk(g->orch.root, &o, &out->t)) == ROZ_OK && !out->t.truncated &&
	    (rc = other_names(before, &out->t, picks, n, &more, &nmore)) == ROZ_OK && more) {
		roz_tree_dispose(&out->t);
		o.only = more;
		o.nonly = nmore;
		rc = roz_tree_walk(g->orch.root, &o, &out->t);
	}
	if (more) {
		roz_free(picks);
		picks = more;
		n = nmore;
	}
	out->picks = picks; /* their paths are the answer's, the snapshot's, or orch's: kept with them */
	out->npicks = n;
	if (rc == ROZ_OK && out->t.truncated)
		rc = ROZ_ERROR;
	if (rc == ROZ_OK)
		rc = roz_tree_patch_dropped(before, &out->t, picks, n, &out->gone, &out->ngone, &out->kept);
	if (rc == ROZ_OK && out->kept > (g->detect_max ? g->detect_max : ROZ_TREE_MAX_ENTRIES))
		rc = ROZ_ERROR; /* grown past the bound: the whole walk says so */
	if (rc != ROZ_OK && rc != ROZ_ENOMEM) {
		roz_tree_dispose(&out->t);
		roz_free(out->picks);
		roz_free(out->gone);
		out->picks = NULL;
		out->gone = NULL;
		out->npicks = out->ngone = out->kept = 0;
	}
	return rc;
}

/*
 * The tree now, into *out: when `before` was stamped by the watcher that
 * answers and it knows what moved since, only that is walked again
 * (out->picks set, out->moved how many paths the watcher named);
 * otherwise the whole tree is walked (out->picks NULL, out->moved
 * SIZE_MAX). Either is stamped with the watcher's generation, asked
 * before the walk began, so what moves during the walk is looked at again
 * next time. Returns what walk() returns.
 */
int gov_look(gov_run *g, const roz_env *env, const roz_tree *before, gov_sight *out, roz_hook_result *res,
		const char *event)
{
	roz_watch_answer a = {0};
	int asked = ask_watcher(g, env, before, &a), rc = ROZ_ERROR;

	memset(out, 0, sizeof *out);
	out->moved = SIZE_MAX;
	if (asked == ROZ_ENOMEM)
		return asked;
	if (asked == ROZ_OK && a.known && before && !moves_ignores(&a)) {
		if ((rc = look_again(g, before, &a, out)) == ROZ_ENOMEM) {
			roz_watch_answer_dispose(&a);
			gov_sight_dispose(out);
			return rc;
		}
		if (rc == ROZ_OK)
			out->moved = a.n;
	}
	if (rc != ROZ_OK)
		rc = walk(g, &out->t, res, event);
	if (rc == ROZ_OK && asked == ROZ_OK) {
		out->t.watch_id = a.id;
		out->t.watch_gen = a.gen;
	}
	out->ans = a; /* the picks' paths live in it */
	return rc;
}

/*
 * The newest snapshot another session keeps of this repository (beside
 * `own`, `<sid>-<root>.tree`, the same root), if a watcher stamped it and
 * it is whole: a session's first call brings it up to date instead of
 * walking the tree. ROZ_OK, or ROZ_ENOTFOUND (*out empty).
 */
int gov_sibling_snapshot(const char *own, roz_tree *out)
{
	const char *base = strrchr(own, '/');
	size_t dirlen, ownlen = strlen(own);
	char *dir = NULL, *best = NULL;
	int64_t best_ns = INT64_MIN;
	struct dirent *de;
	DIR *d;

	memset(out, 0, sizeof *out);
	if (!base || ownlen < 22)
		return ROZ_ENOTFOUND;
	dirlen = (size_t)(base - own);
	if (!(dir = roz_asprintf("%.*s", (int)dirlen, own)) || !(d = opendir(dir))) {
		roz_free(dir);
		return ROZ_ENOTFOUND;
	}
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		struct stat st;
		int64_t ns;

		/* "-" 16 hex ".tree": the root's, as the own file's last 22 bytes say */
		if (n <= 22 || strcmp(de->d_name + n - 22, own + ownlen - 22) != 0 || strcmp(de->d_name, base + 1) == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		ns = gov_ns(st.st_mtim);
		if (ns > best_ns) {
			char *p = roz_asprintf("%s/%s", dir, de->d_name);

			if (p) {
				roz_free(best);
				best = p;
				best_ns = ns;
			}
		}
	}
	closedir(d);
	roz_free(dir);
	if (!best)
		return ROZ_ENOTFOUND;
	if (roz_tree_load(best, out) != ROZ_OK || !out->watch_id || out->truncated) {
		roz_tree_dispose(out);
		roz_free(best);
		return ROZ_ENOTFOUND;
	}
	roz_free(best);
	return ROZ_OK;
}
