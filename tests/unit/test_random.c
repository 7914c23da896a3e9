/*
 * test_random.c - what can be told of the kernel's randomness without
 * standing in for the kernel: every byte asked for is written and none
 * past them, lengths from zero to more than one getrandom(2) call returns
 * at once, draws differ, and the UUIDs are well-formed version 4 ones.
 */
#include "support.h"

#include "roz/random.h"

#include <stdlib.h>
#include <string.h>

static void test_fills_exactly_the_bytes_asked_for(void **state)
{
	unsigned char buf[64 + 2];

	(void)state;
	/* nothing asked, nothing written */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(roz_random_bytes(buf, 0), ROZ_OK);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xa5);
	/* the guard bytes on either side stay as they were */
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(roz_random_bytes(buf + 1, 64), ROZ_OK);
	assert_int_equal(buf[0], 0xa5);
	assert_int_equal(buf[65], 0xa5);
}

static void test_every_byte_is_drawn(void **state)
{
	unsigned char a[32], b[32];
	unsigned seen_nonzero[32] = {0};

	(void)state;
	/*
	 * Each byte of 32 draws being zero every time, or two 32-byte draws
	 * being equal, has odds of 2^-256: a byte left unwritten shows here.
	 */
	for (int round = 0; round < 32; round++) {
		memset(a, 0, sizeof(a));
		assert_int_equal(roz_random_bytes(a, sizeof(a)), ROZ_OK);
		for (size_t i = 0; i < sizeof(a); i++)
			seen_nonzero[i] |= a[i];
	}
	for (size_t i = 0; i < sizeof(a); i++)
		assert_true(seen_nonzero[i] != 0);
	assert_int_equal(roz_random_bytes(a, sizeof(a)), ROZ_OK);
	assert_int_equal(roz_random_bytes(b, sizeof(b)), ROZ_OK);
	assert_memory_not_equal(a, b, sizeof(a));
}

static void test_large_requests_are_filled_to_the_end(void **state)
{
	/* getrandom(2) returns at most 32 MiB - 1 per call: this needs the loop */
	size_t len = (size_t)33 << 20;
	unsigned char *p = calloc(1, len);
	size_t zero_tail = 0;

	(void)state;
	assert_non_null(p);
	assert_int_equal(roz_random_bytes(p, len), ROZ_OK);
	/* the last KiB was written too (all zero by chance: 2^-8192) */
	for (size_t i = len - 1024; i < len; i++)
		zero_tail += p[i] == 0;
	assert_true(zero_tail < 1024);
	free(p);
}

static bool is_uuid_v4(const char *s)
{
	if (strlen(s) != ROZ_UUID_SIZE - 1)
		return false;
	for (int i = 0; i < ROZ_UUID_SIZE - 1; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]) || !s[i])
			return false;
	}
	return s[14] == '4' && strchr("89ab", s[19]) != NULL;
}

static void test_uuids_are_version_4_and_distinct(void **state)
{
	char ids[64][ROZ_UUID_SIZE];

	(void)state;
	for (int i = 0; i < 64; i++) {
		assert_int_equal(roz_random_uuid_v4(ids[i]), ROZ_OK);
		if (!is_uuid_v4(ids[i]))
			fail_msg("not a version 4 UUID: %s", ids[i]);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(ids[i], ids[j]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fills_exactly_the_bytes_asked_for),
		cmocka_unit_test(test_every_byte_is_drawn),
		cmocka_unit_test(test_large_requests_are_filled_to_the_end),
		cmocka_unit_test(test_uuids_are_version_4_and_distinct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
