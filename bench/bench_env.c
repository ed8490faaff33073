/*
 * Speed of the simulated card: simulated seconds per wall-clock second of
 * the whole card with the firmware model (PCIe 400 MHz, DMA 200 MHz, MI
 * 125 MHz unless the preset says otherwise), for the default `sim` load
 * (named `sim`) and every preset, two-endpoints included.  Real time is
 * 1.0.
 *
 * Prints NAME VALUE UNIT lines per load (NAME: the preset's name with '-'
 * as '_'):
 *   env_NAME_sim_seconds_per_sec          against wall-clock time
 *   env_NAME_sim_seconds_per_cpu_sec      against the CPU time of the
 *                                         process (what load on a shared
 *                                         machine changes less)
 *   env_NAME_model_batches_per_sim_us     model calls per simulated us
 *
 * Usage: bench_env [REPO_ROOT] [SIM_SECONDS [PRESET...]]: 0.2 simulated
 * seconds of every load by default, run RUNS times on a fresh card each;
 * the figures are the median run's (by wall-clock time), so that one
 * burst of load from a neighbour on a shared machine does not make the
 * figure.  Only env.h calls that every version of the card has, so that
 * an older build can run the same benchmark.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pcie_telemetry/env.h"

static double clk(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define RUNS 3

/* One run of a load: wall and CPU seconds, model batches. */
struct run {
	double wall, cpu;
	uint64_t batches;
};

/* One run on a fresh card; 1 with a message on failure. */
static int run_once(const char *spec, const char *name, double sim, struct run *r)
{
	struct pte_card *c;
	char msg[512];

	if (pte_card_open(spec, &c, msg, sizeof(msg))) {
		fprintf(stderr, "bench_env: %s\n", msg);
		return 1;
	}
	uint64_t b0 = pte_card_batches(c);
	double t0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
	int rc = pte_card_run(c, sim);
	r->wall = clk(CLOCK_MONOTONIC) - t0;
	r->cpu = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
	r->batches = pte_card_batches(c) - b0;
	/* STATUS through the model's MI side alone: lost deltas? */
	uint32_t status = ptm_mi_read(pte_card_model(c), 0x24);
	pte_card_free(c);
	if (rc || (status & 2u)) {
		fprintf(stderr, "bench_env: %s: %s\n", name, rc ? "the card failed" : "lost deltas");
		return 1;
	}
	return 0;
}

static int by_wall(const void *a, const void *b)
{
	double x = ((const struct run *)a)->wall, y = ((const struct run *)b)->wall;
	return (x > y) - (x < y);
}

/* One load: spec "" is the default `sim`. */
static int one(const char *spec, double sim)
{
	struct run r[RUNS];
	char name[64];
	size_t i;

	snprintf(name, sizeof(name), "%s", *spec ? spec : "sim");
	for (i = 0; name[i]; i++)
		if (name[i] == '-')
			name[i] = '_';
	for (i = 0; i < RUNS; i++)
		if (run_once(spec, name, sim, &r[i]))
			return 1;
	qsort(r, RUNS, sizeof(r[0]), by_wall);
	const struct run *m = &r[RUNS / 2];
	printf("env_%s_sim_seconds_per_sec %.3f s/s\n", name, sim / m->wall);
	printf("env_%s_sim_seconds_per_cpu_sec %.3f s/s\n", name, sim / m->cpu);
	printf("env_%s_model_batches_per_sim_us %.1f batches\n", name,
	       (double)m->batches / (sim * 1e6));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	double sim = argc > 2 ? atof(argv[2]) : 0.2;
	int rc = 0;

	if (!(sim > 0)) {
		fprintf(stderr, "bench_env: SIM_SECONDS must be positive\n");
		return 2;
	}
	if (argc > 3) {
		for (int i = 3; i < argc; i++)
			rc |= one(strcmp(argv[i], "sim") ? argv[i] : "", sim);
		return rc;
	}
	rc |= one("", sim);
	for (size_t i = 0; i < pte_preset_count(); i++)
		rc |= one(pte_preset_name(i), sim);
	return rc;
}
