/*
 * pcie-telemetry: the simulated card in real time.
 *
 * A wrapper around an open `sim` bus whose background thread runs the
 * card at the pace of the wall clock, so that whoever reads it (the
 * exporter, the live view, the daemon behind the libnfb extension) sees
 * a card that lives while nobody looks: simulated time follows the wall
 * clock, rates are the card's real rates, and a reader never waits in
 * proportion to how long the card sat unread.
 *
 * The thread advances the card in chunks of RT_CHUNK simulated seconds
 * and gives way to an access between two chunks, so an access waits at
 * most one chunk.  When the card cannot keep up, the shortfall is the
 * lag (pt_bus_lag); a lag above RT_MAX_LAG is dropped (the card skips
 * that wall time), so a machine that falls behind for a while does not
 * leave the card minutes in the past for ever.
 *
 * now() is the card's simulated time; wait() sleeps in wall time while
 * the card runs on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus/backend.h"

#define RT_CHUNK 0.001   /* simulated seconds per run of the card */
#define RT_IDLE 0.001    /* longest sleep of the thread, wall seconds */
#define RT_MAX_LAG 5.0   /* lag beyond this is dropped, seconds */

struct rt {
	struct pt_bus *inner;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* stop requests, and "an access is done" */
	atomic_int want;    /* accesses waiting for the card */
	int stop;
	double wall0, sim0; /* the card's time sim0 belongs to wall time wall0 */
	double dropped;     /* wall time the card skipped (lag above RT_MAX_LAG) */
	double lag;
	int err;            /* the card failed: every access returns it */
	char errmsg[PT_BUS_MSG_LEN];
};

static struct rt *rt_of(struct pt_bus *b)
{
	return (struct rt *)b->priv;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct timespec wall_at(double seconds_from_now)
{
	struct timespec ts;
	double t;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (double)ts.tv_nsec * 1e-9 + seconds_from_now;
	ts.tv_sec += (time_t)t;
	ts.tv_nsec = (long)((t - (double)(time_t)t) * 1e9);
	if (ts.tv_nsec > 999999999L)
		ts.tv_nsec = 999999999L;
	return ts;
}

/* Called with the lock held: the card failed; keep why. */
static void rt_failed(struct rt *r, int rc)
{
	r->err = rc < 0 ? rc : -EIO;
	snprintf(r->errmsg, sizeof(r->errmsg), "%s", pt_bus_message(r->inner));
}

/* How far the card's time `now` is behind the wall clock (negative when
 * ahead), less the wall time dropped so far. */
static double backlog_at(const struct rt *r, double now)
{
	return r->sim0 + (wall_now() - r->wall0) - r->dropped - now;
}

/* One step of the thread, with the lock held: run one chunk of the
 * backlog, or sleep a little when the card is on time. */
static void rt_step(struct rt *r)
{
	double now, backlog;
	int rc = pt_bus_now(r->inner, &now);

	if (rc < 0) {
		rt_failed(r, rc);
		return;
	}
	backlog = backlog_at(r, now);
	if (backlog > RT_MAX_LAG) {
		r->dropped += backlog - RT_MAX_LAG;
		backlog = RT_MAX_LAG;
	}
	r->lag = backlog > 0 ? backlog : 0;
	if (backlog > 0) {
		rc = pt_bus_wait(r->inner, backlog < RT_CHUNK ? backlog : RT_CHUNK);
		if (rc < 0 && rc != -EINTR) /* a stop request is the host's business */
			rt_failed(r, rc);
		return;
	}
	struct timespec until = wall_at(-backlog < RT_IDLE ? -backlog : RT_IDLE);
	pthread_cond_timedwait(&r->cv, &r->mu, &until);
}

static void *rt_main(void *arg)
{
	struct rt *r = arg;

	pthread_mutex_lock(&r->mu);
	while (!r->stop && !r->err) {
		rt_step(r);
		/* Give way to the accesses that wait (the mutex is not fair). */
		while (atomic_load(&r->want) > 0 && !r->stop) {
			struct timespec until = wall_at(0.01);

			pthread_cond_timedwait(&r->cv, &r->mu, &until);
		}
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Take the card from the thread, which gives way between two chunks
 * only to those who say they wait (the mutex is not fair), and give it
 * back. */
static void rt_lock(struct rt *r)
{
	atomic_fetch_add(&r->want, 1);
	pthread_mutex_lock(&r->mu);
	atomic_fetch_sub(&r->want, 1);
}

static void rt_unlock(struct rt *r)
{
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* An access holds the card between rt_begin and rt_end.  Returns the
 * card's error, if it has failed, with the lock held all the same. */
static int rt_begin(struct pt_bus *b)
{
	struct rt *r = rt_of(b);

	rt_lock(r);
	if (r->err)
		return pt_bus_fail(b, r->err, "%s", r->errmsg);
	return 0;
}

/* rc of the inner call: its message becomes the wrapper's. */
static int rt_end(struct pt_bus *b, int rc)
{
	struct rt *r = rt_of(b);

	if (rc < 0)
		pt_bus_fail(b, rc, "%s", pt_bus_message(r->inner));
	rt_unlock(r);
	return rc;
}

static int rt_read32(struct pt_bus *b, uint32_t off, uint32_t *val)
{
	int rc = rt_begin(b);

	return rt_end(b, rc < 0 ? rc : pt_bus_read32(rt_of(b)->inner, off, val));
}

static int rt_write32(struct pt_bus *b, uint32_t off, uint32_t val)
{
	int rc = rt_begin(b);

	return rt_end(b, rc < 0 ? rc : pt_bus_write32(rt_of(b)->inner, off, val));
}

static int rt_write32_timed(struct pt_bus *b, uint32_t off, uint32_t val, double *seconds)
{
	int rc = rt_begin(b);

	if (rc == 0)
		rc = pt_bus_write32(rt_of(b)->inner, off, val);
	if (rc == 0)
		rc = pt_bus_now(rt_of(b)->inner, seconds);
	return rt_end(b, rc);
}

static int rt_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	int rc = rt_begin(b);

	return rt_end(b, rc < 0 ? rc : pt_bus_read_block(rt_of(b)->inner, off, buf, n));
}

static int rt_now(struct pt_bus *b, double *seconds)
{
	int rc = rt_begin(b);

	return rt_end(b, rc < 0 ? rc : pt_bus_now(rt_of(b)->inner, seconds));
}

static double rt_lag(struct pt_bus *b)
{
	struct rt *r = rt_of(b);
	double lag, now;

	/* at the moment of the call, not as the thread last saw it: a
	 * loaded machine may leave the thread unscheduled for a while */
	rt_lock(r);
	lag = r->lag;
	if (!r->err && pt_bus_now(r->inner, &now) == 0) {
		lag = backlog_at(r, now);
		lag = lag < 0 ? 0 : lag > RT_MAX_LAG ? RT_MAX_LAG : lag;
	}
	rt_unlock(r);
	return lag;
}

static void rt_close(struct pt_bus *b)
{
	struct rt *r = rt_of(b);

	rt_lock(r);
	r->stop = 1;
	rt_unlock(r);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	pt_bus_close(r->inner);
	free(r);
	b->priv = NULL;
}

static const struct pt_bus_ops rt_ops = {
	.kind = "sim",
	.read32 = rt_read32,
	.write32 = rt_write32,
	.write32_timed = rt_write32_timed,
	.read_block = rt_read_block,
	.now = rt_now,
	.wait = pt_bus_realtime_wait,
	.close = rt_close,
	.lag = rt_lag,
};

/* The lock, the condition (on CLOCK_MONOTONIC, as wall_at counts) and
 * the clocks' common origin. */
static int rt_init(struct rt *r, struct pt_bus *inner)
{
	pthread_condattr_t ca;
	int rc;

	r->inner = inner;
	atomic_init(&r->want, 0);
	rc = pt_bus_now(inner, &r->sim0);
	if (rc < 0)
		return rc;
	r->wall0 = wall_now();
	if (pthread_condattr_init(&ca) != 0)
		return -ENOMEM;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&r->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc != 0)
		return -rc;
	rc = pthread_mutex_init(&r->mu, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&r->cv);
		return -rc;
	}
	return 0;
}

int pt_bus_sim_realtime(struct pt_bus *inner, struct pt_bus **out, char *msg, size_t msglen)
{
	struct rt *r = calloc(1, sizeof(*r));
	struct pt_bus *b = pt_bus_alloc(&rt_ops, pt_bus_device(inner));
	int rc = (!r || !b) ? -ENOMEM : rt_init(r, inner);

	*out = NULL;
	if (rc == 0) {
		b->priv = r;
		rc = -pthread_create(&r->thread, NULL, rt_main, r);
		if (rc < 0) {
			pthread_cond_destroy(&r->cv);
			pthread_mutex_destroy(&r->mu);
		}
	}
	if (rc < 0) {
		snprintf(msg, msglen, "%s: cannot run the simulated card in real time: %s",
			 pt_bus_device(inner), strerror(-rc));
		free(r);
		free(b);
		return rc;
	}
	*out = b;
	return 0;
}
