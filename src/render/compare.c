/*
 * pcie-telemetry: --compare, two reports side by side (render.h): per bus
 * and reason both values and the change, then both diagnoses.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/diag_priv.h"
#include "render/jw.h"
#include "render/render_priv.h"

#define CELL 64

/* Both sides, their figures and diagnoses. */
struct cmp {
	const struct pt_compare *c;
	struct pt_render_figs fa, fb;
	struct pt_diagnosis *da, *db;
};

/* The bus figures compared: a field share, or Gbit/s. */
static const struct {
	const char *title, *key;
	int field; /* enum pt_bus_field, or -1 for Gbit/s */
} bus_figs[] = {
	{ "Words %", "words_pct", PT_F_WORDS },
	{ "MFB stall %", "stall_pct", PT_F_BACKPRESSURE },
	{ "MVB stall %", "mvb_stall_pct", PT_F_MVB_BACKPRESSURE },
	{ "Gbps", "gbps", -1 },
};
#define NBUS_FIGS (sizeof bus_figs / sizeof bus_figs[0])

static double bus_fig(const struct pt_render_figs *f, unsigned ep, unsigned b, unsigned i)
{
	if (bus_figs[i].field < 0)
		return pt_render_fig_gbps(f, ep, b);
	return pt_render_fig_bus(f, ep, b, (unsigned)bus_figs[i].field);
}

static unsigned umax(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* The layout that has bus b of endpoint ep (for its name), or NULL. */
static const struct pt_layout *owner(const struct pt_compare *c, unsigned ep, unsigned b)
{
	const struct pt_layout *la = c->a->layout, *lb = c->b->layout;

	if (ep < la->endpoints && b < la->buses)
		return la;
	if (ep < lb->endpoints && b < lb->buses)
		return lb;
	return NULL;
}

static void add4(struct pt_table *t, const char *bus, const char *fig, double a, double b)
{
	char ca[CELL], cb[CELL], cc[CELL];
	const char *row[5] = { bus, fig, ca, cb, cc };

	pt_render_fig_cell(ca, CELL, "%.2f", a);
	pt_render_fig_cell(cb, CELL, "%.2f", b);
	pt_render_fig_change(cc, CELL, a, b);
	pt_table_add_row(t, row);
}

/* A row per bus and figure, the bus named on its first row. */
static int bus_table(FILE *out, const struct cmp *x, unsigned ep)
{
	const struct pt_compare *c = x->c;
	static const char *const hdr[5] = { "Bus", "figure", "A", "B", "change" };
	unsigned buses = umax(c->a->layout->buses, c->b->layout->buses);
	char name[64];
	struct pt_table t;
	int rc;

	pt_table_init(&t, 5, hdr);
	for (unsigned b = 0; b < buses; b++) {
		const struct pt_layout *l = owner(c, ep, b);
		bool first = true;

		if (!l)
			continue;
		pt_layout_bus_name(l, b, name, sizeof name);
		for (unsigned i = 0; i < NBUS_FIGS; i++) {
			double va = bus_fig(&x->fa, ep, b, i), vb = bus_fig(&x->fb, ep, b, i);

			if (bus_figs[i].field == PT_F_MVB_BACKPRESSURE && b < 2)
				continue; /* RQ and RC have no MVB */
			add4(&t, first ? name : "", bus_figs[i].title, va, vb);
			first = false;
		}
	}
	fputc('\n', out);
	rc = pt_table_write(out, &t);
	pt_table_free(&t);
	return rc;
}

static void add3(struct pt_table *t, const char *label, double a, double b)
{
	char ca[CELL], cb[CELL], cc[CELL];
	const char *row[4] = { label, ca, cb, cc };

	pt_render_fig_cell(ca, CELL, "%.2f", a);
	pt_render_fig_cell(cb, CELL, "%.2f", b);
	pt_render_fig_change(cc, CELL, a, b);
	pt_table_add_row(t, row);
}

/* The reason of either side: its label from the side that has it. */
static const char *reason_label(const struct cmp *x, unsigned k, char *buf)
{
	const struct pt_render_figs *f = k < pt_render_fig_reasons(&x->fa) ? &x->fa : &x->fb;

	return pt_render_fig_reason_label(f, k, buf);
}

static int reason_table(FILE *out, const struct cmp *x, unsigned ep)
{
	static const char *const hdr[4] = { "Reason (share of PCIe cycles)", "A", "B", "change" };
	const struct pt_compare *c = x->c;
	unsigned na = pt_render_fig_reasons(&x->fa), nb = pt_render_fig_reasons(&x->fb);
	unsigned hists = umax(c->a->layout->pcie_hists, c->b->layout->pcie_hists);
	unsigned bands = umax(c->a->layout->hist_bands, c->b->layout->hist_bands);
	struct pt_table t;
	int rc;

	pt_table_init(&t, 4, hdr);
	/* the driven reasons, then the RQ stall, which is last on each side */
	for (unsigned k = 0; k < umax(na, nb) - 1; k++) {
		char buf[PT_REGS_NAME_LEN];
		double va = k < na - 1 ? pt_render_fig_reason(&x->fa, ep, k) : NAN;
		double vb = k < nb - 1 ? pt_render_fig_reason(&x->fb, ep, k) : NAN;

		add3(&t, reason_label(x, k, buf), va, vb);
	}
	add3(&t, PT_BRAKE_LABEL_RQ_STALL, pt_render_fig_reason(&x->fa, ep, na - 1),
	     pt_render_fig_reason(&x->fb, ep, nb - 1));
	for (unsigned h = 0; h < hists; h++)
		for (unsigned b = 0; b < bands; b++) {
			char hb[PT_REGS_NAME_LEN], bb[PT_REGS_NAME_LEN], label[2 * PT_REGS_NAME_LEN + 2];

			snprintf(label, sizeof label, "%s %s", pt_hist_label(h, hb), pt_band_label(b, bb));
			add3(&t, label, pt_render_fig_band(&x->fa, ep, h, b),
			     pt_render_fig_band(&x->fb, ep, h, b));
		}
	fputc('\n', out);
	rc = pt_table_write(out, &t);
	pt_table_free(&t);
	return rc;
}

static const struct pt_diag_entry *entry_of(const struct pt_diagnosis *d, unsigned ep,
					    unsigned dir)
{
	return d && ep * PT_DIAG_DIRS + dir < d->nentries ? &d->entry[ep * PT_DIAG_DIRS + dir]
							   : NULL;
}

static const struct pt_latency *latency_of(const struct pt_report *r, const struct pt_diagnosis *d,
					   unsigned ep)
{
	return d && ep < r->layout->endpoints ? &d->latency[ep] : NULL;
}

static int verdict_table(FILE *out, const struct cmp *x, unsigned ep)
{
	const struct pt_compare *c = x->c;
	const struct pt_diagnosis *da = x->da, *db = x->db;
	static const char *const hdr[3] = { "Diagnosis", "A", "B" };
	char ca[CELL], cb[CELL];
	const char *row[3] = { NULL, ca, cb };
	struct pt_table t;
	int rc;

	pt_table_init(&t, 3, hdr);
	for (unsigned dir = 0; dir < PT_DIAG_DIRS; dir++) {
		row[0] = pt_diag_dir_name((enum pt_diag_dir)dir);
		pt_render_fig_verdict(ca, CELL, entry_of(da, ep, dir));
		pt_render_fig_verdict(cb, CELL, entry_of(db, ep, dir));
		pt_table_add_row(&t, row);
	}
	row[0] = "tag holding time";
	pt_render_fig_hold(ca, CELL, latency_of(c->a, da, ep));
	pt_render_fig_hold(cb, CELL, latency_of(c->b, db, ep));
	pt_table_add_row(&t, row);
	fputc('\n', out);
	rc = pt_table_write(out, &t);
	pt_table_free(&t);
	return rc;
}

static void side_line(FILE *out, char side, const char *name, const struct pt_report *r)
{
	if (r->interval && r->seconds != 0.0)
		fprintf(out, "%c: %s, measured over %.3f s\n", side, name, r->seconds);
	else
		fprintf(out, "%c: %s, totals since the last clear\n", side, name);
}

static void cmp_close(struct cmp *x)
{
	pt_diag_free(x->da);
	pt_diag_free(x->db);
	pt_render_figs_close(&x->fa);
	pt_render_figs_close(&x->fb);
}

static int cmp_open(struct cmp *x, const struct pt_compare *c)
{
	int rc;

	memset(x, 0, sizeof(*x));
	x->c = c;
	if (!c || !c->a || !c->b || !c->a->layout || !c->b->layout || !c->a->reading ||
	    !c->b->reading)
		return -EINVAL;
	if ((rc = pt_render_check(c->a->layout, c->a->reading)) ||
	    (rc = pt_render_check(c->b->layout, c->b->reading)))
		return rc;
	if ((rc = pt_render_figs_open(&x->fa, c->a)) == 0 &&
	    (rc = pt_render_figs_open(&x->fb, c->b)) == 0 &&
	    (rc = pt_render_diag_run(c->a, &x->da)) == 0)
		rc = pt_render_diag_run(c->b, &x->db);
	if (rc)
		cmp_close(x);
	return rc;
}

int pt_render_compare_text(FILE *out, const struct pt_compare *c)
{
	struct cmp x;
	unsigned eps;
	int rc = out ? cmp_open(&x, c) : -EINVAL;

	if (rc)
		return rc;
	fprintf(out, "Comparison of two devices\n=========================\n");
	side_line(out, 'A', c->name_a, c->a);
	side_line(out, 'B', c->name_b, c->b);
	eps = umax(c->a->layout->endpoints, c->b->layout->endpoints);
	for (unsigned ep = 0; rc == 0 && ep < eps; ep++) {
		fprintf(out, "\nPCIe endpoint %u\n", ep);
		fputs("------------------------------------------------------------\n", out);
		rc = bus_table(out, &x, ep);
		if (rc == 0)
			rc = reason_table(out, &x, ep);
		if (rc == 0)
			rc = verdict_table(out, &x, ep);
	}
	cmp_close(&x);
	return rc ? rc : pt_render_stream_status(out);
}

/* ---- JSON ---------------------------------------------------------------------- */

static void json3(struct jw *w, const char *key, double a, double b)
{
	jw_open(w, key, '{');
	jw_number(w, "a", a);
	jw_number(w, "b", b);
	jw_number(w, "change", b - a);
	jw_close(w);
}

static void json_endpoint(struct jw *w, const struct cmp *x, unsigned ep)
{
	const struct pt_compare *c = x->c;
	const struct pt_diagnosis *da = x->da, *db = x->db;
	unsigned na = pt_render_fig_reasons(&x->fa), nb = pt_render_fig_reasons(&x->fb);
	char name[64], buf[PT_REGS_NAME_LEN];

	jw_open(w, NULL, '{');
	jw_u64(w, "index", ep);
	jw_open(w, "buses", '{');
	for (unsigned b = 0; b < umax(c->a->layout->buses, c->b->layout->buses); b++) {
		const struct pt_layout *l = owner(c, ep, b);

		if (!l)
			continue;
		pt_layout_bus_name(l, b, name, sizeof name);
		jw_open(w, name, '{');
		for (unsigned i = 0; i < NBUS_FIGS; i++)
			json3(w, bus_figs[i].key, bus_fig(&x->fa, ep, b, i), bus_fig(&x->fb, ep, b, i));
		jw_close(w);
	}
	jw_close(w);
	jw_open(w, "reasons", '{');
	for (unsigned k = 0; k < umax(na, nb) - 1; k++)
		json3(w, reason_label(x, k, buf),
		      k < na - 1 ? pt_render_fig_reason(&x->fa, ep, k) : NAN,
		      k < nb - 1 ? pt_render_fig_reason(&x->fb, ep, k) : NAN);
	json3(w, PT_BRAKE_LABEL_RQ_STALL, pt_render_fig_reason(&x->fa, ep, na - 1),
	      pt_render_fig_reason(&x->fb, ep, nb - 1));
	jw_close(w);
	jw_open(w, "bottleneck", '{');
	for (unsigned dir = 0; dir < PT_DIAG_DIRS; dir++) {
		const struct pt_diag_entry *ea = entry_of(da, ep, dir), *eb = entry_of(db, ep, dir);

		jw_open(w, pt_diag_dir_name((enum pt_diag_dir)dir), '{');
		if (ea)
			jw_str(w, "a", pt_diag_cause_name(ea->bottleneck));
		else
			jw_null(w, "a");
		if (eb)
			jw_str(w, "b", pt_diag_cause_name(eb->bottleneck));
		else
			jw_null(w, "b");
		jw_close(w);
	}
	jw_close(w);
	jw_close(w);
}

static void json_side(struct jw *w, const char *key, const char *name, const struct pt_report *r)
{
	jw_open(w, key, '{');
	jw_str(w, "device", name);
	if (r->interval)
		jw_double(w, "seconds", r->seconds);
	else
		jw_null(w, "seconds");
	jw_close(w);
}

int pt_render_compare_json(FILE *out, const struct pt_compare *c)
{
	struct cmp x;
	struct jw w = { .out = out };
	int rc = out ? cmp_open(&x, c) : -EINVAL;

	if (rc)
		return rc;
	jw_open(&w, NULL, '{');
	json_side(&w, "a", c->name_a, c->a);
	json_side(&w, "b", c->name_b, c->b);
	jw_open(&w, "endpoints", '[');
	for (unsigned ep = 0; ep < umax(c->a->layout->endpoints, c->b->layout->endpoints); ep++)
		json_endpoint(&w, &x, ep);
	jw_close(&w);
	pt_render_diag_entries(&w, "diagnosis_a", c->a->layout, x.da);
	pt_render_diag_entries(&w, "diagnosis_b", c->b->layout, x.db);
	jw_close(&w);
	fputc('\n', out);
	cmp_close(&x);
	return w.overflow ? -EINVAL : pt_render_stream_status(out);
}
