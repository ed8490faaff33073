/*
 * pcie-telemetry: DPI-C shim of the firmware model for SystemVerilog
 * (the imports are in pcie_telemetry_pkg.sv, same argument order).
 *
 * Each function unpacks its flat arguments (svBitVecVal vectors packed as
 * the VHDL ports are) and makes exactly one call of the model API of
 * include/pcie_telemetry/model.h.  A chandle is a struct ptm_hdl (whole
 * PCIE_TELEMETRY_MI) or a struct ptm_hdl_probe (PCIE_TELEMETRY_PROBE).
 *
 * Build: compile with the simulator's svdpi.h on the include path,
 * together with hdl/common/ptm_hdl.c, and link libpcie-telemetry-model
 * (hdl/README.md).
 */
#include <stdint.h>

#include "svdpi.h"

#include "ptm_hdl.h"

/* The prototypes, as the SV imports declare them (no header: the
 * simulator generates its own from the package). */
void *ptm_dpi_new_g(const uint32_t *gen);
const char *ptm_dpi_error(void);
void ptm_dpi_free(void *m);
void ptm_dpi_pcie_edge(void *m, uint32_t ep, svBit rst, uint32_t sof, uint32_t eof,
		       const svBitVecVal *eof_pos, uint32_t src_rdy, uint32_t dst_rdy,
		       uint32_t brake, uint32_t stfifo_free, uint32_t tag_free, uint32_t mps,
		       uint32_t mrrs, svBit ext_tag_en, svBit tag10b_req_en, svBit rcb_size,
		       svBit link_up);
void ptm_dpi_dma_in(void *m, uint32_t ep, const svBitVecVal *sof, const svBitVecVal *eof,
		    const svBitVecVal *eof_pos, uint32_t src_rdy, uint32_t dst_rdy,
		    const svBitVecVal *mvb_vld, uint32_t mvb_src_rdy, uint32_t mvb_dst_rdy);
void ptm_dpi_dma_edge(void *m, svBit rst);
void ptm_dpi_mi_edge(void *m, svBit rst, svBit rd, svBit wr, uint32_t addr, uint32_t dwr,
		     uint32_t *drd, svBit *drdy, svBit *ardy);
uint32_t ptm_dpi_mi_read(void *m, uint32_t addr);
void ptm_dpi_mi_write(void *m, uint32_t addr, uint32_t data);
void *ptm_dpi_probe_new(uint32_t buses, uint32_t regions, const uint32_t *region_items,
			uint32_t eof_pos_width, uint32_t brakes, uint32_t drain_period);
void ptm_dpi_probe_free(void *p);
uint32_t ptm_dpi_probe_channels(void *p);
void ptm_dpi_probe_clk(void *p, svBit rst, const svBitVecVal *sof, const svBitVecVal *eof,
		       const svBitVecVal *eof_pos, uint32_t src_rdy, uint32_t dst_rdy,
		       uint32_t brake, const svBitVecVal *mvb_vld, uint32_t mvb_src_rdy,
		       uint32_t mvb_dst_rdy, svBit *drain_tick, svBit *wr_en, svBit *wr_dropped,
		       uint32_t *wr_index, uint64_t *wr_delta, svBit *fifo_flushed);
void ptm_dpi_probe_mi_clk(void *p, svBit mi_rst, svBit flag_clr, svBit rd, svBit *vld,
			  uint32_t *index, uint64_t *delta, svBit *fifo_ovf, svBit *overrun);
void ptm_dpi_probe_tx(void *p, svBit *vld, uint32_t *index, uint64_t *delta, svBit *fifo_ovf,
		      svBit *overrun);

/* gen: the PTM_HDL_NGENERICS generics in the order of ptm_dpi_new. */
void *ptm_dpi_new_g(const uint32_t *gen)
{
	struct ptm_hdl *h;
	return ptm_hdl_new(gen, &h) ? NULL : h;
}

const char *ptm_dpi_error(void)
{
	return ptm_hdl_last_error();
}

void ptm_dpi_free(void *m)
{
	ptm_hdl_free(m);
}

void ptm_dpi_pcie_edge(void *m, uint32_t ep, svBit rst, uint32_t sof, uint32_t eof,
		       const svBitVecVal *eof_pos, uint32_t src_rdy, uint32_t dst_rdy,
		       uint32_t brake, uint32_t stfifo_free, uint32_t tag_free, uint32_t mps,
		       uint32_t mrrs, svBit ext_tag_en, svBit tag10b_req_en, svBit rcb_size,
		       svBit link_up)
{
	struct ptm_hdl *h = m;
	struct ptm_pcie_in in = {
		.rst = rst & 1,
		.brake = (uint8_t)(brake & 0x3f),
		.stfifo_free = (uint16_t)stfifo_free,
		.tag_free = (uint16_t)(tag_free & 0x7ff),
		.mps = (uint8_t)(mps & 7),
		.mrrs = (uint8_t)(mrrs & 7),
		.ext_tag_en = ext_tag_en & 1,
		.tag10b_req_en = tag10b_req_en & 1,
		.rcb_size = rcb_size & 1,
		.link_up = link_up & 1,
	};
	ptm_hdl_pcie_buses(h, &in, &sof, &eof, eof_pos, src_rdy, dst_rdy);
	ptm_pcie_edge(h->m, ep, &in);
}

void ptm_dpi_dma_in(void *m, uint32_t ep, const svBitVecVal *sof, const svBitVecVal *eof,
		    const svBitVecVal *eof_pos, uint32_t src_rdy, uint32_t dst_rdy,
		    const svBitVecVal *mvb_vld, uint32_t mvb_src_rdy, uint32_t mvb_dst_rdy)
{
	const struct ptm_hdl_vecs v = {
		.sof = sof, .eof = eof, .eof_pos = eof_pos, .mvb_vld = mvb_vld,
		.src_rdy = src_rdy, .dst_rdy = dst_rdy,
		.mvb_src_rdy = mvb_src_rdy, .mvb_dst_rdy = mvb_dst_rdy,
	};
	ptm_hdl_dma_in(m, ep, &v);
}

void ptm_dpi_dma_edge(void *m, svBit rst)
{
	struct ptm_hdl *h = m;
	ptm_dma_edge(h->m, rst & 1, h->dma);
}

void ptm_dpi_mi_edge(void *m, svBit rst, svBit rd, svBit wr, uint32_t addr, uint32_t dwr,
		     uint32_t *drd, svBit *drdy, svBit *ardy)
{
	struct ptm_hdl *h = m;
	const struct ptm_mi_in in = {
		.rst = rst & 1, .rd = rd & 1, .wr = wr & 1, .addr = addr, .dwr = dwr,
	};
	struct ptm_mi_out out;
	ptm_mi_edge(h->m, &in, &out);
	*drd = out.drd;
	*drdy = out.drdy;
	*ardy = out.ardy;
}

uint32_t ptm_dpi_mi_read(void *m, uint32_t addr)
{
	return ptm_mi_read(((struct ptm_hdl *)m)->m, addr);
}

void ptm_dpi_mi_write(void *m, uint32_t addr, uint32_t data)
{
	ptm_mi_write(((struct ptm_hdl *)m)->m, addr, data);
}

void *ptm_dpi_probe_new(uint32_t buses, uint32_t regions, const uint32_t *region_items,
			uint32_t eof_pos_width, uint32_t brakes, uint32_t drain_period)
{
	struct ptm_hdl_probe *hp;
	return ptm_hdl_probe_new(buses, regions, region_items, eof_pos_width, brakes, drain_period,
				 &hp)
		       ? NULL
		       : hp;
}

void ptm_dpi_probe_free(void *p)
{
	ptm_hdl_probe_free(p);
}

uint32_t ptm_dpi_probe_channels(void *p)
{
	return ptm_probe_channels(((struct ptm_hdl_probe *)p)->p);
}

void ptm_dpi_probe_clk(void *p, svBit rst, const svBitVecVal *sof, const svBitVecVal *eof,
		       const svBitVecVal *eof_pos, uint32_t src_rdy, uint32_t dst_rdy,
		       uint32_t brake, const svBitVecVal *mvb_vld, uint32_t mvb_src_rdy,
		       uint32_t mvb_dst_rdy, svBit *drain_tick, svBit *wr_en, svBit *wr_dropped,
		       uint32_t *wr_index, uint64_t *wr_delta, svBit *fifo_flushed)
{
	struct ptm_hdl_probe *hp = p;
	const struct ptm_hdl_vecs v = {
		.sof = sof, .eof = eof, .eof_pos = eof_pos, .mvb_vld = mvb_vld,
		.src_rdy = src_rdy, .dst_rdy = dst_rdy,
		.mvb_src_rdy = mvb_src_rdy, .mvb_dst_rdy = mvb_dst_rdy,
	};
	struct ptm_bus_in bus[PTM_MAX_PROBE_BUSES];
	struct ptm_probe_clk_out out;
	ptm_hdl_buses(bus, hp->buses, hp->regions, hp->pos_w, &v);
	ptm_probe_clk(hp->p, rst & 1, bus, brake, &out);
	*drain_tick = out.drain_tick;
	*wr_en = out.wr_en;
	*wr_dropped = out.wr_dropped;
	*wr_index = out.wr_index;
	*wr_delta = out.wr_delta;
	*fifo_flushed = out.fifo_flushed;
}

static void mi_out(const struct ptm_probe_mi_out *o, svBit *vld, uint32_t *index,
		   uint64_t *delta, svBit *fifo_ovf, svBit *overrun)
{
	*vld = o->vld;
	*index = o->index;
	*delta = o->delta;
	*fifo_ovf = o->fifo_ovf;
	*overrun = o->overrun;
}

void ptm_dpi_probe_mi_clk(void *p, svBit mi_rst, svBit flag_clr, svBit rd, svBit *vld,
			  uint32_t *index, uint64_t *delta, svBit *fifo_ovf, svBit *overrun)
{
	struct ptm_probe_mi_out o;
	ptm_probe_mi_clk(((struct ptm_hdl_probe *)p)->p, mi_rst & 1, flag_clr & 1, rd & 1, &o);
	mi_out(&o, vld, index, delta, fifo_ovf, overrun);
}

void ptm_dpi_probe_tx(void *p, svBit *vld, uint32_t *index, uint64_t *delta, svBit *fifo_ovf,
		      svBit *overrun)
{
	struct ptm_probe_mi_out o;
	ptm_probe_tx(((struct ptm_hdl_probe *)p)->p, &o);
	mi_out(&o, vld, index, delta, fifo_ovf, overrun);
}
