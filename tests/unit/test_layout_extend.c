/*
 * Counters extended across wraps (include/pcie_telemetry/extend.h): a
 * 33-bit card fed many wrap periods stays exact and monotonic; a clear by
 * somebody else is a reset, never a jump; an endpoint held in reset, a
 * wrap right before the clear check and the first reading; the step and
 * wrap-time bounds follow the layout.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/extend.h"
#include "test_layout_util.h"

#define PCIE_HZ 400e6
#define DMA_HZ 200e6

static const struct pt_test_shape two_ep = { 2, 1, 2, 2, 2, 2, 6, 2, 4, 0, 0 };

/* The card as the test drives it: true (unbounded) counts, and the
 * reading the firmware would show (modulo 2^width). */
struct card {
	struct pt_layout l;
	uint64_t *truth;
	struct pt_reading r;
	double t;
};

static void card_init(struct card *c, unsigned width)
{
	pt_test_layout(&two_ep, width, &c->l);
	c->truth = calloc(c->l.entries, sizeof(*c->truth));
	assert_non_null(c->truth);
	assert_int_equal(pt_reading_init(&c->r, c->l.entries), 0);
	c->t = 0;
}

static void card_free(struct card *c)
{
	free(c->truth);
	pt_reading_free(&c->r);
}

/* dt seconds of traffic: every counter grows at its own rate; ep_stalled
 * (or -1) is an endpoint held in reset, whose counters stand still. */
static void card_run(struct card *c, double dt, int ep_stalled)
{
	uint64_t mask = c->l.cnt_width >= 64 ? UINT64_MAX : (UINT64_C(1) << c->l.cnt_width) - 1;

	for (unsigned i = 0; i < pt_counter_count(&c->l); i++) {
		struct pt_counter_info ci;
		double hz;

		pt_counter_decode(&c->l, i, &ci);
		if ((int)ci.ep == ep_stalled)
			continue;
		hz = ci.kind == PT_COUNTER_DMA_CYCLES || (ci.kind == PT_COUNTER_BUS && ci.bus >= 2)
			     ? DMA_HZ
			     : PCIE_HZ;
		/* a busy mix: items at most the bus's step, the rest less */
		c->truth[i] += (uint64_t)(hz * dt * (double)pt_layout_max_step(&c->l, i) *
					  (ci.kind == PT_COUNTER_BUS ? 0.5 + 0.01 * (i % 7) : 1.0));
	}
	c->t += dt;
	for (unsigned i = 0; i < c->l.entries; i++)
		c->r.cnt[i] = c->truth[i] & mask;
	c->r.time = c->t;
}

static void card_clear(struct card *c)
{
	memset(c->truth, 0, c->l.entries * sizeof(*c->truth));
}

static void test_steps_and_wrap_time(void **state)
{
	struct pt_layout l;
	unsigned idx;
	char m[256];

	(void)state;
	pt_test_layout(&two_ep, 33, &l);
	/* 2 regions of 32 B = 8 items: items step 16, register of 5 bits */
	assert_int_equal(pt_counter_index(&l, "ep0.rq.items", &idx, m, sizeof m), 0);
	assert_int_equal(pt_layout_max_step(&l, idx), 31);
	assert_int_equal(pt_counter_index(&l, "ep1.down0.transactions", &idx, m, sizeof m), 0);
	assert_int_equal(pt_layout_max_step(&l, idx), 2);
	assert_int_equal(pt_counter_index(&l, "ep0.pcie_cycles", &idx, m, sizeof m), 0);
	assert_int_equal(pt_layout_max_step(&l, idx), 1);
	assert_int_equal(pt_layout_max_step(&l, pt_counter_count(&l)), 0);
	/* the PCIe items counter is the fastest: 2^33 / (31 x 400 MHz) */
	assert_true(fabs(pt_layout_wrap_seconds(&l, PCIE_HZ, DMA_HZ) - 8589934592.0 / (31 * PCIE_HZ)) <
		    1e-9);
	assert_true(isinf(pt_layout_wrap_seconds(&l, 0, 0)));
	pt_test_layout(&two_ep, 64, &l);
	assert_true(isinf(pt_layout_wrap_seconds(&l, PCIE_HZ, DMA_HZ)));
}

/* Many wrap periods of the fastest counter, read a little more often than
 * half the wrap time: the extended values are the true counts. */
static void test_many_wraps_exact(void **state)
{
	struct card c;
	struct pt_extend x;
	double wrap;

	(void)state;
	card_init(&c, 33);
	wrap = pt_layout_wrap_seconds(&c.l, PCIE_HZ, DMA_HZ);
	assert_int_equal(pt_extend_init(&x, &c.l), 0);
	card_run(&c, 0.01, -1);
	assert_int_equal(pt_extend_update(&x, &c.r), PT_EXTEND_FIRST);
	for (int k = 0; k < 200; k++) { /* about 90 wrap periods */
		card_run(&c, wrap * 0.45, -1);
		assert_int_equal(pt_extend_update(&x, &c.r), PT_EXTEND_GREW);
	}
	for (unsigned i = 0; i < x.n; i++)
		assert_true(x.value[i] == c.truth[i]);
	assert_true(fabs(x.hz[1][0] - PCIE_HZ) < 1e3);
	assert_int_equal(x.resets, 0);
	pt_extend_free(&x);
	card_free(&c);
}

/* A clear between two readings restarts the values from the raw ones:
 * no value is ever huge, whatever the counters were. */
static void test_clear_is_a_reset(void **state)
{
	struct card c;
	struct pt_extend x;

	(void)state;
	card_init(&c, 33);
	assert_int_equal(pt_extend_init(&x, &c.l), 0);
	for (int k = 0; k < 5; k++) {
		card_run(&c, 0.5, -1);
		pt_extend_update(&x, &c.r);
	}
	card_clear(&c);
	card_run(&c, 0.2, -1);
	assert_int_equal(pt_extend_update(&x, &c.r), PT_EXTEND_RESET);
	for (unsigned i = 0; i < x.n; i++)
		assert_true(x.value[i] == c.truth[i]);
	card_run(&c, 0.5, -1);
	assert_int_equal(pt_extend_update(&x, &c.r), PT_EXTEND_GREW);
	for (unsigned i = 0; i < x.n; i++)
		assert_true(x.value[i] == c.truth[i]);
	assert_int_equal(x.resets, 1);
	pt_extend_free(&x);
	card_free(&c);
}

/* One endpoint held in reset: its counters stand still, which is not a
 * clear; the other endpoint goes on growing. */
static void test_endpoint_in_reset_is_no_clear(void **state)
{
	struct card c;
	struct pt_extend x;

	(void)state;
	card_init(&c, 33);
	assert_int_equal(pt_extend_init(&x, &c.l), 0);
	card_run(&c, 0.5, -1);
	pt_extend_update(&x, &c.r);
	card_run(&c, 0.5, -1);
	pt_extend_update(&x, &c.r);
	for (int k = 0; k < 30; k++) {
		card_run(&c, 0.5, 0);
		assert_int_equal(pt_extend_update(&x, &c.r), PT_EXTEND_GREW);
	}
	for (unsigned i = 0; i < x.n; i++)
		assert_true(x.value[i] == c.truth[i]);
	pt_extend_free(&x);
	card_free(&c);
}

/* Before any rate is known (the second reading), a wrap of the cycle
 * counters is still no clear, and a clear is still one. */
static void test_second_reading(void **state)
{
	struct card c;
	struct pt_extend x;

	(void)state;
	card_init(&c, 33);
	assert_int_equal(pt_extend_init(&x, &c.l), 0);
	card_run(&c, 21.0, -1); /* 2^33 PCIe cycles are 21.47 s */
	pt_extend_update(&x, &c.r);
	card_run(&c, 1.0, -1); /* the PCIe cycle counters wrap */
	assert_int_equal(pt_extend_update(&x, &c.r), PT_EXTEND_GREW);
	assert_true(x.value[pt_idx_pcie_cycles(&c.l, 0)] == c.truth[pt_idx_pcie_cycles(&c.l, 0)]);
	pt_extend_free(&x);
	card_free(&c);

	card_init(&c, 33);
	card_run(&c, 10.0, -1);
	assert_int_equal(pt_extend_init(&x, &c.l), 0);
	pt_extend_update(&x, &c.r);
	card_clear(&c);
	card_run(&c, 1.0, -1);
	assert_int_equal(pt_extend_update(&x, &c.r), PT_EXTEND_RESET);
	pt_extend_free(&x);
	card_free(&c);
}

static void test_bad_input(void **state)
{
	struct card c;
	struct pt_extend x;
	struct pt_reading small;

	(void)state;
	card_init(&c, 48);
	assert_int_equal(pt_extend_init(&x, &c.l), 0);
	card_run(&c, 1.0, -1);
	pt_extend_update(&x, &c.r);
	c.r.time = 0.5; /* time goes back */
	assert_int_equal(pt_extend_update(&x, &c.r), -EINVAL);
	assert_int_equal(pt_reading_init(&small, 4), 0);
	small.time = 2.0;
	assert_int_equal(pt_extend_update(&x, &small), -EINVAL);
	assert_int_equal(x.readings, 1);
	pt_reading_free(&small);
	pt_extend_free(&x);
	pt_extend_free(&x); /* twice is harmless */
	card_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_and_wrap_time),
		cmocka_unit_test(test_many_wraps_exact),
		cmocka_unit_test(test_clear_is_a_reset),
		cmocka_unit_test(test_endpoint_in_reset_is_no_clear),
		cmocka_unit_test(test_second_reading),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
