/*
 * fuzz_intents.c - the intents file on arbitrary bytes, then everything
 * made from it. A file that reads must hold only intents governance can
 * trust (ids usable on a command line and unique, a known status, usable
 * globs, text without control characters); a file that does not must be
 * refused whole, at a line and column that exist. The <intent_context>
 * blocks and the briefing (the same bytes serving as the lessons file)
 * must be clean UTF-8 within their bounds.
 */
#include <string.h>

#include "fuzz.h"
#include "roz/briefing.h"
#include "roz/intents.h"
#include "roz/scope.h"
#include "roz/utf8.h"

/* Line breaks as the parser counts them for people: LF, CR LF, a lone CR. */
static void check_position(const char *text, size_t len, const roz_intents_error *err)
{
	unsigned line = 1;
	size_t i = 0, chars = 0;

	FUZZ_CHECK(err->line >= 1 && err->col >= 1);
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	for (; i < len && line < err->line; i++)
		if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n')))
			line++;
	/* the error names a line past the last one */
	FUZZ_CHECK(line == err->line);
	for (; i < len && text[i] != '\n'; i++) {
		if (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n'))
			break;
		if (((unsigned char)text[i] & 0xC0) != 0x80)
			chars++;
	}
	/* one past the last character is the end of the line (or of the input) */
	FUZZ_CHECK(err->col <= chars + 1);
}

/* Text holds no control character but tab (where allowed) and newline (in prose only). */
static void check_text(const char *s, bool allow_tab, bool allow_newline)
{
	size_t len;

	FUZZ_CHECK(s != NULL);
	len = strlen(s);
	FUZZ_CHECK(roz_utf8_valid(s, len));
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		FUZZ_CHECK(c >= 0x20 || (allow_tab && c == '\t') || (allow_newline && c == '\n'));
		FUZZ_CHECK(c != 0x7F);
		/* no C1 control either */
		FUZZ_CHECK(!(c == 0xC2 && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9F));
	}
}

/* Constraints and criteria are prose a person may write as a YAML block; scopes are one line. */
static void check_list(char *const *list, size_t n, bool prose)
{
	FUZZ_CHECK((n == 0) == (list == NULL));
	for (size_t i = 0; i < n; i++)
		check_text(list[i], true, prose);
}

static void check_intent(const roz_intents *ints, size_t k)
{
	const roz_intent *it = &ints->items[k];
	size_t idlen;

	check_text(it->id, false, false);
	idlen = strlen(it->id);
	FUZZ_CHECK(idlen >= 1 && idlen <= ROZ_INTENTS_ID_MAX);
	for (size_t i = 0; i < idlen; i++)
		FUZZ_CHECK(it->id[i] > 0x20 && it->id[i] < 0x7F);
	/* ids are unique, so find() gives back this very intent */
	FUZZ_CHECK(roz_intents_find(ints, it->id) == it);
	check_text(it->name, true, false);
	FUZZ_CHECK(strspn(it->name, " \t") < strlen(it->name));
	FUZZ_CHECK(it->status <= ROZ_INTENT_ARCHIVED);
	check_list(it->scope, it->nscope, false);
	for (size_t i = 0; i < it->nscope; i++)
		FUZZ_CHECK(roz_scope_pattern_check(it->scope[i], NULL));
	check_list(it->constraints, it->nconstraints, true);
	check_list(it->criteria, it->ncriteria, true);
	if (it->created_at)
		check_text(it->created_at, true, false);
	if (it->updated_at)
		check_text(it->updated_at, true, false);
	FUZZ_CHECK(it->line >= 1);
}

/* What the agent reads: valid UTF-8, no control character but tab and newline (and CR in XML). */
static void check_output(const roz_buf *b, bool xml)
{
	FUZZ_CHECK(roz_utf8_valid(b->ptr, b->len));
	FUZZ_CHECK(b->ptr[b->len] == '\0');
	for (size_t i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->ptr[i];

		FUZZ_CHECK(c >= 0x20 || c == '\t' || c == '\n' || (xml && c == '\r'));
		FUZZ_CHECK(c != 0);
	}
}

static void check_xml(const roz_intent *it)
{
	roz_buf b = ROZ_BUF_INIT;
	size_t open = 0, close = 0;
	static const char tail[] = "  </intent>\n</intent_context>\n";

	roz_intents_context_xml(it, &b);
	if (roz_buf_failed(&b)) {
		roz_buf_dispose(&b);
		return;
	}
	check_output(&b, true);
	FUZZ_CHECK(strncmp(b.ptr, "<intent_context>\n  <intent id=\"", 31) == 0);
	FUZZ_CHECK(b.len > sizeof tail && strcmp(b.ptr + b.len - (sizeof tail - 1), tail) == 0);
	/* every value escaped: the only angle brackets and quotes are the markup's */
	for (size_t i = 0; i < b.len; i++) {
		open += b.ptr[i] == '<';
		close += b.ptr[i] == '>';
		FUZZ_CHECK(b.ptr[i] != '\'');
	}
	FUZZ_CHECK(open == close);
	FUZZ_CHECK(open == 2 * (5 + it->nscope + it->nconstraints + it->ncriteria) -
				   (it->nscope == 0) - (it->nconstraints == 0) - (it->ncriteria == 0));
	roz_buf_dispose(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	roz_intents ints = {(roz_intent *)1, 7};
	roz_intents_error err;
	roz_buf b = ROZ_BUF_INIT;
	int rc;

	fuzz_init();
	rc = roz_intents_parse(text, size, &ints, &err);
	if (rc == ROZ_ENOMEM) {
		FUZZ_CHECK(ints.n == 0 && ints.items == NULL);
		roz_intents_error_dispose(&err);
		return 0;
	}
	FUZZ_CHECK(rc == ROZ_OK || rc == ROZ_EPARSE || rc == ROZ_EINVALID);
	if (rc != ROZ_OK) {
		/* the whole file is refused, and the problem is shown where it is */
		FUZZ_CHECK(ints.n == 0 && ints.items == NULL);
		FUZZ_CHECK(err.message != NULL && err.message[0] != '\0');
		FUZZ_CHECK(strchr(err.message, '\n') == NULL);
		check_position(text, size, &err);
		roz_intents_error_dispose(&err);
	} else {
		FUZZ_CHECK(err.message == NULL);
		FUZZ_CHECK(ints.n <= ROZ_INTENTS_MAX);
		FUZZ_CHECK((ints.n == 0) == (ints.items == NULL));
		/* find() is linear: big files are checked on their first intents only */
		for (size_t k = 0; k < ints.n && k < 64; k++) {
			check_intent(&ints, k);
			check_xml(&ints.items[k]);
		}
	}

	/* the briefing with these intents (none when refused) and these bytes as lessons */
	roz_briefing_build(&ints, text, size, &b);
	if (!roz_buf_failed(&b)) {
		check_output(&b, false);
		FUZZ_CHECK(b.len <= ROZ_BRIEFING_MAX_BYTES);
	}
	roz_buf_dispose(&b);
	roz_briefing_reminder(&ints, &b);
	if (!roz_buf_failed(&b)) {
		check_output(&b, false);
		FUZZ_CHECK(b.len <= ROZ_BRIEFING_REMINDER_MAX_BYTES);
	}
	roz_buf_dispose(&b);
	roz_intents_dispose(&ints);
	return 0;
}
