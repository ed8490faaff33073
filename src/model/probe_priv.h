/*
 * pcie-telemetry: probe model, interface private to src/model/ (for the
 * component model and the trace runners).  The public per-edge API is in
 * include/pcie_telemetry/model.h ("The probe on its own").
 */
#ifndef PTM_PROBE_PRIV_H
#define PTM_PROBE_PRIV_H

#include <stdint.h>

#include "pcie_telemetry/model.h"

/*
 * n CLK edges with identical inputs, exactly the result of n calls of
 * ptm_probe_clk() (no MI edge in between).  Edges of a drain sweep, of
 * FIFO writes and of synchronisers that still settle are stepped one by
 * one; the idle stretches between sweeps are skipped in O(1), so the cost
 * is O(sweeps in the batch), not O(n).  Returns the number of DRAIN_TICKs
 * among the n edges.
 */
uint64_t ptm_probe_clk_batch(ptm_probe *p, int rst, const struct ptm_bus_in *bus, uint32_t brake,
			     uint64_t n);
/* The same without RESET, with BRAKE brake1 at the first edge and brake
 * at the others (one batch where the caller's BRAKE input changes after
 * one edge). */
uint64_t ptm_probe_clk_batch2(ptm_probe *p, const struct ptm_bus_in *bus, uint32_t brake1,
			      uint32_t brake, uint64_t n);

/*
 * n CLK edges without RESET, bus b's inputs the runs bus[b] (nruns[b] of
 * them), the BRAKE input the runs brake (nbrake), each list covering the
 * n edges: exactly the result of the n single edges.  Returns 0 (and
 * changes nothing that counts) when the batch representation does not
 * apply now (see ptm_probe_clk_batch); the caller then uses batches.
 */
int ptm_probe_clk_runs(ptm_probe *p, const struct ptm_bus_run *const *bus, const unsigned *nruns,
		       const struct ptm_val_run *brake, unsigned nbrake, uint64_t n);

/*
 * n MI edges with the same MI_RESET, MI_FLAG_CLR and TX_RD, exactly the
 * result of n calls of ptm_probe_mi_clk(), skipping in O(1) once the read
 * side has settled (FIFO empty, or TX_RD = 0 and nothing more to move).
 * Returns the number of deltas popped; the last one is in *last (may be
 * NULL).  Use single edges when every popped delta matters.
 */
uint64_t ptm_probe_mi_clk_batch(ptm_probe *p, int mi_rst, int flag_clr, int rd, uint64_t n,
				struct ptm_probe_mi_out *last);

/*
 * For the probe trace runner (trace_probe.c): how many of the next CLK
 * edges with RESET = rst, each followed by m MI edges (MI_RESET = 0,
 * MI_FLAG_CLR = flag_clr, TX_RD = 1) as a probe trace schedules them,
 * show nothing and change nothing but the counters, the position in the
 * drain period and the read side's (not valid) data registers: no
 * DRAIN_TICK, no FIFO write, no pop, no flag change.  Out of reset these
 * are the edges before the next tick once the sweep is over, the FIFO
 * read out (m > 0) and every synchroniser settled; in a settled reset
 * UINT64_MAX; otherwise 0 (step the next edge singly).  Both clock
 * domains are then at a fixed point of each other, so the order of
 * their edges does not matter: ptm_probe_quiet_run() does k <= that
 * many such edges (with their MI edges) in O(1), exactly as the trace
 * would, edge by edge.
 */
uint64_t ptm_probe_quiet_edges(const ptm_probe *p, int rst, int flag_clr, unsigned m);
void ptm_probe_quiet_run(ptm_probe *p, int rst, const struct ptm_bus_in *bus, uint32_t brake,
			 int flag_clr, unsigned m, uint64_t k);

struct ptm_asfifo;
/*
 * For the component's drain run (ptm_mi_idle_edges): the probe's FIFO when
 * MI edges with MI_RESET = 0 and this MI_FLAG_CLR, and no CLK edge in
 * between, change nothing of the probe but the FIFO's read side (pointer,
 * output registers, the synchroniser of the write pointer, the read
 * pointer register towards the write side) and the flag synchronisers,
 * else NULL.  The caller steps that read side itself and reports the
 * pops and the number of edges with ptm_probe_mi_drained().
 */
struct ptm_asfifo *ptm_probe_mi_drain_fifo(ptm_probe *p, int flag_clr);
void ptm_probe_mi_drained(ptm_probe *p, uint64_t pops, uint64_t edges);

/* CLK edges before the next DRAIN_TICK edge: that many edges out of reset
 * contain no tick. */
uint64_t ptm_probe_edges_to_tick(const ptm_probe *p);

/* Derived constants (firmware-behavior.md 1.1). */
struct ptm_probe_info {
	unsigned channels;     /* CHANNELS */
	unsigned groups;       /* GROUPS */
	unsigned idx_width;    /* TX_INDEX width */
	unsigned cnt_width;    /* probe counter and TX_DELTA width */
	unsigned step_width;
	unsigned sweep_cycles; /* 8*(GROUPS+1) */
	unsigned fifo_items;   /* FIFO depth */
};
void ptm_probe_info(const ptm_probe *p, struct ptm_probe_info *info);

/* Bookkeeping counts since ptm_probe_new() (not hardware). */
struct ptm_probe_stats {
	uint64_t edges;       /* CLK edges */
	uint64_t ticks;       /* DRAIN_TICKs */
	uint64_t writes;      /* deltas presented to the FIFO */
	uint64_t dropped;     /* ... dropped because WR_FULL was 1 */
	uint64_t flushed;     /* accepted, then lost to a FIFO reset */
	uint64_t popped;      /* read out on the MI side */
};
void ptm_probe_stats(const ptm_probe *p, struct ptm_probe_stats *s);

/* True while the probe is held in reset (RESET or the synchronised
 * MI_RESET). */
int ptm_probe_in_reset(const ptm_probe *p);
/* MI_RESET as the CLK side sees it at the next edges (without MI edges
 * in between): 2 = held, every edge is a reset edge; 1 = released, but
 * the synchroniser still holds the next one to three edges in reset;
 * 0 = none. */
int ptm_probe_mi_reset(const ptm_probe *p);

/* Testing: 1 = take none of the speed shortcuts (fast edge paths, quiet
 * FIFO sides), so that a test can compare the optimised model with the
 * plain one edge by edge. */
void ptm_probe_debug_slow(ptm_probe *p, int on);

/* Testing: the CLK-side registers in a form that does not depend on the
 * representation the model keeps them in (plain, eager or batch): every
 * counter plus the two steps the RTL has not added to it yet (the input
 * and step registers), frame_open_reg, the drain sweep and the FIFO
 * write registers.  cnt must hold CHANNELS rounded up to 8 values; grp
 * GROUPS values. */
struct ptm_probe_regs {
	uint32_t period, pos, frame_open;
	uint8_t run, slot, wr_en, ovf, overrun, fq1, fq2, freg, rsync, rst_in;
	uint16_t wr_index;
	uint64_t wr_delta;
};
void ptm_probe_debug_regs(const ptm_probe *p, struct ptm_probe_regs *r, uint64_t *cnt,
			  uint64_t *grp);

#endif
