/*
 * pcie-telemetry: what the rooms of the simulated card share (src/env).
 *
 * rng.c    random numbers                queue.c  queues and the heap
 * dma.c    DMA ports (UP, DOWN)          ptc.c    PTC resources, DOWN push
 * rq.c     PTC requests -> RQ TLPs       host.c   host latency, RC stream
 * link.c   the PCIe link                 emit.c   runs -> model batches
 * card.c   the slice engine and the public API (env.h)
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
#include "env/queue.h"
#include "env/rng.h"

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
	uint32_t full;             /* value when nothing is used */
	double used_area;          /* sum over cycles of (full - value) */
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
};

/* Both directions of the PCIe link. */
struct link {
	double up_Bpc, dn_Bpc;     /* TLP bytes per PCIe cycle */
	double up_t, dn_t;         /* when each direction has sent all it was given */
	int up_hold;               /* Hard IP buffer full: waits until it drained to half */
};

/* What one completion of a size takes (host.c). */
#define CPL_SIZES 8
struct cpl_size {
	uint32_t bytes, items;     /* bytes 0: empty; RC items */
	uint64_t fw, rcw;          /* RC words, storage FIFO words */
	double L;                  /* PCIe cycles on the downstream link */
};

/* The host's answers. */
struct host {
	double lat_mean, lat_jit;  /* PCIe cycles */
	double ns_per_cycle;
	int64_t lat_min;
	unsigned cpl_bytes;        /* completion size */
	struct rng rng;
	struct cpl_size size[CPL_SIZES];
};

/* group_need(): the last head request asked about and the answer. */
struct group_cache {
	int valid, uni;
	uint64_t addr, count, w, h;
	uint32_t off, size, stride;
	unsigned t;
};

/* uniform_read(): the TLPs and completions of a request size. */
struct split_cache {
	int valid;
	uint32_t size, stride, w, h;
	unsigned ntlp, ncr;
	struct cpl_run cr[MAX_RUNS_PER_ENT];
};

/* push_progress(): the last completion size and what it takes. */
struct size_cache {
	uint32_t bytes;
	uint64_t w, reg, rcw;      /* DOWN words, DOWN regions, RC words */
};

/* What one read TLP needs: its completions, storage FIFO words (w) and
 * completion header credits (h). */
struct tlp_need {
	uint32_t w, h;
	unsigned ncr;
	struct cpl_run cr[4];
};

/* read_need(): by TLP size and offset in a host completion block. */
#define NEED_CACHE 64
struct need_cache {
	uint32_t chunk, off;       /* chunk 0: empty */
	struct tlp_need n;
};

/* The PTC: its input buffer and the resources reads hold. */
struct ptc {
	struct reqq in;            /* input buffer */
	uint64_t consumed_reqs, consumed_bytes; /* by the RQ in the last slice */
	unsigned tags_pool, tags_used;
	uint64_t notready;         /* tags free but not at the read port yet */
	struct evq rel, rdy;       /* tags and credits coming back; tags getting ready */
	uint64_t stored, reserved; /* storage FIFO words */
	unsigned cplh_used;
	struct ents ents;          /* read groups in flight */
	int rc_cur;                /* group in progress on RC, -1 none */
	struct fq st;              /* storage FIFO contents */
	struct group_cache gc;
	struct split_cache ur;
	struct need_cache need[NEED_CACHE];
};

/* The storage FIFO emptying towards the DMA ports within a slice. */
struct push {
	uint64_t budget, done, d_next; /* bytes towards the DMA, this slice; next DMA slice */
	int held;                  /* BRAKE bits 4/5 holding the DOWN stream, 0 none */
	uint64_t both;             /* cycles of this slice with both of them */
	uint64_t held_from;
	uint64_t slice_len;
	uint64_t slice_no;         /* slices begun, from 1 */
	struct size_cache sz;
};

/* BRAKE signals: cycles per bit in a slice; in an emission, the cycles
 * of bits 0-3 and of neither / bit 4 alone / bit 5 alone / both; runs. */
struct brakes {
	uint64_t cyc[6];
	uint64_t e_up[4], e_down[4];
	struct pte_vrun a[6], b[4]; /* bits 0-3, bits 4-5 */
	unsigned na, nb;
};

struct port {
	struct rng rng;
	double credit_r, credit_w;
	uint64_t addr_r, addr_w;
	struct reqq pend;          /* generated, not yet on UP */
	struct pte_mfb up, down;
	struct pte_mvb upv, downv;
	struct fq afifo;           /* completions towards the port */
	uint64_t af_words, af_hdrs, af_regions; /* in the FIFOs towards the port */
	/* what the DMA side takes in a slice: data regions, headers, data
	 * words (push_progress; for slice cap_slice, 0 = none yet) */
	uint64_t cap_reg, cap_hdr, cap_words, cap_slice;
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
	struct pte_mfb rq, rc;
	struct lvl tagl, stl;
	struct brakes brk;
	struct ptm_pcie_in in;
	struct port port[PTM_MAX_DMA_PORTS];
	struct pte_truth truth;
};

/* ---- jobs: the slices of one emission (engine.c) ------------------------------ */

/* Slices per emission at most (a drain period of 32768 cycles in slices of
 * 2048). */
#define PTE_EM_MAX 16
/* Emissions planned ahead of the model at most. */
#define PTE_JOBS 8

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
enum pte_sig_kind { PTE_SIG_MFB, PTE_SIG_MVB, PTE_SIG_BRAKE_UP, PTE_SIG_BRAKE_DOWN, PTE_SIG_TAGS,
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

/* Endpoints on threads of their own: one per endpoint; the model stays on
 * the caller's thread. */
struct pte_workers {
	unsigned n;                /* threads, 0 = none */
	pthread_t th[PTM_MAX_ENDPOINTS];
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	uint64_t published;        /* jobs the endpoints may run */
	uint64_t finished[PTM_MAX_ENDPOINTS];
	int stop;
	struct pte_worker_arg {
		struct pte_card *c;
		unsigned e;
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
	/* emissions: planned (pcie_done and dma_done are their end), and
	 * given to the model; job j in jobs[j % PTE_JOBS], its snapshots in
	 * snaps[j % PTE_JOBS][endpoint] */
	uint64_t planned, collected;
	struct pte_job jobs[PTE_JOBS];
	struct pte_snap (*snaps)[PTM_MAX_ENDPOINTS];
	struct pte_workers w;
	uint64_t batches;
	unsigned rot;
	int err;                   /* first failure, kept */
	/* progress of a long pte_card_run */
	pte_progress_fn progress;
	void *progress_arg;
	double progress_min;       /* wall seconds a run must be expected to take */
	pte_stop_fn stop;          /* asked between stretches of a long run */
	void *stop_arg;
	struct ep ep[PTM_MAX_ENDPOINTS];
	struct ptm_bus_in dbus[2 * PTM_MAX_ENDPOINTS * PTM_MAX_DMA_PORTS];
};

/* ---- small helpers -------------------------------------------------------- */

static inline uint32_t pte_cdiv32(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

static inline uint64_t pte_min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* MFB items of a frame of that many bytes. */
static inline uint32_t pte_items(const struct ep *e, uint32_t bytes)
{
	return pte_cdiv32(bytes, e->geo.IB);
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
void pte_lvl_set(struct lvl *l, uint64_t t, uint32_t v);
/* End of a slice of S cycles: its band times into the truth and the
 * emission. */
void pte_lvl_close(struct lvl *l, uint64_t S, uint64_t *truth_band);
/* The runs of the emission. */
void pte_lvl_runs(struct lvl *l);
uint32_t pte_st_free(const struct ep *e);
/* Tags and credits that came back by `now`; T0 = start of the slice. */
int pte_apply_releases(struct ep *e, int64_t now, int64_t T0);
/* The storage FIFO empties towards the ports up to slice cycle t. */
int pte_push_progress(struct ep *e, uint64_t t);
void pte_push_begin(struct ep *e, uint64_t S, uint64_t d_next);
void pte_push_end(struct ep *e, uint64_t S);
/* BRAKE cycles of a slice into the truth and the emission; the runs of
 * an emission of E cycles (bits 0-3 at its end, where the RQ idles). */
void pte_brake_close(struct ep *e, uint64_t S);
void pte_brake_runs(struct ep *e, uint64_t E);

/* ---- requests to TLPs (rq.c) ------------------------------------------------- */

/* The next step of the RQ bus at its current time: a burst of writes, a
 * group of reads, or the cycles they wait. */
int pte_rq_step(struct ep *e, int64_t T0, uint64_t S);

/* ---- host and the completion stream (host.c) ---------------------------------- */

int64_t pte_host_latency(struct ep *e);
/* Completions of one read [a, a+len): split at the host's completion size. */
unsigned pte_cpl_split(const struct ep *e, uint64_t a, uint32_t len, struct cpl_run *out);
/* The next step of the RC bus: completions of the first group, or idle. */
int pte_rc_step(struct ep *e, int64_t T0, uint64_t S, int rq_active);

/* ---- link (link.c) -------------------------------------------------------------- */

void pte_link_init(struct ep *e, double pcie_hz);
/* 1 with *wait cycles when the Hard IP's buffer takes no TLP now. */
int pte_link_wait(struct ep *e, int64_t now, uint64_t *wait);
/* k TLPs of `bytes` (header included) leave upstream from `now` on. */
void pte_link_send(struct ep *e, int64_t now, uint32_t bytes, uint64_t k);
/* Upstream backlog beyond the Hard IP's buffer at `now`? */
int pte_link_full(const struct ep *e, int64_t now);

/* ---- feeding the model (emit.c) ---------------------------------------------------- */

/* Copy the runs of an endpoint's emission (S PCIe and d DMA cycles, the
 * DMA signals only when d) into a snapshot.  0 or -ENOMEM. */
int pte_snap_take(struct pte_snap *s, const struct ep *e, unsigned nports, uint64_t S, uint64_t d);
void pte_snap_free(struct pte_snap *s);
/* The model gets one emission of every endpoint (snap[endpoint]). */
void pte_emit(struct pte_card *c, struct pte_snap *const *snap);

/* ---- the slice engine (engine.c) -------------------------------------------------- */

/* Run every endpoint and the model up to PCIe cycle target (the model a
 * few emissions behind the endpoints, up to them at the end).  The first
 * failure is kept in c->err and returned. */
int pte_engine_advance(struct pte_card *c, uint64_t target);
/* Endpoint threads on (1) or off (0); the card must be idle.  0 or a
 * negative errno (threads could not be started). */
int pte_engine_threads(struct pte_card *c, int on);
void pte_engine_stop(struct pte_card *c);

#endif
