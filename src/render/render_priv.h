/*
 * pcie-telemetry: helpers shared by the renderers (private to src/render/).
 */
#ifndef PT_RENDER_PRIV_H
#define PT_RENDER_PRIV_H

#include <locale.h>
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

struct jw; /* render/jw.h */

/* The "data" object of -j (the endpoints, STATUS, the layout) and its
 * "config" object alone, as members called key. */
void pt_render_json_data(struct jw *w, const char *key, const struct pt_layout *l,
			 const struct pt_reading *r);
void pt_render_json_config(struct jw *w, const char *key, const struct pt_layout *l);

/*
 * Numbers in the C locale whatever the process's (series must parse the
 * same everywhere): pt_render_c_locale_enter() switches the calling
 * thread to the C locale (uselocale), _leave() restores what it had.
 * Enter returns 0 or -ENOMEM.
 */
struct pt_render_locale {
	locale_t c, old;
};
int pt_render_c_locale_enter(struct pt_render_locale *l);
void pt_render_c_locale_leave(struct pt_render_locale *l);

/* The values of every metric of rep->metrics for the report (the set
 * bound to its layout; every idx[0 .. n-1] an instance of it) into
 * *values, which the caller frees: 0, -EINVAL or -ENOMEM (metrics.c). */
int pt_render_eval(const struct pt_report *rep, const unsigned *idx, unsigned n,
		   struct pt_metric_value **values);

/* ---- series (series.c; the formats in csv.c and jsonl.c) ---- */

/* The flags of a point: lost_deltas, readout_overrun (STATUS) and
 * wrap_risk (the caller's). */
#define PT_SERIES_FLAGS 3
extern const char *const pt_series_flag_names[PT_SERIES_FLAGS];
bool pt_series_flag(const struct pt_series_point *p, unsigned i);
/* Check a point (see pt_render_csv), evaluate every metric of its set
 * into *values and enter the C locale: 0, or a negative errno with
 * nothing to end.  pt_series_end() leaves the locale and frees them. */
int pt_series_begin(FILE *out, const struct pt_series_point *p, struct pt_metric_value **values,
		    struct pt_render_locale *loc);
void pt_series_end(struct pt_metric_value *values, struct pt_render_locale *loc);
/* A metric's value as text: an exact integer or the double with the
 * metric's precision (PT_SERIES_NUMBER), "inf" or "-inf"
 * (PT_SERIES_INF), "" for NaN (PT_SERIES_NAN).  bounded: an integer
 * outside [-2^63, 2^64) (a product of 64-bit totals), which pandas could
 * not read as a number, is written as its double (Python's repr).  400
 * bytes are enough. */
enum pt_series_num { PT_SERIES_NUMBER, PT_SERIES_INF, PT_SERIES_NAN };
enum pt_series_num pt_series_value(const struct pt_metric_info *in,
				   const struct pt_metric_value *v, bool bounded, char *buf,
				   size_t len);

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
