/*
 * pcie-telemetry: private structures of the simulated card (src/env).
 *
 * scenario.c  scenario files, validation
 * presets.c   the presets and the defaults
 * frames.c    MFB word builder: frames into words, each frame's effect
 *             remembered
 * agg.c       MFB word builder: the words of a slice, folded into a few
 *             runs of identical cycles
 * mvb.c       MVB word builder
 * wtime.c     the time side of an MFB bus, with the log of its calls
 * alloc.c     allocation, with a failure hook for the tests
 * The card itself (DMA ports, PTC, link, host, the slice engine) is in the
 * rooms listed in card_priv.h.
 */
#ifndef PT_ENV_PRIV_H
#define PT_ENV_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pcie_telemetry/env.h"
#include "pcie_telemetry/model.h"
#include "util/cache.h"

/* ---- allocation ---------------------------------------------------- */

/* calloc and realloc for the card's state (alloc.c). */
void *pte_calloc(size_t n, size_t size);
void *pte_realloc(void *p, size_t size);
/* For the tests: after n more allocations, every later one fails (n < 0:
 * no limit, the default); how many there have been. */
void pte_alloc_fail_after(long n);
unsigned long pte_alloc_count(void);

/* ---- scenario ------------------------------------------------------ */

#define PTE_DIST_MAX 16

/* A request size distribution: sizes in bytes with relative weights. */
struct pte_dist {
	unsigned n;
	uint32_t size[PTE_DIST_MAX];
	double weight[PTE_DIST_MAX]; /* normalised to sum 1 */
};

enum pte_lat_kind { PTE_LAT_FIXED, PTE_LAT_UNIFORM, PTE_LAT_EXP };

struct pte_port_cfg {
	double read_gbps;  /* requested payload rate, < 0 = as fast as possible */
	double write_gbps;
	struct pte_dist read_size, write_size;
	unsigned align;    /* buffer address alignment of requests, bytes */
	double down_ready; /* share of DMA cycles the port accepts DOWN data, 0..1 */
	double down_hdr_ready; /* ... DOWN headers (MVB) */
};

struct pte_ep_cfg {
	unsigned link_gen, link_width, link_up;
	unsigned mps, mrrs, rcb;
	unsigned ext_tag, tag10b;
	unsigned tags;            /* 0 = min(TAG_CAPACITY, negotiated tag space) */
	unsigned cpl_headers;     /* 0 = the endpoint manages its buffer */
	unsigned tag_ready_delay; /* PCIe cycles */
	double latency_ns, jitter_ns;
	enum pte_lat_kind lat_kind;
	unsigned host_cpl_bytes;  /* 0 = MPS */
	double dllp_overhead;     /* share of link bandwidth used by DLLPs */
	unsigned tx_buffer_bytes; /* Hard IP transmit buffer */
	unsigned ptc_read_group;  /* read TLPs the PTC asks resources for at once */
	unsigned ptc_requests;    /* PTC input buffer: requests */
	unsigned ptc_data_bytes;  /* PTC input buffer: write payload */
	unsigned down_fifo_words; /* asynchronous FIFOs towards each DMA port */
	unsigned down_fifo_headers;
	struct pte_port_cfg port[PTM_MAX_DMA_PORTS];
};

struct pte_scenario {
	char name[64];
	struct ptm_generics g;
	double pcie_mhz, dma_mhz, mi_mhz;
	uint64_t seed;
	double warmup_us;
	double mmio_read_ns, mmio_write_ns; /* host access to the MI bus */
	struct pte_ep_cfg ep[PTM_MAX_ENDPOINTS];
	/* where keys were set (0 = not in the file), for messages */
	char origin[192];
	uint16_t line_ep[PTM_MAX_ENDPOINTS][64];
	uint16_t line_gen[64];
};

/* The default scenario (the realistic mixed load of plain `sim`), then a
 * preset name or a file on top.  Returns 0 or -EINVAL/-ENOENT with
 * "FILE:LINE: ..." in msg. */
int pte_scenario_load(const char *spec, struct pte_scenario *s, char *msg, size_t msglen);
/*
 * pte_scenario_load with overrides: each "SECTION.KEY=VALUE" (SECTION as
 * in a scenario file: endpoint, endpoint 1, dma 0.1, generics, card) set
 * on top of the spec, in order, before the checks.  *which (when not
 * NULL) gets the index of the override a message is about, -1 when the
 * spec or the checks failed.
 */
int pte_scenario_load_ex(const char *spec, const char *const *ov, size_t n, int *which,
			 struct pte_scenario *s, char *msg, size_t msglen);
/* The overrides alone, on top of *s (override.c); messages as
 * "override 'endpoint.mrrs=300': [endpoint] mrrs = 300: ...". */
int pte_scenario_override(struct pte_scenario *s, const char *const *ov, size_t n, int *which,
			  char *msg, size_t msglen);
/* Parse INI text on top of *s; origin names it in messages. */
int pte_scenario_parse_text(const char *text, const char *origin, struct pte_scenario *s,
			    char *msg, size_t msglen);
/* Every key at its default, before any text (presets.c). */
void pte_scenario_default(struct pte_scenario *s);
/* The default load of plain `sim`, parsed on top of the defaults before
 * a preset or file (presets.c). */
const char *pte_scenario_default_text(void);
/* The presets' names, ", " between them, into out (cut to len). */
void pte_preset_list(char *out, size_t len);
int pte_scenario_check(const struct pte_scenario *s, char *msg, size_t msglen);

/* ---- word builders ------------------------------------------------- */

/* a / b and ceil(a / b) for b > 0: a shift when b is a power of two (the
 * bus geometries mostly are), a division otherwise. */
static inline uint64_t pte_udiv(uint64_t a, uint64_t b)
{
	return (b & (b - 1)) == 0 ? a >> __builtin_ctzll(b) : a / b;
}
static inline uint64_t pte_ucdiv(uint64_t a, uint64_t b)
{
	return pte_udiv(a + b - 1, b);
}

/* A moved MFB word, as the probe sees it. */
struct pte_pat {
	uint32_t sof, eof;
	uint8_t pos[PTM_MAX_REGIONS];
};

/* Word pattern with the frame state before (in) and after (out) it. */
struct pte_patent {
	struct pte_pat p;
	uint8_t in, out;
	uint8_t whole;   /* table entries: index + 1 of the whole-frame word a
			  * pairing gives this one (agg.c, fold_pairs), 0 = none yet */
	uint64_t n;
	uint64_t possum; /* table entries: EOF_POS summed over the words */
};

enum { PTE_RUN_MOVE, PTE_RUN_STALL, PTE_RUN_IDLE };

struct pte_run {
	uint32_t len;
	uint8_t kind;
	uint16_t idx; /* pattern index (MFB) or item count (MVB) */
};

#define PTE_MAXPAT 64

/* What one frame (or k equal frames) of a length does from one state of
 * the word under construction (frames.c, "memoized frames"): the words it
 * finishes, by key, with their count and EOF_POS sum; the state after.
 * Remembered per builder in PTE_FX_SLOTS slots (2-way sets). */
#define PTE_FX_SLOTS PT_CACHE_SIZE(256, 2)
#define PTE_FX_CYC 8
#define PTE_FX_WORDS 8

struct pte_fxw {
	uint32_t sof, eof;
	uint8_t in, out;
	uint64_t n, possum;
};

struct pte_fx {
	/* what a lookup and a count read first (the key, the words, the
	 * counts), then the state after, the bookkeeping, the words by key */
	uint32_t items, k;         /* k frames of that many items (k > 1: made of
				    * the effects of one frame, see fx_getk) */
	uint8_t used;
	uint8_t r0, in0, r1, in1;  /* next free region and frame state, before and after */
	uint8_t nw, tout;          /* words by key; frame state after the last */
	struct pte_pat cur0;       /* word under construction before, */
	uint64_t words;            /* cycles they take */
	uint64_t cnt;              /* times counted, not yet in the table */
	uint32_t gen;              /* table generation of ent[] */
	uint32_t last_k;           /* frames of the last call that started here */
	struct pte_pat cur1;       /* ... after */
	uint64_t hs1;              /* the hash of the state after (fx_hstate) */
	uint64_t age;              /* when it was computed (unique) */
	uint64_t pin;              /* walk that uses it (no eviction meanwhile) */
	uint64_t nxt_age;          /* valid while slot nxt - 1 has this age */
	uint8_t ent[PTE_FX_WORDS]; /* table entry of each word */
	uint16_t nxt;              /* slot + 1 of the next frame's effect */
	uint8_t pidx;              /* ... and its place on that walk's path */
	/* frames from here: cyc_pre effects, then a cycle of cyc_len (0:
	 * none known), each valid while its slot has that age */
	uint8_t cyc_pre, cyc_len;
	struct pte_fxw w[PTE_FX_WORDS];
	uint16_t cyc_fx[PTE_FX_CYC];
	uint64_t cyc_age[PTE_FX_CYC];
	/* the effect of the flush after this one (fx_after): slot aft - 1
	 * while it has aft_age */
	uint16_t aft;
	uint64_t aft_age;
};

/* Lengths of frames a builder holds back at most (pte_mfb_frames), and
 * the slots of the hints that find them (a power of two). */
#define PTE_PEND 16
#define PTE_PEND_HINT PT_CACHE_SIZE(32, 1)
#define PTE_BURSTS PT_CACHE_SIZE(8, 1)

/* Frames a walk follows before it looks for the cycle of their states. */
#define PTE_FX_PATH (2 * PTM_MAX_REGIONS + 2)

/*
 * MFB word builder of one bus for one time slice.  The scheduler places
 * whole frames (packed: a frame starts in the region after the previous
 * frame's end when it is ready at once, else at region 0 of a new word),
 * stall and idle cycles.  Words beyond the slice are carried into the next
 * one.  At the end of the slice the moved words are folded into runs: the
 * probe's count for a word depends only on its pattern and on whether a
 * frame was open before it, so any order of the same words that is a valid
 * frame sequence with the same start and end state gives exactly the same
 * counters (see docs/scenarios.md, "How the card is simulated").
 */
struct pte_mfb {
	unsigned R, N;        /* real regions, items per region */
	uint64_t S;           /* cycles of this slice */
	uint64_t placed;      /* cycles placed in this slice (words, stall, idle) */
	struct pte_pat cur;   /* word under construction */
	unsigned cur_r;       /* next free region of it, 0 = none */
	uint8_t cur_in;
	uint8_t tstate;       /* frame state after the last word of the table */
	uint8_t s0;           /* ... at the start of this slice */
	uint64_t stall, idle; /* in this slice */
	struct pte_patent ent[PTE_MAXPAT];
	unsigned nent;
	/* the entries by their frame states before and after, in table
	 * order (the fold's walk; agg.c appends them) */
	uint8_t by[2][2][PTE_MAXPAT];
	uint8_t nby[2][2];
	uint8_t mid_ent;      /* index + 1 of the middle word's entry (fold_pairs), 0 = none yet */
	uint8_t hslot[256];   /* hash of ent: index + 1, 0 = empty */
	unsigned last;        /* index + 1 of the entry found last */
	struct pte_patent *carry; /* words past the slice, in order */
	unsigned ncarry, carry_cap;
	struct pte_patent *spare; /* the other carry buffer (they take turns) */
	unsigned spare_cap;
	uint64_t carry_stall;
	/* runs of the emission and the patterns they name; the emission's
	 * stall and idle cycles (they go after the moved words) */
	struct pte_run *run;
	struct pte_pat *pat;
	unsigned nrun, npat, cap;
	uint64_t e_stall, e_idle;
	int emitted;          /* runs were built: the next slice starts an emission */
	/* remembered effects of frames; those counted since the last fold */
	struct pte_fx *fx;
	uint32_t gen;         /* table generation: +1 at each fold */
	uint16_t act[PTE_FX_SLOTS];
	unsigned nact;
	uint64_t fx_age, walk;
	uint64_t hs;          /* the hash of the current state when hs_ok */
	uint8_t hs_ok;        /* ... which an effect's end set */
	/* frames given but not placed yet: back to back since the last
	 * flush, stall or idle, by length (see pte_mfb_frames); where a
	 * length was last seen (index + 1 in pend[] by its low bits, to be
	 * checked: a hint, not a promise) */
	struct pte_pend {
		uint32_t items;
		uint64_t k;
	} pend[PTE_PEND];
	unsigned npend;
	uint8_t pend_hint[PTE_PEND_HINT];
	/* the effects of frames sent from the empty state and flushed at
	 * once, by a hash of their length and count (frames.c, replay_burst) */
	struct pte_burst {
		uint64_t age;  /* valid while slot - 1 has this age */
		uint16_t slot; /* slot + 1, 0: none */
	} burst[PTE_BURSTS];
	/* ground truth, whole run */
	uint64_t t_words, t_stall, t_frames, t_items;
	int err;              /* first failure (-ENOMEM), kept; 0 = none */
};

/*
 * Slices and emissions: a slice is placed between pte_mfb_begin and
 * pte_mfb_close (its cycles, stall and idle counts, ground truth); the
 * slices since the last pte_mfb_runs are then folded together into one
 * set of runs, which the model gets (an emission).  pte_mfb_end is close
 * and runs at once: an emission of one slice.
 *
 * max_slice: the longest emission it will be given.  -ENOMEM or 0.  The
 * other calls cannot fail on the spot: a failure (out of memory for words
 * carried past the slice) is kept in a->err, for the caller to check at
 * the end of the slice. */
int pte_mfb_init(struct pte_mfb *a, unsigned regions, unsigned items, uint64_t max_slice);
void pte_mfb_fini(struct pte_mfb *a);
void pte_mfb_begin(struct pte_mfb *a, uint64_t S);
/* Cycles used so far in this slice, the word under construction (and
 * the frames held back) included. */
uint64_t pte_mfb_used(const struct pte_mfb *a);
void pte_mfb_frame(struct pte_mfb *a, uint32_t items);
/*
 * k frames of one length, back to back.  Frames given back to back (no
 * flush, stall or idle in between) are held back and placed, grouped by
 * length, at the next flush, stall, idle or close: back to back, frames
 * fill the same regions in any order (each starts in the region after
 * the previous one's end), so the words move the same cycles, frames,
 * items and regions, and the time they take is known at once.
 */
void pte_mfb_frames(struct pte_mfb *a, uint32_t items, uint64_t k);
/* k frames of one length, each after idle cycles (so each starts a new
 * word: the word under construction is finished before every frame),
 * `idle` cycles in all; as k rounds of flush, idle, frame when all of it
 * fits in the slice. */
void pte_mfb_frames_apart(struct pte_mfb *a, uint32_t items, uint64_t k, uint64_t idle);
void pte_mfb_flush_now(struct pte_mfb *a);
/* The word under construction ends (the frames held back placed first). */
static inline void pte_mfb_flush(struct pte_mfb *a)
{
	if (a->npend || a->cur_r)
		pte_mfb_flush_now(a);
}
void pte_mfb_stall(struct pte_mfb *a, uint64_t n);
void pte_mfb_idle(struct pte_mfb *a, uint64_t n);
/* Close the slice (the rest is idle). */
void pte_mfb_close(struct pte_mfb *a);
/* Fold the slices closed since the last call into runs. */
void pte_mfb_runs(struct pte_mfb *a);
/* Close the slice and build the runs. */
void pte_mfb_end(struct pte_mfb *a);
void pte_mfb_apply(const struct pte_mfb *a, const struct pte_run *r, struct ptm_bus_in *b);
/* The same from a copy of the runs' patterns (R regions).  A pattern's
 * EOF_POS beyond its EOF regions is 0 (frames.c, agg.c write it only
 * there, all of them below R), so all PTM_MAX_REGIONS of them are copied
 * at once: what b holds beyond R regions becomes 0. */
static inline void pte_mfb_apply_pat(unsigned R, const struct pte_pat *pat,
				     const struct pte_run *r, struct ptm_bus_in *b)
{
	(void)R;
	if (r->kind == PTE_RUN_MOVE) {
		const struct pte_pat *p = &pat[r->idx];
		b->sof = p->sof;
		b->eof = p->eof;
		for (unsigned i = 0; i < PTM_MAX_REGIONS; i++)
			b->eof_pos[i] = p->pos[i];
		b->src_rdy = 1;
		b->dst_rdy = 1;
		return;
	}
	b->sof = 0;
	b->eof = 0;
	memset(b->eof_pos, 0, sizeof(b->eof_pos));
	b->src_rdy = r->kind == PTE_RUN_STALL;
	b->dst_rdy = 0;
}

/*
 * The time side of an MFB bus (wtime.c): what the schedulers place on it
 * (the same calls as on the word builder) and the cycles that takes, the
 * ground truth of its words, and a log of the calls, which the word
 * builder takes later (pte_mfb_replay) to build the very same words.
 */
enum pte_wop_kind { PTE_WOP_BEGIN, PTE_WOP_FRAMES, PTE_WOP_APART, PTE_WOP_FLUSH, PTE_WOP_STALL,
		    PTE_WOP_IDLE, PTE_WOP_CLOSE };

struct pte_wop {
	uint8_t op;
	uint32_t items;
	uint64_t k, n;        /* frames; BEGIN: the slice, STALL/IDLE/APART: cycles */
};

struct pte_wt {
	unsigned R, N;
	unsigned rsh;         /* R = 1 << rsh, 32: not a power of two */
	uint32_t last_items;  /* regions of frames of the last length */
	uint64_t last_regs;
	uint64_t S, placed, used;
	uint64_t cur_r;       /* regions of the open word (before the frames held back) */
	uint64_t pend;        /* regions of the frames since the last flush, stall or idle */
	uint64_t stall, idle; /* in this slice */
	uint64_t carry_words, carry_stall; /* past the end of the slice */
	uint64_t t_words, t_stall, t_frames, t_items; /* ground truth, whole run */
	struct pte_wop *log;  /* the calls since the log was taken */
	size_t nlog, cap;
	int err;              /* -ENOMEM for the log, kept */
};

int pte_wt_init(struct pte_wt *a, unsigned regions, unsigned items);
void pte_wt_fini(struct pte_wt *a);
static inline uint64_t pte_wt_used(const struct pte_wt *a)
{
	return a->used;
}

/* The log one entry longer (a failure is kept in a->err). */
void pte_wt_grow(struct pte_wt *a);
static inline void pte_wt_log(struct pte_wt *a, uint8_t op, uint32_t items, uint64_t k, uint64_t n)
{
	if (a->nlog == a->cap) {
		pte_wt_grow(a);
		if (a->nlog == a->cap)
			return;
	}
	a->log[a->nlog++] = (struct pte_wop){ op, items, k, n };
}

/* Words of r regions: r / R and r % R (a shift for most buses). */
static inline uint64_t pte_wt_div(const struct pte_wt *a, uint64_t r)
{
	return a->rsh < 32 ? r >> a->rsh : r / a->R;
}

static inline uint64_t pte_wt_mod(const struct pte_wt *a, uint64_t r)
{
	return a->rsh < 32 ? r & (a->R - 1u) : r % a->R;
}

/* The cycles from `placed` on that the open word and the frames held
 * back take. */
static inline void pte_wt_reuse(struct pte_wt *a)
{
	a->used = a->placed + pte_wt_div(a, a->cur_r + a->pend + a->R - 1);
}

/* The frames held back placed without ending the word they leave open
 * (the builder does this before a stall or idle cycles). */
static inline void pte_wt_settle(struct pte_wt *a)
{
	uint64_t r = a->cur_r + a->pend;
	a->placed += pte_wt_div(a, r);
	a->cur_r = pte_wt_mod(a, r);
	a->pend = 0;
}

/* Regions of a frame of that many items (lengths repeat). */
static inline uint64_t pte_wt_regions(struct pte_wt *a, uint32_t items)
{
	if (items != a->last_items) {
		a->last_items = items;
		a->last_regs = pte_ucdiv(items, a->N);
	}
	return a->last_regs;
}

/* As pte_mfb_begin, _frames, _frames_apart, _flush, _stall, _idle, _close. */
void pte_wt_begin(struct pte_wt *a, uint64_t S);
static inline void pte_wt_frames(struct pte_wt *a, uint32_t items, uint64_t k)
{
	if (items == 0)
		items = 1;
	if (!k)
		return;
	/* frames of the same length back to back are one entry */
	struct pte_wop *l = a->nlog ? &a->log[a->nlog - 1] : NULL;
	if (l && l->op == PTE_WOP_FRAMES && l->items == items)
		l->k += k;
	else
		pte_wt_log(a, PTE_WOP_FRAMES, items, k, 0);
	a->pend += k * pte_wt_regions(a, items);
	a->t_frames += k;
	a->t_items += k * items;
	pte_wt_reuse(a);
}
void pte_wt_frames_apart(struct pte_wt *a, uint32_t items, uint64_t k, uint64_t idle);
static inline void pte_wt_flush(struct pte_wt *a)
{
	if (!a->pend && !a->cur_r)
		return;
	pte_wt_log(a, PTE_WOP_FLUSH, 0, 0, 0);
	a->placed += pte_wt_div(a, a->cur_r + a->pend + a->R - 1);
	a->cur_r = a->pend = 0;
	a->used = a->placed;
}
/* Stall or idle cycles right after the same: one entry (the builder's
 * room for them is the same for the sum). */
static inline void pte_wt_log_cycles(struct pte_wt *a, uint8_t op, uint64_t n)
{
	struct pte_wop *l = a->nlog ? &a->log[a->nlog - 1] : NULL;
	if (l && l->op == op)
		l->n += n;
	else
		pte_wt_log(a, op, 0, 0, n);
}
/* n idle cycles, as many as fit in the slice (as pte_mfb_idle). */
static inline void pte_wt_idle_clip(struct pte_wt *a, uint64_t n)
{
	uint64_t room = a->placed < a->S ? a->S - a->placed : 0;
	uint64_t k = n < room ? n : room;
	a->idle += k;
	a->placed += k;
}
void pte_wt_stall(struct pte_wt *a, uint64_t n);
static inline void pte_wt_idle(struct pte_wt *a, uint64_t n)
{
	pte_wt_log_cycles(a, PTE_WOP_IDLE, n);
	pte_wt_settle(a);
	pte_wt_idle_clip(a, n);
	pte_wt_reuse(a);
}
/* As pte_wt_idle right after pte_wt_flush (no word open, no frames held
 * back: nothing to settle, the cycles used are those placed). */
static inline void pte_wt_idle_flushed(struct pte_wt *a, uint64_t n)
{
	pte_wt_log_cycles(a, PTE_WOP_IDLE, n);
	pte_wt_idle_clip(a, n);
	a->used = a->placed;
}
void pte_wt_close(struct pte_wt *a);
/* The calls of a log on the word builder.  Its error (0 or -ENOMEM). */
int pte_mfb_replay(struct pte_mfb *b, const struct pte_wop *log, size_t n);

/* MVB builder: up to R items per word. */
struct pte_mvb {
	unsigned R;
	uint64_t S, placed;
	unsigned cur;            /* items in the word under construction */
	uint64_t cnt[PTM_MAX_REGIONS + 1]; /* words with k items, this emission */
	uint64_t carry[PTM_MAX_REGIONS + 1];
	uint64_t carry_n;        /* words in carry[] (0: nothing to carry) */
	uint64_t carry_stall;
	uint64_t stall, idle;    /* this slice */
	uint64_t e_stall, e_idle; /* this emission */
	int emitted;
	struct pte_run run[PTM_MAX_REGIONS + 4];
	unsigned nrun;
	uint64_t t_items, t_stall;
};
void pte_mvb_init(struct pte_mvb *v, unsigned regions);
void pte_mvb_begin(struct pte_mvb *v, uint64_t S);
static inline uint64_t pte_mvb_used(const struct pte_mvb *v)
{
	return v->placed + (v->cur ? 1u : 0u);
}
void pte_mvb_items(struct pte_mvb *v, uint64_t k);
void pte_mvb_flush(struct pte_mvb *v);
void pte_mvb_stall(struct pte_mvb *v, uint64_t n);
/* Slices and emissions as for the MFB builder. */
void pte_mvb_close(struct pte_mvb *v);
void pte_mvb_runs(struct pte_mvb *v);
void pte_mvb_end(struct pte_mvb *v);
static inline void pte_mvb_apply(const struct pte_mvb *v, const struct pte_run *r,
				 struct ptm_bus_in *b)
{
	(void)v;
	if (r->kind == PTE_RUN_MOVE) {
		b->mvb_vld = r->idx >= 32 ? 0xffffffffu : ((1u << r->idx) - 1u);
		b->mvb_src_rdy = 1;
		b->mvb_dst_rdy = 1;
	} else {
		b->mvb_vld = r->kind == PTE_RUN_STALL ? 1u : 0u;
		b->mvb_src_rdy = r->kind == PTE_RUN_STALL;
		b->mvb_dst_rdy = 0;
	}
}

/* n stall cycles into a slice of S cycles with *placed used: what fits
 * counts in it (*stall), the rest is carried into the next one. */
static inline void pte_stall_into(uint64_t n, uint64_t S, uint64_t *placed, uint64_t *stall,
				  uint64_t *carry, uint64_t *total)
{
	uint64_t room = *placed < S ? S - *placed : 0;
	uint64_t k = n < room ? n : room;
	*stall += k;
	*carry += n - k;
	*placed += n;
	*total += n;
}

/* Value runs (BRAKE bits, tag and storage FIFO levels). */
struct pte_vrun {
	uint32_t len;
	uint32_t val;
};

#endif
