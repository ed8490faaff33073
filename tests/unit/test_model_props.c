/*
 * Property tests of the component model on random traffic, for many
 * generic sets:
 *  - after traffic stops and the drains complete, every counter read
 *    through the MI registers (SNAPSHOT, then the counter window) equals
 *    the count this test computes from its own stimulus with a simple
 *    reference of the probe's counting rules (firmware-behavior.md 1.3-1.6);
 *  - no delta is lost while the MI clock keeps up (STATUS bit 1 stays 0),
 *    and STATUS bit 1 is set when it cannot;
 *  - a batch of n edges equals n single edges, for every domain;
 *  - the snapshot copy does not move while traffic goes on;
 *  - the counters wrap modulo 2^CNT_WIDTH.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model_priv.h"
#include "model/probe_priv.h"
#include "pcie_telemetry/model.h"
#include "model_rand.h"

/* ------------------------------------------------------------------ */
/* Reference of the probe's counting (independent of src/model)        */

#define RMAX_CH 256

struct ref_probe {
	unsigned buses, regions, brakes, channels, groups;
	unsigned items[PTM_MAX_PROBE_BUSES];
	uint8_t open[PTM_MAX_PROBE_BUSES];
	uint64_t R;              /* last reset edge */
	uint64_t cap[RMAX_CH];   /* capture edge of the last drain of each channel */
	uint64_t cnt[RMAX_CH];
};

static void ref_init(struct ref_probe *p, unsigned buses, unsigned regions, const unsigned *items,
		     unsigned brakes, uint64_t R, uint64_t last_tick, unsigned dp)
{
	memset(p, 0, sizeof(*p));
	p->buses = buses;
	p->regions = regions;
	p->brakes = brakes;
	memcpy(p->items, items, buses * sizeof(unsigned));
	p->channels = 1 + buses * (6 + regions) + brakes;
	p->groups = (p->channels + 7) / 8;
	p->R = R;
	/* The sweep of the tick before the last one captured slot s at
	 * T + 1 + s*(GROUPS+1); the last tick's sweep has not captured yet. */
	for (unsigned c = 0; c < p->channels; c++)
		p->cap[c] = last_tick - dp + 1 + (c % 8) * (p->groups + 1);
}

/* One input edge e; rst = reset at this edge. */
static void ref_add(struct ref_probe *p, unsigned c, uint64_t e, uint64_t lo, uint64_t v)
{
	if (v && e >= lo && e + 3 <= p->cap[c])
		p->cnt[c] += v;
}

static void ref_edge(struct ref_probe *p, uint64_t e, const struct ptm_bus_in *bus, uint32_t brake)
{
	const uint64_t R = p->R;
	if (e <= R) {
		memset(p->open, 0, sizeof(p->open));
		/* MVB input registers are not reset: the last reset edge counts. */
		if (e < R)
			return;
	}
	ref_add(p, 0, e, R, 1);
	for (unsigned b = 0; b < p->buses; b++) {
		const struct ptm_bus_in *x = &bus[b];
		const unsigned base = 1 + b * (6 + p->regions);
		const int mfb = e > R; /* MFB handshake registers are reset */
		int src = mfb && x->src_rdy, dst = mfb && x->dst_rdy;
		int move = src && dst;
		int mmove = x->mvb_src_rdy && x->mvb_dst_rdy, mhold = x->mvb_src_rdy && !x->mvb_dst_rdy;
		unsigned open = p->open[b], items = 0, sofs = 0, mvbs = 0;
		for (unsigned r = 0; r < p->regions; r++) {
			unsigned sof = (x->sof >> r) & 1, eof = (x->eof >> r) & 1;
			unsigned vld = open | sof;
			sofs += sof;
			mvbs += (x->mvb_vld >> r) & 1;
			if (vld) {
				items += eof ? x->eof_pos[r] + 1u : p->items[b];
				if (move)
					ref_add(p, base + 6 + r, e, R + 1, 1);
			}
			open = vld && !eof;
		}
		if (move)
			p->open[b] = (uint8_t)open;
		ref_add(p, base + 0, e, R + 1, move);
		ref_add(p, base + 1, e, R + 1, src && !dst);
		ref_add(p, base + 2, e, R + 1, move ? sofs : 0);
		ref_add(p, base + 3, e, R, mmove ? mvbs : 0);
		ref_add(p, base + 4, e, R, mhold);
		ref_add(p, base + 5, e, R + 1, move ? items : 0);
	}
	if (e > R)
		for (unsigned k = 0; k < p->brakes; k++)
			ref_add(p, 1 + p->buses * (6 + p->regions) + k, e, R + 1, (brake >> k) & 1);
}

static unsigned band(unsigned v, unsigned cap)
{
	/* none, up to an eighth, up to a half, the rest */
	return v == 0 ? 0 : v <= cap / 8 ? 1 : v <= cap / 2 ? 2 : 3;
}

/* ------------------------------------------------------------------ */
/* Random stimulus                                                      */

struct stim {
	const struct ptm_generics *g;
	unsigned pr, dr, db;
	struct ptm_pcie_in pin[PTM_MAX_ENDPOINTS];
	struct ptm_bus_in dbus[PTM_MAX_ENDPOINTS * PTM_MAX_PROBE_BUSES];
};

static void rand_pcie(struct stim *s, unsigned ep, int busy)
{
	const struct ptm_generics *g = s->g;
	struct ptm_pcie_in *in = &s->pin[ep];
	uint8_t rst = in->rst;
	memset(in, 0, sizeof(*in));
	in->rst = rst;
	rand_bus(&in->bus[0], g->pcie_rq_mfb_regions, g->pcie_rq_mfb_region_bytes / g->mfb_item_bytes,
		 0, busy);
	rand_bus(&in->bus[1], g->pcie_rc_mfb_regions, g->pcie_rc_mfb_region_bytes / g->mfb_item_bytes,
		 0, busy);
	in->brake = (uint8_t)(busy ? rnd() & rnd() & 0x3f : 0);
	in->tag_free = (uint16_t)(rndn(4) == 0 ? 0 : rndn(g->tag_capacity + 1) & PTM_TAG_MASK);
	in->stfifo_free = (uint16_t)(rndn(4) == 0 ? 0 : rndn(g->stfifo_capacity + 1));
	in->mps = (uint8_t)rndn(8);
	in->mrrs = (uint8_t)rndn(8);
	in->link_up = 1;
}

static void rand_dma(struct stim *s, int busy)
{
	const struct ptm_generics *g = s->g;
	for (unsigned e = 0; e < g->pcie_endpoints; e++)
		for (unsigned p = 0; p < g->dma_ports; p++) {
			rand_bus(&s->dbus[e * s->db + 2 * p], g->dma_up_mfb_regions,
				 g->dma_up_mfb_region_bytes / g->mfb_item_bytes, 1, busy);
			rand_bus(&s->dbus[e * s->db + 2 * p + 1], g->dma_down_mfb_regions,
				 g->dma_down_mfb_region_bytes / g->mfb_item_bytes, 1, busy);
		}
}

static void idle_inputs(struct stim *s)
{
	for (unsigned e = 0; e < s->g->pcie_endpoints; e++) {
		struct ptm_pcie_in *in = &s->pin[e];
		uint16_t tag = in->tag_free, stf = in->stfifo_free;
		uint8_t rst = in->rst;
		memset(in, 0, sizeof(*in));
		in->rst = rst;
		in->tag_free = tag;
		in->stfifo_free = stf;
		in->link_up = 1;
	}
	memset(s->dbus, 0, sizeof(s->dbus));
}

/* ------------------------------------------------------------------ */
/* Random generics                                                      */

static void describe(const struct ptm_generics *g, char *buf, size_t len)
{
	snprintf(buf, len,
		 "EP=%u PORTS=%u regions %u/%u/%u/%u bytes %u/%u/%u/%u CNT_WIDTH=%u DP=%u "
		 "TAG=%u STFIFO=%u",
		 g->pcie_endpoints, g->dma_ports, g->pcie_rq_mfb_regions, g->pcie_rc_mfb_regions,
		 g->dma_up_mfb_regions, g->dma_down_mfb_regions, g->pcie_rq_mfb_region_bytes,
		 g->pcie_rc_mfb_region_bytes, g->dma_up_mfb_region_bytes,
		 g->dma_down_mfb_region_bytes, g->cnt_width, g->drain_period, g->tag_capacity,
		 g->stfifo_capacity);
}

/* ------------------------------------------------------------------ */
/* Reading the counters through the MI registers                        */

static uint64_t read_counter(ptm_model *m, unsigned idx)
{
	uint64_t lo = ptm_mi_read(m, 0x8000 + 8 * idx);
	uint64_t hi = ptm_mi_read(m, 0x8000 + 8 * idx + 4);
	return hi << 32 | lo;
}

static void snapshot(ptm_model *m)
{
	const struct ptm_derived *d = ptm_model_derived(m);
	ptm_mi_write(m, 0x20, 1);
	ptm_mi_idle_edges(m, 0, 2 * (uint64_t)d->entries + 8);
	assert_int_equal(ptm_mi_read(m, 0x24) & 1, 0);
}

/* ------------------------------------------------------------------ */
/* One run: reset, random traffic with edges interleaved by time, idle   */
/* until the last sweeps are drained, then compare with the reference.   */

struct run_cfg {
	unsigned p_period[PTM_MAX_ENDPOINTS], d_period, m_period;
	unsigned periods;         /* drain periods of traffic */
	int expect_loss;
};

#define RST_EDGES 8

static void run_and_check(const struct ptm_generics *g, const struct run_cfg *rc, int batches)
{
	char what[256];
	describe(g, what, sizeof(what));
	ptm_model *m = NULL;
	char msg[256];
	if (ptm_model_new(g, &m, msg, sizeof(msg)) != 0)
		fail_msg("%s: %s", what, msg);
	const struct ptm_derived *d = ptm_model_derived(m);

	struct stim s;
	memset(&s, 0, sizeof(s));
	s.g = g;
	s.pr = d->pcie_regions;
	s.dr = d->dma_regions;
	s.db = 2 * g->dma_ports;

	/* MI reset first, then the fast domains start in reset. */
	struct ptm_mi_in mi = {.rst = 1};
	for (int i = 0; i < 4; i++)
		ptm_mi_edge(m, &mi, NULL);
	mi.rst = 0;
	ptm_mi_edge(m, &mi, NULL);

	const unsigned nep = g->pcie_endpoints, dp = g->drain_period;
	const uint64_t R = RST_EDGES - 1;
	/* Each fast domain runs to a tick edge: R + K*DP, K = periods + 3
	 * (three idle periods after the traffic). */
	const uint64_t K = rc->periods + 3;
	const uint64_t nlast = R + K * dp, traffic_end = R + (uint64_t)rc->periods * dp;

	struct ref_probe *ref = calloc(2 * nep, sizeof(*ref));
	assert_non_null(ref);
	for (unsigned e = 0; e < nep; e++) {
		unsigned pit[2] = {g->pcie_rq_mfb_region_bytes / g->mfb_item_bytes,
				   g->pcie_rc_mfb_region_bytes / g->mfb_item_bytes};
		ref_init(&ref[2 * e], 2, s.pr, pit, PT_FW_PCIE_BRAKES, R, nlast, dp);
		unsigned dit[PTM_MAX_PROBE_BUSES];
		for (unsigned p = 0; p < g->dma_ports; p++) {
			dit[2 * p] = g->dma_up_mfb_region_bytes / g->mfb_item_bytes;
			dit[2 * p + 1] = g->dma_down_mfb_region_bytes / g->mfb_item_bytes;
		}
		ref_init(&ref[2 * e + 1], s.db, s.dr, dit, 0, R, nlast, dp);
	}

	uint64_t pn[PTM_MAX_ENDPOINTS] = {0}, dn = 0, t_p[PTM_MAX_ENDPOINTS] = {0}, t_d = 0,
		 t_m = 0;
	uint16_t prev_tag[PTM_MAX_ENDPOINTS] = {0}, prev_stf[PTM_MAX_ENDPOINTS] = {0};
	uint8_t prev_rst[PTM_MAX_ENDPOINTS];
	unsigned tag_min[PTM_MAX_ENDPOINTS], stf_min[PTM_MAX_ENDPOINTS];
	struct ptm_pcie_in at_tick[PTM_MAX_ENDPOINTS];
	for (unsigned e = 0; e < nep; e++) {
		tag_min[e] = PTM_TAG_MASK;
		stf_min[e] = PTM_STF_MASK;
	}
	for (unsigned e = 0; e < nep; e++) {
		s.pin[e].rst = 1;
		rand_pcie(&s, e, 0);
		prev_rst[e] = 1;
		t_p[e] = rndn(rc->p_period[e]);
	}
	rand_dma(&s, 0);
	int drst = 1;

	for (;;) {
		/* the next edge in time; MI goes on until every fast domain is done */
		int done = dn > nlast;
		for (unsigned e = 0; e < nep; e++)
			done &= pn[e] > nlast;
		if (done)
			break;
		uint64_t best = UINT64_MAX;
		int who = -3;
		for (unsigned e = 0; e < nep; e++)
			if (pn[e] <= nlast && t_p[e] < best) {
				best = t_p[e];
				who = (int)e;
			}
		if (dn <= nlast && t_d < best) {
			best = t_d;
			who = -1;
		}
		if (t_m < best)
			who = -2;

		if (who >= 0) {
			unsigned e = (unsigned)who;
			struct ptm_pcie_in *in = &s.pin[e];
			in->rst = pn[e] <= R;
			if (pn[e] > R && pn[e] <= traffic_end && rndn(4) == 0)
				rand_pcie(&s, e, 60);
			else if (pn[e] > traffic_end && (in->brake || in->bus[0].src_rdy ||
							 in->bus[1].src_rdy || in->bus[0].sof ||
							 in->bus[1].sof))
				idle_inputs(&s);
			else if (rndn(16) == 0) {
				in->tag_free = (uint16_t)rndn(g->tag_capacity + 1);
				in->stfifo_free = (uint16_t)rndn(g->stfifo_capacity + 1);
			}
			/* RX_BRAKE: PTC bits now, bands of the previous edge */
			uint32_t brake = in->brake;
			if (!prev_rst[e])
				brake |= 1u << (6 + band(prev_tag[e], g->tag_capacity)) |
					 1u << (10 + band(prev_stf[e], g->stfifo_capacity));
			ref_edge(&ref[2 * e], pn[e], in->bus, brake);
			/* equal inputs in a row go as one batch when asked */
			uint64_t n = 1;
			if (batches && pn[e] > R + 2 && pn[e] < nlast) {
				n = 1 + rndn(8);
				if (pn[e] + n - 1 > nlast)
					n = nlast - pn[e] + 1;
				if (pn[e] <= traffic_end && pn[e] + n - 1 > traffic_end)
					n = traffic_end - pn[e] + 1;
				for (uint64_t k = 1; k < n; k++) {
					uint32_t b2 = in->brake | 1u << (6 + band(in->tag_free, g->tag_capacity)) |
						      1u << (10 + band(in->stfifo_free, g->stfifo_capacity));
					ref_edge(&ref[2 * e], pn[e] + k, in->bus, b2);
				}
				ptm_pcie_edges(m, e, in, n);
			} else {
				ptm_pcie_edge(m, e, in);
			}
			/* status path: the word of the last tick (nlast) is still in
			 * the handshake's input register, which needs one more PCIe
			 * edge; the one before (nlast - DP) has arrived: its lowest
			 * free counts over the windows before it and its values. */
			for (uint64_t k = 0; k < n; k++) {
				uint64_t edge = pn[e] + k;
				if (edge > R && edge < nlast - dp) {
					if (in->tag_free < tag_min[e])
						tag_min[e] = in->tag_free;
					if (in->stfifo_free < stf_min[e])
						stf_min[e] = in->stfifo_free;
				}
				if (edge == nlast - dp)
					at_tick[e] = *in;
			}
			prev_rst[e] = in->rst;
			prev_tag[e] = in->tag_free;
			prev_stf[e] = in->stfifo_free;
			pn[e] += n;
			t_p[e] += n * rc->p_period[e];
		} else if (who == -1) {
			drst = dn <= R;
			if (dn > R && dn <= traffic_end && rndn(4) == 0)
				rand_dma(&s, 60);
			else if (dn > traffic_end && dn <= traffic_end + 1)
				memset(s.dbus, 0, sizeof(s.dbus));
			uint64_t n = 1;
			if (batches && dn > R + 2 && dn < nlast) {
				n = 1 + rndn(8);
				if (dn + n - 1 > nlast)
					n = nlast - dn + 1;
				if (dn <= traffic_end && dn + n - 1 > traffic_end)
					n = traffic_end - dn + 1;
			}
			for (uint64_t k = 0; k < n; k++)
				for (unsigned e = 0; e < nep; e++)
					ref_edge(&ref[2 * e + 1], dn + k, &s.dbus[e * s.db], 0);
			if (n > 1)
				ptm_dma_edges(m, drst, s.dbus, n);
			else
				ptm_dma_edge(m, drst, s.dbus);
			dn += n;
			t_d += n * rc->d_period;
		} else {
			uint64_t n = 1;
			if (batches)
				n = 1 + rndn(4);
			if (n > 1)
				ptm_mi_idle_edges(m, 0, n);
			else
				ptm_mi_edge(m, &mi, NULL);
			t_m += n * rc->m_period;
		}
	}
	/* Drain what the FIFOs still hold. */
	ptm_mi_idle_edges(m, 0, 20000);

	uint32_t status = ptm_mi_read(m, 0x24);
	if (rc->expect_loss) {
		if (!(status & 2))
			fail_msg("%s: slow MI clock, STATUS=%08x without bit 1", what, status);
	} else if (status != 0) {
		fail_msg("%s: STATUS=%08x after the drain, expected 0", what, status);
	}

	/* PCIE_STATUS / PCIE_TAGS / PCIE_STFIFO: the word of the last tick */
	for (unsigned e = 0; e < nep && !rc->expect_loss; e++) {
		const struct ptm_pcie_in *t = &at_tick[e];
		uint32_t cfg = (uint32_t)(t->mps | t->mrrs << 3 | t->ext_tag_en << 6 |
					  t->tag10b_req_en << 7 | t->rcb_size << 8 | t->link_up << 9);
		uint32_t st = ptm_mi_read(m, 0x40 + 4 * e), tags = ptm_mi_read(m, 0x80 + 4 * e),
			 stf = ptm_mi_read(m, 0xc0 + 4 * e);
		if (st != cfg || tags != (tag_min[e] << 16 | t->tag_free) ||
		    stf != (stf_min[e] << 16 | t->stfifo_free))
			fail_msg("%s: endpoint %u: PCIE_STATUS %08x TAGS %08x STFIFO %08x, expected "
				 "%08x %08x %08x",
				 what, e, st, tags, stf, cfg, tag_min[e] << 16 | t->tag_free,
				 stf_min[e] << 16 | t->stfifo_free);
	}

	snapshot(m);
	int mismatches = 0;
	const uint64_t mask = g->cnt_width == 64 ? ~0ull : (1ull << g->cnt_width) - 1;
	for (unsigned e = 0; e < nep && !rc->expect_loss; e++)
		for (int k = 0; k < 2; k++) {
			struct ref_probe *p = &ref[2 * e + k];
			for (unsigned c = 0; c < p->channels; c++) {
				unsigned idx = e * d->ep_channels + (k ? d->pcie_channels : 0) + c;
				uint64_t got = read_counter(m, idx);
				if (got != (p->cnt[c] & mask) && mismatches++ < 5)
					print_message("%s batches=%d: endpoint %u %s probe channel %u: "
						      "counter %llu, reference %llu\n",
						      what, batches, e, k ? "DMA" : "PCIe", c,
						      (unsigned long long)got,
						      (unsigned long long)p->cnt[c]);
			}
		}
	if (getenv("PT_PROPS_VERBOSE"))
		print_message("%s batches=%d: edges P0 %llu D %llu, ref ch0 %llu words0 %llu items0 %llu\n",
			      what, batches, (unsigned long long)pn[0], (unsigned long long)dn,
			      (unsigned long long)ref[0].cnt[0], (unsigned long long)ref[0].cnt[1],
			      (unsigned long long)ref[0].cnt[6]);
	if (mismatches)
		fail_msg("%s: %d counters differ from the reference", what, mismatches);
	if (rc->expect_loss) {
		/* Lost deltas: the elapsed-cycle counter of some probe is short. */
		int short_any = 0;
		for (unsigned e = 0; e < nep; e++)
			for (int k = 0; k < 2; k++) {
				unsigned idx = e * d->ep_channels + (k ? d->pcie_channels : 0);
				short_any |= read_counter(m, idx) < ref[2 * e + k].cnt[0];
			}
		assert_true(short_any);
	}
	free(ref);
	ptm_model_free(m);
}

static void fast_clocks(const struct ptm_generics *g, struct run_cfg *rc)
{
	memset(rc, 0, sizeof(*rc));
	/* Deltas per MI edge must stay well below 1/3 (3 MI cycles a delta). */
	const struct ptm_generics *gg = g;
	struct ptm_derived d;
	ptm_generics_derive(gg, &d);
	for (unsigned e = 0; e < g->pcie_endpoints; e++)
		rc->p_period[e] = 4 + rndn(5);
	rc->d_period = 4 + rndn(6);
	/* load = sum over probes of CHANNELS/(DP*T_probe) * 3*T_MI < 0.5 */
	double per_tm = 0;
	for (unsigned e = 0; e < g->pcie_endpoints; e++)
		per_tm += (double)d.pcie_channels / ((double)g->drain_period * rc->p_period[e]);
	per_tm += g->pcie_endpoints * (double)d.dma_channels / ((double)g->drain_period * rc->d_period);
	unsigned tm = (unsigned)(0.4 / (3.0 * per_tm));
	if (tm < 1)
		tm = 1;
	rc->m_period = 1 + rndn(tm < 12 ? tm : 12);
	rc->periods = 2;
}

static void test_counts_random_generics(void **state)
{
	(void)state;
	rng_state = 0x1234567890abcdefull;
	for (int i = 0; i < 40; i++) {
		struct ptm_generics g;
		rand_generics(&g, 0);
		struct run_cfg rc;
		fast_clocks(&g, &rc);
		run_and_check(&g, &rc, i % 2);
	}
}

static void test_counts_default(void **state)
{
	(void)state;
	rng_state = 42;
	struct ptm_generics g;
	ptm_generics_default(&g);
	g.drain_period = 512;
	struct run_cfg rc;
	fast_clocks(&g, &rc);
	run_and_check(&g, &rc, 0);
	run_and_check(&g, &rc, 1);
}

static void test_loss_slow_mi(void **state)
{
	(void)state;
	rng_state = 7;
	struct ptm_generics g;
	ptm_generics_default(&g);
	g.drain_period = 64;
	g.pcie_endpoints = 2;
	struct run_cfg rc;
	memset(&rc, 0, sizeof(rc));
	rc.p_period[0] = rc.p_period[1] = 2;
	rc.d_period = 3;
	rc.m_period = 40;
	rc.periods = 6;
	rc.expect_loss = 1;
	run_and_check(&g, &rc, 0);
}

/* ------------------------------------------------------------------ */
/* Batches equal single edges                                           */

static void compare_models(ptm_model *a, ptm_model *b, const char *what)
{
	const struct ptm_derived *d = ptm_model_derived(a);
	for (uint32_t addr = 0; addr < 0x100; addr += 4) {
		uint32_t va = ptm_mi_read(a, addr), vb = ptm_mi_read(b, addr);
		if (va != vb)
			fail_msg("%s: register %02x: single %08x, batch %08x", what, addr, va, vb);
	}
	for (int sel = 0; sel < 2; sel++) {
		ptm_mi_write(a, 0x28, (uint32_t)sel);
		ptm_mi_write(b, 0x28, (uint32_t)sel);
		for (unsigned i = 0; i < d->entries; i++) {
			uint64_t va = read_counter(a, i), vb = read_counter(b, i);
			if (va != vb)
				fail_msg("%s: %s counter %u: single %llu, batch %llu", what,
					 sel ? "live" : "snapshot", i, (unsigned long long)va,
					 (unsigned long long)vb);
		}
	}
	ptm_mi_write(a, 0x28, 0);
	ptm_mi_write(b, 0x28, 0);
	assert_memory_equal(a->mem, b->mem, 2 * (size_t)d->entries * sizeof(uint64_t));
}

/* fresh = 1: every CLK batch starts on new inputs (the batch calls take
 * the first edge of new inputs in bulk as well). */
static void batch_equals_single(uint64_t seed, int fresh)
{
	rng_state = seed;
	for (int round = 0; round < 12; round++) {
		struct ptm_generics g;
		rand_generics(&g, 0);
		if (g.drain_period > 512)
			g.drain_period = 256;
		char what[256];
		describe(&g, what, sizeof(what));
		ptm_model *a = NULL, *b = NULL;
		char msg[256];
		assert_int_equal(ptm_model_new(&g, &a, msg, sizeof(msg)), 0);
		assert_int_equal(ptm_model_new(&g, &b, msg, sizeof(msg)), 0);
		struct stim s;
		memset(&s, 0, sizeof(s));
		s.g = &g;
		s.db = 2 * g.dma_ports;
		for (unsigned e = 0; e < g.pcie_endpoints; e++) {
			s.pin[e].rst = 1;
			rand_pcie(&s, e, 0);
		}
		int drst = 1;
		struct ptm_mi_in mi = {.rst = 1};
		for (int i = 0; i < 200; i++) {
			unsigned dom = rndn(4);
			uint64_t n = 1 + rndn(rndn(4) == 0 ? 3 * g.drain_period : 40);
			if (i == 20)
				mi.rst = 0;
			if (i > 10 && i < 150) {
				for (unsigned e = 0; e < g.pcie_endpoints; e++)
					s.pin[e].rst = 0;
				drst = 0;
			}
			if (i == 150 || i == 170) { /* resets late in the run */
				s.pin[0].rst = (uint8_t)(i == 150);
				drst = i == 150;
			}
			if (i == 100 || i == 160)
				compare_models(a, b, what); /* in the middle of the traffic */
			if (dom == 0) {
				unsigned e = rndn(g.pcie_endpoints);
				if (fresh || rndn(2))
					rand_pcie(&s, e, 50);
				for (uint64_t k = 0; k < n; k++)
					ptm_pcie_edge(a, e, &s.pin[e]);
				ptm_pcie_edges(b, e, &s.pin[e], n);
			} else if (dom == 1) {
				if (fresh || rndn(2))
					rand_dma(&s, 50);
				for (uint64_t k = 0; k < n; k++)
					ptm_dma_edge(a, drst, s.dbus);
				ptm_dma_edges(b, drst, s.dbus, n);
			} else if (dom == 2) {
				for (uint64_t k = 0; k < n; k++)
					ptm_mi_edge(a, &mi, NULL);
				ptm_mi_idle_edges(b, mi.rst, n);
			} else if (!mi.rst) {
				/* the same MI operation on both */
				static const uint32_t cmds[] = {1, 2, 4, 8, 3};
				uint32_t op = cmds[rndn(5)];
				ptm_mi_write(a, 0x20, op);
				ptm_mi_write(b, 0x20, op);
				if (rndn(2)) {
					uint32_t va = ptm_mi_read(a, 0x24), vb = ptm_mi_read(b, 0x24);
					if (va != vb)
						fail_msg("%s: STATUS single %08x batch %08x", what, va, vb);
				}
			}
		}
		/* the same idle tail on both, long enough to finish everything */
		ptm_mi_idle_edges(b, 0, 50000);
		for (int k = 0; k < 50000; k++) {
			struct ptm_mi_in idle = {0};
			ptm_mi_edge(a, &idle, NULL);
		}
		compare_models(a, b, what);
		ptm_model_free(a);
		ptm_model_free(b);
	}
}

static void test_batch_equals_single(void **state)
{
	(void)state;
	batch_equals_single(99, 0);
}

static void test_batch_new_inputs_equals_single(void **state)
{
	(void)state;
	batch_equals_single(7, 1);
}

/* ------------------------------------------------------------------ */
/* Drain runs: idle MI batches while the ACC adds deltas               */

/* What the MI side holds after a run of idle MI edges: the ACC's
 * registers and memory, the FIFO output registers seen last and every
 * probe's pop count (the FIFO read side shows in the later deltas). */
static void compare_mi_side(ptm_model *a, ptm_model *b, const char *what, int step)
{
	const struct ptm_acc *x = &a->acc, *y = &b->acc;
	if (x->state != y->state || x->sel != y->sel || x->addr != y->addr || x->data != y->data ||
	    x->sum != y->sum || x->pa_dout != y->pa_dout)
		fail_msg("%s, step %d: ACC single state %u sel %u addr %u sum %llu, batch state %u "
			 "sel %u addr %u sum %llu",
			 what, step, x->state, x->sel, x->addr, (unsigned long long)x->sum, y->state,
			 y->sel, y->addr, (unsigned long long)y->sum);
	assert_memory_equal(a->mem, b->mem, 2 * (size_t)a->d.entries * sizeof(uint64_t));
	for (unsigned s = 0; s < a->nstreams; s++) {
		assert_int_equal(a->tx_last[s].index, b->tx_last[s].index);
		assert_true(a->tx_last[s].delta == b->tx_last[s].delta);
		struct ptm_probe_mi_out oa, ob;
		ptm_probe_tx(a->ep[s / 2].probe[s % 2], &oa);
		ptm_probe_tx(b->ep[s / 2].probe[s % 2], &ob);
		if (oa.vld != ob.vld || oa.index != ob.index || oa.delta != ob.delta)
			fail_msg("%s, step %d: stream %u shows vld %u index %u single, vld %u "
				 "index %u batch",
				 what, step, s, oa.vld, oa.index, ob.vld, ob.index);
	}
}

/*
 * The drain run of ptm_mi_idle_edges() (the ACC adding the deltas of full
 * FIFOs, the read sides stepped without the rest of the MI domain) against
 * single ptm_mi_edge() calls: random generics, random traffic in random
 * stretches of each CLK domain (often a whole drain period, so that the
 * FIFOs hold whole sweeps), then MI runs of random length that end
 * anywhere inside a delta (RD/ADD/WR) or between them.
 */
static void test_mi_drain_equals_single(void **state)
{
	(void)state;
	rng_state = 4242;
	for (int round = 0; round < 24; round++) {
		struct ptm_generics g;
		rand_generics(&g, 0);
		if (g.drain_period > 1024)
			g.drain_period = 512;
		char what[256];
		describe(&g, what, sizeof(what));
		ptm_model *a = NULL, *b = NULL;
		char msg[256];
		assert_int_equal(ptm_model_new(&g, &a, msg, sizeof(msg)), 0);
		assert_int_equal(ptm_model_new(&g, &b, msg, sizeof(msg)), 0);
		struct stim s;
		memset(&s, 0, sizeof(s));
		s.g = &g;
		s.db = 2 * g.dma_ports;
		struct ptm_mi_in mi = {.rst = 1};
		for (unsigned e = 0; e < g.pcie_endpoints; e++) {
			s.pin[e].rst = 1;
			rand_pcie(&s, e, 0);
		}
		for (int i = 0; i < 8; i++) { /* every domain in reset */
			for (unsigned e = 0; e < g.pcie_endpoints; e++) {
				ptm_pcie_edge(a, e, &s.pin[e]);
				ptm_pcie_edge(b, e, &s.pin[e]);
			}
			ptm_dma_edge(a, 1, s.dbus);
			ptm_dma_edge(b, 1, s.dbus);
			ptm_mi_edge(a, &mi, NULL);
			ptm_mi_edge(b, &mi, NULL);
		}
		mi.rst = 0;
		for (unsigned e = 0; e < g.pcie_endpoints; e++)
			s.pin[e].rst = 0;
		for (int step = 0; step < 300; step++) {
			unsigned dom = rndn(3);
			if (dom == 0) {
				unsigned e = rndn(g.pcie_endpoints);
				rand_pcie(&s, e, 60);
				uint64_t n = rndn(2) ? g.drain_period : 1 + rndn(200);
				for (uint64_t k = 0; k < n; k++) {
					ptm_pcie_edge(a, e, &s.pin[e]);
					ptm_pcie_edge(b, e, &s.pin[e]);
				}
			} else if (dom == 1) {
				rand_dma(&s, 60);
				uint64_t n = rndn(2) ? g.drain_period : 1 + rndn(200);
				for (uint64_t k = 0; k < n; k++) {
					ptm_dma_edge(a, 0, s.dbus);
					ptm_dma_edge(b, 0, s.dbus);
				}
			} else {
				/* a few MI runs in a row, of any length */
				for (unsigned r = 1 + rndn(4); r; r--) {
					uint64_t n = 1 + rndn(rndn(3) ? 40 : 600);
					for (uint64_t k = 0; k < n; k++)
						ptm_mi_edge(a, &mi, NULL);
					ptm_mi_idle_edges(b, 0, n);
					compare_mi_side(a, b, what, step);
				}
			}
		}
		ptm_mi_idle_edges(b, 0, 50000);
		for (int k = 0; k < 50000; k++)
			ptm_mi_edge(a, &mi, NULL);
		compare_mi_side(a, b, what, -1);
		for (unsigned s2 = 0; s2 < a->nstreams; s2++) {
			struct ptm_probe_stats sa, sb;
			ptm_probe_stats(a->ep[s2 / 2].probe[s2 % 2], &sa);
			ptm_probe_stats(b->ep[s2 / 2].probe[s2 % 2], &sb);
			assert_true(sa.popped == sb.popped);
			assert_true(sa.dropped == sb.dropped);
		}
		compare_models(a, b, what);
		ptm_model_free(a);
		ptm_model_free(b);
	}
}

/* ------------------------------------------------------------------ */
/* Snapshot copy under traffic, counter wrap                            */

static void clock_all(ptm_model *m, struct stim *s, uint64_t n, int busy)
{
	for (uint64_t i = 0; i < n; i++) {
		for (unsigned e = 0; e < s->g->pcie_endpoints; e++) {
			if (busy && rndn(4) == 0)
				rand_pcie(s, e, 70);
			ptm_pcie_edge(m, e, &s->pin[e]);
		}
		if (busy && rndn(4) == 0)
			rand_dma(s, 70);
		ptm_dma_edge(m, 0, s->dbus);
		ptm_mi_idle_edges(m, 0, 1);
	}
}

static void test_snapshot_stable_and_wrap(void **state)
{
	(void)state;
	rng_state = 5;
	struct ptm_generics g;
	ptm_generics_default(&g);
	g.drain_period = 128;
	g.cnt_width = 33;
	ptm_model *m = NULL;
	char msg[256];
	assert_int_equal(ptm_model_new(&g, &m, msg, sizeof(msg)), 0);
	const struct ptm_derived *d = ptm_model_derived(m);
	struct stim s;
	memset(&s, 0, sizeof(s));
	s.g = &g;
	s.db = 2;
	for (int i = 0; i < 8; i++) {
		struct ptm_pcie_in in = {.rst = 1};
		ptm_pcie_edge(m, 0, &in);
		ptm_dma_edge(m, 1, s.dbus);
	}
	rand_pcie(&s, 0, 70);
	rand_dma(&s, 70);
	clock_all(m, &s, 2000, 1);

	snapshot(m);
	uint64_t *before = calloc(d->entries, sizeof(uint64_t));
	assert_non_null(before);
	for (unsigned i = 0; i < d->entries; i++)
		before[i] = read_counter(m, i);
	assert_true(before[0] > 1000);
	clock_all(m, &s, 3000, 1);
	for (unsigned i = 0; i < d->entries; i++)
		assert_int_equal(read_counter(m, i), before[i]);
	/* The live copy moved meanwhile. */
	ptm_mi_write(m, 0x28, 1);
	assert_true(read_counter(m, 0) > before[0] + 2000);
	ptm_mi_write(m, 0x28, 0);

	/* Wrap: the elapsed-cycle counter just below 2^33 keeps counting
	 * modulo 2^33 (the memory is preloaded, as CLEAR never leaves it so). */
	const uint64_t top = (1ull << 33) - 100;
	m->mem[0] = top;
	ptm_mi_write(m, 0x28, 1);
	uint64_t live0 = read_counter(m, 0);
	assert_int_equal(live0, top);
	clock_all(m, &s, 1000, 0);
	ptm_mi_idle_edges(m, 0, 2000);
	uint64_t after = read_counter(m, 0);
	assert_true(after < 2000); /* wrapped */
	assert_true(after + 100 >= 1000 - 2 * 128 && after + 100 <= 1000 + 2 * 128);
	/* The high word never shows bits above CNT_WIDTH. */
	assert_int_equal(ptm_mi_read(m, 0x8004) & ~1u, 0);
	free(before);
	ptm_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_default),
		cmocka_unit_test(test_counts_random_generics),
		cmocka_unit_test(test_loss_slow_mi),
		cmocka_unit_test(test_batch_equals_single),
		cmocka_unit_test(test_batch_new_inputs_equals_single),
		cmocka_unit_test(test_mi_drain_equals_single),
		cmocka_unit_test(test_snapshot_stable_and_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
