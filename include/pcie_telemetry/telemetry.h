/*
 * pcie-telemetry: reader library for the PCIE_TELEMETRY_MI component.
 *
 * Layout from the configuration registers, commands, snapshots and raw
 * readings, and the difference of two readings modulo 2^CNT_WIDTH.
 * A reading is data: nothing here prints or formats (see render.h).
 *
 * Prefix: pt_.  Errors: negative errno values with a one-line message in
 * the caller's buffer that names the register (or file) and the value.
 */
#ifndef PCIE_TELEMETRY_TELEMETRY_H
#define PCIE_TELEMETRY_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/bus.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PT_VERSION_STRING "1.0.0"

/* Register map (byte offsets). */
enum pt_reg {
	PT_REG_MAGIC = 0x00,
	PT_REG_VERSION = 0x04,
	PT_REG_CFG_TOPOLOGY = 0x08,
	PT_REG_CFG_LAYOUT = 0x0C,
	PT_REG_CFG_PCIE = 0x10,
	PT_REG_CFG_DMA = 0x14,
	PT_REG_CFG_DRAIN = 0x18,
	PT_REG_CNT_BASE = 0x1C,
	PT_REG_COMMAND = 0x20,
	PT_REG_STATUS = 0x24,
	PT_REG_READ_SEL = 0x28,
	PT_REG_CFG_REGIONS = 0x2C,
	PT_REG_CFG_WIDTH = 0x30,
	PT_REG_CFG_HIST = 0x34,
	PT_REG_CFG_CAPACITY = 0x38,
	PT_REG_CFG_WIDTH_DMA = 0x3C,
	PT_REG_PCIE_STATUS = 0x40, /* + 4*ep */
	PT_REG_PCIE_TAGS = 0x80,   /* + 4*ep */
	PT_REG_PCIE_STFIFO = 0xC0, /* + 4*ep */
};

#define PT_MAGIC 0x50544C4Du
#define PT_VERSION_MAJOR 2u

#define PT_CMD_SNAPSHOT 0x1u
#define PT_CMD_CLEAR 0x2u
#define PT_CMD_CLEAR_FLAGS 0x4u
#define PT_CMD_CLEAR_MARKS 0x8u

#define PT_STATUS_BUSY 0x1u
#define PT_STATUS_LOST_DELTAS 0x2u
#define PT_STATUS_OVERRUN 0x4u

#define PT_MAX_ENDPOINTS 16
#define PT_CFG_REGS 16 /* 0x00 .. 0x3C */

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

/* Bus b of an endpoint (0 = RQ, 1 = RC, 2+2p = UP of port p, 3+2p = DOWN). */
enum pt_bus_kind pt_layout_bus_kind(const struct pt_layout *l, unsigned b);
unsigned pt_layout_bus_port(const struct pt_layout *l, unsigned b);
/* Exact upstream name: "PTC -> PCIe (RQ)", "DMA0 -> PTC (UP)", ... */
void pt_layout_bus_name(const struct pt_layout *l, unsigned b, char *buf, size_t len);
unsigned pt_layout_bus_real_regions(const struct pt_layout *l, unsigned b);

/* Counter indexes (into pt_reading.cnt). */
unsigned pt_idx_pcie_cycles(const struct pt_layout *l, unsigned ep);
unsigned pt_idx_dma_cycles(const struct pt_layout *l, unsigned ep);
unsigned pt_idx_bus(const struct pt_layout *l, unsigned ep, unsigned b, unsigned field);
unsigned pt_idx_brake(const struct pt_layout *l, unsigned ep, unsigned k);
unsigned pt_idx_hist(const struct pt_layout *l, unsigned ep, unsigned h, unsigned band);

/* One reading: one snapshot of everything, raw. */
struct pt_reading {
	unsigned entries;
	uint64_t *cnt;            /* entries counters */
	uint32_t status;          /* STATUS */
	uint32_t pcie_status[PT_MAX_ENDPOINTS];
	uint32_t pcie_tags[PT_MAX_ENDPOINTS];
	uint32_t pcie_stfifo[PT_MAX_ENDPOINTS];
	double time;              /* device clock at the SNAPSHOT command */
};

int pt_reading_init(struct pt_reading *r, unsigned entries);
void pt_reading_free(struct pt_reading *r);

/* Decoded per-endpoint link registers. */
struct pt_link {
	bool link_up, ext_tag, tag_10b;
	unsigned mps, mrrs, rcb;
	unsigned tags_free, tags_free_min, stfifo_free, stfifo_free_min;
};
void pt_link_decode(const struct pt_reading *r, unsigned ep, struct pt_link *out);

/* Counter difference modulo 2^width (width 33..64). */
uint64_t pt_counter_diff(uint64_t later, uint64_t earlier, unsigned width);

/*
 * out = later - earlier, counter by counter modulo 2^CNT_WIDTH; status,
 * link registers and time come from `later`.  out must be initialised
 * with the same number of entries.
 */
void pt_reading_diff(const struct pt_layout *l, const struct pt_reading *earlier,
		     const struct pt_reading *later, struct pt_reading *out);

/* An open component: a bus and its layout. */
struct pt_dev {
	struct pt_bus *bus;
	struct pt_layout layout;
	double busy_timeout; /* seconds, default 1.0 */
};

/* Read the configuration registers and validate the layout. */
int pt_dev_init(struct pt_dev *d, struct pt_bus *bus, char *msg, size_t msglen);
int pt_dev_command(struct pt_dev *d, uint32_t cmd, char *msg, size_t msglen);
/* Wait until STATUS.busy is 0 (polling, with the timeout). */
int pt_dev_wait_idle(struct pt_dev *d, char *msg, size_t msglen);
int pt_dev_status(struct pt_dev *d, uint32_t *status, char *msg, size_t msglen);
/* SNAPSHOT, note the time, wait for idle, read everything of the copy. */
int pt_dev_read(struct pt_dev *d, struct pt_reading *r, char *msg, size_t msglen);
/*
 * One measurement, with the register sequence of the upstream tool:
 *   interval <= 0: one reading into `second` (totals since the last clear);
 *   interval > 0:  CLEAR_FLAGS, CLEAR_MARKS, a reading into `first`, then
 *                  the bus waits until `interval` seconds after the first
 *                  SNAPSHOT, and a reading into `second`.
 * The measured length is second->time - first->time.  Returns -EINTR,
 * without taking the second reading, when pt_bus_stop_requested().
 */
int pt_dev_measure(struct pt_dev *d, double interval, struct pt_reading *first,
		   struct pt_reading *second, char *msg, size_t msglen);
int pt_dev_clear(struct pt_dev *d, char *msg, size_t msglen);        /* 0xE */
int pt_dev_clear_flags(struct pt_dev *d, char *msg, size_t msglen);  /* 0x4 */
int pt_dev_clear_marks(struct pt_dev *d, char *msg, size_t msglen);  /* 0x8 */

#ifdef __cplusplus
}
#endif
#endif
