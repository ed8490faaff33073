/*
 * pcie-telemetry: cycle-exact model of CESNET ASFIFOX as the probe uses it
 * (RAM_TYPE "LUT" behavioural GEN_LUTRAM, FWFT_MODE, OUTPUT_REG, ITEMS a
 * power of two).  Private to src/model/.
 *
 * Structure (per the RTL):
 *  - one ASYNC_RESET (3 flops, set asynchronously) per side on
 *    arst = WR_RST or RD_RST; registers of a side are held in reset while
 *    its third flop is 1, so a side leaves reset 3 of its own edges after
 *    arst falls;
 *  - write side: binary write pointer, memory write when WR_EN and not
 *    WR_FULL, WR_FULL registered from the next write pointer and the
 *    synchronised read pointer (conservative), power-up/reset value 1;
 *  - pointers cross as Gray code through ASYNC_OPEN_LOOP_SMD: a source
 *    clock input register, three destination flops, then a binary
 *    register in the destination domain;
 *  - read side: asynchronous LUT read registered in the read clock, a
 *    second output register; both advance on read_request =
 *    RD_EN or not valid (first word fall through).
 *
 * The caller drives the asynchronous reset level: asfifo_arst() whenever
 * arst is 1 (idempotent), and passes the level to every edge.
 */
#ifndef PTM_ASFIFO_H
#define PTM_ASFIFO_H

#include <stddef.h>
#include <stdint.h>

/* The pointers cross in Gray code. */
static inline uint32_t asfifo_bin2gray(uint32_t b) { return b ^ (b >> 1); }

static inline uint32_t asfifo_gray2bin(uint32_t g)
{
	g ^= g >> 16;
	g ^= g >> 8;
	g ^= g >> 4;
	g ^= g >> 2;
	g ^= g >> 1;
	return g;
}

struct ptm_fifo_entry {
	uint64_t delta;
	uint16_t index;
};

struct ptm_asfifo {
	uint32_t items;      /* ITEMS, a power of two >= 2 */
	uint32_t mem_mask;   /* ITEMS-1 */
	uint32_t ptr_mask;   /* 2*ITEMS-1 (ADDR_WIDTH bits) */
	uint8_t wr_rff;      /* ASYNC_RESET flops of the write side: bit0 ff1, bit2 ff3 */
	uint8_t rd_rff;
	uint8_t full_reg;    /* WR_FULL */
	uint8_t vld_reg;     /* ram_vld_reg */
	uint8_t vld_reg2;    /* ram_vld_reg2 = not RD_EMPTY */
	uint8_t in_reset;    /* all reset-able registers hold their reset values */
	uint8_t wr_quiet;    /* a write edge without WR_EN changes nothing */
	uint8_t rd_quiet;    /* a read edge changes nothing (empty, settled) */
	uint8_t no_quiet;    /* testing: never take the quiet shortcuts */
	/* write clock domain */
	uint32_t wr_cnt;
	uint32_t wr_in_gray;           /* SMD input register (write clock) */
	uint32_t rsync[3];             /* read pointer, three write-clock flops */
	uint32_t rd_synced_reg;
	/* read clock domain */
	uint32_t rd_cnt, rd_cnt_mem;
	uint32_t rd_in_gray;           /* SMD input register (read clock) */
	uint32_t wsync[3];
	uint32_t wr_synced_reg;
	struct ptm_fifo_entry dout_reg, dout_reg2;
	/* bookkeeping, not hardware */
	uint64_t accepted;  /* writes accepted since power-up */
	uint64_t gone;      /* of those, popped or discarded by a reset */
	struct ptm_fifo_entry *mem;
};

/* Power-up state; mem must hold `items` entries (zeroed here). */
void asfifo_init(struct ptm_asfifo *f, uint32_t items, struct ptm_fifo_entry *mem);

/* arst = WR_RST or RD_RST is 1 now: set both reset synchronisers, reset
 * the pointers and valid flags.  Returns the number of accepted entries
 * that were still in the FIFO (now lost). */
uint64_t asfifo_arst(struct ptm_asfifo *f);

/* One write clock edge.  arst: the reset level during the edge.  Returns
 * 1 when the write was accepted, 0 when wr_en was 0 or WR_FULL dropped it
 * (*dropped set accordingly, may be NULL). */
int asfifo_wr_edge(struct ptm_asfifo *f, int arst, int wr_en, const struct ptm_fifo_entry *data,
		   int *dropped);

/* One read clock edge with RD_EN = rd.  Returns 1 and fills *popped when
 * an entry left the FIFO at this edge (RD_EN and valid before the edge). */
int asfifo_rd_edge(struct ptm_asfifo *f, int arst, int rd, struct ptm_fifo_entry *popped);

/* k read edges with read_request = 1 and nothing valid to move: the data
 * registers load what the LUT shows at the read address (they have no
 * reset; TX_INDEX/TX_DELTA show them even while not valid). */
static inline void asfifo_rd_idle_loads(struct ptm_asfifo *f, uint64_t k)
{
	if (!k)
		return;
	f->dout_reg2 = f->dout_reg;
	f->dout_reg = f->mem[f->rd_cnt_mem & f->mem_mask];
	if (k > 1)
		f->dout_reg2 = f->dout_reg;
}

/* Recompute rd_quiet from the read side's registers (after the caller
 * stepped the read side itself, see ptm_probe_mi_drain_fifo). */
void asfifo_rd_requiet(struct ptm_asfifo *f);

/* RD_EMPTY = 0 now, and the word at the output. */
static inline int asfifo_valid(const struct ptm_asfifo *f) { return f->vld_reg2; }
static inline const struct ptm_fifo_entry *asfifo_head(const struct ptm_asfifo *f)
{
	return &f->dout_reg2;
}

/* The write side is out of reset and the read pointer's synchroniser
 * holds the read pointer (no read edge since a few write edges). */
static inline int asfifo_wr_sync_settled(const struct ptm_asfifo *f)
{
	const uint32_t g = f->rd_in_gray;
	return !f->wr_rff && f->rsync[0] == g && f->rsync[1] == g && f->rsync[2] == g &&
	       f->rd_synced_reg == asfifo_gray2bin(g);
}

/* asfifo_wr_edge(f, 0, wr_en, data, dropped) when asfifo_wr_sync_settled():
 * the synchroniser's shift is a no-op, what is left is the write. */
static inline int asfifo_wr_edge_settled(struct ptm_asfifo *f, int wr_en,
					 const struct ptm_fifo_entry *data, int *dropped)
{
	const int allow = wr_en && !f->full_reg;
	*dropped = wr_en && f->full_reg;
	f->in_reset = 0;
	if (allow) {
		f->mem[f->wr_cnt & f->mem_mask] = *data;
		f->accepted++;
	}
	const uint32_t next = (f->wr_cnt + (uint32_t)allow) & f->ptr_mask;
	f->full_reg = (uint8_t)((next ^ f->rd_synced_reg) == f->items);
	const uint32_t wg = asfifo_bin2gray(f->wr_cnt);
	if (allow || wg != f->wr_in_gray)
		f->rd_quiet = 0; /* the LUT output or the pointer may change */
	f->wr_in_gray = wg;
	f->wr_cnt = next;
	f->wr_quiet = (uint8_t)(!wr_en && !f->no_quiet && !allow);
	return allow;
}

/* Up to k write edges without reset and WR_EN (asfifo_wr_edge(f, 0, 0,
 * NULL, NULL) each), to the first after which such an edge changes
 * nothing (wr_quiet); returns the edges done. */
uint64_t asfifo_wr_idle_edges(struct ptm_asfifo *f, uint64_t k);

/* Nothing changes at further write edges without writes and without
 * read edges (CDC registers and WR_FULL settled). */
int asfifo_wr_settled(const struct ptm_asfifo *f, int arst);

/* A write edge with arst = 0 and WR_EN = 0, skipped when nothing would
 * change (the hot path of an idle probe). */
static inline void asfifo_wr_idle_edge(struct ptm_asfifo *f)
{
	if (!f->wr_quiet)
		asfifo_wr_edge(f, 0, 0, NULL, NULL);
}

#endif
