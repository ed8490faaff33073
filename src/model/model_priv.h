/*
 * pcie-telemetry: private state of the PCIE_TELEMETRY_MI model.
 *
 * model.c   the component: creation, the three kinds of clock edges,
 *           batches and the MI convenience calls
 * acc.c     PCIE_TELEMETRY_ACC (counter memory)
 * aux.c     per-endpoint PCIe-clock status path: histogram bands, window
 *           minimum registers, ASYNC_BUS_HANDSHAKE, MI status registers
 * regs.c    MI register decode, command pulses, read pipeline
 * generics.c generics, constraints, derived constants
 */
#ifndef PTM_MODEL_PRIV_H
#define PTM_MODEL_PRIV_H

#include <stdint.h>

#include "model/acc.h"
#include "pcie_telemetry/model.h"
#include "pcie_telemetry/regs.h" /* the register map the MI block encodes */

/* The counter window (0x8000..0xFFFF) holds 4096 counters of 8 bytes. */
#define PTM_MAX_ENTRIES ((PT_COMP_SPAN - PT_CNT_WINDOW) / 8u)
#define PTM_MAX_STREAMS (2 * PTM_MAX_ENDPOINTS)
#define PTM_TAG_MASK 0x7ffu
#define PTM_STF_MASK 0xffffu

#include "model/util.h" /* ptm_log2c */

/* The status word that crosses from the PCIe clock of one endpoint. */
struct ptm_aux_word {
	uint16_t cfg;      /* link up, RCB, 10b tag, ext tag, MRRS, MPS */
	uint16_t stf_now, stf_min;
	uint16_t tag_now, tag_min;
};

/* ASYNC_BUS_HANDSHAKE (A = PCIe clock, B = MI clock, BLOAD = 1). */
struct ptm_hs {
	/* A side */
	uint8_t a_wait;            /* transmit FSM in ST1 (not ready) */
	uint8_t a_en;              /* toggled per transfer */
	uint8_t en_d1;             /* open loop input register of a_en (A clock) */
	uint8_t ack_q1, ack_q2, ack_q3, ack_q; /* b_ack synchroniser + pulse gen (A clock) */
	struct ptm_aux_word adata;
	/* B side */
	uint8_t en_q1, en_q2, en_q3, en_q;     /* a_en synchroniser + pulse gen (B clock) */
	uint8_t b_valid;           /* receive FSM in ST1 = BVALID */
	uint8_t b_ack;             /* toggled per accepted word */
	uint8_t ack_d1;            /* open loop input register of b_ack (B clock) */
	struct ptm_aux_word bdata;
};

/* One endpoint.  The PCIe-clock part is written only by the endpoint's
 * PCIe edges (and by MI edges), so that two endpoints' PCIe edges may run
 * on two threads; a cache line of its own keeps them apart. */
struct ptm_ep {
	_Alignas(64) ptm_probe *probe[2]; /* 0 = PCIe clock probe, 1 = DMA clock probe */
	uint8_t mi_dirty;          /* a PCIe edge since the last MI edge */
	/* PCIe clock */
	uint8_t tag_band, stf_band;        /* one-hot band registers */
	uint16_t tag_win_min, stf_win_min; /* window minimum registers */
	struct ptm_hs hs;
	/* MI clock: PCIE_STATUS / PCIE_TAGS / PCIE_STFIFO */
	uint16_t cfg, tag_now, tag_min, stf_now, stf_min;
};

struct ptm_regs {
	uint8_t cmd_snap, cmd_clear, cmd_mark; /* one-cycle command pulses */
	uint8_t flag_tgl;          /* MI_FLAG_CLR level of the probes */
	uint8_t read_live;         /* READ_SEL */
	uint8_t rd_reg, rd_reg2;   /* read pipeline; rd_reg2 = MI_DRDY */
	uint32_t addr_reg, reg_dout_reg;
	uint32_t drd;              /* MI_DRD */
};

struct ptm_model {
	struct ptm_generics g;
	struct ptm_derived d;
	unsigned nep, nstreams;
	unsigned dma_buses;        /* 2*DMA_PORTS per endpoint */
	unsigned entry_awidth;
	unsigned stream_base[PTM_MAX_STREAMS];
	struct ptm_ep ep[PTM_MAX_ENDPOINTS];
	struct ptm_acc acc;
	struct ptm_regs regs;
	uint8_t mi_rst;            /* MI_RESET level of the last MI edge */
	uint8_t dma_dirty;         /* a DMA edge since the last MI edge */
	/* MI edges since the last edge of another domain or MI reset change:
	 * once large, every MI-side synchroniser holds a settled value. */
	uint64_t mi_quiet;
	struct ptm_acc_stream tx_last[PTM_MAX_STREAMS]; /* FIFO output registers */
	uint64_t mem[]; /* 2*entries counter words */
};

/* aux.c */
/* The one-hot histogram band of a free count: none, up to an eighth, up
 * to a half, the rest. */
static inline uint8_t ptm_aux_band(unsigned v, unsigned capacity)
{
	return v == 0 ? 1 : v <= capacity / 8 ? 2 : v <= capacity / 2 ? 4 : 8;
}
/* PCIe-side part of one PCIe edge after the probe edge (tick = its DRAIN_TICK). */
void ptm_aux_pcie_edge(struct ptm_ep *e, const struct ptm_generics *g, const struct ptm_pcie_in *in,
		       int tick);
/* A PCIe edge without tick and reset changes nothing: the acknowledge
 * path settled, the enable register caught up, the window minimums and
 * the bands (tb, sb: of these inputs) already hold what the inputs give. */
static inline int ptm_aux_pcie_settled(const struct ptm_ep *e, const struct ptm_pcie_in *in,
				       uint8_t tb, uint8_t sb)
{
	const struct ptm_hs *h = &e->hs;
	const unsigned tag = in->tag_free & PTM_TAG_MASK, stf = in->stfifo_free;
	return h->ack_q == h->ack_q3 && h->ack_q3 == h->ack_q2 && h->ack_q2 == h->ack_q1 &&
	       h->ack_q1 == h->ack_d1 && h->en_d1 == h->a_en && e->tag_win_min <= tag &&
	       e->stf_win_min <= stf && e->tag_band == tb && e->stf_band == sb;
}
/* n PCIe edges with these inputs (no reset): exactly n calls of
 * ptm_aux_pcie_edge() with DRAIN_TICK at edges tick1, tick1 + period, ...
 * (1-based; tick1 = 0: none), in O(ticks).  tb, sb: the bands of the
 * inputs (ptm_aux_band). */
void ptm_aux_pcie_edges(struct ptm_ep *e, const struct ptm_generics *g, const struct ptm_pcie_in *in,
			uint64_t n, uint64_t tick1, uint64_t period, uint8_t tb, uint8_t sb);
/* MI-side part of one MI edge; clear = CLEAR or clear-marks pulse before the edge. */
void ptm_aux_mi_edge(struct ptm_ep *e, int rst, int clear);
/* True when no status word is in flight and the MI side is settled. */
int ptm_aux_mi_quiet(const struct ptm_ep *e);
void ptm_aux_init(struct ptm_ep *e);

/* drain.c: up to n idle MI edges (MI_RESET = 0) in one run while the ACC
 * adds deltas; the number done, 0 when the run does not apply (see the
 * file). */
uint64_t ptm_mi_drain(struct ptm_model *m, uint64_t n);

/* regs.c */
uint32_t ptm_regs_value(const struct ptm_model *m, uint32_t addr);
/* Register-block part of one MI edge (writes, pulses, read pipeline);
 * acc_rd_data = the port B read register before the edge. */
void ptm_regs_edge(struct ptm_model *m, const struct ptm_mi_in *in, uint64_t acc_rd_data);
unsigned ptm_regs_acc_addr(const struct ptm_model *m, uint32_t addr);

#endif
