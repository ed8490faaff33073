/*
 * pcie-telemetry: feeding the firmware model.
 *
 * At the end of an emission the signals of an endpoint (the logs of its
 * MFB buses' time sides, the MVB, BRAKE and level value runs) are copied
 * into a snapshot, so that the endpoint can go on with the next emission
 * (on its own thread, see engine.c) while the model gets this one: on the
 * model's side the word builders take the logs and fold the words into
 * runs, and the model gets every signal of a clock domain as its own runs
 * (ptm_pcie_runs, ptm_dma_runs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "env/card_priv.h"

/* ---- snapshots ------------------------------------------------------------ */

/* Copy bytes into the arena; *off gets where.  0 or -ENOMEM. */
static int arena_put(struct pte_snap *s, const void *src, size_t bytes, size_t *off)
{
	size_t need = s->used + (bytes + 7) / 8 * 8;

	if (need > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		while (cap < need)
			cap *= 2;
		unsigned char *a = pte_realloc(s->arena, cap);
		if (!a)
			return -ENOMEM;
		s->arena = a;
		s->cap = cap;
	}
	*off = s->used;
	if (bytes)
		memcpy(s->arena + s->used, src, bytes);
	s->used = need;
	return 0;
}

static int snap_runs(struct pte_snap *s, enum pte_sig_kind kind, unsigned bus, unsigned R,
		     const void *run, size_t run_bytes, unsigned n, const struct pte_pat *pat,
		     unsigned npat)
{
	struct pte_snap_sig *g = &s->sig[s->nsig++];
	int rc = arena_put(s, run, run_bytes, &g->run);

	if (!rc)
		rc = arena_put(s, pat, npat * sizeof(*pat), &g->pat);
	g->kind = (uint8_t)kind;
	g->R = (uint8_t)R;
	g->bus = (uint16_t)bus;
	g->n = n;
	return rc;
}

/* An MFB bus: the log of its time side (its words are built from it on
 * the model's side, pte_snap_words), or with words, the runs its word
 * builder folds from the log here; the log starts over. */
static int snap_mfb(struct pte_snap *s, struct pte_wt *a, struct pte_mfb *b, unsigned bus,
		    int words)
{
	int rc;

	if (words) {
		rc = pte_mfb_replay(b, a->log, a->nlog);
		if (!rc) {
			pte_mfb_runs(b);
			rc = snap_runs(s, PTE_SIG_MFB_RUNS, bus, b->R, b->run, b->nrun * sizeof(*b->run),
				       b->nrun, b->pat, b->npat);
		}
	} else {
		rc = snap_runs(s, PTE_SIG_MFB, bus, a->R, a->log, a->nlog * sizeof(*a->log),
			       (unsigned)a->nlog, NULL, 0);
	}
	a->nlog = 0;
	return rc;
}

static int snap_mvb(struct pte_snap *s, const struct pte_mvb *v, unsigned bus)
{
	return snap_runs(s, PTE_SIG_MVB, bus, v->R, v->run, v->nrun * sizeof(*v->run), v->nrun,
			 NULL, 0);
}

static int snap_vals(struct pte_snap *s, enum pte_sig_kind kind, const struct pte_vrun *v,
		     unsigned n)
{
	return snap_runs(s, kind, 0, 0, v, n * sizeof(*v), n, NULL, 0);
}

int pte_snap_take(struct pte_snap *s, struct ep *e, unsigned nports, uint64_t S, uint64_t d,
		  int words)
{
	int rc;

	s->used = 0;
	s->nsig = 0;
	s->S = S;
	s->d = d;
	if ((rc = snap_mfb(s, &e->rq, &e->rqb, 0, words)) ||
	    (rc = snap_mfb(s, &e->rc, &e->rcb, 1, words)) ||
	    (rc = snap_vals(s, PTE_SIG_BRAKE_UP, e->brk.a, e->brk.na)) ||
	    (rc = snap_vals(s, PTE_SIG_BRAKE_DOWN, e->brk.b, e->brk.nb)) ||
	    (rc = snap_vals(s, PTE_SIG_TAGS, e->tagl.run, e->tagl.nrun)) ||
	    (rc = snap_vals(s, PTE_SIG_STFIFO, e->stl.run, e->stl.nrun)))
		return rc;
	for (unsigned p = 0; p < nports && d; p++) {
		struct port *pt = &e->port[p];
		if ((rc = snap_mfb(s, &pt->up, &pt->upb, 2 * p, words)) ||
		    (rc = snap_mvb(s, &pt->upv, 2 * p)) ||
		    (rc = snap_mfb(s, &pt->down, &pt->downb, 2 * p + 1, words)) ||
		    (rc = snap_mvb(s, &pt->downv, 2 * p + 1)))
			return rc;
	}
	return 0;
}

/* The word builder of a snapshot's MFB signal. */
static struct pte_mfb *sig_builder(struct ep *x, const struct pte_snap *s, unsigned i)
{
	const struct pte_snap_sig *g = &s->sig[i];
	if (i < 2)
		return i ? &x->rcb : &x->rqb;
	return g->bus & 1u ? &x->port[g->bus / 2].downb : &x->port[g->bus / 2].upb;
}

int pte_snap_words(struct ep *x, const struct pte_snap *s)
{
	for (unsigned i = 0; i < s->nsig; i++) {
		const struct pte_snap_sig *g = &s->sig[i];
		if (g->kind != PTE_SIG_MFB)
			continue;
		struct pte_mfb *b = sig_builder(x, s, i);
		int rc = pte_mfb_replay(b, (const struct pte_wop *)(const void *)(s->arena + g->run), g->n);
		if (rc)
			return rc;
		pte_mfb_runs(b);
	}
	return 0;
}

void pte_snap_free(struct pte_snap *s)
{
	free(s->arena);
	memset(s, 0, sizeof(*s));
}

/* ---- driving the model ----------------------------------------------------- */

/* Room for n more runs in the card's scratch list.  0 or -ENOMEM. */
static int runs_room(struct pte_card *c, size_t n)
{
	if (c->nruns + n <= c->runs_cap)
		return 0;
	size_t cap = c->runs_cap ? 2 * c->runs_cap : 256;
	while (cap < c->nruns + n)
		cap *= 2;
	struct ptm_bus_run *r = pte_realloc(c->runs, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	c->runs = r;
	c->runs_cap = cap;
	return 0;
}

/* Runs of a snapshot's signal and its patterns. */
static const struct pte_run *sig_runs(const struct pte_snap *s, const struct pte_snap_sig *g)
{
	return (const struct pte_run *)(const void *)(s->arena + g->run);
}

static const struct pte_vrun *sig_vruns(const struct pte_snap *s, const struct pte_snap_sig *g)
{
	return (const struct pte_vrun *)(const void *)(s->arena + g->run);
}

/* The MFB runs of a snapshot's signal: its word builder's (when the
 * snapshot holds the log), or the snapshot's own copy. */
struct mfb_src {
	unsigned R, n;
	const struct pte_run *run;
	const struct pte_pat *pat;
};

static struct mfb_src mfb_src(struct ep *x, const struct pte_snap *s, unsigned i)
{
	const struct pte_snap_sig *g = &s->sig[i];
	if (g->kind == PTE_SIG_MFB_RUNS)
		return (struct mfb_src){ g->R, g->n, sig_runs(s, g),
					 (const struct pte_pat *)(const void *)(s->arena + g->pat) };
	const struct pte_mfb *b = sig_builder(x, s, i);
	return (struct mfb_src){ b->R, b->nrun, b->run, b->pat };
}

/* A bus without MVB (PCIe): its MFB runs for the model, as bus_runs
 * gives them (the last one's inputs stay for the cycles the runs leave,
 * as a run of their own; runs past n cut), each built in place.  The
 * runs are appended to the scratch list, which has room for them. */
static unsigned bus_runs_mfb(struct pte_card *c, struct mfb_src f, uint64_t n)
{
	struct ptm_bus_run *out = c->runs + c->nruns;
	unsigned k = 0;
	uint64_t o = 0;

	for (unsigned i = 0; i < f.n && o < n; i++, k++) {
		uint64_t len = f.run[i].len < n - o ? f.run[i].len : n - o;
		out[k].len = len;
		out[k].in.mvb_vld = 0;
		out[k].in.mvb_src_rdy = out[k].in.mvb_dst_rdy = 0;
		pte_mfb_apply_pat(f.R, f.pat, &f.run[i], &out[k].in);
		o += len;
	}
	if (o < n) {
		if (k)
			out[k].in = out[k - 1].in;
		else
			memset(&out[k].in, 0, sizeof(out[k].in));
		out[k++].len = n - o;
	}
	c->nruns += k;
	return k;
}

/*
 * One bus's runs for the model: the MFB words and, on the DMA side, the
 * MVB signal's, merged where either changes (the two halves of the bus
 * are counted apart, their runs cut each other).  Appended to the scratch
 * list; their number.
 */
static unsigned bus_runs(struct pte_card *c, struct mfb_src f, const struct pte_snap *s,
			 const struct pte_snap_sig *mvb, uint64_t n, int *err)
{
	const struct pte_run *fr = f.run, *vr = mvb ? sig_runs(s, mvb) : NULL;
	unsigned fi = 0, vi = 0, k = 0, nf = f.n;
	uint64_t fl = nf ? fr[0].len : n, vl = mvb && mvb->n ? vr[0].len : n;
	struct ptm_bus_in in;

	if (runs_room(c, (size_t)nf + (mvb ? mvb->n : 0) + 1)) {
		*err = -ENOMEM;
		return 0;
	}
	if (!mvb)
		return bus_runs_mfb(c, f, n);
	memset(&in, 0, sizeof(in));
	if (nf)
		pte_mfb_apply_pat(f.R, f.pat, &fr[0], &in);
	if (mvb && mvb->n)
		pte_mvb_apply(NULL, &vr[0], &in);
	for (uint64_t o = 0; o < n;) {
		uint64_t len = fl < vl ? fl : vl;
		if (len > n - o)
			len = n - o;
		c->runs[c->nruns + k++] = (struct ptm_bus_run){ len, in };
		o += len;
		fl -= len;
		vl -= len;
		if (!fl && fi + 1 < nf) {
			fl = fr[++fi].len;
			pte_mfb_apply_pat(f.R, f.pat, &fr[fi], &in);
		}
		if (mvb && !vl && vi + 1 < mvb->n) {
			vl = vr[++vi].len;
			pte_mvb_apply(NULL, &vr[vi], &in);
		}
		if (!fl)
			fl = n;
		if (!vl)
			vl = n;
	}
	c->nruns += k;
	return k;
}

/* The BRAKE bits 0-3 and 4-5 (two signals) as one value signal. */
static unsigned brake_runs(const struct pte_snap *s, uint64_t n, struct ptm_val_run *out)
{
	const struct pte_vrun *a = sig_vruns(s, &s->sig[2]), *b = sig_vruns(s, &s->sig[3]);
	unsigned na = s->sig[2].n, nb = s->sig[3].n, ia = 0, ib = 0, k = 0;
	uint64_t la = na ? a[0].len : n, lb = nb ? b[0].len : n;

	for (uint64_t o = 0; o < n;) {
		uint64_t len = la < lb ? la : lb;
		uint32_t v = (na ? a[ia].val : 0) | (nb ? b[ib].val : 0);
		if (k && out[k - 1].val == v)
			out[k - 1].len += len;
		else
			out[k++] = (struct ptm_val_run){ len, v };
		o += len;
		la -= len;
		lb -= len;
		if (!la)
			la = ia + 1 < na ? a[++ia].len : n;
		if (!lb)
			lb = ib + 1 < nb ? b[++ib].len : n;
	}
	return k;
}

static unsigned val_runs(const struct pte_snap *s, const struct pte_snap_sig *g,
			 struct ptm_val_run *out)
{
	const struct pte_vrun *v = sig_vruns(s, g);
	for (unsigned i = 0; i < g->n; i++)
		out[i] = (struct ptm_val_run){ v[i].len, v[i].val };
	return g->n;
}

/* One endpoint's PCIe signals of an emission. */
static int emit_pcie(struct pte_card *c, unsigned ep, const struct pte_snap *s)
{
	struct ptm_val_run brk[16], tag[8], stf[8];
	struct ptm_pcie_runs r;
	struct ep *x = &c->ep[ep];
	int err = 0;

	c->nruns = 0;
	for (unsigned b = 0; b < 2; b++)
		r.nbus[b] = bus_runs(c, mfb_src(x, s, b), s, NULL, s->S, &err);
	if (err)
		return err;
	r.bus[0] = c->runs;
	r.bus[1] = c->runs + r.nbus[0];
	r.brake = brk;
	r.nbrake = brake_runs(s, s->S, brk);
	r.tag_free = tag;
	r.ntag = val_runs(s, &s->sig[4], tag);
	r.stfifo_free = stf;
	r.nstfifo = val_runs(s, &s->sig[5], stf);
	ptm_pcie_runs(c->m, ep, &x->in, &r, s->S);
	c->batches++;
	/* the inputs as they are at the end */
	x->in.bus[0] = r.bus[0][r.nbus[0] - 1].in;
	x->in.bus[1] = r.bus[1][r.nbus[1] - 1].in;
	x->in.brake = (uint8_t)brk[r.nbrake - 1].val;
	x->in.tag_free = (uint16_t)tag[r.ntag - 1].val;
	x->in.stfifo_free = (uint16_t)stf[r.nstfifo - 1].val;
	return 0;
}

/* Every endpoint's DMA signals of an emission (each port: UP MFB, UP
 * MVB, DOWN MFB, DOWN MVB). */
static int emit_dma(struct pte_card *c, struct pte_snap *const *snap, uint64_t d)
{
	const struct ptm_bus_run *bus[PTM_MAX_ENDPOINTS * 2 * PTM_MAX_DMA_PORTS];
	unsigned nr[PTM_MAX_ENDPOINTS * 2 * PTM_MAX_DMA_PORTS];
	size_t off[PTM_MAX_ENDPOINTS * 2 * PTM_MAX_DMA_PORTS];
	int err = 0;

	c->nruns = 0;
	for (unsigned e = 0; e < c->neps; e++) {
		const struct pte_snap *s = snap[e];
		for (unsigned i = 6; i + 1 < s->nsig; i += 2) {
			unsigned b = e * 2 * c->nports + s->sig[i].bus;
			off[b] = c->nruns;
			nr[b] = bus_runs(c, mfb_src(&c->ep[e], s, i), s, &s->sig[i + 1], d, &err);
			if (err)
				return err;
		}
	}
	/* the list may have moved while it grew */
	for (unsigned b = 0; b < c->neps * 2 * c->nports; b++)
		bus[b] = c->runs + off[b];
	ptm_dma_runs(c->m, 0, bus, nr, d);
	c->batches++;
	for (unsigned b = 0; b < c->neps * 2 * c->nports; b++)
		c->dbus[b] = bus[b][nr[b] - 1].in;
	return 0;
}

int pte_emit(struct pte_card *c, struct pte_snap *const *snap)
{
	for (unsigned e = 0; e < c->neps; e++) {
		int rc = pte_snap_words(&c->ep[e], snap[e]);
		if (!rc)
			rc = emit_pcie(c, e, snap[e]);
		if (rc)
			return rc;
	}
	return snap[0]->d ? emit_dma(c, snap, snap[0]->d) : 0;
}
