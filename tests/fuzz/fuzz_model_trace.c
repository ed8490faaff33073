/*
 * Fuzz target: both conformance trace runners (ptmodel probe, ptmodel
 * component) on arbitrary bytes.  The first byte picks the runner.  A
 * runner either accepts the trace and writes its expected-output format,
 * or rejects it with -EINVAL, a "NAME:LINE: ..." message and no output;
 * nothing may crash, hang or leak.
 *
 * A well-formed trace may legitimately ask for billions of edges (CYCLES,
 * EDGES, R and REP counts); such inputs are skipped, because their run
 * time is the point of the format, not a bug.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A decimal number above this anywhere in the text means "too long to
 * run inside a fuzzing iteration". */
#define MAX_COUNT 20000u

static int has_large_number(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	int in = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] >= '0' && p[i] <= '9') {
			v = in ? v * 10 + (uint64_t)(p[i] - '0') : (uint64_t)(p[i] - '0');
			in = 1;
			if (v > MAX_COUNT)
				return 1;
		} else {
			in = 0;
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[256], *out = NULL;
	size_t outlen = 0;
	FILE *in, *o;
	int rc;

	if (size < 1 || has_large_number(data + 1, size - 1))
		return 0;
	in = fmemopen((void *)(uintptr_t)(data + 1), size - 1 ? size - 1 : 1, "r");
	if (!in)
		return 0;
	if (size == 1)
		fgetc(in); /* fmemopen needs a non-empty buffer: read it away */
	o = open_memstream(&out, &outlen);
	if (!o) {
		fclose(in);
		return 0;
	}
	msg[0] = '\0';
	if (data[0] & 1)
		rc = ptm_trace_component_run(in, "fuzz.trace", o, msg, sizeof(msg));
	else
		rc = ptm_trace_probe_run(in, "fuzz.trace", o, msg, sizeof(msg));
	fclose(o);
	fclose(in);
	if (rc == -EINVAL) {
		/* a rejected trace: a message that names the file, no output */
		if (strncmp(msg, "fuzz.trace", 10) != 0 || outlen != 0)
			abort();
	} else if (rc == 0) {
		if (outlen == 0)
			abort();
	}
	free(out);
	return 0;
}
