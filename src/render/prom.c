/*
 * pcie-telemetry: the Prometheus renderer (include/pcie_telemetry/render_prom.h).
 *
 * One table of metric families (name, type, unit, help, where the
 * samples come from) decides what a scrape carries and in which order;
 * docs/exporter.md describes the same table.  The counters' series and
 * their labels are planned once per layout: the label values are the
 * parts of the counters' machine names (docs/counters.md), so
 * `ep0.up1.region0_cycles` becomes
 * `bus_region_cycles_total{endpoint="0",bus="up",port="1",region="0"}`.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/render_prom.h"
#include "render/render_priv.h"

enum ftype { T_COUNTER, T_GAUGE, T_INFO };

/* Where a family's samples come from. */
enum fsrc {
	S_BUILD,  /* one sample for the build */
	S_SELF,   /* one per device, always */
	S_READ,   /* one per device that is up (from its last reading) */
	S_SIM,    /* one per simulated device */
	S_EP,     /* one per endpoint of a device that is up */
	S_BUS,    /* one per bus of every endpoint */
	S_SERIES, /* the planned counter series */
};

enum fam {
	F_BUILD, F_UP, F_DEVICE, F_POLLS, F_POLL_ERRORS, F_LATE_POLLS, F_POLL_SECONDS,
	F_POLL_INTERVAL, F_LAST_POLL, F_WRAP, F_LAG, F_RESETS, F_LOST, F_OVERRUN, F_LOST_POLLS,
	F_OVERRUN_POLLS, F_LINK_UP, F_MPS, F_MRRS, F_RCB, F_EXT_TAG, F_TAG_10B, F_TAGS_FREE,
	F_TAGS_LOWEST, F_TAGS_CAP, F_STFIFO_FREE, F_STFIFO_LOWEST, F_STFIFO_CAP, F_BUS_REGIONS,
	F_PCIE_CYCLES, F_DMA_CYCLES, F_WORDS, F_STALL, F_TRANSACTIONS, F_MVB, F_MVB_STALL, F_ITEMS,
	F_BYTES, F_REGION, F_PADDING, F_BRAKE, F_HIST, F_DMA_BRAKE, F_DMA_HIST,
	F_COUNT
};

struct family {
	const char *name; /* after the prefix; counters without `_total` */
	enum ftype type;
	enum fsrc src;
	const char *unit; /* OpenMetrics UNIT (the name ends with it), or NULL */
	const char *help;
};

static const struct family fams[F_COUNT] = {
	[F_BUILD] = { "build_info", T_INFO, S_BUILD, NULL,
		      "The exporter's version and whether it has the libnfb backend (always 1)." },
	[F_UP] = { "up", T_GAUGE, S_SELF, NULL,
		   "1 when the last poll of the device succeeded (an image that ran out of "
		   "snapshots keeps its last one), 0 while it fails and is retried." },
	[F_DEVICE] = { "device_info", T_INFO, S_READ, NULL,
		       "The component: backend kind, firmware version, counter width, endpoints "
		       "and DMA ports (always 1)." },
	[F_POLLS] = { "polls", T_COUNTER, S_SELF, NULL, "Polls of the device that succeeded." },
	[F_POLL_ERRORS] = { "poll_errors", T_COUNTER, S_SELF, NULL,
			    "Polls or opens of the device that failed." },
	[F_LATE_POLLS] = { "late_polls", T_COUNTER, S_SELF, NULL,
			   "Polls that came later than half of the shortest wrap time after "
			   "the previous one: a counter may have lost a wrap there." },
	[F_POLL_SECONDS] = { "poll_duration_seconds", T_GAUGE, S_SELF, "seconds",
			     "How long the last poll (SNAPSHOT and read-out) took." },
	[F_POLL_INTERVAL] = { "poll_interval_seconds", T_GAUGE, S_SELF, "seconds",
			      "The interval the poller keeps now: the configured one, shortened "
			      "to a quarter of the shortest wrap time." },
	[F_LAST_POLL] = { "last_poll_timestamp_seconds", T_GAUGE, S_READ, "seconds",
			  "UNIX time of the last successful poll: every sample of the device "
			  "is from then." },
	[F_WRAP] = { "wrap_seconds", T_GAUGE, S_READ, "seconds",
		     "Shortest time in which a counter of the device wraps at the measured "
		     "clocks (before two polls: at 1 GHz)." },
	[F_LAG] = { "sim_lag_seconds", T_GAUGE, S_SIM, "seconds",
		    "How far the simulated card lags behind the wall clock (0: it keeps up)." },
	[F_RESETS] = { "clears_seen", T_COUNTER, S_SELF, NULL,
		       "Clears of the counters by someone else (nfb-pcie-telemetry -c) seen: "
		       "each shows as a counter reset." },
	[F_LOST] = { "lost_deltas", T_GAUGE, S_READ, NULL,
		     "STATUS LOST DELTAS in the last poll (since the previous one): the firmware "
		     "dropped counter updates, distrust the interval." },
	[F_OVERRUN] = { "readout_overrun", T_GAUGE, S_READ, NULL,
			"STATUS READ-OUT OVERRUN in the last poll (since the previous one)." },
	[F_LOST_POLLS] = { "lost_deltas_polls", T_COUNTER, S_SELF, NULL,
			   "Polls that saw LOST DELTAS set." },
	[F_OVERRUN_POLLS] = { "readout_overrun_polls", T_COUNTER, S_SELF, NULL,
			      "Polls that saw READ-OUT OVERRUN set." },
	[F_LINK_UP] = { "link_up", T_GAUGE, S_EP, NULL, "1 when the PCIe link of the endpoint is up." },
	[F_MPS] = { "link_mps_bytes", T_GAUGE, S_EP, "bytes", "Negotiated Max Payload Size." },
	[F_MRRS] = { "link_mrrs_bytes", T_GAUGE, S_EP, "bytes", "Negotiated Max Read Request Size." },
	[F_RCB] = { "link_rcb_bytes", T_GAUGE, S_EP, "bytes", "Read Completion Boundary." },
	[F_EXT_TAG] = { "link_ext_tag", T_GAUGE, S_EP, NULL, "1 when 8-bit (extended) tags are on." },
	[F_TAG_10B] = { "link_tag_10b", T_GAUGE, S_EP, NULL, "1 when 10-bit tags are on." },
	[F_TAGS_FREE] = { "tags_free", T_GAUGE, S_EP, NULL, "PTC tags free at the last poll." },
	[F_TAGS_LOWEST] = { "tags_free_lowest", T_GAUGE, S_EP, NULL,
			    "Lowest number of PTC tags free since the previous poll." },
	[F_TAGS_CAP] = { "tags_capacity", T_GAUGE, S_EP, NULL,
			 "PTC tags the tag histogram counts against (TAG_CAPACITY)." },
	[F_STFIFO_FREE] = { "stfifo_free_words", T_GAUGE, S_EP, "words",
			    "PTC storage FIFO words free at the last poll." },
	[F_STFIFO_LOWEST] = { "stfifo_free_lowest_words", T_GAUGE, S_EP, "words",
			      "Lowest number of PTC storage FIFO words free since the previous poll." },
	[F_STFIFO_CAP] = { "stfifo_capacity_words", T_GAUGE, S_EP, "words",
			   "Storage FIFO words the histogram counts against (STFIFO_CAPACITY)." },
	[F_BUS_REGIONS] = { "bus_regions", T_GAUGE, S_BUS, NULL,
			    "Real MFB regions of the bus (region cycles / (cycles x regions) is "
			    "the used share)." },
	[F_PCIE_CYCLES] = { "pcie_cycles", T_COUNTER, S_SERIES, NULL,
			    "Elapsed PCIe clock cycles (the clock of RQ, RC, BRAKE reasons and "
			    "histograms)." },
	[F_DMA_CYCLES] = { "dma_cycles", T_COUNTER, S_SERIES, NULL,
			   "Elapsed DMA clock cycles (the clock of UP and DOWN)." },
	[F_WORDS] = { "bus_words", T_COUNTER, S_SERIES, NULL,
		      "Cycles of the bus clock in which an MFB word moved (SRC_RDY and DST_RDY)." },
	[F_STALL] = { "bus_stall_cycles", T_COUNTER, S_SERIES, NULL,
		      "Cycles in which the MFB source had a word and the consumer refused it." },
	[F_TRANSACTIONS] = { "bus_transactions", T_COUNTER, S_SERIES, NULL,
			     "MFB frames started (SOF)." },
	[F_MVB] = { "bus_mvb_items", T_COUNTER, S_SERIES, NULL,
		    "MVB items (headers, i.e. requests) transferred on UP and DOWN." },
	[F_MVB_STALL] = { "bus_mvb_stall_cycles", T_COUNTER, S_SERIES, NULL,
			  "Cycles in which the MVB source had an item and the consumer refused it." },
	[F_ITEMS] = { "bus_items", T_COUNTER, S_SERIES, NULL, "MFB items transferred." },
	[F_BYTES] = { "bus_bytes", T_COUNTER, S_SERIES, "bytes",
		      "Bytes transferred: MFB items x MFB_ITEM_BYTES (RQ includes TLP headers)." },
	[F_REGION] = { "bus_region_cycles", T_COUNTER, S_SERIES, NULL,
		       "Cycles in which the MFB region carried a frame." },
	[F_PADDING] = { "bus_padding_region_cycles", T_COUNTER, S_SERIES, NULL,
			"Padding regions beyond the bus's real ones, counted as the firmware "
			"counts them." },
	[F_BRAKE] = { "brake_cycles", T_COUNTER, S_SERIES, NULL,
		      "PCIe clock cycles in which the PTC BRAKE reason was active." },
	[F_HIST] = { "hist_band_cycles", T_COUNTER, S_SERIES, NULL,
		     "PCIe clock cycles with the free amount of the resource in the band." },
	[F_DMA_BRAKE] = { "dma_brake_cycles", T_COUNTER, S_SERIES, NULL,
			  "DMA clock cycles with the DMA-probe BRAKE input active." },
	[F_DMA_HIST] = { "dma_hist_band_cycles", T_COUNTER, S_SERIES, NULL,
			 "DMA clock cycles in the band of the DMA-clock histogram." },
};

static const struct family scrape_fam = {
	"scrape_duration_seconds", T_GAUGE, S_BUILD, "seconds",
	"How long this scrape took to render (the exporter never reads a card during one)."
};

/* ---- the plan ------------------------------------------------------- */

struct series {
	unsigned idx;   /* counter index */
	unsigned label; /* offset of its labels in text */
};

struct pt_prom_plan {
	unsigned item_bytes;
	unsigned first[F_COUNT + 1]; /* S_SERIES family f: s[first[f] .. first[f + 1]) */
	struct series *s;
	struct pt_sbuf text; /* the label texts, each NUL-terminated */
};

/* The family of counter ci, or F_COUNT for none (MVB of RQ and RC, which
 * the firmware ties to 0). */
static enum fam classify(const struct pt_layout *l, const struct pt_counter_info *ci)
{
	static const enum fam fields[PT_F_REGION0] = {
		[PT_F_WORDS] = F_WORDS, [PT_F_BACKPRESSURE] = F_STALL,
		[PT_F_TRANSACTIONS] = F_TRANSACTIONS, [PT_F_MVB] = F_MVB,
		[PT_F_MVB_BACKPRESSURE] = F_MVB_STALL, [PT_F_ITEMS] = F_ITEMS,
	};
	enum pt_bus_kind k;

	switch (ci->kind) {
	case PT_COUNTER_PCIE_CYCLES:
		return F_PCIE_CYCLES;
	case PT_COUNTER_DMA_CYCLES:
		return F_DMA_CYCLES;
	case PT_COUNTER_BRAKE:
		return F_BRAKE;
	case PT_COUNTER_HIST:
		return F_HIST;
	case PT_COUNTER_DMA_BRAKE:
		return F_DMA_BRAKE;
	case PT_COUNTER_DMA_HIST:
		return F_DMA_HIST;
	case PT_COUNTER_BUS:
		break;
	}
	if (ci->field >= PT_F_REGION0)
		return ci->padded ? F_PADDING : F_REGION;
	k = pt_layout_bus_kind(l, ci->bus);
	if ((ci->field == PT_F_MVB || ci->field == PT_F_MVB_BACKPRESSURE) &&
	    (k == PT_BUS_RQ || k == PT_BUS_RC))
		return F_COUNT;
	return fields[ci->field];
}

/* Cut "_cycles" off the end of a name part. */
static void strip_cycles(char *s)
{
	size_t n = strlen(s), k = strlen("_cycles");

	if (n > k && strcmp(s + n - k, "_cycles") == 0)
		s[n - k] = '\0';
}

/* `bus="up",port="1"` from the name part "up1" ("rq": `bus="rq"`). */
static void bus_labels(struct pt_sbuf *t, const char *part)
{
	size_t letters = strcspn(part, "0123456789");

	pt_sbuf_addf(t, ",bus=\"%.*s\"", (int)letters, part);
	if (part[letters])
		pt_sbuf_addf(t, ",port=\"%s\"", part + letters);
}

/* The labels of counter idx, from the parts of its machine name:
 * epE.B.f, epE.brake.R_cycles, epE.hist.H.N_cycles, ... */
static int add_labels(struct pt_sbuf *t, const struct pt_layout *l, unsigned idx,
		      const struct pt_counter_info *ci)
{
	char name[PT_COUNTER_NAME_LEN], *p[4] = { name, NULL, NULL, NULL };
	unsigned n = 1;

	if (pt_counter_name(l, idx, name, sizeof name) < 0)
		return -EINVAL;
	for (char *q = name; n < 4 && (q = strchr(q, '.')) != NULL; n++) {
		*q++ = '\0';
		p[n] = q;
	}
	pt_sbuf_addf(t, "endpoint=\"%u\"", ci->ep);
	if (ci->kind == PT_COUNTER_BUS) {
		bus_labels(t, p[1]);
		if (ci->field >= PT_F_REGION0)
			pt_sbuf_addf(t, ",region=\"%u\"", ci->number);
	} else if (ci->kind == PT_COUNTER_BRAKE || ci->kind == PT_COUNTER_DMA_BRAKE) {
		strip_cycles(p[2]);
		pt_sbuf_addf(t, ",reason=\"%s\"", p[2]);
		if (ci->kind == PT_COUNTER_BRAKE)
			pt_sbuf_addf(t, ",stream=\"%s\"",
				     pt_brake_stream(ci->number) == PT_STREAM_UP ? "up" : "down");
	} else if (ci->kind == PT_COUNTER_HIST || ci->kind == PT_COUNTER_DMA_HIST) {
		strip_cycles(p[3]);
		pt_sbuf_addf(t, ",resource=\"%s\",band=\"%s\"", p[2], p[3]);
	}
	pt_sbuf_addn(t, "", 1); /* the NUL that ends it */
	return 0;
}

/* Append counter idx to family f (counting pass when s is NULL). */
static int plan_add(struct pt_prom_plan *p, unsigned *fill, enum fam f, unsigned idx,
		    const struct pt_layout *l, const struct pt_counter_info *ci)
{
	if (!p->s) {
		p->first[f + 1]++;
		return 0;
	}
	p->s[fill[f]].idx = idx;
	p->s[fill[f]].label = (unsigned)p->text.len;
	fill[f]++;
	return add_labels(&p->text, l, idx, ci);
}

/* One pass over the counters: counts (p->s NULL) or fills. */
static int plan_pass(struct pt_prom_plan *p, const struct pt_layout *l, unsigned *fill)
{
	unsigned n = pt_counter_count(l);

	for (unsigned i = 0; i < n; i++) {
		struct pt_counter_info ci;
		enum fam f;
		int rc = 0;

		if (pt_counter_decode(l, i, &ci) < 0)
			continue;
		f = classify(l, &ci);
		if (f != F_COUNT)
			rc = plan_add(p, fill, f, i, l, &ci);
		if (rc == 0 && f == F_ITEMS)
			rc = plan_add(p, fill, F_BYTES, i, l, &ci);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pt_render_prom_plan_new(const struct pt_layout *l, struct pt_prom_plan **out)
{
	struct pt_prom_plan *p;
	unsigned fill[F_COUNT];
	int rc;

	*out = NULL;
	if (!l || pt_counter_count(l) == 0)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pt_sbuf_init(&p->text);
	p->item_bytes = l->item_bytes;
	plan_pass(p, l, NULL);
	for (unsigned f = 0; f < F_COUNT; f++) {
		p->first[f + 1] += p->first[f];
		fill[f] = p->first[f];
	}
	p->s = calloc(p->first[F_COUNT] ? p->first[F_COUNT] : 1, sizeof(*p->s));
	rc = p->s ? plan_pass(p, l, fill) : -ENOMEM;
	if (rc == 0 && p->text.failed)
		rc = -ENOMEM;
	if (rc < 0) {
		pt_render_prom_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void pt_render_prom_plan_free(struct pt_prom_plan *p)
{
	if (!p)
		return;
	free(p->s);
	pt_sbuf_free(&p->text);
	free(p);
}

/* ---- writing -------------------------------------------------------- */

const char *pt_render_prom_content_type(enum pt_prom_format f)
{
	return f == PT_PROM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
					: "text/plain; version=0.0.4; charset=utf-8";
}

/* The length of the valid UTF-8 sequence at s (0: none). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;

	if (s[0] > 0xF4)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

/* A label value, escaped as both formats want (\\, \", \n); other
 * control characters and bytes that are not UTF-8 become '?'. */
static void put_label_value(FILE *out, const char *v)
{
	for (const unsigned char *s = (const unsigned char *)v; *s; s++) {
		size_t n;

		if (*s == '\\' || *s == '"') {
			fputc('\\', out);
			fputc(*s, out);
		} else if (*s == '\n') {
			fputs("\\n", out);
		} else if (*s < 0x20 || *s == 0x7F) {
			fputc('?', out);
		} else if (*s < 0x80) {
			fputc(*s, out);
		} else if ((n = utf8_len(s)) > 0) {
			fwrite(s, 1, n, out);
			s += n - 1;
		} else {
			fputc('?', out);
		}
	}
}

/* A gauge value: integers without a point, others in their shortest
 * round-trip form, +Inf, -Inf and NaN as both formats spell them. */
static void put_double(FILE *out, double v)
{
	char buf[64];

	if (isnan(v))
		fputs("NaN", out);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", out);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(out, "%.0f", v);
	else {
		pt_render_float_repr(v, buf, sizeof buf);
		fputs(buf, out);
	}
}

/* The family name of the HELP, TYPE and UNIT lines. */
static void put_family_name(FILE *out, const struct family *f, enum pt_prom_format fmt)
{
	size_t n = strlen(f->name);

	fputs(PT_PROM_PREFIX, out);
	if (f->type == T_INFO && fmt == PT_PROM_OPENMETRICS)
		fwrite(f->name, 1, n - strlen("_info"), out);
	else
		fputs(f->name, out);
	if (f->type == T_COUNTER && fmt == PT_PROM_TEXT)
		fputs("_total", out);
}

static void put_header(FILE *out, const struct family *f, enum pt_prom_format fmt)
{
	static const char *const types[][2] = {
		[T_COUNTER] = { "counter", "counter" },
		[T_GAUGE] = { "gauge", "gauge" },
		[T_INFO] = { "gauge", "info" },
	};

	fputs("# HELP ", out);
	put_family_name(out, f, fmt);
	fprintf(out, " %s\n# TYPE ", f->help);
	put_family_name(out, f, fmt);
	fprintf(out, " %s\n", types[f->type][fmt == PT_PROM_OPENMETRICS]);
	if (f->unit && fmt == PT_PROM_OPENMETRICS) {
		fputs("# UNIT ", out);
		put_family_name(out, f, fmt);
		fprintf(out, " %s\n", f->unit);
	}
}

/* name{device="D",LABELS} and the space before the value; dev or labels
 * may be NULL. */
static void put_sample_start(FILE *out, const struct family *f, const char *dev,
			     const char *labels)
{
	fputs(PT_PROM_PREFIX, out);
	fputs(f->name, out);
	if (f->type == T_COUNTER)
		fputs("_total", out);
	if (dev || labels) {
		fputc('{', out);
		if (dev) {
			fputs("device=\"", out);
			put_label_value(out, dev);
			fputc('"', out);
		}
		if (labels && *labels) {
			if (dev)
				fputc(',', out);
			fputs(labels, out);
		}
		fputc('}', out);
	}
	fputc(' ', out);
}

/* ---- the samples of one family -------------------------------------- */

/* A device's data is shown while it is up and has been read. */
static bool shown(const struct pt_prom_device *d)
{
	return d->up && d->layout;
}

static void put_uint(FILE *out, unsigned long long v)
{
	fprintf(out, "%llu\n", v);
}

/* S_SELF and S_READ: the poller's figures and the device-wide registers. */
static void self_value(FILE *out, enum fam f, const struct pt_prom_device *d)
{
	const struct pt_prom_stats *s = &d->stats;

	switch (f) {
	case F_UP: put_uint(out, d->up); return;
	case F_POLLS: put_uint(out, s->polls); return;
	case F_POLL_ERRORS: put_uint(out, s->poll_errors); return;
	case F_LATE_POLLS: put_uint(out, s->late_polls); return;
	case F_RESETS: put_uint(out, s->resets); return;
	case F_LOST_POLLS: put_uint(out, s->lost_deltas_polls); return;
	case F_OVERRUN_POLLS: put_uint(out, s->overrun_polls); return;
	case F_POLL_SECONDS: put_double(out, s->poll_seconds); break;
	case F_POLL_INTERVAL: put_double(out, s->poll_interval); break;
	case F_LAST_POLL: put_double(out, s->last_poll_unix); break;
	case F_WRAP: put_double(out, s->wrap_seconds); break;
	case F_LAG: put_double(out, s->lag_seconds); break;
	case F_LOST: put_uint(out, (d->reading->status & PT_STATUS_LOST_DELTAS) != 0); return;
	case F_OVERRUN: put_uint(out, (d->reading->status & PT_STATUS_OVERRUN) != 0); return;
	default: break;
	}
	fputc('\n', out);
}

/* S_EP: one endpoint's registers. */
static unsigned long ep_value(enum fam f, const struct pt_layout *l, const struct pt_link *k)
{
	switch (f) {
	case F_LINK_UP: return k->link_up;
	case F_MPS: return k->mps;
	case F_MRRS: return k->mrrs;
	case F_RCB: return k->rcb;
	case F_EXT_TAG: return k->ext_tag;
	case F_TAG_10B: return k->tag_10b;
	case F_TAGS_FREE: return k->tags_free;
	case F_TAGS_LOWEST: return k->tags_free_min;
	case F_TAGS_CAP: return l->tag_capacity;
	case F_STFIFO_FREE: return k->stfifo_free;
	case F_STFIFO_LOWEST: return k->stfifo_free_min;
	case F_STFIFO_CAP: return l->stfifo_capacity;
	default: return 0;
	}
}

static void device_info(FILE *out, const struct pt_prom_device *d)
{
	const struct pt_layout *l = d->layout;
	char labels[160];

	snprintf(labels, sizeof labels,
		 "kind=\"%s\",version=\"%u.%u\",cnt_width=\"%u\",endpoints=\"%u\",dma_ports=\"%u\"",
		 d->kind ? d->kind : "", l->version_major, l->version_minor, l->cnt_width,
		 l->endpoints, l->dma_ports);
	put_sample_start(out, &fams[F_DEVICE], d->name, labels);
	fputs("1\n", out);
}

static void ep_samples(FILE *out, enum fam f, const struct pt_prom_device *d)
{
	char labels[32];

	for (unsigned ep = 0; ep < d->layout->endpoints; ep++) {
		struct pt_link k;

		pt_link_decode(d->reading, ep, &k);
		snprintf(labels, sizeof labels, "endpoint=\"%u\"", ep);
		put_sample_start(out, &fams[f], d->name, labels);
		put_uint(out, ep_value(f, d->layout, &k));
	}
}

static void bus_samples(FILE *out, const struct pt_prom_device *d)
{
	const struct pt_layout *l = d->layout;
	static const char *const kinds[] = { "rq", "rc", "up", "down" };

	for (unsigned ep = 0; ep < l->endpoints; ep++)
		for (unsigned b = 0; b < l->buses; b++) {
			enum pt_bus_kind k = pt_layout_bus_kind(l, b);
			char labels[64];

			if (k == PT_BUS_RQ || k == PT_BUS_RC)
				snprintf(labels, sizeof labels, "endpoint=\"%u\",bus=\"%s\"", ep,
					 kinds[k]);
			else
				snprintf(labels, sizeof labels,
					 "endpoint=\"%u\",bus=\"%s\",port=\"%u\"", ep, kinds[k],
					 pt_layout_bus_port(l, b));
			put_sample_start(out, &fams[F_BUS_REGIONS], d->name, labels);
			put_uint(out, pt_layout_bus_real_regions(l, b));
		}
}

static void series_samples(FILE *out, enum fam f, const struct pt_prom_device *d)
{
	const struct pt_prom_plan *p = d->plan;

	for (unsigned i = p->first[f]; i < p->first[f + 1]; i++) {
		uint64_t v = d->value[p->s[i].idx];

		put_sample_start(out, &fams[f], d->name, p->text.p + p->s[i].label);
		/* bytes of a 64-bit item count stay exact up to 2^64 */
		put_uint(out, f == F_BYTES ? v * p->item_bytes : v);
	}
}

/* Does any device have a sample of family f? */
static bool has_samples(const struct pt_prom_input *in, enum fam f)
{
	for (unsigned i = 0; i < in->ndevices; i++) {
		const struct pt_prom_device *d = &in->devices[i];

		switch (fams[f].src) {
		case S_BUILD:
		case S_SELF:
			return true;
		case S_SIM:
			if (shown(d) && d->kind && strcmp(d->kind, "sim") == 0)
				return true;
			break;
		case S_SERIES:
			if (shown(d) && d->plan->first[f + 1] > d->plan->first[f])
				return true;
			break;
		default:
			if (shown(d))
				return true;
		}
	}
	return fams[f].src == S_BUILD;
}

static void device_samples(FILE *out, enum fam f, const struct pt_prom_device *d)
{
	enum fsrc src = fams[f].src;

	if (src != S_SELF && !shown(d))
		return;
	switch (src) {
	case S_SIM:
		if (!d->kind || strcmp(d->kind, "sim") != 0)
			return;
		/* fall through */
	case S_SELF:
	case S_READ:
		if (f == F_DEVICE) {
			device_info(out, d);
			return;
		}
		put_sample_start(out, &fams[f], d->name, NULL);
		self_value(out, f, d);
		return;
	case S_EP:
		ep_samples(out, f, d);
		return;
	case S_BUS:
		bus_samples(out, d);
		return;
	case S_SERIES:
		series_samples(out, f, d);
		return;
	case S_BUILD:
		return;
	}
}

/* The version label: a version string, or "unknown" for anything that
 * would need escaping. */
static const char *version_label(const char *v)
{
	if (!v || !*v || strlen(v) > 64 || v[strspn(v, "0123456789.+~_-abcdefghijklmnopqrstuvwxyz"
						  "ABCDEFGHIJKLMNOPQRSTUVWXYZ")])
		return "unknown";
	return v;
}

static void build_info(FILE *out, const struct pt_prom_input *in)
{
	char labels[128];

	snprintf(labels, sizeof labels, "version=\"%s\",libnfb=\"%s\"", version_label(in->version),
		 in->nfb ? "true" : "false");
	put_sample_start(out, &fams[F_BUILD], NULL, labels);
	fputs("1\n", out);
}

static bool device_ok(const struct pt_prom_device *d)
{
	bool any = d->layout || d->plan || d->value || d->reading;
	bool all = d->layout && d->plan && d->value && d->reading;

	return d->name && (all || !any);
}

int pt_render_prom(FILE *out, const struct pt_prom_input *in)
{
	if (!out || !in || (in->ndevices && !in->devices))
		return -EINVAL;
	for (unsigned i = 0; i < in->ndevices; i++)
		if (!device_ok(&in->devices[i]))
			return -EINVAL;
	for (unsigned f = 0; f < F_COUNT; f++) {
		if (!has_samples(in, f))
			continue;
		put_header(out, &fams[f], in->format);
		if (f == F_BUILD)
			build_info(out, in);
		for (unsigned i = 0; i < in->ndevices; i++)
			device_samples(out, f, &in->devices[i]);
	}
	return pt_render_stream_status(out);
}

int pt_render_prom_end(FILE *out, enum pt_prom_format f, double scrape_seconds)
{
	put_header(out, &scrape_fam, f);
	put_sample_start(out, &scrape_fam, NULL, NULL);
	put_double(out, scrape_seconds);
	fputc('\n', out);
	if (f == PT_PROM_OPENMETRICS)
		fputs("# EOF\n", out);
	return pt_render_stream_status(out);
}

int pt_render_prom_metric_name(unsigned i, char *buf, size_t len)
{
	const struct family *f = i < F_COUNT ? &fams[i] : i == F_COUNT ? &scrape_fam : NULL;
	int n;

	if (!f)
		return -ENOENT;
	n = snprintf(buf, len, PT_PROM_PREFIX "%s%s", f->name, f->type == T_COUNTER ? "_total" : "");
	return n < 0 || (size_t)n >= len ? -ERANGE : 0;
}
