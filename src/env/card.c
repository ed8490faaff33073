/*
 * pcie-telemetry: the simulated NDK card.
 *
 * Per endpoint: DMA ports (request generators, UP and DOWN buses), the PTC
 * (requests to TLPs, tags, storage FIFO reservations, Completion Header
 * credits, the DOWN path to the ports), the PCIe link (upstream and
 * downstream TLP rates with framing, LCRC and DLLP overhead) and the host
 * (read latency, completions split at its completion size).
 *
 * The card advances in time slices (at most half of DRAIN_PERIOD: the cost
 * of the card is per slice and per run, so a longer slice is cheaper; a
 * whole period makes the PTC's input buffer too coarse for rx-line-rate).
 * Inside a slice the PCIe side is scheduled frame by frame in PCIe cycles
 * (RQ and RC interleaved in time order, so that a tag released by a
 * completion is seen by the request that waited for it), the DMA side per
 * slice.  The word builders (agg.c) turn each bus into a few runs of
 * identical cycles and the model gets one batch per run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_priv.h"

#define MAX_RUNS_PER_ENT 8
#define READS_PER_GROUP 32
#define PORT_QUEUE 256
#ifndef PTE_SLICE_MAX
#define PTE_SLICE_MAX 2048
#endif

/* ---- random numbers (xoshiro256**) ------------------------------------- */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- state --------------------------------------------------------------- */

struct cpl_run {
	uint32_t bytes, count;
};

/* Reads issued together; the host answers them after one latency draw. */
struct ent {
	int64_t t_arr;
	uint32_t reads, tags, cplh, res_words;
	uint32_t frames, frames_done, tags_rel, cplh_rel; /* tags come back TLP by TLP */
	uint8_t port, nrun, cur;
	struct cpl_run run[MAX_RUNS_PER_ENT];
};

struct req {               /* requests of one kind, size and stride */
	uint8_t write, port;
	uint32_t size, stride;
	uint64_t count;
	uint64_t addr;
	uint32_t off;      /* bytes of the head request already sent */
};

struct reqq {
	struct req *q;
	unsigned cap, head, n;
	uint64_t reqs, bytes; /* requests, write payload bytes */
};

struct frun {              /* stored completions, in order */
	uint8_t port;
	uint32_t bytes;
	uint64_t count;
};

struct fq {
	struct frun *q;
	unsigned cap, head, n;
};

struct ev {
	int64_t t;
	uint32_t tags, cplh;
};

struct evq {
	struct ev *q;
	unsigned cap, head, n;
};

struct lvl {               /* a level input (tags, storage FIFO words) */
	uint32_t cur, cap, min;
	uint32_t full;             /* value when nothing is used */
	double used_area;          /* sum over cycles of (full - value) */
	uint64_t since;
	uint64_t band[4];
	uint32_t bval[4];
	struct pte_vrun run[6];
	unsigned nrun;
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
	unsigned R_rq, N_rq, R_rc, N_rc, R_up, N_up, R_dn, N_dn;
	unsigned rc_word, dn_word, IB; /* bytes */
	double up_Bpc, dn_Bpc;     /* link bytes per PCIe cycle */
	double lat_mean, lat_jit;  /* PCIe cycles */
	double ns_per_cycle;
	int64_t lat_min;
	unsigned hcpl;             /* host completion size */
	struct rng rng;
	struct reqq ptc;
	uint64_t consumed_reqs, consumed_bytes; /* by the RQ in the last slice */
	unsigned tags_pool, tags_used;
	uint64_t notready;
	struct evq rel, rdy;
	uint64_t stored, reserved;
	uint64_t push_budget, push_done, push_d_next; /* bytes towards the DMA, this slice */
	int push_held;             /* BRAKE bits 4/5 holding the DOWN stream, 0 none */
	uint64_t down_both;        /* cycles of this slice with both of them */
	uint64_t held_from;
	uint64_t slice_len;
	uint64_t slice_no;          /* slices begun, from 1 */
	uint32_t pp_bytes;          /* push_progress: last completion size and its */
	uint64_t pp_w, pp_reg, pp_rcw; /* DOWN words, DOWN regions, RC words */
	unsigned cplh_used;
	struct ent *pool;
	unsigned *freel, nfree;
	unsigned *heap, nheap;     /* indices into pool, by t_arr */
	int rc_cur;                /* entity in progress on RC, -1 none */
	double up_link_t, dn_link_t;
	int up_hold;               /* Hard IP buffer drained to half? */
	int gc_valid, gc_uni;      /* group_need() cache */
	int ur_valid;              /* uniform_read() cache */
	uint32_t ur_size, ur_stride, ur_w, ur_h;
	unsigned ur_ntlp, ur_ncr;
	struct cpl_run ur_cr[MAX_RUNS_PER_ENT];
	uint64_t gc_addr, gc_count, gc_w, gc_h;
	uint32_t gc_off, gc_size, gc_stride;
	unsigned gc_t;
	struct pte_mfb rq, rc;
	struct lvl tagl, stl;
	uint64_t brake[6];
	struct pte_vrun brA[6], brB[4];
	unsigned nbrA, nbrB;
	struct fq st;              /* storage FIFO contents */
	struct ptm_pcie_in in;
	struct port port[PTM_MAX_DMA_PORTS];
	struct pte_truth truth;
};

struct pte_card {
	struct pte_scenario sc;
	ptm_model *m;
	unsigned neps, nports;
	uint64_t pcie_khz, dma_khz, mi_khz;
	uint64_t slice;
	uint64_t pcie_done, dma_done, mi_done;
	uint64_t batches;
	unsigned rot;
	struct ep ep[PTM_MAX_ENDPOINTS];
	struct ptm_bus_in dbus[2 * PTM_MAX_ENDPOINTS * PTM_MAX_DMA_PORTS];
};

/* ---- small queues ------------------------------------------------------------ */

static int reqq_init(struct reqq *q, unsigned cap)
{
	q->q = calloc(cap, sizeof(*q->q));
	q->cap = cap;
	return q->q ? 0 : -ENOMEM;
}

static struct req *reqq_head(struct reqq *q)
{
	return q->n ? &q->q[q->head] : NULL;
}

static void reqq_pop(struct reqq *q)
{
	q->head = (q->head + 1) % q->cap;
	q->n--;
}

/* Append k requests; merges with the tail when they continue it. */
static int reqq_push(struct reqq *q, int write, unsigned port, uint32_t size, uint32_t stride,
		     uint64_t addr, uint64_t k)
{
	if (k == 0)
		return 0;
	if (q->n) {
		struct req *t = &q->q[(q->head + q->n - 1) % q->cap];
		if (t->write == write && t->port == port && t->size == size &&
		    t->stride == stride && t->addr + t->count * stride == addr) {
			t->count += k;
			q->reqs += k;
			if (write)
				q->bytes += k * size;
			return 0;
		}
	}
	if (q->n == q->cap)
		return -1;
	struct req *r = &q->q[(q->head + q->n) % q->cap];
	r->write = (uint8_t)write;
	r->port = (uint8_t)port;
	r->size = size;
	r->stride = stride;
	r->addr = addr;
	r->count = k;
	r->off = 0;
	q->n++;
	q->reqs += k;
	if (write)
		q->bytes += k * size;
	return 0;
}

/* The head request has gone out to its end: one request of its run is
 * consumed.  Returns 1 when it was the last one (the run is popped). */
static int req_consumed(struct ep *e, struct req *r)
{
	r->off = 0;
	r->count--;
	r->addr += r->stride;
	e->ptc.reqs--;
	e->consumed_reqs++;
	if (r->count)
		return 0;
	reqq_pop(&e->ptc);
	return 1;
}

static int fq_init(struct fq *q, unsigned cap)
{
	q->q = calloc(cap, sizeof(*q->q));
	q->cap = cap;
	return q->q ? 0 : -ENOMEM;
}

/*
 * Double a ring buffer of `n` elements of `size` bytes that starts at
 * `*head`, copying them to the front of the new buffer (head becomes 0).
 * Every queue of the card grows this way.
 */
static int ring_grow(void **buf, unsigned *cap, unsigned *head, unsigned n, size_t size)
{
	unsigned nc = *cap * 2, first = *cap - *head < n ? *cap - *head : n;
	char *nb = calloc(nc, size);

	if (!nb)
		return -1;
	memcpy(nb, (char *)*buf + (size_t)*head * size, (size_t)first * size);
	memcpy(nb + (size_t)first * size, *buf, (size_t)(n - first) * size);
	free(*buf);
	*buf = nb;
	*cap = nc;
	*head = 0;
	return 0;
}

static int fq_grow(struct fq *q)
{
	void *b = q->q;
	int rc = ring_grow(&b, &q->cap, &q->head, q->n, sizeof(*q->q));

	q->q = b;
	return rc;
}

static void fq_push(struct fq *q, unsigned port, uint32_t bytes, uint64_t k)
{
	if (q->n) {
		struct frun *t = &q->q[(q->head + q->n - 1) % q->cap];
		if (t->port == port && t->bytes == bytes) {
			t->count += k;
			return;
		}
	}
	if (q->n == q->cap && fq_grow(q))
		abort();
	struct frun *r = &q->q[(q->head + q->n) % q->cap];
	r->port = (uint8_t)port;
	r->bytes = bytes;
	r->count = k;
	q->n++;
}

static int evq_init(struct evq *q, unsigned cap)
{
	q->q = calloc(cap, sizeof(*q->q));
	q->cap = cap;
	return q->q ? 0 : -ENOMEM;
}

static void evq_push(struct evq *q, int64_t t, uint32_t tags, uint32_t cplh)
{
	if (q->n == q->cap) {
		void *b = q->q;

		if (ring_grow(&b, &q->cap, &q->head, q->n, sizeof(*q->q)))
			abort(); /* out of memory in the middle of a slice */
		q->q = b;
	}
	struct ev *e = &q->q[(q->head + q->n) % q->cap];
	e->t = t;
	e->tags = tags;
	e->cplh = cplh;
	q->n++;
}

/* ---- levels (tags, storage FIFO) ----------------------------------------------- */

static unsigned band(uint32_t v, uint32_t cap)
{
	if (v == 0)
		return 0;
	if (v <= cap / 8)
		return 1;
	if (v <= cap / 2)
		return 2;
	return 3;
}

static void lvl_begin(struct lvl *l)
{
	memset(l->band, 0, sizeof(l->band));
	l->used_area = 0;
	l->since = 0;
	l->min = l->cur;
	l->bval[band(l->cur, l->cap)] = l->cur;
}

static void lvl_set(struct lvl *l, uint64_t t, uint32_t v)
{
	if (t < l->since)
		t = l->since;
	l->band[band(l->cur, l->cap)] += t - l->since;
	l->used_area += (double)(l->full > l->cur ? l->full - l->cur : 0) * (double)(t - l->since);
	l->since = t;
	l->cur = v;
	if (v < l->min)
		l->min = v;
	l->bval[band(v, l->cap)] = v;
}

/* Runs with exactly the band times, one per band: the band of the lowest
 * value of the slice first and at that value (the firmware keeps the window
 * minimum), the band of the current value last and at that value. */
static void lvl_end(struct lvl *l, uint64_t S, uint64_t *truth_band)
{
	lvl_set(l, S, l->cur);
	unsigned bmin = band(l->min, l->cap), bcur = band(l->cur, l->cap);
	l->nrun = 0;
	l->bval[bmin] = l->min;
	if (bcur != bmin)
		l->bval[bcur] = l->cur;
	unsigned order[4], n = 0;
	order[n++] = bmin;
	for (unsigned b = 0; b < 4; b++)
		if (b != bmin && b != bcur)
			order[n++] = b;
	if (bcur != bmin)
		order[n++] = bcur;
	for (unsigned i = 0; i < n; i++)
		if (l->band[order[i]])
			l->run[l->nrun++] = (struct pte_vrun){ (uint32_t)l->band[order[i]],
							       l->bval[order[i]] };
	for (unsigned b = 0; b < 4; b++)
		truth_band[b] += l->band[b];
}

/* ---- helpers ------------------------------------------------------------------- */

static uint32_t cdiv32(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

static unsigned code_of(unsigned bytes)
{
	unsigned c = 0;
	while ((128u << c) < bytes)
		c++;
	return c;
}

static int64_t draw_latency(struct ep *e)
{
	double l;
	switch (e->cfg->lat_kind) {
	case PTE_LAT_FIXED:
		l = e->lat_mean;
		break;
	case PTE_LAT_UNIFORM:
		l = e->lat_mean - e->lat_jit + 2.0 * e->lat_jit * rng_unit(&e->rng);
		break;
	default: {
		double u = rng_unit(&e->rng);
		l = e->lat_mean - e->lat_jit - e->lat_jit * log(1.0 - u);
		break;
	}
	}
	int64_t c = (int64_t)llround(l);
	return c < 1 ? 1 : c;
}

/* Completions of one read [a, a+len): split at the host's completion size
 * (aligned to it, which keeps every boundary on the RCB). */
static unsigned cpl_split(const struct ep *e, uint64_t a, uint32_t len, struct cpl_run *out)
{
	unsigned n = 0;
	uint32_t C = e->hcpl;
	uint32_t first = C - (uint32_t)(a % C);
	if (first > len)
		first = len;
	out[n++] = (struct cpl_run){ first, 1 };
	len -= first;
	if (len >= C) {
		if (first == C) {
			out[0].count += len / C;
		} else {
			out[n++] = (struct cpl_run){ C, len / C };
		}
		len %= C;
	}
	if (len)
		out[n++] = (struct cpl_run){ len, 1 };
	return n;
}

static uint32_t items_of(const struct ep *e, uint32_t bytes)
{
	return cdiv32(bytes, e->IB);
}

/* ---- heap of entities by arrival time -------------------------------------------------- */

static int ent_less(const struct ep *e, unsigned a, unsigned b)
{
	return e->pool[a].t_arr < e->pool[b].t_arr;
}

static void heap_push(struct ep *e, unsigned i)
{
	unsigned k = e->nheap++;
	e->heap[k] = i;
	while (k) {
		unsigned p = (k - 1) / 2;
		if (!ent_less(e, e->heap[k], e->heap[p]))
			break;
		unsigned t = e->heap[k];
		e->heap[k] = e->heap[p];
		e->heap[p] = t;
		k = p;
	}
}

static unsigned heap_pop(struct ep *e)
{
	unsigned top = e->heap[0];
	e->heap[0] = e->heap[--e->nheap];
	unsigned k = 0;
	for (;;) {
		unsigned l = 2 * k + 1, r = l + 1, m = k;
		if (l < e->nheap && ent_less(e, e->heap[l], e->heap[m]))
			m = l;
		if (r < e->nheap && ent_less(e, e->heap[r], e->heap[m]))
			m = r;
		if (m == k)
			break;
		unsigned t = e->heap[k];
		e->heap[k] = e->heap[m];
		e->heap[m] = t;
		k = m;
	}
	return top;
}

/* ---- DMA side ------------------------------------------------------------------------------- */

static uint32_t stride_of(uint32_t size, unsigned align)
{
	return (size + align - 1) / align * align;
}

static unsigned draw_index(struct rng *r, const struct pte_dist *d)
{
	double u = rng_unit(r), acc = 0;
	for (unsigned i = 0; i + 1 < d->n; i++) {
		acc += d->weight[i];
		if (u < acc)
			return i;
	}
	return d->n - 1;
}

/*
 * New requests of one kind for one slice of `sec` seconds.  A port with a
 * rate of "max" keeps enough requests pending to fill its UP bus.  Sizes
 * are drawn request by request; the requests of one slice (a microsecond
 * or two) go out grouped by size, so that equal requests travel together.
 */
static void gen_kind(struct port *pt, unsigned pidx, int write, double gbps,
		     const struct pte_dist *d, unsigned align, double sec, uint64_t target_reqs,
		     uint64_t target_bytes)
{
	double *credit = write ? &pt->credit_w : &pt->credit_r;
	uint64_t *addr = write ? &pt->addr_w : &pt->addr_r;
	int max = gbps < 0;
	uint64_t cnt[PTE_DIST_MAX] = { 0 };
	uint64_t reqs = pt->pend.reqs, bytes = pt->pend.bytes;

	if (gbps == 0)
		return;
	if (!max) {
		*credit += gbps * 1e9 / 8.0 * sec;
		/* a port that cannot send does not pile up work without end */
		double lim = (double)target_bytes + 65536.0;
		if (*credit > lim)
			*credit = lim;
	}
	if (d->n == 1) {
		uint32_t size = d->size[0];
		uint64_t k;
		if (max) {
			k = target_reqs > reqs ? target_reqs - reqs : 0;
			if (write) {
				uint64_t b = bytes < target_bytes ? (target_bytes - bytes) / size + 1 : 0;
				if (b < k)
					k = b;
			}
		} else {
			k = (uint64_t)(*credit / size);
			if (reqs + k > 4 * target_reqs)
				k = reqs < 4 * target_reqs ? 4 * target_reqs - reqs : 0;
		}
		cnt[0] = k;
		if (!max)
			*credit -= (double)k * size;
	} else {
		for (;;) {
			if (max && (reqs >= target_reqs || (write && bytes >= target_bytes)))
				break;
			if (!max && reqs >= 4 * target_reqs)
				break;
			unsigned i = draw_index(&pt->rng, d);
			uint32_t size = d->size[i];
			if (!max && *credit < (double)size)
				break;
			cnt[i]++;
			reqs++;
			if (write)
				bytes += size;
			if (!max)
				*credit -= (double)size;
		}
	}
	for (unsigned i = 0; i < d->n; i++) {
		if (!cnt[i])
			continue;
		uint32_t stride = stride_of(d->size[i], align);
		if (reqq_push(&pt->pend, write, pidx, d->size[i], stride, *addr, cnt[i]))
			break; /* the queue of groups is full: the DMA waits */
		*addr += cnt[i] * stride;
	}
}

static void up_slice(struct pte_card *c, struct ep *e, struct port *pt, uint64_t d,
		     uint64_t *room_reqs, uint64_t *room_bytes)
{
	struct pte_truth *tr = &e->truth;
	unsigned pidx = (unsigned)(pt - e->port);
	int blocked = 0;
	struct req *r;
	(void)c;

	pte_mfb_begin(&pt->up, d);
	pte_mvb_begin(&pt->upv, d);
	while ((r = reqq_head(&pt->pend))) {
		if (pte_mvb_used(&pt->upv) >= d || (r->write && pte_mfb_used(&pt->up) >= d))
			break;
		uint64_t k = r->count;
		if (k > *room_reqs)
			k = *room_reqs;
		if (r->write && k > *room_bytes / r->size)
			k = *room_bytes / r->size;
		if (k == 0) {
			blocked = 1;
			break;
		}
		uint64_t mvb_left = (d - pte_mvb_used(&pt->upv)) * e->R_up;
		if (k > mvb_left)
			k = mvb_left;
		uint32_t items = items_of(e, r->size);
		if (r->write) {
			uint64_t regions = (items + e->N_up - 1) / e->N_up;
			uint64_t kk = (d - pte_mfb_used(&pt->up)) * e->R_up / regions;
			if (kk == 0)
				kk = 1;
			if (k > kk)
				k = kk;
		}
		if (reqq_push(&e->ptc, r->write, pidx, r->size, r->stride, r->addr, k)) {
			blocked = 1;
			break;
		}
		pte_mvb_items(&pt->upv, k);
		tr->up[pidx].mvb_items += k;
		if (r->write) {
			pte_mfb_frames(&pt->up, items, k);
			tr->up[pidx].frames += k;
			tr->up[pidx].items += k * items;
			tr->up[pidx].bytes += k * r->size;
			*room_bytes -= k * r->size;
			pt->pend.bytes -= k * r->size;
		}
		*room_reqs -= k;
		pt->pend.reqs -= k;
		r->count -= k;
		r->addr += k * r->stride;
		if (r->count == 0)
			reqq_pop(&pt->pend);
	}
	if (blocked && (r = reqq_head(&pt->pend))) {
		pte_mvb_flush(&pt->upv);
		uint64_t u = pte_mvb_used(&pt->upv);
		if (u < d)
			pte_mvb_stall(&pt->upv, d - u);
		if (r->write) {
			pte_mfb_flush(&pt->up);
			u = pte_mfb_used(&pt->up);
			if (u < d)
				pte_mfb_stall(&pt->up, d - u);
		}
	}
	uint64_t w0 = pt->up.t_words, s0 = pt->up.t_stall, v0 = pt->upv.t_stall;
	pte_mfb_end(&pt->up);
	pte_mvb_end(&pt->upv);
	tr->up[pidx].words += pt->up.t_words - w0;
	tr->up[pidx].stall += pt->up.stall;
	tr->up[pidx].mvb_stall += pt->upv.stall;
	(void)s0;
	(void)v0;
}

static void down_slice(struct ep *e, struct port *pt, uint64_t d)
{
	struct pte_truth *tr = &e->truth;
	unsigned pidx = (unsigned)(pt - e->port);
	double rho = e->cfg->port[pidx].down_ready, rhoh = e->cfg->port[pidx].down_hdr_ready;
	double av = (double)d * rho + pt->ready_carry, avh = (double)d * rhoh + pt->hdr_carry;
	uint64_t avail = (uint64_t)av, availh = (uint64_t)avh;

	pt->ready_carry = av - (double)avail;
	pt->hdr_carry = avh - (double)availh;
	pte_mfb_begin(&pt->down, d);
	pte_mvb_begin(&pt->downv, d);
	while (pt->afifo.n) {
		struct frun *f = &pt->afifo.q[pt->afifo.head];
		uint64_t um = pte_mfb_used(&pt->down), uv = pte_mvb_used(&pt->downv);
		if (um >= avail || uv >= availh)
			break;
		uint32_t items = items_of(e, f->bytes);
		uint64_t regions = (items + e->N_dn - 1) / e->N_dn;
		uint64_t k = f->count;
		uint64_t kk = (avail - um) * e->R_dn / regions;
		if (kk == 0)
			kk = 1;
		if (k > kk)
			k = kk;
		if (k > (availh - uv) * e->R_dn)
			k = (availh - uv) * e->R_dn;
		pte_mfb_frames(&pt->down, items, k);
		pte_mvb_items(&pt->downv, k);
		uint64_t w = cdiv32(f->bytes, e->dn_word);
		pt->af_words -= k * w;
		pt->af_regions -= k * regions;
		pt->af_hdrs -= k;
		tr->down[pidx].frames += k;
		tr->down[pidx].items += k * items;
		tr->down[pidx].bytes += k * f->bytes;
		tr->down[pidx].mvb_items += k;
		f->count -= k;
		if (f->count == 0) {
			pt->afifo.head = (pt->afifo.head + 1) % pt->afifo.cap;
			pt->afifo.n--;
		}
	}
	pte_mfb_flush(&pt->down);
	pte_mvb_flush(&pt->downv);
	uint64_t um = pte_mfb_used(&pt->down), uv = pte_mvb_used(&pt->downv);
	if (pt->afifo.n) {
		/* data waits: every cycle the DMA did not take it is a stall */
		if (um < d)
			pte_mfb_stall(&pt->down, d - um);
		if (uv < d)
			pte_mvb_stall(&pt->downv, d - uv);
	} else {
		/* the DMA was not ready in between the words it took */
		if (rho < 1.0) {
			uint64_t sm = (uint64_t)llround((double)um * (1.0 - rho) / rho);
			if (sm > d - (um < d ? um : d))
				sm = d - (um < d ? um : d);
			pte_mfb_stall(&pt->down, sm);
		}
		if (rhoh < 1.0) {
			uint64_t sv = (uint64_t)llround((double)uv * (1.0 - rhoh) / rhoh);
			if (sv > d - (uv < d ? uv : d))
				sv = d - (uv < d ? uv : d);
			pte_mvb_stall(&pt->downv, sv);
		}
	}
	uint64_t w0 = pt->down.t_words;
	pte_mfb_end(&pt->down);
	pte_mvb_end(&pt->downv);
	tr->down[pidx].words += pt->down.t_words - w0;
	tr->down[pidx].stall += pt->down.stall;
	tr->down[pidx].mvb_stall += pt->downv.stall;
}

/* ---- PCIe side ---------------------------------------------------------------------------------- */

static void apply_releases(struct ep *e, int64_t now, int64_t T0)
{
	while (e->rel.n && e->rel.q[e->rel.head].t <= now) {
		struct ev *v = &e->rel.q[e->rel.head];
		e->tags_used -= v->tags;
		e->cplh_used -= v->cplh;
		if (v->tags) {
			e->notready += v->tags;
			evq_push(&e->rdy, v->t + e->cfg->tag_ready_delay, v->tags, 0);
		}
		int64_t rt = v->t - T0;
		lvl_set(&e->tagl, rt > 0 ? (uint64_t)rt : 0, e->tags_pool - e->tags_used);
		e->rel.head = (e->rel.head + 1) % e->rel.cap;
		e->rel.n--;
	}
	while (e->rdy.n && e->rdy.q[e->rdy.head].t <= now) {
		e->notready -= e->rdy.q[e->rdy.head].tags;
		e->rdy.head = (e->rdy.head + 1) % e->rdy.cap;
		e->rdy.n--;
	}
}


static uint32_t st_free(const struct ep *e)
{
	return (uint32_t)(e->info.stfifo_words > e->stored ? e->info.stfifo_words - e->stored : 0);
}

/*
 * Stored completions go to the asynchronous FIFOs of their ports, at most
 * one RC-wide word per PCIe cycle.
 * The FIFOs hold down_fifo_words/headers plus what the DMA side takes in
 * the next slice.  The DMA takes a completion's header with its data (see
 * down_slice), so what leaves either FIFO is bounded by both readiness
 * shares: the frames the data side lets through (at the mean regions per
 * frame of what the FIFO holds) and the headers the header side takes.
 * A slow data side thus fills the header FIFO as well, a slow header side
 * the data FIFO only when its frames are long enough.
 * When the FIFO of the port of the next completion has no room, the PTC
 * holds the stream from then to the end of the slice: BRAKE 4 when the
 * data FIFO is full (the MFB before the split is held), BRAKE 5 when the
 * header FIFO is (the MVB), both when both are.
 */
static void push_progress(struct ep *e, uint64_t t)
{
	if (t > e->slice_len)
		t = e->slice_len;
	if (!e->st.n || e->push_held)
		return;
	uint64_t allowed = e->push_budget * t / e->slice_len;
	int moved = 0;
	while (e->st.n && e->push_done < allowed) {
		struct frun *f = &e->st.q[e->st.head];
		struct port *pt = &e->port[f->port];
		if (f->bytes != e->pp_bytes) { /* sizes repeat: divide once */
			e->pp_bytes = f->bytes;
			e->pp_w = cdiv32(f->bytes, e->dn_word);
			e->pp_reg = (items_of(e, f->bytes) + e->N_dn - 1) / e->N_dn;
			e->pp_rcw = cdiv32(f->bytes, e->rc_word);
		}
		const uint64_t w = e->pp_w, reg = e->pp_reg;
		uint64_t k = f->count;
		uint64_t kb = (allowed - e->push_done) / f->bytes + 1;
		if (k > kb)
			k = kb;
		if (pt->af_words + k * w > e->cfg->down_fifo_words ||
		    pt->af_hdrs + k > e->cfg->down_fifo_headers) {
			/* near full: what the DMA side takes in the next slice
			 * decides (below the FIFO sizes it never does) */
			if (pt->cap_slice != e->slice_no) {
				/* regions of data, headers, words of data */
				double dn = (double)e->push_d_next;
				pt->cap_reg = (uint64_t)(dn * e->cfg->port[f->port].down_ready * e->R_dn);
				pt->cap_hdr =
					(uint64_t)(dn * e->cfg->port[f->port].down_hdr_ready * e->R_dn);
				pt->cap_words = (uint64_t)(dn * e->cfg->port[f->port].down_ready);
				pt->cap_slice = e->slice_no;
			}
			/* frames the next slice takes: by data (at the mean regions
			 * per frame of what the FIFO holds) and by headers */
			uint64_t frames = pt->af_hdrs && pt->af_regions
						  ? pt->cap_reg * pt->af_hdrs / pt->af_regions
						  : pt->cap_reg / (reg ? reg : 1);
			if (frames > pt->cap_hdr)
				frames = pt->cap_hdr;
			uint64_t fw = pt->af_hdrs ? frames * pt->af_words / pt->af_hdrs : frames * w;
			uint64_t drain = pt->cap_words < fw ? pt->cap_words : fw;
			uint64_t capw = e->cfg->down_fifo_words + drain;
			uint64_t caph = e->cfg->down_fifo_headers + frames;
			uint64_t roomw = capw > pt->af_words ? capw - pt->af_words : 0;
			uint64_t roomh = caph > pt->af_hdrs ? caph - pt->af_hdrs : 0;
			if (k > roomw / w)
				k = roomw / w;
			if (k > roomh)
				k = roomh;
			if (k == 0) {
				e->push_held = (roomw < w ? 1 << 4 : 0) | (roomh == 0 ? 1 << 5 : 0);
				e->held_from = t;
				break;
			}
		}
		fq_push(&pt->afifo, f->port, f->bytes, k);
		pt->af_words += k * w;
		pt->af_regions += k * reg;
		pt->af_hdrs += k;
		uint64_t sw = k * e->pp_rcw;
		e->stored -= sw < e->stored ? sw : e->stored;
		e->push_done += k * f->bytes;
		moved = 1;
		f->count -= k;
		if (f->count == 0) {
			e->st.head = (e->st.head + 1) % e->st.cap;
			e->st.n--;
		}
	}
	if (moved)
		lvl_set(&e->stl, t, st_free(e));
}

static void rc_step(struct ep *e, int64_t T0, uint64_t S, int rq_active)
{
	struct pte_truth *tr = &e->truth;
	uint64_t trc = pte_mfb_used(&e->rc);
	int64_t now = T0 + (int64_t)trc;

	if (e->rc_cur < 0) {
		if (e->nheap == 0 || e->pool[e->heap[0]].t_arr > now) {
			int64_t next = e->nheap ? e->pool[e->heap[0]].t_arr : T0 + (int64_t)S;
			if (rq_active) {
				int64_t b = T0 + (int64_t)pte_mfb_used(&e->rq) + e->lat_min;
				if (b < next)
					next = b;
			}
			uint64_t n = next > now ? (uint64_t)(next - now) : 1;
			pte_mfb_flush(&e->rc);
			trc = pte_mfb_used(&e->rc);
			if (trc >= S)
				return;
			pte_mfb_idle(&e->rc, n < S - trc ? n : S - trc);
			return;
		}
		e->rc_cur = (int)heap_pop(e);
	}
	struct ent *x = &e->pool[e->rc_cur];
	struct cpl_run *cr = &x->run[x->cur];
	uint32_t bytes = cr->bytes;
	uint32_t items = items_of(e, bytes + e->info.rc_header_bytes);
	uint64_t fw = (items + (uint64_t)e->R_rc * e->N_rc - 1) / ((uint64_t)e->R_rc * e->N_rc);
	double L = (double)(bytes + e->info.rc_header_bytes + e->info.tlp_framing_bytes) / e->dn_Bpc;
	double lt0 = e->dn_link_t > (double)x->t_arr ? e->dn_link_t : (double)x->t_arr;
	int64_t start = (int64_t)ceil(lt0 + L) - (int64_t)fw;
	if (start > now) {
		pte_mfb_flush(&e->rc);
		trc = pte_mfb_used(&e->rc);
		if (trc < S) {
			uint64_t n = (uint64_t)(start - now);
			pte_mfb_idle(&e->rc, n < S - trc ? n : S - trc);
		}
		return;
	}
	/* back to back while the bus, not the link, is the limit */
	uint64_t k = 1;
	if (L <= (double)fw && cr->count > 1) {
		uint64_t left = trc < S ? S - trc : 0;
		k = left / (fw ? fw : 1) + 1;
		if (k > cr->count)
			k = cr->count;
	}
	push_progress(e, trc);
	pte_mfb_frames(&e->rc, items, k);
	e->dn_link_t = lt0 + L * (double)k;
	uint64_t words = (uint64_t)k * cdiv32(bytes, e->rc_word);
	e->stored += words;
	e->reserved -= words;
	lvl_set(&e->stl, trc < S ? trc : S, st_free(e));
	fq_push(&e->st, x->port, bytes, k);
	push_progress(e, pte_mfb_used(&e->rc));
	tr->pcie[PTE_RC].bytes += k * (bytes + e->info.rc_header_bytes);
	tr->read_bytes += k * bytes;
	cr->count -= (uint32_t)k;
	/* A tag comes back with the last completion of its read: release
	 * them in proportion to the completions received. */
	x->frames_done += (uint32_t)k;
	int64_t tnow = T0 + (int64_t)pte_mfb_used(&e->rc);
	uint32_t tg = (uint32_t)((uint64_t)x->tags * x->frames_done / x->frames);
	uint32_t ch = (uint32_t)((uint64_t)x->cplh * x->frames_done / x->frames);
	if (cr->count == 0 && x->cur + 1 == x->nrun) {
		tg = x->tags;
		ch = x->cplh;
	}
	if (tg > x->tags_rel || ch > x->cplh_rel) {
		evq_push(&e->rel, tnow, tg - x->tags_rel, ch - x->cplh_rel);
		tr->reads += tg - x->tags_rel;
		x->tags_rel = tg;
		x->cplh_rel = ch;
	}
	if (cr->count)
		return;
	if (++x->cur < x->nrun)
		return;
	e->freel[e->nfree++] = (unsigned)e->rc_cur;
	e->rc_cur = -1;
}


/* The TLPs of one read request and their completions, when every request
 * of the group splits the same way (aligned, no 4 KiB crossing, same
 * offset to the host's completion boundaries). */
static int uniform_read(struct ep *e, const struct req *r, unsigned *ntlp,
			struct cpl_run *cr, unsigned *ncr, uint32_t *need_w, uint32_t *cplh)
{
	if (r->off || r->size > r->stride || 4096u % r->stride || r->addr % r->stride)
		return 0;
	if (r->stride % e->hcpl && !(e->hcpl % r->stride == 0 && r->size <= e->info.mrrs))
		return 0;
	/* under these conditions the split does not depend on the address */
	struct ep *w = e;
	if (w->ur_valid && w->ur_size == r->size && w->ur_stride == r->stride) {
		*ntlp = w->ur_ntlp;
		*ncr = w->ur_ncr;
		memcpy(cr, w->ur_cr, sizeof(w->ur_cr));
		*need_w = w->ur_w;
		*cplh = w->ur_h;
		return 1;
	}
	*ntlp = 0;
	*ncr = 0;
	*need_w = 0;
	*cplh = 0;
	for (uint32_t off = 0; off < r->size;) {
		uint32_t c = r->size - off < e->info.mrrs ? r->size - off : e->info.mrrs;
		uint64_t a = r->addr + off;
		struct cpl_run t[4];
		unsigned n = cpl_split(e, a, c, t);
		for (unsigned i = 0; i < n; i++) {
			unsigned j;
			for (j = 0; j < *ncr; j++)
				if (cr[j].bytes == t[i].bytes)
					break;
			if (j == *ncr) {
				if (*ncr == MAX_RUNS_PER_ENT)
					return 0;
				cr[(*ncr)++] = (struct cpl_run){ t[i].bytes, 0 };
			}
			cr[j].count += t[i].count;
			*need_w += t[i].count * cdiv32(t[i].bytes, e->rc_word);
		}
		*cplh += cdiv32((a % e->info.rcb) + c, e->info.rcb);
		(*ntlp)++;
		off += c;
	}
	w->ur_valid = 1;
	w->ur_size = r->size;
	w->ur_stride = r->stride;
	w->ur_ntlp = *ntlp;
	w->ur_ncr = *ncr;
	memcpy(w->ur_cr, cr, sizeof(w->ur_cr));
	w->ur_w = *need_w;
	w->ur_h = *cplh;
	return 1;
}


/*
 * The PTC asks for the resources of a group of reads at once: the next
 * read TLPs of the head request group, up to ptc_read_group of them, but
 * never more than a quarter of the tags, the storage FIFO words or the
 * completion header credits (so that a group always fits eventually).
 * The first TLP's needs are given.
 */
static void group_need_calc(const struct ep *e, const struct req *r, uint32_t w0, uint32_t h0,
			    unsigned *gt, uint64_t *gw, uint64_t *gh)
{
	unsigned G = e->cfg->ptc_read_group;
	uint64_t maxw = e->info.stfifo_words / 4, maxh = e->info.cpl_headers / 4;
	unsigned maxt = e->tags_pool / 4;
	*gt = 1;
	*gw = w0;
	*gh = h0;
	uint32_t off = r->off;
	uint64_t addr = r->addr, left = r->count;
	for (;;) {
		/* advance to the next TLP */
		uint64_t a = addr + off;
		uint32_t rest = r->size - off;
		uint32_t chunk = rest < e->info.mrrs ? rest : e->info.mrrs;
		uint32_t to4k = 4096u - (uint32_t)(a % 4096u);
		if (chunk > to4k)
			chunk = to4k;
		off += chunk;
		if (off >= r->size) {
			off = 0;
			addr += r->stride;
			if (--left == 0)
				return;
		}
		if (*gt >= G)
			return;
		a = addr + off;
		rest = r->size - off;
		chunk = rest < e->info.mrrs ? rest : e->info.mrrs;
		to4k = 4096u - (uint32_t)(a % 4096u);
		if (chunk > to4k)
			chunk = to4k;
		struct cpl_run cr[4];
		unsigned n = cpl_split(e, a, chunk, cr);
		uint64_t w = 0;
		for (unsigned i = 0; i < n; i++)
			w += cr[i].count * cdiv32(cr[i].bytes, e->rc_word);
		uint64_t h = cdiv32((a % e->info.rcb) + chunk, e->info.rcb);
		if (*gt + 1 > maxt || *gw + w > maxw || (e->info.cpl_headers && *gh + h > maxh))
			return;
		(*gt)++;
		*gw += w;
		*gh += h;
	}
}


/* The same head asks again while it waits: remember the last answer. */
static void group_need(struct ep *e, const struct req *r, uint32_t w0, uint32_t h0, unsigned *gt,
		       uint64_t *gw, uint64_t *gh)
{
	/* aligned requests that never cross 4 KiB nor a completion boundary of
	 * the host split the same way at every address; with more requests
	 * left than a group takes, the answer depends on the offset alone */
	int uni = 4096u % r->stride == 0 && r->addr % r->stride == 0 && r->size <= r->stride &&
		  r->stride % e->hcpl == 0 && r->count > e->cfg->ptc_read_group;
	if (!(e->gc_valid && e->gc_uni == uni && e->gc_off == r->off && e->gc_size == r->size &&
	      e->gc_stride == r->stride &&
	      (uni || (e->gc_addr == r->addr && e->gc_count == r->count)))) {
		e->gc_uni = uni;
		group_need_calc(e, r, w0, h0, &e->gc_t, &e->gc_w, &e->gc_h);
		e->gc_valid = 1;
		e->gc_addr = r->addr;
		e->gc_off = r->off;
		e->gc_count = r->count;
		e->gc_size = r->size;
		e->gc_stride = r->stride;
	}
	*gt = e->gc_t;
	*gw = e->gc_w;
	*gh = e->gc_h;
}

static int link_wait(struct ep *e, int64_t now, uint64_t *wait)
{
	double buf = (double)e->cfg->tx_buffer_bytes / e->up_Bpc;
	double backlog = e->up_link_t - (double)now;
	/* The Hard IP stops taking TLPs when its buffer is full and takes
	 * them again when it has drained to half. */
	if (e->up_hold) {
		if (backlog > buf / 2) {
			*wait = (uint64_t)ceil(backlog - buf / 2);
			if (*wait == 0)
				*wait = 1;
			return 1;
		}
		e->up_hold = 0;
	}
	if (backlog > buf) {
		e->up_hold = 1;
		*wait = (uint64_t)ceil(backlog - buf / 2);
		if (*wait == 0)
			*wait = 1;
		return 1;
	}
	return 0;
}

static void link_send(struct ep *e, int64_t now, uint32_t bytes, uint64_t k)
{
	double t = e->up_link_t > (double)now ? e->up_link_t : (double)now;
	e->up_link_t = t + (double)k * (double)(bytes + e->info.tlp_framing_bytes) / e->up_Bpc;
}

static void rq_step(struct ep *e, int64_t T0, uint64_t S)
{
	struct pte_truth *tr = &e->truth;
	uint64_t trq = pte_mfb_used(&e->rq);
	int64_t now = T0 + (int64_t)trq;
	struct req *r = reqq_head(&e->ptc);
	uint64_t wait;

	apply_releases(e, now, T0);
	push_progress(e, trq);
	if (!r) {
		pte_mfb_flush(&e->rq);
		pte_mfb_idle(&e->rq, S - pte_mfb_used(&e->rq));
		return;
	}
	uint64_t a = r->addr + r->off;
	uint32_t rest = r->size - r->off;
	uint32_t lim = r->write ? e->info.mps : e->info.mrrs;
	uint32_t chunk = rest < lim ? rest : lim;
	uint32_t to4k = 4096u - (uint32_t)(a % 4096u);
	if (chunk > to4k)
		chunk = to4k;
	if (r->write) {
		if (link_wait(e, now, &wait)) {
			pte_mfb_flush(&e->rq);
			pte_mfb_stall(&e->rq, wait < S - trq ? wait : S - trq);
			return;
		}
		/* TLPs go back to back while the Hard IP takes them */
		double buf = (double)e->cfg->tx_buffer_bytes / e->up_Bpc;
		for (unsigned burst = 0; burst < 64; burst++) {
			uint32_t tlp = chunk + e->info.rq_header_bytes;
			uint64_t k = 1, reqs = 0;
			int aligned = r->off == 0 && r->size <= r->stride && 4096u % r->stride == 0;
			if (aligned && r->size % e->info.mps == 0 && chunk == e->info.mps) {
				/* one request of full-MPS TLPs */
				k = r->size / e->info.mps;
			} else if (aligned && r->size <= e->info.mps) {
				/* requests of one TLP each, as many as the buffer takes */
				double L = (double)(tlp + e->info.tlp_framing_bytes) / e->up_Bpc;
				double room = buf - (e->up_link_t - (double)now);
				reqs = room > L ? (uint64_t)(room / L) : 1;
				if (reqs > r->count)
					reqs = r->count;
				if (reqs > 64)
					reqs = 64;
				k = reqs;
			}
			pte_mfb_frames(&e->rq, items_of(e, tlp), k);
			link_send(e, now, tlp, k);
			tr->pcie[PTE_RQ].bytes += k * tlp;
			tr->writes += k;
			tr->write_bytes += k * chunk;
			e->ptc.bytes -= k * chunk;
			e->consumed_bytes += k * chunk;
			if (reqs > 1) {
				r->count -= reqs - 1;
				r->addr += (reqs - 1) * r->stride;
				e->ptc.reqs -= reqs - 1;
				e->consumed_reqs += reqs - 1;
				r->off = r->size;
			} else {
				r->off += (uint32_t)(k * chunk);
			}
			if (r->off >= r->size)
				req_consumed(e, r);
			r = reqq_head(&e->ptc);
			trq = pte_mfb_used(&e->rq);
			now = T0 + (int64_t)trq;
			if (!r || !r->write || trq >= S || e->up_link_t - (double)now > buf)
				return;
			a = r->addr + r->off;
			rest = r->size - r->off;
			chunk = rest < e->info.mps ? rest : e->info.mps;
			to4k = 4096u - (uint32_t)(a % 4096u);
			if (chunk > to4k)
				chunk = to4k;
		}
		return;
	} else {
		struct cpl_run cr[4];
		unsigned ncr = cpl_split(e, a, chunk, cr);
		uint32_t need_w = 0, cplh;
		for (unsigned i = 0; i < ncr; i++)
			need_w += cr[i].count * cdiv32(cr[i].bytes, e->rc_word);
		cplh = cdiv32((a % e->info.rcb) + chunk, e->info.rcb);
		unsigned freet = e->tags_pool - e->tags_used;
		unsigned gt;
		uint64_t gw, gh;
		group_need(e, r, need_w, cplh, &gt, &gw, &gh);
		int reason = -1;
		if (freet < gt)
			reason = 0;
		else if (freet - e->notready < gt)
			reason = 1;
		else if (e->stored + e->reserved + gw > e->info.stfifo_words)
			reason = 2;
		else if (e->info.cpl_headers && e->cplh_used + gh > e->info.cpl_headers)
			reason = 3;
		if (reason >= 0) {
			uint64_t trc = pte_mfb_used(&e->rc);
			uint64_t until = S;
			if (reason == 0 || reason == 3) {
				until = trc < S ? trc : S;
				if (e->rel.n && e->rel.q[e->rel.head].t - T0 < (int64_t)until)
					until = (uint64_t)(e->rel.q[e->rel.head].t - T0);
			} else if (reason == 1 && e->rdy.n) {
				until = (uint64_t)(e->rdy.q[e->rdy.head].t - T0);
			} else if (reason == 2 && !e->push_held) {
				/* completions come in and leave towards the DMA */
				until = trc < S ? trc : S;
			}
			if (until <= trq)
				until = trq + 1;
			if (until > S)
				until = S;
			pte_mfb_flush(&e->rq);
			trq = pte_mfb_used(&e->rq);
			if (trq >= S)
				return;
			if (until <= trq)
				until = trq + 1;
			e->brake[reason] += until - trq;
			pte_mfb_idle(&e->rq, until - trq);
			return;
		}
		if (link_wait(e, now, &wait)) {
			pte_mfb_flush(&e->rq);
			pte_mfb_stall(&e->rq, wait < S - trq ? wait : S - trq);
			return;
		}
		uint32_t hdr = e->info.rq_header_bytes;
		unsigned m;
		struct cpl_run ur[MAX_RUNS_PER_ENT];
		unsigned nur;
		uint32_t uw, uh;
		uint64_t k = 0;
		if (uniform_read(e, r, &m, ur, &nur, &uw, &uh)) {
			/* identical requests that all fit go as one group */
			k = r->count;
			if (k > (READS_PER_GROUP + m - 1) / m)
				k = (READS_PER_GROUP + m - 1) / m;
			uint64_t lim2 = (freet - e->notready) / m;
			if (k > lim2)
				k = lim2;
			lim2 = (e->info.stfifo_words - e->stored - e->reserved) / uw;
			if (k > lim2)
				k = lim2;
			if (e->info.cpl_headers) {
				lim2 = (e->info.cpl_headers - e->cplh_used) / uh;
				if (k > lim2)
					k = lim2;
			}
		}
		if (e->nfree == 0)
			abort(); /* the pool has one entry per tag */
		unsigned xi = e->freel[--e->nfree];
		struct ent *x = &e->pool[xi];
		int64_t lat = draw_latency(e);
		uint64_t tlps = 0;
		x->port = r->port;
		if (k) {
			tlps = k * m;
			x->nrun = (uint8_t)nur;
			for (unsigned i = 0; i < nur; i++)
				x->run[i] = (struct cpl_run){ ur[i].bytes, (uint32_t)(ur[i].count * k) };
			x->cplh = (uint32_t)(k * uh);
			x->res_words = (uint32_t)(k * uw);
			e->tags_used += (unsigned)tlps;
			e->cplh_used += x->cplh;
			e->reserved += x->res_words;
			r->count -= k;
			r->addr += k * r->stride;
			e->ptc.reqs -= k;
			e->consumed_reqs += k;
			if (r->count == 0)
				reqq_pop(&e->ptc);
		} else {
			/* TLP by TLP while every resource lasts: one burst */
			x->nrun = 0;
			x->cplh = 0;
			x->res_words = 0;
			for (;;) {
				if (tlps) {
					a = r->addr + r->off;
					rest = r->size - r->off;
					chunk = rest < e->info.mrrs ? rest : e->info.mrrs;
					to4k = 4096u - (uint32_t)(a % 4096u);
					if (chunk > to4k)
						chunk = to4k;
					ncr = cpl_split(e, a, chunk, cr);
					need_w = 0;
					for (unsigned i = 0; i < ncr; i++)
						need_w += cr[i].count * cdiv32(cr[i].bytes, e->rc_word);
					cplh = cdiv32((a % e->info.rcb) + chunk, e->info.rcb);
					unsigned fr = e->tags_pool - e->tags_used;
					if (fr <= e->notready ||
					    e->stored + e->reserved + need_w > e->info.stfifo_words ||
					    (e->info.cpl_headers &&
					     e->cplh_used + cplh > e->info.cpl_headers))
						break;
				}
				struct cpl_run mr[MAX_RUNS_PER_ENT];
				unsigned nm = x->nrun, ok = 1;
				memcpy(mr, x->run, sizeof(mr));
				for (unsigned i = 0; i < ncr && ok; i++) {
					unsigned j;
					for (j = 0; j < nm; j++)
						if (mr[j].bytes == cr[i].bytes)
							break;
					if (j == nm) {
						if (nm == MAX_RUNS_PER_ENT) {
							ok = 0;
							break;
						}
						mr[nm++] = (struct cpl_run){ cr[i].bytes, 0 };
					}
					mr[j].count += cr[i].count;
				}
				if (!ok)
					break;
				memcpy(x->run, mr, sizeof(mr));
				x->nrun = (uint8_t)nm;
				e->tags_used++;
				e->cplh_used += cplh;
				e->reserved += need_w;
				x->cplh += cplh;
				x->res_words += need_w;
				tlps++;
				r->off += chunk;
				if (r->off >= r->size && req_consumed(e, r))
					break;
				if (tlps >= READS_PER_GROUP)
					break;
			}
		}
		pte_mfb_frames(&e->rq, items_of(e, hdr), tlps);
		link_send(e, now, hdr, tlps);
		x->t_arr = T0 + (int64_t)pte_mfb_used(&e->rq) + lat;
		x->reads = (uint32_t)tlps;
		x->tags = (uint32_t)tlps;
		x->cur = 0;
		x->frames = 0;
		for (unsigned i = 0; i < x->nrun; i++)
			x->frames += x->run[i].count;
		x->frames_done = x->tags_rel = x->cplh_rel = 0;
		heap_push(e, xi);
		lvl_set(&e->tagl, trq, e->tags_pool - e->tags_used);
		tr->pcie[PTE_RQ].bytes += tlps * hdr;
		tr->read_latency_sum_ns += (double)tlps * (double)lat * e->ns_per_cycle;
		return;
	}
	if (r->off >= r->size)
		req_consumed(e, r);
}

/* BRAKE bits 0-3 (UP stream, one at a time) and 4-5 (DOWN stream) as runs
 * at the end of the slice, where the RQ bus has its idle cycles. */
static void brake_group(struct ep *e, unsigned from, unsigned to, struct pte_vrun *out,
			unsigned *n, uint64_t S)
{
	uint64_t act = 0;
	for (unsigned b = from; b < to; b++)
		act += e->brake[b];
	if (act > S)
		act = S;
	*n = 0;
	if (act < S)
		out[(*n)++] = (struct pte_vrun){ (uint32_t)(S - act), 0 };
	uint64_t used = 0;
	for (unsigned b = from; b < to; b++)
		if (e->brake[b] && used < act) {
			uint64_t k = e->brake[b] < act - used ? e->brake[b] : act - used;
			out[(*n)++] = (struct pte_vrun){ (uint32_t)k, 1u << b };
			used += k;
			e->truth.brake[b] += k;
		}
}

/* BRAKE bits 4 and 5 are independent signals (the MFB and the MVB before
 * the split): runs of neither, bit 4 alone, bit 5 alone and both. */
static void brake_down(struct ep *e, uint64_t S)
{
	uint64_t both = e->down_both, b4 = e->brake[4], b5 = e->brake[5];
	if (b4 > S)
		b4 = S;
	if (b5 > S)
		b5 = S;
	if (both > b4)
		both = b4;
	if (both > b5)
		both = b5;
	uint64_t only4 = b4 - both, only5 = b5 - both;
	uint64_t none = S - both - only4 - only5;
	const uint64_t len[4] = { none, only4, only5, both };
	const uint32_t val[4] = { 0, 1u << 4, 1u << 5, 1u << 4 | 1u << 5 };
	e->nbrB = 0;
	for (unsigned i = 0; i < 4; i++)
		if (len[i])
			e->brB[e->nbrB++] = (struct pte_vrun){ (uint32_t)len[i], val[i] };
	e->truth.brake[4] += b4;
	e->truth.brake[5] += b5;
}

static void brake_runs(struct ep *e, uint64_t S)
{
	brake_group(e, 0, 4, e->brA, &e->nbrA, S);
	brake_down(e, S);
}

static void pcie_slice(struct pte_card *c, struct ep *e, uint64_t S, uint64_t d_next)
{
	int64_t T0 = (int64_t)c->pcie_done;
	struct pte_truth *tr = &e->truth;

	memset(e->brake, 0, sizeof(e->brake));
	e->down_both = 0;
	e->push_budget = S * e->rc_word;
	e->push_done = 0;
	e->push_d_next = d_next;
	e->push_held = 0;
	e->slice_len = S;
	e->slice_no++;
	pte_mfb_begin(&e->rq, S);
	pte_mfb_begin(&e->rc, S);
	lvl_begin(&e->tagl);
	lvl_begin(&e->stl);
	e->consumed_reqs = e->consumed_bytes = 0;
	if (e->info.link_up) {
		for (;;) {
			uint64_t trq = pte_mfb_used(&e->rq), trc = pte_mfb_used(&e->rc);
			int rq_more = trq < S, rc_more = trc < S;
			if (!rq_more && !rc_more)
				break;
			if (rc_more && (!rq_more || trc <= trq))
				rc_step(e, T0, S, rq_more);
			else
				rq_step(e, T0, S);
		}
		apply_releases(e, T0 + (int64_t)S - 1, T0);
	}
	push_progress(e, S);
	if (e->push_held && e->held_from < S) {
		for (unsigned b = 4; b < 6; b++)
			if (e->push_held & (1 << b))
				e->brake[b] += S - e->held_from;
		if (e->push_held == (1 << 4 | 1 << 5))
			e->down_both = S - e->held_from;
	}
	uint64_t w0 = e->rq.t_words, w1 = e->rc.t_words;
	pte_mfb_end(&e->rq);
	pte_mfb_end(&e->rc);
	tr->pcie[PTE_RQ].words += e->rq.t_words - w0;
	tr->pcie[PTE_RC].words += e->rc.t_words - w1;
	tr->pcie[PTE_RQ].stall += e->rq.stall;
	tr->pcie[PTE_RC].stall += e->rc.stall;
	lvl_end(&e->tagl, S, tr->tags_band);
	tr->tags_in_use_sum += e->tagl.used_area;
	lvl_end(&e->stl, S, tr->stfifo_band);
	brake_runs(e, S);
	if (e->tagl.min < tr->tags_free_min)
		tr->tags_free_min = e->tagl.min;
	if (e->stl.min < tr->stfifo_free_min)
		tr->stfifo_free_min = e->stl.min;
	tr->pcie_cycles += S;
}

/* ---- feeding the model --------------------------------------------------------------------------- */

struct sig {
	const struct pte_run *run; /* bus runs, or NULL for value runs */
	const struct pte_vrun *vrun;
	unsigned n, i;
	uint64_t left;
	int kind;                  /* 0 mfb, 1 mvb, 2 brake, 3 tags, 4 stfifo */
	const void *obj;
	struct ptm_bus_in *bus;
};

static void sig_apply(struct sig *g, struct ptm_pcie_in *in)
{
	if (g->i >= g->n) {
		g->left = UINT64_MAX;
		/* never reached when every signal covers the slice */
		return;
	}
	if (g->run)
		g->left = g->run[g->i].len;
	else
		g->left = g->vrun[g->i].len;
	switch (g->kind) {
	case 0:
		pte_mfb_apply(g->obj, &g->run[g->i], g->bus);
		break;
	case 1:
		pte_mvb_apply(g->obj, &g->run[g->i], g->bus);
		break;
	case 2:
		in->brake = (uint8_t)((in->brake & 0x30u) | g->vrun[g->i].val);
		break;
	case 5:
		in->brake = (uint8_t)((in->brake & 0x0fu) | g->vrun[g->i].val);
		break;
	case 3:
		in->tag_free = (uint16_t)g->vrun[g->i].val;
		break;
	case 4:
		in->stfifo_free = (uint16_t)g->vrun[g->i].val;
		break;
	}
	if (g->left == 0) {
		g->i++;
		sig_apply(g, in);
	}
}

/* Walk all signals together; one model batch per stretch in which none of
 * them changes. */
static void drive(struct pte_card *c, struct sig *g, unsigned ng, uint64_t S, int pcie,
		  unsigned ep, struct ptm_pcie_in *in)
{
	for (unsigned i = 0; i < ng; i++) {
		g[i].i = 0;
		sig_apply(&g[i], in);
	}
	while (S) {
		uint64_t n = S;
		for (unsigned i = 0; i < ng; i++)
			if (g[i].left < n)
				n = g[i].left;
		if (pcie)
			ptm_pcie_edges(c->m, ep, in, n);
		else
			ptm_dma_edges(c->m, 0, c->dbus, n);
		c->batches++;
		S -= n;
		for (unsigned i = 0; i < ng; i++) {
			if (g[i].left == UINT64_MAX)
				continue;
			g[i].left -= n;
			if (g[i].left == 0 && S) {
				g[i].i++;
				sig_apply(&g[i], in);
			}
		}
	}
}


static void emit_pcie(struct pte_card *c, struct ep *e, uint64_t S)
{
	struct sig g[6];
	memset(g, 0, sizeof(g));
	g[0] = (struct sig){ e->rq.run, NULL, e->rq.nrun, 0, 0, 0, &e->rq, &e->in.bus[0] };
	g[1] = (struct sig){ e->rc.run, NULL, e->rc.nrun, 0, 0, 0, &e->rc, &e->in.bus[1] };
	g[2] = (struct sig){ NULL, e->brA, e->nbrA, 0, 0, 2, NULL, NULL };
	g[3] = (struct sig){ NULL, e->brB, e->nbrB, 0, 0, 5, NULL, NULL };
	g[4] = (struct sig){ NULL, e->tagl.run, e->tagl.nrun, 0, 0, 3, NULL, NULL };
	g[5] = (struct sig){ NULL, e->stl.run, e->stl.nrun, 0, 0, 4, NULL, NULL };
	drive(c, g, 6, S, 1, e->idx, &e->in);
}

static void emit_dma(struct pte_card *c, uint64_t d)
{
	struct sig g[4 * PTM_MAX_ENDPOINTS * PTM_MAX_DMA_PORTS];
	unsigned ng = 0;
	struct ptm_pcie_in dummy;
	memset(&dummy, 0, sizeof(dummy));
	for (unsigned i = 0; i < c->neps; i++) {
		struct ep *e = &c->ep[i];
		for (unsigned p = 0; p < c->nports; p++) {
			struct port *pt = &e->port[p];
			struct ptm_bus_in *up = &c->dbus[i * 2 * c->nports + 2 * p];
			struct ptm_bus_in *dn = up + 1;
			g[ng++] = (struct sig){ pt->up.run, NULL, pt->up.nrun, 0, 0, 0, &pt->up, up };
			g[ng++] = (struct sig){ pt->upv.run, NULL, pt->upv.nrun, 0, 0, 1, &pt->upv, up };
			g[ng++] = (struct sig){ pt->down.run, NULL, pt->down.nrun, 0, 0, 0, &pt->down, dn };
			g[ng++] = (struct sig){ pt->downv.run, NULL, pt->downv.nrun, 0, 0, 1, &pt->downv,
						dn };
		}
	}
	drive(c, g, ng, d, 0, 0, &dummy);
}

/* ---- time ------------------------------------------------------------------------------------------ */

static void run_slice(struct pte_card *c, uint64_t S)
{
	uint64_t tend = c->pcie_done + S;
	uint64_t dt = (uint64_t)((unsigned __int128)tend * c->dma_khz / c->pcie_khz);
	uint64_t d = dt > c->dma_done ? dt - c->dma_done : 0;
	uint64_t d_next = (uint64_t)((double)c->slice * (double)c->dma_khz / (double)c->pcie_khz);
	double sec = (double)S / ((double)c->pcie_khz * 1e3);

	for (unsigned i = 0; i < c->neps; i++) {
		struct ep *e = &c->ep[i];
		if (d && e->info.link_up) {
			uint64_t room_r = e->ptc.reqs < e->cfg->ptc_requests
						  ? e->cfg->ptc_requests - e->ptc.reqs
						  : 0;
			uint64_t room_b = e->ptc.bytes < e->cfg->ptc_data_bytes
						  ? e->cfg->ptc_data_bytes - e->ptc.bytes
						  : 0;
			/* what the RQ took in the last slice is taken again in this
			 * one: the UP bus and the RQ run at the same time */
			room_r += e->consumed_reqs;
			room_b += e->consumed_bytes;
			for (unsigned k = 0; k < c->nports; k++) {
				unsigned p = (k + c->rot) % c->nports;
				struct port *pt = &e->port[p];
				const struct pte_port_cfg *pc = &e->cfg->port[p];
				uint64_t tr = 2 * d * e->R_up + 64;
				uint64_t tb = 2 * d * e->R_up * e->N_up * e->IB + 8192;
				gen_kind(pt, p, 0, pc->read_gbps, &pc->read_size, pc->align, sec, tr, tb);
				gen_kind(pt, p, 1, pc->write_gbps, &pc->write_size, pc->align, sec, tr,
					 tb);
				down_slice(e, pt, d);
				up_slice(c, e, pt, d, &room_r, &room_b);
			}
		} else if (d) {
			for (unsigned p = 0; p < c->nports; p++) {
				struct port *pt = &e->port[p];
				pte_mfb_begin(&pt->up, d);
				pte_mvb_begin(&pt->upv, d);
				pte_mfb_begin(&pt->down, d);
				pte_mvb_begin(&pt->downv, d);
				pte_mfb_end(&pt->up);
				pte_mvb_end(&pt->upv);
				pte_mfb_end(&pt->down);
				pte_mvb_end(&pt->downv);
			}
		}
		if (d)
			e->truth.dma_cycles += d;
		pcie_slice(c, e, S, d_next ? d_next : 1);
		emit_pcie(c, e, S);
	}
	c->rot++;
	if (d)
		emit_dma(c, d);
	c->dma_done += d;
	c->pcie_done = tend;
	uint64_t mt = (uint64_t)((unsigned __int128)tend * c->mi_khz / c->pcie_khz);
	if (mt > c->mi_done) {
		ptm_mi_idle_edges(c->m, 0, mt - c->mi_done);
		c->batches++;
		c->mi_done = mt;
	}
}

static void advance_to(struct pte_card *c, uint64_t target)
{
	while (c->pcie_done < target) {
		uint64_t S = target - c->pcie_done;
		if (S > c->slice)
			S = c->slice;
		run_slice(c, S);
	}
}

int pte_card_run(struct pte_card *c, double seconds)
{
	if (!(seconds >= 0) || !isfinite(seconds))
		return -EINVAL;
	uint64_t n = (uint64_t)llround(seconds * (double)c->pcie_khz * 1e3);
	advance_to(c, c->pcie_done + n);
	return 0;
}

double pte_card_now(const struct pte_card *c)
{
	double tp = (double)c->pcie_done / ((double)c->pcie_khz * 1e3);
	double tm = (double)c->mi_done / ((double)c->mi_khz * 1e3);
	return tp > tm ? tp : tm;
}

/* The fast domains follow the MI clock when software talks to the card. */
static void catch_up(struct pte_card *c)
{
	uint64_t t = (uint64_t)((unsigned __int128)c->mi_done * c->pcie_khz / c->mi_khz);
	advance_to(c, t);
}

/* A host access reaches the MI bus after the PCIe transaction time: the
 * card runs meanwhile (and a STATUS read after a COMMAND write sees the
 * command started, as on a real card). */
static void access_delay(struct pte_card *c, double ns)
{
	uint64_t n = (uint64_t)llround(ns * 1e-9 * (double)c->mi_khz * 1e3);
	if (n) {
		ptm_mi_idle_edges(c->m, 0, n);
		c->batches++;
		c->mi_done += n;
		catch_up(c);
	}
}

uint32_t pte_card_mi_read(struct pte_card *c, uint32_t addr)
{
	struct ptm_mi_in in;
	access_delay(c, c->sc.mmio_read_ns);
	struct ptm_mi_out out;
	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	in.rd = 1;
	in.addr = addr;
	ptm_mi_edge(c->m, &in, &out);
	c->mi_done++;
	in.rd = 0;
	for (int i = 0; i < 8 && !out.drdy; i++) {
		ptm_mi_edge(c->m, &in, &out);
		c->mi_done++;
	}
	catch_up(c);
	return out.drd;
}

void pte_card_mi_read_block(struct pte_card *c, uint32_t addr, uint32_t *buf, size_t n)
{
	struct ptm_mi_in in;
	struct ptm_mi_out out;
	size_t got = 0;
	access_delay(c, c->sc.mmio_read_ns);
	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	for (size_t i = 0; got < n && i < n + 8; i++) {
		in.rd = i < n;
		in.addr = addr + 4u * (uint32_t)i;
		ptm_mi_edge(c->m, &in, &out);
		c->mi_done++;
		if (out.drdy)
			buf[got++] = out.drd;
		/* the fast domains keep running every few hundred MI cycles */
		if ((i & 255u) == 255u)
			catch_up(c);
	}
	while (got < n)
		buf[got++] = 0; /* not reached: the MI read latency is 2 */
	catch_up(c);
}

void pte_card_mi_write(struct pte_card *c, uint32_t addr, uint32_t data)
{
	struct ptm_mi_in in;
	struct ptm_mi_out out;
	access_delay(c, c->sc.mmio_write_ns);
	memset(&in, 0, sizeof(in));
	in.wr = 1;
	in.addr = addr;
	in.dwr = data;
	ptm_mi_edge(c->m, &in, &out);
	c->mi_done++;
	catch_up(c);
}

ptm_model *pte_card_model(struct pte_card *c)
{
	return c->m;
}

uint64_t pte_card_batches(const struct pte_card *c)
{
	return c->batches;
}

/* ---- open ------------------------------------------------------------------------------------------ */

static double gts(unsigned gen)
{
	static const double t[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0 };
	return t[gen];
}

static int ep_init(struct pte_card *c, struct ep *e, unsigned idx)
{
	const struct pte_scenario *s = &c->sc;
	const struct ptm_generics *g = &s->g;
	const struct pte_ep_cfg *cfg = &s->ep[idx];
	struct pte_ep_info *in = &e->info;
	uint64_t dmax = c->slice * c->dma_khz / c->pcie_khz + 4;

	e->idx = idx;
	e->cfg = cfg;
	e->IB = g->mfb_item_bytes;
	e->R_rq = g->pcie_rq_mfb_regions;
	e->N_rq = g->pcie_rq_mfb_region_bytes / e->IB;
	e->R_rc = g->pcie_rc_mfb_regions;
	e->N_rc = g->pcie_rc_mfb_region_bytes / e->IB;
	e->R_up = g->dma_up_mfb_regions;
	e->N_up = g->dma_up_mfb_region_bytes / e->IB;
	e->R_dn = g->dma_down_mfb_regions;
	e->N_dn = g->dma_down_mfb_region_bytes / e->IB;
	e->rc_word = e->R_rc * g->pcie_rc_mfb_region_bytes;
	e->dn_word = e->R_dn * g->dma_down_mfb_region_bytes;

	in->link_gen = cfg->link_gen;
	in->link_width = cfg->link_width;
	in->link_up = cfg->link_up;
	in->mps = cfg->mps;
	in->mrrs = cfg->mrrs;
	in->rcb = cfg->rcb;
	in->ext_tag = cfg->ext_tag;
	in->tag10b = cfg->tag10b;
	unsigned space = cfg->tag10b ? 1024 : cfg->ext_tag ? 256 : 32;
	unsigned want = cfg->tags ? cfg->tags : g->tag_capacity;
	in->tags = want < space ? want : space;
	if (in->tags > 2047)
		in->tags = 2047;
	in->stfifo_words = g->stfifo_capacity;
	in->stfifo_word_bytes = e->rc_word;
	in->cpl_headers = cfg->cpl_headers;
	in->host_cpl_bytes = cfg->host_cpl_bytes ? cfg->host_cpl_bytes : cfg->mps;
	in->host_latency_ns = cfg->latency_ns;
	double enc = cfg->link_gen >= 3 ? 128.0 / 130.0 : 0.8;
	double Bps = gts(cfg->link_gen) * 1e9 * cfg->link_width * enc / 8.0 * (1.0 - cfg->dllp_overhead);
	in->link_up_Bps = in->link_down_Bps = Bps;
	in->rq_header_bytes = 16;
	in->rc_header_bytes = 12;
	in->tlp_framing_bytes = 8;
	e->hcpl = in->host_cpl_bytes;
	double fp = (double)c->pcie_khz * 1e3;
	e->up_Bpc = e->dn_Bpc = Bps / fp;
	e->ns_per_cycle = 1e9 / fp;
	e->lat_mean = cfg->latency_ns * fp / 1e9;
	e->lat_jit = cfg->jitter_ns * fp / 1e9;
	e->lat_min = (int64_t)floor(e->lat_mean - e->lat_jit);
	if (e->lat_min < 1)
		e->lat_min = 1;
	rng_seed(&e->rng, s->seed * 1000003u + idx);
	e->tags_pool = in->tags;
	e->rc_cur = -1;
	e->tagl.cap = g->tag_capacity;
	e->tagl.cur = in->tags;
	e->tagl.full = in->tags;
	e->stl.cap = g->stfifo_capacity;
	e->stl.cur = g->stfifo_capacity > 65535 ? 65535 : g->stfifo_capacity;
	e->truth.tags_free_min = in->tags;
	e->truth.stfifo_free_min = e->stl.cur;

	unsigned np = in->tags + 4;
	e->pool = calloc(np, sizeof(*e->pool));
	e->freel = calloc(np, sizeof(*e->freel));
	e->heap = calloc(np, sizeof(*e->heap));
	if (!e->pool || !e->freel || !e->heap)
		return -ENOMEM;
	for (unsigned i = 0; i < np; i++)
		e->freel[e->nfree++] = np - 1 - i;
	if (reqq_init(&e->ptc, cfg->ptc_requests + 4096) || evq_init(&e->rel, np) ||
	    evq_init(&e->rdy, np) || fq_init(&e->st, 256))
		return -ENOMEM;
	if (pte_mfb_init(&e->rq, e->R_rq, e->N_rq, c->slice) ||
	    pte_mfb_init(&e->rc, e->R_rc, e->N_rc, c->slice))
		return -ENOMEM;
	for (unsigned p = 0; p < g->dma_ports; p++) {
		struct port *pt = &e->port[p];
		rng_seed(&pt->rng, s->seed * 7919u + idx * 131u + p + 1);
		pt->addr_r = 0x100000000ull * (p + 1);
		pt->addr_w = 0x800000000ull * (p + 1);
		if (reqq_init(&pt->pend, PORT_QUEUE) || fq_init(&pt->afifo, 256))
			return -ENOMEM;
		if (pte_mfb_init(&pt->up, e->R_up, e->N_up, dmax) ||
		    pte_mfb_init(&pt->down, e->R_dn, e->N_dn, dmax))
			return -ENOMEM;
		pte_mvb_init(&pt->upv, e->R_up);
		pte_mvb_init(&pt->downv, e->R_dn);
	}
	struct ptm_pcie_in *pi = &e->in;
	memset(pi, 0, sizeof(*pi));
	pi->mps = (uint8_t)code_of(cfg->mps);
	pi->mrrs = (uint8_t)code_of(cfg->mrrs);
	pi->ext_tag_en = (uint8_t)cfg->ext_tag;
	pi->tag10b_req_en = (uint8_t)cfg->tag10b;
	pi->rcb_size = cfg->rcb == 128;
	pi->link_up = (uint8_t)cfg->link_up;
	pi->tag_free = (uint16_t)in->tags;
	pi->stfifo_free = (uint16_t)e->stl.cur;
	return 0;
}

static void ep_fini(struct ep *e)
{
	free(e->pool);
	free(e->freel);
	free(e->heap);
	free(e->ptc.q);
	free(e->rel.q);
	free(e->rdy.q);
	free(e->st.q);
	pte_mfb_fini(&e->rq);
	pte_mfb_fini(&e->rc);
	for (unsigned p = 0; p < PTM_MAX_DMA_PORTS; p++) {
		free(e->port[p].pend.q);
		free(e->port[p].afifo.q);
		pte_mfb_fini(&e->port[p].up);
		pte_mfb_fini(&e->port[p].down);
	}
}

void pte_card_free(struct pte_card *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < PTM_MAX_ENDPOINTS; i++)
		ep_fini(&c->ep[i]);
	ptm_model_free(c->m);
	free(c);
}

int pte_card_open(const char *spec, struct pte_card **out, char *msg, size_t msglen)
{
	struct pte_card *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (!c) {
		snprintf(msg, msglen, "simulated card: out of memory");
		return -ENOMEM;
	}
	rc = pte_scenario_load(spec, &c->sc, msg, msglen);
	if (rc) {
		free(c);
		return rc;
	}
	rc = ptm_model_new(&c->sc.g, &c->m, msg, msglen);
	if (rc) {
		free(c);
		return rc;
	}
	c->neps = c->sc.g.pcie_endpoints;
	c->nports = c->sc.g.dma_ports;
	c->pcie_khz = (uint64_t)llround(c->sc.pcie_mhz * 1e3);
	c->dma_khz = (uint64_t)llround(c->sc.dma_mhz * 1e3);
	c->mi_khz = (uint64_t)llround(c->sc.mi_mhz * 1e3);
	c->slice = c->sc.g.drain_period / 2; /* see the top of this file */
	if (c->slice > PTE_SLICE_MAX)
		c->slice = PTE_SLICE_MAX;
	if (c->slice < 16)
		c->slice = 16;
	for (unsigned i = 0; i < c->neps; i++) {
		rc = ep_init(c, &c->ep[i], i);
		if (rc) {
			snprintf(msg, msglen, "simulated card: out of memory");
			pte_card_free(c);
			return rc;
		}
	}
	/* Reset sequence: all three domains in reset for a few cycles. */
	for (unsigned i = 0; i < c->neps; i++) {
		struct ptm_pcie_in r = c->ep[i].in;
		r.rst = 1;
		ptm_pcie_edges(c->m, i, &r, 8);
	}
	ptm_dma_edges(c->m, 1, c->dbus, 8);
	ptm_mi_idle_edges(c->m, 1, 8);
	ptm_mi_idle_edges(c->m, 0, 4);
	c->mi_done = 12;
	c->pcie_done = (uint64_t)((unsigned __int128)c->mi_done * c->pcie_khz / c->mi_khz);
	c->dma_done = (uint64_t)((unsigned __int128)c->pcie_done * c->dma_khz / c->pcie_khz);
	pte_card_run(c, c->sc.warmup_us * 1e-6);
	*out = c;
	return 0;
}

void pte_card_info(const struct pte_card *c, struct pte_card_info *out)
{
	memset(out, 0, sizeof(*out));
	out->g = c->sc.g;
	out->pcie_hz = (double)c->pcie_khz * 1e3;
	out->dma_hz = (double)c->dma_khz * 1e3;
	out->mi_hz = (double)c->mi_khz * 1e3;
	out->seed = c->sc.seed;
	snprintf(out->name, sizeof(out->name), "%s", c->sc.name);
}

int pte_card_ep_info(const struct pte_card *c, unsigned ep, struct pte_ep_info *out)
{
	if (ep >= c->neps)
		return -EINVAL;
	*out = c->ep[ep].info;
	return 0;
}

int pte_card_truth(const struct pte_card *c, unsigned ep, struct pte_truth *out)
{
	if (ep >= c->neps)
		return -EINVAL;
	const struct ep *e = &c->ep[ep];
	*out = e->truth;
	out->pcie[PTE_RQ].frames = e->rq.t_frames;
	out->pcie[PTE_RQ].items = e->rq.t_items;
	out->pcie[PTE_RC].frames = e->rc.t_frames;
	out->pcie[PTE_RC].items = e->rc.t_items;
	return 0;
}
