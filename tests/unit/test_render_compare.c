/*
 * --compare and --sweep renderers on recorded readings: the values of both
 * sides and their change, "-" (null) for what only one layout has, both
 * diagnoses, one sweep column per value; NULL and mismatched input fail
 * cleanly.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"
#include "pcie_telemetry/telemetry.h"
#include "test_util.h"

/* A one-second interval of a public register image. */
struct side {
	struct pt_bus *bus;
	struct pt_dev dev;
	struct pt_reading a, b, d;
	struct pt_report rep;
};

static void side_open(struct side *s, const char *name)
{
	char path[512], msg[PT_BUS_MSG_LEN];

	snprintf(path, sizeof path, "%s/conformance/report/%s.regs", PT_TEST_DATA, name);
	if (pt_bus_open_image(path, &s->bus, msg, sizeof msg) ||
	    pt_dev_init(&s->dev, s->bus, msg, sizeof msg))
		fail_msg("%s: %s", name, msg);
	assert_int_equal(pt_reading_init(&s->a, s->dev.layout.entries), 0);
	assert_int_equal(pt_reading_init(&s->b, s->dev.layout.entries), 0);
	assert_int_equal(pt_reading_init(&s->d, s->dev.layout.entries), 0);
	if (pt_dev_measure(&s->dev, 1.0, &s->a, &s->b, msg, sizeof msg))
		fail_msg("%s: %s", name, msg);
	pt_reading_diff(&s->dev.layout, &s->a, &s->b, &s->d);
	s->rep = (struct pt_report){ .layout = &s->dev.layout, .reading = &s->d, .interval = true,
				     .seconds = s->b.time - s->a.time };
}

static void side_close(struct side *s)
{
	pt_reading_free(&s->a);
	pt_reading_free(&s->b);
	pt_reading_free(&s->d);
	pt_bus_close(s->bus);
}

static char *out_buf;
static size_t out_len;

static FILE *mem(void)
{
	FILE *f = open_memstream(&out_buf, &out_len);

	assert_non_null(f);
	return f;
}

static char *done(FILE *f)
{
	fclose(f);
	return out_buf;
}

static void test_compare_same(void **state)
{
	struct side s;
	FILE *f;
	char *t;

	(void)state;
	side_open(&s, "basic_t1");
	struct pt_compare c = { &s.rep, &s.rep, "image:a", "image:b" };

	f = mem();
	assert_int_equal(pt_render_compare_text(f, &c), 0);
	t = done(f);
	assert_non_null(strstr(t, "A: image:a, measured over 1.000 s\n"));
	assert_non_null(strstr(t, "\nPTC -> PCIe (RQ)    Words %"));
	assert_non_null(strstr(t, "no free PCIe tag"));
	assert_non_null(strstr(t, "\nread "));
	/* the same reading on both sides changes nothing */
	assert_null(strstr(t, "+0.01"));
	assert_null(strstr(t, "-0.01"));
	assert_non_null(strstr(t, "+0.00"));
	free(t);
	f = mem();
	assert_int_equal(pt_render_compare_json(f, &c), 0);
	t = done(f);
	assert_non_null(strstr(t, "\"device\": \"image:b\""));
	assert_non_null(strstr(t, "\"change\": 0.0"));
	assert_non_null(strstr(t, "\"diagnosis_a\": ["));
	assert_non_null(strstr(t, "\"diagnosis_b\": ["));
	assert_int_equal(t[strlen(t) - 2], '}');
	free(t);
	side_close(&s);
}

static void test_compare_layouts(void **state)
{
	struct side one, two;
	FILE *f;
	char *t;

	(void)state;
	side_open(&one, "basic_t1");
	side_open(&two, "two_ep_two_ports");
	struct pt_compare c = { &one.rep, &two.rep, "image:one", "image:two" };

	f = mem();
	assert_int_equal(pt_render_compare_text(f, &c), 0);
	t = done(f);
	/* endpoint 1 and port 1 exist on B alone */
	assert_non_null(strstr(t, "\nPCIe endpoint 1\n"));
	assert_non_null(strstr(t, "PTC -> DMA1 (DOWN)  Words %      -"));
	free(t);
	f = mem();
	assert_int_equal(pt_render_compare_json(f, &c), 0);
	t = done(f);
	assert_non_null(strstr(t, "\"a\": null"));
	free(t);
	c.b = NULL;
	f = mem();
	assert_int_equal(pt_render_compare_text(f, &c), -EINVAL);
	assert_int_equal(strlen(done(f)), 0);
	free(out_buf);
	side_close(&one);
	side_close(&two);
}

static void test_sweep(void **state)
{
	struct side s[3];
	static const char *const names[3] = { "basic_t1", "one_region_64B", "two_ep_two_ports" };
	static const char *const values[3] = { "1", "2", "3" };
	struct pt_report reps[3];
	FILE *f;
	char *t;

	(void)state;
	for (int i = 0; i < 3; i++) {
		side_open(&s[i], names[i]);
		reps[i] = s[i].rep;
	}
	struct pt_sweep sw = { "card.seed", "sim:x", 3, values, reps };

	f = mem();
	assert_int_equal(pt_render_sweep_text(f, &sw), 0);
	t = done(f);
	assert_non_null(strstr(t, "Sweep of card.seed on sim:x"));
	assert_non_null(strstr(t, "\ncard.seed   "));
	assert_non_null(strstr(t, "ep0 read bottleneck"));
	assert_non_null(strstr(t, "ep1 write bottleneck"));
	assert_non_null(strstr(t, "ep0 PTC -> PCIe (RQ) Gbps"));
	free(t);
	f = mem();
	assert_int_equal(pt_render_sweep_json(f, &sw), 0);
	t = done(f);
	assert_non_null(strstr(t, "\"key\": \"card.seed\""));
	assert_non_null(strstr(t, "\"value\": \"3\""));
	assert_non_null(strstr(t, "\"diagnosis\": ["));
	free(t);
	sw.n = 0;
	f = mem();
	assert_int_equal(pt_render_sweep_text(f, &sw), -EINVAL);
	free(done(f));
	for (int i = 0; i < 3; i++)
		side_close(&s[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_same),
		cmocka_unit_test(test_compare_layouts),
		cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
