/*
 * pcie-telemetry: the bottleneck diagnosis of one reading (docs/diagnosis.md).
 *
 * Pure functions of a layout, a difference (or totals) and the length of
 * the interval: nothing here reads a device, prints or keeps state.  Every
 * derived figure it judges by (a share of cycles, corrected items, bytes
 * and Gbit/s) is a metric of the built-in definitions (metrics.h), so the
 * diagnosis and the report agree on every number.
 *
 *   pt_diag_     the top-down tree of each endpoint and direction, and the
 *                bottleneck it names
 *   pt_latency_  the mean time a PCIe tag is held, as bounds from Little's
 *                law on the tag histogram
 *   pt_corr_     items, bytes and Gbit/s of the buses narrower than their
 *                probe, with the padded regions' counts removed
 *
 * Errors: negative errno values (-EINVAL for a reading that does not fit
 * the layout, -ENOMEM).
 */
#ifndef PCIE_TELEMETRY_DIAGNOSE_H
#define PCIE_TELEMETRY_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/metrics.h"
#include "pcie_telemetry/reading.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The two directions of an endpoint. */
enum pt_diag_dir {
	PT_DIAG_READ,  /* host to card: UP requests, RQ, RC, storage FIFO, DOWN */
	PT_DIAG_WRITE, /* card to host: UP, RQ */
	PT_DIAG_DIRS
};
/* "read", "write" (NULL out of range). */
const char *pt_diag_dir_name(enum pt_diag_dir d);

/* What limits a direction.  The causes that stall a stream are also the
 * level-2 nodes of its tree. */
enum pt_diag_cause {
	PT_CAUSE_IDLE,               /* no traffic */
	PT_CAUSE_LINK_DOWN,          /* the PCIe link is down */
	PT_CAUSE_SOURCE,             /* less traffic than any limit */
	PT_CAUSE_PCIE_LINK,          /* the PCIe link (or its PTC-side bus) is full */
	PT_CAUSE_PCIE_ENDPOINT,      /* the endpoint refuses RQ without a full link */
	PT_CAUSE_PCIE_TAGS,          /* no free PCIe tag */
	PT_CAUSE_TAG_FIFO,           /* tags free but not at the tag FIFO's port */
	PT_CAUSE_COMPLETION_SPACE,   /* no room reserved in the storage FIFO */
	PT_CAUSE_COMPLETION_HEADERS, /* no completion header entry in the Hard IP */
	PT_CAUSE_DMA_CONSUMER,       /* the DMA side does not take DOWN */
	PT_CAUSE_DMA_BUS,            /* a DMA bus moves a word in every cycle */
	PT_DIAG_CAUSES
};
/* "pcie-tags", ... (NULL out of range). */
const char *pt_diag_cause_name(enum pt_diag_cause c);
/* One line: what would help, for that direction. */
const char *pt_diag_cause_advice(enum pt_diag_cause c, enum pt_diag_dir d);

/* The thresholds of the judgement (docs/diagnosis.md), shares of cycles. */
#define PT_DIAG_SAT 0.95     /* a bus "moves a word in every cycle" */
#define PT_DIAG_BACKLOG 0.90 /* the source's requests wait at the PTC */
#define PT_DIAG_SIG 0.05     /* a stall worth a cause */

/* One figure the judgement used: a counter's share of its own clock's
 * cycles, and the cause it is counted for. */
struct pt_diag_evidence {
	char what[64];             /* "no free PCIe tag", "DOWN0 stalled by the DMA" */
	double share;              /* 0..1 (a little above 1 over short intervals) */
	bool pcie_clock;           /* a share of PCIe cycles (else DMA cycles) */
	bool saturation;           /* a bus's words, not a stall: no level-2 share */
	enum pt_diag_cause cause;
};

#define PT_DIAG_MAX_EVIDENCE 24

/*
 * One endpoint and direction.  Level 1: moving + stalled + idle = 1 (of the
 * cycles of the direction's reference buses, DMA clock: DOWN of every port
 * for reads, UP of every port for writes).  Level 2: cause[] +
 * unexplained = stalled, assigned top-down (the stage nearest to the DMA
 * first) and each capped by what is left, the remainder by subtraction.
 */
struct pt_diag_entry {
	unsigned ep;
	enum pt_diag_dir dir;
	bool measured;             /* cycles were counted (else idle = 1) */
	double moving, stalled, idle;
	double cause[PT_DIAG_CAUSES];
	double unexplained;
	enum pt_diag_cause bottleneck;
	int port;                  /* DMA port of dma-bus / dma-consumer, else -1 */
	char why[256];             /* the figures the judgement rests on */
	unsigned nevidence;
	struct pt_diag_evidence evidence[PT_DIAG_MAX_EVIDENCE];
};

/* Mean time a PCIe tag is held (read request out until its last
 * completion in), as bounds. */
struct pt_latency {
	bool valid;                /* reads were counted and a tag histogram exists */
	bool hi_bounded;           /* false: too few reads are proven (hi is inf) */
	bool have_ns;              /* the interval has a length (not totals) */
	double lo_cycles, hi_cycles; /* PCIe clock cycles */
	double lo_ns, hi_ns;       /* NaN without have_ns */
	double reads_lo, reads_hi; /* read TLPs (tags taken) in the interval */
	double inuse_lo, inuse_hi; /* mean tags in use */
	unsigned pool_lo, pool_hi; /* tags the PTC can hold */
	bool pool_assumed;         /* the pool is the configured one (tags limit) */
	double empty_share;        /* share of the histogram's cycles with no free tag */
};

/* A bus with fewer real regions than its probe: what it really carried. */
struct pt_corr_bus {
	unsigned ep, bus;          /* bus b of pt_layout_bus_kind */
	uint64_t items;            /* the MFB items counter */
	uint64_t padded_items;     /* what the padded regions added to it */
	uint64_t real_items;       /* items - padded_items */
	double bytes;              /* real_items x item bytes */
	double gbps, plain_gbps;   /* NaN without a time base */
	double overstated_pct;     /* (items - real) / real x 100; NaN when real = 0 */
};

/* Everything for one reading. */
struct pt_diagnosis {
	unsigned nentries;         /* 2 x endpoints: read, write of each */
	struct pt_diag_entry *entry;
	struct pt_latency *latency; /* one per endpoint */
	unsigned ncorr;
	struct pt_corr_bus *corr;   /* the padded buses, endpoint by endpoint */
};

/*
 * Diagnose a difference (interval) or totals: every endpoint and
 * direction, the latency bounds (interval && seconds > 0 gives them in
 * ns) and the corrected buses.  metrics: a set bound to l from
 * definitions that include the built-in ones (a caller that diagnoses many
 * readings binds once), or NULL for the built-in ones bound for this call.
 * *out is allocated (pt_diag_free).  Returns 0, -EINVAL (a reading that
 * does not fit the layout, a set without the built-in metrics) or -ENOMEM.
 */
int pt_diag_analyze(const struct pt_layout *l, const struct pt_reading *r, bool interval,
		    double seconds, const struct pt_metric_set *metrics, struct pt_diagnosis **out);
void pt_diag_free(struct pt_diagnosis *d);

/* ---- a reading's metrics, evaluated once ------------------------------ */

/* What the diagnosis, and the renderers that show its figures beside it,
 * read the derived figures from. */
struct pt_diag_metrics {
	const struct pt_metric_set *set;
	struct pt_metric_set *own; /* bound here when the caller gave none */
	struct pt_metric_value *v; /* one per instance of set */
};
/* Evaluate given (bound to l, with the built-in definitions) or the
 * built-in metrics bound here.  0, -EINVAL or -ENOMEM. */
int pt_diag_metrics_open(struct pt_diag_metrics *m, const struct pt_layout *l,
			 const struct pt_metric_set *given, const struct pt_reading *r,
			 bool interval, double seconds);
void pt_diag_metrics_close(struct pt_diag_metrics *m);
/* The value of family fam (pt_metric_family_find) at w; NaN where the
 * family has no instance there. */
double pt_diag_metric(const struct pt_diag_metrics *m, int fam, struct pt_metric_where w);

/* ---- the simulated card's ground truth, as data for the renderers ---- */

#define PT_TRUTH_MAX_BUSES 34 /* RQ, RC and UP/DOWN of 16 DMA ports */

struct pt_truth_bus {
	uint64_t bytes, items, frames;
};
struct pt_truth_ep {
	double tag_hold_ns;        /* mean tag holding time; NaN without reads */
	uint64_t reads;            /* read TLPs whose tags were released */
	struct pt_truth_bus bus[PT_TRUTH_MAX_BUSES]; /* in the layout's bus order */
};
struct pt_truth {
	unsigned endpoints, buses;
	struct pt_truth_ep ep[PT_MAX_ENDPOINTS];
};

#ifdef __cplusplus
}
#endif
#endif
