/*
 * pcie-telemetry: Python's numbers (docs/metrics.md "Numbers").
 *
 * Integers are exact while they fit in 128 bits (Python's never overflow;
 * beyond 2^127 an operation falls back to doubles, documented), a double
 * meets an integer by converting the integer once to the nearest double,
 * true division of two integers rounds their exact quotient once, and
 * comparisons between an integer and a double are exact, as Python's.
 * These are the rules that make a metric print the upstream report's
 * digits, so the renderers use the conversions from here too.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_priv.h"

#define I128_MAX ((i128)(~(u128)0 >> 1))
#define I128_MIN (-I128_MAX - 1)

double pt_metric_u128_to_double(unsigned __int128 v)
{
	/* The compiler's conversion (__floatuntidf) rounds to nearest even,
	 * but do it by hand so the rule does not depend on the runtime. */
	if (v >> 64 == 0)
		return (double)(uint64_t)v;
	int shift = 0;
	while (v >> 64) {
		/* keep a sticky bit so the final rounding sees every bit */
		unsigned sticky = (unsigned)(v & 1u);
		v >>= 1;
		v |= sticky;
		shift++;
	}
	return ldexp((double)(uint64_t)v, shift);
}

double pt_metric_div_exact(unsigned __int128 num, unsigned __int128 den)
{
	if (num == 0 || den == 0)
		return 0.0;
	if (num < ((u128)1 << 53) && den < ((u128)1 << 53))
		return (double)(uint64_t)num / (double)(uint64_t)den;
	/* Integer quotient with at least 55 significant bits (long division
	 * for the missing ones), the remainder folded into a sticky bit below
	 * the rounding bit; one conversion of a 64-bit integer then rounds
	 * exactly once, to nearest even. */
	const u128 min_q = (u128)1 << 55;
	u128 q = num / den;
	u128 r = num % den;
	int scale = 0;
	while (q < min_q) {
		unsigned bit = 0;
		if (r >= den - r) { /* 2r >= den without overflow */
			r = r - (den - r);
			bit = 1;
		} else {
			r <<= 1;
		}
		q = (q << 1) | bit;
		scale--;
	}
	unsigned sticky = r != 0;
	while (q >> 63) {
		sticky |= (unsigned)(q & 1u);
		q >>= 1;
		scale++;
	}
	return ldexp((double)(uint64_t)(q | sticky), scale);
}

static u128 magnitude(i128 v)
{
	return v < 0 ? (u128)0 - (u128)v : (u128)v;
}

double pt_num_i128_to_double(i128 v)
{
	double m = pt_metric_u128_to_double(magnitude(v));

	return v < 0 ? -m : m;
}

static bool small(i128 v)
{
	return v >= INT64_MIN && v <= INT64_MAX;
}

struct pt_num pt_num_add(struct pt_num a, struct pt_num b)
{
	i128 r;

	if (a.is_int && b.is_int && !__builtin_add_overflow(a.u.i, b.u.i, &r))
		return pt_num_int(r);
	return pt_num_flt(pt_num_to_double(a) + pt_num_to_double(b));
}

struct pt_num pt_num_sub(struct pt_num a, struct pt_num b)
{
	i128 r;

	if (a.is_int && b.is_int && !__builtin_sub_overflow(a.u.i, b.u.i, &r))
		return pt_num_int(r);
	return pt_num_flt(pt_num_to_double(a) - pt_num_to_double(b));
}

/* a * b if it fits (no __builtin_mul_overflow: clang would call
 * __muloti4, which libgcc does not have). */
static bool mul_exact(i128 a, i128 b, i128 *r)
{
	if (small(a) && small(b)) {
		*r = a * b;
		return true;
	}
	u128 ma = magnitude(a), mb = magnitude(b);
	if (ma == 0 || mb == 0) {
		*r = 0;
		return true;
	}
	if (ma > ~(u128)0 / mb)
		return false;
	u128 p = ma * mb;
	bool neg = (a < 0) != (b < 0);
	if (p > (u128)I128_MAX + (neg ? 1u : 0u))
		return false;
	*r = neg ? (i128)((u128)0 - p) : (i128)p;
	return true;
}

struct pt_num pt_num_mul(struct pt_num a, struct pt_num b)
{
	i128 r;

	if (a.is_int && b.is_int && mul_exact(a.u.i, b.u.i, &r))
		return pt_num_int(r);
	return pt_num_flt(pt_num_to_double(a) * pt_num_to_double(b));
}

struct pt_num pt_num_div(struct pt_num a, struct pt_num b, bool *div0)
{
	if (b.is_int ? b.u.i == 0 : b.u.f == 0.0) {
		*div0 = true;
		return pt_num_flt(NAN);
	}
	if (a.is_int && b.is_int) {
		/* Python's sign rule: 0 / -5 is -0.0 */
		double q = pt_metric_div_exact(magnitude(a.u.i), magnitude(b.u.i));
		return pt_num_flt((a.u.i < 0) != (b.u.i < 0) ? -q : q);
	}
	return pt_num_flt(pt_num_to_double(a) / pt_num_to_double(b));
}

struct pt_num pt_num_neg(struct pt_num a)
{
	if (a.is_int && a.u.i != I128_MIN)
		return pt_num_int(-a.u.i);
	return pt_num_flt(-pt_num_to_double(a));
}

static int cmp_int(i128 a, i128 b)
{
	return a < b ? -1 : a > b;
}

/* An integer against a finite or infinite double, exactly. */
static int cmp_int_flt(i128 a, double d)
{
	const double lim = ldexp(1.0, 127);

	if (isnan(d))
		return 2;
	if (d >= lim)
		return -1;
	if (d < -lim)
		return 1;
	double t = trunc(d);
	int c = cmp_int(a, (i128)t);
	if (c != 0)
		return c;
	double frac = d - t; /* exact */
	return frac > 0 ? -1 : frac < 0;
}

int pt_num_cmp(struct pt_num a, struct pt_num b)
{
	if (a.is_int && b.is_int)
		return cmp_int(a.u.i, b.u.i);
	if (a.is_int)
		return cmp_int_flt(a.u.i, b.u.f);
	if (b.is_int) {
		int c = cmp_int_flt(b.u.i, a.u.f);
		return c == 2 ? 2 : -c;
	}
	if (isnan(a.u.f) || isnan(b.u.f))
		return 2;
	return a.u.f < b.u.f ? -1 : a.u.f > b.u.f;
}

struct pt_num pt_num_parse(const char *s, size_t len, bool is_float)
{
	char buf[PT_METRIC_EXPR_MAX + 1];

	if (len > PT_METRIC_EXPR_MAX)
		len = PT_METRIC_EXPR_MAX;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!is_float) {
		i128 v = 0;
		size_t i = 0;
		for (; i < len; i++) {
			int dg = buf[i] - '0';
			if (v > (I128_MAX - dg) / 10)
				break;
			v = v * 10 + dg;
		}
		if (i == len)
			return pt_num_int(v);
	}
	/* a double, or an integer beyond 2^127 rounded once (strtod is
	 * correctly rounded) */
	return pt_num_flt(strtod(buf, NULL));
}

void pt_num_i128_str(i128 v, char *buf, size_t len)
{
	char tmp[48];
	size_t n = 0;
	u128 m = magnitude(v);

	do {
		tmp[n++] = (char)('0' + (int)(m % 10u));
		m /= 10u;
	} while (m);
	if (v < 0)
		tmp[n++] = '-';
	size_t o = 0;
	while (n && o + 1 < len)
		buf[o++] = tmp[--n];
	if (len)
		buf[o] = '\0';
}
