/*
 * pcie-telemetry: the derived figures the diagnosis reads (private to
 * src/analysis/).  Shares are a counter over the elapsed cycles of its
 * own clock, as the report computes them; the corrected items remove the
 * padded regions' counts (firmware-behavior.md 1.4).  Every figure the
 * diagnosis uses goes through here, so that it has one definition.
 */
#ifndef PT_ANALYSIS_FIGURES_H
#define PT_ANALYSIS_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/reading.h"

/* One endpoint of a reading. */
struct fig {
	const struct pt_layout *l;
	const struct pt_reading *r;
	unsigned ep;
	uint64_t pcie_cycles, dma_cycles;
};

void fig_init(struct fig *f, const struct pt_layout *l, const struct pt_reading *r, unsigned ep);

/* Bus numbers of the layout: 0 RQ, 1 RC, 2 + 2p UP and 3 + 2p DOWN of port p. */
static inline unsigned fig_up(unsigned p)
{
	return 2 + 2 * p;
}
static inline unsigned fig_down(unsigned p)
{
	return 3 + 2 * p;
}

/* Counter `field` (enum pt_bus_field) of bus b. */
uint64_t fig_cnt(const struct fig *f, unsigned b, unsigned field);
/* Elapsed cycles of the clock bus b runs on. */
uint64_t fig_cycles(const struct fig *f, unsigned b);
/* fig_cnt / fig_cycles; 0 without cycles. */
double fig_share(const struct fig *f, unsigned b, unsigned field);
/* The share of a count of PCIe cycles (0 without cycles). */
double fig_pcie_share(const struct fig *f, uint64_t n);

/* BRAKE reason k: driven by the firmware, and its share of PCIe cycles
 * (0 when not driven). */
bool fig_brake_driven(const struct fig *f, unsigned k);
double fig_brake_share(const struct fig *f, unsigned k);
/* Band b of PCIe histogram h, raw and as a share of PCIe cycles (0 when
 * the layout has no such band). */
uint64_t fig_hist(const struct fig *f, unsigned h, unsigned b);
double fig_hist_share(const struct fig *f, unsigned h, unsigned b);

/* Items the padded regions of bus b added (0 on a bus as wide as its
 * probe), and the items the bus really carried. */
uint64_t fig_padded_items(const struct fig *f, unsigned b);
uint64_t fig_real_items(const struct fig *f, unsigned b);

/* a / b, 0 when b is 0. */
static inline double fig_div(double a, double b)
{
	return b != 0 ? a / b : 0;
}

#endif
