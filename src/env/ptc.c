/*
 * pcie-telemetry: the PTC's resources in the simulated card.
 *
 * Tags (a pool, released as their reads complete, usable at the tag FIFO's
 * read port tag_ready_delay cycles later), the storage FIFO (words reserved
 * for the completions of reads in flight, then stored), completion header
 * credits, and the DOWN push: stored completions leave towards the
 * asynchronous FIFOs of their DMA ports.  Also the level inputs of the
 * PCIe probe (PCIE_TAG_FREE, PCIE_STFIFO_FREE) and the BRAKE runs of a
 * slice.
 */
#include <string.h>

#include "env/card_priv.h"

/* ---- levels (tags, storage FIFO) ------------------------------------------ */

static inline unsigned band(const struct lvl *l, uint32_t v)
{
	return pte_lvl_band(l, v);
}

void pte_lvl_begin(struct lvl *l)
{
	memset(l->band, 0, sizeof(l->band));
	l->used_area = 0;
	l->since = 0;
	l->min = l->cur;
	l->cb = (uint8_t)band(l, l->cur);
	l->bval[l->cb] = l->cur;
}

void pte_lvl_pulses(struct lvl *l, uint64_t t, uint32_t lo, uint32_t hi, uint64_t n,
		    uint64_t len, uint64_t gaps)
{
	pte_lvl_set(l, t, lo);
	if (t < l->since)
		return; /* cannot happen: the caller starts at or after it */
	uint64_t tl = n * len, th = gaps;
	/* n pulses at lo of len cycles each; between them (n - 1 gaps, gaps
	 * cycles in all) and after the last, hi */
	unsigned bl = band(l, lo), bh = band(l, hi);
	l->band[bl] += tl;
	l->band[bh] += th;
	if (l->full > lo)
		l->used_area += (uint64_t)(l->full - lo) * tl;
	if (l->full > hi)
		l->used_area += (uint64_t)(l->full - hi) * th;
	l->since = t + tl + th;
	l->bval[bl] = lo;
	l->bval[bh] = hi;
	l->cur = hi;
	l->cb = (uint8_t)bh;
}

void pte_lvl_close(struct lvl *l, uint64_t S, uint64_t *truth_band)
{
	pte_lvl_set(l, S, l->cur);
	for (unsigned b = 0; b < 4; b++) {
		truth_band[b] += l->band[b];
		l->e_band[b] += l->band[b];
	}
	if (l->min < l->e_min)
		l->e_min = l->min;
}

/* Runs with exactly the band times, one per band: the band of the lowest
 * value of the emission first and at that value (the firmware keeps the
 * window minimum), the band of the current value last and at that value. */
void pte_lvl_runs(struct lvl *l)
{
	unsigned bmin = band(l, l->e_min), bcur = band(l, l->cur);
	l->nrun = 0;
	l->bval[bmin] = l->e_min;
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
		if (l->e_band[order[i]])
			l->run[l->nrun++] = (struct pte_vrun){ (uint32_t)l->e_band[order[i]],
							       l->bval[order[i]] };
	memset(l->e_band, 0, sizeof(l->e_band));
	l->e_min = l->cur;
}

/* ---- tags and credits coming back ----------------------------------------- */

/* ---- the DOWN push ----------------------------------------------------------- */

void pte_push_begin(struct ep *e, uint64_t S, uint64_t d_next)
{
	struct push *u = &e->push;

	memset(e->brk.cyc, 0, sizeof(e->brk.cyc));
	u->both = 0;
	u->budget = S * e->geo.rc_word;
	u->done = 0;
	u->d_next = d_next;
	u->held = 0;
	u->slice_len = S;
	u->slice_no++;
}

/* A hold lasts from when it began to the end of the slice. */
void pte_push_end(struct ep *e, uint64_t S)
{
	struct push *u = &e->push;

	if (!u->held || u->held_from >= S)
		return;
	for (unsigned b = 4; b < 6; b++)
		if (u->held & (1 << b))
			e->brk.cyc[b] += S - u->held_from;
	if (u->held == (1 << 4 | 1 << 5))
		u->both = S - u->held_from;
}

/* What the DMA side of a port takes in the next slice, computed once per
 * slice: data regions, headers, data words. */
static void port_capacity(struct ep *e, struct port *pt, unsigned port)
{
	if (pt->cap_slice == e->push.slice_no)
		return;
	double dn = (double)e->push.d_next;
	pt->cap_reg = (uint64_t)(dn * e->cfg->port[port].down_ready * e->geo.R_dn);
	pt->cap_hdr = (uint64_t)(dn * e->cfg->port[port].down_hdr_ready * e->geo.R_dn);
	pt->cap_words = (uint64_t)(dn * e->cfg->port[port].down_ready);
	pt->cap_slice = e->push.slice_no;
}

/* What the FIFOs of a port hold: words, regions, headers; what they may
 * hold: words, headers. */
struct fifo_fill {
	uint64_t w, r, h;
};
struct fifo_cap {
	uint64_t w, h;
};

/* The capacities of the port's FIFOs holding *f for completions of w words
 * and reg regions: their own sizes and what the DMA side takes in the next
 * slice, in frames by data (at the mean regions per frame of what they
 * hold) and by headers. */
/* The frames the DMA side of the port takes in the next slice from FIFOs
 * holding *f (at the mean regions per frame they hold; reg regions a frame
 * when they hold none): min(cap_hdr, floor(cap_reg * h / r)).
 * port_capacity() done. */
static inline uint64_t caps_frames(const struct port *pt, uint64_t reg, const struct fifo_fill *f)
{
	/* min(cap_hdr, floor(x / y)) is cap_hdr when x >= cap_hdr * y: no
	 * division then (nor for the drain against cap_words) */
	if (f->h && f->r)
		return pt->cap_reg * f->h >= pt->cap_hdr * f->r ? pt->cap_hdr
								 : pt->cap_reg * f->h / f->r;
	return pte_min64(pt->cap_hdr, pt->cap_reg / (reg ? reg : 1));
}

/* The data words that many frames drain from FIFOs holding *f, f->h > 0
 * (at the mean words per header they hold): min(cap_words, floor(frames
 * * w / h)).  port_capacity() done. */
static inline uint64_t caps_drain(const struct port *pt, uint64_t frames, const struct fifo_fill *f)
{
	return frames * f->w >= pt->cap_words * f->h ? pt->cap_words : frames * f->w / f->h;
}

static inline struct fifo_cap fifo_caps(struct ep *e, struct port *pt, unsigned port, uint64_t w,
				 uint64_t reg, const struct fifo_fill *f)
{
	port_capacity(e, pt, port);
	uint64_t frames = caps_frames(pt, reg, f);
	uint64_t drain = f->h ? caps_drain(pt, frames, f) : pte_min64(pt->cap_words, frames * w);
	return (struct fifo_cap){ e->cfg->down_fifo_words + drain,
				  e->cfg->down_fifo_headers + frames };
}

/*
 * fifo_caps() for completions of w words and reg regions while the port's
 * FIFOs hold only such completions, or nothing (1, capacities in *c), else
 * 0.  Then their mean regions per frame and words per header are reg and
 * w whatever their number h: min(cap_hdr, floor(cap_reg * h / (h * reg)))
 * is min(cap_hdr, floor(cap_reg / reg)), as fifo_caps finds them empty,
 * and the drain likewise; so the same for the whole slice, remembered.
 */
static inline int fifo_caps_one(struct ep *e, struct port *pt, unsigned port, uint64_t w,
				uint64_t reg, struct fifo_cap *c)
{
	if (pt->af_words != pt->af_hdrs * w || pt->af_regions != pt->af_hdrs * reg)
		return 0;
	if (pt->one_slice != e->push.slice_no || pt->one_w != w || pt->one_reg != reg) {
		const struct fifo_fill none = { 0, 0, 0 };
		const struct fifo_cap n = fifo_caps(e, pt, port, w, reg, &none);
		pt->one_cw = n.w;
		pt->one_ch = n.h;
		pt->one_w = w;
		pt->one_reg = reg;
		pt->one_slice = e->push.slice_no;
	}
	*c = (struct fifo_cap){ pt->one_cw, pt->one_ch };
	return 1;
}

/*
 * Whether the FIFOs of the port holding *f take n > 0 more completions (w
 * words, reg regions each) one after the other, as fifo_caps() says before
 * each, for sure; 0 when not known (the caller counts them one by one).
 * With f->h, f->r > 0, the fill before the j-th (j < n) is f + j * (w,
 * reg, 1): frames(j) = min(cap_hdr, floor(cap_reg * (h + j) / (r + j *
 * reg))) is monotone in j (a ratio of two affine terms with a positive
 * denominator, under a floor and a min), so at least fmin, the smaller of
 * frames(0) and frames(n - 1); the words per header (w0 + j * w) / (h + j)
 * are monotone likewise, so the drain is at least min(cap_words, floor(fmin
 * * those words per header)) at either end.  Each completion fits when the
 * last does with these least capacities.
 */
static int room_surely(struct ep *e, struct port *pt, unsigned port, uint64_t w, uint64_t reg,
		       const struct fifo_fill *f, uint64_t n)
{
	if (!f->h || !f->r)
		return 0;
	port_capacity(e, pt, port);
	const uint64_t m = n - 1;
	const struct fifo_fill l = { f->w + m * w, f->r + m * reg, f->h + m };
	const uint64_t fmin = pte_min64(caps_frames(pt, reg, f), caps_frames(pt, reg, &l));
	const uint64_t dmin = pte_min64(caps_drain(pt, fmin, f), caps_drain(pt, fmin, &l));
	return l.h + 1 <= e->cfg->down_fifo_headers + fmin &&
	       l.w + w <= e->cfg->down_fifo_words + dmin;
}

static inline struct fifo_fill fifo_now(const struct port *pt)
{
	return (struct fifo_fill){ pt->af_words, pt->af_regions, pt->af_hdrs };
}

/*
 * How many of k completions (w words, reg regions each) the FIFOs of the
 * port take when they are near full: what the DMA side takes in the next
 * slice decides (below the FIFO sizes it never does).  0 sets the hold.
 * Out of line: the push's loop keeps its registers.
 */
static __attribute__((noinline)) uint64_t fifo_room(struct ep *e, struct port *pt, unsigned port,
						    uint64_t k, uint64_t w, uint64_t reg, uint64_t t)
{
	const struct fifo_fill f = fifo_now(pt);
	struct fifo_cap c;
	if (!fifo_caps_one(e, pt, port, w, reg, &c))
		c = fifo_caps(e, pt, port, w, reg, &f);
	uint64_t roomw = c.w > f.w ? c.w - f.w : 0;
	uint64_t roomh = c.h > f.h ? c.h - f.h : 0;
	if (k * w > roomw) /* k > roomw / w, without dividing while it is not */
		k = roomw / w;
	if (k > roomh)
		k = roomh;
	if (k == 0) {
		e->push.held = (roomw < w ? 1 << 4 : 0) | (roomh == 0 ? 1 << 5 : 0);
		e->push.held_from = t;
	}
	return k;
}

/* Whether the FIFOs of the port take one more completion (w words, reg
 * regions) now, as fifo_room would say, without holding. */
static int fifo_takes_one(struct ep *e, struct port *pt, unsigned port, uint64_t w, uint64_t reg)
{
	if (pt->af_words + w <= e->cfg->down_fifo_words &&
	    pt->af_hdrs + 1 <= e->cfg->down_fifo_headers)
		return 1;
	const struct fifo_fill f = fifo_now(pt);
	const struct fifo_cap c = fifo_caps(e, pt, port, w, reg, &f);
	return f.w + w <= c.w && f.h + 1 <= c.h;
}

/* Completions of run f (the storage FIFO's head, or one on its way into
 * it) go on towards their port, as many as the budget (`allowed` bytes)
 * and the port's FIFOs take at slice cycle t <= the slice's length (one
 * past the budget: a completion starts within it); how many, 0 when the
 * FIFOs are full (the push is held), or -ENOMEM. */
static inline int64_t push_step(struct ep *e, const struct frun *f, uint64_t t, uint64_t allowed)
{
	struct push *u = &e->push;
	struct ptc *p = &e->ptc;
	struct port *pt = &e->port[f->port];
	const struct cpl_size *z = pte_cpl_size(e, f->bytes);
	const uint64_t w = z->dn_w, reg = z->dn_reg;
	uint64_t k = f->count;

	if (k > 1 && k * f->bytes > allowed - u->done) {
		uint64_t kb = pte_udiv(allowed - u->done, f->bytes) + 1;
		if (k > kb)
			k = kb;
	}
	if (pt->af_words + k * w > e->cfg->down_fifo_words ||
	    pt->af_hdrs + k > e->cfg->down_fifo_headers) {
		k = fifo_room(e, pt, f->port, k, w, reg, t);
		if (k == 0)
			return 0;
	}
	int rc = pte_fq_push(&pt->afifo, f->port, f->bytes, k);
	if (rc)
		return rc;
	pt->af_words += k * w;
	pt->af_regions += k * reg;
	pt->af_hdrs += k;
	uint64_t sw = k * z->rcw;
	p->stored -= sw < p->stored ? sw : p->stored;
	u->done += k * f->bytes;
	return (int64_t)k;
}

/*
 * Stored completions go to the asynchronous FIFOs of their ports, at most
 * one RC-wide word per PCIe cycle.
 * The FIFOs hold down_fifo_words/headers plus what the DMA side takes in
 * the next slice.  The DMA takes a completion's header with its data (see
 * pte_dma_down_slice), so what leaves either FIFO is bounded by both
 * readiness shares: the frames the data side lets through (at the mean
 * regions per frame of what the FIFO holds) and the headers the header
 * side takes.  A slow data side thus fills the header FIFO as well, a slow
 * header side the data FIFO only when its frames are long enough.
 * When the FIFO of the port of the next completion has no room, the PTC
 * holds the stream from then to the end of the slice: BRAKE 4 when the
 * data FIFO is full (the MFB before the split is held), BRAKE 5 when the
 * header FIFO is (the MVB), both when both are.
 */
int pte_push_moves(struct ep *e, uint64_t t)
{
	struct push *u = &e->push;
	struct ptc *p = &e->ptc;

	if (t > u->slice_len)
		t = u->slice_len;
	uint64_t allowed = t * e->geo.rc_word; /* budget * t / slice_len: an RC word a cycle */
	int moved = 0;
	while (p->st.n && u->done < allowed) {
		struct frun *f = pte_fq_head(&p->st);
		int64_t k = push_step(e, f, t, allowed);
		if (k <= 0) {
			if (k < 0)
				return (int)k;
			break;
		}
		moved = 1;
		f->count -= (uint64_t)k;
		if (f->count == 0)
			pte_fq_pop(&p->st);
	}
	if (moved)
		pte_lvl_set(&e->stl, t, pte_st_free(e));
	return 0;
}

int pte_push_in(struct ep *e, unsigned port, uint32_t bytes, uint64_t k, uint64_t t)
{
	struct push *u = &e->push;

	if (t > u->slice_len)
		t = u->slice_len;
	const uint64_t allowed = t * e->geo.rc_word;
	struct frun f = { (uint8_t)port, bytes, k };
	int moved = 0;
	while (f.count && u->done < allowed) {
		int64_t m = push_step(e, &f, t, allowed);
		if (m <= 0) {
			if (m < 0)
				return (int)m;
			break;
		}
		moved = 1;
		f.count -= (uint64_t)m;
	}
	if (moved)
		pte_lvl_set(&e->stl, t, pte_st_free(e));
	return f.count ? pte_fq_push(&e->ptc.st, port, bytes, f.count) : 0;
}

int pte_push_through(struct ep *e, unsigned port, uint32_t bytes, uint64_t t)
{
	struct push *u = &e->push;
	struct port *pt = &e->port[port];

	if (u->held || e->ptc.st.n || t > u->slice_len || u->done >= t * e->geo.rc_word)
		return 0;
	const struct cpl_size *z = pte_cpl_size(e, bytes);
	if (!fifo_takes_one(e, pt, port, z->dn_w, z->dn_reg) || pte_fq_push(&pt->afifo, port, bytes, 1))
		return 0;
	pt->af_words += z->dn_w;
	pt->af_regions += z->dn_reg;
	pt->af_hdrs++;
	u->done += bytes;
	return 1;
}

int pte_push_through_ok(struct ep *e, uint64_t t)
{
	struct push *u = &e->push;

	return !u->held && !e->ptc.st.n && t <= u->slice_len && u->done < t * e->geo.rc_word;
}

uint64_t pte_push_through_room(struct ep *e, unsigned port, uint32_t bytes, uint64_t max)
{
	struct port *pt = &e->port[port];
	const struct cpl_size *z = pte_cpl_size(e, bytes);
	const uint64_t w = z->dn_w, reg = z->dn_reg;
	const uint64_t dfw = e->cfg->down_fifo_words, dfh = e->cfg->down_fifo_headers;
	struct fifo_fill f = fifo_now(pt);
	uint64_t k = 0;

	/* below the FIFOs' own sizes at once; beyond them as fifo_room says,
	 * one completion after the other */
	if (f.w < dfw && f.h < dfh) {
		k = pte_udiv(dfw - f.w, w);
		if (k > dfh - f.h)
			k = dfh - f.h;
		if (k > max)
			k = max;
		f = (struct fifo_fill){ f.w + k * w, f.r + k * reg, f.h + k };
	}
	if (k < max && room_surely(e, pt, port, w, reg, &f, max - k))
		return max;
	for (; k < max; k++) {
		const struct fifo_cap c = fifo_caps(e, pt, port, w, reg, &f);
		if (f.w + w > c.w || f.h + 1 > c.h)
			break;
		f = (struct fifo_fill){ f.w + w, f.r + reg, f.h + 1 };
	}
	return k;
}

int pte_push_through_bulk(struct ep *e, unsigned port, uint32_t bytes, uint64_t k)
{
	struct port *pt = &e->port[port];
	const struct cpl_size *z = pte_cpl_size(e, bytes);
	int rc = pte_fq_push(&pt->afifo, port, bytes, k);

	if (rc)
		return rc;
	pt->af_words += k * z->dn_w;
	pt->af_regions += k * z->dn_reg;
	pt->af_hdrs += k;
	e->push.done += k * bytes;
	return 0;
}

/* ---- BRAKE runs ----------------------------------------------------------------- */

/* BRAKE bits 0-3 (UP stream, one at a time): at most the slice's cycles
 * in all. */
static void brake_up(struct ep *e, uint64_t S)
{
	struct brakes *k = &e->brk;
	uint64_t act = 0;
	for (unsigned b = 0; b < 4; b++)
		act += k->cyc[b];
	if (act > S)
		act = S;
	uint64_t used = 0;
	for (unsigned b = 0; b < 4; b++)
		if (k->cyc[b] && used < act) {
			uint64_t n = k->cyc[b] < act - used ? k->cyc[b] : act - used;
			used += n;
			k->e_up[b] += n;
			e->truth.brake[b] += n;
		}
}

/* BRAKE bits 4 and 5 are independent signals (the MFB and the MVB before
 * the split): cycles of neither, bit 4 alone, bit 5 alone and both. */
static void brake_down(struct ep *e, uint64_t S)
{
	struct brakes *k = &e->brk;
	uint64_t both = e->push.both, b4 = k->cyc[4], b5 = k->cyc[5];
	if (b4 > S)
		b4 = S;
	if (b5 > S)
		b5 = S;
	if (both > b4)
		both = b4;
	if (both > b5)
		both = b5;
	uint64_t only4 = b4 - both, only5 = b5 - both;
	k->e_down[0] += S - both - only4 - only5;
	k->e_down[1] += only4;
	k->e_down[2] += only5;
	k->e_down[3] += both;
	e->truth.brake[4] += b4;
	e->truth.brake[5] += b5;
}

void pte_brake_close(struct ep *e, uint64_t S)
{
	brake_up(e, S);
	brake_down(e, S);
}

void pte_brake_runs(struct ep *e, uint64_t E)
{
	struct brakes *k = &e->brk;
	static const uint32_t down_val[4] = { 0, 1u << 4, 1u << 5, 1u << 4 | 1u << 5 };
	uint64_t act = 0;

	for (unsigned b = 0; b < 4; b++)
		act += k->e_up[b];
	k->na = 0;
	if (act < E)
		k->a[k->na++] = (struct pte_vrun){ (uint32_t)(E - act), 0 };
	for (unsigned b = 0; b < 4; b++)
		if (k->e_up[b])
			k->a[k->na++] = (struct pte_vrun){ (uint32_t)k->e_up[b], 1u << b };
	k->nb = 0;
	for (unsigned i = 0; i < 4; i++)
		if (k->e_down[i])
			k->b[k->nb++] = (struct pte_vrun){ (uint32_t)k->e_down[i], down_val[i] };
	memset(k->e_up, 0, sizeof(k->e_up));
	memset(k->e_down, 0, sizeof(k->e_down));
}
