/*
 * pcie-telemetry: the DMA ports of the simulated card.
 *
 * A port generates read and write requests at its rates (or as fast as the
 * card takes them), sends them to the PTC over UP (a header per request on
 * the MVB, a write's payload on the MFB as one frame) and takes the
 * completions of its reads from DOWN (header on the MVB, payload on the
 * MFB) in the share of its cycles in which it is ready.  One slice of DMA
 * cycles at a time.
 */
#include <math.h>
#include <string.h>

#include "env/card_priv.h"

/* How many requests of a one-size distribution a slice adds. */
static uint64_t one_size_count(const struct port *pt, int write, int max, uint32_t size,
			       const double *credit, uint64_t target_reqs, uint64_t target_bytes)
{
	uint64_t reqs = pt->pend.reqs, bytes = pt->pend.bytes, k;

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
	return k;
}

/* Draws of up to four sizes (thresholds t, pte_rng_pick_fast), at most n:
 * while the whole-byte credit *cr covers them, or (cr NULL) while the
 * bytes drawn stay below blim.  Their counts into cnt; a draw the credit
 * does not cover ends it, drawn all the same.  A loop of its own per kind
 * keeps the generator's state and the thresholds in registers. */
static void draw4(struct rng *r, const uint64_t *t, const uint32_t *size, uint64_t n,
		  uint64_t *cr, uint64_t bytes, uint64_t blim, uint64_t *cnt)
{
	struct rng g = *r;
	const uint64_t t0 = t[0], t1 = t[1], t2 = t[2];

	if (cr) {
		uint64_t c = *cr;
		for (; n; n--) {
			uint64_t x = pte_rng_next(&g) >> 11;
			unsigned i = (unsigned)(x >= t0) + (unsigned)(x >= t1) + (unsigned)(x >= t2);
			if (c < size[i])
				break;
			c -= size[i];
			cnt[i]++;
		}
		*cr = c;
	} else {
		for (; n && bytes < blim; n--) {
			uint64_t x = pte_rng_next(&g) >> 11;
			unsigned i = (unsigned)(x >= t0) + (unsigned)(x >= t1) + (unsigned)(x >= t2);
			bytes += size[i];
			cnt[i]++;
		}
	}
	*r = g;
}

/* As draw4, for any number of sizes. */
static void draw_any(struct rng *r, const struct pte_pick *pk, const uint32_t *size, uint64_t n,
		     uint64_t *cr, uint64_t bytes, uint64_t blim, uint64_t *cnt)
{
	struct rng g = *r; /* in registers while it draws */

	for (; n && bytes < blim; n--) {
		unsigned i = pte_rng_pick_fast(&g, pk);
		if (cr) {
			if (*cr < size[i])
				break;
			*cr -= size[i];
		}
		cnt[i]++;
		bytes += size[i];
	}
	*r = g;
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
		cnt[0] = one_size_count(pt, write, max, d->size[0], credit, target_reqs,
					target_bytes);
		if (!max)
			*credit -= (double)cnt[0] * d->size[0];
	} else {
		/* the credit's whole bytes as an integer: subtracting whole
		 * sizes from it is exact, so this is the same credit; a port
		 * at "max" draws up to its target (of bytes too for writes) */
		const struct pte_pick *pk = write ? &pt->pick_w : &pt->pick_r;
		const uint64_t lim_r = max ? target_reqs : 4 * target_reqs;
		const uint64_t n = reqs < lim_r ? lim_r - reqs : 0;
		const uint64_t blim = max && write ? target_bytes : UINT64_MAX;
		uint64_t cr = max ? 0 : (uint64_t)*credit;
		double frac = max ? 0.0 : *credit - (double)cr;
		if (pk->n <= 4)
			draw4(&pt->rng, pk->thr, d->size, n, max ? NULL : &cr, bytes, blim, cnt);
		else
			draw_any(&pt->rng, pk, d->size, n, max ? NULL : &cr, bytes, blim, cnt);
		if (!max)
			*credit = (double)cr + frac;
	}
	for (unsigned i = 0; i < d->n; i++) {
		if (!cnt[i])
			continue;
		uint32_t stride = pte_stride_of(d->size[i], align);
		if (pte_reqq_push(&pt->pend, write, pidx, d->size[i], stride, *addr, cnt[i]))
			break; /* the queue of groups is full: the DMA waits */
		*addr += cnt[i] * stride;
	}
}

void pte_dma_generate(struct ep *e, unsigned p, double sec, uint64_t d)
{
	struct port *pt = &e->port[p];
	const struct pte_port_cfg *pc = &e->cfg->port[p];
	const struct ep_geom *g = &e->geo;
	uint64_t tr = 2 * d * g->R_up + 64;
	uint64_t tb = 2 * d * g->R_up * g->N_up * g->IB + 8192;

	gen_kind(pt, p, 0, pc->read_gbps, &pc->read_size, pc->align, sec, tr, tb);
	gen_kind(pt, p, 1, pc->write_gbps, &pc->write_size, pc->align, sec, tr, tb);
}

/* The end of a bus's slice, its words and stalls into the ground truth. */
static void close_bus(struct pte_bus_truth *tr, struct pte_wt *m, struct pte_mvb *v)
{
	uint64_t w0 = m->t_words;

	pte_wt_close(m);
	pte_mvb_close(v);
	tr->words += m->t_words - w0;
	tr->stall += m->stall;
	tr->mvb_stall += v->stall;
}

/* How many requests of the head run go out on UP now (0 = blocked). */
static uint64_t up_count(const struct ep *e, const struct port *pt, const struct req *r,
			 uint64_t d, uint64_t room_reqs, uint64_t room_bytes)
{
	const struct ep_geom *g = &e->geo;
	uint64_t k = r->count;

	if (k > room_reqs)
		k = room_reqs;
	if (r->write && k * r->size > room_bytes) /* k > room_bytes / size */
		k = room_bytes / r->size;
	if (k == 0)
		return 0;
	uint64_t mvb_left = (d - pte_mvb_used(&pt->upv)) * g->R_up;
	if (k > mvb_left)
		k = mvb_left;
	if (r->write) {
		uint64_t regions = pte_ucdiv(pte_items(e, r->size), g->N_up);
		uint64_t kk = pte_udiv((d - pte_wt_used(&pt->up)) * g->R_up, regions);
		if (kk == 0)
			kk = 1;
		if (k > kk)
			k = kk;
	}
	return k;
}

/* The rest of the slice: UP waits for the PTC. */
static void up_blocked(struct port *pt, const struct req *r, uint64_t d)
{
	pte_mvb_flush(&pt->upv);
	uint64_t u = pte_mvb_used(&pt->upv);
	if (u < d)
		pte_mvb_stall(&pt->upv, d - u);
	if (r->write) {
		pte_wt_flush(&pt->up);
		u = pte_wt_used(&pt->up);
		if (u < d)
			pte_wt_stall(&pt->up, d - u);
	}
}

void pte_dma_up_slice(struct ep *e, struct port *pt, uint64_t d, uint64_t *room_reqs,
		      uint64_t *room_bytes)
{
	struct pte_bus_truth *tr = &e->truth.up[pt - e->port];
	unsigned pidx = (unsigned)(pt - e->port);
	int blocked = 0;
	struct req *r;

	pte_wt_begin(&pt->up, d);
	pte_mvb_begin(&pt->upv, d);
	while ((r = pte_reqq_head(&pt->pend))) {
		if (pte_mvb_used(&pt->upv) >= d || (r->write && pte_wt_used(&pt->up) >= d))
			break;
		uint64_t k = up_count(e, pt, r, d, *room_reqs, *room_bytes);
		if (k == 0 ||
		    pte_reqq_push(&e->ptc.in, r->write, pidx, r->size, r->stride, r->addr, k)) {
			blocked = 1;
			break;
		}
		pte_mvb_items(&pt->upv, k);
		tr->mvb_items += k;
		if (r->write) {
			uint32_t items = pte_items(e, r->size);
			pte_wt_frames(&pt->up, items, k);
			tr->frames += k;
			tr->items += k * items;
			tr->bytes += k * r->size;
			*room_bytes -= k * r->size;
			pt->pend.bytes -= k * r->size;
		}
		*room_reqs -= k;
		pt->pend.reqs -= k;
		r->count -= k;
		r->addr += k * r->stride;
		if (r->count == 0)
			pte_reqq_pop(&pt->pend);
	}
	if (blocked && (r = pte_reqq_head(&pt->pend)))
		up_blocked(pt, r, d);
	close_bus(tr, &pt->up, &pt->upv);
}

/* Stall cycles of a bus the DMA took everything from, not ready in
 * between the words it took (share rho of its cycles ready). */
static uint64_t between_stalls(uint64_t used, uint64_t d, double rho)
{
	uint64_t s = (uint64_t)llround((double)used * (1.0 - rho) / rho);
	uint64_t left = d - (used < d ? used : d);
	return s > left ? left : s;
}

/* k completions of the head run (z: what one takes) go from the FIFOs to
 * the port. */
static void down_take(struct ep *e, struct port *pt, struct frun *f, uint64_t k,
		      const struct cpl_size *z)
{
	struct pte_bus_truth *tr = &e->truth.down[pt - e->port];

	pte_wt_frames(&pt->down, z->dn_items, k);
	pte_mvb_items(&pt->downv, k);
	pt->af_words -= k * z->dn_w;
	pt->af_regions -= k * z->dn_reg;
	pt->af_hdrs -= k;
	tr->frames += k;
	tr->items += k * z->dn_items;
	tr->bytes += k * f->bytes;
	tr->mvb_items += k;
	f->count -= k;
	if (f->count == 0)
		pte_fq_pop(&pt->afifo);
}

void pte_dma_down_slice(struct ep *e, struct port *pt, uint64_t d)
{
	struct pte_bus_truth *tr = &e->truth.down[pt - e->port];
	unsigned pidx = (unsigned)(pt - e->port);
	const unsigned R = e->geo.R_dn;
	double rho = e->cfg->port[pidx].down_ready, rhoh = e->cfg->port[pidx].down_hdr_ready;
	double av = (double)d * rho + pt->ready_carry, avh = (double)d * rhoh + pt->hdr_carry;
	uint64_t avail = (uint64_t)av, availh = (uint64_t)avh;

	pt->ready_carry = av - (double)avail;
	pt->hdr_carry = avh - (double)availh;
	pte_wt_begin(&pt->down, d);
	pte_mvb_begin(&pt->downv, d);
	while (pt->afifo.n) {
		struct frun *f = pte_fq_head(&pt->afifo);
		uint64_t um = pte_wt_used(&pt->down), uv = pte_mvb_used(&pt->downv);
		if (um >= avail || uv >= availh)
			break;
		const struct cpl_size *z = pte_cpl_size(e, f->bytes);
		uint64_t k = f->count;
		uint64_t kk = pte_udiv((avail - um) * R, z->dn_reg);
		if (kk == 0)
			kk = 1;
		if (k > kk)
			k = kk;
		if (k > (availh - uv) * R)
			k = (availh - uv) * R;
		down_take(e, pt, f, k, z);
	}
	pte_wt_flush(&pt->down);
	pte_mvb_flush(&pt->downv);
	uint64_t um = pte_wt_used(&pt->down), uv = pte_mvb_used(&pt->downv);
	if (pt->afifo.n) {
		/* data waits: every cycle the DMA did not take it is a stall */
		if (um < d)
			pte_wt_stall(&pt->down, d - um);
		if (uv < d)
			pte_mvb_stall(&pt->downv, d - uv);
	} else {
		/* the DMA was not ready in between the words it took */
		if (rho < 1.0)
			pte_wt_stall(&pt->down, between_stalls(um, d, rho));
		if (rhoh < 1.0)
			pte_mvb_stall(&pt->downv, between_stalls(uv, d, rhoh));
	}
	close_bus(tr, &pt->down, &pt->downv);
}

void pte_dma_quiet_slice(struct port *pt, uint64_t d)
{
	pte_wt_begin(&pt->up, d);
	pte_mvb_begin(&pt->upv, d);
	pte_wt_begin(&pt->down, d);
	pte_mvb_begin(&pt->downv, d);
	pte_wt_close(&pt->up);
	pte_mvb_close(&pt->upv);
	pte_wt_close(&pt->down);
	pte_mvb_close(&pt->downv);
}
