/*
 * pcie-telemetry: the inside of a bus, for the backends (private to
 * src/bus/ and to tests that bring their own backend).
 *
 * A backend fills a struct pt_bus_ops, allocates its struct pt_bus with
 * pt_bus_alloc() and keeps its own state in priv; users see only the
 * opaque struct pt_bus of pcie_telemetry/bus.h.
 */
#ifndef PT_BUS_BACKEND_H
#define PT_BUS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/regs.h"

struct pt_bus_ops {
	const char *kind; /* "image", "sim", "pci", "nfb" */
	int (*read32)(struct pt_bus *b, uint32_t off, uint32_t *val);
	int (*write32)(struct pt_bus *b, uint32_t off, uint32_t val);
	/* n consecutive 32-bit words from off (the counter window). */
	int (*read_block)(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n);
	/* The device's clock, in seconds (any origin). */
	int (*now)(struct pt_bus *b, double *seconds);
	/* Let the device run for that long (sleep, or simulate). */
	int (*wait)(struct pt_bus *b, double seconds);
	/* Release b->priv and whatever the backend holds; pt_bus_close() then
	 * frees the struct pt_bus itself. */
	void (*close)(struct pt_bus *b);
	/* Optional: a write and the clock right after it, atomically; NULL
	 * means write32 then now. */
	int (*write32_timed)(struct pt_bus *b, uint32_t off, uint32_t val, double *seconds);
	/* Optional: how far the device's clock lags behind the wall clock
	 * (a simulated card in real time); NULL means 0. */
	double (*lag)(struct pt_bus *b);
};

struct pt_bus {
	const struct pt_bus_ops *ops;
	void *priv;
	/* Bus transactions issued so far: one per read32/write32 call, one
	 * per read_block call (a block is one transfer on the real bus). */
	unsigned long transactions;
	char device[256];      /* the device string it was opened with */
	char msg[PT_BUS_MSG_LEN];
};

/* A zeroed bus with these ops and device string; NULL when out of memory. */
struct pt_bus *pt_bus_alloc(const struct pt_bus_ops *ops, const char *device);
/* Keep a message in b->msg and return err as a negative errno (-EIO for 0). */
int pt_bus_fail(struct pt_bus *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The clock of a real device: now() is CLOCK_MONOTONIC, wait() sleeps
 * (nothing for a non-positive interval; a stop request ends it early
 * with -EINTR). */
int pt_bus_realtime_now(struct pt_bus *b, double *seconds);
int pt_bus_realtime_wait(struct pt_bus *b, double seconds);

/* The compatible string of the component in an NFB DeviceTree. */
#define PT_NFB_COMPATIBLE "cesnet,ofm,pcie_telemetry_mi"

/* A growing list of pt_bus_list(): a new zeroed entry at its end (index
 * -1), NULL when out of memory. */
struct pt_bus_found_list {
	struct pt_bus_found *v;
	size_t n, cap;
};
struct pt_bus_found *pt_bus_found_add(struct pt_bus_found_list *l);
/* The libnfb devices and their components into l (src/bus/nfb_list.c;
 * nothing without libnfb).  Returns 0 or -ENOMEM. */
int pt_bus_list_nfb(struct pt_bus_found_list *l);

#endif
