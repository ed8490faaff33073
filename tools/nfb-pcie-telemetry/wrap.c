/*
 * nfb-pcie-telemetry: wrap safety (docs/series.md "Wrap safety").  The
 * difference of two readings is exact while no counter can wrap twice
 * between them: while the interval is shorter than the shortest wrap time
 * of the layout at the card's clocks (pt_layout_wrap_seconds: 2^CNT_WIDTH
 * over the largest step per cycle times the clock).  The clocks are
 * measured, from the cycle counters: over a 10 ms probe before a watch on
 * a device whose clock runs, and over every interval.
 */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/extend.h"

/* The probe: long enough for the drain periods of the cycle counters to
 * be noise (4096 cycles are 10 us at 400 MHz), short enough to go
 * unnoticed. */
#define PROBE_SECONDS 0.01

/* The rates of difference d over seconds join what is known. */
static void learn(struct cli_wrap *w, const struct pt_layout *l, const struct pt_reading *d,
		  double seconds)
{
	if (!(seconds > 0))
		return;
	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		double pcie = (double)d->cnt[pt_idx_pcie_cycles(l, ep)] / seconds;
		double dma = (double)d->cnt[pt_idx_dma_cycles(l, ep)] / seconds;

		if (pcie > w->hz[0])
			w->hz[0] = pcie;
		if (dma > w->hz[1])
			w->hz[1] = dma;
	}
	w->seconds = pt_layout_wrap_seconds(l, w->hz[0], w->hz[1]);
	snprintf(w->what, sizeof w->what,
		 "a %u-bit counter can wrap in %.3g s at the measured clocks (PCIe %.1f MHz, DMA "
		 "%.1f MHz)",
		 l->cnt_width, w->seconds, w->hz[0] / 1e6, w->hz[1] / 1e6);
}

/* The wrap time rounded down to three digits, for "-t X or less". */
static double shorter(double t)
{
	double unit = pow(10.0, floor(log10(t)) - 2);

	return floor(t / unit) * unit;
}

static int refuse(struct cli_session *s, struct cli_error *e)
{
	return cli_fail(e, CLI_EXIT_USAGE,
			"-t %g with %s: %s, so a difference could miss a wrap; every interval of a "
			"watch must be shorter (-t %g or less)",
			s->a->interval, s->a->count ? "--count" : "-w", s->wrap.what,
			shorter(s->wrap.seconds));
}

enum cli_step cli_wrap_probe(struct cli_session *s, struct cli_error *e)
{
	struct pt_dev *d = &s->dev;

	if (!s->a->watch || !(s->a->interval > 2 * PROBE_SECONDS) ||
	    strcmp(pt_bus_kind(d->bus), "image") == 0)
		return STEP_OK;
	e->status = CLI_EXIT_RUNTIME;
	if (pt_dev_read(d, &s->first, e->msg, sizeof e->msg) < 0)
		return STEP_FAILED;
	if (pt_bus_wait(d->bus, PROBE_SECONDS) < 0) {
		if (pt_bus_stop_requested())
			return STEP_STOPPED;
		cli_fail(e, CLI_EXIT_RUNTIME, "%s", pt_bus_message(d->bus));
		return STEP_FAILED;
	}
	if (pt_dev_read(d, &s->second, e->msg, sizeof e->msg) < 0)
		return STEP_FAILED;
	pt_reading_diff(&d->layout, &s->first, &s->second, &s->diff);
	learn(&s->wrap, &d->layout, &s->diff, s->second.time - s->first.time);
	if (s->a->interval > s->wrap.seconds) {
		refuse(s, e);
		return STEP_FAILED;
	}
	return STEP_OK;
}

int cli_wrap_check(struct cli_session *s, const struct pt_reading *d, double seconds,
		   struct cli_error *e)
{
	struct cli_wrap *w = &s->wrap;

	learn(w, &s->dev.layout, d, seconds);
	w->risk = seconds > w->seconds;
	if (s->a->watch && s->reports == 0 && s->a->interval > w->seconds)
		return refuse(s, e);
	if (w->risk && !w->warn) {
		w->warn = true;
		w->risk_seconds = seconds;
	}
	return 0;
}

void cli_wrap_warn(struct cli_session *s)
{
	struct cli_wrap *w = &s->wrap;
	char msg[CLI_MSG_LEN];

	if (!w->warn)
		return;
	snprintf(msg, sizeof msg,
		 "warning: an interval of %.3g s was too long: %s, and one that wrapped twice "
		 "reads too small (a shorter -t is exact)",
		 w->risk_seconds, w->what);
	cli_print_error(s->err, msg);
}
