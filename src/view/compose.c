/*
 * pcie-telemetry: one screen of the live view, composed from data.
 *
 * Top to bottom: the title (device, interval, pause, lag), a notice, the
 * flags of the interval, the endpoint and its link, the bus table (bars
 * of words % and stall %, Gbit/s, Mpps, a sparkline of the last minute),
 * the tags and storage FIFO free now and lowest, the BRAKE reasons as
 * bars, the histogram bands, and the line of keys.  What does not fit is
 * left out from the bottom up, the blank lines between blocks first;
 * narrow screens lose the sparklines, then the bars, then take short bus
 * names (docs/top.md "Small terminals").  Every figure is the value of a
 * built-in metric, formatted with its precision.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view/view_priv.h"

#define NUM_W 7       /* a share: "100.00" right aligned, one space before */
#define RATE_W 8      /* Gbit/s and Mpps columns: "1234.56" with a space before */
#define BAR_MAX 22    /* widest bar of the bus table, brackets included */
#define BAR_MIN 8
#define SPARK_MIN 10
#define KEYS_MIN_ROWS 8 /* fewer rows: no line of keys */

struct cx {
	struct pt_view *v;
	const struct pt_view_state *st;
	struct pt_view_screen *s;
	const struct pt_layout *l;
	unsigned ep, row, cols;
	bool gaps; /* blank lines between the blocks */
};

/* The instance of family f of the endpoint shown at (bus, item, band). */
static int inst(const struct cx *c, enum pt_view_fam f, int bus, int item, int band)
{
	const struct pt_metric_where w = { (int)c->ep, bus, item, band };

	return pt_metric_lookup(c->v->ms, c->v->fam[f], &w);
}

static double fval(const struct cx *c, int i)
{
	return i < 0 || !c->st->values ? NAN : c->st->values[i].f;
}

/* Instance i as the metric formats it ("-" without a value). */
static const char *ftext(const struct cx *c, int i, char *buf, size_t len)
{
	if (i < 0 || !c->st->values)
		return "-";
	pt_metric_format(pt_metric_info(c->v->ms, (unsigned)i), &c->st->values[i], buf, len);
	return buf;
}

static void gap(struct cx *c)
{
	if (c->gaps)
		c->row++;
}

/* ---- the title and the lines under it -------------------------------- */

#define PROG_TITLE " nfb-pcie-telemetry --top "

/* The title from column col: the device and the interval, then what the
 * user must not miss (a pause, a card that lags); the end column. */
static unsigned title_state(struct cx *c, unsigned col)
{
	const struct pt_view_state *st = c->st;
	unsigned w = c->cols;

	col = pt_vs_putf(c->s, 0, col, w, PT_VIEW_TITLE, " %s  every %g s",
			 st->device ? st->device : "", st->interval);
	if (st->values)
		col = pt_vs_putf(c->s, 0, col, w, PT_VIEW_TITLE, ", measured %.2f s", st->seconds);
	if (st->paused)
		col = pt_vs_put(c->s, 0, col + 2, w, PT_VIEW_WARN, " PAUSED ");
	if (st->lag >= 0.005)
		col = pt_vs_putf(c->s, 0, col + 2, w, PT_VIEW_WARN, " the card lags %.2f s ", st->lag);
	return col;
}

static void title(struct cx *c)
{
	unsigned w = c->cols, end, prog = (unsigned)strlen(PROG_TITLE);

	pt_vs_role(c->s, 0, 0, w, PT_VIEW_TITLE);
	/* the program's name only where the rest fits beside it */
	end = title_state(c, 0);
	if (end + prog + 8 <= w) {
		pt_vs_role(c->s, 0, 0, w, PT_VIEW_TITLE);
		pt_vs_put(c->s, 0, 0, w, PT_VIEW_TITLE, PROG_TITLE);
		end = title_state(c, prog);
	}
	if (end + 8 <= w)
		pt_vs_rput(c->s, 0, end, w, PT_VIEW_TITLE, "? help ");
}

static void notice_and_flags(struct cx *c)
{
	const struct pt_view_state *st = c->st;
	uint32_t status = st->reading ? st->reading->status : 0;

	if (st->notice && st->notice[0]) {
		int role = st->notice_warn ? PT_VIEW_WARN : PT_VIEW_NORMAL;

		pt_vs_put(c->s, c->row, 0, c->cols, role, st->notice);
		c->row++;
	}
	if (status & PT_STATUS_LOST_DELTAS)
		pt_vs_put(c->s, c->row++, 0, c->cols, PT_VIEW_WARN,
			  "!! LOST DELTAS - the counters of this interval are not exact");
	if (status & PT_STATUS_OVERRUN)
		pt_vs_put(c->s, c->row++, 0, c->cols, PT_VIEW_WARN,
			  "!! READ-OUT OVERRUN - the counters of this interval are not exact");
}

static void endpoint_line(struct cx *c)
{
	unsigned r = c->row++, w = c->cols, col;
	struct pt_link k;

	col = pt_vs_putf(c->s, r, 0, w, PT_VIEW_HEADER, "PCIe endpoint %u (of %u)", c->ep,
			 c->l->endpoints);
	if (!c->st->reading)
		return;
	pt_link_decode(c->st->reading, c->ep, &k);
	col = pt_vs_put(c->s, r, col + 2, w, k.link_up ? PT_VIEW_NORMAL : PT_VIEW_WARN,
			k.link_up ? "link up" : "link DOWN");
	pt_vs_putf(c->s, r, col, w, PT_VIEW_NORMAL,
		   "  MPS %u B  MRRS %u B  RCB %u B  ext tag %s  10-bit tag %s", k.mps, k.mrrs, k.rcb,
		   k.ext_tag ? "on" : "off", k.tag_10b ? "on" : "off");
}

/* ---- the bus table ---------------------------------------------------- */

/* Where the columns of the bus table go at this width. */
struct bus_cols {
	bool short_names;
	unsigned name_w, words, stall, pct_w, bar_w, gbps, mpps, spark, spark_w;
};

static void bus_label(const struct cx *c, unsigned b, bool short_name, char *buf, size_t len)
{
	unsigned p = pt_layout_bus_port(c->l, b);

	if (!short_name) {
		pt_layout_bus_name(c->l, b, buf, len);
		return;
	}
	switch (pt_layout_bus_kind(c->l, b)) {
	case PT_BUS_RQ: snprintf(buf, len, "RQ"); break;
	case PT_BUS_RC: snprintf(buf, len, "RC"); break;
	case PT_BUS_UP: snprintf(buf, len, "UP%u", p); break;
	case PT_BUS_DOWN: snprintf(buf, len, "DOWN%u", p); break;
	}
}

static unsigned name_width(const struct cx *c, bool short_names)
{
	unsigned w = 3; /* "Bus" */

	for (unsigned b = 0; b < c->l->buses; b++) {
		char name[64];

		bus_label(c, b, short_names, name, sizeof name);
		if (strlen(name) > w)
			w = (unsigned)strlen(name);
	}
	return w;
}

static void plan_bus_cols(const struct cx *c, struct bus_cols *k)
{
	const unsigned pct = NUM_W + 1; /* a share's number and a space after it */
	unsigned w = c->cols, fixed, avail;

	memset(k, 0, sizeof *k);
	k->name_w = name_width(c, false);
	if (w < k->name_w + 2 + 2 * pct + 2 * RATE_W) {
		k->short_names = true;
		k->name_w = name_width(c, true);
	}
	/* the name and "  ", the two rates; the rest is two shares (a bar
	 * and its number each) and "  " and the sparkline */
	fixed = k->name_w + 2 + 2 * RATE_W;
	avail = w > fixed ? w - fixed : 0;
	if (avail >= 2 * (BAR_MAX + pct) + 2 + SPARK_MIN) {
		k->bar_w = BAR_MAX;
		k->spark_w = avail - 2 * (BAR_MAX + pct) - 2;
	} else if (avail >= 2 * (BAR_MIN + pct) + 2 + SPARK_MIN) {
		/* what is left over the narrowest of both: half to the bars */
		unsigned extra = avail - (2 * (BAR_MIN + pct) + 2 + SPARK_MIN);

		k->bar_w = BAR_MIN + extra / 4;
		k->spark_w = avail - 2 * (k->bar_w + pct) - 2;
	} else if (avail >= 2 * pct + 2 + SPARK_MIN) {
		k->spark_w = avail - 2 * pct - 2; /* the history before the bars */
	} else {
		k->bar_w = avail / 2 > pct ? avail / 2 - pct : 0;
		if (k->bar_w > BAR_MAX)
			k->bar_w = BAR_MAX;
		if (k->bar_w < BAR_MIN)
			k->bar_w = 0;
	}
	k->pct_w = k->bar_w + pct;
	k->words = k->name_w + 2;
	k->stall = k->words + k->pct_w;
	k->gbps = k->stall + k->pct_w;
	k->mpps = k->gbps + RATE_W;
	k->spark = k->mpps + RATE_W + 2;
}

/* A share: its bar (when there is room for one) and its number. */
static void share(struct cx *c, unsigned r, unsigned col, const struct bus_cols *k, int i,
		  int role)
{
	char buf[64];

	if (k->bar_w)
		pt_vs_bar(c->s, r, col, k->bar_w, fval(c, i), role, c->st->unicode);
	pt_vs_rput(c->s, r, col + k->bar_w, col + k->pct_w - 1, PT_VIEW_NORMAL,
		   ftext(c, i, buf, sizeof buf));
}

/* The throughput of series j over the last PT_VIEW_WINDOW seconds, one
 * cell per slice of the window: the mean of the samples over the part of
 * the slice they cover (so, bytes over time), scaled to the highest cell;
 * blank where no interval was measured. */
static void sparkline(struct cx *c, unsigned r, unsigned col, unsigned width, unsigned j)
{
	const struct pt_view_hist *h = &c->v->hist;
	double end = c->st->time, from = end - PT_VIEW_WINDOW, peak = 0.0, t0, t1;
	double mean[PT_VIEW_MAX_COLS];
	unsigned k = 0;

	if (width == 0 || h->n == 0 || !isfinite(end))
		return;
	width = width < PT_VIEW_MAX_COLS ? width : PT_VIEW_MAX_COLS;
	for (unsigned i = 0; i < width; i++) {
		double a = from + i * PT_VIEW_WINDOW / width, b = from + (i + 1) * PT_VIEW_WINDOW / width;
		double sum = 0.0, covered = 0.0;

		/* samples end in time order: those that end before the slice
		 * are done with; one that reaches past it counts again next */
		while (k < h->n && (pt_view_hist_get(h, k, &t0, &t1), t1 <= a))
			k++;
		for (unsigned q = k; q < h->n; q++) {
			double x = pt_view_hist_val(h, q, j), o;

			pt_view_hist_get(h, q, &t0, &t1);
			if (t0 >= b)
				break;
			o = fmin(t1, b) - fmax(t0, a);
			if (o > 0 && !isnan(x))
				sum += x * o, covered += o;
		}
		mean[i] = covered > 0 ? sum / covered : NAN;
		if (mean[i] > peak)
			peak = mean[i];
	}
	for (unsigned i = 0; i < width; i++) {
		unsigned level = 0;

		if (isnan(mean[i]))
			continue;
		if (peak > 0.0 && mean[i] > 0.0)
			level = (unsigned)fmin(7.0, fmax(0.0, ceil(mean[i] / peak * 8.0) - 1.0));
		pt_vs_glyph(c->s, r, col + i, pt_vs_spark_glyph(level, c->st->unicode), PT_VIEW_SPARK);
	}
}

static void bus_row(struct cx *c, unsigned b, const struct bus_cols *k)
{
	enum pt_bus_kind kind = pt_layout_bus_kind(c->l, b);
	bool dma = kind == PT_BUS_UP || kind == PT_BUS_DOWN;
	unsigned r = c->row++, w = c->cols;
	int gbps = inst(c, PT_VF_GBPS, (int)b, -1, -1);
	char name[64], buf[64];

	bus_label(c, b, k->short_names, name, sizeof name);
	pt_vs_put(c->s, r, 0, k->name_w, PT_VIEW_NORMAL, name);
	share(c, r, k->words, k, inst(c, PT_VF_WORDS, (int)b, -1, -1), PT_VIEW_WORDS);
	share(c, r, k->stall, k, inst(c, PT_VF_STALL, (int)b, -1, -1), PT_VIEW_STALL);
	pt_vs_rput(c->s, r, k->gbps, k->gbps + RATE_W < w ? k->gbps + RATE_W : w, PT_VIEW_NORMAL,
		   ftext(c, gbps, buf, sizeof buf));
	pt_vs_rput(c->s, r, k->mpps, k->mpps + RATE_W < w ? k->mpps + RATE_W : w, PT_VIEW_NORMAL,
		   ftext(c, inst(c, dma ? PT_VF_DMA_MPPS : PT_VF_PCIE_MPPS, (int)b, -1, -1), buf,
			 sizeof buf));
	if (k->spark_w && gbps >= 0)
		sparkline(c, r, k->spark, k->spark_w,
			  (unsigned)gbps - pt_metric_family_info(c->v->ms, c->v->fam[PT_VF_GBPS])->first);
}

static void bus_table(struct cx *c)
{
	struct bus_cols k;
	unsigned r, w = c->cols;

	plan_bus_cols(c, &k);
	r = c->row++;
	pt_vs_role(c->s, r, 0, w, PT_VIEW_HEADER);
	pt_vs_put(c->s, r, 0, w, PT_VIEW_HEADER, "Bus");
	pt_vs_put(c->s, r, k.words, w, PT_VIEW_HEADER, "Words %");
	pt_vs_put(c->s, r, k.stall, w, PT_VIEW_HEADER, "Stall %");
	pt_vs_rput(c->s, r, k.gbps, k.gbps + RATE_W < w ? k.gbps + RATE_W : w, PT_VIEW_HEADER, "Gbit/s");
	pt_vs_rput(c->s, r, k.mpps, k.mpps + RATE_W < w ? k.mpps + RATE_W : w, PT_VIEW_HEADER, "Mpps");
	if (k.spark_w)
		pt_vs_putf(c->s, r, k.spark, k.spark + k.spark_w, PT_VIEW_HEADER,
			   k.spark_w >= 17 ? "Gbit/s, last %.0f s" : "last %.0f s", PT_VIEW_WINDOW);
	for (unsigned b = 0; b < c->l->buses; b++)
		bus_row(c, b, &k);
}

/* ---- tags and storage FIFO ------------------------------------------- */

/* "LABEL NOW (lowest LOW) of CAP UNIT", the lowest in the warning role
 * when it reached 0; returns the column after it. */
static unsigned resource(struct cx *c, unsigned r, unsigned col, const char *label, unsigned now,
			 unsigned low, unsigned cap, const char *unit)
{
	unsigned w = c->cols;

	if (!c->st->reading)
		return pt_vs_putf(c->s, r, col, w, PT_VIEW_NORMAL, "%s -", label);
	col = pt_vs_putf(c->s, r, col, w, PT_VIEW_NORMAL, "%s %u%s ", label, now, unit);
	col = pt_vs_putf(c->s, r, col, w, low == 0 ? PT_VIEW_WARN : PT_VIEW_NORMAL, "(lowest %u)", low);
	return pt_vs_putf(c->s, r, col, w, PT_VIEW_NORMAL, " of %u", cap);
}

static void resources(struct cx *c)
{
	struct pt_link k = { 0 };
	unsigned col;

	if (c->st->reading)
		pt_link_decode(c->st->reading, c->ep, &k);
	col = resource(c, c->row, 0, "PTC tags free", k.tags_free, k.tags_free_min,
		       c->l->tag_capacity, "");
	/* the second on the same line when it fits (about 50 characters) */
	if (col + 4 + 52 > c->cols)
		c->row++, col = 0;
	else
		col += 4;
	resource(c, c->row++, col, "PTC storage FIFO free", k.stfifo_free, k.stfifo_free_min,
		 c->l->stfifo_capacity, " words");
}

/* ---- BRAKE reasons ---------------------------------------------------- */

/* The i-th reason of a stream (the UP stream ends with the RQ stall as
 * "PCIe endpoint not ready"): its label and instance; false past the end. */
static bool reason(const struct cx *c, enum pt_stream stream, unsigned i, const char **label,
		   char buf[PT_REGS_NAME_LEN], int *in)
{
	for (unsigned k = 0; k < c->l->driven_brakes; k++) {
		if (pt_brake_stream(k) != stream || i-- > 0)
			continue;
		*label = pt_brake_label(k, buf);
		*in = inst(c, PT_VF_BRAKE, -1, (int)k, -1);
		return true;
	}
	if (stream != PT_STREAM_UP || i != 0)
		return false;
	*label = PT_BRAKE_LABEL_RQ_STALL;
	*in = inst(c, PT_VF_NOT_READY, -1, -1, -1);
	return true;
}

static unsigned reasons_of(const struct cx *c, enum pt_stream stream, unsigned *label_w)
{
	char buf[PT_REGS_NAME_LEN];
	const char *label;
	unsigned n = 0;
	int in;

	while (reason(c, stream, n, &label, buf, &in)) {
		if (strlen(label) > *label_w)
			*label_w = (unsigned)strlen(label);
		n++;
	}
	return n;
}

/* Reason i of a stream at (r, col) in a column of width cw. */
static void reason_cell(struct cx *c, enum pt_stream stream, unsigned i, unsigned r, unsigned col,
			unsigned cw, unsigned label_w)
{
	char lbuf[PT_REGS_NAME_LEN], buf[64];
	const char *label;
	unsigned bar = cw > label_w + 1 + NUM_W ? cw - label_w - 1 - NUM_W : 0;
	int in;

	if (!reason(c, stream, i, &label, lbuf, &in))
		return;
	if (bar > 30)
		bar = 30;
	if (bar < BAR_MIN)
		bar = 0;
	pt_vs_put(c->s, r, col, col + label_w, PT_VIEW_NORMAL, label);
	if (bar)
		pt_vs_bar(c->s, r, col + label_w + 1, bar, fval(c, in), PT_VIEW_BRAKE, c->st->unicode);
	pt_vs_rput(c->s, r, col + label_w + 1 + bar, col + label_w + 1 + bar + NUM_W, PT_VIEW_NORMAL,
		   ftext(c, in, buf, sizeof buf));
}

static void brakes(struct cx *c)
{
	unsigned label_w = 0, w = c->cols;
	unsigned nu = reasons_of(c, PT_STREAM_UP, &label_w), nd = reasons_of(c, PT_STREAM_DOWN, &label_w);
	unsigned half = w / 2;
	bool two = nd > 0 && half >= label_w + 1 + BAR_MIN + NUM_W + 2;

	pt_vs_role(c->s, c->row, 0, w, PT_VIEW_HEADER);
	pt_vs_put(c->s, c->row++, 0, w, PT_VIEW_HEADER,
		  "Why the PCIe transfer stopped (% of PCIe clock cycles)");
	if (two) {
		pt_vs_put(c->s, c->row, 0, half, PT_VIEW_NORMAL, "UP stream");
		pt_vs_put(c->s, c->row++, half, w, PT_VIEW_NORMAL, "DOWN stream");
		for (unsigned i = 0; i < nu || i < nd; i++, c->row++) {
			reason_cell(c, PT_STREAM_UP, i, c->row, 0, half - 2, label_w);
			reason_cell(c, PT_STREAM_DOWN, i, c->row, half, w - half, label_w);
		}
		return;
	}
	for (unsigned i = 0; i < nu; i++, c->row++)
		reason_cell(c, PT_STREAM_UP, i, c->row, 0, w, label_w);
	for (unsigned i = 0; i < nd; i++, c->row++)
		reason_cell(c, PT_STREAM_DOWN, i, c->row, 0, w, label_w);
}

/* ---- histograms ------------------------------------------------------- */

static void hists(struct cx *c)
{
	const struct pt_layout *l = c->l;
	unsigned label_w = (unsigned)strlen("Time spent low"), w = c->cols, r;
	char buf[64];

	if (l->pcie_hists == 0)
		return;
	for (unsigned h = 0; h < l->pcie_hists; h++)
		if (strlen(pt_hist_label(h, buf)) > label_w)
			label_w = (unsigned)strlen(pt_hist_label(h, buf));
	r = c->row++;
	pt_vs_role(c->s, r, 0, w, PT_VIEW_HEADER);
	pt_vs_put(c->s, r, 0, w, PT_VIEW_HEADER, "Time spent low");
	pt_vs_rput(c->s, r, label_w, label_w + 6, PT_VIEW_HEADER, "of");
	for (unsigned b = 0; b < l->hist_bands; b++)
		pt_vs_rput(c->s, r, label_w + 6 + 8 * b, label_w + 14 + 8 * b, PT_VIEW_HEADER,
			   pt_band_label(b, buf));
	for (unsigned h = 0; h < l->pcie_hists; h++) {
		unsigned cap = pt_layout_hist_capacity(l, h);

		r = c->row++;
		pt_vs_put(c->s, r, 0, label_w, PT_VIEW_NORMAL, pt_hist_label(h, buf));
		if (cap)
			snprintf(buf, sizeof buf, "%u", cap);
		else
			snprintf(buf, sizeof buf, "-");
		pt_vs_rput(c->s, r, label_w, label_w + 6, PT_VIEW_NORMAL, buf);
		for (unsigned b = 0; b < l->hist_bands; b++)
			pt_vs_rput(c->s, r, label_w + 6 + 8 * b, label_w + 14 + 8 * b, PT_VIEW_NORMAL,
				   ftext(c, inst(c, PT_VF_BAND, -1, (int)h, (int)b), buf, sizeof buf));
	}
}

/* ---- help and the bottom line ---------------------------------------- */

static void help(struct cx *c)
{
	static const char *const text[] = {
		"Keys",
		"  q          quit (Ctrl-C and SIGTERM too)",
		"  space      pause or resume the measurement",
		"  + -        a longer or a shorter interval (0.1 s to 60 s)",
		"  e E        the next or the previous endpoint",
		"  c          clear the card's counters, flags and marks (asks y/n)",
		"  ?          this help; any other key closes it",
		"",
		"Words %: the bus's clock cycles in which a word moved.  Stall %: those in",
		"which the source had a word and the consumer refused it.",
		"Gbit/s, last 60 s: each bus scaled to its own peak in the window.",
		"Why the PCIe transfer stopped: the PCIe clock cycles each BRAKE reason held.",
		"Time spent low: the PCIe clock cycles with none, at most 1/8, at most 1/2",
		"and more of the tags (storage FIFO words) free.  docs/top.md has the rest.",
	};

	for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
		pt_vs_put(c->s, c->row++, 0, c->cols, i == 0 ? PT_VIEW_HEADER : PT_VIEW_NORMAL, text[i]);
}

static void bottom_line(struct cx *c, unsigned r)
{
	const struct pt_view_state *st = c->st;

	if (st->overlay == PT_VIEW_CONFIRM_CLEAR) {
		pt_vs_role(c->s, r, 0, c->cols, PT_VIEW_WARN);
		pt_vs_putf(c->s, r, 0, c->cols, PT_VIEW_WARN,
			   " Clear every counter, flag and mark of %s? y/n ", st->device ? st->device : "the card");
		return;
	}
	pt_vs_role(c->s, r, 0, c->cols, PT_VIEW_KEYS);
	pt_vs_putf(c->s, r, 0, c->cols, PT_VIEW_KEYS, " q quit  space %s  +/- interval%s  c clear  ? help",
		   st->paused ? "resume" : "pause", c->l->endpoints > 1 ? "  e endpoint" : "");
}

/* ---- the whole screen ------------------------------------------------- */

static void body(struct cx *c)
{
	notice_and_flags(c);
	if (c->st->overlay == PT_VIEW_HELP) {
		help(c);
		return;
	}
	endpoint_line(c);
	gap(c);
	bus_table(c);
	gap(c);
	resources(c);
	gap(c);
	brakes(c);
	gap(c);
	hists(c);
}

int pt_view_compose(struct pt_view *v, const struct pt_view_state *st, unsigned rows,
		    unsigned cols)
{
	struct cx c = { .v = v, .st = st, .s = &v->scr, .l = v->l, .gaps = true };
	bool keys = rows >= KEYS_MIN_ROWS || st->overlay == PT_VIEW_CONFIRM_CLEAR;
	unsigned bottom;
	int rc;

	rows = rows < 1 ? 1 : rows > PT_VIEW_MAX_ROWS ? PT_VIEW_MAX_ROWS : rows;
	cols = cols < 1 ? 1 : cols > PT_VIEW_MAX_COLS ? PT_VIEW_MAX_COLS : cols;
	if ((rc = pt_view_screen_size(v, rows, cols)) < 0)
		return rc;
	c.cols = cols;
	c.ep = st->ep < v->l->endpoints ? st->ep : 0;
	bottom = keys && rows > 1 ? rows - 1 : rows;
	title(&c);
	/* the body may not write below its last row: the screen is cut there
	 * while it is composed, and composed again without the blank lines
	 * when it did not fit */
	v->scr.rows = bottom;
	c.row = 1;
	body(&c);
	if (c.row > bottom) {
		pt_view_screen_size(v, rows, cols);
		title(&c);
		v->scr.rows = bottom;
		c.row = 1;
		c.gaps = false;
		body(&c);
	}
	v->scr.rows = rows;
	if (bottom < rows)
		bottom_line(&c, rows - 1);
	return 0;
}
