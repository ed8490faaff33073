/*
 * pcie-telemetry: what the two series formats share (docs/series.md):
 * the checks of a point, the values of its metrics, the flags.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_priv.h"

const char *const pt_series_flag_names[PT_SERIES_FLAGS] = { "lost_deltas", "readout_overrun",
							    "wrap_risk" };

bool pt_series_flag(const struct pt_series_point *p, unsigned i)
{
	switch (i) {
	case 0:
		return p->rep->reading->status & PT_STATUS_LOST_DELTAS;
	case 1:
		return p->rep->reading->status & PT_STATUS_OVERRUN;
	default:
		return p->wrap_risk;
	}
}

int pt_series_begin(const struct pt_series_point *p, struct pt_metric_value **values)
{
	*values = NULL;
	if (!p || !p->rep || !p->rep->metrics || (p->n && !p->idx) || !p->device)
		return -EINVAL;
	const struct pt_report *rep = p->rep;
	const struct pt_metric_set *s = rep->metrics;
	int rc = pt_render_check(rep->layout, rep->reading);
	if (rc)
		return rc;
	if (rep->reading->entries < pt_counter_count(rep->layout) ||
	    memcmp(pt_metric_layout(s)->cfg, rep->layout->cfg, sizeof rep->layout->cfg) != 0)
		return -EINVAL;
	for (unsigned k = 0; k < p->n; k++)
		if (p->idx[k] >= pt_metric_count(s))
			return -EINVAL;
	struct pt_metric_value *v = malloc((pt_metric_count(s) + 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	const struct pt_metric_input in = { rep->reading, rep->interval, rep->seconds };
	rc = pt_metric_eval(s, &in, v);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*values = v;
	return 0;
}

enum pt_series_num pt_series_value(const struct pt_metric_info *in,
				   const struct pt_metric_value *v, bool bounded, char *buf,
				   size_t len)
{
	const __int128 lo = -((__int128)1 << 63), hi = (__int128)1 << 64;

	if (bounded && v->is_int && (v->i < lo || v->i >= hi)) {
		pt_render_float_repr(v->f, buf, len);
		return PT_SERIES_NUMBER;
	}
	if (!v->is_int && isnan(v->f)) {
		buf[0] = '\0';
		return PT_SERIES_NAN;
	}
	if (!v->is_int && isinf(v->f)) {
		snprintf(buf, len, "%s", v->f < 0 ? "-inf" : "inf");
		return PT_SERIES_INF;
	}
	pt_metric_format(in, v, buf, len);
	return PT_SERIES_NUMBER;
}
