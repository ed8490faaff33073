/*
 * pcie-telemetry: renderers.  They turn a reading (totals) or a difference
 * of two readings (an interval) into text, JSON or a register image.
 * They never touch a bus.  Every renderer writes to a FILE* that the
 * caller usually backs with memory (open_memstream), so that a report is
 * printed whole or not at all.
 *
 * Prefix: pt_render_.
 */
#ifndef PCIE_TELEMETRY_RENDER_H
#define PCIE_TELEMETRY_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "pcie_telemetry/telemetry.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pt_report {
	const struct pt_layout *layout;
	/* Totals (interval == false) or the difference later - earlier with
	 * status and link registers of the later reading. */
	const struct pt_reading *reading;
	bool interval;   /* interval mode (-t > 0) */
	double seconds;  /* measured length; meaningful when interval */
};

/* The upstream text report, byte for byte (report-format.md section 3). */
int pt_render_text(FILE *out, const struct pt_report *rep);
/* The upstream `-j` JSON, byte for byte (report-format.md section 4). */
int pt_render_json(FILE *out, const struct pt_report *rep);

/* Python's repr() of a float (shortest round-trip form). */
void pt_render_float_repr(double v, char *buf, size_t len);

/*
 * One image of a register image file (register-image.md): the line
 * "@snapshot SECONDS", the configuration registers, STATUS, the
 * per-endpoint registers and every non-zero counter word.
 */
int pt_render_regs_image(FILE *out, const struct pt_layout *l, const struct pt_reading *r);
/* The file header: magic line and comment lines that explain the file. */
int pt_render_regs_header(FILE *out, const char *tool_version, const char *command_line,
			  const char *device);

#ifdef __cplusplus
}
#endif
#endif
