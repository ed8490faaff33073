/*
 * pcie-telemetry: the machine name, description and unit of every counter
 * of a layout (docs/counters.md; the scheme of NAMES.md).
 *
 * Names are built from the layout and the small tables of regs.h and of
 * the bus fields below, never stored: index -> what it is -> name.  The
 * way back decodes the name into what it is, computes the index with the
 * pt_idx_* formulas and accepts it only if that index names itself
 * exactly so, which makes the two directions agree by construction (no
 * aliases, no leading zeros) at O(length of the name).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pcie_telemetry/layout.h"

static const struct pt_bus_field_info bus_fields[PT_F_REGION0] = {
	[PT_F_WORDS] = { "words", "words", PT_UNIT_WORDS,
			 "cycles in which an MFB word moved (SRC_RDY and DST_RDY)" },
	[PT_F_BACKPRESSURE] = { "stall_cycles", "backpressure", PT_UNIT_CYCLES,
				"cycles in which the MFB source had a word and the consumer "
				"refused it" },
	[PT_F_TRANSACTIONS] = { "transactions", "transactions", PT_UNIT_TRANSACTIONS,
				"MFB frames started (SOF)" },
	[PT_F_MVB] = { "mvb_items", "mvb", PT_UNIT_ITEMS, "MVB items (headers) transferred" },
	[PT_F_MVB_BACKPRESSURE] = { "mvb_stall_cycles", "mvb_backpressure", PT_UNIT_CYCLES,
				    "cycles in which the MVB source had an item and the consumer "
				    "refused it" },
	[PT_F_ITEMS] = { "items", "items", PT_UNIT_ITEMS, "MFB items transferred" },
};

static const char *const unit_names[] = {
	[PT_UNIT_CYCLES] = "cycles",
	[PT_UNIT_WORDS] = "words",
	[PT_UNIT_ITEMS] = "items",
	[PT_UNIT_TRANSACTIONS] = "transactions",
};

const struct pt_bus_field_info *pt_bus_field_info(unsigned f)
{
	return f < PT_F_REGION0 ? &bus_fields[f] : NULL;
}

const char *pt_counter_unit_name(enum pt_counter_unit u)
{
	return (unsigned)u < sizeof unit_names / sizeof unit_names[0] ? unit_names[u] : NULL;
}

unsigned pt_counter_count(const struct pt_layout *l)
{
	return l->endpoints * l->ep_channels;
}

/* ---- index -> what it is ------------------------------------------- */

/* How the channels of one probe map to counters: the cycle counter, then
 * 6 + regions per bus, then the driven BRAKE channels, then the bands of
 * its histograms (firmware-behavior.md 3.1, 3.2). */
struct probe_map {
	enum pt_counter_kind cycles, brake, hist;
	unsigned first_bus, bus_end; /* its buses are first_bus .. bus_end - 1 */
	unsigned buses, regions, driven, hists;
};

static int decode_probe(const struct pt_layout *l, const struct probe_map *p, unsigned c,
			struct pt_counter_info *ci)
{
	unsigned per_bus = PT_F_REGION0 + p->regions, buses = p->buses * per_bus;

	if (c == 0) {
		ci->kind = p->cycles;
		return 0;
	}
	c -= 1;
	if (c < buses) {
		ci->kind = PT_COUNTER_BUS;
		ci->bus = p->first_bus + c / per_bus;
		ci->field = c % per_bus;
		return ci->bus < p->bus_end ? 0 : -ENOENT;
	}
	c -= buses;
	if (c < p->driven) {
		ci->kind = p->brake;
		ci->number = c;
		return 0;
	}
	c -= p->driven;
	ci->kind = p->hist;
	if (l->hist_bands == 0 || c / l->hist_bands >= p->hists)
		return -ENOENT;
	ci->number = c / l->hist_bands;
	ci->band = c % l->hist_bands;
	return 0;
}

/* Channel c of an endpoint: on the PCIe-clock probe, then the DMA one. */
static int decode_channel(const struct pt_layout *l, unsigned c, struct pt_counter_info *ci)
{
	const struct probe_map pcie = {
		PT_COUNTER_PCIE_CYCLES, PT_COUNTER_BRAKE, PT_COUNTER_HIST, 0, PT_FW_PCIE_BUSES,
		l->pcie_buses, l->pcie_regions, l->driven_brakes, l->pcie_hists,
	};
	const struct probe_map dma = {
		PT_COUNTER_DMA_CYCLES, PT_COUNTER_DMA_BRAKE, PT_COUNTER_DMA_HIST, PT_FW_PCIE_BUSES,
		l->buses, l->dma_buses, l->dma_regions, pt_layout_dma_driven_brakes(l), l->dma_hists,
	};

	if (c < l->pcie_channels)
		return decode_probe(l, &pcie, c, ci);
	if (c - l->pcie_channels < l->dma_channels)
		return decode_probe(l, &dma, c - l->pcie_channels, ci);
	return -ENOENT;
}

static enum pt_counter_unit unit_of(const struct pt_counter_info *ci)
{
	if (ci->kind == PT_COUNTER_BUS && ci->field < PT_F_REGION0)
		return bus_fields[ci->field].unit;
	return PT_UNIT_CYCLES;
}

int pt_counter_decode(const struct pt_layout *l, unsigned idx, struct pt_counter_info *ci)
{
	int rc;

	memset(ci, 0, sizeof(*ci));
	if (idx >= pt_counter_count(l) || l->ep_channels == 0)
		return -ENOENT;
	ci->ep = idx / l->ep_channels;
	rc = decode_channel(l, idx % l->ep_channels, ci);
	if (rc < 0)
		return rc;
	if (ci->kind == PT_COUNTER_BUS && ci->field >= PT_F_REGION0) {
		ci->number = ci->field - PT_F_REGION0;
		ci->padded = ci->number >= pt_layout_bus_real_regions(l, ci->bus);
	}
	ci->unit = unit_of(ci);
	return 0;
}

/* ---- what it is -> name, description ------------------------------- */

/* snprintf that reports truncation as -ERANGE. */
static int put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ERANGE : 0;
}

/* "rq", "rc", "up0", "down0", ... */
static void bus_part(const struct pt_layout *l, unsigned b, char out[16])
{
	static const char *const kinds[] = { "rq", "rc", "up", "down" };
	enum pt_bus_kind k = pt_layout_bus_kind(l, b);

	if (k == PT_BUS_RQ || k == PT_BUS_RC)
		snprintf(out, 16, "%s", kinds[k]);
	else
		snprintf(out, 16, "%s%u", kinds[k], pt_layout_bus_port(l, b));
}

static int name_of(const struct pt_layout *l, const struct pt_counter_info *ci, char *buf,
		   size_t len)
{
	char a[PT_REGS_NAME_LEN], b[PT_REGS_NAME_LEN], bus[16];

	switch (ci->kind) {
	case PT_COUNTER_PCIE_CYCLES:
		return put(buf, len, "ep%u.pcie_cycles", ci->ep);
	case PT_COUNTER_DMA_CYCLES:
		return put(buf, len, "ep%u.dma_cycles", ci->ep);
	case PT_COUNTER_BUS:
		bus_part(l, ci->bus, bus);
		if (ci->field < PT_F_REGION0)
			return put(buf, len, "ep%u.%s.%s", ci->ep, bus, bus_fields[ci->field].name);
		return put(buf, len, "ep%u.%s.region%u_cycles", ci->ep, bus, ci->number);
	case PT_COUNTER_BRAKE:
		return put(buf, len, "ep%u.brake.%s_cycles", ci->ep, pt_brake_name(ci->number, a));
	case PT_COUNTER_HIST:
		return put(buf, len, "ep%u.hist.%s.%s_cycles", ci->ep, pt_hist_name(ci->number, a),
			   pt_band_name(ci->band, b));
	case PT_COUNTER_DMA_BRAKE:
		return put(buf, len, "ep%u.dma_brake.reason%u_cycles", ci->ep, ci->number);
	case PT_COUNTER_DMA_HIST:
		return put(buf, len, "ep%u.dma_hist.resource%u.band%u_cycles", ci->ep, ci->number,
			   ci->band);
	}
	return -ENOENT;
}

/* pt_counter_decode for the text calls: an empty buf without a counter. */
static int decode_for_text(const struct pt_layout *l, unsigned idx, struct pt_counter_info *ci,
			   char *buf, size_t len)
{
	int rc = pt_counter_decode(l, idx, ci);

	if (rc < 0 && len)
		buf[0] = '\0';
	return rc;
}

int pt_counter_name(const struct pt_layout *l, unsigned idx, char *buf, size_t len)
{
	struct pt_counter_info ci;
	int rc = decode_for_text(l, idx, &ci, buf, len);

	return rc < 0 ? rc : name_of(l, &ci, buf, len);
}

static int describe_bus(const struct pt_layout *l, const struct pt_counter_info *ci, char *buf,
			size_t len)
{
	enum pt_bus_kind k = pt_layout_bus_kind(l, ci->bus);
	unsigned real = pt_layout_bus_real_regions(l, ci->bus);
	char bus[64];

	pt_layout_bus_name(l, ci->bus, bus, sizeof bus);
	if (ci->field == PT_F_ITEMS)
		return put(buf, len, "endpoint %u, %s: %s (%u bytes each)", ci->ep, bus,
			   bus_fields[ci->field].what, l->item_bytes);
	if ((ci->field == PT_F_MVB || ci->field == PT_F_MVB_BACKPRESSURE) &&
	    (k == PT_BUS_RQ || k == PT_BUS_RC))
		return put(buf, len, "endpoint %u, %s: %s (0: RQ and RC carry the headers in the "
				     "data, the firmware ties their MVB to 0)",
			   ci->ep, bus, bus_fields[ci->field].what);
	if (ci->field < PT_F_REGION0)
		return put(buf, len, "endpoint %u, %s: %s", ci->ep, bus, bus_fields[ci->field].what);
	if (ci->padded)
		return put(buf, len,
			   "endpoint %u, %s: region %u, padding beyond the bus's %u real region%s "
			   "(counted as the firmware counts it)",
			   ci->ep, bus, ci->number, real, real == 1 ? "" : "s");
	return put(buf, len, "endpoint %u, %s: cycles in which region %u carried a frame", ci->ep,
		   bus, ci->number);
}

static int describe_brake(const struct pt_counter_info *ci, char *buf, size_t len)
{
	const struct pt_brake_info *bi = pt_brake_info(ci->number);

	if (bi)
		return put(buf, len, "endpoint %u: PCIe clock cycles in which %s (%s stream: %s)",
			   ci->ep, bi->what, bi->stream == PT_STREAM_UP ? "UP" : "DOWN", bi->label);
	return put(buf, len,
		   "endpoint %u: PCIe clock cycles with BRAKE reason %u active (UP stream, not "
		   "named by the firmware)",
		   ci->ep, ci->number);
}

static int describe_hist(const struct pt_layout *l, const struct pt_counter_info *ci, char *buf,
			 size_t len)
{
	const char *hist = pt_hist_what(ci->number), *band = pt_band_what(ci->band);
	unsigned cap = pt_layout_hist_capacity(l, ci->number);

	if (hist && band)
		return put(buf, len, "endpoint %u: PCIe clock cycles with %s of the %s free (of %u)",
			   ci->ep, band, hist, cap);
	if (hist)
		return put(buf, len, "endpoint %u: PCIe clock cycles in band %u of the %s histogram",
			   ci->ep, ci->band, hist);
	return put(buf, len, "endpoint %u: PCIe clock cycles in band %u of histogram %u", ci->ep,
		   ci->band, ci->number);
}

int pt_counter_description(const struct pt_layout *l, unsigned idx, char *buf, size_t len)
{
	struct pt_counter_info ci;
	int rc = decode_for_text(l, idx, &ci, buf, len);

	if (rc < 0)
		return rc;
	switch (ci.kind) {
	case PT_COUNTER_PCIE_CYCLES:
		return put(buf, len, "endpoint %u: elapsed PCIe clock cycles", ci.ep);
	case PT_COUNTER_DMA_CYCLES:
		return put(buf, len, "endpoint %u: elapsed DMA clock cycles", ci.ep);
	case PT_COUNTER_BUS:
		return describe_bus(l, &ci, buf, len);
	case PT_COUNTER_BRAKE:
		return describe_brake(&ci, buf, len);
	case PT_COUNTER_HIST:
		return describe_hist(l, &ci, buf, len);
	case PT_COUNTER_DMA_BRAKE:
		return put(buf, len, "endpoint %u: DMA clock cycles with DMA-probe BRAKE input %u active",
			   ci.ep, ci.number);
	case PT_COUNTER_DMA_HIST:
		return put(buf, len, "endpoint %u: DMA clock cycles in band %u of DMA-clock histogram %u",
			   ci.ep, ci.band, ci.number);
	}
	return -ENOENT;
}

const char *pt_counter_unit(const struct pt_layout *l, unsigned idx)
{
	struct pt_counter_info ci;

	return pt_counter_decode(l, idx, &ci) < 0 ? NULL : unit_names[ci.unit];
}

/* ---- name -> index ------------------------------------------------- */

/* A name cut at its dots: at most 4 parts. */
struct parts {
	char buf[PT_COUNTER_NAME_LEN];
	char *p[4];
	unsigned n;
};

static bool split(const char *name, struct parts *s)
{
	size_t len = strlen(name);

	if (len >= sizeof s->buf)
		return false;
	memcpy(s->buf, name, len + 1);
	s->n = 0;
	for (char *q = s->buf;; q++) {
		if (s->n == 4)
			return false;
		s->p[s->n++] = q;
		q = strchr(q, '.');
		if (!q)
			return true;
		*q = '\0';
	}
}

/* s is PREFIX followed by a decimal number (the name check that follows
 * refuses leading zeros and signs). */
static bool number(const char *s, const char *prefix, unsigned *v)
{
	size_t n = strlen(prefix);
	unsigned long x = 0;

	if (strncmp(s, prefix, n) != 0 || s[n] == '\0')
		return false;
	for (s += n; *s; s++) {
		if (*s < '0' || *s > '9' || x > 99999)
			return false;
		x = x * 10 + (unsigned long)(*s - '0');
	}
	*v = (unsigned)x;
	return true;
}

/* Cut "_cycles" off the end of s. */
static bool cycles(char *s)
{
	size_t n = strlen(s), k = strlen("_cycles");

	if (n <= k || strcmp(s + n - k, "_cycles") != 0)
		return false;
	s[n - k] = '\0';
	return true;
}

/* s is one of the named entries (name_fn(0 .. named-1)) or PREFIX<n>. */
static bool named(const char *s, const char *(*name_fn)(unsigned, char *), unsigned named_count,
		  const char *prefix, unsigned *v)
{
	char buf[PT_REGS_NAME_LEN];

	for (unsigned k = 0; k < named_count; k++)
		if (strcmp(s, name_fn(k, buf)) == 0) {
			*v = k;
			return true;
		}
	return number(s, prefix, v);
}

static bool parse_bus(char *bus, char *field, struct pt_counter_info *ci)
{
	unsigned port;

	ci->kind = PT_COUNTER_BUS;
	if (strcmp(bus, "rq") == 0 || strcmp(bus, "rc") == 0)
		ci->bus = bus[1] == 'q' ? 0 : 1;
	else if (number(bus, "up", &port) || number(bus, "down", &port))
		ci->bus = 2 + 2 * port + (bus[0] == 'd');
	else
		return false;
	for (unsigned f = 0; f < PT_F_REGION0; f++)
		if (strcmp(field, bus_fields[f].name) == 0) {
			ci->field = f;
			return true;
		}
	if (!cycles(field) || !number(field, "region", &ci->number))
		return false;
	ci->field = PT_F_REGION0 + ci->number;
	return true;
}

static bool parse(struct parts *s, struct pt_counter_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (s->n < 2 || !number(s->p[0], "ep", &ci->ep))
		return false;
	if (s->n == 2) {
		ci->kind = strcmp(s->p[1], "dma_cycles") == 0 ? PT_COUNTER_DMA_CYCLES
							       : PT_COUNTER_PCIE_CYCLES;
		return strcmp(s->p[1], "pcie_cycles") == 0 || strcmp(s->p[1], "dma_cycles") == 0;
	}
	if (s->n == 3 && strcmp(s->p[1], "brake") == 0) {
		ci->kind = PT_COUNTER_BRAKE;
		return cycles(s->p[2]) &&
		       named(s->p[2], pt_brake_name, PT_BRAKE_NAMED, "reason", &ci->number);
	}
	if (s->n == 3 && strcmp(s->p[1], "dma_brake") == 0) {
		ci->kind = PT_COUNTER_DMA_BRAKE;
		return cycles(s->p[2]) && number(s->p[2], "reason", &ci->number);
	}
	if (s->n == 3)
		return parse_bus(s->p[1], s->p[2], ci);
	if (strcmp(s->p[1], "hist") == 0) {
		ci->kind = PT_COUNTER_HIST;
		return named(s->p[2], pt_hist_name, PT_HIST_NAMED, "resource", &ci->number) &&
		       cycles(s->p[3]) &&
		       named(s->p[3], pt_band_name, PT_BAND_NAMED, "band", &ci->band);
	}
	ci->kind = PT_COUNTER_DMA_HIST;
	return strcmp(s->p[1], "dma_hist") == 0 && number(s->p[2], "resource", &ci->number) &&
	       cycles(s->p[3]) && number(s->p[3], "band", &ci->band);
}

/* The index of what a name says, if the layout has it. */
static bool encode(const struct pt_layout *l, const struct pt_counter_info *ci, unsigned *idx)
{
	if (ci->ep >= l->endpoints)
		return false;
	switch (ci->kind) {
	case PT_COUNTER_PCIE_CYCLES:
		*idx = pt_idx_pcie_cycles(l, ci->ep);
		return true;
	case PT_COUNTER_DMA_CYCLES:
		*idx = pt_idx_dma_cycles(l, ci->ep);
		return true;
	case PT_COUNTER_BUS:
		*idx = pt_idx_bus(l, ci->ep, ci->bus, ci->field);
		return ci->bus < l->buses &&
		       ci->field < PT_F_REGION0 + pt_layout_bus_probe_regions(l, ci->bus);
	case PT_COUNTER_BRAKE:
		*idx = pt_idx_brake(l, ci->ep, ci->number);
		return ci->number < l->driven_brakes;
	case PT_COUNTER_HIST:
		*idx = pt_idx_hist(l, ci->ep, ci->number, ci->band);
		return ci->number < l->pcie_hists && ci->band < l->hist_bands;
	case PT_COUNTER_DMA_BRAKE:
		*idx = pt_idx_dma_brake(l, ci->ep, ci->number);
		return ci->number < pt_layout_dma_driven_brakes(l);
	case PT_COUNTER_DMA_HIST:
		*idx = pt_idx_dma_hist(l, ci->ep, ci->number, ci->band);
		return ci->number < l->dma_hists && ci->band < l->hist_bands;
	}
	return false;
}

/* The name as a message may show it: at most 64 characters, printable. */
static void shown(const char *name, char out[80])
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p && o < 64; p++)
		out[o++] = (char)(*p >= 0x20 && *p < 0x7F ? *p : '?');
	if (strlen(name) > 64)
		o += (size_t)snprintf(out + o, 80 - o, "...");
	out[o] = '\0';
}

int pt_counter_index(const struct pt_layout *l, const char *name, unsigned *idx, char *msg,
		     size_t msglen)
{
	struct parts s;
	struct pt_counter_info ci;
	char back[PT_COUNTER_NAME_LEN], what[80];
	unsigned i = 0;

	if (name && split(name, &s) && parse(&s, &ci) && encode(l, &ci, &i) &&
	    pt_counter_name(l, i, back, sizeof back) == 0 && strcmp(back, name) == 0) {
		*idx = i;
		return 0;
	}
	shown(name ? name : "", what);
	if (msg && msglen)
		snprintf(msg, msglen,
			 "counter '%s': no such counter in this layout (%u endpoint%s, %u DMA "
			 "port%s; names like ep0.rq.words are listed in docs/counters.md)",
			 what, l->endpoints, l->endpoints == 1 ? "" : "s", l->dma_ports,
			 l->dma_ports == 1 ? "" : "s");
	return -ENOENT;
}

/* ---- patterns ------------------------------------------------------ */

/* One part of a name (no '.'), '*' matching any run. */
static bool match_part(const char *p, const char *pe, const char *s, const char *se)
{
	const char *star = NULL, *resume = NULL;

	while (s < se) {
		if (p < pe && *p == '*') {
			star = ++p;
			resume = s;
		} else if (p < pe && *p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

bool pt_counter_match(const char *pattern, const char *name)
{
	/* A '*' never crosses a '.', so the k-th dot of the pattern meets the
	 * k-th dot of the name: part by part. */
	for (;;) {
		const char *pe = strchr(pattern, '.'), *ne = strchr(name, '.');

		if (!pe)
			pe = pattern + strlen(pattern);
		if (!ne)
			ne = name + strlen(name);
		if (!match_part(pattern, pe, name, ne))
			return false;
		if (*pe == '\0' || *ne == '\0')
			return *pe == *ne;
		pattern = pe + 1;
		name = ne + 1;
	}
}

unsigned pt_counter_glob(const struct pt_layout *l, const char *pattern, unsigned *idx,
			 unsigned max)
{
	unsigned n = 0, count = pt_counter_count(l);
	char name[PT_COUNTER_NAME_LEN];

	for (unsigned i = 0; i < count; i++)
		if (pt_counter_name(l, i, name, sizeof name) == 0 && pt_counter_match(pattern, name)) {
			if (n < max)
				idx[n] = i;
			n++;
		}
	return n;
}
