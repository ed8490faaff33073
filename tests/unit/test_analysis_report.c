/*
 * Every built-in metric gives the same value as the report's column it
 * defines, on all public report cases: each text case is replayed as the
 * tool reads it, the built-in metrics are evaluated on the reading, and
 * every derived cell of the upstream tool's golden output (clock line, bus
 * table, reasons, histograms) is compared, as a string, with the metric
 * printed with its Precision.  The golden text is upstream's, so this
 * does not go through the C renderer at all.
 *
 * Every instance of a family of the group "report" must meet its cell in
 * every case where the report shows it (rates only with an interval), and
 * every family of the group must meet cells somewhere; the families that
 * are not in the report are listed here, so a new built-in metric must say
 * which it is.  (The JSON cases have no derived figures, and -c none.)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/metrics.h"
#include "test_layout_util.h"
#include "test_report_util.h"

/* Built-in families the text report does not show. */
static const char *const not_in_report[] = {
	"{bus}.bytes",
	"{dma_brake}_pct",
	"{dma_band}_pct",
	"{padded_bus}.corrected_items",
	"{padded_bus}.corrected_bytes",
	"{padded_bus}.corrected_gbps",
	"{padded_bus}.overstatement_pct",
};

struct check {
	const char *name;
	const struct pt_metric_set *s;
	const struct pt_metric_value *v;
	unsigned char *met; /* instances compared in this case */
	unsigned *fam_met;  /* cells met per family, over all cases */
	bool rates;         /* the report shows rates (seconds is set) */
	unsigned cells, bad;
};

static bool in_report(const struct pt_metric_info *in)
{
	const char *g = strstr(in->groups, "report");

	return g && (g == in->groups || g[-1] == ';') && (g[6] == '\0' || g[6] == ';');
}

/* The cell as the metric prints it; "" for a family without this
 * instance (the report's '-'). */
static bool metric_cell(struct check *c, const char *family, struct pt_metric_where w, char *buf,
			size_t len)
{
	int f = pt_metric_family_find(c->s, family);
	int i = f < 0 ? -1 : pt_metric_lookup(c->s, (unsigned)f, &w);

	if (i < 0)
		return false;
	assert_int_equal(pt_metric_format(pt_metric_info(c->s, (unsigned)i), &c->v[i], buf, len), 0);
	c->met[i] = 1;
	c->fam_met[f]++;
	return true;
}

/* Compare one golden cell with the metric's; absent: the cell must be
 * `absent` (the report's dash or its empty rate). */
static void cell(struct check *c, const char *golden, const char *family, struct pt_metric_where w,
		 const char *absent)
{
	char got[400];

	if (!metric_cell(c, family, w, got, sizeof got))
		snprintf(got, sizeof got, "%s", absent);
	c->cells++;
	if (strcmp(got, golden) != 0) {
		c->bad++;
		print_message("%s: %s of endpoint %d bus %d item %d band %d: report '%s', metric '%s'\n",
			      c->name, family, w.ep, w.bus, w.item, w.band, golden, got);
	}
}

/* Text from a to b without the spaces around it. */
static void strip(const char *a, const char *b, char *out, size_t len)
{
	while (a < b && *a == ' ')
		a++;
	while (b > a && b[-1] == ' ')
		b--;
	snprintf(out, len, "%.*s", (int)(b - a), a);
}

/* The cells of a table row, by the column widths of its dash row. */
static unsigned row_cells(const char *row, const char *dashes, char cells[][400], unsigned max)
{
	unsigned n = 0;
	size_t rowlen = strcspn(row, "\n");
	const char *d = dashes;

	while (*d == '-' && n < max) {
		size_t start = (size_t)(d - dashes), w = strspn(d, "-");
		size_t end = start + w < rowlen ? start + w : rowlen;
		strip(row + (start < rowlen ? start : rowlen), row + end, cells[n++], 400);
		d += w;
		if (d[0] == ' ' && d[1] == ' ')
			d += 2;
	}
	return n;
}

static const char *next_line(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e + 1 : p + strlen(p);
}

static const char *bus_table(struct check *c, const char *p, int ep)
{
	const char *dashes = next_line(p);
	char cl[10][400];
	const struct pt_metric_where none = { -1, -1, -1, -1 };
	const struct pt_layout *l = pt_metric_layout(c->s);

	p = next_line(dashes);
	for (int b = 0; *p && *p != '\n'; b++, p = next_line(p)) {
		struct pt_metric_where w = none;
		w.ep = ep;
		w.bus = b;
		assert_int_equal(row_cells(p, dashes, cl, 10), 10);
		cell(c, cl[1], "{bus}.used_pct", w, "");
		cell(c, cl[2], "{bus}.words_pct", w, "");
		cell(c, cl[3], "{bus}.stall_pct", w, "");
		cell(c, cl[4], "{dma_bus}.mvb_stall_pct", w, "-");
		/* the regions: one cell of space-separated shares */
		char regions[400] = "", one[64];
		size_t o = 0;
		for (int r = 0; r < (int)pt_layout_bus_real_regions(l, (unsigned)b); r++) {
			struct pt_metric_where wr = w;
			wr.item = r;
			if (!metric_cell(c, "{region}_pct", wr, one, sizeof one))
				snprintf(one, sizeof one, "(none)");
			o += (size_t)snprintf(regions + o, sizeof regions - o, "%s%s", r ? " " : "", one);
		}
		c->cells++;
		if (strcmp(regions, cl[5]) != 0) {
			c->bad++;
			print_message("%s: regions of endpoint %d bus %d: report '%s', metrics '%s'\n",
				      c->name, ep, b, cl[5], regions);
		}
		if (c->rates) {
			cell(c, cl[6], "{bus}.gbps", w, "");
			cell(c, cl[7], b < 2 ? "{pcie_bus}.mpps" : "{dma_bus}.mpps", w, "");
		} else {
			assert_string_equal(cl[6], "");
			assert_string_equal(cl[7], "");
		}
		cell(c, cl[8], "{up}.rd_pct", w, "-");
		cell(c, cl[9], "{bus}.avg_bytes", w, "");
	}
	return p;
}

/* "label   12.34 %": the label and the value. */
static void reason_cell(struct check *c, const char *text, int ep)
{
	const struct pt_layout *l = pt_metric_layout(c->s);
	struct pt_metric_where w = { ep, -1, -1, -1 };
	char buf[400], label[PT_REGS_NAME_LEN];
	size_t n = strlen(text);

	assert_true(n > 2 && strcmp(text + n - 2, " %") == 0);
	strip(text, text + n - 2, buf, sizeof buf);
	char *value = strrchr(buf, ' ');
	assert_non_null(value);
	*value++ = '\0';
	strip(buf, buf + strlen(buf), label, sizeof label);
	if (strcmp(label, PT_BRAKE_LABEL_RQ_STALL) == 0) {
		cell(c, value, "{ep}.brake.endpoint_not_ready_pct", w, "");
		return;
	}
	for (unsigned k = 0; k < l->driven_brakes; k++) {
		char lb[PT_REGS_NAME_LEN];
		if (strcmp(pt_brake_label(k, lb), label) == 0) {
			w.item = (int)k;
			cell(c, value, "{brake}_pct", w, "");
			return;
		}
	}
	fail_msg("%s: unknown reason '%s'", c->name, label);
}

static const char *reasons(struct check *c, const char *p, int ep)
{
	const char *head = next_line(p);
	size_t hl = strcspn(head, "\n");
	const char *down = strstr(head, "DOWN stream");
	size_t dcol = down && (size_t)(down - head) < hl ? (size_t)(down - head) : 0;
	char buf[400];

	for (p = next_line(head); *p && *p != '\n'; p = next_line(p)) {
		size_t n = strcspn(p, "\n");
		size_t split = dcol && dcol < n ? dcol : n;
		strip(p, p + split, buf, sizeof buf);
		if (*buf)
			reason_cell(c, buf, ep);
		if (split < n) {
			strip(p + split, p + n, buf, sizeof buf);
			if (*buf)
				reason_cell(c, buf, ep);
		}
	}
	return p;
}

static const char *hists(struct check *c, const char *p, int ep)
{
	const struct pt_layout *l = pt_metric_layout(c->s);
	const char *dashes = next_line(p);
	char cl[40][400];

	p = next_line(dashes);
	for (int h = 0; *p && *p != '\n'; h++, p = next_line(p)) {
		unsigned n = row_cells(p, dashes, cl, 40);
		char lb[PT_REGS_NAME_LEN];
		assert_string_equal(cl[0], pt_hist_label((unsigned)h, lb));
		assert_int_equal(n, 2 + l->hist_bands);
		for (int b = 0; b < (int)l->hist_bands; b++) {
			const struct pt_metric_where w = { ep, -1, h, b };
			cell(c, cl[2 + b], "{band}_pct", w, "");
		}
	}
	return p;
}

/* Walk the golden report: per endpoint its clock line and tables. */
static void compare_report(struct check *c, const char *text)
{
	int ep = -1;

	for (const char *p = text; *p; p = next_line(p)) {
		char a[64], b[64];
		if (sscanf(p, "PCIe endpoint %d", &ep) == 1)
			continue;
		if (sscanf(p, "  PCIe clock %63s MHz, DMA clock %63s MHz", a, b) == 2) {
			const struct pt_metric_where w = { ep, -1, -1, -1 };
			cell(c, a, "{ep}.pcie_clock_mhz", w, "");
			cell(c, b, "{ep}.dma_clock_mhz", w, "");
		} else if (strncmp(p, "Bus ", 4) == 0) {
			p = bus_table(c, p, ep);
		} else if (strncmp(p, "  Why the PCIe transfer stopped", 31) == 0) {
			p = reasons(c, p, ep);
		} else if (strncmp(p, "Time spent low", 14) == 0) {
			p = hists(c, p, ep);
		}
		if (!*p)
			break;
	}
}

/* Every instance of the report's families met its cell, but the rates
 * when the report shows none (they are NaN then). */
static void all_met(struct check *c)
{
	for (unsigned i = 0; i < pt_metric_count(c->s); i++) {
		const struct pt_metric_info *in = pt_metric_info(c->s, i);
		if (!in_report(in) || c->met[i])
			continue;
		if (!c->rates && isnan(c->v[i].f) && (strcmp(in->unit, "MHz") == 0 ||
						      strcmp(in->unit, "Gbit/s") == 0 ||
						      strcmp(in->unit, "Mpps") == 0))
			continue;
		c->bad++;
		print_message("%s: %s is in the group 'report' but met no cell\n", c->name, in->name);
	}
}

static bool check_case(const char *name, unsigned **fam_met, unsigned *nfam)
{
	struct args a;
	int want_rc;

	pt_test_case_args(name, &a, &want_rc);
	if (want_rc != 0 || a.clear || a.json)
		return false;
	char path[1024], msg[PT_METRIC_MSG_LEN];
	struct pt_bus *bus = NULL;
	struct measured m;
	snprintf(path, sizeof path, "%s/%s.regs", CASE_DIR, name);
	if (pt_bus_open_image(path, &bus, msg, sizeof msg) || measure(bus, a.interval_mode, &m, msg, sizeof msg))
		fail_msg("%s: %s", name, msg);
	struct pt_metric_set *s;
	if (pt_metric_bind_builtin(&m.dev.layout, &s, msg, sizeof msg))
		fail_msg("%s: %s", name, msg);
	if (!*fam_met) {
		*nfam = pt_metric_family_count(s);
		assert_non_null(*fam_met = calloc(*nfam, sizeof **fam_met));
	}
	struct pt_metric_value *v = calloc(pt_metric_count(s) + 1, sizeof *v);
	struct check c = { name, s, v, calloc(pt_metric_count(s) + 1, 1), *fam_met,
			   m.interval && m.seconds != 0.0, 0, 0 };
	const struct pt_metric_input in = { m.interval ? &m.diff : &m.second, m.interval, m.seconds };
	assert_true(pt_metric_eval(s, &in, v) >= 0);
	char *golden = pt_test_case_golden(name);
	compare_report(&c, golden);
	all_met(&c);
	print_message("%s: %u cells, %u differ\n", name, c.cells, c.bad);
	assert_int_equal(c.bad, 0);
	assert_true(c.cells > 20);
	free(golden);
	free(c.met);
	free(v);
	pt_metric_set_free(s);
	measured_free(&m);
	pt_bus_close(bus);
	return true;
}

static void test_metrics_equal_report(void **state)
{
	char *names[512];
	unsigned n = pt_test_report_cases(names, 512), cases = 0, nfam = 0, *fam_met = NULL;

	(void)state;
	for (unsigned i = 0; i < n; i++) {
		cases += check_case(names[i], &fam_met, &nfam);
		free(names[i]);
	}
	assert_true(cases >= 20);
	/* each family: in the group "report" and met, or listed as not in the
	 * report and in no such group (a layout where every family has
	 * instances: padded buses, DMA-probe BRAKE inputs) */
	const struct pt_test_shape shape = { .e = 1, .p = 1, .rq = 2, .rc = 1,
					     .up = 2, .down = 1, .driven = 6, .hists = 2, .bands = 4,
					     .dma_driven = 1, .dma_hists = 1 };
	struct pt_metric_set *s;
	struct pt_layout l;
	char msg[PT_METRIC_MSG_LEN];
	pt_test_layout(&shape, 48, &l);
	assert_int_equal(pt_metric_bind_builtin(&l, &s, msg, sizeof msg), 0);
	assert_int_equal(pt_metric_family_count(s), nfam);
	for (unsigned f = 0; f < nfam; f++) {
		const struct pt_metric_family *fi = pt_metric_family_info(s, f);
		bool listed = false, met = fam_met[f] != 0;
		for (size_t k = 0; k < sizeof not_in_report / sizeof not_in_report[0]; k++)
			listed |= strcmp(not_in_report[k], fi->name) == 0;
		assert_true(fi->count > 0);
		bool grouped = in_report(pt_metric_info(s, fi->first));
		if (met && (listed || !grouped))
			fail_msg("%s met report cells, but it is %s", fi->name,
				 listed ? "listed as not in the report" : "not in the group 'report'");
		if (!met && (!listed || grouped))
			fail_msg("%s met no report cell, but it is %s", fi->name,
				 grouped ? "in the group 'report'" : "not listed as not in the report");
	}
	pt_metric_set_free(s);
	free(fam_met);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_equal_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
