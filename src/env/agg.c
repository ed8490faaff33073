/*
 * pcie-telemetry: the MFB word builder of the simulated card: the table of
 * the words of a slice and how it is folded into runs.
 *
 * The scheduler of each bus places whole frames, one after the other
 * (frames.c turns them into words: sof/eof masks and EOF_POS per region);
 * the table counts identical words.
 *
 * What the probe counts for a moved word depends only on the word and on
 * whether a frame was open before it (firmware-behavior.md 1.4); a word
 * moves the frame state from "closed" (C) or "open" (O) to C or O.  The
 * words of a slice form a walk in that two-state graph, and every other
 * walk over the same words with the same start and end state is again a
 * valid frame sequence with exactly the same counter values.  The builder
 * emits such a walk with all equal words next to each other, so that the
 * model gets long batches of identical cycles.  Stalled and idle cycles do
 * not move the frame state and go after the moved words.
 *
 * One more exact identity shortens the walk (see fold_pairs): frames that
 * span two or more words and are followed by a gap would otherwise make
 * the walk alternate between the closed and the open state once per frame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_priv.h"
#include "env/mfb_priv.h"

int pte_mfb_init(struct pte_mfb *a, unsigned regions, unsigned items, uint64_t max_slice)
{
	memset(a, 0, sizeof(*a));
	a->R = regions;
	a->N = items;
	a->cap = (unsigned)max_slice + 2 * PTE_MAXPAT + 8;
	a->run = pte_calloc(a->cap, sizeof(*a->run));
	a->pat = pte_calloc(a->cap, sizeof(*a->pat));
	a->fx = pte_calloc(PTE_FX_SLOTS, sizeof(*a->fx));
	a->gen = 1;
	a->carry_cap = a->spare_cap = 16;
	a->carry = pte_calloc(a->carry_cap, sizeof(*a->carry));
	a->spare = pte_calloc(a->spare_cap, sizeof(*a->spare));
	if (!a->run || !a->pat || !a->carry || !a->spare || !a->fx) {
		pte_mfb_fini(a);
		return -ENOMEM;
	}
	return 0;
}

void pte_mfb_fini(struct pte_mfb *a)
{
	free(a->run);
	free(a->pat);
	free(a->carry);
	free(a->spare);
	free(a->fx);
	a->fx = NULL;
	a->run = NULL;
	a->pat = NULL;
	a->carry = a->spare = NULL;
	a->ncarry = a->carry_cap = a->spare_cap = 0;
}

static inline int pat_eq(const struct pte_patent *e, const struct pte_pat *p, int in, int out)
{
	return e->in == in && e->out == out && memcmp(&e->p, p, sizeof(*p)) == 0;
}

/* One more run of n cycles (none when n is 0): of pattern p (MOVE), or
 * stall or idle; merged with the last one when it is the same. */
static inline __attribute__((always_inline)) void add_run(struct pte_mfb *a,
							 const struct pte_pat *p, uint8_t kind,
							 uint64_t n)
{
	if (n == 0)
		return;
	if (a->nrun > 0 && kind != PTE_RUN_MOVE && a->run[a->nrun - 1].kind == kind) {
		a->run[a->nrun - 1].len += (uint32_t)n;
		return;
	}
	if (kind == PTE_RUN_MOVE && a->nrun > 0 && a->run[a->nrun - 1].kind == PTE_RUN_MOVE &&
	    memcmp(&a->pat[a->run[a->nrun - 1].idx], p, sizeof(*p)) == 0) {
		a->run[a->nrun - 1].len += (uint32_t)n;
		return;
	}
	if (a->nrun >= a->cap) {
		a->err = -EOVERFLOW; /* cannot happen: every run holds at least one cycle */
		return;
	}
	struct pte_run *r = &a->run[a->nrun++];
	r->len = (uint32_t)n;
	r->kind = kind;
	r->idx = 0;
	if (kind == PTE_RUN_MOVE) {
		r->idx = (uint16_t)a->npat;
		a->pat[a->npat++] = *p;
	}
}

static inline int key_eq(const struct pte_patent *e, const struct pte_pat *p, int in, int out)
{
	return e->in == in && e->out == out && e->p.sof == p->sof && e->p.eof == p->eof;
}

/* A new empty entry of the table (which has room) for a word. */
static struct pte_patent *ent_add(struct pte_mfb *a, const struct pte_pat *p, int in, int out)
{
	const unsigned i = a->nent++;
	struct pte_patent *e = &a->ent[i];
	e->p = *p;
	e->in = (uint8_t)in;
	e->out = (uint8_t)out;
	e->whole = 0;
	e->n = 0;
	e->possum = 0;
	a->by[in & 1][out & 1][a->nby[in & 1][out & 1]++] = (uint8_t)i;
	return e;
}

static struct pte_patent *find_or_add(struct pte_mfb *a, const struct pte_pat *p, int in, int out)
{
	for (unsigned i = a->nent; i-- > 0;)
		if (key_eq(&a->ent[i], p, in, out))
			return &a->ent[i];
	if (a->nent >= PTE_MAXPAT)
		return NULL;
	return ent_add(a, p, in, out);
}

/*
 * A word that only opens a frame at region 0 (X, C->O) and a later word
 * that only closes it, at region i item p (Y, O->C), count exactly like a
 * middle word (O->O) plus one word holding a whole frame from region 0 to
 * region i, item p (C->C): same words, frames, items and region cycles.
 * Applied to all such pairs but one when the walk would otherwise never
 * reach the open state.
 */
static void fold_pairs(struct pte_mfb *a, int s0, int s1)
{
	/* the C->O entries (X among them) and the O->C ones (Y among them),
	 * in table order; the pairs' new entries are neither */
	const uint8_t *cx = a->by[0][1], *cy = a->by[1][0];
	const unsigned ncx = a->nby[0][1], ncy = a->nby[1][0];
	uint64_t co = 0;
	for (unsigned xi = 0; xi < ncx; xi++)
		co += a->ent[cx[xi]].n;
	uint64_t keep = s0 == s1 ? 1 : 0; /* both states must stay reachable */
	for (unsigned xi = 0; xi < ncx && co > keep; xi++) {
		const unsigned i = cx[xi];
		if (a->ent[i].p.sof != 1u || a->ent[i].p.eof != 0 || a->ent[i].n == 0)
			continue;
		for (unsigned yj = 0; yj < ncy && co > keep && a->ent[i].n; yj++) {
			const unsigned j = cy[yj];
			struct pte_patent *y = &a->ent[j];
			if (y->p.sof != 0 || y->n == 0 || !y->p.eof || (y->p.eof & (y->p.eof - 1)))
				continue;
			uint64_t m = a->ent[i].n < y->n ? a->ent[i].n : y->n;
			if (m > co - keep)
				m = co - keep;
			if (a->nent + 2 > PTE_MAXPAT)
				return;
			/* a key's entry stays where it is found or added (until the
			 * table starts over), so each is looked up once */
			if (!a->mid_ent) {
				struct pte_pat mid;
				memset(&mid, 0, sizeof(mid));
				a->mid_ent = (uint8_t)(find_or_add(a, &mid, 1, 1) - a->ent + 1);
			}
			if (!y->whole) {
				struct pte_pat w = y->p;
				w.sof = 1u;
				const unsigned iw = (unsigned)(find_or_add(a, &w, 0, 0) - a->ent);
				a->ent[j].whole = (uint8_t)(iw + 1);
			}
			struct pte_patent *em = &a->ent[a->mid_ent - 1];
			struct pte_patent *ew = &a->ent[a->ent[j].whole - 1];
			/* the A words take a share of Y's EOF_POS sum that keeps
			 * every word of both groups at most N-1 */
			uint64_t top = (uint64_t)(a->N - 1);
			uint64_t sm = y->possum * m / y->n;
			uint64_t lo = y->possum > (y->n - m) * top ? y->possum - (y->n - m) * top : 0;
			if (sm < lo)
				sm = lo;
			if (sm > m * top)
				sm = m * top;
			em->n += m;
			ew->n += m;
			ew->possum += sm;
			y = &a->ent[j];
			y->possum -= sm;
			a->ent[i].n -= m;
			y->n -= m;
			co -= m;
		}
	}
}


/* p's EOF_POS in its EOF regions (those of mask): base + 1 in the first
 * `up` of them, base in the others. */
static inline void set_pos(struct pte_pat *p, uint32_t mask, uint64_t base, uint64_t up)
{
	for (unsigned seen = 0; mask; mask &= mask - 1, seen++)
		p->pos[__builtin_ctz(mask)] = (uint8_t)(seen < up ? base + 1 : base);
}

/*
 * The words of a table entry have the same SOF and EOF masks and states;
 * they count the same except for their items, which depend only on the sum
 * of their EOF_POS values.  Emit n of them with a share of that sum spread
 * as evenly as possible: at most three patterns (all EOF_POS base, all
 * base + 1, the first `part` of them base + 1), in this order.
 */
static inline __attribute__((always_inline)) void emit_entry(struct pte_mfb *a,
							    struct pte_patent *e, uint64_t n)
{
	unsigned E = popc32(e->p.eof);
	if (n == 0)
		return;
	if (E == 0) {
		add_run(a, &e->p, PTE_RUN_MOVE, n);
		e->n -= n;
		return;
	}
	/* the share of these n words; what stays keeps every word <= N-1 */
	uint64_t top = (uint64_t)E * (a->N - 1);
	uint64_t S = n == e->n ? e->possum : (e->possum * n + e->n - 1) / e->n;
	if (S > n * top)
		S = n * top;
	if (e->possum - S > (e->n - n) * top)
		S = e->possum - (e->n - n) * top;
	uint64_t slots = n * E, base = S / slots, rem = S % slots;
	uint64_t full = E == 1 ? rem : rem / E, part = E == 1 ? 0 : rem % E;
	const uint32_t mask = e->p.eof & ((1u << a->R) - 1u);
	struct pte_pat p = e->p; /* add_run copies it */
	set_pos(&p, mask, base, 0);
	add_run(a, &p, PTE_RUN_MOVE, n - full - (part ? 1 : 0));
	if (full) {
		set_pos(&p, mask, base, E);
		add_run(a, &p, PTE_RUN_MOVE, full);
	}
	if (part) {
		set_pos(&p, mask, base, part);
		add_run(a, &p, PTE_RUN_MOVE, 1);
	}
	e->n -= n;
	e->possum -= S;
}

/* All words of an entry, out of line: what a walk leaves over (never so
 * far; emit_entry is inlined where the walk emits). */
static __attribute__((noinline)) void emit_rest(struct pte_mfb *a, struct pte_patent *e)
{
	emit_entry(a, e, e->n);
}

static inline unsigned pat_hash(const struct pte_mfb *a, const struct pte_pat *p, int in, int out)
{
	uint32_t h = p->sof * 0x9E3779B1u ^ p->eof * 0x85EBCA77u ^ (uint32_t)(in * 2 + out);
	(void)a;
	return (h ^ (h >> 13) ^ (h >> 24)) & 255u;
}

/* The hash of the table rebuilt (entries in table order, as
 * pte_mfb_find inserts them). */
static void rehash(struct pte_mfb *a)
{
	memset(a->hslot, 0, sizeof(a->hslot));
	for (unsigned i = 0; i < a->nent; i++) {
		const struct pte_patent *e = &a->ent[i];
		unsigned h = pat_hash(a, &e->p, e->in, e->out);
		while (a->hslot[h])
			h = (h + 1) & 255u;
		a->hslot[h] = (uint8_t)(i + 1);
	}
}

/* The walk from state st: in each state reached for the first time its
 * words that stay in it, then one word of the first entry (in table
 * order) that leaves it, as long as there is one (a->by lists the
 * entries by their states; those without words are passed over). */
static void fold_walk(struct pte_mfb *a, int st)
{
	int visited[2] = { 0, 0 };
	unsigned cur[2] = { 0, 0 }; /* the entries before are used up */

	for (;;) {
		if (!visited[st]) {
			visited[st] = 1;
			for (unsigned i = 0; i < a->nby[st][st]; i++) {
				struct pte_patent *e = &a->ent[a->by[st][st][i]];
				if (e->n)
					emit_entry(a, e, e->n);
			}
		}
		const uint8_t *x = a->by[st][!st];
		const unsigned nx = a->nby[st][!st];
		while (cur[st] < nx && !a->ent[x[cur[st]]].n)
			cur[st]++;
		if (cur[st] == nx)
			break;
		emit_entry(a, &a->ent[x[cur[st]]], 1);
		st = !st;
	}
}

/* Turn the table into runs: a walk from s0 to the current state. */
void pte_mfb_fold(struct pte_mfb *a)
{
	int s0 = a->s0, s1 = a->tstate;

	pte_fx_expand(a);
	const unsigned hashed = a->nent; /* fold_pairs adds entries apart from the hash */
	fold_pairs(a, s0, s1);
	fold_walk(a, s0);
	/* Nothing is left over when the table was a walk from s0 to s1; keep
	 * the cycles anyway if it ever was not.  The entries are left empty
	 * (for the next emission, below). */
	for (unsigned i = 0; i < a->nent; i++) {
		if (a->ent[i].n)
			emit_rest(a, &a->ent[i]);
		a->ent[i].n = a->ent[i].possum = 0;
	}
	a->s0 = (uint8_t)s1;
	if (a->nent > PTE_MAXPAT / 2) {
		a->nent = 0;
		memset(a->nby, 0, sizeof(a->nby));
		a->mid_ent = 0;
		a->last = 0;
		memset(a->hslot, 0, sizeof(a->hslot));
		a->gen++; /* the effects' entries are gone */
		return;
	}
	/* the next emission uses the same patterns, mostly: the entries stay,
	 * empty, and so do the effects' reservations (the pairs' new entries
	 * join the hash) */
	if (a->nent != hashed)
		rehash(a);
}

/* The table entry of a word, found through the hash (the table holds at
 * most PTE_MAXPAT of 256 slots, so probing stays short). */
struct pte_patent *pte_mfb_find(struct pte_mfb *a, const struct pte_pat *p, int in, int out)
{
	/* runs of equal words come one after the other */
	if (a->last && a->last <= a->nent && key_eq(&a->ent[a->last - 1], p, in, out))
		return &a->ent[a->last - 1];
	unsigned h = pat_hash(a, p, in, out);
	for (;;) {
		unsigned s = a->hslot[h];
		if (!s)
			break;
		struct pte_patent *e = &a->ent[s - 1];
		if (key_eq(e, p, in, out)) {
			a->last = s;
			return e;
		}
		h = (h + 1) & 255u;
	}
	if (a->nent >= PTE_MAXPAT)
		return NULL;
	struct pte_patent *e = ent_add(a, p, in, out);
	a->hslot[h] = (uint8_t)a->nent;
	a->last = a->nent;
	return e;
}

static void table_add(struct pte_mfb *a, const struct pte_pat *p, int in, int out, uint64_t n)
{
	struct pte_patent *e = pte_mfb_find(a, p, in, out);
	if (!e) {
		pte_mfb_fold(a);
		e = pte_mfb_find(a, p, in, out);
	}
	e->n += n;
	e->possum += n * pte_pos_sum(p, a->R);
	a->tstate = (uint8_t)out;
}

void pte_mfb_put(struct pte_mfb *a, const struct pte_pat *p, int in, int out, uint64_t n)
{
	uint64_t room = a->placed < a->S ? a->S - a->placed : 0;
	uint64_t k = n < room ? n : room;

	if (k)
		table_add(a, p, in, out, k);
	if (n > k) {
		struct pte_patent *c = a->ncarry ? &a->carry[a->ncarry - 1] : NULL;
		if (c && pat_eq(c, p, in, out)) {
			c->n += n - k;
		} else {
			if (a->ncarry == a->carry_cap) {
				unsigned nc = a->carry_cap ? 2 * a->carry_cap : 16;
				struct pte_patent *n2 = pte_realloc(a->carry, nc * sizeof(*n2));
				if (!n2) {
					a->err = -ENOMEM;
					a->placed += n;
					return;
				}
				a->carry = n2;
				a->carry_cap = nc;
			}
			c = &a->carry[a->ncarry++];
			c->p = *p;
			c->in = (uint8_t)in;
			c->out = (uint8_t)out;
			c->n = n - k;
		}
	}
	a->placed += n;
}

void pte_mfb_begin(struct pte_mfb *a, uint64_t S)
{
	struct pte_patent *carry = a->carry;
	unsigned nc = a->ncarry, cap = a->carry_cap;
	uint64_t cs = a->carry_stall;

	if (a->emitted) {
		/* the table was folded: a new emission */
		a->nrun = a->npat = 0;
		a->e_stall = a->e_idle = 0;
		a->s0 = a->tstate;
		a->emitted = 0;
	}
	/* the words carried in are placed again; what does not fit goes to
	 * the other buffer */
	a->carry = a->spare;
	a->carry_cap = a->spare_cap;
	a->spare = carry;
	a->spare_cap = cap;
	a->S = S;
	a->placed = 0;
	a->stall = a->idle = 0;
	a->ncarry = 0;
	a->carry_stall = 0;
	for (unsigned i = 0; i < nc; i++)
		pte_mfb_put(a, &carry[i].p, carry[i].in, carry[i].out, carry[i].n);
	if (cs)
		pte_mfb_stall(a, cs);
}

void pte_mfb_stall(struct pte_mfb *a, uint64_t n)
{
	if (a->npend)
		pte_mfb_place(a);
	pte_stall_into(n, a->S, &a->placed, &a->stall, &a->carry_stall, &a->t_stall);
}

void pte_mfb_idle(struct pte_mfb *a, uint64_t n)
{
	if (a->npend)
		pte_mfb_place(a);
	uint64_t room = a->placed < a->S ? a->S - a->placed : 0;
	uint64_t k = n < room ? n : room;
	a->idle += k;
	a->placed += k;
}

void pte_mfb_close(struct pte_mfb *a)
{
	pte_mfb_flush(a);
	if (a->placed < a->S)
		pte_mfb_idle(a, a->S - a->placed);
	/* every cycle of the slice is a word in the table, a stall or idle */
	a->t_words += a->S - a->stall - a->idle;
	a->e_stall += a->stall;
	a->e_idle += a->idle;
}

void pte_mfb_runs(struct pte_mfb *a)
{
	pte_mfb_fold(a);
	add_run(a, NULL, PTE_RUN_STALL, a->e_stall);
	add_run(a, NULL, PTE_RUN_IDLE, a->e_idle);
	a->emitted = 1;
}

void pte_mfb_end(struct pte_mfb *a)
{
	pte_mfb_close(a);
	pte_mfb_runs(a);
}

void pte_mfb_apply(const struct pte_mfb *a, const struct pte_run *r, struct ptm_bus_in *b)
{
	pte_mfb_apply_pat(a->R, a->pat, r, b);
}
