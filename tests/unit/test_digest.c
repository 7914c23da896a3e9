/*
 * test_digest.c - the SHA-256 digest kept for tool inputs too large to
 * store: the standard's own examples, lowercase hex of exactly 64 digits,
 * every byte counted (NULs too, and nothing past `len`).
 */
#include "support.h"

#include "roz/digest.h"

#include <stdlib.h>
#include <string.h>

static void expect(const void *data, size_t len, const char *hex)
{
	char out[ROZ_SHA256_HEX_SIZE];

	memset(out, 'X', sizeof(out));
	roz_digest_sha256_hex(data, len, out);
	assert_string_equal(out, hex);
}

static void test_known_digests(void **state)
{
	char *million = malloc(1000000);

	(void)state;
	expect("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	expect("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_non_null(million);
	memset(million, 'a', 1000000);
	expect(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
}

static void test_every_byte_and_only_those_count(void **state)
{
	char out[ROZ_SHA256_HEX_SIZE];
	char *exact = malloc(3);

	(void)state;
	/* a NUL inside is data, not the end */
	expect("a\0b", 3, "59b271ae1bbcb1d31d41929817f4b16fb439eb4f31520b5ad1d5ce98920a7138");
	expect("\xff\xfe", 2, "b3d510ef04275ca8e698e5b3cbb0ece3949ef9252f0cdc839e9ee347409a2209");
	/* the bytes past len are not read (a block of exactly len bytes, under ASan) */
	assert_non_null(exact);
	memcpy(exact, "abc", 3);
	roz_digest_sha256_hex(exact, 3, out);
	assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* and a prefix is digested as itself */
	roz_digest_sha256_hex(exact, 2, out);
	expect("ab", 2, out);
	free(exact);
}

static void test_output_is_64_lowercase_hex_digits(void **state)
{
	char out[ROZ_SHA256_HEX_SIZE];

	(void)state;
	for (int i = 0; i < 64; i++) {
		unsigned char b = (unsigned char)(i * 37);

		memset(out, 'X', sizeof(out));
		roz_digest_sha256_hex(&b, 1, out);
		assert_int_equal(strlen(out), 64);
		assert_int_equal(strspn(out, "0123456789abcdef"), 64);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_digests),
		cmocka_unit_test(test_every_byte_and_only_those_count),
		cmocka_unit_test(test_output_is_64_lowercase_hex_digits),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
