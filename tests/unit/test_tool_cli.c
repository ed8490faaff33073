/*
 * nfb-pcie-telemetry in-process: pt_cli_main() runs the whole command on
 * the streams it is given, again and again with the same result, leaves
 * the signal handlers as they were, and cli_parse() returns its errors
 * (status 2 and one line) instead of exiting.  The option table builds
 * the --help lines.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/* One run: the status, stdout and stderr (freed by the caller). */
static int run(int argc, char **argv, char **out, char **err)
{
	size_t olen, elen;
	FILE *o = open_memstream(out, &olen), *e = open_memstream(err, &elen);
	int status;

	assert_non_null(o);
	assert_non_null(e);
	status = pt_cli_main(argc, argv, o, e);
	fclose(o);
	fclose(e);
	return status;
}

static void test_report_twice(void **state)
{
	(void)state;
	char dev[1024], want_path[1024], *out, *err, *want;
	size_t wlen;
	struct sigaction before, after;

	snprintf(dev, sizeof(dev), "image:%s/conformance/report/basic_t1.regs", PT_TEST_DATA);
	snprintf(want_path, sizeof(want_path), "%s/conformance/report/basic_t1.out", PT_TEST_DATA);
	want = slurp(want_path, &wlen);
	char *argv[] = { CLI_PROG, "-d", dev, "-t", "1", NULL };
	sigaction(SIGINT, NULL, &before);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(run(5, argv, &out, &err), 0);
		assert_int_equal(strlen(out), wlen);
		assert_memory_equal(out, want, wlen);
		assert_string_equal(err, "");
		free(out);
		free(err);
	}
	sigaction(SIGINT, NULL, &after);
	assert_true(before.sa_handler == after.sa_handler);
	free(want);
}

static void test_errors_return(void **state)
{
	(void)state;
	char *out, *err;
	char *bad_t[] = { CLI_PROG, "-t", "-1", NULL };
	char *stray[] = { CLI_PROG, "-d", "image:x", "one\ntwo", NULL };
	char *missing[] = { CLI_PROG, "-d", "image:/nonexistent/x.regs", NULL };
	struct cli_args a;
	struct cli_error e;

	assert_int_equal(run(3, bad_t, &out, &err), 2);
	assert_string_equal(out, "");
	assert_string_equal(err, "nfb-pcie-telemetry: -t '-1': a negative interval (use -t 0 for "
				 "the totals since the last clear)\n");
	free(out);
	free(err);
	assert_int_equal(run(4, stray, &out, &err), 2);
	assert_string_equal(err, "nfb-pcie-telemetry: stray argument 'one\\x0Atwo' (see --help)\n");
	free(out);
	free(err);
	assert_int_equal(run(3, missing, &out, &err), 1);
	assert_non_null(strstr(err, "cannot open the register image: No such file"));
	free(out);
	free(err);
	/* the parser alone: an error, no exit */
	assert_int_equal(cli_parse(3, bad_t, &a, &e), -1);
	assert_int_equal(e.status, CLI_EXIT_USAGE);
	char *flags[] = { CLI_PROG, "-wj", "--rec", "r.regs", "-d", "image:x", NULL };
	assert_int_equal(cli_parse(6, flags, &a, &e), 0);
	assert_true(a.watch && a.json && !a.clear);
	assert_string_equal(a.record, "r.regs");
	assert_string_equal(a.device, "image:x");
	char *help[] = { CLI_PROG, "--help", "--bogus", NULL };
	assert_int_equal(cli_parse(3, help, &a, &e), 0);
	assert_int_equal(a.action, CLI_HELP);
}

/* --top in-process: a stream without a terminal is refused before the
 * device is opened (status 2, one line); the parser takes the flag. */
static void test_top_needs_terminal(void **state)
{
	(void)state;
	char *out, *err;
	char *top[] = { CLI_PROG, "--top", "-d", "image:/nonexistent/x.regs", NULL };
	struct cli_args a;
	struct cli_error e;

	assert_int_equal(run(4, top, &out, &err), 2);
	assert_string_equal(out, "");
	assert_string_equal(err, "nfb-pcie-telemetry: --top: standard output is not a terminal (the "
				 "live view draws on one; -w prints reports to a file or a pipe)\n");
	free(out);
	free(err);
	assert_int_equal(cli_parse(4, top, &a, &e), 0);
	assert_true(a.top && a.interval == 1.0);
	char *fast[] = { CLI_PROG, "--top", "-t", "0.01", NULL };
	assert_int_equal(cli_parse(4, fast, &a, &e), -1);
	assert_string_equal(e.msg, "--top: -t 0.01: the live view measures intervals of 0.1 to 60 s");
}

/* Every row of the table has its line in --help, in table order. */
static void test_help_from_table(void **state)
{
	(void)state;
	char *buf = NULL, *at;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	cli_usage(f);
	fclose(f);
	at = buf;
	for (size_t i = 0; i < cli_noptions; i++) {
		char want[64];

		snprintf(want, sizeof(want), "--%s", cli_options[i].name);
		at = strstr(at, want);
		if (!at)
			fail_msg("--help lacks %s in table order", want);
		if (cli_options[i].synopsis)
			assert_non_null(strstr(buf, cli_options[i].synopsis));
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_twice),
		cmocka_unit_test(test_errors_return),
		cmocka_unit_test(test_help_from_table),
		cmocka_unit_test(test_top_needs_terminal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
