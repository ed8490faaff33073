/*
 * The word builders of the simulated card (src/env/frames.c, agg.c, mvb.c).
 *
 * A reference packer in this file lays frames on an MFB bus word by word,
 * the plain way, and a reference probe counts them with the rules of
 * firmware-behavior.md 1.4 (words, stalls, SOFs, items, region cycles).
 * The builder gets the same frames, stalls and idle cycles and folds each
 * slice into runs; the probe counts over those runs must be identical, the
 * runs must be a valid frame sequence, and every slice must have exactly
 * its number of cycles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "env/env_priv.h"

struct counts {
	uint64_t cycles, words, stall, sof, items, region[PTM_MAX_REGIONS];
	uint64_t mvb_items, mvb_stall;
};

/* Reference probe: one call per cycle. */
struct probe {
	unsigned R, N;
	int open;
	struct counts c;
	int violations; /* SOF while open, EOF while closed */
};

static void probe_word(struct probe *p, int src, int dst, uint32_t sof, uint32_t eof,
		       const uint8_t *pos, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++) {
		p->c.cycles++;
		if (src && !dst)
			p->c.stall++;
		if (!(src && dst))
			continue;
		p->c.words++;
		int open = p->open;
		for (unsigned r = 0; r < p->R; r++) {
			int s = (sof >> r) & 1, e = (eof >> r) & 1;
			if (s && open)
				p->violations++;
			if (e && !open && !s)
				p->violations++;
			int vld = open || s;
			if (vld) {
				p->c.region[r]++;
				p->c.items += e ? (uint64_t)pos[r] + 1 : p->N;
			}
			if (s)
				p->c.sof++;
			open = (open || s) && !e;
		}
		p->open = open;
	}
}

/* Reference packer: the same placement rules as the builder, word by word. */
struct packer {
	unsigned R, N;
	struct probe *p;
	uint32_t sof, eof;
	uint8_t pos[PTM_MAX_REGIONS];
	unsigned r; /* next free region of the current word, 0 = none */
};

static void pk_flush(struct packer *k)
{
	if (!k->r)
		return;
	probe_word(k->p, 1, 1, k->sof, k->eof, k->pos, 1);
	k->sof = k->eof = 0;
	memset(k->pos, 0, sizeof(k->pos));
	k->r = 0;
}

static void pk_frame(struct packer *k, uint32_t items)
{
	uint32_t regions = (items + k->N - 1) / k->N;
	for (uint32_t i = 0; i < regions; i++) {
		if (i == 0)
			k->sof |= 1u << k->r;
		if (i == regions - 1) {
			k->eof |= 1u << k->r;
			k->pos[k->r] = (uint8_t)((items - 1) % k->N);
		}
		k->r++;
		if (k->r == k->R)
			pk_flush(k);
	}
}

static void probe_runs(struct probe *p, const struct pte_mfb *a)
{
	for (unsigned i = 0; i < a->nrun; i++) {
		const struct pte_run *r = &a->run[i];
		struct ptm_bus_in b;
		memset(&b, 0, sizeof(b));
		pte_mfb_apply(a, r, &b);
		uint8_t pos[PTM_MAX_REGIONS];
		for (unsigned j = 0; j < PTM_MAX_REGIONS; j++)
			pos[j] = (uint8_t)b.eof_pos[j];
		/* regions beyond the bus must stay 0 */
		assert_int_equal(b.sof >> a->R, 0);
		assert_int_equal(b.eof >> a->R, 0);
		probe_word(p, b.src_rdy, b.dst_rdy, b.sof, b.eof, pos, r->len);
	}
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void check_equal(const struct counts *x, const struct counts *y, unsigned R)
{
	assert_int_equal(x->words, y->words);
	assert_int_equal(x->stall, y->stall);
	assert_int_equal(x->sof, y->sof);
	assert_int_equal(x->items, y->items);
	for (unsigned r = 0; r < R; r++)
		assert_int_equal(x->region[r], y->region[r]);
}

/*
 * One random traffic pattern: per slice, frames of random or repeated
 * lengths (single and bulk calls), gaps (flush + idle) and stalls.  The
 * reference sees the words in the order the scheduler produced them.
 */
/* mode: 0 any length, 1 at most a region, 2 about whole words, 3 long
 * runs of a few lengths; em: slices per emission (runs built). */
static void run_pattern_em(unsigned R, unsigned N, uint64_t S, unsigned slices, int mode,
			   unsigned em)
{
	struct pte_mfb a;
	struct probe ref = { .R = R, .N = N }, got = { .R = R, .N = N };
	struct packer pk = { .R = R, .N = N, .p = &ref };

	assert_int_equal(pte_mfb_init(&a, R, N, S * em), 0);
	for (unsigned s = 0; s < slices; s++) {
		pte_mfb_begin(&a, S);
		/* the reference sees carried words where the builder put them:
		 * compare totals at the end, slice lengths here */
		while (pte_mfb_used(&a) < S) {
			uint64_t x = rnd() % 100;
			uint32_t items;
			if (mode == 0)
				items = 1 + (uint32_t)(rnd() % (3 * R * N));
			else if (mode == 1)
				items = 1 + (uint32_t)(rnd() % N);
			else if (mode == 2)
				items = (uint32_t)(R * N * (1 + rnd() % 4)) - (uint32_t)(rnd() % 3);
			else
				items = 1 + (uint32_t)(rnd() % 3) * (uint32_t)(R * N / 2 + 1);
			if (items == 0)
				items = 1;
			if (x < 60) {
				pte_mfb_frame(&a, items);
				pk_frame(&pk, items);
			} else if (x < 80) {
				uint64_t k = 1 + rnd() % (mode == 3 ? 3000 : 40);
				pte_mfb_frames(&a, items, k);
				for (uint64_t i = 0; i < k; i++)
					pk_frame(&pk, items);
			} else if (x < 90) {
				uint64_t n = 1 + rnd() % 20;
				pte_mfb_flush(&a);
				pk_flush(&pk);
				uint64_t u = pte_mfb_used(&a);
				if (u < S) {
					uint64_t m = n < S - u ? n : S - u;
					pte_mfb_idle(&a, m);
					probe_word(&ref, 0, 0, 0, 0, pk.pos, m);
				}
			} else {
				uint64_t n = 1 + rnd() % 20;
				pte_mfb_flush(&a);
				pk_flush(&pk);
				pte_mfb_stall(&a, n);
				probe_word(&ref, 1, 0, 0, 0, pk.pos, n);
			}
		}
		pte_mfb_close(&a);
		pk_flush(&pk);
		if ((s + 1) % em && s + 1 < slices)
			continue;
		pte_mfb_runs(&a);
		uint64_t total = 0;
		for (unsigned i = 0; i < a.nrun; i++)
			total += a.run[i].len;
		assert_int_equal(total, S * (s % em + 1));
		probe_runs(&got, &a);
	}
	/* drain what was carried past the last slice */
	for (int guard = 0; guard < 100 && (a.ncarry || a.carry_stall); guard++) {
		pte_mfb_begin(&a, S);
		pte_mfb_end(&a);
		probe_runs(&got, &a);
	}
	assert_int_equal(a.err, 0);
	assert_int_equal(got.violations, 0);
	assert_int_equal(ref.violations, 0);
	check_equal(&ref.c, &got.c, R);
	/* ground truth kept by the builder */
	assert_int_equal(a.t_items, ref.c.items);
	assert_int_equal(a.t_frames, ref.c.sof);
	pte_mfb_fini(&a);
}

static void run_pattern(unsigned R, unsigned N, uint64_t S, unsigned slices, int mode)
{
	run_pattern_em(R, N, S, slices, mode, 1);
}

static void test_mfb_random(void **state)
{
	(void)state;
	static const unsigned regions[] = { 1, 2, 3, 4, 8 };
	static const unsigned items[] = { 2, 4, 8, 16 };
	for (unsigned i = 0; i < 5; i++)
		for (unsigned j = 0; j < 4; j++)
			for (int mode = 0; mode < 3; mode++)
				run_pattern(regions[i], items[j], 64 + rnd() % 1000, 40, mode);
}

/* Long runs of equal frames (counted through their cycle of states) and
 * emissions of several slices, on buses up to 16 regions. */
static void test_mfb_long_runs(void **state)
{
	(void)state;
	static const unsigned regions[] = { 1, 2, 3, 4, 5, 8, 16 };
	for (unsigned i = 0; i < 7; i++)
		for (unsigned N = 2; N <= 16; N *= 2)
			for (unsigned em = 1; em <= 4; em += 3)
				for (int mode = 0; mode < 4; mode++)
					run_pattern_em(regions[i], N, 512 + rnd() % 2048, 24, mode, em);
}

static void test_mfb_short_slices(void **state)
{
	(void)state;
	/* slices shorter than a frame: words are carried over */
	for (unsigned R = 1; R <= 4; R++)
		run_pattern(R, 8, 3, 300, 0);
}

static void test_mfb_few_runs(void **state)
{
	(void)state;
	/* back-to-back equal frames fold into a handful of runs */
	struct pte_mfb a;
	assert_int_equal(pte_mfb_init(&a, 2, 8, 1024), 0);
	pte_mfb_begin(&a, 1024);
	pte_mfb_frames(&a, 67, 200); /* 268-byte completions */
	pte_mfb_flush(&a);
	pte_mfb_idle(&a, 1024 - pte_mfb_used(&a));
	pte_mfb_end(&a);
	assert_true(a.nrun <= 8);
	pte_mfb_fini(&a);
}

static void test_mvb(void **state)
{
	(void)state;
	struct pte_mvb v;
	pte_mvb_init(&v, 4);
	uint64_t items = 0, cycles = 0, moved = 0;
	for (int s = 0; s < 50; s++) {
		pte_mvb_begin(&v, 100);
		while (pte_mvb_used(&v) < 100) {
			uint64_t k = 1 + rnd() % 30;
			if (rnd() % 4 == 0) {
				pte_mvb_flush(&v);
				pte_mvb_stall(&v, 1 + rnd() % 5);
			} else {
				pte_mvb_items(&v, k);
				items += k;
			}
		}
		pte_mvb_end(&v);
		for (unsigned i = 0; i < v.nrun; i++) {
			struct ptm_bus_in b;
			memset(&b, 0, sizeof(b));
			pte_mvb_apply(&v, &v.run[i], &b);
			cycles += v.run[i].len;
			if (b.mvb_src_rdy && b.mvb_dst_rdy)
				moved += (uint64_t)v.run[i].len * (uint64_t)__builtin_popcount(b.mvb_vld);
		}
		assert_int_equal(cycles, 100u * (unsigned)(s + 1));
	}
	for (int g = 0; g < 100; g++) {
		pte_mvb_begin(&v, 100);
		pte_mvb_end(&v);
		for (unsigned i = 0; i < v.nrun; i++) {
			struct ptm_bus_in b;
			memset(&b, 0, sizeof(b));
			pte_mvb_apply(&v, &v.run[i], &b);
			if (b.mvb_src_rdy && b.mvb_dst_rdy)
				moved += (uint64_t)v.run[i].len * (uint64_t)__builtin_popcount(b.mvb_vld);
		}
	}
	assert_int_equal(moved, items);
	assert_int_equal(v.t_items, items);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mfb_random),
		cmocka_unit_test(test_mfb_long_runs),
		cmocka_unit_test(test_mfb_short_slices),
		cmocka_unit_test(test_mfb_few_runs),
		cmocka_unit_test(test_mvb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
