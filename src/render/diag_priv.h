/*
 * pcie-telemetry: the diagnosis parts of the text and JSON renderers
 * (private to src/render/; diagnose.c).
 */
#ifndef PT_RENDER_DIAG_PRIV_H
#define PT_RENDER_DIAG_PRIV_H

#include <stdio.h>

#include "pcie_telemetry/render.h"

struct jw;

/* The diagnosis of a report's reading (pt_diag_analyze). */
int pt_render_diag_run(const struct pt_report *rep, struct pt_diagnosis **d);
/* The bottleneck section at the end of the text report. */
int pt_render_diag_text(FILE *out, const struct pt_report *rep);
/* The "diagnosis" member (and "sim_truth" when rep->truth) of the JSON
 * object open in w. */
int pt_render_diag_json(struct jw *w, const struct pt_report *rep);

#endif
