/*
 * roz/time.h - wall-clock instants and the RFC 3339 text they are stored as.
 *
 * A roz_time is seconds and nanoseconds since the Unix epoch, UTC. Stored
 * timestamps use the same shape the Rust roz writes: "2026-01-05T10:30:00Z"
 * with 3, 6 or 9 fraction digits when the instant has them. Arithmetic
 * saturates at the representable range (years 0000-9999) instead of
 * wrapping, so a huge cooldown or TTL means "practically never", not a
 * crash or a date in the past.
 *
 * Only the runner and the CLI read the clock (roz_clock_now, in roz/clock.h);
 * the core takes `now` as an argument.
 */
#ifndef ROZ_TIME_H
#define ROZ_TIME_H

#include "roz/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct roz_time {
	int64_t sec;  /* seconds since 1970-01-01T00:00:00Z */
	int32_t nsec; /* 0 .. 999999999 */
} roz_time;

/* An optional instant, as stored fields often are. */
typedef struct roz_opt_time {
	bool set;
	roz_time t;
} roz_opt_time;

/* Longest text roz_time_format() writes, including the NUL. */
#define ROZ_TIME_BUFSZ 40

/* Smallest and largest representable instants (0000-01-01 .. 9999-12-31). */
#define ROZ_TIME_MIN_SEC INT64_C(-62167219200)
#define ROZ_TIME_MAX_SEC INT64_C(253402300799)

roz_time roz_time_make(int64_t sec, int32_t nsec);

/* <0, 0, >0 like strcmp. */
int roz_time_cmp(roz_time a, roz_time b);
static inline bool roz_time_before(roz_time a, roz_time b) { return roz_time_cmp(a, b) < 0; }
static inline bool roz_time_after(roz_time a, roz_time b) { return roz_time_cmp(a, b) > 0; }

/* t + secs / t - secs, saturating at the representable range. */
roz_time roz_time_add(roz_time t, uint64_t secs);
roz_time roz_time_sub(roz_time t, uint64_t secs);
/* Whole seconds from a to b (b - a), saturating; negative if b is earlier. */
int64_t roz_time_diff_sec(roz_time a, roz_time b);

/*
 * Parse RFC 3339: "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)";
 * 't'/'z' and a space separator are accepted. Returns ROZ_OK or ROZ_EINVALID.
 */
int roz_time_parse(const char *s, roz_time *out);

/* UTC text with 0, 3, 6 or 9 fraction digits, e.g. "2026-01-05T10:30:00.5Z"
 * is written "2026-01-05T10:30:00.500Z". Returns `out`. */
char *roz_time_format(roz_time t, char out[ROZ_TIME_BUFSZ]);
/* Same, whole seconds only ("2026-01-05T10:30:00Z"). */
char *roz_time_format_sec(roz_time t, char out[ROZ_TIME_BUFSZ]);

#ifdef __cplusplus
}
#endif

#endif
