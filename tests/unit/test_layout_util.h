/*
 * Layouts of any shape for the cmocka programs and the fuzz targets: the
 * configuration registers the v2.0 firmware builds from its generics
 * (pt_test_layout() needs <cmocka.h> before this header).
 */
#ifndef PT_TEST_LAYOUT_UTIL_H
#define PT_TEST_LAYOUT_UTIL_H

#include <stdint.h>
#include <string.h>

#include "pcie_telemetry/layout.h"

/* A zero cnt_width, item_bytes, capacity or width takes the firmware's
 * default (48 bits, 4 bytes, 256 tags, 1024 words, 32 bytes). */
struct pt_test_shape {
	unsigned eps, ports;
	unsigned pr, dr;               /* probe regions: PCIe, DMA */
	unsigned rq, rc, up, down;     /* real regions */
	unsigned driven, hists, bands; /* PCIe-probe BRAKE channels */
	unsigned dma_driven, dma_hists;
	unsigned cnt_width, item_bytes, tags, fifo;
	unsigned rq_bytes, rc_bytes, up_bytes, down_bytes;
};

static inline unsigned pt_test_or(unsigned v, unsigned dflt)
{
	return v ? v : dflt;
}

static inline void pt_test_cfg(const struct pt_test_shape *s, uint32_t cfg[PT_CFG_REGS])
{
	unsigned pb = s->driven + s->hists * s->bands, db = s->dma_driven + s->dma_hists * s->bands;
	unsigned pch = 1 + 2 * (6 + s->pr) + pb, dch = 1 + 2 * s->ports * (6 + s->dr) + db;
	unsigned entries = 1;

	while (entries < s->eps * (pch + dch))
		entries *= 2;
	memset(cfg, 0, PT_CFG_REGS * sizeof cfg[0]);
	cfg[PT_REG_NUM(PT_REG_MAGIC)] = PT_MAGIC;
	cfg[PT_REG_NUM(PT_REG_VERSION)] = 0x00020000;
	cfg[PT_REG_NUM(PT_REG_CFG_TOPOLOGY)] = s->eps | s->ports << 8 | (2 * s->eps) << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_LAYOUT)] =
		entries | pt_test_or(s->cnt_width, 48) << 16 | (pch + dch) << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_PCIE)] = pch | 2u << 8 | s->pr << 16 | pb << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_DMA)] = dch | (2 * s->ports) << 8 | s->dr << 16 | db << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_DRAIN)] = 4096 | pt_test_or(s->item_bytes, 4) << 16;
	cfg[PT_REG_NUM(PT_REG_CNT_BASE)] = 0x8000;
	cfg[PT_REG_NUM(PT_REG_CFG_REGIONS)] = s->rq | s->rc << 8 | s->up << 16 | s->down << 24;
	cfg[PT_REG_NUM(PT_REG_CFG_WIDTH)] =
		pt_test_or(s->rq_bytes, 32) | pt_test_or(s->rc_bytes, 32) << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_HIST)] = s->bands | s->hists << 8 | s->dma_hists << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_CAPACITY)] = pt_test_or(s->tags, 256) | pt_test_or(s->fifo, 1024) << 16;
	cfg[PT_REG_NUM(PT_REG_CFG_WIDTH_DMA)] =
		pt_test_or(s->up_bytes, 32) | pt_test_or(s->down_bytes, 32) << 16;
}

/* The layout of a shape: pt_layout_decode()'s status and message. */
static inline int pt_test_layout_decode(const struct pt_test_shape *s, struct pt_layout *l,
					char *msg, size_t msglen)
{
	uint32_t cfg[PT_CFG_REGS];

	pt_test_cfg(s, cfg);
	return pt_layout_decode(cfg, l, msg, msglen);
}

#ifdef fail_msg
/* The layout of a shape; the test fails if it does not decode. */
static inline void pt_test_layout(const struct pt_test_shape *s, struct pt_layout *l)
{
	char msg[256] = "";

	if (pt_test_layout_decode(s, l, msg, sizeof msg) != 0)
		fail_msg("layout: %s", msg);
}
#endif

/* The firmware's default: 1 endpoint, 1 DMA port, 2 regions everywhere,
 * 6 reasons, 2 histograms of 4 bands. */
#define PT_TEST_DEFAULT_SHAPE                                                               \
	{ .eps = 1, .ports = 1, .pr = 2, .dr = 2, .rq = 2, .rc = 2, .up = 2, .down = 2,      \
	  .driven = 6, .hists = 2, .bands = 4 }

#endif
