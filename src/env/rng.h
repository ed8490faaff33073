/*
 * pcie-telemetry: random numbers of the simulated card (xoshiro256**,
 * seeded through splitmix64).  Every stream is seeded from the scenario's
 * seed, so a scenario always gives the same numbers.
 */
#ifndef PT_ENV_RNG_H
#define PT_ENV_RNG_H

#include <stdint.h>

#include "env/env_priv.h"

struct rng {
	uint64_t s[4];
};

/* Seed a stream; equal seeds give equal streams. */
void pte_rng_seed(struct rng *r, uint64_t seed);

static inline uint64_t pte_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits. */
static inline uint64_t pte_rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = pte_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = pte_rotl(s[3], 45);
	return res;
}

/* Uniform in [0, 1), 53 bits. */
static inline double pte_rng_unit(struct rng *r)
{
	return (double)(pte_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* The index of a size drawn from a distribution (weights sum to 1). */
unsigned pte_rng_pick(struct rng *r, const struct pte_dist *d);

/* The same draw through integer thresholds (pte_rng_pick_init): the same
 * index for the same random bits, without floating point. */
struct pte_pick {
	unsigned n;
	uint64_t thr[PTE_DIST_MAX]; /* index i while the 53 bits are below thr[i] */
};
void pte_rng_pick_init(struct pte_pick *k, const struct pte_dist *d);

static inline unsigned pte_rng_pick_fast(struct rng *r, const struct pte_pick *k)
{
	uint64_t x = pte_rng_next(r) >> 11;
	/* the thresholds rise: the index is how many x reaches, counted
	 * without a branch that depends on the draw (those past the last
	 * size are never reached: up to four sizes in three compares) */
	if (k->n <= 4)
		return (unsigned)(x >= k->thr[0]) + (unsigned)(x >= k->thr[1]) +
		       (unsigned)(x >= k->thr[2]);
	unsigned i = 0;
	for (unsigned j = 0; j + 1 < k->n; j++)
		i += x >= k->thr[j];
	return i;
}

#endif
