/*
 * Differences of counters modulo 2^CNT_WIDTH (33 .. 64), of whole
 * readings, and the decoding of the per-endpoint link registers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pcie_telemetry/telemetry.h"

#define U64(x) UINT64_C(x)

static void test_no_wrap(void **state)
{
	(void)state;
	assert_true(pt_counter_diff(1000, 400, 48) == 600);
	assert_true(pt_counter_diff(5, 5, 33) == 0);
	assert_true(pt_counter_diff(U64(0x1FFFFFFFF), 0, 33) == U64(0x1FFFFFFFF));
	assert_true(pt_counter_diff(U64(0xFFFFFFFFFFFF), 1, 48) == U64(0xFFFFFFFFFFFE));
	assert_true(pt_counter_diff(UINT64_MAX, 0, 64) == UINT64_MAX);
	assert_true(pt_counter_diff(U64(0x123456789ABCDEF0), U64(0x0123456789ABCDEF), 64) ==
		    U64(0x1111111111111101));
}

static void test_wrap_33(void **state)
{
	(void)state;
	/* 0x1FFFFFFF0 -> 0x10: 0x20 events across the wrap */
	assert_true(pt_counter_diff(0x10, U64(0x1FFFFFFF0), 33) == 0x20);
	assert_true(pt_counter_diff(0, U64(0x1FFFFFFFF), 33) == 1);
	/* a full period minus one */
	assert_true(pt_counter_diff(U64(0x100000000), U64(0x100000001), 33) == U64(0x1FFFFFFFF));
}

static void test_wrap_48(void **state)
{
	(void)state;
	assert_true(pt_counter_diff(0x5, U64(0xFFFFFFFFFFFB), 48) == 10);
	assert_true(pt_counter_diff(0, U64(0x800000000000), 48) == U64(0x800000000000));
	/* the result never has bits at or above the width */
	for (uint64_t a = 0; a < 64; a++) {
		uint64_t d = pt_counter_diff(a, U64(0xFFFFFFFFFF00) + a * 7, 48);
		assert_true(d < (U64(1) << 48));
		assert_true(((U64(0xFFFFFFFFFF00) + a * 7 + d) & U64(0xFFFFFFFFFFFF)) == a);
	}
}

static void test_wrap_64(void **state)
{
	(void)state;
	assert_true(pt_counter_diff(3, UINT64_MAX, 64) == 4);
	assert_true(pt_counter_diff(0, UINT64_MAX - 9, 64) == 10);
	assert_true(pt_counter_diff(U64(1) << 63, (U64(1) << 63) + 1, 64) == UINT64_MAX);
}

static void test_every_width(void **state)
{
	(void)state;
	for (unsigned w = 33; w <= 64; w++) {
		uint64_t mask = w == 64 ? UINT64_MAX : (U64(1) << w) - 1;
		uint64_t before = mask - 2; /* 3 events to the wrap */

		assert_true(pt_counter_diff(4, before, w) == 7);
		assert_true(pt_counter_diff(before, before, w) == 0);
		assert_true(pt_counter_diff(mask, 0, w) == mask);
	}
}

static void test_reading_diff(void **state)
{
	(void)state;
	struct pt_layout l;
	struct pt_reading a, b, d;

	memset(&l, 0, sizeof(l));
	l.cnt_width = 33;
	l.entries = 4;
	assert_int_equal(pt_reading_init(&a, 4), 0);
	assert_int_equal(pt_reading_init(&b, 4), 0);
	assert_int_equal(pt_reading_init(&d, 4), 0);
	a.cnt[0] = 100;
	b.cnt[0] = 350;
	a.cnt[1] = U64(0x1FFFFFF00);
	b.cnt[1] = 0x100; /* wrapped */
	a.cnt[2] = 7;
	b.cnt[2] = 7;
	a.cnt[3] = 0;
	b.cnt[3] = U64(0x1FFFFFFFF);
	a.status = 0x6;
	b.status = 0x2;
	a.pcie_status[1] = 1;
	b.pcie_status[1] = 0x251;
	b.pcie_tags[0] = 0x00030076;
	b.pcie_stfifo[15] = 0xFFFF0000;
	a.time = 7.1;
	b.time = 7.4;
	pt_reading_diff(&l, &a, &b, &d);
	assert_true(d.cnt[0] == 250);
	assert_true(d.cnt[1] == 0x200);
	assert_true(d.cnt[2] == 0);
	assert_true(d.cnt[3] == U64(0x1FFFFFFFF));
	/* everything else from the later reading */
	assert_int_equal(d.status, 0x2);
	assert_int_equal(d.pcie_status[1], 0x251);
	assert_int_equal(d.pcie_tags[0], 0x00030076);
	assert_int_equal(d.pcie_stfifo[15], 0xFFFF0000);
	assert_true(d.time == 7.4);
	pt_reading_free(&a);
	pt_reading_free(&b);
	pt_reading_free(&d);
	assert_null(d.cnt);
	pt_reading_free(&d); /* twice is harmless */
}

static void test_link_decode(void **state)
{
	(void)state;
	struct pt_reading r;
	struct pt_link k;

	assert_int_equal(pt_reading_init(&r, 1), 0);
	r.pcie_status[0] = 0x251; /* link up, ext tag, MRRS 512, MPS 256 */
	r.pcie_tags[0] = 0x00030076;
	r.pcie_stfifo[0] = 0x00600280;
	pt_link_decode(&r, 0, &k);
	assert_true(k.link_up);
	assert_true(k.ext_tag);
	assert_false(k.tag_10b);
	assert_int_equal(k.mps, 256);
	assert_int_equal(k.mrrs, 512);
	assert_int_equal(k.rcb, 64);
	assert_int_equal(k.tags_free, 118);
	assert_int_equal(k.tags_free_min, 3);
	assert_int_equal(k.stfifo_free, 640);
	assert_int_equal(k.stfifo_free_min, 96);

	r.pcie_status[1] = 0x1BF; /* codes 7 and 7, 10-bit tag, RCB 128, link down */
	r.pcie_tags[1] = 0x07FF0000;
	r.pcie_stfifo[1] = 0xFFFF0000;
	pt_link_decode(&r, 1, &k);
	assert_false(k.link_up);
	assert_true(k.tag_10b);
	assert_int_equal(k.mps, 16384);
	assert_int_equal(k.mrrs, 16384);
	assert_int_equal(k.rcb, 128);
	assert_int_equal(k.tags_free, 0);
	assert_int_equal(k.tags_free_min, 2047);
	assert_int_equal(k.stfifo_free_min, 65535);
	pt_reading_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_wrap),
		cmocka_unit_test(test_wrap_33),
		cmocka_unit_test(test_wrap_48),
		cmocka_unit_test(test_wrap_64),
		cmocka_unit_test(test_every_width),
		cmocka_unit_test(test_reading_diff),
		cmocka_unit_test(test_link_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
