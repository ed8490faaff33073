/*
 * pcie-telemetry: the PTC's write requests in the simulated card: from its
 * input buffer into TLPs on the RQ bus (rq.c takes the reads).
 *
 * Writes become TLPs of at most MPS bytes, never crossing 4 KiB; every
 * TLP carries its 16-byte header in the RQ data stream.  The requests of
 * a burst leave back to back while the Hard IP takes them; those that are
 * alike go through in bulk, the bookkeeping per request, their frames to
 * the word builder at once.
 */
#include "env/card_priv.h"

/* 4096 % d == 0 for d > 0 (the divisors of 4096 are its powers of two). */
static inline int divides_4k(uint32_t d)
{
	return (d & (d - 1)) == 0 && d <= 4096u;
}

/* Requests of the head write run that go out as one call, each a single
 * TLP (aligned, at most MPS): as many as the Hard IP's buffer takes; 0
 * when the head request is not such a one. */
static uint64_t single_tlp_requests(const struct ep *e, const struct req *r, int64_t now)
{
	uint32_t tlp = r->size + e->info.rq_header_bytes;

	if (r->off || r->size > r->stride || !divides_4k(r->stride) || r->size > e->info.mps)
		return 0;
	double buf = e->link.up_buf;
	double L = (double)(tlp + e->info.tlp_framing_bytes) / e->link.up_Bpc;
	double room = buf - (e->link.up_t - (double)now);
	uint64_t n = room > L ? (uint64_t)(room / L) : 1;
	if (n > r->count)
		n = r->count;
	return n > 64 ? 64 : n;
}

/* k write TLPs of `chunk` payload bytes onto RQ and the link. */
static void write_tlps(struct ep *e, int64_t now, uint32_t chunk, uint64_t k)
{
	uint32_t tlp = chunk + e->info.rq_header_bytes;

	pte_wt_frames(&e->rq, pte_items(e, tlp), k);
	pte_link_send(e, now, tlp, k);
	e->truth.pcie[PTE_RQ].bytes += k * tlp;
	e->truth.writes += k;
	e->truth.write_bytes += k * chunk;
	e->ptc.in.bytes -= k * chunk;
	e->ptc.consumed_bytes += k * chunk;
}

#define WRITE_RUNS 16

/* Runs of equal TLPs of `rest` bytes from address a: TLPs of MPS bytes,
 * each 4 KiB boundary cutting one short (the pieces between boundaries
 * split alike); at most WRITE_RUNS runs.  Returns the bytes covered. */
static uint32_t write_runs(const struct ep *e, uint64_t a, uint32_t rest, struct cpl_run *run,
			   unsigned *nrun)
{
	const uint32_t mps = e->info.mps, sh = e->link.mps_log2;
	uint32_t done = 0;
	unsigned n = 0;

	while (done < rest) {
		uint32_t to4k = 4096u - (uint32_t)((a + done) & 4095u), seg = rest - done;
		if (seg > to4k)
			seg = to4k;
		uint32_t full = seg >> sh, part = seg & (mps - 1);
		struct cpl_run piece[2] = { { mps, full }, { part, part ? 1u : 0u } };
		for (unsigned i = 0; i < 2; i++) {
			if (!piece[i].count)
				continue;
			if (n && run[n - 1].bytes == piece[i].bytes) {
				run[n - 1].count += piece[i].count;
			} else {
				if (n == WRITE_RUNS) {
					*nrun = n;
					return done + (i ? full * mps : 0);
				}
				run[n++] = piece[i];
			}
		}
		done += seg;
	}
	*nrun = n;
	return done;
}

/* The rest of the head write request (at most WRITE_RUNS runs of equal
 * TLPs): its TLPs leave together, back to back on the link. */
static void write_request(struct ep *e, struct req *r, int64_t now)
{
	struct cpl_run run[WRITE_RUNS];
	unsigned n;
	uint32_t off = r->off + write_runs(e, r->addr + r->off, r->size - r->off, run, &n);

	for (unsigned i = 0; i < n; i++)
		write_tlps(e, now, run[i].bytes, run[i].count);
	r->off = off;
	if (r->off >= r->size)
		pte_req_consumed(e, r);
}

/* What a write request of a size that crosses no 4 KiB boundary takes:
 * its MPS-sized TLPs and the rest, their items, RQ regions and link time
 * (sizes repeat: remembered by size). */
static const struct write_size *write_size(struct ep *e, uint32_t size)
{
	struct write_size *z = &e->ptc.wsz[(size / 4u) % WRITE_SIZES];

	if (z->size == size)
		return z;
	const uint32_t mps = e->info.mps, hdr = e->info.rq_header_bytes;
	const uint64_t N = e->rq.N;
	const double fr = (double)e->info.tlp_framing_bytes, Bpc = e->link.up_Bpc;
	z->size = size;
	z->q = size >> e->link.mps_log2;
	z->rem = size & (mps - 1);
	z->it_q = pte_items(e, mps + hdr);
	z->it_r = pte_items(e, z->rem + hdr);
	z->regs = z->q * ((z->it_q + N - 1) / N) + (z->rem ? (z->it_r + N - 1) / N : 0);
	z->Lq = (double)z->q * ((double)(mps + hdr) + fr) / Bpc;
	z->Lr = ((double)(z->rem + hdr) + fr) / Bpc;
	return z;
}

/* The frames of a bulk of write requests by length, logged at its end
 * (back to back, frames are placed the same in any order). */
#define BULK_LENGTHS 8
struct bulk {
	unsigned n;
	uint32_t items[BULK_LENGTHS];
	uint64_t k[BULK_LENGTHS], regs, tlps, tlp_bytes; /* regions, TLPs, their bytes */
};

/* The slot of frames of that many items in b, a new one if there is
 * room; -1 when there is none. */
static int bulk_slot(struct bulk *b, uint32_t items)
{
	for (unsigned i = 0; i < b->n; i++)
		if (b->items[i] == items)
			return (int)i;
	if (b->n == BULK_LENGTHS)
		return -1;
	b->items[b->n] = items;
	b->k[b->n] = 0;
	return (int)b->n++;
}

/* A request that crosses no 4 KiB boundary (its TLPs from write_size z)
 * joins the bulk: onto the link from `now` on, its regions counted (its
 * frames, TLPs and bytes, the same for each such request: bulk_plains). */
static inline void bulk_plain(struct ep *e, struct bulk *b, const struct write_size *z, int64_t now)
{
	double t = e->link.up_t > (double)now ? e->link.up_t : (double)now;

	if (z->q)
		t = e->link.up_t = t + z->Lq;
	if (z->rem)
		e->link.up_t = t + z->Lr;
	b->regs += z->regs;
}

/* The frames, TLPs and bytes of n requests that joined the bulk through
 * bulk_plain. */
static void bulk_plains(const struct ep *e, struct bulk *b, const struct write_size *z, uint64_t n)
{
	const uint32_t hdr = e->info.rq_header_bytes, has_rem = z->rem ? 1 : 0;

	b->k[0] += n * z->q;
	b->k[1] += n * has_rem;
	b->tlps += n * (z->q + has_rem);
	b->tlp_bytes += n * (z->q * (uint64_t)(e->info.mps + hdr) + (z->rem ? z->rem + hdr : 0));
}

/* The TLP runs of a write request of `size` bytes (at most 4 KiB) from
 * address a that crosses a 4 KiB boundary, as write_runs cuts them, with
 * what bulk_cross adds up for each (they depend on a only through where
 * it is in its page: remembered); NULL when there are more runs than an
 * entry holds. */
static const struct write_cross *cross_runs(struct ep *e, uint64_t a, uint32_t size)
{
	const uint32_t a4k = (uint32_t)(a & 4095u), hdr = e->info.rq_header_bytes;
	const uint32_t h = a4k * 0x9E3779B1u ^ size * 0x85EBCA77u;
	struct write_cross *c = &e->ptc.wx[(h ^ h >> 16) % WRITE_CROSS];
	struct cpl_run run[WRITE_RUNS];
	unsigned n;

	if (c->size == size && c->a4k == a4k)
		return c->n ? c : NULL;
	write_runs(e, a, size, run, &n);
	c->size = size;
	c->a4k = a4k;
	c->n = n <= WRITE_CROSS_RUNS ? n : 0;
	for (unsigned i = 0; i < c->n; i++) {
		uint32_t tlp = run[i].bytes + hdr;
		c->count[i] = run[i].count;
		c->items[i] = pte_items(e, tlp);
		c->regs[i] = run[i].count * pte_ucdiv(c->items[i], e->rq.N);
		c->bytes[i] = run[i].count * (uint64_t)tlp;
		c->L[i] = (double)run[i].count * (double)(tlp + e->info.tlp_framing_bytes) /
			  e->link.up_Bpc;
	}
	return c->n ? c : NULL;
}

/* A request of at most 4 KiB from address a that crosses a 4 KiB
 * boundary joins the bulk, its TLPs as write_request would send them
 * (write_runs, then pte_link_send run by run from `now`); 0 (and nothing
 * changes) when its lengths find no slot. */
static int bulk_cross(struct ep *e, struct bulk *b, uint64_t a, uint32_t size, int64_t now)
{
	const struct write_cross *c = cross_runs(e, a, size);
	int slot[WRITE_CROSS_RUNS];

	if (!c)
		return 0;
	for (unsigned i = 0; i < c->n; i++)
		if ((slot[i] = bulk_slot(b, c->items[i])) < 0)
			return 0; /* the slots taken stay empty: they log nothing */
	for (unsigned i = 0; i < c->n; i++) {
		double t = e->link.up_t > (double)now ? e->link.up_t : (double)now;
		e->link.up_t = t + c->L[i];
		b->k[slot[i]] += c->count[i];
		b->regs += c->regs[i];
		b->tlps += c->count[i];
		b->tlp_bytes += c->bytes[i];
	}
	return 1;
}

/* n requests of the head run have gone out as bulk b: their frames into
 * the word builder, their bytes into the truth. */
static void bulk_end(struct ep *e, struct req *r, const struct bulk *b, uint64_t n)
{
	for (unsigned i = 0; i < b->n; i++)
		pte_wt_frames(&e->rq, b->items[i], b->k[i]);
	e->truth.pcie[PTE_RQ].bytes += b->tlp_bytes;
	e->truth.writes += b->tlps;
	e->truth.write_bytes += n * r->size;
	e->ptc.in.bytes -= n * r->size;
	e->ptc.consumed_bytes += n * r->size;
	pte_reqs_consumed(e, r, n);
}

/*
 * Write requests of the head run of at most 4 KiB, one after the other as
 * write_request would send them (those that cross no 4 KiB boundary as
 * MPS-sized TLPs and the rest, which depends only on the size), while
 * the burst goes on: at most `max` of them, up to the end of the run, the
 * end of the slice or a full Hard IP buffer.  Only the bookkeeping per
 * request; their frames go to the word builder at the end (back to back,
 * frames are placed the same in any order).  Returns the requests sent.
 */
static uint64_t write_bulk(struct ep *e, int64_t T0, uint64_t S, struct req *r, unsigned max)
{
	const struct write_size *z = write_size(e, r->size);
	const struct pte_wt *w = &e->rq;
	struct bulk b = { 2, { z->it_q, z->it_r }, { 0, 0 }, 0, 0, 0 };
	uint64_t base = w->pend, n = 0, plain = 0, trq = pte_wt_used(w);
	int64_t now = T0 + (int64_t)trq;

	if (r->size > 4096u)
		return 0;
	while (n < max && r->count > n) {
		uint64_t a = r->addr + n * r->stride;
		if ((a & 4095u) + r->size <= 4096u) {
			bulk_plain(e, &b, z, now);
			plain++;
		} else if (!bulk_cross(e, &b, a, r->size, now)) {
			break;
		}
		n++;
		/* the RQ bus after this request's frames */
		trq = w->placed + pte_wt_div(w, w->cur_r + base + b.regs + w->R - 1);
		now = T0 + (int64_t)trq;
		if (trq >= S || pte_link_full(e, now))
			break;
	}
	if (n) {
		bulk_plains(e, &b, z, plain);
		bulk_end(e, r, &b, n);
	}
	return n;
}

void pte_write_burst(struct ep *e, int64_t T0, uint64_t S, struct req *r, int64_t now)
{
	for (unsigned burst = 0; burst < 64;) {
		uint64_t reqs = single_tlp_requests(e, r, now), n;
		if (reqs) {
			write_tlps(e, now, r->size, reqs);
			pte_reqs_consumed(e, r, reqs);
			burst++;
		} else if (!r->off && (n = write_bulk(e, T0, S, r, 64 - burst))) {
			burst += (unsigned)n;
		} else {
			write_request(e, r, now);
			burst++;
		}
		r = pte_reqq_head(&e->ptc.in);
		uint64_t trq = pte_wt_used(&e->rq);
		now = T0 + (int64_t)trq;
		if (!r || !r->write || trq >= S || pte_link_full(e, now))
			return;
	}
}
