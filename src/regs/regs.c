/*
 * pcie-telemetry: the tables of the register map (regs.h): register and
 * field names, the BRAKE reasons, the histograms and their bands.
 */
#include <stdio.h>

#include "pcie_telemetry/regs.h"

static const struct {
	const char *name;
	uint32_t off;
	bool per_ep;
} regs[] = {
#define PT_REG_ROW_(name, off, per_ep) { #name, off, per_ep },
	PT_REG_LIST(PT_REG_ROW_)
#undef PT_REG_ROW_
};

const char *pt_reg_name(uint32_t off)
{
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
		uint32_t span = regs[i].per_ep ? 4u * PT_MAX_ENDPOINTS : 4u;

		if (off % 4u == 0 && off >= regs[i].off && off < regs[i].off + span)
			return regs[i].name;
	}
	return NULL;
}

static const struct pt_field_info fields[PT_FIELD_COUNT] = {
#define PT_FIELD_ROW_(id, reg, shift, width, name) { name, PT_REG_##reg, shift, width },
	PT_FIELD_LIST(PT_FIELD_ROW_)
#undef PT_FIELD_ROW_
};

const struct pt_field_info *pt_field_info(enum pt_field f)
{
	return (unsigned)f < PT_FIELD_COUNT ? &fields[f] : NULL;
}

static const struct pt_brake_info brakes[PT_BRAKE_NAMED] = {
	[PT_BRAKE_NO_FREE_TAG] = { "no_free_tag", "no free PCIe tag", PT_STREAM_UP,
				   "a read waited for a free PCIe tag" },
	[PT_BRAKE_TAG_NOT_READY] = { "tag_not_ready", "PCIe tag not ready", PT_STREAM_UP,
				     "the tag FIFO had no tag ready yet" },
	[PT_BRAKE_NO_COMPLETION_SPACE] = { "no_completion_space", "no room for completions",
					   PT_STREAM_UP,
					   "no room could be reserved in the storage FIFO for the "
					   "completions of a read" },
	[PT_BRAKE_NO_COMPLETION_HEADER] = { "no_completion_header", "no completion header entry",
					    PT_STREAM_UP,
					    "no completion header entry was left in the Hard IP" },
	[PT_BRAKE_DOWN_MFB_HOLD] = { "down_mfb_hold", "MFB stalled towards DMA", PT_STREAM_DOWN,
				     "the MFB towards the DMA ports was held" },
	[PT_BRAKE_DOWN_MVB_HOLD] = { "down_mvb_hold", "MVB stalled towards DMA", PT_STREAM_DOWN,
				     "the MVB towards the DMA ports was held" },
};

const struct pt_brake_info *pt_brake_info(unsigned k)
{
	return k < PT_BRAKE_NAMED ? &brakes[k] : NULL;
}

/* A named entry, or "PREFIX<n>" in buf. */
static const char *named(const char *name, const char *prefix, unsigned n,
			 char buf[PT_REGS_NAME_LEN])
{
	if (name)
		return name;
	snprintf(buf, PT_REGS_NAME_LEN, "%s%u", prefix, n);
	return buf;
}

const char *pt_brake_name(unsigned k, char buf[PT_REGS_NAME_LEN])
{
	return named(k < PT_BRAKE_NAMED ? brakes[k].name : NULL, "reason", k, buf);
}

const char *pt_brake_label(unsigned k, char buf[PT_REGS_NAME_LEN])
{
	return named(k < PT_BRAKE_NAMED ? brakes[k].label : NULL, "reason ", k, buf);
}

enum pt_stream pt_brake_stream(unsigned k)
{
	return k < PT_BRAKE_NAMED ? brakes[k].stream : PT_STREAM_UP;
}

static const struct {
	const char *name, *label, *what;
} hists[PT_HIST_NAMED] = {
	[PT_HIST_TAGS] = { "tags", "PCIe tags", "PCIe tags" },
	[PT_HIST_STFIFO] = { "stfifo", "PTC storage FIFO words", "PTC storage FIFO words" },
};

static const struct {
	const char *name, *label, *what;
} bands[PT_BAND_NAMED] = {
	[PT_BAND_NONE] = { "none", "none", "none" },
	[PT_BAND_LE_EIGHTH] = { "le_eighth", "<=1/8", "at most 1/8 (but some)" },
	[PT_BAND_LE_HALF] = { "le_half", "<=1/2", "more than 1/8 and at most 1/2" },
	[PT_BAND_REST] = { "rest", "rest", "more than 1/2" },
};

const char *pt_hist_name(unsigned h, char buf[PT_REGS_NAME_LEN])
{
	return named(h < PT_HIST_NAMED ? hists[h].name : NULL, "resource", h, buf);
}

const char *pt_hist_label(unsigned h, char buf[PT_REGS_NAME_LEN])
{
	return named(h < PT_HIST_NAMED ? hists[h].label : NULL, "resource ", h, buf);
}

const char *pt_hist_what(unsigned h)
{
	return h < PT_HIST_NAMED ? hists[h].what : NULL;
}

const char *pt_band_name(unsigned b, char buf[PT_REGS_NAME_LEN])
{
	return named(b < PT_BAND_NAMED ? bands[b].name : NULL, "band", b, buf);
}

const char *pt_band_label(unsigned b, char buf[PT_REGS_NAME_LEN])
{
	return named(b < PT_BAND_NAMED ? bands[b].label : NULL, "band ", b, buf);
}

const char *pt_band_what(unsigned b)
{
	return b < PT_BAND_NAMED ? bands[b].what : NULL;
}
