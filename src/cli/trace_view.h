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

#endif
