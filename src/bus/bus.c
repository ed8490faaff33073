/*
 * pcie-telemetry: the backend-independent part of the bus interface.
 *
 * The wrappers count transactions (the benchmark and the tests rely on the
 * count) and make sure that every failure leaves a message in b->msg, even
 * when a backend forgot to write one.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus/backend.h"
#include "util/pt_util.h"

struct pt_bus *pt_bus_alloc(const struct pt_bus_ops *ops, const char *device)
{
	struct pt_bus *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->ops = ops;
	/* every message and a recording's header name it: one line */
	pt_util_esc(b->device, sizeof(b->device), device);
	return b;
}

int pt_bus_fail(struct pt_bus *b, int err, const char *fmt, ...)
{
	va_list ap;

	if (err > 0)
		err = -err;
	if (err == 0)
		err = -EIO;
	va_start(ap, fmt);
	vsnprintf(b->msg, sizeof(b->msg), fmt, ap);
	va_end(ap);
	pt_util_oneline(b->msg, sizeof(b->msg));
	return err;
}

/* A backend that fails without a message still gets a useful one. */
static int checked(struct pt_bus *b, int rc, const char *what, uint32_t off)
{
	if (rc >= 0)
		return 0;
	if (b->msg[0] == '\0')
		snprintf(b->msg, sizeof(b->msg), "%s: %s at offset 0x%04X failed: %s", b->device,
			 what, (unsigned)off, strerror(-rc));
	return rc;
}

int pt_bus_read32(struct pt_bus *b, uint32_t off, uint32_t *val)
{
	b->msg[0] = '\0';
	b->transactions++;
	return checked(b, b->ops->read32(b, off, val), "read", off);
}

int pt_bus_write32(struct pt_bus *b, uint32_t off, uint32_t val)
{
	b->msg[0] = '\0';
	b->transactions++;
	return checked(b, b->ops->write32(b, off, val), "write", off);
}

int pt_bus_write32_timed(struct pt_bus *b, uint32_t off, uint32_t val, double *seconds)
{
	int rc;

	if (!b->ops->write32_timed) {
		rc = pt_bus_write32(b, off, val);
		return rc < 0 ? rc : pt_bus_now(b, seconds);
	}
	b->msg[0] = '\0';
	b->transactions++;
	return checked(b, b->ops->write32_timed(b, off, val, seconds), "write", off);
}

int pt_bus_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	b->msg[0] = '\0';
	if (n == 0)
		return 0;
	if (off % 4u != 0 || off >= PT_COMP_SPAN || n > (PT_COMP_SPAN - off) / 4u)
		return pt_bus_fail(b, -ERANGE,
				   "%s: block of %zu words at offset 0x%X leaves the 64 KiB window "
				   "of the component",
				   b->device, n, (unsigned)off);
	b->transactions++;
	if (b->ops->read_block)
		return checked(b, b->ops->read_block(b, off, buf, n), "block read", off);
	/* A backend without a block transfer reads word by word; it still
	 * counts as one transaction of the interface. */
	for (size_t i = 0; i < n; i++) {
		int rc = b->ops->read32(b, off + (uint32_t)(4 * i), &buf[i]);

		if (rc < 0)
			return checked(b, rc, "block read", off + (uint32_t)(4 * i));
	}
	return 0;
}

int pt_bus_now(struct pt_bus *b, double *seconds)
{
	b->msg[0] = '\0';
	return checked(b, b->ops->now(b, seconds), "clock read", 0);
}

int pt_bus_wait(struct pt_bus *b, double seconds)
{
	b->msg[0] = '\0';
	if (!(seconds > 0.0))
		return 0;
	return checked(b, b->ops->wait(b, seconds), "wait", 0);
}

const char *pt_bus_device(const struct pt_bus *b)
{
	return b->device;
}

const char *pt_bus_message(const struct pt_bus *b)
{
	return b->msg;
}

unsigned long pt_bus_transactions(const struct pt_bus *b)
{
	return b->transactions;
}

double pt_bus_lag(struct pt_bus *b)
{
	return b->ops->lag ? b->ops->lag(b) : 0.0;
}

const char *pt_bus_kind(const struct pt_bus *b)
{
	return b->ops->kind;
}

void pt_bus_close(struct pt_bus *b)
{
	if (!b)
		return;
	if (b->ops && b->ops->close)
		b->ops->close(b);
	free(b);
}

static volatile sig_atomic_t stop_flag;

void pt_bus_request_stop(void)
{
	stop_flag = 1;
}

int pt_bus_stop_requested(void)
{
	return stop_flag != 0;
}

void pt_bus_clear_stop(void)
{
	stop_flag = 0;
}

int pt_bus_realtime_now(struct pt_bus *b, double *seconds)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return pt_bus_fail(b, -errno, "CLOCK_MONOTONIC: %s", strerror(errno));
	*seconds = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	return 0;
}

int pt_bus_realtime_wait(struct pt_bus *b, double seconds)
{
	struct timespec req, rem;

	if (!(seconds > 0.0))
		return 0;
	if (seconds > 1e9) /* a sleep of 30 years is as good as forever */
		seconds = 1e9;
	req.tv_sec = (time_t)seconds;
	req.tv_nsec = (long)((seconds - (double)req.tv_sec) * 1e9);
	if (req.tv_nsec > 999999999L)
		req.tv_nsec = 999999999L;
	while (nanosleep(&req, &rem) < 0) {
		if (errno != EINTR)
			return pt_bus_fail(b, -errno, "nanosleep: %s", strerror(errno));
		if (pt_bus_stop_requested())
			return pt_bus_fail(b, -EINTR, "interrupted");
		req = rem;
	}
	return 0;
}
