/*
 * nfb-pcie-telemetry: notes on the error stream.  They say what a run did
 * where the output alone would mislead (a clear that cleared nothing, a
 * total that covers a warm-up, an interval too short for exact shares),
 * and never change the output: the report and "Counters cleared." stay
 * upstream's, byte for byte.
 */
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"

/* Ten read-outs: below this many, each share is exact only to within a
 * tenth or more of the interval (docs/report.md, "Resolution of short
 * intervals"). */
#define SHORT_READOUTS 10.0

static void note(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(FILE *err, const char *fmt, ...)
{
	char msg[CLI_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(err, CLI_NOTE_PREFIX "%s\n", msg);
	fflush(err);
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void cli_note_clear(struct cli_session *s)
{
	const char *kind = pt_bus_kind(s->dev.bus), *dev = pt_bus_device(s->dev.bus);
	size_t len = strlen(dev);

	if (strcmp(kind, "image") == 0)
		note(s->err, "%s is a recording: nothing was cleared, a replay shows the recorded "
			     "counters",
		     dev);
	else if (strcmp(kind, "sim") == 0)
		note(s->err, "the simulated card's counters were cleared; the card ends with this "
			     "run (the next run simulates a new one from its reset)");
	else if (starts(dev, "mmap:") && !(len >= 3 && strcmp(dev + len - 3, ",rw") == 0))
		note(s->err, "%s is mapped without ,rw: the clear did not reach the file", dev);
}

/* The longest time between two read-outs of the counters: DRAIN_PERIOD
 * cycles of the slowest probe clock, measured over the interval (0 when
 * no clock ran).  *mhz and *clock name that clock. */
static double readout_time(const struct pt_layout *l, const struct pt_reading *r,
			   double seconds, double *mhz, const char **clock)
{
	double worst = 0.0;

	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		uint64_t cycles[2] = { r->cnt[pt_idx_pcie_cycles(l, ep)],
				       r->cnt[pt_idx_dma_cycles(l, ep)] };

		for (unsigned k = 0; k < 2; k++) {
			double t;

			if (cycles[k] == 0)
				continue;
			t = (double)l->drain_period * seconds / (double)cycles[k];
			if (t > worst) {
				worst = t;
				*mhz = (double)cycles[k] / seconds / 1e6;
				*clock = k == 0 ? "PCIe" : "DMA";
			}
		}
	}
	return worst;
}

void cli_note_report(struct cli_session *s, const struct pt_reading *r, double seconds)
{
	const struct pt_layout *l = &s->dev.layout;

	if (seconds <= 0.0) {
		if (!s->noted_totals && strcmp(pt_bus_kind(s->dev.bus), "sim") == 0)
			note(s->err,
			     "-t 0 on the simulated card: the totals cover only its warm-up (%.0f us "
			     "of simulated time since its reset); give -t SEC to measure",
			     r->time * 1e6);
		s->noted_totals = true;
		return;
	}
	if (!s->noted_short) {
		double mhz = 0.0, t;
		const char *clock = "";

		t = readout_time(l, r, seconds, &mhz, &clock);
		if (t == 0.0)
			note(s->err,
			     "no cycle counter advanced in the interval (%.3g s): it is shorter than "
			     "one read-out of the counters, or the clocks stand still",
			     seconds);
		else if (seconds < SHORT_READOUTS * t)
			note(s->err,
			     "the interval (%.3g s) is shorter than ten read-outs of the counters (one "
			     "every %u cycles of the %.4g MHz %s clock, %.3g %s): the shares are coarse "
			     "(docs/report.md, \"Resolution of short intervals\")",
			     seconds, l->drain_period, mhz, clock, t < 1e-3 ? t * 1e6 : t < 1 ? t * 1e3 : t,
			     t < 1e-3 ? "us" : t < 1 ? "ms" : "s");
		s->noted_short = true;
	}
}

/* The length of the line at err[n..len) when it is a note or a warning,
 * else 0. */
static size_t note_line(const char *err, size_t n, size_t len)
{
	static const char *const kinds[] = { CLI_NOTE_PREFIX, CLI_WARNING };

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t plen = strlen(kinds[k]);
		const char *nl;

		if (len - n < plen || memcmp(err + n, kinds[k], plen) != 0)
			continue;
		nl = memchr(err + n, '\n', len - n);
		return nl ? (size_t)(nl - err) + 1 - n : 0;
	}
	return 0;
}

size_t cli_notes_length(const char *err, size_t len)
{
	size_t n = 0, one;

	while ((one = note_line(err, n, len)) != 0)
		n += one;
	return n;
}
