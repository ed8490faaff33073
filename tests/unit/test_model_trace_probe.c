/*
 * The probe trace runner's bulk path (src/model/trace_probe.c): an R line
 * skips the stretches in which the probe only counts, and must give
 * exactly the bytes (or the error, at the same line) of clocking every
 * CLK and MI edge singly:
 *  - random short probe traces (random generics the firmware accepts,
 *    random data lines, R counts from 0 to thousands of drain periods),
 *    bulk against per-edge, with the default output-line limit and with
 *    small limits (the same error at the same line);
 *  - R 10^15: the output limit ends it at once, a reset line finishes at
 *    once with what a short repeat gives, a long drain period gives every
 *    sweep; the singly clocked edges follow the sweeps, not the edges.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/trace_priv.h"
#include "model/util.h"
#include "model_rand.h"
#include "pcie_telemetry/trace.h"

struct gen {
	unsigned buses, regions, items[8], width, brakes, dp, channels, sweep;
};

static void rand_gen(struct gen *g)
{
	static const unsigned regions[] = { 1, 1, 2, 2, 3, 4, 4, 8 };
	unsigned imax = 1;
	g->buses = rndn(6) ? 1 + rndn(4) : 5 + rndn(4);
	g->regions = regions[rndn(8)];
	for (unsigned b = 0; b < g->buses; b++) {
		g->items[b] = rndn(4) ? 1u << rndn(5) : 1 + rndn(40);
		if (g->items[b] > imax)
			imax = g->items[b];
	}
	g->width = ptm_log2c(imax) + rndn(2);
	g->brakes = rndn(3) ? rndn(4) : rndn(33);
	g->channels = 1 + g->buses * (6 + g->regions) + g->brakes;
	g->sweep = 8 * ((g->channels + 7) / 8 + 1);
	g->dp = 16;
	while (g->dp <= g->sweep)
		g->dp *= 2;
	g->dp <<= rndn(3);
}

/* A bit vector of up to 1024 bits, printed as the trace's hex. */
struct bits {
	uint64_t w[16];
};

static void bits_put(struct bits *v, unsigned pos, unsigned n, uint64_t x)
{
	for (unsigned i = 0; i < n; i++)
		if ((x >> i) & 1u)
			v->w[(pos + i) / 64] |= UINT64_C(1) << ((pos + i) % 64);
}

static void bits_print(FILE *f, const struct bits *v)
{
	int started = 0;
	for (int i = 16 * 16 - 1; i >= 0; i--) {
		unsigned d = (unsigned)(v->w[i / 16] >> (4 * (i % 16))) & 15u;
		if (d || started || i == 0) {
			fputc("0123456789abcdef"[d], f);
			started = 1;
		}
	}
}

static void put_field(FILE *f, unsigned bits_n, uint64_t (*val)(unsigned, void *), void *arg,
		      unsigned each)
{
	struct bits v;
	memset(&v, 0, sizeof(v));
	for (unsigned i = 0; i < bits_n; i++)
		bits_put(&v, i * each, each, val(i, arg));
	bits_print(f, &v);
	fputc(' ', f);
}

static uint64_t rnd_bit(unsigned i, void *arg)
{
	(void)i;
	return rndn(100) < *(unsigned *)arg;
}

static uint64_t rnd_pos(unsigned i, void *arg)
{
	const struct gen *g = arg;
	unsigned it = g->items[i / g->regions];
	uint64_t x = rndn(it);
	return rndn(10) ? x : rnd(); /* wider than the region now and then */
}

/* A data line; the style of the trace picks the MI edges. */
static void data_line(FILE *f, const struct gen *g, int style, int *flag)
{
	unsigned nr = g->buses * g->regions, busy = 20 + rndn(80), p10 = 10, p30 = 30;
	unsigned p80 = 80, one = 100, zero = 0;
	fprintf(f, "%d ", rndn(10) == 0);
	put_field(f, nr, rnd_bit, &p30, 1);                  /* sof */
	put_field(f, nr, rnd_bit, &p30, 1);                  /* eof */
	put_field(f, nr, rnd_pos, (void *)(uintptr_t)g, g->width);
	put_field(f, g->buses, rnd_bit, &busy, 1);           /* src_rdy */
	put_field(f, g->buses, rnd_bit, &p80, 1);            /* dst_rdy */
	put_field(f, g->brakes ? g->brakes : 1, rnd_bit, g->brakes ? &p30 : &zero, 1);
	put_field(f, nr, rnd_bit, rndn(2) ? &p30 : &zero, 1); /* mvb_vld */
	put_field(f, g->buses, rnd_bit, &busy, 1);
	put_field(f, g->buses, rnd_bit, rndn(4) ? &p80 : &one, 1);
	unsigned mi = style == 0 ? rndn(5) : style == 1 ? (rndn(4) ? 0 : 1) : rndn(40);
	if (rndn(100) < p10)
		*flag = !*flag;
	fprintf(f, "%x %d\n", mi, *flag);
}

/* A random trace of nlines body lines; its CLK edges in *edges. */
static char *rand_trace(const struct gen *g, unsigned nlines, uint64_t *edges)
{
	char *body = NULL, *text = NULL;
	size_t blen = 0, tlen = 0;
	FILE *f = open_memstream(&body, &blen);
	int style = rndn(3), flag = 0;
	uint64_t n = 0;
	assert_non_null(f);
	for (unsigned l = 0; l < nlines; l++) {
		data_line(f, g, style, &flag);
		n++;
		if (rndn(10) < 6) {
			uint64_t r = rndn(8) ? rndn(3 * g->dp)
					     : (uint64_t)rndn(g->dp <= 256 ? 2500 : 100) * g->dp +
						       rndn(g->dp);
			fprintf(f, "R %llu\n", (unsigned long long)r);
			n += r;
		}
	}
	fclose(f);
	f = open_memstream(&text, &tlen);
	assert_non_null(f);
	fprintf(f, "PROBE_TRACE 1\nBUSES %u\nREGIONS %u\nREGION_ITEMS", g->buses, g->regions);
	for (unsigned b = 0; b < g->buses; b++)
		fprintf(f, " %u", g->items[b]);
	fprintf(f, "\nEOF_POS_WIDTH %u\nBRAKES %u\nDRAIN_PERIOD %u\nCYCLES %llu\n", g->width,
		g->brakes, g->dp, (unsigned long long)n);
	fprintf(f, "COLUMNS rst sof eof eof_pos src_rdy dst_rdy brake mvb_vld mvb_src_rdy "
		   "mvb_dst_rdy mi_edges flag_clr\nBEGIN\n%sEND\n",
		body);
	fclose(f);
	free(body);
	*edges = n;
	return text;
}

struct result {
	int rc;
	char msg[256];
	char *out;
	uint64_t stepped;
};

static void run(const char *text, int per_edge, uint32_t max, struct result *res)
{
	FILE *in = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
	size_t len = 0;
	struct ptm_trace_probe_opt opt = { .per_edge = per_edge, .max_results = max };
	assert_non_null(in);
	res->out = NULL;
	FILE *o = open_memstream(&res->out, &len);
	assert_non_null(o);
	res->msg[0] = '\0';
	res->rc = ptm_trace_probe_run_opt(in, "t.trace", o, res->msg, sizeof(res->msg), &opt);
	res->stepped = opt.stepped;
	fclose(o);
	fclose(in);
}

/* What the random traces covered: outputs with X, F lines, a FLAGS line
 * with a flag set. */
static unsigned seen_x, seen_f, seen_flag;

static void expect_same(const char *text, uint32_t max, unsigned seed, uint64_t bound)
{
	struct result a, b;
	run(text, 0, max, &a);
	run(text, 1, max, &b);
	seen_x += strstr(a.out, "\nX ") != NULL;
	seen_f += strstr(a.out, "\nF ") != NULL;
	seen_flag += strstr(a.out, "\nFLAGS 1") != NULL || strstr(a.out, "\nFLAGS 0 1") != NULL;
	if (a.rc != b.rc || strcmp(a.msg, b.msg) != 0 || strcmp(a.out, b.out) != 0) {
		print_error("trace %u (limit %u): bulk rc %d '%s', per edge rc %d '%s'\n%s", seed,
			    max, a.rc, a.msg, b.rc, b.msg, text);
		fail();
	}
	/* the singly clocked edges follow the lines and the sweeps */
	if (a.stepped > bound) {
		print_error("trace %u: %llu edges clocked singly, at most %llu expected\n", seed,
			    (unsigned long long)a.stepped, (unsigned long long)bound);
		fail();
	}
	free(a.out);
	free(b.out);
}

static void test_random_bulk_equals_per_edge(void **state)
{
	(void)state;
	unsigned limited = 0, failed = 0;
	for (unsigned t = 0; t < 120; t++) {
		struct gen g;
		uint64_t edges;
		rand_gen(&g);
		unsigned nlines = 2 + rndn(12);
		char *text = rand_trace(&g, nlines, &edges);
		uint64_t bound = 64 * (2 * (uint64_t)nlines + 1) +
				 (edges / g.dp + 2 * nlines + 2) * (2 * g.sweep + 64);
		expect_same(text, 0, t, bound);
		/* a small output limit: the same error at the same line */
		if (t % 2 == 0) {
			uint32_t max = 1 + rndn(4) * rndn(500);
			struct result r;
			run(text, 0, max, &r);
			limited++;
			failed += r.rc != 0;
			free(r.out);
			expect_same(text, max, t, bound);
		}
		free(text);
	}
	/* the limits did bite; FIFO losses, resets and flags were seen */
	print_message("%u of %u limited runs hit the limit; outputs with X %u, F %u, a flag %u\n",
		      failed, limited, seen_x, seen_f, seen_flag);
	assert_true(failed > limited / 4);
	assert_true(seen_x > 5 && seen_f > 5 && seen_flag > 5);
}

/* The trace of the issue: one bus, a frame, then one line repeated. */
static char *long_trace(unsigned dp, const char *line, uint64_t reps)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	fprintf(f,
		"PROBE_TRACE 1\nBUSES 1\nREGIONS 1\nREGION_ITEMS 8\nEOF_POS_WIDTH 3\nBRAKES 0\n"
		"DRAIN_PERIOD %u\nCYCLES %llu\n"
		"COLUMNS rst sof eof eof_pos src_rdy dst_rdy brake mvb_vld mvb_src_rdy "
		"mvb_dst_rdy mi_edges flag_clr\nBEGIN\n"
		"1 0 0 0 0 0 0 0 0 0 1 0\nR 3\n0 1 0 0 1 1 0 0 0 0 1 0\n0 0 1 7 1 1 0 0 0 0 1 0\n"
		"%s\nR %llu\nEND\n",
		dp, (unsigned long long)(reps + 7), line, (unsigned long long)reps);
	fclose(f);
	return text;
}

static void test_r_1e15_hits_the_limit_at_once(void **state)
{
	(void)state;
	char *text = long_trace(65536, "0 1 1 3 1 1 0 0 0 0 1 0", UINT64_C(1000000000000000));
	struct result r;
	run(text, 0, 0, &r);
	assert_int_equal(r.rc, -EINVAL);
	assert_string_equal(r.msg, "t.trace:16: the run gives more than 16777216 output lines");
	assert_true(r.stepped < 100);
	assert_string_equal(r.out, "");
	free(r.out);
	free(text);
	/* the same with a limit the per-edge path reaches: same line */
	text = long_trace(256, "0 1 1 3 1 1 0 0 0 0 1 0", UINT64_C(1000000000000000));
	expect_same(text, 5000, 0, 100);
	free(text);
}

static void test_r_1e15_reset_line(void **state)
{
	(void)state;
	const char *line = "1 1 1 3 1 1 0 1 1 1 3 1";
	char *text = long_trace(65536, line, UINT64_C(1000000000000000));
	char *shorter = long_trace(65536, line, 5000);
	struct result a, b;
	run(text, 0, 0, &a);
	run(shorter, 1, 0, &b);
	assert_int_equal(a.rc, 0);
	assert_int_equal(b.rc, 0);
	assert_true(a.stepped < 100);
	/* nothing happens in reset: the output of a short repeat */
	assert_string_equal(a.out, b.out);
	free(a.out);
	free(b.out);
	free(text);
	free(shorter);
}

/* DRAIN_PERIOD 2^30: every sweep of 10^13 edges, in time. */
static void test_long_period_every_sweep(void **state)
{
	(void)state;
	const uint64_t reps = UINT64_C(10000000000000), dp = UINT64_C(1) << 30;
	char *text = long_trace((unsigned)dp, "0 0 0 0 0 0 0 0 0 0 1 0", reps);
	struct result r;
	run(text, 0, 0, &r);
	assert_int_equal(r.rc, 0);
	uint64_t ticks = 0, last = 0, w0 = 0, w1 = 0;
	for (const char *p = r.out; (p = strchr(p, '\n')) != NULL;) {
		unsigned long long c, ch, d;
		char line[80];
		p++;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
		if (sscanf(line, "T %llu", &c) == 1) {
			/* the ticks are one drain period apart */
			assert_int_equal(c, ticks ? last + dp : dp + 3);
			last = c;
			ticks++;
		} else if (sscanf(line, "W %llu %llu %llu", &c, &ch, &d) == 3) {
			assert_true(c > last && c < last + 8 * 3);
			/* after the frame's sweep: the elapsed cycles only */
			w0 += ticks > 1 && ch == 0 && d == dp;
			w1 += ticks > 1 && ch != 0 && d == 0;
		}
	}
	/* the first tick at edge dp + 3 (the reset ends at edge 4) */
	assert_int_equal(ticks, (reps + 7 - 1 - (dp + 3)) / dp + 1);
	assert_int_equal(w0, ticks - 1);
	assert_int_equal(w1, 7 * (ticks - 1));
	assert_true(r.stepped < 64 * ticks + 100);
	free(r.out);
	free(text);
}

/* argv[1]: run only the tests whose names match it */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_bulk_equals_per_edge),
		cmocka_unit_test(test_r_1e15_hits_the_limit_at_once),
		cmocka_unit_test(test_r_1e15_reset_line),
		cmocka_unit_test(test_long_period_every_sweep),
	};
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
