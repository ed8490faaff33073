/*
 * The live view's screens (src/view), composed from real readings (the
 * register images of the report cases) without a terminal: every size
 * down to one cell gives a whole screen of printable cells; at a usual
 * size every bus has its row with the metric values the report has; the
 * flags are in the warning role; the sparklines follow the history,
 * which keeps a fixed number of samples whatever the run's length.
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

#include "pcie_telemetry/telemetry.h"
#include "pcie_telemetry/view.h"

#define ROW_LEN 4096

/* One interval of a report case: the difference and its metric values. */
struct fx {
	struct pt_bus *bus;
	struct pt_dev dev;
	struct pt_reading a, b, d;
	struct pt_metric_set *ms;
	struct pt_metric_value *vals;
	struct pt_view *v;
	struct pt_view_state st;
	char msg[512];
};

static void fx_open(struct fx *f, const char *name)
{
	char path[512];

	memset(f, 0, sizeof *f);
	snprintf(path, sizeof path, "%s/conformance/report/%s.regs", PT_TEST_DATA, name);
	assert_int_equal(pt_bus_open_image(path, &f->bus, f->msg, sizeof f->msg), 0);
	assert_int_equal(pt_dev_init(&f->dev, f->bus, f->msg, sizeof f->msg), 0);
	assert_int_equal(pt_reading_init(&f->a, f->dev.layout.entries), 0);
	assert_int_equal(pt_reading_init(&f->b, f->dev.layout.entries), 0);
	assert_int_equal(pt_reading_init(&f->d, f->dev.layout.entries), 0);
	assert_int_equal(pt_dev_measure(&f->dev, 1.0, &f->a, &f->b, f->msg, sizeof f->msg), 0);
	pt_reading_diff(&f->dev.layout, &f->a, &f->b, &f->d);
	assert_int_equal(pt_metric_bind_builtin(&f->dev.layout, &f->ms, f->msg, sizeof f->msg), 0);
	f->vals = calloc(pt_metric_count(f->ms), sizeof *f->vals);
	assert_non_null(f->vals);
	struct pt_metric_input in = { &f->d, true, f->b.time - f->a.time };
	assert_true(pt_metric_eval(f->ms, &in, f->vals) >= 0);
	assert_int_equal(pt_view_new(f->ms, &f->v, f->msg, sizeof f->msg), 0);
	f->st = (struct pt_view_state){
		.device = "image:case", .interval = 1.0, .reading = &f->d, .values = f->vals,
		.seconds = in.seconds, .time = f->b.time,
	};
	pt_view_record(f->v, f->a.time, f->b.time, f->vals);
}

static void fx_close(struct fx *f)
{
	pt_view_free(f->v);
	free(f->vals);
	pt_metric_set_free(f->ms);
	pt_reading_free(&f->a);
	pt_reading_free(&f->b);
	pt_reading_free(&f->d);
	pt_bus_close(f->bus);
}

static const struct pt_view_screen *compose(struct fx *f, unsigned rows, unsigned cols)
{
	assert_int_equal(pt_view_compose(f->v, &f->st, rows, cols), 0);
	return pt_view_screen(f->v);
}

/* The row holding text, or -1. */
static int find_row(const struct pt_view_screen *s, const char *text)
{
	char row[ROW_LEN];

	for (unsigned r = 0; r < s->rows; r++) {
		assert_int_equal(pt_view_screen_row(s, r, row, sizeof row), 0);
		if (strstr(row, text))
			return (int)r;
	}
	return -1;
}

static void row_text(const struct pt_view_screen *s, int r, char *row)
{
	assert_true(r >= 0);
	assert_int_equal(pt_view_screen_row(s, (unsigned)r, row, ROW_LEN), 0);
}

/* The formatted value of an instance, as the view must show it. */
static const char *value_of(struct fx *f, const char *name, char *buf, size_t len)
{
	int i = pt_metric_find(f->ms, name);

	assert_true(i >= 0);
	assert_int_equal(pt_metric_format(pt_metric_info(f->ms, (unsigned)i), &f->vals[i], buf, len), 0);
	return buf;
}

static const char *const cases[] = {
	"basic_t1", "two_ep_two_ports", "four_ep_wide", "flag_lost_deltas", "unnamed_reasons",
	"link_down_ep1", "zero_cycles", "padding_regions",
};

/* Every size from one cell up, with and without block characters, every
 * overlay: a screen of exactly that size whose cells are all printable
 * (ASCII without unicode) with a known role. */
static void test_every_size(void **state)
{
	static const unsigned rows[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 24, 40, 60 };

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct fx f;

		fx_open(&f, cases[c]);
		for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++) {
			for (unsigned cols = 1; cols <= 170; cols++) {
				f.st.unicode = cols % 2 == 0;
				f.st.overlay = (enum pt_view_overlay)(cols % 3);
				f.st.paused = cols % 5 == 0;
				f.st.lag = cols % 7 == 0 ? 1.5 : 0.0;
				f.st.ep = cols % 4;
				const struct pt_view_screen *s = compose(&f, rows[ri], cols);

				assert_int_equal(s->rows, rows[ri]);
				assert_int_equal(s->cols, cols);
				for (size_t i = 0; i < (size_t)s->rows * s->cols; i++) {
					uint32_t ch = s->cell[i].ch;

					assert_true(s->cell[i].role < PT_VIEW_ROLES);
					if (f.st.unicode)
						assert_true((ch >= 0x20 && ch < 0x7F) || (ch >= 0x2580 && ch < 0x25A0));
					else
						assert_true(ch >= 0x20 && ch < 0x7F);
				}
			}
		}
		fx_close(&f);
	}
}

/* 120 x 40: the title, every bus by its report name with the words %,
 * stall %, Gbit/s and Mpps of the metrics, the reasons and the bands. */
static void test_content(void **state)
{
	struct fx f;
	char row[ROW_LEN], want[64], name[64];

	(void)state;
	fx_open(&f, "two_ep_two_ports");
	f.st.ep = 1;
	const struct pt_view_screen *s = compose(&f, 40, 120);
	row_text(s, 0, row);
	assert_non_null(strstr(row, "image:case  every 1 s, measured 1.00 s"));
	assert_true(find_row(s, "PCIe endpoint 1 (of 2)") == 1);
	for (unsigned b = 0; b < f.dev.layout.buses; b++) {
		static const char *const bus[] = { "rq", "rc", "up0", "down0", "up1", "down1" };
		char inst[64];

		pt_layout_bus_name(&f.dev.layout, b, name, sizeof name);
		row_text(s, find_row(s, name), row);
		snprintf(inst, sizeof inst, "ep1.%s.words_pct", bus[b]);
		assert_non_null(strstr(row, value_of(&f, inst, want, sizeof want)));
		snprintf(inst, sizeof inst, "ep1.%s.stall_pct", bus[b]);
		assert_non_null(strstr(row, value_of(&f, inst, want, sizeof want)));
		snprintf(inst, sizeof inst, "ep1.%s.gbps", bus[b]);
		assert_non_null(strstr(row, value_of(&f, inst, want, sizeof want)));
		snprintf(inst, sizeof inst, "ep1.%s.mpps", bus[b]);
		assert_non_null(strstr(row, value_of(&f, inst, want, sizeof want)));
	}
	row_text(s, find_row(s, "no free PCIe tag"), row);
	assert_non_null(strstr(row, value_of(&f, "ep1.brake.no_free_tag_pct", want, sizeof want)));
	row_text(s, find_row(s, "PCIe endpoint not ready"), row);
	assert_non_null(strstr(row, value_of(&f, "ep1.brake.endpoint_not_ready_pct", want, sizeof want)));
	assert_true(find_row(s, "MFB stalled towards DMA") >= 0);
	row_text(s, find_row(s, "PCIe tags  "), row);
	assert_non_null(strstr(row, value_of(&f, "ep1.hist.tags.none_pct", want, sizeof want)));
	assert_true(find_row(s, "PTC tags free ") >= 0);
	assert_true(find_row(s, "Gbit/s, last 60 s") >= 0);
	row_text(s, 39, row);
	assert_non_null(strstr(row, "q quit  space pause  +/- interval  e endpoint  c clear  ? help"));
	fx_close(&f);
}

/* The flags of the interval, a link down and a lowest value of 0 are in
 * the warning role. */
static void test_warnings(void **state)
{
	struct fx f;

	(void)state;
	fx_open(&f, "flag_lost_deltas");
	const struct pt_view_screen *s = compose(&f, 40, 120);
	int r = find_row(s, "!! LOST DELTAS");
	assert_true(r >= 0);
	assert_int_equal(s->cell[(size_t)r * s->cols].role, PT_VIEW_WARN);
	f.d.status = PT_STATUS_OVERRUN;
	s = compose(&f, 40, 120);
	assert_true(find_row(s, "!! LOST DELTAS") < 0);
	r = find_row(s, "!! READ-OUT OVERRUN");
	assert_true(r >= 0);
	assert_int_equal(s->cell[(size_t)r * s->cols].role, PT_VIEW_WARN);
	fx_close(&f);

	fx_open(&f, "link_down_ep1");
	f.st.ep = 1;
	s = compose(&f, 40, 120);
	char row[ROW_LEN];
	r = find_row(s, "link DOWN");
	assert_true(r >= 0);
	row_text(s, r, row);
	assert_int_equal(s->cell[(size_t)r * s->cols + (size_t)(strstr(row, "link DOWN") - row)].role,
			 PT_VIEW_WARN);
	fx_close(&f);
}

/* 20 x 5: title, endpoint, bus header and the first buses by short name;
 * 80 x 24 and 60 x 20 keep every bus row and the key line. */
static void test_small(void **state)
{
	struct fx f;
	char row[ROW_LEN];

	(void)state;
	fx_open(&f, "basic_t1");
	const struct pt_view_screen *s = compose(&f, 5, 20);
	row_text(s, 1, row);
	assert_string_equal(row, "PCIe endpoint 0 (of");
	row_text(s, 2, row);
	assert_string_equal(row, "Bus    Words % Stall");
	row_text(s, 3, row);
	assert_int_equal(strncmp(row, "RQ ", 3), 0);
	row_text(s, 4, row);
	assert_int_equal(strncmp(row, "RC ", 3), 0);
	s = compose(&f, 24, 80);
	assert_true(find_row(s, "PTC -> DMA0 (DOWN)") >= 0);
	assert_true(find_row(s, "last 60 s") >= 0); /* the sparkline stays at 80 columns */
	assert_true(find_row(s, " q quit") == 23);
	s = compose(&f, 20, 60);
	assert_true(find_row(s, "PTC -> DMA0 (DOWN)") >= 0);
	fx_close(&f);
}

/* Before the first interval: the layout with "-" for every figure. */
static void test_no_values(void **state)
{
	struct fx f;
	char row[ROW_LEN];

	(void)state;
	fx_open(&f, "basic_t1");
	f.st.reading = NULL;
	f.st.values = NULL;
	const struct pt_view_screen *s = compose(&f, 40, 120);
	row_text(s, find_row(s, "PTC -> PCIe (RQ)"), row);
	assert_non_null(strstr(row, "-"));
	assert_null(strstr(row, "."));
	row_text(s, 0, row);
	assert_null(strstr(row, "measured"));
	fx_close(&f);
}

static void test_overlays(void **state)
{
	struct fx f;
	char row[ROW_LEN];

	(void)state;
	fx_open(&f, "basic_t1");
	f.st.overlay = PT_VIEW_HELP;
	const struct pt_view_screen *s = compose(&f, 30, 100);
	assert_true(find_row(s, "Keys") == 1);
	assert_true(find_row(s, "space      pause or resume the measurement") >= 0);
	assert_true(find_row(s, "PTC -> PCIe (RQ)") < 0);
	f.st.overlay = PT_VIEW_CONFIRM_CLEAR;
	s = compose(&f, 30, 100);
	row_text(s, 29, row);
	assert_string_equal(row, " Clear every counter, flag and mark of image:case? y/n");
	assert_int_equal(s->cell[29 * 100].role, PT_VIEW_WARN);
	/* asked even where there is no line of keys */
	s = compose(&f, 4, 100);
	row_text(s, 3, row);
	assert_non_null(strstr(row, "y/n"));
	f.st.overlay = PT_VIEW_NO_OVERLAY;
	f.st.paused = true;
	f.st.lag = 2.5;
	f.st.notice = "End of the recording";
	f.st.notice_warn = true;
	s = compose(&f, 30, 100);
	row_text(s, 0, row);
	assert_non_null(strstr(row, "PAUSED"));
	assert_non_null(strstr(row, "the card lags 2.50 s"));
	assert_true(find_row(s, "End of the recording") == 1);
	assert_int_equal(s->cell[100].role, PT_VIEW_WARN);
	assert_true(find_row(s, "space resume") == 29);
	fx_close(&f);
}

/* Sparklines: 30 s at the full rate, then 30 s at 0, every 0.5 s: the
 * left half of the RQ row's line is the top level, the right half the
 * lowest; before the history began, blank. */
static void test_sparkline(void **state)
{
	struct fx f;
	char row[ROW_LEN];
	int rq = -1;

	(void)state;
	fx_open(&f, "basic_t1");
	rq = pt_metric_find(f.ms, "ep0.rq.gbps");
	assert_true(rq >= 0);
	pt_view_free(f.v);
	assert_int_equal(pt_view_new(f.ms, &f.v, f.msg, sizeof f.msg), 0);
	for (unsigned i = 0; i < 240; i++) {
		f.vals[rq].f = i < 120 || i >= 180 ? 0.0 : 40.0;
		pt_view_record(f.v, 0.5 * i, 0.5 * (i + 1), f.vals);
	}
	f.st.time = 120.0; /* 60 s of nothing, 30 s at 40, 30 s at 0 */
	const struct pt_view_screen *s = compose(&f, 40, 150);
	int r = find_row(s, "PTC -> PCIe (RQ)");
	row_text(s, r, row);
	char *spark = strstr(row, "#");
	assert_non_null(spark);
	unsigned from = (unsigned)(spark - row), n = 0;
	while (row[from + n] == '#')
		n++;
	unsigned width = s->cols - from; /* the line runs to the edge */
	assert_true(n >= width / 2 - 1 && n <= width / 2 + 1);
	for (unsigned i = from + n + 1; i < s->cols; i++)
		assert_int_equal(row[i], '_');
	assert_int_equal(s->cell[(size_t)r * s->cols + from].role, PT_VIEW_SPARK);
	/* a window that begins before the history: blank on the left */
	pt_view_free(f.v);
	assert_int_equal(pt_view_new(f.ms, &f.v, f.msg, sizeof f.msg), 0);
	f.vals[rq].f = 40.0;
	for (unsigned i = 0; i < 60; i++)
		pt_view_record(f.v, 0.5 * i, 0.5 * (i + 1), f.vals);
	f.st.time = 30.0;
	s = compose(&f, 40, 150);
	row_text(s, r, row);
	assert_int_equal(row[from], ' ');
	assert_int_equal(row[from + width / 2 + 1], '#');
	assert_int_equal(row[s->cols - 1], '#');
	fx_close(&f);
}

/* Unicode: block characters for bars and sparklines. */
static void test_unicode(void **state)
{
	struct fx f;
	bool bar = false;

	(void)state;
	fx_open(&f, "basic_t1");
	f.st.unicode = true;
	const struct pt_view_screen *s = compose(&f, 40, 150);
	for (size_t i = 0; i < (size_t)s->rows * s->cols; i++)
		bar = bar || s->cell[i].ch == 0x2588;
	assert_true(bar);
	char row[ROW_LEN];
	row_text(s, find_row(s, "PTC -> PCIe (RQ)"), row);
	assert_non_null(strstr(row, "\xE2\x96\x88")); /* U+2588 in UTF-8 */
	assert_int_equal(pt_view_screen_row(s, 5, row, 8), -ERANGE);
	assert_true(strlen(row) < 8);
	fx_close(&f);
}

/* The history keeps PT_VIEW_HISTORY samples whatever the length of the
 * run; a sample that does not end later than the last is ignored. */
static void test_history_bounded(void **state)
{
	struct fx f;

	(void)state;
	fx_open(&f, "basic_t1");
	unsigned before = pt_view_history_len(f.v);
	pt_view_record(f.v, 0.0, f.b.time, f.vals);
	pt_view_record(f.v, 0.0, NAN, f.vals);
	assert_int_equal(pt_view_history_len(f.v), before);
	for (unsigned i = 0; i < 10 * PT_VIEW_HISTORY; i++)
		pt_view_record(f.v, f.b.time + i, f.b.time + i + 1, f.vals);
	assert_int_equal(pt_view_history_len(f.v), PT_VIEW_HISTORY);
	fx_close(&f);
}

/* A set without the built-in metrics: refused, naming what is missing. */
static void test_needs_builtin(void **state)
{
	struct pt_metric_defs *d;
	struct pt_metric_set *ms;
	struct pt_view *v;
	struct fx f;
	char msg[256];

	(void)state;
	fx_open(&f, "basic_t1");
	assert_int_equal(pt_metric_defs_new(&d, PT_METRIC_NO_BUILTIN, msg, sizeof msg), 0);
	assert_int_equal(pt_metric_bind(d, &f.dev.layout, &ms, msg, sizeof msg), 0);
	assert_int_equal(pt_view_new(ms, &v, msg, sizeof msg), -EINVAL);
	assert_null(v);
	assert_string_equal(msg, "the live view needs the built-in metric '{bus}.words_pct'");
	pt_metric_set_free(ms);
	pt_metric_defs_free(d);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_size),   cmocka_unit_test(test_content),
		cmocka_unit_test(test_warnings),     cmocka_unit_test(test_small),
		cmocka_unit_test(test_no_values),    cmocka_unit_test(test_overlays),
		cmocka_unit_test(test_sparkline),    cmocka_unit_test(test_unicode),
		cmocka_unit_test(test_history_bounded), cmocka_unit_test(test_needs_builtin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
