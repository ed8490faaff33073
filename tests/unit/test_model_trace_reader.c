/*
 * The line reader of the trace runners (src/model/trace_util.c): its
 * limits (issue 8).  A line is at most max_line characters, the line end
 * (LF or CR LF) not counted, and the error names the line; the stream is
 * at most max_bytes; the memory the reader holds follows max_line, not
 * the input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/trace_util.h"
#include "pcie_telemetry/trace.h"

static char msg[256];

/* All records of text with the given limits: the last return value of
 * ptm_tu_next, the number of records in *n. */
static int read_all(const char *text, size_t len, size_t max_line, uint64_t max_bytes, int *n,
		    size_t *cap)
{
	FILE *in = fmemopen((void *)(uintptr_t)text, len, "r");
	struct ptm_tu_reader r;
	int rc;

	assert_non_null(in);
	ptm_tu_init(&r, in, "t.trace", msg, sizeof(msg));
	assert_int_equal(r.max_line, PTM_TRACE_MAX_LINE);
	r.max_line = max_line;
	r.max_bytes = max_bytes;
	*n = 0;
	msg[0] = '\0';
	while ((rc = ptm_tu_next(&r)) > 0)
		(*n)++;
	if (cap)
		*cap = r.cap;
	ptm_tu_fini(&r);
	fclose(in);
	return rc;
}

static void test_line_boundary(void **state)
{
	(void)state;
	int n;

	/* 10 characters, then 10 with CR LF, then 11 */
	assert_int_equal(read_all("A 23456789\nB 2345678\r\n", 22, 10, 1000, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(read_all("A 23456789\nB 2345678\r\n", 22, 9, 1000, &n, NULL), -EINVAL);
	assert_string_equal(msg, "t.trace:1: line longer than 9 characters");
	assert_int_equal(read_all("A\n\n# c\nB 234567890\n", 19, 10, 1000, &n, NULL), -EINVAL);
	assert_string_equal(msg, "t.trace:4: line longer than 10 characters");
	assert_int_equal(n, 1);
	/* the last line without its LF counts the same */
	assert_int_equal(read_all("A\nB 23456789", 12, 10, 1000, &n, NULL), 0);
	assert_int_equal(read_all("A\nB 234567890", 13, 10, 1000, &n, NULL), -EINVAL);
	assert_string_equal(msg, "t.trace:2: line longer than 10 characters");
	/* a NUL byte is still an error of its own */
	assert_int_equal(read_all("A\nB\0C\n", 6, 10, 1000, &n, NULL), -EINVAL);
	assert_string_equal(msg, "t.trace:2: NUL byte in line");
}

static void test_memory_follows_the_limit(void **state)
{
	(void)state;
	size_t len = 8u << 20, cap;
	char *big = malloc(len);
	int n;

	assert_non_null(big);
	memset(big, 'x', len); /* 8 MiB without a newline */
	assert_int_equal(read_all(big, len, 4096, UINT64_MAX, &n, &cap), -EINVAL);
	assert_string_equal(msg, "t.trace:1: line longer than 4096 characters");
	assert_true(cap <= 2 * (4096 + 2));
	/* the default limit: 1 MiB, and no more is held */
	big[len - 1] = '\n';
	assert_int_equal(read_all(big, len, PTM_TRACE_MAX_LINE, UINT64_MAX, &n, &cap), -EINVAL);
	assert_true(cap <= 2 * (PTM_TRACE_MAX_LINE + 2));
	free(big);
}

static void test_stream_limit(void **state)
{
	(void)state;
	char text[200000];
	int n;

	for (size_t i = 0; i < sizeof(text); i += 4)
		memcpy(text + i, "A 1\n", 4);
	assert_int_equal(read_all(text, sizeof(text), 100, sizeof(text), &n, NULL), 0);
	assert_int_equal(n, (int)(sizeof(text) / 4));
	assert_int_equal(read_all(text, sizeof(text), 100, sizeof(text) - 1, &n, NULL), -EINVAL);
	assert_non_null(strstr(msg, "the trace is longer than 199999 bytes"));
	assert_true(n < (int)(sizeof(text) / 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_boundary),
		cmocka_unit_test(test_memory_follows_the_limit),
		cmocka_unit_test(test_stream_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
