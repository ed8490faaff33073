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

int64_t pte_host_latency(struct ep *e)
{
	const struct host *h = &e->host;
	double l;
	switch (e->cfg->lat_kind) {
	case PTE_LAT_FIXED:
		l = h->lat_mean;
		break;
	case PTE_LAT_UNIFORM:
		l = h->lat_mean - h->lat_jit + 2.0 * h->lat_jit * pte_rng_unit(&e->host.rng);
		break;
	default: {
		double u = pte_rng_unit(&e->host.rng);
		l = h->lat_mean - h->lat_jit - h->lat_jit * log(1.0 - u);
		break;
	}
	}
	int64_t c = (int64_t)llround(l);
	return c < 1 ? 1 : c;
}

unsigned pte_cpl_split(const struct ep *e, uint64_t a, uint32_t len, struct cpl_run *out)
{
	unsigned n = 0;
	uint32_t C = e->host.cpl_bytes;
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

/* RC idles n cycles (at most to the end of the slice). */
static void rc_idle(struct ep *e, uint64_t S, uint64_t n)
{
	pte_mfb_flush(&e->rc);
	uint64_t trc = pte_mfb_used(&e->rc);
	if (trc < S)
		pte_mfb_idle(&e->rc, n < S - trc ? n : S - trc);
}

/* Nothing has arrived: RC idles until the first group does, or until a
 * read the RQ may still send could have come back. */
static void rc_wait(struct ep *e, int64_t T0, uint64_t S, int rq_active, int64_t now)
{
	const struct ent *first = pte_ents_first(&e->ptc.ents);
	int64_t next = first ? first->t_arr : T0 + (int64_t)S;
	if (rq_active) {
		int64_t b = T0 + (int64_t)pte_mfb_used(&e->rq) + e->host.lat_min;
		if (b < next)
			next = b;
	}
	rc_idle(e, S, next > now ? (uint64_t)(next - now) : 1);
}

/* Tags and header credits of a group come back with its completions. */
static int rc_release(struct ep *e, struct ent *x, const struct cpl_run *cr, int64_t tnow)
{
	uint32_t tg = (uint32_t)((uint64_t)x->tags * x->frames_done / x->frames);
	uint32_t ch = (uint32_t)((uint64_t)x->cplh * x->frames_done / x->frames);
	if (cr->count == 0 && x->cur + 1 == x->nrun) {
		tg = x->tags;
		ch = x->cplh;
	}
	if (tg > x->tags_rel || ch > x->cplh_rel) {
		int rc = pte_evq_push(&e->ptc.rel, tnow, tg - x->tags_rel, ch - x->cplh_rel);
		if (rc)
			return rc;
		e->truth.reads += tg - x->tags_rel;
		e->truth.tag_hold_sum_ns +=
			(double)(tg - x->tags_rel) * (double)(tnow - x->t_take) * e->host.ns_per_cycle;
		x->tags_rel = tg;
		x->cplh_rel = ch;
	}
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
	pte_mfb_frames(&e->rc, z->items, k);
	uint64_t words = k * z->rcw;
	p->stored += words;
	p->reserved -= words;
	pte_lvl_set(&e->stl, trc < S ? trc : S, pte_st_free(e));
	rc = pte_fq_push(&p->st, x->port, bytes, k);
	if (!rc)
		rc = pte_push_progress(e, pte_mfb_used(&e->rc));
	if (rc)
		return rc;
	e->truth.pcie[PTE_RC].bytes += k * (bytes + e->info.rc_header_bytes);
	e->truth.read_bytes += k * bytes;
	cr->count -= (uint32_t)k;
	x->frames_done += (uint32_t)k;
	return 0;
}

/* What a completion of that many bytes takes: RC items and words, link
 * time, storage FIFO words (sizes repeat: remembered by size). */
static const struct cpl_size *cpl_size(struct ep *e, uint32_t bytes)
{
	struct cpl_size *z = &e->host.size[(bytes / 4) % CPL_SIZES];

	if (z->bytes != bytes) {
		const struct ep_geom *g = &e->geo;
		z->bytes = bytes;
		z->items = pte_items(e, bytes + e->info.rc_header_bytes);
		z->fw = (z->items + (uint64_t)g->R_rc * g->N_rc - 1) / ((uint64_t)g->R_rc * g->N_rc);
		z->L = (double)(bytes + e->info.rc_header_bytes + e->info.tlp_framing_bytes) /
		       e->link.dn_Bpc;
		z->rcw = pte_cdiv32(bytes, g->rc_word);
	}
	return z;
}

int pte_rc_step(struct ep *e, int64_t T0, uint64_t S, int rq_active)
{
	struct ptc *p = &e->ptc;
	uint64_t trc = pte_mfb_used(&e->rc);
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
	const struct cpl_size *z = cpl_size(e, cr->bytes);
	uint64_t fw = z->fw;
	double L = z->L;
	double lt0 = e->link.dn_t > (double)x->t_arr ? e->link.dn_t : (double)x->t_arr;
	int64_t start = (int64_t)ceil(lt0 + L) - (int64_t)fw;
	if (start > now) {
		rc_idle(e, S, (uint64_t)(start - now));
		return 0;
	}
	/* back to back while the bus, not the link, is the limit */
	uint64_t k = 1;
	if (L <= (double)fw && cr->count > 1) {
		uint64_t left = trc < S ? S - trc : 0;
		k = left / (fw ? fw : 1) + 1;
		if (k > cr->count)
			k = cr->count;
	}
	int rc = rc_frames(e, x, cr, k, z, trc, S);
	if (rc)
		return rc;
	e->link.dn_t = lt0 + L * (double)k;
	/* A tag comes back with the last completion of its read: release
	 * them in proportion to the completions received. */
	rc = rc_release(e, x, cr, T0 + (int64_t)pte_mfb_used(&e->rc));
	if (rc || cr->count || ++x->cur < x->nrun)
		return rc;
	pte_ents_put(&p->ents, (unsigned)p->rc_cur);
	p->rc_cur = -1;
	return 0;
}
