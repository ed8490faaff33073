/*
 * pcie-telemetry: register image files for --record (register-image.md,
 * format "pcie-telemetry-regs 1"), readable by the image backend.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_priv.h"

/* Configuration registers an image repeats, in file order.  COMMAND is
 * write-only and STATUS belongs to the reading, not to the layout. */
static const struct {
	uint32_t off;
	const char *name;
} cfg_regs[] = {
	{ PT_REG_MAGIC, "MAGIC" },
	{ PT_REG_VERSION, "VERSION" },
	{ PT_REG_CFG_TOPOLOGY, "CFG_TOPOLOGY" },
	{ PT_REG_CFG_LAYOUT, "CFG_LAYOUT" },
	{ PT_REG_CFG_PCIE, "CFG_PCIE" },
	{ PT_REG_CFG_DMA, "CFG_DMA" },
	{ PT_REG_CFG_DRAIN, "CFG_DRAIN" },
	{ PT_REG_CNT_BASE, "CNT_BASE" },
	{ PT_REG_READ_SEL, "READ_SEL" },
	{ PT_REG_CFG_REGIONS, "CFG_REGIONS" },
	{ PT_REG_CFG_WIDTH, "CFG_WIDTH" },
	{ PT_REG_CFG_HIST, "CFG_HIST" },
	{ PT_REG_CFG_CAPACITY, "CFG_CAPACITY" },
	{ PT_REG_CFG_WIDTH_DMA, "CFG_WIDTH_DMA" },
};

static const char *const field_names[] = {
	"words", "backpressure", "transactions", "mvb", "mvb_backpressure", "items",
};

static const char *const kind_names[] = { "RQ", "RC", "UP", "DOWN" };

/* The recorded time in plain decimal (no sign, no exponent) whose strtod
 * is exactly t: the shortest round-trip digits, placed by hand. */
static int format_seconds(double t, char *buf, size_t len)
{
	if (!isfinite(t) || t < 0.0)
		return -EINVAL;
	if (t == 0.0) {
		snprintf(buf, len, "0.0");
		return 0;
	}
	char d[24];
	int e;
	pt_render_shortest(t, d, &e);
	return pt_render_plain_decimal(buf, len, d, e);
}

/* A comment naming counter i, built from the layout's own index helpers. */
struct counter_names {
	char **name; /* entries, NULL where the layout names nothing */
	unsigned entries;
};

static void name_set(struct counter_names *cn, unsigned idx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void name_set(struct counter_names *cn, unsigned idx, const char *fmt, ...)
{
	if (idx >= cn->entries || cn->name[idx])
		return;
	char buf[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	cn->name[idx] = strdup(buf);
}

static void names_free(struct counter_names *cn)
{
	if (cn->name)
		for (unsigned i = 0; i < cn->entries; i++)
			free(cn->name[i]);
	free(cn->name);
}

static int names_build(const struct pt_layout *l, unsigned entries, struct counter_names *cn)
{
	cn->entries = entries;
	cn->name = calloc(entries ? entries : 1, sizeof *cn->name);
	if (!cn->name)
		return -ENOMEM;
	unsigned eps = l->endpoints < PT_MAX_ENDPOINTS ? l->endpoints : PT_MAX_ENDPOINTS;
	for (unsigned ep = 0; ep < eps; ep++) {
		name_set(cn, pt_idx_pcie_cycles(l, ep), "ep%u pcie cycles", ep);
		name_set(cn, pt_idx_dma_cycles(l, ep), "ep%u dma cycles", ep);
		for (unsigned b = 0; b < l->buses; b++) {
			enum pt_bus_kind kind = pt_layout_bus_kind(l, b);
			char bus[24];
			if (kind == PT_BUS_RQ || kind == PT_BUS_RC)
				snprintf(bus, sizeof bus, "%s", kind_names[kind]);
			else
				snprintf(bus, sizeof bus, "%s%u", kind_names[kind], pt_layout_bus_port(l, b));
			for (unsigned f = 0; f < sizeof field_names / sizeof field_names[0]; f++)
				name_set(cn, pt_idx_bus(l, ep, b, f), "ep%u %s %s", ep, bus, field_names[f]);
			unsigned probe = kind <= PT_BUS_RC ? l->pcie_regions : l->dma_regions;
			unsigned real = pt_layout_bus_real_regions(l, b);
			for (unsigned r = 0; r < probe; r++)
				name_set(cn, pt_idx_bus(l, ep, b, PT_F_REGION0 + r), "ep%u %s region %u%s", ep,
					 bus, r, r < real ? "" : " (padding)");
		}
		for (unsigned k = 0; k < l->driven_brakes; k++)
			name_set(cn, pt_idx_brake(l, ep, k), "ep%u brake %u", ep, k);
		for (unsigned h = 0; h < l->pcie_hists; h++)
			for (unsigned b = 0; b < l->hist_bands; b++)
				name_set(cn, pt_idx_hist(l, ep, h, b), "ep%u hist %u band %u", ep, h, b);
	}
	for (unsigned i = 0; i < entries; i++)
		if (!cn->name[i])
			name_set(cn, i, "counter %u", i);
	for (unsigned i = 0; i < entries; i++)
		if (!cn->name[i])
			return -ENOMEM;
	return 0;
}

int pt_render_regs_image(FILE *out, const struct pt_layout *l, const struct pt_reading *r)
{
	if (!out || !l || !r || (r->entries && !r->cnt))
		return -EINVAL;
	/* the image must hold the whole window the layout announces */
	if (r->entries != l->entries)
		return -EINVAL;
	if (l->endpoints > PT_MAX_ENDPOINTS)
		return -EINVAL;
	/* every counter word must have an offset inside the component */
	if (r->entries &&
	    (uint64_t)l->cnt_base + 8u * (uint64_t)r->entries > PT_COMP_SPAN)
		return -ERANGE;
	if (l->cnt_base % 4)
		return -EINVAL;
	/* a window over the registers would repeat their offsets, which the
	 * format forbids inside one image */
	if (r->entries && l->cnt_base < PT_REG_PCIE_STFIFO + 4u * PT_MAX_ENDPOINTS)
		return -ERANGE;
	char secs[400];
	int rc = format_seconds(r->time, secs, sizeof secs);
	if (rc)
		return rc;
	struct counter_names cn;
	rc = names_build(l, r->entries, &cn);
	if (rc) {
		names_free(&cn);
		return rc;
	}

	fprintf(out, "\n@snapshot %s\n", secs);
	for (size_t i = 0; i < sizeof cfg_regs / sizeof cfg_regs[0]; i++)
		fprintf(out, "0x%04" PRIX32 " 0x%08" PRIX32 "  # %s\n", cfg_regs[i].off,
			l->cfg[cfg_regs[i].off / 4], cfg_regs[i].name);
	fprintf(out, "0x%04X 0x%08" PRIX32 "  # STATUS\n", PT_REG_STATUS, r->status);
	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		fprintf(out, "0x%04X 0x%08" PRIX32 "  # PCIE_STATUS ep%u\n", PT_REG_PCIE_STATUS + 4 * ep,
			r->pcie_status[ep], ep);
		fprintf(out, "0x%04X 0x%08" PRIX32 "  # PCIE_TAGS ep%u\n", PT_REG_PCIE_TAGS + 4 * ep,
			r->pcie_tags[ep], ep);
		fprintf(out, "0x%04X 0x%08" PRIX32 "  # PCIE_STFIFO ep%u\n", PT_REG_PCIE_STFIFO + 4 * ep,
			r->pcie_stfifo[ep], ep);
	}
	for (unsigned i = 0; i < r->entries; i++) {
		uint64_t v = r->cnt[i];
		uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
		uint32_t off = l->cnt_base + 8u * i;
		if (lo)
			fprintf(out, "0x%04" PRIX32 " 0x%08" PRIX32 "  # %s\n", off, lo, cn.name[i]);
		if (hi)
			fprintf(out, "0x%04" PRIX32 " 0x%08" PRIX32 "  # %s, high word\n", off + 4, hi,
				cn.name[i]);
	}
	names_free(&cn);
	return pt_render_stream_status(out);
}

/* Comment text on one line: no control characters, ASCII only. */
static void write_comment_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		fputc(*p < 0x20 || *p >= 0x7f ? '?' : *p, out);
}

int pt_render_regs_header(FILE *out, const char *tool_version, const char *command_line,
			  const char *device)
{
	if (!out)
		return -EINVAL;
	fputs("pcie-telemetry-regs 1\n", out);
	fputs("# register image of a PCIE_TELEMETRY_MI component (format: register-image.md)\n", out);
	if (tool_version) {
		fputs("# recorded by nfb-pcie-telemetry ", out);
		write_comment_text(out, tool_version);
		fputc('\n', out);
	}
	if (command_line) {
		fputs("# command: ", out);
		write_comment_text(out, command_line);
		fputc('\n', out);
	}
	if (device) {
		fputs("# device: ", out);
		write_comment_text(out, device);
		fputc('\n', out);
	}
	return pt_render_stream_status(out);
}
