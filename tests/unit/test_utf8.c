/*
 * test_utf8.c - what roz accepts as UTF-8 (no overlongs, surrogates, code
 * points past U+10FFFF or cut characters), how bad bytes are repaired,
 * where strings are cut and counted, and encoding a code point. Inputs are
 * copied to exact-size heap blocks, so a read past `len` shows under ASan.
 */
#include "support.h"

#include "roz/utf8.h"

#include <stdlib.h>
#include <string.h>

/* s[0..len) in a block of exactly len bytes (one byte when empty); caller frees. */
static char *exact(const char *s, size_t len)
{
	char *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, s, len);
	return p;
}

static bool valid(const char *s, size_t len)
{
	char *p = exact(s, len);
	bool v = roz_utf8_valid(p, len);

	free(p);
	return v;
}

static size_t char_len(const char *s, size_t len)
{
	char *p = exact(s, len);
	size_t n = roz_utf8_char_len(p, len);

	free(p);
	return n;
}

#define VALID(lit) assert_true(valid(lit, sizeof(lit) - 1))
#define INVALID(lit) \
	do { if (valid(lit, sizeof(lit) - 1)) fail_msg("accepted: %s", #lit); } while (0)

static void test_well_formed_text_is_valid(void **state)
{
	(void)state;
	VALID("");
	VALID("plain ascii, with \t and \n");
	VALID("caf\xc3\xa9");                    /* U+00E9 */
	VALID("\xc2\x80");                       /* U+0080, the first two-byte character */
	VALID("\xdf\xbf");                       /* U+07FF */
	VALID("\xe0\xa0\x80");                   /* U+0800 */
	VALID("\xe2\x82\xac");                   /* U+20AC */
	VALID("\xed\x9f\xbf");                   /* U+D7FF, just below the surrogates */
	VALID("\xee\x80\x80");                   /* U+E000, just above them */
	VALID("\xef\xbf\xbf");                   /* U+FFFF */
	VALID("\xf0\x90\x80\x80");               /* U+10000 */
	VALID("\xf0\x9f\x8e\x89 party");         /* U+1F389 */
	VALID("\xf4\x8f\xbf\xbf");               /* U+10FFFF, the last code point */
	/* an embedded NUL is a character like any other when the length is given */
	assert_true(valid("a\0b", 3));
}

static void test_malformed_text_is_refused(void **state)
{
	(void)state;
	INVALID("\x80");                     /* a lone continuation byte */
	INVALID("abc\xbf");
	INVALID("\xc0\xaf");                 /* overlong '/' */
	INVALID("\xc1\xbf");                 /* overlong */
	INVALID("\xe0\x80\xaf");             /* overlong in three bytes */
	INVALID("\xe0\x9f\xbf");             /* overlong U+07FF */
	INVALID("\xf0\x80\x80\xaf");         /* overlong in four bytes */
	INVALID("\xf0\x8f\xbf\xbf");         /* overlong U+FFFF */
	INVALID("\xed\xa0\x80");             /* U+D800, a surrogate */
	INVALID("\xed\xbf\xbf");             /* U+DFFF */
	INVALID("\xf4\x90\x80\x80");         /* U+110000 */
	INVALID("\xf5\x80\x80\x80");
	INVALID("\xfe");
	INVALID("\xff");
	INVALID("\xc3");                     /* cut at the end */
	INVALID("\xe2\x82");
	INVALID("\xf0\x9f\x8e");
	INVALID("\xc3(");                    /* a lead byte followed by ASCII */
	INVALID("\xe2(\xac");
	INVALID("ok \xf0\x9f\x8e\x89 then \xc3");
}

static void test_char_len(void **state)
{
	(void)state;
	assert_int_equal(char_len("a", 1), 1);
	assert_int_equal(char_len("\xc3\xa9x", 3), 2);
	assert_int_equal(char_len("\xe2\x82\xac", 3), 3);
	assert_int_equal(char_len("\xf0\x9f\x8e\x89", 4), 4);
	assert_int_equal(char_len("", 0), 0);
	/* a character longer than what is left is no character: nothing past len is read */
	assert_int_equal(char_len("\xf0\x9f\x8e", 3), 0);
	assert_int_equal(char_len("\xe2\x82", 2), 0);
	assert_int_equal(char_len("\xc3", 1), 0);
	assert_int_equal(char_len("\x80", 1), 0);
	assert_int_equal(char_len("\xed\xa0\x80", 3), 0);
	/* only the first character counts */
	assert_int_equal(char_len("\xc3\xa9\xc3\xa9", 4), 2);
}

static char *repaired(const char *s, size_t len, size_t *bad)
{
	roz_buf b = ROZ_BUF_INIT;
	char *p = exact(s, len);

	*bad = roz_utf8_add_repaired(&b, p, len);
	free(p);
	assert_int_equal(roz_buf_failed(&b), ROZ_OK);
	return roz_buf_detach(&b, NULL);
}

static void test_repair_replaces_each_bad_byte(void **state)
{
	size_t bad;
	char *r;

	(void)state;
	r = repaired("caf\xc3\xa9", 5, &bad);
	assert_int_equal(bad, 0);
	assert_string_equal(r, "caf\xc3\xa9");
	roz_free(r);
	r = repaired("a\xff" "b", 3, &bad);
	assert_int_equal(bad, 1);
	assert_string_equal(r, "a\xef\xbf\xbd" "b");
	roz_free(r);
	/* a cut character is as many bad bytes as it has */
	r = repaired("x\xe2\x82", 3, &bad);
	assert_int_equal(bad, 2);
	assert_string_equal(r, "x\xef\xbf\xbd\xef\xbf\xbd");
	assert_true(roz_utf8_valid(r, strlen(r)));
	roz_free(r);
	/* a surrogate: the lead byte is replaced, and so are the two bytes after it */
	r = repaired("\xed\xa0\x80!", 4, &bad);
	assert_int_equal(bad, 3);
	assert_true(roz_utf8_valid(r, strlen(r)));
	assert_int_equal(r[strlen(r) - 1], '!');
	roz_free(r);
	/* it appends: what the buffer held stays */
	{
		roz_buf b = ROZ_BUF_INIT;

		roz_buf_adds(&b, "head:");
		assert_int_equal(roz_utf8_add_repaired(&b, "\x80", 1), 1);
		assert_string_equal(roz_buf_cstr(&b), "head:\xef\xbf\xbd");
		roz_buf_dispose(&b);
	}
}

static void test_cut_lands_on_a_boundary(void **state)
{
	static const char s[] = "ab\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\x89"; /* a b é € 🎉: 2+2+3+4 bytes */
	size_t len = sizeof(s) - 1;

	(void)state;
	assert_int_equal(roz_utf8_cut(s, len, 100), len);
	assert_int_equal(roz_utf8_cut(s, len, len), len);
	assert_int_equal(roz_utf8_cut(s, len, 2), 2);
	assert_int_equal(roz_utf8_cut(s, len, 3), 2);  /* inside é */
	assert_int_equal(roz_utf8_cut(s, len, 4), 4);
	assert_int_equal(roz_utf8_cut(s, len, 5), 4);  /* inside € */
	assert_int_equal(roz_utf8_cut(s, len, 6), 4);
	assert_int_equal(roz_utf8_cut(s, len, 7), 7);
	assert_int_equal(roz_utf8_cut(s, len, 10), 7); /* inside 🎉 */
	assert_int_equal(roz_utf8_cut(s, len, 0), 0);
	assert_int_equal(roz_utf8_cut("\xc3\xa9", 2, 1), 0);
	for (size_t max = 0; max <= len; max++)
		assert_true(roz_utf8_valid(s, roz_utf8_cut(s, len, max)));
}

static void test_count_and_offset(void **state)
{
	static const char s[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x8e\x89z"; /* a é € 🎉 z */
	size_t len = sizeof(s) - 1;

	(void)state;
	assert_int_equal(roz_utf8_count(s, len), 5);
	assert_int_equal(roz_utf8_count("", 0), 0);
	assert_int_equal(roz_utf8_offset(s, len, 0), 0);
	assert_int_equal(roz_utf8_offset(s, len, 1), 1);
	assert_int_equal(roz_utf8_offset(s, len, 2), 3);
	assert_int_equal(roz_utf8_offset(s, len, 3), 6);
	assert_int_equal(roz_utf8_offset(s, len, 4), 10);
	assert_int_equal(roz_utf8_offset(s, len, 5), len);
	assert_int_equal(roz_utf8_offset(s, len, 99), len);
}

static void test_add_encodes_each_length(void **state)
{
	static const struct {
		unsigned long cp;
		const char *utf8;
	} cases[] = {
		{0x24, "$"},
		{0x7F, "\x7f"},
		{0x80, "\xc2\x80"},
		{0xE9, "\xc3\xa9"},
		{0x7FF, "\xdf\xbf"},
		{0x800, "\xe0\xa0\x80"},
		{0x20AC, "\xe2\x82\xac"},
		{0xFFFD, "\xef\xbf\xbd"},
		{0xFFFF, "\xef\xbf\xbf"},
		{0x10000, "\xf0\x90\x80\x80"},
		{0x1F389, "\xf0\x9f\x8e\x89"},
		{0x10FFFF, "\xf4\x8f\xbf\xbf"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		roz_buf b = ROZ_BUF_INIT;

		roz_utf8_add(&b, cases[i].cp);
		assert_int_equal(roz_buf_failed(&b), ROZ_OK);
		if (strcmp(roz_buf_cstr(&b), cases[i].utf8) != 0)
			fail_msg("U+%04lX encoded wrongly", cases[i].cp);
		assert_int_equal(roz_utf8_char_len(b.ptr, b.len), b.len);
		roz_buf_dispose(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_well_formed_text_is_valid),
		cmocka_unit_test(test_malformed_text_is_refused),
		cmocka_unit_test(test_char_len),
		cmocka_unit_test(test_repair_replaces_each_bad_byte),
		cmocka_unit_test(test_cut_lands_on_a_boundary),
		cmocka_unit_test(test_count_and_offset),
		cmocka_unit_test(test_add_encodes_each_length),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
