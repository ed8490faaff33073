/*
 * Fuzz target: the metric engine end to end: the metric file parser
 * (jansson and the checks of every field), the expression parser, the
 * binder (templates, name resolution, patterns, cycles) on a few layouts,
 * the evaluator on arbitrary counters, notes, display and -M selections.
 * Nothing may crash, hang, leak or grow without bound.
 *
 * Input: one byte of mode, then text.
 *   mode & 0x40: the text is one expression; the target wraps it in a
 *                definition whose name template is chosen by mode & 7
 *                (so the fuzzer reaches the expression language without
 *                having to write JSON);
 *   otherwise:   the text is a metric file;
 *   mode & 0x80: the built-in definitions come first (user metrics may
 *                use them);
 *   mode >> 3 & 3: the layout.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/metrics.h"
#include "../unit/test_layout_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct pt_test_shape shapes[4] = {
	PT_TEST_DEFAULT_SHAPE,
	/* two endpoints of two ports, padded regions on RC and DOWN */
	{ .e = 2, .p = 2, .rq = 2, .rc = 1, .up = 2, .down = 1,
	  .driven = 6, .hists = 2, .bands = 4 },
	/* extra reasons, histograms and bands, DMA-probe inputs, no regions on UP */
	{ .e = 1, .p = 1, .rq = 1, .rc = 1, .up = 0, .down = 3,
	  .driven = 8, .hists = 3, .bands = 5, .dma_driven = 2, .dma_hists = 1 },
	/* sixteen endpoints */
	{ .e = 16, .p = 1, .rq = 1, .rc = 1, .up = 1, .down = 1,
	  .driven = 6, .hists = 2, .bands = 4 },
};
static const unsigned widths[4] = { 48, 33, 48, 64 };
static const struct pt_test_sizes sizes[4] = { { 0 }, { .down_bytes = 16 }, { .item_bytes = 8 }, { 0 } };

static const char *const names[8] = {
	"x", "{ep}.x", "{bus}.x", "{region}_x", "{band}_x", "{padded_bus}.x", "{brake}_x", "{up}.x",
};

/* A definition around one expression, its text escaped for JSON. */
static char *wrap(const uint8_t *e, size_t n, const char *name)
{
	size_t cap = n * 6 + 128, o = 0;
	char *j = malloc(cap);

	if (!j)
		return NULL;
	o += (size_t)snprintf(j, cap, "[{\"MetricName\": \"%s\", \"MetricExpr\": \"", name);
	for (size_t i = 0; i < n; i++) {
		if (e[i] == '"' || e[i] == '\\')
			o += (size_t)snprintf(j + o, cap - o, "\\%c", e[i]);
		else if (e[i] < 0x20 || e[i] >= 0x7F)
			o += (size_t)snprintf(j + o, cap - o, "\\u%04x", e[i]);
		else
			j[o++] = (char)e[i];
	}
	snprintf(j + o, cap - o, "\", \"BriefDescription\": \"fuzz\"}]");
	return j;
}

/* Counters and registers from the input, so values reach every path. */
static void fill(struct pt_reading *r, const uint8_t *data, size_t size, unsigned eps)
{
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 1099511628211u;
	for (unsigned i = 0; i < r->entries; i++) {
		h = h * 6364136223846793005u + 1442695040888963407u;
		/* zeros (divisions by zero), small values, values near 2^64 */
		r->cnt[i] = (h >> 62) == 0 ? 0 : (h >> 62) == 1 ? h >> 40 : h;
	}
	r->status = (uint32_t)(h & 6u);
	for (unsigned ep = 0; ep < eps; ep++) {
		r->pcie_status[ep] = (uint32_t)(h >> 11);
		r->pcie_tags[ep] = (uint32_t)(h >> 23);
		r->pcie_stfifo[ep] = (uint32_t)(h >> 29);
	}
}

static void use(const struct pt_metric_set *s, const uint8_t *data, size_t size)
{
	const struct pt_layout *l = pt_metric_layout(s);
	unsigned n = pt_metric_count(s);
	struct pt_metric_value *v = calloc(n + 1, sizeof *v);
	struct pt_reading r;
	char buf[400];

	if (!v || pt_reading_init(&r, l->entries) != 0) {
		free(v);
		return;
	}
	fill(&r, data, size, l->endpoints);
	const struct pt_metric_input ins[2] = { { &r, true, 1e-300 }, { &r, false, 0.0 } };
	for (int k = 0; k < 2; k++) {
		int notes = pt_metric_eval(s, &ins[k], v), seen = 0;
		if (notes < 0)
			abort();
		for (unsigned i = 0; i < n; i++) {
			const struct pt_metric_info *in = pt_metric_info(s, i);
			pt_metric_format(in, &v[i], buf, sizeof buf);
			if (pt_metric_note(s, i, &v[i], buf, sizeof buf) == 0)
				seen++;
			if (k == 0 && (pt_metric_find(s, in->name) != (int)i ||
				       pt_metric_lookup(s, in->family_index, &in->where) != (int)i))
				abort();
		}
		if (seen != notes)
			abort();
	}
	unsigned idx[16];
	char msg[PT_METRIC_MSG_LEN];
	pt_metric_select(s, "x,report", idx, 16, msg, sizeof msg);
	pt_metric_select(s, "ep*.*.x,{bus}.x", idx, 16, msg, sizeof msg);
	pt_reading_free(&r);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_metric_defs *d = NULL;
	struct pt_metric_set *s = NULL;
	struct pt_layout l;
	char msg[PT_METRIC_MSG_LEN] = "";

	if (size < 1)
		return 0;
	unsigned mode = data[0];
	if (pt_test_layout_decode(&shapes[mode >> 3 & 3], widths[mode >> 3 & 3], &sizes[mode >> 3 & 3], &l,
				  msg, sizeof msg))
		abort();
	if (pt_metric_defs_new(&d, mode & 0x80 ? 0 : PT_METRIC_NO_BUILTIN, msg, sizeof msg) != 0)
		abort();
	char *json = mode & 0x40 ? wrap(data + 1, size - 1, names[mode & 7]) : NULL;
	int rc = 0;
	if (mode & 0x40 && json)
		rc = pt_metric_defs_add_json(d, json, strlen(json), "f.json", msg, sizeof msg);
	else if (!(mode & 0x40))
		rc = pt_metric_defs_add_json(d, (const char *)data + 1, size - 1, "f.json", msg,
					     sizeof msg);
	if (rc != 0 && (strchr(msg, '\n') || !msg[0]))
		abort(); /* every error is one line */
	if (pt_metric_bind(d, &l, &s, msg, sizeof msg) == 0)
		use(s, data, size);
	else if (strchr(msg, '\n') || !msg[0])
		abort();
	pt_metric_set_free(s);
	pt_metric_defs_free(d);
	free(json);
	return 0;
}
