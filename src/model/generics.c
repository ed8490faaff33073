/*
 * pcie-telemetry: generics of PCIE_TELEMETRY_MI, their defaults, the
 * constraints the firmware asserts and the constants derived from them
 * (firmware-behavior.md 3.1; pcie_telemetry_mi.vhd).
 */
#include "model/model_priv.h"
#include "model/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ptm_generics_default(struct ptm_generics *g)
{
	memset(g, 0, sizeof(*g));
	g->pcie_endpoints = 1;
	g->dma_ports = 1;
	g->pcie_rq_mfb_regions = 2;
	g->pcie_rc_mfb_regions = 2;
	g->dma_up_mfb_regions = 2;
	g->dma_down_mfb_regions = 2;
	g->pcie_rq_mfb_region_bytes = 32;
	g->pcie_rc_mfb_region_bytes = 32;
	g->dma_up_mfb_region_bytes = 32;
	g->dma_down_mfb_region_bytes = 32;
	g->mfb_item_bytes = 4;
	g->pcie_eof_pos_width = 3;
	g->dma_eof_pos_width = 3;
	g->cnt_width = 48;
	g->drain_period = 4096;
	g->tag_capacity = 256;
	g->stfifo_capacity = 1024;
}


static unsigned umax(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* Drain sweep length of a probe with `channels` channels (1.1). */
static unsigned sweep_cycles(unsigned channels)
{
	return 8 * ((channels + 7) / 8 + 1);
}

void ptm_generics_derive(const struct ptm_generics *g, struct ptm_derived *d)
{
	memset(d, 0, sizeof(*d));
	d->pcie_regions = umax(g->pcie_rq_mfb_regions, g->pcie_rc_mfb_regions);
	d->dma_regions = umax(g->dma_up_mfb_regions, g->dma_down_mfb_regions);
	d->pcie_channels = 1 + 2 * (6 + d->pcie_regions) + PT_FW_PCIE_BRAKES;
	d->dma_channels = 1 + 2 * g->dma_ports * (6 + d->dma_regions);
	d->ep_channels = d->pcie_channels + d->dma_channels;
	d->entries = 1u << ptm_log2c((uint64_t)g->pcie_endpoints * d->ep_channels);
	unsigned pg = (d->pcie_channels + 7) / 8, dg = (d->dma_channels + 7) / 8;
	d->pcie_fifo_depth = 1u << ptm_log2c(2ull * pg * 8);
	d->dma_fifo_depth = 1u << ptm_log2c(2ull * dg * 8);
}



#define BIT PTM_GENERIC_BIT

_Static_assert(sizeof(struct ptm_generics) == 17 * sizeof(unsigned),
	       "PTM_GENERIC_BIT needs struct ptm_generics to be unsigned fields only");

/* Generics with a plain range, in the order they are checked. */
static const struct range_rule {
	const char *name;
	size_t off;
	unsigned lo, hi;
} ranges[] = {
	{ "PCIE_ENDPOINTS", offsetof(struct ptm_generics, pcie_endpoints), 1, PTM_MAX_ENDPOINTS },
	{ "DMA_PORTS", offsetof(struct ptm_generics, dma_ports), 1, PTM_MAX_DMA_PORTS },
	{ "PCIE_RQ_MFB_REGIONS", offsetof(struct ptm_generics, pcie_rq_mfb_regions), 1,
	  PTM_MAX_REGIONS },
	{ "PCIE_RC_MFB_REGIONS", offsetof(struct ptm_generics, pcie_rc_mfb_regions), 1,
	  PTM_MAX_REGIONS },
	{ "DMA_UP_MFB_REGIONS", offsetof(struct ptm_generics, dma_up_mfb_regions), 1,
	  PTM_MAX_REGIONS },
	{ "DMA_DOWN_MFB_REGIONS", offsetof(struct ptm_generics, dma_down_mfb_regions), 1,
	  PTM_MAX_REGIONS },
	/* CFG_DRAIN[23:16] */
	{ "MFB_ITEM_BYTES", offsetof(struct ptm_generics, mfb_item_bytes), 1, 255 },
	{ "CNT_WIDTH", offsetof(struct ptm_generics, cnt_width), 33, 64 },
};

/* The region sizes, checked alike. */
static const struct region_rule {
	const char *name;
	size_t off;
} region_bytes[] = {
	{ "PCIE_RQ_MFB_REGION_BYTES", offsetof(struct ptm_generics, pcie_rq_mfb_region_bytes) },
	{ "PCIE_RC_MFB_REGION_BYTES", offsetof(struct ptm_generics, pcie_rc_mfb_region_bytes) },
	{ "DMA_UP_MFB_REGION_BYTES", offsetof(struct ptm_generics, dma_up_mfb_region_bytes) },
	{ "DMA_DOWN_MFB_REGION_BYTES", offsetof(struct ptm_generics, dma_down_mfb_region_bytes) },
};

static unsigned field(const struct ptm_generics *g, size_t off)
{
	return *(const unsigned *)(const void *)((const char *)g + off);
}

static uint32_t bit_of(size_t off)
{
	return 1u << (off / sizeof(unsigned));
}

/* The ranges and the region sizes; *which names the generic at fault. */
static int check_fields(const struct ptm_generics *g, uint32_t *which, char *msg, size_t msglen)
{
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		const struct range_rule *r = &ranges[i];
		unsigned v = field(g, r->off);
		*which = bit_of(r->off);
		if (v < r->lo || v > r->hi)
			return ptm_einval(msg, msglen, "generic %s=%u: must be %u..%u", r->name, v,
					  r->lo, r->hi);
	}
	for (size_t i = 0; i < sizeof(region_bytes) / sizeof(region_bytes[0]); i++) {
		const char *name = region_bytes[i].name;
		unsigned v = field(g, region_bytes[i].off);
		*which = bit_of(region_bytes[i].off);
		if (v == 0 || v % g->mfb_item_bytes)
			return ptm_einval(msg, msglen,
				    "generic %s=%u: must be a positive multiple of MFB_ITEM_BYTES=%u",
				    name, v, g->mfb_item_bytes);
		if (v > 65535) /* CFG_WIDTH / CFG_WIDTH_DMA fields are 16 bits */
			return ptm_einval(msg, msglen, "generic %s=%u: must fit the 16-bit CFG_WIDTH field",
				    name, v);
		/* The probe's EOF_POS fields are at most 16 bits wide. */
		if (v / g->mfb_item_bytes > 65536)
			return ptm_einval(msg, msglen, "generic %s=%u: more than 65536 items per region",
				    name, v);
	}
	*which = 0;
	return 0;
}

/* The firmware asserts EOF_POS_WIDTH = log2(items of the larger region). */
static int check_eof_pos(const struct ptm_generics *g, uint32_t *which, char *msg, size_t msglen)
{
	unsigned pitems = umax(g->pcie_rq_mfb_region_bytes, g->pcie_rc_mfb_region_bytes) /
			  g->mfb_item_bytes;
	unsigned ditems = umax(g->dma_up_mfb_region_bytes, g->dma_down_mfb_region_bytes) /
			  g->mfb_item_bytes;

	*which = BIT(pcie_eof_pos_width);
	if (g->pcie_eof_pos_width != ptm_log2c(pitems))
		return ptm_einval(msg, msglen,
			    "generic PCIE_EOF_POS_WIDTH=%u: must be log2 of the %u items of the larger "
			    "PCIe region, i.e. %u",
			    g->pcie_eof_pos_width, pitems, ptm_log2c(pitems));
	*which = BIT(dma_eof_pos_width);
	if (g->dma_eof_pos_width != ptm_log2c(ditems))
		return ptm_einval(msg, msglen,
			    "generic DMA_EOF_POS_WIDTH=%u: must be log2 of the %u items of the larger "
			    "DMA region, i.e. %u",
			    g->dma_eof_pos_width, ditems, ptm_log2c(ditems));
	*which = 0;
	return 0;
}

static int check_drain(const struct ptm_generics *g, const struct ptm_derived *d,
		       uint32_t *which, char *msg, size_t msglen)
{
	unsigned dp = g->drain_period;

	*which = BIT(drain_period);
	if (dp == 0 || (dp & (dp - 1)))
		return ptm_einval(msg, msglen, "generic DRAIN_PERIOD=%u: must be a power of two", dp);
	if (dp > 32768)
		return ptm_einval(msg, msglen,
			    "generic DRAIN_PERIOD=%u: must fit the 16-bit CFG_DRAIN field (at most 32768)",
			    dp);
	if (sweep_cycles(d->pcie_channels) >= dp)
		return ptm_einval(msg, msglen,
			    "generic DRAIN_PERIOD=%u: the PCIe probe's drain sweep takes %u cycles and "
			    "must be shorter",
			    dp, sweep_cycles(d->pcie_channels));
	if (sweep_cycles(d->dma_channels) >= dp)
		return ptm_einval(msg, msglen,
			    "generic DRAIN_PERIOD=%u: the DMA probe's drain sweep takes %u cycles and "
			    "must be shorter",
			    dp, sweep_cycles(d->dma_channels));
	*which = 0;
	return 0;
}

/* The capacities and the layout fit their register fields. */
static int check_fit(const struct ptm_generics *g, const struct ptm_derived *d, uint32_t *which,
		     char *msg, size_t msglen)
{
	const uint32_t dma_regions = BIT(dma_up_mfb_regions) | BIT(dma_down_mfb_regions);
	const uint32_t pcie_regions = BIT(pcie_rq_mfb_regions) | BIT(pcie_rc_mfb_regions);

	*which = BIT(tag_capacity);
	if (g->tag_capacity > 65535)
		return ptm_einval(msg, msglen,
			    "generic TAG_CAPACITY=%u: must fit the 16-bit CFG_CAPACITY field",
			    g->tag_capacity);
	*which = BIT(stfifo_capacity);
	if (g->stfifo_capacity > 65535)
		return ptm_einval(msg, msglen,
			    "generic STFIFO_CAPACITY=%u: must fit the 16-bit CFG_CAPACITY field",
			    g->stfifo_capacity);
	*which = BIT(dma_ports) | dma_regions;
	if (d->dma_channels > 255)
		return ptm_einval(msg, msglen,
			    "generics DMA_PORTS=%u, DMA regions %u: the DMA probe has %u channels, "
			    "CFG_DMA holds at most 255",
			    g->dma_ports, d->dma_regions, d->dma_channels);
	*which = BIT(dma_ports) | dma_regions | pcie_regions;
	if (d->ep_channels > 255)
		return ptm_einval(msg, msglen,
			    "generics DMA_PORTS=%u, regions PCIe %u / DMA %u: %u counters per endpoint, "
			    "CFG_LAYOUT holds at most 255",
			    g->dma_ports, d->pcie_regions, d->dma_regions, d->ep_channels);
	*which = BIT(pcie_endpoints);
	if ((unsigned long)g->pcie_endpoints * d->ep_channels > PTM_MAX_ENTRIES)
		return ptm_einval(msg, msglen,
			    "generic PCIE_ENDPOINTS=%u: %u x %u counters do not fit the counter window "
			    "(at most %u)",
			    g->pcie_endpoints, g->pcie_endpoints, d->ep_channels, PTM_MAX_ENTRIES);
	*which = 0;
	return 0;
}

int ptm_generics_check(const struct ptm_generics *g, char *msg, size_t msglen)
{
	return ptm_generics_check_which(g, NULL, msg, msglen);
}

int ptm_generics_check_which(const struct ptm_generics *g, uint32_t *which, char *msg,
			     size_t msglen)
{
	struct ptm_derived d;
	uint32_t dummy;
	int rc;

	if (!which)
		which = &dummy;
	*which = 0;
	if (!g)
		return ptm_einval(msg, msglen, "generics: none given");
	if ((rc = check_fields(g, which, msg, msglen)) || (rc = check_eof_pos(g, which, msg, msglen)))
		return rc;
	ptm_generics_derive(g, &d);
	if ((rc = check_drain(g, &d, which, msg, msglen)) ||
	    (rc = check_fit(g, &d, which, msg, msglen)))
		return rc;
	return 0;
}
