/*
 * test_error.c - the reason kept beside a failed call: set, with the
 * system's words for an errno, prefixed with context, cleared, cut (not
 * overrun) when too long, one per thread; and the names of return codes.
 */
#include "support.h"
#include "roz/utf8.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

static void test_code_names(void **state)
{
	(void)state;
	assert_string_equal(roz_error_name(ROZ_OK), "ok");
	assert_string_equal(roz_error_name(ROZ_ENOMEM), "out of memory");
	assert_string_equal(roz_error_name(ROZ_ENOTFOUND), "not found");
	assert_string_equal(roz_error_name(ROZ_EINVALID), "invalid");
	assert_string_equal(roz_error_name(ROZ_ECORRUPT), "corrupt");
	assert_string_equal(roz_error_name(ROZ_EIO), "i/o error");
	assert_string_equal(roz_error_name(ROZ_ETIMEOUT), "timed out");
	assert_string_equal(roz_error_name(ROZ_EPARSE), "parse error");
	assert_string_equal(roz_error_name(ROZ_ERROR), "error");
	assert_string_equal(roz_error_name(-999), "error");
	assert_string_equal(roz_error_name(12), "error");
}

static void test_set_prefix_clear(void **state)
{
	(void)state;
	roz_error_clear();
	assert_string_equal(roz_error_last(), "");
	roz_error_set("bad key '%s' on line %d", "x", 3);
	assert_string_equal(roz_error_last(), "bad key 'x' on line 3");
	roz_error_prefix("config %s", "/h/.roz/config.toml");
	assert_string_equal(roz_error_last(), "config /h/.roz/config.toml: bad key 'x' on line 3");
	roz_error_set_errno(ENOENT, "cannot open '%s'", "f");
	assert_string_equal(roz_error_last(), "cannot open 'f': No such file or directory");
	roz_error_clear();
	assert_string_equal(roz_error_last(), "");
	/* a prefix on no reason is the prefix alone, without a dangling ": " */
	roz_error_prefix("loading");
	assert_string_equal(roz_error_last(), "loading");
}

static void test_long_messages_are_cut_not_overrun(void **state)
{
	char big[3000];
	size_t n;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	roz_error_set("%s", big);
	n = strlen(roz_error_last());
	assert_true(n > 0 && n < sizeof(big) - 1);
	/* context prefixed to a full message keeps the context and what fits of the reason */
	roz_error_prefix("ctx");
	assert_int_equal(strncmp(roz_error_last(), "ctx: aaa", 8), 0);
	assert_int_equal(strlen(roz_error_last()), n);
	/* a prefix that fills the space alone is kept alone */
	roz_error_set("reason");
	roz_error_prefix("%s", big);
	assert_int_equal(strlen(roz_error_last()), n);
	assert_null(strstr(roz_error_last(), "reason"));
	roz_error_set_errno(EIO, "%s", big);
	assert_int_equal(strlen(roz_error_last()), n);
	roz_error_clear();
}

/* A message is UTF-8 whatever it quotes, and a character cut by the buffer is dropped whole. */
static void test_messages_are_always_utf8(void **state)
{
	char long_text[2000];
	const char *m;
	size_t len;

	(void)state;
	roz_error_set("bad [%s] and [%.2s]", "a\xff\xfe", "\xc3\xa9");
	assert_string_equal(roz_error_last(), "bad [a?" "?] and [\xc3\xa9]");
	roz_error_set("cut '%.1s'", "\xc3\xa9");
	assert_string_equal(roz_error_last(), "cut '?'");
	/* two-byte characters up to and past the end of the buffer */
	for (size_t i = 0; i + 1 < sizeof(long_text); i += 2)
		memcpy(long_text + i, "\xc3\xa9", 2);
	long_text[sizeof(long_text) - 1] = '\0';
	for (int shift = 0; shift < 2; shift++) {
		roz_error_set("%s%s", shift ? "x" : "", long_text);
		m = roz_error_last();
		len = strlen(m);
		assert_true(roz_utf8_valid(m, len));
		assert_true(len > 100);
	}
	roz_error_set("ok");
	roz_error_prefix("with \xff");
	assert_string_equal(roz_error_last(), "with ?: ok");
}

static void *other_thread(void *arg)
{
	(void)arg;
	roz_error_set("theirs");
	return (void *)(roz_error_last()[0] == 't' ? (void *)1 : NULL);
}

static void test_one_reason_per_thread(void **state)
{
	pthread_t t;
	void *ok = NULL;

	(void)state;
	roz_error_set("mine");
	assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
	assert_int_equal(pthread_join(t, &ok), 0);
	assert_non_null(ok);
	assert_string_equal(roz_error_last(), "mine");
	roz_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_code_names),
		cmocka_unit_test(test_set_prefix_clear),
		cmocka_unit_test(test_long_messages_are_cut_not_overrun),
		cmocka_unit_test(test_messages_are_always_utf8),
		cmocka_unit_test(test_one_reason_per_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
