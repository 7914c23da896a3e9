/*
 * test_lessons.c - a lesson of .orchestration/CLAUDE.md is always one line:
 * dated, under its intent, with who wrote it, whatever the text holds, and
 * never longer than the limit.
 */
#include "support.h"

#include "roz/lessons.h"
#include "roz/utf8.h"

#include <string.h>

/* 2026-02-18T14:30:00Z */
static const roz_time when = {1771425000, 0};

static char *format(const char *intent, const char *who, const char *text)
{
	roz_buf b = ROZ_BUF_INIT;

	assert_int_equal(roz_lessons_format(when, intent, who, text, &b), ROZ_OK);
	return roz_buf_detach(&b, NULL);
}

static void a_lesson_is_dated_under_its_intent_with_its_author(void **state)
{
	char *s = format("INT-001", "roz:roz review of s1", "jwt.ts needs an async import");

	(void)state;
	assert_string_equal(s, "- 2026-02-18 [INT-001] (roz:roz review of s1): jwt.ts needs an async import\n");
	roz_free(s);
	s = format(NULL, "alice", "run the auth tests before pushing");
	assert_string_equal(s, "- 2026-02-18 [no intent] (alice): run the auth tests before pushing\n");
	roz_free(s);
	s = format("", NULL, "x");
	assert_string_equal(s, "- 2026-02-18 [no intent] (unknown): x\n");
	roz_free(s);
}

static void line_breaks_become_slashes_and_the_line_stays_one(void **state)
{
	char *s = format("INT-1", "r", "  First point.\n\n  Second point.\r\nThird\rfourth  \n");

	(void)state;
	assert_string_equal(s, "- 2026-02-18 [INT-1] (r): First point. / Second point. / Third / fourth\n");
	roz_free(s);
	/* an author or intent with a line break cannot start a line of their own either */
	s = format("INT\n- 1999-01-01 [x]", "a\nb", "t");
	assert_string_equal(s, "- 2026-02-18 [INT / - 1999-01-01 [x]] (a / b): t\n");
	roz_free(s);
}

static void control_characters_and_bad_bytes_cannot_reach_the_file(void **state)
{
	char *s = format("I", "w", "a\tb\x1b[31mred\x7f\xc2\x85z \xff\xfe ok \xc3\xa9");

	(void)state;
	/* tab, escape, DEL and NEL (U+0085) are blanks; bytes that are not UTF-8 are U+FFFD */
	assert_string_equal(s, "- 2026-02-18 [I] (w): a b [31mred z \xef\xbf\xbd\xef\xbf\xbd ok \xc3\xa9\n");
	assert_true(roz_utf8_valid(s, strlen(s)));
	roz_free(s);
}

static void an_empty_lesson_is_refused(void **state)
{
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	assert_int_equal(roz_lessons_format(when, "I", "w", " \n\t\r\n ", &b), ROZ_EINVALID);
	assert_int_equal(roz_lessons_format(when, "I", "w", "", &b), ROZ_EINVALID);
	assert_int_equal(roz_lessons_format(when, "I", "w", NULL, &b), ROZ_EINVALID);
	assert_int_equal(b.len, 0);
	assert_non_null(strstr(roz_error_last(), "text"));
	roz_buf_dispose(&b);
}

static void a_long_lesson_is_cut_on_a_character_boundary(void **state)
{
	size_t n = 5000;
	char *text = roz_malloc(n * 2 + 1), *s, *who = roz_malloc(1001);

	(void)state;
	for (size_t i = 0; i < n; i++)
		memcpy(text + 2 * i, "\xc3\xa9", 2); /* é, two bytes each */
	text[2 * n] = '\0';
	memset(who, 'w', 1000);
	who[1000] = '\0';
	s = format(who, who, text);
	assert_true(strlen(s) <= ROZ_LESSONS_LINE_MAX);
	assert_true(strlen(s) > ROZ_LESSONS_LINE_MAX - 8);
	assert_true(roz_utf8_valid(s, strlen(s)));
	assert_non_null(strstr(s, "...\n"));
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
	/* the intent and author are bounded too, so the text keeps most of the line */
	assert_true(strstr(s, "\xc3\xa9") - s < 600);
	roz_free(s);
	/* a text that just fits is not cut */
	text[1000] = '\0';
	s = format("I", "w", text);
	assert_null(strstr(s, "..."));
	roz_free(s);
	roz_free(text);
	roz_free(who);
}

static void memory_running_out_is_reported(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	long total;

	(void)state;
	roz_alloc_fail_after(1000000);
	assert_int_equal(roz_lessons_format(when, "I", "w", "lesson", &b), ROZ_OK);
	total = roz_alloc_count();
	roz_buf_dispose(&b);
	for (long k = 0; k < total; k++) {
		roz_buf o = ROZ_BUF_INIT;

		roz_alloc_fail_after(k);
		assert_int_equal(roz_lessons_format(when, "I", "w", "lesson", &o), ROZ_ENOMEM);
		roz_alloc_fail_after(-1);
		roz_buf_dispose(&o);
	}
	roz_alloc_fail_after(-1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_lesson_is_dated_under_its_intent_with_its_author),
		cmocka_unit_test(line_breaks_become_slashes_and_the_line_stays_one),
		cmocka_unit_test(control_characters_and_bad_bytes_cannot_reach_the_file),
		cmocka_unit_test(an_empty_lesson_is_refused),
		cmocka_unit_test(a_long_lesson_is_cut_on_a_character_boundary),
		cmocka_unit_test(memory_running_out_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
