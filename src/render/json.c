/*
 * pcie-telemetry: the `-j` JSON of the upstream nfb-pcie-telemetry, byte
 * for byte: Python's json.dumps(obj, indent=4) (report-format.md section 4).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "render/diag_priv.h"
#include "render/jw.h"
#include "render/render_priv.h"

static void write_endpoint(struct jw *w, const struct pt_layout *l, const struct pt_reading *r,
			   unsigned ep)
{
	struct pt_link k;
	pt_link_decode(r, ep, &k);
	jw_open(w, NULL, '{');
	jw_u64(w, "index", ep);
	jw_bool(w, "link_up", k.link_up);
	jw_u64(w, "mps", k.mps);
	jw_u64(w, "mrrs", k.mrrs);
	jw_bool(w, "ext_tag", k.ext_tag);
	jw_bool(w, "tag_10b", k.tag_10b);
	jw_u64(w, "rcb", k.rcb);
	jw_u64(w, "tags_free", k.tags_free);
	jw_u64(w, "tags_free_min", k.tags_free_min);
	jw_u64(w, "stfifo_free", k.stfifo_free);
	jw_u64(w, "stfifo_free_min", k.stfifo_free_min);
	jw_u64(w, "pcie_cycles", pt_render_cnt(r, pt_idx_pcie_cycles(l, ep)));
	jw_u64(w, "dma_cycles", pt_render_cnt(r, pt_idx_dma_cycles(l, ep)));

	jw_open(w, "brakes", '[');
	for (unsigned kk = 0; kk < l->driven_brakes; kk++)
		jw_u64(w, NULL, pt_render_cnt(r, pt_idx_brake(l, ep, kk)));
	jw_close(w);

	jw_open(w, "hists", '[');
	for (unsigned h = 0; h < l->pcie_hists; h++) {
		jw_open(w, NULL, '[');
		for (unsigned b = 0; b < l->hist_bands; b++)
			jw_u64(w, NULL, pt_render_cnt(r, pt_idx_hist(l, ep, h, b)));
		jw_close(w);
	}
	jw_close(w);

	jw_open(w, "buses", '{');
	for (unsigned b = 0; b < l->buses; b++) {
		char name[64];
		pt_layout_bus_name(l, b, name, sizeof name);
		enum pt_bus_kind kind = pt_layout_bus_kind(l, b);
		bool pcie_clk = kind == PT_BUS_RQ || kind == PT_BUS_RC;
		jw_open(w, name, '{');
		for (unsigned f = 0; f < PT_F_REGION0; f++)
			jw_u64(w, pt_bus_field_info(f)->json_key,
			       pt_render_cnt(r, pt_idx_bus(l, ep, b, f)));
		jw_open(w, "regions", '[');
		unsigned nreg = pt_layout_bus_real_regions(l, b);
		for (unsigned i = 0; i < nreg; i++)
			jw_u64(w, NULL, pt_render_cnt(r, pt_idx_bus(l, ep, b, PT_F_REGION0 + i)));
		jw_close(w);
		jw_u64(w, "region_bytes", l->region_bytes[kind]);
		jw_bool(w, "pcie_clk", pcie_clk);
		jw_bool(w, "has_mvb", !pcie_clk);
		jw_bool(w, "dma_up", kind == PT_BUS_UP);
		jw_close(w);
	}
	jw_close(w);
	jw_close(w);
}

int pt_render_json(FILE *out, const struct pt_report *rep)
{
	if (!out || !rep)
		return -EINVAL;
	const struct pt_layout *l = rep->layout;
	const struct pt_reading *r = rep->reading;
	int rc = pt_render_check(l, r);
	if (rc)
		return rc;
	struct jw w = { .out = out };

	jw_open(&w, NULL, '{');
	if (rep->interval)
		jw_double(&w, "seconds", rep->seconds);
	else
		jw_null(&w, "seconds");
	jw_open(&w, "data", '{');

	jw_open(&w, "endpoints", '[');
	for (unsigned ep = 0; ep < l->endpoints; ep++)
		write_endpoint(&w, l, r, ep);
	jw_close(&w);

	jw_open(&w, "status", '{');
	jw_bool(&w, "busy", r->status & PT_STATUS_BUSY);
	jw_bool(&w, "lost_deltas", r->status & PT_STATUS_LOST_DELTAS);
	jw_bool(&w, "readout_overrun", r->status & PT_STATUS_OVERRUN);
	jw_close(&w);

	jw_open(&w, "config", '{');
	jw_u64(&w, "pcie_endpoints", l->endpoints);
	jw_u64(&w, "dma_ports", l->dma_ports);
	jw_u64(&w, "probe_pcie_regions", l->pcie_regions);
	jw_u64(&w, "probe_dma_regions", l->dma_regions);
	jw_u64(&w, "counter_width", l->cnt_width);
	jw_u64(&w, "item_bytes", l->item_bytes);
	jw_u64(&w, "drain_period", l->drain_period);
	jw_u64(&w, "hist_bands", l->hist_bands);
	jw_u64(&w, "tag_capacity", l->tag_capacity);
	jw_u64(&w, "stfifo_capacity", l->stfifo_capacity);
	jw_close(&w);

	jw_close(&w); /* data */
	if (rep->diagnose && (rc = pt_render_diag_json(&w, rep)) < 0)
		return rc;
	jw_close(&w); /* top */
	fputc('\n', out);
	if (w.overflow)
		return -EINVAL;
	return pt_render_stream_status(out);
}
