/*
 * pcie-telemetry: word builders of the simulated card.
 *
 * The scheduler of each bus places whole frames, one after the other, as
 * the MFB specification packs them: a frame starts at the first item of a
 * region, in the region after the previous frame's end when it is ready at
 * once, otherwise at region 0 of a new word.  The builder turns them into
 * words (sof/eof masks and EOF_POS per region) and counts identical words.
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

static void add_run(struct pte_mfb *a, const struct pte_pat *p, uint8_t kind, uint64_t n)
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

static inline uint64_t pos_sum(const struct pte_pat *p, unsigned R)
{
	uint64_t s = 0;
	for (unsigned r = 0; r < R; r++)
		if ((p->eof >> r) & 1u)
			s += p->pos[r];
	return s;
}

static struct pte_patent *find_or_add(struct pte_patent *t, unsigned *n, const struct pte_pat *p,
				      int in, int out)
{
	for (unsigned i = *n; i-- > 0;)
		if (key_eq(&t[i], p, in, out))
			return &t[i];
	if (*n >= PTE_MAXPAT)
		return NULL;
	struct pte_patent *e = &t[(*n)++];
	e->p = *p;
	e->in = (uint8_t)in;
	e->out = (uint8_t)out;
	e->n = 0;
	e->possum = 0;
	return e;
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
	uint64_t co = 0;
	for (unsigned i = 0; i < a->nent; i++)
		if (!a->ent[i].in && a->ent[i].out)
			co += a->ent[i].n;
	uint64_t keep = s0 == s1 ? 1 : 0; /* both states must stay reachable */
	for (unsigned i = 0; i < a->nent && co > keep; i++) {
		if (a->ent[i].in || !a->ent[i].out || a->ent[i].p.sof != 1u ||
		    a->ent[i].p.eof != 0 || a->ent[i].n == 0)
			continue;
		for (unsigned j = 0; j < a->nent && co > keep && a->ent[i].n; j++) {
			struct pte_patent *y = &a->ent[j];
			if (!y->in || y->out || y->p.sof != 0 || y->n == 0 || !y->p.eof ||
			    (y->p.eof & (y->p.eof - 1)))
				continue;
			uint64_t m = a->ent[i].n < y->n ? a->ent[i].n : y->n;
			if (m > co - keep)
				m = co - keep;
			struct pte_pat mid, w;
			memset(&mid, 0, sizeof(mid));
			w = y->p;
			w.sof = 1u;
			if (a->nent + 2 > PTE_MAXPAT)
				return;
			struct pte_patent *em = find_or_add(a->ent, &a->nent, &mid, 1, 1);
			struct pte_patent *ew = find_or_add(a->ent, &a->nent, &w, 0, 0);
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


/*
 * The words of a table entry have the same SOF and EOF masks and states;
 * they count the same except for their items, which depend only on the sum
 * of their EOF_POS values.  Emit n of them with a share of that sum spread
 * as evenly as possible: at most three patterns.
 */
static void emit_entry(struct pte_mfb *a, struct pte_patent *e, uint64_t n)
{
	unsigned E = (unsigned)__builtin_popcount(e->p.eof);
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
	uint64_t full = rem / E, part = rem % E;
	struct pte_pat pb = e->p, pf = e->p, pp = e->p;
	unsigned seen = 0;
	for (unsigned r = 0; r < a->R; r++)
		if ((e->p.eof >> r) & 1u) {
			pb.pos[r] = (uint8_t)base;
			pf.pos[r] = (uint8_t)(base + 1);
			pp.pos[r] = (uint8_t)(seen++ < part ? base + 1 : base);
		}
	add_run(a, &pb, PTE_RUN_MOVE, n - full - (part ? 1 : 0));
	add_run(a, &pf, PTE_RUN_MOVE, full);
	if (part)
		add_run(a, &pp, PTE_RUN_MOVE, 1);
	e->n -= n;
	e->possum -= S;
}

static void fx_expand(struct pte_mfb *a);

/* Turn the table into runs: a walk from s0 to the current state. */
static void fold(struct pte_mfb *a)
{
	int s0 = a->s0, s1 = a->tstate;

	fx_expand(a);
	fold_pairs(a, s0, s1);
	int st = s0;
	int visited[2] = { 0, 0 };
	for (;;) {
		if (!visited[st]) {
			visited[st] = 1;
			for (unsigned i = 0; i < a->nent; i++) {
				struct pte_patent *e = &a->ent[i];
				if (e->in == st && e->out == st && e->n)
					emit_entry(a, e, e->n);
			}
		}
		struct pte_patent *x = NULL;
		for (unsigned i = 0; i < a->nent; i++)
			if (a->ent[i].in == st && a->ent[i].out != st && a->ent[i].n) {
				x = &a->ent[i];
				break;
			}
		if (!x)
			break;
		emit_entry(a, x, 1);
		st = !st;
	}
	/* Nothing is left over when the table was a walk from s0 to s1; keep
	 * the cycles anyway if it ever was not. */
	for (unsigned i = 0; i < a->nent; i++)
		if (a->ent[i].n)
			emit_entry(a, &a->ent[i], a->ent[i].n);
	a->nent = 0;
	a->last = 0;
	memset(a->hslot, 0, sizeof(a->hslot));
	a->s0 = (uint8_t)s1;
	a->gen++; /* the effects' entries are gone */
}

static inline unsigned pat_hash(const struct pte_mfb *a, const struct pte_pat *p, int in, int out)
{
	uint32_t h = p->sof * 0x9E3779B1u ^ p->eof * 0x85EBCA77u ^ (uint32_t)(in * 2 + out);
	(void)a;
	return (h ^ (h >> 13) ^ (h >> 24)) & 255u;
}

/* The table entry of a word, found through the hash (the table holds at
 * most PTE_MAXPAT of 256 slots, so probing stays short). */
static struct pte_patent *table_find(struct pte_mfb *a, const struct pte_pat *p, int in, int out)
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
	struct pte_patent *e = &a->ent[a->nent++];
	e->p = *p;
	e->in = (uint8_t)in;
	e->out = (uint8_t)out;
	e->n = 0;
	e->possum = 0;
	a->hslot[h] = (uint8_t)a->nent;
	a->last = a->nent;
	return e;
}

static void table_add(struct pte_mfb *a, const struct pte_pat *p, int in, int out, uint64_t n)
{
	struct pte_patent *e = table_find(a, p, in, out);
	if (!e) {
		fold(a);
		e = table_find(a, p, in, out);
	}
	e->n += n;
	e->possum += n * pos_sum(p, a->R);
	a->tstate = (uint8_t)out;
}

static void put(struct pte_mfb *a, const struct pte_pat *p, int in, int out, uint64_t n)
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
		put(a, &carry[i].p, carry[i].in, carry[i].out, carry[i].n);
	if (cs)
		pte_mfb_stall(a, cs);
}

/* The word under construction and the frame state before it. */
struct mfb_st {
	struct pte_pat cur;
	unsigned r;               /* next free region, 0 = none */
	uint8_t in;
};

/* A word finished by a frame, n times. */
struct wput {
	struct pte_pat p;
	uint8_t in, out;
	uint64_t n;
};

/* The words one frame of `items` finishes from state *s, in order (at
 * most three: the word it leaves open, the middle words, the word it ends
 * in when that is full); *s becomes the state after it. */
static unsigned frame_words(unsigned R, unsigned N, struct mfb_st *s, uint32_t items,
			    struct wput *w)
{
	uint64_t n = (items + N - 1) / N;
	uint8_t lastpos = (uint8_t)((items - 1) % N);
	unsigned nw = 0;

	if (s->r == 0) {
		memset(&s->cur, 0, sizeof(s->cur));
		s->in = 0;
	}
	unsigned r = s->r;
	s->cur.sof |= 1u << r;
	if (n <= R - r) {
		unsigned e = r + (unsigned)n - 1;
		s->cur.eof |= 1u << e;
		s->cur.pos[e] = lastpos;
		s->r = e + 1;
	} else {
		w[nw++] = (struct wput){ s->cur, s->in, 1, 1 };
		memset(&s->cur, 0, sizeof(s->cur));
		uint64_t rem = n - (R - r);
		uint64_t mids = (rem - 1) / R;
		if (mids) {
			memset(&w[nw], 0, sizeof(w[nw]));
			w[nw].in = w[nw].out = 1;
			w[nw++].n = mids;
		}
		unsigned last = (unsigned)(rem - mids * R);
		s->in = 1;
		s->cur.eof = 1u << (last - 1);
		s->cur.pos[last - 1] = lastpos;
		s->r = last;
	}
	if (s->r == R) {
		w[nw++] = (struct wput){ s->cur, s->in, 0, 1 };
		memset(&s->cur, 0, sizeof(s->cur));
		s->r = 0;
	}
	return nw;
}

static void finish_word(struct pte_mfb *a, int out)
{
	put(a, &a->cur, a->cur_in, out, 1);
	memset(&a->cur, 0, sizeof(a->cur));
	a->cur_r = 0;
}

/* One frame, its words put in order (they may cross the slice's end). */
static void frame_slow(struct pte_mfb *a, uint32_t items)
{
	struct mfb_st s = { a->cur, a->cur_r, a->cur_in };
	struct wput w[3];
	unsigned nw = frame_words(a->R, a->N, &s, items, w);

	for (unsigned i = 0; i < nw; i++)
		put(a, &w[i].p, w[i].in, w[i].out, w[i].n);
	a->cur = s.cur;
	a->cur_r = s.r;
	a->cur_in = s.in;
	a->t_frames++;
	a->t_items += items;
}

/* ---- memoized frames -------------------------------------------------------- */

/*
 * What one frame of a length does from one state depends on nothing else:
 * the words it finishes (by key, with their EOF_POS sums), the state
 * after, the frame state after its last word.  The builder remembers that
 * (struct pte_fx, 2-way sets by a hash of state and length) and, when the
 * words fit in the slice, only counts how often it happened in this table
 * generation; the counts go into the table when it is folded.  The first
 * time an effect is counted in a generation it reserves its table entries
 * (a full table is folded before), so the table can always take them.
 * Deferred or not, the table gets the same words, and a fold happens only
 * between two frames, where table and counts together hold a prefix of the
 * frame sequence: the walk stays valid.
 *
 * k frames of one length: their states repeat after a few frames (the
 * start region of equal frames cycles with a period of at most R), so the
 * builder follows the effects until the state after the first frame comes
 * back and then counts that cycle as often as the frames and the slice
 * allow.
 */

/* Two words under construction are the same (all 24 bytes: the regions
 * beyond the frames are zero). */
static inline int pat_same(const struct pte_pat *x, const struct pte_pat *y)
{
	uint64_t a[3], b[3];
	memcpy(a, x, sizeof(a));
	memcpy(b, y, sizeof(b));
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static inline int fx_key_eq(const struct pte_fx *f, const struct pte_mfb *a, unsigned in,
			    uint32_t items)
{
	return f->items == items && f->r0 == a->cur_r && f->in0 == in && pat_same(&f->cur0, &a->cur);
}

static inline unsigned fx_hash(const struct pte_mfb *a, unsigned in, uint32_t items)
{
	uint64_t w[3];
	memcpy(w, &a->cur, sizeof(w));
	uint64_t h = (w[0] * 0x9E3779B97F4A7C15ull) ^ (w[1] * 0xC2B2AE3D27D4EB4Full) ^
		     (w[2] * 0x165667B19E3779F9ull) ^ ((uint64_t)items << 8 | a->cur_r << 1 | in);
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return (unsigned)h & (PTE_FX_SLOTS - 2);
}

/* One more word into an effect (by key). */
static void fx_addw(struct pte_fx *f, const struct wput *w, unsigned R)
{
	unsigned i;
	for (i = 0; i < f->nw; i++)
		if (f->w[i].sof == w->p.sof && f->w[i].eof == w->p.eof && f->w[i].in == w->in &&
		    f->w[i].out == w->out)
			break;
	if (i == f->nw)
		f->w[f->nw++] = (struct pte_fxw){ w->p.sof, w->p.eof, w->in, w->out, 0, 0 };
	f->w[i].n += w->n;
	f->w[i].possum += w->n * pos_sum(&w->p, R);
	f->words += w->n;
	f->tout = w->out;
}

/* The effect of one frame from the current state; items 0: of a flush
 * (the word under construction ends, no frame left open). */
static void fx_compute(const struct pte_mfb *a, unsigned in, uint32_t items, struct pte_fx *f)
{
	struct mfb_st s = { a->cur, a->cur_r, a->cur_in };
	struct wput w[3];
	unsigned nw = 0;

	if (items) {
		nw = frame_words(a->R, a->N, &s, items, w);
	} else {
		w[nw++] = (struct wput){ s.cur, s.in, 0, 1 };
		memset(&s.cur, 0, sizeof(s.cur));
		s.r = 0;
	}

	memset(f, 0, sizeof(*f));
	f->used = 1;
	f->items = items;
	f->cur0 = a->cur;
	f->r0 = (uint8_t)a->cur_r;
	f->in0 = (uint8_t)in;
	for (unsigned j = 0; j < nw; j++)
		fx_addw(f, &w[j], a->R);
	f->cur1 = s.cur;
	f->r1 = (uint8_t)s.r;
	f->in1 = s.in;
}

/* Not remembered: computed into a free way of its set (no counts, not on
 * the path of the frames being placed), the older one first; NULL when
 * there is none. */
static __attribute__((noinline)) struct pte_fx *fx_miss(struct pte_mfb *a, struct pte_fx *set,
							 unsigned in, uint32_t items)
{
	int free0 = !set[0].cnt && set[0].pin != a->walk, free1 = !set[1].cnt && set[1].pin != a->walk;
	unsigned w = free0 && (!free1 || set[0].age <= set[1].age) ? 0 : 1;
	if (!(w ? free1 : free0))
		return NULL;
	fx_compute(a, in, items, &set[w]);
	set[w].age = ++a->fx_age;
	return &set[w];
}

/* The remembered effect of one frame from the current state, or NULL. */
static inline struct pte_fx *fx_get(struct pte_mfb *a, uint32_t items)
{
	/* an empty word under construction starts without an open frame */
	unsigned in = a->cur_r ? a->cur_in : 0;
	struct pte_fx *set = &a->fx[fx_hash(a, in, items)];

	if (set[0].used && fx_key_eq(&set[0], a, in, items))
		return &set[0];
	if (set[1].used && fx_key_eq(&set[1], a, in, items))
		return &set[1];
	return fx_miss(a, set, in, items);
}

/* The table entries of an effect's words in this generation. */
static __attribute__((noinline)) void fx_reserve(struct pte_mfb *a, struct pte_fx *f)
{
	for (;;) {
		unsigned i;
		for (i = 0; i < f->nw; i++) {
			struct pte_pat p;
			memset(&p, 0, sizeof(p));
			p.sof = f->w[i].sof;
			p.eof = f->w[i].eof;
			struct pte_patent *e = table_find(a, &p, f->w[i].in, f->w[i].out);
			if (!e)
				break;
			f->ent[i] = (uint8_t)(e - a->ent);
		}
		if (i == f->nw)
			break;
		fold(a); /* an empty table takes every effect */
	}
	f->gen = a->gen;
}

/* Count an effect n times (its words fit). */
static inline void fx_count(struct pte_mfb *a, struct pte_fx *f, uint64_t n)
{
	if (f->nw) {
		if (f->gen != a->gen)
			fx_reserve(a, f);
		if (f->cnt == 0)
			a->act[a->nact++] = (uint16_t)(f - a->fx);
		f->cnt += n;
		a->tstate = f->tout;
	}
	a->placed += n * f->words;
	if (f->items) {
		a->t_frames += n;
		a->t_items += n * f->items;
	}
}

/* Set the state to the end of effect f. */
static inline void fx_state(struct pte_mfb *a, const struct pte_fx *f)
{
	a->cur = f->cur1;
	a->cur_r = f->r1;
	a->cur_in = f->in1;
}

static inline void fx_step(struct pte_mfb *a, struct pte_fx *f)
{
	fx_count(a, f, 1);
	fx_state(a, f);
}

/* The effect after f (same length, from f's end state): the slot f
 * remembers while it still holds what it held then, else looked up. */
static struct pte_fx *fx_next(struct pte_mfb *a, struct pte_fx *f)
{
	if (f->nxt) {
		struct pte_fx *n = &a->fx[f->nxt - 1];
		if (n->age == f->nxt_age)
			return n;
	}
	struct pte_fx *n = fx_get(a, f->items);
	if (n) {
		f->nxt = (uint16_t)(n - a->fx + 1);
		f->nxt_age = n->age;
	}
	return n;
}

/* Every effect of list[] has its table entries in this generation: a
 * fold on the way starts over (the entries of the others are gone); 0
 * when even an empty table cannot hold them all. */
static int fx_reserve_all(struct pte_mfb *a, struct pte_fx *const *list, unsigned n)
{
	for (int pass = 0; pass < 2; pass++) {
		uint32_t gen = a->gen;
		for (unsigned i = 0; i < n; i++)
			if (list[i]->nw && list[i]->gen != a->gen)
				fx_reserve(a, list[i]);
		if (gen == a->gen)
			return 1;
	}
	return 0;
}

/*
 * k frames from the cycle first's last walk found: its effects before the
 * cycle once, the cycle as often as it fits, the rest of it once more.
 * 0 when there is none, one of its effects is gone, k is shorter than
 * prefix and cycle, or the words do not fit.
 */
static int fx_cycle(struct pte_mfb *a, struct pte_fx *first, uint64_t k)
{
	struct pte_fx *list[PTE_FX_CYC];
	unsigned j = first->cyc_pre, m = first->cyc_len, n = j + m;
	uint64_t pre = 0, cyc = 0, part = 0;

	if (!m || k < n)
		return 0;
	uint64_t reps = (k - j) / m, rem = (k - j) % m;
	for (unsigned i = 0; i < n; i++) {
		list[i] = &a->fx[first->cyc_fx[i]];
		if (list[i]->age != first->cyc_age[i])
			return 0;
		if (i < j)
			pre += list[i]->words;
		else
			cyc += list[i]->words;
		if (i >= j && i < j + rem)
			part += list[i]->words;
	}
	if (a->placed + pre + reps * cyc + part > a->S || !fx_reserve_all(a, list, n))
		return 0;
	for (unsigned i = 0; i < n; i++)
		fx_count(a, list[i], i < j ? 1 : reps + (i - j < rem));
	/* the frame state after the last word: of the last effect with words,
	 * backwards from the end through the cycle (a cycle always finishes a
	 * word) */
	unsigned end = rem ? j + (unsigned)rem - 1 : n - 1;
	for (unsigned d = 0; d < m; d++) {
		unsigned i = j + (end - j + m - d) % m;
		if (list[i]->nw) {
			a->tstate = list[i]->tout;
			break;
		}
	}
	fx_state(a, list[end]);
	return 1;
}

/* What a walk from first found: the effects up to the cycle and the cycle,
 * for fx_cycle. */
static void fx_keep_cycle(struct pte_mfb *a, struct pte_fx *first, struct pte_fx *const *path,
			  unsigned j, unsigned np)
{
	first->cyc_len = 0;
	if (np > PTE_FX_CYC || path[0] != first)
		return;
	for (unsigned i = 0; i < np; i++) {
		first->cyc_fx[i] = (uint16_t)(path[i] - a->fx);
		first->cyc_age[i] = path[i]->age;
	}
	first->cyc_pre = (uint8_t)j;
	first->cyc_len = (uint8_t)(np - j);
}

/*
 * Up to k frames through remembered effects, as long as their words fit
 * in the slice; returns the frames placed.  The effects of this walk are
 * pinned in their slots and numbered along path[]: when the next one is on
 * the path already, the state has come back, and the cycle from there is
 * counted as often as the frames and the slice allow.  The first effect
 * keeps what the walk found, for the next k frames from it (fx_cycle).
 */
static uint64_t fx_frames(struct pte_mfb *a, uint32_t items, uint64_t k)
{
	struct pte_fx *path[PTE_FX_PATH];
	uint64_t cw[PTE_FX_PATH + 1]; /* words before path[i] */
	unsigned np = 0;
	int cycled = 0;
	uint64_t done = 0;

	a->walk++;
	struct pte_fx *f = fx_get(a, items), *first = f;
	if (f && fx_cycle(a, f, k))
		return k;
	cw[0] = 0;
	while (done < k && f && a->placed + f->words <= a->S) {
		if (!cycled && f->pin == a->walk) {
			unsigned j = f->pidx;
			uint64_t m = np - j, w = cw[np] - cw[j];
			uint64_t reps = (k - done) / m;
			if (w && reps > (a->S - a->placed) / w)
				reps = (a->S - a->placed) / w;
			cycled = 1;
			fx_keep_cycle(a, first, path, j, np);
			if (!reps || !fx_reserve_all(a, path + j, np - j))
				continue;
			for (unsigned i = j; i < np; i++)
				fx_count(a, path[i], reps);
			done += reps * m;
			continue;
		}
		fx_step(a, f);
		done++;
		if (!cycled && np < PTE_FX_PATH) {
			f->pin = a->walk;
			f->pidx = (uint8_t)np;
			path[np++] = f;
			cw[np] = cw[np - 1] + f->words;
		}
		if (done < k)
			f = fx_next(a, f);
	}
	return done;
}

/* The counted effects into the table (before it is read). */
static void fx_expand(struct pte_mfb *a)
{
	for (unsigned i = 0; i < a->nact; i++) {
		struct pte_fx *f = &a->fx[a->act[i]];
		for (unsigned j = 0; j < f->nw; j++) {
			struct pte_patent *e = &a->ent[f->ent[j]];
			e->n += f->w[j].n * f->cnt;
			e->possum += f->w[j].possum * f->cnt;
		}
		f->cnt = 0;
	}
	a->nact = 0;
}

void pte_mfb_frames(struct pte_mfb *a, uint32_t items, uint64_t k)
{
	if (items == 0)
		items = 1;
	if (k == 1) {
		a->walk++; /* no walk: nothing pinned */
		struct pte_fx *f = fx_get(a, items);
		if (f && a->placed + f->words <= a->S)
			fx_step(a, f);
		else
			frame_slow(a, items);
		return;
	}
	while (k) {
		uint64_t done = fx_frames(a, items, k);
		k -= done;
		if (!k)
			break;
		/* the slice is full (the words go on into the next one) or the
		 * effect is not at hand: one frame the plain way */
		frame_slow(a, items);
		k--;
	}
}

void pte_mfb_frame(struct pte_mfb *a, uint32_t items)
{
	pte_mfb_frames(a, items, 1);
}

void pte_mfb_flush(struct pte_mfb *a)
{
	if (!a->cur_r)
		return;
	a->walk++;
	struct pte_fx *f = fx_get(a, 0);
	if (f && a->placed + f->words <= a->S)
		fx_step(a, f);
	else
		finish_word(a, 0);
}

void pte_mfb_stall(struct pte_mfb *a, uint64_t n)
{
	uint64_t room = a->placed < a->S ? a->S - a->placed : 0;
	uint64_t k = n < room ? n : room;
	a->stall += k;
	a->carry_stall += n - k;
	a->placed += n;
	a->t_stall += n;
}

void pte_mfb_idle(struct pte_mfb *a, uint64_t n)
{
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
	fold(a);
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
	unsigned R = a->R;
	if (r->kind == PTE_RUN_MOVE) {
		const struct pte_pat *p = &a->pat[r->idx];
		b->sof = p->sof;
		b->eof = p->eof;
		for (unsigned i = 0; i < R; i++)
			b->eof_pos[i] = p->pos[i];
		b->src_rdy = 1;
		b->dst_rdy = 1;
		return;
	}
	b->sof = 0;
	b->eof = 0;
	for (unsigned i = 0; i < R; i++)
		b->eof_pos[i] = 0;
	b->src_rdy = r->kind == PTE_RUN_STALL;
	b->dst_rdy = 0;
}
