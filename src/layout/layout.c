/*
 * pcie-telemetry: the layout of one component, decoded from its
 * configuration registers, and the index of every counter.
 *
 * The checks follow what the firmware can produce (generics of
 * PCIE_TELEMETRY_MI and the channel numbering of PCIE_TELEMETRY_PROBE).
 * A layout that breaks one of them would make the tool read the wrong
 * counters and print plausible nonsense, so it is refused with the
 * register and its value.  Fields the report does not depend on (the
 * probe count, DRAIN_PERIOD, the item and region sizes, the capacities)
 * are taken as they are, as upstream does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pcie_telemetry/layout.h"

static int bad(char *msg, size_t msglen, const char *reg, uint32_t val, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int bad(char *msg, size_t msglen, const char *reg, uint32_t val, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (msg && msglen)
		snprintf(msg, msglen, "%s = 0x%08X: %s", reg, (unsigned)val, what);
	return -EPROTO;
}

static unsigned field(const uint32_t cfg[PT_CFG_REGS], enum pt_field f)
{
	return (unsigned)pt_field_cfg(cfg, f);
}

static uint32_t reg(const uint32_t cfg[PT_CFG_REGS], enum pt_reg r)
{
	return cfg[PT_REG_NUM(r)];
}

static int check_identity(const uint32_t cfg[PT_CFG_REGS], struct pt_layout *l, char *msg,
			  size_t msglen)
{
	const uint32_t magic = reg(cfg, PT_REG_MAGIC), version = reg(cfg, PT_REG_VERSION);

	if (magic != PT_MAGIC)
		return bad(msg, msglen, "MAGIC", magic,
			   "not a PCIe telemetry component (expected 0x%08X)", PT_MAGIC);
	l->version_major = field(cfg, PT_FIELD_VERSION_MAJOR);
	l->version_minor = field(cfg, PT_FIELD_VERSION_MINOR);
	if (l->version_major != PT_VERSION_MAJOR)
		return bad(msg, msglen, "VERSION", version,
			   "major version %u is not supported, the register map of major %u is "
			   "needed",
			   l->version_major, PT_VERSION_MAJOR);
	return 0;
}

static int decode_topology(const uint32_t cfg[PT_CFG_REGS], struct pt_layout *l, char *msg,
			   size_t msglen)
{
	const uint32_t topo = reg(cfg, PT_REG_CFG_TOPOLOGY), lay = reg(cfg, PT_REG_CFG_LAYOUT);

	l->endpoints = field(cfg, PT_FIELD_TOPO_ENDPOINTS);
	l->dma_ports = field(cfg, PT_FIELD_TOPO_DMA_PORTS);
	l->probes = field(cfg, PT_FIELD_TOPO_PROBES);
	if (l->endpoints < 1 || l->endpoints > PT_MAX_ENDPOINTS)
		return bad(msg, msglen, "CFG_TOPOLOGY", topo,
			   "%u PCIe endpoints (1 to %u are possible)", l->endpoints,
			   PT_MAX_ENDPOINTS);
	l->entries = field(cfg, PT_FIELD_LAYOUT_ENTRIES);
	l->cnt_width = field(cfg, PT_FIELD_LAYOUT_CNT_WIDTH);
	l->ep_channels = field(cfg, PT_FIELD_LAYOUT_EP_CHANNELS);
	if (l->cnt_width < 33 || l->cnt_width > 64)
		return bad(msg, msglen, "CFG_LAYOUT", lay,
			   "counter width %u bits is outside the range 33 to 64", l->cnt_width);
	return 0;
}

/* The channel numbering of PCIE_TELEMETRY_PROBE: the cycle counter, then
 * 6 + regions counters per bus, then the BRAKE signals. */
static int check_channels(const char *name, uint32_t val, unsigned channels, unsigned buses,
			  unsigned regions, unsigned brakes, char *msg, size_t msglen)
{
	unsigned need = 1 + buses * (6 + regions) + brakes;

	if (channels == need)
		return 0;
	return bad(msg, msglen, name, val,
		   "%u channels, but 1 + %u buses x (6 + %u regions) + %u BRAKE signals make %u",
		   channels, buses, regions, brakes, need);
}

static int decode_probes(const uint32_t cfg[PT_CFG_REGS], struct pt_layout *l, char *msg,
			 size_t msglen)
{
	const uint32_t pcie = reg(cfg, PT_REG_CFG_PCIE), dma = reg(cfg, PT_REG_CFG_DMA);
	int rc;

	l->pcie_channels = field(cfg, PT_FIELD_PCIE_CHANNELS);
	l->pcie_buses = field(cfg, PT_FIELD_PCIE_BUSES);
	l->pcie_regions = field(cfg, PT_FIELD_PCIE_REGIONS);
	l->pcie_brakes = field(cfg, PT_FIELD_PCIE_BRAKES);
	if (l->pcie_buses != PT_FW_PCIE_BUSES)
		return bad(msg, msglen, "CFG_PCIE", pcie,
			   "%u buses, but the PCIe clock probe observes 2 (RQ and RC)",
			   l->pcie_buses);
	rc = check_channels("CFG_PCIE", pcie, l->pcie_channels, l->pcie_buses, l->pcie_regions,
			    l->pcie_brakes, msg, msglen);
	if (rc < 0)
		return rc;

	l->dma_channels = field(cfg, PT_FIELD_DMA_CHANNELS);
	l->dma_buses = field(cfg, PT_FIELD_DMA_BUSES);
	l->dma_regions = field(cfg, PT_FIELD_DMA_REGIONS);
	l->dma_brakes = field(cfg, PT_FIELD_DMA_BRAKES);
	if (l->dma_buses != 2 * l->dma_ports)
		return bad(msg, msglen, "CFG_DMA", dma,
			   "%u buses, but %u DMA port%s per endpoint (CFG_TOPOLOGY = 0x%08X) make %u",
			   l->dma_buses, l->dma_ports, l->dma_ports == 1 ? "" : "s",
			   (unsigned)reg(cfg, PT_REG_CFG_TOPOLOGY), 2 * l->dma_ports);
	return check_channels("CFG_DMA", dma, l->dma_channels, l->dma_buses, l->dma_regions,
			      l->dma_brakes, msg, msglen);
}

/* The counter window: every endpoint's channels, inside the component and
 * above the registers. */
static int check_window(const uint32_t cfg[PT_CFG_REGS], struct pt_layout *l, char *msg,
			size_t msglen)
{
	const uint32_t lay = reg(cfg, PT_REG_CFG_LAYOUT), base = reg(cfg, PT_REG_CNT_BASE);

	if (l->ep_channels != l->pcie_channels + l->dma_channels)
		return bad(msg, msglen, "CFG_LAYOUT", lay,
			   "%u counters per endpoint, but its probes have %u + %u = %u channels",
			   l->ep_channels, l->pcie_channels, l->dma_channels,
			   l->pcie_channels + l->dma_channels);
	if (l->entries < l->endpoints * l->ep_channels)
		return bad(msg, msglen, "CFG_LAYOUT", lay,
			   "%u counters cannot hold %u endpoint%s x %u channels", l->entries,
			   l->endpoints, l->endpoints == 1 ? "" : "s", l->ep_channels);
	l->cnt_base = base;
	if (base % 4u != 0)
		return bad(msg, msglen, "CNT_BASE", base,
			   "the counter window must start on a multiple of 4 bytes");
	if (base < pt_reg_ep(PT_REG_PCIE_STFIFO, PT_MAX_ENDPOINTS))
		return bad(msg, msglen, "CNT_BASE", base,
			   "the counter window would overlap the registers at 0x0000..0x%04X",
			   (unsigned)pt_reg_ep(PT_REG_PCIE_STFIFO, PT_MAX_ENDPOINTS) - 1);
	if (base >= PT_COMP_SPAN || (uint64_t)l->entries * 8u > PT_COMP_SPAN - base)
		return bad(msg, msglen, "CNT_BASE", base,
			   "a window of %u counters (0x%X bytes) from here leaves the 64 KiB of "
			   "the component",
			   l->entries, l->entries * 8u);
	return 0;
}

static int decode_buses(const uint32_t cfg[PT_CFG_REGS], struct pt_layout *l, char *msg,
			size_t msglen)
{
	/* by pt_bus_kind */
	static const enum pt_field regions_of[4] = { PT_FIELD_REGIONS_RQ, PT_FIELD_REGIONS_RC,
						     PT_FIELD_REGIONS_UP, PT_FIELD_REGIONS_DOWN };
	static const enum pt_field bytes_of[4] = { PT_FIELD_WIDTH_RQ_BYTES, PT_FIELD_WIDTH_RC_BYTES,
						   PT_FIELD_WIDTH_UP_BYTES,
						   PT_FIELD_WIDTH_DOWN_BYTES };
	const uint32_t regions = reg(cfg, PT_REG_CFG_REGIONS);

	l->drain_period = field(cfg, PT_FIELD_DRAIN_PERIOD);
	l->item_bytes = field(cfg, PT_FIELD_DRAIN_ITEM_BYTES);
	for (unsigned k = 0; k < 4; k++) {
		unsigned probe = k < 2 ? l->pcie_regions : l->dma_regions;

		l->real_regions[k] = field(cfg, regions_of[k]);
		l->region_bytes[k] = field(cfg, bytes_of[k]);
		if (l->real_regions[k] > probe)
			return bad(msg, msglen, "CFG_REGIONS", regions,
				   "the %s bus has %u regions, more than the %u of its probe (%s)",
				   pt_field_info(regions_of[k])->name, l->real_regions[k], probe,
				   k < 2 ? "CFG_PCIE" : "CFG_DMA");
	}
	l->buses = 2 + 2 * l->dma_ports;
	return 0;
}

/* The histogram bands are the last BRAKE channels of their probe. */
static int decode_hists(const uint32_t cfg[PT_CFG_REGS], struct pt_layout *l, char *msg,
			size_t msglen)
{
	const uint32_t hist = reg(cfg, PT_REG_CFG_HIST);

	l->hist_bands = field(cfg, PT_FIELD_HIST_BANDS);
	l->pcie_hists = field(cfg, PT_FIELD_HIST_PCIE);
	l->dma_hists = field(cfg, PT_FIELD_HIST_DMA);
	if (l->pcie_hists * l->hist_bands > l->pcie_brakes)
		return bad(msg, msglen, "CFG_HIST", hist,
			   "%u histograms x %u bands do not fit in the %u BRAKE channels of the PCIe "
			   "clock probe",
			   l->pcie_hists, l->hist_bands, l->pcie_brakes);
	if (l->dma_hists * l->hist_bands > l->dma_brakes)
		return bad(msg, msglen, "CFG_HIST", hist,
			   "%u histograms x %u bands do not fit in the %u BRAKE channels of the DMA "
			   "clock probe",
			   l->dma_hists, l->hist_bands, l->dma_brakes);
	l->tag_capacity = field(cfg, PT_FIELD_CAP_TAGS);
	l->stfifo_capacity = field(cfg, PT_FIELD_CAP_STFIFO);
	l->driven_brakes = l->pcie_brakes - l->pcie_hists * l->hist_bands;
	return 0;
}

int pt_layout_decode(const uint32_t cfg[PT_CFG_REGS], struct pt_layout *l, char *msg,
		     size_t msglen)
{
	/* In this order: each step relies on the fields the ones before it
	 * decoded, and the magic and the major version come first, so that
	 * any other complaint means that those two were right. */
	static int (*const steps[])(const uint32_t *, struct pt_layout *, char *, size_t) = {
		check_identity, decode_topology, decode_probes,
		check_window,   decode_buses,    decode_hists,
	};

	memset(l, 0, sizeof(*l));
	memcpy(l->cfg, cfg, sizeof(l->cfg));
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int rc = steps[i](cfg, l, msg, msglen);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int pt_layout_identify(const uint32_t cfg[PT_CFG_REGS], char *msg, size_t msglen)
{
	struct pt_layout l;

	return check_identity(cfg, &l, msg, msglen);
}

enum pt_bus_kind pt_layout_bus_kind(const struct pt_layout *l, unsigned b)
{
	(void)l;
	if (b < 2)
		return b == 0 ? PT_BUS_RQ : PT_BUS_RC;
	return (b % 2u == 0) ? PT_BUS_UP : PT_BUS_DOWN;
}

unsigned pt_layout_bus_port(const struct pt_layout *l, unsigned b)
{
	(void)l;
	return b < 2 ? 0 : (b - 2) / 2;
}

void pt_layout_bus_name(const struct pt_layout *l, unsigned b, char *buf, size_t len)
{
	unsigned p = pt_layout_bus_port(l, b);

	switch (pt_layout_bus_kind(l, b)) {
	case PT_BUS_RQ:
		snprintf(buf, len, "PTC -> PCIe (RQ)");
		break;
	case PT_BUS_RC:
		snprintf(buf, len, "PCIe -> PTC (RC)");
		break;
	case PT_BUS_UP:
		snprintf(buf, len, "DMA%u -> PTC (UP)", p);
		break;
	case PT_BUS_DOWN:
		snprintf(buf, len, "PTC -> DMA%u (DOWN)", p);
		break;
	}
}

unsigned pt_layout_bus_real_regions(const struct pt_layout *l, unsigned b)
{
	return l->real_regions[pt_layout_bus_kind(l, b)];
}

unsigned pt_layout_bus_probe_regions(const struct pt_layout *l, unsigned b)
{
	return b < 2 ? l->pcie_regions : l->dma_regions;
}

unsigned pt_layout_hist_capacity(const struct pt_layout *l, unsigned h)
{
	switch (h) {
	case PT_HIST_TAGS:
		return l->tag_capacity;
	case PT_HIST_STFIFO:
		return l->stfifo_capacity;
	default:
		return 0;
	}
}

unsigned pt_layout_dma_driven_brakes(const struct pt_layout *l)
{
	unsigned bands = l->dma_hists * l->hist_bands;

	return l->dma_brakes > bands ? l->dma_brakes - bands : 0;
}

unsigned pt_idx_pcie_cycles(const struct pt_layout *l, unsigned ep)
{
	return ep * l->ep_channels;
}

unsigned pt_idx_dma_cycles(const struct pt_layout *l, unsigned ep)
{
	return ep * l->ep_channels + l->pcie_channels;
}

unsigned pt_idx_bus(const struct pt_layout *l, unsigned ep, unsigned b, unsigned f)
{
	if (b < 2)
		return pt_idx_pcie_cycles(l, ep) + 1 + b * (6 + l->pcie_regions) + f;
	return pt_idx_dma_cycles(l, ep) + 1 + (b - 2) * (6 + l->dma_regions) + f;
}

unsigned pt_idx_brake(const struct pt_layout *l, unsigned ep, unsigned k)
{
	return pt_idx_pcie_cycles(l, ep) + 1 + l->pcie_buses * (6 + l->pcie_regions) + k;
}

unsigned pt_idx_hist(const struct pt_layout *l, unsigned ep, unsigned h, unsigned band)
{
	return pt_idx_brake(l, ep, l->driven_brakes) + h * l->hist_bands + band;
}

unsigned pt_idx_dma_brake(const struct pt_layout *l, unsigned ep, unsigned k)
{
	return pt_idx_dma_cycles(l, ep) + 1 + l->dma_buses * (6 + l->dma_regions) + k;
}

unsigned pt_idx_dma_hist(const struct pt_layout *l, unsigned ep, unsigned h, unsigned band)
{
	return pt_idx_dma_brake(l, ep, pt_layout_dma_driven_brakes(l)) + h * l->hist_bands + band;
}
