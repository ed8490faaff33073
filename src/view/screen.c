/*
 * pcie-telemetry: the cells of a screen of the live view.  Every helper
 * cuts what it writes at the screen's edge, so the composition never has
 * to check a size before it writes.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "view/view_priv.h"

void pt_vs_clear(struct pt_view_screen *s)
{
	for (size_t i = 0; i < (size_t)s->rows * s->cols; i++)
		s->cell[i] = (struct pt_view_cell){ ' ', PT_VIEW_NORMAL };
}

void pt_vs_glyph(struct pt_view_screen *s, unsigned r, unsigned c, uint32_t ch, int role)
{
	if (r < s->rows && c < s->cols)
		s->cell[(size_t)r * s->cols + c] = (struct pt_view_cell){ ch, (uint8_t)role };
}

void pt_vs_role(struct pt_view_screen *s, unsigned r, unsigned c, unsigned end, int role)
{
	if (r >= s->rows)
		return;
	for (; c < end && c < s->cols; c++)
		s->cell[(size_t)r * s->cols + c].role = (uint8_t)role;
}

unsigned pt_vs_put(struct pt_view_screen *s, unsigned r, unsigned c, unsigned end, int role,
		   const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p && c < end; p++, c++)
		pt_vs_glyph(s, r, c, *p >= 0x20 && *p < 0x7F ? *p : '?', role);
	return c;
}

unsigned pt_vs_putf(struct pt_view_screen *s, unsigned r, unsigned c, unsigned end, int role,
		    const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return pt_vs_put(s, r, c, end, role, buf);
}

void pt_vs_rput(struct pt_view_screen *s, unsigned r, unsigned c, unsigned end, int role,
		const char *text)
{
	size_t n = strlen(text);

	if (end <= c)
		return;
	/* too long: its end is what matters less, so keep its start */
	pt_vs_put(s, r, n >= end - c ? c : end - (unsigned)n, end, role, text);
}

/* Blocks of 1/8 .. 7/8 of a cell's width, filled from the left. */
static const uint32_t eighths[8] = { ' ', 0x258F, 0x258E, 0x258D, 0x258C, 0x258B, 0x258A, 0x2589 };

void pt_vs_bar(struct pt_view_screen *s, unsigned r, unsigned c, unsigned width, double pct,
	       int role, bool unicode)
{
	unsigned inner, full, part = 0;
	double x;

	if (width < 2)
		return;
	inner = width - 2;
	x = isnan(pct) ? 0.0 : fmin(fmax(pct, 0.0), 100.0) / 100.0 * inner;
	if (unicode) {
		full = (unsigned)x;
		part = (unsigned)lround((x - full) * 8.0);
		if (part == 8)
			full++, part = 0;
	} else {
		full = (unsigned)lround(x);
	}
	/* a share that is not 0 shows, however narrow the bar */
	if (full == 0 && part == 0 && x > 0.0 && inner > 0) {
		if (unicode)
			part = 1;
		else
			full = 1;
	}
	pt_vs_glyph(s, r, c, '[', PT_VIEW_NORMAL);
	for (unsigned i = 0; i < inner; i++) {
		uint32_t ch = ' ';

		if (i < full)
			ch = unicode ? 0x2588 : '|';
		else if (i == full && part)
			ch = eighths[part];
		pt_vs_glyph(s, r, c + 1 + i, ch, role);
	}
	pt_vs_glyph(s, r, c + 1 + inner, ']', PT_VIEW_NORMAL);
}

uint32_t pt_vs_spark_glyph(unsigned level, bool unicode)
{
	static const char ascii[8] = { '_', '.', '-', '~', '=', '+', '*', '#' };

	if (level > 7)
		level = 7;
	return unicode ? 0x2581 + level : (uint32_t)ascii[level];
}
