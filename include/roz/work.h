/*
 * roz/work.h - a verdict covers the work it reviewed (README.md, "How it
 * decides"; docs/differences.md, item 52).
 *
 * When a review cycle begins, roz takes the task's baseline: the working
 * tree as it is then. A COMPLETE is recorded with the fingerprint of the
 * work as the reviewer could see it (each file changed since the baseline,
 * with its content hash and mode). When the agent stops again, or retries a
 * gated call the approval let through, the fingerprint is taken again and
 * compared (roz/fingerprint.h): the same work keeps the approval; other
 * work makes it stale, and the files that changed since are named for a
 * review of just those.
 *
 * The fingerprint costs a look at the working tree, so it is taken only
 * when a tool that can write ran since the approval: the runner keeps a
 * mark that each such call clears (roz_work_ops.quiet), and a stop after an
 * approval with nothing run since looks at nothing.
 *
 * Looking is the runner's business (the working tree, git, the mark); these
 * functions decide, through roz_work_ops, and change only the session.
 */
#ifndef ROZ_WORK_H
#define ROZ_WORK_H

#include "roz/config.h"
#include "roz/fingerprint.h"
#include "roz/session.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roz_work_ops {
	/*
	 * Take the baseline of a cycle beginning now into w's base fields
	 * (root, base_tree, base_touched; zeroed on entry). ROZ_OK, or an
	 * error: the cycle has no baseline and its approvals are not bound.
	 */
	int (*baseline)(void *ud, roz_review_work *w);
	/*
	 * The fingerprint of the work since w's baseline as it is now into *fp
	 * (empty on entry), and the git tree it was read from in *tree (NULL
	 * outside a repository; the caller frees).
	 */
	int (*now)(void *ud, const roz_review_work *w, roz_fingerprint *fp, char **tree);
	/* True when no tool that can write has run since the last arm(ud, true). */
	bool (*quiet)(void *ud);
	/* Count tool calls from now (on), or stop counting (off). */
	void (*arm)(void *ud, bool on);
	void *ud;
} roz_work_ops;

/*
 * A review cycle begins: the work's fields are reset and the baseline
 * taken (none without ops, or when taking it fails: *why then says why,
 * for a note). ROZ_OK or ROZ_ENOMEM.
 */
int roz_work_begin(roz_session *s, const roz_work_ops *ops, const char **why) ROZ_WARN_UNUSED;

/*
 * The reviewer approved: bind the approval to the work as it is now. No
 * baseline, or no look possible (*why says which), leaves the approval
 * unbound, as roz without a baseline would. ROZ_OK or ROZ_ENOMEM.
 */
int roz_work_approve(roz_session *s, const roz_work_ops *ops, const char **why) ROZ_WARN_UNUSED;

typedef enum roz_work_verdict {
	ROZ_WORK_HOLDS, /* the approval covers the work as it is */
	ROZ_WORK_STALE  /* files changed since: s->review.work.stale names them */
} roz_work_verdict;

/*
 * Whether the current approval still covers the work: unbound approvals
 * and rereview_on_change = "never" always hold; a quiet tree holds without
 * a look; otherwise the fingerprints are compared. A look that fails holds
 * (the gate fails open), with *why set. On STALE the approval is forgotten
 * and the changed files (as config counts them) are kept in work.stale,
 * and work.round counts one more review asked for. ROZ_OK or ROZ_ENOMEM.
 */
int roz_work_check(roz_session *s, const roz_work_ops *ops, const roz_config *config, roz_work_verdict *out,
		   const char **why) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
