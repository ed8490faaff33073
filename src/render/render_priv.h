/*
 * pcie-telemetry: helpers shared by the renderers (private to src/render/).
 */
#ifndef PT_RENDER_PRIV_H
#define PT_RENDER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcie_telemetry/render.h"

/* The upstream "no denominator" cell: 3 spaces, '-', 2 spaces. */
#define PT_RENDER_DASH "   -  "

/* A growable NUL-terminated string.  On allocation failure `failed` is set
 * and later appends do nothing, so callers check once at the end. */
struct pt_sbuf {
	char *p;
	size_t len, cap;
	bool failed;
};

void pt_sbuf_init(struct pt_sbuf *s);
void pt_sbuf_free(struct pt_sbuf *s);
void pt_sbuf_reset(struct pt_sbuf *s);
void pt_sbuf_add(struct pt_sbuf *s, const char *str);
void pt_sbuf_addn(struct pt_sbuf *s, const char *str, size_t n);
void pt_sbuf_addf(struct pt_sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pt_sbuf_pad(struct pt_sbuf *s, size_t width); /* spaces up to width */
void pt_sbuf_rstrip(struct pt_sbuf *s);             /* drop trailing spaces */
/* Take the string (caller frees); the buffer is left empty. */
char *pt_sbuf_take(struct pt_sbuf *s);

/* A share cell of report-format.md section 2: "%6.2f" of a metric's value
 * (pct(part, whole) computes as the metric does), or the dash for NaN
 * (whole == 0) and for a cell without a metric (v NULL). */
void pt_render_share(char *buf, size_t len, const struct pt_metric_value *v);

/*
 * Shortest decimal digits that read back as v (finite, v > 0): digits
 * without a point, NUL-terminated (1..17 characters), and the decimal
 * exponent of the first digit (v = d.ddd x 10^exp10).
 */
void pt_render_shortest(double v, char digits[24], int *exp10);
/* Those digits in plain decimal with at least one digit after the point
 * ("0.0001", "12.5", "3.0", "1200.0"); -ERANGE when buf is too short. */
int pt_render_plain_decimal(char *buf, size_t len, const char *digits, int exp10);

/*
 * A table in tabulate's "simple" (with headers) or "plain" (headers NULL)
 * format, every cell text, left aligned, two spaces between columns, lines
 * right-stripped.  Cells are stripped of surrounding spaces when added.
 */
struct pt_table {
	unsigned ncols, nrows, cap_rows;
	const char *const *headers; /* NULL: no header row, no dash row */
	char **cells;               /* nrows * ncols, owned */
	bool failed;
};

void pt_table_init(struct pt_table *t, unsigned ncols, const char *const *headers);
void pt_table_free(struct pt_table *t);
/* Append one row of ncols cells (copied and stripped). */
void pt_table_add_row(struct pt_table *t, const char *const *cells);
/* Write it; returns 0, -ENOMEM or -EIO. */
int pt_table_write(FILE *out, const struct pt_table *t);

/* The report's first lines: the title, the interval (seconds_set) or the
 * totals line, and the STATUS flags (report-format.md 3.1, 3.2). */
int pt_render_text_header(FILE *out, const struct pt_layout *l, const struct pt_reading *r,
			  bool seconds_set, double seconds);

/* Validate a layout and a reading against each other (indexes in range). */
int pt_render_check(const struct pt_layout *l, const struct pt_reading *r);

/* Counter i of a reading (callers checked the range with pt_render_check). */
static inline uint64_t pt_render_cnt(const struct pt_reading *r, unsigned i)
{
	return r->cnt[i];
}

/* 0, or -EIO when the stream has an error. */
int pt_render_stream_status(FILE *out);

#endif
