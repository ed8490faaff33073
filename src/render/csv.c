/*
 * pcie-telemetry: a series as CSV (docs/series.md): one row per interval,
 * endpoint and quantity, in the long form that pandas.read_csv reads
 * without options and pivots into a wide table.  RFC 4180: every line has
 * the same eight fields, a field is quoted when it holds a comma or a
 * quote; a control character is written as \xNN, so no field breaks a
 * line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_priv.h"

static const char csv_header[] = "time,interval_s,device,endpoint,kind,name,value,unit\n";

/* The per-endpoint registers of a series, by the names metric
 * expressions know them by (docs/metrics.md, layout values). */
static const struct csv_reg {
	const char *name, *unit;
	size_t off;
	bool flag;
} csv_regs[] = {
	{ "link_up", "bool", offsetof(struct pt_link, link_up), true },
	{ "mps", "B", offsetof(struct pt_link, mps), false },
	{ "mrrs", "B", offsetof(struct pt_link, mrrs), false },
	{ "ext_tag", "bool", offsetof(struct pt_link, ext_tag), true },
	{ "tag_10b", "bool", offsetof(struct pt_link, tag_10b), true },
	{ "rcb", "B", offsetof(struct pt_link, rcb), false },
	{ "tags_free", "tags", offsetof(struct pt_link, tags_free), false },
	{ "tags_free_min", "tags", offsetof(struct pt_link, tags_free_min), false },
	{ "stfifo_free", "words", offsetof(struct pt_link, stfifo_free), false },
	{ "stfifo_free_min", "words", offsetof(struct pt_link, stfifo_free_min), false },
};

/* A field: quoted when it holds a comma or a quote (quotes doubled), a
 * control character as \xNN. */
static void csv_field(struct pt_sbuf *b, const char *s)
{
	bool quote = strpbrk(s, ",\"") != NULL;

	if (quote)
		pt_sbuf_add(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			pt_sbuf_addf(b, "\\x%02X", *p);
		else if (*p == '"')
			pt_sbuf_add(b, "\"\"");
		else
			pt_sbuf_addn(b, (const char *)p, 1);
	}
	if (quote)
		pt_sbuf_add(b, "\"");
}

/* The same straight to out; names and units are plain but for a user's
 * unit. */
static void csv_put(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p >= 0x20 && *p != 0x7f && *p != ',' && *p != '"')
		p++;
	if (!*p) {
		fputs(s, out);
		return;
	}
	struct pt_sbuf b;
	pt_sbuf_init(&b);
	csv_field(&b, s);
	if (b.p)
		fputs(b.p, out);
	pt_sbuf_free(&b);
}

/* One row: the point's first three fields (lead), then the rest. */
static void csv_row(FILE *out, const char *lead, int ep, const char *kind, const char *name,
		    const char *value, const char *unit)
{
	fputs(lead, out);
	if (ep >= 0)
		fprintf(out, "%d", ep);
	fputc(',', out);
	fputs(kind, out);
	fputc(',', out);
	csv_put(out, name);
	fputc(',', out);
	fputs(value, out);
	fputc(',', out);
	csv_put(out, unit);
	fputc('\n', out);
}

/* "time,interval_s,device," of a point. */
static void csv_lead(struct pt_sbuf *b, const struct pt_series_point *p)
{
	char num[64];

	pt_render_float_repr(p->time, num, sizeof num);
	pt_sbuf_addf(b, "%s,", num);
	if (p->rep->interval) {
		pt_render_float_repr(p->rep->seconds, num, sizeof num);
		pt_sbuf_add(b, num);
	}
	pt_sbuf_add(b, ",");
	csv_field(b, p->device);
	pt_sbuf_add(b, ",");
}

static void csv_raw(FILE *out, const char *lead, const struct pt_layout *l,
		    const struct pt_reading *r)
{
	char name[PT_COUNTER_NAME_LEN + 32], num[32];

	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		struct pt_link k;

		pt_link_decode(r, ep, &k);
		for (size_t i = 0; i < sizeof csv_regs / sizeof csv_regs[0]; i++) {
			const char *f = (const char *)&k + csv_regs[i].off;
			unsigned v = csv_regs[i].flag ? *(const bool *)(const void *)f
						      : *(const unsigned *)(const void *)f;

			snprintf(name, sizeof name, "ep%u.%s", ep, csv_regs[i].name);
			snprintf(num, sizeof num, "%u", v);
			csv_row(out, lead, (int)ep, "register", name, num, csv_regs[i].unit);
		}
	}
	for (unsigned i = 0; i < pt_counter_count(l); i++) {
		struct pt_counter_info ci;

		pt_counter_decode(l, i, &ci);
		pt_counter_name(l, i, name, sizeof name);
		snprintf(num, sizeof num, "%" PRIu64, pt_render_cnt(r, i));
		csv_row(out, lead, (int)ci.ep, "counter", name, num, pt_counter_unit(l, i));
	}
}

int pt_render_csv_header(FILE *out)
{
	if (!out)
		return -EINVAL;
	fputs(csv_header, out);
	return pt_render_stream_status(out);
}

int pt_render_csv(FILE *out, const struct pt_series_point *p)
{
	struct pt_metric_value *v;
	struct pt_render_locale loc;
	struct pt_sbuf lead;
	char num[400];

	int rc = pt_series_begin(out, p, &v, &loc);
	if (rc < 0)
		return rc;
	pt_sbuf_init(&lead);
	csv_lead(&lead, p);
	for (unsigned i = 0; i < PT_SERIES_FLAGS && !lead.failed; i++)
		csv_row(out, lead.p, -1, "flag", pt_series_flag_names[i],
			pt_series_flag(p, i) ? "1" : "0", "bool");
	if (p->raw && !lead.failed)
		csv_raw(out, lead.p, p->rep->layout, p->rep->reading);
	for (unsigned k = 0; k < p->n && !lead.failed; k++) {
		const struct pt_metric_info *in = pt_metric_info(p->rep->metrics, p->idx[k]);

		pt_series_value(in, &v[p->idx[k]], true, num, sizeof num);
		csv_row(out, lead.p, in->where.ep, "metric", in->name, num, in->unit);
	}
	pt_series_end(v, &loc);
	rc = lead.failed ? -ENOMEM : 0;
	pt_sbuf_free(&lead);
	return rc ? rc : pt_render_stream_status(out);
}
