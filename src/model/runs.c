/*
 * pcie-telemetry: edges given as runs, one list per input signal
 * (ptm_pcie_runs, ptm_dma_runs in model.h).
 *
 * A batch (ptm_pcie_edges) costs per change of any input: every bus is
 * compared, the changed one rebased, the status path stepped.  Here each
 * lane group of the probe takes its own signal's runs apart from the
 * others (ptm_probe_clk_runs), the BRAKE input's group the runs of the
 * BRAKE bits and the band registers together, and the status path the
 * stretches in which the levels stay; only a drain sweep's captures bring
 * the groups together.  When the probe cannot take runs now (a reset, a
 * settling synchroniser, the plain path), the signals are walked together
 * and every stretch in which no input changes is one batch: the same
 * result, at the cost of batches.
 */
#include "model/model_priv.h"
#include "model/probe_priv.h"

#include <string.h>

/* Runs of the probe's BRAKE input built on the stack at most; more fall
 * back to batches (a card gives a handful per drain period). */
#define MAX_BRAKE_RUNS 256

/* A cursor over one value signal's runs: the value now and the edge
 * (from the start) of its next change, UINT64_MAX at the end. */
struct vcur {
	const struct ptm_val_run *r;
	unsigned n, i;
	uint64_t next;
	uint32_t val;
};

static void vcur_init(struct vcur *c, const struct ptm_val_run *r, unsigned n)
{
	*c = (struct vcur){ r, n, 0, n ? r[0].len : UINT64_MAX, n ? r[0].val : 0 };
}

/* To the run that holds edge o (o only grows). */
static void vcur_at(struct vcur *c, uint64_t o)
{
	while (c->next <= o && c->i + 1 < c->n) {
		c->i++;
		c->val = c->r[c->i].val;
		c->next += c->r[c->i].len;
	}
	if (c->next <= o)
		c->next = UINT64_MAX;
}

/* ---- the stretches, one batch each ---------------------------------------- */

struct bcur {
	const struct ptm_bus_run *r;
	unsigned n, i;
	uint64_t next;
};

static void bcur_init(struct bcur *c, const struct ptm_bus_run *r, unsigned n)
{
	*c = (struct bcur){ r, n, 0, n ? r[0].len : UINT64_MAX };
}

static void bcur_at(struct bcur *c, uint64_t o)
{
	while (c->next <= o && c->i + 1 < c->n) {
		c->i++;
		c->next += c->r[c->i].len;
	}
	if (c->next <= o)
		c->next = UINT64_MAX;
}

static void pcie_stretches(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in,
			   const struct ptm_pcie_runs *r, uint64_t n)
{
	struct ptm_pcie_in x = *in;
	struct bcur b[2];
	struct vcur v[3];

	for (unsigned k = 0; k < 2; k++)
		bcur_init(&b[k], r->bus[k], r->nbus[k]);
	vcur_init(&v[0], r->brake, r->nbrake);
	vcur_init(&v[1], r->tag_free, r->ntag);
	vcur_init(&v[2], r->stfifo_free, r->nstfifo);
	for (uint64_t o = 0; o < n;) {
		uint64_t next = n;
		for (unsigned k = 0; k < 2; k++) {
			bcur_at(&b[k], o);
			x.bus[k] = b[k].r[b[k].i].in;
			if (b[k].next < next)
				next = b[k].next;
		}
		for (unsigned k = 0; k < 3; k++) {
			vcur_at(&v[k], o);
			if (v[k].next < next)
				next = v[k].next;
		}
		x.brake = (uint8_t)v[0].val;
		x.tag_free = (uint16_t)v[1].val;
		x.stfifo_free = (uint16_t)v[2].val;
		ptm_pcie_edges(m, ep, &x, next - o);
		o = next;
	}
}

/* ---- PCIe ------------------------------------------------------------------- */

/*
 * The probe's BRAKE input at edge o: the PTC bits of edge o and the band
 * registers as they are before it, which hold the bands of edge o - 1's
 * levels (of the registers themselves at the first edge).  Its runs into
 * out; 0 when there would be more than MAX_BRAKE_RUNS.
 */
static unsigned brake_runs(const struct ptm_ep *e, const struct ptm_generics *g,
			   const struct ptm_pcie_runs *r, uint64_t n, struct ptm_val_run *out)
{
	struct vcur bk, tg, sf;
	uint64_t o = 0, start = 0;
	unsigned k = 0;
	uint32_t cur = 0;

	vcur_init(&bk, r->brake, r->nbrake);
	vcur_init(&tg, r->tag_free, r->ntag);
	vcur_init(&sf, r->stfifo_free, r->nstfifo);
	for (;;) {
		uint32_t tb = e->tag_band, sb = e->stf_band; /* the registers before edge 0 */
		vcur_at(&bk, o);
		if (o) {
			vcur_at(&tg, o - 1);
			vcur_at(&sf, o - 1);
			tb = ptm_aux_band(tg.val & PTM_TAG_MASK, g->tag_capacity);
			sb = ptm_aux_band(sf.val, g->stfifo_capacity);
		}
		uint32_t v = (bk.val & ((1u << PT_FW_PTC_BRAKES) - 1u)) | tb << PT_FW_PTC_BRAKES |
			     sb << (PT_FW_PTC_BRAKES + PT_FW_HIST_BANDS);
		if (!o) {
			cur = v;
		} else if (v != cur) {
			if (k == MAX_BRAKE_RUNS - 1)
				return 0;
			out[k++] = (struct ptm_val_run){ o - start, cur };
			start = o;
			cur = v;
		}
		/* where it may change next: the PTC bits, or the edge after a
		 * level (the registers, after the first edge) */
		uint64_t nx = bk.next;
		if (!o) {
			nx = 1;
		} else {
			if (tg.next != UINT64_MAX && tg.next + 1 < nx)
				nx = tg.next + 1;
			if (sf.next != UINT64_MAX && sf.next + 1 < nx)
				nx = sf.next + 1;
		}
		if (nx >= n)
			break;
		o = nx;
	}
	out[k++] = (struct ptm_val_run){ n - start, cur };
	return k;
}

/* The status path over the stretches in which the levels stay, with the
 * probe's DRAIN_TICKs at edges tick0, tick0 + DRAIN_PERIOD, ... */
static void pcie_status(ptm_model *m, struct ptm_ep *e, const struct ptm_pcie_in *in,
			const struct ptm_pcie_runs *r, uint64_t n, uint64_t tick0)
{
	const uint64_t dp = m->g.drain_period;
	struct ptm_pcie_in x = *in;
	struct vcur tg, sf;

	vcur_init(&tg, r->tag_free, r->ntag);
	vcur_init(&sf, r->stfifo_free, r->nstfifo);
	for (uint64_t o = 0; o < n;) {
		vcur_at(&tg, o);
		vcur_at(&sf, o);
		uint64_t next = tg.next < sf.next ? tg.next : sf.next;
		if (next > n)
			next = n;
		x.tag_free = (uint16_t)tg.val;
		x.stfifo_free = (uint16_t)sf.val;
		const uint8_t tb = ptm_aux_band(x.tag_free & PTM_TAG_MASK, m->g.tag_capacity);
		const uint8_t sb = ptm_aux_band(x.stfifo_free, m->g.stfifo_capacity);
		uint64_t t = tick0 >= o ? tick0 : tick0 + (o - tick0 + dp - 1) / dp * dp;
		uint64_t len = next - o;
		if (t - o >= len && ptm_aux_pcie_settled(e, &x, tb, sb)) {
			o = next;
			continue; /* no tick and nothing to settle */
		}
		ptm_aux_pcie_edges(e, &m->g, &x, len, t - o + 1, dp, tb, sb);
		o = next;
	}
}

/* The probe and the status path take the runs; 0 (nothing changed) when
 * the probe cannot now. */
static int pcie_runs_fast(ptm_model *m, struct ptm_ep *e, const struct ptm_pcie_in *in,
			  const struct ptm_pcie_runs *r, uint64_t n)
{
	struct ptm_val_run brk[MAX_BRAKE_RUNS];
	unsigned nbrk = brake_runs(e, &m->g, r, n, brk);
	ptm_probe *p = e->probe[0];

	if (!nbrk)
		return 0;
	const uint64_t tick0 = ptm_probe_edges_to_tick(p);
	if (!ptm_probe_clk_runs(p, r->bus, r->nbus, brk, nbrk, n))
		return 0;
	pcie_status(m, e, in, r, n, tick0);
	return 1;
}

void ptm_pcie_runs(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in,
		   const struct ptm_pcie_runs *r, uint64_t n)
{
	if (ep >= m->nep || n == 0)
		return;
	struct ptm_ep *e = &m->ep[ep];
	if (in->rst || ptm_probe_mi_reset(e->probe[0]) || !pcie_runs_fast(m, e, in, r, n)) {
		pcie_stretches(m, ep, in, r, n);
		return;
	}
	e->mi_dirty = 1;
}

/* ---- DMA --------------------------------------------------------------------- */

/* One endpoint's DMA probe, a batch per stretch in which no bus changes. */
static void dma_stretches(ptm_probe *p, int rst, const struct ptm_bus_run *const *bus,
			  const unsigned *nruns, unsigned nb, uint64_t n)
{
	struct ptm_bus_in x[PTM_MAX_PROBE_BUSES];

	memset(x, 0, sizeof(x));
	struct bcur b[PTM_MAX_PROBE_BUSES];

	for (unsigned k = 0; k < nb; k++)
		bcur_init(&b[k], bus[k], nruns[k]);
	for (uint64_t o = 0; o < n;) {
		uint64_t next = n;
		for (unsigned k = 0; k < nb; k++) {
			bcur_at(&b[k], o);
			x[k] = b[k].r[b[k].i].in;
			if (b[k].next < next)
				next = b[k].next;
		}
		ptm_probe_clk_batch(p, rst, x, 0, next - o);
		o = next;
	}
}

void ptm_dma_runs(ptm_model *m, int rst, const struct ptm_bus_run *const *bus,
		  const unsigned *nruns, uint64_t n)
{
	if (n == 0)
		return;
	const struct ptm_val_run none = { n, 0 };
	const unsigned db = m->dma_buses;
	for (unsigned e = 0; e < m->nep; e++) {
		ptm_probe *p = m->ep[e].probe[1];
		if (rst || !ptm_probe_clk_runs(p, bus + e * db, nruns + e * db, &none, 1, n))
			dma_stretches(p, rst, bus + e * db, nruns + e * db, db, n);
	}
	m->dma_dirty = 1;
}
