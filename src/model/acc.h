/*
 * pcie-telemetry: the counter memory PCIE_TELEMETRY_ACC (MI clock domain),
 * firmware-behavior.md section 2, pcie_telemetry_acc.vhd.
 *
 * One adder and one memory of 2*ENTRIES words (live copy, then snapshot
 * copy), an FSM that serves the probes' delta streams round robin and the
 * SNAPSHOT/CLEAR commands, and a registered software read port.
 */
#ifndef PTM_ACC_H
#define PTM_ACC_H

#include <stdint.h>

enum ptm_acc_state {
	PTM_ACC_IDLE,
	PTM_ACC_RD,
	PTM_ACC_ADD,
	PTM_ACC_WR,
	PTM_ACC_SNAP_RD,
	PTM_ACC_SNAP_WR,
	PTM_ACC_CLEAR,
};

/* What the streams present before an edge (TX_VLD, TX_INDEX, TX_DELTA). */
struct ptm_acc_stream {
	uint8_t vld;
	uint16_t index;
	uint64_t delta;
};

struct ptm_acc {
	/* generics */
	unsigned streams;
	unsigned entries;         /* power of two */
	unsigned cnt_width;
	uint64_t cnt_mask;        /* 2^CNT_WIDTH - 1 */
	const unsigned *stream_base;
	/* registers */
	uint8_t state;            /* enum ptm_acc_state */
	uint8_t snap_req, clear_req;
	unsigned sel;
	unsigned sweep;
	unsigned addr;            /* acc_addr_reg */
	uint64_t data;            /* acc_data_reg (the delta) */
	uint64_t sum;             /* acc_sum_reg */
	uint64_t pa_dout;         /* port A read register */
	uint64_t rd_data;         /* port B read register (software) */
	uint64_t *mem;            /* 2*entries words, caller-owned */
};

/* Set the generics and the power-up state (memory zeroed). */
void ptm_acc_init(struct ptm_acc *a, unsigned streams, const unsigned *stream_base,
		  unsigned entries, unsigned cnt_width, uint64_t *mem);

/* BUSY output: a command runs or waits. */
static inline int ptm_acc_busy(const struct ptm_acc *a)
{
	return a->state == PTM_ACC_CLEAR || a->state == PTM_ACC_SNAP_RD ||
	       a->state == PTM_ACC_SNAP_WR || a->snap_req || a->clear_req;
}

/* Index of the stream popped (RX_RD) at the coming edge, or -1. */
static inline int ptm_acc_rd_sel(const struct ptm_acc *a)
{
	return a->state == PTM_ACC_RD ? (int)a->sel : -1;
}

/*
 * One MI edge.  rst = MI_RESET; snapshot/clear = the command pulses as
 * they are before the edge; in[] = what every stream presents before the
 * edge.  rd_en/rd_addr = the software read port (RD_EN, RD_ADDR).
 */
void ptm_acc_edge(struct ptm_acc *a, int rst, int snapshot, int clear,
		  const struct ptm_acc_stream *in, int rd_en, unsigned rd_addr);

/*
 * Jump over k edges of a running SNAPSHOT/CLEAR command when nothing else
 * happens on them (no command pulse, no software read).  k must be at most
 * ptm_acc_cmd_left(a) - 1 so that the FSM stays inside the command.
 */
void ptm_acc_cmd_skip(struct ptm_acc *a, uint64_t k);
/* Edges until the FSM leaves the running command (0 when none runs). */
uint64_t ptm_acc_cmd_left(const struct ptm_acc *a);

#endif
