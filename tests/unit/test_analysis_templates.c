/*
 * Templates over layouts (docs/metrics.md "Templates"): which instances
 * the built-in metrics have on several layouts (two endpoints of two
 * ports, padded regions, extra reasons, bands, histograms, DMA-probe
 * BRAKE inputs), placeholders ranging inside aggregates, layout values,
 * user metrics over built-in ones, the corrected throughput, lookups and
 * the selections of -M.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_metric_util.h"

static const struct pt_test_shape std_shape = PT_TEST_DEFAULT_SHAPE;

/* The instances of a family, as "a b c". */
static void family_names(const struct mt *t, const char *family, char *buf, size_t len)
{
	int f = pt_metric_family_find(t->s, family);
	size_t o = 0;

	buf[0] = '\0';
	if (f < 0)
		fail_msg("no family %s", family);
	const struct pt_metric_family *fi = pt_metric_family_info(t->s, (unsigned)f);
	for (unsigned i = fi->first; i < fi->first + fi->count; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "",
				      pt_metric_info(t->s, i)->name);
}

static void expect_family(const struct mt *t, const char *family, const char *names)
{
	char buf[4096];

	family_names(t, family, buf, sizeof buf);
	if (strcmp(buf, names) != 0)
		fail_msg("%s:\n  got  %s\n  want %s", family, buf, names);
}

static void test_default_layout(void **state)
{
	struct mt t;

	(void)state;
	mt_init(&t, &std_shape, 0);
	mt_eval(&t, true, 1.0);
	expect_family(&t, "{ep}.pcie_clock_mhz", "ep0.pcie_clock_mhz");
	expect_family(&t, "{bus}.words_pct", "ep0.rq.words_pct ep0.rc.words_pct ep0.up0.words_pct "
					     "ep0.down0.words_pct");
	expect_family(&t, "{dma_bus}.mvb_stall_pct", "ep0.up0.mvb_stall_pct ep0.down0.mvb_stall_pct");
	expect_family(&t, "{pcie_bus}.mpps", "ep0.rq.mpps ep0.rc.mpps");
	expect_family(&t, "{dma_bus}.mpps", "ep0.up0.mpps ep0.down0.mpps");
	expect_family(&t, "{up}.rd_pct", "ep0.up0.rd_pct");
	expect_family(&t, "{region}_pct", "ep0.rq.region0_pct ep0.rq.region1_pct ep0.rc.region0_pct "
					  "ep0.rc.region1_pct ep0.up0.region0_pct ep0.up0.region1_pct "
					  "ep0.down0.region0_pct ep0.down0.region1_pct");
	expect_family(&t, "{brake}_pct",
		      "ep0.brake.no_free_tag_pct ep0.brake.tag_not_ready_pct "
		      "ep0.brake.no_completion_space_pct ep0.brake.no_completion_header_pct "
		      "ep0.brake.down_mfb_hold_pct ep0.brake.down_mvb_hold_pct");
	expect_family(&t, "{band}_pct", "ep0.hist.tags.none_pct ep0.hist.tags.le_eighth_pct "
					"ep0.hist.tags.le_half_pct ep0.hist.tags.rest_pct "
					"ep0.hist.stfifo.none_pct ep0.hist.stfifo.le_eighth_pct "
					"ep0.hist.stfifo.le_half_pct ep0.hist.stfifo.rest_pct");
	/* no padded bus, so no correction; no DMA-probe BRAKE input */
	expect_family(&t, "{padded_bus}.corrected_gbps", "");
	expect_family(&t, "{dma_brake}_pct", "");
	expect_family(&t, "{dma_band}_pct", "");

	const struct pt_metric_info *in = pt_metric_info(t.s, (unsigned)pt_metric_find(t.s, "ep0.up0.gbps"));
	assert_string_equal(in->family, "{bus}.gbps");
	assert_string_equal(in->unit, "Gbit/s");
	assert_string_equal(in->groups, "bus;report");
	assert_string_equal(in->origin, "data/metrics/pcie-telemetry.json");
	assert_true(in->line > 1);
	assert_int_equal(in->precision, 2);
	assert_int_equal(in->scope, PT_METRIC_BUS);
	assert_int_equal(in->where.ep, 0);
	assert_int_equal(in->where.bus, 2);
	assert_int_equal(in->where.item, -1);
	in = pt_metric_info(t.s, (unsigned)pt_metric_find(t.s, "ep0.hist.stfifo.le_half_pct"));
	assert_int_equal(in->scope, PT_METRIC_BAND);
	assert_int_equal(in->where.item, 1);
	assert_int_equal(in->where.band, 2);
	/* lookup by place */
	int f = pt_metric_family_find(t.s, "{band}_pct");
	struct pt_metric_where w = { 0, -1, 1, 2 };
	assert_int_equal(pt_metric_lookup(t.s, (unsigned)f, &w), pt_metric_find(t.s, "ep0.hist.stfifo.le_half_pct"));
	w.band = 4;
	assert_int_equal(pt_metric_lookup(t.s, (unsigned)f, &w), -ENOENT);
	assert_int_equal(pt_metric_find(t.s, "ep0.rq.mvb_stall_pct"), -ENOENT);
	assert_int_equal(pt_metric_family_find(t.s, "{bus}.nothing"), -ENOENT);
	assert_null(pt_metric_info(t.s, pt_metric_count(t.s)));
	mt_free(&t);
}

/* The worked example of the render tests: every value known exactly. */
static void test_default_values(void **state)
{
	struct mt t;

	(void)state;
	mt_init(&t, &std_shape, 0);
	uint64_t *c = t.r.cnt;
	const struct pt_layout *l = &t.l;
	c[pt_idx_pcie_cycles(l, 0)] = 400000000;
	c[pt_idx_dma_cycles(l, 0)] = 200000000;
	c[pt_idx_bus(l, 0, 0, PT_F_WORDS)] = 100000000;
	c[pt_idx_bus(l, 0, 0, PT_F_BACKPRESSURE)] = 4000000;
	c[pt_idx_bus(l, 0, 0, PT_F_TRANSACTIONS)] = 10000000;
	c[pt_idx_bus(l, 0, 0, PT_F_ITEMS)] = 800000000;
	c[pt_idx_bus(l, 0, 0, PT_F_REGION0)] = 120000000;
	c[pt_idx_bus(l, 0, 0, PT_F_REGION0 + 1)] = 80000000;
	c[pt_idx_bus(l, 0, 2, PT_F_TRANSACTIONS)] = 2000000;
	c[pt_idx_bus(l, 0, 2, PT_F_MVB)] = 4000000;
	c[pt_idx_brake(l, 0, 0)] = 4000000;
	c[pt_idx_hist(l, 0, 1, 3)] = 395600000;
	mt_eval(&t, true, 2.0);
	assert_true(mt_val(&t, "ep0.pcie_clock_mhz")->f == 200.0);
	assert_true(mt_val(&t, "ep0.dma_clock_mhz")->f == 100.0);
	assert_true(mt_val(&t, "ep0.rq.used_pct")->f == 25.0);
	assert_true(mt_val(&t, "ep0.rq.words_pct")->f == 25.0);
	assert_true(mt_val(&t, "ep0.rq.stall_pct")->f == 1.0);
	assert_true(mt_val(&t, "ep0.brake.endpoint_not_ready_pct")->f == 1.0);
	assert_true(mt_val(&t, "ep0.rq.region0_pct")->f == 30.0);
	assert_true(mt_val(&t, "ep0.rq.bytes")->is_int && mt_val(&t, "ep0.rq.bytes")->i == 3200000000);
	assert_true(mt_val(&t, "ep0.rq.gbps")->f == 12.8);
	assert_true(mt_val(&t, "ep0.rq.mpps")->f == 5.0);
	assert_true(mt_val(&t, "ep0.up0.mpps")->f == 2.0);
	assert_true(mt_val(&t, "ep0.up0.rd_pct")->f == 50.0);
	assert_true(mt_val(&t, "ep0.rq.avg_bytes")->f == 320.0);
	assert_true(isnan(mt_val(&t, "ep0.rc.avg_bytes")->f));
	assert_true(mt_val(&t, "ep0.brake.no_free_tag_pct")->f == 1.0);
	assert_true(mt_val(&t, "ep0.hist.stfifo.rest_pct")->f == 98.9);
	/* totals: no interval, so no rates */
	mt_eval(&t, false, 2.0);
	assert_true(isnan(mt_val(&t, "ep0.rq.gbps")->f));
	assert_true(isnan(mt_val(&t, "ep0.pcie_clock_mhz")->f));
	assert_true(mt_val(&t, "ep0.rq.words_pct")->f == 25.0);
	/* a zero-length interval: as totals (report-format.md 1) */
	mt_eval(&t, true, 0.0);
	assert_true(isnan(mt_val(&t, "ep0.rq.gbps")->f));
	/* a reading of fewer counters than the layout: refused */
	struct pt_reading shorter = t.r;
	shorter.entries = pt_counter_count(l) - 1;
	const struct pt_metric_input in = { &shorter, true, 1.0 };
	assert_int_equal(pt_metric_eval(t.s, &in, t.v), -EINVAL);
	mt_free(&t);
}

static void test_two_endpoints_two_ports(void **state)
{
	const struct pt_test_shape sh = { .e = 2, .p = 2, .rq = 2, .rc = 2,
					  .up = 2, .down = 2, .driven = 6, .hists = 2, .bands = 4 };
	struct mt t;

	(void)state;
	mt_init(&t, &sh, 0);
	assert_int_equal(mt_add1(&t, "{ep}.down_gbps", "sum({down}.gbps)"), 0);
	assert_int_equal(mt_add1(&t, "down_gbps", "sum({ep}.down_gbps)"), 0);
	assert_int_equal(mt_add1(&t, "{ep}.down_items", "sum({ep}.down*.items)"), 0);
	assert_int_equal(mt_add1(&t, "all_down_items", "sum(ep*.down*.items)"), 0);
	assert_int_equal(mt_add1(&t, "{brake}_bus_words", "sum({bus}.words)"), 0);
	mt_eval(&t, true, 1.0);
	expect_family(&t, "{up}.rd_pct", "ep0.up0.rd_pct ep0.up1.rd_pct ep1.up0.rd_pct ep1.up1.rd_pct");
	expect_family(&t, "{pcie_bus}.mpps", "ep0.rq.mpps ep0.rc.mpps ep1.rq.mpps ep1.rc.mpps");
	expect_family(&t, "{ep}.dma_clock_mhz", "ep0.dma_clock_mhz ep1.dma_clock_mhz");
	for (unsigned ep = 0; ep < 2; ep++)
		for (unsigned p = 0; p < 2; p++)
			t.r.cnt[pt_idx_bus(&t.l, ep, 3 + 2 * p, PT_F_ITEMS)] = 1000u * (1 + ep) + 10u * p;
	t.r.cnt[pt_idx_bus(&t.l, 1, 1, PT_F_WORDS)] = 7;
	t.r.cnt[pt_idx_bus(&t.l, 1, 4, PT_F_WORDS)] = 5;
	mt_eval(&t, true, 1.0);
	/* items x 4 bytes x 8 bits over 1 s, in Gbit/s */
	assert_true(mt_val(&t, "ep1.down_gbps")->f == (2000 * 32) / 1e9 + (2010 * 32) / 1e9);
	assert_true(mt_val(&t, "down_gbps")->f ==
		    ((1000 * 32) / 1e9 + (1010 * 32) / 1e9) + ((2000 * 32) / 1e9 + (2010 * 32) / 1e9));
	assert_true(mt_val(&t, "ep1.down_items")->i == 4010);
	assert_true(mt_val(&t, "all_down_items")->i == 1000 + 1010 + 2000 + 2010);
	/* a placeholder beside the metric's ranges over the same endpoint */
	assert_true(mt_val(&t, "ep1.brake.no_free_tag_bus_words")->i == 12);
	assert_true(mt_val(&t, "ep0.brake.no_free_tag_bus_words")->i == 0);
	mt_free(&t);
}

/* firmware-behavior.md 1.4: REGIONS = 2, one real region of 8 items; a
 * 20-item frame over 3 words counts 36 items and 2 cycles for region 1. */
static void test_padded_regions(void **state)
{
	const struct pt_test_shape sh = { .e = 1, .p = 1, .rq = 2, .rc = 1,
					  .up = 2, .down = 1, .driven = 6, .hists = 2, .bands = 4 };
	struct mt t;

	(void)state;
	mt_init(&t, &sh, 0);
	mt_eval(&t, true, 1e-6);
	expect_family(&t, "{padded_bus}.corrected_items", "ep0.rc.corrected_items ep0.down0.corrected_items");
	expect_family(&t, "{region}_pct", "ep0.rq.region0_pct ep0.rq.region1_pct ep0.rc.region0_pct "
					  "ep0.up0.region0_pct ep0.up0.region1_pct ep0.down0.region0_pct");
	const struct pt_layout *l = &t.l;
	uint64_t *c = t.r.cnt;
	c[pt_idx_dma_cycles(l, 0)] = 3;
	c[pt_idx_bus(l, 0, 3, PT_F_WORDS)] = 3;
	c[pt_idx_bus(l, 0, 3, PT_F_TRANSACTIONS)] = 1;
	c[pt_idx_bus(l, 0, 3, PT_F_ITEMS)] = 36;
	c[pt_idx_bus(l, 0, 3, PT_F_REGION0)] = 3;
	c[pt_idx_bus(l, 0, 3, PT_F_REGION0 + 1)] = 2; /* padding */
	mt_eval(&t, true, 1e-6);
	const struct pt_metric_value *v = mt_val(&t, "ep0.down0.corrected_items");
	assert_true(v->is_int && v->i == 20);
	assert_true(mt_val(&t, "ep0.down0.corrected_bytes")->i == 80);
	assert_true(mt_val(&t, "ep0.down0.corrected_gbps")->f == 80 * 8 / 1e-6 / 1e9);
	assert_true(mt_val(&t, "ep0.down0.gbps")->f == 144 * 8 / 1e-6 / 1e9);
	assert_true(mt_val(&t, "ep0.down0.overstatement_pct")->f == 80.0);
	/* Used % counts the real region only */
	assert_true(mt_val(&t, "ep0.down0.used_pct")->f == 100.0);
	/* nothing moved: the over-statement has no denominator */
	assert_true(mt_val(&t, "ep0.rc.corrected_items")->i == 0);
	assert_true(isnan(mt_val(&t, "ep0.rc.overstatement_pct")->f));
	mt_free(&t);
}

static void test_extra_reasons_bands_dma_brakes(void **state)
{
	const struct pt_test_shape sh = { .e = 1, .p = 1, .rq = 1, .rc = 1,
					  .up = 1, .down = 1, .driven = 8, .hists = 3, .bands = 5,
					  .dma_driven = 2, .dma_hists = 1 };
	struct mt t;
	char names[4096];

	(void)state;
	mt_init(&t, &sh, 0);
	assert_int_equal(mt_add1(&t, "{up_brake}_up", "{up_brake}_pct"), 0);
	assert_int_equal(mt_add1(&t, "{down_brake}_down", "{brake}_pct"), 0);
	assert_int_equal(mt_add1(&t, "{band}_of", "{hist}.capacity"), 0);
	assert_int_equal(mt_add1(&t, "{ep}.low_tags_pct", "sum({hist}.none_pct) + 0"), 0);
	mt_eval(&t, true, 1.0);
	family_names(&t, "{brake}_pct", names, sizeof names);
	assert_non_null(strstr(names, "ep0.brake.reason6_pct ep0.brake.reason7_pct"));
	expect_family(&t, "{up_brake}_up", "ep0.brake.no_free_tag_up ep0.brake.tag_not_ready_up "
					   "ep0.brake.no_completion_space_up "
					   "ep0.brake.no_completion_header_up ep0.brake.reason6_up "
					   "ep0.brake.reason7_up");
	expect_family(&t, "{down_brake}_down", "ep0.brake.down_mfb_hold_down ep0.brake.down_mvb_hold_down");
	family_names(&t, "{band}_pct", names, sizeof names);
	assert_non_null(strstr(names, "ep0.hist.tags.band4_pct ep0.hist.stfifo.none_pct"));
	assert_non_null(strstr(names, "ep0.hist.resource2.band4_pct"));
	expect_family(&t, "{dma_brake}_pct", "ep0.dma_brake.reason0_pct ep0.dma_brake.reason1_pct");
	expect_family(&t, "{dma_band}_pct", "ep0.dma_hist.resource0.band0_pct "
					    "ep0.dma_hist.resource0.band1_pct "
					    "ep0.dma_hist.resource0.band2_pct "
					    "ep0.dma_hist.resource0.band3_pct "
					    "ep0.dma_hist.resource0.band4_pct");
	assert_true(mt_val(&t, "ep0.hist.tags.band4_of")->i == 256);
	assert_true(mt_val(&t, "ep0.hist.stfifo.none_of")->i == 1024);
	assert_true(mt_val(&t, "ep0.hist.resource2.none_of")->i == 0);
	t.r.cnt[pt_idx_pcie_cycles(&t.l, 0)] = 100;
	t.r.cnt[pt_idx_dma_cycles(&t.l, 0)] = 50;
	t.r.cnt[pt_idx_brake(&t.l, 0, 7)] = 25;
	t.r.cnt[pt_idx_hist(&t.l, 0, 0, 0)] = 10;
	t.r.cnt[pt_idx_hist(&t.l, 0, 2, 0)] = 5;
	t.r.cnt[pt_idx_dma_brake(&t.l, 0, 1)] = 5;
	t.r.cnt[pt_idx_dma_hist(&t.l, 0, 0, 4)] = 50;
	mt_eval(&t, true, 1.0);
	assert_true(mt_val(&t, "ep0.brake.reason7_pct")->f == 25.0);
	assert_true(mt_val(&t, "ep0.dma_brake.reason1_pct")->f == 10.0);
	assert_true(mt_val(&t, "ep0.dma_hist.resource0.band4_pct")->f == 100.0);
	assert_true(mt_val(&t, "ep0.low_tags_pct")->f == 15.0);
	mt_free(&t);
}

static void test_layout_values(void **state)
{
	const struct pt_test_shape sh = { .e = 2, .p = 1, .rq = 4, .rc = 2,
					  .up = 2, .down = 1, .driven = 6, .hists = 2, .bands = 4,
					  };
	const struct pt_test_sizes sizes = { .item_bytes = 8, .rc_bytes = 64, .down_bytes = 16 };
	static const struct {
		const char *name;
		int64_t v;
	} t[] = {
		{ "item_bytes", 8 },	      { "drain_period", 4096 },	    { "tag_capacity", 256 },
		{ "stfifo_capacity", 1024 },  { "cnt_width", 48 },	    { "endpoints", 2 },
		{ "dma_ports", 1 },	      { "hist_bands", 4 },	    { "lost_deltas", 1 },
		{ "readout_overrun", 0 },     { "ep1.link_up", 1 },	    { "ep1.mps", 256 },
		{ "ep1.mrrs", 512 },	      { "ep1.rcb", 64 },	    { "ep1.ext_tag", 1 },
		{ "ep1.tag_10b", 0 },	      { "ep1.tags_free", 112 },     { "ep1.tags_free_min", 10 },
		{ "ep1.stfifo_free", 313 },   { "ep1.stfifo_free_min", 101 },
		{ "ep1.rq.real_regions", 4 }, { "ep1.rc.real_regions", 2 }, { "ep1.rc.probe_regions", 4 },
		{ "ep1.rc.region_bytes", 64 }, { "ep1.rc.region_items", 8 }, { "ep1.down0.region_items", 2 },
		{ "ep1.down0.cycles", 77 },   { "ep1.rc.cycles", 99 },	    { "ep1.hist.tags.capacity", 256 },
	};
	struct mt m;
	char name[64];

	(void)state;
	mt_init_sized(&m, &sh, &sizes, PT_METRIC_NO_BUILTIN);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		snprintf(name, sizeof name, "v%zu", i);
		assert_int_equal(mt_add1(&m, name, t[i].name), 0);
	}
	assert_int_equal(mt_add1(&m, "s", "seconds"), 0);
	m.r.status = PT_STATUS_LOST_DELTAS;
	m.r.cnt[pt_idx_dma_cycles(&m.l, 1)] = 77;
	m.r.cnt[pt_idx_pcie_cycles(&m.l, 1)] = 99;
	mt_eval(&m, true, 0.25);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		snprintf(name, sizeof name, "v%zu", i);
		const struct pt_metric_value *v = mt_val(&m, name);
		if (!v->is_int || v->i != t[i].v)
			fail_msg("%s = %g, want %lld", t[i].name, v->f, (long long)t[i].v);
	}
	assert_true(mt_val(&m, "s")->f == 0.25);
	mt_eval(&m, false, 0.25);
	assert_true(isnan(mt_val(&m, "s")->f));
	mt_free(&m);
}

static void test_user_metrics_over_builtins(void **state)
{
	struct mt t;

	(void)state;
	mt_init(&t, &std_shape, 0);
	assert_int_equal(mt_add(&t, "[{\"MetricName\": \"{bus}.idle_pct\",\n"
				    " \"MetricExpr\": \"100.0 - {bus}.words_pct\",\n"
				    " \"BriefDescription\": \"cycles without a word\",\n"
				    " \"ScaleUnit\": \"%\", \"MetricGroup\": \"mine;bus\", "
				    "\"Precision\": 1},\n"
				    "{\"MetricName\": \"busiest_pct\",\n"
				    " \"MetricExpr\": \"max({bus}.words_pct)\",\n"
				    " \"BriefDescription\": \"the busiest bus\", \"MetricGroup\": \"mine\"}]"),
			 0);
	t.r.cnt[pt_idx_pcie_cycles(&t.l, 0)] = 8;
	t.r.cnt[pt_idx_dma_cycles(&t.l, 0)] = 8;
	t.r.cnt[pt_idx_bus(&t.l, 0, 1, PT_F_WORDS)] = 2;
	t.r.cnt[pt_idx_bus(&t.l, 0, 3, PT_F_WORDS)] = 6;
	mt_eval(&t, true, 1.0);
	assert_true(mt_val(&t, "ep0.rc.idle_pct")->f == 75.0);
	assert_true(mt_val(&t, "busiest_pct")->f == 75.0);
	const struct pt_metric_info *in = pt_metric_info(t.s, (unsigned)pt_metric_find(t.s, "ep0.rc.idle_pct"));
	assert_string_equal(in->origin, "test.json");
	assert_int_equal(in->line, 1);
	assert_int_equal(in->precision, 1);
	assert_string_equal(in->unit, "%");
	char b[32];
	assert_int_equal(pt_metric_format(in, mt_val(&t, "ep0.rc.idle_pct"), b, sizeof b), 0);
	assert_string_equal(b, "75.0");
	/* user metrics come after the built-in ones, and are evaluated after
	 * what they use whatever the order of the file */
	assert_true(pt_metric_find(t.s, "busiest_pct") > pt_metric_find(t.s, "ep0.rq.words_pct"));
	mt_free(&t);
}

static unsigned selected(const struct mt *t, const char *list, char *names, size_t len)
{
	unsigned idx[512];
	size_t o = 0;
	int n = pt_metric_select(t->s, list, idx, 512, (char *)t->msg, sizeof t->msg);

	names[0] = '\0';
	if (n < 0)
		return 0;
	for (int i = 0; i < n && i < 512; i++)
		o += (size_t)snprintf(names + o, len - o, "%s%s", o ? " " : "",
				      pt_metric_info(t->s, idx[i])->name);
	return (unsigned)n;
}

static void test_select(void **state)
{
	struct mt t;
	char names[8192];

	(void)state;
	mt_init(&t, &std_shape, 0);
	mt_eval(&t, true, 1.0);
	assert_int_equal(selected(&t, "ep0.rq.words_pct", names, sizeof names), 1);
	assert_int_equal(selected(&t, "{up}.rd_pct, ep0.rq.words_pct", names, sizeof names), 2);
	/* in set order, each once */
	assert_string_equal(names, "ep0.rq.words_pct ep0.up0.rd_pct");
	assert_int_equal(selected(&t, "ep*.*.gbps,ep0.rq.gbps", names, sizeof names), 4);
	assert_string_equal(names, "ep0.rq.gbps ep0.rc.gbps ep0.up0.gbps ep0.down0.gbps");
	assert_int_equal(selected(&t, "clock", names, sizeof names), 2);
	assert_string_equal(names, "ep0.pcie_clock_mhz ep0.dma_clock_mhz");
	assert_true(selected(&t, "report", names, sizeof names) > 40);
	assert_int_equal(pt_metric_select(t.s, "ep0.rq.wrods_pct", NULL, 0, t.msg, sizeof t.msg), -EINVAL);
	assert_string_equal(t.msg, "metric 'ep0.rq.wrods_pct': no such metric, family, group or "
				   "matching instance in this layout (--list shows them)");
	assert_int_equal(pt_metric_select(t.s, "clock,,report", NULL, 0, t.msg, sizeof t.msg), -EINVAL);
	assert_non_null(strstr(t.msg, "an empty name"));
	/* a family without instances in this layout selects nothing */
	assert_int_equal(pt_metric_select(t.s, "{padded_bus}.corrected_gbps", NULL, 0, t.msg,
					  sizeof t.msg),
			 -EINVAL);
	/* max limits what is written, not the count */
	unsigned one;
	assert_int_equal(pt_metric_select(t.s, "bus", &one, 1, t.msg, sizeof t.msg),
			 (int)selected(&t, "bus", names, sizeof names));
	mt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_layout),
		cmocka_unit_test(test_default_values),
		cmocka_unit_test(test_two_endpoints_two_ports),
		cmocka_unit_test(test_padded_regions),
		cmocka_unit_test(test_extra_reasons_bands_dma_brakes),
		cmocka_unit_test(test_layout_values),
		cmocka_unit_test(test_user_metrics_over_builtins),
		cmocka_unit_test(test_select),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
