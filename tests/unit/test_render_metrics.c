/*
 * The metric renderers: the table of chosen metrics (-M) with its notes,
 * and the list of every counter and metric of a layout (--list).
 * Expected texts are written out by hand from docs/metrics.md.
 */
#include <errno.h>
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

static char *render_metrics(const struct pt_report *rep, const unsigned *idx, unsigned n, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	*rc = pt_render_metrics(f, rep, idx, n);
	fclose(f);
	return text;
}

static void test_metrics_table(void **state)
{
	struct mt t;
	unsigned idx[8];
	int rc;

	(void)state;
	mt_init(&t, &std_shape, 0);
	assert_int_equal(mt_bind(&t), 0);
	t.r.cnt[pt_idx_pcie_cycles(&t.l, 0)] = 400000000;
	t.r.cnt[pt_idx_dma_cycles(&t.l, 0)] = 200000000;
	t.r.cnt[pt_idx_bus(&t.l, 0, 0, PT_F_WORDS)] = 100000000;
	t.r.cnt[pt_idx_bus(&t.l, 0, 0, PT_F_ITEMS)] = 800000000;
	int n = pt_metric_select(t.s, "ep0.rq.words_pct,ep0.rc.avg_bytes,ep0.rq.bytes,clock", idx, 8,
				 t.msg, sizeof t.msg);
	assert_int_equal(n, 5);
	struct pt_report rep = { .layout = &t.l, .reading = &t.r, .interval = true, .seconds = 2.0,
				 .metrics = t.s };
	char *text = render_metrics(&rep, idx, (unsigned)n, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(text,
			    "PCIe telemetry - 1 endpoint(s), 1 DMA port(s) per endpoint\n"
			    "==========================================================\n"
			    "Measured over 2.00 s\n"
			    "\n"
			    "metric              value       unit\n"
			    "------------------  ----------  ------\n"
			    "ep0.pcie_clock_mhz  200.0       MHz\n"
			    "ep0.dma_clock_mhz   100.0       MHz\n"
			    "ep0.rq.bytes        3200000000  bytes\n"
			    "ep0.rq.words_pct    25.00       %\n"
			    "ep0.rc.avg_bytes    -           B\n"
			    "note: metric 'ep0.rc.avg_bytes': position 13: division by zero "
			    "(ep0.rc.transactions is 0)\n");
	free(text);
	/* totals: no rates, and the flags as the report shows them */
	rep.interval = false;
	t.r.status = PT_STATUS_LOST_DELTAS;
	text = render_metrics(&rep, idx, 1, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(text,
			    "PCIe telemetry - 1 endpoint(s), 1 DMA port(s) per endpoint\n"
			    "==========================================================\n"
			    "Totals since the last clear\n"
			    "\n"
			    "  !! LOST DELTAS - the counters are not exact\n"
			    "\n"
			    "metric              value    unit\n"
			    "------------------  -------  ------\n"
			    "ep0.pcie_clock_mhz  -        MHz\n");
	free(text);
	/* refused: no set, an index beyond it, a set of another layout */
	rep.metrics = NULL;
	free(render_metrics(&rep, idx, 1, &rc));
	assert_int_equal(rc, -EINVAL);
	rep.metrics = t.s;
	idx[0] = pt_metric_count(t.s);
	free(render_metrics(&rep, idx, 1, &rc));
	assert_int_equal(rc, -EINVAL);
	mt_free(&t);
}

/* Lines of text that start with prefix. */
static unsigned lines_with(const char *text, const char *prefix)
{
	unsigned n = 0;

	for (const char *p = text; *p; p = strchr(p, '\n') + 1) {
		n += strncmp(p, prefix, strlen(prefix)) == 0;
		if (!strchr(p, '\n'))
			break;
	}
	return n;
}

static void test_list(void **state)
{
	const struct pt_test_shape sh = { 2, 2, 2, 1, 2, 2, 6, 2, 4, 0, 0 };
	struct mt t;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	mt_init(&t, &sh, 0);
	assert_int_equal(mt_add1(&t, "{ep}.mine", "1"), 0);
	assert_int_equal(mt_bind(&t), 0);
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(pt_render_list(f, t.s), 0);
	fclose(f);
	/* every counter and every instance, once, under their headers */
	assert_int_equal(lines_with(text, "ep"), pt_counter_count(&t.l) + pt_metric_count(t.s));
	assert_int_equal(strncmp(text, "Counters of this layout (docs/counters.md):\nep0.pcie_cycles ", 60), 0);
	assert_non_null(strstr(text, "\n\nMetrics of this layout (docs/metrics.md):\nep0.pcie_clock_mhz "));
	assert_non_null(strstr(text, "\nep1.up1.region1_cycles "));
	assert_non_null(strstr(text, "endpoint 1, PCIe -> PTC (RC): region 1, padding beyond the "
				     "bus's 1 real region"));
	assert_non_null(strstr(text, "\nep1.up1.rd_pct "));
	assert_non_null(strstr(text, "\nep1.rc.corrected_gbps "));
	assert_non_null(strstr(text, "\nep1.mine "));
	const char *words = strstr(text, "\nep0.rq.words_pct ");
	assert_non_null(words);
	assert_non_null(strstr(words, "%  ")); /* the unit before the description */
	free(text);
	mt_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_table),
		cmocka_unit_test(test_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
