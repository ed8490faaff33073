/*
 * pcie-telemetry: the MVB word builder of the simulated card: up to R
 * items per word, counted by how many items each word holds (the probe
 * counts only items and stalls, so the order of the words is free).
 */
#include <string.h>

#include "env/env_priv.h"

void pte_mvb_init(struct pte_mvb *v, unsigned regions)
{
	memset(v, 0, sizeof(*v));
	v->R = regions;
}

static void mvb_put(struct pte_mvb *v, unsigned k, uint64_t n)
{
	uint64_t room = v->placed < v->S ? v->S - v->placed : 0;
	uint64_t m = n < room ? n : room;
	v->cnt[k] += m;
	v->carry[k] += n - m;
	v->carry_n += n - m;
	v->placed += n;
}

void pte_mvb_begin(struct pte_mvb *v, uint64_t S)
{
	uint64_t carry[PTM_MAX_REGIONS + 1];
	uint64_t cs = v->carry_stall, cn = v->carry_n;
	if (cn) {
		memcpy(carry, v->carry, sizeof(carry));
		memset(v->carry, 0, sizeof(v->carry));
		v->carry_n = 0;
	}
	if (v->emitted) {
		memset(v->cnt, 0, sizeof(v->cnt));
		v->e_stall = v->e_idle = 0;
		v->nrun = 0;
		v->emitted = 0;
	}
	v->carry_stall = 0;
	v->S = S;
	v->placed = 0;
	v->stall = v->idle = 0;
	for (unsigned k = 1; cn && k <= v->R; k++)
		if (carry[k])
			mvb_put(v, k, carry[k]);
	if (cs)
		pte_mvb_stall(v, cs);
}

void pte_mvb_items(struct pte_mvb *v, uint64_t k)
{
	v->t_items += k;
	if (v->cur) {
		uint64_t t = v->R - v->cur;
		if (t > k)
			t = k;
		v->cur += (unsigned)t;
		k -= t;
		if (v->cur < v->R)
			return;
		mvb_put(v, v->R, 1);
		v->cur = 0;
	}
	if (k >= v->R) {
		uint64_t q = pte_udiv(k, v->R);
		mvb_put(v, v->R, q);
		k -= q * v->R;
	}
	v->cur = (unsigned)k;
}

void pte_mvb_flush(struct pte_mvb *v)
{
	if (v->cur) {
		mvb_put(v, v->cur, 1);
		v->cur = 0;
	}
}

void pte_mvb_stall(struct pte_mvb *v, uint64_t n)
{
	pte_stall_into(n, v->S, &v->placed, &v->stall, &v->carry_stall, &v->t_stall);
}

void pte_mvb_close(struct pte_mvb *v)
{
	pte_mvb_flush(v);
	if (v->placed < v->S) {
		v->idle += v->S - v->placed;
		v->placed = v->S;
	}
	v->e_stall += v->stall;
	v->e_idle += v->idle;
}

void pte_mvb_runs(struct pte_mvb *v)
{
	v->nrun = 0;
	for (unsigned k = 1; k <= v->R; k++)
		if (v->cnt[k])
			v->run[v->nrun++] = (struct pte_run){ (uint32_t)v->cnt[k], PTE_RUN_MOVE,
							       (uint16_t)k };
	if (v->e_stall)
		v->run[v->nrun++] = (struct pte_run){ (uint32_t)v->e_stall, PTE_RUN_STALL, 0 };
	if (v->e_idle)
		v->run[v->nrun++] = (struct pte_run){ (uint32_t)v->e_idle, PTE_RUN_IDLE, 0 };
	v->emitted = 1;
}

void pte_mvb_end(struct pte_mvb *v)
{
	pte_mvb_close(v);
	pte_mvb_runs(v);
}
