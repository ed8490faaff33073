/*
 * pcie-telemetry: the PTC's request side in the simulated card: requests
 * from its input buffer become TLPs on the RQ bus.
 *
 * Reads become TLPs of at most MRRS bytes, never crossing 4 KiB (writes:
 * writes.c); every TLP carries its 16-byte header in the RQ data stream.
 * A group of reads needs its tags, storage FIFO words and completion
 * header credits at once; the first one missing is the BRAKE reason of
 * every cycle it waits.  One step of the RQ bus at a time:
 * rq_step picks a write burst, a read group, or the wait; pte_rq_steps
 * takes them while RQ is behind RC.
 */
#include <errno.h>
#include <string.h>

#include "env/card_priv.h"

/* The next TLP of the head request: its address in *a, its bytes. */
static uint32_t tlp_chunk(const struct req *r, uint32_t lim, uint64_t *a)
{
	*a = r->addr + r->off;
	return pte_read_chunk(*a, r->size - r->off, lim);
}


/* What a read TLP needs (completions, storage FIFO words, header
 * credits), computed into the cache entry c.  It depends only on the
 * TLP's size and its offset in a host completion block (a multiple of
 * the RCB): remembered by both. */
static const struct tlp_need *read_need_calc(struct ep *e, uint64_t a, uint32_t chunk,
					     uint32_t off, struct need_cache *c)
{
	const struct pte_read_geom g = { e->info.mrrs, e->info.rcb, e->host.cpl_bytes,
					 e->geo.rc_word };
	pte_tlp_need(&g, a, chunk, &c->n);
	c->chunk = chunk;
	c->off = off;
	return &c->n;
}

/* The needs of a TLP (read_need_calc), inline while they are remembered;
 * valid until the next call. */
static inline const struct tlp_need *read_need_at(struct ep *e, uint64_t a, uint32_t chunk)
{
	uint32_t off = pte_cpl_off(&e->host, a);
	/* sizes and offsets are mostly multiples of 64: hashed to the top bits */
	uint32_t h = off * 0x9E3779B1u ^ chunk * 0x85EBCA77u;
	struct need_cache *c = &e->ptc.need[(h ^ h >> 16) % NEED_CACHE];

	if (c->chunk == chunk && c->off == off)
		return &c->n;
	return read_need_calc(e, a, chunk, off, c);
}

/* read_need_at() into *n, which outlives the cache entry. */
static inline void read_need(struct ep *e, uint64_t a, uint32_t chunk, struct tlp_need *n)
{
	*n = *read_need_at(e, a, chunk);
}

/* 1 when the Hard IP takes TLPs now; else RQ stalls until it does. */
static int link_ready(struct ep *e, int64_t now, uint64_t trq, uint64_t S)
{
	uint64_t wait;
	if (!pte_link_wait(e, now, &wait))
		return 1;
	pte_wt_flush(&e->rq);
	pte_wt_stall(&e->rq, wait < S - trq ? wait : S - trq);
	return 0;
}

/* ---- what a group of reads needs ------------------------------------------------ */

/* Every request of the run splits the same way at every address into
 * TLPs and completions: aligned, never crossing 4 KiB, at the same offset
 * to the host's completion boundaries (a request within one completion
 * block, or starting on one). */
static int splits_alike(const struct ep *e, struct req *r)
{
	unsigned C = e->host.cpl_bytes;

	/* the same for every request of the run: its addresses advance by
	 * the stride (known once looked at) */
	if (!r->alike)
		r->alike = r->size <= r->stride && 4096u % r->stride == 0 && r->addr % r->stride == 0 &&
				   (r->stride % C == 0 || (C % r->stride == 0 && r->size <= e->info.mrrs))
			   ? 1
			   : 2;
	return r->alike == 1;
}

/* Completions of one size join runs (at most MAX_RUNS_PER_ENT of them,
 * in the order they first appear): 0 when there would be more. */
static int add_run_to(struct cpl_run *run, unsigned *n, const struct cpl_run *c)
{
	unsigned j;
	for (j = 0; j < *n; j++)
		if (run[j].bytes == c->bytes)
			break;
	if (j == *n) {
		if (*n == MAX_RUNS_PER_ENT)
			return 0;
		run[(*n)++] = (struct cpl_run){ c->bytes, 0 };
	}
	run[j].count += c->count;
	return 1;
}

/* uniform_read() for a size other than the last one's (ports mix them):
 * the split of the last one is kept by size, this one's is taken if it
 * was kept before, else computed; into *out. */
static __attribute__((noinline)) const struct split_cache *
uniform_split(struct ep *e, const struct req *r, struct split_cache *out)
{
	const struct split_cache *by = &e->ptc.ur_by[(r->size >> 6) % SPLIT_CACHE];
	if (out->valid)
		e->ptc.ur_by[(out->size >> 6) % SPLIT_CACHE] = *out;
	if (by->valid && by->size == r->size && by->stride == r->stride) {
		*out = *by;
		return out;
	}
	memset(out, 0, sizeof(*out));
	for (uint32_t off = 0; off < r->size;) {
		uint32_t c = r->size - off < e->info.mrrs ? r->size - off : e->info.mrrs;
		struct tlp_need t;
		read_need(e, r->addr + off, c, &t);
		for (unsigned i = 0; i < t.ncr; i++)
			if (!add_run_to(out->cr, &out->ncr, &t.cr[i])) {
				out->valid = 0;
				return NULL;
			}
		out->w += t.w;
		out->h += t.h;
		out->ntlp++;
		off += c;
	}
	out->valid = 1;
	out->size = r->size;
	out->stride = r->stride;
	out->frames = 0;
	for (unsigned i = 0; i < out->ncr; i++)
		out->frames += out->cr[i].count;
	return out;
}

/*
 * The TLPs of one read request and their completions, when every request
 * of the run splits the same way; 0 otherwise.
 */
static inline const struct split_cache *uniform_read(struct ep *e, struct req *r)
{
	struct split_cache *out = &e->ptc.ur;

	if (r->off || !splits_alike(e, r))
		return NULL;
	/* under these conditions the split does not depend on the address */
	if (out->valid && out->size == r->size && out->stride == r->stride)
		return out;
	return uniform_split(e, r, out);
}

/*
 * The PTC asks for the resources of a group of reads at once: the next
 * read TLPs of the head request group, up to ptc_read_group of them, but
 * never more than a quarter of the tags, the storage FIFO words or the
 * completion header credits (so that a group always fits eventually).
 * The first TLP's needs are given.
 */
static void group_need_calc(struct ep *e, const struct req *r, const struct tlp_need *first,
			    struct group_cache *g)
{
	unsigned G = e->cfg->ptc_read_group;
	uint64_t maxw = e->info.stfifo_words / 4, maxh = e->info.cpl_headers / 4;
	unsigned maxt = e->ptc.tags_pool / 4;
	uint32_t off = r->off, mrrs = e->info.mrrs;
	uint64_t addr = r->addr, left = r->count;

	g->t = 1;
	g->w = first->w;
	g->h = first->h;
	for (;;) {
		/* advance to the next TLP */
		off += pte_read_chunk(addr + off, r->size - off, mrrs);
		if (off >= r->size) {
			off = 0;
			addr += r->stride;
			if (--left == 0)
				return;
		}
		if (g->t >= G)
			return;
		uint64_t a = addr + off;
		const struct tlp_need *n = read_need_at(e, a, pte_read_chunk(a, r->size - off, mrrs));
		if (g->t + 1 > maxt || g->w + n->w > maxw ||
		    (e->info.cpl_headers && g->h + n->h > maxh))
			return;
		g->t++;
		g->w += n->w;
		g->h += n->h;
	}
}

/* The entry of group_need's cache for a head that splits alike (or not). */
static inline unsigned gc_slot(const struct req *r, int uni)
{
	return uni ? 1u + (((r->off >> 6) ^ (r->off >> 9)) & (GROUP_CACHE - 2)) : 0u;
}

static inline int gc_same_head(const struct group_cache *g, const struct req *r)
{
	return g->valid && g->addr == r->addr && g->count == r->count && g->off == r->off &&
	       g->size == r->size && g->stride == r->stride;
}

/* The same head asks again while it waits, and requests that split alike
 * ask the same at the same offset: remember the answers. */
static const struct group_cache *group_need(struct ep *e, struct req *r,
					    const struct tlp_need *first)
{
	struct group_cache *g = &e->ptc.gc[e->ptc.gc_last];
	/* the same head as last time: the same answer */
	if (gc_same_head(g, r))
		return g;
	/* requests that split alike: with more of them left than a group
	 * takes, the answer depends on the offset alone */
	int uni = splits_alike(e, r) && r->count > e->cfg->ptc_read_group;
	e->ptc.gc_last = gc_slot(r, uni);
	g = &e->ptc.gc[e->ptc.gc_last];
	if (!(g->valid && g->uni == uni && g->off == r->off && g->size == r->size &&
	      g->stride == r->stride && (uni || (g->addr == r->addr && g->count == r->count)))) {
		g->uni = uni;
		group_need_calc(e, r, first, g);
		g->valid = 1;
		g->off = r->off;
		g->size = r->size;
		g->stride = r->stride;
	}
	g->addr = r->addr;
	g->count = r->count;
	return g;
}

/* group_need() when it is known without the first TLP: the head is the
 * one asked about last time, or a run of requests that split alike, with
 * more left than a group takes, at the start of a request, asked about
 * before; NULL otherwise. */
static inline const struct group_cache *group_need_uni(struct ep *e, struct req *r)
{
	struct group_cache *g = &e->ptc.gc[e->ptc.gc_last];

	if (gc_same_head(g, r))
		return g;
	if (r->alike != 1 || r->count <= e->cfg->ptc_read_group)
		return NULL;
	unsigned slot = gc_slot(r, 1);
	g = &e->ptc.gc[slot];
	if (!g->valid || !g->uni || g->off != r->off || g->size != r->size || g->stride != r->stride)
		return NULL;
	e->ptc.gc_last = slot;
	g->addr = r->addr;
	g->count = r->count;
	return g;
}

/* The first resource a group of reads lacks, or PTE_BRAKE_NONE. */
static enum pte_brake read_blocked(const struct ep *e, const struct group_cache *g)
{
	const struct ptc *p = &e->ptc;
	unsigned freet = p->tags_pool - p->tags_used;

	if (freet < g->t)
		return PTE_BRAKE_NO_TAG;
	if (freet - p->notready < g->t)
		return PTE_BRAKE_TAG_NOT_READY;
	if (p->stored + p->reserved + g->w > e->info.stfifo_words)
		return PTE_BRAKE_NO_SPACE;
	if (e->info.cpl_headers && p->cplh_used + g->h > e->info.cpl_headers)
		return PTE_BRAKE_NO_CPLH;
	return PTE_BRAKE_NONE;
}

/*
 * RQ idles with the BRAKE reason driven until what it waits for can have
 * changed: a tag or header credit coming back (the next release, or the
 * next completion on RC), a tag reaching the read port, completions
 * leaving the storage FIFO; else to the end of the slice.
 */
static void read_wait(struct ep *e, int64_t T0, uint64_t S, uint64_t trq, enum pte_brake why)
{
	uint64_t trc = pte_wt_used(&e->rc);
	uint64_t until = S;

	if (why == PTE_BRAKE_NO_TAG || why == PTE_BRAKE_NO_CPLH) {
		until = trc < S ? trc : S;
		int64_t rel = pte_next_release(e);
		if (rel - T0 < (int64_t)until)
			until = (uint64_t)(rel - T0);
	} else if (why == PTE_BRAKE_TAG_NOT_READY) {
		int64_t ready = pte_next_ready(e);
		if (ready != INT64_MAX)
			until = (uint64_t)(ready - T0);
	} else if (why == PTE_BRAKE_NO_SPACE && !e->push.held) {
		/* completions come in and leave towards the DMA */
		until = trc < S ? trc : S;
	}
	if (until <= trq)
		until = trq + 1;
	if (until > S)
		until = S;
	pte_wt_flush(&e->rq);
	trq = pte_wt_used(&e->rq);
	if (trq >= S)
		return;
	if (until <= trq)
		until = trq + 1;
	e->brk.cyc[why] += until - trq;
	pte_wt_idle_flushed(&e->rq, until - trq);
}

/* ---- a group of reads --------------------------------------------------------------- */

/* min(k, room / per), dividing only when the room binds (k * per > room
 * is k > room / per; k is at most a group's TLPs or a run's requests). */
static inline uint64_t min_div(uint64_t k, uint64_t room, uint64_t per)
{
	return k * per > room ? room / per : k;
}

/* Requests of a uniform run that go as one group: all that fit. */
static uint64_t uniform_count(const struct ep *e, const struct req *r, const struct split_cache *u)
{
	const struct ptc *p = &e->ptc;
	unsigned m = u->ntlp, freet = p->tags_pool - p->tags_used;
	uint64_t k = r->count;

	k = min_div(k, READS_PER_GROUP + m - 1, m);
	k = min_div(k, freet - p->notready, m);
	k = min_div(k, e->info.stfifo_words - p->stored - p->reserved, u->w);
	if (e->info.cpl_headers)
		k = min_div(k, e->info.cpl_headers - p->cplh_used, u->h);
	return k;
}

/* k identical requests as one group; returns its TLPs. */
static uint64_t read_uniform(struct ep *e, struct req *r, struct ent *x, uint64_t k,
			     const struct split_cache *u)
{
	struct ptc *p = &e->ptc;
	uint64_t tlps = k * u->ntlp;

	x->nrun = (uint8_t)u->ncr;
	for (unsigned i = 0; i < u->ncr; i++)
		x->run[i] = (struct cpl_run){ u->cr[i].bytes, (uint32_t)(u->cr[i].count * k) };
	x->frames = (uint32_t)(k * u->frames);
	x->cplh = (uint32_t)(k * u->h);
	x->res_words = (uint32_t)(k * u->w);
	p->tags_used += (unsigned)tlps;
	p->cplh_used += x->cplh;
	p->reserved += x->res_words;
	pte_reqs_consumed(e, r, k);
	return tlps;
}

/* Completions of the sizes of c[0..nc) (each size once), k times their
 * counts, join the group's runs (new sizes appended in order); 0 (and
 * nothing joins) when that would take more runs than a group holds. */
static int merge_runs(struct ent *x, const struct cpl_run *c, unsigned nc, uint32_t k)
{
	unsigned at[MAX_RUNS_PER_ENT], nm = x->nrun;

	for (unsigned i = 0; i < nc; i++) {
		unsigned j;
		for (j = 0; j < nm; j++)
			if (x->run[j].bytes == c[i].bytes)
				break;
		if (j == nm) {
			if (nm == MAX_RUNS_PER_ENT)
				return 0;
			x->run[nm++] = (struct cpl_run){ c[i].bytes, 0 }; /* dropped below on failure */
		}
		at[i] = j;
	}
	for (unsigned i = 0; i < nc; i++)
		x->run[at[i]].count += c[i].count * k;
	x->nrun = (uint8_t)nm;
	return 1;
}

/* What the whole head request needs (it has sent nothing yet): its TLPs
 * and their completions, storage FIFO words and header credits, which
 * depend only on its size and where it starts in a 4 KiB page and in a
 * host completion block.  NULL when its completions come in more sizes
 * than a group holds. */
static const struct req_cache *req_need(struct ep *e, const struct req *r)
{
	uint32_t a4k = (uint32_t)(r->addr % 4096u), acpl = pte_cpl_off(&e->host, r->addr);
	uint32_t hsh = r->size * 0x9E3779B1u ^ a4k * 0x85EBCA77u ^ acpl * 0xC2B2AE3Du;
	/* two ways a set: the one filled last first */
	struct req_cache *q = &e->ptc.req[(hsh ^ hsh >> 15) % (REQ_CACHE / 2) * 2];

	for (unsigned w = 0; w < 2; w++)
		if (q[w].size == r->size && q[w].a4k == a4k && q[w].acpl == acpl)
			return q[w].ok ? &q[w] : NULL;
	q[1] = q[0];
	memset(q, 0, sizeof(*q));
	q->ok = 1;
	for (uint32_t off = 0; off < r->size && q->ok;) {
		uint64_t a = r->addr + off;
		uint32_t c = pte_read_chunk(a, r->size - off, e->info.mrrs);
		const struct tlp_need *t = read_need_at(e, a, c);
		for (unsigned i = 0; i < t->ncr && q->ok; i++)
			q->ok = add_run_to(q->cr, &q->ncr, &t->cr[i]);
		q->w += t->w;
		q->h += t->h;
		q->ntlp++;
		off += c;
	}
	q->size = r->size;
	q->a4k = a4k;
	q->acpl = acpl;
	return q->ok ? q : NULL;
}

/* How many requests of the head run, from the head on, need what the head
 * needs (req_need), at most max: those at the same place in a 4 KiB page
 * and in a host completion block, or, while none crosses a 4 KiB
 * boundary, at the same place in a completion block. */
static uint64_t alike_from_head(const struct ep *e, const struct req *r, uint64_t max)
{
	const uint32_t C = e->host.cpl_bytes;
	uint64_t k = 1;

	if (max > r->count)
		max = r->count;
	if (max <= 1 || r->stride % C)
		return max ? 1 : 0;
	if (r->stride % 4096u == 0)
		return max;
	/* the head and those after it that cross no 4 KiB boundary */
	uint64_t a = r->addr;
	if ((a & 4095u) + r->size > 4096u)
		return 1;
	for (a += r->stride; k < max && (a & 4095u) + r->size <= 4096u; a += r->stride)
		k++;
	return k;
}

/* Whole requests join group x, as many as would one after the other TLP
 * by TLP (read_tlps), when they need alike: tags, storage FIFO words,
 * header credits, the group's runs and its TLPs.  Returns their TLPs and
 * *m their number; 0 when not even the head fits. */
static uint64_t read_whole(struct ep *e, const struct req *r, struct ent *x, uint64_t tlps,
			   uint64_t *m)
{
	struct ptc *p = &e->ptc;
	const struct req_cache *q = r->off ? NULL : req_need(e, r);

	if (!q)
		return 0;
	uint64_t k = q->ntlp == 1 ? READS_PER_GROUP - tlps : (READS_PER_GROUP - tlps) / q->ntlp;
	k = p->tags_pool - p->tags_used < p->notready
		    ? 0
		    : min_div(k, p->tags_pool - p->tags_used - p->notready, q->ntlp);
	k = p->stored + p->reserved < e->info.stfifo_words
		    ? min_div(k, e->info.stfifo_words - p->stored - p->reserved, q->w)
		    : 0;
	if (e->info.cpl_headers)
		k = p->cplh_used < e->info.cpl_headers
			    ? min_div(k, e->info.cpl_headers - p->cplh_used, q->h)
			    : 0;
	if (!k || !(k = alike_from_head(e, r, k)))
		return 0;
	if (!merge_runs(x, q->cr, q->ncr, (uint32_t)k))
		return 0;
	p->tags_used += (unsigned)(k * q->ntlp);
	p->cplh_used += (unsigned)(k * q->h);
	p->reserved += k * q->w;
	x->cplh += (uint32_t)(k * q->h);
	x->res_words += (uint32_t)(k * q->w);
	*m = k;
	return k * q->ntlp;
}

/* TLP by TLP while every resource lasts, as one group (whole requests at
 * once when all their TLPs fit); the first TLP (chunk bytes, needs *n) is
 * known to fit.  Returns the TLPs. */
static uint64_t read_tlps(struct ep *e, struct req *r, struct ent *x, uint32_t chunk,
			  const struct tlp_need *n)
{
	struct ptc *p = &e->ptc;
	uint64_t tlps = 0;

	x->nrun = 0;
	x->cplh = 0;
	x->res_words = 0;
	for (;;) {
		uint64_t m, whole = read_whole(e, r, x, tlps, &m);
		if (whole) {
			tlps += whole;
			if (pte_reqs_consumed(e, r, m) || tlps >= READS_PER_GROUP)
				break;
			continue;
		}
		if (tlps) {
			uint64_t a;
			chunk = tlp_chunk(r, e->info.mrrs, &a);
			n = read_need_at(e, a, chunk);
			unsigned fr = p->tags_pool - p->tags_used;
			if (fr <= p->notready || p->stored + p->reserved + n->w > e->info.stfifo_words ||
			    (e->info.cpl_headers && p->cplh_used + n->h > e->info.cpl_headers))
				break;
		}
		if (!merge_runs(x, n->cr, n->ncr, 1))
			break;
		p->tags_used++;
		p->cplh_used += n->h;
		p->reserved += n->w;
		x->cplh += n->h;
		x->res_words += n->w;
		tlps++;
		r->off += chunk;
		if (r->off >= r->size && pte_req_consumed(e, r))
			break;
		if (tlps >= READS_PER_GROUP)
			break;
	}
	return tlps;
}

/* A group of reads goes out: its TLPs on RQ and the link, the group in
 * flight until the host answers. */
static int read_group(struct ep *e, int64_t T0, uint64_t trq, int64_t now, struct req *r,
		      uint32_t chunk, struct tlp_need *first)
{
	struct ptc *p = &e->ptc;
	uint32_t hdr = e->info.rq_header_bytes;
	const struct split_cache *u = uniform_read(e, r);
	uint64_t k = u ? uniform_count(e, r, u) : 0;
	int xi = pte_ents_get(&p->ents);
	if (xi < 0)
		return -EOVERFLOW; /* cannot happen: a group holds a tag, the pool has more */
	struct ent *x = &p->ents.pool[xi];
	int64_t lat = pte_host_latency(e);

	x->port = r->port;
	if (!k && !first->ncr) {
		/* the group need was known without it (group_need_uni) */
		uint64_t a;
		chunk = tlp_chunk(r, e->info.mrrs, &a);
		read_need(e, a, chunk, first);
	}
	uint64_t tlps;
	if (k) {
		tlps = read_uniform(e, r, x, k, u);
	} else {
		tlps = read_tlps(e, r, x, chunk, first);
		x->frames = 0;
		for (unsigned i = 0; i < x->nrun; i++)
			x->frames += x->run[i].count;
	}
	pte_wt_frames(&e->rq, pte_items(e, hdr), tlps);
	pte_link_send(e, now, hdr, tlps);
	x->t_take = now;
	x->t_arr = T0 + (int64_t)pte_wt_used(&e->rq) + lat;
	x->reads = (uint32_t)tlps;
	x->tags = (uint32_t)tlps;
	x->cur = 0;
	x->frames_done = x->tags_rel = x->cplh_rel = 0;
	if (!e->info.cpl_headers) {
		/* the endpoint manages its buffer: no credits to give back */
		p->cplh_used -= x->cplh;
		x->cplh = 0;
	}
	pte_ents_push(&p->ents, (unsigned)xi);
	pte_lvl_set(&e->tagl, trq, p->tags_pool - p->tags_used);
	e->truth.pcie[PTE_RQ].bytes += tlps * hdr;
	e->truth.read_latency_sum_ns += (double)tlps * (double)lat * e->host.ns_per_cycle;
	return 0;
}

/* Whether a group of reads fits whatever its exact need: group_need_calc
 * counts at most ptc_read_group TLPs and a quarter of the tags (the first
 * TLP always), and adds a TLP's words and header credits only within a
 * quarter of them (the first TLP's always).  Then read_blocked() would
 * find nothing lacking, and the need is not worth computing. */
static int group_fits_surely(const struct ep *e, const struct tlp_need *first)
{
	const struct ptc *p = &e->ptc;
	unsigned G = e->cfg->ptc_read_group, maxt = p->tags_pool / 4;
	unsigned t = G < maxt ? G : maxt, freet = p->tags_pool - p->tags_used;
	uint64_t maxw = e->info.stfifo_words / 4, maxh = e->info.cpl_headers / 4;
	uint64_t w = first->w > maxw ? first->w : maxw, h = first->h > maxh ? first->h : maxh;

	if (t < 1)
		t = 1;
	if (freet < p->notready || freet - p->notready < t)
		return 0;
	if (p->stored + p->reserved + w > e->info.stfifo_words)
		return 0;
	return !e->info.cpl_headers || p->cplh_used + h <= e->info.cpl_headers;
}

/* ---- one step ---------------------------------------------------------------------- */

/* One step of RQ at its current time (pte_rq_steps).  *known: the need
 * of the head's group of reads when the step before waited for it (the
 * same head asks the same), else NULL; set for the next step. */
static inline int rq_step(struct ep *e, int64_t T0, uint64_t S, const struct group_cache **known)
{
	uint64_t trq = pte_wt_used(&e->rq);
	int64_t now = T0 + (int64_t)trq;
	int rc = pte_apply_releases(e, now, T0);

	if (!rc)
		rc = pte_push_progress(e, trq);
	if (rc)
		return rc;
	struct req *r = pte_reqq_head(&e->ptc.in);
	uint32_t chunk = 0;
	struct tlp_need first;
	enum pte_brake why = PTE_BRAKE_NONE;
	const struct group_cache *g = *known;
	if (g) {
		first.ncr = 0;
		why = read_blocked(e, g);
	} else {
		if (!r) {
			pte_wt_flush(&e->rq);
			pte_wt_idle_flushed(&e->rq, S - pte_wt_used(&e->rq));
			return 0;
		}
		if (r->write) {
			if (link_ready(e, now, trq, S))
				pte_write_burst(e, T0, S, r, now);
			return 0;
		}
		g = group_need_uni(e, r);
		if (!g) {
			uint64_t a;
			chunk = tlp_chunk(r, e->info.mrrs, &a);
			read_need(e, a, chunk, &first);
			if (!group_fits_surely(e, &first))
				why = read_blocked(e, g = group_need(e, r, &first));
		} else {
			first.ncr = 0; /* a uniform group needs no first TLP */
			why = read_blocked(e, g);
		}
	}
	if (why != PTE_BRAKE_NONE) {
		/* the next step finds the same head: group_need_uni would
		 * answer g (the head asked about last) */
		*known = g;
		read_wait(e, T0, S, trq, why);
		return 0;
	}
	*known = NULL;
	if (!link_ready(e, now, trq, S))
		return 0;
	return read_group(e, T0, trq, now, r, chunk, &first);
}

/* Within a slice only the RQ's steps change the head request (the DMA
 * side adds requests between slices): a wait's known need holds from one
 * call to the next while the slice (T0) is the same. */
int pte_rq_steps(struct ep *e, int64_t T0, uint64_t S, uint64_t until)
{
	const struct group_cache *known = e->ptc.known_T0 == T0 ? e->ptc.known : NULL;
	int rc;

	do
		rc = rq_step(e, T0, S, &known);
	while (!rc && pte_wt_used(&e->rq) < until);
	e->ptc.known = known;
	e->ptc.known_T0 = T0;
	return rc;
}
