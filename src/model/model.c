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
#include "model/asfifo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MI edges without any edge of another domain after which every MI-side
 * synchroniser (FIFO pointers, flags, handshake) holds a settled value:
 * the longest chain is an input register plus three flops plus the
 * FIFO's output registers. */
#define PTM_MI_SETTLE 16
/* The same for the PCIe side of the status handshake (b_ack path). */
#define PTM_PCIE_SETTLE 6

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
	struct ptm_model *m = calloc(1, sizeof(*m) + 2 * (size_t)d.entries * sizeof(uint64_t));
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
	m->mi_quiet = 0;
	if ((in->rst != 0) != m->pcie_rst[ep])
		m->pcie_quiet[ep] = 0;
	m->pcie_rst[ep] = in->rst != 0;
	m->pcie_quiet[ep]++;
}

void ptm_pcie_edges(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in, uint64_t n)
{
	if (ep >= m->nep || n == 0)
		return;
	struct ptm_ep *e = &m->ep[ep];
	/* Single edges until the band registers hold the band of these inputs
	 * and the handshake's acknowledge path has settled. */
	ptm_pcie_edge(m, ep, in);
	n--;
	while (n && m->pcie_quiet[ep] < PTM_PCIE_SETTLE) {
		ptm_pcie_edge(m, ep, in);
		n--;
	}
	if (n >= 2) {
		/* The edges in between see constant inputs: the window minimum
		 * already holds min(window, input), so a tick captures it as it
		 * is; the first tick sends when the handshake is ready, later ones
		 * find it waiting for an acknowledge that needs MI edges. */
		uint64_t k = n - 1;
		/* Without a tick among them and with the handshake's enable
		 * register caught up, the last edge changes nothing of the
		 * status path either: it joins the batch. */
		if (!in->rst && e->hs.en_d1 == e->hs.a_en &&
		    n <= ptm_probe_edges_to_tick(e->probe[0]))
			k = n;
		uint64_t ticks = ptm_probe_clk_batch(e->probe[0], in->rst, in->bus, pcie_brake(e, in), k);
		if (ticks && !in->rst)
			ptm_aux_pcie_ticks(e, in);
		m->pcie_quiet[ep] += k;
		n -= k;
	}
	if (n)
		ptm_pcie_edge(m, ep, in);
}

/* ------------------------------------------------------------------ */
/* DMA clock                                                           */

void ptm_dma_edge(ptm_model *m, int rst, const struct ptm_bus_in *bus)
{
	for (unsigned e = 0; e < m->nep; e++)
		ptm_probe_clk(m->ep[e].probe[1], rst, &bus[e * m->dma_buses], 0, NULL);
	m->mi_quiet = 0;
}

void ptm_dma_edges(ptm_model *m, int rst, const struct ptm_bus_in *bus, uint64_t n)
{
	if (n == 0)
		return;
	for (unsigned e = 0; e < m->nep; e++)
		ptm_probe_clk_batch(m->ep[e].probe[1], rst, &bus[e * m->dma_buses], 0, n);
	m->mi_quiet = 0;
}

/* ------------------------------------------------------------------ */
/* MI clock                                                            */

void ptm_mi_edge(ptm_model *m, const struct ptm_mi_in *in, struct ptm_mi_out *out)
{
	struct ptm_acc_stream tx[PTM_MAX_STREAMS];
	const int rst = in->rst != 0;

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
	for (unsigned e = 0; e < m->nep; e++) {
		ptm_aux_mi_edge(&m->ep[e], rst, clear_min);
		m->pcie_quiet[e] = 0;
	}

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

/*
 * Drain run: up to n idle MI edges (MI_RESET = 0) on a settled MI side
 * (mi_settled) while the ACC adds deltas (IDLE/RD/ADD/WR).  No edge of
 * another domain comes in between, so the write pointers stay where they
 * are and each probe's MI edge only moves its FIFO's read side: that and
 * the ACC are stepped here with the registers that matter, without the
 * synchronisers, the register block or the status path (all settled; an
 * idle edge leaves them as they are).  Exactly what ptm_mi_edge() would do
 * edge by edge (test_model_props compares the two).  Stops early once the
 * ACC is idle and every FIFO is empty with nothing in its output
 * registers; returns the number of edges done (0 = not applicable).
 */
static inline __attribute__((always_inline)) uint64_t mi_drain_n(struct ptm_model *m, uint64_t n,
								   const unsigned ns)
{
	struct ptm_acc *a = &m->acc;
	const struct ptm_regs *r = &m->regs;
	if (a->state > PTM_ACC_WR || a->snap_req || a->clear_req || m->mi_rst || r->cmd_snap ||
	    r->cmd_clear || r->cmd_mark)
		return 0;
	struct ptm_asfifo *f[PTM_MAX_STREAMS];
	uint32_t avail[PTM_MAX_STREAMS], gray0[PTM_MAX_STREAMS];
	uint64_t pops[PTM_MAX_STREAMS];
	uint8_t moved[PTM_MAX_STREAMS];
	for (unsigned s = 0; s < ns; s++) {
		f[s] = ptm_probe_mi_drain_fifo(m->ep[s / 2].probe[s % 2], m->regs.flag_tgl);
		if (!f[s])
			return 0;
		avail[s] = (f[s]->wr_synced_reg - f[s]->rd_cnt) & f[s]->ptr_mask;
		gray0[s] = f[s]->rd_in_gray;
		pops[s] = 0;
		moved[s] = 0;
	}
	const unsigned amask = 2 * a->entries - 1;
	uint64_t done = 0;
	unsigned empty = 0;
	while (done < n) {
		if (a->state == PTM_ACC_IDLE) {
			unsigned any = 0;
			for (unsigned s = 0; s < ns; s++)
				any |= f[s]->vld_reg2 | f[s]->vld_reg | avail[s];
			/* Nothing to add: two more edges load the (not valid)
			 * output registers and the read pointer register; after
			 * them an edge changes nothing here. */
			if (!any && ++empty > 2) {
				done = n;
				break;
			}
		}
		/* What the streams present before the edge (the output
		 * register last seen valid, see ptm_mi_edge). */
		for (unsigned s = 0; s < ns; s++)
			if (f[s]->vld_reg2) {
				m->tx_last[s].index = f[s]->dout_reg2.index;
				m->tx_last[s].delta = f[s]->dout_reg2.delta;
			}
		int rdsel = -1;
		switch (a->state) {
		case PTM_ACC_IDLE:
		case PTM_ACC_WR:
			if (a->state == PTM_ACC_WR)
				a->mem[a->addr] = a->sum;
			a->state = PTM_ACC_IDLE;
			for (unsigned i = 1; i <= ns; i++) {
				unsigned j = (a->sel + i) % ns;
				if (f[j]->vld_reg2) {
					a->sel = j;
					a->state = PTM_ACC_RD;
					break;
				}
			}
			break;
		case PTM_ACC_RD: {
			unsigned s = a->sel;
			unsigned addr = (a->stream_base[s] + m->tx_last[s].index) & amask;
			a->pa_dout = a->mem[addr];
			a->addr = addr;
			a->data = m->tx_last[s].delta;
			a->state = PTM_ACC_ADD;
			rdsel = (int)s;
			break;
		}
		default: /* PTM_ACC_ADD */
			a->sum = (a->pa_dout + a->data) & a->cnt_mask;
			a->state = PTM_ACC_WR;
			break;
		}
		/* The read side of every FIFO (asfifo_rd_edge without reset,
		 * with the write pointer synchronised). */
		for (unsigned s = 0; s < ns; s++) {
			struct ptm_asfifo *q = f[s];
			const int rd = (int)s == rdsel;
			if (rd && q->vld_reg2)
				pops[s]++;
			uint32_t rg = q->rd_cnt ^ (q->rd_cnt >> 1);
			if (rg != q->rd_in_gray) {
				q->rd_in_gray = rg;
				moved[s] = 1;
			}
			if (rd || !q->vld_reg2) {
				q->dout_reg2 = q->dout_reg;
				q->vld_reg2 = q->vld_reg;
				q->dout_reg = q->mem[q->rd_cnt_mem & q->mem_mask];
				q->vld_reg = avail[s] != 0;
				if (avail[s]) {
					q->rd_cnt = (q->rd_cnt + 1) & q->ptr_mask;
					q->rd_cnt_mem = (q->rd_cnt_mem + 1) & q->mem_mask;
					avail[s]--;
				}
			}
		}
		done++;
	}
	for (unsigned s = 0; s < ns; s++) {
		struct ptm_asfifo *q = f[s];
		q->gone += pops[s];
		ptm_probe_mi_drained(m->ep[s / 2].probe[s % 2], pops[s]);
		if (moved[s] || q->rd_in_gray != gray0[s])
			q->wr_quiet = 0;
		asfifo_rd_requiet(q);
	}
	if (done) {
		/* The register block and the status path do not depend on the
		 * ACC or the FIFOs on idle edges (no read, no write, no command
		 * pulse, no reset), and reach a fixed point within a few edges:
		 * the same edges after the others give the same state. */
		if (m->mi_quiet < PTM_MI_SETTLE) {
			const struct ptm_mi_in idle = {0};
			uint64_t k = done < PTM_MI_SETTLE ? done : PTM_MI_SETTLE;
			for (uint64_t i = 0; i < k; i++) {
				ptm_regs_edge(m, &idle, a->rd_data);
				for (unsigned e = 0; e < m->nep; e++)
					ptm_aux_mi_edge(&m->ep[e], 0, 0);
			}
		}
		for (unsigned e = 0; e < m->nep; e++)
			m->pcie_quiet[e] = 0;
		m->mi_quiet = m->mi_quiet + done < m->mi_quiet ? UINT64_MAX : m->mi_quiet + done;
	}
	return done;
}

/* One endpoint (two streams) with constant loop bounds. */
static uint64_t mi_drain(struct ptm_model *m, uint64_t n)
{
	if (m->nstreams == 2)
		return mi_drain_n(m, n, 2);
	return mi_drain_n(m, n, m->nstreams);
}

void ptm_mi_idle_edges(ptm_model *m, int rst, uint64_t n)
{
	struct ptm_mi_in in = {.rst = (uint8_t)(rst != 0)};
	while (n) {
		if (!in.rst) {
			uint64_t k = mi_drain(m, n);
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
