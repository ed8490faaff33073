/*
 * The register map (regs.h) and the firmware model agree: for many sets
 * of generics, every configuration register read through the model's MI
 * interface decodes, through regs.h and pt_layout_decode, to exactly the
 * generics the model was built with and to the channel counts of the
 * firmware's formulas; the per-endpoint registers give back the link
 * inputs.  And the field table itself is sound (fields inside 32 bits,
 * no two fields of a register overlapping, put/get inverse).
 *
 * Links pt_layout and pt_model, and nothing of the reader's device part.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/model.h"
#include "pcie_telemetry/reading.h"
#include "pcie_telemetry/regs.h"

static char msg[512];

static unsigned maxu(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

static unsigned log2c(unsigned v)
{
	unsigned n = 0;

	while ((1u << n) < v)
		n++;
	return n;
}

/* The EOF_POS widths the firmware asserts for these region sizes. */
static void fix_eof_widths(struct ptm_generics *g)
{
	g->pcie_eof_pos_width =
		log2c(maxu(g->pcie_rq_mfb_region_bytes, g->pcie_rc_mfb_region_bytes) /
		      g->mfb_item_bytes);
	g->dma_eof_pos_width =
		log2c(maxu(g->dma_up_mfb_region_bytes, g->dma_down_mfb_region_bytes) /
		      g->mfb_item_bytes);
}

/* Build the model, read the 16 configuration registers over MI, decode. */
static ptm_model *read_layout(const struct ptm_generics *g, struct pt_layout *l)
{
	uint32_t cfg[PT_CFG_REGS];
	ptm_model *m = NULL;

	if (ptm_model_new(g, &m, msg, sizeof msg) != 0)
		fail_msg("ptm_model_new: %s", msg);
	for (unsigned i = 0; i < PT_CFG_REGS; i++)
		cfg[i] = ptm_mi_read(m, 4u * i);
	if (pt_layout_decode(cfg, l, msg, sizeof msg) != 0)
		fail_msg("pt_layout_decode: %s", msg);
	/* the registers repeat every 0x100 bytes below the window */
	assert_int_equal(ptm_mi_read(m, 0x100 + PT_REG_CFG_LAYOUT), cfg[PT_REG_NUM(PT_REG_CFG_LAYOUT)]);
	return m;
}

/* The layout says exactly what the generics say. */
static void check_agrees(const struct ptm_generics *g)
{
	struct pt_layout l;
	ptm_model *m = read_layout(g, &l);
	const struct ptm_derived *d = ptm_model_derived(m);
	unsigned pr = maxu(g->pcie_rq_mfb_regions, g->pcie_rc_mfb_regions);
	unsigned dr = maxu(g->dma_up_mfb_regions, g->dma_down_mfb_regions);
	unsigned pch = 1 + 2 * (6 + pr) + 14, dch = 1 + 2 * g->dma_ports * (6 + dr);
	unsigned entries = 1;

	while (entries < g->pcie_endpoints * (pch + dch))
		entries *= 2;
	assert_int_equal(l.version_major, 2);
	assert_int_equal(l.version_minor, 0);
	assert_int_equal(l.endpoints, g->pcie_endpoints);
	assert_int_equal(l.dma_ports, g->dma_ports);
	assert_int_equal(l.probes, 2 * g->pcie_endpoints);
	assert_int_equal(l.cnt_width, g->cnt_width);
	assert_int_equal(l.drain_period, g->drain_period);
	assert_int_equal(l.item_bytes, g->mfb_item_bytes);
	assert_int_equal(l.cnt_base, 0x8000);
	assert_int_equal(l.real_regions[PT_BUS_RQ], g->pcie_rq_mfb_regions);
	assert_int_equal(l.real_regions[PT_BUS_RC], g->pcie_rc_mfb_regions);
	assert_int_equal(l.real_regions[PT_BUS_UP], g->dma_up_mfb_regions);
	assert_int_equal(l.real_regions[PT_BUS_DOWN], g->dma_down_mfb_regions);
	assert_int_equal(l.region_bytes[PT_BUS_RQ], g->pcie_rq_mfb_region_bytes);
	assert_int_equal(l.region_bytes[PT_BUS_RC], g->pcie_rc_mfb_region_bytes);
	assert_int_equal(l.region_bytes[PT_BUS_UP], g->dma_up_mfb_region_bytes);
	assert_int_equal(l.region_bytes[PT_BUS_DOWN], g->dma_down_mfb_region_bytes);
	assert_int_equal(l.tag_capacity, g->tag_capacity);
	assert_int_equal(l.stfifo_capacity, g->stfifo_capacity);
	/* derived counts: the firmware's formulas, and the model's own */
	assert_int_equal(l.pcie_regions, pr);
	assert_int_equal(l.dma_regions, dr);
	assert_int_equal(l.pcie_buses, 2);
	assert_int_equal(l.dma_buses, 2 * g->dma_ports);
	assert_int_equal(l.pcie_brakes, 14);
	assert_int_equal(l.dma_brakes, 0);
	assert_int_equal(l.pcie_channels, pch);
	assert_int_equal(l.dma_channels, dch);
	assert_int_equal(l.ep_channels, pch + dch);
	assert_int_equal(l.entries, entries);
	assert_int_equal(l.pcie_channels, d->pcie_channels);
	assert_int_equal(l.dma_channels, d->dma_channels);
	assert_int_equal(l.entries, d->entries);
	assert_int_equal(l.hist_bands, 4);
	assert_int_equal(l.pcie_hists, 2);
	assert_int_equal(l.dma_hists, 0);
	assert_int_equal(l.driven_brakes, 6);
	assert_int_equal(l.buses, 2 + 2 * g->dma_ports);
	assert_int_equal(pt_counter_count(&l), g->pcie_endpoints * (pch + dch));
	ptm_model_free(m);
}

static void test_endpoints(void **state)
{
	(void)state;
	for (unsigned e = 1; e <= 16; e++) {
		struct ptm_generics g;

		ptm_generics_default(&g);
		g.pcie_endpoints = e;
		g.dma_ports = 1 + e % 4;
		check_agrees(&g);
	}
}

static void test_ports_and_regions(void **state)
{
	(void)state;
	for (unsigned p = 1; p <= 4; p++)
		for (unsigned r = 1; r <= 8; r++) {
			struct ptm_generics g;

			ptm_generics_default(&g);
			g.dma_ports = p;
			g.pcie_rq_mfb_regions = r;
			g.pcie_rc_mfb_regions = 9 - r;      /* RQ != RC */
			g.dma_up_mfb_regions = r;
			g.dma_down_mfb_regions = r % 8 + 1; /* UP != DOWN */
			check_agrees(&g);
		}
}

static void test_widths_drain_capacities(void **state)
{
	static const unsigned widths[] = { 33, 48, 64 };
	static const unsigned drains[] = { 128, 4096, 32768 };
	static const unsigned bytes[][4] = {
		{ 16, 32, 64, 128 }, { 256, 64, 32, 512 }, { 4, 8, 16, 32 },
	};
	static const unsigned caps[][2] = { { 32, 64 }, { 256, 1024 }, { 2048, 65535 } };

	(void)state;
	for (unsigned i = 0; i < 3; i++)
		for (unsigned j = 0; j < 3; j++) {
			struct ptm_generics g;

			ptm_generics_default(&g);
			g.cnt_width = widths[i];
			g.drain_period = drains[j];
			g.pcie_rq_mfb_region_bytes = bytes[j][0];
			g.pcie_rc_mfb_region_bytes = bytes[j][1];
			g.dma_up_mfb_region_bytes = bytes[j][2];
			g.dma_down_mfb_region_bytes = bytes[j][3];
			g.mfb_item_bytes = i == 2 ? 2 : 4;
			g.tag_capacity = caps[(i + j) % 3][0];
			g.stfifo_capacity = caps[(i + j) % 3][1];
			fix_eof_widths(&g);
			check_agrees(&g);
		}
}

/* The PCIe-clock inputs of an endpoint come back through PCIE_STATUS,
 * PCIE_TAGS and PCIE_STFIFO once a status word has crossed. */
static void test_endpoint_registers(void **state)
{
	struct ptm_generics g;
	struct pt_layout l;
	struct pt_reading r;
	struct pt_link k;

	(void)state;
	ptm_generics_default(&g);
	g.pcie_endpoints = 3;
	g.drain_period = 128;
	ptm_model *m = read_layout(&g, &l);
	assert_int_equal(pt_reading_init(&r, l.entries), 0);
	for (unsigned ep = 0; ep < 3; ep++) {
		struct ptm_pcie_in in;

		memset(&in, 0, sizeof in);
		in.mps = (uint8_t)(ep + 1);
		in.mrrs = (uint8_t)(5 - ep);
		in.ext_tag_en = ep != 1;
		in.tag10b_req_en = ep == 1;
		in.rcb_size = ep == 2;
		in.link_up = ep != 0;
		in.tag_free = (uint16_t)(100 + ep);
		in.stfifo_free = (uint16_t)(1000 + ep);
		ptm_pcie_edges(m, ep, &in, 3 * g.drain_period);
	}
	ptm_mi_idle_edges(m, 0, 64);
	for (unsigned ep = 0; ep < PT_MAX_ENDPOINTS; ep++) {
		r.pcie_status[ep] = ptm_mi_read(m, pt_reg_ep(PT_REG_PCIE_STATUS, ep));
		r.pcie_tags[ep] = ptm_mi_read(m, pt_reg_ep(PT_REG_PCIE_TAGS, ep));
		r.pcie_stfifo[ep] = ptm_mi_read(m, pt_reg_ep(PT_REG_PCIE_STFIFO, ep));
		if (ep >= 3) {
			assert_int_equal(r.pcie_status[ep] | r.pcie_tags[ep] | r.pcie_stfifo[ep], 0);
			continue;
		}
		pt_link_decode(&r, ep, &k);
		assert_int_equal(k.mps, 128u << (ep + 1));
		assert_int_equal(k.mrrs, 128u << (5 - ep));
		assert_int_equal(k.ext_tag, ep != 1);
		assert_int_equal(k.tag_10b, ep == 1);
		assert_int_equal(k.rcb, ep == 2 ? 128 : 64);
		assert_int_equal(k.link_up, ep != 0);
		assert_int_equal(k.tags_free, 100 + ep);
		assert_int_equal(k.tags_free_min, 100 + ep);
		assert_int_equal(k.stfifo_free, 1000 + ep);
		assert_int_equal(k.stfifo_free_min, 1000 + ep);
	}
	pt_reading_free(&r);
	ptm_model_free(m);
}

/* COMMAND and READ_SEL through the model: the decode of writes. */
static void test_command_bits(void **state)
{
	struct ptm_generics g;
	struct pt_layout l;

	(void)state;
	ptm_generics_default(&g);
	ptm_model *m = read_layout(&g, &l);
	ptm_mi_write(m, PT_REG_READ_SEL, 1u << PT_READ_SEL_BIT_LIVE);
	assert_int_equal(pt_field_get(PT_FIELD_READ_SEL_LIVE, ptm_mi_read(m, PT_REG_READ_SEL)), 1);
	ptm_mi_write(m, PT_REG_READ_SEL, 0);
	assert_int_equal(ptm_mi_read(m, PT_REG_READ_SEL), 0);
	ptm_mi_write(m, PT_REG_COMMAND, PT_CMD_SNAPSHOT);
	/* a snapshot makes the counter memory busy for a while (from the
	 * second edge after the write) */
	ptm_mi_idle_edges(m, 0, 1);
	assert_int_equal(pt_field_get(PT_FIELD_STATUS_BUSY, ptm_mi_read(m, PT_REG_STATUS)), 1);
	ptm_mi_idle_edges(m, 0, 4u * l.entries + 64);
	assert_int_equal(ptm_mi_read(m, PT_REG_STATUS) & PT_STATUS_BUSY, 0);
	assert_int_equal(ptm_mi_read(m, PT_REG_COMMAND), 0); /* write only */
	ptm_model_free(m);
}

/* The table: every field inside its 32 bits, no overlaps in a register,
 * the inline accessors and the table agree, put and get are inverse. */
static void test_field_table(void **state)
{
	(void)state;
	assert_null(pt_field_info(PT_FIELD_COUNT));
	for (unsigned f = 0; f < PT_FIELD_COUNT; f++) {
		const struct pt_field_info *fi = pt_field_info((enum pt_field)f);

		assert_non_null(fi);
		assert_true(fi->width >= 1 && fi->shift + fi->width <= 32);
		assert_int_equal(fi->reg, pt_field_reg((enum pt_field)f));
		assert_int_equal(fi->shift, pt_field_shift((enum pt_field)f));
		assert_int_equal(fi->width, pt_field_width((enum pt_field)f));
		assert_non_null(pt_reg_name(fi->reg));
		uint32_t max = pt_field_max((enum pt_field)f);
		assert_int_equal(pt_field_get((enum pt_field)f, pt_field_put((enum pt_field)f, max)), max);
		assert_int_equal(pt_field_put((enum pt_field)f, max + (max < UINT32_MAX)),
				 max < UINT32_MAX ? 0 : pt_field_put((enum pt_field)f, max));
		for (unsigned g = f + 1; g < PT_FIELD_COUNT; g++) {
			const struct pt_field_info *gi = pt_field_info((enum pt_field)g);

			if (gi->reg == fi->reg)
				assert_true(gi->shift >= fi->shift + fi->width ||
					    fi->shift >= gi->shift + gi->width);
		}
	}
	assert_string_equal(pt_reg_name(PT_REG_CFG_WIDTH_DMA), "CFG_WIDTH_DMA");
	assert_string_equal(pt_reg_name(pt_reg_ep(PT_REG_PCIE_TAGS, 15)), "PCIE_TAGS");
	assert_null(pt_reg_name(pt_reg_ep(PT_REG_PCIE_STFIFO, 16)));
	assert_null(pt_reg_name(0x2));
}

/* BRAKE reasons, histograms and bands, as report-format.md 3.3 names them. */
static void test_reason_and_band_names(void **state)
{
	static const char *const labels[] = {
		"no free PCIe tag",        "PCIe tag not ready",      "no room for completions",
		"no completion header entry", "MFB stalled towards DMA", "MVB stalled towards DMA",
	};
	char buf[PT_REGS_NAME_LEN];

	(void)state;
	for (unsigned k = 0; k < PT_BRAKE_NAMED; k++) {
		assert_string_equal(pt_brake_label(k, buf), labels[k]);
		assert_int_equal(pt_brake_stream(k), k >= 4 ? PT_STREAM_DOWN : PT_STREAM_UP);
	}
	assert_string_equal(pt_brake_name(PT_BRAKE_NO_COMPLETION_SPACE, buf), "no_completion_space");
	assert_string_equal(pt_brake_name(6, buf), "reason6");
	assert_string_equal(pt_brake_label(13, buf), "reason 13");
	assert_int_equal(pt_brake_stream(7), PT_STREAM_UP);
	assert_string_equal(pt_hist_label(0, buf), "PCIe tags");
	assert_string_equal(pt_hist_label(1, buf), "PTC storage FIFO words");
	assert_string_equal(pt_hist_label(2, buf), "resource 2");
	assert_string_equal(pt_hist_name(1, buf), "stfifo");
	assert_string_equal(pt_band_label(1, buf), "<=1/8");
	assert_string_equal(pt_band_label(2, buf), "<=1/2");
	assert_string_equal(pt_band_label(3, buf), "rest");
	assert_string_equal(pt_band_label(4, buf), "band 4");
	assert_string_equal(pt_band_name(2, buf), "le_half");
	assert_string_equal(pt_band_name(4, buf), "band4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoints),
		cmocka_unit_test(test_ports_and_regions),
		cmocka_unit_test(test_widths_drain_capacities),
		cmocka_unit_test(test_endpoint_registers),
		cmocka_unit_test(test_command_bits),
		cmocka_unit_test(test_field_table),
		cmocka_unit_test(test_reason_and_band_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
