/*
 * test_clock.c - the wall clock as roz reads it: the same instant the
 * system reports, with nanoseconds in range, and never going backwards
 * between two reads in a row (barring a clock change while the test runs).
 */
#include "support.h"

#include "roz/clock.h"

#include <time.h>

static void test_now_is_the_system_time(void **state)
{
	struct timespec before, after;
	roz_time now;

	(void)state;
	clock_gettime(CLOCK_REALTIME, &before);
	now = roz_clock_now();
	clock_gettime(CLOCK_REALTIME, &after);
	assert_true(now.nsec >= 0 && now.nsec <= 999999999);
	assert_true(roz_time_cmp(roz_time_make(before.tv_sec, (int32_t)before.tv_nsec), now) <= 0);
	assert_true(roz_time_cmp(now, roz_time_make(after.tv_sec, (int32_t)after.tv_nsec)) <= 0);
	/* and it is in roz's range: a time after 2020 that formats as RFC 3339 */
	assert_true(now.sec > 1577836800);
	assert_true(now.sec <= ROZ_TIME_MAX_SEC);
}

static void test_reads_do_not_go_backwards(void **state)
{
	roz_time prev = roz_clock_now(), cur;
	bool moved = false;

	(void)state;
	for (int i = 0; i < 100000 && !moved; i++) {
		cur = roz_clock_now();
		assert_true(roz_time_cmp(prev, cur) <= 0);
		moved = roz_time_cmp(prev, cur) < 0;
		prev = cur;
	}
	/* the clock has more than a second's resolution */
	assert_true(moved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_now_is_the_system_time),
		cmocka_unit_test(test_reads_do_not_go_backwards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
