/*
 * pcie-telemetry: the whole PCIE_TELEMETRY_MI (firmware-behavior.md 2, 3):
 * per endpoint a PCIe clock probe and a DMA clock probe, the histogram and
 * status path of the PCIe clock, the counter memory and the MI registers.
 *
 * Each call is one rising edge of one clock domain.  Every edge first
 * computes what the flip-flops of its domain sample (from the state before
 * the edge) and then updates them; nothing of another domain moves.
 */
#include "model/model_priv.h"
#include "model/probe_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MI edges without any edge of another domain after which every MI-side
 * synchroniser (FIFO pointers, flags, handshake) holds a settled value:
 * the longest chain is an input register plus three flops plus the
 * FIFO's output registers. */
#define PTM_MI_SETTLE 16

static void probe_generics(const struct ptm_model *m, int dma, struct ptm_probe_generics *pg)
{
	const struct ptm_generics *g = &m->g;
	memset(pg, 0, sizeof(*pg));
	pg->drain_period = g->drain_period;
	if (!dma) {
		pg->buses = 2;
		pg->regions = m->d.pcie_regions;
		pg->region_items[0] = g->pcie_rq_mfb_region_bytes / g->mfb_item_bytes;
		pg->region_items[1] = g->pcie_rc_mfb_region_bytes / g->mfb_item_bytes;
		pg->eof_pos_width = g->pcie_eof_pos_width;
		pg->brakes = PT_FW_PCIE_BRAKES;
	} else {
		pg->buses = 2 * g->dma_ports;
		pg->regions = m->d.dma_regions;
		for (unsigned p = 0; p < g->dma_ports; p++) {
			pg->region_items[2 * p] = g->dma_up_mfb_region_bytes / g->mfb_item_bytes;
			pg->region_items[2 * p + 1] = g->dma_down_mfb_region_bytes / g->mfb_item_bytes;
		}
		pg->eof_pos_width = g->dma_eof_pos_width;
		pg->brakes = 0;
	}
}

int ptm_model_new(const struct ptm_generics *g, ptm_model **out, char *msg, size_t msglen)
{
	int rc;
	*out = NULL;
	if ((rc = ptm_generics_check(g, msg, msglen)) < 0)
		return rc;
	struct ptm_derived d;
	ptm_generics_derive(g, &d);
	/* the endpoints sit on cache lines of their own (see struct ptm_ep) */
	size_t size = sizeof(struct ptm_model) + 2 * (size_t)d.entries * sizeof(uint64_t);
	size = (size + 63) / 64 * 64;
	struct ptm_model *m = aligned_alloc(64, size);
	if (m)
		memset(m, 0, size);
	if (!m) {
		snprintf(msg, msglen, "model: out of memory");
		return -ENOMEM;
	}
	m->g = *g;
	m->d = d;
	m->nep = g->pcie_endpoints;
	m->nstreams = 2 * m->nep;
	m->dma_buses = 2 * g->dma_ports;
	m->entry_awidth = ptm_log2c(d.entries);
	for (unsigned e = 0; e < m->nep; e++) {
		m->stream_base[2 * e] = e * d.ep_channels;
		m->stream_base[2 * e + 1] = e * d.ep_channels + d.pcie_channels;
	}
	for (unsigned e = 0; e < m->nep; e++) {
		for (int k = 0; k < 2; k++) {
			struct ptm_probe_generics pg;
			probe_generics(m, k, &pg);
			char pmsg[256];
			rc = ptm_probe_new(&pg, &m->ep[e].probe[k], pmsg, sizeof(pmsg));
			if (rc < 0) {
				snprintf(msg, msglen, "%s probe of endpoint %u: %s", k ? "DMA" : "PCIe", e,
					 pmsg);
				ptm_model_free(m);
				return rc;
			}
		}
		ptm_aux_init(&m->ep[e]);
	}
	ptm_acc_init(&m->acc, m->nstreams, m->stream_base, d.entries, g->cnt_width, m->mem);
	*out = m;
	return 0;
}

void ptm_model_free(ptm_model *m)
{
	if (!m)
		return;
	for (unsigned e = 0; e < PTM_MAX_ENDPOINTS; e++)
		for (int k = 0; k < 2; k++)
			ptm_probe_free(m->ep[e].probe[k]);
	free(m);
}

const struct ptm_generics *ptm_model_generics(const ptm_model *m)
{
	return &m->g;
}

const struct ptm_derived *ptm_model_derived(const ptm_model *m)
{
	return &m->d;
}

/* ------------------------------------------------------------------ */
/* PCIe clock of one endpoint                                          */

static uint32_t pcie_brake(const struct ptm_ep *e, const struct ptm_pcie_in *in)
{
	/* RX_BRAKE = stfifo_band & tag_band & PCIE_PTC_BRAKE */
	return ((uint32_t)in->brake & ((1u << PT_FW_PTC_BRAKES) - 1u)) |
	       (uint32_t)e->tag_band << PT_FW_PTC_BRAKES |
	       (uint32_t)e->stf_band << (PT_FW_PTC_BRAKES + PT_FW_HIST_BANDS);
}

void ptm_pcie_edge(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in)
{
	if (ep >= m->nep)
		return;
	struct ptm_ep *e = &m->ep[ep];
	struct ptm_probe_clk_out o;
	ptm_probe_clk(e->probe[0], in->rst, in->bus, pcie_brake(e, in), &o);
	ptm_aux_pcie_edge(e, &m->g, in, o.drain_tick);
	e->mi_dirty = 1;
}

/*
 * The probe and the status path are independent within a batch but for
 * two things: the probe's BRAKE input carries the band registers as they
 * are before each edge (the old bands at edge 1, these inputs' bands
 * after it), and the status path sees the probe's DRAIN_TICKs, which a
 * running probe gives every DRAIN_PERIOD edges from a known edge on.
 */
void ptm_pcie_edges(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in, uint64_t n)
{
	if (ep >= m->nep || n == 0)
		return;
	struct ptm_ep *e = &m->ep[ep];
	ptm_probe *p = e->probe[0];
	int mi_reset = ptm_probe_mi_reset(p);
	/* a probe still in reset after MI_RESET fell ticks at an edge that
	 * depends on its synchroniser: single edges until it runs */
	while (n && !in->rst && mi_reset == 1) {
		ptm_pcie_edge(m, ep, in);
		n--;
		mi_reset = ptm_probe_mi_reset(p);
	}
	if (!n)
		return;
	e->mi_dirty = 1;
	if (in->rst || mi_reset) {
		/* in reset: only the first edge may tick, the status path is
		 * reset by that edge (RESET) or has no tick to send */
		ptm_pcie_edge(m, ep, in);
		if (--n) {
			ptm_probe_clk_batch(p, in->rst, in->bus, pcie_brake(e, in), n);
			if (!in->rst)
				ptm_aux_pcie_edges(e, &m->g, in, n, 0, 0,
						   ptm_aux_band(in->tag_free & PTM_TAG_MASK,
								m->g.tag_capacity),
						   ptm_aux_band(in->stfifo_free, m->g.stfifo_capacity));
		}
		return;
	}
	const uint64_t tick1 = ptm_probe_edges_to_tick(p) + 1;
	const uint8_t tb = ptm_aux_band(in->tag_free & PTM_TAG_MASK, m->g.tag_capacity);
	const uint8_t sb = ptm_aux_band(in->stfifo_free, m->g.stfifo_capacity);
	const uint32_t brake = (uint32_t)(in->brake & 0x3f) | (uint32_t)tb << 6 | (uint32_t)sb << 10;
	if (e->tag_band != tb || e->stf_band != sb) {
		ptm_probe_clk_batch2(p, in->bus, pcie_brake(e, in), brake, n);
	} else {
		ptm_probe_clk_batch(p, 0, in->bus, brake, n);
		if (tick1 > n && ptm_aux_pcie_settled(e, in, tb, sb))
			return; /* the status path has nothing to do */
	}
	ptm_aux_pcie_edges(e, &m->g, in, n, tick1, m->g.drain_period, tb, sb);
}

/* ------------------------------------------------------------------ */
/* DMA clock                                                           */

void ptm_dma_edge(ptm_model *m, int rst, const struct ptm_bus_in *bus)
{
	for (unsigned e = 0; e < m->nep; e++)
		ptm_probe_clk(m->ep[e].probe[1], rst, &bus[e * m->dma_buses], 0, NULL);
	m->dma_dirty = 1;
}

void ptm_dma_edges(ptm_model *m, int rst, const struct ptm_bus_in *bus, uint64_t n)
{
	if (n == 0)
		return;
	for (unsigned e = 0; e < m->nep; e++)
		ptm_probe_clk_batch(m->ep[e].probe[1], rst, &bus[e * m->dma_buses], 0, n);
	m->dma_dirty = 1;
}

/* ------------------------------------------------------------------ */
/* MI clock                                                            */

/* Edges of the other domains since the last MI edge restart mi_quiet
 * (they set flags of their own, so that they share no state). */
static void mi_see_others(struct ptm_model *m)
{
	uint8_t any = m->dma_dirty;
	for (unsigned e = 0; e < m->nep; e++) {
		any |= m->ep[e].mi_dirty;
		m->ep[e].mi_dirty = 0;
	}
	m->dma_dirty = 0;
	if (any)
		m->mi_quiet = 0;
}

void ptm_mi_edge(ptm_model *m, const struct ptm_mi_in *in, struct ptm_mi_out *out)
{
	struct ptm_acc_stream tx[PTM_MAX_STREAMS];
	const int rst = in->rst != 0;

	mi_see_others(m);
	for (unsigned s = 0; s < m->nstreams; s++) {
		struct ptm_probe_mi_out o;
		ptm_probe_tx(m->ep[s / 2].probe[s % 2], &o);
		/* TX_INDEX/TX_DELTA are the FIFO's output register, which a FIFO
		 * reset does not clear: the ACC that chose a stream at the last
		 * edge reads the head it saw even if the FIFO was flushed since
		 * (vector c06).  The register only moves at MI edges, so the value
		 * last seen valid is what it holds. */
		if (o.vld) {
			m->tx_last[s].index = o.index;
			m->tx_last[s].delta = o.delta;
		}
		tx[s].vld = o.vld;
		tx[s].index = m->tx_last[s].index;
		tx[s].delta = m->tx_last[s].delta;
	}
	const int snap = m->regs.cmd_snap, clear = m->regs.cmd_clear;
	const int clear_min = m->regs.cmd_clear | m->regs.cmd_mark;
	const unsigned rd_addr = ptm_regs_acc_addr(m, in->addr);
	const int sel = ptm_acc_rd_sel(&m->acc);

	ptm_regs_edge(m, in, m->acc.rd_data);
	ptm_acc_edge(&m->acc, rst, snap, clear, tx, in->rd != 0, rd_addr);
	for (unsigned s = 0; s < m->nstreams; s++)
		ptm_probe_mi_clk(m->ep[s / 2].probe[s % 2], rst, m->regs.flag_tgl, (int)s == sel,
				 NULL);
	for (unsigned e = 0; e < m->nep; e++)
		ptm_aux_mi_edge(&m->ep[e], rst, clear_min);

	if (rst != m->mi_rst || in->rd || in->wr)
		m->mi_quiet = 0;
	m->mi_rst = (uint8_t)rst;
	if (m->mi_quiet < UINT64_MAX)
		m->mi_quiet++;
	if (out) {
		out->drd = m->regs.drd;
		out->drdy = m->regs.rd_reg2;
		out->ardy = (in->rd || in->wr) ? 1 : 0;
	}
}

/* Nothing on the MI side can change on an idle edge except a running
 * SNAPSHOT/CLEAR sweep. */
static int mi_settled(const struct ptm_model *m, int rst)
{
	if (m->mi_quiet < PTM_MI_SETTLE || rst != m->mi_rst)
		return 0;
	const struct ptm_regs *r = &m->regs;
	if (r->cmd_snap || r->cmd_clear || r->cmd_mark || r->rd_reg || r->rd_reg2)
		return 0;
	if (m->acc.snap_req || m->acc.clear_req)
		return 0;
	for (unsigned e = 0; e < m->nep; e++)
		if (!ptm_aux_mi_quiet(&m->ep[e]))
			return 0;
	return 1;
}

static int streams_idle(const struct ptm_model *m)
{
	for (unsigned s = 0; s < m->nstreams; s++) {
		struct ptm_probe_mi_out o;
		ptm_probe_tx(m->ep[s / 2].probe[s % 2], &o);
		if (o.vld)
			return 0;
	}
	return 1;
}

void ptm_mi_idle_edges(ptm_model *m, int rst, uint64_t n)
{
	struct ptm_mi_in in = {.rst = (uint8_t)(rst != 0)};
	mi_see_others(m);
	while (n) {
		if (!in.rst) {
			uint64_t k = ptm_mi_drain(m, n);
			if (k) {
				n -= k;
				continue;
			}
		}
		if (mi_settled(m, in.rst)) {
			if (m->acc.state == PTM_ACC_IDLE) {
				if (streams_idle(m))
					return; /* every further edge is a no-op */
			} else {
				uint64_t left = ptm_acc_cmd_left(&m->acc);
				if (left > 1) {
					uint64_t k = left - 1 < n ? left - 1 : n;
					ptm_acc_cmd_skip(&m->acc, k);
					n -= k;
					continue;
				}
			}
		}
		ptm_mi_edge(m, &in, NULL);
		n--;
	}
}

uint32_t ptm_mi_read(ptm_model *m, uint32_t addr)
{
	struct ptm_mi_in in = {.rst = m->mi_rst, .rd = 1, .addr = addr};
	struct ptm_mi_out out;
	ptm_mi_edge(m, &in, &out);
	in.rd = 0;
	in.addr = 0;
	ptm_mi_edge(m, &in, &out);
	return out.drd;
}

void ptm_mi_write(ptm_model *m, uint32_t addr, uint32_t data)
{
	struct ptm_mi_in in = {.rst = m->mi_rst, .wr = 1, .addr = addr, .dwr = data};
	ptm_mi_edge(m, &in, NULL);
}
