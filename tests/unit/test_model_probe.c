/*
 * The probe model (PCIE_TELEMETRY_PROBE with its ASFIFOX):
 *  - every probe golden vector, in-process through ptm_trace_probe_run,
 *    byte for byte against the expected file without its comments;
 *  - conservation: random well-formed traffic on many generic sets; after
 *    the traffic stops and the last sweep is read out, the deltas of every
 *    channel add up to what an independent reference counts from the
 *    stimulus (frames, words, stalls, MVB, brakes, elapsed cycles);
 *  - the batch entry points equal the same number of single edges, in
 *    every observable (outputs, flags, statistics, and a further run);
 *  - malformed traces: -EINVAL and "FILE:LINE: ..." naming the field.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/probe_priv.h"
#include "pcie_telemetry/model.h"
#include "pcie_telemetry/trace.h"
#include "test_util.h"

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}
static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }

/* The expected file without its `#` comment lines. */
static char *strip_comments(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1), *o = out;
	assert_non_null(out);
	const char *p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p + 1) : strlen(p);
		if (p[0] != '#') {
			memcpy(o, p, l);
			o += l;
		}
		p += l;
	}
	*o = '\0';
	return out;
}

static int run_trace_text(const char *name, const char *text, char **out, char *msg, size_t msglen)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(in);
	size_t len = 0;
	*out = NULL;
	FILE *o = open_memstream(out, &len);
	assert_non_null(o);
	int rc = ptm_trace_probe_run(in, name, o, msg, msglen);
	fclose(o);
	fclose(in);
	return rc;
}

/* ------------------------------------------------------------------ */
/* golden vectors                                                      */

static void test_vectors(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/conformance/probe", PT_TEST_DATA);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	unsigned count = 0, bad = 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 7 || strcmp(de->d_name + l - 6, ".trace") != 0)
			continue;
		char tpath[4200], epath[4200];
		snprintf(tpath, sizeof(tpath), "%s/%s", dir, de->d_name);
		snprintf(epath, sizeof(epath), "%s/%.*s.expected", dir, (int)(l - 6), de->d_name);
		size_t tl, el;
		char *trace = pt_test_slurp(tpath, &tl), *exp = pt_test_slurp(epath, &el);
		assert_non_null(trace);
		assert_non_null(exp);
		char *want = strip_comments(exp), *got = NULL, msg[512] = "";
		int rc = run_trace_text(de->d_name, trace, &got, msg, sizeof(msg));
		if (rc != 0) {
			print_error("%s: rc %d: %s\n", de->d_name, rc, msg);
			bad++;
		} else if (strcmp(got, want) != 0) {
			/* first differing line */
			const char *a = got, *b = want;
			unsigned line = 1;
			while (*a && *a == *b) {
				if (*a == '\n')
					line++;
				a++;
				b++;
			}
			print_error("%s: output line %u differs\n", de->d_name, line);
			bad++;
		}
		count++;
		free(trace);
		free(exp);
		free(want);
		free(got);
	}
	closedir(d);
	assert_true(count >= 13);
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------------ */
/* conservation under random traffic                                   */

#define TB 32 /* buses a test probe may have */
struct ref {
	uint64_t words[TB], stall[TB], sof[TB], mvb[TB], mstall[TB], items[TB], region[TB][16];
	uint64_t brake[32];
};

/* Well-formed MFB framing of one bus: frames of random length, each
 * starting at the first item of a region, possibly several per word. */
struct framer {
	unsigned remaining; /* items left of the open frame, 0 = none open */
	int have_word;      /* a word is prepared and waits to move */
	struct ptm_bus_in w;
	unsigned w_items, w_sofs, w_regions;
	uint32_t w_rmask;
	int src;
};

static void prepare_word(struct framer *f, unsigned regions, unsigned ri, int allow_new)
{
	memset(&f->w, 0, sizeof(f->w));
	f->w_items = f->w_sofs = 0;
	f->w_rmask = 0;
	for (unsigned r = 0; r < regions; r++) {
		if (!f->remaining) {
			if (!allow_new || rndn(3) == 0)
				continue; /* empty region */
			f->remaining = 1 + rndn(3 * ri + 2);
			f->w.sof |= 1u << r;
			f->w_sofs++;
		}
		f->w_rmask |= 1u << r;
		if (f->remaining <= ri) {
			f->w.eof |= 1u << r;
			f->w.eof_pos[r] = (uint16_t)(f->remaining - 1);
			f->w_items += f->remaining;
			f->remaining = 0;
		} else {
			f->w_items += ri;
			f->remaining -= ri;
		}
	}
}

struct pgen {
	struct ptm_probe_generics g;
	unsigned mi_per_clk; /* MI edges after each CLK edge */
};

static void random_generics(struct pgen *pg)
{
	memset(pg, 0, sizeof(*pg));
	struct ptm_probe_generics *g = &pg->g;
	g->buses = 1 + rndn(4);
	g->regions = 1 + rndn(4);
	unsigned imax = 1;
	for (unsigned b = 0; b < g->buses; b++) {
		g->region_items[b] = 1 + rndn(16);
		if (g->region_items[b] > imax)
			imax = g->region_items[b];
	}
	unsigned w = 0;
	while ((1u << w) < imax)
		w++;
	g->eof_pos_width = w + rndn(2);
	g->brakes = rndn(15);
	unsigned ch = 1 + g->buses * (6 + g->regions) + g->brakes;
	unsigned sweep = 8 * ((ch + 7) / 8 + 1);
	unsigned dp = 16;
	while (dp <= sweep)
		dp *= 2;
	dp <<= rndn(4);
	if (dp > 4096)
		dp = 4096;
	g->drain_period = dp;
	pg->mi_per_clk = 1 + rndn(3);
}

/* with_mi_reset: MI_RESET is asserted in the middle of the traffic; the
 * probe, its counters and its FIFO restart, and the count starts again
 * after the reset window the spec gives (3 CLK edges after it falls). */
static void conservation_one(const struct pgen *pg, unsigned traffic_edges, int with_mi_reset)
{
	const struct ptm_probe_generics *g = &pg->g;
	char msg[256];
	ptm_probe *p = NULL;
	int rc = ptm_probe_new(g, &p, msg, sizeof(msg));
	if (rc)
		fail_msg("ptm_probe_new: %s", msg);
	const unsigned B = g->buses, R = g->regions, ch = ptm_probe_channels(p);
	struct ref ref;
	memset(&ref, 0, sizeof(ref));
	struct framer fr[TB];
	memset(fr, 0, sizeof(fr));
	struct ptm_bus_in in[TB];
	uint64_t *sum = calloc(ch, sizeof(*sum));
	assert_non_null(sum);
	uint64_t pops = 0, ticks = 0, last_tick = 0, last_reset = 0;
	uint64_t edge = 0;
	unsigned reset_edges = 2 + rndn(3);
	unsigned idle_edges = 3 * g->drain_period + 200;
	struct ptm_probe_info info;
	ptm_probe_info(p, &info);
	unsigned stall_pct = rndn(60), idle_pct = rndn(40), brake_pct = rndn(50);
	/* MI_RESET = 1 on the MI edges after CLK edges mr_a..mr_b, so CLK
	 * edges mr_a+1 .. mr_b+4 are reset edges */
	const uint64_t mr_a = with_mi_reset ? reset_edges + traffic_edges / 2 : UINT64_MAX - 8;
	const uint64_t mr_b = mr_a + rndn(5);
	uint64_t flushed_before = 0, in_fifo = 0;

	/* idle until the last sweep has written all its deltas */
	for (uint64_t n = 0; n < reset_edges + traffic_edges + idle_edges ||
			     edge < last_tick + info.sweep_cycles + 4;
	     n++, edge++) {
		int rst = n < reset_edges;
		/* the probe is also in reset at edges 0..2 after power-up */
		int held = rst || n <= 2 || (n >= mr_a + 1 && n <= mr_b + 4);
		/* quirk: MVB handshake registers are not reset, so the MVB
		 * activity of the last reset edge is counted */
		const uint64_t last_held = with_mi_reset ? mr_b + 4
					   : reset_edges - 1 > 2 ? reset_edges - 1 : 2;
		if (n > reset_edges)
			assert_int_equal(ptm_probe_in_reset(p), held);
		int traffic = !rst && n < reset_edges + traffic_edges;
		/* frames close before the traffic ends and before the MI reset
		 * (the probe forgets an open frame when it is reset) */
		int closing = traffic && (n >= reset_edges + traffic_edges - 64 ||
					  (n + 400 >= mr_a && n <= mr_b + 4));
		uint32_t brake = 0;
		memset(in, 0, sizeof(in));
		for (unsigned b = 0; b < B; b++) {
			struct framer *f = &fr[b];
			if (traffic || f->remaining || f->have_word) {
				if (!f->have_word && (rndn(100) >= idle_pct || f->remaining)) {
					prepare_word(f, R, g->region_items[b], traffic && !closing);
					f->have_word = f->w_rmask != 0;
				}
			}
			if (f->have_word) {
				in[b] = f->w;
				in[b].src_rdy = 1;
				in[b].dst_rdy = rndn(100) >= stall_pct;
			} else {
				/* idle: random garbage framing must not count */
				in[b].sof = (uint32_t)rnd() & ((1u << R) - 1);
				in[b].eof = (uint32_t)rnd() & ((1u << R) - 1);
				in[b].dst_rdy = (uint8_t)rndn(2);
			}
			if (traffic || n == last_held) {
				in[b].mvb_src_rdy = (uint8_t)(rndn(100) < 60);
				in[b].mvb_dst_rdy = (uint8_t)(rndn(100) >= stall_pct);
				in[b].mvb_vld = (uint32_t)rnd() & ((1u << R) - 1);
			}
			if (!held) {
				if (in[b].src_rdy && in[b].dst_rdy) {
					ref.words[b]++;
					ref.sof[b] += f->w_sofs;
					ref.items[b] += f->w_items;
					for (unsigned r = 0; r < R; r++)
						ref.region[b][r] += (f->w_rmask >> r) & 1;
					f->have_word = 0;
				} else if (in[b].src_rdy) {
					ref.stall[b]++;
				}
			}
			/* MVB is counted also at the last reset edge (quirk),
			 * keep it quiet during reset for a clean reference */
			if ((!held || n == last_held) && in[b].mvb_src_rdy) {
				if (in[b].mvb_dst_rdy)
					ref.mvb[b] += (unsigned)__builtin_popcount(in[b].mvb_vld);
				else
					ref.mstall[b]++;
			}
		}
		if (traffic && !held && g->brakes) {
			for (unsigned k = 0; k < g->brakes; k++)
				if (rndn(100) < brake_pct) {
					brake |= 1u << k;
					ref.brake[k]++;
				}
		}
		if (held)
			last_reset = edge;
		struct ptm_probe_clk_out co;
		ptm_probe_clk(p, rst, in, brake, &co);
		if (co.drain_tick) {
			ticks++;
			last_tick = edge;
		}
		if (co.wr_dropped)
			fail_msg("delta dropped at edge %llu (MI reset %llu..%llu, last tick %llu, dp %u)",
				 (unsigned long long)edge, (unsigned long long)mr_a,
				 (unsigned long long)mr_b, (unsigned long long)last_tick, g->drain_period);
		const int mi_rst = n >= mr_a && n <= mr_b;
		if (n == mr_a) {
			for (unsigned b = 0; b < B; b++)
				assert_true(!fr[b].remaining && !fr[b].have_word);
			/* everything counted so far is discarded */
			struct ptm_probe_stats st;
			ptm_probe_stats(p, &st);
			flushed_before = st.flushed;
			/* deltas written and not yet read out: the reset loses them */
			in_fifo = st.writes - st.dropped - st.popped - st.flushed;
			memset(&ref, 0, sizeof(ref));
			memset(sum, 0, ch * sizeof(*sum));
			pops = 0;
			ticks = 0;
		}
		for (unsigned i = 0; i < pg->mi_per_clk; i++) {
			struct ptm_probe_mi_out mo;
			ptm_probe_mi_clk(p, mi_rst, 0, 1, &mo);
			assert_true(!mi_rst || !mo.vld);
			if (mo.vld) {
				assert_true(mo.index < ch);
				sum[mo.index] += mo.delta;
				pops++;
			}
		}
	}
	for (unsigned i = 0; i < 400; i++) {
		struct ptm_probe_mi_out mo;
		ptm_probe_mi_clk(p, 0, 0, 1, &mo);
		if (mo.vld) {
			sum[mo.index] += mo.delta;
			pops++;
		}
	}
	if (with_mi_reset) {
		/* exactly the deltas in the FIFO at the reset were lost */
		struct ptm_probe_stats st;
		ptm_probe_stats(p, &st);
		assert_int_equal(st.flushed - flushed_before, in_fifo);
	}
	struct ptm_probe_mi_out fl;
	ptm_probe_tx(p, &fl);
	assert_int_equal(fl.fifo_ovf, 0);
	assert_int_equal(fl.overrun, 0);
	assert_true(ticks >= 3);
	assert_int_equal(pops, ticks * ch);
	/* elapsed cycles: from two edges after the last reset edge up to the
	 * last capture of slot 0, one edge after the last tick */
	assert_int_equal(sum[0], last_tick + 1 - last_reset - 2);
	for (unsigned b = 0; b < B; b++) {
		const uint64_t *c = sum + 1 + b * (6 + R);
		assert_int_equal(c[0], ref.words[b]);
		assert_int_equal(c[1], ref.stall[b]);
		assert_int_equal(c[2], ref.sof[b]);
		assert_int_equal(c[3], ref.mvb[b]);
		assert_int_equal(c[4], ref.mstall[b]);
		assert_int_equal(c[5], ref.items[b]);
		for (unsigned r = 0; r < R; r++)
			assert_int_equal(c[6 + r], ref.region[b][r]);
	}
	for (unsigned k = 0; k < g->brakes; k++)
		assert_int_equal(sum[1 + B * (6 + R) + k], ref.brake[k]);
	free(sum);
	ptm_probe_free(p);
}

static void test_conservation(void **state)
{
	(void)state;
	rng_state = 0x9e3779b97f4a7c15ull;
	for (unsigned i = 0; i < 40; i++) {
		struct pgen pg;
		random_generics(&pg);
		conservation_one(&pg, 2000 + rndn(6000), i % 3 == 2);
	}
}

/* The default PCIe-side probe and the largest FIFO a 4-bus probe has. */
static void test_conservation_fixed(void **state)
{
	(void)state;
	rng_state = 12345;
	struct pgen pg = { .g = { .buses = 2, .regions = 2, .region_items = { 8, 8 },
				  .eof_pos_width = 3, .brakes = 14, .drain_period = 4096 },
			   .mi_per_clk = 1 };
	conservation_one(&pg, 20000, 0);
	conservation_one(&pg, 20000, 1);
	struct pgen pg2 = { .g = { .buses = 4, .regions = 4, .region_items = { 3, 5, 7, 16 },
				   .eof_pos_width = 4, .brakes = 14, .drain_period = 128 },
			    .mi_per_clk = 2 };
	conservation_one(&pg2, 5000, 1);
	/* the general paths: more than 4 regions, more than 4 buses */
	struct pgen pg3 = { .g = { .buses = 3, .regions = 8, .region_items = { 4, 6, 8 },
				   .eof_pos_width = 3, .brakes = 5, .drain_period = 256 },
			    .mi_per_clk = 2 };
	conservation_one(&pg3, 6000, 1);
	struct pgen pg4 = { .g = { .buses = 8, .regions = 16, .region_items = { 8, 8, 8, 8, 16, 16, 2, 1 },
				   .eof_pos_width = 4, .brakes = 0, .drain_period = 512 },
			    .mi_per_clk = 3 };
	conservation_one(&pg4, 6000, 0);
	struct pgen pg5 = { .g = { .buses = 32, .regions = 1, .region_items = { 0 },
				   .eof_pos_width = 3, .brakes = 32, .drain_period = 1024 },
			    .mi_per_clk = 3 };
	for (unsigned b = 0; b < 32; b++)
		pg5.g.region_items[b] = 1 + b % 8;
	conservation_one(&pg5, 4000, 1);
}

/* ------------------------------------------------------------------ */
/* batch == single edges                                               */

static void random_inputs(const struct ptm_probe_generics *g, struct ptm_bus_in *in,
			  uint32_t *brake)
{
	memset(in, 0, sizeof(*in) * g->buses);
	for (unsigned b = 0; b < g->buses; b++) {
		uint32_t rm = (1u << g->regions) - 1;
		in[b].sof = (uint32_t)rnd() & rm;
		in[b].eof = (uint32_t)rnd() & rm;
		in[b].mvb_vld = (uint32_t)rnd() & rm;
		for (unsigned r = 0; r < g->regions; r++)
			in[b].eof_pos[r] = (uint16_t)rndn(1u << g->eof_pos_width);
		in[b].src_rdy = (uint8_t)rndn(2);
		in[b].dst_rdy = (uint8_t)rndn(2);
		in[b].mvb_src_rdy = (uint8_t)rndn(2);
		in[b].mvb_dst_rdy = (uint8_t)rndn(2);
	}
	*brake = (uint32_t)rnd();
}

static void assert_same_stats(const ptm_probe *a, const ptm_probe *b)
{
	struct ptm_probe_stats sa, sb;
	ptm_probe_stats(a, &sa);
	ptm_probe_stats(b, &sb);
	assert_int_equal(sa.edges, sb.edges);
	assert_int_equal(sa.ticks, sb.ticks);
	assert_int_equal(sa.writes, sb.writes);
	assert_int_equal(sa.dropped, sb.dropped);
	assert_int_equal(sa.flushed, sb.flushed);
	assert_int_equal(sa.popped, sb.popped);
	struct ptm_probe_mi_out ta, tb;
	ptm_probe_tx(a, &ta);
	ptm_probe_tx(b, &tb);
	assert_int_equal(ta.vld, tb.vld);
	assert_int_equal(ta.index, tb.index);
	assert_int_equal(ta.delta, tb.delta);
	assert_int_equal(ta.fifo_ovf, tb.fifo_ovf);
	assert_int_equal(ta.overrun, tb.overrun);
	assert_int_equal(ptm_probe_in_reset(a), ptm_probe_in_reset(b));
}

/* Both probes run the same random stimulus with MI edges; every output
 * must agree. */
static void lockstep(ptm_probe *a, ptm_probe *b, const struct ptm_probe_generics *g, unsigned n,
		     int steady_pct)
{
	struct ptm_bus_in in[TB];
	uint32_t brake = 0;
	random_inputs(g, in, &brake);
	for (unsigned i = 0; i < n; i++) {
		if ((int)rndn(100) >= steady_pct)
			random_inputs(g, in, &brake);
		int rst = rndn(500) == 0;
		struct ptm_probe_clk_out ca, cb;
		memset(&ca, 0, sizeof(ca));
		memset(&cb, 0, sizeof(cb));
		ptm_probe_clk(a, rst, in, brake, &ca);
		ptm_probe_clk(b, rst, in, brake, &cb);
		assert_memory_equal(&ca, &cb, sizeof(ca));
		unsigned mi = rndn(3);
		int fl = rndn(300) == 0;
		int mr = rndn(400) == 0;
		for (unsigned k = 0; k < mi; k++) {
			struct ptm_probe_mi_out ma, mb;
			memset(&ma, 0, sizeof(ma));
			memset(&mb, 0, sizeof(mb));
			int rd = rndn(10) != 0;
			ptm_probe_mi_clk(a, mr, fl, rd, &ma);
			ptm_probe_mi_clk(b, mr, fl, rd, &mb);
			assert_memory_equal(&ma, &mb, sizeof(ma));
		}
	}
}

static void test_batch_equals_single(void **state)
{
	(void)state;
	rng_state = 0xabcdef12345ull;
	for (unsigned t = 0; t < 60; t++) {
		struct pgen pg;
		random_generics(&pg);
		const struct ptm_probe_generics *g = &pg.g;
		char msg[256];
		ptm_probe *a = NULL, *b = NULL;
		assert_int_equal(ptm_probe_new(g, &a, msg, sizeof(msg)), 0);
		assert_int_equal(ptm_probe_new(g, &b, msg, sizeof(msg)), 0);
		ptm_probe_debug_slow(b, t % 2);
		for (unsigned round = 0; round < 6; round++) {
			lockstep(a, b, g, 50 + rndn(3 * g->drain_period), 90);
			struct ptm_bus_in in[TB];
			uint32_t brake;
			random_inputs(g, in, &brake);
			int rst = rndn(6) == 0;
			uint64_t n = rndn(4) == 0 ? rndn(8) : rndn(5 * g->drain_period + 100);
			uint64_t ticks = ptm_probe_clk_batch(a, rst, in, brake, n);
			uint64_t t1 = 0;
			for (uint64_t i = 0; i < n; i++) {
				struct ptm_probe_clk_out co;
				ptm_probe_clk(b, rst, in, brake, &co);
				t1 += co.drain_tick;
			}
			assert_int_equal(ticks, t1);
			assert_same_stats(a, b);
			/* MI batch against single MI edges */
			int rd = rndn(4) != 0, fl = rndn(2), mr = rndn(8) == 0;
			uint64_t m = rndn(3) == 0 ? rndn(6) : rndn(200);
			struct ptm_probe_mi_out la = { 0 }, lb = { 0 };
			uint64_t pa = ptm_probe_mi_clk_batch(a, mr, fl, rd, m, &la), pb = 0;
			for (uint64_t i = 0; i < m; i++) {
				struct ptm_probe_mi_out mo;
				ptm_probe_mi_clk(b, mr, fl, rd, &mo);
				if (mo.vld) {
					pb++;
					lb = mo;
				}
			}
			assert_int_equal(pa, pb);
			if (pa) {
				assert_int_equal(la.index, lb.index);
				assert_int_equal(la.delta, lb.delta);
			}
			assert_same_stats(a, b);
		}
		lockstep(a, b, g, 3 * g->drain_period, 50);
		assert_same_stats(a, b);
		ptm_probe_free(a);
		ptm_probe_free(b);
	}
}

/* The optimised model (fast edge paths, quiet FIFO sides, batches) against
 * the plain one, every output and the FIFO output register at every edge. */
static void test_shortcuts_exact(void **state)
{
	(void)state;
	rng_state = 0x5eed5eedull;
	for (unsigned t = 0; t < 33; t++) {
		struct pgen pg;
		random_generics(&pg);
		if (t == 30) /* the general paths: more regions, more buses */
			pg.g = (struct ptm_probe_generics){ .buses = 3, .regions = 8,
				.region_items = { 4, 6, 8 }, .eof_pos_width = 3, .brakes = 5,
				.drain_period = 256 };
		if (t == 31)
			pg.g = (struct ptm_probe_generics){ .buses = 8, .regions = 16,
				.region_items = { 8, 8, 8, 8, 16, 16, 2, 1 }, .eof_pos_width = 4,
				.brakes = 0, .drain_period = 512 };
		if (t == 32) {
			pg.g = (struct ptm_probe_generics){ .buses = 32, .regions = 1,
				.eof_pos_width = 3, .brakes = 32, .drain_period = 1024 };
			for (unsigned b = 0; b < 32; b++)
				pg.g.region_items[b] = 1 + b % 8;
		}
		const struct ptm_probe_generics *g = &pg.g;
		char msg[256];
		ptm_probe *a = NULL, *b = NULL;
		assert_int_equal(ptm_probe_new(g, &a, msg, sizeof(msg)), 0);
		assert_int_equal(ptm_probe_new(g, &b, msg, sizeof(msg)), 0);
		ptm_probe_debug_slow(b, 1);
		struct ptm_bus_in in[TB];
		uint32_t brake = 0;
		random_inputs(g, in, &brake);
		int mr = 0, fl = 0;
		for (unsigned i = 0; i < 6 * g->drain_period; i++) {
			if (rndn(100) < 20)
				random_inputs(g, in, &brake);
			int rst = rndn(1000) == 0;
			if (rndn(700) == 0)
				mr = !mr;
			if (mr && rndn(4) == 0)
				mr = 0;
			if (rndn(500) == 0)
				fl = !fl;
			struct ptm_probe_clk_out ca, cb;
			memset(&ca, 0, sizeof(ca));
			memset(&cb, 0, sizeof(cb));
			ptm_probe_clk(a, rst, in, brake, &ca);
			ptm_probe_clk(b, rst, in, brake, &cb);
			assert_memory_equal(&ca, &cb, sizeof(ca));
			unsigned mi = rndn(4);
			for (unsigned k = 0; k < mi; k++) {
				struct ptm_probe_mi_out ma, mb;
				memset(&ma, 0, sizeof(ma));
				memset(&mb, 0, sizeof(mb));
				int rd = rndn(8) != 0;
				ptm_probe_mi_clk(a, mr, fl, rd, &ma);
				ptm_probe_mi_clk(b, mr, fl, rd, &mb);
				assert_memory_equal(&ma, &mb, sizeof(ma));
			}
			assert_same_stats(a, b);
		}
		ptm_probe_free(a);
		ptm_probe_free(b);
	}
}

/* n CLK edges: a batch on a, single edges on b; the DRAIN_TICKs agree.
 * brake1 != brake: BRAKE brake1 at the first edge (ptm_probe_clk_batch2). */
static uint64_t clk_both(ptm_probe *a, ptm_probe *b, int rst, const struct ptm_bus_in *in,
			 uint32_t brake1, uint32_t brake, uint64_t n)
{
	uint64_t ta = brake1 != brake ? ptm_probe_clk_batch2(a, in, brake1, brake, n)
				      : ptm_probe_clk_batch(a, rst, in, brake, n);
	uint64_t tb = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct ptm_probe_clk_out co;
		ptm_probe_clk(b, rst, in, i ? brake : brake1, &co);
		tb += co.drain_tick;
	}
	assert_int_equal(ta, tb);
	return ta;
}

/* n MI edges on both, their outputs compared. */
static void mi_both(ptm_probe *a, ptm_probe *b, int mi_rst, int fl, int rd, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		struct ptm_probe_mi_out ma, mb;
		memset(&ma, 0, sizeof(ma));
		memset(&mb, 0, sizeof(mb));
		ptm_probe_mi_clk(a, mi_rst, fl, rd, &ma);
		ptm_probe_mi_clk(b, mi_rst, fl, rd, &mb);
		assert_memory_equal(&ma, &mb, sizeof(ma));
	}
}

/* Two default PCIe probes (2 buses of 2 regions, 14 BRAKEs). */
static void pcie_pair(unsigned drain_period, ptm_probe **a, ptm_probe **b)
{
	struct ptm_probe_generics g = { .buses = 2, .regions = 2, .region_items = { 8, 8 },
					.eof_pos_width = 3, .brakes = 14,
					.drain_period = drain_period };
	char msg[256];
	assert_int_equal(ptm_probe_new(&g, a, msg, sizeof(msg)), 0);
	assert_int_equal(ptm_probe_new(&g, b, msg, sizeof(msg)), 0);
}

/* Every CLK-side register of a against b (the plain model, single edges),
 * in the representation-independent form of ptm_probe_debug_regs. */
static void assert_same_regs(const ptm_probe *a, const ptm_probe *b, const char *what, int step)
{
	static uint64_t ca[1024], cb[1024], ga[128], gb[128];
	struct ptm_probe_regs ra, rb;
	struct ptm_probe_info info;
	ptm_probe_info(a, &info);
	ptm_probe_debug_regs(a, &ra, ca, ga);
	ptm_probe_debug_regs(b, &rb, cb, gb);
	if (memcmp(&ra, &rb, sizeof(ra)) != 0)
		fail_msg("%s, step %d: registers differ: period %u/%u pos %u/%u slot %u/%u run %u/%u "
			 "frame_open %x/%x wr_en %u/%u ovf %u/%u",
			 what, step, ra.period, rb.period, ra.pos, rb.pos, ra.slot, rb.slot, ra.run,
			 rb.run, ra.frame_open, rb.frame_open, ra.wr_en, rb.wr_en, ra.ovf, rb.ovf);
	for (unsigned c = 0; c < info.groups * 8; c++)
		if (ca[c] != cb[c])
			fail_msg("%s, step %d: counter %u: batch %llu, plain %llu", what, step, c,
				 (unsigned long long)ca[c], (unsigned long long)cb[c]);
	assert_memory_equal(ga, gb, info.groups * sizeof(ga[0]));
	assert_same_stats(a, b);
}

/* Change each bus with probability pct (and the BRAKE bits). */
static void change_inputs(const struct ptm_probe_generics *g, struct ptm_bus_in *in,
			  uint32_t *brake, unsigned pct)
{
	struct ptm_bus_in fresh[TB];
	uint32_t br;
	random_inputs(g, fresh, &br);
	for (unsigned b = 0; b < g->buses; b++)
		if (rndn(100) < pct)
			in[b] = fresh[b];
	if (rndn(100) < pct / 2)
		*brake = br;
}

/*
 * The batch representation (probe_batch.c) against the plain model edge
 * by edge: random generics, batches of every length (mostly 1..3 edges,
 * where the first edges of a batch and the history of the last ones
 * matter), inputs changing on some buses at every batch (and BRAKE after
 * the first edge: ptm_probe_clk_batch2), single edges in
 * between (back to the eager representation), MI edges with reads, flag
 * clears and MI resets, CLK resets in the middle of sweeps; every
 * register and counter compared after every call.
 */
static void test_batch_lockstep_regs(void **state)
{
	(void)state;
	rng_state = 0x1234567887654321ull;
	for (unsigned t = 0; t < 40; t++) {
		struct pgen pg;
		random_generics(&pg);
		if (t == 38) /* the general paths: more regions, more buses */
			pg.g = (struct ptm_probe_generics){ .buses = 3, .regions = 8,
				.region_items = { 4, 6, 8 }, .eof_pos_width = 3, .brakes = 5,
				.drain_period = 256 };
		if (t == 39) {
			pg.g = (struct ptm_probe_generics){ .buses = 32, .regions = 1,
				.eof_pos_width = 3, .brakes = 32, .drain_period = 1024 };
			for (unsigned b = 0; b < 32; b++)
				pg.g.region_items[b] = 1 + b % 8;
		}
		const struct ptm_probe_generics *g = &pg.g;
		char msg[256], what[64];
		snprintf(what, sizeof(what), "generics %u", t);
		ptm_probe *a = NULL, *b = NULL;
		assert_int_equal(ptm_probe_new(g, &a, msg, sizeof(msg)), 0);
		assert_int_equal(ptm_probe_new(g, &b, msg, sizeof(msg)), 0);
		ptm_probe_debug_slow(b, 1);
		struct ptm_bus_in in[TB];
		uint32_t brake = 0;
		random_inputs(g, in, &brake);
		int rst = 1, fl = 0, mr = 0;
		const unsigned pct = 10 + rndn(60);
		for (int step = 0; step < 1500; step++) {
			unsigned op = rndn(100);
			if (step == 3)
				rst = 0;
			if (op < 2)
				rst = !rst; /* a reset anywhere, for one or more calls */
			else if (rst && op < 30)
				rst = 0;
			if (op < 60) {
				change_inputs(g, in, &brake, pct);
				unsigned k = rndn(100);
				uint64_t n = k < 55 ? 1 + rndn(3) : k < 85 ? 4 + rndn(60)
					   : rndn(3 * g->drain_period);
				/* sometimes a BRAKE change after the first edge */
				const uint32_t brake1 = !rst && rndn(4) == 0 ? (uint32_t)rnd() : brake;
				clk_both(a, b, rst, in, brake1, brake, n);
			} else if (op < 68) {
				change_inputs(g, in, &brake, pct);
				ptm_probe_clk(a, rst, in, brake, NULL);
				ptm_probe_clk(b, rst, in, brake, NULL);
			} else {
				if (rndn(100) == 0)
					fl = !fl;
				mr = rndn(150) == 0;
				for (unsigned k = 1 + rndn(4); k; k--)
					mi_both(a, b, mr, fl, rndn(5) != 0, 1);
			}
			assert_same_regs(a, b, what, step);
		}
		ptm_probe_free(a);
		ptm_probe_free(b);
	}
}

/* A CLK batch while MI_RESET is held does the CLK side's reset edge: the
 * FIFO_OVF of an overflow before the reset must not come back after it
 * (the batch once skipped the held reset before any reset edge). */
static void test_batch_after_mi_reset(void **state)
{
	(void)state;
	ptm_probe *a = NULL, *b = NULL;
	pcie_pair(64, &a, &b);
	struct ptm_bus_in in[2];
	memset(in, 0, sizeof(in));
	for (int i = 0; i < 8; i++) {
		clk_both(a, b, 1, in, 0, 0, 1);
		mi_both(a, b, 0, 0, 0, 1);
	}
	clk_both(a, b, 0, in, 0, 0, 1000); /* no MI edges: the FIFO overflows */
	mi_both(a, b, 1, 0, 1, 4);
	in[0].mvb_src_rdy = 1; /* new inputs while MI_RESET is held */
	clk_both(a, b, 0, in, 0, 0, 5);
	for (int i = 0; i < 4; i++) {
		struct ptm_probe_mi_out ma;
		mi_both(a, b, 0, 0, 1, 1);
		ptm_probe_tx(a, &ma);
		assert_int_equal(ma.fifo_ovf, 0);
	}
	assert_same_regs(a, b, "after MI_RESET", 0);
	ptm_probe_free(a);
	ptm_probe_free(b);
}

/* Steady traffic over many drain periods: the batch must skip, not step. */
static void test_batch_steady_traffic(void **state)
{
	(void)state;
	ptm_probe *a = NULL, *b = NULL;
	pcie_pair(4096, &a, &b);
	struct ptm_bus_in in[2];
	memset(in, 0, sizeof(in));
	in[0].src_rdy = in[0].dst_rdy = 1; /* an endless frame: all regions busy */
	in[0].sof = 1;
	in[1].src_rdy = 1;                  /* bus 1 stalled */
	clk_both(a, b, 1, in, 0x41, 0x41, 4);
	in[0].sof = 0;
	assert_int_equal(clk_both(a, b, 0, in, 0x41, 0x41, 40 * 4096 + 17), 40);
	assert_same_stats(a, b);
	/* drain both and compare every delta */
	for (unsigned i = 0; i < 2000; i++) {
		clk_both(a, b, 0, in, 0x41, 0x41, 1);
		mi_both(a, b, 0, 0, 1, 1);
	}
	assert_same_stats(a, b);
	ptm_probe_free(a);
	ptm_probe_free(b);
}

/* ------------------------------------------------------------------ */
/* generics and malformed traces                                       */

static void test_generics_rejected(void **state)
{
	(void)state;
	struct ptm_probe_generics ok = { .buses = 2, .regions = 2, .region_items = { 8, 8 },
					 .eof_pos_width = 3, .brakes = 2, .drain_period = 64 };
	static const struct {
		const char *field;
		unsigned val;
		const char *what;
	} cases[] = {
		{ "buses", 0, "BUSES=0" },	    { "buses", 33, "BUSES=33" },
		{ "regions", 0, "REGIONS=0" },	    { "regions", 17, "REGIONS=17" },
		{ "brakes", 33, "BRAKES=33" },	    { "eof_pos_width", 2, "EOF_POS_WIDTH=2" },
		{ "drain_period", 48, "DRAIN_PERIOD=48" }, { "drain_period", 32, "DRAIN_PERIOD=32" },
		{ "items0", 0, "REGION_ITEMS(0)=0" },
	};
	char msg[256];
	ptm_probe *p = NULL;
	assert_int_equal(ptm_probe_new(&ok, &p, msg, sizeof(msg)), 0);
	ptm_probe_free(p);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ptm_probe_generics g = ok;
		if (!strcmp(cases[i].field, "buses"))
			g.buses = cases[i].val;
		else if (!strcmp(cases[i].field, "regions"))
			g.regions = cases[i].val;
		else if (!strcmp(cases[i].field, "brakes"))
			g.brakes = cases[i].val;
		else if (!strcmp(cases[i].field, "eof_pos_width"))
			g.eof_pos_width = cases[i].val;
		else if (!strcmp(cases[i].field, "drain_period"))
			g.drain_period = cases[i].val;
		else
			g.region_items[0] = cases[i].val;
		msg[0] = '\0';
		p = (ptm_probe *)1;
		assert_int_equal(ptm_probe_new(&g, &p, msg, sizeof(msg)), -EINVAL);
		assert_null(p);
		if (!strstr(msg, cases[i].what))
			fail_msg("message '%s' does not name '%s'", msg, cases[i].what);
	}
}

#define HDR(buses, regions, items, w, brakes, dp, cycles)                                      \
	"# comment\n"                                                                          \
	"PROBE_TRACE 1\n"                                                                      \
	"BUSES " buses "\n"                                                                    \
	"REGIONS " regions "\n"                                                                \
	"REGION_ITEMS " items "\n"                                                             \
	"EOF_POS_WIDTH " w "\n"                                                                \
	"BRAKES " brakes "\n"                                                                  \
	"DRAIN_PERIOD " dp "\n"                                                                \
	"CYCLES " cycles "\n"                                                                  \
	"COLUMNS rst sof eof eof_pos src_rdy dst_rdy brake mvb_vld mvb_src_rdy mvb_dst_rdy "   \
	"mi_edges flag_clr\n"                                                                  \
	"BEGIN\n"
#define H1 HDR("1", "1", "8", "3", "0", "64", "3")
/* data lines start at line 12 */

static void expect_trace_error(const char *text, unsigned line, const char *what)
{
	char msg[512] = "", *out = NULL, prefix[64];
	int rc = run_trace_text("t.trace", text, &out, msg, sizeof(msg));
	if (rc != -EINVAL)
		fail_msg("rc %d (%s), expected -EINVAL at line %u '%s'\n--- input:\n%s", rc, msg, line,
			 what, text);
	assert_true(out == NULL || out[0] == '\0');
	free(out);
	snprintf(prefix, sizeof(prefix), "t.trace:%u: ", line);
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, what))
		fail_msg("message '%s', expected '%s...%s'", msg, prefix, what);
	assert_null(strchr(msg, '\n'));
}

static void test_trace_ok_minimal(void **state)
{
	(void)state;
	char msg[256], *out = NULL;
	int rc = run_trace_text("t.trace", H1 "1 0 0 0 0 0 0 0 0 0 1 0\nR 2\nEND\n", &out, msg,
				sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	assert_string_equal(out, "PROBE_EXPECTED 1\nFLAGS 0 0\nEND\n");
	free(out);
	/* upper-case hex, leading zeros, CRLF, trailing comments are fine */
	rc = run_trace_text("t.trace",
			    HDR("2", "2", "8 8", "3", "2", "64", "2")
			    "1 0F 00 fFf 3 3 3 F 3 3 1 0 # c\r\n0 1 1 7 1 1 0 0 0 0 0 0\r\nEND\r\n",
			    &out, msg, sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	free(out);
}

static void test_trace_errors(void **state)
{
	(void)state;
	expect_trace_error("PROBE_TRACE 2\n", 1, "field 'PROBE_TRACE'");
	expect_trace_error("COMPONENT_TRACE 1\n", 1, "not a probe trace");
	expect_trace_error("# only a comment\n", 1, "unexpected end of file");
	expect_trace_error(HDR("0", "1", "8", "3", "0", "64", "1"), 3, "field 'BUSES'");
	expect_trace_error(HDR("1", "17", "8", "3", "0", "64", "1"), 4, "field 'REGIONS'");
	expect_trace_error(HDR("2", "1", "8", "3", "0", "64", "1"), 5, "REGION_ITEMS");
	expect_trace_error(HDR("1", "1", "8 8", "3", "0", "64", "1"), 5, "BUSES is 1");
	expect_trace_error(HDR("1", "1", "0", "3", "0", "64", "1"), 5, "field 'REGION_ITEMS'");
	expect_trace_error(HDR("1", "1", "x8", "3", "0", "64", "1"), 5, "not a decimal digit");
	expect_trace_error(HDR("1", "1", "16", "3", "0", "64", "1"), 6, "field 'EOF_POS_WIDTH'");
	expect_trace_error(HDR("1", "1", "8", "3", "33", "64", "1"), 7, "field 'BRAKES'");
	expect_trace_error(HDR("1", "1", "8", "3", "0", "48", "1"), 8, "power of two");
	expect_trace_error(HDR("1", "1", "8", "3", "0", "16", "1"), 8, "drain sweep");
	expect_trace_error(HDR("1", "1", "8", "3", "0", "64", "-1"), 9, "field 'CYCLES'");
	expect_trace_error("PROBE_TRACE 1\nBUSES 1\nREGIONS 1\nREGION_ITEMS 8\nEOF_POS_WIDTH 3\n"
			   "BRAKES 0\nDRAIN_PERIOD 64\nCYCLES 1\nCOLUMNS rst sof\n",
			   9, "field 'COLUMNS'");
	expect_trace_error("PROBE_TRACE 1\nBUSES 1\nREGIONS 1\nEOF_POS_WIDTH 3\n", 4,
			   "expected 'REGION_ITEMS'");
	/* body */
	expect_trace_error(H1 "R 3\nEND\n", 12, "repeat before the first data line");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1\nEND\n", 12, "11 fields");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 0 0\nEND\n", 12, "13 fields");
	expect_trace_error(H1 "1 2 0 0 0 0 0 0 0 0 1 0\nEND\n", 12, "field 'sof'");
	expect_trace_error(H1 "1 0 0 8 0 0 0 0 0 0 1 0\nEND\n", 12, "field 'eof_pos'");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 0\n0 0 0 0 0 g 0 0 0 0 1 0\nEND\n", 13,
			   "field 'dst_rdy'");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 2\nEND\n", 12, "field 'flag_clr'");
	expect_trace_error(H1 "1 0 0 0 0 0 2 0 0 0 1 0\nEND\n", 12, "field 'brake'");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 10000 0\nEND\n", 12, "field 'mi_edges'");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 0x1 0\nEND\n", 12, "field 'mi_edges'");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 0\nR 1\nEND\n", 14, "CYCLES (line 9) says 3");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 0\nR 5\nEND\n", 13, "exceeds CYCLES 3");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 0\nR x\nEND\n", 13, "field 'R'");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 0\nR 2\n", 13, "missing END");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 0\nR 2\nEND\nEND\n", 15, "after END");
	expect_trace_error(H1 "1 0 0 0 0 0 0 0 0 0 1 0\nR 2\nEND x\n", 14, "field 'END'");
	/* wide vectors: 4 buses x 4 regions x 4 bits = 64-bit eof_pos */
	expect_trace_error(HDR("4", "4", "16 16 16 16", "4", "0", "128", "1")
			   "1 0 0 10000000000000000 0 0 0 0 0 0 1 0\nEND\n",
			   12, "wider than 64 bits");
}

static void test_hex_wide(void **state)
{
	(void)state;
	/* 8 buses x 4 regions x 4 bits = 128-bit eof_pos: the top field */
	char msg[512], *out = NULL;
	int rc = run_trace_text("t.trace",
				HDR("8", "4", "16 16 16 16 16 16 16 16", "4", "0", "256", "2")
				"1 0 0 f0000000000000000000000000000000 0 0 0 0 0 0 1 0\n"
				"0 80000000 80000000 f0000000000000000000000000000000 ff ff 0 0 0 0 1 0\n"
				"END\n",
				&out, msg, sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	free(out);
}

/* A reset while deltas wait in the FIFO (no MI edges yet, so nothing is
 * read): every one of them is an F line.  Expected values from the spec:
 * last reset edge R = 2 (power-up), tick T = R + 64, slot s of the one
 * group written at T + 2s + 3, channel 0 = T + 1 - R - 2, no traffic. */
static void test_flush_lines(void **state)
{
	(void)state;
	char msg[256], *out = NULL;
	int rc = run_trace_text("t.trace",
				HDR("1", "1", "8", "3", "0", "64", "112")
				"1 0 0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0 0 0\nR 99\n"
				"1 0 0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0 4 0\nR 9\nEND\n",
				&out, msg, sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	char want[512];
	int n = snprintf(want, sizeof(want), "PROBE_EXPECTED 1\nT 66\n");
	for (unsigned ch = 0; ch < 8; ch++)
		n += snprintf(want + n, sizeof(want) - (size_t)n, "F %u %u %u\n", 69 + 2 * ch, ch,
			      ch == 0 ? 66 + 1 - 2 - 2 : 0);
	snprintf(want + n, sizeof(want) - (size_t)n, "FLAGS 0 0\nEND\n");
	assert_string_equal(out, want);
	free(out);
}

/* Random damage to a valid trace: never a crash, and either a clean run
 * or -EINVAL with one line "t.trace:LINE: ..." and nothing written. */
static void test_trace_mutations(void **state)
{
	(void)state;
	static const char base[] = HDR("2", "2", "8 5", "3", "2", "64", "300")
		"1 3 3 3f 3 3 3 f 3 3 2 0\nR 3\n0 1 2 a 1 1 1 1 1 1 1 0\n"
		"0 5 5 17 3 2 2 3 3 1 2 1\nR 200\n0 0 0 0 0 0 0 0 0 0 3 1\nR 93\nEND\n";
	static const char junk[] = "0123456789abcdefgxR #\t\n-Z";
	rng_state = 777;
	char buf[sizeof(base) + 64];
	{
		char msg[512] = "", *out = NULL;
		if (run_trace_text("t.trace", base, &out, msg, sizeof(msg)) != 0)
			fail_msg("the undamaged trace fails: %s", msg);
		free(out);
	}
	for (unsigned t = 0; t < 400; t++) {
		size_t n = sizeof(base) - 1;
		memcpy(buf, base, n);
		for (unsigned k = 1 + rndn(3); k; k--) {
			size_t at = rndn((unsigned)n);
			switch (rndn(3)) {
			case 0: /* replace */
				buf[at] = junk[rndn(sizeof(junk) - 1)];
				break;
			case 1: /* delete */
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
				break;
			default: /* truncate */
				n = at;
				break;
			}
		}
		buf[n] = '\0';
		char msg[512] = "", *out = NULL;
		int rc = run_trace_text("t.trace", buf, &out, msg, sizeof(msg));
		if (rc == 0) {
			assert_non_null(out);
			assert_true(strncmp(out, "PROBE_EXPECTED 1\n", 17) == 0);
		} else {
			if (rc != -EINVAL)
				fail_msg("rc %d (%s) for:\n%s", rc, msg, buf);
			assert_true(out == NULL || out[0] == '\0');
			assert_true(strncmp(msg, "t.trace:", 8) == 0);
			assert_null(strchr(msg, '\n'));
		}
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_conservation),
		cmocka_unit_test(test_conservation_fixed),
		cmocka_unit_test(test_batch_equals_single),
		cmocka_unit_test(test_batch_steady_traffic),
		cmocka_unit_test(test_batch_lockstep_regs),
		cmocka_unit_test(test_batch_after_mi_reset),
		cmocka_unit_test(test_shortcuts_exact),
		cmocka_unit_test(test_generics_rejected),
		cmocka_unit_test(test_trace_ok_minimal),
		cmocka_unit_test(test_trace_errors),
		cmocka_unit_test(test_hex_wide),
		cmocka_unit_test(test_trace_mutations),
		cmocka_unit_test(test_flush_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
