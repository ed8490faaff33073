/*
 * Speed of the simulated card: simulated seconds per wall-clock second for
 * one endpoint of tx-1500B and rx-line-rate, the whole card including the
 * firmware model (PCIe 400 MHz, DMA 200 MHz, MI 125 MHz).
 * Prints NAME VALUE UNIT lines (wall and CPU time).
 * Usage: bench_env [REPO_ROOT] [SIM_SECONDS], 0.2 simulated seconds by default.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pcie_telemetry/env.h"

static double clk(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int one(const char *preset, const char *name, double sim)
{
	struct pte_card *c;
	char msg[512];
	if (pte_card_open(preset, &c, msg, sizeof(msg))) {
		fprintf(stderr, "bench_env: %s\n", msg);
		return 1;
	}
	uint64_t b0 = pte_card_batches(c);
	double t0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
	pte_card_run(c, sim);
	double w = clk(CLOCK_MONOTONIC) - t0, cpu = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
	uint64_t b1 = pte_card_batches(c);
	uint32_t status = 0;
	int rc = pte_card_mi_read(c, 0x24, &status);
	pte_card_free(c);
	if (rc || (status & 2u)) {
		fprintf(stderr, "bench_env: %s lost deltas or failed\n", preset);
		return 1;
	}
	printf("env_%s_sim_seconds_per_sec %.3f s/s\n", name, sim / w);
	/* the same against CPU time: what a loaded machine does not change */
	printf("env_%s_sim_seconds_per_cpu_sec %.3f s/s\n", name, sim / cpu);
	printf("env_%s_model_batches_per_sim_us %.1f batches\n", name,
	       (double)(b1 - b0) / (sim * 1e6));
	return 0;
}

int main(int argc, char **argv)
{
	double sim = argc > 2 ? atof(argv[2]) : 0.2;
	int rc = one("tx-1500B", "tx1500B", sim);
	rc |= one("rx-line-rate", "rx_line_rate", sim);
	return rc;
}
