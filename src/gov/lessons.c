/*
 * lessons.c - a lesson of .orchestration/CLAUDE.md as one line: date,
 * intent, who, and the text made to fit a line (roz/lessons.h).
 *
 * Whatever a reviewer's --message holds (paragraphs, a pasted diff, bytes
 * that are not UTF-8), the file stays one lesson per line, so the tail the
 * briefing reads never starts inside a lesson and a line is never a
 * fragment of someone else's.
 */
#include <string.h>

#include "roz/lessons.h"
#include "roz/utf8.h"

/* Longest intent id or author kept in a line: the text is what matters. */
#define PART_MAX 256u

/*
 * Append s[0..len) made one line: runs of blanks become one space, runs of
 * line breaks (with the blanks around them) one " / ", other control
 * characters count as blanks, malformed bytes become U+FFFD; nothing
 * leads or trails.
 */
static void add_one_line(roz_buf *b, const char *s, size_t len)
{
	size_t start = b->len, i = 0;
	bool brk = false, blank = false;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n;

		if (c == '\n' || c == '\r') {
			brk = true;
			i++;
			continue;
		}
		if (c == ' ' || c < 0x20 || c == 0x7f) {
			blank = true;
			i++;
			continue;
		}
		n = roz_utf8_char_len(s + i, len - i);
		/* C1 controls (U+0080..U+009F) move a terminal as C0 ones do */
		if (n == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0) {
			blank = true;
			i += 2;
			continue;
		}
		if (b->len > start) {
			if (brk)
				roz_buf_adds(b, " / ");
			else if (blank)
				roz_buf_addc(b, ' ');
		}
		brk = blank = false;
		if (n == 0) {
			roz_utf8_add(b, 0xfffd);
			i++;
		} else {
			roz_buf_add(b, s + i, n);
			i += n;
		}
	}
}

/* add_one_line into a buffer of its own, cut to at most max bytes on a character boundary. */
static void part(roz_buf *b, const char *s, size_t max)
{
	roz_buf_reset(b);
	if (s)
		add_one_line(b, s, strlen(s));
	if (!roz_buf_failed(b) && b->len > max)
		b->len = roz_utf8_cut(b->ptr, b->len, max);
}

int roz_lessons_format(roz_time when, const char *intent_id, const char *who, const char *text,
		       roz_buf *out)
{
	roz_buf intent = ROZ_BUF_INIT, author = ROZ_BUF_INIT, body = ROZ_BUF_INIT, line = ROZ_BUF_INIT;
	char date[ROZ_TIME_BUFSZ];
	size_t room;
	int rc = ROZ_ENOMEM;

	part(&intent, intent_id, PART_MAX);
	part(&author, who, PART_MAX);
	part(&body, text, ROZ_LESSONS_LINE_MAX);
	if (roz_buf_failed(&intent) || roz_buf_failed(&author) || roz_buf_failed(&body))
		goto out;
	if (!body.len) {
		roz_error_set("a lesson needs some text");
		rc = ROZ_EINVALID;
		goto out;
	}
	roz_time_format_sec(when, date);
	date[10] = '\0'; /* YYYY-MM-DD */
	roz_buf_addf(&line, "- %s [", date);
	if (intent.len)
		roz_buf_add(&line, intent.ptr, intent.len);
	else
		roz_buf_adds(&line, "no intent");
	roz_buf_adds(&line, "] (");
	if (author.len)
		roz_buf_add(&line, author.ptr, author.len);
	else
		roz_buf_adds(&line, "unknown");
	roz_buf_adds(&line, "): ");
	if (roz_buf_failed(&line))
		goto out;
	/* the prefix is at most ~540 bytes, so there is always room for some text and "\n" */
	room = ROZ_LESSONS_LINE_MAX - 1 - line.len;
	if (body.len > room) {
		roz_buf_add(&line, body.ptr, roz_utf8_cut(body.ptr, body.len, room - 3));
		roz_buf_adds(&line, "...");
	} else {
		roz_buf_add(&line, body.ptr, body.len);
	}
	roz_buf_addc(&line, '\n');
	if (roz_buf_failed(&line))
		goto out;
	roz_buf_add(out, line.ptr, line.len);
	rc = roz_buf_failed(out) ? ROZ_ENOMEM : ROZ_OK;
out:
	roz_buf_dispose(&intent);
	roz_buf_dispose(&author);
	roz_buf_dispose(&body);
	roz_buf_dispose(&line);
	return rc;
}
