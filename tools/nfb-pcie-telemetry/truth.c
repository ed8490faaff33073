/*
 * nfb-pcie-telemetry: the simulated card's ground truth for --diagnose -j
 * ("sim_truth"), taken from the sim backend and handed to the renderers
 * as data (they never see the bus).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/sim.h"

static void bus_of(const struct pte_bus_truth *t, struct pt_truth_bus *out)
{
	out->bytes = t->bytes;
	out->items = t->items;
	out->frames = t->frames;
}

int cli_sim_truth(struct pt_bus *bus, const struct pt_layout *l, bool interval,
		  struct pt_truth *out)
{
	int rc = pt_bus_is_sim(bus) ? 0 : -ENOTSUP;

	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->endpoints = l->endpoints < PT_MAX_ENDPOINTS ? l->endpoints : PT_MAX_ENDPOINTS;
	out->buses = l->buses < PT_TRUTH_MAX_BUSES ? l->buses : PT_TRUTH_MAX_BUSES;
	for (unsigned ep = 0; ep < out->endpoints; ep++) {
		struct pt_truth_ep *o = &out->ep[ep];
		struct pte_truth t;

		if ((rc = pt_bus_sim_truth(bus, ep, interval, &t)) < 0)
			return rc;
		/* from taking the tag to giving it back, read by read */
		o->tag_hold_ns = t.reads ? t.tag_hold_sum_ns / (double)t.reads : NAN;
		o->reads = t.reads;
		bus_of(&t.pcie[PTE_RQ], &o->bus[0]);
		bus_of(&t.pcie[PTE_RC], &o->bus[1]);
		for (unsigned p = 0; 3 + 2 * p < out->buses && p < PTM_MAX_DMA_PORTS; p++) {
			bus_of(&t.up[p], &o->bus[2 + 2 * p]);
			bus_of(&t.down[p], &o->bus[3 + 2 * p]);
		}
	}
	return 0;
}
