/*
 * test_briefing.c - what the agent is told at SessionStart and reminded of
 * at UserPromptSubmit: the protocol's points, only the IN_PROGRESS
 * intents, what it means when there are none, and the newest lessons cut
 * at a line start with a line saying what was left out, all bounded and
 * valid UTF-8 whatever the files hold.
 */
#include "support.h"

#include "roz/briefing.h"
#include "roz/utf8.h"

#include <stdlib.h>
#include <string.h>

static const char example[] =
	"active_intents:\n"
	"  - id: \"INT-001\"\n"
	"    name: \"JWT Authentication Migration\"\n"
	"    status: \"IN_PROGRESS\"\n"
	"    owned_scope:\n"
	"      - \"src/auth/**\"\n"
	"      - \"src/middleware/jwt.ts\"\n"
	"  - id: INT-002\n"
	"    name: Billing cleanup\n"
	"    status: DRAFT\n"
	"    owned_scope: [src/billing/]\n"
	"  - id: INT-003\n"
	"    name: Docs\n"
	"    status: IN_PROGRESS\n"
	"  - {id: INT-004, name: Old, status: COMPLETED}\n"
	"  - {id: INT-005, name: Older, status: ARCHIVED}\n";

static void load(const char *text, roz_intents *ints)
{
	roz_intents_error err;

	if (roz_intents_parse(text, strlen(text), ints, &err) != ROZ_OK)
		fail_msg("%u:%u: %s", err.line, err.col, err.message);
}

/* Text fit for the agent's context: valid UTF-8, no control character but tab and newline. */
static void assert_clean(const roz_buf *b)
{
	assert_false(b->oom);
	assert_true(roz_utf8_valid(b->ptr, b->len));
	for (size_t i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->ptr[i];

		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F)
			fail_msg("control byte 0x%02X at %zu", c, i);
	}
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void test_protocol_and_in_progress_intents(void **state)
{
	roz_intents ints;
	roz_buf b = ROZ_BUF_INIT;
	const char *s;

	(void)state;
	load(example, &ints);
	roz_briefing_build(&ints, NULL, 0, &b);
	assert_clean(&b);
	s = roz_buf_cstr(&b);
	/* what the agent must be told */
	assert_non_null(strstr(s, "roz intent select <ID>"));
	assert_non_null(strstr(s, "<intent_context>"));
	assert_non_null(strstr(s, "owned_scope"));
	assert_non_null(strstr(s, "Write, Edit, MultiEdit, NotebookEdit"));
	assert_non_null(strstr(s, "Bash command"));
	assert_non_null(strstr(s, "Reading, searching and read-only commands never need an intent"));
	assert_non_null(strstr(s, "`roz: <CODE>:`"));
	assert_non_null(strstr(s, "- INTENT_REQUIRED: "));
	assert_non_null(strstr(s, "- SCOPE_VIOLATION: "));
	assert_non_null(strstr(s, "ask the person"));
	assert_non_null(strstr(s, "- STALE_FILE: the file changed on disk since you last read it; Read it again"));
	assert_non_null(strstr(s, "- DESTRUCTIVE_BLOCKED: "));
	assert_non_null(strstr(s, "`roz intent list`"));
	/* only the IN_PROGRESS intents, in file order */
	assert_non_null(strstr(s, "IN_PROGRESS intents:\n"
				  "- INT-001 \xE2\x80\x94 JWT Authentication Migration (scope: src/auth/**, "
				  "src/middleware/jwt.ts)\n"
				  "- INT-003 \xE2\x80\x94 Docs (no owned_scope: it allows no change)\n"));
	assert_null(strstr(s, "INT-002"));
	assert_null(strstr(s, "INT-004"));
	assert_null(strstr(s, "INT-005"));
	assert_null(strstr(s, "No intent is IN_PROGRESS"));
	/* no lessons file, no lessons section */
	assert_null(strstr(s, "Lessons"));
	roz_buf_dispose(&b);
	roz_intents_dispose(&ints);
}

static void test_none_in_progress(void **state)
{
	roz_intents ints;
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	load("active_intents:\n  - {id: A, name: a, status: DRAFT}\n  - {id: B, name: b, status: COMPLETED}\n", &ints);
	roz_briefing_build(&ints, NULL, 0, &b);
	assert_non_null(strstr(roz_buf_cstr(&b),
			       "No intent is IN_PROGRESS, so roz refuses every change until a person sets one "
			       "to IN_PROGRESS in .orchestration/active_intents.yaml. (2 intents are in other "
			       "states: `roz intent list`.)\n"));
	assert_null(strstr(roz_buf_cstr(&b), "IN_PROGRESS intents:"));
	assert_null(strstr(roz_buf_cstr(&b), "- A "));
	roz_buf_dispose(&b);
	roz_intents_dispose(&ints);

	/* no intents at all, or none given */
	load("active_intents: []\n", &ints);
	roz_briefing_build(&ints, NULL, 0, &b);
	assert_non_null(strstr(roz_buf_cstr(&b), "No intent is IN_PROGRESS, so roz refuses every change until a "
						 "person sets one to IN_PROGRESS in .orchestration/active_intents.yaml.\n"));
	roz_buf_dispose(&b);
	roz_briefing_build(NULL, NULL, 0, &b);
	assert_non_null(strstr(roz_buf_cstr(&b), "No intent is IN_PROGRESS"));
	roz_buf_dispose(&b);
	roz_intents_dispose(&ints);
}

static void test_at_most_fifty_listed(void **state)
{
	roz_buf yaml = ROZ_BUF_INIT, b = ROZ_BUF_INIT;
	roz_intents ints;

	(void)state;
	roz_buf_adds(&yaml, "active_intents:\n");
	for (int i = 1; i <= 70; i++)
		roz_buf_addf(&yaml, "  - {id: I%d, name: n, status: %s, owned_scope: [src/%d/]}\n", i,
			     i % 7 == 0 ? "DRAFT" : "IN_PROGRESS", i);
	load(roz_buf_cstr(&yaml), &ints);
	roz_briefing_build(&ints, NULL, 0, &b);
	/* 60 in progress: 50 lines, then a pointer to the rest */
	assert_int_equal(count(strstr(roz_buf_cstr(&b), "IN_PROGRESS intents:\n"), "\n- I"),
			 ROZ_BRIEFING_INTENTS_LISTED);
	assert_non_null(strstr(roz_buf_cstr(&b), "- I58 \xE2\x80\x94 n (scope: src/58/)\n"
						 "and 10 more: `roz intent list`\n"));
	assert_null(strstr(roz_buf_cstr(&b), "- I7 "));
	roz_buf_dispose(&b);
	roz_buf_dispose(&yaml);
	roz_intents_dispose(&ints);
}

static void test_long_lines_are_cut(void **state)
{
	char longname[400], longpat[300];
	char *scope[40];
	roz_intent it = {.id = "INT-1", .name = longname, .status = ROZ_INTENT_IN_PROGRESS,
			 .scope = scope, .nscope = 40};
	roz_intents ints = {&it, 1};
	roz_buf b = ROZ_BUF_INIT;
	const char *line, *end;

	(void)state;
	/* é is two bytes: a cut must not split it */
	for (size_t i = 0; i + 2 < sizeof longname; i += 2)
		memcpy(longname + i, "\xC3\xA9", 2);
	longname[sizeof longname - 2] = '\0';
	memset(longpat, 'p', sizeof longpat - 1);
	longpat[sizeof longpat - 1] = '\0';
	for (int i = 0; i < 40; i++)
		scope[i] = i == 0 ? "src/a/**" : longpat;
	roz_briefing_build(&ints, NULL, 0, &b);
	assert_clean(&b);
	line = strstr(roz_buf_cstr(&b), "- INT-1 ");
	assert_non_null(line);
	end = strchr(line, '\n');
	assert_true((size_t)(end - line + 1) <= ROZ_BRIEFING_LINE_MAX);
	assert_non_null(strstr(line, "\xC3\xA9..."));
	assert_non_null(strstr(line, "(scope: src/a/**, ppp"));
	/* the patterns that do not fit are counted, not dropped silently */
	assert_non_null(strstr(line, " more)\n"));
	roz_buf_dispose(&b);
}

static void test_control_characters_in_names_are_replaced(void **state)
{
	char *scope[] = {"src/\x1b[31m/\xFF"};
	roz_intent it = {.id = "A\n- FAKE", .name = "bell\a\r\nnext", .status = ROZ_INTENT_IN_PROGRESS,
			 .scope = scope, .nscope = 1};
	roz_intents ints = {&it, 1};
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	roz_briefing_reminder(&ints, &b);
	assert_clean(&b);
	/* one intent, one line: a newline in a name cannot forge another entry */
	assert_non_null(strstr(roz_buf_cstr(&b), "- A\xEF\xBF\xBD- FAKE \xE2\x80\x94 bell\xEF\xBF\xBD\xEF\xBF\xBDnext "
						 "(scope: src/\xEF\xBF\xBD[31m/\xEF\xBF\xBD)\n"));
	roz_buf_dispose(&b);
}

static void test_short_lessons_quoted_whole(void **state)
{
	static const char lessons[] = "# Lessons\n\n- Run the auth tests with `make test-auth`.\r\n- Never edit generated files.";
	roz_intents ints;
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	load(example, &ints);
	roz_briefing_build(&ints, lessons, strlen(lessons), &b);
	assert_clean(&b);
	assert_non_null(strstr(roz_buf_cstr(&b), "## Lessons from .orchestration/CLAUDE.md\n"));
	assert_non_null(strstr(roz_buf_cstr(&b), "The whole file:\n\n# Lessons\n\n- Run the auth tests with "
						 "`make test-auth`.\n- Never edit generated files.\n(end of lessons)\n"));
	assert_null(strstr(roz_buf_cstr(&b), "left out"));
	roz_buf_dispose(&b);

	/* blank lessons say nothing */
	roz_briefing_build(&ints, " \n\r\n\t", 5, &b);
	assert_null(strstr(roz_buf_cstr(&b), "Lessons"));
	roz_buf_dispose(&b);
	roz_intents_dispose(&ints);
}

/* The quoted lessons of a briefing: what follows the intro, up to the end marker. */
static const char *quoted(const char *s, size_t *len)
{
	const char *start = strstr(s, "read the file for them:\n\n");
	const char *end = strstr(s, "(end of lessons)\n");

	assert_non_null(start);
	assert_non_null(end);
	start += strlen("read the file for them:\n\n");
	*len = (size_t)(end - start);
	return start;
}

static void test_newest_lessons_cut_at_a_line_start(void **state)
{
	roz_buf lessons = ROZ_BUF_INIT, b = ROZ_BUF_INIT;
	size_t qlen, lines = 200, each = 50;
	const char *q;
	char *omitted;

	(void)state;
	for (size_t i = 0; i < lines; i++)
		roz_buf_addf(&lessons, "- lesson %04zu: keep this one line of fifty bytes!\n", i);
	assert_int_equal(lessons.len, lines * each);
	roz_briefing_build(NULL, lessons.ptr, lessons.len, &b);
	assert_clean(&b);
	q = quoted(roz_buf_cstr(&b), &qlen);
	/* the newest whole lines that fit: 81 lines of 50 bytes */
	assert_true(qlen <= ROZ_BRIEFING_LESSONS_MAX);
	assert_true(qlen + each > ROZ_BRIEFING_LESSONS_MAX);
	assert_int_equal(qlen % each, 0);
	assert_memory_equal(q, lessons.ptr + lessons.len - qlen, qlen);
	assert_memory_equal(q, "- lesson 0119:", 14);
	omitted = t_sprintf("the %zu bytes before them (%zu lines) are left out here, read the file for them",
			    lessons.len - qlen, (lessons.len - qlen) / each);
	assert_non_null(strstr(roz_buf_cstr(&b), omitted));
	assert_non_null(strstr(roz_buf_cstr(&b), "- lesson 0199: keep this one line of fifty bytes!\n(end of lessons)\n"));
	free(omitted);
	roz_buf_dispose(&b);
	roz_buf_dispose(&lessons);
}

static void test_huge_lessons_are_bounded(void **state)
{
	size_t len = 1024 * 1024;
	char *lessons = malloc(len);
	roz_intents ints;
	roz_buf b = ROZ_BUF_INIT;
	size_t qlen;

	(void)state;
	assert_non_null(lessons);
	for (size_t i = 0; i < len; i++)
		lessons[i] = (i % 64 == 63) ? '\n' : 'a' + (char)(i % 26);
	memcpy(lessons + len - 12, "LAST LESSON\n", 12);
	load(example, &ints);
	roz_briefing_build(&ints, lessons, len, &b);
	assert_clean(&b);
	assert_true(b.len <= ROZ_BRIEFING_MAX_BYTES);
	assert_non_null(strstr(roz_buf_cstr(&b), "LAST LESSON\n(end of lessons)\n"));
	assert_non_null(strstr(roz_buf_cstr(&b), "(16320 lines)"));
	quoted(roz_buf_cstr(&b), &qlen);
	assert_true(qlen <= ROZ_BRIEFING_LESSONS_MAX);
	roz_buf_dispose(&b);
	roz_intents_dispose(&ints);
	free(lessons);
}

/* One line longer than the budget: cut where a character starts, and said so. */
static void test_one_long_line_is_not_split_mid_character(void **state)
{
	size_t len = 3 * 5000;
	char *lessons = malloc(len);
	roz_buf b = ROZ_BUF_INIT;
	const char *q;
	size_t qlen;

	(void)state;
	assert_non_null(lessons);
	for (size_t i = 0; i < len; i += 3)
		memcpy(lessons + i, "\xE2\x82\xAC", 3); /* the euro sign, 3 bytes */
	/* 4096 is not a multiple of 3: a cut at the last 4096 bytes would split one */
	roz_briefing_build(NULL, lessons, len, &b);
	assert_clean(&b);
	q = quoted(roz_buf_cstr(&b), &qlen);
	/* ends with the newline the briefing adds: the characters are whole */
	assert_true(roz_utf8_valid(q, qlen));
	assert_true(qlen - 1 <= ROZ_BRIEFING_LESSONS_MAX);
	assert_memory_equal(q, "\xE2\x82\xAC", 3);
	assert_non_null(strstr(roz_buf_cstr(&b), "(0 lines, and the beginning of the line they start in)"));
	roz_buf_dispose(&b);
	free(lessons);
}

static void test_bad_bytes_in_lessons_are_replaced(void **state)
{
	static const char lessons[] = "caf\xC3\xA9 ok\n\xFF\xFE bad\n\x1b[2Jclear\n";
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	roz_briefing_build(NULL, lessons, sizeof lessons - 1, &b);
	assert_clean(&b);
	assert_non_null(strstr(roz_buf_cstr(&b), "caf\xC3\xA9 ok\n\xEF\xBF\xBD\xEF\xBF\xBD bad\n\xEF\xBF\xBD[2Jclear\n"));
	roz_buf_dispose(&b);
}

/* Replacement characters are three bytes for one: the budget counts what is written. */
static void test_bad_bytes_do_not_break_the_bound(void **state)
{
	size_t len = 64 * 1024;
	char *lessons = malloc(len);
	char name[200], id[ROZ_INTENTS_ID_MAX + 1], pat[200];
	char *scope[60];
	roz_intent items[60];
	roz_intents ints = {items, 60};
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	assert_non_null(lessons);
	memset(lessons, 0xFF, len);
	memset(name, 0x01, sizeof name - 1);
	name[sizeof name - 1] = '\0';
	memset(id, 'I', sizeof id - 1);
	id[sizeof id - 1] = '\0';
	memset(pat, 0x02, sizeof pat - 1);
	pat[sizeof pat - 1] = '\0';
	for (int i = 0; i < 60; i++) {
		scope[i] = pat;
		items[i] = (roz_intent){.id = id, .name = name, .status = ROZ_INTENT_IN_PROGRESS,
					.scope = scope, .nscope = 60};
	}
	roz_briefing_build(&ints, lessons, len, &b);
	assert_clean(&b);
	assert_true(b.len <= ROZ_BRIEFING_MAX_BYTES);
	roz_buf_dispose(&b);
	roz_briefing_reminder(&ints, &b);
	assert_clean(&b);
	assert_true(b.len <= ROZ_BRIEFING_REMINDER_MAX_BYTES);
	roz_buf_dispose(&b);
	free(lessons);
}

static void test_reminder(void **state)
{
	roz_intents ints;
	roz_buf b = ROZ_BUF_INIT;
	const char *s;

	(void)state;
	load(example, &ints);
	roz_briefing_reminder(&ints, &b);
	assert_clean(&b);
	s = roz_buf_cstr(&b);
	assert_non_null(strstr(s, "roz intent select <ID>"));
	assert_non_null(strstr(s, "- INT-001 \xE2\x80\x94 JWT Authentication Migration"));
	assert_non_null(strstr(s, "- INT-003 "));
	assert_null(strstr(s, "INT-002"));
	/* short: one paragraph and the list, no protocol and no lessons */
	assert_null(strstr(s, "STALE_FILE"));
	assert_int_equal(count(s, "\n"), 1 + 1 + 2);
	roz_buf_dispose(&b);
	roz_intents_dispose(&ints);
}

static void test_out_of_memory_is_sticky(void **state)
{
	roz_intents ints;
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	load(example, &ints);
	for (long n = 0; n < 12; n++) {
		roz_alloc_fail_after(n);
		roz_briefing_build(&ints, "lesson\n", 7, &b);
		roz_alloc_fail_after(-1);
		if (!roz_buf_failed(&b))
			assert_non_null(strstr(roz_buf_cstr(&b), "(end of lessons)"));
		roz_buf_dispose(&b);
	}
	roz_intents_dispose(&ints);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protocol_and_in_progress_intents),
		cmocka_unit_test(test_none_in_progress),
		cmocka_unit_test(test_at_most_fifty_listed),
		cmocka_unit_test(test_long_lines_are_cut),
		cmocka_unit_test(test_control_characters_in_names_are_replaced),
		cmocka_unit_test(test_short_lessons_quoted_whole),
		cmocka_unit_test(test_newest_lessons_cut_at_a_line_start),
		cmocka_unit_test(test_huge_lessons_are_bounded),
		cmocka_unit_test(test_one_long_line_is_not_split_mid_character),
		cmocka_unit_test(test_bad_bytes_in_lessons_are_replaced),
		cmocka_unit_test(test_bad_bytes_do_not_break_the_bound),
		cmocka_unit_test(test_reminder),
		cmocka_unit_test(test_out_of_memory_is_sticky),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
