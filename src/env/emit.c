/*
 * pcie-telemetry: feeding the firmware model.
 *
 * At the end of an emission the signals of an endpoint (its word
 * builders' bus runs, the BRAKE and level value runs) are copied into a
 * snapshot, so that the endpoint can go on with the next emission (on its
 * own thread, see engine.c) while the model gets this one.  The signals of
 * a clock domain are walked together and the model gets one batch call per
 * stretch in which none of them changes.
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

static int snap_mfb(struct pte_snap *s, const struct pte_mfb *a, unsigned bus)
{
	return snap_runs(s, PTE_SIG_MFB, bus, a->R, a->run, a->nrun * sizeof(*a->run), a->nrun,
			 a->pat, a->npat);
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

int pte_snap_take(struct pte_snap *s, const struct ep *e, unsigned nports, uint64_t S, uint64_t d)
{
	int rc;

	s->used = 0;
	s->nsig = 0;
	s->S = S;
	s->d = d;
	if ((rc = snap_mfb(s, &e->rq, 0)) || (rc = snap_mfb(s, &e->rc, 1)) ||
	    (rc = snap_vals(s, PTE_SIG_BRAKE_UP, e->brk.a, e->brk.na)) ||
	    (rc = snap_vals(s, PTE_SIG_BRAKE_DOWN, e->brk.b, e->brk.nb)) ||
	    (rc = snap_vals(s, PTE_SIG_TAGS, e->tagl.run, e->tagl.nrun)) ||
	    (rc = snap_vals(s, PTE_SIG_STFIFO, e->stl.run, e->stl.nrun)))
		return rc;
	for (unsigned p = 0; p < nports && d; p++) {
		const struct port *pt = &e->port[p];
		if ((rc = snap_mfb(s, &pt->up, 2 * p)) || (rc = snap_mvb(s, &pt->upv, 2 * p)) ||
		    (rc = snap_mfb(s, &pt->down, 2 * p + 1)) || (rc = snap_mvb(s, &pt->downv, 2 * p + 1)))
			return rc;
	}
	return 0;
}

void pte_snap_free(struct pte_snap *s)
{
	free(s->arena);
	memset(s, 0, sizeof(*s));
}

/* ---- driving the model ----------------------------------------------------- */

struct sig {
	const struct pte_snap_sig *g;
	const struct pte_run *run;
	const struct pte_vrun *vrun;
	const struct pte_pat *pat;
	unsigned i;
	uint64_t left;
	struct ptm_bus_in *bus;
};

static struct sig sig_of(const struct pte_snap *s, const struct pte_snap_sig *g,
			 struct ptm_bus_in *bus)
{
	const void *run = s->arena + g->run;
	struct sig x = { .g = g, .bus = bus, .pat = (const void *)(s->arena + g->pat) };

	if (g->kind == PTE_SIG_MFB || g->kind == PTE_SIG_MVB)
		x.run = run;
	else
		x.vrun = run;
	return x;
}

/* Apply run i of a signal to the inputs (skipping empty runs). */
static void sig_apply(struct sig *x, struct ptm_pcie_in *in)
{
	for (;;) {
		if (x->i >= x->g->n) {
			x->left = UINT64_MAX; /* never reached when every signal covers the slice */
			return;
		}
		x->left = x->run ? x->run[x->i].len : x->vrun[x->i].len;
		switch ((enum pte_sig_kind)x->g->kind) {
		case PTE_SIG_MFB:
			pte_mfb_apply_pat(x->g->R, x->pat, &x->run[x->i], x->bus);
			break;
		case PTE_SIG_MVB:
			pte_mvb_apply(NULL, &x->run[x->i], x->bus);
			break;
		case PTE_SIG_BRAKE_UP:
			in->brake = (uint8_t)((in->brake & 0x30u) | x->vrun[x->i].val);
			break;
		case PTE_SIG_BRAKE_DOWN:
			in->brake = (uint8_t)((in->brake & 0x0fu) | x->vrun[x->i].val);
			break;
		case PTE_SIG_TAGS:
			in->tag_free = (uint16_t)x->vrun[x->i].val;
			break;
		case PTE_SIG_STFIFO:
			in->stfifo_free = (uint16_t)x->vrun[x->i].val;
			break;
		}
		if (x->left)
			return;
		x->i++;
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

void pte_emit(struct pte_card *c, struct pte_snap *const *snap)
{
	struct sig g[4 * PTM_MAX_ENDPOINTS * PTM_MAX_DMA_PORTS];
	unsigned ng;

	for (unsigned e = 0; e < c->neps; e++) {
		const struct pte_snap *s = snap[e];
		struct ep *x = &c->ep[e];
		for (ng = 0; ng < 6; ng++)
			g[ng] = sig_of(s, &s->sig[ng], ng < 2 ? &x->in.bus[ng] : NULL);
		drive(c, g, 6, s->S, 1, e, &x->in);
	}
	if (!snap[0]->d)
		return;
	struct ptm_pcie_in dummy;
	memset(&dummy, 0, sizeof(dummy));
	ng = 0;
	for (unsigned e = 0; e < c->neps; e++) {
		const struct pte_snap *s = snap[e];
		for (unsigned i = 6; i < s->nsig; i++)
			g[ng++] = sig_of(s, &s->sig[i], &c->dbus[e * 2 * c->nports + s->sig[i].bus]);
	}
	drive(c, g, ng, snap[0]->d, 0, 0, &dummy);
}
