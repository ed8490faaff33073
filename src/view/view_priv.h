/*
 * pcie-telemetry: what the parts of the live view share (private to
 * src/view/): the view object, the metric families it shows, the history
 * ring and the cell-writing helpers of the composition.
 */
#ifndef PT_VIEW_PRIV_H
#define PT_VIEW_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "pcie_telemetry/view.h"

/* The built-in metric families the view shows. */
enum pt_view_fam {
	PT_VF_WORDS, PT_VF_STALL, PT_VF_GBPS, PT_VF_PCIE_MPPS, PT_VF_DMA_MPPS, PT_VF_BRAKE,
	PT_VF_NOT_READY, PT_VF_BAND, PT_VF_COUNT
};

/* The throughput of every bus over the intervals measured: sample k
 * (0 the oldest) is slot (head + k) % PT_VIEW_HISTORY; series j is
 * instance first + j of {bus}.gbps. */
struct pt_view_hist {
	unsigned n, head, series;
	double t0[PT_VIEW_HISTORY], t1[PT_VIEW_HISTORY];
	double *val; /* PT_VIEW_HISTORY x series */
};

struct pt_view {
	const struct pt_metric_set *ms;
	const struct pt_layout *l;
	unsigned fam[PT_VF_COUNT];
	struct pt_view_hist hist;
	struct pt_view_screen scr;
	size_t scr_cap; /* cells allocated */
};

/* Sample k of the history (0 the oldest): its interval and the value of
 * series j. */
void pt_view_hist_get(const struct pt_view_hist *h, unsigned k, double *t0, double *t1);
double pt_view_hist_val(const struct pt_view_hist *h, unsigned k, unsigned j);

/* The view's screen at rows x cols, every cell blank: 0 or -ENOMEM. */
int pt_view_screen_size(struct pt_view *v, unsigned rows, unsigned cols);

/* Whether TERM can show the view on descriptor fd (termcheck.c): 0, or
 * -ENOTTY with the reason in msg. */
int pt_view_term_check(const char *term, int fd, char *msg, size_t msglen);

/* ---- cells (screen.c) ------------------------------------------------ */

/* Every cell a space of the normal role. */
void pt_vs_clear(struct pt_view_screen *s);
/* Code point ch at (r, c) in role; nothing outside the screen. */
void pt_vs_glyph(struct pt_view_screen *s, unsigned r, unsigned c, uint32_t ch, int role);
/* The role of cells c .. end-1 of row r (their characters stay). */
void pt_vs_role(struct pt_view_screen *s, unsigned r, unsigned c, unsigned end, int role);
/* Text from (r, c), cut at column end (and at the screen's edge); a byte
 * that is not printable ASCII shows as '?'.  Returns the column after
 * the text (at most end). */
unsigned pt_vs_put(struct pt_view_screen *s, unsigned r, unsigned c, unsigned end, int role,
		   const char *text);
unsigned pt_vs_putf(struct pt_view_screen *s, unsigned r, unsigned c, unsigned end, int role,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Text ending just before column end (right aligned in [c, end)). */
void pt_vs_rput(struct pt_view_screen *s, unsigned r, unsigned c, unsigned end, int role,
		const char *text);
/*
 * A bar of width cells at (r, c): '[', the share pct (0..100) of the
 * width - 2 cells inside filled in role (eighths of a cell in block
 * characters when unicode, '|' otherwise), ']'.  NaN fills nothing.
 */
void pt_vs_bar(struct pt_view_screen *s, unsigned r, unsigned c, unsigned width, double pct,
	       int role, bool unicode);
/* Level 0..7 of a sparkline as a character. */
uint32_t pt_vs_spark_glyph(unsigned level, bool unicode);

#endif
