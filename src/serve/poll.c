/*
 * pcie-telemetry: the exporter's pollers (src/serve/serve_priv.h).
 *
 * Each device has a thread that reads it at the poll interval: SNAPSHOT
 * and the read-out (pt_dev_read), the counters extended across wraps
 * (pt_extend), then CLEAR_MARKS right after the registers were read, so
 * that the "lowest" values of the next poll cover the time since this
 * one, and CLEAR_FLAGS when a flag was set, so that a flag means "since
 * the previous poll".  The result is published under the poller's lock,
 * where scrapes render it; a scrape never waits for the device.
 *
 * The interval is the configured one, shortened to a quarter of the
 * shortest wrap time of the layout at the clocks the extender measured
 * (at PT_SERVE_CLOCK_BOUND_HZ before two polls): a wrap cannot be missed
 * unless a poll is more than twice as late as planned, and such a poll is
 * counted (late_polls).  A device that fails is closed, shows as down and
 * is opened again after 1, 2, 4 .. 30 s.  An image that has no snapshot
 * left keeps its last values, up, and is not read again.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/serve_priv.h"

#define RETRY_MAX 30.0 /* seconds between two opens of a failing device, at most */

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void logf_(struct pt_serve_poller *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void logf_(struct pt_serve_poller *p, const char *fmt, ...)
{
	char line[PT_BUS_MSG_LEN + 128];
	va_list ap;

	if (!p->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	p->log(p->log_arg, line);
}

static void close_device(struct pt_serve_poller *p)
{
	if (p->bus)
		pt_bus_close(p->bus);
	p->bus = NULL;
	p->open = false;
	pt_reading_free(&p->r);
	pt_extend_free(&p->x);
}

/* Open the device and prepare a reading and an extender for its layout
 * (a reopened device starts from its raw counters again). */
static int open_device(struct pt_serve_poller *p, char *msg, size_t msglen)
{
	int rc = pt_bus_open_ex(p->device, p->index, PT_BUS_REALTIME, &p->bus, msg, msglen);

	if (rc < 0) {
		p->bus = NULL;
		return rc;
	}
	rc = pt_dev_init(&p->dev, p->bus, msg, msglen);
	if (rc == 0 && (pt_reading_init(&p->r, p->dev.layout.entries) < 0 ||
			pt_extend_init(&p->x, &p->dev.layout) < 0)) {
		snprintf(msg, msglen, "%s: out of memory", p->label);
		rc = -ENOMEM;
	}
	if (rc < 0) {
		close_device(p);
		return rc;
	}
	p->open = true;
	return 0;
}

/* The fastest clock of each domain the extender measured, or the bound. */
static double wrap_seconds(const struct pt_extend *x)
{
	double hz[2] = { 0, 0 };

	for (unsigned ep = 0; ep < x->layout->endpoints; ep++)
		for (unsigned dom = 0; dom < 2; dom++)
			if (x->hz[ep][dom] > hz[dom])
				hz[dom] = x->hz[ep][dom];
	for (unsigned dom = 0; dom < 2; dom++)
		if (!(hz[dom] > 0) || x->readings < 2)
			hz[dom] = PT_SERVE_CLOCK_BOUND_HZ;
	return pt_layout_wrap_seconds(x->layout, hz[0], hz[1]);
}

/* The new layout's plan and counters, when the layout changed (a first
 * open, or another card behind the same name).  With p->mu held. */
static int publish_layout(struct pt_serve_poller *p)
{
	const struct pt_layout *l = &p->dev.layout;
	struct pt_prom_plan *plan;
	uint64_t *value;

	if (p->plan && memcmp(p->layout.cfg, l->cfg, sizeof l->cfg) == 0)
		return 0; /* the configuration registers make the layout */
	value = calloc(p->x.n ? p->x.n : 1, sizeof(*value));
	if (!value || pt_render_prom_plan_new(l, &plan) < 0) {
		free(value);
		return -ENOMEM;
	}
	pt_render_prom_plan_free(p->plan);
	free(p->value);
	p->plan = plan;
	p->value = value;
	p->nvalue = p->x.n;
	p->layout = *l;
	return 0;
}

/* Make this poll's data what scrapes see. */
static int publish(struct pt_serve_poller *p, double poll_seconds, double wrap)
{
	int rc;

	pthread_mutex_lock(&p->mu);
	rc = publish_layout(p);
	if (rc == 0) {
		memcpy(p->value, p->x.value, p->nvalue * sizeof(*p->value));
		p->regs = p->r;
		p->regs.cnt = NULL;
		p->regs.entries = 0;
		snprintf(p->kind, sizeof p->kind, "%s", pt_bus_kind(p->bus));
		p->have_data = p->up = true;
		p->stats.polls++;
		p->stats.poll_seconds = poll_seconds;
		p->stats.wrap_seconds = wrap;
		p->stats.poll_interval = fmin(p->interval, wrap / 4);
		p->stats.last_poll_unix = clock_s(CLOCK_REALTIME);
		p->stats.lag_seconds = pt_bus_lag(p->bus);
	}
	pthread_mutex_unlock(&p->mu);
	atomic_fetch_add(p->generation, 1);
	return rc;
}

/* After a reading: the marks (always) and the flags (when set) start
 * again, so that both cover the time until the next poll. */
static int clear_marks_and_flags(struct pt_serve_poller *p, char *msg, size_t msglen)
{
	int rc = pt_dev_clear_marks(&p->dev, msg, msglen);

	if (rc == 0 && (p->r.status & (PT_STATUS_LOST_DELTAS | PT_STATUS_OVERRUN)))
		rc = pt_dev_clear_flags(&p->dev, msg, msglen);
	return rc;
}

/* One poll: 0, 1 when an image ran out of snapshots, or a negative errno. */
static int poll_once(struct pt_serve_poller *p, double t0, char *msg, size_t msglen)
{
	double before, wrap;
	int rc = p->open ? 0 : open_device(p, msg, msglen);

	if (rc < 0)
		return rc;
	before = p->x.time;
	rc = pt_dev_read(&p->dev, &p->r, msg, msglen);
	if (rc == -ERANGE && strcmp(pt_bus_kind(p->bus), "image") == 0 && p->x.readings > 0)
		return 1;
	if (rc == 0)
		rc = clear_marks_and_flags(p, msg, msglen);
	if (rc < 0)
		return rc;
	wrap = wrap_seconds(&p->x); /* at the clocks known before this reading */
	rc = pt_extend_update(&p->x, &p->r);
	if (rc == PT_EXTEND_FIRST && p->stats.polls == 0)
		logf_(p, "%s: up: %s, %u endpoint(s), %u DMA port(s), CNT_WIDTH %u", p->label,
		      pt_bus_kind(p->bus), p->dev.layout.endpoints, p->dev.layout.dma_ports,
		      p->dev.layout.cnt_width);
	if (rc < 0) {
		snprintf(msg, msglen, "%s: the device's clock went back (%.9g s after %.9g s)",
			 p->label, p->r.time, before);
		return -EIO;
	}
	pthread_mutex_lock(&p->mu);
	/* counted here, not in the extender, which a reopen starts anew */
	if (rc == PT_EXTEND_RESET)
		p->stats.resets++;
	if (p->x.readings > 1 && p->r.time - before > wrap / 2)
		p->stats.late_polls++;
	if (p->r.status & PT_STATUS_LOST_DELTAS)
		p->stats.lost_deltas_polls++;
	if (p->r.status & PT_STATUS_OVERRUN)
		p->stats.overrun_polls++;
	pthread_mutex_unlock(&p->mu);
	rc = publish(p, clock_s(CLOCK_MONOTONIC) - t0, wrap_seconds(&p->x));
	if (rc < 0)
		snprintf(msg, msglen, "%s: out of memory", p->label);
	return rc;
}

/* A failed poll: the device is down until an open and a poll succeed. */
static void poll_failed(struct pt_serve_poller *p, const char *msg, double seconds)
{
	if (!p->failing || strcmp(msg, p->last_error) != 0)
		logf_(p, "%s: down: %s (retrying)", p->label, msg);
	snprintf(p->last_error, sizeof p->last_error, "%s", msg);
	p->failing = true;
	p->failures++;
	close_device(p);
	pthread_mutex_lock(&p->mu);
	p->up = false;
	p->stats.poll_errors++;
	p->stats.poll_seconds = seconds;
	pthread_mutex_unlock(&p->mu);
	atomic_fetch_add(p->generation, 1);
}

/* Sleep until the monotonic time `until`, or a stop: true when stopped. */
static bool sleep_until(struct pt_serve_poller *p, double until)
{
	struct timespec ts = { (time_t)until, (long)((until - floor(until)) * 1e9) };
	bool stop;

	if (ts.tv_nsec > 999999999L)
		ts.tv_nsec = 999999999L;
	pthread_mutex_lock(&p->stop_mu);
	while (!p->stop && clock_s(CLOCK_MONOTONIC) < until)
		if (pthread_cond_timedwait(&p->stop_cv, &p->stop_mu, &ts) == ETIMEDOUT)
			break;
	stop = p->stop;
	pthread_mutex_unlock(&p->stop_mu);
	return stop;
}

static void *poll_main(void *arg)
{
	struct pt_serve_poller *p = arg;
	double next = clock_s(CLOCK_MONOTONIC);
	char msg[PT_BUS_MSG_LEN];

	do {
		double t0 = clock_s(CLOCK_MONOTONIC), wait;
		int rc = p->exhausted ? 0 : poll_once(p, t0, msg, sizeof msg);

		if (rc < 0) {
			poll_failed(p, msg, clock_s(CLOCK_MONOTONIC) - t0);
			wait = fmin(RETRY_MAX, ldexp(1.0, (int)fmin(p->failures - 1, 5)));
		} else {
			if (p->failing)
				logf_(p, "%s: up again", p->label);
			if (rc == 1 && !p->exhausted)
				logf_(p, "%s: no snapshot left in the image after %lu polls; serving "
					 "the last values",
				      p->label, p->stats.polls);
			p->exhausted |= rc == 1;
			p->failing = false;
			p->failures = 0;
			pthread_mutex_lock(&p->mu);
			wait = p->exhausted ? 3600 : p->stats.poll_interval;
			pthread_mutex_unlock(&p->mu);
		}
		/* a fixed rate, unless the poller fell behind by a whole interval */
		next += wait;
		if (next < clock_s(CLOCK_MONOTONIC))
			next = clock_s(CLOCK_MONOTONIC) + wait;
	} while (!sleep_until(p, next));
	return NULL;
}

int pt_serve_poller_start(struct pt_serve_poller *p, char *msg, size_t msglen)
{
	pthread_condattr_t ca;
	int rc;

	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->stop_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->stop_cv, &ca);
	pthread_condattr_destroy(&ca);
	p->stats.poll_interval = p->interval;
	p->stats.wrap_seconds = INFINITY;
	rc = pthread_create(&p->thread, NULL, poll_main, p);
	if (rc != 0) {
		snprintf(msg, msglen, "%s: cannot start the poller: %s", p->label, strerror(rc));
		return -rc;
	}
	p->started = true;
	return 0;
}

void pt_serve_poller_stop(struct pt_serve_poller *p)
{
	if (p->started) {
		pthread_mutex_lock(&p->stop_mu);
		p->stop = true;
		pthread_cond_broadcast(&p->stop_cv);
		pthread_mutex_unlock(&p->stop_mu);
		pthread_join(p->thread, NULL);
		p->started = false;
	}
	close_device(p);
	pt_render_prom_plan_free(p->plan);
	free(p->value);
	p->plan = NULL;
	p->value = NULL;
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->stop_mu);
	pthread_cond_destroy(&p->stop_cv);
}

void pt_serve_poller_view(const struct pt_serve_poller *p, struct pt_prom_device *out)
{
	memset(out, 0, sizeof(*out));
	out->name = p->label;
	out->kind = p->kind[0] ? p->kind : NULL;
	out->up = p->up;
	if (p->have_data) {
		out->layout = &p->layout;
		out->plan = p->plan;
		out->value = p->value;
		out->reading = &p->regs;
	}
	out->stats = p->stats;
}
