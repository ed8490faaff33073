/*
 * pcie-telemetry: what the `sim` backend (library pt_bus_sim) offers
 * beyond the registers: the simulated card's ground truth over exactly
 * what a reading of it covers, so that an estimate from the counters can
 * be checked against what really happened.
 *
 * Prefix: pt_bus_sim_.  Errors: negative errno values.
 */
#ifndef PCIE_TELEMETRY_SIM_H
#define PCIE_TELEMETRY_SIM_H

#include <stdbool.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/env.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pt_bus_open_sim with scenario keys set on top of the spec
 * (pte_card_open_ex: "SECTION.KEY=VALUE", e.g. "endpoint.mrrs=1024").  A
 * bad override fails with a message naming it and *which (when not NULL)
 * = its index; -1 when the spec or the card failed.
 */
int pt_bus_open_sim_ex(const char *spec, const char *const *overrides, size_t n,
		       struct pt_bus **out, int *which, char *msg, size_t msglen);

/* 1 when b is the simulated card. */
int pt_bus_is_sim(const struct pt_bus *b);

/*
 * The ground truth of endpoint ep over the last reading: with interval,
 * between the last two SNAPSHOT commands (what the difference of two
 * readings covers); without, from the last CLEAR command (or power-up) to
 * the last SNAPSHOT (what totals cover).  The truth is taken when the
 * command is written.  Returns 0; -ENOTSUP when b is not the simulated
 * card; -ENOENT before the SNAPSHOT commands it needs; -EINVAL for an
 * endpoint the card does not have.
 */
int pt_bus_sim_truth(struct pt_bus *b, unsigned ep, bool interval, struct pte_truth *out);

/* The card's configuration (clocks, generics); -ENOTSUP as above. */
int pt_bus_sim_info(struct pt_bus *b, struct pte_card_info *out);

/* later - earlier, field by field (the lowest free values of `later`). */
void pt_bus_sim_truth_diff(const struct pte_truth *later, const struct pte_truth *earlier,
			   struct pte_truth *out);

#ifdef __cplusplus
}
#endif
#endif
