/*
 * Fuzz target: layout decoding of arbitrary configuration registers, and
 * for every layout it accepts: every counter index stays inside the
 * window, both renderers in totals and interval mode on arbitrary counter
 * values, and the register image of the reading parses back to the same
 * layout and the same values.  Nothing may crash, hang or leak.
 *
 * Input: 16 configuration words (64 bytes, little endian), then bytes
 * that fill the counters, STATUS and the per-endpoint registers.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/telemetry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct src {
	const uint8_t *p;
	size_t n, i;
};

static uint64_t take64(struct src *s)
{
	uint64_t v = 0;

	if (s->n == 0)
		return 0;
	for (int k = 0; k < 8; k++)
		v = v << 8 | s->p[s->i++ % s->n];
	return v;
}

static void render_both(const struct pt_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	pt_render_text(f, rep);
	pt_render_json(f, rep);
	fclose(f);
	free(buf);
}

static void check_indexes(const struct pt_layout *l)
{
	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		unsigned hi = (ep + 1) * l->ep_channels;

		if (pt_idx_pcie_cycles(l, ep) >= hi || pt_idx_dma_cycles(l, ep) >= hi ||
		    hi > l->entries)
			abort();
		for (unsigned b = 0; b < l->buses; b++) {
			unsigned probe = b < 2 ? l->pcie_regions : l->dma_regions;

			if (pt_layout_bus_real_regions(l, b) > probe)
				abort();
			if (pt_idx_bus(l, ep, b, PT_F_REGION0 + probe) > hi)
				abort();
		}
		if (l->pcie_hists && l->hist_bands &&
		    pt_idx_hist(l, ep, l->pcie_hists - 1, l->hist_bands - 1) >= hi)
			abort();
		if (l->driven_brakes && pt_idx_brake(l, ep, l->driven_brakes - 1) >= hi)
			abort();
	}
}

/* The reading written as a register image reads back the same. */
static void roundtrip(const struct pt_layout *l, const struct pt_reading *r)
{
	char *buf = NULL, msg[PT_BUS_MSG_LEN];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pt_bus *b = NULL;
	struct pt_dev d;
	struct pt_reading back;

	if (!f)
		return;
	if (pt_render_regs_header(f, "fuzz", "fuzz", "fuzz") != 0 ||
	    pt_render_regs_image(f, l, r) != 0) {
		fclose(f);
		free(buf);
		return;
	}
	fclose(f);
	if (pt_bus_open_image_mem("roundtrip", buf, len, &b, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "%s\n", msg);
		abort();
	}
	free(buf);
	if (pt_dev_init(&d, b, msg, sizeof(msg)) != 0)
		abort();
	/* STATUS sits among the configuration registers: not part of it */
	d.layout.cfg[PT_REG_STATUS / 4] = l->cfg[PT_REG_STATUS / 4];
	if (memcmp(&d.layout, l, sizeof(*l)) != 0) {
		fprintf(stderr, "layout differs: %s\n", msg);
		abort();
	}
	if (pt_reading_init(&back, l->entries) != 0 || pt_dev_read(&d, &back, msg, sizeof(msg)) != 0)
		abort();
	if (memcmp(back.cnt, r->cnt, 8u * l->entries) != 0 || back.status != (r->status & ~1u) ||
	    memcmp(back.pcie_status, r->pcie_status, sizeof(r->pcie_status)) != 0 ||
	    memcmp(back.pcie_tags, r->pcie_tags, sizeof(r->pcie_tags)) != 0 ||
	    back.time != r->time)
		abort();
	pt_reading_free(&back);
	pt_bus_close(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t cfg[PT_CFG_REGS] = { 0 };
	char msg[512];
	struct pt_layout l;
	struct pt_reading a, b, d;
	struct src s;

	if (size < sizeof(cfg))
		return 0;
	for (unsigned i = 0; i < PT_CFG_REGS; i++)
		cfg[i] = (uint32_t)data[4 * i] | (uint32_t)data[4 * i + 1] << 8 |
			 (uint32_t)data[4 * i + 2] << 16 | (uint32_t)data[4 * i + 3] << 24;
	cfg[PT_REG_COMMAND / 4] = 0;
	cfg[PT_REG_STATUS / 4] = 0;
	cfg[PT_REG_READ_SEL / 4] = 0;
	s.p = data + sizeof(cfg);
	s.n = size - sizeof(cfg);
	s.i = 0;
	msg[0] = '\0';
	if (pt_layout_decode(cfg, &l, msg, sizeof(msg)) != 0) {
		if (!msg[0] || strchr(msg, '\n') || !strstr(msg, " = 0x"))
			abort(); /* one line naming the register */
		return 0;
	}
	check_indexes(&l);
	if (pt_reading_init(&a, l.entries) != 0)
		return 0;
	if (pt_reading_init(&b, l.entries) != 0 || pt_reading_init(&d, l.entries) != 0)
		abort();
	for (unsigned i = 0; i < l.entries; i++) {
		a.cnt[i] = take64(&s);
		b.cnt[i] = take64(&s);
	}
	b.status = (uint32_t)take64(&s) & 6u;
	for (unsigned ep = 0; ep < l.endpoints; ep++) {
		b.pcie_status[ep] = (uint32_t)take64(&s);
		b.pcie_tags[ep] = (uint32_t)take64(&s);
		b.pcie_stfifo[ep] = (uint32_t)take64(&s);
	}
	a.time = (double)(take64(&s) % 1000000) / 1000.0;
	b.time = a.time + (double)(take64(&s) % 100000) / 1000.0;
	{
		struct pt_report rep = { .layout = &l, .reading = &b };

		render_both(&rep);
		pt_reading_diff(&l, &a, &b, &d);
		for (unsigned i = 0; i < l.entries; i++)
			if (l.cnt_width < 64 && d.cnt[i] >> l.cnt_width)
				abort();
		rep.reading = &d;
		rep.interval = true;
		rep.seconds = b.time - a.time;
		render_both(&rep);
	}
	/* counters within CNT_WIDTH, as the firmware produces them */
	for (unsigned i = 0; i < l.entries; i++)
		if (l.cnt_width < 64)
			b.cnt[i] &= (UINT64_C(1) << l.cnt_width) - 1;
	roundtrip(&l, &b);
	pt_reading_free(&a);
	pt_reading_free(&b);
	pt_reading_free(&d);
	return 0;
}
