/*
 * Fuzz target: the diagnosis (analysis and its renderers) of every layout
 * and reading a register image can describe: the totals, then intervals
 * until the images run out, rendered as text and JSON with --diagnose.
 * Nothing may crash, hang or leak; the level-1 shares always sum to 1.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/diagnose.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/telemetry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void diagnose(const struct pt_report *rep)
{
	struct pt_diagnosis *d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (pt_diag_analyze(rep->layout, rep->reading, rep->interval, rep->seconds, &d) == 0) {
		for (unsigned i = 0; i < d->nentries; i++) {
			const struct pt_diag_entry *e = &d->entry[i];

			if (fabs(e->moving + e->stalled + e->idle - 1) > 1e-9)
				abort();
		}
		pt_diag_free(d);
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	pt_render_text(f, rep);
	pt_render_json(f, rep);
	fclose(f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[PT_BUS_MSG_LEN];
	struct pt_bus *b = NULL;
	struct pt_dev d;
	struct pt_reading r0 = { 0 }, r1 = { 0 }, diff = { 0 };

	if (pt_bus_open_image_mem("fuzz.regs", data, size, &b, msg, sizeof(msg)) != 0)
		return 0;
	if (pt_dev_init(&d, b, msg, sizeof(msg)) == 0 && pt_reading_init(&r0, d.layout.entries) == 0 &&
	    pt_reading_init(&r1, d.layout.entries) == 0 &&
	    pt_reading_init(&diff, d.layout.entries) == 0) {
		struct pt_report rep = { .layout = &d.layout, .diagnose = true };

		if (pt_dev_measure(&d, 0, &r0, &r1, msg, sizeof(msg)) == 0) {
			rep.reading = &r1;
			diagnose(&rep);
		}
		for (int i = 0; i < 3; i++) {
			if (pt_dev_measure(&d, 1.0, &r0, &r1, msg, sizeof(msg)) != 0)
				break;
			pt_reading_diff(&d.layout, &r0, &r1, &diff);
			rep.reading = &diff;
			rep.interval = true;
			rep.seconds = r1.time - r0.time;
			diagnose(&rep);
		}
	}
	pt_reading_free(&r0);
	pt_reading_free(&r1);
	pt_reading_free(&diff);
	pt_bus_close(b);
	return 0;
}
