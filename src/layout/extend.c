/*
 * pcie-telemetry: counters extended across wraps, clears told apart from
 * wraps (include/pcie_telemetry/extend.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/extend.h"

/* A cycle counter may run this much faster than its rate measured so far
 * (rates drift little; a clock that is retuned is a new rate). */
#define RATE_MARGIN 1.25

static unsigned log2c(uint64_t v)
{
	unsigned a = 0;

	while (a < 64 && (UINT64_C(1) << a) < v)
		a++;
	return a;
}

/* The probe's items step register is log2c(MAX_STEP + 1) bits wide and
 * can hold any value below 2^width (EOF_POS beyond its region counts too:
 * firmware-behavior.md 1.4). */
static uint64_t items_step(const struct pt_layout *l, unsigned bus)
{
	unsigned pcie = bus < 2, regions = pcie ? l->pcie_regions : l->dma_regions;
	unsigned bytes = 0, kinds[2] = { pcie ? PT_BUS_RQ : PT_BUS_UP, pcie ? PT_BUS_RC : PT_BUS_DOWN };
	uint64_t max_step;

	for (unsigned k = 0; k < 2; k++)
		if (l->region_bytes[kinds[k]] > bytes)
			bytes = l->region_bytes[kinds[k]];
	max_step = (uint64_t)regions * (l->item_bytes ? bytes / l->item_bytes : bytes);
	if (max_step < 1)
		max_step = 1;
	return (UINT64_C(1) << log2c(max_step + 1)) - 1;
}

uint64_t pt_layout_max_step(const struct pt_layout *l, unsigned idx)
{
	struct pt_counter_info ci;

	if (pt_counter_decode(l, idx, &ci) < 0)
		return 0;
	if (ci.kind != PT_COUNTER_BUS)
		return 1;
	switch (ci.field) {
	case PT_F_TRANSACTIONS:
	case PT_F_MVB:
		return ci.bus < 2 ? l->pcie_regions : l->dma_regions;
	case PT_F_ITEMS:
		return items_step(l, ci.bus);
	default:
		return 1;
	}
}

double pt_layout_wrap_seconds(const struct pt_layout *l, double pcie_hz, double dma_hz)
{
	double span = ldexp(1.0, (int)l->cnt_width), best = INFINITY;
	unsigned n = pt_counter_count(l);

	for (unsigned i = 0; i < n; i++) {
		struct pt_counter_info ci;
		double hz;

		pt_counter_decode(l, i, &ci);
		hz = (ci.kind == PT_COUNTER_DMA_CYCLES ||
		      (ci.kind == PT_COUNTER_BUS && ci.bus >= 2) || ci.kind == PT_COUNTER_DMA_BRAKE ||
		      ci.kind == PT_COUNTER_DMA_HIST)
			     ? dma_hz
			     : pcie_hz;
		if (hz > 0 && span / ((double)pt_layout_max_step(l, i) * hz) < best)
			best = span / ((double)pt_layout_max_step(l, i) * hz);
	}
	return best > 1e9 ? INFINITY : best;
}

int pt_extend_init(struct pt_extend *x, const struct pt_layout *l)
{
	memset(x, 0, sizeof(*x));
	x->layout = l;
	x->n = pt_counter_count(l);
	x->raw = calloc(x->n ? x->n : 1, sizeof(*x->raw));
	x->value = calloc(x->n ? x->n : 1, sizeof(*x->value));
	if (!x->raw || !x->value) {
		pt_extend_free(x);
		return -ENOMEM;
	}
	return 0;
}

void pt_extend_free(struct pt_extend *x)
{
	if (!x)
		return;
	free(x->raw);
	free(x->value);
	x->raw = x->value = NULL;
	x->n = 0;
}

/* How far cycle counter c may have moved in dt: by its measured rate, or,
 * before a rate is known, anything below half the counter's range.  The
 * counters move in steps of a drain period, hence the slack. */
static double cycle_bound(const struct pt_extend *x, unsigned ep, unsigned dom, double dt)
{
	const struct pt_layout *l = x->layout;
	double hz = x->hz[ep][dom];

	if (hz <= 0)
		return ldexp(1.0, (int)l->cnt_width - 1);
	return hz * dt * RATE_MARGIN + 2.0 * (l->drain_period + 1);
}

static unsigned cycle_index(const struct pt_layout *l, unsigned ep, unsigned dom)
{
	return dom ? pt_idx_dma_cycles(l, ep) : pt_idx_pcie_cycles(l, ep);
}

/* A clear, and not a wrap: some cycle counter went back further than a
 * wrap at its rate explains, and every one of them is as small as a
 * count that started again within dt. */
static int was_cleared(const struct pt_extend *x, const struct pt_reading *r, double dt)
{
	const struct pt_layout *l = x->layout;
	unsigned back = 0;

	for (unsigned ep = 0; ep < l->endpoints; ep++)
		for (unsigned dom = 0; dom < 2; dom++) {
			unsigned c = cycle_index(l, ep, dom);
			uint64_t now = r->cnt[c], before = x->raw[c];
			double bound = cycle_bound(x, ep, dom, dt);

			if ((double)now > bound)
				return 0;
			if (now < before &&
			    (double)pt_counter_diff(now, before, l->cnt_width) > bound)
				back++;
		}
	return back > 0;
}

/* The clock rates of an interval in which the counters grew. */
static void measure_rates(struct pt_extend *x, const struct pt_reading *r, double dt)
{
	const struct pt_layout *l = x->layout;

	if (!(dt > 0))
		return;
	for (unsigned ep = 0; ep < l->endpoints; ep++)
		for (unsigned dom = 0; dom < 2; dom++) {
			unsigned c = cycle_index(l, ep, dom);
			uint64_t d = pt_counter_diff(r->cnt[c], x->raw[c], l->cnt_width);

			if (d > 0) /* an endpoint held in reset keeps its last rate */
				x->hz[ep][dom] = (double)d / dt;
		}
}

int pt_extend_update(struct pt_extend *x, const struct pt_reading *r)
{
	double dt = r->time - x->time;
	int event;

	if (r->entries < x->n || !r->cnt || (x->readings > 0 && !(dt >= 0)))
		return -EINVAL;
	if (x->readings == 0)
		event = PT_EXTEND_FIRST;
	else
		event = was_cleared(x, r, dt) ? PT_EXTEND_RESET : PT_EXTEND_GREW;
	if (event == PT_EXTEND_GREW) {
		measure_rates(x, r, dt);
		for (unsigned i = 0; i < x->n; i++)
			x->value[i] += pt_counter_diff(r->cnt[i], x->raw[i], x->layout->cnt_width);
	} else {
		memcpy(x->value, r->cnt, x->n * sizeof(*x->value));
	}
	memcpy(x->raw, r->cnt, x->n * sizeof(*x->raw));
	x->time = r->time;
	x->readings++;
	if (event == PT_EXTEND_RESET)
		x->resets++;
	return event;
}
