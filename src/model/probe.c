/*
 * pcie-telemetry: cycle-exact model of PCIE_TELEMETRY_PROBE
 * (firmware-behavior.md section 1; docs/model-probe.md).
 *
 * Pipeline: input registers -> step registers -> counters.  The steps of
 * edge n+1 depend only on the input registers loaded at edge n and on
 * frame_open_reg after edge n, so the model computes them at edge n
 * ("pending" step, p->s) and keeps the input registers only in that
 * digested form.  A step is a compact per-bus descriptor, not one value
 * per channel.
 *
 * Speed: the common edge (no reset, sweep, FIFO write or tick) takes a
 * path specialised for the bus and region counts, with "eager" counters
 * (see fast_edge_n); every other edge takes the plain path (clk_slow),
 * which is the RTL register by register.  ptm_probe_debug_slow() forces
 * the plain path so that tests can compare the two.
 */
#include "model/probe_impl.h"
#include "model/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

static fast_edge_fn pick_fast_edge(unsigned nb, unsigned nr);




static int check_generics(const struct ptm_probe_generics *g, char *msg, size_t msglen)
{
	if (g->buses < 1 || g->buses > PTM_MAX_PROBE_BUSES)
		return ptm_einval(msg, msglen, "probe generic BUSES=%u: must be 1..%u", g->buses,
			       PTM_MAX_PROBE_BUSES);
	if (g->regions < 1 || g->regions > PTM_MAX_REGIONS)
		return ptm_einval(msg, msglen, "probe generic REGIONS=%u: must be 1..%u", g->regions,
			       PTM_MAX_REGIONS);
	if (g->brakes > PTM_MAX_BRAKES)
		return ptm_einval(msg, msglen, "probe generic BRAKES=%u: must be 0..%u", g->brakes,
			       PTM_MAX_BRAKES);
	if (g->eof_pos_width > 16)
		return ptm_einval(msg, msglen, "probe generic EOF_POS_WIDTH=%u: must be 0..16",
			       g->eof_pos_width);
	unsigned imax = 1;
	for (unsigned b = 0; b < g->buses; b++) {
		unsigned ri = g->region_items[b];
		if (ri < 1 || ri > 65536)
			return ptm_einval(msg, msglen, "probe generic REGION_ITEMS(%u)=%u: must be 1..65536",
				       b, ri);
		if (ri > imax)
			imax = ri;
	}
	if (ptm_log2c(imax) > g->eof_pos_width)
		return ptm_einval(msg, msglen,
			       "probe generic EOF_POS_WIDTH=%u: too narrow for REGION_ITEMS_MAX=%u "
			       "(needs %u bits)",
			       g->eof_pos_width, imax, ptm_log2c(imax));
	unsigned dp = g->drain_period;
	if (dp == 0 || (dp & (dp - 1)) != 0 || dp > (1u << 30))
		return ptm_einval(msg, msglen,
			       "probe generic DRAIN_PERIOD=%u: must be a power of two up to 2^30", dp);
	unsigned ch = 1 + g->buses * (6 + g->regions) + g->brakes;
	unsigned sweep = GROUP_SIZE * ((ch + GROUP_SIZE - 1) / GROUP_SIZE + 1);
	if (sweep >= dp)
		return ptm_einval(msg, msglen,
			       "probe generic DRAIN_PERIOD=%u: must exceed the drain sweep of %u cycles "
			       "(%u channels)",
			       dp, sweep, ch);
	return 0;
}

static void power_up(ptm_probe *p)
{
	p->rst_in = 0;
	p->mi_rst = 0;
	p->flag_lvl = 0;
	p->rsync = 7;
	p->run = 0;
	p->slot = 0;
	p->pos = 0;
	p->period = 0;
	p->frame_open = 0;
	p->wr_en = 0;
	p->ovf = p->overrun = 0;
	p->fq1 = p->fq2 = p->freg = 0;
	memset(&p->wr_data, 0, sizeof(p->wr_data));
	memset(p->stepbuf, 0, sizeof(p->stepbuf));
	p->s = &p->stepbuf[0];
	p->sr = &p->stepbuf[1];
	p->oq1 = p->oq2 = p->vq1 = p->vq2 = 0;
	memset(p->cnt, 0, (size_t)p->groups * GROUP_SIZE * sizeof(*p->cnt));
	memset(p->grp_val, 0, (size_t)p->groups * sizeof(*p->grp_val));
	p->cnt_zero = 1;
	p->eager = 0;
	p->desc_ok = 3;
	p->lazy = 0;
	p->brake_run_mask = 0;
	p->brake_run = 0;
	memset(&p->st, 0, sizeof(p->st));
}

int ptm_probe_new(const struct ptm_probe_generics *g, ptm_probe **out, char *msg, size_t msglen)
{
	*out = NULL;
	int rc = check_generics(g, msg, msglen);
	if (rc)
		return rc;
	ptm_probe *p = calloc(1, sizeof(*p));
	if (!p)
		return ptm_einval(msg, msglen, "probe: out of memory"), -ENOMEM;
	p->g = *g;
	for (unsigned b = g->buses; b < PTM_MAX_PROBE_BUSES; b++)
		p->g.region_items[b] = 0;
	unsigned imax = 1;
	for (unsigned b = 0; b < g->buses; b++)
		if (g->region_items[b] > imax)
			imax = g->region_items[b];
	p->bus_channels = 6 + g->regions;
	p->channels = 1 + g->buses * p->bus_channels + g->brakes;
	p->brake_base = 1 + g->buses * p->bus_channels;
	p->groups = (p->channels + GROUP_SIZE - 1) / GROUP_SIZE;
	p->idx_width = ptm_log2c(p->channels);
	uint64_t max_step = (uint64_t)g->regions * imax;
	p->step_width = ptm_log2c(max_step + 1);
	p->cnt_width = ptm_log2c((uint64_t)g->drain_period * max_step + 1);
	p->dp_mask = g->drain_period - 1;
	p->rmask_all = (uint32_t)((UINT64_C(1) << g->regions) - 1);
	p->brake_mask = (uint32_t)((UINT64_C(1) << g->brakes) - 1);
	p->step_mask = (uint32_t)((UINT64_C(1) << p->step_width) - 1);
	p->cnt_mask = p->cnt_width >= 64 ? UINT64_MAX : (UINT64_C(1) << p->cnt_width) - 1;
	p->pos_mask = (uint16_t)((1u << g->eof_pos_width) - 1);
	uint32_t items = 1u << ptm_log2c(2u * p->groups * GROUP_SIZE);
	for (unsigned x = 0; x < 512; x++) {
		uint32_t open = x & 1u, sof = (x >> 1) & 15u, eof = (x >> 5) & 15u, v = 0;
		for (unsigned r = 0; r < 4; r++) {
			uint32_t s_r = (sof >> r) & 1u, e_r = (eof >> r) & 1u;
			v |= (open | s_r) << r;
			open = (open | s_r) & !e_r;
		}
		p->walk[x] = (uint8_t)(v | open << 4);
	}
	/* +8: the table path adds a zero lane past the last bus */
	p->cnt = calloc((size_t)p->groups * GROUP_SIZE + 8, sizeof(*p->cnt));
	if (g->regions <= 2) {
		const unsigned R = g->regions, nidx = 1u << (3 + 2 * R);
		p->vtab = calloc((size_t)nidx * 8, sizeof(*p->vtab));
		if (!p->vtab) {
			ptm_probe_free(p);
			ptm_einval(msg, msglen, "probe: out of memory");
			return -ENOMEM;
		}
		for (unsigned x = 0; x < nidx; x++) {
			uint32_t open = x & 1u, sof = (x >> 1) & ((1u << R) - 1);
			uint32_t eof = (x >> (1 + R)) & ((1u << R) - 1);
			uint32_t src = (x >> (1 + 2 * R)) & 1u, dst = (x >> (2 + 2 * R)) & 1u;
			uint32_t move = src & dst, vmask = 0;
			for (unsigned r = 0; r < R; r++) {
				uint32_t s_r = (sof >> r) & 1u, e_r = (eof >> r) & 1u;
				vmask |= (open | s_r) << r;
				open = (open | s_r) & !e_r;
			}
			uint64_t *t = p->vtab + (size_t)x * 8;
			t[0] = move;
			t[1] = src & !dst;
			t[2] = move ? (uint64_t)__builtin_popcount(sof) : 0;
			for (unsigned r = 0; r < R; r++)
				t[6 + r] = move & (vmask >> r);
			uint32_t endm = vmask & eof, full = (uint32_t)__builtin_popcount(vmask & ~eof);
			p->vaux[x] = move ? (uint8_t)(endm | open << 2 | full << 3 | 1u << 5) : 0;
		}
		for (unsigned x = 0; x < (4u << R); x++) {
			uint32_t vld = x & ((1u << R) - 1), msrc = (x >> R) & 1u, mdst = (x >> (R + 1)) & 1u;
			p->mtab[x][0] = msrc & mdst ? (uint64_t)__builtin_popcount(vld) : 0;
			p->mtab[x][1] = msrc & !mdst;
		}
	}
	p->grp_val = calloc(p->groups, sizeof(*p->grp_val));
	struct ptm_fifo_entry *mem = calloc(items, sizeof(*mem));
	if (!p->cnt || !p->grp_val || !mem) {
		free(mem);
		ptm_probe_free(p);
		ptm_einval(msg, msglen, "probe: out of memory");
		return -ENOMEM;
	}
	asfifo_init(&p->fifo, items, mem);
	if (ptm_probe_lazy_init(p) < 0) {
		ptm_probe_free(p);
		ptm_einval(msg, msglen, "probe: out of memory");
		return -ENOMEM;
	}
	p->fast_edge = pick_fast_edge(g->buses, g->regions);
	power_up(p);
	*out = p;
	return 0;
}

void ptm_probe_free(ptm_probe *p)
{
	if (!p)
		return;
	free(p->fifo.mem);
	free(p->cnt);
	free(p->grp_val);
	free(p->vtab);
	ptm_probe_lazy_free(p);
	free(p);
}

unsigned ptm_probe_channels(const ptm_probe *p) { return p->channels; }

void ptm_probe_info(const ptm_probe *p, struct ptm_probe_info *info)
{
	info->channels = p->channels;
	info->groups = p->groups;
	info->idx_width = p->idx_width;
	info->cnt_width = p->cnt_width;
	info->step_width = p->step_width;
	info->sweep_cycles = GROUP_SIZE * (p->groups + 1);
	info->fifo_items = p->fifo.items;
}

void ptm_probe_stats(const ptm_probe *p, struct ptm_probe_stats *s)
{
	*s = p->st;
}

int ptm_probe_in_reset(const ptm_probe *p) { return p->rst_in || (p->rsync & 4); }

int ptm_probe_mi_reset(const ptm_probe *p) { return p->mi_rst ? 2 : p->rsync ? 1 : 0; }

void ptm_probe_debug_slow(ptm_probe *p, int on)
{
	if (p->lazy)
		ptm_probe_lazy_exit(p);
	p->slow = (uint8_t)(on != 0);
	update_hot(p);
	update_mi_hot(p);
	p->fifo.no_quiet = p->slow;
	if (p->slow)
		p->fifo.wr_quiet = p->fifo.rd_quiet = 0;
}

/* ------------------------------------------------------------------ */
/* Steps                                                               */

/* One bus's part of the pending step: open = frame_open_reg bit of the
 * bus before the word; returns the bit after it in *fo (when the word
 * moves).  NR is the region count, a constant in the specialised paths. */
ALWAYS_INLINE void bus_step_n(const ptm_probe *p, int pr, unsigned b, const struct ptm_bus_in *in,
			      uint32_t open, struct step_bus *sb, uint32_t *fo, const unsigned NR)
{
	const uint32_t rm = p->rmask_all;
	uint32_t src = pr ? 0 : in->src_rdy & 1u;
	uint32_t dst = pr ? 0 : in->dst_rdy & 1u;
	uint32_t msrc = in->mvb_src_rdy & 1u, mdst = in->mvb_dst_rdy & 1u;
	uint32_t move = src & dst;
	sb->move = move;
	sb->hold = src & !dst;
	sb->mhold = msrc & !mdst;
	sb->pad = 0;
	if (NR <= 4) {
		/* branch-free: the walk table, then masked by move */
		const uint32_t sof = in->sof & rm, eof = in->eof & rm;
		const uint32_t w = p->walk[open | sof << 1 | eof << 5];
		const uint32_t vmask = w & rm, endm = vmask & eof;
		uint32_t items = p->g.region_items[b] * popc4(vmask & ~eof);
		for (unsigned r = 0; r < NR; r++)
			items += ((endm >> r) & 1u) * ((uint32_t)(in->eof_pos[r] & p->pos_mask) + 1u);
		const uint32_t mm = 0u - move;
		sb->mvb = popc4(in->mvb_vld & rm) & (0u - (msrc & mdst));
		sb->sof = popc4(sof) & mm;
		sb->items = items & p->step_mask & mm;
		sb->rmask = vmask & mm;
		*fo = (w >> 4) & move;
		return;
	}
	sb->mvb = popc(in->mvb_vld & rm) & (0u - (msrc & mdst));
	sb->sof = 0;
	sb->items = 0;
	sb->rmask = 0;
	*fo = 0;
	if (!move)
		return;
	uint32_t sof = in->sof & rm, eof = in->eof & rm;
	uint32_t items = 0, vmask = 0;
	const uint32_t ri = p->g.region_items[b];
	if (!(sof | eof)) {
		/* No frame boundary in the word: all or nothing. */
		if (open) {
			vmask = rm;
			items = ri * NR;
		}
	} else {
		for (unsigned r = 0; r < NR; r++) {
			uint32_t s_r = (sof >> r) & 1u, e_r = (eof >> r) & 1u;
			uint32_t v = open | s_r;
			if (v) {
				vmask |= 1u << r;
				items += e_r ? (uint32_t)(in->eof_pos[r] & p->pos_mask) + 1u : ri;
			}
			open = v & !e_r;
		}
	}
	sb->sof = popc(sof);
	sb->items = items & p->step_mask;
	sb->rmask = vmask;
	*fo = open;
}

/* The pending step from the inputs sampled at this edge (input registers)
 * and frame_open_reg after this edge.  NB, NR are the buses and regions;
 * constants in the specialised fast paths, so that the loops unroll. */
ALWAYS_INLINE void compute_step_n(const ptm_probe *p, int pr, const struct ptm_bus_in *bus,
				  uint32_t brake, struct step *s, const unsigned NB,
				  const unsigned NR)
{
	uint32_t active = 0, movem = 0, fo_next = 0;
	s->ch0 = 1;
	s->brake = pr ? 0 : brake & p->brake_mask;
	for (unsigned b = 0; b < NB; b++) {
		struct step_bus *sb = &s->bus[b];
		uint32_t fo;
		bus_step_n(p, pr, b, &bus[b], (p->frame_open >> b) & 1u, sb, &fo, NR);
		movem |= sb->move << b;
		fo_next |= fo << b;
		active |= (uint32_t)((sb->move | sb->hold | sb->mvb | sb->mhold) != 0) << b;
	}
	s->active = active;
	s->move = movem;
	s->fo_next = fo_next;
	s->pad = 0;
}

void ptm_probe_bus_step(const ptm_probe *p, unsigned b, const struct ptm_bus_in *in,
			uint32_t open, struct lz_step *out)
{
	uint32_t fo;
	switch (p->g.regions) {
	case 1:
		ptm_probe_bus_step_tab(p, b, in, open, out, 1);
		return;
	case 2:
		ptm_probe_bus_step_tab(p, b, in, open, out, 2);
		return;
	case 4:
		bus_step_n(p, 0, b, in, open, &out->u.s, &fo, 4);
		break;
	default:
		bus_step_n(p, 0, b, in, open, &out->u.s, &fo, p->g.regions);
		break;
	}
	out->move = (uint8_t)out->u.s.move;
	out->fo = (uint8_t)fo;
}

void ptm_probe_compute_step(const ptm_probe *p, int pr, const struct ptm_bus_in *bus,
			    uint32_t brake, struct step *s)
{
	/* the common shapes with constant loop bounds (sweeps and batches
	 * come here at every edge) */
	switch (p->g.buses << 4 | p->g.regions) {
	case 0x21:
		compute_step_n(p, pr, bus, brake, s, 2, 1);
		return;
	case 0x22:
		compute_step_n(p, pr, bus, brake, s, 2, 2);
		return;
	case 0x24:
		compute_step_n(p, pr, bus, brake, s, 2, 4);
		return;
	case 0x42:
		compute_step_n(p, pr, bus, brake, s, 4, 2);
		return;
	case 0x44:
		compute_step_n(p, pr, bus, brake, s, 4, 4);
		return;
	default:
		compute_step_n(p, pr, bus, brake, s, p->g.buses, p->g.regions);
		return;
	}
}



/* counters += step registers (the per-edge case).  Few buses: fixed
 * loops without data-dependent branches; many (mostly idle) buses: only
 * the active ones. */
ALWAYS_INLINE void apply_step1_n(ptm_probe *p, const struct step *sr, const unsigned NB,
				 const unsigned NR)
{
	uint64_t *cnt = p->cnt;
	const unsigned bc = 6 + NR;
	cnt[0] += sr->ch0;
	if (NB <= 4) {
		for (unsigned b = 0; b < NB; b++)
			bus_add(cnt + 1 + b * bc, &sr->bus[b], 1, NR);
	} else {
		for (uint32_t m = sr->active; m; m &= m - 1) {
			unsigned b = (unsigned)__builtin_ctz(m);
			bus_add(cnt + 1 + b * bc, &sr->bus[b], 1, 0);
		}
	}
	brake_add(p, sr->brake, 1);
	p->cnt_zero = 0;
}

static void apply_step1(ptm_probe *p, const struct step *sr)
{
	switch (p->g.buses << 4 | p->g.regions) {
	case 0x21:
		apply_step1_n(p, sr, 2, 1);
		return;
	case 0x22:
		apply_step1_n(p, sr, 2, 2);
		return;
	case 0x24:
		apply_step1_n(p, sr, 2, 4);
		return;
	case 0x42:
		apply_step1_n(p, sr, 4, 2);
		return;
	case 0x44:
		apply_step1_n(p, sr, 4, 4);
		return;
	default:
		apply_step1_n(p, sr, p->g.buses, p->g.regions);
		return;
	}
}

/* The whole CLK edge in the common case (see ptm_probe_clk): no reset,
 * no sweep, no FIFO write, every synchroniser settled, no tick. */
/* compute_step_n() and apply_step1_n() of the new step in one pass
 * (eager representation), for NB <= 4 and NR <= 4. */
ALWAYS_INLINE void compute_add_n(ptm_probe *p, const struct ptm_bus_in *bus, uint32_t brake,
				 struct step *s, const unsigned NB, const unsigned NR,
				 const int STORE)
{
	uint32_t movem = 0, fo_next = 0;
	uint64_t *cnt = p->cnt;
	const unsigned bc = 6 + NR;
	cnt[0]++;
	for (unsigned b = 0; b < NB; b++) {
		struct step_bus t, *sb = STORE ? &s->bus[b] : &t;
		uint64_t *c = cnt + 1 + b * bc;
		uint32_t fo;
		bus_step_n(p, 0, b, &bus[b], (p->frame_open >> b) & 1u, sb, &fo, NR);
		bus_add(c, sb, 1, NR);
		movem |= sb->move << b;
		fo_next |= fo << b;
	}
	/* every bus counts as active: a zero descriptor adds nothing, and
	 * the exact mask is not worth its cost here */
	if (STORE) {
		s->ch0 = 1;
		s->brake = brake & p->brake_mask;
		s->active = (1u << NB) - 1;
	}
	s->move = movem;
	s->fo_next = fo_next;
	brake_add(p, brake & p->brake_mask, 1);
	p->cnt_zero = 0;
}

/* c[0..7] += t[0..7] (distinct arrays: lets the compiler use vectors) */
ALWAYS_INLINE void add8(uint64_t *restrict c, const uint64_t *restrict t)
{
	for (unsigned i = 0; i < 8; i++)
		c[i] += t[i];
}

ALWAYS_INLINE void add2(uint64_t *restrict c, const uint64_t *restrict t)
{
	c[0] += t[0];
	c[1] += t[1];
}

/* compute_add_n(STORE = 0) for REGIONS <= 2 through the word table. */
ALWAYS_INLINE void compute_add_tab_n(ptm_probe *p, const struct ptm_bus_in *bus, uint32_t brake,
				     struct step *s, const unsigned NB, const unsigned NR)
{
	const uint32_t rm = p->rmask_all;
	uint32_t movem = 0, fo_next = 0;
	uint64_t *cnt = p->cnt;
	const unsigned bc = 6 + NR;
	cnt[0]++;
	for (unsigned b = 0; b < NB; b++) {
		const struct ptm_bus_in *in = &bus[b];
		uint64_t *c = cnt + 1 + b * bc;
		const uint32_t idx = ((p->frame_open >> b) & 1u) | (in->sof & rm) << 1 |
				     (in->eof & rm) << (1 + NR) | (in->src_rdy & 1u) << (1 + 2 * NR) |
				     (in->dst_rdy & 1u) << (2 + 2 * NR);
		add8(c, p->vtab + (size_t)idx * 8);
		const uint32_t a = p->vaux[idx];
		uint32_t items = p->g.region_items[b] * ((a >> 3) & 3u);
		for (unsigned r = 0; r < NR; r++)
			items += ((a >> r) & 1u) * ((uint32_t)(in->eof_pos[r] & p->pos_mask) + 1u);
		c[5] += items & p->step_mask;
		const uint32_t midx = (in->mvb_vld & rm) | (in->mvb_src_rdy & 1u) << NR |
				      (in->mvb_dst_rdy & 1u) << (NR + 1);
		add2(c + 3, p->mtab[midx]);
		movem |= ((a >> 5) & 1u) << b;
		fo_next |= ((a >> 2) & 1u) << b;
	}
	s->move = movem;
	s->fo_next = fo_next;
	brake_add(p, brake & p->brake_mask, 1);
	p->cnt_zero = 0;
}

/* The flag-clear synchroniser and the flags at an edge without reset,
 * FIFO write or tick. */
static void flag_sync_edge(ptm_probe *p)
{
	if (p->fq2 ^ p->freg) {
		p->ovf = 0;
		p->overrun = 0;
	}
	p->freg = p->fq2;
	p->fq2 = p->fq1;
	p->fq1 = p->flag_lvl;
	p->mi_hot = 0; /* the flags may have changed */
}

/*
 * The common CLK edge: no reset, no sweep, no FIFO write, no tick.  The
 * counters are eager, so each step is added once, as it is computed.  The
 * step descriptors (sr, s) are written only at the two edges before a
 * tick, where the tick edge needs them to go back to the RTL's
 * representation; anywhere else the next edge that is not a fast one is a
 * reset edge, which clears the counters anyway.  Only the pending step's
 * move/fo_next (for frame_open_reg) are kept at every edge.
 */
ALWAYS_INLINE void fast_edge_n(ptm_probe *p, const struct ptm_bus_in *bus, uint32_t brake,
			       const unsigned NB, const unsigned NR)
{
	if (!p->eager) {
		apply_step(p, p->sr, 1);
		apply_step(p, p->s, 1);
		p->eager = 1;
	}
	asfifo_wr_idle_edge(&p->fifo);
	if (__builtin_expect((p->fq1 ^ p->flag_lvl) | (p->fq2 ^ p->fq1) | (p->freg ^ p->fq2), 0))
		flag_sync_edge(p);
	struct step *s = p->s;
	p->frame_open = (p->frame_open & ~s->move) | (s->fo_next & s->move);
	const int store = p->period >= p->dp_mask - 2;
	p->period++;
	if (NB <= 4 && NR <= 4) {
		if (__builtin_expect(store, 0)) {
			p->s = p->sr;
			p->sr = s;
			compute_add_n(p, bus, brake, p->s, NB, NR, 1);
			p->desc_ok = (uint8_t)((p->desc_ok & 1) << 1 | 1);
		} else {
			if (NR <= 2)
				compute_add_tab_n(p, bus, brake, s, NB, NR);
			else
				compute_add_n(p, bus, brake, s, NB, NR, 0);
			p->desc_ok = 0;
		}
	} else {
		p->s = p->sr;
		p->sr = s;
		compute_step_n(p, 0, bus, brake, p->s, NB, NR);
		apply_step1_n(p, p->s, NB, NR);
		p->desc_ok = (uint8_t)((p->desc_ok & 1) << 1 | 1);
	}
}

#define FAST_EDGE(nb, nr)                                                                      \
	static void fast_edge_##nb##_##nr(ptm_probe *p, const struct ptm_bus_in *bus,           \
					  uint32_t brake)                                       \
	{                                                                                      \
		fast_edge_n(p, bus, brake, nb, nr);                                            \
	}
FAST_EDGE(1, 1)
FAST_EDGE(1, 2)
FAST_EDGE(1, 4)
FAST_EDGE(2, 1)
FAST_EDGE(2, 2)
FAST_EDGE(2, 4)
FAST_EDGE(4, 1)
FAST_EDGE(4, 2)
FAST_EDGE(4, 4)

static void fast_edge_any(ptm_probe *p, const struct ptm_bus_in *bus, uint32_t brake)
{
	fast_edge_n(p, bus, brake, p->g.buses, p->g.regions);
}

static fast_edge_fn pick_fast_edge(unsigned nb, unsigned nr)
{
	static const fast_edge_fn tab[3][3] = {
		{ fast_edge_1_1, fast_edge_1_2, fast_edge_1_4 },
		{ fast_edge_2_1, fast_edge_2_2, fast_edge_2_4 },
		{ fast_edge_4_1, fast_edge_4_2, fast_edge_4_4 },
	};
	int bi = nb == 1 ? 0 : nb == 2 ? 1 : nb == 4 ? 2 : -1;
	int ri = nr == 1 ? 0 : nr == 2 ? 1 : nr == 4 ? 2 : -1;
	return bi < 0 || ri < 0 ? fast_edge_any : tab[bi][ri];
}


static void zero_step(struct step *s, unsigned buses)
{
	s->ch0 = 0;
	s->brake = 0;
	s->active = 0;
	s->move = 0;
	s->fo_next = 0;
	memset(s->bus, 0, buses * sizeof(s->bus[0]));
}

/* ------------------------------------------------------------------ */
/* CLK edge                                                            */


static void clk_slow(ptm_probe *p, int rst, const struct ptm_bus_in *bus, uint32_t brake,
		     struct ptm_probe_clk_out *out);


void ptm_probe_clk(ptm_probe *p, int rst, const struct ptm_bus_in *bus, uint32_t brake,
		   struct ptm_probe_clk_out *out)
{
	if (__builtin_expect(p->lazy, 0))
		ptm_probe_lazy_exit(p);
	/* Common case: nothing but counting happens at this edge. */
	if (__builtin_expect(p->hot && !rst && p->period != p->dp_mask, 1)) {
		p->st.edges++;
		p->reset_held = 0;
		p->fast_edge(p, bus, brake);
		if (out) {
			out->drain_tick = 0;
			out->wr_en = 0;
			out->wr_dropped = 0;
			out->wr_index = p->wr_data.index;
			out->wr_delta = p->wr_data.delta;
			out->fifo_flushed = 0;
		}
		return;
	}
	clk_slow(p, rst, bus, brake, out);
}

/* The FIFO's write side at a slow edge: fifo_wr_en/fifo_wr_data as
 * registered at the previous edge, WR_FULL as registered at the previous
 * edge; the edge's outputs into *out.  Returns 1 when the write was seen
 * and dropped. */
static int slow_fifo_write(ptm_probe *p, int pr, int arst, struct ptm_probe_clk_out *out)
{
	uint8_t flushed = 0;
	if (arst) {
		uint64_t lost = asfifo_arst(&p->fifo);
		p->st.flushed += lost;
		flushed = 1;
	}
	int dropped = 0;
	const int wr_en = p->wr_en;
	if (wr_en || arst)
		asfifo_wr_edge(&p->fifo, arst, wr_en, &p->wr_data, &dropped);
	else
		asfifo_wr_idle_edge(&p->fifo);
	/* A reset that lands inside a sweep: fifo_wr_en is still 1 at the
	 * reset edge, but the FIFO is already in reset (WR_FULL = 1) and the
	 * reset clears fifo_ovf.  The spec (trace-format.md) counts no write
	 * attempt in reset ("X never comes from reset"): the delta is simply
	 * part of what the reset discards. */
	const int wr_seen = wr_en && !pr;
	if (out) {
		out->wr_en = (uint8_t)wr_seen;
		out->wr_dropped = (uint8_t)(wr_seen && dropped);
		out->wr_index = p->wr_data.index;
		out->wr_delta = p->wr_data.delta;
		out->fifo_flushed = flushed;
	}
	if (wr_seen) {
		p->st.writes++;
		p->st.dropped += (uint64_t)dropped;
	}
	return wr_en && dropped;
}

/* A slow edge in reset: the registers and counters to their reset
 * values. */
static void slow_reset(ptm_probe *p)
{
	p->ovf = p->overrun = 0;
	p->fq1 = p->fq2 = p->freg = 0;
	p->wr_en = 0;
	if (!p->cnt_zero) {
		memset(p->cnt, 0, (size_t)p->groups * GROUP_SIZE * sizeof(*p->cnt));
		p->cnt_zero = 1;
	}
	p->brake_run = 0;
	p->run = 0;
	p->slot = 0;
	p->pos = 0;
	p->period = 0;
	zero_step(p->sr, p->g.buses);
	p->frame_open = 0;
	p->desc_ok = 3; /* the step registers are reset, the new s follows */
	p->reset_held = 1;
}

/* A slow edge out of reset: the flags' synchroniser, the drain sweep
 * (capture_en takes one element of every group), the step registers. */
static void slow_run(ptm_probe *p, int tick, int wr_dropped)
{
	if (p->fq2 ^ p->freg) {
		p->ovf = 0;
		p->overrun = 0;
	}
	if (wr_dropped)
		p->ovf = 1;
	if (tick && p->run)
		p->overrun = 1;
	p->freg = p->fq2;
	p->fq2 = p->fq1;
	p->fq1 = p->flag_lvl;

	const int cap = sweep_edge(p, tick);
	if (cap >= 0) {
		brake_flush(p);
		for (unsigned gi = 0; gi < p->groups; gi++) {
			unsigned ch = gi * GROUP_SIZE + (unsigned)cap;
			p->grp_val[gi] = p->cnt[ch] & p->cnt_mask;
			p->cnt[ch] = 0;
		}
	}
	apply_step1(p, p->sr);
	p->period = (p->period + 1) & p->dp_mask;
	struct step *t = p->sr;
	p->sr = p->s;
	p->s = t;
	p->desc_ok = (uint8_t)((p->desc_ok & 1) << 1 | 1);
	p->frame_open = (p->frame_open & ~p->sr->move) | (p->sr->fo_next & p->sr->move);
	p->reset_held = 0;
}

static void clk_slow(ptm_probe *p, int rst, const struct ptm_bus_in *bus, uint32_t brake,
		     struct ptm_probe_clk_out *out)
{
	p->rst_in = (uint8_t)(rst != 0);
	const int pr = p->rst_in | ((p->rsync >> 2) & 1);
	if (p->eager) {
		/* Back to the RTL's representation.  A reset edge clears the
		 * counters anyway; any other slow edge follows edges that kept
		 * the descriptors (fast_edge_n). */
		if (!pr) {
			apply_step(p, p->sr, UINT64_MAX);
			apply_step(p, p->s, UINT64_MAX);
		}
		p->eager = 0;
	}
	const int wr_dropped = slow_fifo_write(p, pr, pr | p->mi_rst, out);
	const int tick = p->period == p->dp_mask;
	p->st.ticks += (uint64_t)tick;
	p->st.edges++;
	if (out)
		out->drain_tick = (uint8_t)tick;
	if (pr)
		slow_reset(p);
	else
		slow_run(p, tick, wr_dropped);
	ptm_probe_compute_step(p, pr, bus, brake, p->s);
	p->rsync = p->mi_rst ? 7 : (uint8_t)((p->rsync << 1) & 7);
	update_hot(p);
	update_mi_hot(p);
}

/* ------------------------------------------------------------------ */
/* MI edge                                                             */

void ptm_probe_tx(const ptm_probe *p, struct ptm_probe_mi_out *out)
{
	const struct ptm_fifo_entry *h = asfifo_head(&p->fifo);
	out->vld = (uint8_t)asfifo_valid(&p->fifo);
	/* The output register, valid or not: the RTL does not clear it, and
	 * a consumer that latched TX_INDEX/TX_DELTA sees it as it is. */
	out->index = h->index;
	out->delta = h->delta;
	out->fifo_ovf = p->oq2;
	out->overrun = p->vq2;
}

static void mi_slow(ptm_probe *p, int mi_rst, int flag_clr, int rd, struct ptm_probe_mi_out *out);

void ptm_probe_mi_clk(ptm_probe *p, int mi_rst, int flag_clr, int rd, struct ptm_probe_mi_out *out)
{
	/* Common case: no reset anywhere, FIFO empty and settled, flags
	 * synchronised: the edge only reloads the (not valid) data registers. */
	if (__builtin_expect(p->mi_hot && !mi_rst && p->fifo.rd_quiet, 1)) {
		if ((flag_clr != 0) != p->flag_lvl) {
			p->flag_lvl = (uint8_t)(flag_clr != 0);
			p->hot = 0;
		}
		asfifo_rd_idle_loads(&p->fifo, 1);
		if (out) {
			out->vld = 0;
			out->index = 0;
			out->delta = 0;
			out->fifo_ovf = p->oq2;
			out->overrun = p->vq2;
		}
		return;
	}
	mi_slow(p, mi_rst, flag_clr, rd, out);
}

static void mi_slow(ptm_probe *p, int mi_rst, int flag_clr, int rd, struct ptm_probe_mi_out *out)
{
	p->mi_rst = (uint8_t)(mi_rst != 0);
	p->flag_lvl = (uint8_t)(flag_clr != 0);
	if (p->mi_rst)
		p->rsync = 7;
	update_hot(p);
	const int arst = p->rst_in | ((p->rsync >> 2) & 1) | p->mi_rst;
	if (arst)
		p->st.flushed += asfifo_arst(&p->fifo);
	struct ptm_fifo_entry e;
	int popped = asfifo_rd_edge(&p->fifo, arst, rd != 0, &e);
	if (popped)
		p->st.popped++;
	if (p->mi_rst) {
		p->oq1 = p->oq2 = p->vq1 = p->vq2 = 0;
	} else {
		p->oq2 = p->oq1;
		p->oq1 = p->ovf;
		p->vq2 = p->vq1;
		p->vq1 = p->overrun;
	}
	if (out) {
		out->vld = (uint8_t)popped;
		out->index = popped ? e.index : 0;
		out->delta = popped ? e.delta : 0;
		out->fifo_ovf = p->oq2;
		out->overrun = p->vq2;
	}
	update_mi_hot(p);
}

