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

/* The configuration registers an image repeats, in file order: all but
 * COMMAND (write only) and STATUS (part of the reading, written next). */
static void write_cfg(FILE *out, const struct pt_layout *l)
{
	for (unsigned i = 0; i < PT_CFG_REGS; i++) {
		uint32_t off = 4u * i;

		if (off != PT_REG_COMMAND && off != PT_REG_STATUS)
			fprintf(out, "0x%04" PRIX32 " 0x%08" PRIX32 "  # %s\n", off, l->cfg[i],
				pt_reg_name(off));
	}
}

static void write_ep_regs(FILE *out, const struct pt_layout *l, const struct pt_reading *r)
{
	static const enum pt_reg blocks[] = { PT_REG_PCIE_STATUS, PT_REG_PCIE_TAGS,
					      PT_REG_PCIE_STFIFO };

	for (unsigned ep = 0; ep < l->endpoints; ep++)
		for (unsigned k = 0; k < 3; k++) {
			const uint32_t *v = k == 0 ? r->pcie_status : k == 1 ? r->pcie_tags
									   : r->pcie_stfifo;

			fprintf(out, "0x%04" PRIX32 " 0x%08" PRIX32 "  # %s ep%u\n",
				pt_reg_ep(blocks[k], ep), v[ep], pt_reg_name(blocks[k]), ep);
		}
}

/* Every non-zero counter word, named by the counter table. */
static void write_counters(FILE *out, const struct pt_layout *l, const struct pt_reading *r)
{
	for (unsigned i = 0; i < r->entries; i++) {
		uint64_t v = r->cnt[i];
		uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
		char name[PT_COUNTER_NAME_LEN];

		if (!lo && !hi)
			continue;
		if (pt_counter_name(l, i, name, sizeof name) < 0)
			snprintf(name, sizeof name, "entry %u (unused)", i);
		if (lo)
			fprintf(out, "0x%04" PRIX32 " 0x%08" PRIX32 "  # %s\n",
				pt_addr_counter(l->cnt_base, i, 0), lo, name);
		if (hi)
			fprintf(out, "0x%04" PRIX32 " 0x%08" PRIX32 "  # %s, high word\n",
				pt_addr_counter(l->cnt_base, i, 1), hi, name);
	}
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
	if (r->entries && l->cnt_base < pt_reg_ep(PT_REG_PCIE_STFIFO, PT_MAX_ENDPOINTS))
		return -ERANGE;
	char secs[400];
	int rc = format_seconds(r->time, secs, sizeof secs);
	if (rc)
		return rc;
	fprintf(out, "\n@snapshot %s\n", secs);
	write_cfg(out, l);
	fprintf(out, "0x%04X 0x%08" PRIX32 "  # %s\n", PT_REG_STATUS, r->status,
		pt_reg_name(PT_REG_STATUS));
	write_ep_regs(out, l, r);
	write_counters(out, l, r);
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
