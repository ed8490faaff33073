/*
 * pcie-telemetry: a series as JSON lines (docs/series.md): a first line
 * that says what the run is, then one compact JSON object per interval,
 * each printed whole with its newline.  Strict JSON: a value that is not
 * a finite number is null.
 */
#include <errno.h>
#include <stdlib.h>

#include "render/jw.h"
#include "render/render_priv.h"

int pt_render_jsonl_header(FILE *out, const struct pt_series_info *info,
			   const struct pt_metric_set *s, const unsigned *idx, unsigned n, bool raw)
{
	struct jw w = { .out = out, .compact = true };
	struct pt_render_locale loc;
	char name[PT_COUNTER_NAME_LEN];

	if (!out || !info || !s || (n && !idx) || !info->device || (info->argc && !info->argv))
		return -EINVAL;
	for (unsigned k = 0; k < n; k++)
		if (idx[k] >= pt_metric_count(s))
			return -EINVAL;
	if (pt_render_c_locale_enter(&loc) < 0)
		return -ENOMEM;
	const struct pt_layout *l = pt_metric_layout(s);
	jw_open(&w, NULL, '{');
	jw_str(&w, "tool", "nfb-pcie-telemetry");
	jw_str(&w, "version", info->tool_version ? info->tool_version : "");
	jw_open(&w, "command", '[');
	for (int i = 0; i < info->argc; i++)
		jw_str(&w, NULL, info->argv[i] ? info->argv[i] : "");
	jw_close(&w);
	jw_str(&w, "device", info->device);
	if (info->source)
		jw_str(&w, "source", info->source);
	jw_str(&w, "clock", info->unix_time ? "unix" : "device");
	pt_render_json_config(&w, "config", l);
	jw_open(&w, "units", '{');
	for (unsigned k = 0; k < n; k++) {
		const struct pt_metric_info *in = pt_metric_info(s, idx[k]);
		jw_str(&w, in->name, in->unit);
	}
	for (unsigned i = 0; raw && i < pt_counter_count(l); i++) {
		pt_counter_name(l, i, name, sizeof name);
		jw_str(&w, name, pt_counter_unit(l, i));
	}
	jw_close(&w);
	jw_close(&w);
	fputc('\n', out);
	pt_render_c_locale_leave(&loc);
	return w.overflow ? -EINVAL : pt_render_stream_status(out);
}

static void jsonl_metrics(struct jw *w, const struct pt_series_point *p,
			  const struct pt_metric_value *v)
{
	char num[400];

	jw_open(w, "metrics", '{');
	for (unsigned k = 0; k < p->n; k++) {
		const struct pt_metric_info *in = pt_metric_info(p->rep->metrics, p->idx[k]);

		if (pt_series_value(in, &v[p->idx[k]], false, num, sizeof num) == PT_SERIES_NUMBER)
			jw_raw(w, in->name, num);
		else
			jw_null(w, in->name);
	}
	jw_close(w);
}

static void jsonl_counters(struct jw *w, const struct pt_layout *l, const struct pt_reading *r)
{
	char name[PT_COUNTER_NAME_LEN];

	jw_open(w, "counters", '{');
	for (unsigned i = 0; i < pt_counter_count(l); i++) {
		pt_counter_name(l, i, name, sizeof name);
		jw_u64(w, name, pt_render_cnt(r, i));
	}
	jw_close(w);
}

int pt_render_jsonl(FILE *out, const struct pt_series_point *p)
{
	struct jw w = { .out = out, .compact = true };
	struct pt_render_locale loc;
	struct pt_metric_value *v;

	int rc = pt_series_begin(out, p, &v, &loc);
	if (rc < 0)
		return rc;
	const struct pt_report *rep = p->rep;
	jw_open(&w, NULL, '{');
	jw_number(&w, "time", p->time);
	if (rep->interval)
		jw_number(&w, "interval_s", rep->seconds);
	else
		jw_null(&w, "interval_s");
	jw_open(&w, "flags", '{');
	for (unsigned i = 0; i < PT_SERIES_FLAGS; i++)
		jw_bool(&w, pt_series_flag_names[i], pt_series_flag(p, i));
	jw_close(&w);
	jsonl_metrics(&w, p, v);
	if (p->raw) {
		jsonl_counters(&w, rep->layout, rep->reading);
		pt_render_json_data(&w, "data", rep->layout, rep->reading);
	}
	jw_close(&w);
	fputc('\n', out);
	pt_series_end(v, &loc);
	return w.overflow ? -EINVAL : pt_render_stream_status(out);
}
