/*
 * rng.h - a small, fast, seedable generator (xoshiro256**, seeded through
 * splitmix64), so every search is deterministic for a given seed.
 * It sits in core/ because both the graph generator (gen.c) and the
 * searches of solvers/ draw from it.
 */
#ifndef SC_RNG_H
#define SC_RNG_H

#include <stdint.h>

typedef struct sc_rng {
	uint64_t s[4];
} sc_rng;

void sc_rng_seed(sc_rng *r, uint64_t seed);
uint64_t sc_rng_next(sc_rng *r);

/* Uniform in [0, 1). */
static inline double sc_rng_uniform(sc_rng *r)
{
	return (double)(sc_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in 0 .. n-1 (n >= 1). */
static inline int sc_rng_below(sc_rng *r, int n)
{
	return (int)(sc_rng_uniform(r) * n);
}

#endif
