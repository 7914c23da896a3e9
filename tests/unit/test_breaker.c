/*
 * test_breaker.c - the circuit breaker on the session alone: tripping
 * turns review off and records when, cooling lasts exactly
 * cooldown_seconds (a trip without a time, from older files, never cools),
 * and a new cycle clears the counts and the trip. How stops and gated
 * calls meet the breaker is test_hooks.c's.
 */
#include "support.h"

#include "roz/breaker.h"

#include <stdint.h>

#define T0 1767225600 /* 2026-01-01T00:00:00Z */

static roz_time at(int64_t s, int32_t ns)
{
	return roz_time_make(T0 + s, ns);
}

static int setup(void **state)
{
	roz_session *s;

	assert_int_equal(roz_session_new("s1", at(0, 0), &s), ROZ_OK);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	roz_session_free(*state);
	return 0;
}

static void test_a_fresh_session_is_not_cooling(void **state)
{
	roz_session *s = *state;
	roz_config c;

	assert_int_equal(roz_config_init(&c), ROZ_OK);
	assert_false(roz_breaker_cooling(s, &c, at(0, 0)));
	roz_config_dispose(&c);
}

static void test_trip_turns_review_off_and_records_when(void **state)
{
	roz_session *s = *state;

	s->review.enabled = true;
	s->review.block_count = 3;
	roz_breaker_trip(s, at(50, 7));
	assert_false(s->review.enabled);
	assert_true(s->review.circuit_breaker_tripped);
	assert_true(s->review.circuit_breaker_tripped_at.set);
	assert_int_equal(roz_time_cmp(s->review.circuit_breaker_tripped_at.t, at(50, 7)), 0);
	/* the count stays for the record until a new cycle */
	assert_int_equal(s->review.block_count, 3);
}

static void test_cooling_lasts_exactly_the_cooldown(void **state)
{
	roz_session *s = *state;
	roz_config c;

	assert_int_equal(roz_config_init(&c), ROZ_OK);
	c.cooldown_seconds = 300;
	roz_breaker_trip(s, at(100, 0));
	assert_true(roz_breaker_cooling(s, &c, at(100, 0)));
	assert_true(roz_breaker_cooling(s, &c, at(399, 999999999)));
	assert_false(roz_breaker_cooling(s, &c, at(400, 0)));
	assert_false(roz_breaker_cooling(s, &c, at(100000, 0)));
	/* no cooldown: tripping lets go at once */
	c.cooldown_seconds = 0;
	assert_false(roz_breaker_cooling(s, &c, at(100, 0)));
	/* a cooldown too large to add saturates instead of wrapping into the past */
	c.cooldown_seconds = UINT64_MAX;
	assert_true(roz_breaker_cooling(s, &c, at(1000000000, 0)));
	roz_config_dispose(&c);
}

static void test_a_trip_without_a_time_stays_tripped(void **state)
{
	roz_session *s = *state;
	roz_config c;

	assert_int_equal(roz_config_init(&c), ROZ_OK);
	c.cooldown_seconds = 1;
	s->review.circuit_breaker_tripped = true;
	s->review.circuit_breaker_tripped_at.set = false;
	assert_true(roz_breaker_cooling(s, &c, at(1000000, 0)));
	roz_config_dispose(&c);
}

static void test_a_new_cycle_clears_the_trip_and_counts(void **state)
{
	roz_session *s = *state;
	roz_config c;

	assert_int_equal(roz_config_init(&c), ROZ_OK);
	c.cooldown_seconds = 300;
	roz_breaker_trip(s, at(100, 0));
	s->review.block_count = 4;
	s->review.wait_blocks = 2;
	s->review.decision_trusted = true;
	roz_breaker_start_cycle(s);
	assert_false(roz_breaker_cooling(s, &c, at(101, 0)));
	assert_false(s->review.circuit_breaker_tripped);
	assert_false(s->review.circuit_breaker_tripped_at.set);
	assert_int_equal(s->review.block_count, 0);
	assert_int_equal(s->review.wait_blocks, 0);
	/* no reviewer has vouched for a verdict of the new cycle */
	assert_false(s->review.decision_trusted);
	roz_config_dispose(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_a_fresh_session_is_not_cooling),
		T(test_trip_turns_review_off_and_records_when),
		T(test_cooling_lasts_exactly_the_cooldown),
		T(test_a_trip_without_a_time_stays_tripped),
		T(test_a_new_cycle_clears_the_trip_and_counts),
#undef T
	};

	roz_alloc_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
