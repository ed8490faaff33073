/*
 * pcie-telemetry: the mean time a PCIe tag is held, by Little's law
 * (docs/diagnosis.md, "Read latency").
 *
 * Little's law: tags in use on average = read TLPs per cycle x the mean
 * time a tag is held, so   hold = (sum over cycles of the tags in use) /
 * (read TLPs).  Neither side is counted directly; both are bounded:
 *
 *  - the tags in use, from the tag histogram: in each band the free tags
 *    lie in a known range, so the tags in use lie in [pool - most free,
 *    pool - least free]; the lowest free tags cap it; the pool itself is
 *    at least the most free tags seen and at most the negotiated tag space
 *    (or, when the pool was empty most of the time, the configured one:
 *    the counters cannot tell a small pool held long from a large one held
 *    briefly);
 *  - the read TLPs, from RQ (requests of reads and writes: the writes'
 *    TLPs are bounded by MPS and 4 KiB splits), RC (every read has at
 *    least one completion, at most MRRS / RCB + 1), DOWN (every read
 *    carries at most MRRS bytes) and UP (every DMA read is a TLP at least).
 *
 * Each counter of a difference is exact to one read-out period, and reads
 * in flight at the two ends of the interval are counted on one side only:
 * both widen the bounds a little.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/view.h"

#define NOT_A_TAG_COUNT 2047u /* PCIE_TAG_FREE is 11 bits: all ones after a clear */
/* Requests the PTC may hold between UP and RQ, beyond the tags in flight:
 * a generous allowance for the counts the two ends of an interval split. */
#define EDGE_REQUESTS 256.0

/* The free tags of one band: [lo, hi] (hi = INFINITY: unbounded). */
static void band_free(const struct pt_layout *l, unsigned b, double *lo, double *hi)
{
	double e8 = l->tag_capacity / 8, e2 = l->tag_capacity / 2;

	*lo = 0;
	*hi = INFINITY;
	if (l->hist_bands != PT_FW_HIST_BANDS)
		return; /* bands of another firmware: their ranges are unknown */
	switch (b) {
	case PT_BAND_NONE:
		*hi = 0;
		break;
	case PT_BAND_LE_EIGHTH:
		*lo = 1, *hi = e8;
		break;
	case PT_BAND_LE_HALF:
		*lo = e8 + 1, *hi = e2;
		break;
	default:
		*lo = e2 + 1;
		break;
	}
}

/*
 * Could the configured pool have been in use whenever the pool was empty?
 * The PTC reserves storage FIFO words for the completions of every read in
 * flight, so the reads in flight hold at most STFIFO_CAPACITY words (of an
 * RC bus word at most).  With reads of the mean size (what the interval
 * carried per read) a pool that large would not fit: then it is not the
 * configured one, and only what the readings prove is left.
 */
static bool pool_fits(const struct fig *f, double pool, double empty, double rbytes, double nhi)
{
	const struct pt_layout *l = f->l;
	double word = (double)l->region_bytes[PT_BUS_RC] * pt_layout_bus_real_regions(l, 1);
	double room = (double)l->stfifo_capacity * word;

	if (!(nhi > 0) || !(rbytes > 0) || room <= 0)
		return true;
	return pool * empty * (rbytes / nhi) <= room;
}

/* The pool: what the readings prove, and the configured one. */
static void pool(const struct fig *f, const struct pt_link *k, double rbytes, double nhi,
		 struct pt_latency *out)
{
	const struct pt_layout *l = f->l;
	unsigned space = k->tag_10b ? 1024 : k->ext_tag ? 256 : 32;
	unsigned cfg = l->tag_capacity && l->tag_capacity < space ? l->tag_capacity : space;
	unsigned seen = 1;
	uint64_t all = 0;

	if (k->tags_free <= NOT_A_TAG_COUNT && k->tags_free > seen)
		seen = k->tags_free;
	if (k->tags_free_min <= k->tags_free && k->tags_free_min > seen)
		seen = k->tags_free_min;
	for (unsigned b = 0; b < l->hist_bands; b++) {
		double lo, hi;

		band_free(l, b, &lo, &hi);
		all += fig_hist(f, PT_HIST_TAGS, b);
		if (fig_hist(f, PT_HIST_TAGS, b) && lo > seen)
			seen = (unsigned)lo;
	}
	out->empty_share = l->hist_bands == PT_FW_HIST_BANDS
				   ? fig_div((double)fig_hist(f, PT_HIST_TAGS, PT_BAND_NONE), (double)all)
				   : 0;
	if (out->empty_share > 0.5 && seen <= cfg &&
	    pool_fits(f, cfg, out->empty_share, rbytes, nhi)) {
		out->pool_lo = out->pool_hi = cfg;
		out->pool_assumed = true;
	} else {
		out->pool_lo = seen;
		out->pool_hi = space > seen ? space : seen;
	}
}

/* Sum over the cycles of the tags in use: [lo, hi]. */
static void in_use(const struct fig *f, const struct pt_link *k, bool interval,
		   struct pt_latency *out, double *lo, double *hi)
{
	const struct pt_layout *l = f->l;
	double plo = out->pool_lo, phi = out->pool_hi, covered = 0;
	/* the lowest free tags cap the tags in use over the interval (in
	 * totals mode the marks may be younger than the counters) */
	double cap = phi;

	if (interval && k->tags_free_min <= k->tags_free)
		cap = phi - k->tags_free_min;
	*lo = *hi = 0;
	for (unsigned b = 0; b < l->hist_bands; b++) {
		double n = (double)fig_hist(f, PT_HIST_TAGS, b), flo, fhi;

		band_free(l, b, &flo, &fhi);
		covered += n;
		double ulo = fmax(0, plo - fhi);

		/* counters that contradict the lowest value: the band wins */
		*lo += n * ulo;
		*hi += n * fmax(ulo, fmin(phi - flo, cap));
	}
	/* cycles no band accounts for: anything */
	if ((double)f->pcie_cycles > covered)
		*hi += ((double)f->pcie_cycles - covered) * fmax(0, cap);
}

/* Read TLPs (tags taken) in the interval: [lo, hi]. */
static void read_tlps(const struct fig *f, const struct pt_link *k, double *lo, double *hi,
		      double *rdata)
{
	const struct pt_layout *l = f->l;
	double ib = l->item_bytes, mps = k->mps, mrrs = k->mrrs, rcb = k->rcb;
	double wbytes = 0, wframes = 0, rbytes = 0, rreq = 0;
	double rq = (double)fig_cnt(f, 0, PT_F_TRANSACTIONS);
	double rc = (double)fig_cnt(f, 1, PT_F_TRANSACTIONS);

	for (unsigned p = 0; p < l->dma_ports; p++) {
		uint64_t mvb = fig_cnt(f, fig_up(p), PT_F_MVB);
		uint64_t frames = fig_cnt(f, fig_up(p), PT_F_TRANSACTIONS);

		wbytes += (double)fig_real_items(f, fig_up(p)) * ib;
		wframes += (double)frames;
		rbytes += (double)fig_real_items(f, fig_down(p)) * ib;
		rreq += mvb > frames ? (double)(mvb - frames) : 0;
	}
	/* a write of L bytes is ceil(L / MPS) TLPs, plus one at each 4 KiB
	 * boundary it crosses; items round every frame up to an item */
	double wlo = fmax(wframes, ceil(fmax(0, wbytes - (ib - 1) * wframes) / mps));
	double whi = wbytes / mps + wbytes / 4096 + 2 * wframes;
	/* data that had come through RC but not DOWN at one end */
	double held = (double)l->stfifo_capacity * l->region_bytes[PT_BUS_RC] *
		      pt_layout_bus_real_regions(l, 1);

	*rdata = rbytes;
	*hi = fmin(rq - wlo, rc);
	*lo = fmax(fmax(rq - whi, (rbytes - held) / mrrs), fmax(rreq, rc / (mrrs / rcb + 1)));
	if (*lo > *hi) { /* counters that contradict each other: take both */
		double t = *lo;

		*lo = *hi;
		*hi = t;
	}
}

int diag_latency(const struct fig_set *m, const struct pt_layout *l, const struct pt_reading *r,
		 unsigned ep, bool interval, double seconds, struct pt_latency *out)
{
	struct fig f;
	struct pt_link k;
	double nlo, nhi, llo, lhi, eps, edge, rbytes;
	uint64_t shortest;

	if (!l || !r || !out || ep >= l->endpoints || r->entries < pt_counter_count(l))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->lo_ns = out->hi_ns = NAN;
	fig_init(&f, m, l, r, ep);
	pt_link_decode(r, ep, &k);
	if (l->pcie_hists < 1 || !f.pcie_cycles || !f.dma_cycles || !k.mps || !k.mrrs || !k.rcb)
		return 0;
	if (!fig_cnt(&f, 1, PT_F_TRANSACTIONS))
		return 0; /* no completion came back: no read to time */
	read_tlps(&f, &k, &nlo, &nhi, &rbytes);
	pool(&f, &k, rbytes, nhi, out);
	in_use(&f, &k, interval, out, &llo, &lhi);
	shortest = f.pcie_cycles < f.dma_cycles ? f.pcie_cycles : f.dma_cycles;
	eps = fmin(0.5, 4.0 * l->drain_period / (double)shortest);
	edge = 2.0 * out->pool_hi + EDGE_REQUESTS;
	out->reads_lo = fmax(0, nlo * (1 - eps) - edge);
	out->reads_hi = fmax(0, nhi) * (1 + eps) + edge;
	out->inuse_lo = llo * (1 - eps) / (double)f.pcie_cycles;
	out->inuse_hi = lhi * (1 + eps) / (double)f.pcie_cycles;
	out->valid = true;
	out->lo_cycles = llo * (1 - eps) / out->reads_hi;
	out->hi_bounded = out->reads_lo > 0;
	out->hi_cycles = out->hi_bounded ? lhi * (1 + eps) / out->reads_lo : INFINITY;
	if (interval && seconds > 0) {
		double ns = seconds * 1e9 / (double)f.pcie_cycles;

		out->have_ns = true;
		out->lo_ns = out->lo_cycles * ns;
		out->hi_ns = out->hi_cycles * ns;
	}
	return 0;
}
