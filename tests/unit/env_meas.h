/*
 * Measuring the simulated card through the firmware model's registers the
 * way the tool reads them (COMMAND snapshot, STATUS busy, the counter
 * window), and checking the counters against the card's ground truth:
 * shared by the preset tests and the random configurations
 * (test_env_presets.c, test_env_configs.c).  Include after cmocka.h.
 */
#ifndef PT_TEST_ENV_MEAS_H
#define PT_TEST_ENV_MEAS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/env.h"

#include "card_result.h"

struct meas {
	struct pte_card *c;
	const struct ptm_generics *g;
	const struct ptm_derived *d;
	unsigned entries;
	uint64_t *a, *b; /* counters at the two snapshots */
	struct pte_truth t0[PTM_MAX_ENDPOINTS], t1[PTM_MAX_ENDPOINTS];
	double sec;
	uint32_t status;
};

/* A register through the card's MI bus; the access must succeed. */
static inline uint32_t reg(struct pte_card *c, uint32_t addr)
{
	uint32_t v = 0;
	assert_int_equal(pte_card_mi_read(c, addr, &v), 0);
	return v;
}

static inline void snapshot(struct meas *m, uint64_t *cnt)
{
	uint32_t buf[2 * 4096], status;
	assert_true(m->entries <= 4096);
	assert_int_equal(card_snapshot(m->c, buf, m->entries, &status), 0);
	for (unsigned i = 0; i < m->entries; i++)
		cnt[i] = (uint64_t)buf[2 * i] | ((uint64_t)buf[2 * i + 1] << 32);
}

/* Open the card of spec (NULL: the default load), clear the flags, take
 * the counters, run sec simulated seconds, take them again. */
static inline void measure_for(const char *spec, double sec, struct meas *m)
{
	char msg[512];
	memset(m, 0, sizeof(*m));
	int rc = pte_card_open(spec, &m->c, msg, sizeof(msg));
	if (rc)
		fail_msg("%s: %s", spec, msg);
	ptm_model *mod = pte_card_model(m->c);
	m->g = ptm_model_generics(mod);
	m->d = ptm_model_derived(mod);
	m->entries = m->d->entries;
	m->a = calloc(m->entries, sizeof(uint64_t));
	m->b = calloc(m->entries, sizeof(uint64_t));
	assert_non_null(m->a);
	assert_non_null(m->b);
	/* start of the interval: clear the flags, as the tool does */
	assert_int_equal(pte_card_mi_write(m->c, 0x20, 4), 0);
	snapshot(m, m->a);
	double t0 = pte_card_now(m->c);
	for (unsigned e = 0; e < m->g->pcie_endpoints; e++)
		pte_card_truth(m->c, e, &m->t0[e]);
	assert_int_equal(pte_card_run(m->c, sec), 0);
	snapshot(m, m->b);
	m->sec = pte_card_now(m->c) - t0;
	for (unsigned e = 0; e < m->g->pcie_endpoints; e++)
		pte_card_truth(m->c, e, &m->t1[e]);
	m->status = reg(m->c, 0x24);
}

static inline void done(struct meas *m)
{
	free(m->a);
	free(m->b);
	pte_card_free(m->c);
}

/* Counter deltas.  PCIe probe channel c, DMA probe channel c. */
static inline uint64_t pc(const struct meas *m, unsigned e, unsigned c)
{
	unsigned i = e * m->d->ep_channels + c;
	return m->b[i] - m->a[i];
}

static inline uint64_t dc(const struct meas *m, unsigned e, unsigned c)
{
	unsigned i = e * m->d->ep_channels + m->d->pcie_channels + c;
	return m->b[i] - m->a[i];
}

enum { WORDS = 0, STALL = 1, SOF = 2, MVB = 3, MVBSTALL = 4, ITEMS = 5 };

static inline uint64_t pbus(const struct meas *m, unsigned e, unsigned bus, unsigned what)
{
	return pc(m, e, 1 + bus * (6 + m->d->pcie_regions) + what);
}

static inline uint64_t dbus(const struct meas *m, unsigned e, unsigned bus, unsigned what)
{
	return dc(m, e, 1 + bus * (6 + m->d->dma_regions) + what);
}

static inline uint64_t brake(const struct meas *m, unsigned e, unsigned k)
{
	return pc(m, e, 1 + 2 * (6 + m->d->pcie_regions) + k);
}

static inline double share(uint64_t x, uint64_t of)
{
	return of ? (double)x / (double)of : 0.0;
}

/* Payload bytes per second on DOWN of all ports of endpoint e. */
static inline double down_Bps(const struct meas *m, unsigned e)
{
	uint64_t items = 0;
	for (unsigned p = 0; p < m->g->dma_ports; p++)
		items += dbus(m, e, 2 * p + 1, ITEMS);
	return (double)items * m->g->mfb_item_bytes / m->sec;
}

static inline double up_Bps(const struct meas *m, unsigned e)
{
	uint64_t items = 0;
	for (unsigned p = 0; p < m->g->dma_ports; p++)
		items += dbus(m, e, 2 * p, ITEMS);
	return (double)items * m->g->mfb_item_bytes / m->sec;
}

static inline unsigned umax(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/*
 * The firmware and the ground truth count the same events, within the
 * few drain periods by which the counters lag.  Items are compared on the
 * wider bus of each pair only: the probe of a pair has the regions of the
 * wider one, and counts the padded regions of the narrower bus as carrying
 * data while a frame stays open (the "padded-region quirk",
 * spec/firmware-behavior.md 1.4), so its items are more than it moved.
 */
static inline void check_counts(const struct meas *m)
{
	unsigned DP = m->g->drain_period;
	const unsigned PR = umax(m->g->pcie_rq_mfb_regions, m->g->pcie_rc_mfb_regions);
	const unsigned DR = umax(m->g->dma_up_mfb_regions, m->g->dma_down_mfb_regions);
	for (unsigned e = 0; e < m->g->pcie_endpoints; e++) {
		const struct pte_truth *x = &m->t0[e], *y = &m->t1[e];
		uint64_t cyc = pc(m, e, 0);
		double slack_c = 3.0 * DP;
		assert_true(fabs((double)cyc - (double)(y->pcie_cycles - x->pcie_cycles)) <= slack_c);
		for (unsigned b = 0; b < 2; b++) {
			unsigned R = b ? m->g->pcie_rc_mfb_regions : m->g->pcie_rq_mfb_regions;
			unsigned N = (b ? m->g->pcie_rc_mfb_region_bytes : m->g->pcie_rq_mfb_region_bytes) /
				     m->g->mfb_item_bytes;
			double sw = 3.0 * DP, si = sw * R * N, sf = sw * R;
			assert_true(fabs((double)pbus(m, e, b, WORDS) -
					 (double)(y->pcie[b].words - x->pcie[b].words)) <= sw);
			assert_true(fabs((double)pbus(m, e, b, STALL) -
					 (double)(y->pcie[b].stall - x->pcie[b].stall)) <= sw);
			if (R == PR)
				assert_true(fabs((double)pbus(m, e, b, ITEMS) -
						 (double)(y->pcie[b].items - x->pcie[b].items)) <= si);
			else /* padded regions only add */
				assert_true((double)pbus(m, e, b, ITEMS) + si >=
					    (double)(y->pcie[b].items - x->pcie[b].items));
			assert_true(fabs((double)pbus(m, e, b, SOF) -
					 (double)(y->pcie[b].frames - x->pcie[b].frames)) <= sf);
		}
		for (unsigned k = 0; k < 6; k++)
			assert_true(fabs((double)brake(m, e, k) - (double)(y->brake[k] - x->brake[k])) <=
				    slack_c);
		double slack_d = 3.0 * DP;
		assert_true(fabs((double)dc(m, e, 0) - (double)(y->dma_cycles - x->dma_cycles)) <=
			    slack_d);
		for (unsigned p = 0; p < m->g->dma_ports; p++) {
			const struct pte_bus_truth *tb[2][2] = { { &x->up[p], &y->up[p] },
								 { &x->down[p], &y->down[p] } };
			for (unsigned d = 0; d < 2; d++) {
				unsigned R = d ? m->g->dma_down_mfb_regions : m->g->dma_up_mfb_regions;
				unsigned N = (d ? m->g->dma_down_mfb_region_bytes
						: m->g->dma_up_mfb_region_bytes) /
					     m->g->mfb_item_bytes;
				double sw = 3.0 * DP, si = sw * R * N, sf = sw * R;
				unsigned bus = 2 * p + d;
				assert_true(fabs((double)dbus(m, e, bus, WORDS) -
						 (double)(tb[d][1]->words - tb[d][0]->words)) <= sw);
				if (R == DR)
					assert_true(fabs((double)dbus(m, e, bus, ITEMS) -
							 (double)(tb[d][1]->items - tb[d][0]->items)) <= si);
				else
					assert_true((double)dbus(m, e, bus, ITEMS) + si >=
						    (double)(tb[d][1]->items - tb[d][0]->items));
				assert_true(fabs((double)dbus(m, e, bus, MVB) -
						 (double)(tb[d][1]->mvb_items - tb[d][0]->mvb_items)) <= sf);
				assert_true(fabs((double)dbus(m, e, bus, STALL) -
						 (double)(tb[d][1]->stall - tb[d][0]->stall)) <= sw);
			}
		}
	}
}

/* check_counts, and no lost deltas, no overrun. */
static inline void check_truth(const struct meas *m)
{
	check_counts(m);
	assert_int_equal(m->status & 6u, 0);
}

#endif
