/*
 * roz/decide.h - recording the reviewer's verdict (`roz decide`), the
 * tickets that let only the reviewer record one, and when a verdict counts.
 *
 * A verdict is COMPLETE or ISSUES, with a summary, a message to the agent
 * and the second opinions asked. It counts as an approval only once the
 * reviewer's SubagentStop vouches for it (review.decision_trusted), unless
 * a person recorded it with --override or review.require_reviewer is off.
 *
 * Ownership: the functions change the session they are given (the caller
 * holds its lock and saves it); strings are copied.
 */
#ifndef ROZ_DECIDE_H
#define ROZ_DECIDE_H

#include "roz/config.h"
#include "roz/hooks.h"
#include "roz/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How long after the reviewer's call to `roz decide` its ticket stays good. */
#define ROZ_TICKET_TTL_SECONDS 120
/* How far past `now` a decision or ticket time may lie (clock skew between processes). */
#define ROZ_DECISION_SKEW_SECONDS 5

/* True when the recorded verdict is a COMPLETE that counts: vouched for, or no reviewer required. */
bool roz_decide_approves(const roz_session *s, const roz_config *config);

/*
 * Mark the newest pending attempt as answered by the recorded verdict.
 * ROZ_OK (also when no attempt is pending) or ROZ_ENOMEM.
 */
int roz_decide_attempt_succeeded(roz_session *s) ROZ_WARN_UNUSED;

/*
 * Record a verdict, as `roz decide` does: history, trace, approval time
 * (COMPLETE). The verdict is trusted (counts as an approval) only once the
 * reviewer's SubagentStop vouches for it, unless `override` says a person
 * recorded it outside Claude Code, or review.require_reviewer is off; in
 * those cases the pending attempt is marked a success at once.
 */
int roz_decide_apply(roz_session *s, roz_decision_kind kind, const char *summary,
		     const char *message, const char *opinions, bool override,
		     const roz_env *env) ROZ_WARN_UNUSED;

/*
 * `roz decide` as the CLI runs it, on the locked session. An override (the
 * caller has made sure a person stands behind it) and any verdict while
 * review.require_reviewer is off are recorded at once. Otherwise the verdict
 * needs a ticket: the reviewer's own Bash call that runs `roz decide` is
 * issued one by pre-tool-use, good for ROZ_TICKET_TTL_SECONDS and for one
 * verdict. The oldest live ticket is used, and the verdict is bound to its
 * reviewer: only that reviewer's SubagentStop vouches for it. A used ticket
 * presented again contests the verdict recorded with it (no reviewer
 * vouches for it until one records a verdict anew).
 *
 * Returns ROZ_OK when recorded; ROZ_EINVALID when refused, with what a
 * person should do in roz_error_last(); or an error from recording. *save
 * says whether the session changed and must be saved (also on a refusal
 * that contested a verdict).
 */
int roz_decide_record(roz_session *s, roz_decision_kind kind, const char *summary,
		      const char *message, const char *opinions, bool override, const roz_env *env,
		      bool *save) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
