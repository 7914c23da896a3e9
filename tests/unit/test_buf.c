/*
 * test_buf.c - the growable text buffer: always NUL-terminated, appends of
 * every kind, replacing while appending, reset keeping memory, detach
 * handing the text over, and the sticky out-of-memory flag that lets a
 * builder check once at the end.
 */
#include "support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_empty_buffer_reads_as_empty_text(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	roz_buf c;
	size_t len = 99;
	char *p;

	(void)state;
	assert_string_equal(roz_buf_cstr(&b), "");
	assert_int_equal(roz_buf_failed(&b), ROZ_OK);
	roz_buf_init(&c);
	assert_null(c.ptr);
	assert_int_equal(c.len, 0);
	/* detaching nothing still gives a string the caller can free */
	p = roz_buf_detach(&b, &len);
	assert_non_null(p);
	assert_string_equal(p, "");
	assert_int_equal(len, 0);
	roz_free(p);
	roz_buf_dispose(&b);
}

static void test_appends_keep_a_terminated_string(void **state)
{
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	roz_buf_add(&b, "abcdef", 3);
	assert_int_equal(b.len, 3);
	assert_int_equal(b.ptr[3], '\0');
	roz_buf_adds(&b, "-x-");
	roz_buf_addc(&b, '!');
	roz_buf_addf(&b, "%d/%s/%05.1f", 42, "y", 2.5);
	assert_string_equal(roz_buf_cstr(&b), "abc-x-!42/y/002.5");
	assert_int_equal(b.len, strlen(b.ptr));
	assert_true(b.cap > b.len);
	/* bytes are bytes: an embedded NUL is kept and counted */
	roz_buf_add(&b, "\0z", 2);
	assert_int_equal(b.len, 19);
	assert_int_equal(b.ptr[17], '\0');
	assert_int_equal(b.ptr[18], 'z');
	assert_int_equal(b.ptr[19], '\0');
	/* adding nothing changes nothing */
	roz_buf_add(&b, NULL, 0);
	assert_int_equal(b.len, 19);
	roz_buf_dispose(&b);
	assert_null(b.ptr);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
}

static void test_grows_past_many_doublings(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	char expect[10001];

	(void)state;
	for (int i = 0; i < 10000; i++) {
		roz_buf_addc(&b, (char)('a' + i % 26));
		expect[i] = (char)('a' + i % 26);
	}
	expect[10000] = '\0';
	assert_int_equal(roz_buf_failed(&b), ROZ_OK);
	assert_int_equal(b.len, 10000);
	assert_string_equal(b.ptr, expect);
	/* a formatted append longer than any room left */
	roz_buf_reset(&b);
	roz_buf_addf(&b, "%s%s", expect, expect);
	assert_int_equal(b.len, 20000);
	assert_memory_equal(b.ptr + 10000, expect, 10000);
	assert_int_equal(b.ptr[20000], '\0');
	roz_buf_dispose(&b);
}

static void test_reset_keeps_memory_and_clears_text(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	char *before;
	size_t cap;

	(void)state;
	roz_buf_adds(&b, "some text to keep room for");
	before = b.ptr;
	cap = b.cap;
	roz_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(roz_buf_cstr(&b), "");
	assert_ptr_equal(b.ptr, before);
	assert_int_equal(b.cap, cap);
	roz_buf_adds(&b, "new");
	assert_string_equal(roz_buf_cstr(&b), "new");
	roz_buf_dispose(&b);
	/* resetting a buffer that never held anything is harmless */
	roz_buf_reset(&b);
	assert_string_equal(roz_buf_cstr(&b), "");
}

static void test_detach_hands_over_and_empties(void **state)
{
	roz_buf b = ROZ_BUF_INIT;
	size_t len = 0;
	char *p;

	(void)state;
	roz_buf_adds(&b, "hand me over");
	p = roz_buf_detach(&b, &len);
	assert_string_equal(p, "hand me over");
	assert_int_equal(len, 12);
	assert_null(b.ptr);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	/* the buffer is ready for use again, and what was detached is not touched */
	roz_buf_adds(&b, "again");
	assert_string_equal(p, "hand me over");
	roz_free(p);
	roz_buf_dispose(&b);
}

static char *replaced(const char *s, const char *from, const char *to)
{
	roz_buf b = ROZ_BUF_INIT;

	roz_buf_add_replaced(&b, s, from, to);
	assert_int_equal(roz_buf_failed(&b), ROZ_OK);
	return roz_buf_detach(&b, NULL);
}

static void test_add_replaced(void **state)
{
	static const struct {
		const char *s, *from, *to, *want;
	} cases[] = {
		{"id {{session_id}} and {{session_id}}", "{{session_id}}", "s1", "id s1 and s1"},
		{"{{x}}{{x}}", "{{x}}", "", ""},
		{"no marker here", "{{x}}", "y", "no marker here"},
		{"aaa", "aa", "b", "ba"},             /* left to right, no overlaps */
		{"abc", "", "zz", "abc"},             /* an empty marker replaces nothing */
		{"", "x", "y", ""},
		{"x", "x", "{{x}}", "{{x}}"},         /* the replacement is not searched again */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *r = replaced(cases[i].s, cases[i].from, cases[i].to);

		if (strcmp(r, cases[i].want) != 0)
			fail_msg("'%s' with '%s' -> '%s' gave '%s'", cases[i].s, cases[i].from, cases[i].to, r);
		roz_free(r);
	}
}

static void test_out_of_memory_is_sticky(void **state)
{
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	roz_buf_adds(&b, "kept");
	roz_alloc_fail_after(0);
	roz_buf_add(&b, "this needs more room than there is", 34);
	roz_alloc_fail_after(-1);
	assert_true(b.oom);
	/* later appends do nothing, even ones that would now succeed */
	roz_buf_adds(&b, "more");
	roz_buf_addc(&b, 'c');
	roz_buf_addf(&b, "%d", 7);
	assert_string_equal(b.ptr, "kept");
	assert_int_equal(roz_buf_failed(&b), ROZ_ENOMEM);
	assert_non_null(strstr(roz_error_last(), "out of memory"));
	/* a reset makes it usable again */
	roz_buf_reset(&b);
	assert_int_equal(roz_buf_failed(&b), ROZ_OK);
	roz_buf_adds(&b, "fresh");
	assert_string_equal(roz_buf_cstr(&b), "fresh");
	roz_buf_dispose(&b);
	/* a first allocation that fails leaves an empty, failed buffer */
	roz_alloc_fail_after(0);
	roz_buf_addc(&b, 'x');
	roz_alloc_fail_after(-1);
	assert_int_equal(roz_buf_failed(&b), ROZ_ENOMEM);
	assert_string_equal(roz_buf_cstr(&b), "");
	roz_buf_dispose(&b);
	assert_false(b.oom);
}

static void test_sizes_that_cannot_be_held_fail_cleanly(void **state)
{
	roz_buf b = ROZ_BUF_INIT;

	(void)state;
	roz_buf_adds(&b, "x");
	assert_false(roz_buf_grow(&b, SIZE_MAX));
	assert_int_equal(roz_buf_failed(&b), ROZ_ENOMEM);
	assert_string_equal(b.ptr, "x");
	roz_buf_dispose(&b);
	assert_false(roz_buf_grow(&b, SIZE_MAX - 1));
	assert_true(b.oom);
	roz_buf_dispose(&b);
	/* a grow that fits reserves room without changing the text */
	assert_true(roz_buf_grow(&b, 100));
	assert_true(b.cap >= 101);
	assert_int_equal(b.len, 0);
	roz_buf_dispose(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_buffer_reads_as_empty_text),
		cmocka_unit_test(test_appends_keep_a_terminated_string),
		cmocka_unit_test(test_grows_past_many_doublings),
		cmocka_unit_test(test_reset_keeps_memory_and_clears_text),
		cmocka_unit_test(test_detach_hands_over_and_empties),
		cmocka_unit_test(test_add_replaced),
		cmocka_unit_test(test_out_of_memory_is_sticky),
		cmocka_unit_test(test_sizes_that_cannot_be_held_fail_cleanly),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
