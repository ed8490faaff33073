/*
 * pcie-telemetry: the derived figures the diagnosis reads (figures.h).
 */
#include "analysis/figures.h"

void fig_init(struct fig *f, const struct pt_layout *l, const struct pt_reading *r, unsigned ep)
{
	f->l = l;
	f->r = r;
	f->ep = ep;
	f->pcie_cycles = r->cnt[pt_idx_pcie_cycles(l, ep)];
	f->dma_cycles = r->cnt[pt_idx_dma_cycles(l, ep)];
}

uint64_t fig_cnt(const struct fig *f, unsigned b, unsigned field)
{
	return f->r->cnt[pt_idx_bus(f->l, f->ep, b, field)];
}

uint64_t fig_cycles(const struct fig *f, unsigned b)
{
	return b < 2 ? f->pcie_cycles : f->dma_cycles;
}

double fig_share(const struct fig *f, unsigned b, unsigned field)
{
	return fig_div((double)fig_cnt(f, b, field), (double)fig_cycles(f, b));
}

double fig_pcie_share(const struct fig *f, uint64_t n)
{
	return fig_div((double)n, (double)f->pcie_cycles);
}

bool fig_brake_driven(const struct fig *f, unsigned k)
{
	return k < f->l->driven_brakes;
}

double fig_brake_share(const struct fig *f, unsigned k)
{
	if (!fig_brake_driven(f, k))
		return 0;
	return fig_pcie_share(f, f->r->cnt[pt_idx_brake(f->l, f->ep, k)]);
}

uint64_t fig_hist(const struct fig *f, unsigned h, unsigned b)
{
	if (h >= f->l->pcie_hists || b >= f->l->hist_bands)
		return 0;
	return f->r->cnt[pt_idx_hist(f->l, f->ep, h, b)];
}

double fig_hist_share(const struct fig *f, unsigned h, unsigned b)
{
	return fig_pcie_share(f, fig_hist(f, h, b));
}

uint64_t fig_padded_items(const struct fig *f, unsigned b)
{
	const struct pt_layout *l = f->l;
	unsigned real = pt_layout_bus_real_regions(l, b);
	unsigned probe = pt_layout_bus_probe_regions(l, b);
	unsigned region_items = l->item_bytes ? l->region_bytes[pt_layout_bus_kind(l, b)] /
						l->item_bytes
					      : 0;
	uint64_t n = 0;

	/* A padded region counts REGION_ITEMS in every cycle it "carries"
	 * an open frame (firmware-behavior.md 1.4). */
	for (unsigned r = real; r < probe; r++)
		n += fig_cnt(f, b, PT_F_REGION0 + r) * region_items;
	return n;
}

uint64_t fig_real_items(const struct fig *f, unsigned b)
{
	uint64_t items = fig_cnt(f, b, PT_F_ITEMS), pad = fig_padded_items(f, b);

	return items > pad ? items - pad : 0;
}
