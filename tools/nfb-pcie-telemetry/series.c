/*
 * nfb-pcie-telemetry: series (--csv, --jsonl; docs/series.md).  The
 * intervals of a series follow each other without a gap, one SNAPSHOT
 * each: the second reading of one interval is the first of the next, so
 * the sum of the intervals is the difference of the totals over the same
 * time.  The flags and lowest-value marks are cleared right after each
 * reading, so they too belong to one interval.  Every point is rendered
 * whole into memory and printed by the report loop (report.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"
#include "util/pt_util.h"

/* The header of a recording lies in its first lines (comments of at most
 * 4096 characters each). */
#define HEADER_BYTES 65536
#define DEVICE_COMMENT "# device: "

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: what turns the clock of a real
 * device (pci, mmap, nfb: CLOCK_MONOTONIC) into UNIX time. */
static double realtime_offset(void)
{
	struct timespec m0, r, m1;

	clock_gettime(CLOCK_MONOTONIC, &m0);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	return ((double)r.tv_sec - ((double)m0.tv_sec + (double)m1.tv_sec) / 2) +
	       ((double)r.tv_nsec - ((double)m0.tv_nsec + (double)m1.tv_nsec) / 2) / 1e9;
}

/* The rest of line (len characters) after prefix, or NULL. */
static const char *after(const char *line, size_t len, const char *prefix, size_t *rest)
{
	size_t n = strlen(prefix);

	if (len <= n || strncmp(line, prefix, n) != 0)
		return NULL;
	*rest = len - n;
	return line + n;
}

/* One header line of a recording: the device it names, its clock. */
static int header_line(struct cli_source *src, const char *line, size_t len)
{
	char num[64], *end;
	size_t n;
	const char *v;

	if ((v = after(line, len, DEVICE_COMMENT, &n))) {
		free(src->device);
		src->device = strndup(v, n);
		src->replay = true;
		return src->device ? 0 : -ENOMEM;
	}
	if (!(v = after(line, len, CLI_CLOCK_COMMENT, &n)) || n >= sizeof num)
		return 0;
	memcpy(num, v, n);
	num[n] = '\0';
	double t = strtod(num, &end);
	if (end != num && *end == '\0' && isfinite(t)) {
		src->unix_time = true;
		src->offset = t;
	}
	return 0;
}

/* The header comments of a recording (before its first image) that say
 * where its readings come from.  A file without them (the conformance
 * images) keeps the -d device and its recorded clock. */
static int read_header(struct cli_source *src, const char *path, struct cli_error *e)
{
	char *buf = malloc(HEADER_BYTES + 1);
	ssize_t n = -1;
	int fd = -1, rc = 0;

	if (!buf)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	fd = pt_util_open_file(path, "register image", UINT64_MAX, NULL, e->msg, sizeof e->msg);
	if (fd >= 0)
		n = read(fd, buf, HEADER_BYTES);
	if (fd >= 0)
		close(fd);
	for (char *p = buf, *end = buf + (n > 0 ? n : 0); p < end && rc == 0;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		if (len && p[len - 1] == '\r')
			len--;
		if (len && p[0] == '@')
			break;
		rc = header_line(src, p, len);
		if (!nl)
			break;
		p = nl + 1;
	}
	free(buf);
	/* the image backend read the file already: a failure here is a race
	 * that leaves the -d device, never an error of its own */
	return rc < 0 ? cli_fail(e, CLI_EXIT_RUNTIME, "out of memory") : 0;
}

int cli_source_prepare(struct cli_session *s, struct cli_error *e)
{
	struct cli_source *src = &s->src;
	const char *kind = pt_bus_kind(s->dev.bus);
	char path[4096];

	src->device = strdup(pt_bus_device(s->dev.bus));
	if (!src->device)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	if (strcmp(kind, "pci") == 0 || strcmp(kind, "nfb") == 0) {
		src->unix_time = true;
		src->offset = realtime_offset();
	} else if (strcmp(kind, "image") == 0 &&
		   pt_bus_device_file(s->a->device, path, sizeof path) == 1 &&
		   read_header(src, path, e) < 0) {
		return -1;
	}
	if (!(s->a->csv || s->a->jsonl) || s->a->metrics)
		return 0;
	unsigned n = pt_metric_count(s->metrics);
	s->all = malloc(((size_t)n + 1) * sizeof *s->all);
	if (!s->all)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	for (unsigned i = 0; i < n; i++)
		s->all[i] = i;
	return 0;
}

void cli_source_free(struct cli_session *s)
{
	free(s->src.device);
	free(s->all);
	s->src.device = NULL;
	s->all = NULL;
}

/* More reports follow this one. */
static bool more_follow(const struct cli_session *s)
{
	return s->a->watch && (!s->a->count || s->reports + 1 < s->a->count);
}

static int clear_for_next(struct cli_session *s, struct cli_error *e)
{
	if (pt_dev_clear_flags(&s->dev, e->msg, sizeof e->msg) < 0 ||
	    pt_dev_clear_marks(&s->dev, e->msg, sizeof e->msg) < 0)
		return -1;
	return 0;
}

/*
 * The readings of the next point: totals, one reading into second; an
 * interval, second read when its deadline comes (the first interval
 * begins with the upstream sequence: flags and marks cleared, a reading
 * into first).  The deadlines are s->deadline, one interval apart, so a
 * slow output never makes the series drift; one that is missed by more
 * than half an interval starts the count again from the last reading.
 */
static enum cli_step series_measure(struct cli_session *s, struct cli_error *e)
{
	struct pt_dev *d = &s->dev;
	double x = s->a->interval, now;

	e->status = CLI_EXIT_RUNTIME;
	if (!(x > 0))
		return pt_dev_read(d, &s->second, e->msg, sizeof e->msg) < 0 ? STEP_FAILED : STEP_OK;
	if (s->reports == 0) {
		if (clear_for_next(s, e) < 0 || pt_dev_read(d, &s->first, e->msg, sizeof e->msg) < 0)
			return STEP_FAILED;
		s->deadline = s->first.time + x;
	}
	if (pt_bus_stop_requested())
		return STEP_STOPPED;
	if (pt_bus_now(d->bus, &now) < 0 || pt_bus_wait(d->bus, s->deadline - now) < 0) {
		if (pt_bus_stop_requested())
			return STEP_STOPPED;
		cli_fail(e, CLI_EXIT_RUNTIME, "%s", pt_bus_message(d->bus));
		return STEP_FAILED;
	}
	if (pt_bus_stop_requested())
		return STEP_STOPPED;
	if (pt_dev_read(d, &s->second, e->msg, sizeof e->msg) < 0)
		return STEP_FAILED;
	s->deadline += x;
	if (s->deadline < s->second.time + x / 2)
		s->deadline = s->second.time + x;
	return more_follow(s) && clear_for_next(s, e) < 0 ? STEP_FAILED : STEP_OK;
}

/* The first line of the output: the CSV header, or what JSON lines say
 * about the run. */
static int series_head(struct cli_session *s, FILE *out, const unsigned *idx, unsigned n)
{
	if (s->a->csv)
		return pt_render_csv_header(out);
	const struct pt_series_info info = {
		.tool_version = PT_VERSION_STRING,
		.argc = s->argc,
		.argv = s->argv,
		.device = s->src.device,
		.source = s->src.replay ? pt_bus_device(s->dev.bus) : NULL,
		.unix_time = s->src.unix_time,
	};
	return pt_render_jsonl_header(out, &info, s->metrics, idx, n, !s->a->metrics);
}

enum cli_step cli_series_step(struct cli_session *s, FILE *out, struct cli_error *e)
{
	const struct cli_args *a = s->a;
	struct pt_report rep = { .layout = &s->dev.layout, .metrics = s->metrics };
	struct pt_series_point p = {
		.rep = &rep,
		.device = s->src.device,
		.idx = a->metrics ? s->chosen : s->all,
		.n = a->metrics ? s->nchosen : pt_metric_count(s->metrics),
		.raw = !a->metrics,
	};
	enum cli_step st = series_measure(s, e);
	int rc;

	if (st != STEP_OK)
		return st;
	if (cli_record_begin(&s->rec, e) < 0 ||
	    (a->interval > 0 && s->reports == 0 &&
	     cli_record_add(&s->rec, &s->dev.layout, &s->first, e) < 0) ||
	    cli_record_add(&s->rec, &s->dev.layout, &s->second, e) < 0)
		return STEP_FAILED;
	rep.interval = a->interval > 0;
	rep.reading = rep.interval ? &s->diff : &s->second;
	if (rep.interval) {
		pt_reading_diff(&s->dev.layout, &s->first, &s->second, &s->diff);
		rep.seconds = s->second.time - s->first.time;
		s->seconds = rep.seconds;
		if (cli_wrap_check(s, &s->diff, rep.seconds, e) < 0)
			return STEP_FAILED;
		/* the second reading begins the next interval */
		struct pt_reading t = s->first;
		s->first = s->second;
		s->second = t;
	}
	p.time = s->src.offset + (rep.interval ? s->first.time : s->second.time);
	p.wrap_risk = s->wrap.risk;
	rc = s->reports == 0 ? series_head(s, out, p.idx, p.n) : 0;
	if (rc == 0)
		rc = a->csv ? pt_render_csv(out, &p) : pt_render_jsonl(out, &p);
	if (rc < 0) {
		cli_fail(e, CLI_EXIT_RUNTIME, "cannot render the series: %s", strerror(-rc));
		return STEP_FAILED;
	}
	return STEP_OK;
}
