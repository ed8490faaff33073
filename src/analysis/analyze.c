/*
 * pcie-telemetry: the whole diagnosis of a reading (every endpoint and
 * direction, the latency bounds) and the corrected throughput of the
 * buses narrower than their probe.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/figures.h"
#include "pcie_telemetry/diagnose.h"

int pt_corr_bus(const struct pt_layout *l, const struct pt_reading *r, unsigned ep, unsigned b,
		bool interval, double seconds, struct pt_corr_bus *out)
{
	struct fig f;

	if (!l || !r || !out || ep >= l->endpoints || b >= l->buses ||
	    r->entries < pt_counter_count(l))
		return -EINVAL;
	if (pt_layout_bus_real_regions(l, b) >= pt_layout_bus_probe_regions(l, b))
		return 0;
	fig_init(&f, l, r, ep);
	memset(out, 0, sizeof(*out));
	out->ep = ep;
	out->bus = b;
	out->items = fig_cnt(&f, b, PT_F_ITEMS);
	out->padded_items = fig_padded_items(&f, b);
	out->real_items = fig_real_items(&f, b);
	out->bytes = (double)out->real_items * l->item_bytes;
	out->gbps = out->plain_gbps = NAN;
	if (interval && seconds > 0) {
		out->gbps = out->bytes * 8 / seconds / 1e9;
		out->plain_gbps = (double)out->items * l->item_bytes * 8 / seconds / 1e9;
	}
	out->overstated_pct = out->real_items
				      ? 100.0 * (double)(out->items - out->real_items) /
						(double)out->real_items
				      : NAN;
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

static int corrections(const struct pt_layout *l, const struct pt_reading *r, bool interval,
		       double seconds, struct pt_diagnosis *d)
{
	d->corr = calloc((size_t)l->endpoints * l->buses, sizeof(*d->corr));
	if (!d->corr)
		return -ENOMEM;
	for (unsigned ep = 0; ep < l->endpoints; ep++)
		for (unsigned b = 0; b < l->buses; b++) {
			int rc = pt_corr_bus(l, r, ep, b, interval, seconds, &d->corr[d->ncorr]);

			if (rc < 0)
				return rc;
			d->ncorr += (unsigned)rc;
		}
	return 0;
}

int pt_diag_analyze(const struct pt_layout *l, const struct pt_reading *r, bool interval,
		    double seconds, struct pt_diagnosis **out)
{
	struct pt_diagnosis *d;
	int rc = 0;

	if (!l || !r || !out || r->entries < pt_counter_count(l) || l->endpoints > PT_MAX_ENDPOINTS)
		return -EINVAL;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->entry = calloc((size_t)l->endpoints * PT_DIAG_DIRS, sizeof(*d->entry));
	d->latency = calloc(l->endpoints ? l->endpoints : 1, sizeof(*d->latency));
	if (!d->entry || !d->latency)
		rc = -ENOMEM;
	for (unsigned ep = 0; rc == 0 && ep < l->endpoints; ep++) {
		for (unsigned dir = 0; rc == 0 && dir < PT_DIAG_DIRS; dir++)
			rc = pt_diag_judge(l, r, ep, (enum pt_diag_dir)dir,
					   &d->entry[d->nentries++]);
		if (rc == 0)
			rc = pt_latency_bounds(l, r, ep, interval, seconds, &d->latency[ep]);
	}
	if (rc == 0)
		rc = corrections(l, r, interval, seconds, d);
	if (rc < 0) {
		pt_diag_free(d);
		return rc;
	}
	*out = d;
	return 0;
}
