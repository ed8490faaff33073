/*
 * nfb-pcie-telemetry: --compare A B.  Both devices are measured over the
 * same -t: the first snapshots of both, then the interval, then the
 * second snapshots of both (two real cards are measured over the same
 * wall time; a recording or a simulated card over its own time).  The two
 * reports are printed side by side with both diagnoses, whole or not at
 * all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"

struct side {
	const char *device;
	struct pt_bus *bus;
	struct pt_dev dev;
	struct pt_reading first, second, diff;
	struct pt_report rep;
};

static int side_open(struct side *s, const char *device, struct cli_error *e)
{
	char msg[CLI_MSG_LEN];
	unsigned entries;

	s->device = device;
	if (pt_bus_open(device, 0, &s->bus, msg, sizeof(msg)) < 0 ||
	    pt_dev_init(&s->dev, s->bus, msg, sizeof(msg)) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "%s", msg);
	entries = s->dev.layout.entries;
	if (pt_reading_init(&s->first, entries) < 0 || pt_reading_init(&s->second, entries) < 0 ||
	    pt_reading_init(&s->diff, entries) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	return 0;
}

static void side_close(struct side *s)
{
	pt_reading_free(&s->first);
	pt_reading_free(&s->second);
	pt_reading_free(&s->diff);
	pt_bus_close(s->bus);
}

/* A device's step failed: its message, or "interrupted". */
static int step_failed(const char *msg, struct cli_error *e)
{
	if (pt_bus_stop_requested())
		return cli_fail(e, CLI_EXIT_RUNTIME, "interrupted before the comparison was complete");
	return cli_fail(e, CLI_EXIT_RUNTIME, "%s", msg);
}

/* The first snapshot, as pt_dev_measure takes it (flags and marks cleared). */
static int begin(struct side *s, struct cli_error *e)
{
	char msg[CLI_MSG_LEN];

	if (pt_dev_clear_flags(&s->dev, msg, sizeof(msg)) < 0 ||
	    pt_dev_clear_marks(&s->dev, msg, sizeof(msg)) < 0 ||
	    pt_dev_read(&s->dev, &s->first, msg, sizeof(msg)) < 0)
		return step_failed(msg, e);
	return 0;
}

/* Until `interval` after the first snapshot, then the second one. */
static int end(struct side *s, double interval, struct cli_error *e)
{
	char msg[CLI_MSG_LEN];
	double now;

	if (pt_bus_now(s->bus, &now) < 0 ||
	    (s->first.time + interval > now && pt_bus_wait(s->bus, s->first.time + interval - now) < 0))
		return step_failed(pt_bus_message(s->bus), e);
	if (pt_dev_read(&s->dev, &s->second, msg, sizeof(msg)) < 0)
		return step_failed(msg, e);
	pt_reading_diff(&s->dev.layout, &s->first, &s->second, &s->diff);
	s->rep = (struct pt_report){ .layout = &s->dev.layout, .reading = &s->diff, .interval = true,
				     .seconds = s->second.time - s->first.time };
	return 0;
}

static int totals(struct side *s, struct cli_error *e)
{
	char msg[CLI_MSG_LEN];

	if (pt_dev_read(&s->dev, &s->second, msg, sizeof(msg)) < 0)
		return step_failed(msg, e);
	s->rep = (struct pt_report){ .layout = &s->dev.layout, .reading = &s->second };
	return 0;
}

static int measure(struct side *sd, double interval, struct cli_error *e)
{
	for (int i = 0; i < 2; i++)
		if (interval > 0 ? begin(&sd[i], e) : totals(&sd[i], e))
			return -1;
	for (int i = 0; interval > 0 && i < 2; i++)
		if (end(&sd[i], interval, e))
			return -1;
	return 0;
}

static int render(FILE *m, const void *arg, bool json)
{
	return json ? pt_render_compare_json(m, arg) : pt_render_compare_text(m, arg);
}

static int print(const struct cli_args *a, struct side *sd, FILE *out, struct cli_error *e)
{
	struct pt_compare c = { &sd[0].rep, &sd[1].rep, sd[0].device, sd[1].device };

	return cli_render_whole(out, render, &c, a->json, "the comparison", e);
}

int cli_compare_run(const struct cli_args *a, FILE *out, struct cli_error *e)
{
	struct side sd[2];
	int rc;

	memset(sd, 0, sizeof(sd));
	rc = side_open(&sd[0], a->compare[0], e);
	if (rc == 0)
		rc = side_open(&sd[1], a->compare[1], e);
	if (rc == 0)
		rc = measure(sd, a->interval, e);
	if (rc == 0)
		rc = print(a, sd, out, e);
	side_close(&sd[0]);
	side_close(&sd[1]);
	return rc < 0 ? (e->status ? e->status : CLI_EXIT_RUNTIME) : 0;
}
