/*
 * The series renderers (docs/series.md): CSV rows and JSON lines of a
 * point, written out by hand from the documentation; NaN, totals, the
 * quoting of a device name, an integer beyond what pandas reads, the C
 * locale under a comma-decimal locale, and the refusals.
 */
#include <errno.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/render.h"
#include "test_metric_util.h"

static const struct pt_test_shape std_shape = PT_TEST_DEFAULT_SHAPE;

static const char metrics_json[] =
	"[{\"MetricName\": \"x_pct\", \"MetricExpr\": \"100.0 * ep0.rq.words / ep0.pcie_cycles\","
	" \"BriefDescription\": \"t\", \"ScaleUnit\": \"%\"},"
	" {\"MetricName\": \"rate\", \"MetricExpr\": \"ep0.rq.items / seconds\","
	" \"BriefDescription\": \"t\", \"ScaleUnit\": \"items/s, \\\"total\\\"\", \"Precision\": 1},"
	" {\"MetricName\": \"{ep}.huge\", \"MetricExpr\": \"{ep}.rq.items * 100000000000000\","
	" \"BriefDescription\": \"t\", \"ScaleUnit\": \"items\"}]";

/* A layout, a reading and the three metrics above. */
static void setup(struct mt *t)
{
	mt_init(t, &std_shape, PT_METRIC_NO_BUILTIN);
	assert_int_equal(mt_add(t, metrics_json), 0);
	assert_int_equal(mt_bind(t), 0);
	assert_int_equal(pt_metric_count(t->s), 3);
	t->r.cnt[pt_idx_pcie_cycles(&t->l, 0)] = 400000000;
	t->r.cnt[pt_idx_bus(&t->l, 0, 0, PT_F_WORDS)] = 100000000;
	t->r.cnt[pt_idx_bus(&t->l, 0, 0, PT_F_ITEMS)] = 800000000;
}

static void teardown(struct mt *t)
{
	mt_free(t);
}

typedef int (*render_fn)(FILE *, const struct pt_series_point *);

static char *render(render_fn fn, const struct pt_series_point *p, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	*rc = fn(f, p);
	fclose(f);
	return text;
}

/* Fields of one CSV line, as RFC 4180 counts them. */
static unsigned fields(const char *line, const char *end)
{
	unsigned n = 1;
	bool quoted = false;

	for (const char *c = line; c < end; c++) {
		if (*c == '"')
			quoted = !quoted;
		else if (*c == ',' && !quoted)
			n++;
	}
	return n;
}

/* Every line has 8 fields; returns the number of lines. */
static unsigned check_lines(const char *text)
{
	unsigned lines = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');

		assert_non_null(nl);
		if (fields(p, nl) != 8)
			fail_msg("line %u has %u fields: %.*s", lines + 1, fields(p, nl), (int)(nl - p), p);
		lines++;
		p = nl + 1;
	}
	return lines;
}

static void test_csv_header(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(pt_render_csv_header(f), 0);
	fclose(f);
	assert_string_equal(text, "time,interval_s,device,endpoint,kind,name,value,unit\n");
	free(text);
	assert_int_equal(pt_render_csv_header(NULL), -EINVAL);
}

static void test_csv_interval(void **state)
{
	struct mt t;
	unsigned idx[3] = { 0, 1, 2 };
	int rc;

	(void)state;
	setup(&t);
	t.r.status = PT_STATUS_OVERRUN;
	struct pt_report rep = { .layout = &t.l, .reading = &t.r, .interval = true, .seconds = 2.0,
				 .metrics = t.s };
	struct pt_series_point p = { .rep = &rep, .time = 1712345678.25, .device = "a,b\"c\nd",
				     .idx = idx, .n = 3, .raw = true, .wrap_risk = true };
	char *text = render(pt_render_csv, &p, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(check_lines(text), 3 + 10 + pt_counter_count(&t.l) + 3);
	const char *lead = "1712345678.25,2.0,\"a,b\"\"c\\x0Ad\",";
	char want[256];
	snprintf(want, sizeof want,
		 "%s,flag,lost_deltas,0,bool\n%s,flag,readout_overrun,1,bool\n"
		 "%s,flag,wrap_risk,1,bool\n%s0,register,ep0.link_up,1,bool\n",
		 lead, lead, lead, lead);
	assert_memory_equal(text, want, strlen(want));
	assert_non_null(strstr(text, ",0,register,ep0.mps,256,B\n"));
	assert_non_null(strstr(text, ",0,register,ep0.tags_free,112,tags\n"));
	assert_non_null(strstr(text, ",0,register,ep0.tags_free_min,10,tags\n"));
	assert_non_null(strstr(text, ",0,register,ep0.stfifo_free_min,101,words\n"));
	assert_non_null(strstr(text, ",0,counter,ep0.pcie_cycles,400000000,cycles\n"));
	assert_non_null(strstr(text, ",0,counter,ep0.rq.words,100000000,words\n"));
	assert_non_null(strstr(text, ",0,counter,ep0.up0.region1_cycles,0,cycles\n"));
	/* metrics: a share, a rate with a unit that needs quotes, an integer
	 * beyond 2^64 as the double pandas reads */
	snprintf(want, sizeof want,
		 "%s,metric,x_pct,25.00,%%\n%s,metric,rate,400000000.0,\"items/s, \"\"total\"\"\"\n"
		 "%s0,metric,ep0.huge,8e+22,items\n",
		 lead, lead, lead);
	assert_string_equal(text + strlen(text) - strlen(want), want);
	free(text);
	teardown(&t);
}

static void test_csv_totals_nan(void **state)
{
	struct mt t;
	unsigned idx[2] = { 0, 1 };
	int rc;

	(void)state;
	setup(&t);
	t.r.cnt[pt_idx_pcie_cycles(&t.l, 0)] = 0;
	/* totals: no interval, no rate; no cycles: no share */
	struct pt_report rep = { .layout = &t.l, .reading = &t.r, .interval = false, .metrics = t.s };
	struct pt_series_point p = { .rep = &rep, .time = 5e-05, .device = "sim", .idx = idx, .n = 2 };
	char *text = render(pt_render_csv, &p, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(text, "5e-05,,sim,,flag,lost_deltas,0,bool\n"
				  "5e-05,,sim,,flag,readout_overrun,0,bool\n"
				  "5e-05,,sim,,flag,wrap_risk,0,bool\n"
				  "5e-05,,sim,,metric,x_pct,,%\n"
				  "5e-05,,sim,,metric,rate,,\"items/s, \"\"total\"\"\"\n");
	free(text);
	teardown(&t);
}

static void test_jsonl(void **state)
{
	struct mt t;
	unsigned idx[3] = { 0, 1, 2 };
	char *argv[] = { "nfb-pcie-telemetry", "-d", "a\"b", NULL };
	char *text = NULL;
	size_t len = 0;
	int rc;

	(void)state;
	setup(&t);
	FILE *f = open_memstream(&text, &len);
	const struct pt_series_info info = { "1.2.3", 3, argv, "sim:x", "image:r.regs", false };
	assert_int_equal(pt_render_jsonl_header(f, &info, t.s, idx, 2, false), 0);
	fclose(f);
	assert_string_equal(text,
			    "{\"tool\":\"nfb-pcie-telemetry\",\"version\":\"1.2.3\",\"command\":["
			    "\"nfb-pcie-telemetry\",\"-d\",\"a\\\"b\"],\"device\":\"sim:x\","
			    "\"source\":\"image:r.regs\",\"clock\":\"device\",\"config\":{"
			    "\"pcie_endpoints\":1,\"dma_ports\":1,\"probe_pcie_regions\":2,"
			    "\"probe_dma_regions\":2,\"counter_width\":48,\"item_bytes\":4,"
			    "\"drain_period\":4096,\"hist_bands\":4,\"tag_capacity\":256,"
			    "\"stfifo_capacity\":1024},\"units\":{\"x_pct\":\"%\","
			    "\"rate\":\"items/s, \\\"total\\\"\"}}\n");
	free(text);

	t.r.status = PT_STATUS_LOST_DELTAS;
	struct pt_report rep = { .layout = &t.l, .reading = &t.r, .interval = true, .seconds = 0.5,
				 .metrics = t.s };
	struct pt_series_point p = { .rep = &rep, .time = 3.0, .device = "sim", .idx = idx, .n = 3 };
	text = render(pt_render_jsonl, &p, &rc);
	assert_int_equal(rc, 0);
	/* exact integers in JSON, even beyond 2^64 */
	assert_string_equal(text, "{\"time\":3.0,\"interval_s\":0.5,\"flags\":{\"lost_deltas\":true,"
				  "\"readout_overrun\":false,\"wrap_risk\":false},\"metrics\":{"
				  "\"x_pct\":25.00,\"rate\":1600000000.0,"
				  "\"ep0.huge\":80000000000000000000000}}\n");
	free(text);
	/* NaN is null; totals have no interval; raw: counters and -j's data */
	t.r.cnt[pt_idx_pcie_cycles(&t.l, 0)] = 0;
	rep.interval = false;
	p.raw = true;
	text = render(pt_render_jsonl, &p, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "{\"time\":3.0,\"interval_s\":null,"));
	assert_non_null(strstr(text, "\"metrics\":{\"x_pct\":null,\"rate\":null,"));
	assert_non_null(strstr(text, "\"counters\":{\"ep0.pcie_cycles\":0,\"ep0.rq.words\":100000000,"));
	assert_non_null(strstr(text, ",\"data\":{\"endpoints\":[{\"index\":0,\"link_up\":true,"));
	assert_non_null(strstr(text, "\"status\":{\"busy\":false,\"lost_deltas\":true,"));
	assert_string_equal(strchr(text, '\n'), "\n");
	free(text);
	teardown(&t);
}

/* A comma-decimal locale for this process: de_DE.UTF-8 as installed, or
 * built with localedef (Debian package locales) into a folder of ours. */
static bool comma_locale(char *dir, size_t len)
{
	char cmd[512], num[16];

	if (!setlocale(LC_ALL, "de_DE.UTF-8")) {
		snprintf(dir, len, "/tmp/pt-locale.XXXXXX");
		if (!mkdtemp(dir))
			return false;
		snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 2>/dev/null", dir);
		if (system(cmd) != 0)
			return false;
		setenv("LOCPATH", dir, 1);
		if (!setlocale(LC_ALL, "de_DE.UTF-8"))
			return false;
	}
	snprintf(num, sizeof num, "%.2f", 1.5);
	return strcmp(num, "1,50") == 0;
}

static void test_c_locale(void **state)
{
	struct mt t;
	unsigned idx[3] = { 0, 1, 2 };
	char dir[64] = "", cmd[96];
	int rc;

	(void)state;
	setup(&t);
	struct pt_report rep = { .layout = &t.l, .reading = &t.r, .interval = true, .seconds = 0.25,
				 .metrics = t.s };
	struct pt_series_point p = { .rep = &rep, .time = 1712345678.5, .device = "x", .idx = idx,
				     .n = 3, .raw = true };
	char *csv = render(pt_render_csv, &p, &rc), *jsonl = render(pt_render_jsonl, &p, &rc);
	bool have = comma_locale(dir, sizeof dir);
	char *csv2 = render(pt_render_csv, &p, &rc), *jsonl2 = render(pt_render_jsonl, &p, &rc);
	setlocale(LC_ALL, "C");
	if (dir[0]) {
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
	if (!have)
		fail_msg("no comma-decimal locale (de_DE.UTF-8, Debian package locales)");
	assert_non_null(strstr(csv, ",metric,x_pct,25.00,%\n"));
	assert_string_equal(csv, csv2);
	assert_string_equal(jsonl, jsonl2);
	free(csv);
	free(jsonl);
	free(csv2);
	free(jsonl2);
	teardown(&t);
}

static void test_refused(void **state)
{
	struct mt t, other;
	unsigned idx[1] = { 3 }, ok[1] = { 0 };
	int rc;

	(void)state;
	setup(&t);
	struct pt_report rep = { .layout = &t.l, .reading = &t.r, .interval = true, .seconds = 1.0,
				 .metrics = t.s };
	struct pt_series_point p = { .rep = &rep, .time = 1.0, .device = "x", .idx = idx, .n = 1 };
	render_fn fns[2] = { pt_render_csv, pt_render_jsonl };
	for (int k = 0; k < 2; k++) {
		char *text;

		assert_int_equal(fns[k](NULL, &p), -EINVAL);
		assert_int_equal(fns[k](stdout, NULL), -EINVAL);
		/* an index beyond the set */
		text = render(fns[k], &p, &rc);
		assert_int_equal(rc, -EINVAL);
		assert_string_equal(text, "");
		free(text);
		/* no device, no set */
		p.idx = ok;
		p.device = NULL;
		text = render(fns[k], &p, &rc);
		assert_int_equal(rc, -EINVAL);
		free(text);
		p.device = "x";
		rep.metrics = NULL;
		text = render(fns[k], &p, &rc);
		assert_int_equal(rc, -EINVAL);
		free(text);
		rep.metrics = t.s;
		p.idx = idx;
	}
	/* a set bound to another layout */
	struct pt_test_shape two = PT_TEST_DEFAULT_SHAPE;
	two.p = 2;
	mt_init(&other, &two, 0);
	assert_int_equal(mt_bind(&other), 0);
	rep.metrics = other.s;
	p.idx = ok;
	char *text = render(pt_render_csv, &p, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(text, "");
	free(text);
	unsigned all[1] = { 0 };
	const struct pt_series_info info = { "1", 0, NULL, "x", NULL, true };
	assert_int_equal(pt_render_jsonl_header(stdout, &info, t.s, idx, 1, false), -EINVAL);
	assert_int_equal(pt_render_jsonl_header(stdout, NULL, t.s, all, 1, false), -EINVAL);
	mt_free(&other);
	teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_header),   cmocka_unit_test(test_csv_interval),
		cmocka_unit_test(test_csv_totals_nan), cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_c_locale),     cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
