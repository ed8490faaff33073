/*
 * Runner for the COMPONENT conformance trace (trace-format.md part b).
 * Placeholder while the model is being written.
 */
#include <errno.h>
#include <stdio.h>

#include "pcie_telemetry/trace.h"

int ptm_trace_component_run(FILE *in, const char *name, FILE *out, char *msg, size_t msglen)
{
	(void)in;
	(void)out;
	snprintf(msg, msglen, "%s: component traces are not implemented yet", name);
	return -ENOSYS;
}
