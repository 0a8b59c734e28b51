/*
 * rand.h — the tests' one random generator: Marsaglia's xorshift64, the
 * same numbers for the same seed, so a failing input can be replayed.
 */
#ifndef PROGMUX_TEST_RAND_H
#define PROGMUX_TEST_RAND_H

#include <stdint.h>

/* The next number of the sequence whose state is *state (never 0). */
static inline uint64_t
test_xorshift(uint64_t *state)
{
	uint64_t	x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return (*state = x);
}

#endif
