/*
 * pcie-telemetry: what read TLPs need of the PTC (need.h).
 */
#include "env/need.h"

unsigned pte_cpl_runs(uint32_t C, uint32_t off, uint32_t len, struct cpl_run *out)
{
	unsigned n = 0;
	uint32_t first = C - off;

	if (first > len)
		first = len;
	out[n++] = (struct cpl_run){ first, 1 };
	len -= first;
	if (len >= C) {
		uint32_t q = (C & (C - 1)) == 0 ? len >> __builtin_ctz(C) : len / C;
		if (first == C)
			out[0].count += q;
		else
			out[n++] = (struct cpl_run){ C, q };
		len -= q * C;
	}
	if (len)
		out[n++] = (struct cpl_run){ len, 1 };
	return n;
}

void pte_tlp_need(const struct pte_read_geom *g, uint64_t a, uint32_t chunk, struct tlp_need *n)
{
	n->ncr = pte_cpl_runs(g->cpl_bytes, (uint32_t)(a % g->cpl_bytes), chunk, n->cr);
	n->w = 0;
	for (unsigned i = 0; i < n->ncr; i++)
		n->w += n->cr[i].count * (uint32_t)pte_ucdiv(n->cr[i].bytes, g->word_bytes);
	n->h = (uint32_t)pte_ucdiv(a % g->rcb + chunk, g->rcb);
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The needs of the TLPs of one request of s bytes starting r bytes into
 * a page into *h and *w.  Its whole pages after the first one repeat
 * each other: one of them stands for all. */
static void request_max(const struct pte_read_geom *g, uint32_t r, uint32_t s, uint32_t *h,
			uint32_t *w)
{
	/* the words depend on where a TLP is in a completion block: known
	 * from where it is in its page only when the blocks divide pages */
	const int words = 4096u % g->cpl_bytes == 0;
	uint64_t a = r;
	uint32_t rest = s;
	int page_seen = 0;

	while (rest) {
		if (a % 4096u == 0 && rest >= 4096u && a != r) {
			if (page_seen) {
				uint32_t skip = rest / 4096u * 4096u;
				a += skip;
				rest -= skip;
				continue;
			}
			page_seen = 1;
		}
		uint32_t c = pte_read_chunk(a, rest, g->mrrs);
		struct tlp_need n;
		pte_tlp_need(g, a, c, &n);
		if (n.h > *h)
			*h = n.h;
		if (words && n.w > *w)
			*w = n.w;
		a += c;
		rest -= c;
	}
}

void pte_read_need_max(const struct pte_read_geom *g, const struct pte_port_cfg *p, uint32_t *h,
		       uint32_t *w)
{
	const struct pte_dist *d = &p->read_size;
	uint32_t step = 4096;

	if (p->read_gbps == 0)
		return;
	/* requests start at a 4 KiB boundary and go on by their strides, in
	 * a random order of sizes: every multiple of their common divisor */
	for (unsigned i = 0; i < d->n; i++)
		if (d->weight[i] > 0)
			step = gcd32(step, pte_stride_of(d->size[i], p->align) % 4096u);
	for (uint32_t r = 0; r < 4096u; r += step)
		for (unsigned i = 0; i < d->n; i++)
			if (d->weight[i] > 0)
				request_max(g, r, d->size[i], h, w);
}
