/*
 * pcie-telemetry: the diagnosis parts of the text and JSON renderers
 * (private to src/render/; diagnose.c).
 */
#ifndef PT_RENDER_DIAG_PRIV_H
#define PT_RENDER_DIAG_PRIV_H

#include <stdio.h>

#include "pcie_telemetry/render.h"

struct jw;

/* The diagnosis of a report's reading (pt_diag_analyze). */
int pt_render_diag_run(const struct pt_report *rep, struct pt_diagnosis **d);
/* The bottleneck section at the end of the text report. */
int pt_render_diag_text(FILE *out, const struct pt_report *rep);
/* The "diagnosis" member (and "sim_truth" when rep->truth) of the JSON
 * object open in w. */
int pt_render_diag_json(struct jw *w, const struct pt_report *rep);

/* The "diagnosis" array of rep's diagnosis d under key (entries as
 * --diagnose -j writes them). */
void pt_render_diag_entries(struct jw *w, const char *key, const struct pt_layout *l,
			    const struct pt_diagnosis *d);

/* ---- figures of one report for the comparison and the sweep (figs.c):
 * its metrics evaluated once (rep->metrics, or the built-in ones):
 * percentages of the cycles of their clock, Gbit/s with padded regions
 * removed; NaN where the report has no such thing ---------------------- */

#define PT_FIGS_FAMS 8
struct pt_render_figs {
	const struct pt_report *r;
	struct pt_diag_metrics m;
	int fam[PT_FIGS_FAMS];
};
/* 0, -EINVAL (a set without the built-in metrics) or -ENOMEM. */
int pt_render_figs_open(struct pt_render_figs *f, const struct pt_report *r);
void pt_render_figs_close(struct pt_render_figs *f);

/* field: PT_F_WORDS, PT_F_BACKPRESSURE or PT_F_MVB_BACKPRESSURE. */
double pt_render_fig_bus(const struct pt_render_figs *f, unsigned ep, unsigned b, unsigned field);
double pt_render_fig_gbps(const struct pt_render_figs *f, unsigned ep, unsigned b);
/* Reasons: the driven BRAKE reasons, then "PCIe endpoint not ready". */
unsigned pt_render_fig_reasons(const struct pt_render_figs *f);
const char *pt_render_fig_reason_label(const struct pt_render_figs *f, unsigned k,
				       char buf[PT_REGS_NAME_LEN]);
double pt_render_fig_reason(const struct pt_render_figs *f, unsigned ep, unsigned k);
double pt_render_fig_band(const struct pt_render_figs *f, unsigned ep, unsigned h, unsigned b);
/* Cells: the value in fmt or "-"; the change b - a ("%+.2f") or "-"; a
 * verdict "dma-bus (port 1)" or "-"; a holding time "2126-2258 ns" or "-". */
void pt_render_fig_cell(char *buf, size_t len, const char *fmt, double v);
void pt_render_fig_change(char *buf, size_t len, double a, double b);
void pt_render_fig_verdict(char *buf, size_t len, const struct pt_diag_entry *e);
void pt_render_fig_hold(char *buf, size_t len, const struct pt_latency *t);

#endif
