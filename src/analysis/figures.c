/*
 * pcie-telemetry: the derived figures the diagnosis reads (figures.h),
 * from the metric engine.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/figures.h"

static const char *const fam_names[FIG_NFAMS] = {
	[FAM_WORDS] = "{bus}.words_pct",
	[FAM_STALL] = "{bus}.stall_pct",
	[FAM_MVB_STALL] = "{dma_bus}.mvb_stall_pct",
	[FAM_GBPS] = "{bus}.gbps",
	[FAM_BRAKE] = "{brake}_pct",
	[FAM_BAND] = "{band}_pct",
	[FAM_CORR_ITEMS] = "{padded_bus}.corrected_items",
	[FAM_CORR_BYTES] = "{padded_bus}.corrected_bytes",
	[FAM_CORR_GBPS] = "{padded_bus}.corrected_gbps",
	[FAM_OVER] = "{padded_bus}.overstatement_pct",
};

int pt_diag_metrics_open(struct pt_diag_metrics *m, const struct pt_layout *l,
			 const struct pt_metric_set *given, const struct pt_reading *r,
			 bool interval, double seconds)
{
	struct pt_metric_input in = { .reading = r, .interval = interval, .seconds = seconds };
	char msg[PT_METRIC_MSG_LEN];
	int rc = 0;

	m->own = NULL;
	m->v = NULL;
	m->set = given;
	if (!given && (rc = pt_metric_bind_builtin(l, &m->own, msg, sizeof msg)) < 0)
		return rc;
	if (!given)
		m->set = m->own;
	if (!(m->v = calloc(pt_metric_count(m->set) + 1, sizeof(*m->v))))
		rc = -ENOMEM;
	if (rc == 0 && (rc = pt_metric_eval(m->set, &in, m->v)) > 0)
		rc = 0; /* divisions by zero: NaN, handled where they are read */
	if (rc < 0)
		pt_diag_metrics_close(m);
	return rc;
}

void pt_diag_metrics_close(struct pt_diag_metrics *m)
{
	free(m->v);
	pt_metric_set_free(m->own);
	m->v = NULL;
	m->own = NULL;
}

double pt_diag_metric(const struct pt_diag_metrics *m, int fam, struct pt_metric_where w)
{
	int i = fam < 0 ? -1 : pt_metric_lookup(m->set, (unsigned)fam, &w);

	return i < 0 ? NAN : m->v[i].f;
}

int fig_set_open(struct fig_set *s, const struct pt_layout *l, const struct pt_metric_set *given,
		 const struct pt_reading *r, bool interval, double seconds)
{
	int rc = pt_diag_metrics_open(&s->m, l, given, r, interval, seconds);

	for (unsigned f = 0; f < FIG_NFAMS && rc == 0; f++)
		if ((s->fam[f] = pt_metric_family_find(s->m.set, fam_names[f])) < 0)
			rc = -EINVAL; /* a set without the built-in metrics */
	if (rc < 0)
		fig_set_close(s);
	return rc;
}

void fig_set_close(struct fig_set *s)
{
	pt_diag_metrics_close(&s->m);
}

/* The value of family fam at w, NaN where it has none. */
static double metric(const struct fig_set *s, enum fig_fam fam, struct pt_metric_where w)
{
	return pt_diag_metric(&s->m, s->fam[fam], w);
}

/* A percentage metric as a share, 0 where it has no value. */
static double share_of(double pct)
{
	return isfinite(pct) ? pct / 100.0 : 0;
}

void fig_init(struct fig *f, const struct fig_set *m, const struct pt_layout *l,
	      const struct pt_reading *r, unsigned ep)
{
	f->l = l;
	f->r = r;
	f->m = m;
	f->ep = ep;
	f->pcie_cycles = r->cnt[pt_idx_pcie_cycles(l, ep)];
	f->dma_cycles = r->cnt[pt_idx_dma_cycles(l, ep)];
}

uint64_t fig_cnt(const struct fig *f, unsigned b, unsigned field)
{
	return f->r->cnt[pt_idx_bus(f->l, f->ep, b, field)];
}

uint64_t fig_cycles(const struct fig *f, unsigned b)
{
	return b < 2 ? f->pcie_cycles : f->dma_cycles;
}

double fig_bus_metric(const struct fig *f, enum fig_fam fam, unsigned b)
{
	return metric(f->m, fam, (struct pt_metric_where){ (int)f->ep, (int)b, -1, -1 });
}

double fig_share(const struct fig *f, unsigned b, unsigned field)
{
	switch (field) {
	case PT_F_WORDS:
		return share_of(fig_bus_metric(f, FAM_WORDS, b));
	case PT_F_BACKPRESSURE:
		return share_of(fig_bus_metric(f, FAM_STALL, b));
	case PT_F_MVB_BACKPRESSURE:
		return b < 2 ? 0 : share_of(fig_bus_metric(f, FAM_MVB_STALL, b));
	default:
		return fig_div((double)fig_cnt(f, b, field), (double)fig_cycles(f, b));
	}
}

double fig_pcie_share(const struct fig *f, uint64_t n)
{
	return fig_div((double)n, (double)f->pcie_cycles);
}

bool fig_brake_driven(const struct fig *f, unsigned k)
{
	return k < f->l->driven_brakes;
}

double fig_brake_share(const struct fig *f, unsigned k)
{
	if (!fig_brake_driven(f, k))
		return 0;
	return share_of(metric(f->m, FAM_BRAKE, (struct pt_metric_where){ (int)f->ep, -1, (int)k, -1 }));
}

uint64_t fig_hist(const struct fig *f, unsigned h, unsigned b)
{
	if (h >= f->l->pcie_hists || b >= f->l->hist_bands)
		return 0;
	return f->r->cnt[pt_idx_hist(f->l, f->ep, h, b)];
}

double fig_hist_share(const struct fig *f, unsigned h, unsigned b)
{
	if (h >= f->l->pcie_hists || b >= f->l->hist_bands)
		return 0;
	return share_of(metric(f->m, FAM_BAND, (struct pt_metric_where){ (int)f->ep, -1, (int)h, (int)b }));
}

uint64_t fig_bus_count(const struct fig *f, enum fig_fam fam, unsigned b, uint64_t none)
{
	struct pt_metric_where w = { (int)f->ep, (int)b, -1, -1 };
	int i = pt_metric_lookup(f->m->m.set, (unsigned)f->m->fam[fam], &w);
	const struct pt_metric_value *v;

	if (i < 0)
		return none;
	v = &f->m->m.v[i];
	if (v->is_int)
		return v->i > 0 ? (uint64_t)v->i : 0;
	return v->f > 0 ? (uint64_t)v->f : 0;
}

uint64_t fig_real_items(const struct fig *f, unsigned b)
{
	return fig_bus_count(f, FAM_CORR_ITEMS, b, fig_cnt(f, b, PT_F_ITEMS));
}
