/*
 * roz/clock.h - the wall clock. Only the runner and the CLI read it; the
 * core is handed `now` (roz_env.now), so a test can set the time.
 */
#ifndef ROZ_CLOCK_H
#define ROZ_CLOCK_H

#include "roz/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The current instant (CLOCK_REALTIME), saturated to roz_time's range. */
roz_time roz_clock_now(void);

#ifdef __cplusplus
}
#endif

#endif
