/*
 * The diagnosis on readings built by hand (every cause where it is clear
 * by construction, zero cycles, missing reasons, padded regions, several
 * ports, totals) and on every public register image: the level-1 shares
 * sum to 100 %, level 2 sums to the stalled share, the latency bounds are
 * ordered, and without --diagnose the report stays what it was.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/diagnose.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/telemetry.h"
#include "test_util.h"

/* ---- fixtures --------------------------------------------------------------- */

struct spec {
	unsigned eps, ports, pr, dr, rq, rc, up, down, driven, tags, fifo;
};

static const struct spec one = { 1, 1, 2, 2, 2, 2, 2, 2, 6, 256, 1024 };

struct fix {
	struct pt_layout l;
	struct pt_reading r;
};

static void fix_init(struct fix *f, const struct spec *s)
{
	unsigned pbrakes = s->driven + 8, pch = 1 + 2 * (6 + s->pr) + pbrakes;
	unsigned dch = 1 + 2 * s->ports * (6 + s->dr), entries = 1;
	uint32_t cfg[PT_CFG_REGS] = { 0 };
	char msg[256];

	while (entries < s->eps * (pch + dch))
		entries *= 2;
	cfg[PT_REG_MAGIC / 4] = PT_MAGIC;
	cfg[PT_REG_VERSION / 4] = 0x00020000;
	cfg[PT_REG_CFG_TOPOLOGY / 4] = s->eps | s->ports << 8 | (2 * s->eps) << 16;
	cfg[PT_REG_CFG_LAYOUT / 4] = entries | 48u << 16 | (pch + dch) << 24;
	cfg[PT_REG_CFG_PCIE / 4] = pch | 2u << 8 | s->pr << 16 | pbrakes << 24;
	cfg[PT_REG_CFG_DMA / 4] = dch | (2 * s->ports) << 8 | s->dr << 16;
	cfg[PT_REG_CFG_DRAIN / 4] = 4096 | 4u << 16;
	cfg[PT_REG_CNT_BASE / 4] = 0x8000;
	cfg[PT_REG_CFG_REGIONS / 4] = s->rq | s->rc << 8 | s->up << 16 | s->down << 24;
	cfg[PT_REG_CFG_WIDTH / 4] = 32 | 32u << 16;
	cfg[PT_REG_CFG_HIST / 4] = 4 | 2u << 8;
	cfg[PT_REG_CFG_CAPACITY / 4] = s->tags | s->fifo << 16;
	cfg[PT_REG_CFG_WIDTH_DMA / 4] = 32 | 32u << 16;
	if (pt_layout_decode(cfg, &f->l, msg, sizeof msg))
		fail_msg("layout: %s", msg);
	assert_int_equal(pt_reading_init(&f->r, f->l.entries), 0);
	for (unsigned ep = 0; ep < s->eps; ep++) {
		f->r.pcie_status[ep] = 0x251 | 1u << 9; /* MPS 256, MRRS 512, ext tag, link up */
		f->r.pcie_tags[ep] = 0x00000000;
		f->r.pcie_stfifo[ep] = 0x01000200;
	}
}

static void set(struct fix *f, unsigned b, unsigned field, double share)
{
	uint64_t cycles = f->r.cnt[b < 2 ? pt_idx_pcie_cycles(&f->l, 0) : pt_idx_dma_cycles(&f->l, 0)];

	f->r.cnt[pt_idx_bus(&f->l, 0, b, field)] = (uint64_t)(share * (double)cycles);
}

static void brake(struct fix *f, unsigned k, double share)
{
	f->r.cnt[pt_idx_brake(&f->l, 0, k)] = (uint64_t)(share * 4e6);
}

static void band(struct fix *f, unsigned h, const double s[4])
{
	for (unsigned b = 0; b < 4; b++)
		f->r.cnt[pt_idx_hist(&f->l, 0, h, b)] = (uint64_t)(s[b] * 4e6);
}

/* 4e6 PCIe and 2e6 DMA cycles; reads of 512 B at 50 % of DOWN. */
static void reads(struct fix *f, double down_words)
{
	static const double free_tags[4] = { 0, 0, 0, 1 }, free_fifo[4] = { 0, 0, 0, 1 };

	f->r.cnt[pt_idx_pcie_cycles(&f->l, 0)] = 4000000;
	f->r.cnt[pt_idx_dma_cycles(&f->l, 0)] = 2000000;
	for (unsigned p = 0; p < f->l.dma_ports; p++) {
		unsigned d = 3 + 2 * p, u = 2 + 2 * p;

		set(f, d, PT_F_WORDS, down_words);
		set(f, d, PT_F_ITEMS, down_words * 16);
		set(f, d, PT_F_TRANSACTIONS, down_words / 4);
		set(f, d, PT_F_MVB, down_words / 4);
		set(f, u, PT_F_MVB, down_words / 32);
	}
	set(f, 0, PT_F_WORDS, 0.02);
	set(f, 0, PT_F_TRANSACTIONS, down_words / 16 * f->l.dma_ports);
	set(f, 1, PT_F_WORDS, 0.3);
	set(f, 1, PT_F_TRANSACTIONS, down_words / 8 * f->l.dma_ports);
	band(f, 0, free_tags);
	band(f, 1, free_fifo);
}

static void check_sums(const struct pt_diagnosis *d)
{
	for (unsigned i = 0; i < d->nentries; i++) {
		const struct pt_diag_entry *e = &d->entry[i];
		double s = e->unexplained;

		assert_true(fabs(e->moving + e->stalled + e->idle - 1) < 1e-9);
		for (unsigned c = 0; c < PT_DIAG_CAUSES; c++) {
			assert_true(e->cause[c] >= 0);
			s += e->cause[c];
		}
		assert_true(fabs(s - (e->measured ? e->stalled : 0)) < 1e-9);
		assert_non_null(pt_diag_cause_name(e->bottleneck));
		assert_non_null(pt_diag_cause_advice(e->bottleneck, e->dir));
		assert_true(e->port < (int)PT_MAX_ENDPOINTS * 32);
	}
}

static struct pt_diagnosis *analyze(struct fix *f, bool interval)
{
	struct pt_diagnosis *d;

	assert_int_equal(pt_diag_analyze(&f->l, &f->r, interval, interval ? 0.01 : 0, NULL, &d), 0);
	check_sums(d);
	return d;
}

static void expect(struct fix *f, enum pt_diag_dir dir, enum pt_diag_cause c, int port)
{
	struct pt_diagnosis *d = analyze(f, true);
	const struct pt_diag_entry *e = &d->entry[dir];

	if (e->bottleneck != c || e->port != port)
		fail_msg("%s: %s port %d, expected %s port %d (%s)", pt_diag_dir_name(dir),
			 pt_diag_cause_name(e->bottleneck), e->port, pt_diag_cause_name(c), port, e->why);
	pt_diag_free(d);
}

/* ---- causes by construction ------------------------------------------------- */

static void test_zero_cycles(void **state)
{
	struct fix f;
	struct pt_diagnosis *d;

	(void)state;
	fix_init(&f, &one);
	d = analyze(&f, true);
	for (unsigned i = 0; i < d->nentries; i++) {
		assert_int_equal(d->entry[i].bottleneck, PT_CAUSE_IDLE);
		assert_true(d->entry[i].idle == 1);
	}
	assert_false(d->latency[0].valid);
	pt_diag_free(d);
	pt_reading_free(&f.r);
}

static void test_link_down(void **state)
{
	struct fix f;

	(void)state;
	fix_init(&f, &one);
	reads(&f, 0.5);
	f.r.pcie_status[0] &= ~(1u << 9);
	expect(&f, PT_DIAG_READ, PT_CAUSE_LINK_DOWN, -1);
	expect(&f, PT_DIAG_WRITE, PT_CAUSE_LINK_DOWN, -1);
	pt_reading_free(&f.r);
}

static void test_tags(void **state)
{
	static const double empty[4] = { 0.9, 0.1, 0, 0 };
	struct fix f;

	(void)state;
	fix_init(&f, &one);
	reads(&f, 0.5);
	set(&f, 2, PT_F_MVB_BACKPRESSURE, 0.97);
	brake(&f, PT_BRAKE_NO_FREE_TAG, 0.9);
	band(&f, 0, empty);
	expect(&f, PT_DIAG_READ, PT_CAUSE_PCIE_TAGS, -1);
	expect(&f, PT_DIAG_WRITE, PT_CAUSE_IDLE, -1);
	/* the same reads below the limit: the source */
	set(&f, 2, PT_F_MVB_BACKPRESSURE, 0.2);
	expect(&f, PT_DIAG_READ, PT_CAUSE_SOURCE, -1);
	pt_reading_free(&f.r);
}

static void test_missing_reasons(void **state)
{
	static const double empty[4] = { 0.9, 0.1, 0, 0 };
	struct spec s = one;
	struct fix f;

	(void)state;
	s.driven = 0; /* a firmware that drives no reason: the histogram says it */
	fix_init(&f, &s);
	reads(&f, 0.5);
	set(&f, 2, PT_F_MVB_BACKPRESSURE, 0.97);
	band(&f, 0, empty);
	expect(&f, PT_DIAG_READ, PT_CAUSE_PCIE_TAGS, -1);
	pt_reading_free(&f.r);
}

static void test_space_symptom(void **state)
{
	static const double full[4] = { 0.2, 0.5, 0.3, 0 };
	struct fix f;

	(void)state;
	fix_init(&f, &one);
	reads(&f, 0.5);
	set(&f, 2, PT_F_MVB_BACKPRESSURE, 0.97);
	brake(&f, PT_BRAKE_NO_COMPLETION_SPACE, 0.95);
	/* the FIFO mostly free: the reservation itself limits */
	expect(&f, PT_DIAG_READ, PT_CAUSE_COMPLETION_SPACE, -1);
	/* RC full: the space waits for the link */
	set(&f, 1, PT_F_WORDS, 0.99);
	expect(&f, PT_DIAG_READ, PT_CAUSE_PCIE_LINK, -1);
	/* DOWN refused by the DMA and the FIFO full: the consumer */
	set(&f, 1, PT_F_WORDS, 0.3);
	set(&f, 3, PT_F_BACKPRESSURE, 0.4);
	brake(&f, PT_BRAKE_DOWN_MFB_HOLD, 0.5);
	band(&f, 1, full);
	expect(&f, PT_DIAG_READ, PT_CAUSE_DMA_CONSUMER, 0);
	pt_reading_free(&f.r);
}

static void test_ports(void **state)
{
	struct spec s = one;
	struct fix f;

	(void)state;
	s.ports = 3;
	fix_init(&f, &s);
	reads(&f, 0.3);
	set(&f, 2 + 2 * 1, PT_F_MVB_BACKPRESSURE, 0.97);
	set(&f, 3 + 2 * 2, PT_F_BACKPRESSURE, 0.69); /* port 2 refuses DOWN */
	brake(&f, PT_BRAKE_DOWN_MVB_HOLD, 0.6);
	brake(&f, PT_BRAKE_NO_COMPLETION_SPACE, 0.9);
	expect(&f, PT_DIAG_READ, PT_CAUSE_DMA_CONSUMER, 2);
	/* port 1's DOWN moves a word in every cycle instead */
	set(&f, 3 + 2 * 2, PT_F_BACKPRESSURE, 0);
	set(&f, 3 + 2 * 1, PT_F_WORDS, 1.0);
	expect(&f, PT_DIAG_READ, PT_CAUSE_DMA_BUS, 1);
	pt_reading_free(&f.r);
}

static void test_writes(void **state)
{
	struct fix f;

	(void)state;
	fix_init(&f, &one);
	reads(&f, 0);
	set(&f, 2, PT_F_WORDS, 0.6);
	set(&f, 2, PT_F_ITEMS, 0.6 * 16);
	set(&f, 2, PT_F_TRANSACTIONS, 0.6 / 64);
	set(&f, 2, PT_F_MVB, 0.6 / 64);
	set(&f, 2, PT_F_BACKPRESSURE, 0.39);
	set(&f, 0, PT_F_WORDS, 0.62);
	set(&f, 0, PT_F_BACKPRESSURE, 0.37);
	expect(&f, PT_DIAG_WRITE, PT_CAUSE_PCIE_LINK, -1);
	expect(&f, PT_DIAG_READ, PT_CAUSE_IDLE, -1);
	/* the endpoint refuses although RQ idles half the time */
	set(&f, 0, PT_F_WORDS, 0.3);
	set(&f, 0, PT_F_BACKPRESSURE, 0.2);
	expect(&f, PT_DIAG_WRITE, PT_CAUSE_PCIE_ENDPOINT, -1);
	/* UP moves a word in every cycle */
	set(&f, 2, PT_F_WORDS, 0.99);
	set(&f, 2, PT_F_BACKPRESSURE, 0.01);
	expect(&f, PT_DIAG_WRITE, PT_CAUSE_DMA_BUS, 0);
	pt_reading_free(&f.r);
}

/* ---- latency and corrections -------------------------------------------------- */

static void test_latency_totals(void **state)
{
	static const double empty[4] = { 0.9, 0.1, 0, 0 };
	struct spec s = one;
	struct fix f;
	struct pt_diagnosis *d;
	struct pt_latency t;

	(void)state;
	s.fifo = 4096; /* room for the completions of 256 reads of 512 B */
	fix_init(&f, &s);
	reads(&f, 0.5);
	band(&f, 0, empty);
	d = analyze(&f, false);
	t = d->latency[0];
	pt_diag_free(d);
	assert_true(t.valid);
	assert_false(t.have_ns);
	assert_true(isnan(t.lo_ns) && isnan(t.hi_ns));
	assert_true(t.pool_assumed);
	assert_int_equal(t.pool_lo, 256);
	assert_true(t.lo_cycles > 0 && t.lo_cycles <= t.hi_cycles);
	/* the same counters over 10 ms: cycles at 400 MHz */
	d = analyze(&f, true);
	assert_true(d->latency[0].have_ns);
	assert_true(fabs(d->latency[0].lo_ns - t.lo_cycles * 2.5) < 1e-6 * t.lo_cycles);
	assert_true(d->latency[0].hi_ns / d->latency[0].lo_ns < 1.5);
	pt_diag_free(d);
	pt_reading_free(&f.r);
}

static void test_corrected(void **state)
{
	struct spec s = one;
	struct fix f;
	struct pt_diagnosis *d;

	(void)state;
	s.down = 1; /* one real DOWN region behind a two-region probe */
	fix_init(&f, &s);
	reads(&f, 0.5);
	f.r.cnt[pt_idx_bus(&f.l, 0, 3, PT_F_REGION0 + 1)] = 400000;
	f.r.cnt[pt_idx_bus(&f.l, 0, 3, PT_F_ITEMS)] = 1000000 + 400000 * 8;
	d = analyze(&f, true);
	assert_int_equal(d->ncorr, 1); /* DOWN alone is padded */
	assert_int_equal(d->corr[0].bus, 3);
	assert_int_equal(d->corr[0].padded_items, 400000 * 8);
	assert_int_equal(d->corr[0].real_items, 1000000);
	assert_true(fabs(d->corr[0].gbps - 1000000 * 4 * 8 / 0.01 / 1e9) < 1e-9);
	assert_true(fabs(d->corr[0].overstated_pct - 320) < 1e-9);
	pt_diag_free(d);
	d = analyze(&f, false);
	assert_int_equal(d->ncorr, 1);
	assert_true(isnan(d->corr[0].gbps));
	assert_true(d->corr[0].bytes == 4000000);
	pt_diag_free(d);
	pt_reading_free(&f.r);
}

/* ---- every public register image ---------------------------------------------- */

static char *render(const struct pt_report *rep, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(json ? pt_render_json(m, rep) : pt_render_text(m, rep), 0);
	fclose(m);
	return buf;
}

/* With --diagnose the text gets a section at its end and the JSON one
 * member before its last brace: the rest is what it was. */
static void check_prefix(struct pt_report *rep)
{
	for (int json = 0; json < 2; json++) {
		char *plain, *diag;
		size_t keep;

		rep->diagnose = false;
		plain = render(rep, json);
		rep->diagnose = true;
		diag = render(rep, json);
		keep = strlen(plain) - (json ? 3 : 0); /* "\n}\n" */
		assert_true(strlen(diag) > strlen(plain));
		assert_memory_equal(plain, diag, keep);
		free(plain);
		free(diag);
	}
}

static void one_image(const char *name)
{
	char path[512], msg[PT_BUS_MSG_LEN];
	struct pt_bus *b;
	struct pt_dev d;
	struct pt_reading r0 = { 0 }, r1 = { 0 }, diff = { 0 };
	struct pt_diagnosis *dg;

	snprintf(path, sizeof path, "%s/conformance/report/%s.regs", PT_TEST_DATA, name);
	if (pt_bus_open_image(path, &b, msg, sizeof msg) || pt_dev_init(&d, b, msg, sizeof msg))
		fail_msg("%s: %s", name, msg);
	assert_int_equal(pt_reading_init(&r0, d.layout.entries), 0);
	assert_int_equal(pt_reading_init(&r1, d.layout.entries), 0);
	assert_int_equal(pt_reading_init(&diff, d.layout.entries), 0);
	for (int interval = 0; interval < 2; interval++) {
		struct pt_report rep = { .layout = &d.layout, .reading = &r1 };

		if (pt_dev_measure(&d, interval, &r0, &r1, msg, sizeof msg))
			break;
		if (interval) {
			pt_reading_diff(&d.layout, &r0, &r1, &diff);
			rep = (struct pt_report){ .layout = &d.layout, .reading = &diff,
						  .interval = true, .seconds = r1.time - r0.time };
		}
		assert_int_equal(pt_diag_analyze(rep.layout, rep.reading, rep.interval, rep.seconds,
						 NULL, &dg),
				 0);
		check_sums(dg);
		for (unsigned ep = 0; ep < d.layout.endpoints; ep++) {
			const struct pt_latency *t = &dg->latency[ep];

			if (t->valid && !(t->lo_cycles <= t->hi_cycles))
				fail_msg("%s ep %u: latency %g > %g cycles (reads %g..%g, in use "
					 "%g..%g)",
					 name, ep, t->lo_cycles, t->hi_cycles, t->reads_lo,
					 t->reads_hi, t->inuse_lo, t->inuse_hi);
		}
		pt_diag_free(dg);
		check_prefix(&rep);
	}
	pt_reading_free(&r0);
	pt_reading_free(&r1);
	pt_reading_free(&diff);
	pt_bus_close(b);
}

static void test_images(void **state)
{
	static const char *const names[] = {
		"all_zero_totals", "basic_t1",	    "cnt33",	       "cnt64_totals",
		"down_traffic_only", "four_ep_wide", "huge_totals_64", "link_down_ep1",
		"one_region_64B",  "padding_regions", "region_bytes_16", "two_ep_two_ports",
		"unnamed_reasons", "up_only_brakes", "up_traffic_only", "wrap33",
		"zero_cycles",	   "zero_interval",  "flag_lost_deltas", "round_ties",
	};

	(void)state;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		one_image(names[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_cycles),	cmocka_unit_test(test_link_down),
		cmocka_unit_test(test_tags),		cmocka_unit_test(test_missing_reasons),
		cmocka_unit_test(test_space_symptom),	cmocka_unit_test(test_ports),
		cmocka_unit_test(test_writes),		cmocka_unit_test(test_latency_totals),
		cmocka_unit_test(test_corrected),	cmocka_unit_test(test_images),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
