/*
 * pcie-telemetry: flat-argument helpers shared by the DPI-C shim
 * (hdl/sv/ptm_dpi.c) and the VHPIDIRECT shim (hdl/vhdl/ptm_vhpi.c).
 *
 * HDL simulators pass ports as flat bit vectors packed exactly as the VHDL
 * ports of PCIE_TELEMETRY_MI and PCIE_TELEMETRY_PROBE are: field j of a
 * multi-field vector in bits [j*W+W-1 : j*W], bus b of a per-bus vector in
 * bit b.  These helpers unpack such vectors, given as 32-bit words with the
 * least significant word first (the layout of svBitVecVal), into the
 * structs of include/pcie_telemetry/model.h.  They add no behaviour: every
 * edge is exactly one call of the model API.
 *
 * Prefix: ptm_hdl_.  Not part of the model library: each simulator binding
 * compiles this file together with its own shim.
 */
#ifndef PTM_HDL_H
#define PTM_HDL_H

#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/model.h"

/* Widths of the flat vectors the bindings take (the model's limits):
 * buses*regions bits, their EOF_POS fields, and one bit per bus. */
#define PTM_HDL_VEC_BITS (PTM_MAX_PROBE_BUSES * PTM_MAX_REGIONS)  /* 512 */
#define PTM_HDL_POS_BITS (PTM_HDL_VEC_BITS * 16)                  /* 8192 */
#define PTM_HDL_PCIE_VEC_BITS (2 * PTM_MAX_REGIONS)               /* 32 */
#define PTM_HDL_PCIE_POS_BITS (PTM_HDL_PCIE_VEC_BITS * 16)        /* 512 */
#define PTM_HDL_WORDS(bits) (((bits) + 31) / 32)

/* The generics of PCIE_TELEMETRY_MI in the order of the component trace
 * header (and of the HDL packages' ptm_new arguments). */
#define PTM_HDL_NGENERICS 17

/* One PCIE_TELEMETRY_MI instance: the model, the constants the unpacking
 * needs, and the DMA-domain inputs last given for each endpoint (the DMA
 * clock is shared by every endpoint, so its inputs arrive in one call per
 * endpoint and are held like signals until the next call changes them). */
struct ptm_hdl {
	ptm_model *m;
	unsigned endpoints, pr, dr, db; /* PCIe regions, DMA regions, DMA buses */
	unsigned pcie_pos_w, dma_pos_w;
	struct ptm_bus_in dma[];        /* endpoints * db */
};

/* One PCIE_TELEMETRY_PROBE on its own. */
struct ptm_hdl_probe {
	ptm_probe *p;
	unsigned buses, regions, pos_w;
};

/* The MFB/MVB vectors of several buses for one edge.  Word arrays may be
 * NULL (all zero). */
struct ptm_hdl_vecs {
	const uint32_t *sof, *eof, *eof_pos, *mvb_vld;
	uint32_t src_rdy, dst_rdy, mvb_src_rdy, mvb_dst_rdy;
};

/* Create a model from the generics in header order.  Returns 0, or
 * -EINVAL (the message of ptm_hdl_last_error() names the generic) or
 * -ENOMEM. */
int ptm_hdl_new(const uint32_t gen[PTM_HDL_NGENERICS], struct ptm_hdl **out);
void ptm_hdl_free(struct ptm_hdl *h);

/* Create a probe; region_items has `buses` entries.  Returns 0 or a
 * negative errno, message in ptm_hdl_last_error(). */
int ptm_hdl_probe_new(unsigned buses, unsigned regions, const uint32_t *region_items,
		      unsigned eof_pos_width, unsigned brakes, unsigned drain_period,
		      struct ptm_hdl_probe **out);
void ptm_hdl_probe_free(struct ptm_hdl_probe *hp);

/* Unpack bus-major vectors of nbus buses with `regions` regions each and
 * EOF_POS fields of pos_w bits into bus[0..nbus-1]. */
void ptm_hdl_buses(struct ptm_bus_in *bus, unsigned nbus, unsigned regions, unsigned pos_w,
		   const struct ptm_hdl_vecs *v);

/* The PCIe-domain inputs of one endpoint: RQ is bus 0, RC bus 1. */
void ptm_hdl_pcie_buses(const struct ptm_hdl *h, struct ptm_pcie_in *in, const uint32_t *sof,
			const uint32_t *eof, const uint32_t *eof_pos, uint32_t src_rdy,
			uint32_t dst_rdy);

/* Hold the DMA-domain inputs of endpoint ep for the next DMA edges
 * (ep >= endpoints: ignored). */
void ptm_hdl_dma_in(struct ptm_hdl *h, unsigned ep, const struct ptm_hdl_vecs *v);

/* The one-line message of the last failed ptm_hdl_*new of this thread
 * ("" when none failed). */
const char *ptm_hdl_last_error(void);

#endif
