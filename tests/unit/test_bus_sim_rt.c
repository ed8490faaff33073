/*
 * The simulated card in real time (pt_bus_open_ex with PT_BUS_REALTIME,
 * src/bus/sim_rt.c): its clock follows the wall clock (never ahead, and
 * behind only by the lag it reports), accesses from several threads work
 * while it runs, a measurement over it gives the card's own clock rates,
 * and the flag leaves every other device alone.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "pcie_telemetry/telemetry.h"

static char msg[512];

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_wall(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static struct pt_bus *open_rt(const char *dev)
{
	struct pt_bus *b;

	if (pt_bus_open_ex(dev, 0, PT_BUS_REALTIME, &b, msg, sizeof msg) != 0)
		fail_msg("%s: %s", dev, msg);
	return b;
}

/* A measurement against the wall clock is tried this often: a machine so
 * loaded that the test's thread sits unscheduled for tens of milliseconds
 * between two calls (the time, then the lag at the moment of its call)
 * spoils one try; a card that does not follow the wall fails them all. */
#define TRIES 3

/* One try of test_clock_follows_the_wall: 1 when the card's clock kept to
 * the wall's within what it said. */
static int clock_try(struct pt_bus *b)
{
	double s0, s1, w0, w1, lag0, lag1;

	w0 = wall();
	assert_int_equal(pt_bus_now(b, &s0), 0);
	lag0 = pt_bus_lag(b);
	sleep_wall(0.3);
	assert_int_equal(pt_bus_now(b, &s1), 0);
	w1 = wall();
	lag1 = pt_bus_lag(b);
	assert_true(lag0 >= 0 && lag1 >= 0);
	/* never ahead of the wall clock: it may only catch up the lag it had
	 * (an access costs a few µs of card time); and behind it only by the
	 * lag it says (what the card's thread can run in a chunk on top) */
	return s1 - s0 <= (w1 - w0) + lag0 + 0.01 && s1 - s0 >= (w1 - w0) - lag1 - 0.05;
}

static void test_clock_follows_the_wall(void **state)
{
	struct pt_bus *b = open_rt("sim:idle");
	uint32_t magic;
	int ok = 0;

	(void)state;
	assert_string_equal(pt_bus_kind(b), "sim");
	assert_int_equal(pt_bus_read32(b, PT_REG_MAGIC, &magic), 0);
	assert_int_equal(magic, PT_MAGIC);
	for (int i = 0; i < TRIES && !ok; i++)
		ok = clock_try(b);
	assert_true(ok);
	pt_bus_close(b);
}

/* One try of test_measure_over_realtime: 1 when the card's interval was
 * the wall's within the lag, and its cycles the card's 400 MHz. */
static int measure_try(struct pt_dev *d, struct pt_reading *a, struct pt_reading *c)
{
	double w0 = wall(), sec, cycles, lag0 = pt_bus_lag(d->bus);

	assert_int_equal(pt_dev_measure(d, 0.2, a, c, msg, sizeof msg), 0);
	sec = c->time - a->time;
	/* the counters move once a drain period: over any interval they are
	 * the card's 400 MHz to within two drain periods (whatever the load) */
	cycles = (double)(c->cnt[pt_idx_pcie_cycles(&d->layout, 0)] -
			  a->cnt[pt_idx_pcie_cycles(&d->layout, 0)]);
	assert_true(fabs(cycles - 400e6 * sec) <= 2.0 * (d->layout.drain_period + 64));
	/* the card's interval: the wall's, plus the lag it had and may catch
	 * up, less what it fell behind */
	return sec <= wall() - w0 + lag0 + 0.01 && sec >= 0.2 - pt_bus_lag(d->bus) - 0.05;
}

/* wait() is wall time, the interval is the card's: the clock rates of a
 * measurement are exactly the card's clocks. */
static void test_measure_over_realtime(void **state)
{
	struct pt_bus *b = open_rt("sim:idle");
	struct pt_dev d;
	struct pt_reading a, c;
	int ok = 0;

	(void)state;
	assert_int_equal(pt_dev_init(&d, b, msg, sizeof msg), 0);
	assert_int_equal(pt_reading_init(&a, d.layout.entries), 0);
	assert_int_equal(pt_reading_init(&c, d.layout.entries), 0);
	for (int i = 0; i < TRIES && !ok; i++)
		ok = measure_try(&d, &a, &c);
	assert_true(ok);
	pt_reading_free(&a);
	pt_reading_free(&c);
	pt_bus_close(b);
}

struct reader {
	struct pt_bus *b;
	pthread_mutex_t *turn; /* a pt_bus takes one call at a time */
	int errors, reads;
};

static void *read_loop(void *arg)
{
	struct reader *r = arg;

	for (int i = 0; i < 200; i++) {
		uint32_t v = 0;

		pthread_mutex_lock(r->turn);
		if (pt_bus_read32(r->b, PT_REG_MAGIC, &v) != 0 || v != PT_MAGIC)
			r->errors++;
		pthread_mutex_unlock(r->turn);
		r->reads++;
	}
	return NULL;
}

/* Threads of the caller take turns on the wrapper while the card's own
 * thread runs it (ThreadSanitizer checks the hand-over). */
static void test_threads_share_the_card(void **state)
{
	struct pt_bus *b = open_rt("sim:tx-4K");
	static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
	struct reader r[2] = { { b, &turn, 0, 0 }, { b, &turn, 0, 0 } };
	pthread_t t[2];

	(void)state;
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, read_loop, &r[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(r[0].errors + r[1].errors, 0);
	assert_int_equal(r[0].reads + r[1].reads, 400);
	pt_bus_close(b); /* stops and joins the card's thread */
}

static void test_other_devices_untouched(void **state)
{
	struct pt_bus *b;
	char path[4096];

	(void)state;
	snprintf(path, sizeof path, "image:%s/conformance/report/basic_t1.regs", PT_TEST_DATA);
	assert_int_equal(pt_bus_open_ex(path, 0, PT_BUS_REALTIME, &b, msg, sizeof msg), 0);
	assert_string_equal(pt_bus_kind(b), "image");
	assert_true(pt_bus_lag(b) == 0.0);
	pt_bus_close(b);
	assert_int_equal(pt_bus_open_ex("sim:no-such-preset", 0, PT_BUS_REALTIME, &b, msg, sizeof msg),
			 -ENOENT);
	assert_null(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_follows_the_wall),
		cmocka_unit_test(test_measure_over_realtime),
		cmocka_unit_test(test_threads_share_the_card),
		cmocka_unit_test(test_other_devices_untouched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
