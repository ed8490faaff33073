/*
 * pcie-telemetry: the figures of one report that the comparison and the
 * sweep put side by side (diag_priv.h).  NaN where the report has no such
 * thing (another layout, no cycles, no time base).
 */
#include <math.h>
#include <stdio.h>

#include "render/diag_priv.h"
#include "render/render_priv.h"

static bool has_bus(const struct pt_report *r, unsigned ep, unsigned b)
{
	return ep < r->layout->endpoints && b < r->layout->buses;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : NAN;
}

static uint64_t bus_cycles(const struct pt_report *r, unsigned ep, unsigned b)
{
	const struct pt_layout *l = r->layout;

	return pt_render_cnt(r->reading, b < 2 ? pt_idx_pcie_cycles(l, ep) : pt_idx_dma_cycles(l, ep));
}

double pt_render_fig_bus(const struct pt_report *r, unsigned ep, unsigned b, unsigned field)
{
	if (!has_bus(r, ep, b))
		return NAN;
	return share(pt_render_cnt(r->reading, pt_idx_bus(r->layout, ep, b, field)),
		     bus_cycles(r, ep, b));
}

double pt_render_fig_gbps(const struct pt_report *r, unsigned ep, unsigned b)
{
	struct pt_corr_bus c;
	uint64_t items;

	if (!has_bus(r, ep, b) || !r->interval || !(r->seconds > 0))
		return NAN;
	if (pt_corr_bus(r->layout, r->reading, ep, b, true, r->seconds, &c) == 1)
		return c.gbps;
	items = pt_render_cnt(r->reading, pt_idx_bus(r->layout, ep, b, PT_F_ITEMS));
	return (double)items * r->layout->item_bytes * 8 / r->seconds / 1e9;
}

unsigned pt_render_fig_reasons(const struct pt_report *r)
{
	return r->layout->driven_brakes + 1;
}

const char *pt_render_fig_reason_label(const struct pt_report *r, unsigned k,
				       char buf[PT_REGS_NAME_LEN])
{
	return k < r->layout->driven_brakes ? pt_brake_label(k, buf) : PT_BRAKE_LABEL_RQ_STALL;
}

double pt_render_fig_reason(const struct pt_report *r, unsigned ep, unsigned k)
{
	const struct pt_layout *l = r->layout;
	uint64_t n;

	if (ep >= l->endpoints || k > l->driven_brakes)
		return NAN;
	n = k < l->driven_brakes ? pt_render_cnt(r->reading, pt_idx_brake(l, ep, k))
				 : pt_render_cnt(r->reading, pt_idx_bus(l, ep, 0, PT_F_BACKPRESSURE));
	return share(n, pt_render_cnt(r->reading, pt_idx_pcie_cycles(l, ep)));
}

double pt_render_fig_band(const struct pt_report *r, unsigned ep, unsigned h, unsigned b)
{
	const struct pt_layout *l = r->layout;

	if (ep >= l->endpoints || h >= l->pcie_hists || b >= l->hist_bands)
		return NAN;
	return share(pt_render_cnt(r->reading, pt_idx_hist(l, ep, h, b)),
		     pt_render_cnt(r->reading, pt_idx_pcie_cycles(l, ep)));
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
