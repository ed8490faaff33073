/*
 * pcie-telemetry: random numbers of the simulated card (see rng.h).
 */
#include <math.h>

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

/* u = x * 2^-53 < acc exactly when x < ceil(acc * 2^53) (the scaling is
 * exact), with acc summed as pte_rng_pick sums it. */
void pte_rng_pick_init(struct pte_pick *k, const struct pte_dist *d)
{
	double acc = 0;

	k->n = d->n;
	for (unsigned i = 0; i < PTE_DIST_MAX; i++)
		k->thr[i] = UINT64_MAX; /* past the last size: never reached */
	for (unsigned i = 0; i + 1 < d->n; i++) {
		acc += d->weight[i];
		double t = ceil(acc * 9007199254740992.0);
		k->thr[i] = t >= 9007199254740992.0 ? UINT64_C(1) << 53 : (uint64_t)t;
	}
}
