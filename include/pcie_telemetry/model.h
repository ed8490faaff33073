/*
 * pcie-telemetry: cycle-exact model of the PCIE_TELEMETRY_MI firmware.
 *
 * The model is the RTL (probe, counter memory, MI register block and the
 * clock-domain crossings between them) as a set of plain state machines.
 * It knows nothing of files, buses or reports.  Every call is one rising
 * edge of one clock domain; the caller decides the order of the edges of
 * the different domains, exactly like the lines of a component trace.
 *
 * Plain C types only and no callbacks, so that a SystemVerilog testbench
 * can call it through DPI-C.  Nothing is allocated after ptm_model_new().
 *
 * Prefix: ptm_ (model).  Errors: negative errno values, message in the
 * caller's buffer.
 */
#ifndef PCIE_TELEMETRY_MODEL_H
#define PCIE_TELEMETRY_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of this model (the RTL has none; these keep the state flat and
 * keep every configuration register field inside its width). */
#define PTM_MAX_ENDPOINTS 16   /* the per-endpoint register blocks hold 16 */
#define PTM_MAX_DMA_PORTS 16
#define PTM_MAX_REGIONS 16     /* regions of one observed bus */
#define PTM_MAX_PROBE_BUSES (2 * PTM_MAX_DMA_PORTS)
#define PTM_MAX_BRAKES 32

/* Generics of PCIE_TELEMETRY_MI, with the firmware's names. */
struct ptm_generics {
	unsigned pcie_endpoints;            /* 1 */
	unsigned dma_ports;                 /* 1 */
	unsigned pcie_rq_mfb_regions;       /* 2 */
	unsigned pcie_rc_mfb_regions;       /* 2 */
	unsigned dma_up_mfb_regions;        /* 2 */
	unsigned dma_down_mfb_regions;      /* 2 */
	unsigned pcie_rq_mfb_region_bytes;  /* 32 */
	unsigned pcie_rc_mfb_region_bytes;  /* 32 */
	unsigned dma_up_mfb_region_bytes;   /* 32 */
	unsigned dma_down_mfb_region_bytes; /* 32 */
	unsigned mfb_item_bytes;            /* 4 */
	unsigned pcie_eof_pos_width;        /* 3 */
	unsigned dma_eof_pos_width;         /* 3 */
	unsigned cnt_width;                 /* 48, 33..64 */
	unsigned drain_period;              /* 4096, power of two */
	unsigned tag_capacity;              /* 256 */
	unsigned stfifo_capacity;           /* 1024 */
};

/* Fill in the firmware's defaults. */
void ptm_generics_default(struct ptm_generics *g);

/* Check the firmware's constraints (and this model's limits).  Returns 0,
 * or -EINVAL with a message naming the generic and the rule. */
int ptm_generics_check(const struct ptm_generics *g, char *msg, size_t msglen);

/* A generic as a bit: bit i is the i-th field of struct ptm_generics
 * (every field is an unsigned, in the order above). */
#define PTM_GENERIC_BIT(field) (1u << (offsetof(struct ptm_generics, field) / sizeof(unsigned)))

/* The same check; *which (may be NULL) gets the generics the failed rule
 * is about, as PTM_GENERIC_BIT()s (0 when it passes, or when the rule is
 * about no single generic), so that a caller can point at where they were
 * set without reading the message. */
int ptm_generics_check_which(const struct ptm_generics *g, uint32_t *which, char *msg,
			     size_t msglen);

/* Constants derived from the generics (firmware-behavior.md 3.1). */
struct ptm_derived {
	unsigned pcie_regions;   /* PR = max(RQ, RC) */
	unsigned dma_regions;    /* DR = max(UP, DOWN) */
	unsigned pcie_channels;  /* 1 + 2*(6+PR) + 14 */
	unsigned dma_channels;   /* 1 + 2*DMA_PORTS*(6+DR) */
	unsigned ep_channels;
	unsigned entries;        /* 2^log2c(endpoints * ep_channels) */
	unsigned pcie_fifo_depth, dma_fifo_depth;
};
void ptm_generics_derive(const struct ptm_generics *g, struct ptm_derived *d);

/*
 * Inputs of one observed MFB bus (and the MVB that belongs to it) for one
 * clock edge.  Region r of the bus is bit r of the masks; regions beyond
 * the bus's real count must be 0 (the firmware ties them to zero).
 */
struct ptm_bus_in {
	uint32_t sof;
	uint32_t eof;
	uint32_t mvb_vld;
	uint16_t eof_pos[PTM_MAX_REGIONS]; /* item index, valid with eof */
	uint8_t src_rdy;
	uint8_t dst_rdy;
	uint8_t mvb_src_rdy;
	uint8_t mvb_dst_rdy;
};

/* Inputs of the PCIe clock domain of one endpoint for one edge. */
struct ptm_pcie_in {
	uint8_t rst;                  /* PCIE_RESET(e) */
	struct ptm_bus_in bus[2];     /* 0 = RQ (PTC to PCIe), 1 = RC */
	uint8_t brake;                /* PCIE_PTC_BRAKE(e), 6 bits */
	uint16_t stfifo_free;         /* PCIE_STFIFO_FREE(e) */
	uint16_t tag_free;            /* PCIE_TAG_FREE(e), 11 bits */
	uint8_t mps, mrrs;            /* 3-bit codes */
	uint8_t ext_tag_en, tag10b_req_en, rcb_size, link_up;
};

/* One MI bus operation for one MI edge.  At most one of rd, wr. */
struct ptm_mi_in {
	uint8_t rst;                  /* MI_RESET */
	uint8_t rd, wr;
	uint32_t addr, dwr;
};

/* MI outputs after the edge.  A read requested at MI edge k is answered
 * in the outputs of edge k+1 (drdy = 1, drd = the data), i.e. what the
 * master samples at edge k+2: read latency 2, fully pipelined. */
struct ptm_mi_out {
	uint32_t drd;
	uint8_t drdy;
	uint8_t ardy;                 /* = rd | wr of this edge */
};

typedef struct ptm_model ptm_model;

/* Create the whole PCIE_TELEMETRY_MI in its power-up state.  Returns 0 or
 * a negative errno (-EINVAL bad generics, -ENOMEM). */
int ptm_model_new(const struct ptm_generics *g, ptm_model **out, char *msg, size_t msglen);
void ptm_model_free(ptm_model *m);
const struct ptm_generics *ptm_model_generics(const ptm_model *m);
const struct ptm_derived *ptm_model_derived(const ptm_model *m);

/*
 * One rising edge of a clock domain.  The reset input carried by the call
 * changes "just before" the edge; an asynchronous reset acts on the other
 * domains' synchronisers from this point of the edge sequence on.
 */
/* ep >= PCIE_ENDPOINTS: ignored. */
void ptm_pcie_edge(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in);
/* bus[ep * 2*dma_ports + b], b = 2p (UP of port p) or 2p+1 (DOWN). */
void ptm_dma_edge(ptm_model *m, int rst, const struct ptm_bus_in *bus);
void ptm_mi_edge(ptm_model *m, const struct ptm_mi_in *in, struct ptm_mi_out *out);

/*
 * Batches: n edges of one domain with the same inputs, with exactly the
 * result of n single calls (no edge of another domain in between).  The
 * cost is per change of an input, per drain sweep and per delta, not per
 * edge (docs/model.md, "Speed").
 *
 * Threads: calls for different endpoints' PCIe domains (ptm_pcie_edge(s)
 * with different ep) touch disjoint state and may run on different
 * threads at the same time, and so may one ptm_dma_edge(s) call beside
 * them.  Every other call (ptm_mi_*, ptm_model_new/free, two calls for
 * the same endpoint or two DMA calls) must not overlap any other call.
 */
void ptm_pcie_edges(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in, uint64_t n);
void ptm_dma_edges(ptm_model *m, int rst, const struct ptm_bus_in *bus, uint64_t n);
/* n MI edges with no read or write. */
void ptm_mi_idle_edges(ptm_model *m, int rst, uint64_t n);

/*
 * Convenience: clock the MI domain alone (other domains stand still) until
 * the operation completes.  Read: the request edge plus the latency.
 */
uint32_t ptm_mi_read(ptm_model *m, uint32_t addr);
void ptm_mi_write(ptm_model *m, uint32_t addr, uint32_t data);

/* ------------------------------------------------------------------ */
/* The probe (PCIE_TELEMETRY_PROBE) on its own.                        */

struct ptm_probe_generics {
	unsigned buses;
	unsigned regions;
	unsigned region_items[PTM_MAX_PROBE_BUSES];
	unsigned eof_pos_width;
	unsigned brakes;
	unsigned drain_period;
};

typedef struct ptm_probe ptm_probe;

/* What happened at one CLK edge of the probe (for scoreboards/traces). */
struct ptm_probe_clk_out {
	uint8_t drain_tick;   /* DRAIN_TICK was 1 in the cycle ending at this edge */
	uint8_t wr_en;        /* a delta was presented to the FIFO at this edge */
	uint8_t wr_dropped;   /* ... and dropped because WR_FULL was 1 */
	uint16_t wr_index;
	uint64_t wr_delta;
	uint8_t fifo_flushed; /* the FIFO was reset at this edge, contents lost */
};

/* What the read side shows for one MI edge: the delta popped at this edge
 * (when vld and rd), and the flags after the edge. */
struct ptm_probe_mi_out {
	uint8_t vld;
	uint16_t index;
	uint64_t delta;
	uint8_t fifo_ovf;
	uint8_t overrun;
};

int ptm_probe_new(const struct ptm_probe_generics *g, ptm_probe **out, char *msg, size_t msglen);
void ptm_probe_free(ptm_probe *p);
unsigned ptm_probe_channels(const ptm_probe *p);
/* brake: bit k = RX_BRAKE(k).  out may be NULL. */
void ptm_probe_clk(ptm_probe *p, int rst, const struct ptm_bus_in *bus, uint32_t brake,
		   struct ptm_probe_clk_out *out);
/* The read side's outputs now (TX_VLD, TX_INDEX, TX_DELTA, flags), without
 * an edge: what a consumer sees before it decides on TX_RD. */
void ptm_probe_tx(const ptm_probe *p, struct ptm_probe_mi_out *out);
/* One MI edge: MI_RESET level, MI_FLAG_CLR level, TX_RD.  out may be NULL. */
void ptm_probe_mi_clk(ptm_probe *p, int mi_rst, int flag_clr, int rd, struct ptm_probe_mi_out *out);

#ifdef __cplusplus
}
#endif
#endif
