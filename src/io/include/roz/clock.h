/*
 * roz/clock.h - the wall clock, and the monotonic one bounded waits are
 * timed with. Only the layers above the core read them; the core is handed
 * `now` (roz_env.now), so a test can set the time.
 */
#ifndef ROZ_CLOCK_H
#define ROZ_CLOCK_H

#include "roz/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The current instant (CLOCK_REALTIME), saturated to roz_time's range. */
roz_time roz_clock_now(void);

/* Milliseconds on CLOCK_MONOTONIC, for deadlines: never jumps with the wall clock. */
int64_t roz_clock_monotonic_ms(void);

/* Sleep `ms` milliseconds, resuming after a signal. */
void roz_clock_sleep_ms(unsigned ms);

#ifdef __cplusplus
}
#endif

#endif
