/*
 * pcie-telemetry: the live view of nfb-pcie-telemetry --top (docs/top.md).
 *
 * Three parts, none of which reaches a device:
 *   1. the history: the throughput of every bus ({bus}.gbps) of the
 *      intervals measured, in a ring of PT_VIEW_HISTORY samples whatever
 *      the length of the run, for the sparklines of the last minute;
 *   2. composition: one screen of the view (struct pt_view_screen, rows x
 *      cols cells, each a character and a role) from data alone: the
 *      layout, the difference of the last interval, the metric values of
 *      the built-in metrics (every figure shown is one of them), the
 *      history and the state of the loop (endpoint, interval, pause,
 *      overlays).  Any size works, down to one cell: what does not fit is
 *      left out in a fixed order (docs/top.md "Small terminals");
 *   3. the terminal (ncurses): set up, paint a screen, read keys, follow a
 *      resize, and give the terminal back as it was.
 * The loop that measures, records and reacts to keys is the tool's
 * (tools/nfb-pcie-telemetry/top.c).
 *
 * Prefix: pt_view_.  Functions that can fail return 0 or a negative errno
 * with a one-line message in the caller's buffer; nothing prints.
 */
#ifndef PCIE_TELEMETRY_VIEW_H
#define PCIE_TELEMETRY_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcie_telemetry/layout.h"
#include "pcie_telemetry/metrics.h"
#include "pcie_telemetry/reading.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Samples the history keeps: a minute at the shortest interval (0.1 s)
 * with room to spare.  The oldest sample goes when a new one comes. */
#define PT_VIEW_HISTORY 1024u
/* Seconds of device time a sparkline spans. */
#define PT_VIEW_WINDOW 60.0
/* The largest screen composed; a larger terminal shows this much. */
#define PT_VIEW_MAX_ROWS 1000u
#define PT_VIEW_MAX_COLS 1000u

/* What a cell shows: the terminal turns a role into colours, or into
 * attributes without colours (docs/top.md "Colours"). */
enum pt_view_role {
	PT_VIEW_NORMAL,
	PT_VIEW_TITLE,  /* the top line */
	PT_VIEW_HEADER, /* headings of the tables */
	PT_VIEW_WORDS,  /* the filled part of a words % bar */
	PT_VIEW_STALL,  /* the filled part of a stall % bar */
	PT_VIEW_BRAKE,  /* the filled part of a BRAKE reason's bar */
	PT_VIEW_SPARK,  /* a sparkline */
	PT_VIEW_WARN,   /* the flags, a link down, a lowest value of 0, errors */
	PT_VIEW_KEYS,   /* the line of keys at the bottom, the help */
	PT_VIEW_ROLES
};

struct pt_view_cell {
	uint32_t ch;  /* a Unicode code point; printable ASCII unless unicode glyphs were asked */
	uint8_t role; /* enum pt_view_role */
};

/* One screen, row by row: cell[r * cols + c]. */
struct pt_view_screen {
	unsigned rows, cols;
	struct pt_view_cell *cell;
};

/* What covers the body of the view. */
enum pt_view_overlay {
	PT_VIEW_NO_OVERLAY,
	PT_VIEW_HELP,          /* the keys */
	PT_VIEW_CONFIRM_CLEAR, /* "clear the counters? y/n" on the bottom line */
};

/* The state of the loop, for one screen. */
struct pt_view_state {
	const char *device;  /* as opened ("sim:idle"); control characters are shown as '?' */
	unsigned ep;         /* the endpoint shown */
	double interval;     /* the interval asked for, seconds */
	bool paused;
	double lag;          /* seconds the device's clock lags (pt_bus_lag); shown when > 0.005 */
	bool unicode;        /* block characters for bars and sparklines; else ASCII */
	enum pt_view_overlay overlay;
	const char *notice;  /* one line under the title, or NULL */
	bool notice_warn;    /* ... in the warning role */
	/* The last interval measured: all NULL (and the figures shown as
	 * "-") before the first one. */
	const struct pt_reading *reading;     /* the difference; STATUS and link registers of the later reading */
	const struct pt_metric_value *values; /* of the view's metric set, for reading */
	double seconds;                       /* its length */
	double time;                          /* device time at its end: the sparklines end there */
};

struct pt_view;

/*
 * A view of the instances of set ms (bound to one layout, with the
 * built-in metrics: -EINVAL naming a family when one is missing; -ENOMEM).
 * The view keeps a pointer to ms: free the view first.
 */
int pt_view_new(const struct pt_metric_set *ms, struct pt_view **out, char *msg, size_t msglen);
/* NULL is allowed. */
void pt_view_free(struct pt_view *v);

/* One interval [t0, t1] of device time measured, vals its metric values:
 * the throughput of every bus goes into the history (the oldest sample
 * out when it is full).  Intervals come in time order; one that does not
 * end after the last one (t1 <= its t1, or NaN) is ignored. */
void pt_view_record(struct pt_view *v, double t0, double t1, const struct pt_metric_value *vals);
/* Samples in the history (at most PT_VIEW_HISTORY). */
unsigned pt_view_history_len(const struct pt_view *v);

/*
 * Compose the screen of st at rows x cols (each clamped to 1 ..
 * PT_VIEW_MAX_*) into the view's screen (pt_view_screen).  Every cell is
 * written.  Returns 0 or -ENOMEM (the screen is then 0 x 0).
 */
int pt_view_compose(struct pt_view *v, const struct pt_view_state *st, unsigned rows,
		    unsigned cols);
const struct pt_view_screen *pt_view_screen(const struct pt_view *v);
/* Row r of the screen as UTF-8 without trailing spaces (for tests and
 * logs): 0, or -ERANGE when len is too short (cut). */
int pt_view_screen_row(const struct pt_view_screen *s, unsigned r, char *buf, size_t len);

/* ---- the terminal ---------------------------------------------------- */

struct pt_view_term;

/* Keys of pt_view_term_key() beyond characters. */
enum { PT_VIEW_KEY_NONE = -1, PT_VIEW_KEY_RESIZE = 0x10000 };

/*
 * Take over the terminal of in and out (both terminals): the alternate
 * screen, no echo, keys one at a time, no cursor.  colour: colours when
 * the terminal has them (false: attributes only, as for NO_COLOR).  Sets
 * LC_CTYPE from the environment for the session (block characters in a
 * UTF-8 locale) and puts it back on close; LC_NUMERIC is not touched.
 * Errors: -ENOTTY (TERM unset, a TERM without a terminal description, or
 * one that cannot move the cursor: "TERM=dumb: ..."), -ENOMEM.
 */
int pt_view_term_open(FILE *in, FILE *out, bool colour, struct pt_view_term **t, char *msg,
		      size_t msglen);
/* The terminal as it was (the normal screen, echo, the cursor); NULL is
 * allowed.  Call it before printing anything else on the terminal. */
void pt_view_term_close(struct pt_view_term *t);
/* The input descriptor, to wait for keys with poll. */
int pt_view_term_fd(const struct pt_view_term *t);
/* Whether block characters can be shown (a UTF-8 locale). */
bool pt_view_term_unicode(const struct pt_view_term *t);
void pt_view_term_size(const struct pt_view_term *t, unsigned *rows, unsigned *cols);
/* After SIGWINCH: take the terminal's new size (TIOCGWINSZ). */
void pt_view_term_resize(struct pt_view_term *t);
/* Show screen s (cut to the terminal's size).  0, or -EIO. */
int pt_view_term_paint(struct pt_view_term *t, const struct pt_view_screen *s);
/* The next key typed, without waiting: a character, PT_VIEW_KEY_RESIZE,
 * or PT_VIEW_KEY_NONE. */
int pt_view_term_key(struct pt_view_term *t);

#ifdef __cplusplus
}
#endif
#endif
