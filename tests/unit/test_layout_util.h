/*
 * A layout the firmware can announce, built from its shape: the
 * configuration registers the v2.0 firmware builds from its generics (for
 * the cmocka programs, the fuzz targets and the benchmarks;
 * pt_test_layout() needs <cmocka.h> before this header).
 */
#ifndef PT_TEST_LAYOUT_UTIL_H
#define PT_TEST_LAYOUT_UTIL_H

#include <stdint.h>
#include <string.h>

#include "pcie_telemetry/layout.h"

/* Endpoints, DMA ports, real regions of RQ, RC, UP, DOWN (each probe has
 * the larger of its two buses' regions), and the BRAKE channels of both
 * probes (driven reasons, histograms of `bands`). */
struct pt_test_shape {
	unsigned e, p, rq, rc, up, down;
	unsigned driven, hists, bands; /* PCIe probe */
	unsigned dma_driven, dma_hists;
};

/* Sizes besides the shape; a 0 (or no sizes at all) takes the firmware's
 * default. */
struct pt_test_sizes {
	unsigned item_bytes;                               /* 4 */
	unsigned rq_bytes, rc_bytes, up_bytes, down_bytes; /* 32 */
	unsigned tags, fifo;                               /* 256, 1024 */
};

/* The firmware's default: 1 endpoint, 1 DMA port, 2 regions everywhere,
 * 6 reasons, 2 histograms of 4 bands. */
#define PT_TEST_DEFAULT_SHAPE { 1, 1, 2, 2, 2, 2, 6, 2, 4, 0, 0 }

static inline unsigned pt_test_maxu(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

static inline unsigned pt_test_or(unsigned v, unsigned dflt)
{
	return v ? v : dflt;
}

static inline void pt_test_cfg(const struct pt_test_shape *s, unsigned cnt_width,
			       const struct pt_test_sizes *sizes, uint32_t cfg[PT_CFG_REGS])
{
	const struct pt_test_sizes none = { 0, 0, 0, 0, 0, 0, 0 }, *z = sizes ? sizes : &none;
	unsigned pr = pt_test_maxu(s->rq, s->rc), dr = pt_test_maxu(s->up, s->down);
	unsigned pb = s->driven + s->hists * s->bands, db = s->dma_driven + s->dma_hists * s->bands;
	unsigned pch = 1 + 2 * (6 + pr) + pb, dch = 1 + 2 * s->p * (6 + dr) + db;
	unsigned entries = 1;

	while (entries < s->e * (pch + dch))
		entries *= 2;
	memset(cfg, 0, PT_CFG_REGS * sizeof cfg[0]);
	cfg[PT_REG_NUM(PT_REG_MAGIC)] = PT_MAGIC;
	cfg[PT_REG_NUM(PT_REG_VERSION)] = 0x00020000;
	cfg[PT_REG_NUM(PT_REG_CFG_TOPOLOGY)] = s->e | s->p << 8 | (2 * s->e) << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_LAYOUT)] = entries | cnt_width << 16 | (pch + dch) << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_PCIE)] = pch | 2u << 8 | pr << 16 | pb << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_DMA)] = dch | (2 * s->p) << 8 | dr << 16 | db << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_DRAIN)] = 4096 | pt_test_or(z->item_bytes, 4) << 16;
	cfg[PT_REG_NUM(PT_REG_CNT_BASE)] = 0x8000;
	cfg[PT_REG_NUM(PT_REG_CFG_REGIONS)] = s->rq | s->rc << 8 | s->up << 16 | s->down << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_WIDTH)] =
		pt_test_or(z->rq_bytes, 32) | pt_test_or(z->rc_bytes, 32) << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_HIST)] = s->bands | s->hists << 8 | s->dma_hists << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_CAPACITY)] = pt_test_or(z->tags, 256) | pt_test_or(z->fifo, 1024) << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_WIDTH_DMA)] =
		pt_test_or(z->up_bytes, 32) | pt_test_or(z->down_bytes, 32) << 16;
}

/* Decode the shape's layout: pt_layout_decode()'s status and message. */
static inline int pt_test_layout_decode(const struct pt_test_shape *s, unsigned cnt_width,
					const struct pt_test_sizes *sizes, struct pt_layout *l,
					char *msg, size_t msglen)
{
	uint32_t cfg[PT_CFG_REGS];

	pt_test_cfg(s, cnt_width, sizes, cfg);
	return pt_layout_decode(cfg, l, msg, msglen);
}

#ifdef fail_msg
/* Decodes into *l, or fails the test with the decoder's message. */
static inline void pt_test_layout_sized(const struct pt_test_shape *s, unsigned cnt_width,
					const struct pt_test_sizes *sizes, struct pt_layout *l)
{
	char m[512];

	if (pt_test_layout_decode(s, cnt_width, sizes, l, m, sizeof m) != 0)
		fail_msg("layout: %s", m);
}

static inline void pt_test_layout(const struct pt_test_shape *s, unsigned cnt_width,
				  struct pt_layout *l)
{
	pt_test_layout_sized(s, cnt_width, NULL, l);
}
#endif

#endif
