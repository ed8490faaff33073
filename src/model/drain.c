/*
 * pcie-telemetry: the drain run of ptm_mi_idle_edges(): idle MI edges
 * while the counter memory adds the probes' deltas.
 *
 * On an idle MI edge (no read, write, command pulse or reset) with no
 * edge of another domain in between, the register block and the status
 * path do not depend on the ACC or the FIFOs, and settle within a few
 * edges; the probes' FIFOs change only on their read side (the write
 * pointers stay where they are), and the flag synchronisers follow flags
 * that do not move.  So the ACC (IDLE/RD/ADD/WR) and the FIFOs' read
 * sides are stepped here, edge by edge but only where something changes:
 * a FIFO that holds its head for the ACC, or that is empty with its
 * output registers loaded, costs nothing per edge.  The register block,
 * the status path and the flag synchronisers are caught up after the
 * run, which gives the same state because they are independent of it.
 * Exactly what ptm_mi_edge() does edge by edge (test_model_props,
 * test_model_batch compare the two).
 */
#include "model/asfifo.h"
#include "model/model_priv.h"
#include "model/probe_priv.h"

/* The run's view of one stream's FIFO read side. */
struct dstream {
	struct ptm_asfifo *f;
	uint32_t avail;   /* written entries not loaded yet: wr_synced_reg - rd_cnt */
	uint8_t sync;     /* the write pointer's synchroniser still moves */
	uint8_t idle;     /* an edge changes nothing (empty, settled, data registers loaded) */
	uint8_t moved;    /* rd_cnt moved at the last edge: rd_in_gray follows at the next */
	uint8_t shifted;  /* the output registers loaded at the last edge */
	uint8_t gray_moved;
	uint64_t pops;
};


static void ds_state(struct dstream *d)
{
	const struct ptm_asfifo *f = d->f;
	const uint32_t g = f->wr_in_gray;
	d->sync = f->wsync[0] != g || f->wsync[1] != g || f->wsync[2] != g ||
		  f->wr_synced_reg != asfifo_gray2bin(g);
	d->avail = (f->wr_synced_reg - f->rd_cnt) & f->ptr_mask;
	d->moved = f->rd_in_gray != asfifo_bin2gray(f->rd_cnt);
	const struct ptm_fifo_entry *h = &f->mem[f->rd_cnt_mem & f->mem_mask];
	d->idle = !d->sync && !d->moved && !d->avail && !f->vld_reg && !f->vld_reg2 &&
		  f->dout_reg.index == h->index && f->dout_reg.delta == h->delta &&
		  f->dout_reg2.index == h->index && f->dout_reg2.delta == h->delta;
}

/* One MI edge of the read side (asfifo_rd_edge without reset). */
static inline void ds_edge(struct dstream *d, int rd, struct ptm_acc_stream *last)
{
	struct ptm_asfifo *f = d->f;
	if (rd)
		d->pops++;
	if (d->moved) {
		f->rd_in_gray = asfifo_bin2gray(f->rd_cnt);
		d->gray_moved = 1;
		d->moved = 0;
	}
	d->shifted = 0;
	if (rd || !f->vld_reg2) {
		if (f->vld_reg2) { /* seen valid at this edge (see ptm_mi_edge) */
			last->index = f->dout_reg2.index;
			last->delta = f->dout_reg2.delta;
		}
		f->dout_reg2 = f->dout_reg;
		f->vld_reg2 = f->vld_reg;
		f->dout_reg = f->mem[f->rd_cnt_mem & f->mem_mask];
		f->vld_reg = d->avail != 0;
		if (d->avail) {
			f->rd_cnt = (f->rd_cnt + 1) & f->ptr_mask;
			f->rd_cnt_mem = (f->rd_cnt_mem + 1) & f->mem_mask;
			d->avail--;
			d->moved = 1;
		}
		d->shifted = 1;
	}
	if (d->sync) {
		f->wr_synced_reg = asfifo_gray2bin(f->wsync[2]);
		f->wsync[2] = f->wsync[1];
		f->wsync[1] = f->wsync[0];
		f->wsync[0] = f->wr_in_gray;
		d->avail = (f->wr_synced_reg - f->rd_cnt) & f->ptr_mask;
		d->sync = f->wsync[2] != f->wr_in_gray || f->wr_synced_reg != asfifo_gray2bin(f->wr_in_gray);
	}
	if (!f->vld_reg2 && !f->vld_reg && !d->avail && !d->sync && !d->moved)
		ds_state(d);
}

/* One ACC edge of the drain (IDLE/RD/ADD/WR, no command); returns the
 * stream popped at this edge, or -1. */
static inline int acc_edge(struct ptm_model *m, const struct dstream *d, const unsigned ns)
{
	struct ptm_acc *a = &m->acc;
	switch (a->state) {
	case PTM_ACC_WR:
		a->mem[a->addr] = a->sum;
		/* fall through */
	case PTM_ACC_IDLE:
		a->state = PTM_ACC_IDLE;
		for (unsigned i = 1; i <= ns; i++) {
			unsigned j = a->sel + i;
			j = j >= ns ? j - ns : j;
			if (d[j].f->vld_reg2) {
				a->sel = j;
				a->state = PTM_ACC_RD;
				break;
			}
		}
		return -1;
	case PTM_ACC_RD: {
		const unsigned s = a->sel;
		const struct ptm_fifo_entry *h = &d[s].f->dout_reg2;
		const unsigned addr = (a->stream_base[s] + h->index) & (2 * a->entries - 1);
		a->pa_dout = a->mem[addr];
		a->addr = addr;
		a->data = h->delta;
		a->state = PTM_ACC_ADD;
		return (int)s;
	}
	default: /* PTM_ACC_ADD */
		a->sum = (a->pa_dout + a->data) & a->cnt_mask;
		a->state = PTM_ACC_WR;
		return -1;
	}
}

/* An edge changes nothing of the stream: empty and settled, or holding
 * its head for the ACC. */
static inline int ds_quiet(const struct dstream *d)
{
	return d->idle || (d->f->vld_reg2 && !d->sync && !d->moved);
}

/*
 * The common stretch of a drain: the ACC about to read a delta of stream
 * s (RD) whose next entry is already in the first output register, every
 * other stream quiet.  Then RD, ADD and WR are three edges in which only
 * s pops once (at RD) and moves its read pointer register (at ADD).
 */
static inline int triple_own(const struct dstream *q)
{
	return !q->sync && !q->moved && q->f->vld_reg;
}

static inline int triple_ok(const struct dstream *d, unsigned s, const unsigned ns)
{
	if (!triple_own(&d[s]))
		return 0;
	for (unsigned t = 0; t < ns; t++)
		if (t != s && !ds_quiet(&d[t]))
			return 0;
	return 1;
}

/*
 * triples() when every other stream is idle: the ACC serves stream s
 * alone, one delta per three edges, as long as an entry follows the head
 * (the queue is dout_reg2, dout_reg and the entries in the RAM), so up to
 * k deltas go straight from the FIFO's memory into the counter memory,
 * and the read side's registers are set to where k pops leave them.
 * Returns the number of edges done.
 */
static uint64_t solo(struct ptm_model *m, struct dstream *q, unsigned s, uint64_t k)
{
	struct ptm_acc *a = &m->acc;
	struct ptm_asfifo *f = q->f;
	const uint32_t av = q->avail, rdm = f->rd_cnt_mem, mm = f->mem_mask;
	const uint64_t D = k < (uint64_t)av + 1 ? k : (uint64_t)av + 1;
	uint64_t *const mem = a->mem;
	const uint64_t cmask = a->cnt_mask;
	const unsigned amask = 2 * a->entries - 1, base = a->stream_base[s];
	struct ptm_fifo_entry e = f->dout_reg2;
	unsigned addr = 0;
	uint64_t sum = 0, pa = 0;
	for (uint64_t j = 0; j < D; j++) {
		if (j == 1)
			e = f->dout_reg;
		else if (j > 1)
			e = f->mem[(rdm + (uint32_t)j - 2) & mm];
		addr = (base + e.index) & amask;
		pa = mem[addr];
		sum = (pa + e.delta) & cmask;
		mem[addr] = sum;
	}
	m->tx_last[s].index = e.index;
	m->tx_last[s].delta = e.delta;
	a->addr = addr;
	a->pa_dout = pa;
	a->data = e.delta;
	a->sum = sum;
	a->state = PTM_ACC_RD; /* the next head is valid: s again */
	/* the read side after D pops (see asfifo_rd_edge) */
	const uint32_t adv = D < av ? (uint32_t)D : av;
	f->dout_reg2 = D == 1 ? f->dout_reg : f->mem[(rdm + (uint32_t)D - 2) & mm];
	f->dout_reg = f->mem[(rdm + (D - 1 < av ? (uint32_t)D - 1 : av)) & mm];
	f->vld_reg = D <= av;
	f->rd_cnt = (f->rd_cnt + adv) & f->ptr_mask;
	f->rd_cnt_mem = (rdm + adv) & mm;
	f->rd_in_gray = asfifo_bin2gray(f->rd_cnt);
	q->avail = av - adv;
	q->gray_moved |= adv != 0;
	q->pops += D;
	q->shifted = 0;
	return 3 * D;
}

/*
 * Whole rounds of triples(): the streams whose heads are valid (vmask,
 * from sel on, round robin) each pop a delta per round, each keeping a
 * next entry (avail >= R) for R rounds, |S| R <= k.  The streams' deltas
 * go to parts of the counter memory of their own, so each stream's R of
 * them can go in one go (solo), in the order of the round: the ACC's
 * registers are the last one's.  Returns the deltas done, 0 when not even
 * one round (a stream has no next entry, or synchronises, or moved).
 */
static uint64_t rounds(struct ptm_model *m, struct dstream *d, uint64_t k, unsigned sel,
		       uint32_t vmask)
{
	uint64_t R = UINT64_MAX, nset = 0;
	for (uint32_t v = vmask; v; v &= v - 1, nset++) {
		const struct dstream *q = &d[__builtin_ctz(v)];
		if (!triple_own(q))
			return 0;
		if (q->avail < R)
			R = q->avail;
	}
	if (!nset)
		return 0;
	if (R > k / nset)
		R = k / nset;
	if (!R)
		return 0;
	const uint32_t from = vmask & ~((1u << sel) - 1u), before = vmask & ((1u << sel) - 1u);
	for (uint32_t v = from; v; v &= v - 1)
		solo(m, &d[__builtin_ctz(v)], (unsigned)__builtin_ctz(v), R);
	for (uint32_t v = before; v; v &= v - 1)
		solo(m, &d[__builtin_ctz(v)], (unsigned)__builtin_ctz(v), R);
	return nset * R;
}

/* Up to k deltas in a row, each in three edges (triple_ok holds before
 * each); returns the number of edges done. */
static inline __attribute__((always_inline)) uint64_t triples(struct ptm_model *m,
							    struct dstream *d, uint64_t k,
							    const unsigned ns)
{
	struct ptm_acc *a = &m->acc;
	uint64_t *const mem = a->mem;
	const uint64_t cmask = a->cnt_mask;
	const unsigned amask = 2 * a->entries - 1;
	unsigned sel = a->sel, addr = 0;
	uint64_t sum = 0, pa = 0, data = 0, done = 0;
	/* the streams whose head is valid: the others are quiet and sel
	 * keeps its head valid (it stops when the next would not be), so
	 * this stays as it is during the run */
	uint32_t vmask = 0;
	for (unsigned t = 0; t < ns; t++)
		vmask |= (uint32_t)(d[t].f->vld_reg2 != 0) << t;
	const uint64_t r = rounds(m, d, k, sel, vmask);
	if (r) {
		/* back at sel, state RD, the ACC's registers of the last delta */
		done = 3 * r;
		addr = a->addr;
		pa = a->pa_dout;
		data = a->data;
		sum = a->sum;
		k -= r;
	}
	while (k) {
		struct dstream *q = &d[sel];
		struct ptm_asfifo *f = q->f;
		/* RD: the ACC reads the head, the FIFO pops it */
		const struct ptm_fifo_entry h = f->dout_reg2;
		addr = (a->stream_base[sel] + h.index) & amask;
		pa = mem[addr];
		data = h.delta;
		m->tx_last[sel].index = h.index;
		m->tx_last[sel].delta = h.delta;
		q->pops++;
		f->dout_reg2 = f->dout_reg;
		f->dout_reg = f->mem[f->rd_cnt_mem & f->mem_mask];
		f->vld_reg = q->avail != 0;
		const uint32_t moved = q->avail != 0;
		f->rd_cnt = (f->rd_cnt + moved) & f->ptr_mask;
		f->rd_cnt_mem = (f->rd_cnt_mem + moved) & f->mem_mask;
		q->avail -= moved;
		/* ADD: the read pointer register follows */
		sum = (pa + data) & cmask;
		f->rd_in_gray = asfifo_bin2gray(f->rd_cnt);
		q->gray_moved |= (uint8_t)moved;
		/* WR, and the next stream */
		mem[addr] = sum;
		done += 3;
		/* the first valid head after sel, round robin (sel at last) */
		const uint32_t after = vmask & ~((2u << sel) - 1u);
		const unsigned next = vmask ? (unsigned)__builtin_ctz(after ? after : vmask) : ns;
		if (next == ns || !f->vld_reg) {
			/* idle next, or s may run dry: back to single edges,
			 * with the state after this WR */
			if (!f->vld_reg2 && !f->vld_reg && !q->avail)
				ds_state(q);
			a->state = next == ns ? PTM_ACC_IDLE : PTM_ACC_RD;
			sel = next == ns ? sel : next;
			break;
		}
		/* the others stay quiet: triple_ok(next) held before this
		 * delta for all but sel, and sel is quiet after it (its head
		 * still valid, neither synchronising nor moved): only next's
		 * own part is left to ask */
		sel = next;
		if (--k == 0 || !triple_own(&d[sel])) {
			a->state = PTM_ACC_RD;
			break;
		}
	}
	a->sel = sel;
	a->addr = addr;
	a->pa_dout = pa;
	a->data = data;
	a->sum = sum;
	for (unsigned t = 0; t < ns; t++)
		d[t].shifted = d[t].idle;
	return done;
}

/* Up to n edges of the run; the number done (n, or fewer when the run
 * has to stop: never, so far), 0 when not applicable. */
static inline __attribute__((always_inline)) uint64_t drain_n(struct ptm_model *m, uint64_t n,
								const unsigned ns)
{
	struct ptm_acc *a = &m->acc;
	struct dstream d[PTM_MAX_STREAMS];
	for (unsigned s = 0; s < ns; s++) {
		d[s].f = ptm_probe_mi_drain_fifo(m->ep[s / 2].probe[s % 2], m->regs.flag_tgl);
		if (!d[s].f)
			return 0;
		ds_state(&d[s]);
		d[s].pops = 0;
		d[s].shifted = 0;
		d[s].gray_moved = 0;
	}
	uint64_t done = 0;
	while (done < n) {
		if (a->state == PTM_ACC_IDLE) {
			unsigned busy = 0;
			for (unsigned s = 0; s < ns; s++)
				busy |= !d[s].idle;
			if (!busy) {
				/* every further edge is a no-op */
				for (unsigned s = 0; s < ns; s++)
					d[s].shifted = 1;
				done = n;
				break;
			}
		}
		if (a->state == PTM_ACC_RD && n - done >= 3 && triple_ok(d, a->sel, ns)) {
			unsigned others = 0;
			for (unsigned t = 0; t < ns; t++)
				others |= t != a->sel && !d[t].idle;
			if (others)
				done += triples(m, d, (n - done) / 3, ns);
			else
				done += solo(m, &d[a->sel], a->sel, (n - done) / 3);
			continue;
		}
		const int rdsel = acc_edge(m, d, ns);
		for (unsigned s = 0; s < ns; s++) {
			struct dstream *q = &d[s];
			const int rd = (int)s == rdsel;
			if (q->idle) {
				q->shifted = 1; /* loads what it holds */
				continue;
			}
			if (!rd && q->f->vld_reg2 && !q->sync && !q->moved) {
				q->shifted = 0; /* holds its head for the ACC */
				continue;
			}
			ds_edge(q, rd, &m->tx_last[s]);
		}
		done++;
	}
	for (unsigned s = 0; s < ns; s++) {
		struct ptm_asfifo *f = d[s].f;
		/* the head seen valid at the start of the last edge */
		if (f->vld_reg2 && !d[s].shifted) {
			m->tx_last[s].index = f->dout_reg2.index;
			m->tx_last[s].delta = f->dout_reg2.delta;
		}
		f->gone += d[s].pops;
		if (d[s].gray_moved)
			f->wr_quiet = 0;
		asfifo_rd_requiet(f);
		ptm_probe_mi_drained(m->ep[s / 2].probe[s % 2], d[s].pops, done);
	}
	return done;
}

/* The register block and the status path over k idle edges: they settle
 * within a few, after which an idle edge changes nothing. */
static void catch_up(struct ptm_model *m, uint64_t k)
{
	const struct ptm_mi_in idle = { 0 };
	const uint32_t idle_value = ptm_regs_value(m, 0);
	for (uint64_t i = 0; i < k; i++) {
		const struct ptm_regs *r = &m->regs;
		int quiet = !r->rd_reg && !r->rd_reg2 && !r->addr_reg && !r->cmd_snap &&
			    !r->cmd_clear && !r->cmd_mark && r->reg_dout_reg == idle_value &&
			    r->drd == idle_value;
		if (!quiet)
			ptm_regs_edge(m, &idle, m->acc.rd_data);
		for (unsigned e = 0; e < m->nep; e++) {
			if (!ptm_aux_mi_quiet(&m->ep[e])) {
				ptm_aux_mi_edge(&m->ep[e], 0, 0);
				quiet = 0;
			}
		}
		if (quiet)
			return;
	}
}

uint64_t ptm_mi_drain(struct ptm_model *m, uint64_t n)
{
	const struct ptm_acc *a = &m->acc;
	const struct ptm_regs *r = &m->regs;
	if (a->state > PTM_ACC_WR || a->snap_req || a->clear_req || m->mi_rst || r->cmd_snap ||
	    r->cmd_clear || r->cmd_mark)
		return 0;
	/* one or two endpoints (two or four streams) with constant loop bounds */
	uint64_t done = m->nstreams == 2   ? drain_n(m, n, 2)
			: m->nstreams == 4 ? drain_n(m, n, 4)
					   : drain_n(m, n, m->nstreams);
	if (done) {
		catch_up(m, done);
		m->mi_quiet = m->mi_quiet + done < m->mi_quiet ? UINT64_MAX : m->mi_quiet + done;
	}
	return done;
}
