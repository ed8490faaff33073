/*
 * pcie-telemetry: metrics as text (docs/metrics.md): the chosen metrics of
 * a report as a table (the tool's -M), and every counter and metric of a
 * layout (--list), in the report's table style.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_priv.h"

static const char *const metric_headers[] = { "metric", "value", "unit" };

/* The rows of the chosen instances, and the notes of their values. */
static int metric_rows(FILE *out, const struct pt_metric_set *s, const struct pt_metric_value *v,
		       const unsigned *idx, unsigned n)
{
	struct pt_table t;
	char value[400], note[PT_METRIC_MSG_LEN];
	int rc;

	pt_table_init(&t, 3, metric_headers);
	for (unsigned k = 0; k < n; k++) {
		const struct pt_metric_info *in = pt_metric_info(s, idx[k]);
		pt_metric_format(in, &v[idx[k]], value, sizeof value);
		const char *row[3] = { in->name, value, in->unit };
		pt_table_add_row(&t, row);
	}
	rc = pt_table_write(out, &t);
	pt_table_free(&t);
	for (unsigned k = 0; k < n && rc == 0; k++)
		if (pt_metric_note(s, idx[k], &v[idx[k]], note, sizeof note) == 0)
			fprintf(out, "note: %s\n", note);
	return rc ? rc : pt_render_stream_status(out);
}

int pt_render_metrics(FILE *out, const struct pt_report *rep, const unsigned *idx, unsigned n)
{
	if (!out || !rep || !rep->metrics || (n && !idx))
		return -EINVAL;
	const struct pt_metric_set *s = rep->metrics;
	int rc = pt_render_check(rep->layout, rep->reading);
	if (rc)
		return rc;
	if (memcmp(pt_metric_layout(s)->cfg, rep->layout->cfg, sizeof rep->layout->cfg) != 0)
		return -EINVAL;
	for (unsigned k = 0; k < n; k++)
		if (idx[k] >= pt_metric_count(s))
			return -EINVAL;
	struct pt_metric_value *v = malloc((pt_metric_count(s) + 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	const struct pt_metric_input in = { rep->reading, rep->interval, rep->seconds };
	rc = pt_metric_eval(s, &in, v);
	bool seconds_set = rep->interval && rep->seconds != 0.0;
	if (rc >= 0 && (rc = pt_render_text_header(out, rep->layout, rep->reading, seconds_set,
						   rep->seconds)) == 0) {
		fputc('\n', out);
		rc = metric_rows(out, s, v, idx, n);
	}
	free(v);
	return rc;
}

static int counter_table(FILE *out, const struct pt_layout *l)
{
	char name[PT_COUNTER_NAME_LEN], desc[PT_COUNTER_DESC_LEN];
	struct pt_table t;

	fputs("Counters of this layout (docs/counters.md):\n", out);
	pt_table_init(&t, 3, NULL);
	for (unsigned i = 0; i < pt_counter_count(l); i++) {
		if (pt_counter_name(l, i, name, sizeof name) < 0 ||
		    pt_counter_description(l, i, desc, sizeof desc) < 0) {
			pt_table_free(&t);
			return -EINVAL;
		}
		const char *row[3] = { name, pt_counter_unit(l, i), desc };
		pt_table_add_row(&t, row);
	}
	int rc = pt_table_write(out, &t);
	pt_table_free(&t);
	return rc;
}

int pt_render_list(FILE *out, const struct pt_metric_set *s)
{
	struct pt_table t;

	if (!out || !s)
		return -EINVAL;
	int rc = counter_table(out, pt_metric_layout(s));
	if (rc)
		return rc;
	fputs("\nMetrics of this layout (docs/metrics.md):\n", out);
	pt_table_init(&t, 3, NULL);
	for (unsigned i = 0; i < pt_metric_count(s); i++) {
		const struct pt_metric_info *in = pt_metric_info(s, i);
		const char *row[3] = { in->name, in->unit, in->description };
		pt_table_add_row(&t, row);
	}
	rc = pt_table_write(out, &t);
	pt_table_free(&t);
	return rc ? rc : pt_render_stream_status(out);
}
