/*
 * Random stimulus shared by the model's property tests (test_model_props,
 * test_model_batch): a reproducible generator, random generics the
 * firmware accepts, random bus words.  Header-only, for test programs.
 */
#ifndef PT_TEST_MODEL_RAND_H
#define PT_TEST_MODEL_RAND_H

#include <stdint.h>
#include <string.h>

#include "model/util.h"
#include "pcie_telemetry/model.h"

/* xorshift64*, reproducible */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static inline unsigned rndn(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* A random word of one MFB bus (and its MVB); busy = percent of SRC_RDY. */
static inline void rand_bus(struct ptm_bus_in *b, unsigned regions, unsigned items, int mvb, int busy)
{
	memset(b, 0, sizeof(*b));
	b->src_rdy = (uint8_t)(rndn(100) < (unsigned)busy);
	b->dst_rdy = (uint8_t)(rndn(100) < 80);
	for (unsigned r = 0; r < regions; r++) {
		unsigned x = rndn(8);
		if (x < 2)
			b->sof |= 1u << r;
		if (x == 1 || x == 2 || x == 3)
			b->eof |= 1u << r;
		b->eof_pos[r] = (uint16_t)rndn(items);
		if (mvb && rndn(3) == 0)
			b->mvb_vld |= 1u << r;
	}
	if (mvb) {
		b->mvb_src_rdy = (uint8_t)(rndn(100) < (unsigned)busy);
		b->mvb_dst_rdy = (uint8_t)(rndn(100) < 85);
	}
}

/* Random generics the firmware accepts; wide_pos: EOF_POS one bit wider
 * than needed now and then (the model must mask it). */
static inline void rand_generics(struct ptm_generics *g, int wide_pos)
{
	static const unsigned bytes[] = {16, 20, 24, 32, 48, 64};
	static const unsigned cw[] = {33, 48, 64};
	for (;;) {
		ptm_generics_default(g);
		g->pcie_endpoints = 1 + rndn(3);
		g->dma_ports = 1 + rndn(3);
		g->pcie_rq_mfb_regions = 1 + rndn(4);
		g->pcie_rc_mfb_regions = 1 + rndn(4);
		g->dma_up_mfb_regions = 1 + rndn(4);
		g->dma_down_mfb_regions = 1 + rndn(4);
		g->pcie_rq_mfb_region_bytes = bytes[rndn(6)];
		g->pcie_rc_mfb_region_bytes = bytes[rndn(6)];
		g->dma_up_mfb_region_bytes = bytes[rndn(6)];
		g->dma_down_mfb_region_bytes = bytes[rndn(6)];
		unsigned pb = g->pcie_rq_mfb_region_bytes > g->pcie_rc_mfb_region_bytes
				      ? g->pcie_rq_mfb_region_bytes
				      : g->pcie_rc_mfb_region_bytes;
		unsigned db = g->dma_up_mfb_region_bytes > g->dma_down_mfb_region_bytes
				      ? g->dma_up_mfb_region_bytes
				      : g->dma_down_mfb_region_bytes;
		g->pcie_eof_pos_width = ptm_log2c(pb / 4) + (wide_pos ? rndn(2) : 0);
		g->dma_eof_pos_width = ptm_log2c(db / 4) + (wide_pos ? rndn(2) : 0);
		g->cnt_width = cw[rndn(3)];
		g->drain_period = 64u << rndn(7); /* 64 .. 4096 */
		if (g->drain_period > 1024 && rndn(3))
			g->drain_period = 256;
		g->tag_capacity = 64 + rndn(512);
		g->stfifo_capacity = 128 + rndn(4096);
		char msg[256];
		if (ptm_generics_check(g, msg, sizeof(msg)) == 0)
			return;
	}
}

#endif
