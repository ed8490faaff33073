/*
 * pcie-telemetry: the time side of an MFB bus (struct pte_wt, env_priv.h).
 *
 * What the card's schedulers need from a bus while they place frames is
 * only the time the words take: back to back, frames fill regions one
 * after the other, so the cycles used are the regions used so far divided
 * by the bus's regions, rounded up, whatever the frames look like.  The
 * words themselves (which frame starts where, the table of words, its
 * folding into runs) are the word builder's (frames.c, agg.c), and the
 * same calls, kept in a log, give the builder exactly the same cycles: so
 * the builder can take an emission's log later, on the thread of the
 * model (engine.c), while the endpoint goes on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_priv.h"

int pte_wt_init(struct pte_wt *a, unsigned regions, unsigned items)
{
	memset(a, 0, sizeof(*a));
	a->R = regions;
	a->N = items;
	a->rsh = 32;
	for (unsigned sh = 0; sh < 31; sh++)
		if (1u << sh == regions)
			a->rsh = sh;
	a->cap = 64;
	a->log = pte_calloc(a->cap, sizeof(*a->log));
	return a->log ? 0 : -ENOMEM;
}

void pte_wt_fini(struct pte_wt *a)
{
	free(a->log);
	a->log = NULL;
	a->nlog = a->cap = 0;
}

void pte_wt_grow(struct pte_wt *a)
{
	size_t cap = 2 * a->cap;
	struct pte_wop *l = pte_realloc(a->log, cap * sizeof(*l));
	if (!l) {
		a->err = -ENOMEM;
		return;
	}
	a->log = l;
	a->cap = cap;
}


void pte_wt_begin(struct pte_wt *a, uint64_t S)
{
	uint64_t carry_words = a->carry_words, cs = a->carry_stall;

	pte_wt_log(a, PTE_WOP_BEGIN, 0, 0, S);
	a->S = S;
	a->placed = carry_words; /* the words carried in, placed again */
	a->stall = a->idle = 0;
	a->carry_stall = 0;
	if (cs)
		pte_stall_into(cs, a->S, &a->placed, &a->stall, &a->carry_stall, &a->t_stall);
	pte_wt_reuse(a);
}

void pte_wt_frames_apart(struct pte_wt *a, uint32_t items, uint64_t k, uint64_t idle)
{
	if (items == 0)
		items = 1;
	pte_wt_flush(a);
	pte_wt_log(a, PTE_WOP_APART, items, k, idle);
	if (k) {
		uint64_t rf = pte_wt_regions(a, items);
		a->placed += (k - 1) * pte_wt_div(a, rf + a->R - 1) + pte_wt_div(a, rf);
		a->cur_r = pte_wt_mod(a, rf);
		a->t_frames += k;
		a->t_items += k * items;
	}
	pte_wt_idle_clip(a, idle);
	pte_wt_reuse(a);
}



void pte_wt_stall(struct pte_wt *a, uint64_t n)
{
	pte_wt_log_cycles(a, PTE_WOP_STALL, n);
	pte_wt_settle(a);
	pte_stall_into(n, a->S, &a->placed, &a->stall, &a->carry_stall, &a->t_stall);
	pte_wt_reuse(a);
}


void pte_wt_close(struct pte_wt *a)
{
	pte_wt_flush(a);
	pte_wt_log(a, PTE_WOP_CLOSE, 0, 0, 0);
	if (a->placed < a->S) {
		a->idle += a->S - a->placed;
		a->placed = a->S;
	}
	/* every cycle of the slice is a word, a stall or idle; what is past
	 * its end goes on in the next one */
	a->t_words += a->S - a->stall - a->idle;
	a->carry_words = a->placed - a->S - a->carry_stall;
	a->used = a->placed;
}
