/*
 * pcie-telemetry: batches of CLK edges of the probe model (identical
 * inputs at every edge); the MI edges' batches are probe_mi.c.
 *
 * The batch representation.  A CLK batch adds, per bus, the step of its
 * inputs at every edge; frame_open_reg settles after one edge (the walk
 * of a word is a monotone function of the frame_open before it, so it is
 * idempotent), so a bus adds one step at edge 1 and another one at every
 * later edge.  While the probe runs batches (no reset, settled
 * synchronisers), each bus and the global channels (the elapsed cycle and
 * the BRAKE bits) form a lane group with the rates of its last batch
 * (struct lz_group); cnt holds a group's counters as they were when its
 * rates began, and nothing is added per batch: a batch costs only the
 * groups whose inputs changed, plus the edges of a drain sweep (captures
 * and FIFO writes), stepped one by one.  A capture computes the RTL's
 * counter from the group's rates and subtracts the two steps the RTL has
 * not added yet (the input and step registers, h[] of the group).
 *
 * Any other use of the counters (a single edge, the plain path, a reset)
 * first goes back to the eager representation of probe.c with the step
 * descriptors rebuilt from the groups (ptm_probe_lazy_exit).
 *
 * Exactness rests on one invariant of the eager representation: the eager
 * counters always equal the RTL's counters plus its two pending steps, and
 * the descriptors sr, s are exact when desc_ok says so.  A capture needs
 * the exact pending steps; entering the batch representation without them
 * is allowed when no capture can come in the next two edges.
 */
#include "model/probe_impl.h"
#include "util/cache.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * The steps a lane group was given last, by their inputs: a bus sees the
 * same few words again and again (the card's runs name a handful of
 * patterns), so its step (a pure function of the inputs same_bus_in()
 * compares and frame_open) is looked up in LZ_MEMO entries per bus
 * rather than computed.  For buses of at most two regions (the key is
 * then the first two words of the inputs and the handshakes); k2 = 0:
 * an empty entry.
 */
#define LZ_MEMO_BITS PT_CACHE_SIZE(7, 0)
#define LZ_MEMO (1u << LZ_MEMO_BITS)

struct lz_memo {
	uint64_t k0, k1, k2; /* inputs' words 0, 1; handshakes | (open + 1) << 32 */
	struct lz_step st;
};

int ptm_probe_lazy_init(ptm_probe *p)
{
	const unsigned nb = p->g.buses, n = p->groups * GROUP_SIZE;
	/* sof, eof, mvb_vld and the EOF_POS of the regions, in words */
	p->key_words = (unsigned)(offsetof(struct ptm_bus_in, eof_pos) +
				  p->g.regions * sizeof(uint16_t) + 7) / 8;
	p->lz = calloc(nb + 1, sizeof(*p->lz));
	p->chmap = calloc(n, sizeof(*p->chmap));
	p->memo = p->key_words <= 2 ? calloc((size_t)nb * LZ_MEMO, sizeof(*p->memo)) : NULL;
	if (!p->lz || !p->chmap || (p->key_words <= 2 && !p->memo))
		return -1;
	for (unsigned ch = 0; ch < n; ch++) {
		unsigned m = LZ_NONE;
		if (ch == 0)
			m = nb << 8;
		else if (ch < p->brake_base)
			m = (ch - 1) / p->bus_channels << 8 | (ch - 1) % p->bus_channels;
		else if (ch < p->channels)
			m = nb << 8 | (6 + ch - p->brake_base);
		p->chmap[ch] = (uint16_t)m;
	}
	return 0;
}

void ptm_probe_lazy_free(ptm_probe *p)
{
	free(p->lz);
	free(p->chmap);
	free(p->memo);
}

/* The increment of field f (see struct lz_step). */
static inline uint32_t lz_val(const struct lz_step *st, unsigned f)
{
	return f < 6 ? st->u.v[f] : (st->u.v[6] >> (f - 6)) & 1u;
}

/* The group's counters += k * st. */
static inline void lz_add(ptm_probe *p, unsigned gi, const struct lz_step *st, uint64_t k)
{
	if (gi < p->g.buses) {
		bus_add(p->cnt + 1 + gi * p->bus_channels, &st->u.s, k, 0);
		return;
	}
	p->cnt[0] += k * st->u.v[0];
	uint64_t *c = p->cnt + p->brake_base;
	for (uint32_t m = st->u.v[6]; m; m &= m - 1)
		c[__builtin_ctz(m)] += k;
}

static inline uint64_t umin(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Bring the group's counters to tau (its rates stay). */
static inline void lz_flush(ptm_probe *p, unsigned gi, uint64_t tau)
{
	const struct lz_group *g = &p->lz[gi];
	const uint64_t d = tau - g->since;
	if (!d || g->zero)
		return;
	if (g->same) {
		lz_add(p, gi, &g->h[3], d);
		return;
	}
	lz_add(p, gi, &g->h[2], 1);
	lz_add(p, gi, &g->h[3], d - 1);
}

/* A batch of the group starts at tau0: its counters are brought to tau0,
 * the two steps before it become the history. */
ALWAYS_INLINE void lz_rebase(ptm_probe *p, unsigned gi, uint64_t tau0)
{
	struct lz_group *g = &p->lz[gi];
	const uint64_t d = tau0 - g->since;
	lz_flush(p, gi, tau0);
	/* h[min(d, 3)], h[min(d + 1, 3)] become h[0], h[1] (in this order) */
	if (d >= 3) {
		g->h[0] = g->h[3];
		g->h[1] = g->h[3];
	} else if (d) {
		g->h[0] = g->h[d];
		g->h[1] = g->h[d + 1];
	}
	g->fo[0] = g->fo[umin(d, 2)];
	g->since = tau0;
	g->valid = 1;
}

/* The bus's step for frame_open bit open before the word, computed. */
static inline void lz_step_new(const ptm_probe *p, unsigned b, const struct ptm_bus_in *in,
			       uint32_t open, struct lz_step *out)
{
	if (p->g.regions == 2)
		ptm_probe_bus_step_tab(p, b, in, open, out, 2);
	else
		ptm_probe_bus_step(p, b, in, open, out);
}

/* The same through the bus's memo (struct lz_memo) where it has one. */
static inline void lz_step_of(const ptm_probe *p, unsigned b, const struct ptm_bus_in *in,
			      uint32_t open, struct lz_step *out)
{
	if (!p->memo) {
		lz_step_new(p, b, in, open, out);
		return;
	}
	const unsigned char *x = (const void *)in;
	uint64_t k0, k1;
	uint32_t r;
	memcpy(&k0, x, 8);
	memcpy(&k1, x + 8, 8);
	memcpy(&r, x + offsetof(struct ptm_bus_in, src_rdy), 4);
	const uint64_t k2 = r | (uint64_t)(open + 1) << 32;
	const uint64_t h = (k0 ^ k1 * 0x9E3779B97F4A7C15ull ^ k2 * 0xC2B2AE3D27D4EB4Full) *
			   0x165667B19E3779F9ull;
	struct lz_memo *e = &p->memo[b * LZ_MEMO + (LZ_MEMO_BITS ? (unsigned)(h >> (64 - LZ_MEMO_BITS)) : 0u)];
	if (e->k2 != k2 || e->k0 != k0 || e->k1 != k1) {
		lz_step_new(p, b, in, open, &e->st);
		e->k0 = k0;
		e->k1 = k1;
		e->k2 = k2;
	}
	*out = e->st;
}

/* A batch of bus b from tau0 with inputs in: its group's rates (the
 * caller sets the group's key to the inputs of its last batch). */
ALWAYS_INLINE void lz_bus(ptm_probe *p, unsigned b, const struct ptm_bus_in *in, uint64_t tau0)
{
	struct lz_group *g = &p->lz[b];
	lz_rebase(p, b, tau0);
	/* at edge 1 the pending step's word loads frame_open_reg */
	const uint8_t f1 = g->h[1].move ? g->h[1].fo : g->fo[0];
	lz_step_of(p, b, in, f1, &g->h[2]);
	const uint8_t f2 = g->h[2].move ? g->h[2].fo : f1;
	g->same = f2 == f1; /* the step depends on the inputs and frame_open */
	if (g->same)
		g->h[3] = g->h[2];
	else
		lz_step_of(p, b, in, f2, &g->h[3]);
	g->fo[1] = f1;
	g->fo[2] = f2;
	const struct step_bus *z = &g->h[2].u.s;
	g->zero = g->same && !(z->move | z->hold | z->mvb | z->mhold);
}

/* The global group: BRAKE bits b1 at edge 1, b2 at the later edges. */
static void lz_global(ptm_probe *p, uint32_t b1, uint32_t b2, uint64_t tau0)
{
	struct lz_group *g = &p->lz[p->g.buses];
	lz_rebase(p, p->g.buses, tau0);
	memset(&g->h[2], 0, sizeof(g->h[2]));
	g->h[2].u.v[0] = 1;
	g->h[2].u.v[6] = b1;
	g->h[3] = g->h[2];
	g->h[3].u.v[6] = b2;
	g->same = b1 == b2;
	g->zero = 0;
	g->gkey = b2;
}

/* The inputs of a bus that its step depends on are the same: the masks,
 * the first key_words words (EOF_POS of the regions that exist) and the
 * handshakes. */
static inline int same_bus_in(const ptm_probe *p, const struct ptm_bus_in *a,
			      const struct ptm_bus_in *b)
{
	const unsigned char *x = (const void *)a, *y = (const void *)b;
	uint32_t r, t;
	uint64_t u0, v0, u1, v1;
	memcpy(&r, x + offsetof(struct ptm_bus_in, src_rdy), 4);
	memcpy(&t, y + offsetof(struct ptm_bus_in, src_rdy), 4);
	memcpy(&u0, x, 8);
	memcpy(&v0, y, 8);
	memcpy(&u1, x + 8, 8);
	memcpy(&v1, y + 8, 8);
	uint64_t d = (r ^ t) | (u0 ^ v0) | (u1 ^ v1);
	for (unsigned i = 2; i < p->key_words; i++) {
		memcpy(&u0, x + 8 * i, 8);
		memcpy(&v0, y + 8 * i, 8);
		d |= u0 ^ v0;
	}
	return d == 0;
}

/* The RTL's counter ch before the edge at tau (batch representation). */
static inline uint64_t lz_rtl(const ptm_probe *p, unsigned ch, uint64_t tau)
{
	const unsigned m = p->chmap[ch];
	uint64_t c = p->cnt[ch];
	if (m == LZ_NONE)
		return c;
	const struct lz_group *g = &p->lz[m >> 8];
	const unsigned f = m & 0xffu;
	const uint64_t d = tau - g->since;
	if (d >= 3 && g->same) /* both pending steps are the rate */
		return c + (d - 2) * lz_val(&g->h[3], f);
	if (d)
		c += lz_val(&g->h[2], f) + (d - 1) * lz_val(&g->h[3], f);
	return c - lz_val(&g->h[umin(d, 3)], f) - lz_val(&g->h[umin(d + 1, 3)], f);
}

static void lz_set_hist(struct lz_group *g, const struct step *sr, const struct step *s, int bus,
			unsigned b)
{
	if (bus) {
		g->h[0].u.s = sr->bus[b];
		g->h[1].u.s = s->bus[b];
		g->h[0].move = (uint8_t)((sr->move >> b) & 1u);
		g->h[0].fo = (uint8_t)((sr->fo_next >> b) & 1u);
		g->h[1].move = (uint8_t)((s->move >> b) & 1u);
		g->h[1].fo = (uint8_t)((s->fo_next >> b) & 1u);
	} else {
		memset(g->h, 0, 2 * sizeof(g->h[0]));
		g->h[0].u.v[0] = sr->ch0;
		g->h[0].u.v[6] = sr->brake;
		g->h[1].u.v[0] = s->ch0;
		g->h[1].u.v[6] = s->brake;
	}
	g->h[2] = g->h[3] = g->h[1];
	g->same = 1;
	g->zero = 0;
}

/* Into the batch representation; 0 when it cannot be entered now. */
static int lz_enter(ptm_probe *p)
{
	if (!p->eager) {
		if (p->desc_ok != 3)
			return 0; /* cnt is the RTL's only with exact descriptors */
		apply_step(p, p->sr, 1);
		apply_step(p, p->s, 1);
		p->eager = 1;
	}
	/* without the pending steps, no capture in the next two edges */
	if (p->desc_ok != 3 && (p->run || p->period == p->dp_mask))
		return 0;
	brake_flush(p);
	const unsigned nb = p->g.buses;
	for (unsigned gi = 0; gi <= nb; gi++) {
		struct lz_group *g = &p->lz[gi];
		lz_set_hist(g, p->sr, p->s, gi < nb, gi);
		g->fo[0] = g->fo[1] = g->fo[2] = gi < nb ? (uint8_t)((p->frame_open >> gi) & 1u) : 0;
		g->since = p->tau;
		g->valid = 0;
	}
	p->lz_entry = p->tau;
	p->lz_ok = p->desc_ok;
	p->lazy = 1;
	p->cnt_zero = 0;
	return 1;
}

void ptm_probe_lazy_exit(ptm_probe *p)
{
	const uint64_t tau = p->tau;
	const unsigned nb = p->g.buses;
	struct step *sr = p->sr, *s = p->s;
	uint32_t fo = 0, smove = 0, sfo = 0, rmove = 0, rfo = 0;
	for (unsigned gi = 0; gi <= nb; gi++) {
		struct lz_group *g = &p->lz[gi];
		const uint64_t d = tau - g->since;
		const struct lz_step *hr = &g->h[umin(d, 3)], *hs = &g->h[umin(d + 1, 3)];
		lz_flush(p, gi, tau);
		if (gi < nb) {
			sr->bus[gi] = hr->u.s;
			s->bus[gi] = hs->u.s;
			rmove |= (uint32_t)hr->move << gi;
			rfo |= (uint32_t)hr->fo << gi;
			smove |= (uint32_t)hs->move << gi;
			sfo |= (uint32_t)hs->fo << gi;
			fo |= (uint32_t)g->fo[umin(d, 2)] << gi;
		} else {
			sr->ch0 = hr->u.v[0];
			sr->brake = hr->u.v[6];
			s->ch0 = hs->u.v[0];
			s->brake = hs->u.v[6];
		}
	}
	const uint32_t all = (uint32_t)((UINT64_C(1) << nb) - 1);
	sr->active = s->active = all;
	sr->move = rmove;
	sr->fo_next = rfo;
	s->move = smove;
	s->fo_next = sfo;
	sr->pad = s->pad = 0;
	p->frame_open = fo;
	const uint64_t k = tau - p->lz_entry;
	p->desc_ok = (uint8_t)(k >= 2 ? 3 : k == 1 ? 1 | (p->lz_ok & 1) << 1 : p->lz_ok);
	p->lazy = 0;
}

/* capture_en at tau: one element (slot) of every group. */
static inline void lz_capture(ptm_probe *p, unsigned slot, uint64_t tau)
{
	for (unsigned gi = 0; gi < p->groups; gi++) {
		const unsigned ch = gi * GROUP_SIZE + slot;
		const uint64_t v = lz_rtl(p, ch, tau);
		p->grp_val[gi] = v & p->cnt_mask;
		p->cnt[ch] -= v;
	}
}

/* One CLK edge of a batch that is not just counting (a tick, a sweep
 * edge, a FIFO write, or the FIFO's write side settling); clk_slow()
 * without reset and with settled flag synchronisers.  *ws: the FIFO's
 * write side is settled (asfifo_wr_sync_settled; it stays so without
 * read edges). */
static inline void lz_edge(ptm_probe *p, uint64_t tau, int *ws)
{
	int dropped = 0;
	const int wr_en = p->wr_en;
	if (*ws) {
		if (wr_en || !p->fifo.wr_quiet)
			asfifo_wr_edge_settled(&p->fifo, wr_en, &p->wr_data, &dropped);
	} else {
		asfifo_wr_edge(&p->fifo, 0, wr_en, &p->wr_data, &dropped);
		*ws = asfifo_wr_sync_settled(&p->fifo);
	}
	if (wr_en) {
		p->st.writes++;
		p->st.dropped += (uint64_t)dropped;
		if (dropped)
			p->ovf = 1;
	}
	const int tick = p->period == p->dp_mask;
	p->st.ticks += (uint64_t)tick;
	p->st.edges++;
	if (tick && p->run)
		p->overrun = 1;
	const int cap = sweep_edge(p, tick);
	if (cap >= 0)
		lz_capture(p, (unsigned)cap, tau);
	p->period = (p->period + 1) & p->dp_mask;
}

/* m whole slots of a running sweep (pos = 0: the capture edge, then the
 * GROUPS edges that present the values to the FIFO), one after the other,
 * that end before the next tick, with the FIFO's write side settled:
 * lz_edge() m (GROUPS + 1) times.  In a slot the FIFO sees a write of the
 * pending entry at the capture edge, an idle edge, then the entries of
 * groups 0 .. GROUPS-2; the entry of the last group is pending after it.
 * The write side stays in registers from slot to slot. */
static void lz_slots(ptm_probe *p, uint64_t tau, unsigned m)
{
	struct ptm_asfifo *f = &p->fifo;
	const unsigned G = p->groups;
	const uint32_t items = f->items, pm = f->ptr_mask, mm = f->mem_mask;
	uint32_t wc = f->wr_cnt, used = (wc - f->rd_synced_reg) & pm, wc_last = wc;
	uint32_t gray = f->wr_in_gray;
	uint64_t writes = 0, dropped = 0, accepted = 0;
	int last_en = 0, full = f->full_reg, moved = 0; /* full: WR_FULL as registered */
	/* one write edge of the settled write side (asfifo_wr_edge_settled) */
#define SLOT_WRITE(en, idx, val)                                                               \
	do {                                                                                   \
		wc_last = wc;                                                                  \
		last_en = (en);                                                                \
		if (last_en) {                                                                 \
			writes++;                                                              \
			if (!full) {                                                           \
				f->mem[wc & mm].index = (uint16_t)(idx);                       \
				f->mem[wc & mm].delta = (val);                                 \
				wc = (wc + 1) & pm;                                            \
				used++;                                                        \
			} else {                                                               \
				dropped++;                                                     \
			}                                                                      \
		}                                                                              \
		full = used == items;                                                          \
	} while (0)
	for (unsigned k = 0; k < m; k++, tau += G + 1) {
		const unsigned slot = p->slot;
		const uint32_t wc0 = wc;
		SLOT_WRITE(p->wr_en, p->wr_data.index, p->wr_data.delta);
		lz_capture(p, slot, tau);
		SLOT_WRITE(0, 0, 0);
		if (!full && used + (G - 1) <= items) {
			/* room for all: groups 0 .. GROUPS-2 hold no padding channel */
			for (unsigned g = 0; g + 1 < G; g++) {
				struct ptm_fifo_entry *e = &f->mem[(wc + g) & mm];
				e->index = (uint16_t)(g * GROUP_SIZE + slot);
				e->delta = p->grp_val[g];
			}
			wc_last = (wc + G - 2) & pm;
			last_en = 1;
			wc = (wc + G - 1) & pm;
			used += G - 1;
			writes += G - 1;
			full = used == items;
		} else {
			for (unsigned g = 0; g + 1 < G; g++) {
				const unsigned ch = g * GROUP_SIZE + slot;
				SLOT_WRITE(ch < p->channels, ch, p->grp_val[g]);
			}
		}
		const unsigned ch = (G - 1) * GROUP_SIZE + slot;
		p->wr_data.index = (uint16_t)ch;
		p->wr_data.delta = p->grp_val[G - 1];
		p->wr_en = ch < p->channels;
		/* the write side after the slot's last edge */
		const uint32_t wg = asfifo_bin2gray(wc_last);
		moved |= wc != wc0 || wg != gray;
		gray = wg;
		accepted += (wc - wc0) & pm;
		p->pos = 0;
		if (slot == GROUP_SIZE - 1)
			p->run = 0;
		else
			p->slot++;
	}
#undef SLOT_WRITE
	if (moved)
		f->rd_quiet = 0;
	f->accepted += accepted;
	f->wr_in_gray = gray;
	f->wr_cnt = wc;
	f->full_reg = (uint8_t)full;
	f->wr_quiet = (uint8_t)(!last_en && !f->no_quiet);
	f->in_reset = 0;
	p->st.writes += writes;
	p->st.dropped += dropped;
	if (dropped)
		p->ovf = 1;
	p->st.edges += (uint64_t)m * (G + 1);
	p->period += m * (G + 1);
}

/* n edges from tau on, the quiet stretches up to the next tick in one
 * go, stopping early before a capture edge at lim or later (the lane
 * groups may lack runs that start there).  Returns whether any edge did
 * more than count. */
static int lz_run_lim(ptm_probe *p, uint64_t n, uint64_t lim)
{
	uint64_t tau = p->tau;
	int events = 0, ws = -1;
	while (n) {
		if (!p->run && !p->wr_en && p->fifo.wr_quiet) {
			uint64_t k = p->dp_mask - p->period; /* edges before the tick */
			if (k >= n)
				k = n;
			p->period += (uint32_t)k;
			p->st.edges += k;
			tau += k;
			n -= k;
			if (!n)
				break;
		}
		if (p->run && !p->pos && tau >= lim)
			break; /* a capture the groups are not ready for */
		if (!p->run && !p->wr_en && p->period != p->dp_mask) {
			/* the FIFO's write side settling (it is not quiet, or the
			 * stretch above would have gone on): lz_edge() without a
			 * write, tick or sweep, up to the edge that makes it so */
			uint64_t k = asfifo_wr_idle_edges(&p->fifo, umin(n, p->dp_mask - p->period));
			p->period += (uint32_t)k;
			p->st.edges += k;
			tau += k;
			n -= k;
			events = 1;
			ws = -1;
			continue;
		}
		if (ws < 0)
			ws = asfifo_wr_sync_settled(&p->fifo);
		const unsigned slot_edges = p->groups + 1;
		if (p->run && !p->pos && ws && p->groups >= 2 && n >= slot_edges &&
		    p->period + p->groups < p->dp_mask) {
			/* the slots up to the sweep's end, the n edges, the tick
			 * and the captures from lim on (these whole slots one by
			 * one would stop there) */
			uint64_t m = umin(GROUP_SIZE - p->slot, n / slot_edges);
			m = umin(m, (p->dp_mask - p->groups - p->period - 1) / slot_edges + 1);
			m = umin(m, (lim - tau - 1) / slot_edges + 1);
			lz_slots(p, tau, (unsigned)m);
			events = 1;
			tau += m * slot_edges;
			n -= m * slot_edges;
			continue;
		}
		lz_edge(p, tau, &ws);
		events = 1;
		tau++;
		n--;
	}
	p->tau = tau;
	return events;
}

/* n edges from tau on (lz_run_lim without a stop). */
static int lz_run(ptm_probe *p, uint64_t n)
{
	return lz_run_lim(p, n, UINT64_MAX);
}

/* A batch in the batch representation begins (its first edge is no reset
 * edge; *was_rst: the last one was); 0 when the representation does not
 * apply now (a reset, a settling synchroniser, the plain path). */
static inline int lz_begin(ptm_probe *p, int *was_rst)
{
	const unsigned fl = p->flag_lvl;
	if (((unsigned)p->rsync | p->mi_rst | p->slow | (p->fq1 ^ fl) | (p->fq2 ^ fl) |
	     (p->freg ^ fl)) != 0)
		return 0;
	if (!p->lazy && !lz_enter(p))
		return 0;
	*was_rst = p->rst_in;
	p->rst_in = 0;
	p->reset_held = 0;
	return 1;
}

/* The whole batch in the batch representation; 0 when not applicable
 * (a reset, a settling synchroniser, the plain path). */
ALWAYS_INLINE uint64_t lz_batch(ptm_probe *p, const struct ptm_bus_in *bus, uint32_t brake1,
				uint32_t brake, uint64_t n)
{
	int was_rst; /* or: an edge did more than count */
	if (!lz_begin(p, &was_rst))
		return 0;
	const uint64_t t0 = p->tau;
	const unsigned nb = p->g.buses;
	for (unsigned b = 0; b < nb; b++) {
		if (!p->lz[b].valid || !same_bus_in(p, &p->lz[b].key, &bus[b])) {
			lz_bus(p, b, &bus[b], t0);
			p->lz[b].key = bus[b];
		}
	}
	const uint32_t bk = brake & p->brake_mask, bk1 = brake1 & p->brake_mask;
	if (!p->lz[nb].valid || p->lz[nb].gkey != bk || bk1 != bk)
		lz_global(p, bk1, bk, t0);
	if (!p->run && !p->wr_en && p->fifo.wr_quiet && n <= p->dp_mask - p->period) {
		/* nothing but counting up to the next tick */
		p->period += (uint32_t)n;
		p->st.edges += n;
		p->tau += n;
	} else if (lz_run(p, n)) {
		was_rst = 1;
	}
	if (was_rst) {
		update_hot(p);
		update_mi_hot(p);
	}
	return n;
}

/* The next capture edge from tau on (run & pos = 0; see sweep_edge), or
 * UINT64_MAX when there is none before `end`.  Without reset a sweep ends
 * long before the next tick. */
static uint64_t lz_next_capture(const ptm_probe *p, uint64_t end)
{
	uint64_t t = p->tau, period = p->period;
	if (p->run) {
		if (p->pos == 0)
			return t;
		uint64_t k = p->groups - p->pos + 1; /* edges to the end of the slot */
		if (p->slot + 1u < GROUP_SIZE)
			return t + k < end ? t + k : UINT64_MAX;
		t += k;
		period = (period + k) & p->dp_mask;
	}
	t += (p->dp_mask - period) + 1; /* the tick edge, then the first capture */
	return t < end ? t : UINT64_MAX;
}

/* A run-list cursor of one lane group: the runs with a start <= upto
 * become the group's rates. */
struct lz_cursor {
	uint64_t start;
	unsigned i;
};

ALWAYS_INLINE void lz_bus_upto(ptm_probe *p, unsigned b, const struct ptm_bus_run *run,
			       unsigned n, struct lz_cursor *c, uint64_t upto)
{
	const unsigned i0 = c->i;
	while (c->i < n && c->start <= upto) {
		const struct ptm_bus_in *in = &run[c->i].in;
		/* only the first run may be the inputs the group has (the
		 * others follow a change; a run alike the one before it gives
		 * the same rates again) */
		if (c->i || !p->lz[b].valid || !same_bus_in(p, &p->lz[b].key, in))
			lz_bus(p, b, in, c->start);
		c->start += run[c->i++].len;
	}
	/* the key is read at the first run only */
	if (c->i != i0)
		p->lz[b].key = run[c->i - 1].in;
}

static void lz_global_upto(ptm_probe *p, const struct ptm_val_run *run, unsigned n,
			   struct lz_cursor *c, uint64_t upto)
{
	const unsigned nb = p->g.buses;
	while (c->i < n && c->start <= upto) {
		const uint32_t bk = run[c->i].val & p->brake_mask;
		if (!p->lz[nb].valid || p->lz[nb].gkey != bk)
			lz_global(p, bk, bk, c->start);
		c->start += run[c->i++].len;
	}
}

int ptm_probe_clk_runs(ptm_probe *p, const struct ptm_bus_run *const *bus, const unsigned *nruns,
		       const struct ptm_val_run *brake, unsigned nbrake, uint64_t n)
{
	const unsigned nb = p->g.buses;
	int events; /* or: an edge did more than count */
	if (!n || !lz_begin(p, &events))
		return 0;
	const uint64_t end = p->tau + n;
	struct lz_cursor cur[PTM_MAX_PROBE_BUSES + 1];
	for (unsigned b = 0; b <= nb; b++)
		cur[b] = (struct lz_cursor){ p->tau, 0 };
	/* The groups take their runs up to each capture, which reads them at
	 * its edge: a group's rates may run ahead of the probe's edges, not
	 * of a capture.  The edges then run on through every capture before
	 * the next run's start (its sweep's slots in one go). */
	for (;;) {
		const uint64_t c = lz_next_capture(p, end), upto = c < end ? c : end - 1;
		uint64_t nxt = UINT64_MAX;
		for (unsigned b = 0; b < nb; b++) {
			lz_bus_upto(p, b, bus[b], nruns[b], &cur[b], upto);
			if (cur[b].i < nruns[b] && cur[b].start < nxt)
				nxt = cur[b].start;
		}
		lz_global_upto(p, brake, nbrake, &cur[nb], upto);
		if (cur[nb].i < nbrake && cur[nb].start < nxt)
			nxt = cur[nb].start;
		events |= lz_run_lim(p, end - p->tau, nxt);
		if (p->tau == end) {
			/* the runs after the last capture: no capture reads them */
			for (unsigned b = 0; b < nb; b++)
				lz_bus_upto(p, b, bus[b], nruns[b], &cur[b], end - 1);
			lz_global_upto(p, brake, nbrake, &cur[nb], end - 1);
			break;
		}
	}
	if (events) {
		update_hot(p);
		update_mi_hot(p);
	}
	return 1;
}

uint64_t ptm_probe_clk_batch(ptm_probe *p, int rst, const struct ptm_bus_in *bus, uint32_t brake,
			     uint64_t n)
{
	const uint64_t t0 = p->st.ticks;
	if (!n || (!rst && lz_batch(p, bus, brake, brake, n)))
		return p->st.ticks - t0;
	if (p->lazy)
		ptm_probe_lazy_exit(p);
	/* The first edge loads these inputs (the MVB part of the pending
	 * step counts even in reset) and a change of RESET. */
	ptm_probe_clk(p, rst, bus, brake, NULL);
	n--;
	while (n) {
		if (clk_reset_steady(p)) {
			p->st.edges += n;
			break;
		}
		if (!rst && lz_batch(p, bus, brake, brake, n))
			break;
		ptm_probe_clk(p, rst, bus, brake, NULL);
		n--;
	}
	return p->st.ticks - t0;
}

uint64_t ptm_probe_clk_batch2(ptm_probe *p, const struct ptm_bus_in *bus, uint32_t brake1,
			      uint32_t brake, uint64_t n)
{
	const uint64_t t0 = p->st.ticks;
	if (!n || lz_batch(p, bus, brake1, brake, n))
		return p->st.ticks - t0;
	ptm_probe_clk_batch(p, 0, bus, brake1, 1);
	ptm_probe_clk_batch(p, 0, bus, brake, n - 1);
	return p->st.ticks - t0;
}

uint64_t ptm_probe_edges_to_tick(const ptm_probe *p)
{
	return (uint64_t)(p->dp_mask - p->period);
}

void ptm_probe_debug_regs(const ptm_probe *p, struct ptm_probe_regs *r, uint64_t *cnt,
			  uint64_t *grp)
{
	const unsigned n = p->groups * GROUP_SIZE, nb = p->g.buses;
	memset(r, 0, sizeof(*r));
	r->period = p->period;
	r->pos = p->pos;
	r->run = p->run;
	r->slot = p->slot;
	r->wr_en = p->wr_en;
	r->ovf = p->ovf;
	r->overrun = p->overrun;
	r->fq1 = p->fq1;
	r->fq2 = p->fq2;
	r->freg = p->freg;
	r->rsync = p->rsync;
	r->rst_in = p->rst_in;
	r->wr_index = p->wr_data.index;
	r->wr_delta = p->wr_data.delta;
	memcpy(grp, p->grp_val, p->groups * sizeof(*grp));
	memcpy(cnt, p->cnt, n * sizeof(*cnt));
	const uint64_t *cb = p->cnt + p->brake_base;
	for (uint32_t m = p->brake_run_mask; p->brake_run && m; m &= m - 1)
		cnt[cb - p->cnt + __builtin_ctz(m)] += p->brake_run;
	r->frame_open = p->frame_open;
	if (p->lazy) {
		/* the counters with the lazy part, plus the pending steps */
		r->frame_open = 0;
		for (unsigned ch = 0; ch < n; ch++) {
			const unsigned m = p->chmap[ch];
			if (m == LZ_NONE)
				continue;
			const struct lz_group *g = &p->lz[m >> 8];
			const uint64_t d = p->tau - g->since;
			if (d)
				cnt[ch] += lz_val(&g->h[2], m & 0xffu) +
					   (d - 1) * lz_val(&g->h[3], m & 0xffu);
		}
		for (unsigned b = 0; b < nb; b++)
			r->frame_open |= (uint32_t)p->lz[b].fo[umin(p->tau - p->lz[b].since, 2)] << b;
	} else if (!p->eager) {
		/* the RTL's counters: add the steps it has not added yet */
		for (int k = 0; k < 2; k++) {
			const struct step *s = k ? p->s : p->sr;
			cnt[0] += s->ch0;
			for (unsigned b = 0; b < nb; b++)
				bus_add(cnt + 1 + b * p->bus_channels, &s->bus[b], 1, 0);
			for (uint32_t m = s->brake; m; m &= m - 1)
				cnt[p->brake_base + (unsigned)__builtin_ctz(m)]++;
		}
	}
}
