/*
 * pcie-telemetry: the state of the probe model, shared by probe.c (edges),
 * probe_batch.c (CLK batches) and probe_mi.c (MI batches).  Private to
 * those files.
 */
#ifndef PTM_PROBE_IMPL_H
#define PTM_PROBE_IMPL_H

#include <stdint.h>

#include "model/asfifo.h"
#include "model/probe_priv.h"

#define GROUP_SIZE 8

struct step_bus {
	uint32_t move;    /* words: src & dst */
	uint32_t hold;    /* MFB stall: src & !dst */
	uint32_t sof;     /* SOFs of a moving word */
	uint32_t mvb;     /* MVB items of a moving MVB word */
	uint32_t mhold;   /* MVB stall */
	uint32_t items;   /* MFB items of a moving word, mod 2^STEP_WIDTH */
	uint32_t rmask;   /* regions that carried data in a moving word */
	uint32_t pad;
};

struct step {
	uint32_t ch0;     /* elapsed cycle */
	uint32_t brake;   /* active BRAKE bits */
	uint32_t active;  /* buses whose descriptor may be non-zero */
	uint32_t move;    /* buses that moved a word (frame_open_reg loads) */
	uint32_t fo_next; /* frame_open of each moving bus */
	uint32_t pad;
	struct step_bus bus[PTM_MAX_PROBE_BUSES];
};

typedef void (*fast_edge_fn)(ptm_probe *p, const struct ptm_bus_in *bus, uint32_t brake);


/*
 * The batch representation (probe_batch.c).  A lane group is one bus
 * (fields 0..5 = words, stall, SOFs, MVB items, MVB stall, items, then
 * one bit per region) or the global group (field 0 = the elapsed cycle,
 * then one bit per BRAKE).  lz_step is what one edge adds to a group.
 */
struct lz_step {
	union {
		struct step_bus s; /* bus: as in a step */
		uint32_t v[8];     /* v[0..5] fields 0..5, v[6] the bit fields */
	} u;                       /* global: v[0] = ch0, v[6] = BRAKE bits */
	uint8_t move, fo;          /* bus: the word moved; frame_open after it */
};

#define LZ_NONE 0xffffu

/*
 * A group's state after its last batch (edge 1 of it at tau = since):
 * h[0], h[1] = the steps of the two edges before it, h[2] = the step of
 * edge 1, h[3] = of every later edge (frame_open settles after one edge);
 * fo[0..2] = frame_open before edge 1, after edge 1, after later edges.
 * cnt holds the group's counters as they were at since.
 */
struct lz_group {
	uint64_t since;
	struct lz_step h[4];
	uint8_t fo[3];
	uint8_t valid;            /* key holds the inputs of the last batch */
	uint8_t same;             /* h[2] == h[3] */
	uint8_t zero;             /* ... and they add nothing (an idle bus) */
	uint32_t gkey;            /* global group: the BRAKE bits */
	struct ptm_bus_in key;
};

struct ptm_probe {
	struct ptm_probe_generics g;
	unsigned channels, groups, bus_channels, brake_base;
	unsigned idx_width, cnt_width, step_width;
	unsigned key_words;        /* see same_bus_in() in probe_batch.c */
	uint32_t dp_mask;          /* DRAIN_PERIOD-1 */
	uint32_t rmask_all;        /* REGIONS bits */
	uint32_t brake_mask;       /* BRAKES bits */
	uint32_t step_mask;        /* 2^STEP_WIDTH-1 */
	uint64_t cnt_mask;         /* 2^CNT_WIDTH-1 */
	uint16_t pos_mask;         /* 2^EOF_POS_WIDTH-1 */
	/* Region validity walk for REGIONS <= 4, indexed by
	 * open | sof << 1 | eof << 5: valid regions in bits 3:0, the
	 * frame_open after the word in bit 4. */
	uint8_t walk[512];
	fast_edge_fn fast_edge;     /* specialised common-case edge */
	/* REGIONS <= 2: the MFB increments of one bus for one word, indexed
	 * by frame_open | sof << 1 | eof << 1+R | src << 1+2R | dst << 2+2R:
	 * vtab[idx*8 + i] is added to channel base+i (words, stall, SOFs, 0,
	 * 0, 0, regions), vaux[idx] = EOFs of valid regions | frame_open
	 * after the word << 2 | regions with all items << 3 | move << 5,
	 * all zero unless the word moves. */
	uint64_t *vtab;
	uint8_t vaux[128];
	/* REGIONS <= 2: MVB items and MVB stall of one bus, indexed by
	 * mvb_vld | mvb_src_rdy << R | mvb_dst_rdy << R+1 */
	uint64_t mtab[16][2];

	/* inputs that persist between edges */
	uint8_t rst_in;            /* RESET level */
	uint8_t mi_rst;            /* MI_RESET level */
	uint8_t flag_lvl;          /* MI_FLAG_CLR level */

	/* CLK domain */
	uint8_t rsync;             /* MI_RESET synchroniser, bit2 = output */
	uint8_t cnt_zero;          /* counters known to be all zero */
	uint8_t reset_held;        /* the last CLK edge was a reset edge */
	/* Representation of the counters: 0 = the RTL's (cnt), 1 = "eager",
	 * cnt + step registers + pending step, used by the fast path, which
	 * then adds each step once, when it is computed. */
	uint8_t eager;
	/* bit 0: *s holds the true pending step, bit 1: *sr the true step
	 * registers (the fast path keeps only s->move and s->fo_next; the
	 * counters are exact in either representation, see probe_batch.c) */
	uint8_t desc_ok;
	uint8_t slow;              /* testing: never take a shortcut */
	uint8_t hot;               /* see update_hot() */
	uint8_t mi_hot;            /* see update_mi_hot() */
	/* BRAKE steps are added as runs: brake_run edges of brake_run_mask
	 * not yet in the counters (a brake level usually lasts many edges). */
	uint32_t brake_run_mask;
	uint64_t brake_run;
	uint8_t run, slot;
	uint32_t pos;
	uint32_t period;
	uint32_t frame_open;       /* frame_open_reg, bit per bus */
	uint8_t wr_en;             /* fifo_wr_en */
	uint8_t ovf, overrun;      /* fifo_ovf_reg, overrun_reg */
	uint8_t fq1, fq2, freg;    /* flag-clear synchroniser and edge register */
	struct ptm_fifo_entry wr_data;
	struct step *s;            /* pending step (from the input registers) */
	struct step *sr;           /* step registers */
	struct step stepbuf[2];    /* s and sr point here, swapped at each edge */

	/* MI domain */
	uint8_t oq1, oq2, vq1, vq2; /* FIFO_OVF and OVERRUN synchronisers */

	/* The batch representation (probe_batch.c): lazy = 1 while the
	 * counters are cnt plus, per lane group, the edges since lz[].since
	 * at its rates; tau counts the CLK edges. */
	uint8_t lazy;
	uint8_t lz_ok;             /* desc_ok when the batch representation began */
	uint64_t tau, lz_entry;
	struct lz_group *lz;       /* BUSES bus groups, then the global group */
	struct lz_memo *memo;      /* per bus, steps by their inputs (probe_batch.c) */
	uint16_t *chmap;           /* channel -> group << 8 | field, LZ_NONE: padding */

	struct ptm_asfifo fifo;
	uint64_t *cnt;             /* 8*GROUPS counters */
	uint64_t *grp_val;         /* GROUPS */
	struct ptm_probe_stats st;
};

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Portable popcount: without -mpopcnt __builtin_popcount is a libgcc call. */
static inline unsigned popc(uint32_t x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	return (x * 0x01010101u) >> 24;
}

/* popcount of a value below 16 */
ALWAYS_INLINE uint32_t popc4(uint32_t x)
{
	return (uint32_t)(UINT64_C(0x4332322132212110) >> (4 * x)) & 15u;
}

static inline void brake_flush(ptm_probe *p)
{
	if (p->brake_run) {
		uint64_t *cb = p->cnt + p->brake_base;
		for (uint32_t m = p->brake_run_mask; m; m &= m - 1)
			cb[__builtin_ctz(m)] += p->brake_run;
		p->brake_run = 0;
	}
}

static inline void brake_add(ptm_probe *p, uint32_t mask, uint64_t k)
{
	if (mask != p->brake_run_mask) {
		brake_flush(p);
		p->brake_run_mask = mask;
	}
	p->brake_run += k;
}

/* A bus's counters c[] (words, stall, SOFs, MVB items, MVB stall, items,
 * regions) += k * its step; NR = the region count when a constant, else
 * 0 (the region bits are walked). */
ALWAYS_INLINE void bus_add(uint64_t *c, const struct step_bus *sb, uint64_t k, const unsigned NR)
{
	c[0] += k * sb->move;
	c[1] += k * sb->hold;
	c[2] += k * sb->sof;
	c[3] += k * sb->mvb;
	c[4] += k * sb->mhold;
	c[5] += k * sb->items;
	if (NR) {
		for (unsigned r = 0; r < NR; r++)
			c[6 + r] += k * ((sb->rmask >> r) & 1u);
	} else {
		for (uint32_t r = sb->rmask; r; r &= r - 1)
			c[6 + __builtin_ctz(r)] += k;
	}
}

/* counters += k * step registers */
static inline void apply_step(ptm_probe *p, const struct step *sr, uint64_t k)
{
	uint64_t *cnt = p->cnt;
	cnt[0] += k * sr->ch0;
	for (uint32_t m = sr->active; m; m &= m - 1) {
		unsigned b = (unsigned)__builtin_ctz(m);
		bus_add(cnt + 1 + b * p->bus_channels, &sr->bus[b], k, 0);
	}
	brake_add(p, sr->brake, k);
	p->cnt_zero = 0;
}

/* The fast path may run while no reset, sweep, FIFO write or settling
 * synchroniser is pending (see ptm_probe_clk). */
static inline void update_hot(ptm_probe *p)
{
	p->hot = ((unsigned)p->rsync | p->rst_in | p->mi_rst | p->wr_en | p->run | p->slow) == 0;
}

/* The MI fast path may run while no reset is pending and the flag
 * synchronisers hold the flags (see ptm_probe_mi_clk). */
static inline void update_mi_hot(ptm_probe *p)
{
	p->mi_hot = ((unsigned)p->mi_rst | p->rst_in | p->rsync | p->slow | (p->oq1 ^ p->ovf) |
		     (p->oq2 ^ p->oq1) | (p->vq1 ^ p->overrun) | (p->vq2 ^ p->vq1)) == 0;
}

/*
 * The drain sweep's part of a CLK edge without reset: DRAIN_TICK starts
 * it; then, per slot, one edge captures one element of every group and
 * GROUPS edges present them to the FIFO (fifo_wr_en/fifo_wr_data for the
 * next edge).  Returns the slot captured at this edge, or -1.
 */
ALWAYS_INLINE int sweep_edge(ptm_probe *p, int tick)
{
	int cap = -1;
	if (!p->run) {
		p->wr_en = 0;
		if (tick) {
			p->run = 1;
			p->slot = 0;
			p->pos = 0;
		}
		return -1;
	}
	if (p->pos) {
		unsigned grp = p->pos - 1;
		unsigned ch = grp * GROUP_SIZE + p->slot;
		p->wr_data.index = (uint16_t)ch;
		p->wr_data.delta = p->grp_val[grp];
		p->wr_en = ch < p->channels;
	} else {
		p->wr_en = 0;
		cap = p->slot;
	}
	if (tick) {
		p->slot = 0;
		p->pos = 0;
	} else if (p->pos == p->groups) {
		p->pos = 0;
		if (p->slot == GROUP_SIZE - 1)
			p->run = 0;
		else
			p->slot++;
	} else {
		p->pos++;
	}
	return cap;
}

/* The bus's step (see compute_step_n) for REGIONS <= 2 through the word
 * tables (see vtab): open = frame_open_reg bit before the word. */
ALWAYS_INLINE void ptm_probe_bus_step_tab(const ptm_probe *p, unsigned b,
					  const struct ptm_bus_in *in, uint32_t open,
					  struct lz_step *out, const unsigned R)
{
	const uint32_t rm = p->rmask_all;
	const uint32_t idx = open | (in->sof & rm) << 1 | (in->eof & rm) << (1 + R) |
			     (in->src_rdy & 1u) << (1 + 2 * R) | (in->dst_rdy & 1u) << (2 + 2 * R);
	const uint64_t *t = p->vtab + (size_t)idx * 8;
	const uint32_t a = p->vaux[idx];
	uint32_t items = p->g.region_items[b] * ((a >> 3) & 3u);
	for (unsigned r = 0; r < R; r++)
		items += ((a >> r) & 1u) * ((uint32_t)(in->eof_pos[r] & p->pos_mask) + 1u);
	const uint32_t midx = (in->mvb_vld & rm) | (in->mvb_src_rdy & 1u) << R |
			      (in->mvb_dst_rdy & 1u) << (R + 1);
	struct step_bus *sb = &out->u.s;
	sb->move = (uint32_t)t[0];
	sb->hold = (uint32_t)t[1];
	sb->sof = (uint32_t)t[2];
	sb->mvb = (uint32_t)p->mtab[midx][0];
	sb->mhold = (uint32_t)p->mtab[midx][1];
	sb->items = items & p->step_mask;
	sb->rmask = (uint32_t)(t[6] | t[7] << 1);
	sb->pad = 0;
	out->move = (uint8_t)((a >> 5) & 1u);
	out->fo = (uint8_t)((a >> 2) & 1u);
}

/*
 * In reset (RESET or the synchronised MI_RESET held, the synchronisers
 * settled, and a reset edge already done: MI_RESET reaches the CLK side's
 * registers only at its next edge) an edge changes nothing at all.
 */
static inline int clk_reset_steady(const ptm_probe *p)
{
	const int pr = p->rst_in | ((p->rsync >> 2) & 1);
	if (!pr || !p->reset_held || p->rsync != (p->mi_rst ? 7 : 0))
		return 0;
	return asfifo_wr_settled(&p->fifo, 1);
}

/* probe.c */
/* The pending step from the inputs sampled at this edge and frame_open_reg
 * after it (pr: the probe is in reset at this edge). */
void ptm_probe_compute_step(const ptm_probe *p, int pr, const struct ptm_bus_in *bus,
			    uint32_t brake, struct step *s);
/* One bus's part of a step (frame_open open before the word), for the
 * batch representation. */
void ptm_probe_bus_step(const ptm_probe *p, unsigned b, const struct ptm_bus_in *in,
			uint32_t open, struct lz_step *out);

/* probe_batch.c */
/* Back from the batch representation to the eager one (before any single
 * edge or other use of the counters). */
void ptm_probe_lazy_exit(ptm_probe *p);
int ptm_probe_lazy_init(ptm_probe *p);
void ptm_probe_lazy_free(ptm_probe *p);

#endif
