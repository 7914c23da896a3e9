/*
 * briefing.c - the text that tells the agent how changes are governed in
 * this repository, which intents it may work under, and what earlier
 * sessions learnt (the end of .orchestration/CLAUDE.md).
 *
 * Everything quoted from the files is cleaned (malformed UTF-8 and control
 * characters become U+FFFD) and cut to a budget, so a huge or hostile file
 * cannot flood the agent's context.
 */
#include "roz/briefing.h"

#include <string.h>

#include "roz/utf8.h"

/* bytes of a name, and of one scope pattern, on an intent's line */
#define NAME_MAX_BYTES 100
#define PATTERN_MAX_BYTES 80
/* room kept at the end of a line for ", +N more)" */
#define LINE_TAIL 32

static const char protocol[] =
	"# Changes in this repository are governed by intent (roz)\n"
	"\n"
	"This repository lists the work it authorises in .orchestration/active_intents.yaml, and "
	"roz checks every change against it. Before you change anything - Write, Edit, MultiEdit, "
	"NotebookEdit, or a Bash command that creates, modifies or deletes files - choose the "
	"intent the task belongs to from the IN_PROGRESS intents below and run, as a Bash "
	"command:\n"
	"\n"
	"    roz intent select <ID>\n"
	"\n"
	"It prints an <intent_context> block with the intent's owned_scope (the paths it may "
	"change), its constraints and its acceptance criteria. Read it, keep every change inside "
	"that scope, and respect the constraints. Reading, searching and read-only commands never "
	"need an intent. `roz intent list` shows all intents and their status.\n"
	"\n"
	"When roz refuses a call, the reason starts with `roz: <CODE>:` and one sentence, followed "
	"by the same error as JSON. What each code asks of you:\n"
	"- INTENT_REQUIRED: no intent is selected; run `roz intent select <ID>` first.\n"
	"- SCOPE_VIOLATION: the path is outside the selected intent's owned_scope; change only "
	"paths it owns, select the intent that owns the path, or ask the person.\n"
	"- STALE_FILE: the file changed on disk since you last read it; Read it again and make "
	"the change on what is there now.\n"
	"- DESTRUCTIVE_BLOCKED: the command can destroy work, so the person decides; do not try "
	"another way to do the same thing.\n"
	"Any other code: its sentence says what is wrong; if you cannot act on it, ask the "
	"person.\n";

/*
 * One unit of quoted text starting at s[i]: a character, or a byte that is
 * not one. Appends its cleaned form to `out` when not NULL, stores how many
 * input bytes it covers in *adv and returns how many bytes it writes. CR is
 * dropped (CRLF files read as LF); newline is kept only when `lines`.
 */
static size_t clean_unit(const char *s, size_t len, size_t i, bool lines, size_t *adv, roz_buf *out)
{
	unsigned char b = (unsigned char)s[i];
	size_t n;

	*adv = 1;
	if (b == '\r')
		return 0;
	if (b == '\t' || (b == '\n' && lines) || (b >= 0x20 && b < 0x7F)) {
		if (out)
			roz_buf_addc(out, (char)b);
		return 1;
	}
	n = b < 0x80 ? 0 : roz_utf8_char_len(s + i, len - i);
	if (n == 0) {
		if (out)
			roz_utf8_add(out, 0xFFFD);
		return 3;
	}
	*adv = n;
	if (out)
		roz_buf_add(out, s + i, n);
	return n;
}

/* Append cleaned s, at most `max` bytes of it, ending "..." when cut. */
static void add_clean_cut(roz_buf *out, const char *s, size_t max)
{
	size_t len = s ? strlen(s) : 0, used = 0, adv;

	if (max < 3)
		return;
	for (size_t i = 0; i < len; i += adv) {
		size_t w = clean_unit(s, len, i, false, &adv, NULL);

		if (used + w > max - 3) {
			/* does everything left fit, after all? */
			size_t rest = 0, a;

			for (size_t j = i; j < len && used + rest <= max; j += a)
				rest += clean_unit(s, len, j, false, &a, NULL);
			if (used + rest <= max) {
				for (; i < len; i += adv)
					clean_unit(s, len, i, false, &adv, out);
			} else {
				roz_buf_adds(out, "...");
			}
			return;
		}
		used += clean_unit(s, len, i, false, &adv, out);
	}
}

/* One intent as one line of at most ROZ_BRIEFING_LINE_MAX bytes. */
static void add_intent_line(roz_buf *out, const roz_intent *it)
{
	roz_buf line = ROZ_BUF_INIT;
	size_t k;

	roz_buf_adds(&line, "- ");
	add_clean_cut(&line, it->id, ROZ_INTENTS_ID_MAX);
	roz_buf_adds(&line, " \xE2\x80\x94 "); /* em dash */
	add_clean_cut(&line, it->name, NAME_MAX_BYTES);
	if (it->nscope == 0) {
		roz_buf_adds(&line, " (no owned_scope: it allows no change)");
	} else {
		roz_buf_adds(&line, " (scope: ");
		for (k = 0; k < it->nscope; k++) {
			roz_buf one = ROZ_BUF_INIT;

			add_clean_cut(&one, it->scope[k], PATTERN_MAX_BYTES);
			if (line.len + 2 + one.len > ROZ_BRIEFING_LINE_MAX - LINE_TAIL) {
				roz_buf_dispose(&one);
				break;
			}
			if (k)
				roz_buf_adds(&line, ", ");
			roz_buf_add(&line, one.ptr ? one.ptr : "", one.len);
			roz_buf_dispose(&one);
		}
		if (k < it->nscope)
			roz_buf_addf(&line, "%s+%zu more", k ? ", " : "", it->nscope - k);
		roz_buf_addc(&line, ')');
	}
	roz_buf_addc(&line, '\n');
	if (roz_buf_failed(&line))
		out->oom = true;
	else
		roz_buf_add(out, line.ptr, line.len);
	roz_buf_dispose(&line);
}

/* The IN_PROGRESS intents, or what it means that there are none. */
static void add_intent_list(roz_buf *out, const roz_intents *ints)
{
	size_t total = ints ? ints->n : 0, active = 0, listed = 0;

	for (size_t i = 0; i < total; i++)
		if (ints->items[i].status == ROZ_INTENT_IN_PROGRESS)
			active++;
	if (active == 0) {
		roz_buf_adds(out, "No intent is IN_PROGRESS, so roz refuses every change until a person "
				  "sets one to IN_PROGRESS in .orchestration/active_intents.yaml.");
		if (total)
			roz_buf_addf(out, " (%zu intent%s in other states: `roz intent list`.)", total,
				     total == 1 ? " is" : "s are");
		roz_buf_addc(out, '\n');
		return;
	}
	roz_buf_adds(out, "IN_PROGRESS intents:\n");
	for (size_t i = 0; i < total && listed < ROZ_BRIEFING_INTENTS_LISTED; i++) {
		if (ints->items[i].status != ROZ_INTENT_IN_PROGRESS)
			continue;
		add_intent_line(out, &ints->items[i]);
		listed++;
	}
	if (listed < active)
		roz_buf_addf(out, "and %zu more: `roz intent list`\n", active - listed);
}

/*
 * Where the quoted lessons start: the first line start from which the
 * cleaned rest fits ROZ_BRIEFING_LESSONS_MAX bytes, or, when the last line
 * alone is longer, the first character boundary from which it fits.
 * Cleaning is per character, so the cleaned text from a line start is the
 * end of the whole file's cleaned text, and two passes find the place.
 */
static size_t lessons_start(const char *s, size_t len, bool *mid_line)
{
	size_t total = 0, done = 0, adv, fallback = len;

	*mid_line = false;
	for (size_t i = 0; i < len; i += adv)
		total += clean_unit(s, len, i, true, &adv, NULL);
	if (total <= ROZ_BRIEFING_LESSONS_MAX)
		return 0;
	for (size_t i = 0; i < len; i += adv) {
		bool line_start = i > 0 && s[i - 1] == '\n';

		if (total - done <= ROZ_BRIEFING_LESSONS_MAX) {
			if (line_start)
				return i;
			if (fallback == len)
				fallback = i;
		}
		done += clean_unit(s, len, i, true, &adv, NULL);
	}
	*mid_line = true;
	return fallback;
}

static void add_lessons(roz_buf *out, const char *s, size_t len)
{
	size_t start, lines = 0, adv;
	bool mid_line, blank = true;

	for (size_t i = 0; i < len && blank; i++)
		blank = s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r';
	if (blank)
		return;
	start = lessons_start(s, len, &mid_line);
	roz_buf_adds(out, "\n## Lessons from .orchestration/CLAUDE.md\n\n"
			  "People and agents add what they learn in this repository to the end of "
			  ".orchestration/CLAUDE.md. ");
	if (start == 0) {
		roz_buf_adds(out, "The whole file:\n\n");
	} else {
		for (const char *p = s; (p = memchr(p, '\n', (size_t)(s + start - p))) != NULL; p++)
			lines++;
		roz_buf_addf(out, "The newest lessons; the %zu bytes before them (%zu line%s%s) are left "
				  "out here, read the file for them:\n\n",
			     start, lines, lines == 1 ? "" : "s", mid_line ? ", and the beginning of the line they start in" : "");
	}
	for (size_t i = start; i < len; i += adv)
		clean_unit(s, len, i, true, &adv, out);
	if (out->len && out->ptr[out->len - 1] != '\n')
		roz_buf_addc(out, '\n');
	roz_buf_adds(out, "(end of lessons)\n");
}

void roz_briefing_build(const roz_intents *ints, const char *lessons, size_t lessons_len, roz_buf *out)
{
	roz_buf_adds(out, protocol);
	roz_buf_addc(out, '\n');
	add_intent_list(out, ints);
	if (lessons && lessons_len)
		add_lessons(out, lessons, lessons_len);
}

void roz_briefing_reminder(const roz_intents *ints, roz_buf *out)
{
	roz_buf_adds(out, "Reminder: changes in this repository are governed by intent and this session "
			  "has none selected. Before changing any file, run `roz intent select <ID>` "
			  "(as a Bash command) with one of the IN_PROGRESS intents, read the "
			  "<intent_context> it prints and stay inside its owned_scope; reading needs no "
			  "intent.\n");
	add_intent_list(out, ints);
}
