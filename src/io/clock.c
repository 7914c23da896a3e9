/*
 * clock.c - reading the wall clock, the one call into the system that
 * roz_time needs (the arithmetic and RFC 3339 text stay in the core), and
 * the monotonic clock and sleep the bounded lock waits use.
 */
#include "roz/clock.h"

#include <errno.h>
#include <time.h>

roz_time roz_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return roz_time_make((int64_t)ts.tv_sec, (int32_t)ts.tv_nsec);
}

int64_t roz_clock_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void roz_clock_sleep_ms(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
