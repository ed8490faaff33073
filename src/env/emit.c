/*
 * pcie-telemetry: feeding the firmware model from the runs of a slice.
 *
 * Every input of a clock domain is a signal made of runs (the word
 * builders' bus runs, the BRAKE and level value runs); the signals are
 * walked together and the model gets one batch call per stretch in which
 * none of them changes.
 */
#include <string.h>

#include "env/card_priv.h"

enum sig_kind { SIG_MFB, SIG_MVB, SIG_BRAKE_UP, SIG_BRAKE_DOWN, SIG_TAGS, SIG_STFIFO };

struct sig {
	const struct pte_run *run; /* bus runs, or NULL for value runs */
	const struct pte_vrun *vrun;
	unsigned n, i;
	uint64_t left;
	enum sig_kind kind;
	const void *obj;
	struct ptm_bus_in *bus;
};

/* Apply run i of a signal to the inputs (skipping empty runs). */
static void sig_apply(struct sig *g, struct ptm_pcie_in *in)
{
	for (;;) {
		if (g->i >= g->n) {
			g->left = UINT64_MAX; /* never reached when every signal covers the slice */
			return;
		}
		g->left = g->run ? g->run[g->i].len : g->vrun[g->i].len;
		switch (g->kind) {
		case SIG_MFB:
			pte_mfb_apply(g->obj, &g->run[g->i], g->bus);
			break;
		case SIG_MVB:
			pte_mvb_apply(g->obj, &g->run[g->i], g->bus);
			break;
		case SIG_BRAKE_UP:
			in->brake = (uint8_t)((in->brake & 0x30u) | g->vrun[g->i].val);
			break;
		case SIG_BRAKE_DOWN:
			in->brake = (uint8_t)((in->brake & 0x0fu) | g->vrun[g->i].val);
			break;
		case SIG_TAGS:
			in->tag_free = (uint16_t)g->vrun[g->i].val;
			break;
		case SIG_STFIFO:
			in->stfifo_free = (uint16_t)g->vrun[g->i].val;
			break;
		}
		if (g->left)
			return;
		g->i++;
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

static struct sig bus_sig(const struct pte_run *run, unsigned n, enum sig_kind kind,
			  const void *obj, struct ptm_bus_in *bus)
{
	return (struct sig){ .run = run, .n = n, .kind = kind, .obj = obj, .bus = bus };
}

static struct sig value_sig(const struct pte_vrun *vrun, unsigned n, enum sig_kind kind)
{
	return (struct sig){ .vrun = vrun, .n = n, .kind = kind };
}

void pte_emit_pcie(struct pte_card *c, struct ep *e, uint64_t S)
{
	struct sig g[6];

	g[0] = bus_sig(e->rq.run, e->rq.nrun, SIG_MFB, &e->rq, &e->in.bus[0]);
	g[1] = bus_sig(e->rc.run, e->rc.nrun, SIG_MFB, &e->rc, &e->in.bus[1]);
	g[2] = value_sig(e->brk.a, e->brk.na, SIG_BRAKE_UP);
	g[3] = value_sig(e->brk.b, e->brk.nb, SIG_BRAKE_DOWN);
	g[4] = value_sig(e->tagl.run, e->tagl.nrun, SIG_TAGS);
	g[5] = value_sig(e->stl.run, e->stl.nrun, SIG_STFIFO);
	drive(c, g, 6, S, 1, e->idx, &e->in);
}

void pte_emit_dma(struct pte_card *c, uint64_t d)
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
			g[ng++] = bus_sig(pt->up.run, pt->up.nrun, SIG_MFB, &pt->up, up);
			g[ng++] = bus_sig(pt->upv.run, pt->upv.nrun, SIG_MVB, &pt->upv, up);
			g[ng++] = bus_sig(pt->down.run, pt->down.nrun, SIG_MFB, &pt->down, dn);
			g[ng++] = bus_sig(pt->downv.run, pt->downv.nrun, SIG_MVB, &pt->downv, dn);
		}
	}
	drive(c, g, ng, d, 0, 0, &dummy);
}
