/*
 * clock.c - reading the wall clock, the one call into the system that
 * roz_time needs; the arithmetic and RFC 3339 text stay in the core.
 */
#include "roz/clock.h"

#include <time.h>

roz_time roz_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return roz_time_make((int64_t)ts.tv_sec, (int32_t)ts.tv_nsec);
}
