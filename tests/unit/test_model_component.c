/*
 * Component model (PCIE_TELEMETRY_MI): every conformance vector of
 * tests/conformance/component run in-process and compared with the RTL's
 * answers under their masks; the counter memory FSM, the MI register
 * block, the generics rules and the trace runner's error handling.
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

#include "model/acc.h"
#include "model/model_priv.h"
#include "pcie_telemetry/model.h"
#include "pcie_telemetry/trace.h"
#include "test_util.h"

/* ------------------------------------------------------------------ */
/* Conformance vectors                                                 */

struct rline {
	unsigned long long edge;
	unsigned addr, data, mask;
};

static size_t parse_r(const char *text, struct rline *out, size_t cap, int with_mask)
{
	size_t n = 0;
	const char *p = text;
	while (p && *p) {
		if (p[0] == 'R' && p[1] == ' ') {
			struct rline r = {0, 0, 0, 0xffffffffu};
			int got = with_mask ? sscanf(p, "R %llu %x %x %x", &r.edge, &r.addr, &r.data, &r.mask)
					    : sscanf(p, "R %llu %x %x", &r.edge, &r.addr, &r.data);
			assert_int_equal(got, with_mask ? 4 : 3);
			if (n < cap)
				out[n] = r;
			n++;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

static char *slurp(const char *path)
{
	char *buf = pt_test_slurp(path, NULL);

	assert_non_null(buf);
	return buf;
}

static int run_trace_text(const char *text, const char *name, char **out, size_t *outlen, char *msg,
			  size_t msglen)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(in);
	FILE *o = open_memstream(out, outlen);
	assert_non_null(o);
	int rc = ptm_trace_component_run(in, name, o, msg, msglen);
	fclose(o);
	fclose(in);
	return rc;
}

static void check_vector(const char *base)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/conformance/component/%s.trace", PT_TEST_DATA, base);
	char *trace = slurp(path);
	snprintf(path, sizeof(path), "%s/conformance/component/%s.expected", PT_TEST_DATA, base);
	char *exp = slurp(path);

	char *out = NULL;
	size_t outlen = 0;
	char msg[512] = "";
	int rc = run_trace_text(trace, base, &out, &outlen, msg, sizeof(msg));
	if (rc != 0)
		fail_msg("%s: %s", base, msg);
	assert_true(strncmp(out, "COMPONENT_EXPECTED 1\n", 21) == 0);
	assert_non_null(strstr(out, "\nEND\n"));

	size_t ne = parse_r(exp, NULL, 0, 1), ng = parse_r(out, NULL, 0, 0);
	assert_true(ne > 0);
	if (ne != ng)
		fail_msg("%s: %zu reads expected, %zu produced", base, ne, ng);
	struct rline *e = calloc(ne, sizeof(*e)), *g = calloc(ng, sizeof(*g));
	assert_non_null(e);
	assert_non_null(g);
	parse_r(exp, e, ne, 1);
	parse_r(out, g, ng, 0);
	for (size_t i = 0; i < ne; i++) {
		if (e[i].edge != g[i].edge || e[i].addr != g[i].addr)
			fail_msg("%s: read %zu: expected edge %llu addr %08x, got edge %llu addr %08x",
				 base, i, e[i].edge, e[i].addr, g[i].edge, g[i].addr);
		if ((g[i].data & e[i].mask) != e[i].data)
			fail_msg("%s: read at edge %llu of %08x: expected %08x (mask %08x), got %08x",
				 base, e[i].edge, e[i].addr, e[i].data, e[i].mask, g[i].data);
	}
	free(e);
	free(g);
	free(out);
	free(trace);
	free(exp);
}

static void test_vectors(void **state)
{
	(void)state;
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/conformance/component", PT_TEST_DATA);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 6 && !strcmp(de->d_name + l - 6, ".trace")) {
			char base[256];
			snprintf(base, sizeof(base), "%.*s", (int)(l - 6), de->d_name);
			check_vector(base);
			n++;
		}
	}
	closedir(d);
	assert_true(n >= 10);
}

/* ------------------------------------------------------------------ */
/* Generics                                                            */

static void expect_bad(const struct ptm_generics *g, const char *needle)
{
	char msg[256] = "";
	assert_int_equal(ptm_generics_check(g, msg, sizeof(msg)), -EINVAL);
	if (!strstr(msg, needle))
		fail_msg("message '%s' does not name '%s'", msg, needle);
}

static void test_generics(void **state)
{
	(void)state;
	struct ptm_generics g, b;
	char msg[256];
	ptm_generics_default(&g);
	assert_int_equal(ptm_generics_check(&g, msg, sizeof(msg)), 0);
	struct ptm_derived d;
	ptm_generics_derive(&g, &d);
	assert_int_equal(d.pcie_channels, 31);
	assert_int_equal(d.dma_channels, 17);
	assert_int_equal(d.ep_channels, 48);
	assert_int_equal(d.entries, 64);

	b = g; b.pcie_endpoints = 0; expect_bad(&b, "PCIE_ENDPOINTS");
	b = g; b.pcie_endpoints = 17; expect_bad(&b, "PCIE_ENDPOINTS");
	b = g; b.dma_ports = 0; expect_bad(&b, "DMA_PORTS");
	b = g; b.dma_up_mfb_regions = 17; expect_bad(&b, "DMA_UP_MFB_REGIONS");
	b = g; b.pcie_rc_mfb_region_bytes = 30; expect_bad(&b, "PCIE_RC_MFB_REGION_BYTES");
	b = g; b.dma_down_mfb_region_bytes = 0; expect_bad(&b, "DMA_DOWN_MFB_REGION_BYTES");
	b = g; b.pcie_eof_pos_width = 4; expect_bad(&b, "PCIE_EOF_POS_WIDTH");
	b = g; b.dma_up_mfb_region_bytes = 64; expect_bad(&b, "DMA_EOF_POS_WIDTH");
	b = g; b.cnt_width = 32; expect_bad(&b, "CNT_WIDTH");
	b = g; b.cnt_width = 65; expect_bad(&b, "CNT_WIDTH");
	b = g; b.drain_period = 1000; expect_bad(&b, "DRAIN_PERIOD");
	b = g; b.drain_period = 32; expect_bad(&b, "DRAIN_PERIOD"); /* sweep of 40 cycles */
	b = g; b.drain_period = 65536; expect_bad(&b, "DRAIN_PERIOD");
	b = g; b.tag_capacity = 70000; expect_bad(&b, "TAG_CAPACITY");
	b = g; b.stfifo_capacity = 70000; expect_bad(&b, "STFIFO_CAPACITY");
	b = g; b.mfb_item_bytes = 0; expect_bad(&b, "MFB_ITEM_BYTES");
	/* 16 ports x 2 buses x (6+2) channels: more than CFG_DMA's 8 bits. */
	b = g; b.dma_ports = 16; expect_bad(&b, "DMA_PORTS");
	/* 16 endpoints x 255 counters still fit the 4096 entries. */
	b = g; b.pcie_endpoints = 16; b.dma_ports = 7; b.dma_up_mfb_regions = 8;
	b.dma_down_mfb_regions = 1; b.pcie_rq_mfb_regions = 15; b.pcie_rc_mfb_regions = 1;
	ptm_generics_derive(&b, &d);
	assert_int_equal(d.ep_channels, 254);
	assert_int_equal(d.entries, 4096);
	assert_int_equal(ptm_generics_check(&b, msg, sizeof(msg)), 0);
	b.pcie_rq_mfb_regions = 16;
	expect_bad(&b, "255");
	/* Regions of one item: EOF_POS has no bits (log2 1 = 0). */
	b = g; b.pcie_rq_mfb_region_bytes = b.pcie_rc_mfb_region_bytes = 4;
	b.pcie_eof_pos_width = 0;
	assert_int_equal(ptm_generics_check(&b, msg, sizeof(msg)), 0);
	b.pcie_eof_pos_width = 1;
	expect_bad(&b, "PCIE_EOF_POS_WIDTH");
	/* A sweep shorter than the period is fine at 64. */
	b = g; b.drain_period = 64;
	assert_int_equal(ptm_generics_check(&b, msg, sizeof(msg)), 0);
	/* Model creation refuses bad generics with the same message. */
	ptm_model *m = NULL;
	b = g; b.cnt_width = 20;
	assert_int_equal(ptm_model_new(&b, &m, msg, sizeof(msg)), -EINVAL);
	assert_null(m);
	assert_non_null(strstr(msg, "CNT_WIDTH"));
}

/* ------------------------------------------------------------------ */
/* Counter memory                                                      */

static void test_acc_fsm(void **state)
{
	(void)state;
	enum { ENTRIES = 8 };
	uint64_t mem[2 * ENTRIES];
	const unsigned base[2] = {0, 4};
	struct ptm_acc a;
	ptm_acc_init(&a, 2, base, ENTRIES, 33, mem);
	struct ptm_acc_stream in[2] = {{1, 1, 5}, {1, 2, 7}};

	/* From IDLE, with both streams valid and sel = 0: stream 1 first. */
	ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
	assert_int_equal(a.state, PTM_ACC_RD);
	assert_int_equal(ptm_acc_rd_sel(&a), 1);
	ptm_acc_edge(&a, 0, 0, 0, in, 0, 0); /* RD */
	ptm_acc_edge(&a, 0, 0, 0, in, 0, 0); /* ADD */
	assert_int_equal(mem[6], 0);
	ptm_acc_edge(&a, 0, 0, 0, in, 0, 0); /* WR, chains into stream 0 */
	assert_int_equal(mem[6], 7);
	assert_int_equal(a.state, PTM_ACC_RD);
	assert_int_equal(ptm_acc_rd_sel(&a), 0);
	in[1].vld = 0;
	for (int i = 0; i < 3; i++)
		ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
	assert_int_equal(mem[1], 5);
	/* Only stream 0 valid: it is served again, 3 edges per delta. */
	assert_int_equal(ptm_acc_rd_sel(&a), 0);
	in[0].vld = 0;
	for (int i = 0; i < 3; i++)
		ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
	assert_int_equal(mem[1], 10);
	assert_int_equal(a.state, PTM_ACC_IDLE);
	assert_false(ptm_acc_busy(&a));

	/* Wrap modulo 2^33. */
	mem[1] = ((uint64_t)1 << 33) - 2;
	in[0] = (struct ptm_acc_stream){1, 1, 5};
	ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
	in[0].vld = 0;
	for (int i = 0; i < 3; i++)
		ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
	assert_int_equal(mem[1], 3);

	/* SNAPSHOT: latched at the pulse edge, 2*ENTRIES edges, busy all along. */
	ptm_acc_edge(&a, 0, 1, 0, in, 0, 0);
	assert_true(ptm_acc_busy(&a));
	assert_int_equal(a.state, PTM_ACC_IDLE);
	int edges = 0;
	ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
	while (a.state != PTM_ACC_IDLE) {
		assert_true(ptm_acc_busy(&a));
		ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
		edges++;
	}
	assert_int_equal(edges, 2 * ENTRIES);
	assert_int_equal(mem[ENTRIES + 1], 3);
	assert_int_equal(mem[ENTRIES + 6], 7);
	/* Software port: registered read of the address given at the edge. */
	ptm_acc_edge(&a, 0, 0, 0, in, 1, ENTRIES + 6);
	assert_int_equal(a.rd_data, 7);
	ptm_acc_edge(&a, 0, 0, 0, in, 0, 1);
	assert_int_equal(a.rd_data, 7);

	/* Deltas wait while a command runs. */
	ptm_acc_edge(&a, 0, 0, 1, in, 0, 0);
	in[0] = (struct ptm_acc_stream){1, 0, 9};
	ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
	assert_int_equal(a.state, PTM_ACC_CLEAR);
	for (int i = 0; i < 2 * ENTRIES; i++) {
		assert_int_equal(ptm_acc_rd_sel(&a), -1);
		ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
	}
	assert_int_equal(a.state, PTM_ACC_IDLE);
	for (int i = 0; i < 2 * ENTRIES; i++)
		assert_int_equal(mem[i], 0);

	/* Reset: IDLE, requests dropped, memory kept. */
	mem[3] = 42;
	ptm_acc_edge(&a, 0, 1, 0, in, 0, 0);
	ptm_acc_edge(&a, 1, 0, 0, in, 0, 0);
	assert_int_equal(a.state, PTM_ACC_IDLE);
	assert_false(ptm_acc_busy(&a));
	assert_int_equal(mem[3], 42);

	/* Skipping a command equals single edges. */
	uint64_t mem2[2 * ENTRIES];
	struct ptm_acc b;
	for (int k = 1; k < 2 * ENTRIES; k++) {
		in[0].vld = in[1].vld = 0;
		for (int i = 0; i < ENTRIES; i++)
			mem[i] = (uint64_t)(i + 1) * 11;
		memset(mem + ENTRIES, 0, sizeof(uint64_t) * ENTRIES);
		ptm_acc_init(&b, 2, base, ENTRIES, 33, mem2);
		memcpy(mem2, mem, sizeof(mem));
		a.state = PTM_ACC_IDLE;
		ptm_acc_edge(&a, 0, 1, 0, in, 0, 0);
		ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
		b = a;
		b.mem = mem2;
		for (int i = 0; i < k; i++)
			ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
		ptm_acc_cmd_skip(&b, (uint64_t)k);
		assert_int_equal(a.state, b.state);
		assert_int_equal(a.sweep, b.sweep);
		assert_memory_equal(mem, mem2, sizeof(mem));
		while (a.state != PTM_ACC_IDLE) {
			ptm_acc_edge(&a, 0, 0, 0, in, 0, 0);
			ptm_acc_edge(&b, 0, 0, 0, in, 0, 0);
		}
		assert_memory_equal(mem, mem2, sizeof(mem));
	}
}

/* ------------------------------------------------------------------ */
/* MI register block                                                   */

static ptm_model *new_default(void)
{
	struct ptm_generics g;
	ptm_generics_default(&g);
	g.drain_period = 256;
	ptm_model *m = NULL;
	char msg[256];
	assert_int_equal(ptm_model_new(&g, &m, msg, sizeof(msg)), 0);
	return m;
}

static void test_mi_regs(void **state)
{
	(void)state;
	ptm_model *m = new_default();
	struct ptm_mi_in in = {.rst = 1};
	struct ptm_mi_out out;
	for (int i = 0; i < 4; i++)
		ptm_mi_edge(m, &in, &out);
	in.rst = 0;
	ptm_mi_edge(m, &in, &out);

	/* Read latency 2: DRDY after the edge that follows the request. */
	in.rd = 1;
	in.addr = 0;
	ptm_mi_edge(m, &in, &out);
	assert_int_equal(out.ardy, 1);
	assert_int_equal(out.drdy, 0);
	in.rd = 0;
	in.addr = 4;
	ptm_mi_edge(m, &in, &out);
	assert_int_equal(out.drdy, 1);
	assert_int_equal(out.drd, PT_MAGIC);
	assert_int_equal(out.ardy, 0);
	ptm_mi_edge(m, &in, &out);
	assert_int_equal(out.drdy, 0);

	/* Pipelined back-to-back reads. */
	in.rd = 1;
	in.addr = 0x4;
	ptm_mi_edge(m, &in, &out);
	in.addr = 0x8;
	ptm_mi_edge(m, &in, &out);
	assert_int_equal(out.drdy, 1);
	assert_int_equal(out.drd, 0x00020000u); /* VERSION 2.0 */
	in.rd = 0;
	ptm_mi_edge(m, &in, &out);
	assert_int_equal(out.drdy, 1);
	assert_int_equal(out.drd, 0x00020101);
	ptm_mi_edge(m, &in, &out);
	assert_int_equal(out.drdy, 0);

	/* Aliases every 0x100 and above bit 15; unmapped reads 0. */
	assert_int_equal(ptm_mi_read(m, 0x100), PT_MAGIC);
	assert_int_equal(ptm_mi_read(m, 0x7f00), PT_MAGIC);
	assert_int_equal(ptm_mi_read(m, 0x12340000), PT_MAGIC);
	assert_int_equal(ptm_mi_read(m, 0x3), PT_MAGIC);
	assert_int_equal(ptm_mi_read(m, 0x20), 0);
	assert_int_equal(ptm_mi_read(m, 0x44), 0);   /* endpoint 1 of 1 */
	assert_int_equal(ptm_mi_read(m, 0x80), 0x07ff0000); /* mins all ones */
	assert_int_equal(ptm_mi_read(m, 0xc0), 0xffff0000);
	assert_int_equal(ptm_mi_read(m, 0x18), 0x00040100);
	assert_int_equal(ptm_mi_read(m, 0x34), 0x00000204);

	/* Writes to read-only registers are ignored; READ_SEL reads back. */
	ptm_mi_write(m, 0x0, 0);
	assert_int_equal(ptm_mi_read(m, 0x0), PT_MAGIC);
	ptm_mi_write(m, 0x28, 0xffffffff);
	assert_int_equal(ptm_mi_read(m, 0x28), 1);
	ptm_mi_write(m, 0x8028, 0); /* counter window: not a register write */
	assert_int_equal(ptm_mi_read(m, 0x28), 1);
	ptm_mi_write(m, 0x128, 0); /* alias */
	assert_int_equal(ptm_mi_read(m, 0x28), 0);

	/* SNAPSHOT: STATUS busy for 2*ENTRIES edges after the request. */
	ptm_mi_write(m, 0x20, 1);
	/* The request is latched one edge after the pulse: a STATUS read at the
	 * edge right after the write still sees 0, the next one 1. */
	assert_int_equal(ptm_mi_read(m, 0x24) & 1, 0);
	ptm_mi_idle_edges(m, 0, 200);
	assert_int_equal(ptm_mi_read(m, 0x24) & 1, 0);
	ptm_mi_write(m, 0x20, 1);
	ptm_mi_idle_edges(m, 0, 1);
	assert_int_equal(ptm_mi_read(m, 0x24) & 1, 1); /* request edge k+2 */
	/* busy up to request edge k+2+2*ENTRIES (the FSM leaves IDLE at k+2
	 * and spends 2*ENTRIES edges in SNAP_RD/SNAP_WR); reads take 2 edges */
	ptm_mi_idle_edges(m, 0, 2 * 64 - 4);
	assert_int_equal(ptm_mi_read(m, 0x24) & 1, 1); /* k+128 */
	assert_int_equal(ptm_mi_read(m, 0x24) & 1, 1); /* k+130 */
	assert_int_equal(ptm_mi_read(m, 0x24) & 1, 0); /* k+132 */

	/* MI reset clears a pending read answer and READ_SEL. */
	ptm_mi_write(m, 0x28, 1);
	in = (struct ptm_mi_in){.rd = 1, .addr = 0};
	ptm_mi_edge(m, &in, &out);
	in = (struct ptm_mi_in){.rst = 1};
	ptm_mi_edge(m, &in, &out);
	assert_int_equal(out.drdy, 0);
	in.rst = 0;
	ptm_mi_edge(m, &in, &out);
	assert_int_equal(out.drdy, 0);
	assert_int_equal(ptm_mi_read(m, 0x28), 0);
	ptm_model_free(m);
}

/* Counter window reads: high word zero-extended from CNT_WIDTH, READ_SEL
 * picks the copy, entries beyond the counters read 0. */
static void test_counter_window(void **state)
{
	(void)state;
	ptm_model *m = new_default();
	m->mem[5] = 0x123456789abcull;       /* live copy */
	m->mem[64 + 5] = 0xfedcba987654ull;  /* snapshot copy */
	assert_int_equal(ptm_mi_read(m, 0x8000 + 5 * 8), 0xba987654);
	assert_int_equal(ptm_mi_read(m, 0x8000 + 5 * 8 + 4), 0xfedc);
	ptm_mi_write(m, 0x28, 1);
	assert_int_equal(ptm_mi_read(m, 0x8000 + 5 * 8), 0x56789abc);
	assert_int_equal(ptm_mi_read(m, 0x8000 + 5 * 8 + 4), 0x1234);
	/* Entry bits above log2(ENTRIES) are ignored (alias). */
	assert_int_equal(ptm_mi_read(m, 0x8000 + (64 + 5) * 8), 0x56789abc);
	assert_int_equal(ptm_mi_read(m, 0x8000 + 60 * 8), 0);
	ptm_model_free(m);
}

/* ------------------------------------------------------------------ */
/* Trace runner errors                                                 */

static const char *hdr =
	"COMPONENT_TRACE 1\nPCIE_ENDPOINTS 1\nDMA_PORTS 1\nPCIE_RQ_MFB_REGIONS 2\n"
	"PCIE_RC_MFB_REGIONS 2\nDMA_UP_MFB_REGIONS 2\nDMA_DOWN_MFB_REGIONS 2\n"
	"PCIE_RQ_MFB_REGION_BYTES 32\nPCIE_RC_MFB_REGION_BYTES 32\nDMA_UP_MFB_REGION_BYTES 32\n"
	"DMA_DOWN_MFB_REGION_BYTES 32\nMFB_ITEM_BYTES 4\nPCIE_EOF_POS_WIDTH 3\nDMA_EOF_POS_WIDTH 3\n"
	"CNT_WIDTH 48\nDRAIN_PERIOD 256\nTAG_CAPACITY 256\nSTFIFO_CAPACITY 1024\n";

static void expect_trace_error(const char *edges, const char *body, const char *needle)
{
	char text[4096];
	snprintf(text, sizeof(text), "%sEDGES %s\nFIELDS M rst\nBEGIN\n%s", hdr, edges, body);
	char *out = NULL;
	size_t outlen = 0;
	char msg[512] = "";
	int rc = run_trace_text(text, "t.trace", &out, &outlen, msg, sizeof(msg));
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(outlen, 0);
	if (!strstr(msg, needle))
		fail_msg("message '%s' lacks '%s'", msg, needle);
	assert_non_null(strstr(msg, "t.trace:"));
	assert_null(strchr(msg, '\n'));
	free(out);
}

static void test_trace_errors(void **state)
{
	(void)state;
	char *out = NULL;
	size_t outlen = 0;
	char msg[512];
	char text[8192];

	/* A good minimal trace first: a read answered after END. */
	snprintf(text, sizeof(text), "%sEDGES 4\nBEGIN\nM rst=1\nM rst=0\nM rd=0\nP0\nEND\n",
		 hdr);
	assert_int_equal(run_trace_text(text, "ok", &out, &outlen, msg, sizeof(msg)), 0);
	assert_string_equal(out, "COMPONENT_EXPECTED 1\nR 2 00000000 50544c4d\nEND\n");
	free(out);

	expect_trace_error("1", "P0 foo=1\nEND\n", "t.trace:22: field 'foo'");
	expect_trace_error("1", "P0 brake=40\nEND\n", "field 'brake'");
	expect_trace_error("1", "P0 sof=10\nEND\n", "field 'sof'");
	expect_trace_error("1", "P1\nEND\n", "out of range");
	expect_trace_error("1", "D sof1=0\nEND\n", "out of range");
	expect_trace_error("1", "D sof=0\nEND\n", "sof");
	expect_trace_error("1", "M rd=0 wr=20:1\nEND\n", "second operation");
	expect_trace_error("1", "M wr=20\nEND\n", "wr");
	expect_trace_error("1", "M rd=100000000\nEND\n", "rd address");
	expect_trace_error("3", "M rst=1\nREP 2 1\nEND\n", "bare domain tags");
	expect_trace_error("3", "M\nREP 2 2\nEND\n", "REP k");
	expect_trace_error("5", "M\nM\nEND\n", "EDGES");
	expect_trace_error("1", "M\nM\nEND\n", "EDGES");
	expect_trace_error("1", "M\n", "END");
	expect_trace_error("1", "M\nEND\nM\n", "after END");
	expect_trace_error("1", "X\nEND\n", "unknown record");
	expect_trace_error("2", "M rd=0\nM rst=1\nEND\n", "MI_RESET");

	/* Header: order, numbers and generics rules with the line at fault. */
	snprintf(text, sizeof(text), "COMPONENT_TRACE 1\nDMA_PORTS 1\n");
	out = NULL;
	assert_int_equal(run_trace_text(text, "h", &out, &outlen, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(outlen, 0);
	assert_non_null(strstr(msg, "h:2:"));
	assert_non_null(strstr(msg, "PCIE_ENDPOINTS"));
	free(out);
	char bad[4096];
	snprintf(bad, sizeof(bad), "%s", hdr);
	char *p = strstr(bad, "CNT_WIDTH 48");
	memcpy(p, "CNT_WIDTH 70", 12);
	snprintf(text, sizeof(text), "%sEDGES 1\nBEGIN\nM\nEND\n", bad);
	out = NULL;
	assert_int_equal(run_trace_text(text, "g", &out, &outlen, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "g:15:"));
	assert_non_null(strstr(msg, "CNT_WIDTH"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_generics),
		cmocka_unit_test(test_acc_fsm),
		cmocka_unit_test(test_mi_regs),
		cmocka_unit_test(test_counter_window),
		cmocka_unit_test(test_trace_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
