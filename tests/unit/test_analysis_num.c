/*
 * The metric engine's numbers are Python's (docs/metrics.md "Numbers"):
 * exact integers, one rounding for int / int and for int op double, exact
 * comparisons, Python's signs of zero, and/or returning an operand, NaN
 * and a note for a division by zero.  Expected doubles were computed by
 * Python 3.11 (written as hexadecimal floats, exact).
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

#include "test_metric_util.h"

typedef unsigned __int128 u128;

/* ---- the conversions the renderers use ----------------------------------- */

static void test_u128_to_double(void **state)
{
	(void)state;
	const u128 two53 = (u128)1 << 53;
	assert_true(pt_metric_u128_to_double(0) == 0.0);
	assert_true(pt_metric_u128_to_double(12345) == 12345.0);
	/* 2^53 + 1 is a tie between 2^53 and 2^53 + 2: even wins */
	assert_true(pt_metric_u128_to_double(two53 + 1) == 9007199254740992.0);
	assert_true(pt_metric_u128_to_double(two53 + 3) == 9007199254740996.0);
	/* above 64 bits: 2^70 + 2^17 is a tie (ulp 2^18), 2^70 + 2^17 + 1 is not */
	const u128 two70 = (u128)1 << 70;
	assert_true(pt_metric_u128_to_double(two70 + ((u128)1 << 17)) == ldexp(1.0, 70));
	assert_true(pt_metric_u128_to_double(two70 + ((u128)1 << 17) + 1) ==
		    ldexp(1.0, 70) + ldexp(1.0, 18));
	/* 3 * 2^18 on top: tie between 2^18 and 2^19 above, the even one (2^19) */
	assert_true(pt_metric_u128_to_double(two70 + 3 * ((u128)1 << 17)) ==
		    ldexp(1.0, 70) + ldexp(1.0, 19));
	assert_true(pt_metric_u128_to_double((u128)UINT64_MAX) == 18446744073709551616.0);
}

static void test_div_exact(void **state)
{
	(void)state;
	assert_true(pt_metric_div_exact(0, 5) == 0.0);
	assert_true(pt_metric_div_exact(3200, 10) == 320.0);
	assert_true(pt_metric_div_exact(1, 3) == 1.0 / 3.0);
	/* (2^53 + 1) * 3 / 3 = 2^53 + 1 exactly, a tie: rounds to 2^53 (even).
	 * Converting the operands first would give a different double. */
	u128 n = ((u128)1 << 53) + 1;
	assert_true(pt_metric_div_exact(n * 3, 3) == 9007199254740992.0);
	/* (2^53 + 3) rounds up to 2^53 + 4 */
	n = ((u128)1 << 53) + 3;
	assert_true(pt_metric_div_exact(n * 7, 7) == 9007199254740996.0);
	/* just above the tie: rounds up */
	n = ((u128)1 << 53) + 1;
	assert_true(pt_metric_div_exact(n * 1000 + 1, 1000) == 9007199254740994.0);
	/* 72-bit numerator (items * item_bytes near 2^64 * 255), 64-bit den */
	u128 items = UINT64_MAX;
	double q = pt_metric_div_exact(items * 255u, UINT64_MAX);
	assert_true(q == 255.0);
	q = pt_metric_div_exact(items * 4u, 3);
	/* 4 * (2^64 - 1) / 3 = (2^66 - 4) / 3 = 24595658764946068820 exactly */
	assert_true(q == 24595658764946068820.0);
}

/* ---- expressions -------------------------------------------------------- */

static const struct pt_test_shape shape = PT_TEST_DEFAULT_SHAPE;

/* The value of one global metric; the test fails if it does not bind. */
static struct pt_metric_value value_of(const char *expr, int *notes)
{
	struct mt t;
	struct pt_metric_value v;

	mt_init(&t, &shape, PT_METRIC_NO_BUILTIN);
	if (mt_add1(&t, "x", expr) != 0)
		fail_msg("%s: %s", expr, t.msg);
	t.r.cnt[pt_idx_pcie_cycles(&t.l, 0)] = UINT64_MAX;
	t.r.cnt[pt_idx_dma_cycles(&t.l, 0)] = UINT64_MAX - 1;
	mt_eval(&t, false, 0);
	v = *mt_val(&t, "x");
	if (notes)
		*notes = t.notes;
	mt_free(&t);
	return v;
}

static double flt(const char *expr)
{
	struct pt_metric_value v = value_of(expr, NULL);

	if (v.is_int)
		fail_msg("%s: an integer, not a double", expr);
	return v.f;
}

static __int128 integer(const char *expr)
{
	struct pt_metric_value v = value_of(expr, NULL);

	if (!v.is_int)
		fail_msg("%s: a double (%g), not an integer", expr, v.f);
	return v.i;
}

static void test_true_division(void **state)
{
	static const struct {
		const char *a, *b;
		double q;
	} t[] = {
		{ "1092814357813179448", "1", 0x1.e54e9bca5cd68p+59 },
		{ "750476357633517326", "1", 0x1.4d4748aca264ep+59 },
		{ "15149836622520594227", "69", 0x1.86059fcc313d9p+57 },
		{ "15969141921119004689", "75", 0x1.7a39aa9d2c8a1p+57 },
		{ "607076888410727187573", "922121677", 0x1.32913018245fcp+39 },
		{ "1077910507274907984730", "300026767", 0x1.a23f3c21c8783p+41 },
		{ "1144499321723629218821634009", "15252729517591092663", 0x1.1e3d0e6696fd3p+26 },
		{ "1172885919939475811803960015", "11632994891556335705", 0x1.809d021dce24ep+26 },
		{ "708910538363578124560282646197", "605137", 0x1.f024f2ccdbd7ap+79 },
		{ "1192351307841727661406807263989", "231821", 0x1.104a40fdd29fap+82 },
		{ "841633707869282495915003662379571120", "645254365064220629101684446615", 0x1.3e718132c13ffp+20 },
		{ "744709653998539169458357338747937216", "93546781668154301279346993199", 0x1.e5e3e818f0a1fp+22 },
		{ "117035190302739027389200109135403925393", "112329807459873283", 0x1.c3d8ea4cc535ep+69 },
		{ "96022289309928790929156478479885728553", "713669474309506485", 0x1.d2cdfe711fb7ap+66 },
		{ "17949807380903391", "4789312364130645", 0x1.dfbacd1643864p+1 },
		{ "14001307458646142", "4193766330856175", 0x1.ab573d0a9f249p+1 },
		{ "1152329796539255913669073", "150162026485091883067737", 0x1.eb21552bac877p+2 },
		{ "845030215383802384774183", "49478670391659657882145", 0x1.11424281072ddp+4 },
		{ "27021597764222979", "3", 0x1.0000000000000p+53 },
		{ "18446744073709551615", "3", 0x1.5555555555555p+62 },
		{ "1000000000000000000000000000000", "7", 0x1.cd98a8b00a10bp+96 },
		{ "170141183460469231731687303715884105727", "18446744073709551617", 0x1.0000000000000p+63 },
	};
	char e[256];

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		snprintf(e, sizeof e, "%s / %s", t[i].a, t[i].b);
		if (flt(e) != t[i].q)
			fail_msg("%s = %a, Python says %a", e, flt(e), t[i].q);
		/* the signs: Python's */
		snprintf(e, sizeof e, "-%s / %s", t[i].a, t[i].b);
		assert_true(flt(e) == -t[i].q);
		snprintf(e, sizeof e, "-%s / -%s", t[i].a, t[i].b);
		assert_true(flt(e) == t[i].q);
	}
	/* 100.0 * 7 / 3 is (100.0 * 7.0) / 3.0, as Python parses it */
	assert_true(flt("100.0 * 7 / 3") == 0x1.d2aaaaaaaaaabp+7);
}

static void test_counters_near_2_64(void **state)
{
	(void)state;
	/* counters are exact integers: their sum passes 2^64 exactly */
	assert_true(integer("ep0.pcie_cycles + ep0.dma_cycles") ==
		    (__int128)UINT64_MAX + (__int128)(UINT64_MAX - 1));
	assert_true(integer("ep0.pcie_cycles - ep0.dma_cycles") == 1);
	assert_true(integer("ep0.pcie_cycles * 255") == (__int128)UINT64_MAX * 255);
	/* and convert once: (2^64 - 1) / 3 is exact, then rounded */
	assert_true(flt("ep0.pcie_cycles / 3") == 0x1.5555555555555p+62);
	assert_true(flt("1.0 * ep0.pcie_cycles") == 18446744073709551616.0);
	/* beyond 2^127 the product falls back to doubles (documented) */
	assert_true(flt("ep0.pcie_cycles * ep0.pcie_cycles") == 0x1p+128);
	/* integer literals beyond 2^127 are doubles, rounded once */
	assert_true(flt("340282366920938463463374607431768211457") == 0x1p+128);
	assert_true(integer("170141183460469231731687303715884105727 + 0") ==
		    (__int128)(~(u128)0 >> 1));
	assert_true(flt("170141183460469231731687303715884105727 + 1") == 0x1p+127);
}

static void test_int_and_double(void **state)
{
	(void)state;
	assert_true(flt("3 * 0.1") == 0x1.3333333333334p-2);
	/* 2^53 + 1 converts once, to nearest even */
	assert_true(flt("9007199254740993 * 1.0") == 0x1p+53);
	assert_true(flt("9007199254740993 + 0.0") == 0x1p+53);
	assert_true(integer("9007199254740993 * 1") == 9007199254740993);
	assert_true(flt("2 / 4") == 0.5);
	assert_true(flt("1e3") == 1000.0);
	assert_true(flt(".5 + 1.") == 1.5);
	assert_true(flt("1e400") == INFINITY);
	assert_true(isnan(flt("1e400 - 1e400")));
}

static void test_negative_zero(void **state)
{
	(void)state;
	double z = flt("0 / -5");
	assert_true(z == 0.0 && signbit(z));
	z = flt("-0.0");
	assert_true(z == 0.0 && signbit(z));
	z = flt("0 * -1.0");
	assert_true(z == 0.0 && signbit(z));
	z = flt("-0 / 5");
	assert_true(z == 0.0 && !signbit(z));
	assert_true(integer("-0") == 0);
	z = flt("0.0 - 0.0");
	assert_true(z == 0.0 && !signbit(z));
	/* Python's sum() starts from the integer 0: sum(-0.0) is 0.0 */
	z = flt("sum(-0.0)");
	assert_true(z == 0.0 && !signbit(z));
}

static void test_comparisons(void **state)
{
	(void)state;
	/* exact between an integer and a double */
	assert_true(integer("9007199254740993 > 9007199254740992.0") == 1);
	assert_true(integer("9007199254740993 == 9007199254740992.0") == 0);
	assert_true(integer("9007199254740992 == 9007199254740992.0") == 1);
	assert_true(integer("-3 < -2.5") == 1);
	assert_true(integer("-2 < -2.5") == 0);
	assert_true(integer("ep0.pcie_cycles >= 1.8446744073709552e19") == 0);
	assert_true(integer("ep0.pcie_cycles < 1.8446744073709552e19") == 1);
	assert_true(integer("1 <= 1") == 1 && integer("1 != 1.0") == 0);
	/* NaN: every comparison false but != */
	assert_true(integer("seconds == seconds") == 0);
	assert_true(integer("seconds != seconds") == 1);
	assert_true(integer("seconds < 1") == 0 && integer("seconds >= 1") == 0);
	assert_true(integer("1e400 > ep0.pcie_cycles") == 1);
}

static void test_logic(void **state)
{
	(void)state;
	/* and / or give one of their operands, as in Python */
	assert_true(integer("0 or 5") == 5);
	assert_true(integer("3 or 5") == 3);
	assert_true(flt("3 and 0.0") == 0.0);
	assert_true(integer("0 and 1 / 0") == 0);
	assert_true(integer("not 0.0") == 1 && integer("not 2") == 0);
	/* NaN is true */
	assert_true(integer("1 if seconds else 2") == 1);
	assert_true(integer("2 if 1 < 0 else 3 if 1 > 0 else 4") == 3);
	assert_true(integer("1 + 2 if 0 else 7") == 7);
	assert_true(integer("not 1 == 2") == 1);
	assert_true(integer("1 < 2 and 3 < 4 or 0") == 1);
}

static void test_min_max_sum(void **state)
{
	(void)state;
	assert_true(integer("min(3, 1, 2)") == 1);
	assert_true(integer("max(3, 1.5, 2)") == 3);
	assert_true(flt("min(1.5, 2)") == 1.5);
	/* the first of equal values, as Python */
	assert_true(integer("max(2, 2.0)") == 2);
	assert_true(flt("max(2.0, 2)") == 2.0);
	/* NaN: Python's min() keeps its first value unless a later one is smaller */
	assert_true(isnan(flt("min(seconds, 1)")));
	assert_true(integer("min(1, seconds)") == 1);
	assert_true(integer("sum(1, 2, 3)") == 6);
	assert_true(integer("sum(ep0.rq.region*_cycles)") == 0);
	assert_true(integer("sum(ep*_cycles, 1)") == 1); /* no counter has one part */
	assert_true(integer("sum(ep*.*_cycles)") ==
		    (__int128)UINT64_MAX + (__int128)(UINT64_MAX - 1));
	assert_true(integer("max(ep0.*_cycles)") == (__int128)UINT64_MAX);
	assert_true(integer("min(ep0.*_cycles, 5)") == 5);
	assert_true(integer("-min(-1, -2)") == 2);
	assert_true(integer("2 * sum(ep0.pcie_cycles) - ep0.pcie_cycles") == (__int128)UINT64_MAX);
}

static void test_division_by_zero(void **state)
{
	struct mt t;
	char note[PT_METRIC_MSG_LEN];
	int notes;

	(void)state;
	struct pt_metric_value v = value_of("1 / 0", &notes);
	assert_true(isnan(v.f) && !v.is_int && v.note != 0 && notes == 1);
	v = value_of("1.0 / 0.0", &notes);
	assert_true(isnan(v.f) && notes == 1);
	v = value_of("-1 / -0.0", &notes);
	assert_true(isnan(v.f) && notes == 1);
	/* only the branch taken counts */
	v = value_of("1 if 1 else 1 / 0", &notes);
	assert_true(v.is_int && v.i == 1 && v.note == 0 && notes == 0);
	v = value_of("1 / 0 if 0 else 2", &notes);
	assert_true(v.is_int && v.i == 2 && notes == 0);
	/* a division by zero that does not decide the value still notes */
	v = value_of("max(1, 1 / 0)", &notes);
	assert_true(v.is_int && v.i == 1 && v.note != 0 && notes == 1);

	/* the note names the metric, the '/' and the divisor with its names */
	mt_init(&t, &shape, PT_METRIC_NO_BUILTIN);
	assert_int_equal(mt_add1(&t, "{bus}.w", "100.0 * {bus}.words / {bus}.cycles"), 0);
	assert_int_equal(mt_add1(&t, "{bus}.w2", "2 * {bus}.w"), 0);
	mt_eval(&t, true, 1.0);
	assert_int_equal(t.notes, 4); /* w on every bus; w2 only uses a NaN */
	int i = pt_metric_find(t.s, "ep0.up0.w");
	assert_int_equal(pt_metric_note(t.s, (unsigned)i, &t.v[i], note, sizeof note), 0);
	assert_string_equal(note, "metric 'ep0.up0.w': position 21: division by zero "
				  "(ep0.up0.cycles is 0)");
	i = pt_metric_find(t.s, "ep0.up0.w2");
	assert_true(isnan(t.v[i].f));
	assert_int_equal(pt_metric_note(t.s, (unsigned)i, &t.v[i], note, sizeof note), -ENOENT);
	assert_string_equal(note, "");
	/* with the clocks running, no note */
	t.r.cnt[pt_idx_pcie_cycles(&t.l, 0)] = 4;
	t.r.cnt[pt_idx_dma_cycles(&t.l, 0)] = 8;
	t.r.cnt[pt_idx_bus(&t.l, 0, 2, PT_F_WORDS)] = 2;
	mt_eval(&t, true, 1.0);
	assert_int_equal(t.notes, 0);
	assert_true(mt_val(&t, "ep0.up0.w")->f == 25.0);
	assert_true(mt_val(&t, "ep0.up0.w2")->f == 50.0);
	mt_free(&t);
}

static void test_format(void **state)
{
	struct pt_metric_info in = { .precision = 2 };
	struct pt_metric_value v = { .f = 1.005, .is_int = false };
	char b[64];

	(void)state;
	assert_int_equal(pt_metric_format(&in, &v, b, sizeof b), 0);
	assert_string_equal(b, "1.00"); /* 1.005 is below it in binary */
	v.f = NAN;
	assert_int_equal(pt_metric_format(&in, &v, b, sizeof b), 0);
	assert_string_equal(b, "-");
	v.f = -INFINITY;
	assert_int_equal(pt_metric_format(&in, &v, b, sizeof b), 0);
	assert_string_equal(b, "-inf");
	v.is_int = true;
	v.i = -((__int128)UINT64_MAX * 2);
	assert_int_equal(pt_metric_format(&in, &v, b, sizeof b), 0);
	assert_string_equal(b, "-36893488147419103230");
	v.i = (__int128)(~(u128)0 >> 1);
	assert_int_equal(pt_metric_format(&in, &v, b, sizeof b), 0);
	assert_string_equal(b, "170141183460469231731687303715884105727");
	assert_int_equal(pt_metric_format(&in, &v, b, 8), -ERANGE);
	in.precision = 0;
	v.is_int = false;
	v.f = 2.5;
	assert_int_equal(pt_metric_format(&in, &v, b, sizeof b), 0);
	assert_string_equal(b, "2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u128_to_double),
		cmocka_unit_test(test_div_exact),
		cmocka_unit_test(test_true_division),
		cmocka_unit_test(test_counters_near_2_64),
		cmocka_unit_test(test_int_and_double),
		cmocka_unit_test(test_negative_zero),
		cmocka_unit_test(test_comparisons),
		cmocka_unit_test(test_logic),
		cmocka_unit_test(test_min_max_sum),
		cmocka_unit_test(test_division_by_zero),
		cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
