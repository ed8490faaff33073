/*
 * pcie-telemetry: the whole diagnosis of a reading (every endpoint and
 * direction, the latency bounds) and the corrected throughput of the
 * buses narrower than their probe, from the metrics evaluated once.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view.h"

int diag_corr_bus(const struct fig_set *m, const struct pt_layout *l,
		  const struct pt_reading *r, unsigned ep, unsigned b, struct pt_corr_bus *out)
{
	struct fig f;

	if (pt_layout_bus_real_regions(l, b) >= pt_layout_bus_probe_regions(l, b))
		return 0;
	fig_init(&f, m, l, r, ep);
	memset(out, 0, sizeof(*out));
	out->ep = ep;
	out->bus = b;
	out->items = fig_cnt(&f, b, PT_F_ITEMS);
	out->real_items = fig_bus_count(&f, FAM_CORR_ITEMS, b, 0);
	out->padded_items = out->items > out->real_items ? out->items - out->real_items : 0;
	out->bytes = fig_bus_metric(&f, FAM_CORR_BYTES, b);
	out->gbps = fig_bus_metric(&f, FAM_CORR_GBPS, b);
	out->plain_gbps = fig_bus_metric(&f, FAM_GBPS, b);
	out->overstated_pct = fig_bus_metric(&f, FAM_OVER, b);
	return 1;
}

void pt_diag_free(struct pt_diagnosis *d)
{
	if (!d)
		return;
	free(d->entry);
	free(d->latency);
	free(d->corr);
	free(d);
}

static int corrections(const struct fig_set *m, const struct pt_layout *l,
		       const struct pt_reading *r, struct pt_diagnosis *d)
{
	d->corr = calloc((size_t)l->endpoints * l->buses + 1, sizeof(*d->corr));
	if (!d->corr)
		return -ENOMEM;
	for (unsigned ep = 0; ep < l->endpoints; ep++)
		for (unsigned b = 0; b < l->buses; b++)
			d->ncorr += (unsigned)diag_corr_bus(m, l, r, ep, b, &d->corr[d->ncorr]);
	return 0;
}

static int fill(const struct fig_set *m, const struct pt_layout *l, const struct pt_reading *r,
		bool interval, double seconds, struct pt_diagnosis *d)
{
	int rc = 0;

	d->entry = calloc((size_t)l->endpoints * PT_DIAG_DIRS + 1, sizeof(*d->entry));
	d->latency = calloc((size_t)l->endpoints + 1, sizeof(*d->latency));
	if (!d->entry || !d->latency)
		return -ENOMEM;
	for (unsigned ep = 0; rc == 0 && ep < l->endpoints; ep++) {
		for (unsigned dir = 0; rc == 0 && dir < PT_DIAG_DIRS; dir++)
			rc = diag_judge(m, l, r, ep, (enum pt_diag_dir)dir, &d->entry[d->nentries++]);
		if (rc == 0)
			rc = diag_latency(m, l, r, ep, interval, seconds, &d->latency[ep]);
	}
	return rc ? rc : corrections(m, l, r, d);
}

int pt_diag_analyze(const struct pt_layout *l, const struct pt_reading *r, bool interval,
		    double seconds, const struct pt_metric_set *metrics, struct pt_diagnosis **out)
{
	struct pt_diagnosis *d;
	struct fig_set m;
	int rc;

	if (!l || !r || !out || r->entries < pt_counter_count(l) || l->endpoints > PT_MAX_ENDPOINTS ||
	    (metrics && pt_metric_layout(metrics)->entries != l->entries))
		return -EINVAL;
	*out = NULL;
	if ((rc = fig_set_open(&m, l, metrics, r, interval, seconds)) < 0)
		return rc;
	d = calloc(1, sizeof(*d));
	rc = d ? fill(&m, l, r, interval, seconds, d) : -ENOMEM;
	fig_set_close(&m);
	if (rc < 0) {
		pt_diag_free(d);
		return rc;
	}
	*out = d;
	return 0;
}
