/*
 * pcie-telemetry: frames into the MFB word builder (see agg.c for the
 * table of words and how it is folded into runs).
 *
 * A frame is placed as the MFB specification packs them: it starts at the
 * first item of a region, in the region after the previous frame's end
 * when it is ready at once, otherwise at region 0 of a new word.  What it
 * does is remembered per state (memoized frames, below), so that a frame
 * costs a lookup and a count.
 */
#include <string.h>

#include "env/env_priv.h"
#include "env/mfb_priv.h"

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
	pte_mfb_put(a, &a->cur, a->cur_in, out, 1);
	memset(&a->cur, 0, sizeof(a->cur));
	a->cur_r = 0;
	a->hs_ok = 0;
}

/* One frame, its words put in order (they may cross the slice's end). */
static void frame_slow(struct pte_mfb *a, uint32_t items)
{
	struct mfb_st s = { a->cur, a->cur_r, a->cur_in };
	struct wput w[3];
	unsigned nw = frame_words(a->R, a->N, &s, items, w);

	for (unsigned i = 0; i < nw; i++)
		pte_mfb_put(a, &w[i].p, w[i].in, w[i].out, w[i].n);
	a->cur = s.cur;
	a->cur_r = s.r;
	a->cur_in = s.in;
	a->hs_ok = 0;
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
 * beyond the frames are zero), compared word by word without a copy. */
_Static_assert(sizeof(struct pte_pat) == 24, "a word is three 64-bit words");
static inline int pat_same(const struct pte_pat *x, const struct pte_pat *y)
{
	const unsigned char *p = (const void *)x, *q = (const void *)y;
	uint64_t a0, a1, a2, b0, b1, b2;
	memcpy(&a0, p, 8);
	memcpy(&b0, q, 8);
	memcpy(&a1, p + 8, 8);
	memcpy(&b1, q + 8, 8);
	memcpy(&a2, p + 16, 8);
	memcpy(&b2, q + 16, 8);
	return ((a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2)) == 0;
}

static inline int fx_key_eq(const struct pte_fx *f, const struct pte_mfb *a, unsigned in,
			    uint32_t items, uint32_t k)
{
	return f->items == items && f->k == k && f->r0 == a->cur_r && f->in0 == in &&
	       pat_same(&f->cur0, &a->cur);
}

/* The slot of a key: a hash of the state (the word under construction,
 * its next free region r, the frame state in of a key: 0 when r is 0),
 * then of items and k with it.  The builder keeps the hash of the state
 * an effect ended in (hs_ok). */
static inline uint64_t hstate_of(const struct pte_pat *cur, unsigned r, unsigned in)
{
	uint64_t w[3];
	memcpy(w, cur, sizeof(w));
	return (w[0] * 0x9E3779B97F4A7C15ull) ^ (w[1] * 0xC2B2AE3D27D4EB4Full) ^
	       (w[2] * 0x165667B19E3779F9ull) ^ (r << 1 | in);
}

static inline uint64_t fx_hstate(const struct pte_mfb *a, unsigned in)
{
	return a->hs_ok ? a->hs : hstate_of(&a->cur, a->cur_r, in);
}

static inline unsigned fx_hfin(uint64_t hs, uint32_t items, uint32_t k)
{
	uint64_t h = hs ^ (uint64_t)items << 8 ^ (uint64_t)k << 40;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return (unsigned)h & (PTE_FX_SLOTS - 2);
}

static inline unsigned fx_hash(const struct pte_mfb *a, unsigned in, uint32_t items, uint32_t k)
{
	return fx_hfin(fx_hstate(a, in), items, k);
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
	f->w[i].possum += w->n * pte_pos_sum(&w->p, R);
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
	f->k = 1;
	f->cur0 = a->cur;
	f->r0 = (uint8_t)a->cur_r;
	f->in0 = (uint8_t)in;
	for (unsigned j = 0; j < nw; j++)
		fx_addw(f, &w[j], a->R);
	f->cur1 = s.cur;
	f->r1 = (uint8_t)s.r;
	f->in1 = s.in;
	f->hs1 = hstate_of(&s.cur, s.r, s.r ? s.in : 0);
}

/* A free way of a set (no counts, not on the path of the frames being
 * placed), the older one first; NULL when there is none. */
static struct pte_fx *fx_free_way(const struct pte_mfb *a, struct pte_fx *set)
{
	int free0 = !set[0].cnt && set[0].pin != a->walk, free1 = !set[1].cnt && set[1].pin != a->walk;
	unsigned w = free0 && (!free1 || set[0].age <= set[1].age) ? 0 : 1;
	return (w ? free1 : free0) ? &set[w] : NULL;
}

/* Not remembered: computed into a free way of its set. */
static __attribute__((noinline)) struct pte_fx *fx_miss(struct pte_mfb *a, struct pte_fx *set,
							 unsigned in, uint32_t items)
{
	struct pte_fx *f = fx_free_way(a, set);
	if (!f)
		return NULL;
	fx_compute(a, in, items, f);
	f->age = ++a->fx_age;
	return f;
}

/* The set and frame state of the key (current state, items, k). */
static inline struct pte_fx *fx_set(const struct pte_mfb *a, uint32_t items, uint32_t k,
				    unsigned *in)
{
	/* an empty word under construction starts without an open frame */
	*in = a->cur_r ? a->cur_in : 0;
	return (struct pte_fx *)&a->fx[fx_hash(a, *in, items, k)];
}

/* The remembered effect of one frame from the current state (frame
 * state in, its set given), or NULL. */
static inline struct pte_fx *fx_get_in(struct pte_mfb *a, struct pte_fx *set, unsigned in,
				       uint32_t items)
{
	if (set[0].used && fx_key_eq(&set[0], a, in, items, 1))
		return &set[0];
	if (set[1].used && fx_key_eq(&set[1], a, in, items, 1))
		return &set[1];
	return fx_miss(a, set, in, items);
}

/* The same, its set looked up. */
static inline struct pte_fx *fx_get(struct pte_mfb *a, uint32_t items)
{
	unsigned in;
	struct pte_fx *set = fx_set(a, items, 1, &in);

	return fx_get_in(a, set, in, items);
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
			struct pte_patent *e = pte_mfb_find(a, &p, f->w[i].in, f->w[i].out);
			if (!e)
				break;
			f->ent[i] = (uint8_t)(e - a->ent);
		}
		if (i == f->nw)
			break;
		pte_mfb_fold(a); /* an empty table takes every effect */
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
		a->t_frames += n * f->k;
		a->t_items += n * f->k * f->items;
	}
}

/* Set the state to the end of effect f. */
static inline void fx_state(struct pte_mfb *a, const struct pte_fx *f)
{
	a->cur = f->cur1;
	a->cur_r = f->r1;
	a->cur_in = f->in1;
	a->hs = f->hs1;
	a->hs_ok = 1;
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
 * The effects and their counts into list[] and cnt[] (n of them), the
 * words they take, the one they end with (the state after), the frame
 * state after their last word.  0 when there is no such cycle, one of its
 * effects is gone, or k is shorter than prefix and cycle.
 */
static inline __attribute__((always_inline)) int
fx_compose(struct pte_mfb *a, struct pte_fx *first, uint64_t k, struct pte_fx **list,
	   uint64_t *cnt, unsigned *np, uint64_t *words, struct pte_fx **last, uint8_t *tout)
{
	unsigned j = first->cyc_pre, m = first->cyc_len, n = j + m;

	if (!m || k < n)
		return 0;
	uint64_t reps = (k - j) / m, rem = (k - j) % m;
	*words = 0;
	for (unsigned i = 0; i < n; i++) {
		list[i] = &a->fx[first->cyc_fx[i]];
		if (list[i]->age != first->cyc_age[i])
			return 0;
		cnt[i] = i < j ? 1 : reps + (i - j < rem);
		*words += cnt[i] * list[i]->words;
	}
	/* the frame state after the last word: of the last effect with words,
	 * backwards from the end through the cycle (a cycle always finishes a
	 * word) */
	unsigned end = rem ? j + (unsigned)rem - 1 : n - 1;
	*tout = list[end]->nw ? list[end]->tout : 0xff; /* d = 0 below, mostly */
	for (unsigned d = 1; d < m && *tout == 0xff; d++) {
		unsigned i = j + (end - j + m - d) % m;
		if (list[i]->nw)
			*tout = list[i]->tout;
	}
	*np = n;
	*last = list[end];
	return 1;
}

/* k frames through the cycle first's last walk found (fx_compose), when
 * their words fit; 0 otherwise.  What fx_count() of each effect would
 * do, with the sums over the cycle added once: its effects are all of
 * one frame of first's length, so k frames, k * items items and the
 * words fx_compose summed. */
static int fx_cycle(struct pte_mfb *a, struct pte_fx *first, uint64_t k)
{
	struct pte_fx *list[PTE_FX_CYC], *last;
	uint64_t cnt[PTE_FX_CYC], words;
	unsigned n;
	uint8_t tout;

	if (!fx_compose(a, first, k, list, cnt, &n, &words, &last, &tout) ||
	    a->placed + words > a->S)
		return 0;
	unsigned stale = 0; /* effects without their entries in this generation */
	for (unsigned i = 0; i < n; i++)
		stale |= list[i]->nw && list[i]->gen != a->gen;
	if (stale && !fx_reserve_all(a, list, n))
		return 0;
	uint8_t ts = a->tstate; /* the last effect with words sets it (fx_count) */
	for (unsigned i = 0; i < n; i++) {
		struct pte_fx *f = list[i];
		if (!f->nw)
			continue;
		if (f->cnt == 0)
			a->act[a->nact++] = (uint16_t)(f - a->fx);
		f->cnt += cnt[i];
		ts = f->tout;
	}
	a->tstate = tout != 0xff ? tout : ts;
	a->placed += words;
	a->t_frames += k;
	a->t_items += k * first->items;
	fx_state(a, last);
	return 1;
}

/* The effect of k frames composed of the cycle of first (the effect of
 * one frame from the current state, frame state in), into a free way of
 * set: NULL when there is none, no cycle is known or the words do not
 * fit in an effect. */
static struct pte_fx *fx_build_k(struct pte_mfb *a, struct pte_fx *set, struct pte_fx *first,
				 unsigned in, uint32_t items, uint64_t k)
{
	struct pte_fx *list[PTE_FX_CYC], *last;
	uint64_t cnt[PTE_FX_CYC], words;
	unsigned n;
	uint8_t tout;

	if (!fx_compose(a, first, k, list, cnt, &n, &words, &last, &tout))
		return NULL;
	struct pte_fx t;
	memset(&t, 0, sizeof(t));
	for (unsigned i = 0; i < n; i++)
		for (unsigned w = 0; w < list[i]->nw; w++) {
			const struct pte_fxw *x = &list[i]->w[w];
			unsigned q;
			for (q = 0; q < t.nw; q++)
				if (t.w[q].sof == x->sof && t.w[q].eof == x->eof && t.w[q].in == x->in &&
				    t.w[q].out == x->out)
					break;
			if (q == t.nw) {
				if (t.nw == PTE_FX_WORDS)
					return NULL;
				t.w[t.nw++] = (struct pte_fxw){ x->sof, x->eof, x->in, x->out, 0, 0 };
			}
			t.w[q].n += x->n * cnt[i];
			t.w[q].possum += x->possum * cnt[i];
		}
	struct pte_fx *f = fx_free_way(a, set);
	if (!f)
		return NULL;
	t.used = 1;
	t.items = items;
	t.k = (uint32_t)k;
	t.cur0 = a->cur;
	t.r0 = (uint8_t)a->cur_r;
	t.in0 = (uint8_t)in;
	t.cur1 = last->cur1;
	t.r1 = last->r1;
	t.in1 = last->in1;
	t.hs1 = last->hs1;
	t.tout = tout == 0xff ? 0 : tout;
	t.words = words;
	*f = t;
	f->age = ++a->fx_age;
	return f;
}

/* k frames from the current state as one remembered effect, composed of
 * the effects of one frame: NULL when they cannot be (no cycle known yet,
 * more words than an effect holds, no free slot).  *one: NULL, or (when
 * it returns NULL) the effect of one frame from the current state, which
 * nothing has moved since it was looked up. */
static struct pte_fx *fx_getk(struct pte_mfb *a, uint32_t items, uint64_t k, struct pte_fx **one)
{
	const unsigned in = a->cur_r ? a->cur_in : 0; /* as fx_set */
	const uint64_t hs = fx_hstate(a, in);
	struct pte_fx *set = &a->fx[fx_hfin(hs, items, (uint32_t)k)], *first, *f;

	*one = NULL;
	if (set[0].used && fx_key_eq(&set[0], a, in, items, (uint32_t)k))
		return &set[0];
	if (set[1].used && fx_key_eq(&set[1], a, in, items, (uint32_t)k))
		return &set[1];
	if (k > UINT32_MAX || !(first = fx_get_in(a, &a->fx[fx_hfin(hs, items, 1)], in, items)))
		return NULL;
	/* only for calls that come again: the first time the frames go
	 * through their cycle (fx_cycle) and first remembers k */
	if (first->last_k != k) {
		first->last_k = (uint32_t)k;
		*one = first;
		return NULL;
	}
	f = fx_build_k(a, set, first, in, items, k);
	if (!f)
		*one = first;
	return f;
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
 * in the slice, from effect f (the first, found by fx_frames); returns the
 * frames placed.  The effects of this walk are pinned in their slots and
 * numbered along path[]: when the next one is on the path already, the
 * state has come back, and the cycle from there is counted as often as
 * the frames and the slice allow.  The first effect keeps what the walk
 * found, for the next k frames from it (fx_cycle).
 */
static __attribute__((noinline)) uint64_t fx_walk(struct pte_mfb *a, struct pte_fx *f,
						  uint64_t k)
{
	struct pte_fx *path[PTE_FX_PATH], *first = f;
	uint64_t cw[PTE_FX_PATH + 1]; /* words before path[i] */
	unsigned np = 0;
	int cycled = 0;
	uint64_t done = 0;

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

/* Up to k frames through remembered effects (their words fit in the
 * slice): through the cycle the last walk from the first effect found
 * when it is still there, else a walk.  Returns the frames placed.  one:
 * the first effect when the caller has it at hand, else NULL. */
static inline uint64_t fx_frames(struct pte_mfb *a, uint32_t items, uint64_t k,
				 struct pte_fx *one)
{
	a->walk++;
	struct pte_fx *f = one ? one : fx_get(a, items);
	if (f && fx_cycle(a, f, k))
		return k;
	return fx_walk(a, f, k);
}

/* The counted effects into the table (before it is read). */
void pte_fx_expand(struct pte_mfb *a)
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

/* k frames of one length placed now (after the frames held back). */
static inline __attribute__((always_inline)) void place_frames(struct pte_mfb *a, uint32_t items,
							      uint64_t k)
{
	if (k == 1) {
		a->walk++; /* no walk: nothing pinned */
		struct pte_fx *f = fx_get(a, items);
		if (f && a->placed + f->words <= a->S)
			fx_step(a, f);
		else
			frame_slow(a, items);
		return;
	}
	a->walk++;
	struct pte_fx *one, *f = fx_getk(a, items, k, &one);
	if (f && a->placed + f->words <= a->S) {
		fx_step(a, f);
		return;
	}
	while (k) {
		uint64_t done = fx_frames(a, items, k, one);
		one = NULL; /* the state has moved */
		k -= done;
		if (!k)
			break;
		/* the slice is full (the words go on into the next one) or the
		 * effect is not at hand: one frame the plain way */
		frame_slow(a, items);
		k--;
	}
}

/* The effect of finishing the word that effect f leaves open (NULL:
 * f leaves none), looked up from f's end state, or the one f remembers
 * from the last lookup while its slot holds it (the lookup would find
 * it: a key is in one slot at most, and a found effect changes
 * nothing); f stays pinned.  0 when there is no such effect. */
static int fx_after(struct pte_mfb *a, struct pte_fx *f, struct pte_fx **flush)
{
	*flush = NULL;
	if (!f->r1)
		return 1;
	f->pin = a->walk;
	if (f->aft && a->fx[f->aft - 1].age == f->aft_age) {
		*flush = &a->fx[f->aft - 1];
		return 1;
	}
	struct mfb_st keep = { a->cur, a->cur_r, a->cur_in };
	const uint64_t hs = a->hs;
	const uint8_t hs_ok = a->hs_ok;
	fx_state(a, f);
	*flush = fx_get(a, 0);
	a->cur = keep.cur;
	a->cur_r = keep.r;
	a->cur_in = keep.in;
	a->hs = hs;
	a->hs_ok = hs_ok;
	if (!*flush)
		return 0;
	f->aft = (uint16_t)(*flush - a->fx + 1);
	f->aft_age = (*flush)->age;
	return 1;
}

void pte_mfb_frames_apart(struct pte_mfb *a, uint32_t items, uint64_t k, uint64_t idle)
{
	struct pte_fx *f, *f0, *list[2];

	if (items == 0)
		items = 1;
	pte_mfb_flush(a);
	a->walk++;
	f = fx_get(a, items);
	if (f && k && fx_after(a, f, &f0)) {
		uint64_t words = k * f->words + (f0 ? (k - 1) * f0->words : 0);
		list[0] = f;
		list[1] = f0;
		if (a->placed + words + idle <= a->S && fx_reserve_all(a, list, f0 ? 2 : 1)) {
			if (f0 && k > 1)
				fx_count(a, f0, k - 1);
			fx_count(a, f, k);
			fx_state(a, f);
			pte_mfb_idle(a, idle);
			return;
		}
	}
	/* the plain way: the gaps' order does not matter while all fits */
	for (uint64_t i = 0; i < k; i++) {
		pte_mfb_flush(a);
		place_frames(a, items, 1);
	}
	pte_mfb_idle(a, idle);
}

void pte_mfb_place(struct pte_mfb *a)
{
	unsigned n = a->npend;

	a->npend = 0;
	memset(a->pend_hint, 0, sizeof(a->pend_hint)); /* nothing held back */
	for (unsigned i = 0; i < n; i++)
		place_frames(a, a->pend[i].items, a->pend[i].k);
}

/* k > 0 frames of items > 0 held back: counted with the frames of that
 * length, else as a new length (the oldest ones placed when there are
 * PTE_PEND lengths already).  The hint finds the length in one look when
 * it came before (lengths alternate in a few); a hint of 0 says that no
 * length held back has its hash (pte_mfb_place clears them), so a new
 * length is added without a search. */
static inline void pend_add(struct pte_mfb *a, uint32_t items, uint64_t k)
{
	uint8_t *hint = &a->pend_hint[(items * 0x9E3779B1u) >> 27 & (PTE_PEND_HINT - 1)];
	unsigned i = *hint;

	if (i && i <= a->npend && a->pend[i - 1].items == items) {
		a->pend[i - 1].k += k;
		return;
	}
	if (!i)
		i = a->npend;
	else
		for (i = 0; i < a->npend; i++)
			if (a->pend[i].items == items)
				break;
	if (i == a->npend) {
		if (a->npend == PTE_PEND) {
			pte_mfb_place(a);
			i = 0;
		}
		a->pend[i] = (struct pte_pend){ items, 0 };
		a->npend = i + 1;
	}
	a->pend[i].k += k;
	*hint = (uint8_t)(i + 1);
}

void pte_mfb_frames(struct pte_mfb *a, uint32_t items, uint64_t k)
{
	if (k)
		pend_add(a, items ? items : 1, k);
}

uint64_t pte_mfb_used(const struct pte_mfb *a)
{
	if (!a->npend)
		return a->placed + (a->cur_r ? 1u : 0u);
	uint64_t r = a->cur_r;
	for (unsigned i = 0; i < a->npend; i++)
		r += a->pend[i].k * pte_ucdiv(a->pend[i].items, a->N);
	return a->placed + pte_ucdiv(r, a->R);
}

void pte_mfb_frame(struct pte_mfb *a, uint32_t items)
{
	pte_mfb_frames(a, items, 1);
}

/* The word under construction ends, nothing held back.  src: NULL, or
 * the effect whose end state this is, which remembers the flush's effect
 * (fx_after's aft) while its slot holds it: what the lookup would find. */
static void flush_from(struct pte_mfb *a, struct pte_fx *src)
{
	if (!a->cur_r)
		return;
	a->walk++;
	struct pte_fx *f = NULL;
	if (src && src->aft && a->fx[src->aft - 1].age == src->aft_age) {
		f = &a->fx[src->aft - 1];
	} else if ((f = fx_get(a, 0)) != NULL && src) {
		src->aft = (uint16_t)(f - a->fx + 1);
		src->aft_age = f->age;
	}
	if (f && a->placed + f->words <= a->S)
		fx_step(a, f);
	else
		finish_word(a, 0);
}

void pte_mfb_flush_now(struct pte_mfb *a)
{
	if (a->npend)
		pte_mfb_place(a);
	flush_from(a, NULL);
}

/*
 * k frames of one length and a flush from the empty state, nothing held
 * back (pend_add() and pte_mfb_flush()): a bus that sends its bursts
 * apart does this again and again, mostly with the same frames, so the
 * effect that placed them the last time (remembered in a->burst) is taken
 * again while its slot holds it and its key is this one (what
 * place_frames() would find), and the flush's through flush_from().
 */
static __attribute__((noinline)) void replay_burst(struct pte_mfb *a, uint32_t items, uint64_t k)
{
	struct pte_burst *m = &a->burst[(items + k * 0x9E3779B1u) >> 7 & (PTE_BURSTS - 1)];
	struct pte_fx *f = m->slot ? &a->fx[m->slot - 1] : NULL;

	if (f && f->age == m->age && (uint64_t)f->k == k && fx_key_eq(f, a, 0, items, f->k) &&
	    a->placed + f->words <= a->S) {
		a->walk++; /* as place_frames() */
		fx_step(a, f);
		flush_from(a, f);
		return;
	}
	a->pend[0] = (struct pte_pend){ items, k }; /* as pend_add() */
	a->npend = 1;
	pte_mfb_flush_now(a);
	/* the state is the empty one again: the effect of the key, if any */
	if (k > UINT32_MAX)
		return;
	struct pte_fx *set = &a->fx[fx_hash(a, 0, items, (uint32_t)k)];
	for (unsigned w = 0; w < 2; w++)
		if (set[w].used && fx_key_eq(&set[w], a, 0, items, (uint32_t)k)) {
			m->slot = (uint16_t)(&set[w] - a->fx + 1);
			m->age = set[w].age;
		}
}

/* The log of a time side (wtime.c) on its word builder: the same calls,
 * in order. */
int pte_mfb_replay(struct pte_mfb *b, const struct pte_wop *log, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct pte_wop *o = &log[i];
		if (o->op == PTE_WOP_FRAMES) { /* most of them; items > 0, k > 0 */
			/* a burst and a flush from the empty state; the flush
			 * that follows has nothing left to do */
			if (!b->npend && !b->cur_r && i + 1 < n && log[i + 1].op == PTE_WOP_FLUSH)
				replay_burst(b, o->items, o->k);
			else
				pend_add(b, o->items, o->k);
			continue;
		}
		switch ((enum pte_wop_kind)o->op) {
		case PTE_WOP_BEGIN:
			pte_mfb_begin(b, o->n);
			break;
		case PTE_WOP_FRAMES:
			break;
		case PTE_WOP_APART:
			pte_mfb_frames_apart(b, o->items, o->k, o->n);
			break;
		case PTE_WOP_FLUSH:
			pte_mfb_flush(b);
			break;
		case PTE_WOP_STALL:
			pte_mfb_stall(b, o->n);
			break;
		case PTE_WOP_IDLE:
			pte_mfb_idle(b, o->n);
			break;
		case PTE_WOP_CLOSE:
			pte_mfb_close(b);
			break;
		}
	}
	return b->err;
}
