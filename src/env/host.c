/*
 * pcie-telemetry: the host of the simulated card, and the completion
 * stream it sends back over the link onto the RC bus.
 *
 * The host answers a group of reads after one latency draw, with
 * completions of host_cpl_bytes aligned to that size (every boundary on
 * the RCB), 12-byte headers, back to back as the downstream link allows.
 * Completions go to the storage FIFO; tags and completion header credits
 * come back in proportion to the completions received.
 */
#include <math.h>

#include "env/card_priv.h"

/* An exponential draw of the host's latency, in PCIe cycles (not rounded). */
double pte_host_latency_exp(struct ep *e)
{
	double u = pte_rng_unit(&e->host.rng);
	return e->host.lat_lo - e->host.lat_jit * log(1.0 - u);
}

/* RC idles n cycles (at most to the end of the slice). */
static void rc_idle(struct ep *e, uint64_t S, uint64_t n)
{
	pte_wt_flush(&e->rc);
	uint64_t trc = pte_wt_used(&e->rc);
	if (trc < S)
		pte_wt_idle_flushed(&e->rc, n < S - trc ? n : S - trc);
}

/* Nothing has arrived: RC idles until the first group does, or until a
 * read the RQ may still send could have come back. */
static void rc_wait(struct ep *e, int64_t T0, uint64_t S, int rq_active, int64_t now)
{
	const struct ent *first = pte_ents_first(&e->ptc.ents);
	int64_t next = first ? first->t_arr : T0 + (int64_t)S;
	if (rq_active) {
		int64_t b = T0 + (int64_t)pte_wt_used(&e->rq) + e->host.lat_min;
		if (b < next)
			next = b;
	}
	rc_idle(e, S, next > now ? (uint64_t)(next - now) : 1);
}

/* Group x has given back tg tags and ch header credits in all by tnow
 * (more than before). */
static inline int rc_give_back(struct ep *e, struct ent *x, uint32_t tg, uint32_t ch, int64_t tnow)
{
	int rc = pte_release_push(e, tnow, tg - x->tags_rel, ch - x->cplh_rel);
	if (rc)
		return rc;
	e->truth.reads += tg - x->tags_rel;
	e->truth.tag_hold_sum_ns +=
		(double)(tg - x->tags_rel) * (double)(tnow - x->t_take) * e->host.ns_per_cycle;
	x->tags_rel = tg;
	x->cplh_rel = ch;
	return 0;
}

/* Tags and header credits of a group come back with its completions. */
static inline int rc_release(struct ep *e, struct ent *x, const struct cpl_run *cr, int64_t tnow)
{
	uint32_t tg = x->tags, ch = x->cplh; /* all with the group's last completion */
	if (cr->count || x->cur + 1 != x->nrun) {
		tg = (uint32_t)((uint64_t)x->tags * x->frames_done / x->frames);
		ch = x->cplh ? (uint32_t)((uint64_t)x->cplh * x->frames_done / x->frames) : 0;
	}
	if (tg > x->tags_rel || ch > x->cplh_rel)
		return rc_give_back(e, x, tg, ch, tnow);
	return 0;
}

/* k completions of the current run of group x onto RC and into the
 * storage FIFO. */
static int rc_frames(struct ep *e, struct ent *x, struct cpl_run *cr, uint64_t k,
		     const struct cpl_size *z, uint64_t trc, uint64_t S)
{
	struct ptc *p = &e->ptc;
	uint32_t bytes = cr->bytes;
	int rc = pte_push_progress(e, trc);
	if (rc)
		return rc;
	pte_wt_frames(&e->rc, z->items, k);
	uint64_t words = k * z->rcw;
	p->stored += words;
	p->reserved -= words;
	pte_lvl_set(&e->stl, trc < S ? trc : S, pte_st_free(e));
	if (!p->st.n && !e->push.held) {
		rc = pte_push_in(e, x->port, bytes, k, pte_wt_used(&e->rc));
	} else {
		rc = pte_fq_push(&p->st, x->port, bytes, k);
		if (!rc)
			rc = pte_push_progress(e, pte_wt_used(&e->rc));
	}
	if (rc)
		return rc;
	e->truth.pcie[PTE_RC].bytes += k * (bytes + e->info.rc_header_bytes);
	e->truth.read_bytes += k * bytes;
	cr->count -= (uint32_t)k;
	x->frames_done += (uint32_t)k;
	return 0;
}

/* A completion size into its entry: RC items and words, link time,
 * storage FIFO words, DOWN words and regions. */
const struct cpl_size *pte_cpl_size_fill(struct ep *e, uint32_t bytes)
{
	struct cpl_size *z = &e->host.size[pte_cpl_slot(bytes)];
	const struct ep_geom *g = &e->geo;

	z->bytes = bytes;
	z->items = pte_items(e, bytes + e->info.rc_header_bytes);
	z->fw = (z->items + (uint64_t)g->R_rc * g->N_rc - 1) / ((uint64_t)g->R_rc * g->N_rc);
	z->L = (double)(bytes + e->info.rc_header_bytes + e->info.tlp_framing_bytes) / e->link.dn_Bpc;
	z->rcw = pte_cdiv32(bytes, g->rc_word);
	z->dn_w = pte_cdiv32(bytes, g->dn_word);
	z->dn_items = pte_items(e, bytes);
	z->dn_reg = pte_ucdiv(z->dn_items, g->N_dn);
	return z;
}

/* Completions that went through the storage FIFO at once (see
 * rc_apart): the storage FIFO level pulses, lo while each arrives. */
struct pulses {
	uint64_t t0, n, gaps;
	uint32_t lo, hi;
};

static void pulses_flush(struct ep *e, struct pulses *q, uint64_t fw)
{
	if (q->n)
		pte_lvl_pulses(&e->stl, q->t0, q->lo, q->hi, q->n, fw, q->gaps);
	q->n = 0;
}

/* One completion arriving at slice cycle rel: into the storage FIFO and
 * on towards its port.  Straight through while the storage FIFO holds
 * nothing else and the push takes it (only the level pulses), else as
 * rc_frames does it. */
static int rc_one(struct ep *e, struct ent *x, const struct cpl_size *z, uint64_t rel,
		  struct pulses *q)
{
	struct ptc *p = &e->ptc;
	uint64_t fw = z->fw, cap = e->info.stfifo_words;
	uint32_t hi = pte_st_free(e);
	uint32_t lo = cap > p->stored + z->rcw ? (uint32_t)(cap - p->stored - z->rcw) : 0;

	if (q->n && (hi != q->hi || lo != q->lo))
		pulses_flush(e, q, fw);
	if (!p->st.n && e->stl.since <= rel && pte_push_through(e, x->port, z->bytes, rel + fw)) {
		p->reserved -= z->rcw;
		if (q->n)
			q->gaps += rel - (q->t0 + q->n * fw + q->gaps);
		else
			*q = (struct pulses){ rel, 0, 0, lo, hi };
		q->n++;
		return 0;
	}
	pulses_flush(e, q, fw);
	int rc = pte_push_progress(e, rel);
	p->stored += z->rcw;
	p->reserved -= z->rcw;
	pte_lvl_set(&e->stl, rel, pte_st_free(e));
	if (!rc)
		rc = pte_fq_push(&p->st, x->port, z->bytes, 1);
	return rc ? rc : pte_push_progress(e, rel + fw);
}

/* The next frames_done at which group x gives back a tag or a header
 * credit (rc_release), before the end of its last run. */
static uint32_t next_release(const struct ent *x)
{
	uint64_t f = UINT64_MAX;
	if (x->tags_rel < x->tags)
		f = ((uint64_t)(x->tags_rel + 1) * x->frames + x->tags - 1) / x->tags;
	if (x->cplh_rel < x->cplh) {
		uint64_t g = ((uint64_t)(x->cplh_rel + 1) * x->frames + x->cplh - 1) / x->cplh;
		if (g < f)
			f = g;
	}
	return f > UINT32_MAX ? UINT32_MAX : (uint32_t)f;
}

/* Completions of a link-limited run that go straight through the storage
 * FIFO (pte_push_through_room said m of them may), from the one at rel on,
 * while they start by `until` and end in the slice: as rc_one and
 * rc_release would do them one by one, the FIFOs' and the level's part in
 * bulk.  *t and *lt follow; returns how many, *rel the next one's start. */
static uint64_t rc_through(struct ep *e, struct ent *x, struct cpl_run *cr,
			   const struct cpl_size *z, int64_t T0, uint64_t S, uint64_t until,
			   uint64_t m, uint64_t *rel, uint64_t *t, double *lt, uint64_t *idle,
			   int *err)
{
	struct ptc *p = &e->ptc;
	const uint64_t fw = z->fw, cap = e->info.stfifo_words, t0 = *rel;
	const uint32_t hi = pte_st_free(e);
	const uint32_t lo = cap > p->stored + z->rcw ? (uint32_t)(cap - p->stored - z->rcw) : 0;
	const double L = z->L;
	uint32_t nr = next_release(x);
	/* While x gives back no header credits, its tags come back one at
	 * each threshold nr = ceil(j F / G) of its F >= G completions (there
	 * floor(G nr / F) is j): the thresholds stepped without dividing, F =
	 * q G + qr, rem = nr G - j F. */
	const uint32_t F = x->frames, G = x->tags;
	const int steps = !x->cplh && F >= G && x->tags_rel < G;
	const uint32_t q = steps ? F / G : 0, qr = steps ? F % G : 0;
	uint64_t rem = steps ? (uint64_t)nr * G - (uint64_t)(x->tags_rel + 1) * F : 0;
	/* in registers, into x and cr for rc_release and at the end */
	uint32_t left = cr->count, fd = x->frames_done;
	uint64_t k = 0, r = *rel, tt = *t, idl = 0;
	const uint64_t gap0 = r - tt; /* before the first: not between two */
	double l = *lt;

	for (;;) {
		left--;
		fd++;
		l += L;
		idl += r - tt;
		tt = r + fw;
		k++;
		if (fd >= nr || left == 0) {
			cr->count = left;
			x->frames_done = fd;
			int rc;
			if (steps && fd == nr && (left || x->cur + 1 != x->nrun)) {
				rc = rc_give_back(e, x, x->tags_rel + 1, 0, T0 + (int64_t)tt);
				nr = x->tags_rel < G ? nr + q + (rem < qr) : UINT32_MAX;
				rem = rem >= qr ? rem - qr : rem + G - qr;
			} else {
				rc = rc_release(e, x, cr, T0 + (int64_t)tt);
				nr = next_release(x);
				if (steps && x->tags_rel < G)
					rem = (uint64_t)nr * G - (uint64_t)(x->tags_rel + 1) * F;
			}
			if (rc) {
				*err = rc;
				break;
			}
		}
		if (k == m || !left)
			break;
		r = (uint64_t)(pte_ceil(l + L) - (int64_t)fw - T0);
		if (r <= tt || r > until || r + fw > S)
			break;
	}
	cr->count = left;
	x->frames_done = fd;
	*lt = l;
	*t = tt;
	*idle += idl;
	const uint64_t gaps = idl - gap0;
	e->link.dn_t = *lt;
	p->reserved -= k * z->rcw;
	pte_lvl_pulses(&e->stl, t0, lo, hi, k, fw, gaps);
	int rc = pte_push_through_bulk(e, x->port, z->bytes, k);
	if (rc && !*err)
		*err = rc;
	*rel = r;
	return k;
}

/*
 * While the link, not the bus, is the limit (a completion takes L >= fw + 1
 * cycles of link time), each completion of a run starts a new word after
 * a gap: flush, idle, frame.  The completions RC would place one step at a
 * time before the RQ's next step (those that start by `until`, and whose
 * words end in the slice) go in one: the same bookkeeping per completion
 * (in bulk while they go straight through the storage FIFO), their words
 * through one call of the word builder.  Returns how many.
 */
static uint64_t rc_apart(struct ep *e, struct ent *x, struct cpl_run *cr,
			 const struct cpl_size *z, int64_t T0, uint64_t S, uint64_t until,
			 double lt, int *err)
{
	uint64_t t = pte_wt_used(&e->rc), idle = 0, n = 0, fw = z->fw;
	double L = z->L;
	struct pulses q = { 0 };

	while (cr->count && !*err) {
		uint64_t rel = (uint64_t)(pte_ceil(lt + L) - (int64_t)fw - T0);
		if (rel <= t || rel > until || rel + fw > S)
			break;
		/* at most the completions that can start by until and the end
		 * of the slice, one every L cycles */
		uint64_t lim = (until < S - fw ? until : S - fw) - rel;
		uint64_t most = (uint64_t)((double)lim / L) + 1;
		if (most > cr->count)
			most = cr->count;
		uint64_t m = e->stl.since <= rel && pte_push_through_ok(e, rel + fw)
				     ? pte_push_through_room(e, x->port, z->bytes, most)
				     : 0;
		if (m) {
			pulses_flush(e, &q, fw);
			n += rc_through(e, x, cr, z, T0, S, until, m, &rel, &t, &lt, &idle, err);
			continue;
		}
		int rc = rc_one(e, x, z, rel, &q);
		cr->count--;
		x->frames_done++;
		lt += L;
		e->link.dn_t = lt;
		if (!rc)
			rc = rc_release(e, x, cr, T0 + (int64_t)(rel + fw));
		idle += rel - t;
		t = rel + fw;
		n++;
		if (rc)
			*err = rc;
	}
	pulses_flush(e, &q, fw);
	if (n) {
		pte_wt_frames_apart(&e->rc, z->items, n, idle);
		e->truth.pcie[PTE_RC].bytes += n * (cr->bytes + e->info.rc_header_bytes);
		e->truth.read_bytes += n * cr->bytes;
	}
	return n;
}

/* After completions of the current run: the next run, or the group is
 * done. */
static int rc_run_done(struct ep *e, struct ent *x, const struct cpl_run *cr)
{
	struct ptc *p = &e->ptc;

	if (cr->count || ++x->cur < x->nrun)
		return 0;
	pte_ents_put(&p->ents, (unsigned)p->rc_cur);
	p->rc_cur = -1;
	return 0;
}

int pte_rc_step(struct ep *e, int64_t T0, uint64_t S, int rq_active)
{
	struct ptc *p = &e->ptc;
	uint64_t trc = pte_wt_used(&e->rc);
	int64_t now = T0 + (int64_t)trc;

	if (p->rc_cur < 0) {
		const struct ent *first = pte_ents_first(&p->ents);
		if (!first || first->t_arr > now) {
			rc_wait(e, T0, S, rq_active, now);
			return 0;
		}
		p->rc_cur = (int)pte_ents_pop(&p->ents);
	}
	struct ent *x = &p->ents.pool[p->rc_cur];
	struct cpl_run *cr = &x->run[x->cur];
	/* a copy: the push below looks up other sizes, which may take this
	 * one's entry (pte_cpl_size) */
	const struct cpl_size zc = *pte_cpl_size(e, cr->bytes), *z = &zc;
	uint64_t fw = z->fw;
	double L = z->L;
	double lt0 = e->link.dn_t > (double)x->t_arr ? e->link.dn_t : (double)x->t_arr;
	int64_t start = pte_ceil(lt0 + L) - (int64_t)fw;
	if (start > now) {
		int rc = 0;
		if (L >= (double)fw + 1.0 &&
		    rc_apart(e, x, cr, z, T0, S, rq_active ? pte_wt_used(&e->rq) : S, lt0, &rc))
			return rc ? rc : rc_run_done(e, x, cr);
		rc_idle(e, S, (uint64_t)(start - now));
		return 0;
	}
	/* back to back while the bus, not the link, is the limit */
	uint64_t k = 1;
	if (L <= (double)fw && cr->count > 1) {
		uint64_t left = trc < S ? S - trc : 0;
		k = pte_udiv(left, fw ? fw : 1) + 1;
		if (k > cr->count)
			k = cr->count;
	}
	int rc = rc_frames(e, x, cr, k, z, trc, S);
	if (rc)
		return rc;
	e->link.dn_t = lt0 + L * (double)k;
	/* A tag comes back with the last completion of its read: release
	 * them in proportion to the completions received. */
	rc = rc_release(e, x, cr, T0 + (int64_t)pte_wt_used(&e->rc));
	return rc ? rc : rc_run_done(e, x, cr);
}
