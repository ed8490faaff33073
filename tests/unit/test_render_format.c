/*
 * Unit tests of the renderers on hand-built layouts and readings: pct, the
 * tabulate emulation, the reason columns, the histogram headers, Python's
 * float repr, the JSON layout, register images (the exact arithmetic is
 * the metric engine's: test_analysis_num).
 * Expected strings are derived by hand from report-format.md.
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

#include "pcie_telemetry/render.h"
#include "render/render_priv.h"
#include "test_layout_util.h"

/* This program links pt_render, pt_analysis, pt_layout and pt_regs only (CMake): a
 * renderer that called into a bus would not link.  And the headers do not
 * bring the bus either. */
#if defined(PCIE_TELEMETRY_BUS_H) || defined(PCIE_TELEMETRY_TELEMETRY_H)
#error "render.h must include only the layout, reading and metrics headers"
#endif

/* ---- fixtures ------------------------------------------------------------ */

struct spec {
	unsigned eps, ports, pr, dr;      /* probe regions */
	unsigned rq, rc, up, down;        /* real regions */
	unsigned driven, hists, bands;    /* BRAKE channels */
	unsigned cnt_width, item_bytes;
	unsigned tags, fifo;              /* capacities */
};

static const struct spec std_spec = {
	.eps = 1, .ports = 1, .pr = 2, .dr = 2, .rq = 2, .rc = 2, .up = 2, .down = 2,
	.driven = 6, .hists = 2, .bands = 4, .cnt_width = 48, .item_bytes = 4,
	.tags = 256, .fifo = 1024,
};

struct fix {
	struct pt_layout l;
	struct pt_reading r;
};

/* Configuration registers as the v2.0 firmware builds them. */
static void make_cfg(const struct spec *s, uint32_t cfg[PT_CFG_REGS])
{
	unsigned pbrakes = s->driven + s->hists * s->bands;
	unsigned pch = 1 + 2 * (6 + s->pr) + pbrakes;
	unsigned dch = 1 + 2 * s->ports * (6 + s->dr);
	unsigned epch = pch + dch;
	unsigned entries = 1;
	while (entries < s->eps * epch)
		entries *= 2;
	memset(cfg, 0, PT_CFG_REGS * sizeof cfg[0]);
	cfg[PT_REG_MAGIC / 4] = PT_MAGIC;
	cfg[PT_REG_VERSION / 4] = 0x00020000;
	cfg[PT_REG_CFG_TOPOLOGY / 4] = s->eps | s->ports << 8 | (2 * s->eps) << 16;
	cfg[PT_REG_CFG_LAYOUT / 4] = entries | s->cnt_width << 16 | epch << 24;
	cfg[PT_REG_CFG_PCIE / 4] = pch | 2u << 8 | s->pr << 16 | pbrakes << 24;
	cfg[PT_REG_CFG_DMA / 4] = dch | (2 * s->ports) << 8 | s->dr << 16;
	cfg[PT_REG_CFG_DRAIN / 4] = 4096 | s->item_bytes << 16;
	cfg[PT_REG_CNT_BASE / 4] = 0x8000;
	cfg[PT_REG_CFG_REGIONS / 4] = s->rq | s->rc << 8 | s->up << 16 | s->down << 24;
	cfg[PT_REG_CFG_WIDTH / 4] = 32 | 32u << 16;
	cfg[PT_REG_CFG_HIST / 4] = s->bands | s->hists << 8;
	cfg[PT_REG_CFG_CAPACITY / 4] = s->tags | s->fifo << 16;
	cfg[PT_REG_CFG_WIDTH_DMA / 4] = 64 | 16u << 16;
}

static void fix_init(struct fix *f, const struct spec *s)
{
	uint32_t cfg[PT_CFG_REGS];
	char msg[256] = "";
	make_cfg(s, cfg);
	int rc = pt_layout_decode(cfg, &f->l, msg, sizeof msg);
	if (rc)
		fail_msg("layout: %s", msg);
	assert_int_equal(pt_reading_init(&f->r, f->l.entries), 0);
	for (unsigned ep = 0; ep < s->eps; ep++) {
		f->r.pcie_status[ep] = 0x251;
		f->r.pcie_tags[ep] = 0x000A0070;
		f->r.pcie_stfifo[ep] = 0x00650139;
	}
}

static void fix_free(struct fix *f)
{
	pt_reading_free(&f->r);
}

static void set_bus(struct fix *f, unsigned ep, unsigned b, uint64_t words, uint64_t bp,
		    uint64_t trans, uint64_t mvb, uint64_t mvb_bp, uint64_t items, uint64_t r0,
		    uint64_t r1)
{
	const struct pt_layout *l = &f->l;
	uint64_t *c = f->r.cnt;
	c[pt_idx_bus(l, ep, b, PT_F_WORDS)] = words;
	c[pt_idx_bus(l, ep, b, PT_F_BACKPRESSURE)] = bp;
	c[pt_idx_bus(l, ep, b, PT_F_TRANSACTIONS)] = trans;
	c[pt_idx_bus(l, ep, b, PT_F_MVB)] = mvb;
	c[pt_idx_bus(l, ep, b, PT_F_MVB_BACKPRESSURE)] = mvb_bp;
	c[pt_idx_bus(l, ep, b, PT_F_ITEMS)] = items;
	c[pt_idx_bus(l, ep, b, PT_F_REGION0)] = r0;
	c[pt_idx_bus(l, ep, b, PT_F_REGION0 + 1)] = r1;
}

/* The worked example: values chosen so that every cell is known exactly. */
static void fill_example(struct fix *f)
{
	const struct pt_layout *l = &f->l;
	uint64_t *c = f->r.cnt;
	c[pt_idx_pcie_cycles(l, 0)] = 400000000;
	c[pt_idx_dma_cycles(l, 0)] = 200000000;
	set_bus(f, 0, 0, 100000000, 4000000, 10000000, 0, 0, 800000000, 120000000, 80000000);
	set_bus(f, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0);
	set_bus(f, 0, 2, 50000000, 10000000, 2000000, 4000000, 1000000, 62500000, 40000000, 10000000);
	set_bus(f, 0, 3, 20000000, 0, 1000000, 1000000, 2000000, 8000000, 20000000, 0);
	const uint64_t brakes[6] = { 4000000, 0, 8000000, 400000, 2000000, 1200000 };
	for (unsigned k = 0; k < 6; k++)
		c[pt_idx_brake(l, 0, k)] = brakes[k];
	const uint64_t h[2][4] = { { 0, 4000000, 36000000, 360000000 },
				   { 400000, 4000000, 0, 395600000 } };
	for (unsigned i = 0; i < 2; i++)
		for (unsigned b = 0; b < 4; b++)
			c[pt_idx_hist(l, 0, i, b)] = h[i][b];
}

/* The memory stream of the helpers below.  File scope, so that no stream
 * ever points into a stack frame that has returned. */
static char *mem_buf;
static size_t mem_len;

static FILE *mem_open(void)
{
	mem_buf = NULL;
	mem_len = 0;
	FILE *m = open_memstream(&mem_buf, &mem_len);
	assert_non_null(m);
	return m;
}

/* Close the stream and hand over its text (malloc'd). */
static char *mem_close(FILE *m)
{
	fclose(m);
	char *t = mem_buf;
	mem_buf = NULL;
	return t;
}

/* Render into memory; returns the renderer's status, *text is malloc'd. */
static int render(int (*fn)(FILE *, const struct pt_report *), const struct pt_report *rep,
		  char **text)
{
	FILE *m = mem_open();
	int rc = fn(m, rep);
	*text = mem_close(m);
	return rc;
}

static char *render_ok(int (*fn)(FILE *, const struct pt_report *), const struct pt_report *rep)
{
	FILE *m = mem_open();
	int rc = fn(m, rep);
	if (rc)
		fail_msg("renderer returned %d", rc);
	return mem_close(m);
}

/* The text report of the fixture's reading as a 1.0 s interval. */
static char *one_second_text(struct fix *f)
{
	struct pt_report rep = { .layout = &f->l, .reading = &f->r, .interval = true, .seconds = 1.0 };

	return render_ok(pt_render_text, &rep);
}

/* The line that starts with prefix (NULL if none), as a new string. */
static char *line_starting(const char *text, const char *prefix)
{
	const char *p = text;
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			char *s = malloc(n + 1);
			memcpy(s, p, n);
			s[n] = '\0';
			return s;
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

static void assert_prefix(const char *text, const char *prefix)
{
	if (strncmp(text, prefix, strlen(prefix)) != 0)
		fail_msg("text does not start with \"%s\":\n%.200s", prefix, text);
}

static void assert_line(const char *text, const char *prefix, const char *expected)
{
	char *got = line_starting(text, prefix);
	if (!got)
		fail_msg("no line starts with \"%s\" in:\n%s", prefix, text);
	if (strcmp(got, expected) != 0)
		fail_msg("line \"%s\"\n   expected \"%s\"", got, expected);
	free(got);
}

/* ---- pct and arithmetic --------------------------------------------------- */

/* pct(part, whole) as the report computes it: the share metric's
 * expression, evaluated by the engine, in the report's share cell. */
static void pct(char *b, size_t len, const char *part, const char *whole)
{
	const struct pt_test_shape shape = PT_TEST_DEFAULT_SHAPE;
	struct pt_layout l;
	struct pt_metric_defs *d;
	struct pt_metric_set *s = NULL;
	struct pt_reading r;
	struct pt_metric_value v;
	char json[256], msg[PT_METRIC_MSG_LEN];

	pt_test_layout(&shape, 48, &l);
	snprintf(json, sizeof json,
		 "[{\"MetricName\": \"p\", \"MetricExpr\": \"100.0 * %s / %s\", "
		 "\"BriefDescription\": \"pct\"}]",
		 part, whole);
	assert_int_equal(pt_metric_defs_new(&d, PT_METRIC_NO_BUILTIN, msg, sizeof msg), 0);
	if (pt_metric_defs_add_json(d, json, strlen(json), "pct", msg, sizeof msg) ||
	    pt_metric_bind(d, &l, &s, msg, sizeof msg))
		fail_msg("%s", msg);
	assert_int_equal(pt_reading_init(&r, l.entries), 0);
	const struct pt_metric_input in = { &r, false, 0 };
	assert_true(pt_metric_eval(s, &in, &v) >= 0);
	pt_render_share(b, len, &v);
	pt_reading_free(&r);
	pt_metric_set_free(s);
	pt_metric_defs_free(d);
}

static void test_pct(void **state)
{
	(void)state;
	char b[32];
	pct(b, sizeof b, "5", "0");
	assert_string_equal(b, "   -  ");
	pct(b, sizeof b, "0", "0");
	assert_string_equal(b, "   -  ");
	pt_render_share(b, sizeof b, NULL);
	assert_string_equal(b, "   -  ");
	pct(b, sizeof b, "0", "7");
	assert_string_equal(b, "  0.00");
	pct(b, sizeof b, "1", "4");
	assert_string_equal(b, " 25.00");
	pct(b, sizeof b, "1", "3");
	assert_string_equal(b, " 33.33");
	pct(b, sizeof b, "2", "3");
	assert_string_equal(b, " 66.67");
	pct(b, sizeof b, "7", "7");
	assert_string_equal(b, "100.00");
	/* wider than 6 characters: never cut */
	pct(b, sizeof b, "10", "1");
	assert_string_equal(b, "1000.00");
	/* ties on the binary value, round half to even: 0.125 -> 0.12,
	 * 0.375 -> 0.38, 0.625 -> 0.62 (all exact in binary) */
	pct(b, sizeof b, "1", "800");
	assert_string_equal(b, "  0.12");
	pct(b, sizeof b, "3", "800");
	assert_string_equal(b, "  0.38");
	pct(b, sizeof b, "5", "800");
	assert_string_equal(b, "  0.62");
	/* 0.005 is below its decimal value in binary: rounds down */
	pct(b, sizeof b, "1", "20000");
	assert_string_equal(b, "  0.01");
	/* 128-bit operands: half of 2^70 */
	pct(b, sizeof b, "590295810358705651712", "1180591620717411303424");
	assert_string_equal(b, " 50.00");
	/* totals above 2^63 */
	pct(b, sizeof b, "18446744073709551615", "18446744073709551615");
	assert_string_equal(b, "100.00");
}

/* ---- float repr ------------------------------------------------------------ */

static void test_float_repr(void **state)
{
	(void)state;
	static const struct {
		double v;
		const char *s;
	} t[] = {
		{ 1.0, "1.0" },
		{ 0.0, "0.0" },
		{ -0.0, "-0.0" },
		{ 0.5, "0.5" },
		{ 0.1, "0.1" },
		{ 0.3000000000000007, "0.3000000000000007" },
		{ 7.4 - 7.1, "0.3000000000000007" },
		{ 2.00004 - 2.00001, "2.9999999999752447e-05" },
		{ 1.0004810000000361, "1.0004810000000361" },
		{ 4.999999999988347e-05, "4.999999999988347e-05" },
		{ 1e16, "1e+16" },
		{ 1e15, "1000000000000000.0" },
		{ 9999999999999998.0, "9999999999999998.0" },
		{ 1e-05, "1e-05" },
		{ 0.0001, "0.0001" },
		{ 0.00012, "0.00012" },
		{ 123456789012345.6, "123456789012345.6" },
		{ 5e-324, "5e-324" },
		{ 1.7976931348623157e+308, "1.7976931348623157e+308" },
		{ 2.2250738585072014e-308, "2.2250738585072014e-308" },
		{ 100.0, "100.0" },
		{ 1.5, "1.5" },
		{ -2.5, "-2.5" },
		{ 1.0 / 3.0, "0.3333333333333333" },
		{ 2.0 / 3.0, "0.6666666666666666" },
		{ 1e22, "1e+22" },
		{ 1.5e300, "1.5e+300" },
		{ 1.25e-7, "1.25e-07" },
		{ 9007199254740993.0, "9007199254740992.0" },
		{ 0.25, "0.25" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char b[64];
		pt_render_float_repr(t[i].v, b, sizeof b);
		if (strcmp(b, t[i].s) != 0)
			fail_msg("repr(%.17g) = \"%s\", expected \"%s\"", t[i].v, b, t[i].s);
	}
	char b[64];
	pt_render_float_repr(INFINITY, b, sizeof b);
	assert_string_equal(b, "inf");
	pt_render_float_repr(NAN, b, sizeof b);
	assert_string_equal(b, "nan");
	/* a short buffer is cut, never overrun */
	char small[4] = "xyz";
	pt_render_float_repr(0.3000000000000007, small, sizeof small);
	assert_string_equal(small, "0.3");
}

/* Shortest round trip for many values: reads back, and no shorter string
 * does (the correctly rounded string with one digit less fails). */
static void test_float_repr_roundtrip(void **state)
{
	(void)state;
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		memcpy(&v, &x, sizeof v);
		if (!isfinite(v))
			continue;
		char b[64];
		pt_render_float_repr(v, b, sizeof b);
		if (strtod(b, NULL) != v)
			fail_msg("repr %s does not read back as %.17g", b, v);
		char d[24];
		int e;
		pt_render_shortest(fabs(v), d, &e);
		size_t n = strlen(d);
		if (n > 1) {
			char s[48];
			snprintf(s, sizeof s, "%.*e", (int)n - 2, fabs(v));
			assert_true(strtod(s, NULL) != fabs(v));
		}
		assert_true(n == 1 || d[n - 1] != '0');
	}
}

/* Digits and exponent placed in plain decimal, as repr's fixed notation
 * and the @snapshot times of a recording need them. */
static void test_plain_decimal(void **state)
{
	(void)state;
	static const struct {
		const char *d;
		int e;
		const char *want;
	} t[] = {
		{ "1", 0, "1.0" },        { "1", -4, "0.0001" },      { "125", 1, "12.5" },
		{ "12", 3, "1200.0" },    { "3", -1, "0.3" },          { "123", 2, "123.0" },
		{ "1", 20, "100000000000000000000.0" },                { "5", -20, "0.00000000000000000005" },
	};
	char b[64];

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		assert_int_equal(pt_render_plain_decimal(b, sizeof b, t[i].d, t[i].e), 0);
		assert_string_equal(b, t[i].want);
	}
	/* too short: cut, terminated, and said so */
	assert_int_equal(pt_render_plain_decimal(b, 4, "12", 3), -ERANGE);
	assert_string_equal(b, "120");
}

/* ---- tables ---------------------------------------------------------------- */

static void test_table_simple(void **state)
{
	(void)state;
	static const char *const hdr[] = { "A", "Long header", "C" };
	struct pt_table t;
	pt_table_init(&t, 3, hdr);
	const char *r1[] = { "  x  ", "   -  ", "" };
	const char *r2[] = { "wide cell here", "1 2", "" };
	pt_table_add_row(&t, r1);
	pt_table_add_row(&t, r2);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	assert_int_equal(pt_table_write(m, &t), 0);
	fclose(m);
	pt_table_free(&t);
	/* widths: max(1+2, 14) = 14, max(11+2, 3) = 13, max(1+2, 0) = 3 */
	assert_string_equal(out, "A               Long header    C\n"
				 "--------------  -------------  ---\n"
				 "x               -\n"
				 "wide cell here  1 2\n");
	free(out);
}

static void test_table_plain(void **state)
{
	(void)state;
	struct pt_table t;
	pt_table_init(&t, 2, NULL);
	const char *r1[] = { "ab", "v" };
	const char *r2[] = { "abcd", "" };
	pt_table_add_row(&t, r1);
	pt_table_add_row(&t, r2);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	assert_int_equal(pt_table_write(m, &t), 0);
	fclose(m);
	pt_table_free(&t);
	assert_string_equal(out, "ab    v\nabcd\n");
	free(out);
}

/* ---- the text report --------------------------------------------------------- */

static const char example_text[] =
	"PCIe telemetry - 1 endpoint(s), 1 DMA port(s) per endpoint\n"
	"==========================================================\n"
	"Measured over 1.00 s\n"
	"\n"
	"PCIe endpoint 0\n"
	"------------------------------------------------------------\n"
	"Link                      up\n"
	"Max payload size (MPS)    256 B\n"
	"Max read request (MRRS)   512 B\n"
	"Extended tag (8-bit)      on\n"
	"10-bit tag                off\n"
	"Read completion boundary  64 B\n"
	"PTC tags free             112 (lowest 10)\n"
	"PTC storage FIFO free     313 words (lowest 101)\n"
	"\n"
	"  PCIe clock 400.0 MHz, DMA clock 200.0 MHz\n"
	"\n"
	"Bus                 Used %    Words %    MFB stall %    MVB stall %    Used per region %    "
	"Gbps    Mpps    RD %    Avg B\n"
	"------------------  --------  ---------  -------------  -------------  -------------------  "
	"------  ------  ------  -------\n"
	"PTC -> PCIe (RQ)    25.00     25.00      1.00           -              30.0 20.0            "
	"25.60   10.000  -       320\n"
	"PCIe -> PTC (RC)    0.00      0.00       0.00           -              0.0 0.0              "
	"0.00    0.000   -       -\n"
	"DMA0 -> PTC (UP)    12.50     25.00      5.00           0.50           20.0 5.0             "
	"2.00    4.000   50.00   125\n"
	"PTC -> DMA0 (DOWN)  5.00      10.00      0.00           1.00           10.0 0.0             "
	"0.26    1.000   -       32\n"
	"\n"
	"  Why the PCIe transfer stopped (share of PCIe clock cycles)\n"
	"    UP stream                              DOWN stream\n"
	"    no free PCIe tag             1.00 %    MFB stalled towards DMA   0.50 %\n"
	"    PCIe tag not ready           0.00 %    MVB stalled towards DMA   0.30 %\n"
	"    no room for completions      2.00 %\n"
	"    no completion header entry   0.10 %\n"
	"    PCIe endpoint not ready      1.00 %\n"
	"\n"
	"Time spent low          of    none    <=1/8    <=1/2    rest\n"
	"----------------------  ----  ------  -------  -------  ------\n"
	"PCIe tags               256   0.00    1.00     9.00     90.00\n"
	"PTC storage FIFO words  1024  0.10    1.00     0.00     98.90\n";

static void test_text_example(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	fill_example(&f);
	char *t = one_second_text(&f);
	assert_string_equal(t, example_text);
	free(t);
	fix_free(&f);
}

static void test_text_totals_and_zero_interval(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	fill_example(&f);
	/* totals mode, and a zero-length interval, print the same */
	struct pt_report reps[2] = {
		{ .layout = &f.l, .reading = &f.r, .interval = false, .seconds = 5.0 },
		{ .layout = &f.l, .reading = &f.r, .interval = true, .seconds = 0.0 },
	};
	for (int i = 0; i < 2; i++) {
		char *t = render_ok(pt_render_text, &reps[i]);
		assert_line(t, "==", "==========================================================");
		assert_non_null(strstr(t, "=\nTotals since the last clear\n\nPCIe endpoint 0\n"));
		assert_null(strstr(t, "MHz"));
		/* Gbps and Mpps empty; Avg B still there */
		assert_line(t, "PTC -> PCIe (RQ)",
			    "PTC -> PCIe (RQ)    25.00     25.00      1.00           -              "
			    "30.0 20.0                            -       320");
		assert_line(t, "PCIe -> PTC (RC)",
			    "PCIe -> PTC (RC)    0.00      0.00       0.00           -              "
			    "0.0 0.0                              -       -");
		free(t);
	}
	fix_free(&f);
}

static void test_text_flags(void **state)
{
	(void)state;
	static const struct {
		uint32_t status;
		const char *after_header;
	} t[] = {
		{ 0x0, "Measured over 1.00 s\n\nPCIe endpoint 0\n" },
		{ 0x1, "Measured over 1.00 s\n\nPCIe endpoint 0\n" }, /* busy is no warning */
		{ 0x2, "Measured over 1.00 s\n\n  !! LOST DELTAS - the counters are not exact\n\nPCIe" },
		{ 0x4, "Measured over 1.00 s\n\n  !! READ-OUT OVERRUN - the counters are not exact\n\nPCIe" },
		{ 0x6, "Measured over 1.00 s\n\n  !! LOST DELTAS - the counters are not exact\n"
		       "  !! READ-OUT OVERRUN - the counters are not exact\n\nPCIe" },
	};
	struct fix f;
	fix_init(&f, &std_spec);
	fill_example(&f);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		f.r.status = t[i].status;
		struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = true, .seconds = 1.0 };
		char *out = render_ok(pt_render_text, &rep);
		if (!strstr(out, t[i].after_header))
			fail_msg("status 0x%x:\n%s", t[i].status, out);
		free(out);
	}
	fix_free(&f);
}

static void test_text_link_fields(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	/* MPS code 7, MRRS code 6, 10-bit tag, RCB 128, link down; lowest
	 * above now as after a clear of the marks */
	f.r.pcie_status[0] = 0x7 | 6u << 3 | 1u << 7 | 1u << 8;
	f.r.pcie_tags[0] = 0x07FF0000;
	f.r.pcie_stfifo[0] = 0xFFFF0000;
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = false };
	char *t = render_ok(pt_render_text, &rep);
	assert_line(t, "Link ", "Link                      DOWN");
	assert_line(t, "Max payload", "Max payload size (MPS)    16384 B");
	assert_line(t, "Max read", "Max read request (MRRS)   8192 B");
	assert_line(t, "Extended", "Extended tag (8-bit)      off");
	assert_line(t, "10-bit", "10-bit tag                on");
	assert_line(t, "Read completion", "Read completion boundary  128 B");
	assert_line(t, "PTC tags", "PTC tags free             0 (lowest 2047)");
	assert_line(t, "PTC storage FIFO free", "PTC storage FIFO free     0 words (lowest 65535)");
	/* no cycles at all: every share is a dash, per-region cells too */
	assert_line(t, "PTC -> PCIe (RQ)",
		    "PTC -> PCIe (RQ)    -         -          -              -              - -"
		    "                                  -       -");
	assert_line(t, "    no free PCIe tag", "    no free PCIe tag              -   %    "
					      "MFB stalled towards DMA    -   %");
	assert_line(t, "PCIe tags ", "PCIe tags               256   -       -        -        -");
	free(t);
	fix_free(&f);
}

static void test_text_reasons_up_only(void **state)
{
	(void)state;
	struct spec s = std_spec;
	s.driven = 4;
	struct fix f;
	fix_init(&f, &s);
	fill_example(&f);
	char *t = one_second_text(&f);
	assert_non_null(strstr(t, "  Why the PCIe transfer stopped (share of PCIe clock cycles)\n"
				  "    UP stream\n"
				  "    no free PCIe tag             1.00 %\n"
				  "    PCIe tag not ready           0.00 %\n"
				  "    no room for completions      2.00 %\n"
				  "    no completion header entry   0.10 %\n"
				  "    PCIe endpoint not ready      1.00 %\n\n"));
	assert_null(strstr(t, "DOWN stream"));
	free(t);
	fix_free(&f);
}

static void test_text_reasons_unnamed(void **state)
{
	(void)state;
	struct spec s = std_spec;
	s.driven = 11;
	struct fix f;
	fix_init(&f, &s);
	fill_example(&f);
	for (unsigned k = 6; k < 11; k++)
		f.r.cnt[pt_idx_brake(&f.l, 0, k)] = 4000000u * (k - 5);
	char *t = one_second_text(&f);
	assert_non_null(strstr(t, "    UP stream                              DOWN stream\n"
				  "    no free PCIe tag             1.00 %    MFB stalled towards DMA   0.50 %\n"
				  "    PCIe tag not ready           0.00 %    MVB stalled towards DMA   0.30 %\n"
				  "    no room for completions      2.00 %\n"
				  "    no completion header entry   0.10 %\n"
				  "    reason 6                     1.00 %\n"
				  "    reason 7                     2.00 %\n"
				  "    reason 8                     3.00 %\n"
				  "    reason 9                     4.00 %\n"
				  "    reason 10                    5.00 %\n"
				  "    PCIe endpoint not ready      1.00 %\n"));
	free(t);
	fix_free(&f);
}

static void test_text_reasons_none_driven(void **state)
{
	(void)state;
	struct spec s = std_spec;
	s.driven = 0;
	struct fix f;
	fix_init(&f, &s);
	fill_example(&f);
	char *t = one_second_text(&f);
	/* up_label = 24, up_width = 32 */
	assert_non_null(strstr(t, "(share of PCIe clock cycles)\n"
				  "    UP stream\n"
				  "    PCIe endpoint not ready   1.00 %\n\n"
				  "Time spent low"));
	free(t);
	fix_free(&f);
}

static void test_text_hist_extra(void **state)
{
	(void)state;
	struct spec s = std_spec;
	s.hists = 3;
	s.bands = 6;
	s.fifo = 0;
	struct fix f;
	fix_init(&f, &s);
	fill_example(&f);
	f.r.cnt[pt_idx_hist(&f.l, 0, 2, 5)] = 200000000;
	char *t = one_second_text(&f);
	assert_non_null(strstr(t, "\nTime spent low          of    none    <=1/8    <=1/2    rest    "
				  "band 4    band 5\n"
				  "----------------------  ----  ------  -------  -------  ------  "
				  "--------  --------\n"
				  "PCIe tags               256   0.00    1.00     9.00     90.00   0.00      0.00\n"
				  "PTC storage FIFO words  -     0.10    1.00     0.00     98.90   0.00      0.00\n"
				  "resource 2              -     0.00    0.00     0.00     0.00    0.00      50.00\n"));
	free(t);
	fix_free(&f);
}

static void test_text_no_hist(void **state)
{
	(void)state;
	struct spec s = std_spec;
	s.hists = 0;
	struct fix f;
	fix_init(&f, &s);
	fill_example(&f);
	char *t = one_second_text(&f);
	size_t n = strlen(t);
	const char *tail = "    PCIe endpoint not ready      1.00 %\n";
	assert_true(n > strlen(tail));
	assert_string_equal(t + n - strlen(tail), tail);
	assert_null(strstr(t, "Time spent low"));
	free(t);
	fix_free(&f);
}

static void test_text_wide_cells(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	fill_example(&f);
	/* a microsecond: rates become wide and push the columns out */
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = true, .seconds = 1e-6 };
	char *t = render_ok(pt_render_text, &rep);
	assert_line(t, "Measured", "Measured over 0.00 s");
	assert_line(t, "  PCIe clock", "  PCIe clock 400000000.0 MHz, DMA clock 200000000.0 MHz");
	assert_line(t, "Bus ",
		    "Bus                 Used %    Words %    MFB stall %    MVB stall %    "
		    "Used per region %    Gbps         Mpps          RD %    Avg B");
	assert_line(t, "PTC -> PCIe (RQ)",
		    "PTC -> PCIe (RQ)    25.00     25.00      1.00           -              "
		    "30.0 20.0            25600000.00  10000000.000  -       320");
	free(t);
	fix_free(&f);
}

/* Rates over an absurdly short interval are printed whole, never cut;
 * beyond the double range they are "inf", as in Python. */
static void test_text_huge_rates(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	fill_example(&f);
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = true, .seconds = 1e-290 };
	char *t = render_ok(pt_render_text, &rep);
	char *row = line_starting(t, "PTC -> PCIe (RQ)");
	assert_non_null(row);
	/* Gbps = 2.56e10 / 1e-290 / 1e9, about 2.56e291: 292 digits and ".00" */
	char *cell = strstr(row, "  256");
	assert_non_null(cell);
	cell += 2;
	size_t n = strcspn(cell, " ");
	assert_int_equal(n, 295);
	assert_int_equal(strspn(cell, "0123456789"), 292);
	assert_memory_equal(cell + 292, ".00", 3);
	/* Mpps = 1e7 / 1e-290 / 1e6, about 1e291 (either side of it after
	 * two roundings): 291 or 292 digits and ".000" */
	char *m = cell + n + 2;
	size_t digits = strspn(m, "0123456789");
	assert_true(digits == 291 || digits == 292);
	assert_int_equal(strcspn(m, " "), digits + 4);
	assert_memory_equal(m + digits, ".000", 4);
	free(row);
	free(t);
	rep.seconds = 1e-300; /* 2.56e310 overflows */
	t = render_ok(pt_render_text, &rep);
	row = line_starting(t, "PTC -> PCIe (RQ)");
	assert_non_null(strstr(row, "  inf  "));
	free(row);
	free(t);
	fix_free(&f);
}

static void test_text_two_endpoints_two_ports(void **state)
{
	(void)state;
	struct spec s = std_spec;
	s.eps = 2;
	s.ports = 2;
	struct fix f;
	fix_init(&f, &s);
	fill_example(&f);
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = true, .seconds = 2.0 };
	char *t = render_ok(pt_render_text, &rep);
	assert_line(t, "PCIe telemetry", "PCIe telemetry - 2 endpoint(s), 2 DMA port(s) per endpoint");
	assert_non_null(strstr(t, "\nPCIe endpoint 1\n-----"));
	assert_non_null(strstr(t, "\nDMA1 -> PTC (UP)    "));
	assert_non_null(strstr(t, "\nPTC -> DMA1 (DOWN)  "));
	/* endpoint 1 has no cycles: its clock line shows 0.0 MHz */
	assert_non_null(strstr(t, "PCIe endpoint 1\n"));
	assert_non_null(strstr(strstr(t, "PCIe endpoint 1\n"), "  PCIe clock 0.0 MHz, DMA clock 0.0 MHz\n"));
	assert_line(t, "  PCIe clock 200", "  PCIe clock 200.0 MHz, DMA clock 100.0 MHz");
	free(t);
	fix_free(&f);
}

/* The metrics of the report bound once by the caller: the same text; a
 * set of another layout, or without the built-in metrics, is refused. */
static void test_text_with_bound_metrics(void **state)
{
	(void)state;
	struct fix f, g;
	struct spec s2 = std_spec;
	struct pt_metric_set *set, *other, *bare;
	struct pt_metric_defs *d;
	char msg[PT_METRIC_MSG_LEN];
	s2.eps = 2;
	fix_init(&f, &std_spec);
	fix_init(&g, &s2);
	fill_example(&f);
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = true, .seconds = 2.0 };
	char *want = render_ok(pt_render_text, &rep);
	/* the built-in metrics and one of the user's */
	assert_int_equal(pt_metric_defs_new(&d, 0, msg, sizeof msg), 0);
	const char *mine = "[{\"MetricName\": \"{bus}.idle_pct\", \"MetricExpr\": "
			   "\"100.0 - {bus}.words_pct\", \"BriefDescription\": \"idle\"}]";
	assert_int_equal(pt_metric_defs_add_json(d, mine, strlen(mine), "mine", msg, sizeof msg), 0);
	assert_int_equal(pt_metric_bind(d, &f.l, &set, msg, sizeof msg), 0);
	pt_metric_defs_free(d);
	rep.metrics = set;
	char *got = render_ok(pt_render_text, &rep);
	assert_string_equal(got, want);
	free(got);
	assert_int_equal(pt_metric_bind_builtin(&g.l, &other, msg, sizeof msg), 0);
	rep.metrics = other;
	assert_int_equal(render(pt_render_text, &rep, &got), -EINVAL);
	free(got);
	assert_int_equal(pt_metric_defs_new(&d, PT_METRIC_NO_BUILTIN, msg, sizeof msg), 0);
	assert_int_equal(pt_metric_bind(d, &f.l, &bare, msg, sizeof msg), 0);
	pt_metric_defs_free(d);
	rep.metrics = bare;
	assert_int_equal(render(pt_render_text, &rep, &got), -EINVAL);
	free(got);
	pt_metric_set_free(set);
	pt_metric_set_free(other);
	pt_metric_set_free(bare);
	free(want);
	fix_free(&f);
	fix_free(&g);
}

static void test_text_region_counts(void **state)
{
	(void)state;
	/* padding regions are not shown; a bus with no real region shows an
	 * empty per-region cell and a dash for Used % */
	struct spec s = std_spec;
	s.pr = 4;
	s.rq = 4;
	s.rc = 3;
	s.dr = 2;
	s.up = 2;
	s.down = 0;
	struct fix f;
	fix_init(&f, &s);
	const struct pt_layout *l = &f.l;
	f.r.cnt[pt_idx_pcie_cycles(l, 0)] = 1000;
	f.r.cnt[pt_idx_dma_cycles(l, 0)] = 1000;
	for (unsigned r = 0; r < 4; r++) {
		f.r.cnt[pt_idx_bus(l, 0, 0, PT_F_REGION0 + r)] = 100 * (r + 1);
		f.r.cnt[pt_idx_bus(l, 0, 1, PT_F_REGION0 + r)] = 999; /* r = 3 is padding */
	}
	f.r.cnt[pt_idx_bus(l, 0, 3, PT_F_REGION0)] = 999; /* padding of DOWN */
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = false };
	char *t = render_ok(pt_render_text, &rep);
	/* RQ: (100+200+300+400) / (1000*4) = 25 %; RC: 2997 / 3000 */
	assert_line(t, "PTC -> PCIe (RQ)",
		    "PTC -> PCIe (RQ)    25.00     0.00       0.00           -              "
		    "10.0 20.0 30.0 40.0                  -       -");
	assert_line(t, "PCIe -> PTC (RC)",
		    "PCIe -> PTC (RC)    99.90     0.00       0.00           -              "
		    "99.9 99.9 99.9                       -       -");
	assert_line(t, "PTC -> DMA0 (DOWN)",
		    "PTC -> DMA0 (DOWN)  -         0.00       0.00           0.00           "
		    "                                     -       -");
	free(t);
	fix_free(&f);
}

static void test_text_rd_and_avg(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	const struct pt_layout *l = &f.l;
	f.r.cnt[pt_idx_pcie_cycles(l, 0)] = 1000;
	f.r.cnt[pt_idx_dma_cycles(l, 0)] = 1000;
	/* UP: more transactions than MVB items: RD % clamps at 0 */
	set_bus(&f, 0, 2, 10, 0, 30, 20, 0, 25, 0, 0);
	/* Avg B rounds the exact quotient: 25 * 4 / 30 = 3.33 -> 3; RQ 5*4/8 = 2.5 -> 2 */
	set_bus(&f, 0, 0, 10, 0, 8, 0, 0, 5, 0, 0);
	/* RQ totals above 2^63 */
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = false };
	char *t = render_ok(pt_render_text, &rep);
	assert_line(t, "DMA0 -> PTC (UP)",
		    "DMA0 -> PTC (UP)    0.00      1.00       0.00           0.00           "
		    "0.0 0.0                              0.00    3");
	assert_line(t, "PTC -> PCIe (RQ)",
		    "PTC -> PCIe (RQ)    0.00      1.00       0.00           -              "
		    "0.0 0.0                              -       2");
	free(t);
	/* 64-bit totals: the exact 72-bit product in Gbps and Avg B */
	f.r.cnt[pt_idx_bus(l, 0, 0, PT_F_ITEMS)] = UINT64_MAX;
	f.r.cnt[pt_idx_bus(l, 0, 0, PT_F_TRANSACTIONS)] = 3;
	rep.interval = true;
	rep.seconds = 1.0;
	t = render_ok(pt_render_text, &rep);
	/* Gbps: 2^64-1 items * 32 bits = 590295810358705651680 -> /1e9 */
	char *row = line_starting(t, "PTC -> PCIe (RQ)");
	assert_non_null(row);
	assert_non_null(strstr(row, "  590295810358.71  "));
	assert_non_null(strstr(row, "  24595658764946067456"));
	free(row);
	free(t);
	fix_free(&f);
}

/* ---- JSON --------------------------------------------------------------------- */

static const char small_json[] =
	"{\n"
	"    \"seconds\": 0.3000000000000007,\n"
	"    \"data\": {\n"
	"        \"endpoints\": [\n"
	"            {\n"
	"                \"index\": 0,\n"
	"                \"link_up\": true,\n"
	"                \"mps\": 256,\n"
	"                \"mrrs\": 512,\n"
	"                \"ext_tag\": true,\n"
	"                \"tag_10b\": false,\n"
	"                \"rcb\": 64,\n"
	"                \"tags_free\": 112,\n"
	"                \"tags_free_min\": 10,\n"
	"                \"stfifo_free\": 313,\n"
	"                \"stfifo_free_min\": 101,\n"
	"                \"pcie_cycles\": 18446744073709551615,\n"
	"                \"dma_cycles\": 7,\n"
	"                \"brakes\": [],\n"
	"                \"hists\": [],\n"
	"                \"buses\": {\n"
	"                    \"PTC -> PCIe (RQ)\": {\n"
	"                        \"words\": 1,\n"
	"                        \"backpressure\": 2,\n"
	"                        \"transactions\": 3,\n"
	"                        \"mvb\": 4,\n"
	"                        \"mvb_backpressure\": 5,\n"
	"                        \"items\": 6,\n"
	"                        \"regions\": [\n"
	"                            7\n"
	"                        ],\n"
	"                        \"region_bytes\": 32,\n"
	"                        \"pcie_clk\": true,\n"
	"                        \"has_mvb\": false,\n"
	"                        \"dma_up\": false\n"
	"                    },\n"
	"                    \"PCIe -> PTC (RC)\": {\n"
	"                        \"words\": 0,\n"
	"                        \"backpressure\": 0,\n"
	"                        \"transactions\": 0,\n"
	"                        \"mvb\": 0,\n"
	"                        \"mvb_backpressure\": 0,\n"
	"                        \"items\": 0,\n"
	"                        \"regions\": [],\n"
	"                        \"region_bytes\": 32,\n"
	"                        \"pcie_clk\": true,\n"
	"                        \"has_mvb\": false,\n"
	"                        \"dma_up\": false\n"
	"                    }\n"
	"                }\n"
	"            }\n"
	"        ],\n"
	"        \"status\": {\n"
	"            \"busy\": false,\n"
	"            \"lost_deltas\": true,\n"
	"            \"readout_overrun\": false\n"
	"        },\n"
	"        \"config\": {\n"
	"            \"pcie_endpoints\": 1,\n"
	"            \"dma_ports\": 0,\n"
	"            \"probe_pcie_regions\": 1,\n"
	"            \"probe_dma_regions\": 1,\n"
	"            \"counter_width\": 64,\n"
	"            \"item_bytes\": 8,\n"
	"            \"drain_period\": 4096,\n"
	"            \"hist_bands\": 0,\n"
	"            \"tag_capacity\": 512,\n"
	"            \"stfifo_capacity\": 2048\n"
	"        }\n"
	"    }\n"
	"}\n";

static void test_json_small(void **state)
{
	(void)state;
	struct spec s = { .eps = 1, .ports = 0, .pr = 1, .dr = 1, .rq = 1, .rc = 0, .driven = 0,
			  .hists = 0, .bands = 0, .cnt_width = 64, .item_bytes = 8, .tags = 512,
			  .fifo = 2048 };
	struct fix f;
	fix_init(&f, &s);
	const struct pt_layout *l = &f.l;
	f.r.cnt[pt_idx_pcie_cycles(l, 0)] = UINT64_MAX;
	f.r.cnt[pt_idx_dma_cycles(l, 0)] = 7;
	for (unsigned i = 0; i < 7; i++)
		f.r.cnt[pt_idx_bus(l, 0, 0, i)] = i + 1;
	f.r.status = PT_STATUS_LOST_DELTAS;
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = true,
				 .seconds = 7.4 - 7.1 };
	char *t = render_ok(pt_render_json, &rep);
	assert_string_equal(t, small_json);
	free(t);
	fix_free(&f);
}

static void test_json_seconds(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	fill_example(&f);
	f.r.status = PT_STATUS_BUSY | PT_STATUS_OVERRUN;
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = false, .seconds = 3.0 };
	char *t = render_ok(pt_render_json, &rep);
	assert_prefix(t, "{\n    \"seconds\": null,\n    \"data\": {\n");
	assert_non_null(strstr(t, "            \"busy\": true,\n            \"lost_deltas\": false,\n"
				  "            \"readout_overrun\": true\n"));
	/* nested lists of the histograms and the brakes */
	assert_non_null(strstr(t, "                \"brakes\": [\n"
				  "                    4000000,\n"
				  "                    0,\n"));
	assert_non_null(strstr(t, "                \"hists\": [\n"
				  "                    [\n"
				  "                        0,\n"
				  "                        4000000,\n"
				  "                        36000000,\n"
				  "                        360000000\n"
				  "                    ],\n"
				  "                    [\n"
				  "                        400000,\n"));
	assert_non_null(strstr(t, "                    \"DMA0 -> PTC (UP)\": {\n"));
	assert_non_null(strstr(t, "\"region_bytes\": 64,\n"
				  "                        \"pcie_clk\": false,\n"
				  "                        \"has_mvb\": true,\n"
				  "                        \"dma_up\": true\n"));
	assert_string_equal(t + strlen(t) - 3, "\n}\n");
	free(t);
	rep.interval = true;
	rep.seconds = 0.0;
	t = render_ok(pt_render_json, &rep);
	assert_prefix(t, "{\n    \"seconds\": 0.0,\n");
	free(t);
	rep.seconds = 1.0;
	t = render_ok(pt_render_json, &rep);
	assert_prefix(t, "{\n    \"seconds\": 1.0,\n");
	free(t);
	fix_free(&f);
}

/* ---- errors ---------------------------------------------------------------------- */

static void test_errors(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	struct pt_report rep = { .layout = &f.l, .reading = &f.r, .interval = false };
	char *t;
	assert_int_equal(pt_render_text(NULL, &rep), -EINVAL);
	assert_int_equal(pt_render_json(stdout, NULL), -EINVAL);
	/* a reading shorter than the layout: refused, nothing read past it */
	struct pt_reading shortr;
	assert_int_equal(pt_reading_init(&shortr, 8), 0);
	rep.reading = &shortr;
	assert_int_equal(render(pt_render_text, &rep, &t), -EINVAL);
	free(t);
	assert_int_equal(render(pt_render_json, &rep, &t), -EINVAL);
	free(t);
	size_t tlen = 0;
	FILE *m = open_memstream(&t, &tlen);
	assert_int_equal(pt_render_regs_image(m, &f.l, &shortr), -EINVAL);
	fclose(m);
	assert_int_equal(tlen, 0);
	free(t);
	pt_reading_free(&shortr);
	rep.reading = &f.r;
	/* a stream that cannot be written: -EIO */
	FILE *ro = fopen("/dev/null", "r");
	assert_non_null(ro);
	assert_int_equal(pt_render_text(ro, &rep), -EIO);
	clearerr(ro);
	assert_int_equal(pt_render_json(ro, &rep), -EIO);
	clearerr(ro);
	assert_int_equal(pt_render_regs_image(ro, &f.l, &f.r), -EIO);
	clearerr(ro);
	assert_int_equal(pt_render_regs_header(ro, "1", "x", "y"), -EIO);
	fclose(ro);
	fix_free(&f);
}

/* ---- register images -------------------------------------------------------------- */

static char *regs_image(const struct pt_layout *l, const struct pt_reading *r, int *rc)
{
	FILE *m = mem_open();
	*rc = pt_render_regs_image(m, l, r);
	return mem_close(m);
}

static void test_regs_image_lines(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	const struct pt_layout *l = &f.l;
	f.r.time = 1234.5;
	f.r.status = 0x2;
	f.r.cnt[pt_idx_pcie_cycles(l, 0)] = 0x9504679EBu;
	f.r.cnt[pt_idx_bus(l, 0, 2, PT_F_MVB)] = 0x1200000000u; /* low word zero */
	f.r.cnt[pt_idx_hist(l, 0, 1, 3)] = 5;
	int rc;
	char *t = regs_image(l, &f.r, &rc);
	assert_int_equal(rc, 0);
	assert_prefix(t, "\n@snapshot 1234.5\n0x0000 0x50544C4D  # MAGIC\n");
	assert_non_null(strstr(t, "\n0x0024 0x00000002  # STATUS\n"));
	assert_non_null(strstr(t, "\n0x0040 0x00000251  # PCIE_STATUS ep0\n"));
	assert_non_null(strstr(t, "\n0x0080 0x000A0070  # PCIE_TAGS ep0\n"));
	assert_non_null(strstr(t, "\n0x00C0 0x00650139  # PCIE_STFIFO ep0\n"));
	assert_non_null(strstr(t, "\n0x000C 0x30300040  # CFG_LAYOUT\n"));
	assert_non_null(strstr(t, "\n0x8000 0x504679EB  # ep0.pcie_cycles\n"
				  "0x8004 0x00000009  # ep0.pcie_cycles, high word\n"));
	/* UP0 mvb is counter 1 + 2*(6+2) + 14 + 1 + 3 = 35: 0x8118 */
	assert_null(strstr(t, "\n0x8118 "));
	assert_non_null(strstr(t, "\n0x811C 0x00000012  # ep0.up0.mvb_items, high word\n"));
	/* hist 1 band 3 is counter 1 + 16 + 6 + 7 = 30: 0x80F0 */
	assert_non_null(strstr(t, "\n0x80F0 0x00000005  # ep0.hist.stfifo.rest_cycles\n"));
	assert_null(strstr(t, "COMMAND"));
	/* nothing else: zero counters are left out */
	unsigned lines = 0;
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 2 + 14 + 1 + 3 + 4);
	free(t);
	fix_free(&f);
}

static void test_regs_snapshot_times(void **state)
{
	(void)state;
	static const struct {
		double t;
		const char *s;
	} tab[] = {
		{ 0.0, "0.0" },
		{ 100.0, "100.0" },
		{ 7.1, "7.1" },
		{ 1e-05, "0.00001" },
		{ 2.9999999999752447e-05, "0.000029999999999752447" },
		{ 1e16, "10000000000000000.0" },
		{ 1.5e20, "150000000000000000000.0" },
		{ 123456.789, "123456.789" },
		{ 46116860184.27388, "46116860184.27388" },
	};
	struct fix f;
	fix_init(&f, &std_spec);
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		f.r.time = tab[i].t;
		int rc;
		char *t = regs_image(&f.l, &f.r, &rc);
		assert_int_equal(rc, 0);
		char want[128];
		snprintf(want, sizeof want, "\n@snapshot %s\n", tab[i].s);
		if (strncmp(t, want, strlen(want)) != 0)
			fail_msg("time %.17g: got %.40s", tab[i].t, t);
		free(t);
	}
	/* random times: plain decimal, and strtod gives the same double */
	uint64_t x = 88172645463325252u;
	for (int i = 0; i < 5000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		uint64_t bits = x & ~(UINT64_C(1) << 63);
		memcpy(&v, &bits, sizeof v);
		if (!isfinite(v))
			continue;
		f.r.time = v;
		int rc;
		char *t = regs_image(&f.l, &f.r, &rc);
		assert_int_equal(rc, 0);
		char *nl = strchr(t + 1, '\n');
		*nl = '\0';
		const char *num = t + strlen("\n@snapshot ");
		assert_int_equal(strspn(num, "0123456789."), strlen(num));
		assert_true(strtod(num, NULL) == v);
		free(t);
	}
	/* the grammar has no sign, no exponent, no inf */
	static const double bad[] = { -1.0, -1e-300, INFINITY, NAN };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		f.r.time = bad[i];
		int rc;
		char *t = regs_image(&f.l, &f.r, &rc);
		assert_int_equal(rc, -EINVAL);
		free(t);
	}
	fix_free(&f);
}

static void test_regs_header(void **state)
{
	(void)state;
	char *t = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&t, &len);
	assert_int_equal(pt_render_regs_header(m, "1.0.0", "nfb-pcie-telemetry -t 1\n--record x",
					       "image:a\tb"),
			 0);
	fclose(m);
	assert_prefix(t, "pcie-telemetry-regs 1\n#");
	assert_non_null(strstr(t, "\n# recorded by nfb-pcie-telemetry 1.0.0\n"));
	/* control characters cannot break a comment line */
	assert_non_null(strstr(t, "\n# command: nfb-pcie-telemetry -t 1?--record x\n"));
	assert_non_null(strstr(t, "\n# device: image:a?b\n"));
	for (const char *p = t; *p; p++)
		if (p == t || p[-1] == '\n')
			assert_true(strncmp(p, "pcie-telemetry-regs 1\n", 22) == 0 || *p == '#');
	free(t);
	/* optional parts left out */
	m = open_memstream(&t, &len);
	assert_int_equal(pt_render_regs_header(m, NULL, NULL, NULL), 0);
	fclose(m);
	assert_null(strstr(t, "command"));
	free(t);
}

static void test_regs_window_checks(void **state)
{
	(void)state;
	struct fix f;
	fix_init(&f, &std_spec);
	struct pt_layout l = f.l;
	l.cnt_base = 0xFFF0; /* 64 counters do not fit */
	int rc;
	char *t = regs_image(&l, &f.r, &rc);
	assert_int_equal(rc, -ERANGE);
	free(t);
	l.cnt_base = 0x80; /* over PCIE_TAGS: offsets would repeat */
	t = regs_image(&l, &f.r, &rc);
	assert_int_equal(rc, -ERANGE);
	free(t);
	f.r.cnt[0] = 1;
	l.cnt_base = 0x100; /* right after the registers: fine */
	t = regs_image(&l, &f.r, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(t, "\n0x0100 "));
	free(t);
	l.cnt_base = 0x8002; /* not a multiple of 4 */
	t = regs_image(&l, &f.r, &rc);
	assert_int_equal(rc, -EINVAL);
	free(t);
	fix_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pct),
		cmocka_unit_test(test_float_repr),
		cmocka_unit_test(test_float_repr_roundtrip),
		cmocka_unit_test(test_plain_decimal),
		cmocka_unit_test(test_table_simple),
		cmocka_unit_test(test_table_plain),
		cmocka_unit_test(test_text_example),
		cmocka_unit_test(test_text_totals_and_zero_interval),
		cmocka_unit_test(test_text_flags),
		cmocka_unit_test(test_text_link_fields),
		cmocka_unit_test(test_text_reasons_up_only),
		cmocka_unit_test(test_text_reasons_unnamed),
		cmocka_unit_test(test_text_reasons_none_driven),
		cmocka_unit_test(test_text_hist_extra),
		cmocka_unit_test(test_text_no_hist),
		cmocka_unit_test(test_text_wide_cells),
		cmocka_unit_test(test_text_huge_rates),
		cmocka_unit_test(test_text_two_endpoints_two_ports),
		cmocka_unit_test(test_text_with_bound_metrics),
		cmocka_unit_test(test_text_region_counts),
		cmocka_unit_test(test_text_rd_and_avg),
		cmocka_unit_test(test_json_small),
		cmocka_unit_test(test_json_seconds),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_regs_image_lines),
		cmocka_unit_test(test_regs_snapshot_times),
		cmocka_unit_test(test_regs_header),
		cmocka_unit_test(test_regs_window_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
