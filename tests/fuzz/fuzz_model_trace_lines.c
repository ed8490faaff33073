/*
 * Fuzz target: the line reader and the field parsers of the trace
 * formats (src/model/trace_util.c) on inputs of any size: no cap on the
 * input or on its numbers (fuzz_model_trace needs one, because a trace
 * runs its edges), so the line and size limits are reached and checked.
 *
 * Input: a byte choosing the limits (the documented ones, or a line limit
 * of 1..64 characters and a stream limit of 1..4096 bytes), then the text.
 * Checked: every record has fields without blanks, line ends, comments or
 * NUL bytes; line numbers grow; the reader never holds more than about
 * twice the line limit; an error is one line "fuzz.trace:LINE: ..."; the
 * number parsers agree with strtoull where it applies.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace_util.h"
#include "pcie_telemetry/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_numbers(const char *s)
{
	size_t n = strlen(s);
	struct ptm_tu_hex v;
	uint64_t d;
	char *end;
	int all_hex = n > 0, all_dec = n > 0;

	for (size_t i = 0; i < n; i++) {
		all_hex &= strchr("0123456789abcdefABCDEF", s[i]) != NULL;
		all_dec &= s[i] >= '0' && s[i] <= '9';
	}
	if ((ptm_tu_hex_parse(s, PTM_TU_HEX_MAX_BITS, &v, NULL, 0) == 0) != (all_hex && n <= 2048 + strspn(s, "0")))
		abort();
	if (all_hex && n <= 16) {
		if (ptm_tu_hex_parse(s, 64, &v, NULL, 0) != 0 ||
		    ptm_tu_hex_get(&v, 0, 64) != strtoull(s, &end, 16))
			abort();
		if (ptm_tu_hex_is_zero(&v) != (strtoull(s, &end, 16) == 0))
			abort();
	}
	if ((ptm_tu_dec_parse(s, 0, UINT64_MAX, &d, NULL, 0) == 0) && !all_dec)
		abort();
	if (all_dec && n <= 19 && (ptm_tu_dec_parse(s, 0, UINT64_MAX, &d, NULL, 0) != 0 ||
				   d != strtoull(s, &end, 10)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptm_tu_reader r;
	unsigned long last = 0;
	char msg[256];
	FILE *in;
	int rc;

	if (size < 1)
		return 0;
	in = fmemopen((void *)(uintptr_t)(data + 1), size > 1 ? size - 1 : 1, "r");
	if (!in)
		return 0;
	if (size == 1)
		fgetc(in); /* fmemopen needs a non-empty buffer: read it away */
	ptm_tu_init(&r, in, "fuzz.trace", msg, sizeof(msg));
	if (data[0] & 0x80) {
		r.max_line = 1 + (data[0] & 0x3F);
		r.max_bytes = 1 + 64u * (data[0] & 0x3F);
	}
	msg[0] = '\0';
	while ((rc = ptm_tu_next(&r)) > 0) {
		if (r.nfield == 0 || r.lineno <= last)
			abort();
		last = r.lineno;
		for (unsigned i = 0; i < r.nfield; i++) {
			const char *f = r.field[i];

			if (!*f || strpbrk(f, " \t\r\n#"))
				abort();
			if (i < 4) /* the same parsers for every field: a few per line do */
				check_numbers(f);
		}
		if (r.cap > 2 * (r.max_line + 2) && r.cap > 256)
			abort(); /* the line buffer follows the limit, not the input */
	}
	if (rc < 0 && (strncmp(msg, "fuzz.trace:", 11) != 0 || strchr(msg, '\n')))
		abort();
	if (rc == 0 && r.bytes > r.max_bytes)
		abort();
	ptm_tu_fini(&r);
	fclose(in);
	return 0;
}
