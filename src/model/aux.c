/*
 * pcie-telemetry: the PCIe-clock status path of one endpoint of
 * PCIE_TELEMETRY_MI (firmware-behavior.md 3.2, 3.3): histogram band
 * registers, window minimum registers, the ASYNC_BUS_HANDSHAKE that carries
 * the status word to the MI clock once per drain period, and the MI-side
 * status registers (PCIE_STATUS, PCIE_TAGS, PCIE_STFIFO).
 *
 * The handshake is ASYNC_BUS_HANDSHAKE with BLOAD = 1: a toggle (a_en)
 * crosses through an input register and three flops plus an edge detector
 * (SYNC_PGEN), the receiving FSM shows BVALID for one MI cycle and toggles
 * b_ack, which crosses back the same way and frees the transmit FSM.  A
 * tick that finds the transmit FSM waiting is dropped.
 */
#include "model/model_priv.h"

#include <string.h>

/* ADATAIN at a tick: the link configuration and the free counts of this
 * edge, the window minimums as they are before the edge. */
static void capture(struct ptm_ep *e, const struct ptm_pcie_in *in)
{
	struct ptm_aux_word *w = &e->hs.adata;
	/* PCIE_STATUS as the MI block shows it */
	w->cfg = (uint16_t)(pt_field_put(PT_FIELD_EP_MPS, in->mps) |
			    pt_field_put(PT_FIELD_EP_MRRS, in->mrrs) |
			    pt_field_put(PT_FIELD_EP_EXT_TAG, in->ext_tag_en) |
			    pt_field_put(PT_FIELD_EP_TAG_10B, in->tag10b_req_en) |
			    pt_field_put(PT_FIELD_EP_RCB, in->rcb_size) |
			    pt_field_put(PT_FIELD_EP_LINK_UP, in->link_up));
	w->tag_now = (uint16_t)(in->tag_free & PTM_TAG_MASK);
	w->tag_min = e->tag_win_min;
	w->stf_now = in->stfifo_free;
	w->stf_min = e->stf_win_min;
}

void ptm_aux_init(struct ptm_ep *e)
{
	/* FPGA initial values: registers without an init value start at 0;
	 * every vector starts with all resets asserted. */
	e->tag_band = e->stf_band = 0;
	e->tag_win_min = PTM_TAG_MASK;
	e->stf_win_min = PTM_STF_MASK;
	memset(&e->hs, 0, sizeof(e->hs));
	e->cfg = e->tag_now = e->stf_now = 0;
	e->tag_min = PTM_TAG_MASK;
	e->stf_min = PTM_STF_MASK;
}

void ptm_aux_pcie_edge(struct ptm_ep *e, const struct ptm_generics *g, const struct ptm_pcie_in *in,
		       int tick)
{
	const unsigned tag = in->tag_free & PTM_TAG_MASK, stf = in->stfifo_free;
	const int rst = in->rst != 0;
	struct ptm_hs *h = &e->hs;

	/* Transmit side of the handshake, from the values before the edge. */
	const int a_ack = h->ack_q3 ^ h->ack_q;
	const int send = tick && !h->a_wait;
	if (send) {
		capture(e, in);
	}
	uint8_t a_en = h->a_en;
	h->ack_q = h->ack_q3;
	h->ack_q3 = h->ack_q2;
	h->ack_q2 = h->ack_q1;
	h->ack_q1 = h->ack_d1;
	h->en_d1 = a_en;
	h->a_en = (uint8_t)(a_en ^ send);
	h->a_wait = h->a_wait ? (uint8_t)!a_ack : (uint8_t)(tick != 0);
	if (rst) {
		h->ack_q = h->ack_q1 = h->ack_q2 = h->ack_q3 = 0;
		h->en_d1 = 0;
		h->a_en = 0;
		h->a_wait = 0;
		memset(&h->adata, 0, sizeof(h->adata)); /* DATA_RESET = true */
	}

	/* Window minimum registers. */
	if (rst) {
		e->tag_win_min = PTM_TAG_MASK;
		e->stf_win_min = PTM_STF_MASK;
	} else if (tick) {
		e->tag_win_min = (uint16_t)tag;
		e->stf_win_min = (uint16_t)stf;
	} else {
		if (tag < e->tag_win_min)
			e->tag_win_min = (uint16_t)tag;
		if (stf < e->stf_win_min)
			e->stf_win_min = (uint16_t)stf;
	}

	/* Histogram band registers (the probe registers them once more). */
	if (rst) {
		e->tag_band = e->stf_band = 0;
	} else {
		e->tag_band = ptm_aux_band(tag, g->tag_capacity);
		e->stf_band = ptm_aux_band(stf, g->stfifo_capacity);
	}
}

void ptm_aux_mi_edge(struct ptm_ep *e, int rst, int clear)
{
	struct ptm_hs *h = &e->hs;
	const int b_en = h->en_q3 ^ h->en_q;
	const int bvalid = h->b_valid;

	/* Status registers of the MI clock, from BDATAOUT/BVALID before the edge. */
	if (bvalid) {
		e->cfg = h->bdata.cfg;
		e->stf_now = h->bdata.stf_now;
		e->tag_now = h->bdata.tag_now;
		if (h->bdata.stf_min < e->stf_min)
			e->stf_min = h->bdata.stf_min;
		if (h->bdata.tag_min < e->tag_min)
			e->tag_min = h->bdata.tag_min;
	}
	if (clear) {
		e->stf_min = PTM_STF_MASK;
		e->tag_min = PTM_TAG_MASK;
	}

	/* Receive side of the handshake. */
	uint8_t b_ack = h->b_ack;
	if (b_en)
		h->bdata = h->adata;
	h->ack_d1 = b_ack;
	h->b_ack = (uint8_t)(b_ack ^ bvalid);
	/* Receive FSM: ST0 -> ST1 on b_en; ST1 -> ST0 with BLOAD = 1. */
	h->b_valid = bvalid ? 0 : (uint8_t)b_en;
	h->en_q = h->en_q3;
	h->en_q3 = h->en_q2;
	h->en_q2 = h->en_q1;
	h->en_q1 = h->en_d1;

	if (rst) {
		memset(&h->bdata, 0, sizeof(h->bdata));
		h->ack_d1 = 0;
		h->b_ack = 0;
		h->b_valid = 0;
		h->en_q = h->en_q1 = h->en_q2 = h->en_q3 = 0;
		e->cfg = 0;
		e->stf_now = 0;
		e->tag_now = 0;
		e->stf_min = PTM_STF_MASK;
		e->tag_min = PTM_TAG_MASK;
	}
}

int ptm_aux_mi_quiet(const struct ptm_ep *e)
{
	const struct ptm_hs *h = &e->hs;
	return !h->b_valid && h->en_q1 == h->en_d1 && h->en_q2 == h->en_q1 &&
	       h->en_q3 == h->en_q2 && h->en_q == h->en_q3 && h->ack_d1 == h->b_ack;
}

void ptm_aux_pcie_edges(struct ptm_ep *e, const struct ptm_generics *g, const struct ptm_pcie_in *in,
			uint64_t n, uint64_t tick1, uint64_t period, uint8_t tb, uint8_t sb)
{
	uint64_t j = 1, t = tick1; /* the next edge, the next tick (0: none) */
	while (j <= n) {
		if (t && t < j) /* period is a power of two */
			t += (j - t + period - 1) & ~(period - 1);
		const int tick = t == j;
		if (!tick && ptm_aux_pcie_settled(e, in, tb, sb)) {
			if (!t || t > n)
				return;
			j = t;
			continue;
		}
		ptm_aux_pcie_edge(e, g, in, tick);
		j++;
	}
}
