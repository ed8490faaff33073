/*
 * pcie-telemetry: the layout of one PCIE_TELEMETRY_MI component, decoded
 * from its configuration registers, and the index of every counter.
 *
 * Pure data: nothing here reads a device, allocates or prints.
 *
 * Prefixes: pt_layout_, pt_idx_.  Errors: negative errno values with a
 * one-line message in the caller's buffer that names the register and the
 * value.
 */
#ifndef PCIE_TELEMETRY_LAYOUT_H
#define PCIE_TELEMETRY_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/regs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bus kinds, in the order of the report. */
enum pt_bus_kind { PT_BUS_RQ, PT_BUS_RC, PT_BUS_UP, PT_BUS_DOWN };

/* Counter fields of one bus, in memory order. */
enum pt_bus_field {
	PT_F_WORDS,
	PT_F_BACKPRESSURE,
	PT_F_TRANSACTIONS,
	PT_F_MVB,
	PT_F_MVB_BACKPRESSURE,
	PT_F_ITEMS,
	PT_F_REGION0, /* + r */
};

/* The whole layout, decoded from the configuration registers. */
struct pt_layout {
	uint32_t cfg[PT_CFG_REGS]; /* raw configuration registers 0x00..0x3C */
	unsigned version_major, version_minor;
	unsigned endpoints, dma_ports, probes;
	unsigned entries, cnt_width, ep_channels;
	unsigned pcie_channels, pcie_buses, pcie_regions, pcie_brakes;
	unsigned dma_channels, dma_buses, dma_regions, dma_brakes;
	unsigned drain_period, item_bytes;
	uint32_t cnt_base;
	unsigned real_regions[4]; /* by pt_bus_kind: RQ, RC, UP, DOWN */
	unsigned region_bytes[4];
	unsigned hist_bands, pcie_hists, dma_hists;
	unsigned tag_capacity, stfifo_capacity;
	unsigned driven_brakes; /* pcie_brakes - pcie_hists * hist_bands */
	unsigned buses;         /* buses shown per endpoint: 2 + 2*dma_ports */
};

/*
 * Decode and validate a layout from the 16 configuration registers.
 * Checks magic, major version, the channel formulas, the counter window,
 * the region, brake and histogram counts; the message names the register.
 */
int pt_layout_decode(const uint32_t cfg[PT_CFG_REGS], struct pt_layout *l, char *msg, size_t msglen);
/* Only the first check of pt_layout_decode: MAGIC and the major version
 * (what clearing needs).  0 or -EPROTO with the same message. */
int pt_layout_identify(const uint32_t cfg[PT_CFG_REGS], char *msg, size_t msglen);

/* Bus b of an endpoint (0 = RQ, 1 = RC, 2+2p = UP of port p, 3+2p = DOWN). */
enum pt_bus_kind pt_layout_bus_kind(const struct pt_layout *l, unsigned b);
unsigned pt_layout_bus_port(const struct pt_layout *l, unsigned b);
/* Exact upstream name: "PTC -> PCIe (RQ)", "DMA0 -> PTC (UP)", ... */
void pt_layout_bus_name(const struct pt_layout *l, unsigned b, char *buf, size_t len);
unsigned pt_layout_bus_real_regions(const struct pt_layout *l, unsigned b);
/* Regions of the probe that observes bus b (real ones and padding). */
unsigned pt_layout_bus_probe_regions(const struct pt_layout *l, unsigned b);
/* The capacity histogram h counts against (CFG_CAPACITY; 0 beyond h = 1). */
unsigned pt_layout_hist_capacity(const struct pt_layout *l, unsigned h);
/* DMA-probe BRAKE channels that are not histogram bands. */
unsigned pt_layout_dma_driven_brakes(const struct pt_layout *l);

/* Counter indexes (into pt_reading.cnt). */
unsigned pt_idx_pcie_cycles(const struct pt_layout *l, unsigned ep);
unsigned pt_idx_dma_cycles(const struct pt_layout *l, unsigned ep);
unsigned pt_idx_bus(const struct pt_layout *l, unsigned ep, unsigned b, unsigned field);
unsigned pt_idx_brake(const struct pt_layout *l, unsigned ep, unsigned k);
unsigned pt_idx_hist(const struct pt_layout *l, unsigned ep, unsigned h, unsigned band);
unsigned pt_idx_dma_brake(const struct pt_layout *l, unsigned ep, unsigned k);
unsigned pt_idx_dma_hist(const struct pt_layout *l, unsigned ep, unsigned h, unsigned band);

#ifdef __cplusplus
}
#endif
#endif
