/*
 * Unit tests of the exporter's command line, listen addresses and content
 * negotiation: the -i rule (the -d before it; before every -d, the
 * default of the rest), durations with units, one message per error
 * naming the option, and which Accept headers get OpenMetrics.
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

#include "pcie_telemetry/serve.h"
#include "serve/http.h"

static int parse(struct pt_serve_config *c, char *msg, const char *const *args)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"exporter";
	while (*args)
		argv[argc++] = (char *)*args++;
	pt_serve_config_default(c);
	msg[0] = '\0';
	return pt_serve_parse_args(argc, argv, c, msg, 256);
}

static void test_defaults(void **state)
{
	struct pt_serve_config c;
	char msg[256];
	const char *none[] = { NULL };

	(void)state;
	assert_int_equal(parse(&c, msg, none), PT_SERVE_RUN);
	assert_string_equal(c.listen, "127.0.0.1:10942");
	assert_string_equal(c.path, "/metrics");
	assert_true(c.poll_interval == 0.5);
	assert_int_equal(c.ndevices, 1);
	assert_null(c.devices[0].device); /* the libnfb default */
	assert_int_equal(c.devices[0].index, 0);
}

static void test_devices_and_index(void **state)
{
	struct pt_serve_config c;
	char msg[256];
	const char *a[] = { "-i", "3", "-d", "sim", "-dimage:x", "-i", "1", "--device=/dev/nfb0",
			    "--poll.interval=250ms", "--web.listen-address", "[::1]:0",
			    "--web.telemetry-path=/m", "--web.connection-timeout=2m", NULL };
	const char *b[] = { "-i", "2", NULL };
	const char *h[] = { "-d", "sim", "--help", "--bogus", NULL };

	(void)state;
	assert_int_equal(parse(&c, msg, a), PT_SERVE_RUN);
	assert_int_equal(c.ndevices, 3);
	assert_string_equal(c.devices[0].device, "sim");
	assert_int_equal(c.devices[0].index, 3);
	assert_string_equal(c.devices[1].device, "image:x");
	assert_int_equal(c.devices[1].index, 1);
	assert_int_equal(c.devices[2].index, 3);
	assert_true(c.poll_interval == 0.25);
	assert_true(c.timeout == 120);
	assert_string_equal(c.listen, "[::1]:0");
	assert_string_equal(c.path, "/m");
	assert_int_equal(parse(&c, msg, b), PT_SERVE_RUN);
	assert_int_equal(c.ndevices, 1);
	assert_null(c.devices[0].device);
	assert_int_equal(c.devices[0].index, 2);
	assert_int_equal(parse(&c, msg, h), PT_SERVE_HELP); /* acts at once */
}

static void test_errors(void **state)
{
	static const struct {
		const char *args[4];
		const char *msg;
	} cases[] = {
		{ { "--web.telemetry", "/x" }, "unknown option '--web.telemetry' (see --help)" },
		{ { "--bogus=1" }, "unknown option '--bogus' (see --help)" },
		{ { "-q" }, "unknown option '-q' (see --help)" },
		{ { "-hx" }, "option '-h' takes no value ('-hx')" },
		{ { "--version=2" }, "option '--version' takes no value ('--version=2')" },
		{ { "-i" }, "option '-i' needs a value (INDEX)" },
		{ { "--poll.interval" }, "option '--poll.interval' needs a value (DURATION)" },
		{ { "--poll.interval=5ms" }, "--poll.interval '5ms': expected a duration from 10ms to 1h" },
		{ { "--poll.interval=2d" }, "--poll.interval '2d': expected a duration from 10ms to 1h" },
		{ { "--poll.interval=-1" }, "--poll.interval '-1': expected a duration from 10ms to 1h" },
		{ { "--web.max-connections=1x" }, "--web.max-connections '1x': expected a number from 4 to 4096" },
		{ { "--web.listen-address=localhost" },
		  "--web.listen-address 'localhost': expected HOST:PORT, [IPV6]:PORT or :PORT" },
		{ { "--web.listen-address=:x" },
		  "--web.listen-address ':x': the port must be a number from 0 to 65535" },
		{ { "--web.listen-address=[1.2.3.4]:80" },
		  "--web.listen-address '[1.2.3.4]:80': not an IPv6 address in the brackets" },
		{ { "--web.listen-address=[::1]" },
		  "--web.listen-address '[::1]': expected [IPV6]:PORT: no ':PORT' after the ']'" },
		{ { "--web.listen-address=[::1]80" },
		  "--web.listen-address '[::1]80': expected [IPV6]:PORT: no ':PORT' after the ']'" },
		{ { "--web.listen-address=[::1:80" },
		  "--web.listen-address '[::1:80': the IPv6 address has no closing ']'" },
		{ { "--web.listen-address=::1:80" },
		  "--web.listen-address '::1:80': an IPv6 address goes in brackets: [::1]:PORT" },
		{ { "--web.listen-address=[::1]:80:90" },
		  "--web.listen-address '[::1]:80:90': the port must be a number from 0 to 65535" },
		{ { "-d", "" }, "-d: empty device name" },
		{ { "-i", "1", "-i", "2" }, "-i '2': a second -i for the devices before the first -d" },
		{ { "-d", "a", "-d", "a" }, "-d 'a': given twice (index 0)" },
		{ { "-d", "a", "b" }, "stray argument 'b' (see --help)" },
		{ { "--", "x" }, "stray argument 'x' (see --help)" },
		{ { "-d", "a\nb", "-d", "a\nb" }, "-d 'a\\x0Ab': given twice (index 0)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pt_serve_config c;
		char msg[256];
		const char *args[5] = { NULL };

		memcpy(args, cases[i].args, sizeof cases[i].args);
		assert_int_equal(parse(&c, msg, args), -EINVAL);
		assert_string_equal(msg, cases[i].msg);
		assert_null(strchr(msg, '\n'));
	}
}

static void test_addresses(void **state)
{
	struct pt_serve_addr a;
	char msg[256];

	(void)state;
	assert_int_equal(pt_serve_addr_parse("127.0.0.1:10942", &a, msg, sizeof msg), 0);
	assert_string_equal(a.host, "127.0.0.1");
	assert_int_equal(a.port, 10942);
	assert_int_equal(pt_serve_addr_parse(":9", &a, msg, sizeof msg), 0);
	assert_string_equal(a.host, "");
	assert_int_equal(pt_serve_addr_parse("[::]:0", &a, msg, sizeof msg), 0);
	assert_string_equal(a.host, "::");
	assert_true(a.ipv6_literal);
	assert_int_equal(pt_serve_addr_parse("host.example:65535", &a, msg, sizeof msg), 0);
	assert_int_equal(pt_serve_addr_parse("h:65536", &a, msg, sizeof msg), -EINVAL);
	assert_int_equal(pt_serve_addr_parse("h:", &a, msg, sizeof msg), -EINVAL);
	assert_int_equal(pt_serve_addr_parse("[::1:80", &a, msg, sizeof msg), -EINVAL);
}

static void test_accept(void **state)
{
	(void)state;
	/* what Prometheus 2.x sends */
	assert_true(pt_serve_accept_openmetrics(
		"application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_true(pt_serve_accept_openmetrics("application/openmetrics-text"));
	assert_true(pt_serve_accept_openmetrics("text/plain;q=0.2, application/openmetrics-text; q=0.3"));
	assert_false(pt_serve_accept_openmetrics(NULL));
	assert_false(pt_serve_accept_openmetrics("*/*"));
	assert_false(pt_serve_accept_openmetrics("text/plain"));
	assert_false(pt_serve_accept_openmetrics("text/plain, application/openmetrics-text"));
	assert_false(pt_serve_accept_openmetrics("application/openmetrics-text;q=0"));
	assert_false(pt_serve_accept_openmetrics("application/openmetrics-textx"));
	assert_false(pt_serve_accept_openmetrics("*/*;q=0.9, application/openmetrics-text;q=0.5"));
}

static void test_usage_lists_every_option(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	static const char *const names[] = { "--web.listen-address=ADDRESS", "--web.telemetry-path=PATH",
					     "--web.max-connections=N", "--web.connection-timeout=DURATION",
					     "-d, --device DEVICE", "-i, --index INDEX",
					     "--poll.interval=DURATION", "-h, --help", "-V, --version",
					     "[default: 127.0.0.1:10942]" };

	(void)state;
	assert_int_equal(pt_serve_usage(f, "x"), 0);
	fclose(f);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		assert_non_null(strstr(text, names[i]));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_devices_and_index),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_usage_lists_every_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
