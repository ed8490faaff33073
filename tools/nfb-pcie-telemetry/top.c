/*
 * nfb-pcie-telemetry --top: the loop of the live view (docs/top.md); the
 * drawing is src/view's.
 *
 * One reading per interval, each the end of one interval and the start
 * of the next: one SNAPSHOT per interval, so that an image replays one
 * recorded snapshot per interval.  The error flags and the lowest-value
 * marks are cleared after every reading (upstream clears them before the
 * first snapshot of a measurement), so each interval shows its own.  The
 * difference of two readings goes through the metrics, into the view's
 * history, and onto the screen.  Between two readings the loop waits for
 * a key, a resize or a stop request in ppoll(), with SIGINT, SIGTERM and
 * SIGWINCH blocked everywhere else so that none is missed.
 */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/view.h"

/* The intervals + and - step through, seconds. */
static const double steps[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60 };
#define NSTEPS (sizeof steps / sizeof steps[0])

struct top {
	struct cli_session *s;
	struct pt_view *view;
	struct pt_view_term *term;
	struct pt_metric_value *vals;  /* of s->metrics, for s->diff */
	struct pt_reading *prev, *cur; /* s->first and s->second, in turn */
	bool have_prev;   /* prev is the start of the interval in progress */
	bool have_values; /* s->diff and vals hold the last interval */
	bool replay;      /* an image: recorded time, nothing to clear */
	bool ended;       /* the recording has no more snapshots */
	bool paused, quit;
	enum pt_view_overlay overlay;
	double interval;
	double seconds, time; /* of the last interval: its length, its end */
	double last, next;    /* wall time of the last reading, of the next */
	unsigned ep;
	char notice[CLI_MSG_LEN + 64];
	bool notice_warn;
	double notice_until; /* wall time: a notice stays at least until then */
};

/* Seconds a notice stays on the screen at least (then until the next
 * interval), so that it can be read at the shortest interval. */
#define NOTICE_SECONDS 3.0

static volatile sig_atomic_t resized;

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_top_check(FILE *out, struct cli_error *e)
{
	if (fileno(out) < 0 || !isatty(fileno(out)))
		return cli_fail(e, CLI_EXIT_USAGE,
				"--top: standard output is not a terminal (the live view draws on "
				"one; -w prints reports to a file or a pipe)");
	return 0;
}

/* ---------------------------------------------------------- readings */

/* The interval from prev to cur: its difference, metrics and history. */
static void close_interval(struct top *t)
{
	struct cli_session *s = t->s;
	struct pt_metric_input in;

	pt_reading_diff(&s->dev.layout, t->prev, t->cur, &s->diff);
	t->seconds = t->cur->time - t->prev->time;
	in = (struct pt_metric_input){ &s->diff, true, t->seconds };
	pt_metric_eval(s->metrics, &in, t->vals);
	pt_view_record(t->view, t->prev->time, t->cur->time, t->vals);
	t->time = t->cur->time;
	t->have_values = true;
	if (wall_now() >= t->notice_until)
		t->notice[0] = '\0';
}

static void say(struct top *t, bool warn, const char *what)
{
	snprintf(t->notice, sizeof t->notice, "%s", what);
	t->notice_warn = warn;
	t->notice_until = wall_now() + NOTICE_SECONDS;
}

/* The recording, when asked for: every reading, one image each. */
static int record(struct top *t, struct cli_error *e)
{
	struct cli_session *s = t->s;

	if (cli_record_begin(&s->rec, e) < 0 || cli_record_add(&s->rec, &s->dev.layout, t->cur, e) < 0 ||
	    cli_record_commit(&s->rec, e) < 0)
		return -1;
	return 0;
}

static int take_reading(struct top *t, struct cli_error *e)
{
	struct cli_session *s = t->s;
	struct pt_reading *swap;
	int rc = pt_dev_read(&s->dev, t->cur, e->msg, sizeof e->msg);

	t->last = wall_now();
	t->next = t->next + t->interval > t->last ? t->next + t->interval : t->last + t->interval;
	if (rc < 0 && pt_bus_stop_requested())
		return 0; /* the loop ends at its next look */
	if (rc == -ERANGE && t->replay) {
		char end[CLI_MSG_LEN + 64];

		t->ended = true;
		snprintf(end, sizeof end, "End of the recording (q quits): %s", e->msg);
		say(t, true, end);
		return 0;
	}
	if (rc < 0)
		return e->status = CLI_EXIT_RUNTIME, -1;
	if (record(t, e) < 0)
		return -1;
	if (!t->replay && (pt_dev_clear_flags(&s->dev, e->msg, sizeof e->msg) < 0 ||
			   pt_dev_clear_marks(&s->dev, e->msg, sizeof e->msg) < 0))
		return e->status = CLI_EXIT_RUNTIME, -1;
	if (t->have_prev)
		close_interval(t);
	swap = t->prev;
	t->prev = t->cur;
	t->cur = swap;
	t->have_prev = true;
	return 0;
}

/* ---------------------------------------------------------- keys */

/* A live device measures anew from now on (after a pause or a clear);
 * a recording goes on from the snapshot it has. */
static void restart(struct top *t)
{
	if (!t->replay)
		t->have_prev = false;
	t->next = wall_now();
}

static void step_interval(struct top *t, int dir)
{
	double v = t->interval;

	for (size_t i = 0; i < NSTEPS; i++) {
		double s = steps[dir > 0 ? i : NSTEPS - 1 - i];

		if (dir > 0 ? s > v * (1 + 1e-9) : s < v * (1 - 1e-9)) {
			t->interval = s;
			break;
		}
	}
	t->next = t->last + t->interval;
}

static int clear(struct top *t, struct cli_error *e)
{
	if (t->replay) {
		say(t, false, "A recording cannot be cleared: nothing changed.");
		return 0;
	}
	if (pt_dev_clear(&t->s->dev, e->msg, sizeof e->msg) < 0)
		return e->status = CLI_EXIT_RUNTIME, -1;
	say(t, false, "Counters, flags and marks cleared; the next interval starts now.");
	restart(t);
	return 0;
}

static int act(struct top *t, int k, struct cli_error *e)
{
	unsigned eps = t->s->dev.layout.endpoints;

	if (k == PT_VIEW_KEY_RESIZE)
		return 0;
	if (t->overlay == PT_VIEW_CONFIRM_CLEAR) {
		t->overlay = PT_VIEW_NO_OVERLAY;
		if (k == 'y' || k == 'Y')
			return clear(t, e);
		say(t, false, "Not cleared.");
		return 0;
	}
	if (t->overlay == PT_VIEW_HELP && k != 'q' && k != 'Q') {
		t->overlay = PT_VIEW_NO_OVERLAY;
		return 0;
	}
	switch (k) {
	case 'q': case 'Q':
		t->quit = true;
		break;
	case ' ':
		t->paused = !t->paused;
		if (!t->paused)
			restart(t);
		break;
	case '+': case '=':
		step_interval(t, +1);
		break;
	case '-': case '_':
		step_interval(t, -1);
		break;
	case 'e':
		t->ep = (t->ep + 1) % eps;
		break;
	case 'E':
		t->ep = (t->ep + eps - 1) % eps;
		break;
	case 'c': case 'C':
		t->overlay = PT_VIEW_CONFIRM_CLEAR;
		break;
	case '?': case 'h': case 'H':
		t->overlay = PT_VIEW_HELP;
		break;
	}
	return 0;
}

/* ---------------------------------------------------------- the loop */

static int draw(struct top *t, struct cli_error *e)
{
	struct pt_bus *bus = t->s->dev.bus;
	struct pt_view_state st = {
		.device = pt_bus_device(bus),
		.ep = t->ep,
		.interval = t->interval,
		.paused = t->paused,
		.lag = pt_bus_lag(bus),
		.unicode = pt_view_term_unicode(t->term),
		.overlay = t->overlay,
		.notice = t->notice,
		.notice_warn = t->notice_warn,
	};
	unsigned rows, cols;

	if (t->have_values) {
		st.reading = &t->s->diff;
		st.values = t->vals;
		st.seconds = t->seconds;
		st.time = t->time;
	}
	pt_view_term_size(t->term, &rows, &cols);
	if (pt_view_compose(t->view, &st, rows, cols) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	if (pt_view_term_paint(t->term, pt_view_screen(t->view)) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "cannot draw on the terminal");
	return 0;
}

/* Wait for a key, a resize, a stop request, or the next reading.  -1
 * with e set when the terminal went away. */
static int wait_event(struct top *t, struct cli_error *e)
{
	struct pollfd p = { .fd = pt_view_term_fd(t->term), .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	sigset_t block, old;
	int n = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGWINCH);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!pt_bus_stop_requested() && !resized) {
		if (!t->paused && !t->ended) {
			double d = t->next - wall_now();

			d = d > 0 ? d : 0;
			ts.tv_sec = (time_t)d;
			ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		n = ppoll(&p, 1, tsp, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (n > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)) && !(p.revents & POLLIN))
		return cli_fail(e, CLI_EXIT_RUNTIME, "the terminal went away");
	return 0;
}

static int loop(struct top *t, struct cli_error *e)
{
	t->next = wall_now();
	for (;;) {
		bool dirty = false;
		int k;

		if (pt_bus_stop_requested())
			return 0;
		if (resized) {
			resized = 0;
			pt_view_term_resize(t->term);
			dirty = true;
		}
		while ((k = pt_view_term_key(t->term)) != PT_VIEW_KEY_NONE) {
			if (act(t, k, e) < 0)
				return -1;
			if (t->quit)
				return 0;
			dirty = true;
		}
		if (!t->paused && !t->ended && wall_now() >= t->next) {
			if (take_reading(t, e) < 0)
				return -1;
			dirty = true;
		}
		if (dirty && draw(t, e) < 0)
			return -1;
		if (wait_event(t, e) < 0)
			return -1;
	}
}

/* Everything the loop needs but the terminal; -1 with e set. */
static int prepare(struct top *t, struct cli_error *e)
{
	struct cli_session *s = t->s;
	char msg[PT_METRIC_MSG_LEN];

	t->replay = strcmp(pt_bus_kind(s->dev.bus), "image") == 0;
	t->interval = s->a->interval;
	t->prev = &s->first;
	t->cur = &s->second;
	t->vals = calloc(pt_metric_count(s->metrics) + 1, sizeof *t->vals);
	if (!t->vals)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	if (pt_view_new(s->metrics, &t->view, msg, sizeof msg) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "%s", msg);
	/* the first interval shows its own flags and marks too */
	if (!t->replay && (pt_dev_clear_flags(&s->dev, e->msg, sizeof e->msg) < 0 ||
			   pt_dev_clear_marks(&s->dev, e->msg, sizeof e->msg) < 0))
		return e->status = CLI_EXIT_RUNTIME, -1;
	return 0;
}

int cli_top_run(struct cli_session *s, struct cli_error *e)
{
	struct top t = { .s = s };
	struct sigaction sa, old_winch;
	const char *no_colour = getenv("NO_COLOR");
	FILE *in = stdin, *tty = NULL;
	int rc = prepare(&t, e);

	if (rc == 0 && !isatty(STDIN_FILENO)) {
		/* keys come from the terminal even when standard input does not */
		in = tty = fopen("/dev/tty", "r");
		if (!tty)
			rc = cli_fail(e, CLI_EXIT_RUNTIME,
				      "--top: standard input is not a terminal, and /dev/tty: %s",
				      strerror(errno));
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	resized = 0;
	sigaction(SIGWINCH, &sa, &old_winch);
	if (rc == 0) {
		char msg[CLI_MSG_LEN - 16];

		rc = pt_view_term_open(in, s->out, !(no_colour && *no_colour), &t.term, msg, sizeof msg);
		if (rc < 0)
			rc = cli_fail(e, CLI_EXIT_RUNTIME, "--top: %s", msg);
	}
	if (rc == 0) {
		rc = loop(&t, e);
		/* the terminal as it was, before anything is printed */
		pt_view_term_close(t.term);
	}
	sigaction(SIGWINCH, &old_winch, NULL);
	if (tty)
		fclose(tty);
	pt_view_free(t.view);
	free(t.vals);
	return rc < 0 ? e->status : 0;
}
