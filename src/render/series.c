/*
 * pcie-telemetry: what the two series formats share (docs/series.md):
 * the checks of a point, the values of its metrics, the flags.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

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

int pt_series_begin(FILE *out, const struct pt_series_point *p, struct pt_metric_value **values,
		    struct pt_render_locale *loc)
{
	*values = NULL;
	if (!out || !p || !p->rep || !p->device || !p->rep->layout || !p->rep->reading)
		return -EINVAL;
	if (p->rep->reading->entries < pt_counter_count(p->rep->layout))
		return -EINVAL;
	int rc = pt_render_eval(p->rep, p->idx, p->n, values);
	if (rc < 0)
		return rc;
	if (pt_render_c_locale_enter(loc) < 0) {
		free(*values);
		*values = NULL;
		return -ENOMEM;
	}
	return 0;
}

void pt_series_end(struct pt_metric_value *values, struct pt_render_locale *loc)
{
	pt_render_c_locale_leave(loc);
	free(values);
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
