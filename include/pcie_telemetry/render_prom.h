/*
 * pcie-telemetry: the Prometheus renderer.  It turns what the exporter's
 * pollers keep per device (the layout, the counters extended across
 * wraps, the registers of the last reading and the poller's own figures)
 * into the Prometheus text exposition format 0.0.4 or OpenMetrics 1.0.
 * The metric names and labels are in docs/exporter.md; the label values
 * of the counters come from the counter naming table (docs/counters.md).
 *
 * Data only, like every renderer: it cannot reach a bus (library
 * pt_render links pt_layout alone).
 *
 * Prefix: pt_render_prom_, pt_prom_.
 */
#ifndef PCIE_TELEMETRY_RENDER_PROM_H
#define PCIE_TELEMETRY_RENDER_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/reading.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The prefix of every metric name. */
#define PT_PROM_PREFIX "pcie_telemetry_"

enum pt_prom_format {
	PT_PROM_TEXT,        /* text/plain; version=0.0.4 */
	PT_PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/* The Content-Type header value of a format. */
const char *pt_render_prom_content_type(enum pt_prom_format f);

/* The labels of every series of one layout, built once per layout so that
 * a scrape only prints (opaque). */
struct pt_prom_plan;

/* 0, -EINVAL (a layout without counters) or -ENOMEM. */
int pt_render_prom_plan_new(const struct pt_layout *l, struct pt_prom_plan **out);
void pt_render_prom_plan_free(struct pt_prom_plan *p);

/* What the poller of one device measured about itself. */
struct pt_prom_stats {
	double poll_seconds;   /* how long the last poll (or attempt) took */
	double poll_interval;  /* the interval the poller keeps now, seconds */
	double wrap_seconds;   /* shortest counter wrap at the measured clocks (+Inf: none) */
	double last_poll_unix; /* UNIX time of the last successful poll; 0: none yet */
	double lag_seconds;    /* how far a simulated card lags the wall clock */
	unsigned long polls, poll_errors, late_polls, resets;
	unsigned long lost_deltas_polls, overrun_polls;
};

/* One device as the renderer sees it. */
struct pt_prom_device {
	const char *name; /* the `device` label */
	const char *kind; /* "sim", "image", "pci", "nfb"; NULL before the first open */
	bool up;          /* the last poll succeeded (or an image keeps its last one) */
	/* NULL until the first reading; then all four are set and stay the
	 * last successful poll's, shown only while `up`. */
	const struct pt_layout *layout;
	const struct pt_prom_plan *plan;   /* built from that layout */
	const uint64_t *value;             /* pt_counter_count(layout) extended counters */
	const struct pt_reading *reading;  /* STATUS and the per-endpoint registers */
	struct pt_prom_stats stats;
};

/* One scrape's worth of input. */
struct pt_prom_input {
	enum pt_prom_format format;
	const struct pt_prom_device *devices;
	unsigned ndevices;
	const char *version; /* build_info's version label */
	bool nfb;            /* build_info: this build has the libnfb backend */
};

/*
 * Every family of the input, each with its HELP and TYPE (and UNIT in
 * OpenMetrics), the samples of all devices under it.  The scrape is not
 * finished: pt_render_prom_end() adds the scrape duration (and "# EOF").
 * 0, -EINVAL (a NULL argument, or a device whose layout, plan, value or
 * reading is missing while another is set), -EIO (stream error).
 */
int pt_render_prom(FILE *out, const struct pt_prom_input *in);
/* The scrape duration gauge, then "# EOF" in OpenMetrics.  0 or -EIO. */
int pt_render_prom_end(FILE *out, enum pt_prom_format f, double scrape_seconds);

/* Metric i of every one a scrape of this build can carry, as its samples
 * are named (`_total` and `_info` included, the prefix too), for tests and
 * docs.  0; -ENOENT past the last one; -ERANGE when buf is too short. */
int pt_render_prom_metric_name(unsigned i, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
