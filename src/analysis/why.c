/*
 * pcie-telemetry: the "why" line of a diagnosis entry: the figures the
 * judgement rests on, in the words of the report.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/view.h"

static double pct(double x)
{
	return 100.0 * x;
}

/* The evidence of cause c with the largest share, or NULL. */
static const struct pt_diag_evidence *top_evidence(const struct pt_diag_entry *e,
						   enum pt_diag_cause c)
{
	const struct pt_diag_evidence *best = NULL;

	for (unsigned i = 0; i < e->nevidence; i++)
		if (e->evidence[i].cause == c && (!best || e->evidence[i].share > best->share))
			best = &e->evidence[i];
	return best;
}

static void why_dma(const struct view *v, struct pt_diag_entry *e)
{
	unsigned b = e->dir == PT_DIAG_READ ? fig_down((unsigned)e->port) : fig_up((unsigned)e->port);
	const char *bus = e->dir == PT_DIAG_READ ? "DOWN" : "UP";
	double w = fig_share(&v->f, b, PT_F_WORDS);

	if (e->bottleneck == PT_CAUSE_DMA_BUS) {
		const struct pt_layout *l = v->f.l;
		unsigned regions = pt_layout_bus_real_regions(l, b);

		snprintf(e->why, sizeof e->why,
			 "%s%d, a word of %u region%s x %u B, moved one in %.2f %% of the DMA cycles",
			 bus, e->port, regions, regions == 1 ? "" : "s",
			 l->region_bytes[pt_layout_bus_kind(l, b)], pct(w));
	} else {
		snprintf(e->why, sizeof e->why,
			 "the DMA refused DOWN%d in %.2f %% of its cycles (it moved %.2f %%); "
			 "the PTC held the DOWN stream %.2f %%",
			 e->port, pct(view_consumer(v, (unsigned)e->port)), pct(w),
			 pct(v->down_held));
	}
}

static void why_link(const struct view *v, struct pt_diag_entry *e)
{
	if (v->rc_full && e->dir == PT_DIAG_READ)
		snprintf(e->why, sizeof e->why,
			 "RC moved a word in %.2f %% of the PCIe cycles; the reads waited %.2f %%",
			 pct(v->rc_w), pct(v->up_held));
	else if (v->rq_w >= PT_DIAG_SAT)
		snprintf(e->why, sizeof e->why, "RQ moved a word in %.2f %% of the PCIe cycles",
			 pct(v->rq_w));
	else
		snprintf(e->why, sizeof e->why,
			 "RQ had data in %.2f %% of the PCIe cycles and the endpoint refused it "
			 "%.2f %%",
			 pct(v->rq_w + v->rq_s), pct(v->rq_s));
}

/* A stall cause: its largest evidence and its share of the direction. */
static void why_stall(const struct view *v, struct pt_diag_entry *e)
{
	const struct pt_diag_evidence *x = top_evidence(e, e->bottleneck);
	const char *held = e->dir == PT_DIAG_READ ? "the reads" : "the writes";

	if (!x) {
		snprintf(e->why, sizeof e->why,
			 "%s waited %.2f %% of the cycles without a counted reason", held,
			 pct(e->stalled));
		return;
	}
	snprintf(e->why, sizeof e->why, "%s %.2f %% of the %s cycles; %s stalled %.2f %%",
		 x->what, pct(x->share), x->pcie_clock ? "PCIe" : "DMA", held,
		 pct(e->stalled));
	if (e->bottleneck == PT_CAUSE_PCIE_TAGS && x->share > 0 && v->tags_empty > 0) {
		size_t n = strlen(e->why);

		snprintf(e->why + n, sizeof e->why - n, ", no tag free %.2f %%",
			 pct(v->tags_empty));
	}
}

static void why_source(const struct view *v, struct pt_diag_entry *e)
{
	if (e->dir == PT_DIAG_READ)
		snprintf(e->why, sizeof e->why,
			 "no bus is full; the DMA's requests waited %.2f %% (UP MVB) and the "
			 "reads were held %.2f %% of the PCIe cycles",
			 pct(v->up.mvb_backlog), pct(v->up_held));
	else
		snprintf(e->why, sizeof e->why,
			 "no bus is full; UP had write data in %.2f %% of the DMA cycles (of "
			 "which stalled %.2f %%)",
			 pct(v->up.backlog), pct(v->up.s_mean));
}

void diag_why(const struct view *v, struct pt_diag_entry *e)
{
	switch (e->bottleneck) {
	case PT_CAUSE_IDLE:
	case PT_CAUSE_LINK_DOWN:
		break; /* said where they were found */
	case PT_CAUSE_SOURCE:
		why_source(v, e);
		break;
	case PT_CAUSE_DMA_BUS:
	case PT_CAUSE_DMA_CONSUMER:
		if (e->port >= 0) {
			why_dma(v, e);
			break;
		}
		why_stall(v, e);
		break;
	case PT_CAUSE_PCIE_LINK:
		why_link(v, e);
		break;
	default:
		why_stall(v, e);
		break;
	}
}
