/*
 * Layout decoding: every shape the firmware can build decodes, with the
 * counter indexes of the channel numbering; every inconsistent field is
 * refused with one line naming the register and its value.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/telemetry.h"

static char msg[512];

struct shape {
	unsigned e, p, rq, rc, up, down, driven, hists, bands, width;
	uint32_t cnt_base;
};

static unsigned maxu(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* The configuration registers the firmware (v2.0) produces. */
static void build(const struct shape *s, uint32_t cfg[PT_CFG_REGS])
{
	unsigned pr = maxu(s->rq, s->rc), dr = maxu(s->up, s->down);
	unsigned pb = s->driven + s->hists * s->bands;
	unsigned pch = 1 + 2 * (6 + pr) + pb, dch = 1 + 2 * s->p * (6 + dr);
	unsigned epc = pch + dch, entries = 1;

	while (entries < s->e * epc)
		entries *= 2;
	memset(cfg, 0, PT_CFG_REGS * sizeof(cfg[0]));
	cfg[0] = PT_MAGIC;
	cfg[1] = 0x00020003;
	cfg[2] = s->e | s->p << 8 | (2 * s->e) << 16;
	cfg[3] = entries | s->width << 16 | epc << 24;
	cfg[4] = pch | 2u << 8 | pr << 16 | pb << 24;
	cfg[5] = dch | (2 * s->p) << 8 | dr << 16;
	cfg[6] = 0x00041000;
	cfg[7] = s->cnt_base ? s->cnt_base : 0x8000;
	cfg[11] = s->rq | s->rc << 8 | s->up << 16 | s->down << 24;
	cfg[12] = 0x00200020;
	cfg[13] = s->bands | s->hists << 8;
	cfg[14] = 0x04000100;
	cfg[15] = 0x00400040;
}

static void check_indexes(const struct pt_layout *l, const struct shape *s)
{
	unsigned pr = maxu(s->rq, s->rc), dr = maxu(s->up, s->down);
	unsigned seen[4096];

	/* Every index of every field is inside the endpoint's channels, and
	 * no two fields share a counter. */
	memset(seen, 0, sizeof(seen));
	assert_true(l->entries <= 4096);
	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		unsigned lo = ep * l->ep_channels, hi = lo + l->ep_channels;
		unsigned idx[1024], n = 0;

		idx[n++] = pt_idx_pcie_cycles(l, ep);
		idx[n++] = pt_idx_dma_cycles(l, ep);
		for (unsigned b = 0; b < l->buses; b++) {
			unsigned regions = b < 2 ? pr : dr;
			for (unsigned f = 0; f < PT_F_REGION0 + regions; f++)
				idx[n++] = pt_idx_bus(l, ep, b, f);
		}
		for (unsigned k = 0; k < l->driven_brakes; k++)
			idx[n++] = pt_idx_brake(l, ep, k);
		for (unsigned h = 0; h < l->pcie_hists; h++)
			for (unsigned band = 0; band < l->hist_bands; band++)
				idx[n++] = pt_idx_hist(l, ep, h, band);
		assert_int_equal(n, l->ep_channels);
		for (unsigned i = 0; i < n; i++) {
			assert_in_range(idx[i], lo, hi - 1);
			assert_int_equal(seen[idx[i]], 0);
			seen[idx[i]] = 1;
		}
		/* the fixed points of the channel numbering */
		assert_int_equal(pt_idx_pcie_cycles(l, ep), lo);
		assert_int_equal(pt_idx_bus(l, ep, 1, PT_F_WORDS), lo + 1 + 6 + pr);
		assert_int_equal(pt_idx_brake(l, ep, 0), lo + 1 + 2 * (6 + pr));
		assert_int_equal(pt_idx_dma_cycles(l, ep), lo + l->pcie_channels);
		if (s->p)
			assert_int_equal(pt_idx_bus(l, ep, 2 + 2 * s->p - 1, PT_F_ITEMS),
					 lo + l->pcie_channels + 1 + (2 * s->p - 1) * (6 + dr) + 5);
		if (l->pcie_hists && l->hist_bands)
			assert_int_equal(pt_idx_hist(l, ep, l->pcie_hists - 1, l->hist_bands - 1),
					 lo + l->pcie_channels - 1);
	}
}

static void test_many_shapes(void **state)
{
	(void)state;
	unsigned count = 0;
	static const unsigned eps[] = { 1, 2, 3, 4, 8, 16 };
	static const unsigned widths[] = { 33, 34, 40, 48, 63, 64 };

	for (size_t ei = 0; ei < sizeof(eps) / sizeof(eps[0]); ei++)
		for (unsigned p = 1; p <= 4; p++)
			for (unsigned rq = 1; rq <= 4; rq++)
				for (unsigned rc = 1; rc <= 4; rc += 3)
					for (unsigned up = 1; up <= 2; up++)
						for (unsigned driven = 4; driven <= 8; driven += 2) {
							struct shape s = { eps[ei], p, rq, rc, up, 1, driven, 2, 4,
									   widths[count % 6], 0 };
							uint32_t cfg[PT_CFG_REGS];
							struct pt_layout l;
							char name[64];

							build(&s, cfg);
							if (pt_layout_decode(cfg, &l, msg, sizeof(msg)) != 0)
								fail_msg("E%u P%u rq%u rc%u up%u: %s", s.e, p, rq, rc, up,
									 msg);
							assert_int_equal(l.endpoints, s.e);
							assert_int_equal(l.dma_ports, p);
							assert_int_equal(l.buses, 2 + 2 * p);
							assert_int_equal(l.driven_brakes, driven);
							assert_int_equal(l.cnt_width, s.width);
							assert_int_equal(pt_layout_bus_real_regions(&l, 0), rq);
							assert_int_equal(pt_layout_bus_real_regions(&l, 1), rc);
							assert_int_equal(pt_layout_bus_real_regions(&l, 2 + 2 * (p - 1)), up);
							assert_int_equal(pt_layout_bus_real_regions(&l, 3 + 2 * (p - 1)), 1);
							pt_layout_bus_name(&l, 2 * p + 1, name, sizeof(name));
							{
								char want[64];
								snprintf(want, sizeof(want), "PTC -> DMA%u (DOWN)", p - 1);
								assert_string_equal(name, want);
							}
							check_indexes(&l, &s);
							count++;
						}
	assert_true(count > 500);
}

/* Every layout the firmware formulas allow over the range the tool has to
 * take (1 to 4 endpoints and 16, 0 to 4 DMA ports, 1 to 8 regions on each
 * bus, 4 to 10 driven reasons, 0 to 3 histograms of 3 to 6 bands, counters
 * of 33 to 64 bits) decodes: the checks are stricter than upstream, which
 * looks at the magic and the major version only, so they must never refuse
 * what a real firmware can produce. */
static void test_firmware_space_accepted(void **state)
{
	(void)state;
	static const unsigned eps[] = { 1, 2, 3, 4, 16 };
	static const unsigned driven[] = { 4, 6, 8, 10 };
	unsigned n = 0;

	for (unsigned p = 0; p <= 4; p++)
		for (unsigned rq = 1; rq <= 8; rq++)
			for (unsigned rc = 1; rc <= 8; rc++)
				for (unsigned up = 1; up <= 8; up++)
					for (unsigned down = 1; down <= 8; down++, n++) {
						/* the other dimensions walk along, each with a
						 * period prime to the others */
						struct shape s = { eps[n % 5], p, rq, rc, up, down, driven[n % 4],
								   n % 7 % 4, 3 + n % 11 % 4, 33 + n % 32, 0 };
						uint32_t cfg[PT_CFG_REGS];
						struct pt_layout l;

						build(&s, cfg);
						if (pt_layout_decode(cfg, &l, msg, sizeof(msg)) != 0)
							fail_msg("E%u P%u rq%u rc%u up%u down%u driven %u hists %u "
								 "x %u: %s",
								 s.e, p, rq, rc, up, down, s.driven, s.hists, s.bands,
								 msg);
						assert_int_equal(l.driven_brakes, s.driven);
						assert_int_equal(l.pcie_hists, s.hists);
						check_indexes(&l, &s);
					}
	for (unsigned d = 0; d < 4; d++)
		for (unsigned hists = 0; hists <= 3; hists++)
			for (unsigned bands = 3; bands <= 6; bands++)
				for (unsigned width = 33; width <= 64; width++) {
					struct shape s = { 4, 4, 8, 7, 8, 1, driven[d], hists, bands, width, 0 };
					uint32_t cfg[PT_CFG_REGS];
					struct pt_layout l;

					build(&s, cfg);
					if (pt_layout_decode(cfg, &l, msg, sizeof(msg)) != 0)
						fail_msg("driven %u, %u x %u bands, %u bits: %s", driven[d], hists,
							 bands, width, msg);
					check_indexes(&l, &s);
				}
}

static void test_bus_names_and_kinds(void **state)
{
	(void)state;
	struct shape s = { 1, 2, 2, 2, 2, 2, 6, 2, 4, 48, 0 };
	uint32_t cfg[PT_CFG_REGS];
	struct pt_layout l;
	char name[64];
	static const char *const want[] = { "PTC -> PCIe (RQ)", "PCIe -> PTC (RC)",
					    "DMA0 -> PTC (UP)", "PTC -> DMA0 (DOWN)",
					    "DMA1 -> PTC (UP)", "PTC -> DMA1 (DOWN)" };
	static const enum pt_bus_kind kinds[] = { PT_BUS_RQ, PT_BUS_RC, PT_BUS_UP,
						  PT_BUS_DOWN, PT_BUS_UP, PT_BUS_DOWN };

	build(&s, cfg);
	assert_int_equal(pt_layout_decode(cfg, &l, msg, sizeof(msg)), 0);
	for (unsigned b = 0; b < 6; b++) {
		pt_layout_bus_name(&l, b, name, sizeof(name));
		assert_string_equal(name, want[b]);
		assert_int_equal(pt_layout_bus_kind(&l, b), kinds[b]);
		assert_int_equal(pt_layout_bus_port(&l, b), b < 2 ? 0 : (b - 2) / 2);
	}
	assert_int_equal(l.region_bytes[PT_BUS_UP], 64);
	assert_int_equal(l.tag_capacity, 256);
	assert_int_equal(l.stfifo_capacity, 1024);
	assert_int_equal(l.item_bytes, 4);
	assert_int_equal(l.drain_period, 4096);
	assert_int_equal(l.version_minor, 3);
}

/* The registers of every conformance case decode (the failing cases
 * fail on the register they are about). */
static void test_conformance_layouts(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		unsigned e, p, entries, width, driven;
		const char *err;
	} cases[] = {
		{ "basic_t1", 1, 1, 64, 48, 6, NULL },
		{ "two_ep_two_ports", 2, 2, 0, 48, 6, NULL },
		{ "four_ep_wide", 4, 1, 256, 48, 6, NULL },
		{ "padding_regions", 1, 1, 0, 48, 6, NULL },
		{ "one_region_64B", 1, 1, 0, 48, 6, NULL },
		{ "region_bytes_16", 1, 2, 0, 48, 6, NULL },
		{ "cnt33", 1, 1, 0, 33, 6, NULL },
		{ "cnt64_totals", 1, 1, 0, 64, 6, NULL },
		{ "huge_totals_64", 1, 1, 0, 64, 6, NULL },
		{ "wrap33", 1, 1, 0, 33, 6, NULL },
		{ "unnamed_reasons", 1, 1, 0, 48, 8, NULL },
		{ "up_only_brakes", 1, 1, 0, 48, 4, NULL },
		{ "link_down_ep1", 2, 1, 0, 48, 6, NULL },
		{ "zero_cycles", 1, 1, 0, 48, 6, NULL },
		{ "err_bad_magic", 0, 0, 0, 0, 0, "MAGIC = 0x12345678: " },
		{ "err_bad_major", 0, 0, 0, 0, 0, "VERSION = 0x00010000: " },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[1024];
		struct pt_bus *b;
		struct pt_dev d;
		int rc;

		snprintf(path, sizeof(path), "%s/conformance/report/%s.regs", PT_TEST_DATA,
			 cases[i].name);
		if (pt_bus_open_image(path, &b, msg, sizeof(msg)) != 0)
			fail_msg("%s", msg);
		rc = pt_dev_init(&d, b, msg, sizeof(msg));
		if (cases[i].err) {
			char want[1200];

			/* the device first, then the register and its value */
			snprintf(want, sizeof(want), "image:%s: %s", path, cases[i].err);
			assert_true(rc < 0);
			if (strncmp(msg, want, strlen(want)) != 0)
				fail_msg("%s: '%s'", cases[i].name, msg);
		} else {
			if (rc != 0)
				fail_msg("%s: %s", cases[i].name, msg);
			assert_int_equal(d.layout.endpoints, cases[i].e);
			assert_int_equal(d.layout.dma_ports, cases[i].p);
			assert_int_equal(d.layout.cnt_width, cases[i].width);
			assert_int_equal(d.layout.driven_brakes, cases[i].driven);
			if (cases[i].entries)
				assert_int_equal(d.layout.entries, cases[i].entries);
			/* ENTRIES is the next power of two in every case */
			assert_true(d.layout.entries >= d.layout.endpoints * d.layout.ep_channels);
			assert_true(d.layout.entries < 2 * d.layout.endpoints * d.layout.ep_channels);
		}
		pt_bus_close(b);
	}
}

/* Every register image of the conformance folder decodes, except the
 * two cases about a wrong component; every image of a file holds the same
 * configuration registers. */
static void test_every_conformance_image(void **state)
{
	(void)state;
	char dir[1024];
	DIR *d;
	struct dirent *e;
	unsigned n = 0;

	snprintf(dir, sizeof(dir), "%s/conformance/report", PT_TEST_DATA);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		char path[2048];
		struct pt_bus *b;
		struct pt_dev dev;
		int rc;

		if (len < 6 || strcmp(e->d_name + len - 5, ".regs") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (pt_bus_open_image(path, &b, msg, sizeof(msg)) != 0)
			fail_msg("%s", msg);
		rc = pt_dev_init(&dev, b, msg, sizeof(msg));
		if (strncmp(e->d_name, "err_bad_", 8) == 0) {
			assert_int_equal(rc, -EPROTO);
		} else {
			struct pt_layout again;
			uint32_t cfg[PT_CFG_REGS];

			if (rc != 0)
				fail_msg("%s: %s", e->d_name, msg);
			/* the second image repeats the configuration */
			assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, PT_CMD_SNAPSHOT), 0);
			if (pt_bus_write32(b, PT_REG_COMMAND, PT_CMD_SNAPSHOT) == 0) {
				assert_int_equal(pt_bus_read_block(b, 0, cfg, PT_CFG_REGS), 0);
				cfg[PT_REG_STATUS / 4] = dev.layout.cfg[PT_REG_STATUS / 4];
				assert_int_equal(pt_layout_decode(cfg, &again, msg, sizeof(msg)), 0);
				assert_memory_equal(&again, &dev.layout, sizeof(again));
			}
		}
		pt_bus_close(b);
		n++;
	}
	closedir(d);
	assert_true(n >= 30);
}

/* Breaking one field of a good layout gives a message that starts with
 * "REG = 0xVALUE: " and contains `what`. */
static void expect_bad(uint32_t cfg[PT_CFG_REGS], unsigned reg, const char *name, const char *what)
{
	struct pt_layout l;
	char prefix[64];

	msg[0] = '\0';
	assert_true(pt_layout_decode(cfg, &l, msg, sizeof(msg)) < 0);
	snprintf(prefix, sizeof(prefix), "%s = 0x%08X: ", name, (unsigned)cfg[reg / 4]);
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, what))
		fail_msg("message '%s', expected '%s...%s'", msg, prefix, what);
	assert_null(strchr(msg, '\n'));
}

static void test_invalid_fields(void **state)
{
	(void)state;
	const struct shape good = { 2, 1, 2, 2, 2, 2, 6, 2, 4, 48, 0 };
	uint32_t cfg[PT_CFG_REGS];

#define FRESH() build(&good, cfg)
	FRESH();
	cfg[0] = 0x12345678;
	expect_bad(cfg, PT_REG_MAGIC, "MAGIC", "not a PCIe telemetry component");
	FRESH();
	cfg[1] = 0x00010000;
	expect_bad(cfg, PT_REG_VERSION, "VERSION", "major version 1");
	FRESH();
	cfg[1] = 0x00030000;
	expect_bad(cfg, PT_REG_VERSION, "VERSION", "major version 3");
	FRESH();
	cfg[2] &= ~0xFFu;
	expect_bad(cfg, PT_REG_CFG_TOPOLOGY, "CFG_TOPOLOGY", "0 PCIe endpoints");
	FRESH();
	cfg[2] = (cfg[2] & ~0xFFu) | 17u;
	expect_bad(cfg, PT_REG_CFG_TOPOLOGY, "CFG_TOPOLOGY", "17 PCIe endpoints");
	FRESH();
	cfg[3] = (cfg[3] & ~0xFF0000u) | 32u << 16;
	expect_bad(cfg, PT_REG_CFG_LAYOUT, "CFG_LAYOUT", "counter width 32 bits");
	FRESH();
	cfg[3] = (cfg[3] & ~0xFF0000u) | 65u << 16;
	expect_bad(cfg, PT_REG_CFG_LAYOUT, "CFG_LAYOUT", "counter width 65 bits");
	FRESH();
	cfg[4] = (cfg[4] & ~0xFF00u) | 3u << 8;
	expect_bad(cfg, PT_REG_CFG_PCIE, "CFG_PCIE", "3 buses");
	FRESH();
	cfg[4] -= 1; /* channels */
	expect_bad(cfg, PT_REG_CFG_PCIE, "CFG_PCIE", "30 channels, but 1 + 2 buses x (6 + 2 regions) + 14 BRAKE signals make 31");
	FRESH();
	cfg[5] = (cfg[5] & ~0xFF00u) | 4u << 8;
	expect_bad(cfg, PT_REG_CFG_DMA, "CFG_DMA", "4 buses, but 1 DMA port per endpoint (CFG_TOPOLOGY = 0x00040102) make 2");
	FRESH();
	cfg[5] += 1u << 16; /* regions without channels */
	expect_bad(cfg, PT_REG_CFG_DMA, "CFG_DMA", "17 channels");
	FRESH();
	cfg[3] -= 1u << 24;
	expect_bad(cfg, PT_REG_CFG_LAYOUT, "CFG_LAYOUT", "47 counters per endpoint, but its probes have 31 + 17 = 48");
	FRESH();
	cfg[3] = (cfg[3] & ~0xFFFFu) | 64u;
	expect_bad(cfg, PT_REG_CFG_LAYOUT, "CFG_LAYOUT", "64 counters cannot hold 2 endpoints x 48 channels");
	FRESH();
	cfg[7] = 0x8002;
	expect_bad(cfg, PT_REG_CNT_BASE, "CNT_BASE", "multiple of 4");
	FRESH();
	cfg[7] = 0xFF00;
	expect_bad(cfg, PT_REG_CNT_BASE, "CNT_BASE", "leaves the 64 KiB");
	FRESH();
	cfg[7] = 0x0;
	expect_bad(cfg, PT_REG_CNT_BASE, "CNT_BASE", "overlap the registers at 0x0000..0x00FF");
	FRESH();
	cfg[7] = 0xFC;
	expect_bad(cfg, PT_REG_CNT_BASE, "CNT_BASE", "overlap the registers");
	FRESH();
	cfg[7] = 0x10000;
	expect_bad(cfg, PT_REG_CNT_BASE, "CNT_BASE", "leaves the 64 KiB");
	FRESH();
	cfg[11] = (cfg[11] & ~0xFFu) | 3u;
	expect_bad(cfg, PT_REG_CFG_REGIONS, "CFG_REGIONS", "the RQ bus has 3 regions, more than the 2 of its probe (CFG_PCIE)");
	FRESH();
	cfg[11] = (cfg[11] & ~0xFF000000u) | 3u << 24;
	expect_bad(cfg, PT_REG_CFG_REGIONS, "CFG_REGIONS", "the DOWN bus has 3 regions");
	FRESH();
	cfg[13] = 0x0305;
	expect_bad(cfg, PT_REG_CFG_HIST, "CFG_HIST", "3 histograms x 5 bands do not fit in the 14 BRAKE channels");
	FRESH();
	cfg[13] = 0x010204;
	expect_bad(cfg, PT_REG_CFG_HIST, "CFG_HIST", "DMA clock probe");
#undef FRESH
}

/* The window may end exactly at the end of the component; regions and
 * histograms may be absent. */
static void test_edges_accepted(void **state)
{
	(void)state;
	struct shape s = { 1, 1, 2, 2, 2, 2, 6, 2, 4, 48, 0 };
	uint32_t cfg[PT_CFG_REGS];
	struct pt_layout l;

	build(&s, cfg);
	cfg[7] = 0x10000 - 8 * (cfg[3] & 0xFFFF);
	assert_int_equal(pt_layout_decode(cfg, &l, msg, sizeof(msg)), 0);
	assert_int_equal(l.cnt_base, cfg[7]);
	cfg[7] = 0x100; /* right after the registers */
	assert_int_equal(pt_layout_decode(cfg, &l, msg, sizeof(msg)), 0);

	s = (struct shape){ 1, 1, 2, 2, 2, 2, 6, 0, 0, 64, 0 };
	build(&s, cfg);
	assert_int_equal(pt_layout_decode(cfg, &l, msg, sizeof(msg)), 0);
	assert_int_equal(l.pcie_hists, 0);
	assert_int_equal(l.driven_brakes, 6);

	s = (struct shape){ 16, 1, 1, 1, 1, 1, 6, 2, 4, 33, 0 };
	build(&s, cfg);
	assert_int_equal(pt_layout_decode(cfg, &l, msg, sizeof(msg)), 0);
	assert_int_equal(l.endpoints, 16);
	/* a non-power-of-two ENTRIES is enough if it holds the counters */
	cfg[3] = (cfg[3] & ~0xFFFFu) | (16u * l.ep_channels);
	assert_int_equal(pt_layout_decode(cfg, &l, msg, sizeof(msg)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_shapes),
		cmocka_unit_test(test_firmware_space_accepted),
		cmocka_unit_test(test_bus_names_and_kinds),
		cmocka_unit_test(test_conformance_layouts),
		cmocka_unit_test(test_every_conformance_image),
		cmocka_unit_test(test_invalid_fields),
		cmocka_unit_test(test_edges_accepted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
