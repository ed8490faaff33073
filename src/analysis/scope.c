/*
 * pcie-telemetry: what a metric can range over and what it can use
 * besides counters (docs/metrics.md "Templates" and "Layout values").
 *
 * The scope instances of a layout (its endpoints, buses, regions, BRAKE
 * reasons, histograms and bands) are found by walking the counter names
 * once: the prefix of a bus is its words counter's name without ".words",
 * the prefix of a reason its counter's name without "_cycles", and so on.
 * So `{brake}_cycles` is a counter name by construction, whatever names
 * the counter table gives.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_priv.h"

/* ---- placeholders ------------------------------------------------------ */

static bool is_pcie_bus(const struct pt_layout *l, const struct pt_sinst *s)
{
	return pt_layout_bus_kind(l, (unsigned)s->where.bus) <= PT_BUS_RC;
}

static bool is_dma_bus(const struct pt_layout *l, const struct pt_sinst *s)
{
	return !is_pcie_bus(l, s);
}

static bool is_up(const struct pt_layout *l, const struct pt_sinst *s)
{
	return pt_layout_bus_kind(l, (unsigned)s->where.bus) == PT_BUS_UP;
}

static bool is_down(const struct pt_layout *l, const struct pt_sinst *s)
{
	return pt_layout_bus_kind(l, (unsigned)s->where.bus) == PT_BUS_DOWN;
}

static bool is_padded_bus(const struct pt_layout *l, const struct pt_sinst *s)
{
	unsigned b = (unsigned)s->where.bus;

	return pt_layout_bus_real_regions(l, b) < pt_layout_bus_probe_regions(l, b);
}

static bool is_real_region(const struct pt_layout *l, const struct pt_sinst *s)
{
	return (unsigned)s->where.item < pt_layout_bus_real_regions(l, (unsigned)s->where.bus);
}

static bool is_padded_region(const struct pt_layout *l, const struct pt_sinst *s)
{
	return !is_real_region(l, s);
}

static bool is_up_brake(const struct pt_layout *l, const struct pt_sinst *s)
{
	(void)l;
	return pt_brake_stream((unsigned)s->where.item) == PT_STREAM_UP;
}

static bool is_down_brake(const struct pt_layout *l, const struct pt_sinst *s)
{
	return !is_up_brake(l, s);
}

static const struct pt_placeholder placeholders[] = {
	{ "ep", PT_METRIC_EP, NULL, "every endpoint: ep0, ep1, ..." },
	{ "bus", PT_METRIC_BUS, NULL, "every bus of every endpoint: epE.rq, epE.rc, epE.upP, epE.downP" },
	{ "pcie_bus", PT_METRIC_BUS, is_pcie_bus, "the PCIe-clock buses: epE.rq, epE.rc" },
	{ "dma_bus", PT_METRIC_BUS, is_dma_bus, "the DMA-clock buses: epE.upP, epE.downP" },
	{ "up", PT_METRIC_BUS, is_up, "every UP bus: epE.upP" },
	{ "down", PT_METRIC_BUS, is_down, "every DOWN bus: epE.downP" },
	{ "padded_bus", PT_METRIC_BUS, is_padded_bus,
	  "every bus with fewer real regions than its probe (padded regions)" },
	{ "region", PT_METRIC_REGION, is_real_region,
	  "every real region of every bus: epE.B.regionR (R below the bus's CFG_REGIONS)" },
	{ "padded", PT_METRIC_REGION, is_padded_region,
	  "every padded region: epE.B.regionR, R from the bus's real regions to its probe's" },
	{ "brake", PT_METRIC_BRAKE, NULL, "every driven BRAKE reason: epE.brake.R" },
	{ "up_brake", PT_METRIC_BRAKE, is_up_brake, "the reasons that hold the UP stream" },
	{ "down_brake", PT_METRIC_BRAKE, is_down_brake, "the reasons that hold the DOWN stream" },
	{ "hist", PT_METRIC_HIST, NULL, "every PCIe-clock histogram: epE.hist.H" },
	{ "band", PT_METRIC_BAND, NULL, "every band of every PCIe-clock histogram: epE.hist.H.N" },
	{ "dma_brake", PT_METRIC_DMA_BRAKE, NULL,
	  "every DMA-probe BRAKE input (not a band): epE.dma_brake.reasonK" },
	{ "dma_hist", PT_METRIC_DMA_HIST, NULL, "every DMA-clock histogram: epE.dma_hist.resourceH" },
	{ "dma_band", PT_METRIC_DMA_BAND, NULL,
	  "every band of every DMA-clock histogram: epE.dma_hist.resourceH.bandB" },
};
#define NPLACEHOLDERS (sizeof placeholders / sizeof placeholders[0])

const struct pt_placeholder *pt_placeholder(unsigned id)
{
	return id < NPLACEHOLDERS ? &placeholders[id] : NULL;
}

int pt_placeholder_find(const char *name, size_t len)
{
	for (unsigned i = 0; i < NPLACEHOLDERS; i++)
		if (strlen(placeholders[i].name) == len && memcmp(placeholders[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

enum pt_metric_scope pt_scope_parent(enum pt_metric_scope s)
{
	static const enum pt_metric_scope parent[PT_SCOPES] = {
		[PT_METRIC_GLOBAL] = PT_METRIC_GLOBAL, [PT_METRIC_EP] = PT_METRIC_GLOBAL,
		[PT_METRIC_BUS] = PT_METRIC_EP,        [PT_METRIC_REGION] = PT_METRIC_BUS,
		[PT_METRIC_BRAKE] = PT_METRIC_EP,      [PT_METRIC_HIST] = PT_METRIC_EP,
		[PT_METRIC_BAND] = PT_METRIC_HIST,     [PT_METRIC_DMA_BRAKE] = PT_METRIC_EP,
		[PT_METRIC_DMA_HIST] = PT_METRIC_EP,   [PT_METRIC_DMA_BAND] = PT_METRIC_DMA_HIST,
	};
	return (unsigned)s < PT_SCOPES ? parent[s] : PT_METRIC_GLOBAL;
}

/* ---- layout values ------------------------------------------------------ */

static const struct pt_value_def values[] = {
	{ PT_METRIC_GLOBAL, "seconds", PT_V_SECONDS,
	  "the interval in seconds; NaN in totals mode and for a zero-length interval" },
	{ PT_METRIC_GLOBAL, "item_bytes", PT_V_CONST, "bytes of an MFB item (CFG_DRAIN)" },
	{ PT_METRIC_GLOBAL, "drain_period", PT_V_CONST, "the probes' drain period in cycles" },
	{ PT_METRIC_GLOBAL, "tag_capacity", PT_V_CONST, "PCIe tags of the PTC (CFG_CAPACITY)" },
	{ PT_METRIC_GLOBAL, "stfifo_capacity", PT_V_CONST, "words of the PTC storage FIFO" },
	{ PT_METRIC_GLOBAL, "cnt_width", PT_V_CONST, "counter width in bits" },
	{ PT_METRIC_GLOBAL, "endpoints", PT_V_CONST, "PCIe endpoints" },
	{ PT_METRIC_GLOBAL, "dma_ports", PT_V_CONST, "DMA ports per endpoint" },
	{ PT_METRIC_GLOBAL, "hist_bands", PT_V_CONST, "bands of every histogram" },
	{ PT_METRIC_GLOBAL, "lost_deltas", PT_V_STATUS, "1 when STATUS says deltas were lost" },
	{ PT_METRIC_GLOBAL, "readout_overrun", PT_V_STATUS, "1 when STATUS says a read-out overran" },
	{ PT_METRIC_EP, "link_up", PT_V_LINK, "1 while the endpoint's link is up" },
	{ PT_METRIC_EP, "mps", PT_V_LINK, "max payload size in bytes" },
	{ PT_METRIC_EP, "mrrs", PT_V_LINK, "max read request size in bytes" },
	{ PT_METRIC_EP, "rcb", PT_V_LINK, "read completion boundary in bytes" },
	{ PT_METRIC_EP, "ext_tag", PT_V_LINK, "1 with 8-bit tags" },
	{ PT_METRIC_EP, "tag_10b", PT_V_LINK, "1 with 10-bit tags" },
	{ PT_METRIC_EP, "tags_free", PT_V_LINK, "PTC tags free now" },
	{ PT_METRIC_EP, "tags_free_min", PT_V_LINK, "the lowest PTC tags free since the marks were cleared" },
	{ PT_METRIC_EP, "stfifo_free", PT_V_LINK, "PTC storage FIFO words free now" },
	{ PT_METRIC_EP, "stfifo_free_min", PT_V_LINK, "the lowest storage FIFO words free" },
	{ PT_METRIC_BUS, "real_regions", PT_V_CONST, "the bus's regions (CFG_REGIONS)" },
	{ PT_METRIC_BUS, "probe_regions", PT_V_CONST, "the regions of the bus's probe (real and padded)" },
	{ PT_METRIC_BUS, "region_bytes", PT_V_CONST, "bytes of one region (CFG_WIDTH, CFG_WIDTH_DMA)" },
	{ PT_METRIC_BUS, "region_items", PT_V_CONST, "items of one region: region_bytes / item_bytes" },
	{ PT_METRIC_BUS, "cycles", PT_V_COUNTER, "the cycle counter of the bus's clock" },
	{ PT_METRIC_HIST, "capacity", PT_V_CONST, "what the histogram counts against (0 beyond h = 1)" },
};
#define NVALUES (sizeof values / sizeof values[0])

const struct pt_value_def *pt_value_def(unsigned id)
{
	return id < NVALUES ? &values[id] : NULL;
}

static i128 global_const(const struct pt_layout *l, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} t[] = {
		{ "item_bytes", offsetof(struct pt_layout, item_bytes) },
		{ "drain_period", offsetof(struct pt_layout, drain_period) },
		{ "tag_capacity", offsetof(struct pt_layout, tag_capacity) },
		{ "stfifo_capacity", offsetof(struct pt_layout, stfifo_capacity) },
		{ "cnt_width", offsetof(struct pt_layout, cnt_width) },
		{ "endpoints", offsetof(struct pt_layout, endpoints) },
		{ "dma_ports", offsetof(struct pt_layout, dma_ports) },
		{ "hist_bands", offsetof(struct pt_layout, hist_bands) },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(t[i].name, name) == 0)
			return *(const unsigned *)(const void *)((const char *)l + t[i].off);
	return 0;
}

static i128 bus_const(const struct pt_layout *l, const char *name, unsigned b)
{
	unsigned kind = pt_layout_bus_kind(l, b);

	if (strcmp(name, "real_regions") == 0)
		return pt_layout_bus_real_regions(l, b);
	if (strcmp(name, "probe_regions") == 0)
		return pt_layout_bus_probe_regions(l, b);
	if (strcmp(name, "region_bytes") == 0)
		return l->region_bytes[kind];
	/* region_items */
	return l->item_bytes ? l->region_bytes[kind] / l->item_bytes : 0;
}

i128 pt_value_arg(const struct pt_layout *l, unsigned id, const struct pt_sinst *s)
{
	const struct pt_value_def *v = pt_value_def(id);

	switch (v->kind) {
	case PT_V_SECONDS:
		return 0;
	case PT_V_STATUS:
		return strcmp(v->name, "lost_deltas") == 0 ? PT_STATUS_BIT_LOST_DELTAS
							   : PT_STATUS_BIT_OVERRUN;
	case PT_V_LINK: {
		static const char *const link[PT_L_COUNT] = {
			"link_up",   "mps",           "mrrs",        "rcb",
			"ext_tag",   "tag_10b",       "tags_free",   "tags_free_min",
			"stfifo_free", "stfifo_free_min",
		};
		for (unsigned k = 0; k < PT_L_COUNT; k++)
			if (strcmp(link[k], v->name) == 0)
				return k;
		return 0;
	}
	case PT_V_COUNTER:
		return pt_layout_bus_kind(l, (unsigned)s->where.bus) <= PT_BUS_RC
			       ? pt_idx_pcie_cycles(l, (unsigned)s->where.ep)
			       : pt_idx_dma_cycles(l, (unsigned)s->where.ep);
	case PT_V_CONST:
		break;
	}
	if (v->scope == PT_METRIC_GLOBAL)
		return global_const(l, v->name);
	if (v->scope == PT_METRIC_BUS)
		return bus_const(l, v->name, (unsigned)s->where.bus);
	return pt_layout_hist_capacity(l, (unsigned)s->where.item);
}

/* ---- scope instances ---------------------------------------------------- */

/* The scope a counter's name makes a prefix for, and how much of the end
 * of the name to cut; GLOBAL for counters that make none. */
static enum pt_metric_scope scope_of(const struct pt_counter_info *ci, size_t *cut)
{
	*cut = strlen("_cycles");
	switch (ci->kind) {
	case PT_COUNTER_PCIE_CYCLES:
		*cut = strlen(".pcie_cycles");
		return PT_METRIC_EP;
	case PT_COUNTER_BUS:
		if (ci->field == PT_F_WORDS) {
			*cut = strlen(".words");
			return PT_METRIC_BUS;
		}
		return ci->field >= PT_F_REGION0 ? PT_METRIC_REGION : PT_METRIC_GLOBAL;
	case PT_COUNTER_BRAKE:
		return PT_METRIC_BRAKE;
	case PT_COUNTER_HIST:
		return PT_METRIC_BAND;
	case PT_COUNTER_DMA_BRAKE:
		return PT_METRIC_DMA_BRAKE;
	case PT_COUNTER_DMA_HIST:
		return PT_METRIC_DMA_BAND;
	default:
		return PT_METRIC_GLOBAL;
	}
}

static void where_of(const struct pt_counter_info *ci, enum pt_metric_scope sc,
		     struct pt_metric_where *w)
{
	w->ep = (int)ci->ep;
	w->bus = w->item = w->band = -1;
	if (sc == PT_METRIC_BUS || sc == PT_METRIC_REGION)
		w->bus = (int)ci->bus;
	if (sc == PT_METRIC_REGION || sc == PT_METRIC_BRAKE || sc == PT_METRIC_DMA_BRAKE ||
	    sc == PT_METRIC_BAND || sc == PT_METRIC_DMA_BAND || sc == PT_METRIC_HIST ||
	    sc == PT_METRIC_DMA_HIST)
		w->item = (int)ci->number;
	if (sc == PT_METRIC_BAND || sc == PT_METRIC_DMA_BAND)
		w->band = (int)ci->band;
}

struct builder {
	const struct pt_layout *l;
	struct pt_scopes *sc;
	struct pt_sinst *tmp[PT_SCOPES];
	size_t n[PT_SCOPES], cap[PT_SCOPES];
};

static int add(struct builder *b, enum pt_metric_scope sc, const struct pt_metric_where *w,
	       const char *prefix, size_t len)
{
	if (!pt_grow((void **)&b->tmp[sc], &b->cap[sc], b->n[sc] + 1, sizeof **b->tmp, SIZE_MAX / 64))
		return -ENOMEM;
	struct pt_sinst *s = &b->tmp[sc][b->n[sc]++];
	s->scope = (uint8_t)sc;
	s->where = *w;
	s->parent = UINT32_MAX;
	s->prefix = pt_arena_strndup(&b->sc->arena, prefix, len);
	return s->prefix ? 0 : -ENOMEM;
}

/* One counter: its name, and the scope instances it starts (the first band
 * of a histogram starts the histogram too). */
static int visit(struct builder *b, unsigned i)
{
	struct pt_counter_info ci;
	char name[PT_COUNTER_NAME_LEN];
	size_t cut;

	if (pt_counter_decode(b->l, i, &ci) < 0 || pt_counter_name(b->l, i, name, sizeof name) < 0)
		return -EINVAL;
	b->sc->counter[i] = pt_arena_strndup(&b->sc->arena, name, strlen(name));
	if (!b->sc->counter[i])
		return -ENOMEM;
	enum pt_metric_scope sc = scope_of(&ci, &cut);
	if (sc == PT_METRIC_GLOBAL)
		return 0;
	struct pt_metric_where w;
	where_of(&ci, sc, &w);
	size_t len = strlen(name) - cut;
	if ((sc == PT_METRIC_BAND || sc == PT_METRIC_DMA_BAND) && ci.band == 0) {
		struct pt_metric_where hw = w;
		hw.band = -1;
		const char *dot = strrchr(name, '.');
		int rc = add(b, sc == PT_METRIC_BAND ? PT_METRIC_HIST : PT_METRIC_DMA_HIST, &hw, name,
			     (size_t)(dot - name));
		if (rc < 0)
			return rc;
	}
	return add(b, sc, &w, name, len);
}

static bool is_parent(const struct pt_sinst *p, const struct pt_sinst *c)
{
	const struct pt_metric_where *w = &p->where;

	if (w->ep != c->where.ep)
		return false;
	if (p->scope == PT_METRIC_EP)
		return true;
	if (p->scope == PT_METRIC_BUS)
		return w->bus == c->where.bus;
	return w->item == c->where.item; /* a histogram */
}

/* Parents: each instance's in the scope above.  Both lists are in layout
 * order, so one walk along the parents' list finds them all. */
static void link_parents(struct pt_scopes *sc)
{
	for (unsigned s = 0; s < PT_SCOPES; s++) {
		enum pt_metric_scope p = pt_scope_parent((enum pt_metric_scope)s);
		uint32_t j = sc->first[p], end = j + sc->count[p];

		if (p == PT_METRIC_GLOBAL)
			continue;
		for (uint32_t i = sc->first[s]; i < sc->first[s] + sc->count[s]; i++) {
			uint32_t k = j;
			while (k < end && !is_parent(&sc->s[k], &sc->s[i]))
				k++;
			if (k < end)
				j = k;
			sc->s[i].parent = k < end ? k : UINT32_MAX;
		}
	}
}

int pt_scopes_build(const struct pt_layout *l, struct pt_scopes *out)
{
	struct builder b = { .l = l, .sc = out };
	int rc = 0;

	memset(out, 0, sizeof *out);
	out->ncounters = pt_counter_count(l);
	out->counter = calloc(out->ncounters ? out->ncounters : 1, sizeof *out->counter);
	if (!out->counter)
		return -ENOMEM;
	for (unsigned i = 0; i < out->ncounters && rc == 0; i++)
		rc = visit(&b, i);
	size_t total = 0;
	for (unsigned s = 0; s < PT_SCOPES; s++)
		total += b.n[s];
	if (rc == 0 && !(out->s = calloc(total ? total : 1, sizeof *out->s)))
		rc = -ENOMEM;
	/* each scope's instances in layout order: counters come ep by ep, and
	 * inside an endpoint in the order of the coordinates */
	for (unsigned s = 0; s < PT_SCOPES; s++) {
		if (rc == 0) {
			out->first[s] = out->n;
			out->count[s] = (uint32_t)b.n[s];
			if (b.n[s])
				memcpy(out->s + out->n, b.tmp[s], b.n[s] * sizeof *out->s);
			out->n += (uint32_t)b.n[s];
		}
		free(b.tmp[s]);
	}
	if (rc == 0)
		link_parents(out);
	else
		pt_scopes_free(out);
	return rc;
}

void pt_scopes_free(struct pt_scopes *sc)
{
	free(sc->s);
	free(sc->counter);
	pt_arena_free(&sc->arena);
	memset(sc, 0, sizeof *sc);
}

uint32_t pt_scopes_ancestor(const struct pt_scopes *sc, uint32_t i, enum pt_metric_scope scope)
{
	while (i != UINT32_MAX && sc->s[i].scope != scope)
		i = sc->s[i].parent;
	return i;
}

/* The first instance in [lo, hi) of a scope whose ancestor at `in`'s scope
 * comes at or after `in` (after it when `after`): ancestors grow along a
 * scope's list, as both are in layout order. */
static uint32_t bound(const struct pt_scopes *sc, uint32_t lo, uint32_t hi, uint32_t in, bool after)
{
	enum pt_metric_scope up = (enum pt_metric_scope)sc->s[in].scope;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t a = pt_scopes_ancestor(sc, mid, up);
		if (a < in || (after && a == in))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void pt_scopes_children(const struct pt_scopes *sc, enum pt_metric_scope scope, uint32_t in,
			uint32_t *lo, uint32_t *hi)
{
	uint32_t a = sc->first[scope], b = a + sc->count[scope];

	if (in != UINT32_MAX) {
		uint32_t s = bound(sc, a, b, in, false);
		b = bound(sc, s, b, in, true);
		a = s;
	}
	*lo = a;
	*hi = b;
}
