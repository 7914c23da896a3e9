/*
 * lesson_hook.h - an ISSUES verdict becomes a lesson of the repository
 * (lesson_hook.c); private to the runner.
 */
#ifndef ROZ_RUNNER_LESSON_HOOK_H
#define ROZ_RUNNER_LESSON_HOOK_H

#include "roz/runner.h"

/*
 * When the process runs in a governed repository, append the verdict's
 * message (its summary when it has none) to .orchestration/CLAUDE.md as a
 * lesson under the session's selected intent. ROZ_OK when appended or
 * when there is nothing to do; otherwise < 0 with the reason in
 * roz_error_last(): the caller warns, the verdict stands.
 */
int lesson_hook_record(const roz_session *s, const roz_decide_request *req, roz_time now,
		       uint32_t lock_timeout_ms);

#endif
