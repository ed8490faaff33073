/*
 * pcie-telemetry: the layout of one PCIE_TELEMETRY_MI component, decoded
 * from its configuration registers, the index of every counter, and the
 * machine name, description and unit of every counter (docs/counters.md).
 *
 * Pure data: nothing here reads a device, allocates or prints.
 *
 * Prefixes: pt_layout_, pt_idx_, pt_counter_, pt_bus_field_.  Errors:
 * negative errno values with a one-line message in the caller's buffer
 * that names the register (or the counter) and the value.
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

/* ---- counter names (docs/counters.md) ------------------------------ */

/* Units of a counter. */
enum pt_counter_unit {
	PT_UNIT_CYCLES,       /* clock cycles of the counter's probe */
	PT_UNIT_WORDS,        /* MFB words (cycles in which one moved) */
	PT_UNIT_ITEMS,        /* MFB items or MVB items */
	PT_UNIT_TRANSACTIONS, /* MFB frames (SOF) */
};
/* "cycles", "words", "items", "transactions" (NULL when out of range). */
const char *pt_counter_unit_name(enum pt_counter_unit u);

/* The fixed fields of a bus: machine name, upstream JSON key, unit. */
struct pt_bus_field_info {
	const char *name;     /* "stall_cycles" */
	const char *json_key; /* "backpressure" */
	enum pt_counter_unit unit;
	const char *what;     /* one line: what it counts */
};
/* f < PT_F_REGION0; NULL otherwise. */
const struct pt_bus_field_info *pt_bus_field_info(unsigned f);

enum pt_counter_kind {
	PT_COUNTER_PCIE_CYCLES, /* epE.pcie_cycles */
	PT_COUNTER_DMA_CYCLES,  /* epE.dma_cycles */
	PT_COUNTER_BUS,         /* epE.B.f */
	PT_COUNTER_BRAKE,       /* epE.brake.R_cycles */
	PT_COUNTER_HIST,        /* epE.hist.H.N_cycles */
	PT_COUNTER_DMA_BRAKE,   /* epE.dma_brake.reasonK_cycles */
	PT_COUNTER_DMA_HIST,    /* epE.dma_hist.resourceH.bandB_cycles */
};

/* What counter i is. */
struct pt_counter_info {
	enum pt_counter_kind kind;
	enum pt_counter_unit unit;
	unsigned ep;
	unsigned bus;    /* BUS: bus b of the endpoint (pt_layout_bus_kind) */
	unsigned field;  /* BUS: enum pt_bus_field (PT_F_REGION0 + region) */
	unsigned number; /* BRAKE, DMA_BRAKE: reason k; HIST, DMA_HIST: histogram h;
			    BUS region field: region r */
	unsigned band;   /* HIST, DMA_HIST: band b */
	bool padded;     /* BUS region field beyond the bus's real regions */
};

/* Longest name or description of any layout, with its NUL. */
#define PT_COUNTER_NAME_LEN 64
#define PT_COUNTER_DESC_LEN 192

/* Counters with a name: endpoints x EP_CHANNELS, indexes 0 .. count-1
 * (the entries beyond, up to ENTRIES, are unused). */
unsigned pt_counter_count(const struct pt_layout *l);
/* 0, or -ENOENT when idx >= pt_counter_count(l). */
int pt_counter_decode(const struct pt_layout *l, unsigned idx, struct pt_counter_info *out);
/* The machine name ("ep0.rq.words").  0; -ENOENT for an index without a
 * name (buf then holds ""); -ERANGE when len is too short (truncated). */
int pt_counter_name(const struct pt_layout *l, unsigned idx, char *buf, size_t len);
/* The index of a name, by decoding it (no table, no search).  0, or
 * -ENOENT with "counter 'NAME': ..." in msg for a name this layout does
 * not have, malformed ones included. */
int pt_counter_index(const struct pt_layout *l, const char *name, unsigned *idx, char *msg,
		     size_t msglen);
/* One line saying what it counts, and on which clock.  Errors as for
 * pt_counter_name. */
int pt_counter_description(const struct pt_layout *l, unsigned idx, char *buf, size_t len);
/* "cycles", "words", "items" or "transactions"; NULL without a name. */
const char *pt_counter_unit(const struct pt_layout *l, unsigned idx);

/* Name patterns: '*' matches any run (also empty) of characters other
 * than '.', every other character itself: "ep*.down*.items". */
bool pt_counter_match(const char *pattern, const char *name);
/* The indexes of the names that match, in index order: returns how many
 * match (also beyond max; only the first max are written). */
unsigned pt_counter_glob(const struct pt_layout *l, const char *pattern, unsigned *idx,
			 unsigned max);

#ifdef __cplusplus
}
#endif
#endif
