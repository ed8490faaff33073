/*
 * pcie-telemetry: flat-argument helpers of the HDL bindings (ptm_hdl.h).
 */
#include "ptm_hdl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[256];

const char *ptm_hdl_last_error(void)
{
	return last_error;
}

static int fail(int rc, const char *what)
{
	snprintf(last_error, sizeof(last_error), "%s", what);
	return rc;
}

/* Bits [lsb, lsb+n) of a word vector (NULL: zeros), n <= 64. */
static uint64_t bits(const uint32_t *w, unsigned lsb, unsigned n)
{
	uint64_t v = 0;
	if (!w)
		return 0;
	for (unsigned i = 0; i < n;) {
		unsigned bit = lsb + i, take = 32 - bit % 32;
		if (take > n - i)
			take = n - i;
		uint64_t part = (w[bit / 32] >> (bit % 32)) & (take == 32 ? 0xffffffffu : (1u << take) - 1);
		v |= part << i;
		i += take;
	}
	return v;
}

int ptm_hdl_new(const uint32_t gen[PTM_HDL_NGENERICS], struct ptm_hdl **out)
{
	char msg[sizeof(last_error)];
	/* The header order of the component trace (trace-format.md b). */
	struct ptm_generics g = {
		.pcie_endpoints = gen[0],
		.dma_ports = gen[1],
		.pcie_rq_mfb_regions = gen[2],
		.pcie_rc_mfb_regions = gen[3],
		.dma_up_mfb_regions = gen[4],
		.dma_down_mfb_regions = gen[5],
		.pcie_rq_mfb_region_bytes = gen[6],
		.pcie_rc_mfb_region_bytes = gen[7],
		.dma_up_mfb_region_bytes = gen[8],
		.dma_down_mfb_region_bytes = gen[9],
		.mfb_item_bytes = gen[10],
		.pcie_eof_pos_width = gen[11],
		.dma_eof_pos_width = gen[12],
		.cnt_width = gen[13],
		.drain_period = gen[14],
		.tag_capacity = gen[15],
		.stfifo_capacity = gen[16],
	};
	*out = NULL;
	int rc = ptm_generics_check(&g, msg, sizeof(msg));
	if (rc)
		return fail(rc, msg);
	size_t nbus = (size_t)g.pcie_endpoints * 2 * g.dma_ports;
	struct ptm_hdl *h = calloc(1, sizeof(*h) + nbus * sizeof(h->dma[0]));
	if (!h)
		return fail(-ENOMEM, "out of memory");
	if ((rc = ptm_model_new(&g, &h->m, msg, sizeof(msg)))) {
		free(h);
		return fail(rc, msg);
	}
	const struct ptm_derived *d = ptm_model_derived(h->m);
	h->endpoints = g.pcie_endpoints;
	h->pr = d->pcie_regions;
	h->dr = d->dma_regions;
	h->db = 2 * g.dma_ports;
	h->pcie_pos_w = g.pcie_eof_pos_width;
	h->dma_pos_w = g.dma_eof_pos_width;
	*out = h;
	return 0;
}

void ptm_hdl_free(struct ptm_hdl *h)
{
	if (!h)
		return;
	ptm_model_free(h->m);
	free(h);
}

int ptm_hdl_probe_new(unsigned buses, unsigned regions, const uint32_t *region_items,
		      unsigned eof_pos_width, unsigned brakes, unsigned drain_period,
		      struct ptm_hdl_probe **out)
{
	char msg[sizeof(last_error)];
	struct ptm_probe_generics g = {
		.buses = buses,
		.regions = regions,
		.eof_pos_width = eof_pos_width,
		.brakes = brakes,
		.drain_period = drain_period,
	};
	*out = NULL;
	if (buses > PTM_MAX_PROBE_BUSES) {
		snprintf(msg, sizeof(msg), "generic BUSES=%u: at most %u", buses,
			 PTM_MAX_PROBE_BUSES);
		return fail(-EINVAL, msg);
	}
	for (unsigned b = 0; b < buses; b++)
		g.region_items[b] = region_items[b];
	struct ptm_hdl_probe *hp = calloc(1, sizeof(*hp));
	if (!hp)
		return fail(-ENOMEM, "out of memory");
	int rc = ptm_probe_new(&g, &hp->p, msg, sizeof(msg));
	if (rc) {
		free(hp);
		return fail(rc, msg);
	}
	hp->buses = buses;
	hp->regions = regions;
	hp->pos_w = eof_pos_width;
	*out = hp;
	return 0;
}

void ptm_hdl_probe_free(struct ptm_hdl_probe *hp)
{
	if (!hp)
		return;
	ptm_probe_free(hp->p);
	free(hp);
}

void ptm_hdl_buses(struct ptm_bus_in *bus, unsigned nbus, unsigned regions, unsigned pos_w,
		   const struct ptm_hdl_vecs *v)
{
	for (unsigned b = 0; b < nbus; b++) {
		struct ptm_bus_in *bi = &bus[b];
		unsigned lsb = b * regions;
		bi->sof = (uint32_t)bits(v->sof, lsb, regions);
		bi->eof = (uint32_t)bits(v->eof, lsb, regions);
		bi->mvb_vld = (uint32_t)bits(v->mvb_vld, lsb, regions);
		for (unsigned r = 0; r < regions; r++)
			bi->eof_pos[r] = (uint16_t)bits(v->eof_pos, (lsb + r) * pos_w, pos_w);
		bi->src_rdy = (uint8_t)((v->src_rdy >> b) & 1);
		bi->dst_rdy = (uint8_t)((v->dst_rdy >> b) & 1);
		bi->mvb_src_rdy = (uint8_t)((v->mvb_src_rdy >> b) & 1);
		bi->mvb_dst_rdy = (uint8_t)((v->mvb_dst_rdy >> b) & 1);
	}
}

void ptm_hdl_pcie_buses(const struct ptm_hdl *h, struct ptm_pcie_in *in, const uint32_t *sof,
			const uint32_t *eof, const uint32_t *eof_pos, uint32_t src_rdy,
			uint32_t dst_rdy)
{
	const struct ptm_hdl_vecs v = {
		.sof = sof, .eof = eof, .eof_pos = eof_pos, .src_rdy = src_rdy, .dst_rdy = dst_rdy,
	};
	ptm_hdl_buses(in->bus, 2, h->pr, h->pcie_pos_w, &v);
}

void ptm_hdl_dma_in(struct ptm_hdl *h, unsigned ep, const struct ptm_hdl_vecs *v)
{
	if (ep >= h->endpoints)
		return;
	ptm_hdl_buses(&h->dma[ep * h->db], h->db, h->dr, h->dma_pos_w, v);
}
