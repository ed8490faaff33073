/*
 * pcie-telemetry: batches of MI edges of the probe model (the FIFO's read
 * side and the flag synchronisers), and the stretches in which neither
 * clock domain of a probe does more than count (ptm_probe_quiet_edges).
 * The CLK side's batches are probe_batch.c.
 */
#include "model/probe_impl.h"

/* Further MI edges with the same inputs change nothing (FIFO empty or not
 * read, CDC registers and flag synchronisers settled). */
static int mi_steady(const ptm_probe *p, int rd)
{
	const struct ptm_asfifo *f = &p->fifo;
	const int arst = p->rst_in | ((p->rsync >> 2) & 1) | p->mi_rst;
	if (f->rd_rff != (arst ? 7 : 0))
		return 0;
	if (p->mi_rst)
		return 1;
	if (p->oq1 != p->ovf || p->oq2 != p->ovf || p->vq1 != p->overrun || p->vq2 != p->overrun)
		return 0;
	if (arst)
		return 1;
	uint32_t g = f->wr_in_gray;
	if (f->wsync[0] != g || f->wsync[1] != g || f->wsync[2] != g)
		return 0;
	if (f->wr_synced_reg != asfifo_gray2bin(g) || f->rd_in_gray != asfifo_bin2gray(f->rd_cnt))
		return 0;
	if (f->vld_reg2 && !rd)
		return 1; /* read_request = 0: the output registers hold */
	/* read_request = 1: steady only when nothing is left to move (the
	 * data registers still load, but data that is not valid). */
	return f->rd_cnt == f->wr_synced_reg && !f->vld_reg && !f->vld_reg2;
}

/* The FIFO whose read side MI edges (MI_RESET = 0, MI_FLAG_CLR =
 * flag_clr, no CLK edge in between) move alone: no reset anywhere and no
 * flag-clear change; the caller steps the read side (pointers, output
 * registers, the write pointer's synchroniser) and reports with
 * ptm_probe_mi_drained().  NULL when an edge does more. */
struct ptm_asfifo *ptm_probe_mi_drain_fifo(ptm_probe *p, int flag_clr)
{
	struct ptm_asfifo *f = &p->fifo;
	if (p->slow || f->no_quiet || p->mi_rst || p->rst_in || (p->rsync & 4) ||
	    p->flag_lvl != (flag_clr != 0) || f->rd_rff)
		return NULL;
	return f;
}

void ptm_probe_mi_drained(ptm_probe *p, uint64_t pops, uint64_t edges)
{
	p->st.popped += pops;
	/* the FIFO_OVF and OVERRUN synchronisers: two flops each, and the
	 * flags do not move without CLK edges */
	if (edges >= 2) {
		p->oq2 = p->oq1 = p->ovf;
		p->vq2 = p->vq1 = p->overrun;
	} else if (edges) {
		p->oq2 = p->oq1;
		p->oq1 = p->ovf;
		p->vq2 = p->vq1;
		p->vq1 = p->overrun;
	}
	update_mi_hot(p);
}

uint64_t ptm_probe_mi_clk_batch(ptm_probe *p, int mi_rst, int flag_clr, int rd, uint64_t n,
				struct ptm_probe_mi_out *last)
{
	uint64_t pops = 0;
	struct ptm_probe_mi_out o;
	for (unsigned i = 0; i < 1 && n; i++, n--) {
		ptm_probe_mi_clk(p, mi_rst, flag_clr, rd, &o);
		if (o.vld) {
			pops++;
			if (last)
				*last = o;
		}
	}
	while (n && !mi_steady(p, rd)) {
		ptm_probe_mi_clk(p, mi_rst, flag_clr, rd, &o);
		n--;
		if (o.vld) {
			pops++;
			if (last)
				*last = o;
		}
	}
	/* Settled: only the data registers still load, unless a valid word
	 * waits for TX_RD (read_request = 0). */
	if (!(p->fifo.vld_reg2 && !rd))
		asfifo_rd_idle_loads(&p->fifo, n);
	return pops;
}

/* The counting-only condition of ptm_probe_quiet_edges() out of reset:
 * no reset anywhere, no sweep or FIFO write pending, the flag-clear
 * synchroniser and the FIFO's write side settled. */
static int clk_counting(const ptm_probe *p)
{
	const unsigned fl = p->flag_lvl;
	if (((unsigned)p->rst_in | p->rsync | p->run | p->wr_en | (p->fq1 ^ fl) | (p->fq2 ^ fl) |
	     (p->freg ^ fl)) != 0)
		return 0;
	return asfifo_wr_settled(&p->fifo, 0);
}

uint64_t ptm_probe_quiet_edges(const ptm_probe *p, int rst, int flag_clr, unsigned m)
{
	if (p->slow || p->mi_rst || (m && p->flag_lvl != (flag_clr != 0)))
		return 0;
	/* the read side: the FIFO empty (or held in reset) and every CDC
	 * register settled, so that MI edges move nothing */
	if (m && !mi_steady(p, 1))
		return 0;
	if (rst)
		return p->rst_in && clk_reset_steady(p) ? UINT64_MAX : 0;
	return clk_counting(p) ? ptm_probe_edges_to_tick(p) : 0;
}

void ptm_probe_quiet_run(ptm_probe *p, int rst, const struct ptm_bus_in *bus, uint32_t brake,
			 int flag_clr, unsigned m, uint64_t k)
{
	if (!k)
		return;
	ptm_probe_clk_batch(p, rst, bus, brake, k);
	/* k * m MI edges; beyond 2^64 the same (further edges of a steady
	 * read side change nothing) */
	if (m)
		ptm_probe_mi_clk_batch(p, 0, flag_clr, 1, k > UINT64_MAX / m ? UINT64_MAX : k * m,
				       NULL);
}
