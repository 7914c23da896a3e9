/*
 * work.c - binding a verdict to the work it reviewed (roz/work.h): pure
 * decisions over what the runner's roz_work_ops report.
 */
#include "roz/work.h"

int roz_work_begin(roz_session *s, const roz_work_ops *ops, const char **why)
{
	roz_review_work *w = &s->review.work;
	int rc;

	*why = NULL;
	roz_review_work_dispose(w);
	if (!ops || !ops->baseline) {
		*why = "no view of the working tree";
		return ROZ_OK;
	}
	if (ops->arm)
		ops->arm(ops->ud, false);
	rc = ops->baseline(ops->ud, w);
	if (rc == ROZ_ENOMEM) {
		roz_review_work_dispose(w);
		return rc;
	}
	if (rc < 0) {
		roz_review_work_dispose(w);
		*why = roz_error_last();
		return ROZ_OK;
	}
	w->base_set = true;
	return ROZ_OK;
}

/*
 * The work as it is now, the mark armed first: a call that runs while roz
 * looks clears it, so the next stop looks again. ROZ_OK with *fp and *tree;
 * ROZ_ENOMEM; or ROZ_EIO with *why when the look failed (nothing kept, the
 * mark cleared).
 */
static int armed_look(const roz_work_ops *ops, const roz_review_work *w, roz_fingerprint *fp, char **tree,
		      const char **why)
{
	int rc;

	*tree = NULL;
	if (ops->arm)
		ops->arm(ops->ud, true);
	if ((rc = ops->now(ops->ud, w, fp, tree)) >= 0)
		return ROZ_OK;
	roz_fingerprint_dispose(fp);
	roz_free(*tree);
	*tree = NULL;
	if (ops->arm)
		ops->arm(ops->ud, false);
	if (rc == ROZ_ENOMEM)
		return rc;
	*why = roz_error_last();
	return ROZ_EIO;
}

int roz_work_approve(roz_session *s, const roz_work_ops *ops, const char **why)
{
	roz_review_work *w = &s->review.work;
	roz_fingerprint fp = {0};
	char *tree = NULL;
	int rc;

	*why = NULL;
	roz_review_work_forget_approval(w);
	if (!w->base_set) {
		*why = "the review cycle has no baseline";
		return ROZ_OK;
	}
	if (!ops || !ops->now) {
		*why = "no view of the working tree";
		return ROZ_OK;
	}
	if ((rc = armed_look(ops, w, &fp, &tree, why)) < 0)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK; /* unbound, *why says why */
	w->approved = fp;
	w->approved_tree = tree;
	w->approved_set = true;
	roz_review_work_forget_stale(w);
	return ROZ_OK;
}

/* Keep the changed paths in work.stale (copies: the compared fingerprints go). */
static int keep_stale(roz_review_work *w, const roz_fp_diff *d)
{
	char **v = roz_calloc(d->n ? d->n : 1, sizeof *v);

	if (!v)
		return ROZ_ENOMEM;
	for (size_t i = 0; i < d->n; i++)
		if (!(v[i] = roz_strdup(d->items[i].path))) {
			for (size_t k = 0; k < i; k++)
				roz_free(v[k]);
			roz_free(v);
			return ROZ_ENOMEM;
		}
	roz_review_work_forget_stale(w);
	w->stale = v;
	w->n_stale = d->n;
	return ROZ_OK;
}

int roz_work_check(roz_session *s, const roz_work_ops *ops, const roz_config *config, roz_work_verdict *out,
		   const char **why)
{
	roz_review_work *w = &s->review.work;
	roz_fingerprint now = {0};
	roz_fp_diff d = {0};
	char *tree = NULL;
	int rc;

	*out = ROZ_WORK_HOLDS;
	*why = NULL;
	if (!w->approved_set || config->rereview == ROZ_REREVIEW_NEVER || !ops || !ops->now)
		return ROZ_OK;
	if (ops->quiet && ops->quiet(ops->ud))
		return ROZ_OK;
	/* if nothing that counts changed, the mark stays: the next stop need not look again */
	if ((rc = armed_look(ops, w, &now, &tree, why)) < 0)
		return rc == ROZ_ENOMEM ? rc : ROZ_OK; /* holds, *why says why */
	rc = roz_fingerprint_compare(&w->approved, &now, (roz_rereview)config->rereview,
				     (const char *const *)config->rereview_ignore, config->n_rereview_ignore, &d);
	if (rc == ROZ_OK && d.n) {
		rc = keep_stale(w, &d);
		if (rc == ROZ_OK) {
			roz_review_work_forget_approval(w);
			w->round++;
			*out = ROZ_WORK_STALE;
		}
	}
	if ((rc != ROZ_OK || *out == ROZ_WORK_STALE) && ops->arm)
		ops->arm(ops->ud, false);
	roz_fp_diff_dispose(&d);
	roz_fingerprint_dispose(&now);
	roz_free(tree);
	return rc;
}
