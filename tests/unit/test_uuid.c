/*
 * test_uuid.c - a version 4 UUID's text from 16 given bytes: the layout
 * (8-4-4-4-12 lowercase hex), the version and variant bits set over
 * whatever the bytes held, and every other bit kept.
 */
#include "support.h"

#include "roz/uuid.h"

#include <string.h>

static void test_layout_and_bits(void **state)
{
	unsigned char b[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
			       0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
	char out[ROZ_UUID_SIZE];

	(void)state;
	memset(out, 'X', sizeof(out));
	roz_uuid_format(b, out);
	/* byte 6 becomes 0x46 (version 4), byte 8 0x88 (variant 10xx) */
	assert_string_equal(out, "00112233-4455-4677-8899-aabbccddeeff");
	assert_int_equal(b[6], 0x46);
	assert_int_equal(b[8], 0x88);
}

static void test_version_and_variant_override_any_bytes(void **state)
{
	unsigned char ones[16], zeros[16];
	char out[ROZ_UUID_SIZE];

	(void)state;
	memset(ones, 0xff, sizeof(ones));
	roz_uuid_format(ones, out);
	assert_string_equal(out, "ffffffff-ffff-4fff-bfff-ffffffffffff");
	memset(zeros, 0, sizeof(zeros));
	roz_uuid_format(zeros, out);
	assert_string_equal(out, "00000000-0000-4000-8000-000000000000");
}

static void test_every_byte_value_gives_a_well_formed_uuid(void **state)
{
	(void)state;
	for (int v = 0; v < 256; v++) {
		unsigned char b[16];
		char out[ROZ_UUID_SIZE];

		memset(b, v, sizeof(b));
		roz_uuid_format(b, out);
		assert_int_equal(strlen(out), ROZ_UUID_SIZE - 1);
		for (int i = 0; i < ROZ_UUID_SIZE - 1; i++) {
			if (i == 8 || i == 13 || i == 18 || i == 23)
				assert_int_equal(out[i], '-');
			else
				assert_non_null(strchr("0123456789abcdef", out[i]));
		}
		assert_int_equal(out[14], '4');
		assert_non_null(strchr("89ab", out[19]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_and_bits),
		cmocka_unit_test(test_version_and_variant_override_any_bytes),
		cmocka_unit_test(test_every_byte_value_gives_a_well_formed_uuid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
