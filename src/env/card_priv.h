/*
 * pcie-telemetry: what the rooms of the simulated card share (src/env).
 *
 * rng.c    random numbers                queue.c  queues and the heap
 * dma.c    DMA ports (UP, DOWN)          ptc.c    PTC resources, DOWN push
 * rq.c     PTC reads -> RQ TLPs          host.c   host latency, RC stream
 * writes.c PTC writes -> RQ TLPs         link.c   the PCIe link
 * emit.c   snapshots -> the model's runs
 * engine.c the slice engine, the threads card.c   the public API (env.h)
 * (the word builders, scenarios and allocation: env_priv.h)
 *
 * Every function that can fail returns 0 or a negative errno (-ENOMEM);
 * the slice engine passes it up to pte_card_run and keeps it: a card that
 * failed once answers every later call with the same error.
 */
#ifndef PT_ENV_CARD_PRIV_H
#define PT_ENV_CARD_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "env/env_priv.h"
#include "env/need.h"
#include "env/queue.h"
#include "env/rng.h"
#include "util/cache.h"

#define READS_PER_GROUP 32
#define PORT_QUEUE 256

/* Why the PTC does not send the next group of reads: the BRAKE bit it
 * drives while it waits (PCIE_PTC_BRAKE 0..3). */
enum pte_brake {
	PTE_BRAKE_NONE = -1,
	PTE_BRAKE_NO_TAG = 0,        /* no free tag */
	PTE_BRAKE_TAG_NOT_READY = 1, /* tags free, not at the tag FIFO's read port yet */
	PTE_BRAKE_NO_SPACE = 2,      /* no room in the storage FIFO for the completions */
	PTE_BRAKE_NO_CPLH = 3,       /* no completion header credit */
	PTE_BRAKE_DOWN_MFB = 4,      /* DOWN data FIFO of the next port full */
	PTE_BRAKE_DOWN_MVB = 5,      /* DOWN header FIFO full */
};

/* A level input of the PCIe probe (free tags, free storage FIFO words)
 * over one slice. */
struct lvl {
	uint32_t cur, cap, min;
	uint32_t cap8, cap2;       /* cap >> 3, cap >> 1: the bands' thresholds */
	uint32_t full;             /* value when nothing is used */
	uint64_t used_area;        /* sum over cycles of (full - value), this slice
				    * (exact: the sums of doubles it replaces were
				    * exact too, integers far below 2^53) */
	uint64_t since;
	uint8_t cb;                /* band of cur */
	uint64_t band[4];          /* cycles in each band, this slice */
	uint32_t bval[4];          /* the last value seen in each band */
	uint64_t e_band[4];        /* ... this emission */
	uint32_t e_min;
	struct pte_vrun run[6];
	unsigned nrun;
};

/* Bus geometry of an endpoint, from the generics. */
struct ep_geom {
	unsigned R_rq, N_rq, R_rc, N_rc; /* regions, items per region */
	unsigned R_up, N_up, R_dn, N_dn;
	unsigned rc_word, dn_word, IB;   /* bytes of an RC and a DOWN word, of an item */
	unsigned ib_sh;                  /* IB = 1 << ib_sh, 32: not a power of two */
};

/* Both directions of the PCIe link. */
struct link {
	double up_Bpc, dn_Bpc;     /* TLP bytes per PCIe cycle */
	double up_buf;             /* the Hard IP's buffer in cycles of upstream link time */
	unsigned mps_log2;         /* MPS = 1 << mps_log2 (a power of two) */
	double up_t, dn_t;         /* when each direction has sent all it was given */
	int up_hold;               /* Hard IP buffer full: waits until it drained to half */
};

/* What one completion of a size takes (host.c): on RC, in the storage
 * FIFO, on DOWN.  Remembered by size (pte_cpl_size), 1 << CPL_SIZES_LOG2
 * sizes at a time. */
#define CPL_SIZES_LOG2 PT_CACHE_SIZE(4, 0)
#define CPL_SIZES (1u << CPL_SIZES_LOG2)
struct cpl_size {
	uint32_t bytes, items;     /* bytes 0: empty; RC items */
	uint64_t fw, rcw;          /* RC words, storage FIFO words */
	uint64_t dn_w, dn_reg;     /* DOWN words and regions, */
	uint32_t dn_items;         /* ... items */
	double L;                  /* PCIe cycles on the downstream link */
};

/* The host's answers. */
struct host {
	double lat_mean, lat_jit;  /* PCIe cycles */
	double lat_lo, lat_span;   /* mean - jitter, 2 x jitter (the draws' terms) */
	double ns_per_cycle;
	int64_t lat_min;
	unsigned cpl_bytes;        /* completion size */
	uint64_t cpl_mask;         /* cpl_bytes - 1 for a power of two, else 0 */
	struct rng rng;
	struct cpl_size size[CPL_SIZES];
};

/* group_need(): the answers for heads that split alike, by where in the
 * request the group starts, and for the last other head. */
#define GROUP_CACHE PT_CACHE_SIZE(9, 2) /* 1 + a power of two */
struct group_cache {
	int valid, uni;
	uint64_t addr, count, w, h;
	uint32_t off, size, stride;
	unsigned t;
};

/* uniform_read(): the TLPs and completions of a request size; those of
 * other sizes asked before, by size. */
#define SPLIT_CACHE PT_CACHE_SIZE(8, 1)
struct split_cache {
	int valid;
	uint32_t size, stride, w, h;
	unsigned ntlp, ncr;
	uint32_t frames;           /* completions of one request */
	struct cpl_run cr[MAX_RUNS_PER_ENT];
};

/* read_need(): by TLP size and offset in a host completion block. */
#define NEED_CACHE PT_CACHE_SIZE(256, 1)
struct need_cache {
	uint32_t chunk, off;       /* chunk 0: empty */
	struct tlp_need n;
};

/* req_need(): what a whole read request needs, by its size and where it
 * starts (in a 4 KiB page and in a host completion block); sets of two. */
#define REQ_CACHE PT_CACHE_SIZE(512, 2)
struct req_cache {
	uint32_t size, a4k, acpl; /* size 0: empty */
	int ok;                   /* 0: more completion sizes than a group holds */
	unsigned ntlp, ncr;
	uint32_t w, h;
	struct cpl_run cr[MAX_RUNS_PER_ENT];
};

/* write_bulk(): a write request of a size, by its size. */
#define WRITE_SIZES PT_CACHE_SIZE(16, 1)
struct write_size {
	uint32_t size;             /* 0: empty */
	uint32_t q, rem, it_q, it_r;
	uint64_t regs;
	double Lq, Lr;
};

/* bulk_cross(): the TLPs of a write request that crosses a 4 KiB
 * boundary, by its size and where it starts in its page: runs of equal
 * TLPs, each with its RQ items, regions and link time (at most
 * WRITE_CROSS_RUNS runs, else not remembered). */
#define WRITE_CROSS PT_CACHE_SIZE(64, 1)
#define WRITE_CROSS_RUNS 4
struct write_cross {
	uint32_t size, a4k;        /* size 0: empty */
	unsigned n;
	uint32_t count[WRITE_CROSS_RUNS], items[WRITE_CROSS_RUNS];
	uint64_t regs[WRITE_CROSS_RUNS], bytes[WRITE_CROSS_RUNS]; /* of the run's TLPs */
	double L[WRITE_CROSS_RUNS];
};

/* The PTC: its input buffer and the resources reads hold. */
struct ptc {
	struct reqq in;            /* input buffer */
	uint64_t consumed_reqs, consumed_bytes; /* by the RQ in the last slice */
	unsigned tags_pool, tags_used;
	uint64_t notready;         /* tags free but not at the read port yet */
	struct evq rel;            /* tags and credits coming back (and getting ready) */
	int64_t rel_due;           /* nothing in rel is due before (0 at first) */
	uint64_t stored, reserved; /* storage FIFO words */
	unsigned cplh_used;
	struct ents ents;          /* read groups in flight */
	int rc_cur;                /* group in progress on RC, -1 none */
	struct fq st;              /* storage FIFO contents */
	struct group_cache gc[GROUP_CACHE]; /* 0: heads that do not split alike */
	unsigned gc_last;          /* the entry asked about last */
	const struct group_cache *known; /* the head's group need when RQ's last
				    * step in slice known_T0 waited for it (rq.c) */
	int64_t known_T0;
	struct split_cache ur, ur_by[SPLIT_CACHE];
	struct need_cache need[NEED_CACHE];
	struct req_cache req[REQ_CACHE];
	struct write_size wsz[WRITE_SIZES];
	struct write_cross wx[WRITE_CROSS];
};

/* The storage FIFO emptying towards the DMA ports within a slice. */
struct push {
	uint64_t budget, done, d_next; /* bytes towards the DMA, this slice; next DMA slice */
	int held;                  /* BRAKE bits 4/5 holding the DOWN stream, 0 none */
	uint64_t both;             /* cycles of this slice with both of them */
	uint64_t held_from;
	uint64_t slice_len;
	uint64_t slice_no;         /* slices begun, from 1 */
};

/* BRAKE signals: cycles per bit in a slice; in an emission, the cycles
 * of bits 0-3 and of neither / bit 4 alone / bit 5 alone / both; runs. */
struct brakes {
	uint64_t cyc[6];
	uint64_t e_up[4], e_down[4];
	struct pte_vrun a[6], b[4]; /* bits 0-3, bits 4-5 */
	unsigned na, nb;
};

/* Bytes between the fields the model's side of the card writes (the word
 * builders, the model's inputs: emit.c, on the caller's thread) and the
 * endpoint's own, which its thread writes meanwhile, and between two
 * endpoints: no cache line (nor pair of lines, which CPUs fetch together)
 * is written by two threads. */
#define PTE_APART 128

struct port {
	struct rng rng;
	struct pte_pick pick_r, pick_w; /* the size distributions of reads and writes */
	double credit_r, credit_w;
	uint64_t addr_r, addr_w;
	struct reqq pend;          /* generated, not yet on UP */
	struct pte_wt up, down;    /* as rq and rc of struct ep */
	char apart0[PTE_APART];
	struct pte_mfb upb, downb; /* on the model's side, as rqb and rcb */
	char apart1[PTE_APART];
	struct pte_mvb upv, downv;
	struct fq afifo;           /* completions towards the port */
	uint64_t af_words, af_hdrs, af_regions; /* in the FIFOs towards the port */
	/* what the DMA side takes in a slice: data regions, headers, data
	 * words (push_progress; for slice cap_slice, 0 = none yet) */
	uint64_t cap_reg, cap_hdr, cap_words, cap_slice;
	/* the FIFOs' capacities while they hold completions of one size
	 * alone (ptc.c, fifo_caps_one): words and headers, for completions
	 * of one_w words and one_reg regions in slice one_slice (0: none) */
	uint64_t one_cw, one_ch, one_w, one_reg, one_slice;
	double ready_carry, hdr_carry;
};

struct ep {
	unsigned idx;
	const struct pte_ep_cfg *cfg;
	struct pte_ep_info info;
	struct ep_geom geo;
	struct link link;
	struct host host;
	struct ptc ptc;
	struct push push;
	struct pte_wt rq, rc;      /* the RQ and RC buses as the schedulers see them, */
	char apart0[PTE_APART];
	struct pte_mfb rqb, rcb;   /* ... their words (built on the model's side) */
	struct ptm_pcie_in in;     /* the model's inputs as the last emission left them */
	char apart1[PTE_APART];
	struct lvl tagl, stl;
	struct brakes brk;
	struct port port[PTM_MAX_DMA_PORTS];
	struct pte_truth truth;
	char apart2[PTE_APART];    /* from the next endpoint, on a thread of its own */
};

/* ---- jobs: the slices of one emission (engine.c) ------------------------------ */

/* Slices per emission at most (a drain period of 32768 cycles in slices of
 * 2048). */
#define PTE_EM_MAX 16
/* Emissions planned ahead of the model at most: enough that the
 * endpoints' thread seldom waits while the model's thread is slower for a
 * moment (an emission whose words cost more, a vCPU the host holds back).
 * Measured on tx-64B, mixed and two-endpoints: with 8 the endpoints'
 * thread waited 3 to 10 % of its time, with 32 2 to 4 %; their snapshots
 * cost a few hundred kB more. */
#define PTE_JOBS 32

/* One slice, the same for every endpoint. */
struct pte_slice {
	uint64_t T0, S, d, d_next; /* start and PCIe cycles; DMA cycles; of the next slice */
	double sec;
	unsigned rot;              /* which DMA port goes first */
};

struct pte_job {
	unsigned n;
	struct pte_slice sl[PTE_EM_MAX];
	uint64_t S, d;             /* PCIe and DMA cycles in all */
	uint64_t mi_to;            /* the MI domain follows up to this edge */
};

/* A signal of an endpoint in a snapshot; its runs (and an MFB signal's
 * patterns) are in the snapshot's arena. */
enum pte_sig_kind { PTE_SIG_MFB, PTE_SIG_MFB_RUNS, PTE_SIG_MVB, PTE_SIG_BRAKE_UP, PTE_SIG_BRAKE_DOWN, PTE_SIG_TAGS,
		    PTE_SIG_STFIFO };

struct pte_snap_sig {
	uint8_t kind, R;
	uint16_t bus;              /* PCIe: 0 RQ, 1 RC; DMA: 2p UP, 2p+1 DOWN of port p */
	unsigned n;
	size_t run, pat;           /* offsets in the arena */
};

/* What the model gets from one endpoint for one emission: the PCIe
 * signals (RQ, RC, BRAKE 0-3, BRAKE 4-5, free tags, free storage FIFO
 * words), then per DMA port UP MFB, UP MVB, DOWN MFB, DOWN MVB. */
struct pte_snap {
	int err;                   /* the endpoint failed in this emission */
	uint64_t S, d;
	unsigned nsig;
	struct pte_snap_sig sig[6 + 4 * PTM_MAX_DMA_PORTS];
	unsigned char *arena;
	size_t used, cap;
};

/* Endpoints on threads of their own: one per endpoint while the CPUs
 * last, else thread t runs endpoints t, t + n, ...; the model stays on
 * the caller's thread (engine.c).  published and finished[t] are the
 * handshake (a thread spins a little before it sleeps on a condition);
 * sleeping counts the threads that wait on one. */
struct pte_workers {
	unsigned n;                /* threads, 0 = none */
	pthread_t th[PTM_MAX_ENDPOINTS];
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	_Atomic uint64_t published; /* jobs the endpoints may run */
	_Atomic uint64_t finished[PTM_MAX_ENDPOINTS]; /* per thread */
	_Atomic int stop;
	_Atomic int sleeping;       /* threads waiting on a condition */
	_Atomic uint64_t want;      /* the caller sleeps until every endpoint
				     * has finished this many jobs */
	unsigned spins;            /* a waiting thread gives way this often first */
	struct pte_worker_arg {
		struct pte_card *c;
		unsigned t, nth;    /* this thread, threads in all */
	} arg[PTM_MAX_ENDPOINTS];
};

struct pte_card {
	struct pte_scenario sc;
	ptm_model *m;
	unsigned neps, nports;
	uint64_t pcie_khz, dma_khz, mi_khz;
	uint64_t slice;
	uint64_t pcie_done, dma_done, mi_done;
	unsigned em_max;           /* slices per emission */
	int words_on_ep;           /* the word builders run with their endpoint
				    * (several endpoints, a thread each), not
				    * with the model (engine.c, threads_for) */
	/* emissions: planned (pcie_done and dma_done are their end), and
	 * given to the model; job j in jobs[j % PTE_JOBS], its snapshots in
	 * snaps[j % PTE_JOBS][endpoint] */
	uint64_t planned, collected;
	struct pte_job jobs[PTE_JOBS];
	struct pte_snap (*snaps)[PTM_MAX_ENDPOINTS];
	struct pte_workers w;
	uint64_t batches;
	struct ptm_bus_run *runs;  /* the model's runs of one emission (emit.c) */
	size_t nruns, runs_cap;
	unsigned rot;
	int err;                   /* first failure, kept */
	/* progress of a long pte_card_run */
	pte_progress_fn progress;
	void *progress_arg;
	double progress_min;       /* wall seconds a run must be expected to take */
	pte_stop_fn stop;          /* asked between stretches of a long run */
	void *stop_arg;
	char apart[PTE_APART];     /* the model's side writes the fields above */
	struct ep ep[PTM_MAX_ENDPOINTS];
	struct ptm_bus_in dbus[2 * PTM_MAX_ENDPOINTS * PTM_MAX_DMA_PORTS];
};

/* ---- small helpers -------------------------------------------------------- */

/* ceil(a / b) for b > 0 (a shift for a power of two: pte_ucdiv). */
static inline uint32_t pte_cdiv32(uint64_t a, uint64_t b)
{
	return (uint32_t)pte_ucdiv(a, b);
}

/* a % b for b > 0: a mask when b is a power of two. */
static inline uint64_t pte_mod64(uint64_t a, uint64_t b)
{
	return (b & (b - 1)) == 0 ? a & (b - 1) : a % b;
}

static inline uint64_t pte_min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ceil(v) of a time v >= 0 (without the library call). */
static inline int64_t pte_ceil(double v)
{
	int64_t i = (int64_t)v;
	return i + ((double)i < v);
}

/* Where address a is in a host completion block (a % cpl_bytes). */
static inline uint32_t pte_cpl_off(const struct host *h, uint64_t a)
{
	return (uint32_t)(h->cpl_mask ? a & h->cpl_mask : a % h->cpl_bytes);
}

/* MFB items of a frame of that many bytes. */
static inline uint32_t pte_items(const struct ep *e, uint32_t bytes)
{
	if (e->geo.ib_sh < 32)
		return (uint32_t)(((uint64_t)bytes + e->geo.IB - 1) >> e->geo.ib_sh);
	return pte_cdiv32(bytes, e->geo.IB);
}

/* What a completion of that many bytes takes (sizes repeat: the sizes
 * of a run spread over the entries by a multiplicative hash). */
static inline unsigned pte_cpl_slot(uint32_t bytes)
{
	return CPL_SIZES_LOG2 ? (uint32_t)(bytes * 0x9e3779b1u) >> (32 - CPL_SIZES_LOG2) : 0;
}
const struct cpl_size *pte_cpl_size_fill(struct ep *e, uint32_t bytes);
/* The entry of that size, valid until the next lookup of another size
 * (which may take its place): a caller that looks up again while it
 * holds one keeps a copy. */
static inline const struct cpl_size *pte_cpl_size(struct ep *e, uint32_t bytes)
{
	const struct cpl_size *z = &e->host.size[pte_cpl_slot(bytes)];
	return z->bytes == bytes ? z : pte_cpl_size_fill(e, bytes);
}

/* ---- DMA ports (dma.c) ----------------------------------------------------- */

/* New requests of a port for one slice of `sec` seconds; then the port's
 * UP and DOWN buses for d DMA cycles.  room_*: what the PTC's input buffer
 * takes in this slice, used up by up_slice. */
void pte_dma_generate(struct ep *e, unsigned p, double sec, uint64_t d);
void pte_dma_down_slice(struct ep *e, struct port *pt, uint64_t d);
void pte_dma_up_slice(struct ep *e, struct port *pt, uint64_t d, uint64_t *room_reqs,
		      uint64_t *room_bytes);
/* A slice of d cycles in which nothing moves (link down). */
void pte_dma_quiet_slice(struct port *pt, uint64_t d);

/* ---- PTC resources (ptc.c) -------------------------------------------------- */

void pte_lvl_begin(struct lvl *l);
/* The histogram band of a level: none, at most an eighth, at most half,
 * more (firmware-behavior.md 3.2). */
static inline unsigned pte_lvl_band(const struct lvl *l, uint32_t v)
{
	/* 0 for 0, else 1 plus one for each threshold v is above */
	return (unsigned)(v != 0) + (unsigned)(v > l->cap8) + (unsigned)(v > l->cap2);
}
/* The level is v from slice cycle t on (t before the last change: at it). */
static inline void pte_lvl_set(struct lvl *l, uint64_t t, uint32_t v)
{
	if (t < l->since)
		t = l->since;
	uint64_t dt = t - l->since;
	l->band[l->cb] += dt;
	if (l->full > l->cur)
		l->used_area += (uint64_t)(l->full - l->cur) * dt;
	l->since = t;
	l->cur = v;
	if (v < l->min)
		l->min = v;
	l->cb = (uint8_t)pte_lvl_band(l, v);
	l->bval[l->cb] = v;
}
/* From t on: n pulses of len cycles at lo, hi in between (gaps cycles in
 * all, n - 1 of them) and after the last; as 2n pte_lvl_set calls. */
void pte_lvl_pulses(struct lvl *l, uint64_t t, uint32_t lo, uint32_t hi, uint64_t n,
		    uint64_t len, uint64_t gaps);
/* End of a slice of S cycles: its band times into the truth and the
 * emission. */
void pte_lvl_close(struct lvl *l, uint64_t S, uint64_t *truth_band);
/* The runs of the emission. */
void pte_lvl_runs(struct lvl *l);
/* Free storage FIFO words. */
static inline uint32_t pte_st_free(const struct ep *e)
{
	uint64_t cap = e->info.stfifo_words, st = e->ptc.stored;
	return (uint32_t)(cap > st ? cap - st : 0);
}
/* Tags and credits that came back by `now`; T0 = start of the slice.
 * rel_due says when the next release happens or the first released tag
 * gets ready, whichever is first (a lower bound: _due recomputes it).
 * One queue of releases (tags and credits coming back, in time order):
 * those from head to head + applied have happened, and their tags get to
 * the tag FIFO's read port tag_ready_delay cycles after theirs.  Inline:
 * the RQ asks at every step (half of its calls only find tags ready). */
static inline int pte_apply_releases_due(struct ep *e, int64_t now, int64_t T0)
{
	struct ptc *p = &e->ptc;
	struct evq *q = &p->rel;
	const int64_t delay = e->cfg->tag_ready_delay;
	const struct ev *ring = q->q;
	const unsigned m = q->cap - 1, n = q->n; /* in registers past pte_lvl_set */
	unsigned head = q->head, applied = q->applied;
	int64_t next = INT64_MAX, ready = INT64_MAX;

	for (; applied < n; applied++) {
		const struct ev *v = &ring[(head + applied) & m];
		if (v->t > now) {
			next = v->t;
			break;
		}
		p->tags_used -= v->tags;
		p->cplh_used -= v->cplh;
		p->notready += v->tags;
		int64_t rt = v->t - T0;
		pte_lvl_set(&e->tagl, rt > 0 ? (uint64_t)rt : 0, p->tags_pool - p->tags_used);
	}
	unsigned popped = 0;
	for (; applied; applied--, popped++, head = (head + 1) & m) {
		if (ring[head].t + delay > now) {
			ready = ring[head].t + delay;
			break;
		}
		p->notready -= ring[head].tags;
	}
	q->n = n - popped;
	q->head = head;
	q->applied = applied;
	p->rel_due = next < ready ? next : ready;
	return 0;
}
static inline int pte_apply_releases(struct ep *e, int64_t now, int64_t T0)
{
	return e->ptc.rel_due <= now ? pte_apply_releases_due(e, now, T0) : 0;
}
/* Tags and credits come back at t (times never decrease).  0 or -ENOMEM. */
static inline int pte_release_push(struct ep *e, int64_t t, uint32_t tags, uint32_t cplh)
{
	if (t < e->ptc.rel_due)
		e->ptc.rel_due = t;
	return pte_evq_push(&e->ptc.rel, t, tags, cplh);
}
/* When the next release happens, and when the first released tag that is
 * not ready yet gets ready (INT64_MAX: none). */
static inline int64_t pte_next_release(struct ep *e)
{
	struct evq *q = &e->ptc.rel;
	return q->applied < q->n ? pte_evq_at(q, q->applied)->t : INT64_MAX;
}
static inline int64_t pte_next_ready(struct ep *e)
{
	struct evq *q = &e->ptc.rel;
	for (unsigned i = 0; i < q->applied; i++)
		if (pte_evq_at(q, i)->tags) /* credits alone have no tag to wait for */
			return pte_evq_at(q, i)->t + e->cfg->tag_ready_delay;
	return INT64_MAX;
}
/* The storage FIFO empties towards the ports up to slice cycle t. */
int pte_push_moves(struct ep *e, uint64_t t);
static inline int pte_push_progress(struct ep *e, uint64_t t)
{
	if (!e->ptc.st.n || e->push.held)
		return 0; /* nothing to push, or held to the end of the slice */
	if (t <= e->push.slice_len && e->push.done >= t * e->geo.rc_word)
		return 0; /* the budget up to t is used up (as pte_push_moves finds) */
	return pte_push_moves(e, t);
}
/* k completions of `bytes` for a port arrive in the storage FIFO, which
 * holds nothing else, and the push is not held: the push up to slice
 * cycle t takes them on as pte_push_progress(e, t) would after they were
 * stored, and the rest is stored.  0 or -ENOMEM. */
int pte_push_in(struct ep *e, unsigned port, uint32_t bytes, uint64_t k, uint64_t t);
void pte_push_begin(struct ep *e, uint64_t S, uint64_t d_next);
/* A completion that arrived at slice cycle t goes on to its port's FIFOs
 * at once, as pte_push_progress(e, t) would move it when the storage FIFO
 * holds nothing else: 1 when it did; 0 (nothing changed) when the storage
 * FIFO is not empty, the push is held, its budget or the FIFOs have no
 * room. */
int pte_push_through(struct ep *e, unsigned port, uint32_t bytes, uint64_t t);
/* Completions in a row, the first arriving at slice cycle t and each
 * later one at least an RC word a cycle after the one before, go through
 * as pte_push_through would take them while the push may (this says
 * whether it may now), the FIFOs have room for how many of them (at most
 * max), and k of them go through at once (0 or -ENOMEM). */
int pte_push_through_ok(struct ep *e, uint64_t t);
uint64_t pte_push_through_room(struct ep *e, unsigned port, uint32_t bytes, uint64_t max);
int pte_push_through_bulk(struct ep *e, unsigned port, uint32_t bytes, uint64_t k);
void pte_push_end(struct ep *e, uint64_t S);
/* BRAKE cycles of a slice into the truth and the emission; the runs of
 * an emission of E cycles (bits 0-3 at its end, where the RQ idles). */
void pte_brake_close(struct ep *e, uint64_t S);
void pte_brake_runs(struct ep *e, uint64_t E);

/* ---- requests to TLPs (rq.c, writes.c) ---------------------------------------- */

/* The head request has gone out to its end: one request of its run is
 * consumed.  Returns 1 when it was the last one (the run is popped). */
static inline int pte_req_consumed(struct ep *e, struct req *r)
{
	r->off = 0;
	r->count--;
	r->addr += r->stride;
	e->ptc.in.reqs--;
	e->ptc.consumed_reqs++;
	if (r->count)
		return 0;
	pte_reqq_pop(&e->ptc.in);
	return 1;
}

/* n > 0 whole requests of the head run, from the head on, have gone out
 * (the head's TLPs up to its end): pte_req_consumed for each at once.
 * Returns 1 when they were the last of the run (it is popped). */
static inline int pte_reqs_consumed(struct ep *e, struct req *r, uint64_t n)
{
	r->count -= n - 1;
	r->addr += (n - 1) * r->stride;
	e->ptc.in.reqs -= n - 1;
	e->ptc.consumed_reqs += n - 1;
	return pte_req_consumed(e, r);
}

/* A burst of write requests from the head one r (RQ at slice cycle `now`
 * - T0 of S), back to back while the Hard IP takes them: the TLPs of a
 * request leave at the time of its first one. */
void pte_write_burst(struct ep *e, int64_t T0, uint64_t S, struct req *r, int64_t now);

/* The next steps of the RQ bus from its current time, each a burst of
 * writes, a group of reads, or the cycles they wait: one, then more while
 * RQ is before slice cycle `until` (RC's time or the end of the slice,
 * whichever is first: RQ's steps leave RC's time as it is). */
int pte_rq_steps(struct ep *e, int64_t T0, uint64_t S, uint64_t until);

/* ---- host and the completion stream (host.c) ---------------------------------- */

/* The host's latency for a group of reads in PCIe cycles (at least 1): a
 * draw of the scenario's distribution, rounded to the nearest.  Inline:
 * one per group (the exponential draw out of line). */
double pte_host_latency_exp(struct ep *e);
static inline int64_t pte_host_latency(struct ep *e)
{
	const struct host *h = &e->host;
	double l;

	if (e->cfg->lat_kind == PTE_LAT_FIXED)
		l = h->lat_mean;
	else if (e->cfg->lat_kind == PTE_LAT_UNIFORM)
		l = h->lat_lo + h->lat_span * pte_rng_unit(&e->host.rng);
	else
		l = pte_host_latency_exp(e);
	if (!(l >= 1.0))
		return 1;
	/* llround for a positive l: the fraction l - floor(l) is exact */
	int64_t c = (int64_t)l;
	return c + (l - (double)c >= 0.5);
}
/* The next step of the RC bus: completions of the first group, or idle. */
int pte_rc_step(struct ep *e, int64_t T0, uint64_t S, int rq_active);

/* ---- link (link.c) -------------------------------------------------------------- */

void pte_link_init(struct ep *e, double pcie_hz);
/* 1 with *wait cycles when the Hard IP's buffer takes no TLP now (the
 * buffer neither held nor full: 0 at once). */
int pte_link_wait_slow(struct ep *e, int64_t now, uint64_t *wait);
static inline int pte_link_wait(struct ep *e, int64_t now, uint64_t *wait)
{
	if (!e->link.up_hold && e->link.up_t - (double)now <= e->link.up_buf)
		return 0;
	return pte_link_wait_slow(e, now, wait);
}
/* k TLPs of `bytes` (header included) leave upstream from `now` on. */
static inline void pte_link_send(struct ep *e, int64_t now, uint32_t bytes, uint64_t k)
{
	double t = e->link.up_t > (double)now ? e->link.up_t : (double)now;
	e->link.up_t = t + (double)k * (double)(bytes + e->info.tlp_framing_bytes) / e->link.up_Bpc;
}
/* Upstream backlog beyond the Hard IP's buffer at `now`? */
static inline int pte_link_full(const struct ep *e, int64_t now)
{
	return e->link.up_t - (double)now > e->link.up_buf;
}

/* ---- feeding the model (emit.c) ---------------------------------------------------- */

/* Copy the signals of an endpoint's emission (S PCIe and d DMA cycles,
 * the DMA signals only when d) into a snapshot; the logs of the MFB
 * buses' time sides start over.  words: the word builders take the logs
 * here (on the endpoint's thread) and the snapshot holds their runs, else
 * it holds the logs.  0 or -ENOMEM. */
int pte_snap_take(struct pte_snap *s, struct ep *e, unsigned nports, uint64_t S, uint64_t d,
		  int words);
/* The model's side: the word builders of the endpoint take the snapshot's
 * logs and fold the emission's words into runs.  0 or -ENOMEM. */
int pte_snap_words(struct ep *x, const struct pte_snap *s);
void pte_snap_free(struct pte_snap *s);
/* The model gets one emission of every endpoint (snap[endpoint]), each
 * signal as its own runs.  0 or -ENOMEM. */
int pte_emit(struct pte_card *c, struct pte_snap *const *snap);

/* ---- the slice engine (engine.c) -------------------------------------------------- */

/* Run every endpoint and the model up to PCIe cycle target (the model a
 * few emissions behind the endpoints, up to them at the end).  The first
 * failure is kept in c->err and returned. */
int pte_engine_advance(struct pte_card *c, uint64_t target);
/* nth endpoint threads (0: none, at most the endpoints), started anew
 * when the count changes; the card must be idle.  0 or a negative errno
 * (threads could not be started: the card goes on without). */
int pte_engine_threads(struct pte_card *c, unsigned nth);
void pte_engine_stop(struct pte_card *c);
/* CPUs this process may run on (its affinity mask), at least 1. */
unsigned pte_engine_cpus(void);
/* The threads that suit the card on these CPUs (pte_engine_threads). */
unsigned pte_engine_auto_threads(const struct pte_card *c);

#endif
