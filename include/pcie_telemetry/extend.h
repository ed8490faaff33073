/*
 * pcie-telemetry: counters that never wrap, for long series and for the
 * Prometheus exporter.
 *
 * The firmware's counters are CNT_WIDTH bits wide (33 to 64) and wrap.
 * Fed with readings often enough (more often than half of
 * pt_layout_wrap_seconds()), an extender keeps a 64-bit copy of every
 * counter that only grows, and tells a clear by somebody else
 * (`nfb-pcie-telemetry -c`, COMMAND bit 1) apart from a wrap by the
 * elapsed-cycle counters: after a clear every cycle counter starts again
 * from about zero, which no wrap can look like once the clock rates are
 * known.  A clear shows as a counter reset (the values start again from
 * the raw ones), never as a huge jump.
 *
 * Pure data: nothing here reads a device.  Prefixes: pt_extend_,
 * pt_layout_max_step, pt_layout_wrap_seconds.
 */
#ifndef PCIE_TELEMETRY_EXTEND_H
#define PCIE_TELEMETRY_EXTEND_H

#include <stdint.h>

#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/reading.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest amount counter idx can grow by in one cycle of its clock
 * (a region's items can reach the whole probe's width; a SOF count the
 * probe's regions; every cycle counter 1).  0 for an index without a
 * name. */
uint64_t pt_layout_max_step(const struct pt_layout *l, unsigned idx);

/* The shortest time in which any counter of the layout can wrap, with
 * the PCIe and DMA clocks at these rates (Hz): 2^CNT_WIDTH divided by
 * the largest step per second.  A reading at least twice as often keeps
 * every difference exact.  Infinity when both rates are 0 or CNT_WIDTH is
 * 64 and no counter can wrap within 10^9 s. */
double pt_layout_wrap_seconds(const struct pt_layout *l, double pcie_hz, double dma_hz);

/* What one reading did to the extended counters. */
enum pt_extend_event {
	PT_EXTEND_FIRST, /* the first reading: the values are the raw ones */
	PT_EXTEND_GREW,  /* every counter grew by its difference modulo 2^CNT_WIDTH */
	PT_EXTEND_RESET, /* the counters were cleared in between: the values
			  * start again from the raw ones */
};

struct pt_extend {
	const struct pt_layout *layout; /* not owned; must outlive the extender */
	unsigned n;                     /* counters with a name */
	uint64_t *raw;                  /* the last raw values */
	uint64_t *value;                /* the extended values */
	double time;                    /* device time of the last reading */
	/* Clock rates measured between readings (Hz), per endpoint and
	 * domain (0 = PCIe, 1 = DMA); 0 until two readings were seen. */
	double hz[PT_MAX_ENDPOINTS][2];
	unsigned long readings, resets;
};

/* 0 or -ENOMEM.  pt_extend_free() also frees a failed or zeroed one. */
int pt_extend_init(struct pt_extend *x, const struct pt_layout *l);
void pt_extend_free(struct pt_extend *x);

/*
 * Take one raw reading (r->time in device seconds, not earlier than the
 * last one).  Returns the event, or -EINVAL (with nothing changed) for a
 * reading with fewer counters than the layout or a time that goes back.
 * Between two readings more than half of the wrap time apart a wrap of a
 * fast counter can be missed: the caller keeps to pt_layout_wrap_seconds.
 */
int pt_extend_update(struct pt_extend *x, const struct pt_reading *r);

#ifdef __cplusplus
}
#endif
#endif
