/*
 * The metric engine's costs: loading the built-in definitions, binding
 * them to a layout, and evaluating every instance of a reading (what the
 * exporter and the series do every interval), on the firmware's default
 * layout and on 16 endpoints of 4 DMA ports, averaged over many rounds
 * of CPU time.
 *
 * Usage: bench_analysis REPO_ROOT (unused; for bench/run.sh)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pcie_telemetry/metrics.h"
#include "../tests/unit/test_layout_util.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int layout(const struct pt_test_shape *s, struct pt_layout *l)
{
	char msg[256];

	if (pt_test_layout_decode(s, 48, NULL, l, msg, sizeof msg) != 0) {
		fprintf(stderr, "bench_analysis: %s\n", msg);
		return -1;
	}
	return 0;
}

/* Bind and evaluate on one layout; prints its figures. */
static int bench_layout(const struct pt_metric_defs *d, const struct pt_test_shape *sh,
			const char *tag)
{
	struct pt_layout l;
	struct pt_metric_set *s = NULL;
	struct pt_reading r;
	char msg[PT_METRIC_MSG_LEN];
	const int binds = 50, evals = 5000;

	if (layout(sh, &l) < 0 || pt_reading_init(&r, l.entries) != 0)
		return -1;
	double t0 = cpu_seconds();
	for (int i = 0; i < binds; i++) {
		pt_metric_set_free(s);
		if (pt_metric_bind(d, &l, &s, msg, sizeof msg) != 0) {
			fprintf(stderr, "bench_analysis: %s\n", msg);
			return -1;
		}
	}
	double bind = (cpu_seconds() - t0) / binds;
	unsigned n = pt_metric_count(s);
	struct pt_metric_value *v = calloc(n, sizeof *v);
	for (unsigned i = 0; i < l.entries; i++)
		r.cnt[i] = 1000003u * (i + 1);
	const struct pt_metric_input in = { &r, true, 1.0 };
	t0 = cpu_seconds();
	for (int i = 0; i < evals && v; i++)
		pt_metric_eval(s, &in, v);
	double eval = (cpu_seconds() - t0) / evals;
	printf("metric_bind_%s_us %.1f us\n", tag, bind * 1e6);
	printf("metric_eval_%s_us %.2f us\n", tag, eval * 1e6);
	printf("metric_instances_%s %u instances\n", tag, n);
	printf("metric_eval_%s_per_instance_ns %.1f ns\n", tag, eval * 1e9 / n);
	free(v);
	pt_reading_free(&r);
	pt_metric_set_free(s);
	return 0;
}

int main(void)
{
	const struct pt_test_shape dflt = PT_TEST_DEFAULT_SHAPE;
	const struct pt_test_shape big = { .e = 16, .p = 4, .rq = 2, .rc = 2,
					   .up = 2, .down = 2, .driven = 6, .hists = 2, .bands = 4 };
	struct pt_metric_defs *d;
	char msg[PT_METRIC_MSG_LEN];
	const int loads = 200;

	double t0 = cpu_seconds();
	for (int i = 0; i < loads; i++) {
		if (pt_metric_defs_new(&d, 0, msg, sizeof msg) != 0) {
			fprintf(stderr, "bench_analysis: %s\n", msg);
			return 1;
		}
		pt_metric_defs_free(d);
	}
	printf("metric_defs_builtin_us %.1f us\n", (cpu_seconds() - t0) / loads * 1e6);
	if (pt_metric_defs_new(&d, 0, msg, sizeof msg) != 0)
		return 1;
	int rc = bench_layout(d, &dflt, "default") || bench_layout(d, &big, "16ep4p");
	pt_metric_defs_free(d);
	return rc ? 1 : 0;
}
