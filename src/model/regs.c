/*
 * pcie-telemetry: the MI register block of PCIE_TELEMETRY_MI
 * (firmware-behavior.md 3.4): register decode with its aliases, command
 * pulses, the flag-clear level, READ_SEL and the two-stage read pipeline.
 */
#include "model/model_priv.h"

/* STATUS: busy, and the OR of every probe's synchronised flags. */
static uint32_t status_value(const struct ptm_model *m)
{
	uint32_t ovf = 0, overrun = 0;

	for (unsigned s = 0; s < m->nstreams; s++) {
		struct ptm_probe_mi_out o;
		ptm_probe_tx(m->ep[s / 2].probe[s % 2], &o);
		ovf |= o.fifo_ovf;
		overrun |= o.overrun;
	}
	return pt_field_put(PT_FIELD_STATUS_OVERRUN, overrun != 0) |
	       pt_field_put(PT_FIELD_STATUS_LOST_DELTAS, ovf != 0) |
	       pt_field_put(PT_FIELD_STATUS_BUSY, (uint32_t)ptm_acc_busy(&m->acc));
}

/* A per-endpoint register (0 beyond PCIE_ENDPOINTS). */
static uint32_t ep_value(const struct ptm_model *m, enum pt_addr_block block, unsigned ep)
{
	const struct ptm_ep *e = &m->ep[ep];

	if (ep >= m->nep)
		return 0;
	switch (block) {
	case PT_ADDR_BLOCK_PCIE_STATUS:
		return e->cfg;
	case PT_ADDR_BLOCK_PCIE_TAGS:
		return pt_field_put(PT_FIELD_TAGS_MIN, e->tag_min) |
		       pt_field_put(PT_FIELD_TAGS_NOW, e->tag_now);
	case PT_ADDR_BLOCK_PCIE_STFIFO:
		return pt_field_put(PT_FIELD_STFIFO_MIN, e->stf_min) |
		       pt_field_put(PT_FIELD_STFIFO_NOW, e->stf_now);
	default:
		return 0;
	}
}

/* Value of the register at addr (bits 15 and above ignored), taken
 * combinationally at the request edge. */
uint32_t ptm_regs_value(const struct ptm_model *m, uint32_t addr)
{
	const struct ptm_generics *g = &m->g;
	const struct ptm_derived *d = &m->d;

	if (pt_addr_block(addr) != PT_ADDR_BLOCK_CFG)
		return ep_value(m, pt_addr_block(addr), pt_addr_index(addr));
	switch (pt_addr_index(addr)) {
	case PT_REG_NUM(PT_REG_MAGIC):
		return PT_MAGIC;
	case PT_REG_NUM(PT_REG_VERSION):
		return pt_field_put(PT_FIELD_VERSION_MAJOR, PT_VERSION_MAJOR) |
		       pt_field_put(PT_FIELD_VERSION_MINOR, PT_VERSION_MINOR);
	case PT_REG_NUM(PT_REG_CFG_TOPOLOGY):
		return pt_field_put(PT_FIELD_TOPO_PROBES, m->nstreams) |
		       pt_field_put(PT_FIELD_TOPO_DMA_PORTS, g->dma_ports) |
		       pt_field_put(PT_FIELD_TOPO_ENDPOINTS, g->pcie_endpoints);
	case PT_REG_NUM(PT_REG_CFG_LAYOUT):
		return pt_field_put(PT_FIELD_LAYOUT_EP_CHANNELS, d->ep_channels) |
		       pt_field_put(PT_FIELD_LAYOUT_CNT_WIDTH, g->cnt_width) |
		       pt_field_put(PT_FIELD_LAYOUT_ENTRIES, d->entries);
	case PT_REG_NUM(PT_REG_CFG_PCIE):
		return pt_field_put(PT_FIELD_PCIE_BRAKES, PT_FW_PCIE_BRAKES) |
		       pt_field_put(PT_FIELD_PCIE_REGIONS, d->pcie_regions) |
		       pt_field_put(PT_FIELD_PCIE_BUSES, PT_FW_PCIE_BUSES) |
		       pt_field_put(PT_FIELD_PCIE_CHANNELS, d->pcie_channels);
	case PT_REG_NUM(PT_REG_CFG_DMA):
		return pt_field_put(PT_FIELD_DMA_REGIONS, d->dma_regions) |
		       pt_field_put(PT_FIELD_DMA_BUSES, m->dma_buses) |
		       pt_field_put(PT_FIELD_DMA_CHANNELS, d->dma_channels);
	case PT_REG_NUM(PT_REG_CFG_DRAIN):
		return pt_field_put(PT_FIELD_DRAIN_ITEM_BYTES, g->mfb_item_bytes) |
		       pt_field_put(PT_FIELD_DRAIN_PERIOD, g->drain_period);
	case PT_REG_NUM(PT_REG_CNT_BASE):
		return PT_CNT_WINDOW;
	case PT_REG_NUM(PT_REG_STATUS):
		return status_value(m);
	case PT_REG_NUM(PT_REG_READ_SEL):
		return pt_field_put(PT_FIELD_READ_SEL_LIVE, m->regs.read_live);
	case PT_REG_NUM(PT_REG_CFG_REGIONS):
		return pt_field_put(PT_FIELD_REGIONS_DOWN, g->dma_down_mfb_regions) |
		       pt_field_put(PT_FIELD_REGIONS_UP, g->dma_up_mfb_regions) |
		       pt_field_put(PT_FIELD_REGIONS_RC, g->pcie_rc_mfb_regions) |
		       pt_field_put(PT_FIELD_REGIONS_RQ, g->pcie_rq_mfb_regions);
	case PT_REG_NUM(PT_REG_CFG_WIDTH):
		return pt_field_put(PT_FIELD_WIDTH_RC_BYTES, g->pcie_rc_mfb_region_bytes) |
		       pt_field_put(PT_FIELD_WIDTH_RQ_BYTES, g->pcie_rq_mfb_region_bytes);
	case PT_REG_NUM(PT_REG_CFG_HIST):
		return pt_field_put(PT_FIELD_HIST_DMA, 0) |
		       pt_field_put(PT_FIELD_HIST_PCIE, PT_FW_PCIE_HISTS) |
		       pt_field_put(PT_FIELD_HIST_BANDS, PT_FW_HIST_BANDS);
	case PT_REG_NUM(PT_REG_CFG_CAPACITY):
		return pt_field_put(PT_FIELD_CAP_STFIFO, g->stfifo_capacity) |
		       pt_field_put(PT_FIELD_CAP_TAGS, g->tag_capacity);
	case PT_REG_NUM(PT_REG_CFG_WIDTH_DMA):
		return pt_field_put(PT_FIELD_WIDTH_DOWN_BYTES, g->dma_down_mfb_region_bytes) |
		       pt_field_put(PT_FIELD_WIDTH_UP_BYTES, g->dma_up_mfb_region_bytes);
	default: /* COMMAND (write only) */
		return 0;
	}
}

/* RD_ADDR of the counter memory's software port: {not READ_SEL, entry}. */
unsigned ptm_regs_acc_addr(const struct ptm_model *m, uint32_t addr)
{
	unsigned entry = pt_addr_entry(addr) & (m->d.entries - 1);
	return (m->regs.read_live ? 0 : m->d.entries) | entry;
}

void ptm_regs_edge(struct ptm_model *m, const struct ptm_mi_in *in, uint64_t acc_rd_data)
{
	struct ptm_regs *r = &m->regs;
	const unsigned cw = m->g.cnt_width;

	/* Output multiplexer (second read stage), from the registers before the edge. */
	if (!pt_addr_in_window(r->addr_reg))
		r->drd = r->reg_dout_reg;
	else if (!pt_addr_high_word(r->addr_reg))
		r->drd = (uint32_t)acc_rd_data;
	else
		r->drd = (uint32_t)((cw >= 64 ? acc_rd_data : acc_rd_data & ((1ull << cw) - 1)) >> 32);
	r->rd_reg2 = r->rd_reg;

	/* First read stage. */
	r->addr_reg = in->addr;
	r->reg_dout_reg = ptm_regs_value(m, in->addr);
	r->rd_reg = in->rd != 0;

	/* Writes. */
	r->cmd_snap = r->cmd_clear = r->cmd_mark = 0;
	if (in->wr && !pt_addr_in_window(in->addr)) {
		switch (pt_addr_reg(in->addr)) {
		case PT_REG_NUM(PT_REG_COMMAND):
			r->cmd_snap = (uint8_t)pt_field_get(PT_FIELD_COMMAND_SNAPSHOT, in->dwr);
			r->cmd_clear = (uint8_t)pt_field_get(PT_FIELD_COMMAND_CLEAR, in->dwr);
			r->cmd_mark = (uint8_t)pt_field_get(PT_FIELD_COMMAND_CLEAR_MARKS, in->dwr);
			if (pt_field_get(PT_FIELD_COMMAND_CLEAR_FLAGS, in->dwr))
				r->flag_tgl ^= 1;
			break;
		case PT_REG_NUM(PT_REG_READ_SEL):
			r->read_live = (uint8_t)pt_field_get(PT_FIELD_READ_SEL_LIVE, in->dwr);
			break;
		default:
			break;
		}
	}

	if (in->rst) {
		r->cmd_snap = r->cmd_clear = r->cmd_mark = 0;
		r->flag_tgl = 0;
		r->read_live = 0;
		r->rd_reg = r->rd_reg2 = 0;
	}
}
