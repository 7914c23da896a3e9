/*
 * roz/briefing.h - what the agent is told about governance before it acts:
 * at SessionStart the whole briefing (how changes are governed, the
 * IN_PROGRESS intents, the newest lessons from .orchestration/CLAUDE.md),
 * and at UserPromptSubmit, while no intent is selected, a short reminder.
 * Both are plain text for a hook's additionalContext.
 *
 * Both are bounded whatever the files hold: at most ROZ_BRIEFING_INTENTS_LISTED
 * intents are listed (then "and N more: roz intent list"), each on one line
 * of at most ROZ_BRIEFING_LINE_MAX bytes, and at most ROZ_BRIEFING_LESSONS_MAX
 * bytes of lessons are quoted, so roz_briefing_build() never appends more
 * than ROZ_BRIEFING_MAX_BYTES and roz_briefing_reminder() never more than
 * ROZ_BRIEFING_REMINDER_MAX_BYTES. The text is valid UTF-8 without control
 * characters other than tab and newline, whatever the input.
 *
 * Memory failure is left in `out` (roz_buf_failed), as with every roz_buf.
 */
#ifndef ROZ_BRIEFING_H
#define ROZ_BRIEFING_H

#include "roz/common.h"
#include "roz/intents.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROZ_BRIEFING_LESSONS_MAX 4096       /* bytes of lessons quoted at most */
#define ROZ_BRIEFING_INTENTS_LISTED 50      /* intents listed at most */
#define ROZ_BRIEFING_LINE_MAX 320           /* bytes of one intent's line at most */
#define ROZ_BRIEFING_MAX_BYTES 24576        /* the whole briefing at most */
#define ROZ_BRIEFING_REMINDER_MAX_BYTES 18432 /* the reminder at most */

/*
 * The governance protocol, the IN_PROGRESS intents and the newest lessons,
 * as one text for additionalContext, appended to `out`. `ints` may be NULL
 * (no intents). `lessons` is .orchestration/CLAUDE.md's text (NULL/0 when
 * absent); only its end is quoted, from a line start, with a line saying
 * what was left out.
 */
void roz_briefing_build(const roz_intents *ints, const char *lessons, size_t lessons_len, roz_buf *out);

/* Only the short reminder for UserPromptSubmit while no intent is selected: one paragraph + the list. */
void roz_briefing_reminder(const roz_intents *ints, roz_buf *out);

#ifdef __cplusplus
}
#endif

#endif
