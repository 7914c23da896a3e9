/*
 * output.c - terminal conventions shared by roz's commands: colour rules,
 * escaping what sessions hold before it reaches a terminal, character-aware
 * alignment and cutting, local times, and loading every session of a store
 * (corrupt files included, as entries with an error).
 */
#include "output.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "roz/utf8.h"

static bool color_on(void)
{
	static int on = -1;
	const char *term = getenv("TERM");

	if (on < 0)
		on = isatty(1) && !getenv("NO_COLOR") && !(term && strcmp(term, "dumb") == 0);
	return on == 1;
}

const char *cli_green(void) { return color_on() ? "\033[32m" : ""; }
const char *cli_red(void) { return color_on() ? "\033[31m" : ""; }
const char *cli_dim(void) { return color_on() ? "\033[2m" : ""; }
const char *cli_bold(void) { return color_on() ? "\033[1m" : ""; }
const char *cli_reset(void) { return color_on() ? "\033[0m" : ""; }

bool cli_utf8(void)
{
	const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};

	for (size_t i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return false;
}

/* Wide characters (CJK, Hangul, fullwidth forms, most emoji) take two columns. */
static bool wide(unsigned long cp)
{
	return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
	       (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
	       (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
	       (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1FAFF) ||
	       (cp >= 0x20000 && cp <= 0x3FFFD);
}

/* Decode one character of valid UTF-8; returns its length. */
static size_t decode(const unsigned char *s, unsigned long *cp)
{
	if (s[0] < 0x80)
		return *cp = s[0], 1;
	if ((s[0] & 0xE0) == 0xC0 && s[1])
		return *cp = ((unsigned long)(s[0] & 0x1F) << 6) | (s[1] & 0x3F), 2;
	if ((s[0] & 0xF0) == 0xE0 && s[1] && s[2])
		return *cp = ((unsigned long)(s[0] & 0x0F) << 12) | ((unsigned long)(s[1] & 0x3F) << 6) |
			     (s[2] & 0x3F), 3;
	if ((s[0] & 0xF8) == 0xF0 && s[1] && s[2] && s[3])
		return *cp = ((unsigned long)(s[0] & 0x07) << 18) | ((unsigned long)(s[1] & 0x3F) << 12) |
			     ((unsigned long)(s[2] & 0x3F) << 6) | (s[3] & 0x3F), 4;
	return *cp = 0xFFFD, 1;
}

typedef void (*sink_fn)(void *ud, const char *p, size_t n);

static void to_file(void *ud, const char *p, size_t n)
{
	fwrite(p, 1, n, ud);
}

static void to_buf(void *ud, const char *p, size_t n)
{
	roz_buf_add(ud, p, n);
}

/* Length of the UTF-8 character at s (its code point in *cp), or 0 if the bytes are not one. */
static size_t utf8_char(const unsigned char *s, unsigned long *cp)
{
	size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : 2;

	for (size_t k = 1; k < n; k++)
		if (!s[k])
			return 0; /* cut short by the end of the string */
	if (!roz_utf8_valid((const char *)s, n))
		return 0;
	decode(s, cp);
	return n;
}

/*
 * Characters that can make a terminal do something other than show text:
 * move the cursor, rewrite the title or the clipboard, hide what follows
 * (C0, DEL, C1: ESC and CSI start escape sequences), or show text in an
 * order other than stored (bidi overrides and isolates, as in the
 * "Trojan Source" attacks on code review).
 */
static bool unsafe(unsigned long cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The one escaping function: s in safe pieces, handed to put. */
static void escape(const char *s, bool multiline, sink_fn put, void *ud)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char esc[16];

	while (*p) {
		unsigned long cp = *p;
		size_t n = *p < 0x80 ? 1 : *p >= 0xC2 && *p <= 0xF4 ? utf8_char(p, &cp) : 0;

		if (n && !unsafe(cp)) {
			p += n;
			continue;
		}
		if (n && multiline && (cp == '\n' || cp == '\t')) {
			p++;
			continue;
		}
		if (p > run)
			put(ud, (const char *)run, (size_t)(p - run));
		if (!n)
			snprintf(esc, sizeof(esc), "\\x%02x", *p); /* not UTF-8: the byte itself */
		else if (cp == '\n' || cp == '\r' || cp == '\t')
			snprintf(esc, sizeof(esc), "\\%c", cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't');
		else if (cp < 0x80)
			snprintf(esc, sizeof(esc), "\\x%02x", (unsigned)cp);
		else
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
		put(ud, esc, strlen(esc));
		p += n ? n : 1;
		run = p;
	}
	if (p > run)
		put(ud, (const char *)run, (size_t)(p - run));
}

char *cli_safe(const char *s, bool multiline)
{
	roz_buf b = ROZ_BUF_INIT;

	escape(s, multiline, to_buf, &b);
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return NULL;
	}
	return roz_buf_detach(&b, NULL);
}

void cli_put_safe(FILE *f, const char *s, bool multiline)
{
	escape(s, multiline, to_file, f);
}

size_t cli_width(const char *s)
{
	size_t w = 0;
	unsigned long cp;

	while (*s) {
		s += decode((const unsigned char *)s, &cp);
		w += wide(cp) ? 2 : 1;
	}
	return w;
}

char *cli_cut(const char *text, size_t max)
{
	const char *ell = cli_utf8() ? "\xe2\x80\xa6" : "...";
	char *s = cli_safe(text, false), *out;
	size_t ell_w = cli_utf8() ? 1 : 3, w = 0, line, i = 0, fit = 0;
	unsigned long cp;

	if (!s)
		return NULL;
	line = strlen(s); /* one line now: newlines are shown as \n */

	while (i < line) {
		size_t n = decode((const unsigned char *)s + i, &cp), cw = wide(cp) ? 2 : 1;

		if (w + cw > max)
			break;
		if (w + cw <= (max > ell_w ? max - ell_w : 0))
			fit = i + n;
		w += cw;
		i += n;
	}
	if (i >= line)
		return s;
	out = roz_asprintf("%.*s%s", (int)fit, s, ell);
	roz_free(s);
	return out;
}

void cli_pad(FILE *f, const char *s, size_t width)
{
	size_t w = cli_width(s);

	fputs(s, f);
	for (; w < width; w++)
		fputc(' ', f);
}

void cli_local_date(roz_time t, char *out, size_t size)
{
	time_t tt = (time_t)t.sec;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(out, size, "%Y-%m-%d %H:%M", &tm))
		snprintf(out, size, "?");
}

void cli_local_clock(roz_time t, char *out, size_t size)
{
	time_t tt = (time_t)t.sec;
	struct tm tm;

	if (!localtime_r(&tt, &tm))
		snprintf(out, size, "??:??:??.???");
	else
		snprintf(out, size, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
			 (int)(t.nsec / 1000000));
}

const char *cli_review_state(const roz_session *s)
{
	const roz_review_state *r = &s->review;

	if (r->circuit_breaker_tripped)
		return "tripped";
	if (!r->enabled)
		return "idle";
	switch (r->decision.kind) {
	case ROZ_DECISION_COMPLETE: return "approved";
	case ROZ_DECISION_ISSUES: return "issues";
	default: return "pending";
	}
}

static int by_recency(const void *a, const void *b)
{
	const cli_entry *x = a, *y = b;

	if (!x->s || !y->s)
		return x->s ? -1 : y->s ? 1 : strcmp(x->id, y->id);
	if (roz_time_cmp(x->s->created_at, y->s->created_at) != 0)
		return -roz_time_cmp(x->s->created_at, y->s->created_at);
	return strcmp(x->id, y->id);
}

void cli_free_entries(cli_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++) {
		roz_free(e[i].id);
		roz_session_free(e[i].s);
		roz_free(e[i].error);
	}
	roz_free(e);
}

int cli_load_entries(roz_store *store, cli_entry **out, size_t *n)
{
	char **ids = NULL;
	size_t count = 0;
	cli_entry *e;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = roz_store_list(store, &ids, &count)) < 0)
		return rc;
	e = roz_calloc(count + 1, sizeof(*e));
	if (!e) {
		roz_store_ids_free(ids);
		return ROZ_ENOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		e[i].id = ids[i];
		ids[i] = NULL;
		rc = roz_store_get(store, e[i].id, &e[i].s);
		if (rc == ROZ_ENOMEM) {
			for (size_t k = i + 1; k < count; k++)
				e[k].id = ids[k], ids[k] = NULL;
			cli_free_entries(e, count);
			roz_store_ids_free(ids);
			return rc;
		}
		if (rc < 0 && rc != ROZ_ENOTFOUND)
			e[i].error = roz_strdup(roz_error_last());
	}
	roz_store_ids_free(ids);
	/* a session removed while we read drops out of the listing */
	for (size_t i = 0; i < count;) {
		if (!e[i].s && !e[i].error) {
			roz_free(e[i].id);
			e[i] = e[--count];
			continue;
		}
		i++;
	}
	qsort(e, count, sizeof(*e), by_recency);
	*out = e;
	*n = count;
	return ROZ_OK;
}
