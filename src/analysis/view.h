/*
 * pcie-telemetry: what the diagnosis reads of one endpoint (private to
 * src/analysis/): every share it judges by, computed once from the
 * figures (figures.h).  Shares are of the cycles of their own clock.
 */
#ifndef PT_ANALYSIS_VIEW_H
#define PT_ANALYSIS_VIEW_H

#include <stdbool.h>

#include "analysis/figures.h"
#include "pcie_telemetry/diagnose.h"

/* One side of the DMA buses (UP or DOWN), over the ports. */
struct view_side {
	double w_mean, s_mean;     /* words, MFB stall: mean over the ports */
	double c_mean;             /* DOWN: the DMA refused (consumer), mean */
	double mvb_s_mean;         /* MVB stall, mean */
	int sat_port;              /* the port with the most words if >= SAT, else -1 */
	double sat_w;
	int busy_port;             /* the port with the largest words + refusals */
	double busy;               /* ... and that share */
	int cons_port;             /* the port the DMA refused most (DOWN) */
	double cons_max;
	double backlog;            /* UP: the most backed-up port's busy share */
	double mvb_backlog;        /* UP: MVB stall + MVB moving, the largest */
	bool mvb_counted;          /* UP: the firmware counts the requests' MVB */
	int backlog_port;
};

struct view {
	struct fig f;
	bool measured;             /* both clocks counted cycles */
	bool link_up;
	bool reads, writes;        /* any read or write traffic */
	unsigned ports;
	double rq_w, rq_s, rc_w;
	bool rq_busy, rc_full;
	double reason[PT_BRAKE_NAMED]; /* named reasons (0 when not driven) */
	double other;              /* the largest unnamed reason (k >= 6) */
	unsigned other_k;
	double up_held;            /* UP-stream reasons + RQ stall, at most 1 */
	double down_held;          /* the PTC held DOWN: the larger of reasons 4, 5 */
	double tags_empty;         /* tag histogram: band none */
	double st_low;             /* storage FIFO histogram: none + <= 1/8 */
	struct view_side up, down;
	enum pt_diag_cause down_cause; /* dma-bus, dma-consumer, or idle for none */
};

/* The view of endpoint ep (the reading was checked against the layout). */
void view_init(struct view *v, const struct fig_set *m, const struct pt_layout *l,
	       const struct pt_reading *r, unsigned ep);

/* Consumer refusal of DOWN port p: the share of DMA cycles in which the
 * DMA side did not take data that was there. */
double view_consumer(const struct view *v, unsigned p);

/* The entry's why line, from its bottleneck and evidence (why.c). */
void diag_why(const struct view *v, struct pt_diag_entry *e);

/* What pt_diag_analyze fills, one part at a time, from the evaluated
 * metrics m of the reading (diagnose.c, latency.c, analyze.c). */
int diag_judge(const struct fig_set *m, const struct pt_layout *l, const struct pt_reading *r,
	       unsigned ep, enum pt_diag_dir dir, struct pt_diag_entry *out);
int diag_latency(const struct fig_set *m, const struct pt_layout *l, const struct pt_reading *r,
		 unsigned ep, bool interval, double seconds, struct pt_latency *out);
/* 0 when bus b of ep is not padded (nothing written), 1 when it is. */
int diag_corr_bus(const struct fig_set *m, const struct pt_layout *l,
		  const struct pt_reading *r, unsigned ep, unsigned b, struct pt_corr_bus *out);

#endif
