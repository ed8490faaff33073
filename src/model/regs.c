/*
 * pcie-telemetry: the MI register block of PCIE_TELEMETRY_MI
 * (firmware-behavior.md 3.4): register decode with its aliases, command
 * pulses, the flag-clear level, READ_SEL and the two-stage read pipeline.
 */
#include "model/model_priv.h"

/* Value of the register at addr (bits 15 and above ignored), taken
 * combinationally at the request edge. */
uint32_t ptm_regs_value(const struct ptm_model *m, uint32_t addr)
{
	const struct ptm_generics *g = &m->g;
	const struct ptm_derived *d = &m->d;
	const unsigned sel = (addr >> 2) & 0xf;

	switch ((addr >> 6) & 3) {
	case 1:
		return sel < m->nep ? m->ep[sel].cfg : 0;
	case 2:
		return sel < m->nep ? (uint32_t)m->ep[sel].tag_min << 16 | m->ep[sel].tag_now : 0;
	case 3:
		return sel < m->nep ? (uint32_t)m->ep[sel].stf_min << 16 | m->ep[sel].stf_now : 0;
	default:
		break;
	}

	switch (sel) {
	case 0:
		return PTM_MAGIC;
	case 1:
		return PTM_VERSION;
	case 2:
		return (m->nstreams & 0xff) << 16 | (g->dma_ports & 0xff) << 8 |
		       (g->pcie_endpoints & 0xff);
	case 3:
		return (d->ep_channels & 0xff) << 24 | (g->cnt_width & 0xff) << 16 |
		       (d->entries & 0xffff);
	case 4:
		return (uint32_t)PTM_PCIE_BRAKES << 24 | (d->pcie_regions & 0xff) << 16 | 2u << 8 |
		       (d->pcie_channels & 0xff);
	case 5:
		return (d->dma_regions & 0xff) << 16 | (m->dma_buses & 0xff) << 8 |
		       (d->dma_channels & 0xff);
	case 6:
		return (g->mfb_item_bytes & 0xff) << 16 | (g->drain_period & 0xffff);
	case 7:
		return PTM_CNT_BASE;
	case 9: {
		uint32_t ovf = 0, overrun = 0;
		for (unsigned s = 0; s < m->nstreams; s++) {
			struct ptm_probe_mi_out o;
			ptm_probe_tx(m->ep[s / 2].probe[s % 2], &o);
			ovf |= o.fifo_ovf;
			overrun |= o.overrun;
		}
		return (overrun != 0) << 2 | (ovf != 0) << 1 | (uint32_t)ptm_acc_busy(&m->acc);
	}
	case 10:
		return m->regs.read_live;
	case 11:
		return (g->dma_down_mfb_regions & 0xff) << 24 | (g->dma_up_mfb_regions & 0xff) << 16 |
		       (g->pcie_rc_mfb_regions & 0xff) << 8 | (g->pcie_rq_mfb_regions & 0xff);
	case 12:
		return (g->pcie_rc_mfb_region_bytes & 0xffff) << 16 |
		       (g->pcie_rq_mfb_region_bytes & 0xffff);
	case 13:
		return 0u << 16 | 2u << 8 | PTM_HIST_LEVELS;
	case 14:
		return (g->stfifo_capacity & 0xffff) << 16 | (g->tag_capacity & 0xffff);
	case 15:
		return (g->dma_down_mfb_region_bytes & 0xffff) << 16 |
		       (g->dma_up_mfb_region_bytes & 0xffff);
	default: /* 8 = COMMAND (write only) */
		return 0;
	}
}

/* RD_ADDR of the counter memory's software port: {not READ_SEL, entry}. */
unsigned ptm_regs_acc_addr(const struct ptm_model *m, uint32_t addr)
{
	unsigned entry = (addr >> 3) & (m->d.entries - 1);
	return (m->regs.read_live ? 0 : m->d.entries) | entry;
}

void ptm_regs_edge(struct ptm_model *m, const struct ptm_mi_in *in, uint64_t acc_rd_data)
{
	struct ptm_regs *r = &m->regs;
	const unsigned cw = m->g.cnt_width;

	/* Output multiplexer (second read stage), from the registers before the edge. */
	if (!(r->addr_reg & 0x8000))
		r->drd = r->reg_dout_reg;
	else if (!(r->addr_reg & 4))
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
	if (in->wr && !(in->addr & 0x8000)) {
		switch ((in->addr >> 2) & 0x3f) {
		case 0x08:
			r->cmd_snap = in->dwr & 1;
			r->cmd_clear = (in->dwr >> 1) & 1;
			r->cmd_mark = (in->dwr >> 3) & 1;
			if (in->dwr & 4)
				r->flag_tgl ^= 1;
			break;
		case 0x0a:
			r->read_live = in->dwr & 1;
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
