/*
 * breaker.c - the circuit breaker: when it trips, how long it cools down,
 * and the fresh review cycle that clears it. Pure functions of the session.
 */
#include "roz/breaker.h"

bool roz_breaker_cooling(const roz_session *s, const roz_config *config, roz_time now)
{
	const roz_review_state *r = &s->review;

	if (!r->circuit_breaker_tripped)
		return false;
	/* a trip recorded without a time (older files) stays tripped, as it always did */
	if (!r->circuit_breaker_tripped_at.set)
		return true;
	return roz_time_before(now, roz_time_add(r->circuit_breaker_tripped_at.t, config->cooldown_seconds));
}

void roz_breaker_trip(roz_session *s, roz_time now)
{
	s->review.circuit_breaker_tripped = true;
	s->review.circuit_breaker_tripped_at.set = true;
	s->review.circuit_breaker_tripped_at.t = now;
	s->review.enabled = false;
}

void roz_breaker_start_cycle(roz_session *s)
{
	s->review.decision_trusted = false;
	s->review.wait_blocks = 0;
	s->review.block_count = 0;
	s->review.circuit_breaker_tripped = false;
	s->review.circuit_breaker_tripped_at.set = false;
}
