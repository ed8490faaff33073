/*
 * Fuzz target: the register image parser on arbitrary bytes, then, for
 * the files it accepts, the whole reader and both renderers as the tool
 * runs them (replay semantics, snapshot past the last image, layouts
 * from arbitrary registers), with and without --diagnose.  Nothing may
 * crash, hang or leak, and the diagnosis's level-1 shares sum to 1.
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

static void check_diagnosis(const struct pt_report *rep)
{
	struct pt_diagnosis *d;

	if (pt_diag_analyze(rep->layout, rep->reading, rep->interval, rep->seconds, NULL, &d) != 0)
		return;
	for (unsigned i = 0; i < d->nentries; i++)
		if (fabs(d->entry[i].moving + d->entry[i].stalled + d->entry[i].idle - 1) > 1e-9)
			abort();
	pt_diag_free(d);
}

static void render_both(const struct pt_report *plain)
{
	struct pt_report rep = *plain;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	for (int diagnose = 0; diagnose < 2; diagnose++) {
		rep.diagnose = diagnose;
		pt_render_text(f, &rep);
		pt_render_json(f, &rep);
	}
	fclose(f);
	free(buf);
	check_diagnosis(plain);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[PT_BUS_MSG_LEN];
	struct pt_bus *b = NULL;
	struct pt_dev d;
	struct pt_reading r0, r1, diff;
	uint32_t v;

	if (pt_bus_open_image_mem("fuzz.regs", data, size, &b, msg, sizeof(msg)) != 0) {
		if (b)
			abort(); /* a failed open returns no bus */
		return 0;
	}
	/* absent registers read 0, STATUS never busy */
	if (pt_bus_read32(b, PT_REG_STATUS, &v) != 0 || (v & PT_STATUS_BUSY))
		abort();
	if (pt_dev_init(&d, b, msg, sizeof(msg)) == 0 &&
	    pt_reading_init(&r0, d.layout.entries) == 0) {
		if (pt_reading_init(&r1, d.layout.entries) == 0) {
			if (pt_reading_init(&diff, d.layout.entries) == 0) {
				struct pt_report rep = { .layout = &d.layout };

				/* totals, then intervals until the images run out */
				if (pt_dev_measure(&d, 0, &r0, &r1, msg, sizeof(msg)) == 0) {
					rep.reading = &r1;
					render_both(&rep);
				}
				for (int i = 0; i < 3; i++) {
					if (pt_dev_measure(&d, 1.0, &r0, &r1, msg, sizeof(msg)) != 0)
						break;
					pt_reading_diff(&d.layout, &r0, &r1, &diff);
					rep.reading = &diff;
					rep.interval = true;
					rep.seconds = r1.time - r0.time;
					if (rep.seconds < 0)
						abort(); /* times never decrease */
					render_both(&rep);
				}
				pt_reading_free(&diff);
			}
			pt_reading_free(&r1);
		}
		pt_reading_free(&r0);
	}
	pt_bus_close(b);
	return 0;
}
