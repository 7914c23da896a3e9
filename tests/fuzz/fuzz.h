/*
 * fuzz.h - what every fuzz target shares: the libFuzzer entry point's
 * prototype, a check that aborts (so libFuzzer and the replay runner both
 * report it) and the one-time set-up roz needs before its first allocation.
 */
#ifndef ROZ_FUZZ_H
#define ROZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "roz/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * assert() is compiled out in release builds; an invariant broken by a fuzz
 * input must abort in every build, with the condition and roz's last error.
 */
#define FUZZ_CHECK(cond)                                                                        \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "%s:%d: invariant failed: %s (last roz error, maybe stale: %s)\n", \
				__FILE__, __LINE__, #cond, roz_error_last());                   \
			abort();                                                                \
		}                                                                               \
	} while (0)

/* cJSON must allocate through roz before any tree is built or freed. */
static inline void fuzz_init(void)
{
	static int done;

	if (!done) {
		roz_alloc_init();
		done = 1;
	}
}

#endif
