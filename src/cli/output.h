/*
 * output.h - how roz's commands talk to people and scripts: colour only on
 * a terminal (never with NO_COLOR), aligned tables measured in characters,
 * text cut on character boundaries, and the sessions of a store gathered
 * once for list, stats and clean.
 */
#ifndef ROZ_CLI_OUTPUT_H
#define ROZ_CLI_OUTPUT_H

#include <stdio.h>

#include "roz/config.h"
#include "roz/session.h"
#include "roz/store.h"

/* ANSI colours, or "" when stdout is not a terminal or NO_COLOR is set. */
const char *cli_green(void);
const char *cli_red(void);
const char *cli_dim(void);
const char *cli_bold(void);
const char *cli_reset(void);

/* True when the locale says the terminal takes UTF-8 (for ✓ and bar glyphs). */
bool cli_utf8(void);

/* Columns a string takes on a terminal (wide East Asian characters count 2). */
size_t cli_width(const char *s);

/*
 * Text from a session (prompts, summaries, commands, payloads, names) as it
 * is safe to show on a terminal: C0 controls, DEL, C1 controls, the bidi
 * embedding, override and isolate characters (U+202A-U+202E, U+2066-U+2069)
 * and bytes that are not UTF-8 become visible escapes (\n, \r, \t, \x1b,
 * \u009b, \u202e, \xff). With multiline, newlines and tabs are kept.
 * Everything printed for people goes through here; --json output does not.
 */
char *cli_safe(const char *s, bool multiline); /* caller frees; NULL if out of memory */
void cli_put_safe(FILE *f, const char *s, bool multiline);

/* s on one line (as cli_safe shows it), cut to at most max columns with "…" (or "...") added. Caller frees. */
char *cli_cut(const char *s, size_t max);

/* Print s left-aligned in a field of `width` columns (padding after it). */
void cli_pad(FILE *f, const char *s, size_t width);

/* A local time as "2026-11-22 14:05" (date) or "14:05:09.123" (clock). */
void cli_local_date(roz_time t, char *out, size_t size);
void cli_local_clock(roz_time t, char *out, size_t size);

/* One stored session as the listing commands see it. */
typedef struct cli_entry {
	char *id;
	roz_session *s;  /* NULL when the file could not be read */
	char *error;     /* why not, for a corrupt file */
} cli_entry;

/*
 * Every session in the store, readable ones newest first (by creation),
 * unreadable ones after them by id. ROZ_OK or an error (reported by caller).
 */
int cli_load_entries(roz_store *store, cli_entry **out, size_t *n);
void cli_free_entries(cli_entry *e, size_t n);

/* A session's review state in one word: idle, pending, issues, approved, tripped. */
const char *cli_review_state(const roz_session *s);

#endif
