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
	/* armed before the look: a call that runs while it looks clears the mark */
	if (ops->arm)
		ops->arm(ops->ud, true);
	rc = ops->now(ops->ud, w, &fp, &tree);
	if (rc < 0) {
		roz_fingerprint_dispose(&fp);
		roz_free(tree);
		if (ops->arm)
			ops->arm(ops->ud, false);
		if (rc == ROZ_ENOMEM)
			return rc;
		*why = roz_error_last();
		return ROZ_OK;
	}
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
	/*
	 * armed before the look, as at the approval: if nothing that counts
	 * changed, the next stop need not look again, unless a call ran since
	 */
	if (ops->arm)
		ops->arm(ops->ud, true);
	if ((rc = ops->now(ops->ud, w, &now, &tree)) < 0) {
		roz_fingerprint_dispose(&now);
		roz_free(tree);
		if (ops->arm)
			ops->arm(ops->ud, false);
		if (rc == ROZ_ENOMEM)
			return rc;
		*why = roz_error_last();
		return ROZ_OK;
	}
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
