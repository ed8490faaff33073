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

/* Data only: a renderer cannot reach a bus (the build links pt_render
 * with the pure-data libraries pt_layout and pt_analysis alone). */
#include "pcie_telemetry/diagnose.h"
#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/metrics.h"
#include "pcie_telemetry/reading.h"

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
	/* The metrics the text report takes its derived cells from: NULL for
	 * the built-in ones (bound for this call), or a set bound to this
	 * layout from definitions that include the built-in ones (a caller
	 * that renders many reports binds once; -EINVAL otherwise). */
	const struct pt_metric_set *metrics;
	/* --diagnose: the text gets a bottleneck section and the JSON a
	 * "diagnosis" array (diagnose.h); false keeps both byte-identical to
	 * upstream. */
	bool diagnose;
	/* With diagnose: the simulated card's ground truth over the same
	 * cycles, as data ("sim_truth" in the JSON), or NULL. */
	const struct pt_truth *truth;
};

/*
 * Every renderer returns 0, or a negative errno:
 *   -EINVAL  a NULL argument, or a reading that does not match the layout
 *            (a counter index the layout needs is beyond reading->entries,
 *            more endpoints than PT_MAX_ENDPOINTS, real regions beyond the
 *            probe's); nothing is written in that case;
 *   -ENOMEM  out of memory while building a table;
 *   -EIO     the stream reported a write error (ferror).
 * After -ENOMEM or -EIO part of the output may have been written: render
 * into memory and print only on success.
 */

/* The upstream text report, byte for byte (report-format.md section 3).
 * A zero-length interval (interval && seconds == 0.0) prints as totals. */
int pt_render_text(FILE *out, const struct pt_report *rep);
/* The upstream `-j` JSON, byte for byte (report-format.md section 4):
 * "seconds" is null in totals mode, repr(seconds) in interval mode. */
int pt_render_json(FILE *out, const struct pt_report *rep);

/*
 * Chosen metrics of a report (the tool's -M, docs/metrics.md): the
 * report's first lines (title, interval, flags), an empty line, then a
 * table in the report's style
 *     metric            value  unit
 *     ----------------  -----  ----
 *     ep0.rq.words_pct  24.31  %
 * of instances idx[0 .. n-1] of rep->metrics (required; bound to
 * rep->layout), each printed by pt_metric_format(), and one line
 * "note: ..." for each of them whose value has a note (a division by
 * zero).  Errors as above; -EINVAL also for an index beyond the set.
 */
int pt_render_metrics(FILE *out, const struct pt_report *rep, const unsigned *idx, unsigned n);
/* Every counter of the set's layout (name, unit, description:
 * docs/counters.md) under the line "Counters of this layout
 * (docs/counters.md):", an empty line, then every metric instance of the
 * set (name, unit, description) under "Metrics of this layout
 * (docs/metrics.md):", in aligned columns without headers (the tool's
 * --list). */
int pt_render_list(FILE *out, const struct pt_metric_set *s);

/*
 * --compare: two reports side by side: per bus and per reason both values
 * and the change (B - A), then both diagnoses.  The reports may have
 * different layouts; what only one of them has shows "-" (null in JSON).
 */
struct pt_compare {
	const struct pt_report *a, *b;
	const char *name_a, *name_b; /* the devices, as given */
};
int pt_render_compare_text(FILE *out, const struct pt_compare *c);
int pt_render_compare_json(FILE *out, const struct pt_compare *c);

/*
 * --sweep: one report per value of a scenario key (the same device with
 * KEY=VALUE on top), one column per value: throughput per bus, the
 * reasons that reach 1 % in some column, the bottlenecks and the tag
 * holding time.
 */
struct pt_sweep {
	const char *key;               /* "endpoint.mrrs" */
	const char *device;            /* "sim:tags-starved" */
	unsigned n;
	const char *const *values;     /* n values, as given */
	const struct pt_report *reps;  /* n reports */
};
int pt_render_sweep_text(FILE *out, const struct pt_sweep *s);
int pt_render_sweep_json(FILE *out, const struct pt_sweep *s);

/* Python's repr() of a float (shortest round-trip form): "1.0",
 * "0.3000000000000007", "2.9999999999752447e-05", "1e+16", "inf", "nan".
 * The result is cut to len - 1 characters if buf is too short (64 is
 * always enough). */
void pt_render_float_repr(double v, char *buf, size_t len);

/*
 * One image of a register image file (register-image.md): an empty line,
 * "@snapshot SECONDS" (r->time in plain decimal that strtod reads back as
 * the same double), the configuration registers of l->cfg, STATUS and the
 * per-endpoint registers of r, and every non-zero counter word, each with a
 * comment giving its machine name (pt_counter_name; the grammar ignores
 * comments).  Besides the errors above: -EINVAL when r->time is
 * negative or not finite (the grammar has no sign and no exponent) or
 * r->entries != l->entries, -ERANGE when the counter window would leave the
 * component's 64 KiB or overlap the registers below 0x100.
 */
int pt_render_regs_image(FILE *out, const struct pt_layout *l, const struct pt_reading *r);
/* The file header: the magic line, then comment lines naming the format,
 * the tool version, the command line and the device (each may be NULL and
 * is then left out; control characters become '?'). */
int pt_render_regs_header(FILE *out, const char *tool_version, const char *command_line,
			  const char *device);

#ifdef __cplusplus
}
#endif
#endif
