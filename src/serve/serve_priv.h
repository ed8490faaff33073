/*
 * pcie-telemetry: the exporter's pollers (private to src/serve/).
 */
#ifndef PT_SERVE_PRIV_H
#define PT_SERVE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "pcie_telemetry/extend.h"
#include "pcie_telemetry/render_prom.h"
#include "pcie_telemetry/serve.h"
#include "pcie_telemetry/telemetry.h"

/* One device and the thread that polls it. */
struct pt_serve_poller {
	/* set before the thread starts, then constant */
	char *label;          /* the `device` label */
	const char *device;   /* NULL: the libnfb default */
	unsigned index;
	double interval;      /* configured */
	void (*log)(void *arg, const char *line);
	void *log_arg;
	atomic_ulong *generation; /* bumped on every publish (the render cache's key) */

	pthread_t thread;
	bool started;
	pthread_mutex_t stop_mu;
	pthread_cond_t stop_cv; /* on CLOCK_MONOTONIC */
	bool stop;

	/* the thread's own */
	struct pt_bus *bus;
	struct pt_dev dev;
	struct pt_reading r;
	struct pt_extend x;
	bool open, exhausted, failing;
	unsigned failures; /* consecutive, for the retry backoff */
	char last_error[PT_BUS_MSG_LEN];

	/* published: read by scrapes under mu */
	pthread_mutex_t mu;
	bool up, have_data;
	char kind[16];
	struct pt_layout layout;
	struct pt_prom_plan *plan;
	uint64_t *value;
	unsigned nvalue;
	struct pt_reading regs; /* STATUS and per-endpoint registers (cnt NULL) */
	struct pt_prom_stats stats;
};

/* Prepare p (its fixed fields set by the caller) and start its thread:
 * 0 or a negative errno. */
int pt_serve_poller_start(struct pt_serve_poller *p, char *msg, size_t msglen);
/* Stop the thread (at once, even mid-wait), close the device, free. */
void pt_serve_poller_stop(struct pt_serve_poller *p);
/* p as the renderer sees it; call with p->mu held. */
void pt_serve_poller_view(const struct pt_serve_poller *p, struct pt_prom_device *out);

#endif
