/*
 * Speed of the probe model (PCIE_TELEMETRY_PROBE + ASFIFOX).
 *
 *   probe_cycles_per_sec        ptm_probe_clk() with the default PCIe-side
 *                               probe (2 buses, 2 regions of 8 items, 14
 *                               brakes, DRAIN_PERIOD 4096) on pre-generated
 *                               random traffic, plus one MI edge (TX_RD=1)
 *                               every second CLK edge
 *   probe_batch_cycles_per_sec  ptm_probe_clk_batch() on steady traffic
 *                               (one input pattern per 64k-edge batch)
 *
 * Output: NAME VALUE UNIT lines.  Usage: bench_model_probe [REPO]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/probe_priv.h"

#define PATTERNS 8192 /* a power of two */

static uint64_t rng = 0x2545f4914f6cdd1dull;
static unsigned rndn(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* CPU time of this thread: the figure is per core, and a loaded build
 * machine should not make it look slower than it is. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct pattern {
	struct ptm_bus_in bus[2];
	uint32_t brake;
};

/* Realistic PCIe-side traffic: frames of 1..64 items (TLPs up to 256 B),
 * about 10 % stalls, 15 % idle words, bursts of BRAKE reasons, and one
 * histogram band of each of the two histograms active (moving to another
 * band now and then), as PCIE_TELEMETRY_MI wires them. */
static void generate(struct pattern *pt)
{
	unsigned remaining[2] = { 0, 0 };
	unsigned band_t = 3, band_s = 3;
	uint32_t brake = 0;
	for (unsigned i = 0; i < PATTERNS; i++) {
		memset(&pt[i], 0, sizeof(pt[i]));
		for (unsigned b = 0; b < 2; b++) {
			struct ptm_bus_in *in = &pt[i].bus[b];
			if (rndn(100) < 15 && !remaining[b])
				continue;
			in->src_rdy = 1;
			in->dst_rdy = rndn(100) >= 10;
			for (unsigned r = 0; r < 2; r++) {
				if (!remaining[b]) {
					if (rndn(4) == 0)
						continue;
					remaining[b] = 1 + rndn(64);
					in->sof |= 1u << r;
				}
				if (remaining[b] <= 8) {
					in->eof |= 1u << r;
					in->eof_pos[r] = (uint16_t)(remaining[b] - 1);
					remaining[b] = 0;
				} else {
					remaining[b] -= 8;
				}
			}
		}
		if (rndn(100) < 5)
			band_t = rndn(4);
		if (rndn(100) < 5)
			band_s = rndn(4);
		/* a BRAKE reason holds for a few cycles once it appears
		 * (about 5 % of the time, bursts of 5 cycles on average) */
		for (unsigned k = 0; k < 6; k++) {
			if (brake & (1u << k)) {
				if (rndn(100) < 20)
					brake &= ~(1u << k);
			} else if (rndn(100) < 1) {
				brake |= 1u << k;
			}
		}
		pt[i].brake = brake | (1u << (6 + band_t)) | (1u << (10 + band_s));
	}
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	struct ptm_probe_generics g = { .buses = 2, .regions = 2, .region_items = { 8, 8 },
					.eof_pos_width = 3, .brakes = 14, .drain_period = 4096 };
	char msg[256];
	ptm_probe *p = NULL;
	if (ptm_probe_new(&g, &p, msg, sizeof(msg))) {
		fprintf(stderr, "bench_model_probe: %s\n", msg);
		return 1;
	}
	struct pattern *pt = malloc(PATTERNS * sizeof(*pt));
	if (!pt)
		return 1;
	generate(pt);
	for (unsigned i = 0; i < 8; i++)
		ptm_probe_clk(p, 1, pt[0].bus, 0, NULL);

	/* per-cycle API; best of a few runs */
	const uint64_t n = 1u << 25;
	double best = 0;
	uint64_t sink = 0;
	for (int run = 0; run < 3; run++) {
		double t0 = now();
		for (uint64_t i = 0; i < n; i++) {
			const struct pattern *q = &pt[i & (PATTERNS - 1)];
			ptm_probe_clk(p, 0, q->bus, q->brake, NULL);
			if (i & 1) {
				struct ptm_probe_mi_out mo;
				ptm_probe_mi_clk(p, 0, 0, 1, &mo);
				sink += mo.delta;
			}
		}
		double r = (double)n / (now() - t0);
		if (r > best)
			best = r;
	}
	printf("probe_cycles_per_sec %.0f cycles/s\n", best);

	/* batch API on steady traffic: each pattern held for 64k edges */
	const uint64_t per = 1u << 16;
	best = 0;
	for (int run = 0; run < 3; run++) {
		double t0 = now();
		uint64_t total = 0;
		for (unsigned i = 0; i < 512; i++) {
			const struct pattern *q = &pt[(i * 7) & (PATTERNS - 1)];
			sink += ptm_probe_clk_batch(p, 0, q->bus, q->brake, per);
			total += per;
			struct ptm_probe_mi_out mo;
			sink += ptm_probe_mi_clk_batch(p, 0, 0, 1, 64, &mo);
		}
		double r = (double)total / (now() - t0);
		if (r > best)
			best = r;
	}
	printf("probe_batch_cycles_per_sec %.0f cycles/s\n", best);
	if (sink == 42)
		fputs("", stderr);
	free(pt);
	ptm_probe_free(p);
	return 0;
}
