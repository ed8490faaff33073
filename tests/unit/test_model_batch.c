/*
 * The batch calls of the component model (and its runs: every signal a
 * list of its own) against single edges of the plain model, state by
 * state.
 *
 * Two models get the same random stimulus: `a` through the batch calls
 * (ptm_pcie_edges, ptm_dma_edges, ptm_mi_idle_edges, ptm_pcie_runs,
 * ptm_dma_runs, with all their fast paths), `b` edge by edge with every probe on its plain path
 * (ptm_probe_debug_slow), which is the RTL register by register.  After
 * every call the whole state must agree: every probe's CLK registers and
 * counters (in the representation-independent form of
 * ptm_probe_debug_regs), its FIFO, the status path of every endpoint, the
 * counter memory, the ACC and the register block.  The stimulus covers
 * random generics and clock ratios (including MI clocks too slow to keep
 * up, so that deltas are lost), batches of every length with inputs that
 * change at every batch (mostly on one bus at a time, as the simulated
 * card drives them), resets of every domain in the middle of drain
 * sweeps, commands (SNAPSHOT, CLEAR, FLAG_CLR, clear marks, READ_SEL)
 * during sweeps, and MI reads of the live counters.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model_priv.h"
#include "model/probe_impl.h"
#include "pcie_telemetry/model.h"
#include "model_rand.h"

/* ------------------------------------------------------------------ */
/* stimulus                                                             */

/* Random generics with drain periods short enough for single edges. */
static void gen_generics(struct ptm_generics *g)
{
	char msg[256];
	do {
		rand_generics(g, 1);
		if (g->drain_period > 1024)
			g->drain_period = 128u << rndn(4);
	} while (ptm_generics_check(g, msg, sizeof(msg)) != 0);
}

struct stim {
	const struct ptm_generics *g;
	unsigned db;
	struct ptm_pcie_in pin[PTM_MAX_ENDPOINTS];
	struct ptm_bus_in dbus[PTM_MAX_ENDPOINTS * PTM_MAX_PROBE_BUSES];
	int drst;
	struct ptm_mi_in mi;
};

/* New PCIe inputs of endpoint ep: one signal most of the time. */
static void change_pcie(struct stim *s, unsigned ep)
{
	const struct ptm_generics *g = s->g;
	struct ptm_pcie_in *in = &s->pin[ep];
	unsigned what = rndn(10);
	if (what < 3 || what == 9)
		rand_bus(&in->bus[0], g->pcie_rq_mfb_regions,
			 g->pcie_rq_mfb_region_bytes / g->mfb_item_bytes, 0, 70);
	if (what >= 3 && what < 6)
		rand_bus(&in->bus[1], g->pcie_rc_mfb_regions,
			 g->pcie_rc_mfb_region_bytes / g->mfb_item_bytes, 0, 70);
	if (what == 6 || what == 9)
		in->brake = (uint8_t)(rnd() & rnd() & 0x3f);
	if (what == 7 || what == 9) {
		/* around the band limits */
		unsigned c = g->tag_capacity, v = rndn(4) == 0 ? 0 : rndn(c + 1);
		in->tag_free = (uint16_t)(rndn(3) ? v : c / 8 + rndn(2));
	}
	if (what == 8 || what == 9) {
		unsigned c = g->stfifo_capacity, v = rndn(4) == 0 ? 0 : rndn(c + 1);
		in->stfifo_free = (uint16_t)(rndn(3) ? v : c / 2 + rndn(2));
		in->mps = (uint8_t)rndn(8);
		in->link_up = (uint8_t)rndn(2);
	}
}

/* New DMA inputs: one bus most of the time. */
static void change_dma(struct stim *s)
{
	const struct ptm_generics *g = s->g;
	unsigned nb = g->pcie_endpoints * s->db;
	for (unsigned k = rndn(4) == 0 ? 1 + rndn(nb) : 1; k; k--) {
		unsigned i = rndn(nb), up = (i % 2) == 0;
		unsigned regions = up ? g->dma_up_mfb_regions : g->dma_down_mfb_regions;
		unsigned bytes = up ? g->dma_up_mfb_region_bytes : g->dma_down_mfb_region_bytes;
		rand_bus(&s->dbus[i], regions, bytes / g->mfb_item_bytes, 1, 60);
	}
}

static uint64_t rand_len(unsigned dp)
{
	unsigned k = rndn(100);
	return k < 45 ? 1 + rndn(3) : k < 80 ? 4 + rndn(100) : 1 + rndn(2 * dp);
}

/* ------------------------------------------------------------------ */
/* state comparison                                                     */

/* FIFO entries, field by field (the structs have padding). */
static void same_entries(const struct ptm_fifo_entry *a, const struct ptm_fifo_entry *b, size_t n,
			 const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].index != b[i].index || a[i].delta != b[i].delta)
			fail_msg("%s: FIFO entry %zu: index %u/%u delta %llu/%llu", what, i, a[i].index,
				 b[i].index, (unsigned long long)a[i].delta,
				 (unsigned long long)b[i].delta);
}

static void same_probe(ptm_probe *a, ptm_probe *b, const char *what)
{
	static uint64_t ca[1024], cb[1024], ga[128], gb[128];
	struct ptm_probe_regs ra, rb;
	ptm_probe_debug_regs(a, &ra, ca, ga);
	ptm_probe_debug_regs(b, &rb, cb, gb);
	if (memcmp(&ra, &rb, sizeof(ra)) != 0)
		fail_msg("%s: CLK registers: period %u/%u run %u/%u slot %u/%u pos %u/%u "
			 "frame_open %x/%x wr_en %u/%u ovf %u/%u overrun %u/%u rsync %u/%u",
			 what, ra.period, rb.period, ra.run, rb.run, ra.slot, rb.slot, ra.pos,
			 rb.pos, ra.frame_open, rb.frame_open, ra.wr_en, rb.wr_en, ra.ovf, rb.ovf,
			 ra.overrun, rb.overrun, ra.rsync, rb.rsync);
	for (unsigned c = 0; c < a->groups * 8; c++)
		if (ca[c] != cb[c])
			fail_msg("%s: counter %u: batch %llu, single %llu", what, c,
				 (unsigned long long)ca[c], (unsigned long long)cb[c]);
	assert_memory_equal(ga, gb, a->groups * sizeof(ga[0]));
	const struct ptm_asfifo *x = &a->fifo, *y = &b->fifo;
	if (x->full_reg != y->full_reg || x->vld_reg != y->vld_reg || x->vld_reg2 != y->vld_reg2 ||
	    x->wr_rff != y->wr_rff || x->rd_rff != y->rd_rff || x->wr_cnt != y->wr_cnt ||
	    x->wr_in_gray != y->wr_in_gray || x->rd_synced_reg != y->rd_synced_reg ||
	    x->rd_cnt != y->rd_cnt || x->rd_cnt_mem != y->rd_cnt_mem ||
	    x->rd_in_gray != y->rd_in_gray || x->wr_synced_reg != y->wr_synced_reg ||
	    memcmp(x->rsync, y->rsync, sizeof(x->rsync)) || memcmp(x->wsync, y->wsync, sizeof(x->wsync)) ||
	    x->accepted != y->accepted || x->gone != y->gone)
		fail_msg("%s: FIFO: wr_cnt %u/%u rd_cnt %u/%u wr_synced %u/%u rd_synced %u/%u "
			 "vld %u%u/%u%u full %u/%u",
			 what, x->wr_cnt, y->wr_cnt, x->rd_cnt, y->rd_cnt, x->wr_synced_reg,
			 y->wr_synced_reg, x->rd_synced_reg, y->rd_synced_reg, x->vld_reg,
			 x->vld_reg2, y->vld_reg, y->vld_reg2, x->full_reg, y->full_reg);
	same_entries(&x->dout_reg, &y->dout_reg, 1, what);
	same_entries(&x->dout_reg2, &y->dout_reg2, 1, what);
	same_entries(x->mem, y->mem, x->items, what);
	assert_memory_equal(&a->st, &b->st, sizeof(a->st));
	assert_int_equal(a->oq1, b->oq1);
	assert_int_equal(a->oq2, b->oq2);
	assert_int_equal(a->vq1, b->vq1);
	assert_int_equal(a->vq2, b->vq2);
	assert_int_equal(a->flag_lvl, b->flag_lvl);
	assert_int_equal(a->mi_rst, b->mi_rst);
}

static void same_model(ptm_model *a, ptm_model *b, const char *what, int step, const char *op)
{
	char w[320];
	for (unsigned e = 0; e < a->nep; e++) {
		for (int k = 0; k < 2; k++) {
			snprintf(w, sizeof(w), "%s, step %d (%s): endpoint %u %s probe", what, step, op, e,
				 k ? "DMA" : "PCIe");
			same_probe(a->ep[e].probe[k], b->ep[e].probe[k], w);
		}
		const struct ptm_ep *x = &a->ep[e], *y = &b->ep[e];
		if (x->tag_band != y->tag_band || x->stf_band != y->stf_band ||
		    x->tag_win_min != y->tag_win_min || x->stf_win_min != y->stf_win_min ||
		    memcmp(&x->hs, &y->hs, sizeof(x->hs)) || x->cfg != y->cfg ||
		    x->tag_now != y->tag_now || x->tag_min != y->tag_min || x->stf_now != y->stf_now ||
		    x->stf_min != y->stf_min)
			fail_msg("%s, step %d (%s): endpoint %u status path: bands %u%u/%u%u win %u,%u/%u,%u "
				 "a_en %u/%u a_wait %u/%u tag_min %u/%u",
				 what, step, op, e, x->tag_band, x->stf_band, y->tag_band, y->stf_band,
				 x->tag_win_min, x->stf_win_min, y->tag_win_min, y->stf_win_min,
				 x->hs.a_en, y->hs.a_en, x->hs.a_wait, y->hs.a_wait, x->tag_min,
				 y->tag_min);
	}
	const struct ptm_acc *x = &a->acc, *y = &b->acc;
	if (x->state != y->state || x->sel != y->sel || x->addr != y->addr || x->data != y->data ||
	    x->sum != y->sum || x->pa_dout != y->pa_dout || x->rd_data != y->rd_data ||
	    x->sweep != y->sweep || x->snap_req != y->snap_req || x->clear_req != y->clear_req)
		fail_msg("%s, step %d (%s): ACC state %u/%u sel %u/%u addr %u/%u sweep %u/%u", what,
			 step, op, x->state, y->state, x->sel, y->sel, x->addr, y->addr, x->sweep,
			 y->sweep);
	assert_memory_equal(a->mem, b->mem, 2 * (size_t)a->d.entries * sizeof(uint64_t));
	const struct ptm_regs *r = &a->regs, *q = &b->regs;
	if (r->cmd_snap != q->cmd_snap || r->cmd_clear != q->cmd_clear || r->cmd_mark != q->cmd_mark ||
	    r->flag_tgl != q->flag_tgl || r->read_live != q->read_live || r->rd_reg != q->rd_reg ||
	    r->rd_reg2 != q->rd_reg2 || r->addr_reg != q->addr_reg ||
	    r->reg_dout_reg != q->reg_dout_reg || r->drd != q->drd)
		fail_msg("%s, step %d (%s): register block: drd %08x/%08x rd %u%u/%u%u", what, step, op,
			 r->drd, q->drd, r->rd_reg, r->rd_reg2, q->rd_reg, q->rd_reg2);
	for (unsigned s = 0; s < a->nstreams; s++)
		if (a->tx_last[s].index != b->tx_last[s].index ||
		    a->tx_last[s].delta != b->tx_last[s].delta)
			fail_msg("%s, step %d (%s): stream %u: the head seen last differs", what, step, op,
				 s);
	assert_int_equal(a->mi_rst, b->mi_rst);
}

/* ------------------------------------------------------------------ */
/* runs: every signal its own list (ptm_pcie_runs, ptm_dma_runs)          */

#define MAX_RUNS 24

/* Random lengths of at most max runs that cover n edges: many short
 * ones and a few long ones. */
static unsigned rand_lens(uint64_t *len, unsigned max, uint64_t n)
{
	unsigned k = 0;
	for (uint64_t left = n; left;) {
		uint64_t l = k + 1 == max ? left : rndn(3) ? 1 + rndn(4) : 1 + rnd() % left;
		if (l > left)
			l = left;
		len[k++] = l;
		left -= l;
	}
	return k;
}

/* Runs of one bus over n edges: new random words, the first often the
 * word it has now. */
static unsigned bus_runs(struct ptm_bus_run *run, uint64_t n, const struct ptm_bus_in *now,
			 unsigned regions, unsigned items, int mvb)
{
	uint64_t len[MAX_RUNS];
	unsigned k = rand_lens(len, 1 + rndn(MAX_RUNS), n);
	for (unsigned i = 0; i < k; i++) {
		run[i].len = len[i];
		if (i == 0 && rndn(2))
			run[i].in = *now;
		else
			rand_bus(&run[i].in, regions, items, mvb, 70);
	}
	return k;
}

/* Runs of a level (around its band limits) or of the BRAKE bits. */
static unsigned val_runs(struct ptm_val_run *run, uint64_t n, unsigned cap, unsigned now)
{
	uint64_t len[MAX_RUNS];
	unsigned k = rand_lens(len, 1 + rndn(8), n);
	for (unsigned i = 0; i < k; i++) {
		unsigned v = cap ? (rndn(3) ? rndn(cap + 1) : rndn(2) ? cap / 8 + rndn(2) : cap / 2 + rndn(2))
				 : rnd() & rnd() & 0x3f;
		run[i] = (struct ptm_val_run){ len[i], i == 0 && rndn(3) == 0 ? now : v };
	}
	return k;
}

/* The value of run list r (n runs) at edge o. */
static const struct ptm_bus_run *bus_at(const struct ptm_bus_run *r, unsigned n, uint64_t o)
{
	for (unsigned i = 0; i < n; o -= r[i].len, i++)
		if (o < r[i].len)
			return &r[i];
	return &r[n - 1];
}

static uint32_t val_at(const struct ptm_val_run *r, unsigned n, uint64_t o)
{
	for (unsigned i = 0; i < n; o -= r[i].len, i++)
		if (o < r[i].len)
			return r[i].val;
	return r[n - 1].val;
}

/* One endpoint's PCIe edges as runs on a, edge by edge on b. */
static void pcie_runs_op(ptm_model *a, ptm_model *b, struct stim *s, unsigned e)
{
	const struct ptm_generics *g = s->g;
	struct ptm_pcie_in *in = &s->pin[e];
	static struct ptm_bus_run rb[2][MAX_RUNS];
	struct ptm_val_run brk[MAX_RUNS], tag[MAX_RUNS], stf[MAX_RUNS];
	uint64_t n = rand_len(g->drain_period) + (rndn(3) ? 0 : g->drain_period);
	struct ptm_pcie_runs r;
	r.nbus[0] = bus_runs(rb[0], n, &in->bus[0], g->pcie_rq_mfb_regions,
			     g->pcie_rq_mfb_region_bytes / g->mfb_item_bytes, 0);
	r.nbus[1] = bus_runs(rb[1], n, &in->bus[1], g->pcie_rc_mfb_regions,
			     g->pcie_rc_mfb_region_bytes / g->mfb_item_bytes, 0);
	r.bus[0] = rb[0];
	r.bus[1] = rb[1];
	r.brake = brk;
	r.nbrake = val_runs(brk, n, 0, in->brake);
	r.tag_free = tag;
	r.ntag = val_runs(tag, n, g->tag_capacity, in->tag_free);
	r.stfifo_free = stf;
	r.nstfifo = val_runs(stf, n, g->stfifo_capacity, in->stfifo_free);
	ptm_pcie_runs(a, e, in, &r, n);
	for (uint64_t o = 0; o < n; o++) {
		for (unsigned k = 0; k < 2; k++)
			in->bus[k] = bus_at(rb[k], r.nbus[k], o)->in;
		in->brake = (uint8_t)val_at(brk, r.nbrake, o);
		in->tag_free = (uint16_t)val_at(tag, r.ntag, o);
		in->stfifo_free = (uint16_t)val_at(stf, r.nstfifo, o);
		ptm_pcie_edge(b, e, in);
	}
}

/* Every endpoint's DMA edges as runs on a, edge by edge on b. */
static void dma_runs_op(ptm_model *a, ptm_model *b, struct stim *s)
{
	const struct ptm_generics *g = s->g;
	static struct ptm_bus_run rb[PTM_MAX_ENDPOINTS * PTM_MAX_PROBE_BUSES][MAX_RUNS];
	const struct ptm_bus_run *bus[PTM_MAX_ENDPOINTS * PTM_MAX_PROBE_BUSES];
	unsigned nr[PTM_MAX_ENDPOINTS * PTM_MAX_PROBE_BUSES];
	unsigned nb = g->pcie_endpoints * s->db;
	uint64_t n = rand_len(g->drain_period) + (rndn(3) ? 0 : g->drain_period);
	for (unsigned i = 0; i < nb; i++) {
		unsigned up = (i % 2) == 0;
		unsigned regions = up ? g->dma_up_mfb_regions : g->dma_down_mfb_regions;
		unsigned bytes = up ? g->dma_up_mfb_region_bytes : g->dma_down_mfb_region_bytes;
		if (rndn(3)) {
			nr[i] = bus_runs(rb[i], n, &s->dbus[i], regions, bytes / g->mfb_item_bytes, 1);
		} else {
			rb[i][0] = (struct ptm_bus_run){ n, s->dbus[i] }; /* a bus that stays */
			nr[i] = 1;
		}
		bus[i] = rb[i];
	}
	ptm_dma_runs(a, s->drst, bus, nr, n);
	for (uint64_t o = 0; o < n; o++) {
		for (unsigned i = 0; i < nb; i++)
			s->dbus[i] = bus_at(rb[i], nr[i], o)->in;
		ptm_dma_edge(b, s->drst, s->dbus);
	}
}

/* ------------------------------------------------------------------ */
/* the run                                                              */

static void slow_all(ptm_model *m)
{
	for (unsigned e = 0; e < m->nep; e++)
		for (int k = 0; k < 2; k++)
			ptm_probe_debug_slow(m->ep[e].probe[k], 1);
}

/* One MI operation on both models, single edges (a read of a live
 * counter, STATUS or a status register, or a command write). */
static void mi_op(ptm_model *a, ptm_model *b, struct stim *s)
{
	static const uint32_t cmds[] = { 1, 2, 4, 8, 3, 5 };
	struct ptm_mi_in in = { .rst = s->mi.rst };
	unsigned k = rndn(6);
	if (k == 0) {
		in.wr = 1;
		in.addr = 0x20;
		in.dwr = cmds[rndn(6)];
	} else if (k == 1) {
		in.wr = 1;
		in.addr = 0x28; /* READ_SEL */
		in.dwr = rndn(2);
	} else {
		in.rd = 1;
		in.addr = k == 2 ? 0x24 : k == 3 ? 0x40 + 0x40 * rndn(3) + 4 * rndn(2)
				   : 0x8000 + 4 * rndn(2 * a->d.entries);
	}
	for (int i = 0; i < 3; i++) {
		struct ptm_mi_out oa, ob;
		memset(&oa, 0, sizeof(oa)); /* the padding */
		memset(&ob, 0, sizeof(ob));
		ptm_mi_edge(a, &in, &oa);
		ptm_mi_edge(b, &in, &ob);
		assert_memory_equal(&oa, &ob, sizeof(oa));
		in.rd = in.wr = 0;
	}
}

static void run_round(uint64_t seed, int round)
{
	rng_state = seed;
	struct ptm_generics g;
	gen_generics(&g);
	char what[128], msg[256];
	snprintf(what, sizeof(what), "seed %llu round %d", (unsigned long long)seed, round);
	ptm_model *a = NULL, *b = NULL;
	assert_int_equal(ptm_model_new(&g, &a, msg, sizeof(msg)), 0);
	assert_int_equal(ptm_model_new(&g, &b, msg, sizeof(msg)), 0);
	slow_all(b);
	struct stim s;
	memset(&s, 0, sizeof(s));
	s.g = &g;
	s.db = 2 * g.dma_ports;
	for (unsigned e = 0; e < g.pcie_endpoints; e++) {
		s.pin[e].rst = 1;
		change_pcie(&s, e);
	}
	s.drst = 1;
	s.mi.rst = 1;
	/* the weights of the domains: PCIe, DMA, MI idle, MI operation; a
	 * light MI weight loses deltas */
	unsigned wp = 20 + rndn(40), wd = 10 + rndn(30), wm = 5 + rndn(40), wo = 1 + rndn(4);
	const unsigned total = wp + wd + wm + wo;
	for (int step = 0; step < 900; step++) {
		if (step == 6) {
			s.mi.rst = 0;
			s.drst = 0;
			for (unsigned e = 0; e < g.pcie_endpoints; e++)
				s.pin[e].rst = 0;
		}
		if (step > 6 && rndn(150) == 0) { /* a reset of one domain, anywhere */
			unsigned d = rndn(3);
			if (d == 0)
				s.pin[rndn(g.pcie_endpoints)].rst ^= 1;
			else if (d == 1)
				s.drst ^= 1;
			else
				s.mi.rst ^= 1;
		}
		for (unsigned e = 0; e < g.pcie_endpoints; e++)
			if (s.pin[e].rst && rndn(4) == 0)
				s.pin[e].rst = 0;
		if (s.drst && rndn(4) == 0)
			s.drst = 0;
		if (s.mi.rst && rndn(3) == 0)
			s.mi.rst = 0;
		unsigned x = rndn(total);
		const char *op;
		if (x < wp && rndn(3) == 0) {
			pcie_runs_op(a, b, &s, rndn(g.pcie_endpoints));
			op = "PCIe runs";
		} else if (x >= wp && x < wp + wd && rndn(3) == 0) {
			dma_runs_op(a, b, &s);
			op = "DMA runs";
		} else if (x < wp) {
			unsigned e = rndn(g.pcie_endpoints);
			change_pcie(&s, e);
			uint64_t n = rand_len(g.drain_period);
			ptm_pcie_edges(a, e, &s.pin[e], n);
			for (uint64_t i = 0; i < n; i++)
				ptm_pcie_edge(b, e, &s.pin[e]);
			op = "PCIe";
		} else if (x < wp + wd) {
			change_dma(&s);
			uint64_t n = rand_len(g.drain_period);
			ptm_dma_edges(a, s.drst, s.dbus, n);
			for (uint64_t i = 0; i < n; i++)
				ptm_dma_edge(b, s.drst, s.dbus);
			op = "DMA";
		} else if (x < wp + wd + wm) {
			uint64_t n = rndn(4) ? rand_len(g.drain_period) : 1 + rndn(4 * g.drain_period);
			ptm_mi_idle_edges(a, s.mi.rst, n);
			for (uint64_t i = 0; i < n; i++)
				ptm_mi_edge(b, &s.mi, NULL);
			op = "MI idle";
		} else {
			mi_op(a, b, &s);
			op = "MI operation";
		}
		same_model(a, b, what, step, op);
	}
	ptm_model_free(a);
	ptm_model_free(b);
}

static void test_batches_equal_single_edges(void **state)
{
	(void)state;
	for (int round = 0; round < 40; round++)
		run_round(1000 + (uint64_t)round, round);
}

/* One thread: one endpoint's PCIe batches of a slice. */
struct ep_job {
	ptm_model *m;
	unsigned ep;
	const struct ptm_pcie_in *seq;
	const uint64_t *len;
	int k;
};

static void *run_ep(void *arg)
{
	const struct ep_job *j = arg;
	for (int i = 0; i < j->k; i++)
		ptm_pcie_edges(j->m, j->ep, &j->seq[i], j->len[i]);
	return NULL;
}

/*
 * Two endpoints' PCIe batches touch disjoint state (what lets the card run
 * them on two threads): slice by slice, model a runs the two endpoints'
 * batches interleaved (threads = 0) or on two threads beside the DMA
 * batches on this one (threads = 1), model b one endpoint after the
 * other, then the DMA batches; after the MI edges of each slice both
 * must hold the same state.
 */
static void endpoints_apart(uint64_t seed, int threads)
{
	rng_state = seed;
	for (int round = 0; round < (threads ? 2 : 8); round++) {
		struct ptm_generics g;
		do
			gen_generics(&g);
		while (g.pcie_endpoints < 2);
		char msg[256];
		ptm_model *a = NULL, *b = NULL;
		assert_int_equal(ptm_model_new(&g, &a, msg, sizeof(msg)), 0);
		assert_int_equal(ptm_model_new(&g, &b, msg, sizeof(msg)), 0);
		struct stim s;
		memset(&s, 0, sizeof(s));
		s.g = &g;
		s.db = 2 * g.dma_ports;
		ptm_mi_idle_edges(a, 1, 8);
		ptm_mi_idle_edges(b, 1, 8);
		enum { K = 16 };
		static struct ptm_pcie_in seq[2][K];
		static uint64_t len[2][K], dlen[K];
		static struct ptm_bus_in dbus[K][PTM_MAX_ENDPOINTS * PTM_MAX_PROBE_BUSES];
		for (int slice = 0; slice < 40; slice++) {
			for (unsigned e = 0; e < 2; e++)
				for (int k = 0; k < K; k++) {
					change_pcie(&s, e);
					s.pin[e].rst = slice < 2;
					seq[e][k] = s.pin[e];
					len[e][k] = rand_len(g.drain_period);
				}
			for (int k = 0; k < K; k++) {
				change_dma(&s);
				memcpy(dbus[k], s.dbus, sizeof(dbus[k]));
				dlen[k] = rand_len(g.drain_period);
			}
			if (threads) {
				struct ep_job jobs[2];
				pthread_t th[2];
				for (unsigned e = 0; e < 2; e++) {
					jobs[e] = (struct ep_job){ a, e, seq[e], len[e], K };
					assert_int_equal(pthread_create(&th[e], NULL, run_ep, &jobs[e]), 0);
				}
				for (int k = 0; k < K; k++)
					ptm_dma_edges(a, slice < 2, dbus[k], dlen[k]);
				for (unsigned e = 0; e < 2; e++)
					assert_int_equal(pthread_join(th[e], NULL), 0);
			} else {
				for (int k = 0; k < K; k++) {
					for (unsigned e = 0; e < 2; e++)
						ptm_pcie_edges(a, e, &seq[e][k], len[e][k]);
					ptm_dma_edges(a, slice < 2, dbus[k], dlen[k]);
				}
			}
			for (unsigned e = 0; e < 2; e++)
				for (int k = 0; k < K; k++)
					ptm_pcie_edges(b, e, &seq[e][k], len[e][k]);
			for (int k = 0; k < K; k++)
				ptm_dma_edges(b, slice < 2, dbus[k], dlen[k]);
			uint64_t mi = 50 + rndn(800);
			ptm_mi_idle_edges(a, 0, mi);
			ptm_mi_idle_edges(b, 0, mi);
			same_model(a, b, threads ? "endpoints on two threads" : "endpoints in either order",
				   slice, "slice");
		}
		ptm_model_free(a);
		ptm_model_free(b);
	}
}

static void test_endpoints_disjoint(void **state)
{
	(void)state;
	endpoints_apart(77, 0);
}

static void test_endpoints_threads(void **state)
{
	(void)state;
	endpoints_apart(99, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_equal_single_edges),
		cmocka_unit_test(test_endpoints_disjoint),
		cmocka_unit_test(test_endpoints_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
