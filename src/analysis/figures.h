/*
 * pcie-telemetry: the derived figures the diagnosis reads (private to
 * src/analysis/).  Every figure that is a metric (a share of cycles, the
 * corrected items, bytes and Gbit/s of a padded bus) comes from the metric
 * engine (metrics.h: the built-in definitions, or a caller's set that
 * includes them), evaluated once per reading, so that the diagnosis and the
 * report agree on every number.  Only ratios no metric defines (MVB items
 * per cycle) and raw counters are read here.
 */
#ifndef PT_ANALYSIS_FIGURES_H
#define PT_ANALYSIS_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "pcie_telemetry/diagnose.h"
#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/metrics.h"
#include "pcie_telemetry/reading.h"

/* The metric families the diagnosis uses. */
enum fig_fam {
	FAM_WORDS,      /* {bus}.words_pct */
	FAM_STALL,      /* {bus}.stall_pct */
	FAM_MVB_STALL,  /* {dma_bus}.mvb_stall_pct */
	FAM_GBPS,       /* {bus}.gbps */
	FAM_BRAKE,      /* {brake}_pct */
	FAM_BAND,       /* {band}_pct */
	FAM_CORR_ITEMS, /* {padded_bus}.corrected_items */
	FAM_CORR_BYTES, /* {padded_bus}.corrected_bytes */
	FAM_CORR_GBPS,  /* {padded_bus}.corrected_gbps */
	FAM_OVER,       /* {padded_bus}.overstatement_pct */
	FIG_NFAMS
};

/* The metrics of one reading, evaluated. */
struct fig_set {
	struct pt_diag_metrics m;
	int fam[FIG_NFAMS];        /* family indexes */
};

/*
 * Evaluate the metrics for a reading: given (bound to l, with the built-in
 * definitions) or the built-in ones bound here.  0, -EINVAL (a set without
 * the built-in families, a reading that does not fit) or -ENOMEM.
 */
int fig_set_open(struct fig_set *s, const struct pt_layout *l, const struct pt_metric_set *given,
		 const struct pt_reading *r, bool interval, double seconds);
void fig_set_close(struct fig_set *s);

/* One endpoint of a reading. */
struct fig {
	const struct pt_layout *l;
	const struct pt_reading *r;
	const struct fig_set *m;
	unsigned ep;
	uint64_t pcie_cycles, dma_cycles;
};

void fig_init(struct fig *f, const struct fig_set *m, const struct pt_layout *l,
	      const struct pt_reading *r, unsigned ep);

/* Bus numbers of the layout: 0 RQ, 1 RC, 2 + 2p UP and 3 + 2p DOWN of port p. */
static inline unsigned fig_up(unsigned p)
{
	return 2 + 2 * p;
}
static inline unsigned fig_down(unsigned p)
{
	return 3 + 2 * p;
}

/* Counter `field` (enum pt_bus_field) of bus b, raw. */
uint64_t fig_cnt(const struct fig *f, unsigned b, unsigned field);
/* Elapsed cycles of the clock bus b runs on. */
uint64_t fig_cycles(const struct fig *f, unsigned b);
/* A share of bus b's cycles, 0..1 (0 without cycles): words, MFB stall
 * and MVB stall from their metrics; any other field as counter / cycles. */
double fig_share(const struct fig *f, unsigned b, unsigned field);
/* The share of a count of PCIe cycles (0 without cycles). */
double fig_pcie_share(const struct fig *f, uint64_t n);

/* BRAKE reason k: driven by the firmware, and its share of PCIe cycles
 * (its metric; 0 when not driven). */
bool fig_brake_driven(const struct fig *f, unsigned k);
double fig_brake_share(const struct fig *f, unsigned k);
/* Band b of PCIe histogram h, raw and as a share of PCIe cycles (0 when
 * the layout has no such band). */
uint64_t fig_hist(const struct fig *f, unsigned h, unsigned b);
double fig_hist_share(const struct fig *f, unsigned h, unsigned b);

/* The items bus b really carried: its corrected items where it is padded,
 * else its items counter. */
uint64_t fig_real_items(const struct fig *f, unsigned b);
/* An integer metric of bus b (a count such as the corrected items),
 * exactly; `none` where the bus has no such instance. */
uint64_t fig_bus_count(const struct fig *f, enum fig_fam fam, unsigned b, uint64_t none);
/* The value of family fam at bus b of the endpoint (NaN where it has
 * none, for example a bus that is not padded). */
double fig_bus_metric(const struct fig *f, enum fig_fam fam, unsigned b);

/* a / b, 0 when b is 0. */
static inline double fig_div(double a, double b)
{
	return b != 0 ? a / b : 0;
}

#endif
