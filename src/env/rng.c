/*
 * pcie-telemetry: random numbers of the simulated card (see rng.h).
 */
#include "env/rng.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void pte_rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

unsigned pte_rng_pick(struct rng *r, const struct pte_dist *d)
{
	double u = pte_rng_unit(r), acc = 0;
	for (unsigned i = 0; i + 1 < d->n; i++) {
		acc += d->weight[i];
		if (u < acc)
			return i;
	}
	return d->n - 1;
}
