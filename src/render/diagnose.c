/*
 * pcie-telemetry: the diagnosis in the text report and in the JSON
 * (--diagnose; docs/diagnosis.md).  The figures come from pt_diag_analyze;
 * this file only lays them out.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/diag_priv.h"
#include "render/jw.h"
#include "render/render_priv.h"

#define WRAP 78 /* columns of the wrapped text lines */

static const char *const dir_titles[PT_DIAG_DIRS] = { "read (host to card)",
						       "write (card to host)" };

/* The causes of level 2, in the order of the tree. */
static const enum pt_diag_cause stall_causes[] = {
	PT_CAUSE_DMA_CONSUMER,	     PT_CAUSE_DMA_BUS,		PT_CAUSE_PCIE_LINK,
	PT_CAUSE_PCIE_ENDPOINT,	     PT_CAUSE_PCIE_TAGS,	PT_CAUSE_TAG_FIFO,
	PT_CAUSE_COMPLETION_SPACE,   PT_CAUSE_COMPLETION_HEADERS,
};
#define NSTALL (sizeof stall_causes / sizeof stall_causes[0])

int pt_render_diag_run(const struct pt_report *rep, struct pt_diagnosis **d)
{
	return pt_diag_analyze(rep->layout, rep->reading, rep->interval, rep->seconds, rep->metrics,
			       d);
}

/* "  label: text" wrapped at WRAP columns, continuation lines indented. */
static void wrapped(FILE *out, const char *label, const char *text)
{
	int indent = (int)strlen(label) + 4, col = indent;

	fprintf(out, "  %s:", label);
	while (*text) {
		size_t word;

		while (*text == ' ')
			text++;
		word = strcspn(text, " ");
		if (!word)
			break;
		/* a unit stays with its number ("42.19 %") */
		if (col > indent && col + 1 + (int)word > WRAP && *text != '%') {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)word, text);
		col += (int)word;
		text += word;
	}
	fputc('\n', out);
}

static void tree_line(FILE *out, int depth, const char *name, double share)
{
	fprintf(out, "%*s%-*s%7.2f %%\n", 4 + 2 * depth, "", 28 - 2 * depth, name, 100 * share);
}

static void text_tree(FILE *out, const struct pt_diag_entry *e)
{
	tree_line(out, 0, "moving data", e->moving);
	tree_line(out, 0, "stalled", e->stalled);
	for (unsigned i = 0; i < NSTALL; i++)
		if (e->cause[stall_causes[i]] >= 0.00005)
			tree_line(out, 1, pt_diag_cause_name(stall_causes[i]),
				  e->cause[stall_causes[i]]);
	if (e->unexplained >= 0.00005)
		tree_line(out, 1, "unexplained", e->unexplained);
	tree_line(out, 0, "idle", e->idle);
}

static void text_evidence(FILE *out, const struct pt_diag_entry *e)
{
	if (!e->nevidence)
		return;
	fprintf(out, "  evidence (share of the cycles of its clock):\n");
	for (unsigned i = 0; i < e->nevidence; i++) {
		const struct pt_diag_evidence *x = &e->evidence[i];

		if (x->share < 0.00005)
			continue; /* 0.00 % in the text; the JSON has it */
		fprintf(out, "    %-32s%7.2f %%  %-4s  %s\n", x->what, 100 * x->share,
			x->pcie_clock ? "PCIe" : "DMA",
			x->cause < PT_DIAG_CAUSES ? pt_diag_cause_name(x->cause) : "-");
	}
}

static void text_latency(FILE *out, const struct pt_latency *t)
{
	char pool[64], span[96], line[256];

	if (!t->valid)
		return;
	if (t->pool_lo == t->pool_hi)
		snprintf(pool, sizeof pool, "%u tags%s", t->pool_lo,
			 t->pool_assumed ? ", the configured one" : "");
	else
		snprintf(pool, sizeof pool, "%u to %u tags", t->pool_lo, t->pool_hi);
	if (t->have_ns && t->hi_bounded)
		snprintf(span, sizeof span, "%.0f .. %.0f ns", t->lo_ns, t->hi_ns);
	else if (t->have_ns)
		snprintf(span, sizeof span, "at least %.0f ns", t->lo_ns);
	else if (t->hi_bounded)
		snprintf(span, sizeof span, "%.0f .. %.0f PCIe cycles", t->lo_cycles, t->hi_cycles);
	else
		snprintf(span, sizeof span, "at least %.0f PCIe cycles", t->lo_cycles);
	snprintf(line, sizeof line, "%s (Little's law: %.1f .. %.1f tags in use, a pool of %s)",
		 span, t->inuse_lo, t->inuse_hi, pool);
	wrapped(out, "tag holding time", line);
}

static void text_corr(FILE *out, const struct pt_layout *l, const struct pt_corr_bus *c)
{
	char name[64], line[320];
	int n;

	pt_layout_bus_name(l, c->bus, name, sizeof name);
	if (isfinite(c->gbps))
		n = snprintf(line, sizeof line, "%s really carried %.2f Gbit/s; the report's %.2f Gbit/s",
			     name, c->gbps, c->plain_gbps);
	else
		n = snprintf(line, sizeof line, "%s really carried %.0f bytes; the report's %.0f",
			     name, c->bytes, (double)c->items * l->item_bytes);
	if (n > 0 && (size_t)n < sizeof line)
		snprintf(line + n, sizeof line - (size_t)n,
			 " over-states it by %.2f %% (%" PRIu64 " items counted in padded regions)",
			 c->overstated_pct, c->padded_items);
	wrapped(out, "corrected", line);
}

/* The buses a direction's corrections belong to: RC and DOWN carry the
 * read data, RQ and UP the write data. */
static bool corr_of(const struct pt_layout *l, const struct pt_corr_bus *c, unsigned ep,
		    enum pt_diag_dir dir)
{
	enum pt_bus_kind k = pt_layout_bus_kind(l, c->bus);
	bool rd = k == PT_BUS_RC || k == PT_BUS_DOWN;

	return c->ep == ep && rd == (dir == PT_DIAG_READ);
}

static void text_entry(FILE *out, const struct pt_layout *l, const struct pt_diagnosis *d,
		       const struct pt_diag_entry *e)
{
	char title[128];

	if (e->port >= 0)
		snprintf(title, sizeof title, "%s (DMA port %d)", pt_diag_cause_name(e->bottleneck),
			 e->port);
	else
		snprintf(title, sizeof title, "%s", pt_diag_cause_name(e->bottleneck));
	fprintf(out, "\nPCIe endpoint %u, %s: %s\n", e->ep, dir_titles[e->dir], title);
	wrapped(out, "why", e->why);
	if (e->bottleneck != PT_CAUSE_IDLE)
		wrapped(out, "advice", pt_diag_cause_advice(e->bottleneck, e->dir));
	if (e->measured && e->bottleneck != PT_CAUSE_IDLE) {
		text_tree(out, e);
		text_evidence(out, e);
	}
	if (e->dir == PT_DIAG_READ)
		text_latency(out, &d->latency[e->ep]);
	for (unsigned i = 0; i < d->ncorr; i++)
		if (corr_of(l, &d->corr[i], e->ep, e->dir))
			text_corr(out, l, &d->corr[i]);
}

int pt_render_diag_text(FILE *out, const struct pt_report *rep)
{
	struct pt_diagnosis *d;
	int rc = pt_render_diag_run(rep, &d);

	if (rc < 0)
		return rc;
	fprintf(out, "\nBottleneck diagnosis (top-down; shares of the direction's DMA cycles)\n");
	for (unsigned i = 0; i < d->nentries; i++)
		text_entry(out, rep->layout, d, &d->entry[i]);
	pt_diag_free(d);
	return pt_render_stream_status(out);
}

/* ---- JSON ----------------------------------------------------------------------- */

/* A leaf of the tree (its children: none). */
static void json_node(struct jw *w, const char *name, double share)
{
	jw_open(w, NULL, '{');
	jw_str(w, "name", name);
	jw_number(w, "pct", 100 * share);
	jw_open(w, "children", '[');
	jw_close(w);
	jw_close(w);
}

static void json_tree(struct jw *w, const struct pt_diag_entry *e)
{
	jw_open(w, "tree", '{');
	jw_str(w, "name", pt_diag_dir_name(e->dir));
	jw_number(w, "pct", 100.0);
	jw_open(w, "children", '[');
	json_node(w, "moving", e->moving);
	jw_open(w, NULL, '{');
	jw_str(w, "name", "stalled");
	jw_number(w, "pct", 100 * e->stalled);
	jw_open(w, "children", '[');
	for (unsigned i = 0; i < NSTALL; i++)
		json_node(w, pt_diag_cause_name(stall_causes[i]), e->cause[stall_causes[i]]);
	json_node(w, "unexplained", e->unexplained);
	jw_close(w);
	jw_close(w);
	json_node(w, "idle", e->idle);
	jw_close(w);
	jw_close(w);
}

static void json_evidence(struct jw *w, const struct pt_diag_entry *e)
{
	jw_open(w, "evidence", '[');
	for (unsigned i = 0; i < e->nevidence; i++) {
		const struct pt_diag_evidence *x = &e->evidence[i];

		jw_open(w, NULL, '{');
		jw_str(w, "what", x->what);
		jw_number(w, "pct", 100 * x->share);
		jw_str(w, "clock", x->pcie_clock ? "pcie" : "dma");
		if (x->cause < PT_DIAG_CAUSES)
			jw_str(w, "cause", pt_diag_cause_name(x->cause));
		else
			jw_null(w, "cause");
		jw_close(w);
	}
	jw_close(w);
}

static void json_latency(struct jw *w, const struct pt_latency *t)
{
	if (!t->valid) {
		jw_null(w, "tag_hold");
		return;
	}
	jw_open(w, "tag_hold", '{');
	jw_number(w, "lo_ns", t->lo_ns);
	jw_number(w, "hi_ns", t->hi_ns);
	jw_number(w, "lo_cycles", t->lo_cycles);
	jw_number(w, "hi_cycles", t->hi_cycles);
	jw_number(w, "reads_lo", t->reads_lo);
	jw_number(w, "reads_hi", t->reads_hi);
	jw_number(w, "tags_in_use_lo", t->inuse_lo);
	jw_number(w, "tags_in_use_hi", t->inuse_hi);
	jw_u64(w, "pool_lo", t->pool_lo);
	jw_u64(w, "pool_hi", t->pool_hi);
	jw_bool(w, "pool_assumed", t->pool_assumed);
	jw_number(w, "empty_pct", 100 * t->empty_share);
	jw_close(w);
}

static void json_corr(struct jw *w, const struct pt_layout *l, const struct pt_diagnosis *d,
		      const struct pt_diag_entry *e)
{
	char name[64];

	jw_open(w, "corrected", '[');
	for (unsigned i = 0; i < d->ncorr; i++) {
		const struct pt_corr_bus *c = &d->corr[i];

		if (!corr_of(l, c, e->ep, e->dir))
			continue;
		pt_layout_bus_name(l, c->bus, name, sizeof name);
		jw_open(w, NULL, '{');
		jw_str(w, "bus", name);
		jw_u64(w, "items", c->items);
		jw_u64(w, "padded_items", c->padded_items);
		jw_u64(w, "real_items", c->real_items);
		jw_number(w, "bytes", c->bytes);
		jw_number(w, "gbps", c->gbps);
		jw_number(w, "plain_gbps", c->plain_gbps);
		jw_number(w, "overstated_pct", c->overstated_pct);
		jw_close(w);
	}
	jw_close(w);
}

static void json_entry(struct jw *w, const struct pt_layout *l, const struct pt_diagnosis *d,
		       const struct pt_diag_entry *e)
{
	jw_open(w, NULL, '{');
	jw_u64(w, "endpoint", e->ep);
	jw_str(w, "direction", pt_diag_dir_name(e->dir));
	jw_str(w, "bottleneck", pt_diag_cause_name(e->bottleneck));
	if (e->port >= 0)
		jw_u64(w, "port", (unsigned)e->port);
	else
		jw_null(w, "port");
	jw_str(w, "why", e->why);
	jw_str(w, "advice", pt_diag_cause_advice(e->bottleneck, e->dir));
	jw_bool(w, "measured", e->measured);
	json_tree(w, e);
	json_evidence(w, e);
	if (e->dir == PT_DIAG_READ)
		json_latency(w, &d->latency[e->ep]);
	json_corr(w, l, d, e);
	jw_close(w);
}

static void json_truth(struct jw *w, const struct pt_layout *l, const struct pt_truth *t)
{
	char name[64];

	jw_open(w, "sim_truth", '[');
	for (unsigned ep = 0; ep < t->endpoints && ep < PT_MAX_ENDPOINTS; ep++) {
		const struct pt_truth_ep *x = &t->ep[ep];

		jw_open(w, NULL, '{');
		jw_u64(w, "endpoint", ep);
		jw_number(w, "tag_hold_ns", x->tag_hold_ns);
		jw_u64(w, "reads", x->reads);
		jw_open(w, "buses", '{');
		for (unsigned b = 0; b < t->buses && b < PT_TRUTH_MAX_BUSES && b < l->buses; b++) {
			pt_layout_bus_name(l, b, name, sizeof name);
			jw_open(w, name, '{');
			jw_u64(w, "bytes", x->bus[b].bytes);
			jw_u64(w, "items", x->bus[b].items);
			jw_u64(w, "frames", x->bus[b].frames);
			jw_close(w);
		}
		jw_close(w);
		jw_close(w);
	}
	jw_close(w);
}

void pt_render_diag_entries(struct jw *w, const char *key, const struct pt_layout *l,
			    const struct pt_diagnosis *d)
{
	jw_open(w, key, '[');
	for (unsigned i = 0; i < d->nentries; i++)
		json_entry(w, l, d, &d->entry[i]);
	jw_close(w);
}

int pt_render_diag_json(struct jw *w, const struct pt_report *rep)
{
	struct pt_diagnosis *d;
	int rc = pt_render_diag_run(rep, &d);

	if (rc < 0)
		return rc;
	pt_render_diag_entries(w, "diagnosis", rep->layout, d);
	if (rep->truth)
		json_truth(w, rep->layout, rep->truth);
	pt_diag_free(d);
	return 0;
}
