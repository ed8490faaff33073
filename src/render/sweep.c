/*
 * pcie-telemetry: --sweep, one column per value of a scenario key
 * (render.h): throughput per bus, the main reasons, the bottlenecks and the
 * tag holding time of each run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/diag_priv.h"
#include "render/jw.h"
#include "render/render_priv.h"

#define CELL 64
#define MAIN_REASON 1.0 /* % of the PCIe cycles in some column */

struct sweep_ctx {
	const struct pt_sweep *s;
	struct pt_diagnosis **d;     /* one per column */
	struct pt_render_figs *f;    /* one per column */
	unsigned eps, buses, reasons;
	const struct pt_render_figs *widest; /* the column with the most reasons */
};

static unsigned umax(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

static int sweep_init(struct sweep_ctx *x, const struct pt_sweep *s)
{
	memset(x, 0, sizeof(*x));
	x->s = s;
	if (!s || !s->n || !s->reps || !s->values || !s->key)
		return -EINVAL;
	x->d = calloc(s->n, sizeof(*x->d));
	x->f = calloc(s->n, sizeof(*x->f));
	if (!x->d || !x->f)
		return -ENOMEM;
	for (unsigned i = 0; i < s->n; i++) {
		const struct pt_report *r = &s->reps[i];
		int rc = r->layout && r->reading ? pt_render_check(r->layout, r->reading) : -EINVAL;

		if (rc == 0)
			rc = pt_render_figs_open(&x->f[i], r);
		if (rc == 0)
			rc = pt_render_diag_run(r, &x->d[i]);
		if (rc)
			return rc;
		x->eps = umax(x->eps, r->layout->endpoints);
		x->buses = umax(x->buses, r->layout->buses);
		if (!x->widest || pt_render_fig_reasons(&x->f[i]) > pt_render_fig_reasons(x->widest))
			x->widest = &x->f[i];
	}
	x->reasons = pt_render_fig_reasons(x->widest);
	return 0;
}

static void sweep_free(struct sweep_ctx *x)
{
	for (unsigned i = 0; x->s && i < x->s->n; i++) {
		if (x->d)
			pt_diag_free(x->d[i]);
		if (x->f)
			pt_render_figs_close(&x->f[i]);
	}
	free(x->d);
	free(x->f);
}

/* Reason k of a column: the RQ stall is the last reason of every layout. */
static double reason_of(const struct pt_render_figs *f, unsigned ep, unsigned k, unsigned reasons)
{
	unsigned n = pt_render_fig_reasons(f);

	if (k == reasons - 1)
		return pt_render_fig_reason(f, ep, n - 1);
	return k < n - 1 ? pt_render_fig_reason(f, ep, k) : NAN;
}

static bool main_reason(const struct sweep_ctx *x, unsigned ep, unsigned k)
{
	for (unsigned i = 0; i < x->s->n; i++)
		if (reason_of(&x->f[i], ep, k, x->reasons) >= MAIN_REASON)
			return true;
	return false;
}

static const struct pt_layout *bus_owner(const struct sweep_ctx *x, unsigned ep, unsigned b)
{
	for (unsigned i = 0; i < x->s->n; i++) {
		const struct pt_layout *l = x->s->reps[i].layout;

		if (ep < l->endpoints && b < l->buses)
			return l;
	}
	return NULL;
}

static const struct pt_diag_entry *entry_of(const struct pt_diagnosis *d, unsigned ep,
					    unsigned dir)
{
	return ep * PT_DIAG_DIRS + dir < d->nentries ? &d->entry[ep * PT_DIAG_DIRS + dir] : NULL;
}

/* ---- text ------------------------------------------------------------------------ */

/* One row: the label, then a cell per column from fill(). */
typedef void (*cell_fn)(const struct sweep_ctx *x, unsigned col, unsigned ep, unsigned arg,
			char *buf);

static void add_row(struct pt_table *t, const struct sweep_ctx *x, const char *label, cell_fn fill,
		    unsigned ep, unsigned arg)
{
	const char **row = calloc(1 + x->s->n, sizeof(*row));
	char(*cells)[CELL] = calloc(x->s->n, sizeof(*cells));

	if (!row || !cells) {
		t->failed = true;
	} else {
		row[0] = label;
		for (unsigned i = 0; i < x->s->n; i++) {
			fill(x, i, ep, arg, cells[i]);
			row[1 + i] = cells[i];
		}
		pt_table_add_row(t, row);
	}
	free(row);
	free(cells);
}

static void cell_gbps(const struct sweep_ctx *x, unsigned col, unsigned ep, unsigned b, char *buf)
{
	const struct pt_render_figs *f = &x->f[col];
	double v = x->s->reps[col].interval ? pt_render_fig_gbps(f, ep, b) : NAN;

	if (!x->s->reps[col].interval) /* totals: the share of words */
		v = pt_render_fig_bus(f, ep, b, PT_F_WORDS);
	pt_render_fig_cell(buf, CELL, "%.2f", v);
}

static void cell_reason(const struct sweep_ctx *x, unsigned col, unsigned ep, unsigned k, char *buf)
{
	pt_render_fig_cell(buf, CELL, "%.2f", reason_of(&x->f[col], ep, k, x->reasons));
}

static void cell_verdict(const struct sweep_ctx *x, unsigned col, unsigned ep, unsigned dir,
			 char *buf)
{
	pt_render_fig_verdict(buf, CELL, entry_of(x->d[col], ep, dir));
}

static void cell_hold(const struct sweep_ctx *x, unsigned col, unsigned ep, unsigned arg, char *buf)
{
	(void)arg;
	pt_render_fig_hold(buf, CELL,
			   ep < x->s->reps[col].layout->endpoints ? &x->d[col]->latency[ep] : NULL);
}

static void endpoint_rows(struct pt_table *t, const struct sweep_ctx *x, unsigned ep)
{
	bool rate = x->s->reps[0].interval && x->s->reps[0].seconds > 0;
	char label[128], name[64], buf[PT_REGS_NAME_LEN];

	for (unsigned b = 0; b < x->buses; b++) {
		const struct pt_layout *l = bus_owner(x, ep, b);

		if (!l)
			continue;
		pt_layout_bus_name(l, b, name, sizeof name);
		snprintf(label, sizeof label, "ep%u %s %s", ep, name, rate ? "Gbps" : "Words %");
		add_row(t, x, label, cell_gbps, ep, b);
	}
	for (unsigned k = 0; k < x->reasons; k++) {
		if (!main_reason(x, ep, k))
			continue;
		snprintf(label, sizeof label, "ep%u %s %%", ep,
			 k == x->reasons - 1 ? PT_BRAKE_LABEL_RQ_STALL
					     : pt_render_fig_reason_label(x->widest, k, buf));
		add_row(t, x, label, cell_reason, ep, k);
	}
	for (unsigned dir = 0; dir < PT_DIAG_DIRS; dir++) {
		snprintf(label, sizeof label, "ep%u %s bottleneck", ep,
			 pt_diag_dir_name((enum pt_diag_dir)dir));
		add_row(t, x, label, cell_verdict, ep, dir);
	}
	snprintf(label, sizeof label, "ep%u tag holding time", ep);
	add_row(t, x, label, cell_hold, ep, 0);
}

int pt_render_sweep_text(FILE *out, const struct pt_sweep *s)
{
	struct sweep_ctx x;
	const char **hdr = NULL;
	struct pt_table t;
	int rc = out ? sweep_init(&x, s) : -EINVAL;

	if (rc == 0 && !(hdr = calloc(1 + s->n, sizeof(*hdr))))
		rc = -ENOMEM;
	if (rc) {
		if (out)
			sweep_free(&x);
		return rc;
	}
	hdr[0] = s->key;
	for (unsigned i = 0; i < s->n; i++)
		hdr[1 + i] = s->values[i];
	if (s->reps[0].interval && s->reps[0].seconds > 0)
		fprintf(out, "Sweep of %s on %s, %.3f s each\n\n", s->key, s->device ? s->device : "sim",
			s->reps[0].seconds);
	else
		fprintf(out, "Sweep of %s on %s, totals\n\n", s->key, s->device ? s->device : "sim");
	pt_table_init(&t, 1 + s->n, hdr);
	for (unsigned ep = 0; ep < x.eps; ep++)
		endpoint_rows(&t, &x, ep);
	rc = pt_table_write(out, &t);
	pt_table_free(&t);
	free(hdr);
	sweep_free(&x);
	return rc ? rc : pt_render_stream_status(out);
}

/* ---- JSON ------------------------------------------------------------------------- */

static void json_run_endpoint(struct jw *w, const struct sweep_ctx *x, unsigned col, unsigned ep)
{
	const struct pt_report *r = &x->s->reps[col];
	const struct pt_render_figs *f = &x->f[col];
	char name[64], buf[PT_REGS_NAME_LEN];

	jw_open(w, NULL, '{');
	jw_u64(w, "index", ep);
	jw_open(w, "gbps", '{');
	for (unsigned b = 0; b < r->layout->buses; b++) {
		pt_layout_bus_name(r->layout, b, name, sizeof name);
		jw_number(w, name, pt_render_fig_gbps(f, ep, b));
	}
	jw_close(w);
	jw_open(w, "reasons_pct", '{');
	for (unsigned k = 0; k < pt_render_fig_reasons(f); k++)
		jw_number(w, pt_render_fig_reason_label(f, k, buf), pt_render_fig_reason(f, ep, k));
	jw_close(w);
	jw_open(w, "bottleneck", '{');
	for (unsigned dir = 0; dir < PT_DIAG_DIRS; dir++) {
		const struct pt_diag_entry *e = entry_of(x->d[col], ep, dir);

		jw_str(w, pt_diag_dir_name((enum pt_diag_dir)dir), pt_diag_cause_name(e->bottleneck));
	}
	jw_close(w);
	jw_close(w);
}

int pt_render_sweep_json(FILE *out, const struct pt_sweep *s)
{
	struct sweep_ctx x;
	struct jw w = { .out = out };
	int rc = out ? sweep_init(&x, s) : -EINVAL;

	if (rc) {
		if (out)
			sweep_free(&x);
		return rc;
	}
	jw_open(&w, NULL, '{');
	jw_str(&w, "key", s->key);
	jw_str(&w, "device", s->device ? s->device : "sim");
	jw_open(&w, "runs", '[');
	for (unsigned i = 0; i < s->n; i++) {
		const struct pt_report *r = &s->reps[i];

		jw_open(&w, NULL, '{');
		jw_str(&w, "value", s->values[i]);
		if (r->interval)
			jw_double(&w, "seconds", r->seconds);
		else
			jw_null(&w, "seconds");
		jw_open(&w, "endpoints", '[');
		for (unsigned ep = 0; ep < r->layout->endpoints; ep++)
			json_run_endpoint(&w, &x, i, ep);
		jw_close(&w);
		pt_render_diag_entries(&w, "diagnosis", r->layout, x.d[i]);
		jw_close(&w);
	}
	jw_close(&w);
	jw_close(&w);
	fputc('\n', out);
	sweep_free(&x);
	return w.overflow ? -EINVAL : pt_render_stream_status(out);
}
