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
	a->run = calloc(a->cap, sizeof(*a->run));
	a->pat = calloc(a->cap, sizeof(*a->pat));
	a->pc = calloc(PTE_PERIODS, sizeof(*a->pc));
	if (!a->run || !a->pat || !a->pc) {
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
	free(a->pc);
	a->pc = NULL;
	a->run = NULL;
	a->pat = NULL;
	a->carry = NULL;
	a->ncarry = a->carry_cap = 0;
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

/* Turn the table into runs: a walk from s0 to the current state. */
static void fold(struct pte_mfb *a)
{
	int s0 = a->s0, s1 = a->tstate;

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
	if (a->recording) {
		if (a->nrec < sizeof(a->rec) / sizeof(a->rec[0])) {
			struct pte_patent *r = &a->rec[a->nrec++];
			r->p = *p;
			r->in = (uint8_t)in;
			r->out = (uint8_t)out;
			r->n = n;
		} else {
			a->recording = -1; /* too long to repeat */
		}
	}
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
				struct pte_patent *n2 = realloc(a->carry, nc * sizeof(*n2));
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
	unsigned nc = a->ncarry;
	uint64_t cs = a->carry_stall;

	a->carry = NULL;
	a->carry_cap = 0;
	a->S = S;
	a->placed = 0;
	a->stall = a->idle = 0;
	a->nent = 0;
	a->last = 0;
	memset(a->hslot, 0, sizeof(a->hslot));
	a->ncarry = 0;
	a->carry_stall = 0;
	a->nrun = a->npat = 0;
	a->s0 = a->tstate;
	for (unsigned i = 0; i < nc; i++)
		put(a, &carry[i].p, carry[i].in, carry[i].out, carry[i].n);
	free(carry);
	if (cs)
		pte_mfb_stall(a, cs);
}

static void finish_word(struct pte_mfb *a, int out)
{
	put(a, &a->cur, a->cur_in, out, 1);
	memset(&a->cur, 0, sizeof(a->cur));
	a->cur_r = 0;
}

void pte_mfb_frame(struct pte_mfb *a, uint32_t items)
{
	unsigned R = a->R, N = a->N;
	if (items == 0)
		items = 1;
	uint64_t n = (items + N - 1) / N;
	uint8_t lastpos = (uint8_t)((items - 1) % N);

	a->t_frames++;
	a->t_items += items;
	if (a->cur_r == 0) {
		memset(&a->cur, 0, sizeof(a->cur));
		a->cur_in = 0;
	}
	unsigned r = a->cur_r;
	a->cur.sof |= 1u << r;
	if (n <= R - r) {
		unsigned e = r + (unsigned)n - 1;
		a->cur.eof |= 1u << e;
		a->cur.pos[e] = lastpos;
		a->cur_r = e + 1;
		if (a->cur_r == R)
			finish_word(a, 0);
		return;
	}
	finish_word(a, 1);
	uint64_t rem = n - (R - r);
	uint64_t mids = (rem - 1) / R;
	if (mids) {
		struct pte_pat mid;
		memset(&mid, 0, sizeof(mid));
		put(a, &mid, 1, 1, mids);
	}
	unsigned last = (unsigned)(rem - mids * R);
	a->cur_in = 1;
	a->cur.eof = 1u << (last - 1);
	a->cur.pos[last - 1] = lastpos;
	a->cur_r = last;
	if (a->cur_r == R)
		finish_word(a, 0);
}


/* A recorded period that starts from the current state. */
static const struct pte_period *find_period(const struct pte_mfb *a, uint32_t items)
{
	for (unsigned i = 0; i < PTE_PERIODS; i++) {
		const struct pte_period *c = &a->pc[i];
		if (c->valid && c->items == items && c->cur_r == a->cur_r && c->cur_in == a->cur_in &&
		    memcmp(&c->cur, &a->cur, sizeof(c->cur)) == 0)
			return c;
	}
	return NULL;
}

/* Repeat a period as often as k frames and the slice allow; returns the
 * frames placed.  The state afterwards is the state before. */
static uint64_t repeat_period(struct pte_mfb *a, const struct pte_period *c, uint64_t k)
{
	if (a->placed >= a->S || a->nent + c->nrec > PTE_MAXPAT)
		return 0;
	uint64_t reps = k / c->P, room = (a->S - a->placed) / c->pw;
	if (reps > room)
		reps = room;
	if (!reps)
		return 0;
	for (unsigned i = 0; i < c->nrec; i++)
		table_add(a, &c->rec[i].p, c->rec[i].in, c->rec[i].out, c->rec[i].n * reps);
	a->tstate = c->rec[c->nrec - 1].out;
	a->placed += reps * c->pw;
	a->t_frames += reps * c->P;
	a->t_items += reps * c->P * c->items;
	return reps * c->P;
}

void pte_mfb_frames(struct pte_mfb *a, uint32_t items, uint64_t k)
{
	unsigned R = a->R, N = a->N;
	if (items == 0)
		items = 1;
	uint64_t n = (items + N - 1) / N;

	/* Frames of one region each: whole words of R frames are identical. */
	if (n == 1 && k > 2 * R) {
		while (k && a->cur_r) {
			pte_mfb_frame(a, items);
			k--;
		}
		uint64_t words = k / R;
		if (words) {
			struct pte_pat p;
			memset(&p, 0, sizeof(p));
			p.sof = p.eof = (R >= 32) ? 0xffffffffu : ((1u << R) - 1u);
			for (unsigned r = 0; r < R; r++)
				p.pos[r] = (uint8_t)((items - 1) % N);
			put(a, &p, 0, 0, words);
			a->t_frames += words * R;
			a->t_items += words * R * items;
			k -= words * R;
		}
	}
	/* Frames that fill whole words: every frame has the same words.  Only
	 * frames that end inside the slice, so that the table stays a walk. */
	if (n % R == 0 && a->cur_r == 0 && k > 2 && a->placed < a->S) {
		uint64_t words = n / R;
		uint64_t kb = (a->S - a->placed) / words;
		if (a->nent + 3 > PTE_MAXPAT)
			fold(a);
		if (kb > k)
			kb = k;
		struct pte_pat first, mid, last;
		memset(&first, 0, sizeof(first));
		memset(&mid, 0, sizeof(mid));
		memset(&last, 0, sizeof(last));
		if (kb && words == 1) {
			first.sof = 1u;
			first.eof = 1u << (R - 1);
			first.pos[R - 1] = (uint8_t)((items - 1) % N);
			put(a, &first, 0, 0, kb);
		} else if (kb) {
			first.sof = 1u;
			last.eof = 1u << (R - 1);
			last.pos[R - 1] = (uint8_t)((items - 1) % N);
			put(a, &first, 0, 1, kb);
			if (words > 2)
				put(a, &mid, 1, 1, kb * (words - 2));
			put(a, &last, 1, 0, kb);
		}
		a->t_frames += kb;
		a->t_items += kb * items;
		k -= kb;
	}
	/* Any other length: the start region of the frames repeats after
	 * P = R / gcd(n mod R, R) frames, and so do their words.  Place frames
	 * until the word under construction holds only frames of this length,
	 * record one period, then repeat it as often as it fits in the slice.
	 * A period seen before from the same state is not recorded again. */
	if (k > 2 + 2 * (uint64_t)R) {
		unsigned x = (unsigned)(n % R), y = R;
		while (y) {
			unsigned t = x % y;
			x = y;
			y = t;
		}
		unsigned P = R / x;
		const struct pte_period *hit = find_period(a, items);
		if (!hit) {
			/* until the word under construction holds only these frames */
			uint64_t p0 = a->placed;
			while (k && a->placed == p0) {
				pte_mfb_frame(a, items);
				k--;
			}
			hit = find_period(a, items);
		}
		if (!hit && k >= P) {
			struct pte_period *c = &a->pc[a->pc_next];
			c->valid = 0;
			c->items = items;
			c->cur_r = a->cur_r;
			c->cur_in = a->cur_in;
			c->cur = a->cur;
			uint64_t before = a->placed;
			a->recording = 1;
			a->nrec = 0;
			for (unsigned i = 0; i < P; i++)
				pte_mfb_frame(a, items);
			k -= P;
			int ok = a->recording == 1 && a->placed <= a->S && a->nrec > 0;
			a->recording = 0;
			if (ok && a->placed > before) {
				c->valid = 1;
				c->P = P;
				c->pw = a->placed - before;
				c->nrec = a->nrec;
				memcpy(c->rec, a->rec, a->nrec * sizeof(a->rec[0]));
				a->pc_next = (a->pc_next + 1) % PTE_PERIODS;
				hit = c;
			}
		}
		if (hit)
			k -= repeat_period(a, hit, k);
	}
	while (k--)
		pte_mfb_frame(a, items);
}

void pte_mfb_flush(struct pte_mfb *a)
{
	if (a->cur_r)
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

void pte_mfb_end(struct pte_mfb *a)
{
	pte_mfb_flush(a);
	if (a->placed < a->S)
		pte_mfb_idle(a, a->S - a->placed);
	fold(a);
	uint64_t moved = 0;
	for (unsigned i = 0; i < a->nrun; i++)
		moved += a->run[i].len;
	a->t_words += moved;
	add_run(a, NULL, PTE_RUN_STALL, a->stall);
	add_run(a, NULL, PTE_RUN_IDLE, a->idle);
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

/* ---- MVB ----------------------------------------------------------- */

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
	v->placed += n;
}

void pte_mvb_begin(struct pte_mvb *v, uint64_t S)
{
	uint64_t carry[PTM_MAX_REGIONS + 1];
	uint64_t cs = v->carry_stall;
	memcpy(carry, v->carry, sizeof(carry));
	memset(v->carry, 0, sizeof(v->carry));
	memset(v->cnt, 0, sizeof(v->cnt));
	v->carry_stall = 0;
	v->S = S;
	v->placed = 0;
	v->stall = v->idle = 0;
	v->nrun = 0;
	for (unsigned k = 1; k <= v->R; k++)
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
		mvb_put(v, v->R, k / v->R);
		k %= v->R;
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
	uint64_t room = v->placed < v->S ? v->S - v->placed : 0;
	uint64_t k = n < room ? n : room;
	v->stall += k;
	v->carry_stall += n - k;
	v->placed += n;
	v->t_stall += n;
}

void pte_mvb_end(struct pte_mvb *v)
{
	pte_mvb_flush(v);
	if (v->placed < v->S) {
		v->idle += v->S - v->placed;
		v->placed = v->S;
	}
	v->nrun = 0;
	for (unsigned k = 1; k <= v->R; k++)
		if (v->cnt[k])
			v->run[v->nrun++] = (struct pte_run){ (uint32_t)v->cnt[k], PTE_RUN_MOVE,
							       (uint16_t)k };
	if (v->stall)
		v->run[v->nrun++] = (struct pte_run){ (uint32_t)v->stall, PTE_RUN_STALL, 0 };
	if (v->idle)
		v->run[v->nrun++] = (struct pte_run){ (uint32_t)v->idle, PTE_RUN_IDLE, 0 };
}

void pte_mvb_apply(const struct pte_mvb *v, const struct pte_run *r, struct ptm_bus_in *b)
{
	(void)v;
	if (r->kind == PTE_RUN_MOVE) {
		b->mvb_vld = r->idx >= 32 ? 0xffffffffu : ((1u << r->idx) - 1u);
		b->mvb_src_rdy = 1;
		b->mvb_dst_rdy = 1;
	} else {
		b->mvb_vld = r->kind == PTE_RUN_STALL ? 1u : 0u;
		b->mvb_src_rdy = r->kind == PTE_RUN_STALL;
		b->mvb_dst_rdy = 0;
	}
}
