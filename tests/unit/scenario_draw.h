/*
 * Scenario files nobody wrote by hand: the draws of one random
 * configuration over the generics the firmware allows and the endpoint
 * and DMA keys of docs/formats/scenario.md, on top of a random preset
 * (the seed in *s; the same seed draws the same text).  Shared by the
 * random configurations and the cache test (test_env_configs.c,
 * test_env_caches.c).  Include after cmocka.h.
 */
#ifndef PT_TEST_SCENARIO_DRAW_H
#define PT_TEST_SCENARIO_DRAW_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* splitmix64: the draws of one configuration. */
static inline uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static inline unsigned one_of(uint64_t *s, const unsigned *v, size_t n)
{
	return v[next(s) % n];
}

#define ONE_OF(s, ...) \
	one_of(s, (const unsigned[]){ __VA_ARGS__ }, sizeof((unsigned[]){ __VA_ARGS__ }) / sizeof(unsigned))

/* With probability 1/k. */
static inline int maybe(uint64_t *s, unsigned k)
{
	return next(s) % k == 0;
}

struct text {
	char b[4096];
	size_t n;
};

static inline void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(t->b + t->n, sizeof(t->b) - t->n, fmt, ap);
	va_end(ap);
	assert_true(k > 0 && (size_t)k < sizeof(t->b) - t->n);
	t->n += (size_t)k;
}

/* put() of two values drawn in the order written: the order in which the
 * arguments of a call are evaluated is the compiler's (gcc and clang
 * differ), and every build must draw the same scenarios. */
#define PUT2(t, fmt, x, y)              \
	do {                            \
		unsigned x_ = (x);      \
		unsigned y_ = (y);      \
		put(t, fmt, x_, y_);    \
	} while (0)

/* log2 of the items of a region (the EOF_POS width rule). */
static inline unsigned pos_width(unsigned bytes, unsigned item)
{
	unsigned n = bytes / item, w = 0;
	while ((1u << w) < n)
		w++;
	return w;
}

/* [card] and [generics]: a preset, clocks, the bus geometry. */
static inline void draw_card(uint64_t *s, struct text *t)
{
	static const char *base[] = { "idle", "rx-line-rate", "tx-64B", "tx-1500B", "tx-4K",
				      "mixed", "tags-starved", "completion-space-starved",
				      "slow-dma-consumer", "two-endpoints" };
	const char *b = base[next(s) % 10];
	put(t, "[card]\nbase = %s\nseed = %u\n", b, (unsigned)(next(s) % 1000) + 1);
	if (maybe(s, 3))
		put(t, "pcie_clock_mhz = %u\n", ONE_OF(s, 250, 400, 500));
	if (maybe(s, 3))
		put(t, "dma_clock_mhz = %u\n", ONE_OF(s, 100, 200, 250));
	if (maybe(s, 3))
		put(t, "mi_clock_mhz = %u\n", ONE_OF(s, 50, 100, 200, 250));
	unsigned item = ONE_OF(s, 1, 2, 4, 4, 8);
	unsigned rq = ONE_OF(s, 16, 32, 32, 64), rc = ONE_OF(s, 16, 32, 32, 64);
	unsigned up = ONE_OF(s, 8, 16, 32, 64), dn = ONE_OF(s, 8, 16, 32, 64);
	if (up < item)
		up = item;
	if (dn < item)
		dn = item;
	PUT2(t, "[generics]\nPCIE_ENDPOINTS = %u\nDMA_PORTS = %u\n", ONE_OF(s, 1, 1, 2, 3),
	     ONE_OF(s, 1, 1, 2, 3, 4));
	unsigned rq_regions = ONE_OF(s, 1, 2, 4, 8), rc_regions = ONE_OF(s, 1, 2, 4, 8);
	put(t, "PCIE_RQ_MFB_REGIONS = %u\nPCIE_RC_MFB_REGIONS = %u\n", rq_regions, rc_regions);
	PUT2(t, "DMA_UP_MFB_REGIONS = %u\nDMA_DOWN_MFB_REGIONS = %u\n", ONE_OF(s, 1, 2, 4, 8),
	     ONE_OF(s, 1, 2, 4, 8));
	put(t, "MFB_ITEM_BYTES = %u\n", item);
	put(t, "PCIE_RQ_MFB_REGION_BYTES = %u\nPCIE_RC_MFB_REGION_BYTES = %u\n", rq, rc);
	put(t, "DMA_UP_MFB_REGION_BYTES = %u\nDMA_DOWN_MFB_REGION_BYTES = %u\n", up, dn);
	put(t, "PCIE_EOF_POS_WIDTH = %u\nDMA_EOF_POS_WIDTH = %u\n",
	    pos_width(rq > rc ? rq : rc, item), pos_width(up > dn ? up : dn, item));
	PUT2(t, "CNT_WIDTH = %u\nDRAIN_PERIOD = %u\n", ONE_OF(s, 33, 48, 64),
	     ONE_OF(s, 1024, 2048, 4096, 8192));
	if (maybe(s, 3))
		put(t, "TAG_CAPACITY = %u\n", ONE_OF(s, 16, 32, 64, 256));
	if (maybe(s, 3)) {
		/* at least the words of one read TLP of the largest MRRS, in
		 * words or in completions of 128 bytes, whichever is more (or
		 * no read could go out, and the scenario is refused) */
		unsigned words = ONE_OF(s, 32, 64, 512, 4096), per = 4096 / (rc_regions * rc);
		unsigned least = (per > 32 ? per : 32) + 2;
		put(t, "STFIFO_CAPACITY = %u\n", words > least ? words : least);
	}
}

/* [endpoint]: link and PTC keys, each one now and then. */
static inline void draw_endpoint(uint64_t *s, struct text *t)
{
	unsigned mps = ONE_OF(s, 128, 256, 512), rcb = ONE_OF(s, 64, 128);
	unsigned lat = ONE_OF(s, 100, 800, 3000);

	put(t, "[endpoint]\nmps = %u\nrcb = %u\nhost_latency_ns = %u\n", mps, rcb, lat);
	put(t, "host_latency_jitter_ns = %u\n", ONE_OF(s, 0, 10, 50));
	put(t, "host_cpl_bytes = %u\n", maybe(s, 2) ? 0 : (mps == 128 ? 128 : ONE_OF(s, 128, 256)));
	if (maybe(s, 3))
		PUT2(t, "link_gen = %u\nlink_width = %u\n", ONE_OF(s, 1, 3, 4, 5), ONE_OF(s, 4, 8, 16));
	unsigned mrrs = 512;
	if (maybe(s, 3)) {
		mrrs = ONE_OF(s, 128, 512, 1024, 4096);
		put(t, "mrrs = %u\n", mrrs);
	}
	if (maybe(s, 4))
		put(t, "ext_tag = no\n");
	if (maybe(s, 4)) {
		/* at least the entries of one read TLP (else refused) */
		unsigned h = ONE_OF(s, 24, 64, 256), least = mrrs / rcb + 1;
		put(t, "cpl_headers = %u\n", h > least ? h : least);
	}
	if (maybe(s, 3))
		PUT2(t, "tag_ready_delay = %u\nptc_read_group = %u\n", ONE_OF(s, 0, 4, 20),
		     ONE_OF(s, 1, 8, 32));
	if (maybe(s, 3))
		put(t, "host_latency_dist = %s\n", maybe(s, 2) ? "fixed" : "exponential");
	if (maybe(s, 4))
		PUT2(t, "tx_buffer_bytes = %u\nptc_requests = %u\n", ONE_OF(s, 256, 65536),
		     ONE_OF(s, 1, 8, 256));
	if (maybe(s, 4))
		PUT2(t, "down_fifo_words = %u\ndown_fifo_headers = %u\n", ONE_OF(s, 8, 512),
		     ONE_OF(s, 2, 128));
}

/* [dma]: rates, sizes, alignment and readiness of every port. */
static inline void draw_dma(uint64_t *s, struct text *t)
{
	static const unsigned size[] = { 1, 4, 32, 60, 64, 65, 256, 333, 1500, 4000, 4096, 9000 };

	PUT2(t, "[dma]\nread_gbps = %u\nwrite_gbps = %u\n", ONE_OF(s, 0, 5, 40, 200),
	     ONE_OF(s, 0, 5, 40, 200));
	for (unsigned k = 0; k < 2; k++) {
		put(t, "%s = ", k ? "write_size" : "read_size");
		unsigned n = 1 + (unsigned)(next(s) % 3);
		for (unsigned i = 0; i < n; i++) {
			/* a write must fit in the PTC's data buffer (8 KiB) */
			unsigned z = size[next(s) % 12];
			put(t, "%s%u:%u", i ? "," : "", k && z > 8192 ? 8192 : z,
			    1 + (unsigned)(next(s) % 4));
		}
		put(t, "\n");
	}
	put(t, "align = %u\n", ONE_OF(s, 4, 64, 4096));
	if (maybe(s, 3))
		PUT2(t, "down_ready_pct = %u\ndown_hdr_ready_pct = %u\n", ONE_OF(s, 10, 50, 100),
		     ONE_OF(s, 10, 100));
}

/* One whole scenario text from seed s. */
static inline void draw_scenario(uint64_t s, struct text *t)
{
	t->n = 0;
	draw_card(&s, t);
	draw_endpoint(&s, t);
	draw_dma(&s, t);
}

#endif
