/*
 * pcie-telemetry: helpers of the renderers: strings, exact arithmetic,
 * tabulate emulation, shortest float digits, input checks.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_priv.h"

/* ---- strings ---------------------------------------------------------- */

void pt_sbuf_init(struct pt_sbuf *s)
{
	s->p = NULL;
	s->len = s->cap = 0;
	s->failed = false;
}

void pt_sbuf_free(struct pt_sbuf *s)
{
	free(s->p);
	pt_sbuf_init(s);
}

void pt_sbuf_reset(struct pt_sbuf *s)
{
	s->len = 0;
	if (s->p)
		s->p[0] = '\0';
}

static bool sbuf_reserve(struct pt_sbuf *s, size_t extra)
{
	if (s->failed)
		return false;
	if (s->len + extra + 1 <= s->cap)
		return true;
	size_t cap = s->cap ? s->cap : 64;
	while (cap < s->len + extra + 1)
		cap *= 2;
	char *p = realloc(s->p, cap);
	if (!p) {
		s->failed = true;
		return false;
	}
	s->p = p;
	s->cap = cap;
	return true;
}

void pt_sbuf_addn(struct pt_sbuf *s, const char *str, size_t n)
{
	if (!sbuf_reserve(s, n))
		return;
	memcpy(s->p + s->len, str, n);
	s->len += n;
	s->p[s->len] = '\0';
}

void pt_sbuf_add(struct pt_sbuf *s, const char *str)
{
	pt_sbuf_addn(s, str, strlen(str));
}

void pt_sbuf_addf(struct pt_sbuf *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		s->failed = true;
		return;
	}
	if (!sbuf_reserve(s, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(s->p + s->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

void pt_sbuf_pad(struct pt_sbuf *s, size_t width)
{
	if (s->len >= width || !sbuf_reserve(s, width - s->len))
		return;
	memset(s->p + s->len, ' ', width - s->len);
	s->len = width;
	s->p[s->len] = '\0';
}

void pt_sbuf_rstrip(struct pt_sbuf *s)
{
	while (s->len > 0 && s->p[s->len - 1] == ' ')
		s->len--;
	if (s->p)
		s->p[s->len] = '\0';
}

char *pt_sbuf_take(struct pt_sbuf *s)
{
	if (s->failed)
		return NULL;
	if (!s->p && !sbuf_reserve(s, 0))
		return NULL;
	char *p = s->p;
	pt_sbuf_init(s);
	return p;
}

/* ---- shares ----------------------------------------------------------- */

void pt_render_share(char *buf, size_t len, const struct pt_metric_value *v)
{
	if (!v || isnan(v->f))
		snprintf(buf, len, "%s", PT_RENDER_DASH);
	else
		snprintf(buf, len, "%6.2f", v->f);
}

/* ---- shortest round-trip digits ---------------------------------------- */

/* m (p+1 digits) x 10^(e-p) reads back as v? */
static bool digits_roundtrip(uint64_t m, int e, int p, double v)
{
	char s[48];
	snprintf(s, sizeof s, "%" PRIu64 "e%d", m, e - p);
	return strtod(s, NULL) == v;
}

void pt_render_shortest(double v, char digits[24], int *exp10)
{
	for (int p = 0; p <= 16; p++) {
		char s[48];
		snprintf(s, sizeof s, "%.*e", p, v);
		/* s = d[.ddd]e[+-]XX */
		char *e = strchr(s, 'e');
		int ex = atoi(e + 1);
		uint64_t m = 0;
		for (char *c = s; c < e; c++)
			if (*c >= '0' && *c <= '9')
				m = m * 10 + (uint64_t)(*c - '0');
		bool ok = strtod(s, NULL) == v;
		/* The nearest p+1 digit string can miss the round-trip interval
		 * where it is lopsided (at a power of two) while its neighbour
		 * on the wide side is inside: that one is then the shortest. */
		if (!ok && p > 0) {
			uint64_t lim = 1;
			for (int i = 0; i < p; i++)
				lim *= 10;
			if (m + 1 < lim * 10 && digits_roundtrip(m + 1, ex, p, v)) {
				m++;
				ok = true;
			} else if (m - 1 >= lim && digits_roundtrip(m - 1, ex, p, v)) {
				m--;
				ok = true;
			}
		}
		if (ok || p == 16) {
			char tmp[24];
			snprintf(tmp, sizeof tmp, "%" PRIu64, m);
			/* drop trailing zeros (keep one digit) */
			size_t n = strlen(tmp);
			while (n > 1 && tmp[n - 1] == '0')
				n--;
			tmp[n] = '\0';
			memcpy(digits, tmp, n + 1);
			*exp10 = ex;
			return;
		}
	}
}

static void put(char *buf, size_t len, size_t *o, char c)
{
	if (*o + 1 < len)
		buf[*o] = c;
	(*o)++;
}

int pt_render_plain_decimal(char *buf, size_t len, const char *digits, int exp10)
{
	size_t n = strlen(digits), o = 0;

	if (len == 0)
		return -ERANGE;
	/* the integer part: the digits before the point, zeros past them */
	if (exp10 < 0)
		put(buf, len, &o, '0');
	for (int i = 0; i <= exp10; i++)
		put(buf, len, &o, (size_t)i < n ? digits[i] : '0');
	put(buf, len, &o, '.');
	/* the fraction: the digits after the point, never empty */
	for (int i = exp10 + 1; i < 0; i++)
		put(buf, len, &o, '0');
	for (size_t i = exp10 < 0 ? 0 : (size_t)exp10 + 1; i < n; i++)
		put(buf, len, &o, digits[i]);
	if (exp10 >= 0 && (size_t)exp10 + 1 >= n)
		put(buf, len, &o, '0');
	buf[o < len ? o : len - 1] = '\0';
	return o < len ? 0 : -ERANGE;
}

void pt_render_float_repr(double v, char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	if (isnan(v)) {
		snprintf(buf, len, "nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v < 0 ? "-inf" : "inf");
		return;
	}
	const char *sign = signbit(v) ? "-" : "";
	if (v == 0.0) {
		snprintf(buf, len, "%s0.0", sign);
		return;
	}
	char d[24];
	int e;
	pt_render_shortest(fabs(v), d, &e);
	int n = (int)strlen(d);
	char out[400];
	if (e >= -4 && e < 16) {
		snprintf(out, sizeof out, "%s", sign);
		pt_render_plain_decimal(out + strlen(out), sizeof out - strlen(out), d, e);
	} else {
		if (n == 1)
			snprintf(out, sizeof out, "%s%se%c%02d", sign, d, e < 0 ? '-' : '+', abs(e));
		else
			snprintf(out, sizeof out, "%s%c.%se%c%02d", sign, d[0], d + 1, e < 0 ? '-' : '+',
				 abs(e));
	}
	snprintf(buf, len, "%s", out);
}

/* ---- tables ----------------------------------------------------------- */

void pt_table_init(struct pt_table *t, unsigned ncols, const char *const *headers)
{
	t->ncols = ncols;
	t->nrows = t->cap_rows = 0;
	t->headers = headers;
	t->cells = NULL;
	t->failed = false;
}

void pt_table_free(struct pt_table *t)
{
	if (t->cells)
		for (size_t i = 0; i < (size_t)t->nrows * t->ncols; i++)
			free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap_rows = 0;
}

static char *strip_dup(const char *s)
{
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

void pt_table_add_row(struct pt_table *t, const char *const *cells)
{
	if (t->failed)
		return;
	if (t->nrows == t->cap_rows) {
		unsigned cap = t->cap_rows ? t->cap_rows * 2 : 8;
		char **c = realloc(t->cells, (size_t)cap * t->ncols * sizeof *c);
		if (!c) {
			t->failed = true;
			return;
		}
		t->cells = c;
		t->cap_rows = cap;
	}
	char **row = t->cells + (size_t)t->nrows * t->ncols;
	for (unsigned c = 0; c < t->ncols; c++) {
		row[c] = strip_dup(cells[c] ? cells[c] : "");
		if (!row[c]) {
			for (unsigned k = 0; k < c; k++)
				free(row[k]);
			t->failed = true;
			return;
		}
	}
	t->nrows++;
}

int pt_table_write(FILE *out, const struct pt_table *t)
{
	if (t->failed)
		return -ENOMEM;
	size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
	if (!w)
		return -ENOMEM;
	for (unsigned c = 0; c < t->ncols; c++) {
		/* tabulate adds a padding of 2 to the header width */
		w[c] = t->headers ? strlen(t->headers[c]) + 2 : 0;
		for (unsigned r = 0; r < t->nrows; r++) {
			size_t n = strlen(t->cells[(size_t)r * t->ncols + c]);
			if (n > w[c])
				w[c] = n;
		}
	}
	struct pt_sbuf line;
	pt_sbuf_init(&line);
	if (t->headers) {
		for (unsigned c = 0; c < t->ncols; c++) {
			if (c)
				pt_sbuf_add(&line, "  ");
			size_t start = line.len;
			pt_sbuf_add(&line, t->headers[c]);
			pt_sbuf_pad(&line, start + w[c]);
		}
		pt_sbuf_rstrip(&line);
		pt_sbuf_add(&line, "\n");
		for (unsigned c = 0; c < t->ncols; c++) {
			if (c)
				pt_sbuf_add(&line, "  ");
			for (size_t i = 0; i < w[c]; i++)
				pt_sbuf_add(&line, "-");
		}
		pt_sbuf_rstrip(&line);
		pt_sbuf_add(&line, "\n");
	}
	for (unsigned r = 0; r < t->nrows; r++) {
		for (unsigned c = 0; c < t->ncols; c++) {
			if (c)
				pt_sbuf_add(&line, "  ");
			size_t start = line.len;
			pt_sbuf_add(&line, t->cells[(size_t)r * t->ncols + c]);
			pt_sbuf_pad(&line, start + w[c]);
		}
		pt_sbuf_rstrip(&line);
		pt_sbuf_add(&line, "\n");
	}
	free(w);
	if (line.failed) {
		pt_sbuf_free(&line);
		return -ENOMEM;
	}
	if (line.len)
		fwrite(line.p, 1, line.len, out);
	pt_sbuf_free(&line);
	return pt_render_stream_status(out);
}

/* ---- checks ----------------------------------------------------------- */

int pt_render_stream_status(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

static bool idx_ok(const struct pt_reading *r, unsigned i)
{
	return i < r->entries;
}

int pt_render_check(const struct pt_layout *l, const struct pt_reading *r)
{
	if (!l || !r)
		return -EINVAL;
	if (l->endpoints > PT_MAX_ENDPOINTS)
		return -EINVAL;
	if (r->entries && !r->cnt)
		return -EINVAL;
	if (l->buses != 2 + 2 * l->dma_ports)
		return -EINVAL;
	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		if (!idx_ok(r, pt_idx_pcie_cycles(l, ep)) || !idx_ok(r, pt_idx_dma_cycles(l, ep)))
			return -EINVAL;
		for (unsigned b = 0; b < l->buses; b++) {
			unsigned kind = pt_layout_bus_kind(l, b);
			unsigned probe = kind <= PT_BUS_RC ? l->pcie_regions : l->dma_regions;
			unsigned real = pt_layout_bus_real_regions(l, b);
			if (real > probe)
				return -EINVAL;
			if (!idx_ok(r, pt_idx_bus(l, ep, b, PT_F_ITEMS)) ||
			    !idx_ok(r, pt_idx_bus(l, ep, b, PT_F_WORDS)))
				return -EINVAL;
			if (real && !idx_ok(r, pt_idx_bus(l, ep, b, PT_F_REGION0 + real - 1)))
				return -EINVAL;
		}
		if (l->driven_brakes && !idx_ok(r, pt_idx_brake(l, ep, l->driven_brakes - 1)))
			return -EINVAL;
		for (unsigned h = 0; h < l->pcie_hists; h++)
			for (unsigned b = 0; b < l->hist_bands; b++)
				if (!idx_ok(r, pt_idx_hist(l, ep, h, b)))
					return -EINVAL;
	}
	return 0;
}
