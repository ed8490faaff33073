/*
 * pcie-telemetry: runners for the conformance trace formats
 * (docs: shared spec trace-format.md, and docs/model.md).
 *
 * A runner reads a PROBE or COMPONENT trace, drives the model edge by edge
 * and writes the expected-output format.  Errors: -EINVAL with
 * "FILE:LINE: what is wrong" in msg for a malformed trace (the command
 * exits with status 2), other negative errno values for I/O.
 * Nothing is written to `out` unless the whole trace ran.
 */
#ifndef PCIE_TELEMETRY_TRACE_H
#define PCIE_TELEMETRY_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What a trace may be (docs/model.md), so that memory stays bounded
 * whatever the input: lines of at most PTM_TRACE_MAX_LINE characters (the
 * line end not counted), at most PTM_TRACE_MAX_BYTES bytes in all, and a
 * run of at most PTM_TRACE_MAX_RESULTS output lines (the output is held
 * until the whole trace has run).  Beyond a limit: -EINVAL, "FILE:LINE:
 * line longer than 1048576 characters" and the like.
 */
#define PTM_TRACE_MAX_LINE (1u << 20)
#define PTM_TRACE_MAX_BYTES (UINT64_C(16) << 30)
#define PTM_TRACE_MAX_RESULTS (1u << 24)

/* `name` is the file name used in messages. */
int ptm_trace_probe_run(FILE *in, const char *name, FILE *out, char *msg, size_t msglen);
int ptm_trace_component_run(FILE *in, const char *name, FILE *out, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
