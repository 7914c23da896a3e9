/*
 * test_alloc.c - roz's allocator: copies of strings, formatted strings,
 * zero-size requests that still give freeable memory, array growth that
 * refuses sizes it cannot hold, and the fault injection every
 * out-of-memory test in the suite relies on (cJSON included).
 */
#include "support.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <string.h>

static void test_copies(void **state)
{
	char *p;

	(void)state;
	p = roz_strdup("text");
	assert_string_equal(p, "text");
	roz_free(p);
	p = roz_strndup("abcdef", 3);
	assert_string_equal(p, "abc");
	roz_free(p);
	/* strndup copies n bytes exactly, whatever they are, and terminates */
	p = roz_strndup("a\0c", 3);
	assert_memory_equal(p, "a\0c", 4);
	roz_free(p);
	p = roz_strdup("");
	assert_string_equal(p, "");
	roz_free(p);
	/* no string is an error, not a crash */
	roz_error_clear();
	assert_null(roz_strdup(NULL));
	assert_non_null(strstr(roz_error_last(), "no string"));
	assert_null(roz_strndup(NULL, 4));
	roz_free(NULL);
}

static void test_asprintf(void **state)
{
	char *p;

	(void)state;
	p = roz_asprintf("%s-%d-%zu", "a", -3, (size_t)7);
	assert_string_equal(p, "a--3-7");
	roz_free(p);
	p = roz_asprintf("%s", "");
	assert_non_null(p);
	assert_string_equal(p, "");
	roz_free(p);
	roz_alloc_fail_after(0);
	assert_null(roz_asprintf("%d", 1));
	roz_alloc_fail_after(-1);
}

static void test_zero_sizes_give_memory(void **state)
{
	void *p;

	(void)state;
	p = roz_malloc(0);
	assert_non_null(p);
	roz_free(p);
	p = roz_calloc(0, 8);
	assert_non_null(p);
	roz_free(p);
	p = roz_realloc(NULL, 0);
	assert_non_null(p);
	roz_free(p);
	p = roz_calloc(4, sizeof(long));
	for (int i = 0; i < 4; i++)
		assert_int_equal(((long *)p)[i], 0);
	p = roz_realloc(p, 1000);
	assert_non_null(p);
	assert_int_equal(((long *)p)[3], 0);
	roz_free(p);
}

static void test_injected_failures(void **state)
{
	void *a, *b;

	(void)state;
	roz_alloc_fail_after(1);
	a = roz_malloc(8);
	assert_non_null(a);
	roz_error_clear();
	b = roz_malloc(8);
	assert_null(b);
	assert_non_null(strstr(roz_error_last(), "out of memory"));
	/* once failing, every kind of allocation fails */
	assert_null(roz_calloc(1, 1));
	assert_null(roz_realloc(a, 64));
	assert_null(roz_strdup("x"));
	/* and they are counted, failed ones too */
	assert_int_equal(roz_alloc_count(), 5);
	roz_alloc_fail_after(-1);
	assert_int_equal(roz_alloc_count(), 0);
	b = roz_malloc(8);
	assert_non_null(b);
	assert_int_equal(roz_alloc_count(), 1);
	roz_free(a);
	roz_free(b);
}

static void test_cjson_allocates_through_roz(void **state)
{
	cJSON *o;

	(void)state;
	roz_alloc_fail_after(0);
	o = cJSON_CreateObject();
	roz_alloc_fail_after(-1);
	assert_null(o);
	roz_alloc_fail_after(-1);
	o = cJSON_CreateObject();
	assert_non_null(o);
	assert_true(roz_alloc_count() >= 1);
	cJSON_Delete(o);
}

static void test_array_reserve(void **state)
{
	int *arr = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(roz_alloc_array_reserve((void **)&arr, &cap, sizeof(int), 1), ROZ_OK);
	assert_true(cap >= 1);
	arr[0] = 7;
	assert_int_equal(roz_alloc_array_reserve((void **)&arr, &cap, sizeof(int), 1000), ROZ_OK);
	assert_true(cap >= 1000);
	arr[999] = 9;
	assert_int_equal(arr[0], 7);
	/* a need already met changes nothing */
	{
		int *before = arr;
		size_t c = cap;

		assert_int_equal(roz_alloc_array_reserve((void **)&arr, &cap, sizeof(int), 10), ROZ_OK);
		assert_ptr_equal(arr, before);
		assert_int_equal(cap, c);
	}
	/* sizes past what memory can address are refused, and the array is kept */
	assert_int_equal(roz_alloc_array_reserve((void **)&arr, &cap, sizeof(int), SIZE_MAX), ROZ_ENOMEM);
	assert_int_equal(roz_alloc_array_reserve((void **)&arr, &cap, sizeof(int), SIZE_MAX / 2 + 2),
			 ROZ_ENOMEM);
	assert_int_equal(roz_alloc_array_reserve((void **)&arr, &cap, SIZE_MAX / 4, cap + 1), ROZ_ENOMEM);
	assert_non_null(strstr(roz_error_last(), "too large"));
	assert_true(cap >= 1000);
	assert_int_equal(arr[999], 9);
	/* and a failed allocation leaves it as it was */
	{
		size_t c = cap;

		roz_alloc_fail_after(0);
		assert_int_equal(roz_alloc_array_reserve((void **)&arr, &cap, sizeof(int), c + 1), ROZ_ENOMEM);
		roz_alloc_fail_after(-1);
		assert_int_equal(cap, c);
		assert_int_equal(arr[0], 7);
	}
	roz_free(arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_asprintf),
		cmocka_unit_test(test_zero_sizes_give_memory),
		cmocka_unit_test(test_injected_failures),
		cmocka_unit_test(test_cjson_allocates_through_roz),
		cmocka_unit_test(test_array_reserve),
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
