/*
 * The simulated card on configurations nobody wrote by hand: scenario
 * files drawn at random (scenario_draw.h; a fixed seed, so every run
 * draws the same ones) over the generics the firmware allows and the
 * endpoint and DMA keys of docs/formats/scenario.md, on top of a random
 * preset.
 *
 * Each one must open, run and read out like a preset, and its counters
 * must agree with the card's ground truth (env_meas.h).  Whether deltas
 * are lost is predicted from the drain load the firmware documents
 * (spec/firmware-behavior.md, section 4: every drain costs CHANNELS FIFO
 * entries and 3 MI cycles each, "plus command stalls"): a load well below
 * 1 with the closing snapshot's stall loses none, one well above 1 must
 * raise the STATUS flag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pcie_telemetry/env.h"
#include "env/env_priv.h"

#include "env_meas.h"
#include "scenario_draw.h"

#define CONFIGS 64
#define SECONDS 0.001 /* simulated per configuration */

/* MI cycles the deltas of one second take, per MI cycle of that second. */
static double drain_load(const struct meas *m)
{
	struct pte_card_info ci;
	pte_card_info(m->c, &ci);
	double per_s = (m->d->pcie_channels * ci.pcie_hz + m->d->dma_channels * ci.dma_hz) /
		       m->g->drain_period * m->g->pcie_endpoints;
	return per_s * 3.0 / ci.mi_hz;
}

/* The share of the accumulator a command takes: the snapshot that ends
 * the measurement stops it for 2 * ENTRIES MI cycles, while the deltas
 * wait in the probe FIFOs, which hold about two sweeps (at least
 * 2 * CHANNELS entries, spec 1.1): so over two drain periods of the
 * faster probe. */
static double stall_share(const struct meas *m)
{
	struct pte_card_info ci;
	pte_card_info(m->c, &ci);
	double hz = ci.pcie_hz > ci.dma_hz ? ci.pcie_hz : ci.dma_hz;
	double window = 2.0 * m->g->drain_period / hz * ci.mi_hz; /* MI cycles */
	return 2.0 * m->entries / window;
}

/* Every endpoint with its link up and requests to make moves some:
 * reads complete or writes go out between the snapshots (a card whose
 * PTC can never send one, stuck for ever, is refused when the file is
 * read).  Not each kind: one may starve the other (a flood of 1-byte
 * reads leaves a write now and then). */
static void check_progress(const char *path, const struct meas *m)
{
	static struct pte_scenario sc;
	char msg[512];
	assert_int_equal(pte_scenario_load(path, &sc, msg, sizeof(msg)), 0);
	for (unsigned e = 0; e < m->g->pcie_endpoints; e++) {
		int asks = 0;
		for (unsigned p = 0; p < m->g->dma_ports; p++)
			asks |= sc.ep[e].port[p].read_gbps != 0 || sc.ep[e].port[p].write_gbps != 0;
		if (asks && sc.ep[e].link_up && m->t1[e].reads == m->t0[e].reads &&
		    m->t1[e].writes == m->t0[e].writes)
			fail_msg("%s: endpoint %u moved nothing", path, e);
	}
}

/* The scenario file the draws are written to, removed however the test
 * ends. */
static int make_file(void **state)
{
	static char path[] = "/tmp/pt_env_cfgXXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	*state = path;
	return 0;
}

static int remove_file(void **state)
{
	unlink(*state);
	return 0;
}

static void test_random_configs(void **state)
{
	const char *path = *state;
	unsigned exact = 0, lossy = 0;
	for (unsigned i = 0; i < CONFIGS; i++) {
		struct text t;
		draw_scenario(0x5EED0000u + i, &t);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		assert_true(fwrite(t.b, 1, t.n, f) == t.n);
		assert_int_equal(fclose(f), 0);
		struct meas m;
		measure_for(path, SECONDS, &m);
		check_progress(path, &m);
		double load = drain_load(&m);
		if (load + stall_share(&m) < 0.8) {
			check_truth(&m);
			exact++;
		} else if (load > 1.25) {
			assert_true(m.status & 2u);
			lossy++;
		}
		done(&m);
	}
	print_message("%u exact, %u losing deltas, of %u\n", exact, lossy, CONFIGS);
	/* the draws cover both sides */
	assert_true(exact >= CONFIGS / 2);
	assert_true(lossy >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_random_configs, make_file, remove_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
