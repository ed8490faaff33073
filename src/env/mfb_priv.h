/*
 * pcie-telemetry: what the two halves of the MFB word builder share:
 * agg.c (the table of words, folded into runs) and frames.c (frames into
 * words, and the remembered effect of each).
 */
#ifndef PT_ENV_MFB_PRIV_H
#define PT_ENV_MFB_PRIV_H

#include "env/env_priv.h"

/* Put n words with this pattern and frame state before and after: into
 * the table while the slice has room, the rest carried to the next one. */
void pte_mfb_put(struct pte_mfb *a, const struct pte_pat *p, int in, int out, uint64_t n);
/* The table entry of a word (created empty), NULL when the table is full. */
struct pte_patent *pte_mfb_find(struct pte_mfb *a, const struct pte_pat *p, int in, int out);
/* Fold the table into runs (the counted effects first). */
void pte_mfb_fold(struct pte_mfb *a);
/* The frames held back, placed (before anything but a frame). */
void pte_mfb_place(struct pte_mfb *a);
/* The counted effects into the table. */
void pte_fx_expand(struct pte_mfb *a);

/* Bits set in x (without -mpopcnt __builtin_popcount is a libgcc call). */
static inline unsigned popc32(uint32_t x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	return (x * 0x01010101u) >> 24;
}

/* EOF_POS summed over the words's EOF regions. */
static inline uint64_t pte_pos_sum(const struct pte_pat *p, unsigned R)
{
	uint64_t s = 0;
	for (unsigned r = 0; r < R; r++)
		if ((p->eof >> r) & 1u)
			s += p->pos[r];
	return s;
}

#endif
