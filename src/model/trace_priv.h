/*
 * pcie-telemetry: the trace runners, interface private to src/model/ and
 * its tests.  The public entry points are in include/pcie_telemetry/trace.h.
 */
#ifndef PTM_TRACE_PRIV_H
#define PTM_TRACE_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Options of ptm_trace_probe_run_opt() (testing). */
struct ptm_trace_probe_opt {
	/* 1: clock every CLK edge of an R line and every MI edge singly, as
	 * the probe model's per-edge API defines the trace; the bulk path
	 * must give the same bytes and the same error */
	int per_edge;
	/* the output-line limit, PTM_TRACE_MAX_RESULTS when 0 */
	uint32_t max_results;
	/* out: the CLK edges that were clocked singly; the others were
	 * skipped in stretches in which the probe only counts */
	uint64_t stepped;
};

/* ptm_trace_probe_run() with options (opt may be NULL: the defaults). */
int ptm_trace_probe_run_opt(FILE *in, const char *name, FILE *out, char *msg, size_t msglen,
			    struct ptm_trace_probe_opt *opt);

#endif
