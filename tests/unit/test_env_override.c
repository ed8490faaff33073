/*
 * Scenario keys set on top of a scenario (pte_card_open_ex, --sweep):
 * they change what they name and nothing else, apply in order, go through
 * the scenario's own rules and checks, and a bad one fails with a message
 * that names it (and its index), without a line number of its own.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/env.h"

static struct pte_card *open_ok(const char *spec, const char *const *ov, size_t n)
{
	struct pte_card *c;
	char msg[512];
	int which = 7;

	if (pte_card_open_ex(spec, ov, n, &which, &c, msg, sizeof msg))
		fail_msg("%s: %s", spec, msg);
	assert_int_equal(which, -1);
	return c;
}

static void test_changes_what_it_names(void **state)
{
	static const char *const ov[] = { "endpoint.mrrs=2048", "generics.DMA_PORTS=2" };
	struct pte_card *c;
	struct pte_ep_info e;
	struct pte_card_info info;

	(void)state;
	c = open_ok("tags-starved", ov, 2);
	assert_int_equal(pte_card_ep_info(c, 0, &e), 0);
	assert_int_equal(e.mrrs, 2048);
	assert_int_equal(e.ext_tag, 0); /* the preset's own keys stay */
	assert_true(e.host_latency_ns == 2000);
	pte_card_info(c, &info);
	assert_int_equal(info.g.dma_ports, 2);
	pte_card_free(c);
}

static void test_in_order(void **state)
{
	static const char *const ov[] = { "endpoint.host_latency_ns=500", "endpoint 0.host_latency_ns=3000" };
	struct pte_card *c;
	struct pte_ep_info e;

	(void)state;
	c = open_ok("", ov, 2);
	assert_int_equal(pte_card_ep_info(c, 0, &e), 0);
	assert_true(e.host_latency_ns == 3000);
	pte_card_free(c);
}

static void expect_error(const char *spec, const char *const *ov, size_t n, int which_want,
			 const char *want)
{
	struct pte_card *c = (struct pte_card *)1;
	char msg[512] = "";
	int which = 99;

	assert_true(pte_card_open_ex(spec, ov, n, &which, &c, msg, sizeof msg) < 0);
	assert_null(c);
	if (which != which_want || !strstr(msg, want))
		fail_msg("%s: which %d, message '%s' (want %d, '%s')", ov[n - 1], which, msg,
			 which_want, want);
	assert_null(strchr(msg, '\n'));
}

static void test_errors(void **state)
{
	static const char *const bad_value[] = { "endpoint.mrrs=1024", "endpoint.mrrs=300" };
	static const char *const bad_key[] = { "endpoint.mrs=512" };
	static const char *const bad_section[] = { "endpointx.mrrs=512" };
	static const char *const no_ep[] = { "endpoint 2.mrrs=512" };
	static const char *const form[] = { "mrrs=512" };
	static const char *const newline[] = { "endpoint.mrrs=512\n[card]" };
	/* a combination the checks refuse: jitter above the latency */
	static const char *const check[] = { "endpoint.host_latency_jitter_ns=5000" };

	(void)state;
	expect_error("", bad_value, 2, 1,
		     "override 'endpoint.mrrs=300': [endpoint] mrrs = 300: must be a power of two");
	expect_error("", bad_key, 1, 0, "override 'endpoint.mrs=512': [endpoint]: unknown key 'mrs'");
	expect_error("", bad_section, 1, 0, "unknown section [endpointx]");
	expect_error("", no_ep, 1, 0, "endpoint 2 does not exist");
	expect_error("", form, 1, 0, "expected SECTION.KEY=VALUE");
	expect_error("", newline, 1, 0, "expected SECTION.KEY=VALUE");
	expect_error("tx-4K", check, 1, 0,
		     "override 'endpoint.host_latency_jitter_ns=5000': preset tx-4K: [endpoint 0] "
		     "host_latency_jitter_ns 5000 exceeds");
	/* the spec's own error: no override to blame */
	expect_error("no-such-preset", bad_key, 1, -1, "no such preset");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changes_what_it_names),
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
