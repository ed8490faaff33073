/*
 * Register images written by pt_render_regs_header/image (--record) read
 * back through the image backend as exactly the readings they were made
 * from: random layouts within the firmware's limits, random counters of
 * every width (zero words, high words only, all ones), random times
 * (extremes of the double range included), one and two images per file.
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

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/telemetry.h"

static uint64_t rng_state = 0x243F6A8885A308D3u;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Du;
}

static unsigned rnd_in(unsigned lo, unsigned hi)
{
	return lo + (unsigned)(rnd() % (hi - lo + 1));
}

/* A random layout the v2 firmware can produce (channel counts fit their
 * 8-bit fields, the window fits the 64 KiB of the component). */
static void random_cfg(uint32_t cfg[PT_CFG_REGS])
{
	unsigned eps, ports, pr, dr, driven, hists, bands, pbrakes, pch, dch, epch, entries;
	do {
		eps = rnd_in(1, PT_MAX_ENDPOINTS);
		ports = rnd_in(0, 4);
		pr = rnd_in(1, 8);
		dr = rnd_in(1, 8);
		driven = rnd_in(0, 12);
		hists = rnd_in(0, 3);
		bands = rnd_in(0, 6);
		pbrakes = driven + hists * bands;
		pch = 1 + 2 * (6 + pr) + pbrakes;
		dch = 1 + 2 * ports * (6 + dr);
		epch = pch + dch;
		entries = 1;
		while (entries < eps * epch)
			entries *= 2;
	} while (pch > 255 || dch > 255 || epch > 255 || 0x8000u + 8u * entries > 0x10000u);
	memset(cfg, 0, PT_CFG_REGS * sizeof cfg[0]);
	cfg[PT_REG_MAGIC / 4] = PT_MAGIC;
	cfg[PT_REG_VERSION / 4] = 0x00020000 | rnd_in(0, 9);
	cfg[PT_REG_CFG_TOPOLOGY / 4] = eps | ports << 8 | (2 * eps) << 16;
	cfg[PT_REG_CFG_LAYOUT / 4] = entries | rnd_in(33, 64) << 16 | epch << 24;
	cfg[PT_REG_CFG_PCIE / 4] = pch | 2u << 8 | pr << 16 | pbrakes << 24;
	cfg[PT_REG_CFG_DMA / 4] = dch | (2 * ports) << 8 | dr << 16;
	cfg[PT_REG_CFG_DRAIN / 4] = (1u << rnd_in(4, 15)) | rnd_in(1, 16) << 16;
	cfg[PT_REG_CNT_BASE / 4] = 0x8000;
	cfg[PT_REG_CFG_REGIONS / 4] = rnd_in(0, pr) | rnd_in(0, pr) << 8 | rnd_in(0, dr) << 16 |
				      rnd_in(0, dr) << 24;
	cfg[PT_REG_CFG_WIDTH / 4] = (uint32_t)rnd();
	cfg[PT_REG_CFG_HIST / 4] = bands | hists << 8;
	cfg[PT_REG_CFG_CAPACITY / 4] = (uint32_t)rnd();
	cfg[PT_REG_CFG_WIDTH_DMA / 4] = (uint32_t)rnd();
}

static uint64_t random_counter(unsigned width)
{
	uint64_t mask = width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
	switch (rnd() % 6) {
	case 0:
		return 0;
	case 1:
		return rnd() & 0xFFFFFFFFu; /* no high word */
	case 2:
		return (rnd() << 32) & mask; /* high word only */
	case 3:
		return mask; /* all ones */
	default:
		return rnd() & mask;
	}
}

static double random_time(void)
{
	switch (rnd() % 5) {
	case 0:
		return (double)rnd_in(0, 100000);
	case 1:
		return (double)(rnd() % 100000000) / 1000.0;
	case 2: {
		double v;
		uint64_t bits = rnd() & ~(UINT64_C(1) << 63);
		memcpy(&v, &bits, sizeof v);
		return isfinite(v) ? v : 1.0;
	}
	case 3:
		return ldexp((double)(rnd() >> 11), -(int)rnd_in(53, 1100));
	default:
		return (double)rnd() / 3.0;
	}
}

static void random_reading(const struct pt_layout *l, struct pt_reading *r)
{
	for (unsigned i = 0; i < r->entries; i++)
		r->cnt[i] = random_counter(l->cnt_width);
	r->status = (uint32_t)(rnd() & 0x6); /* busy never reads back as set */
	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		r->pcie_status[ep] = (uint32_t)rnd();
		r->pcie_tags[ep] = (uint32_t)rnd();
		r->pcie_stfifo[ep] = (uint32_t)rnd();
	}
	r->time = random_time();
}

static void assert_same_reading(const struct pt_reading *a, const struct pt_reading *b,
				unsigned eps)
{
	assert_int_equal(a->entries, b->entries);
	assert_memory_equal(a->cnt, b->cnt, a->entries * sizeof a->cnt[0]);
	assert_int_equal(a->status, b->status);
	for (unsigned ep = 0; ep < eps; ep++) {
		assert_int_equal(a->pcie_status[ep], b->pcie_status[ep]);
		assert_int_equal(a->pcie_tags[ep], b->pcie_tags[ep]);
		assert_int_equal(a->pcie_stfifo[ep], b->pcie_stfifo[ep]);
	}
	/* the same double, bit for bit */
	assert_memory_equal(&a->time, &b->time, sizeof a->time);
}

static void test_record_replay_random(void **state)
{
	(void)state;
	for (int iter = 0; iter < 400; iter++) {
		uint32_t cfg[PT_CFG_REGS];
		struct pt_layout l;
		char msg[PT_BUS_MSG_LEN] = "";
		random_cfg(cfg);
		if (pt_layout_decode(cfg, &l, msg, sizeof msg))
			fail_msg("generated layout refused: %s", msg);
		unsigned nimg = rnd_in(1, 3);
		struct pt_reading in[3];
		for (unsigned k = 0; k < nimg; k++) {
			assert_int_equal(pt_reading_init(&in[k], l.entries), 0);
			random_reading(&l, &in[k]);
		}
		/* the format wants non-decreasing times */
		for (unsigned k = 1; k < nimg; k++)
			if (in[k].time < in[k - 1].time) {
				double t = in[k].time;
				in[k].time = in[k - 1].time;
				in[k - 1].time = t;
				k = 0;
			}
		char *img = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&img, &len);
		assert_non_null(f);
		assert_int_equal(pt_render_regs_header(f, PT_VERSION_STRING, "nfb-pcie-telemetry -w",
						       "sim"),
				 0);
		for (unsigned k = 0; k < nimg; k++)
			assert_int_equal(pt_render_regs_image(f, &l, &in[k]), 0);
		fclose(f);

		struct pt_bus *bus = NULL;
		if (pt_bus_open_image_mem("rec.regs", img, len, &bus, msg, sizeof msg))
			fail_msg("recorded image refused: %s\n%.400s", msg, img);
		struct pt_dev dev;
		if (pt_dev_init(&dev, bus, msg, sizeof msg))
			fail_msg("replay: %s", msg);
		assert_memory_equal(dev.layout.cfg, cfg, 8 * 4); /* up to CNT_BASE */
		assert_memory_equal(dev.layout.cfg + 10, cfg + 10, 6 * 4);
		for (unsigned k = 0; k < nimg; k++) {
			struct pt_reading out;
			assert_int_equal(pt_reading_init(&out, l.entries), 0);
			if (pt_dev_read(&dev, &out, msg, sizeof msg))
				fail_msg("replay of image %u: %s", k, msg);
			assert_same_reading(&in[k], &out, l.endpoints);
			pt_reading_free(&out);
		}
		/* one SNAPSHOT too many fails */
		struct pt_reading extra;
		assert_int_equal(pt_reading_init(&extra, l.entries), 0);
		assert_true(pt_dev_read(&dev, &extra, msg, sizeof msg) < 0);
		pt_reading_free(&extra);
		pt_bus_close(bus);
		free(img);
		for (unsigned k = 0; k < nimg; k++)
			pt_reading_free(&in[k]);
	}
}

/* Every counter line names its counter; every line is a register line,
 * a snapshot line, a comment or empty. */
static void test_record_lines(void **state)
{
	(void)state;
	uint32_t cfg[PT_CFG_REGS];
	struct pt_layout l;
	char msg[256];
	random_cfg(cfg);
	assert_int_equal(pt_layout_decode(cfg, &l, msg, sizeof msg), 0);
	struct pt_reading r;
	assert_int_equal(pt_reading_init(&r, l.entries), 0);
	for (unsigned i = 0; i < r.entries; i++)
		r.cnt[i] = UINT64_C(0x100000001);
	r.time = 2.5;
	char *img = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&img, &len);
	assert_int_equal(pt_render_regs_image(f, &l, &r), 0);
	fclose(f);
	unsigned counters = 0;
	for (char *line = strtok(img, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '@') {
			assert_string_equal(line, "@snapshot 2.5");
			continue;
		}
		unsigned off, val;
		char c;
		assert_int_equal(sscanf(line, "0x%4X 0x%8X  #%c", &off, &val, &c), 3);
		assert_int_equal(strlen(line) > 21, 1);
		if (off >= 0x8000) {
			counters++;
			assert_int_equal(val, 1);
			/* the comment names the counter (and the high word as such) */
			assert_non_null(strchr(line, '#'));
			if (off % 8 == 4)
				assert_non_null(strstr(line, ", high word"));
		}
	}
	assert_int_equal(counters, 2 * l.entries);
	free(img);
	pt_reading_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_replay_random),
		cmocka_unit_test(test_record_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
