/*
 * pcie-telemetry: cycle-exact ASFIFOX model (see asfifo.h).
 */
#include "model/asfifo.h"

#include <string.h>


static void reset_regs(struct ptm_asfifo *f)
{
	f->full_reg = 1;
	f->vld_reg = 0;
	f->vld_reg2 = 0;
	f->wr_cnt = 0;
	f->wr_in_gray = 0;
	f->rsync[0] = f->rsync[1] = f->rsync[2] = 0;
	f->rd_synced_reg = 0;
	f->rd_cnt = 0;
	f->rd_cnt_mem = 0;
	f->rd_in_gray = 0;
	f->wsync[0] = f->wsync[1] = f->wsync[2] = 0;
	f->wr_synced_reg = 0;
}

void asfifo_init(struct ptm_asfifo *f, uint32_t items, struct ptm_fifo_entry *mem)
{
	memset(f, 0, sizeof(*f));
	f->items = items;
	f->mem_mask = items - 1;
	f->ptr_mask = 2 * items - 1;
	f->mem = mem;
	memset(mem, 0, items * sizeof(*mem));
	/* Power-up: the ASYNC_RESET flops start at 1, so both sides are in
	 * reset until three edges of their own clock; the CDC registers of
	 * ASYNC_OPEN_LOOP_SMD start at 0 and the counters are reset. */
	f->wr_rff = 7;
	f->rd_rff = 7;
	reset_regs(f);
	f->in_reset = 1;
}

uint64_t asfifo_arst(struct ptm_asfifo *f)
{
	f->wr_quiet = 0;
	f->rd_quiet = 0;
	f->wr_rff = 7;
	f->rd_rff = 7;
	uint64_t lost = f->accepted - f->gone;
	f->gone = f->accepted;
	if (!f->in_reset) {
		reset_regs(f);
		f->in_reset = 1;
	}
	return lost;
}

/* The registers of a write edge out of reset after the write itself
 * (allow: an entry went in): the pointer, WR_FULL, the pointer towards
 * the read side, the read pointer's synchroniser. */
static inline void wr_tail(struct ptm_asfifo *f, uint32_t allow, int wr_en)
{
	uint32_t next = (f->wr_cnt + allow) & f->ptr_mask;
	f->full_reg = (uint8_t)((next ^ f->rd_synced_reg) == f->items);
	uint32_t wg = asfifo_bin2gray(f->wr_cnt);
	if (wg != f->wr_in_gray)
		f->rd_quiet = 0;
	f->wr_in_gray = wg;
	f->rd_synced_reg = asfifo_gray2bin(f->rsync[2]);
	f->rsync[2] = f->rsync[1];
	f->rsync[1] = f->rsync[0];
	f->rsync[0] = f->rd_in_gray;
	f->wr_cnt = next;
	if (allow)
		f->accepted++;
	f->wr_quiet = (uint8_t)(!wr_en && !f->no_quiet && asfifo_wr_settled(f, 0));
}

int asfifo_wr_edge(struct ptm_asfifo *f, int arst, int wr_en, const struct ptm_fifo_entry *data,
		   int *dropped)
{
	int held = (f->wr_rff >> 2) & 1;
	f->wr_rff = arst ? 7 : (uint8_t)((f->wr_rff << 1) & 7);
	if (held) {
		/* Write side held in reset: WR_FULL = 1, so a write is refused. */
		if (dropped)
			*dropped = wr_en != 0;
		return 0;
	}
	f->in_reset = 0;
	int allow = wr_en && !f->full_reg;
	if (dropped)
		*dropped = wr_en && f->full_reg;
	if (allow) {
		f->mem[f->wr_cnt & f->mem_mask] = *data;
		f->rd_quiet = 0; /* the LUT output may change */
	}
	wr_tail(f, (uint32_t)allow, wr_en);
	return allow;
}

uint64_t asfifo_wr_idle_edges(struct ptm_asfifo *f, uint64_t k)
{
	uint64_t i = 0;
	while (i < k && !f->wr_quiet) {
		i++;
		int held = (f->wr_rff >> 2) & 1;
		f->wr_rff = (uint8_t)((f->wr_rff << 1) & 7);
		if (held)
			continue;
		f->in_reset = 0;
		wr_tail(f, 0, 0);
	}
	return i;
}

int asfifo_rd_edge(struct ptm_asfifo *f, int arst, int rd, struct ptm_fifo_entry *popped)
{
	if (f->rd_quiet && !arst) {
		asfifo_rd_idle_loads(f, 1);
		return 0;
	}
	int held = (f->rd_rff >> 2) & 1;
	f->rd_rff = arst ? 7 : (uint8_t)((f->rd_rff << 1) & 7);
	if (held) {
		/* valid flags held at 0, so read_request = 1 */
		asfifo_rd_idle_loads(f, 1);
		return 0;
	}
	f->in_reset = 0;
	int pop = rd && f->vld_reg2;
	if (pop) {
		if (popped)
			*popped = f->dout_reg2;
		f->gone++;
	}
	int req = rd || !f->vld_reg2;
	int ram_vld = f->rd_cnt != f->wr_synced_reg;
	if (req) {
		f->dout_reg2 = f->dout_reg;
		f->vld_reg2 = f->vld_reg;
		f->dout_reg = f->mem[f->rd_cnt_mem & f->mem_mask];
		f->vld_reg = (uint8_t)ram_vld;
	}
	uint32_t rg = asfifo_bin2gray(f->rd_cnt);
	if (rg != f->rd_in_gray)
		f->wr_quiet = 0;
	f->rd_in_gray = rg;
	if (req && ram_vld) {
		f->rd_cnt = (f->rd_cnt + 1) & f->ptr_mask;
		f->rd_cnt_mem = (f->rd_cnt_mem + 1) & f->mem_mask;
	}
	f->wr_synced_reg = asfifo_gray2bin(f->wsync[2]);
	f->wsync[2] = f->wsync[1];
	f->wsync[1] = f->wsync[0];
	f->wsync[0] = f->wr_in_gray;
	/* Quiet: out of reset, the write pointer fully synchronised, nothing
	 * stored and nothing in the output registers.  The data registers
	 * would still load, but only data that is not valid. */
	asfifo_rd_requiet(f);
	return pop;
}

void asfifo_rd_requiet(struct ptm_asfifo *f)
{
	uint32_t g = f->wr_in_gray;
	f->rd_quiet = (uint8_t)(!f->no_quiet && f->rd_rff == 0 && f->wsync[0] == g && f->wsync[1] == g &&
				f->wsync[2] == g && f->wr_synced_reg == asfifo_gray2bin(g) &&
				f->rd_in_gray == asfifo_bin2gray(f->rd_cnt) && f->rd_cnt == f->wr_synced_reg &&
				!f->vld_reg && !f->vld_reg2);
}

int asfifo_wr_settled(const struct ptm_asfifo *f, int arst)
{
	if (arst || (f->wr_rff & 7))
		return arst && f->wr_rff == 7;
	uint32_t g = f->rd_in_gray;
	if (f->rsync[0] != g || f->rsync[1] != g || f->rsync[2] != g)
		return 0;
	if (f->rd_synced_reg != asfifo_gray2bin(g) || f->wr_in_gray != asfifo_bin2gray(f->wr_cnt))
		return 0;
	return f->full_reg == (uint8_t)((f->wr_cnt ^ f->rd_synced_reg) == f->items);
}
