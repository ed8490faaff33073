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
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `name` is the file name used in messages. */
int ptm_trace_probe_run(FILE *in, const char *name, FILE *out, char *msg, size_t msglen);
int ptm_trace_component_run(FILE *in, const char *name, FILE *out, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
