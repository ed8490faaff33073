/*
 * A layout the firmware can announce, built from its shape (for the
 * cmocka programs; include after <cmocka.h> and pcie_telemetry/layout.h).
 */
#ifndef PT_TEST_LAYOUT_UTIL_H
#define PT_TEST_LAYOUT_UTIL_H

#include "pcie_telemetry/layout.h"

/* Endpoints, DMA ports, real regions of RQ, RC, UP, DOWN, and the BRAKE
 * channels of both probes (driven reasons, histograms of `bands`). */
struct pt_test_shape {
	unsigned e, p, rq, rc, up, down;
	unsigned driven, hists, bands; /* PCIe probe */
	unsigned dma_driven, dma_hists;
};

static inline unsigned pt_test_maxu(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* Decodes into *l, or fails the test with the decoder's message. */
static inline void pt_test_layout(const struct pt_test_shape *s, unsigned cnt_width,
				  struct pt_layout *l)
{
	unsigned pr = pt_test_maxu(s->rq, s->rc), dr = pt_test_maxu(s->up, s->down);
	unsigned pb = s->driven + s->hists * s->bands, db = s->dma_driven + s->dma_hists * s->bands;
	unsigned pch = 1 + 2 * (6 + pr) + pb, dch = 1 + 2 * s->p * (6 + dr) + db;
	unsigned entries = 1;
	uint32_t cfg[PT_CFG_REGS] = { 0 };
	char m[512];

	while (entries < s->e * (pch + dch))
		entries *= 2;
	cfg[PT_REG_NUM(PT_REG_MAGIC)] = PT_MAGIC;
	cfg[PT_REG_NUM(PT_REG_VERSION)] = 0x00020000;
	cfg[PT_REG_NUM(PT_REG_CFG_TOPOLOGY)] = s->e | s->p << 8 | (2 * s->e) << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_LAYOUT)] = entries | cnt_width << 16 | (pch + dch) << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_PCIE)] = pch | 2u << 8 | pr << 16 | pb << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_DMA)] = dch | (2 * s->p) << 8 | dr << 16 | db << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_DRAIN)] = 0x00041000;
	cfg[PT_REG_NUM(PT_REG_CNT_BASE)] = 0x8000;
	cfg[PT_REG_NUM(PT_REG_CFG_REGIONS)] = s->rq | s->rc << 8 | s->up << 16 | s->down << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_WIDTH)] = 0x00200020;
	cfg[PT_REG_NUM(PT_REG_CFG_HIST)] = s->bands | s->hists << 8 | s->dma_hists << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_CAPACITY)] = 0x04000100;
	cfg[PT_REG_NUM(PT_REG_CFG_WIDTH_DMA)] = 0x00200020;
	if (pt_layout_decode(cfg, l, m, sizeof m) != 0)
		fail_msg("layout: %s", m);
}

#endif
