/*
 * pcie-telemetry: the live view's object: the metric families it shows,
 * the history of the throughput of every bus, and its screen.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_priv.h"

static const char *const fam_names[PT_VF_COUNT] = {
	[PT_VF_WORDS] = "{bus}.words_pct",
	[PT_VF_STALL] = "{bus}.stall_pct",
	[PT_VF_GBPS] = "{bus}.gbps",
	[PT_VF_PCIE_MPPS] = "{pcie_bus}.mpps",
	[PT_VF_DMA_MPPS] = "{dma_bus}.mpps",
	[PT_VF_BRAKE] = "{brake}_pct",
	[PT_VF_NOT_READY] = "{ep}.brake.endpoint_not_ready_pct",
	[PT_VF_BAND] = "{band}_pct",
};

int pt_view_new(const struct pt_metric_set *ms, struct pt_view **out, char *msg, size_t msglen)
{
	struct pt_view *v;

	*out = NULL;
	if (!ms) {
		snprintf(msg, msglen, "the live view needs a metric set");
		return -EINVAL;
	}
	v = calloc(1, sizeof *v);
	if (!v) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	v->ms = ms;
	v->l = pt_metric_layout(ms);
	for (unsigned f = 0; f < PT_VF_COUNT; f++) {
		int i = pt_metric_family_find(ms, fam_names[f]);

		if (i < 0) {
			snprintf(msg, msglen, "the live view needs the built-in metric '%s'",
				 fam_names[f]);
			free(v);
			return -EINVAL;
		}
		v->fam[f] = (unsigned)i;
	}
	v->hist.series = pt_metric_family_info(ms, v->fam[PT_VF_GBPS])->count;
	v->hist.val = calloc((size_t)PT_VIEW_HISTORY * (v->hist.series ? v->hist.series : 1),
			     sizeof *v->hist.val);
	if (!v->hist.val) {
		free(v);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	*out = v;
	return 0;
}

void pt_view_free(struct pt_view *v)
{
	if (!v)
		return;
	free(v->hist.val);
	free(v->scr.cell);
	free(v);
}

/* ---- history ---------------------------------------------------------- */

void pt_view_record(struct pt_view *v, double t0, double t1, const struct pt_metric_value *vals)
{
	struct pt_view_hist *h = &v->hist;
	unsigned first = pt_metric_family_info(v->ms, v->fam[PT_VF_GBPS])->first, slot;

	if (isnan(t1) || (h->n > 0 && !(t1 > h->t1[(h->head + h->n - 1) % PT_VIEW_HISTORY])))
		return;
	if (h->n < PT_VIEW_HISTORY) {
		slot = (h->head + h->n++) % PT_VIEW_HISTORY;
	} else {
		slot = h->head;
		h->head = (h->head + 1) % PT_VIEW_HISTORY;
	}
	h->t0[slot] = t0;
	h->t1[slot] = t1;
	for (unsigned j = 0; j < h->series; j++)
		h->val[(size_t)slot * h->series + j] = vals[first + j].f;
}

unsigned pt_view_history_len(const struct pt_view *v)
{
	return v->hist.n;
}

void pt_view_hist_get(const struct pt_view_hist *h, unsigned k, double *t0, double *t1)
{
	unsigned slot = (h->head + k) % PT_VIEW_HISTORY;

	*t0 = h->t0[slot];
	*t1 = h->t1[slot];
}

double pt_view_hist_val(const struct pt_view_hist *h, unsigned k, unsigned j)
{
	return h->val[(size_t)((h->head + k) % PT_VIEW_HISTORY) * h->series + j];
}

/* ---- the screen ------------------------------------------------------- */

const struct pt_view_screen *pt_view_screen(const struct pt_view *v)
{
	return &v->scr;
}

/* The screen at rows x cols, every cell blank. */
int pt_view_screen_size(struct pt_view *v, unsigned rows, unsigned cols)
{
	size_t n = (size_t)rows * cols;

	if (n > v->scr_cap) {
		struct pt_view_cell *c = realloc(v->scr.cell, n * sizeof *c);

		if (!c) {
			v->scr.rows = v->scr.cols = 0;
			return -ENOMEM;
		}
		v->scr.cell = c;
		v->scr_cap = n;
	}
	v->scr.rows = rows;
	v->scr.cols = cols;
	pt_vs_clear(&v->scr);
	return 0;
}

/* One code point as UTF-8 into p (room for 4); its length. */
static size_t utf8(uint32_t ch, char *p)
{
	if (ch > 0xFFFF)
		ch = '?'; /* the view draws nothing beyond the BMP */
	if (ch < 0x80) {
		p[0] = (char)ch;
		return 1;
	}
	if (ch < 0x800) {
		p[0] = (char)(0xC0 | ch >> 6);
		p[1] = (char)(0x80 | (ch & 0x3F));
		return 2;
	}
	p[0] = (char)(0xE0 | ch >> 12);
	p[1] = (char)(0x80 | (ch >> 6 & 0x3F));
	p[2] = (char)(0x80 | (ch & 0x3F));
	return 3;
}

int pt_view_screen_row(const struct pt_view_screen *s, unsigned r, char *buf, size_t len)
{
	size_t n = 0, keep = 0;

	if (len == 0)
		return -ERANGE;
	buf[0] = '\0';
	if (r >= s->rows)
		return 0;
	for (unsigned c = 0; c < s->cols; c++) {
		char u[4];
		size_t k = utf8(s->cell[(size_t)r * s->cols + c].ch, u);

		if (n + k >= len) {
			buf[n] = '\0';
			return -ERANGE;
		}
		memcpy(buf + n, u, k);
		n += k;
		if (u[0] != ' ')
			keep = n;
	}
	buf[keep] = '\0';
	return 0;
}
