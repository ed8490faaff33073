/*
 * Unit tests of the Prometheus renderer on hand-built layouts: every
 * counter of a layout is one sample with the labels of its machine name,
 * bytes are items x item bytes, a device that is down shows only the
 * poller's figures, label values are escaped, OpenMetrics declares
 * counters without _total and ends with # EOF, promtool accepts the text
 * of every layout, and docs/exporter.md names every metric.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/render_prom.h"
#include "test_layout_util.h"
#include "test_util.h"

#if defined(PCIE_TELEMETRY_BUS_H) || defined(PCIE_TELEMETRY_TELEMETRY_H)
#error "render_prom.h must include only the layout and reading headers"
#endif

static const struct pt_test_shape shapes[] = {
	{ 1, 1, 2, 2, 2, 2, 6, 2, 4, 0, 0 },  /* the firmware's usual build */
	{ 2, 2, 1, 2, 4, 3, 6, 2, 4, 0, 0 },  /* padding regions (rq 1 of 2, down 3 of 4) */
	{ 1, 1, 2, 2, 2, 2, 9, 3, 5, 2, 2 },  /* unnamed reasons, bands, DMA BRAKEs and histograms */
	{ 16, 1, 1, 1, 1, 1, 6, 2, 4, 0, 0 }, /* 16 endpoints */
};

struct dev {
	struct pt_layout l;
	struct pt_reading r;
	struct pt_prom_plan *plan;
	uint64_t *value;
	struct pt_prom_device d;
};

static void dev_init(struct dev *x, const struct pt_test_shape *s, const char *name)
{
	unsigned n;

	memset(x, 0, sizeof(*x));
	pt_test_layout(s, 48, &x->l);
	n = pt_counter_count(&x->l);
	assert_int_equal(pt_render_prom_plan_new(&x->l, &x->plan), 0);
	x->value = calloc(n, sizeof(*x->value));
	assert_non_null(x->value);
	for (unsigned i = 0; i < n; i++)
		x->value[i] = 1000003u * i + 7;
	for (unsigned ep = 0; ep < x->l.endpoints; ep++) {
		x->r.pcie_status[ep] = pt_field_put(PT_FIELD_EP_LINK_UP, 1) | pt_field_put(PT_FIELD_EP_MPS, 1);
		x->r.pcie_tags[ep] = pt_field_put(PT_FIELD_TAGS_NOW, 200) | pt_field_put(PT_FIELD_TAGS_MIN, 3 + ep);
		x->r.pcie_stfifo[ep] = pt_field_put(PT_FIELD_STFIFO_NOW, 900) | pt_field_put(PT_FIELD_STFIFO_MIN, 17);
	}
	x->d.name = name;
	x->d.kind = "image";
	x->d.up = true;
	x->d.layout = &x->l;
	x->d.plan = x->plan;
	x->d.value = x->value;
	x->d.reading = &x->r;
	x->d.stats.poll_interval = 0.5;
	x->d.stats.wrap_seconds = INFINITY;
	x->d.stats.polls = 3;
}

static void dev_free(struct dev *x)
{
	pt_render_prom_plan_free(x->plan);
	free(x->value);
}

static char *render(const struct pt_prom_device *d, unsigned n, enum pt_prom_format f)
{
	struct pt_prom_input in = { f, d, n, "1.2.3", false };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	assert_int_equal(pt_render_prom(out, &in), 0);
	assert_int_equal(pt_render_prom_end(out, f, 0.25), 0);
	assert_int_equal(fclose(out), 0);
	return text;
}

static unsigned count_lines(const char *text, const char *prefix)
{
	unsigned n = 0;
	size_t k = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, k) == 0)
			n++;
	return n;
}

/* Samples of counter families: one per named counter (less the MVB of RQ
 * and RC, which the firmware ties to 0), plus bytes for every items. */
static void test_every_counter_once(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		struct dev x;
		char *t;
		unsigned want = 0, got = 0, n;

		dev_init(&x, &shapes[s], "d");
		n = pt_counter_count(&x.l);
		for (unsigned i = 0; i < n; i++) {
			struct pt_counter_info ci;

			assert_int_equal(pt_counter_decode(&x.l, i, &ci), 0);
			if (ci.kind == PT_COUNTER_BUS && ci.bus < 2 &&
			    (ci.field == PT_F_MVB || ci.field == PT_F_MVB_BACKPRESSURE))
				continue;
			want += 1 + (ci.kind == PT_COUNTER_BUS && ci.field == PT_F_ITEMS);
		}
		t = render(&x.d, 1, PT_PROM_TEXT);
		for (const char *p = t; (p = strstr(p, "_total{device=\"d\",endpoint=")) != NULL; p++)
			got++;
		assert_int_equal(got, want);
		free(t);
		dev_free(&x);
	}
}

/* "\nLINE\n" is in t. */
static void expect_line(const char *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void expect_line(const char *t, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	line[0] = '\n';
	va_start(ap, fmt);
	vsnprintf(line + 1, sizeof line - 2, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	if (!strstr(t, line))
		fail_msg("missing:%s", line);
}

/* Values and labels of a few counters of the padded two-endpoint layout. */
static void test_labels_and_values(void **state)
{
	struct dev x;
	char *t;
	unsigned i;

	(void)state;
	dev_init(&x, &shapes[1], "d");
	t = render(&x.d, 1, PT_PROM_TEXT);
	i = pt_idx_bus(&x.l, 1, 3 + 2 * 1, PT_F_ITEMS); /* ep1.down1.items */
	expect_line(t,
		    "pcie_telemetry_bus_items_total{device=\"d\",endpoint=\"1\",bus=\"down\",port=\"1\"} %llu",
		    (unsigned long long)x.value[i]);
	expect_line(t,
		    "pcie_telemetry_bus_bytes_total{device=\"d\",endpoint=\"1\",bus=\"down\",port=\"1\"} %llu",
		    (unsigned long long)x.value[i] * x.l.item_bytes);
	i = pt_idx_bus(&x.l, 0, 0, PT_F_REGION0 + 1); /* ep0.rq.region1_cycles: padding */
	expect_line(t,
		    "pcie_telemetry_bus_padding_region_cycles_total{device=\"d\",endpoint=\"0\",bus=\"rq\","
		 "region=\"1\"} %llu",
		    (unsigned long long)x.value[i]);
	assert_null(strstr(t, "bus_region_cycles_total{device=\"d\",endpoint=\"0\",bus=\"rq\",region=\"1\"}"));
	i = pt_idx_brake(&x.l, 1, 2);
	expect_line(t,
		    "pcie_telemetry_brake_cycles_total{device=\"d\",endpoint=\"1\",reason=\"no_completion_space\","
		 "stream=\"up\"} %llu",
		    (unsigned long long)x.value[i]);
	i = pt_idx_hist(&x.l, 0, 1, 2);
	expect_line(t,
		    "pcie_telemetry_hist_band_cycles_total{device=\"d\",endpoint=\"0\",resource=\"stfifo\","
		 "band=\"le_half\"} %llu",
		    (unsigned long long)x.value[i]);
	assert_non_null(strstr(t, "\npcie_telemetry_tags_free_lowest{device=\"d\",endpoint=\"1\"} 4\n"));
	assert_non_null(strstr(t, "\npcie_telemetry_link_mps_bytes{device=\"d\",endpoint=\"0\"} 256\n"));
	assert_non_null(strstr(t, "\npcie_telemetry_bus_regions{device=\"d\",endpoint=\"1\",bus=\"down\",port=\"0\"} 3\n"));
	assert_non_null(strstr(t, "\npcie_telemetry_wrap_seconds{device=\"d\"} +Inf\n"));
	assert_non_null(strstr(t, "\npcie_telemetry_build_info{version=\"1.2.3\",libnfb=\"false\"} 1\n"));
	assert_null(strstr(t, "bus_mvb_items_total{device=\"d\",endpoint=\"0\",bus=\"rq\""));
	assert_null(strstr(t, "dma_brake")); /* no sample: no family */
	assert_null(strstr(t, "sim_lag"));   /* not a simulated card */
	free(t);
	dev_free(&x);
}

static void test_unnamed_and_dma(void **state)
{
	struct dev x;
	char *t;

	(void)state;
	dev_init(&x, &shapes[2], "d");
	t = render(&x.d, 1, PT_PROM_TEXT);
	assert_non_null(strstr(t, "brake_cycles_total{device=\"d\",endpoint=\"0\",reason=\"reason8\",stream=\"up\"}"));
	assert_non_null(strstr(t, "hist_band_cycles_total{device=\"d\",endpoint=\"0\",resource=\"resource2\",band=\"band4\"}"));
	assert_non_null(strstr(t, "dma_brake_cycles_total{device=\"d\",endpoint=\"0\",reason=\"reason1\"}"));
	assert_non_null(strstr(t, "dma_hist_band_cycles_total{device=\"d\",endpoint=\"0\",resource=\"resource1\",band=\"band4\"}"));
	free(t);
	dev_free(&x);
}

/* Down, never read: the poller's figures only; a name escaped. */
static void test_down_and_escaping(void **state)
{
	struct dev x;
	struct pt_prom_device d[2];
	char *t;

	(void)state;
	dev_init(&x, &shapes[0], "a\"b\\c\nd\x01\xff\xc3\xa9");
	d[0] = x.d;
	memset(&d[1], 0, sizeof d[1]);
	d[1].name = "/dev/nfb1";
	d[1].stats.poll_errors = 5;
	t = render(d, 2, PT_PROM_TEXT);
	assert_non_null(strstr(t, "\npcie_telemetry_up{device=\"a\\\"b\\\\c\\nd??\xc3\xa9\"} 1\n"));
	assert_non_null(strstr(t, "\npcie_telemetry_up{device=\"/dev/nfb1\"} 0\n"));
	assert_non_null(strstr(t, "\npcie_telemetry_poll_errors_total{device=\"/dev/nfb1\"} 5\n"));
	assert_null(strstr(t, "{device=\"/dev/nfb1\",endpoint"));
	assert_null(strstr(t, "device_info{device=\"/dev/nfb1\""));
	free(t);
	/* once read and then down: the data is kept but not shown */
	d[0].up = false;
	t = render(d, 1, PT_PROM_TEXT);
	assert_null(strstr(t, "endpoint="));
	assert_null(strstr(t, "pcie_telemetry_bus_words_total"));
	free(t);
	dev_free(&x);
}

static void test_openmetrics(void **state)
{
	struct dev x;
	char *t;
	size_t n;

	(void)state;
	dev_init(&x, &shapes[0], "d");
	x.d.kind = "sim";
	x.d.stats.lag_seconds = 0.125;
	t = render(&x.d, 1, PT_PROM_OPENMETRICS);
	n = strlen(t);
	assert_true(n > 6 && strcmp(t + n - 6, "# EOF\n") == 0);
	assert_int_equal(count_lines(t, "# EOF"), 1);
	assert_non_null(strstr(t, "\n# TYPE pcie_telemetry_bus_bytes counter\n# UNIT pcie_telemetry_bus_bytes bytes\n"));
	assert_non_null(strstr(t, "# TYPE pcie_telemetry_build info\n"));
	assert_non_null(strstr(t, "\npcie_telemetry_build_info{version="));
	assert_non_null(strstr(t, "# TYPE pcie_telemetry_device info\n"));
	assert_non_null(strstr(t, "\npcie_telemetry_sim_lag_seconds{device=\"d\"} 0.125\n"));
	assert_null(strstr(t, "# TYPE pcie_telemetry_bus_bytes_total"));
	assert_int_equal(count_lines(t, "# TYPE "), count_lines(t, "# HELP "));
	free(t);
	t = render(&x.d, 1, PT_PROM_TEXT);
	assert_non_null(strstr(t, "# TYPE pcie_telemetry_bus_bytes_total counter\n"));
	assert_non_null(strstr(t, "# TYPE pcie_telemetry_build_info gauge\n"));
	assert_null(strstr(t, "# UNIT"));
	assert_null(strstr(t, "# EOF"));
	free(t);
	assert_string_equal(pt_render_prom_content_type(PT_PROM_TEXT),
			    "text/plain; version=0.0.4; charset=utf-8");
	dev_free(&x);
}

static void test_bad_input(void **state)
{
	struct dev x;
	struct pt_prom_input in = { PT_PROM_TEXT, NULL, 1, "1", false };
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_int_equal(pt_render_prom(f, &in), -EINVAL);
	dev_init(&x, &shapes[0], "d");
	x.d.plan = NULL; /* part of the data only */
	in.devices = &x.d;
	assert_int_equal(pt_render_prom(f, &in), -EINVAL);
	x.d.plan = x.plan;
	x.d.name = NULL;
	assert_int_equal(pt_render_prom(f, &in), -EINVAL);
	fclose(f);
	dev_free(&x);
}

/* promtool on the text of every layout, two devices at once. */
static void test_promtool(void **state)
{
	(void)state;
	if (system("command -v promtool >/dev/null 2>&1") != 0)
		fail_msg("promtool is missing (scripts/install-deps.sh --test installs it)");
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		struct dev a, b;
		struct pt_prom_device d[2];
		char *t;
		FILE *p;

		dev_init(&a, &shapes[s], "image:a.regs");
		dev_init(&b, &shapes[(s + 1) % 4], "sim");
		b.d.kind = "sim";
		d[0] = a.d;
		d[1] = b.d;
		t = render(d, 2, PT_PROM_TEXT);
		p = popen("promtool check metrics >/dev/null 2>&1", "w");
		assert_non_null(p);
		fputs(t, p);
		assert_int_equal(pclose(p), 0);
		free(t);
		dev_free(&a);
		dev_free(&b);
	}
}

static void test_docs_name_every_metric(void **state)
{
	char *doc = pt_test_slurp(PT_TEST_DATA "/../docs/exporter.md", NULL);
	char name[128];
	unsigned i;

	(void)state;
	assert_non_null(doc);
	for (i = 0; pt_render_prom_metric_name(i, name, sizeof name) == 0; i++) {
		char quoted[140];

		snprintf(quoted, sizeof quoted, "`%s`", name);
		if (!strstr(doc, quoted))
			fail_msg("docs/exporter.md does not name %s", name);
	}
	assert_true(i > 40);
	assert_int_equal(pt_render_prom_metric_name(i, name, sizeof name), -ENOENT);
	assert_int_equal(pt_render_prom_metric_name(0, name, 4), -ERANGE);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_counter_once),
		cmocka_unit_test(test_labels_and_values),
		cmocka_unit_test(test_unnamed_and_dma),
		cmocka_unit_test(test_down_and_escaping),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_promtool),
		cmocka_unit_test(test_docs_name_every_metric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
