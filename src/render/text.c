/*
 * pcie-telemetry: the text report of the upstream nfb-pcie-telemetry,
 * byte for byte (report-format.md sections 2 and 3).
 *
 * Every derived cell (a share, a clock, a rate, a mean) is the value of a
 * built-in metric (data/metrics/pcie-telemetry.json, docs/metrics.md), so
 * that a figure is computed in one place; this file only chooses the
 * cells and formats them as upstream does.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/diag_priv.h"
#include "render/render_priv.h"

static const char *const bus_headers[] = {
	"Bus",  "Used %", "Words %", "MFB stall %", "MVB stall %", "Used per region %",
	"Gbps", "Mpps",   "RD %",    "Avg B",
};
#define BUS_COLS (sizeof bus_headers / sizeof bus_headers[0])

/* The built-in metric families the report shows. */
enum fam {
	F_PCIE_MHZ, F_DMA_MHZ, F_USED, F_WORDS, F_STALL, F_MVB_STALL, F_REGION, F_GBPS,
	F_PCIE_MPPS, F_DMA_MPPS, F_RD, F_AVG, F_BRAKE, F_NOT_READY, F_BAND, F_COUNT
};

static const char *const fam_names[F_COUNT] = {
	[F_PCIE_MHZ] = "{ep}.pcie_clock_mhz",
	[F_DMA_MHZ] = "{ep}.dma_clock_mhz",
	[F_USED] = "{bus}.used_pct",
	[F_WORDS] = "{bus}.words_pct",
	[F_STALL] = "{bus}.stall_pct",
	[F_MVB_STALL] = "{dma_bus}.mvb_stall_pct",
	[F_REGION] = "{region}_pct",
	[F_GBPS] = "{bus}.gbps",
	[F_PCIE_MPPS] = "{pcie_bus}.mpps",
	[F_DMA_MPPS] = "{dma_bus}.mpps",
	[F_RD] = "{up}.rd_pct",
	[F_AVG] = "{bus}.avg_bytes",
	[F_BRAKE] = "{brake}_pct",
	[F_NOT_READY] = "{ep}.brake.endpoint_not_ready_pct",
	[F_BAND] = "{band}_pct",
};

struct ctx {
	FILE *out;
	const struct pt_layout *l;
	const struct pt_reading *r;
	bool seconds_set;
	double seconds;
	const struct pt_metric_set *ms;
	struct pt_metric_value *v;
	unsigned fam[F_COUNT];
};

/* The value of family f at (ep, bus, item, band); NULL where it has no
 * instance (a cell the report shows as '-'). */
static const struct pt_metric_value *val(const struct ctx *c, enum fam f, unsigned ep, int bus,
					 int item, int band)
{
	const struct pt_metric_where w = { (int)ep, bus, item, band };
	int i = pt_metric_lookup(c->ms, c->fam[f], &w);

	return i < 0 ? NULL : &c->v[i];
}

/* "%.*f" of a value, or `none` for NaN and for no value. */
static void fixed(char *buf, size_t len, const struct pt_metric_value *v, int prec,
		  const char *none)
{
	if (!v || isnan(v->f))
		snprintf(buf, len, "%s", none);
	else
		snprintf(buf, len, "%.*f", prec, v->f);
}

int pt_render_text_header(FILE *out, const struct pt_layout *l, const struct pt_reading *r,
			  bool seconds_set, double seconds)
{
	char title[128];
	int n = snprintf(title, sizeof title, "PCIe telemetry - %u endpoint(s), %u DMA port(s) per endpoint",
			 l->endpoints, l->dma_ports);
	fprintf(out, "%s\n", title);
	for (int i = 0; i < n; i++)
		fputc('=', out);
	fputc('\n', out);
	if (seconds_set)
		fprintf(out, "Measured over %.2f s\n", seconds);
	else
		fputs("Totals since the last clear\n", out);
	if (r->status & (PT_STATUS_LOST_DELTAS | PT_STATUS_OVERRUN)) {
		fputc('\n', out);
		if (r->status & PT_STATUS_LOST_DELTAS)
			fputs("  !! LOST DELTAS - the counters are not exact\n", out);
		if (r->status & PT_STATUS_OVERRUN)
			fputs("  !! READ-OUT OVERRUN - the counters are not exact\n", out);
	}
	return pt_render_stream_status(out);
}

static int write_link(const struct ctx *c, unsigned ep)
{
	struct pt_link k;
	pt_link_decode(c->r, ep, &k);
	char v[8][64];
	snprintf(v[0], sizeof v[0], "%s", k.link_up ? "up" : "DOWN");
	snprintf(v[1], sizeof v[1], "%u B", k.mps);
	snprintf(v[2], sizeof v[2], "%u B", k.mrrs);
	snprintf(v[3], sizeof v[3], "%s", k.ext_tag ? "on" : "off");
	snprintf(v[4], sizeof v[4], "%s", k.tag_10b ? "on" : "off");
	snprintf(v[5], sizeof v[5], "%u B", k.rcb);
	snprintf(v[6], sizeof v[6], "%u (lowest %u)", k.tags_free, k.tags_free_min);
	snprintf(v[7], sizeof v[7], "%u words (lowest %u)", k.stfifo_free, k.stfifo_free_min);
	static const char *const labels[8] = {
		"Link",
		"Max payload size (MPS)",
		"Max read request (MRRS)",
		"Extended tag (8-bit)",
		"10-bit tag",
		"Read completion boundary",
		"PTC tags free",
		"PTC storage FIFO free",
	};
	struct pt_table t;
	pt_table_init(&t, 2, NULL);
	for (unsigned i = 0; i < 8; i++) {
		const char *row[2] = { labels[i], v[i] };
		pt_table_add_row(&t, row);
	}
	int rc = pt_table_write(c->out, &t);
	pt_table_free(&t);
	return rc;
}

/* The cells of one row of the bus table.  A share is at most 100 * 2^72
 * (< 30 characters); a rate over a tiny interval can have all 309 digits
 * of a large double. */
struct bus_row {
	char name[64], used[32], wpct[32], stall[32], mvbstall[32], gbps[400], mpps[400],
		rd[32], avg[400];
	struct pt_sbuf regions; /* "22.3 16.1": each real region's share */
};

/* The per-region list: each real region's share. */
static void region_cells(const struct ctx *c, unsigned ep, unsigned b, struct pt_sbuf *out)
{
	unsigned nreg = pt_layout_bus_real_regions(c->l, b);
	char cell[400];

	pt_sbuf_reset(out);
	for (unsigned r = 0; r < nreg; r++) {
		if (r)
			pt_sbuf_add(out, " ");
		fixed(cell, sizeof cell, val(c, F_REGION, ep, (int)b, (int)r, -1), 1, "-");
		pt_sbuf_add(out, cell);
	}
}

static void bus_cells(const struct ctx *c, unsigned ep, unsigned b, struct bus_row *row)
{
	const struct pt_layout *l = c->l;
	enum pt_bus_kind kind = pt_layout_bus_kind(l, b);
	bool has_mvb = kind == PT_BUS_UP || kind == PT_BUS_DOWN; /* RQ, RC: headers inline */
	int bus = (int)b;

	pt_layout_bus_name(l, b, row->name, sizeof row->name);
	region_cells(c, ep, b, &row->regions);
	pt_render_share(row->used, sizeof row->used, val(c, F_USED, ep, bus, -1, -1));
	pt_render_share(row->wpct, sizeof row->wpct, val(c, F_WORDS, ep, bus, -1, -1));
	pt_render_share(row->stall, sizeof row->stall, val(c, F_STALL, ep, bus, -1, -1));
	pt_render_share(row->mvbstall, sizeof row->mvbstall, val(c, F_MVB_STALL, ep, bus, -1, -1));
	if (c->seconds_set) {
		fixed(row->gbps, sizeof row->gbps, val(c, F_GBPS, ep, bus, -1, -1), 2, "");
		fixed(row->mpps, sizeof row->mpps,
		      val(c, has_mvb ? F_DMA_MPPS : F_PCIE_MPPS, ep, bus, -1, -1), 3, "");
	} else {
		row->gbps[0] = row->mpps[0] = '\0';
	}
	/* the requests without payload: only UP carries reads and writes */
	pt_render_share(row->rd, sizeof row->rd, val(c, F_RD, ep, bus, -1, -1));
	fixed(row->avg, sizeof row->avg, val(c, F_AVG, ep, bus, -1, -1), 0, "-");
}

static int write_bus_table(const struct ctx *c, unsigned ep)
{
	struct pt_table t;
	struct bus_row row;
	int rc;

	pt_table_init(&t, BUS_COLS, bus_headers);
	pt_sbuf_init(&row.regions);
	for (unsigned b = 0; b < c->l->buses; b++) {
		bus_cells(c, ep, b, &row);
		const char *cells[BUS_COLS] = {
			row.name, row.used, row.wpct, row.stall, row.mvbstall,
			row.regions.p ? row.regions.p : "", row.gbps, row.mpps, row.rd, row.avg,
		};
		if (row.regions.failed)
			t.failed = true;
		pt_table_add_row(&t, cells);
	}
	fputc('\n', c->out);
	rc = pt_table_write(c->out, &t);
	pt_table_free(&t);
	pt_sbuf_free(&row.regions);
	return rc;
}

struct reason_cell {
	const char *label;
	char label_buf[PT_REGS_NAME_LEN];
	const struct pt_metric_value *value;
};

/* One column of the reasons block: the UP or the DOWN stream. */
struct reason_column {
	struct reason_cell *cell;
	unsigned n;
	size_t label_width; /* longest label + 1 */
};

/* "label   12.34 %": the label padded to its column, then pct() unstripped. */
static void add_reason_cell(struct pt_sbuf *line, const struct reason_column *col, unsigned i)
{
	char p[32];
	size_t start = line->len;

	pt_sbuf_add(line, col->cell[i].label);
	pt_sbuf_pad(line, start + col->label_width);
	pt_render_share(p, sizeof p, col->cell[i].value);
	pt_sbuf_add(line, p);
	pt_sbuf_add(line, " %");
}

/* Longest label + 1 (1 for an empty column, whose width is then unused). */
static size_t label_width(const struct reason_column *col)
{
	size_t w = 0;

	for (unsigned i = 0; i < col->n; i++)
		if (strlen(col->cell[i].label) > w)
			w = strlen(col->cell[i].label);
	return w + 1;
}

/* Split the driven reasons into the two streams, named as upstream names
 * them, and add the RQ stall as "PCIe endpoint not ready" to UP. */
static void sort_reasons(const struct ctx *c, unsigned ep, struct reason_column *up,
			 struct reason_column *down)
{
	const struct pt_layout *l = c->l;

	for (unsigned k = 0; k < l->driven_brakes; k++) {
		struct reason_column *col = pt_brake_stream(k) == PT_STREAM_DOWN ? down : up;
		struct reason_cell *cell = &col->cell[col->n++];

		cell->label = pt_brake_label(k, cell->label_buf);
		cell->value = val(c, F_BRAKE, ep, -1, (int)k, -1);
	}
	up->cell[up->n].label = PT_BRAKE_LABEL_RQ_STALL;
	up->cell[up->n].value = val(c, F_NOT_READY, ep, -1, -1, -1);
	up->n++;
	up->label_width = label_width(up);
	down->label_width = label_width(down);
}

static int write_reasons(const struct ctx *c, unsigned ep)
{
	/* every driven reason plus "PCIe endpoint not ready" fits either */
	struct reason_column up = { calloc(c->l->driven_brakes + 1, sizeof *up.cell), 0, 0 };
	struct reason_column down = { calloc(c->l->driven_brakes + 1, sizeof *down.cell), 0, 0 };
	struct pt_sbuf line;
	size_t up_width, start;
	int rc = -ENOMEM;

	pt_sbuf_init(&line);
	if (!up.cell || !down.cell)
		goto out;
	sort_reasons(c, ep, &up, &down);
	up_width = up.label_width + 8;
	pt_sbuf_add(&line, "\n  Why the PCIe transfer stopped (share of PCIe clock cycles)\n");
	start = line.len;
	pt_sbuf_add(&line, "    UP stream");
	pt_sbuf_pad(&line, start + 4 + up_width);
	if (down.n)
		pt_sbuf_add(&line, "    DOWN stream");
	pt_sbuf_rstrip(&line);
	pt_sbuf_add(&line, "\n");
	for (unsigned i = 0; i < up.n || i < down.n; i++) {
		start = line.len;
		pt_sbuf_add(&line, "    ");
		if (i < up.n)
			add_reason_cell(&line, &up, i);
		pt_sbuf_pad(&line, start + 4 + up_width);
		pt_sbuf_add(&line, "    ");
		if (i < down.n)
			add_reason_cell(&line, &down, i);
		pt_sbuf_rstrip(&line);
		pt_sbuf_add(&line, "\n");
	}
	if (!line.failed) {
		fwrite(line.p, 1, line.len, c->out);
		rc = pt_render_stream_status(c->out);
	}
out:
	free(up.cell);
	free(down.cell);
	pt_sbuf_free(&line);
	return rc;
}

static int write_hists(const struct ctx *c, unsigned ep)
{
	const struct pt_layout *l = c->l;
	if (l->pcie_hists == 0)
		return 0;
	unsigned ncols = 2 + l->hist_bands;
	char(*hdr_buf)[PT_REGS_NAME_LEN] = calloc(ncols, sizeof *hdr_buf);
	const char **hdr = calloc(ncols, sizeof *hdr);
	char(*cell_buf)[40] = calloc(ncols, sizeof *cell_buf);
	const char **row = calloc(ncols, sizeof *row);
	int rc = -ENOMEM;
	if (!hdr_buf || !hdr || !cell_buf || !row)
		goto out;
	hdr[0] = "Time spent low";
	hdr[1] = "of";
	for (unsigned b = 0; b < l->hist_bands; b++)
		hdr[2 + b] = pt_band_label(b, hdr_buf[2 + b]);
	struct pt_table t;
	pt_table_init(&t, ncols, hdr);
	for (unsigned h = 0; h < l->pcie_hists; h++) {
		char label[PT_REGS_NAME_LEN];
		unsigned cap = pt_layout_hist_capacity(l, h);

		snprintf(cell_buf[0], sizeof cell_buf[0], "%s", pt_hist_label(h, label));
		if (cap)
			snprintf(cell_buf[1], sizeof cell_buf[1], "%u", cap);
		else
			snprintf(cell_buf[1], sizeof cell_buf[1], "-");
		for (unsigned b = 0; b < l->hist_bands; b++)
			pt_render_share(cell_buf[2 + b], sizeof cell_buf[0],
					val(c, F_BAND, ep, -1, (int)h, (int)b));
		for (unsigned i = 0; i < ncols; i++)
			row[i] = cell_buf[i];
		pt_table_add_row(&t, row);
	}
	fputc('\n', c->out);
	rc = pt_table_write(c->out, &t);
	pt_table_free(&t);
out:
	free(hdr_buf);
	free(hdr);
	free(cell_buf);
	free(row);
	return rc;
}

static int write_endpoint(const struct ctx *c, unsigned ep)
{
	char pc[400], dc[400];
	int rc;

	fprintf(c->out, "\nPCIe endpoint %u\n", ep);
	fputs("------------------------------------------------------------\n", c->out);
	if ((rc = write_link(c, ep)))
		return rc;
	if (c->seconds_set) {
		fixed(pc, sizeof pc, val(c, F_PCIE_MHZ, ep, -1, -1, -1), 1, "");
		fixed(dc, sizeof dc, val(c, F_DMA_MHZ, ep, -1, -1, -1), 1, "");
		fprintf(c->out, "\n  PCIe clock %s MHz, DMA clock %s MHz\n", pc, dc);
	}
	if ((rc = write_bus_table(c, ep)) || (rc = write_reasons(c, ep)))
		return rc;
	return write_hists(c, ep);
}

/* The metric values of the report: of the caller's set (bound to this
 * layout, with the built-in definitions) or of the built-in one. */
static int evaluate(struct ctx *c, const struct pt_report *rep, struct pt_metric_set **own)
{
	char msg[PT_METRIC_MSG_LEN];
	int rc;

	c->ms = rep->metrics;
	if (c->ms && memcmp(pt_metric_layout(c->ms)->cfg, c->l->cfg, sizeof c->l->cfg) != 0)
		return -EINVAL;
	if (!c->ms) {
		if ((rc = pt_metric_bind_builtin(c->l, own, msg, sizeof msg)))
			return rc == -ENOMEM ? rc : -EINVAL;
		c->ms = *own;
	}
	for (unsigned f = 0; f < F_COUNT; f++) {
		int i = pt_metric_family_find(c->ms, fam_names[f]);
		if (i < 0)
			return -EINVAL;
		c->fam[f] = (unsigned)i;
	}
	c->v = malloc((pt_metric_count(c->ms) + 1) * sizeof *c->v);
	if (!c->v)
		return -ENOMEM;
	const struct pt_metric_input in = { rep->reading, rep->interval, rep->seconds };
	rc = pt_metric_eval(c->ms, &in, c->v);
	return rc < 0 ? rc : 0;
}

int pt_render_text(FILE *out, const struct pt_report *rep)
{
	if (!out || !rep)
		return -EINVAL;
	int rc = pt_render_check(rep->layout, rep->reading);
	if (rc)
		return rc;
	struct ctx c = {
		.out = out,
		.l = rep->layout,
		.r = rep->reading,
		/* Python's truth value: a zero-length interval prints as totals */
		.seconds_set = rep->interval && rep->seconds != 0.0,
		.seconds = rep->seconds,
	};
	struct pt_metric_set *own = NULL;
	if ((rc = evaluate(&c, rep, &own)) == 0 &&
	    (rc = pt_render_text_header(out, c.l, c.r, c.seconds_set, c.seconds)) == 0)
		for (unsigned ep = 0; ep < c.l->endpoints && rc == 0; ep++)
			rc = write_endpoint(&c, ep);
	if (rc == 0 && rep->diagnose)
		rc = pt_render_diag_text(out, rep);
	free(c.v);
	pt_metric_set_free(own);
	return rc ? rc : pt_render_stream_status(out);
}
