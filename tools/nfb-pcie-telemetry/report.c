/*
 * nfb-pcie-telemetry: the report loop.  Each report is measured (the
 * upstream register sequence, register-image.md section 4), rendered into
 * memory and printed whole, so that an error or a stop request never
 * leaves half a report on the output.
 */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"

/* Wait until fd takes data, or a stop request comes (-EINTR).  The
 * signals stay blocked between the check and the wait, so a request
 * that comes just before the wait is not missed. */
static int wait_writable(int fd)
{
	sigset_t block, old;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int rc = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &old) != 0)
		return 0;
	if (pt_bus_stop_requested())
		rc = -EINTR;
	else if (ppoll(&p, 1, NULL, &old) < 0 && errno == EINTR && pt_bus_stop_requested())
		rc = -EINTR;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int cli_write_all(int fd, const char *buf, size_t len, bool stoppable)
{
	size_t done = 0;

	if (stoppable && len > 0 && wait_writable(fd) < 0)
		return -EINTR;
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0)
			return -EIO;
		if (errno != EINTR)
			return -errno;
		if (stoppable && done == 0 && pt_bus_stop_requested())
			return -EINTR;
		/* part of it is out: the rest follows, never half of it */
	}
	return 0;
}

int cli_print_whole(FILE *out, const char *buf, size_t len, bool stoppable, struct cli_error *e)
{
	int rc = fflush(out) != 0 ? -errno : 0;

	if (rc == 0 && fileno(out) >= 0) {
		rc = cli_write_all(fileno(out), buf, len, stoppable);
	} else if (rc == 0) {
		/* a stream without a descriptor (a test's memory stream) */
		if (fwrite(buf, 1, len, out) != len || fflush(out) != 0)
			rc = errno ? -errno : -EIO;
	}
	if (rc < 0 && rc != -EINTR)
		cli_fail(e, CLI_EXIT_RUNTIME, "cannot write the report: %s", strerror(-rc));
	return rc;
}

int cli_render_whole(FILE *out, int (*render)(FILE *, const void *, bool), const void *arg,
		     bool json, const char *what, struct cli_error *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (!m)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	rc = render(m, arg, json);
	if (fclose(m) != 0 && rc == 0)
		rc = -ENOMEM;
	if (rc < 0)
		cli_fail(e, CLI_EXIT_RUNTIME, "cannot render %s: %s", what, strerror(-rc));
	else if ((rc = cli_print_whole(out, buf, len, true, e)) == -EINTR)
		cli_fail(e, CLI_EXIT_RUNTIME, "interrupted before %s was complete", what);
	free(buf);
	return rc < 0 ? -1 : 0;
}

/* Measure and render one report into out. */
static enum cli_step one_report(struct cli_session *s, FILE *out, struct cli_error *e)
{
	const struct cli_args *a = s->a;
	struct pt_report rep = { .layout = &s->dev.layout, .metrics = s->metrics };
	int rc;

	if (pt_bus_stop_requested())
		return STEP_STOPPED;
	if (a->csv || a->jsonl)
		return cli_series_step(s, out, e);
	rc = pt_dev_measure(&s->dev, a->interval, &s->first, &s->second, e->msg, sizeof(e->msg));
	if (rc < 0 && pt_bus_stop_requested())
		return STEP_STOPPED;
	if (rc < 0)
		return STEP_FAILED;
	if (cli_record_begin(&s->rec, e) < 0)
		return STEP_FAILED;
	if (a->interval > 0 && cli_record_add(&s->rec, &s->dev.layout, &s->first, e) < 0)
		return STEP_FAILED;
	if (cli_record_add(&s->rec, &s->dev.layout, &s->second, e) < 0)
		return STEP_FAILED;
	if (a->interval > 0) {
		pt_reading_diff(&s->dev.layout, &s->first, &s->second, &s->diff);
		rep.reading = &s->diff;
		rep.interval = true;
		rep.seconds = s->second.time - s->first.time;
		s->seconds = rep.seconds;
		if (cli_wrap_check(s, &s->diff, rep.seconds, e) < 0)
			return STEP_FAILED;
	} else {
		rep.reading = &s->second;
		rep.interval = false;
	}
	rep.diagnose = a->diagnose;
	if (a->diagnose && a->json &&
	    cli_sim_truth(s->dev.bus, &s->dev.layout, rep.interval, &s->truth) == 0)
		rep.truth = &s->truth;
	if (a->metrics)
		rc = pt_render_metrics(out, &rep, s->chosen, s->nchosen);
	else
		rc = a->json ? pt_render_json(out, &rep) : pt_render_text(out, &rep);
	if (rc < 0) {
		cli_fail(e, CLI_EXIT_RUNTIME, "cannot render the report: %s", strerror(-rc));
		return STEP_FAILED;
	}
	/* Upstream prints an empty line after every report of -w: it goes
	 * out with its report. */
	if (a->watch)
		fputc('\n', out);
	return STEP_OK;
}

/* One report measured, rendered and printed, its readings recorded
 * (first, so that a failed write prints nothing; taken back when the
 * report could not be printed). */
static enum cli_step report_step(struct cli_session *s, struct cli_error *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	enum cli_step st;

	if (!out) {
		cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
		return STEP_FAILED;
	}
	st = one_report(s, out, e);
	if (fclose(out) != 0 && st == STEP_OK) {
		cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
		st = STEP_FAILED;
	}
	if (st == STEP_OK && cli_record_commit(&s->rec, e) < 0)
		st = STEP_FAILED;
	if (st == STEP_OK) {
		int rc = cli_print_whole(s->out, buf, len, true, e);

		if (rc == -EINTR || (rc == -EPIPE && s->a->watch))
			st = STEP_STOPPED; /* nobody reads on: a clean end */
		else if (rc < 0)
			st = STEP_FAILED;
		if (rc < 0)
			cli_record_undo(&s->rec);
		else if (s->a->interval > 0)
			cli_note_report(s, &s->diff, s->seconds);
		else
			cli_note_report(s, &s->second, 0.0);
		if (rc == 0)
			s->reports++;
	}
	free(buf);
	cli_record_drop(&s->rec);
	return st;
}

int cli_report_run(struct cli_session *s, struct cli_error *e)
{
	const struct cli_args *a = s->a;
	enum cli_step st = cli_wrap_probe(s, e);

	for (unsigned long n = 0; st == STEP_OK; n++) {
		if (n > 0 && a->interval <= 0) {
			/* Totals in watch mode: once a second (upstream reads as
			 * fast as it can, which floods the terminal with equal
			 * reports). */
			if (pt_bus_wait(s->dev.bus, 1.0) < 0 && !pt_bus_stop_requested())
				return cli_fail(e, CLI_EXIT_RUNTIME, "%s", pt_bus_message(s->dev.bus)), e->status;
		}
		st = pt_bus_stop_requested() ? STEP_STOPPED : report_step(s, e);
		if (st == STEP_OK && (!a->watch || (a->count && s->reports >= a->count)))
			return 0;
	}
	if (st == STEP_STOPPED) {
		if (a->watch)
			return 0;
		cli_fail(e, CLI_EXIT_RUNTIME, "interrupted before the report was complete");
		return e->status;
	}
	/* a usage error found by measuring (an interval too long for -w) */
	if (e->status != CLI_EXIT_USAGE)
		e->status = CLI_EXIT_RUNTIME;
	return e->status;
}
