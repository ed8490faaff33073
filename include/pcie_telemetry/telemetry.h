/*
 * pcie-telemetry: one PCIE_TELEMETRY_MI component over a bus: its layout,
 * its commands and its readings (the device part of the reader).
 *
 * The data it produces is described in layout.h (the layout and the
 * counter names) and reading.h (readings and their differences); nothing
 * here prints or formats (render.h).
 *
 * Prefix: pt_dev_.  Errors: negative errno values with a one-line message
 * in the caller's buffer that names the register (or file) and the value.
 */
#ifndef PCIE_TELEMETRY_TELEMETRY_H
#define PCIE_TELEMETRY_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/reading.h"
#include "pcie_telemetry/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An open component: a bus and its layout. */
struct pt_dev {
	struct pt_bus *bus;
	struct pt_layout layout;
	double busy_timeout; /* seconds, default 1.0 */
};

/* Read the configuration registers and validate the layout. */
int pt_dev_init(struct pt_dev *d, struct pt_bus *bus, char *msg, size_t msglen);
int pt_dev_command(struct pt_dev *d, uint32_t cmd, char *msg, size_t msglen);
/* Wait until STATUS.busy is 0 (polling, with the timeout). */
int pt_dev_wait_idle(struct pt_dev *d, char *msg, size_t msglen);
int pt_dev_status(struct pt_dev *d, uint32_t *status, char *msg, size_t msglen);
/* SNAPSHOT, note the time, wait for idle, read everything of the copy. */
int pt_dev_read(struct pt_dev *d, struct pt_reading *r, char *msg, size_t msglen);
/*
 * One measurement, with the register sequence of the upstream tool:
 *   interval <= 0: one reading into `second` (totals since the last clear);
 *   interval > 0:  CLEAR_FLAGS, CLEAR_MARKS, a reading into `first`, then
 *                  the bus waits until `interval` seconds after the first
 *                  SNAPSHOT, and a reading into `second`.
 * The measured length is second->time - first->time.  Returns -EINTR,
 * without taking the second reading, when pt_bus_stop_requested().
 */
int pt_dev_measure(struct pt_dev *d, double interval, struct pt_reading *first,
		   struct pt_reading *second, char *msg, size_t msglen);
int pt_dev_clear(struct pt_dev *d, char *msg, size_t msglen);        /* 0xE */
int pt_dev_clear_flags(struct pt_dev *d, char *msg, size_t msglen);  /* 0x4 */
int pt_dev_clear_marks(struct pt_dev *d, char *msg, size_t msglen);  /* 0x8 */

#ifdef __cplusplus
}
#endif
#endif
