/*
 * pcie-telemetry: the slice engine of the simulated card.
 *
 * The card advances in time slices (at most half of DRAIN_PERIOD: the
 * PTC's input buffer needs them that short for rx-line-rate).  Inside a
 * slice the PCIe side of an endpoint is scheduled frame by frame in PCIe
 * cycles (RQ and RC interleaved in time order, so that a tag released by a
 * completion is seen by the request that waited for it), the DMA side per
 * slice.  The slices of a drain period (of the PCIe and of the DMA clock)
 * make an emission: the word builders fold each bus into a few runs of
 * identical cycles over all of it, and the model gets one set of batches
 * (emit.c).
 *
 * Endpoints are independent of each other and of the model, which only
 * watches.  So an emission is planned once (a job: its slices), every
 * endpoint runs it and leaves a snapshot of its signals, and the model
 * gets the snapshots in order.  With threads, the endpoints run on
 * threads of their own (one each while the CPUs last, else several on
 * each), up to PTE_JOBS emissions ahead of the model, which stays on the
 * caller's thread; the model gets exactly the same calls in the same
 * order either way.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "env/card_priv.h"

/* ---- one slice of one endpoint ---------------------------------------------- */

/* The time sides of the buses keep their first failure (out of memory
 * for their logs); the slice's is theirs. */
static int builders_err(const struct ep *e, unsigned nports)
{
	int rc = e->rq.err ? e->rq.err : e->rc.err;
	for (unsigned p = 0; p < nports && !rc; p++)
		rc = e->port[p].up.err ? e->port[p].up.err : e->port[p].down.err;
	return rc;
}

/* RQ and RC of one endpoint in time order: whichever is behind goes next
 * (RC when both are at the same cycle; RQ for its steps up to RC). */
static int pcie_steps(struct ep *e, int64_t T0, uint64_t S)
{
	int rc = 0;

	while (!rc) {
		uint64_t trq = pte_wt_used(&e->rq), trc = pte_wt_used(&e->rc);
		if (trc < S && trc <= trq) /* so also when RQ is at the end */
			rc = pte_rc_step(e, T0, S, trq < S);
		else if (trq < S)
			rc = pte_rq_steps(e, T0, S, trc < S ? trc : S);
		else
			break;
	}
	return rc ? rc : pte_apply_releases(e, T0 + (int64_t)S - 1, T0);
}

/* The slice's figures into the ground truth. */
static void pcie_truth(struct ep *e, uint64_t S, uint64_t w_rq, uint64_t w_rc)
{
	struct pte_truth *tr = &e->truth;

	tr->pcie[PTE_RQ].words += e->rq.t_words - w_rq;
	tr->pcie[PTE_RC].words += e->rc.t_words - w_rc;
	tr->pcie[PTE_RQ].stall += e->rq.stall;
	tr->pcie[PTE_RC].stall += e->rc.stall;
	pte_lvl_close(&e->tagl, S, tr->tags_band);
	tr->tags_in_use_sum += (double)e->tagl.used_area;
	pte_lvl_close(&e->stl, S, tr->stfifo_band);
	pte_brake_close(e, S);
	if (e->tagl.min < tr->tags_free_min)
		tr->tags_free_min = e->tagl.min;
	if (e->stl.min < tr->stfifo_free_min)
		tr->stfifo_free_min = e->stl.min;
	tr->pcie_cycles += S;
}

static int pcie_slice(struct ep *e, const struct pte_slice *sl)
{
	uint64_t S = sl->S;
	int rc = 0;

	pte_push_begin(e, S, sl->d_next);
	pte_wt_begin(&e->rq, S);
	pte_wt_begin(&e->rc, S);
	pte_lvl_begin(&e->tagl);
	pte_lvl_begin(&e->stl);
	e->ptc.consumed_reqs = e->ptc.consumed_bytes = 0;
	if (e->info.link_up)
		rc = pcie_steps(e, (int64_t)sl->T0, S);
	if (!rc)
		rc = pte_push_progress(e, S);
	if (rc)
		return rc;
	pte_push_end(e, S);
	uint64_t w0 = e->rq.t_words, w1 = e->rc.t_words;
	pte_wt_close(&e->rq);
	pte_wt_close(&e->rc);
	pcie_truth(e, S, w0, w1);
	return 0;
}

/* The DMA side of an endpoint for one slice: requests, DOWN, UP. */
static void dma_slice(struct ep *e, unsigned nports, const struct pte_slice *sl)
{
	if (!e->info.link_up) {
		for (unsigned p = 0; p < nports; p++)
			pte_dma_quiet_slice(&e->port[p], sl->d);
		return;
	}
	const struct pte_ep_cfg *cfg = e->cfg;
	struct ptc *p = &e->ptc;
	uint64_t room_r = p->in.reqs < cfg->ptc_requests ? cfg->ptc_requests - p->in.reqs : 0;
	uint64_t room_b = p->in.bytes < cfg->ptc_data_bytes ? cfg->ptc_data_bytes - p->in.bytes : 0;
	/* what the RQ took in the last slice is taken again in this one: the
	 * UP bus and the RQ run at the same time */
	room_r += p->consumed_reqs;
	room_b += p->consumed_bytes;
	for (unsigned k = 0; k < nports; k++) {
		unsigned i = (k + sl->rot) % nports;
		pte_dma_generate(e, i, sl->sec, sl->d);
		pte_dma_down_slice(e, &e->port[i], sl->d);
		pte_dma_up_slice(e, &e->port[i], sl->d, &room_r, &room_b);
	}
}

/* One endpoint runs a job: its slices, the runs of the emission, the
 * snapshot for the model. */
static int ep_job(struct ep *e, unsigned nports, const struct pte_job *j, struct pte_snap *snap,
		  int words)
{
	int rc = 0;

	for (unsigned i = 0; i < j->n && !rc; i++) {
		const struct pte_slice *sl = &j->sl[i];
		if (sl->d) {
			dma_slice(e, nports, sl);
			e->truth.dma_cycles += sl->d;
		}
		rc = pcie_slice(e, sl);
		if (!rc)
			rc = builders_err(e, nports);
	}
	if (!rc) {
		/* the MFB buses' words are built from their logs on the
		 * model's side (collect), or here for a card of several
		 * endpoints (whose model has more to do) */
		pte_lvl_runs(&e->tagl);
		pte_lvl_runs(&e->stl);
		pte_brake_runs(e, j->S);
		for (unsigned p = 0; p < nports && j->d; p++) {
			pte_mvb_runs(&e->port[p].upv);
			pte_mvb_runs(&e->port[p].downv);
		}
		rc = pte_snap_take(snap, e, nports, j->S, j->d, words);
	}
	snap->err = rc;
	return rc;
}

/* ---- jobs ----------------------------------------------------------------------- */

/* The next emission's slices towards target: up to em_max slices of at
 * most c->slice cycles.  Advances the card's planned time. */
static void plan(struct pte_card *c, uint64_t target, struct pte_job *j)
{
	uint64_t d_next = (uint64_t)((double)c->slice * (double)c->dma_khz / (double)c->pcie_khz);

	j->n = 0;
	j->S = j->d = 0;
	while (j->n < c->em_max && c->pcie_done < target) {
		struct pte_slice *sl = &j->sl[j->n++];
		uint64_t S = target - c->pcie_done < c->slice ? target - c->pcie_done : c->slice;
		uint64_t tend = c->pcie_done + S;
		uint64_t dt = (uint64_t)((unsigned __int128)tend * c->dma_khz / c->pcie_khz);
		sl->T0 = c->pcie_done;
		sl->S = S;
		sl->d = dt > c->dma_done ? dt - c->dma_done : 0;
		sl->d_next = d_next ? d_next : 1;
		sl->sec = (double)S / ((double)c->pcie_khz * 1e3);
		sl->rot = c->rot++;
		c->dma_done += sl->d;
		c->pcie_done = tend;
		j->S += S;
		j->d += sl->d;
	}
	j->mi_to = (uint64_t)((unsigned __int128)c->pcie_done * c->mi_khz / c->pcie_khz);
}

/* ---- the handshake with the endpoint threads --------------------------------------- */

/* A thread that waits gives way (sched_yield) this often before it sleeps:
 * a few milliseconds.  On a machine with a CPU to spare the wait returns
 * at once when the other side is done (a sleeping thread of a virtual
 * machine wakes tens of microseconds later, longer than an emission takes
 * at real time); on a busy one the others run meanwhile (a spin with
 * PAUSE would take their time, fatally for a thread that waits for one
 * on the same CPU).  The caller waits for a few jobs at once when it must
 * sleep: one hand-over through the kernel per few emissions. */
#define SPINS 5000
#define WAIT_BATCH 4

static inline void give_way(void)
{
	sched_yield();
}

/* Wake the sleepers: both conditions (work for the endpoints, finished
 * jobs for the caller). */
static void wake(struct pte_workers *w)
{
	pthread_mutex_lock(&w->mu);
	pthread_cond_broadcast(&w->work);
	pthread_cond_broadcast(&w->done);
	pthread_mutex_unlock(&w->mu);
}

/* Thread t's next job is published (1), or the threads stop (0). */
static int wait_work(struct pte_workers *w, unsigned t)
{
	for (unsigned i = 0; i < w->spins; i++) {
		if (atomic_load(&w->stop))
			return 0;
		if (atomic_load(&w->published) > atomic_load(&w->finished[t]))
			return 1;
		give_way();
	}
	pthread_mutex_lock(&w->mu);
	atomic_fetch_add(&w->sleeping, 1);
	while (!atomic_load(&w->stop) &&
	       atomic_load(&w->published) <= atomic_load(&w->finished[t]))
		pthread_cond_wait(&w->work, &w->mu);
	atomic_fetch_sub(&w->sleeping, 1);
	pthread_mutex_unlock(&w->mu);
	return !atomic_load(&w->stop);
}

static int all_finished(struct pte_workers *w, uint64_t k)
{
	for (unsigned t = 0; t < w->n; t++)
		if (atomic_load(&w->finished[t]) < k)
			return 0;
	return 1;
}

/* Until every thread has finished job j; when that means sleeping,
 * until they have finished `upto` jobs (up to WAIT_BATCH more). */
static void wait_done(struct pte_workers *w, uint64_t j, uint64_t upto)
{
	for (unsigned i = 0; i < w->spins; i++) {
		if (all_finished(w, j + 1))
			return;
		give_way();
	}
	pthread_mutex_lock(&w->mu);
	atomic_store(&w->want, upto);
	atomic_fetch_add(&w->sleeping, 1);
	while (!all_finished(w, upto))
		pthread_cond_wait(&w->done, &w->mu);
	atomic_fetch_sub(&w->sleeping, 1);
	pthread_mutex_unlock(&w->mu);
}

/* Thread t runs its endpoints' jobs in order as they are published. */
static void *worker(void *arg)
{
	const struct pte_worker_arg *a = arg;
	struct pte_card *c = a->c;
	struct pte_workers *w = &c->w;
	const unsigned t = a->t;

	while (wait_work(w, t)) {
		uint64_t j = atomic_load(&w->finished[t]);
		for (unsigned e = t; e < c->neps; e += a->nth)
			ep_job(&c->ep[e], c->nports, &c->jobs[j % PTE_JOBS],
			       &c->snaps[j % PTE_JOBS][e], c->words_on_ep);
		atomic_store(&w->finished[t], j + 1);
		if (atomic_load(&w->sleeping) && j + 1 >= atomic_load(&w->want))
			wake(w);
	}
	return NULL;
}

/* The planned jobs go to the endpoint threads. */
static void publish(struct pte_card *c)
{
	struct pte_workers *w = &c->w;

	if (atomic_load(&w->published) == c->planned)
		return;
	atomic_store(&w->published, c->planned);
	if (atomic_load(&w->sleeping))
		wake(w);
}

/* Job `planned` goes to the endpoints: run here without threads, or when
 * it is the only one (a short advance, as an access on the MI bus makes,
 * is not worth two hand-overs); else it waits to be published. */
static void dispatch(struct pte_card *c, int here)
{
	uint64_t j = c->planned++;
	struct pte_workers *w = &c->w;

	if (w->n && !here)
		return;
	for (unsigned e = 0; e < c->neps; e++)
		ep_job(&c->ep[e], c->nports, &c->jobs[j % PTE_JOBS], &c->snaps[j % PTE_JOBS][e],
		       c->words_on_ep);
	/* the threads are idle (every job before was collected): they go on
	 * after this one */
	for (unsigned t = 0; t < w->n; t++)
		atomic_store(&w->finished[t], j + 1);
	if (w->n)
		atomic_store(&w->published, j + 1);
}

/* The oldest job once every endpoint has run it: the model gets it.  A
 * failed endpoint's error is kept instead. */
static void collect(struct pte_card *c)
{
	uint64_t j = c->collected++;
	struct pte_workers *w = &c->w;
	struct pte_snap *snap[PTM_MAX_ENDPOINTS];

	if (w->n) {
		if (atomic_load(&w->published) <= j)
			publish(c);
		uint64_t upto = j + WAIT_BATCH < c->planned ? j + WAIT_BATCH : c->planned;
		wait_done(w, j, upto);
	}
	for (unsigned e = 0; e < c->neps; e++) {
		snap[e] = &c->snaps[j % PTE_JOBS][e];
		if (snap[e]->err && !c->err)
			c->err = snap[e]->err;
	}
	if (c->err)
		return;
	c->err = pte_emit(c, snap);
	if (c->err)
		return;
	const struct pte_job *jb = &c->jobs[j % PTE_JOBS];
	if (jb->mi_to > c->mi_done) {
		ptm_mi_idle_edges(c->m, 0, jb->mi_to - c->mi_done);
		c->batches++;
		c->mi_done = jb->mi_to;
	}
}

int pte_engine_advance(struct pte_card *c, uint64_t target)
{
	while (!c->err && (c->pcie_done < target || c->collected < c->planned)) {
		/* plan ahead while there are free slots; one short job alone
		 * runs here */
		while (!c->err && c->pcie_done < target && c->planned - c->collected < PTE_JOBS) {
			int here = c->planned == c->collected &&
				   target - c->pcie_done <= (uint64_t)c->em_max * c->slice;
			plan(c, target, &c->jobs[c->planned % PTE_JOBS]);
			dispatch(c, here);
			if (!c->w.n || here)
				break; /* ran already: give it to the model */
		}
		/* the threads get new jobs a few at a time */
		if (c->w.n && (c->planned - atomic_load(&c->w.published) >= WAIT_BATCH ||
			       c->pcie_done >= target))
			publish(c);
		collect(c);
	}
	/* after a failure, the endpoints finish what they were given */
	while (c->collected < c->planned)
		collect(c);
	return c->err;
}

/* ---- threads --------------------------------------------------------------------- */

void pte_engine_stop(struct pte_card *c)
{
	struct pte_workers *w = &c->w;

	if (!w->n)
		return;
	atomic_store(&w->stop, 1);
	pthread_mutex_lock(&w->mu);
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->mu);
	for (unsigned e = 0; e < w->n; e++)
		pthread_join(w->th[e], NULL);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->done);
	pthread_mutex_destroy(&w->mu);
	w->n = 0;
}

unsigned pte_engine_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (unsigned)n : 1;
}

/*
 * Endpoint threads for a card: one per endpoint while a CPU is left for
 * the model's thread, else as many as CPUs but that one (at least one),
 * each running several endpoints.
 */
unsigned pte_engine_auto_threads(const struct pte_card *c)
{
	unsigned cpus = pte_engine_cpus();

	return cpus > c->neps ? c->neps : (cpus > 1 ? cpus - 1 : 1);
}

/* Threads start: nth of them (1 to the endpoints).  The word builders go
 * where the load is lighter: with their endpoint when each endpoint of
 * several has a thread of its own (the model's thread has all their
 * signals to take), else with the model (an endpoint's own scheduling is
 * heavier than its words; measured: two endpoints on one thread with
 * their words there were 20 to 30 % slower). */
static int threads_start(struct pte_card *c, unsigned nth)
{
	struct pte_workers *w = &c->w;

	memset(w, 0, sizeof(*w));
	w->spins = SPINS;
	c->words_on_ep = c->neps > 1 && nth >= c->neps;
	atomic_store(&w->published, c->planned);
	for (unsigned t = 0; t < nth; t++)
		atomic_store(&w->finished[t], c->planned);
	if (pthread_mutex_init(&w->mu, NULL) || pthread_cond_init(&w->work, NULL) ||
	    pthread_cond_init(&w->done, NULL))
		return -EAGAIN;
	for (unsigned t = 0; t < nth; t++) {
		w->arg[t] = (struct pte_worker_arg){ c, t, nth };
		int rc = pthread_create(&w->th[t], NULL, worker, &w->arg[t]);
		if (rc) {
			w->n = t;
			if (t) {
				pte_engine_stop(c);
			} else {
				pthread_cond_destroy(&w->work);
				pthread_cond_destroy(&w->done);
				pthread_mutex_destroy(&w->mu);
			}
			return -rc;
		}
		w->n = t + 1;
	}
	return 0;
}

int pte_engine_threads(struct pte_card *c, unsigned nth)
{
	if (nth > c->neps)
		nth = c->neps;
	if (nth == c->w.n)
		return 0;
	pte_engine_stop(c);
	return nth ? threads_start(c, nth) : 0;
}
