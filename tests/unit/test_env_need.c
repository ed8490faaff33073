/*
 * What read TLPs need of the PTC (src/env/need.h): the most a port's
 * reads may need, which the scenario check holds the PTC's buffers to, is
 * exactly the most that TLPs need
 *   - when every request start its strides reach is walked TLP by TLP,
 *     without skipping the pages that repeat each other, and
 *   - in a long random stream of requests as the card's DMA port makes
 *     them (random sizes, addresses going on by their strides from a
 *     4 KiB boundary): never more (else a scenario that works would be
 *     refused), and as much once the stream has had time to reach every
 *     start.
 * The words a TLP needs depend on where it is in a host completion block:
 * they are known only when the blocks divide pages (else 0: not checked).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "env/need.h"

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned pow2_in(uint64_t *s, unsigned lo_log2, unsigned hi_log2)
{
	return 1u << (lo_log2 + (unsigned)(next(s) % (hi_log2 - lo_log2 + 1)));
}

/* A random endpoint geometry and read port. */
static void draw(uint64_t *s, struct pte_read_geom *g, struct pte_port_cfg *p)
{
	g->mrrs = pow2_in(s, 7, 12);
	g->rcb = pow2_in(s, 6, 7);
	g->cpl_bytes = g->rcb * (unsigned)(1 + next(s) % 8);
	g->word_bytes = pow2_in(s, 4, 9);
	memset(p, 0, sizeof(*p));
	p->read_gbps = -1;
	p->align = pow2_in(s, 2, 12);
	p->read_size.n = 1 + (unsigned)(next(s) % 4);
	for (unsigned i = 0; i < p->read_size.n; i++) {
		p->read_size.size[i] = 1 + (uint32_t)(next(s) % (next(s) % 2 ? 600 : 6000));
		p->read_size.weight[i] = 1.0 / p->read_size.n;
	}
}

static void tlp_max(const struct pte_read_geom *g, uint64_t a, uint32_t size, uint32_t *h,
		    uint32_t *w)
{
	for (uint32_t off = 0; off < size;) {
		uint32_t c = pte_read_chunk(a + off, size - off, g->mrrs);
		struct tlp_need n;
		pte_tlp_need(g, a + off, c, &n);
		*h = n.h > *h ? n.h : *h;
		*w = n.w > *w ? n.w : *w;
		off += c;
	}
}

static uint32_t gcd(uint32_t a, uint32_t b)
{
	return b ? gcd(b, a % b) : a;
}

static void test_walk_and_stream(void **state)
{
	(void)state;
	uint64_t s = 0x9E3779B97F4A7C15ull;

	for (int k = 0; k < 300; k++) {
		struct pte_read_geom g;
		struct pte_port_cfg p;
		draw(&s, &g, &p);
		uint32_t H = 0, W = 0, h = 0, w = 0, step = 4096;
		pte_read_need_max(&g, &p, &H, &W);
		/* every start, every TLP */
		for (unsigned i = 0; i < p.read_size.n; i++)
			step = gcd(step, pte_stride_of(p.read_size.size[i], p.align) % 4096u);
		for (uint32_t r = 0; r < 4096; r += step)
			for (unsigned i = 0; i < p.read_size.n; i++)
				tlp_max(&g, 0x100000000ull + r, p.read_size.size[i], &h, &w);
		/* the words, where the completion blocks divide pages */
		const int words = 4096 % g.cpl_bytes == 0;
		assert_int_equal(h, H);
		assert_int_equal(words ? w : 0, W);
		/* a random stream */
		uint64_t a = 0x100000000ull;
		h = w = 0;
		for (int n = 0; n < 20000; n++) {
			uint32_t size = p.read_size.size[next(&s) % p.read_size.n];
			tlp_max(&g, a, size, &h, &w);
			a += pte_stride_of(size, p.align);
		}
		assert_true(h <= H);
		assert_true(!words || w <= W);
		if (4096 / step <= 16) {
			assert_int_equal(h, H);
			assert_int_equal(words ? w : 0, W);
		}
	}
}

/* A port that reads nothing needs nothing; the maxima only grow. */
static void test_no_reads(void **state)
{
	(void)state;
	struct pte_read_geom g = { 512, 64, 256, 64 };
	struct pte_port_cfg p;
	memset(&p, 0, sizeof(p));
	p.align = 64;
	p.read_size.n = 1;
	p.read_size.size[0] = 4096;
	p.read_size.weight[0] = 1;
	uint32_t h = 3, w = 100;
	pte_read_need_max(&g, &p, &h, &w);
	assert_int_equal(h, 3);
	assert_int_equal(w, 100);
	p.read_gbps = 10;
	pte_read_need_max(&g, &p, &h, &w);
	assert_int_equal(h, 8);
	assert_int_equal(w, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_and_stream),
		cmocka_unit_test(test_no_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
