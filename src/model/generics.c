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



static int check_range(const char *name, unsigned v, unsigned lo, unsigned hi, char *msg,
		       size_t msglen)
{
	if (v < lo || v > hi)
		return ptm_einval(msg, msglen, "generic %s=%u: must be %u..%u", name, v, lo, hi);
	return 0;
}

struct region_bytes {
	const char *name;
	unsigned v;
};

int ptm_generics_check(const struct ptm_generics *g, char *msg, size_t msglen)
{
	int rc;
	if (!g)
		return ptm_einval(msg, msglen, "generics: none given");
	if ((rc = check_range("PCIE_ENDPOINTS", g->pcie_endpoints, 1, PTM_MAX_ENDPOINTS, msg,
			      msglen)) ||
	    (rc = check_range("DMA_PORTS", g->dma_ports, 1, PTM_MAX_DMA_PORTS, msg, msglen)) ||
	    (rc = check_range("PCIE_RQ_MFB_REGIONS", g->pcie_rq_mfb_regions, 1, PTM_MAX_REGIONS, msg,
			      msglen)) ||
	    (rc = check_range("PCIE_RC_MFB_REGIONS", g->pcie_rc_mfb_regions, 1, PTM_MAX_REGIONS, msg,
			      msglen)) ||
	    (rc = check_range("DMA_UP_MFB_REGIONS", g->dma_up_mfb_regions, 1, PTM_MAX_REGIONS, msg,
			      msglen)) ||
	    (rc = check_range("DMA_DOWN_MFB_REGIONS", g->dma_down_mfb_regions, 1, PTM_MAX_REGIONS,
			      msg, msglen)) ||
	    /* CFG_DRAIN[23:16] */
	    (rc = check_range("MFB_ITEM_BYTES", g->mfb_item_bytes, 1, 255, msg, msglen)) ||
	    (rc = check_range("CNT_WIDTH", g->cnt_width, 33, 64, msg, msglen)))
		return rc;

	const struct region_bytes rb[4] = {
		{"PCIE_RQ_MFB_REGION_BYTES", g->pcie_rq_mfb_region_bytes},
		{"PCIE_RC_MFB_REGION_BYTES", g->pcie_rc_mfb_region_bytes},
		{"DMA_UP_MFB_REGION_BYTES", g->dma_up_mfb_region_bytes},
		{"DMA_DOWN_MFB_REGION_BYTES", g->dma_down_mfb_region_bytes},
	};
	for (unsigned i = 0; i < 4; i++) {
		if (rb[i].v == 0 || rb[i].v % g->mfb_item_bytes)
			return ptm_einval(msg, msglen,
				    "generic %s=%u: must be a positive multiple of MFB_ITEM_BYTES=%u",
				    rb[i].name, rb[i].v, g->mfb_item_bytes);
		if (rb[i].v > 65535) /* CFG_WIDTH / CFG_WIDTH_DMA fields are 16 bits */
			return ptm_einval(msg, msglen, "generic %s=%u: must fit the 16-bit CFG_WIDTH field",
				    rb[i].name, rb[i].v);
		/* The probe's EOF_POS fields are at most 16 bits wide. */
		if (rb[i].v / g->mfb_item_bytes > 65536)
			return ptm_einval(msg, msglen, "generic %s=%u: more than 65536 items per region",
				    rb[i].name, rb[i].v);
	}

	/* The firmware asserts EOF_POS_WIDTH = log2(items of the larger region). */
	unsigned pitems = umax(g->pcie_rq_mfb_region_bytes, g->pcie_rc_mfb_region_bytes) /
			  g->mfb_item_bytes;
	unsigned ditems = umax(g->dma_up_mfb_region_bytes, g->dma_down_mfb_region_bytes) /
			  g->mfb_item_bytes;
	if (g->pcie_eof_pos_width != ptm_log2c(pitems))
		return ptm_einval(msg, msglen,
			    "generic PCIE_EOF_POS_WIDTH=%u: must be log2 of the %u items of the larger "
			    "PCIe region, i.e. %u",
			    g->pcie_eof_pos_width, pitems, ptm_log2c(pitems));
	if (g->dma_eof_pos_width != ptm_log2c(ditems))
		return ptm_einval(msg, msglen,
			    "generic DMA_EOF_POS_WIDTH=%u: must be log2 of the %u items of the larger "
			    "DMA region, i.e. %u",
			    g->dma_eof_pos_width, ditems, ptm_log2c(ditems));

	struct ptm_derived d;
	ptm_generics_derive(g, &d);
	unsigned dp = g->drain_period;
	if (dp == 0 || (dp & (dp - 1)))
		return ptm_einval(msg, msglen, "generic DRAIN_PERIOD=%u: must be a power of two", dp);
	if (dp > 32768)
		return ptm_einval(msg, msglen,
			    "generic DRAIN_PERIOD=%u: must fit the 16-bit CFG_DRAIN field (at most 32768)",
			    dp);
	if (sweep_cycles(d.pcie_channels) >= dp)
		return ptm_einval(msg, msglen,
			    "generic DRAIN_PERIOD=%u: the PCIe probe's drain sweep takes %u cycles and "
			    "must be shorter",
			    dp, sweep_cycles(d.pcie_channels));
	if (sweep_cycles(d.dma_channels) >= dp)
		return ptm_einval(msg, msglen,
			    "generic DRAIN_PERIOD=%u: the DMA probe's drain sweep takes %u cycles and "
			    "must be shorter",
			    dp, sweep_cycles(d.dma_channels));
	if (g->tag_capacity > 65535)
		return ptm_einval(msg, msglen,
			    "generic TAG_CAPACITY=%u: must fit the 16-bit CFG_CAPACITY field",
			    g->tag_capacity);
	if (g->stfifo_capacity > 65535)
		return ptm_einval(msg, msglen,
			    "generic STFIFO_CAPACITY=%u: must fit the 16-bit CFG_CAPACITY field",
			    g->stfifo_capacity);
	if (d.dma_channels > 255)
		return ptm_einval(msg, msglen,
			    "generics DMA_PORTS=%u, DMA regions %u: the DMA probe has %u channels, "
			    "CFG_DMA holds at most 255",
			    g->dma_ports, d.dma_regions, d.dma_channels);
	if (d.ep_channels > 255)
		return ptm_einval(msg, msglen,
			    "generics DMA_PORTS=%u, regions PCIe %u / DMA %u: %u counters per endpoint, "
			    "CFG_LAYOUT holds at most 255",
			    g->dma_ports, d.pcie_regions, d.dma_regions, d.ep_channels);
	if ((unsigned long)g->pcie_endpoints * d.ep_channels > PTM_MAX_ENTRIES)
		return ptm_einval(msg, msglen,
			    "generic PCIE_ENDPOINTS=%u: %u x %u counters do not fit the counter window "
			    "(at most %u)",
			    g->pcie_endpoints, g->pcie_endpoints, d.ep_channels, PTM_MAX_ENTRIES);
	return 0;
}
