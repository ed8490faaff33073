/*
 * pcie-telemetry: the simulated NDK card: the public API (env.h), opening
 * the card, host accesses on the MI bus, progress.  The slice engine is in
 * engine.c; the rooms it drives are listed in card_priv.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env/card_priv.h"

#ifndef PTE_SLICE_MAX
#define PTE_SLICE_MAX 2048
#endif

/* ---- time ----------------------------------------------------------------- */

/* Run every domain up to PCIe cycle `target`; a failure is kept in c->err. */
static int advance_to(struct pte_card *c, uint64_t target)
{
	return c->err ? c->err : pte_engine_advance(c, target);
}

/* ---- progress --------------------------------------------------------------- */

#define PROGRESS_EMISSIONS 32    /* emissions between two looks at the clock */
#define PROGRESS_EVERY 0.2       /* wall seconds between two calls */

static pte_progress_fn default_progress;
static void *default_progress_arg;
static double default_progress_min;

void pte_card_set_progress(struct pte_card *c, pte_progress_fn fn, void *arg, double min_wall)
{
	c->progress = fn;
	c->progress_arg = arg;
	c->progress_min = min_wall;
}

void pte_card_set_stop(struct pte_card *c, pte_stop_fn fn, void *arg)
{
	c->stop = fn;
	c->stop_arg = arg;
}

void pte_progress_default(pte_progress_fn fn, void *arg, double min_wall)
{
	default_progress = fn;
	default_progress_arg = arg;
	default_progress_min = min_wall;
}

static double wall_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A run towards PCIe cycle `target`, in stretches of whole emissions (so
 * that the model gets the same batches as without them), telling the
 * progress callback once the run looks long, and ending early with
 * -EINTR when the stop callback asks (the card stays at the end of the
 * stretch, a consistent state). */
static int run_in_stretches(struct pte_card *c, uint64_t target)
{
	uint64_t from = c->pcie_done, span = target - from;
	uint64_t stretch = PROGRESS_EMISSIONS * (uint64_t)c->em_max * c->slice;
	double total = (double)span / ((double)c->pcie_khz * 1e3);
	double t0 = wall_now(), last = -1.0;
	int shown = 0;

	while (!c->err && c->pcie_done < target) {
		uint64_t step = target - c->pcie_done;
		if (step > stretch)
			step = stretch;
		if (advance_to(c, c->pcie_done + step))
			break;
		if (c->stop && c->pcie_done < target && c->stop(c->stop_arg)) {
			if (shown)
				c->progress(c->progress_arg, total, total);
			return -EINTR;
		}
		if (!c->progress)
			continue;
		double now = wall_now(), frac = (double)(c->pcie_done - from) / (double)span;
		if (!shown && (now - t0) / frac > c->progress_min)
			shown = 1;
		if (shown && c->pcie_done < target && now - last >= PROGRESS_EVERY) {
			c->progress(c->progress_arg, frac * total, total);
			last = now;
		}
	}
	if (shown)
		c->progress(c->progress_arg, total, total);
	return c->err;
}

int pte_card_run(struct pte_card *c, double seconds)
{
	if (!(seconds >= 0) || !isfinite(seconds))
		return -EINVAL;
	if (c->err)
		return c->err;
	uint64_t n = (uint64_t)llround(seconds * (double)c->pcie_khz * 1e3);
	if ((c->progress || c->stop) && n > PROGRESS_EMISSIONS * (uint64_t)c->em_max * c->slice)
		return run_in_stretches(c, c->pcie_done + n);
	return advance_to(c, c->pcie_done + n);
}

double pte_card_now(const struct pte_card *c)
{
	double tp = (double)c->pcie_done / ((double)c->pcie_khz * 1e3);
	double tm = (double)c->mi_done / ((double)c->mi_khz * 1e3);
	return tp > tm ? tp : tm;
}

/* The fast domains follow the MI clock when software talks to the card. */
static int catch_up(struct pte_card *c)
{
	uint64_t t = (uint64_t)((unsigned __int128)c->mi_done * c->pcie_khz / c->mi_khz);
	return advance_to(c, t);
}

/* A host access reaches the MI bus after the PCIe transaction time: the
 * card runs meanwhile (and a STATUS read after a COMMAND write sees the
 * command started, as on a real card). */
static int access_delay(struct pte_card *c, double ns)
{
	uint64_t n = (uint64_t)llround(ns * 1e-9 * (double)c->mi_khz * 1e3);
	if (c->err || !n)
		return c->err;
	ptm_mi_idle_edges(c->m, 0, n);
	c->batches++;
	c->mi_done += n;
	return catch_up(c);
}

/* One MI edge with these inputs. */
static void mi_edge(struct pte_card *c, const struct ptm_mi_in *in, struct ptm_mi_out *out)
{
	ptm_mi_edge(c->m, in, out);
	c->mi_done++;
}

int pte_card_mi_read(struct pte_card *c, uint32_t addr, uint32_t *val)
{
	struct ptm_mi_in in = { .rd = 1, .addr = addr };
	struct ptm_mi_out out;
	int rc = access_delay(c, c->sc.mmio_read_ns);

	if (rc)
		return rc;
	memset(&out, 0, sizeof(out));
	mi_edge(c, &in, &out);
	in.rd = 0;
	for (int i = 0; i < 8 && !out.drdy; i++)
		mi_edge(c, &in, &out);
	rc = catch_up(c);
	if (rc)
		return rc;
	if (!out.drdy)
		return -EIO; /* cannot happen: the MI read latency is 2 */
	*val = out.drd;
	return 0;
}

int pte_card_mi_read_block(struct pte_card *c, uint32_t addr, uint32_t *buf, size_t n)
{
	struct ptm_mi_in in;
	struct ptm_mi_out out;
	size_t got = 0;
	int rc = access_delay(c, c->sc.mmio_read_ns);

	if (rc)
		return rc;
	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	for (size_t i = 0; got < n && i < n + 8 && !rc; i++) {
		in.rd = i < n;
		in.addr = addr + 4u * (uint32_t)i;
		mi_edge(c, &in, &out);
		if (out.drdy)
			buf[got++] = out.drd;
		/* the fast domains keep running every few hundred MI cycles */
		if ((i & 255u) == 255u)
			rc = catch_up(c);
	}
	if (!rc)
		rc = catch_up(c);
	if (!rc && got < n)
		rc = -EIO; /* cannot happen: the MI read latency is 2 */
	return rc;
}

int pte_card_mi_write(struct pte_card *c, uint32_t addr, uint32_t data)
{
	struct ptm_mi_in in = { .wr = 1, .addr = addr, .dwr = data };
	struct ptm_mi_out out;
	int rc = access_delay(c, c->sc.mmio_write_ns);

	if (rc)
		return rc;
	mi_edge(c, &in, &out);
	return catch_up(c);
}

ptm_model *pte_card_model(struct pte_card *c)
{
	return c->m;
}

int pte_card_set_threads(struct pte_card *c, int on)
{
	if (on && c->w.n)
		return 0; /* on already, however many */
	return pte_engine_threads(c, on ? pte_engine_auto_threads(c) : 0);
}

int pte_card_set_thread_count(struct pte_card *c, unsigned n)
{
	return pte_engine_threads(c, n);
}

uint64_t pte_card_batches(const struct pte_card *c)
{
	return c->batches;
}

/* ---- open ----------------------------------------------------------------- */

/* Slices per emission: as many as fit a drain period of the PCIe and of
 * the DMA clock, so that each probe sweeps at most once between two runs
 * of the MI side (its FIFO holds two sweeps). */
static unsigned emission_slices(const struct pte_card *c)
{
	uint64_t dp = c->sc.g.drain_period;
	uint64_t e_dma = dp * c->pcie_khz / (c->dma_khz ? c->dma_khz : 1);
	uint64_t e = dp < e_dma ? dp : e_dma;
	uint64_t n = e / c->slice;
	return n < 1 ? 1 : n > PTE_EM_MAX ? PTE_EM_MAX : (unsigned)n;
}

static unsigned code_of(unsigned bytes)
{
	unsigned c = 0;
	while ((128u << c) < bytes)
		c++;
	return c;
}

static void ep_geometry(struct ep *e, const struct ptm_generics *g)
{
	struct ep_geom *q = &e->geo;

	q->IB = g->mfb_item_bytes;
	q->ib_sh = 32;
	for (unsigned sh = 0; sh < 31; sh++)
		if (1u << sh == q->IB)
			q->ib_sh = sh;
	q->R_rq = g->pcie_rq_mfb_regions;
	q->N_rq = g->pcie_rq_mfb_region_bytes / q->IB;
	q->R_rc = g->pcie_rc_mfb_regions;
	q->N_rc = g->pcie_rc_mfb_region_bytes / q->IB;
	q->R_up = g->dma_up_mfb_regions;
	q->N_up = g->dma_up_mfb_region_bytes / q->IB;
	q->R_dn = g->dma_down_mfb_regions;
	q->N_dn = g->dma_down_mfb_region_bytes / q->IB;
	q->rc_word = q->R_rc * g->pcie_rc_mfb_region_bytes;
	q->dn_word = q->R_dn * g->dma_down_mfb_region_bytes;
}

/* What was negotiated, the host and the level inputs' starting values. */
static void ep_params(struct pte_card *c, struct ep *e, const struct ptm_generics *g)
{
	const struct pte_ep_cfg *cfg = e->cfg;
	struct pte_ep_info *in = &e->info;
	double fp = (double)c->pcie_khz * 1e3;

	in->link_gen = cfg->link_gen;
	in->link_width = cfg->link_width;
	in->link_up = cfg->link_up;
	in->mps = cfg->mps;
	in->mrrs = cfg->mrrs;
	in->rcb = cfg->rcb;
	in->ext_tag = cfg->ext_tag;
	in->tag10b = cfg->tag10b;
	unsigned space = cfg->tag10b ? 1024 : cfg->ext_tag ? 256 : 32;
	unsigned want = cfg->tags ? cfg->tags : g->tag_capacity;
	in->tags = want < space ? want : space;
	if (in->tags > 2047)
		in->tags = 2047;
	in->stfifo_words = g->stfifo_capacity;
	in->stfifo_word_bytes = e->geo.rc_word;
	in->cpl_headers = cfg->cpl_headers;
	in->host_cpl_bytes = cfg->host_cpl_bytes ? cfg->host_cpl_bytes : cfg->mps;
	in->host_latency_ns = cfg->latency_ns;
	pte_link_init(e, fp);
	e->host.cpl_bytes = in->host_cpl_bytes;
	e->host.cpl_mask = (in->host_cpl_bytes & (in->host_cpl_bytes - 1)) == 0 && in->host_cpl_bytes > 1
				   ? in->host_cpl_bytes - 1
				   : 0;
	e->host.ns_per_cycle = 1e9 / fp;
	e->host.lat_mean = cfg->latency_ns * fp / 1e9;
	e->host.lat_jit = cfg->jitter_ns * fp / 1e9;
	e->host.lat_lo = e->host.lat_mean - e->host.lat_jit;
	e->host.lat_span = 2.0 * e->host.lat_jit;
	e->host.lat_min = (int64_t)floor(e->host.lat_mean - e->host.lat_jit);
	if (e->host.lat_min < 1)
		e->host.lat_min = 1;
	e->ptc.tags_pool = in->tags;
	e->ptc.rc_cur = -1;
	e->tagl.cap = g->tag_capacity;
	e->tagl.cap8 = e->tagl.cap >> 3;
	e->tagl.cap2 = e->tagl.cap >> 1;
	e->tagl.cur = in->tags;
	e->tagl.full = in->tags;
	e->tagl.e_min = e->tagl.cur;
	e->stl.cap = g->stfifo_capacity;
	e->stl.cap8 = e->stl.cap >> 3;
	e->stl.cap2 = e->stl.cap >> 1;
	e->stl.cur = g->stfifo_capacity > 65535 ? 65535 : g->stfifo_capacity;
	e->stl.e_min = e->stl.cur;
	e->truth.tags_free_min = in->tags;
	e->truth.stfifo_free_min = e->stl.cur;
}

/* The queues and word builders of an endpoint and its ports. */
static int ep_alloc(struct pte_card *c, struct ep *e, unsigned nports)
{
	const struct ep_geom *q = &e->geo;
	uint64_t emax = c->slice * c->em_max;
	uint64_t dmax = emax * c->dma_khz / c->pcie_khz + 4 * c->em_max;
	unsigned np = e->info.tags + 4;

	if (pte_ents_init(&e->ptc.ents, np) || pte_reqq_init(&e->ptc.in, e->cfg->ptc_requests + 4096) ||
	    pte_evq_init(&e->ptc.rel, np) ||
	    pte_fq_init(&e->ptc.st, 256) || pte_mfb_init(&e->rqb, q->R_rq, q->N_rq, emax) ||
	    pte_mfb_init(&e->rcb, q->R_rc, q->N_rc, emax) || pte_wt_init(&e->rq, q->R_rq, q->N_rq) ||
	    pte_wt_init(&e->rc, q->R_rc, q->N_rc))
		return -ENOMEM;
	for (unsigned p = 0; p < nports; p++) {
		struct port *pt = &e->port[p];
		if (pte_reqq_init(&pt->pend, PORT_QUEUE) || pte_fq_init(&pt->afifo, 256) ||
		    pte_mfb_init(&pt->upb, q->R_up, q->N_up, dmax) ||
		    pte_mfb_init(&pt->downb, q->R_dn, q->N_dn, dmax) ||
		    pte_wt_init(&pt->up, q->R_up, q->N_up) || pte_wt_init(&pt->down, q->R_dn, q->N_dn))
			return -ENOMEM;
		pte_mvb_init(&pt->upv, q->R_up);
		pte_mvb_init(&pt->downv, q->R_dn);
	}
	return 0;
}

/* The PCIe inputs that stay: configuration, link state, starting levels. */
static void ep_inputs(struct ep *e)
{
	const struct pte_ep_cfg *cfg = e->cfg;
	struct ptm_pcie_in *pi = &e->in;

	memset(pi, 0, sizeof(*pi));
	pi->mps = (uint8_t)code_of(cfg->mps);
	pi->mrrs = (uint8_t)code_of(cfg->mrrs);
	pi->ext_tag_en = (uint8_t)cfg->ext_tag;
	pi->tag10b_req_en = (uint8_t)cfg->tag10b;
	pi->rcb_size = cfg->rcb == 128;
	pi->link_up = (uint8_t)cfg->link_up;
	pi->tag_free = (uint16_t)e->info.tags;
	pi->stfifo_free = (uint16_t)e->stl.cur;
}

static int ep_init(struct pte_card *c, struct ep *e, unsigned idx)
{
	const struct pte_scenario *s = &c->sc;
	const struct ptm_generics *g = &s->g;

	e->idx = idx;
	e->cfg = &s->ep[idx];
	ep_geometry(e, g);
	ep_params(c, e, g);
	pte_rng_seed(&e->host.rng, s->seed * 1000003u + idx);
	for (unsigned p = 0; p < g->dma_ports; p++) {
		struct port *pt = &e->port[p];
		pte_rng_seed(&pt->rng, s->seed * 7919u + idx * 131u + p + 1);
		pte_rng_pick_init(&pt->pick_r, &e->cfg->port[p].read_size);
		pte_rng_pick_init(&pt->pick_w, &e->cfg->port[p].write_size);
		pt->addr_r = 0x100000000ull * (p + 1);
		pt->addr_w = 0x800000000ull * (p + 1);
	}
	int rc = ep_alloc(c, e, g->dma_ports);
	if (rc)
		return rc;
	ep_inputs(e);
	return 0;
}

static void ep_fini(struct ep *e)
{
	pte_ents_fini(&e->ptc.ents);
	pte_reqq_fini(&e->ptc.in);
	pte_evq_fini(&e->ptc.rel);
	pte_fq_fini(&e->ptc.st);
	pte_mfb_fini(&e->rqb);
	pte_mfb_fini(&e->rcb);
	pte_wt_fini(&e->rq);
	pte_wt_fini(&e->rc);
	for (unsigned p = 0; p < PTM_MAX_DMA_PORTS; p++) {
		pte_reqq_fini(&e->port[p].pend);
		pte_fq_fini(&e->port[p].afifo);
		pte_mfb_fini(&e->port[p].upb);
		pte_mfb_fini(&e->port[p].downb);
		pte_wt_fini(&e->port[p].up);
		pte_wt_fini(&e->port[p].down);
	}
}

void pte_card_free(struct pte_card *c)
{
	if (!c)
		return;
	pte_engine_stop(c);
	if (c->snaps)
		for (unsigned j = 0; j < PTE_JOBS; j++)
			for (unsigned e = 0; e < PTM_MAX_ENDPOINTS; e++)
				pte_snap_free(&c->snaps[j][e]);
	free(c->snaps);
	free(c->runs);
	for (unsigned i = 0; i < PTM_MAX_ENDPOINTS; i++)
		ep_fini(&c->ep[i]);
	ptm_model_free(c->m);
	free(c);
}

/* Reset sequence: all three domains in reset for a few cycles, then the
 * warm-up. */
static int power_up(struct pte_card *c)
{
	for (unsigned i = 0; i < c->neps; i++) {
		struct ptm_pcie_in r = c->ep[i].in;
		r.rst = 1;
		ptm_pcie_edges(c->m, i, &r, 8);
	}
	ptm_dma_edges(c->m, 1, c->dbus, 8);
	ptm_mi_idle_edges(c->m, 1, 8);
	ptm_mi_idle_edges(c->m, 0, 4);
	c->mi_done = 12;
	c->pcie_done = (uint64_t)((unsigned __int128)c->mi_done * c->pcie_khz / c->mi_khz);
	c->dma_done = (uint64_t)((unsigned __int128)c->pcie_done * c->dma_khz / c->pcie_khz);
	return pte_card_run(c, c->sc.warmup_us * 1e-6);
}

int pte_card_open(const char *spec, struct pte_card **out, char *msg, size_t msglen)
{
	return pte_card_open_ex(spec, NULL, 0, NULL, out, msg, msglen);
}

int pte_card_open_ex(const char *spec, const char *const *overrides, size_t n, int *which,
		     struct pte_card **out, char *msg, size_t msglen)
{
	struct pte_card *c = pte_calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (which)
		*which = -1;
	if (!c) {
		snprintf(msg, msglen, "simulated card: out of memory");
		return -ENOMEM;
	}
	rc = pte_scenario_load_ex(spec, overrides, n, which, &c->sc, msg, msglen);
	if (!rc)
		rc = ptm_model_new(&c->sc.g, &c->m, msg, msglen);
	if (rc) {
		free(c);
		return rc;
	}
	c->neps = c->sc.g.pcie_endpoints;
	c->nports = c->sc.g.dma_ports;
	c->pcie_khz = (uint64_t)llround(c->sc.pcie_mhz * 1e3);
	c->dma_khz = (uint64_t)llround(c->sc.dma_mhz * 1e3);
	c->mi_khz = (uint64_t)llround(c->sc.mi_mhz * 1e3);
	c->slice = c->sc.g.drain_period / 2; /* see the top of this file */
	if (c->slice > PTE_SLICE_MAX)
		c->slice = PTE_SLICE_MAX;
	if (c->slice < 16)
		c->slice = 16;
	c->em_max = emission_slices(c);
	c->words_on_ep = c->neps > 1;
	/* the default progress callback, after the warm-up below */
	c->snaps = pte_calloc(PTE_JOBS, sizeof(*c->snaps));
	if (!c->snaps)
		rc = -ENOMEM;
	for (unsigned i = 0; i < c->neps && !rc; i++)
		rc = ep_init(c, &c->ep[i], i);
	if (!rc)
		rc = power_up(c);
	pte_card_set_progress(c, default_progress, default_progress_arg, default_progress_min);
	if (!rc && pte_engine_cpus() > 1)
		pte_engine_threads(c, pte_engine_auto_threads(c)); /* without them if they cannot start */
	if (rc) {
		snprintf(msg, msglen, "simulated card: %s", strerror(-rc));
		pte_card_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void pte_card_info(const struct pte_card *c, struct pte_card_info *out)
{
	memset(out, 0, sizeof(*out));
	out->g = c->sc.g;
	out->pcie_hz = (double)c->pcie_khz * 1e3;
	out->dma_hz = (double)c->dma_khz * 1e3;
	out->mi_hz = (double)c->mi_khz * 1e3;
	out->seed = c->sc.seed;
	snprintf(out->name, sizeof(out->name), "%s", c->sc.name);
}

int pte_card_ep_info(const struct pte_card *c, unsigned ep, struct pte_ep_info *out)
{
	if (ep >= c->neps)
		return -EINVAL;
	*out = c->ep[ep].info;
	return 0;
}

int pte_card_truth(const struct pte_card *c, unsigned ep, struct pte_truth *out)
{
	if (ep >= c->neps)
		return -EINVAL;
	const struct ep *e = &c->ep[ep];
	*out = e->truth;
	out->pcie[PTE_RQ].frames = e->rq.t_frames;
	out->pcie[PTE_RQ].items = e->rq.t_items;
	out->pcie[PTE_RC].frames = e->rc.t_frames;
	out->pcie[PTE_RC].items = e->rc.t_items;
	return 0;
}
