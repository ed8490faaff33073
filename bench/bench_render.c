/*
 * Time to render one report of the four_ep_wide case (4 endpoints, 4 DMA
 * ports' worth of buses, 256 counters) as text, as JSON and as a register
 * image, in memory, averaged over many renderings; the text report also
 * with its metrics bound beforehand.  The reading is taken
 * once from the case's register image; only the renderers are timed.
 *
 * Usage: bench_render REPO_ROOT
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/telemetry.h"

#define ROUNDS 2000

typedef int (*render_fn)(FILE *out, const struct pt_report *rep);

static int render_regs(FILE *out, const struct pt_report *rep)
{
	return pt_render_regs_image(out, rep->layout, rep->reading);
}

static double thread_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Mean CPU microseconds of one rendering, or a negative value on error. */
static double time_renderer(render_fn fn, const struct pt_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	double t0;

	if (!f)
		return -1;
	t0 = thread_seconds();
	for (int i = 0; i < ROUNDS; i++) {
		rewind(f);
		if (fn(f, rep) != 0) {
			fclose(f);
			free(buf);
			return -1;
		}
	}
	fflush(f);
	t0 = (thread_seconds() - t0) / ROUNDS * 1e6;
	fclose(f);
	free(buf);
	return t0;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; render_fn fn; } renderers[] = {
		{ "render_text_four_ep_us", pt_render_text },
		{ "render_json_four_ep_us", pt_render_json },
		{ "render_regs_four_ep_us", render_regs },
	};
	char path[4096], msg[PT_BUS_MSG_LEN];
	struct pt_bus *b;
	struct pt_dev d;
	struct pt_reading first, second, diff;
	struct pt_report rep;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/tests/conformance/report/four_ep_wide.regs", argv[1]);
	if (pt_bus_open_image(path, &b, msg, sizeof(msg)) != 0 ||
	    pt_dev_init(&d, b, msg, sizeof(msg)) != 0 ||
	    pt_reading_init(&first, d.layout.entries) != 0 ||
	    pt_reading_init(&second, d.layout.entries) != 0 ||
	    pt_reading_init(&diff, d.layout.entries) != 0 ||
	    pt_dev_measure(&d, 1.0, &first, &second, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "bench_render: %s\n", msg);
		return 1;
	}
	pt_reading_diff(&d.layout, &first, &second, &diff);
	rep = (struct pt_report){ .layout = &d.layout, .reading = &diff, .interval = true,
				  .seconds = second.time - first.time };
	for (size_t i = 0; i < sizeof(renderers) / sizeof(renderers[0]); i++) {
		double us = time_renderer(renderers[i].fn, &rep);

		if (us < 0) {
			fprintf(stderr, "bench_render: %s failed\n", renderers[i].name);
			rc = 1;
			continue;
		}
		printf("%s %.1f us\n", renderers[i].name, us);
	}
	/* the text report with the metrics bound once, as a loop of intervals
	 * renders it (the figure above binds them for every report) */
	struct pt_metric_set *ms;
	char mmsg[PT_METRIC_MSG_LEN];
	if (pt_metric_bind_builtin(&d.layout, &ms, mmsg, sizeof mmsg) == 0) {
		struct pt_report bound = rep;
		bound.metrics = ms;
		printf("render_text_four_ep_bound_us %.1f us\n", time_renderer(pt_render_text, &bound));
		pt_metric_set_free(ms);
	} else {
		fprintf(stderr, "bench_render: %s\n", mmsg);
		rc = 1;
	}
	pt_reading_free(&first);
	pt_reading_free(&second);
	pt_reading_free(&diff);
	pt_bus_close(b);
	return rc;
}
