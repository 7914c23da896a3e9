/*
 * roz/breaker.h - the circuit breaker that bounds every review cycle.
 *
 * A review cycle starts with a `#roz` prompt or a gate that denies a call.
 * Within one cycle a stop is blocked at most `max_blocks` times; the next
 * stop trips the breaker, which turns the review off and lets the agent go
 * (roz never traps the user). A tripped breaker cools down for
 * `cooldown_seconds`: until then gated calls are let through and stops are
 * not blocked; after it, review resumes from a fresh cycle.
 *
 * These functions change or read only the session's review state; telling
 * the user (a warning on stderr) is the hook's part.
 */
#ifndef ROZ_BREAKER_H
#define ROZ_BREAKER_H

#include "roz/config.h"
#include "roz/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True while a tripped circuit breaker is still cooling down. */
bool roz_breaker_cooling(const roz_session *s, const roz_config *config, roz_time now);

/* Trip the breaker at `now`: the review is turned off until a new cycle starts. */
void roz_breaker_trip(roz_session *s, roz_time now);

/*
 * A new review cycle: blocks are counted from zero, a tripped breaker is
 * cleared, and no reviewer has yet vouched for a verdict of this cycle.
 */
void roz_breaker_start_cycle(roz_session *s);

#ifdef __cplusplus
}
#endif

#endif
