/*
 * The corrected throughput is exact: frames of random lengths, with stalls
 * and idle cycles, go over a bus that has fewer real regions than its
 * probe, through the cycle-exact firmware model; the probe over-counts
 * them (firmware-behavior.md 1.4) and {padded_bus}.corrected_items gives
 * back exactly the items that were sent, on several widths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/metrics.h"
#include "pcie_telemetry/model.h"

struct rig {
	ptm_model *m;
	struct pt_layout l;
	unsigned items; /* of a region of the DOWN bus */
	unsigned real;  /* its real regions */
	uint64_t sent;  /* items of the frames sent */
	uint32_t seed;
};

static uint32_t rnd(struct rig *r)
{
	r->seed = r->seed * 1103515245u + 12345u;
	return r->seed >> 8;
}

/* One DMA clock edge with the DOWN bus of port 0 as given (the MI domain
 * runs beside it, so the probe's deltas drain). */
static void edge(struct rig *r, const struct ptm_bus_in *down)
{
	struct ptm_bus_in bus[2];

	memset(bus, 0, sizeof bus);
	bus[1] = *down;
	ptm_dma_edge(r->m, 0, bus);
	ptm_mi_idle_edges(r->m, 0, 1);
}

/* One frame of len items from region 0 of a word on, a word per cycle
 * over every real region, with a stall or an idle cycle now and then. */
static void frame(struct rig *r, unsigned len)
{
	unsigned per_word = r->real * r->items, words = (len + per_word - 1) / per_word;
	unsigned last = len - (words - 1) * per_word; /* items in the last word */

	for (unsigned w = 0; w < words; w++) {
		struct ptm_bus_in in;
		memset(&in, 0, sizeof in);
		in.src_rdy = 1;
		in.sof = w == 0;
		if (w + 1 == words) {
			unsigned reg = (last - 1) / r->items;
			in.eof = 1u << reg;
			in.eof_pos[reg] = (uint16_t)((last - 1) % r->items);
		}
		if (rnd(r) % 4 == 0) {
			in.dst_rdy = 0; /* held: counted only when it moves */
			edge(r, &in);
		}
		in.dst_rdy = 1;
		edge(r, &in);
		if (rnd(r) % 8 == 0) {
			struct ptm_bus_in idle;
			memset(&idle, 0, sizeof idle);
			edge(r, &idle);
		}
	}
	r->sent += len;
}

/* The live counters, as a reading. */
static void read_counters(struct rig *r, struct pt_reading *rd)
{
	assert_int_equal(pt_reading_init(rd, r->l.entries), 0);
	ptm_mi_write(r->m, PT_REG_READ_SEL, 1u << PT_READ_SEL_BIT_LIVE);
	for (unsigned i = 0; i < r->l.entries; i++) {
		uint64_t lo = ptm_mi_read(r->m, pt_addr_counter(r->l.cnt_base, i, 0));
		uint64_t hi = ptm_mi_read(r->m, pt_addr_counter(r->l.cnt_base, i, 1));
		rd->cnt[i] = hi << 32 | lo;
	}
}

static unsigned log2c(unsigned n)
{
	unsigned a = 0;

	while ((1u << a) < n)
		a++;
	return a;
}

static void check_width(unsigned up_regions, unsigned down_regions, unsigned down_bytes,
			unsigned item_bytes, uint32_t seed)
{
	struct ptm_generics g;
	struct rig r = { .seed = seed };
	uint32_t cfg[PT_CFG_REGS];
	char msg[PT_METRIC_MSG_LEN];

	ptm_generics_default(&g);
	g.dma_up_mfb_regions = up_regions;
	g.dma_down_mfb_regions = down_regions;
	g.dma_down_mfb_region_bytes = down_bytes;
	g.mfb_item_bytes = item_bytes;
	g.drain_period = 256;
	/* EOF_POS: as wide as the largest region of each clock needs */
	g.dma_eof_pos_width = log2c(
		(down_bytes > g.dma_up_mfb_region_bytes ? down_bytes : g.dma_up_mfb_region_bytes) /
		item_bytes);
	g.pcie_eof_pos_width = log2c(g.pcie_rq_mfb_region_bytes / item_bytes);
	if (ptm_model_new(&g, &r.m, msg, sizeof msg) != 0)
		fail_msg("model: %s", msg);
	for (unsigned i = 0; i < PT_CFG_REGS; i++)
		cfg[i] = ptm_mi_read(r.m, 4u * i);
	if (pt_layout_decode(cfg, &r.l, msg, sizeof msg) != 0)
		fail_msg("layout: %s", msg);
	r.items = down_bytes / item_bytes;
	r.real = down_regions;

	struct ptm_bus_in idle;
	memset(&idle, 0, sizeof idle);
	for (int i = 0; i < 16; i++) /* out of the power-up reset */
		edge(&r, &idle);
	for (int f = 0; f < 400; f++)
		frame(&r, 1 + rnd(&r) % (5 * r.items * r.real));
	for (unsigned i = 0; i < 4 * g.drain_period; i++)
		edge(&r, &idle);

	struct pt_reading rd;
	struct pt_metric_set *s;
	read_counters(&r, &rd);
	if (pt_metric_bind_builtin(&r.l, &s, msg, sizeof msg) != 0)
		fail_msg("bind: %s", msg);
	struct pt_metric_value *v = calloc(pt_metric_count(s), sizeof *v);
	const struct pt_metric_input in = { &rd, true, 1.0 };
	assert_non_null(v);
	assert_true(pt_metric_eval(s, &in, v) >= 0);
	const struct pt_metric_value *c = &v[pt_metric_find(s, "ep0.down0.corrected_items")];
	uint64_t plain = rd.cnt[pt_idx_bus(&r.l, 0, 3, PT_F_ITEMS)];
	print_message("DOWN %u of %u regions of %u items: sent %llu items, the probe counts %llu, "
		      "corrected %lld\n",
		      down_regions, pt_layout_bus_probe_regions(&r.l, 3), r.items,
		      (unsigned long long)r.sent, (unsigned long long)plain, (long long)c->i);
	assert_true(plain > r.sent); /* the quirk is there */
	assert_true(c->is_int);
	assert_true(c->i == (__int128)r.sent);
	assert_true(v[pt_metric_find(s, "ep0.down0.corrected_bytes")].i == (__int128)r.sent * item_bytes);
	free(v);
	pt_metric_set_free(s);
	pt_reading_free(&rd);
	ptm_model_free(r.m);
}

static void test_corrected_items_are_exact(void **state)
{
	(void)state;
	check_width(2, 1, 32, 4, 1);  /* the firmware's example: 8 items, one padded region */
	check_width(4, 1, 64, 4, 2);  /* three padded regions of 16 items */
	check_width(4, 2, 16, 8, 3);  /* two padded regions of 2 items */
	check_width(3, 2, 32, 2, 4);  /* one padded region of 16 items, 2-byte items */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corrected_items_are_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
