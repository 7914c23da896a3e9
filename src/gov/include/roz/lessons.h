/*
 * roz/lessons.h - one lesson of .orchestration/CLAUDE.md, the lessons
 * sessions share in a repository (docs/governance.md, "Shared lessons").
 *
 * A lesson is one Markdown list item on one line:
 *
 *   - 2026-02-18 [INT-001] (roz:roz review of 3f2a...): jwt.ts needs an async import
 *   - 2026-02-18 [no intent] (alice): run the auth tests before pushing
 *
 * The file is append-only and read newest last (the briefing gives the
 * agent its tail), so a lesson must never span lines: a line is a lesson,
 * whatever the reviewer or the person typed.
 */
#ifndef ROZ_LESSONS_H
#define ROZ_LESSONS_H

#include "roz/common.h"
#include "roz/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest lesson line, "\n" included; a longer text is cut, ending in "...". */
#define ROZ_LESSONS_LINE_MAX 2048u

/*
 * Append the lesson line for `text` to `out`: the date of `when` (UTC),
 * the intent (`intent_id`, or "no intent" for NULL), `who` and the text,
 * ending in "\n". Line breaks in the text become " / ", other control
 * characters a space, bytes that are not UTF-8 U+FFFD, and leading and
 * trailing blanks go; the intent and `who` are made one line the same
 * way. The line is at most ROZ_LESSONS_LINE_MAX bytes, cut on a character
 * boundary. ROZ_OK, ROZ_EINVALID (the text is empty once cleaned: nothing
 * appended) or ROZ_ENOMEM.
 */
int roz_lessons_format(roz_time when, const char *intent_id, const char *who, const char *text,
		       roz_buf *out) ROZ_WARN_UNUSED;

#ifdef __cplusplus
}
#endif

#endif
