/* trace_view.h - printing a session's trace as a readable timeline. */
#ifndef ROZ_TRACE_VIEW_H
#define ROZ_TRACE_VIEW_H

#include <stdio.h>

#include "roz/session.h"

/*
 * One line per event: local time, event type, a short form of the payload;
 * verbose adds the whole payload, indented, under each line.
 */
void cli_print_trace(FILE *f, const roz_session *s, const char *indent, bool verbose);

/*
 * True when the session's current verdict (approved or issues) was
 * recorded by a person with `roz decide --override`, not by a reviewer:
 * list, context and trace show it as one.
 */
bool cli_verdict_overridden(const roz_session *s);

#endif
