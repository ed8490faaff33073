/*
 * pcie-telemetry: the figures of one report that the comparison and the
 * sweep put side by side (diag_priv.h), from the metric engine: the
 * report's own cells (shares, Gbit/s, reasons, bands), with Gbit/s
 * corrected where a bus is padded.  NaN where the report has no such
 * thing (another layout, no cycles, no time base).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "render/diag_priv.h"
#include "render/render_priv.h"

static const char *const fam_names[PT_FIGS_FAMS] = {
	"{bus}.words_pct",	     "{bus}.stall_pct",	  "{dma_bus}.mvb_stall_pct",
	"{bus}.gbps",		     "{padded_bus}.corrected_gbps", "{brake}_pct",
	"{ep}.brake.endpoint_not_ready_pct", "{band}_pct",
};
enum { F_WORDS, F_STALL, F_MVB_STALL, F_GBPS, F_CORR_GBPS, F_BRAKE, F_RQ_STALL, F_BAND };

int pt_render_figs_open(struct pt_render_figs *f, const struct pt_report *r)
{
	int rc = pt_diag_metrics_open(&f->m, r->layout, r->metrics, r->reading, r->interval,
				      r->seconds);

	f->r = r;
	for (unsigned i = 0; i < PT_FIGS_FAMS && rc == 0; i++)
		if ((f->fam[i] = pt_metric_family_find(f->m.set, fam_names[i])) < 0)
			rc = -EINVAL;
	if (rc < 0)
		pt_render_figs_close(f);
	return rc;
}

void pt_render_figs_close(struct pt_render_figs *f)
{
	pt_diag_metrics_close(&f->m);
}

static double value(const struct pt_render_figs *f, unsigned fam, int ep, int bus, int item,
		    int band)
{
	return pt_diag_metric(&f->m, f->fam[fam], (struct pt_metric_where){ ep, bus, item, band });
}

double pt_render_fig_bus(const struct pt_render_figs *f, unsigned ep, unsigned b, unsigned field)
{
	unsigned fam = field == PT_F_WORDS ? F_WORDS : field == PT_F_BACKPRESSURE ? F_STALL : F_MVB_STALL;

	return value(f, fam, (int)ep, (int)b, -1, -1);
}

double pt_render_fig_gbps(const struct pt_render_figs *f, unsigned ep, unsigned b)
{
	double c = value(f, F_CORR_GBPS, (int)ep, (int)b, -1, -1);

	return isnan(c) ? value(f, F_GBPS, (int)ep, (int)b, -1, -1) : c;
}

unsigned pt_render_fig_reasons(const struct pt_render_figs *f)
{
	return f->r->layout->driven_brakes + 1;
}

const char *pt_render_fig_reason_label(const struct pt_render_figs *f, unsigned k,
				       char buf[PT_REGS_NAME_LEN])
{
	return k < f->r->layout->driven_brakes ? pt_brake_label(k, buf) : PT_BRAKE_LABEL_RQ_STALL;
}

double pt_render_fig_reason(const struct pt_render_figs *f, unsigned ep, unsigned k)
{
	const struct pt_layout *l = f->r->layout;

	if (k < l->driven_brakes)
		return value(f, F_BRAKE, (int)ep, -1, (int)k, -1);
	return k == l->driven_brakes ? value(f, F_RQ_STALL, (int)ep, -1, -1, -1) : NAN;
}

double pt_render_fig_band(const struct pt_render_figs *f, unsigned ep, unsigned h, unsigned b)
{
	return value(f, F_BAND, (int)ep, -1, (int)h, (int)b);
}

void pt_render_fig_cell(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

void pt_render_fig_change(char *buf, size_t len, double a, double b)
{
	if (isnan(a) || isnan(b))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.2f", b - a);
}

void pt_render_fig_verdict(char *buf, size_t len, const struct pt_diag_entry *e)
{
	if (!e)
		snprintf(buf, len, "-");
	else if (e->port >= 0)
		snprintf(buf, len, "%s (port %d)", pt_diag_cause_name(e->bottleneck), e->port);
	else
		snprintf(buf, len, "%s", pt_diag_cause_name(e->bottleneck));
}

void pt_render_fig_hold(char *buf, size_t len, const struct pt_latency *t)
{
	if (!t || !t->valid)
		snprintf(buf, len, "-");
	else if (t->have_ns && t->hi_bounded)
		snprintf(buf, len, "%.0f-%.0f ns", t->lo_ns, t->hi_ns);
	else if (t->have_ns)
		snprintf(buf, len, ">= %.0f ns", t->lo_ns);
	else if (t->hi_bounded)
		snprintf(buf, len, "%.0f-%.0f cycles", t->lo_cycles, t->hi_cycles);
	else
		snprintf(buf, len, ">= %.0f cycles", t->lo_cycles);
}
