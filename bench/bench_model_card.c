/*
 * bench_model_card: how fast the firmware model runs a whole card.
 *
 * One endpoint, one DMA port, default generics (DRAIN_PERIOD 4096); PCIe
 * clock 400 MHz, DMA clock 200 MHz, MI clock 125 MHz.  Prints simulated
 * seconds per wall-clock second:
 *
 *   card_sim_seconds_per_sec_percycle  every edge a single call, edges
 *                                      interleaved by time, inputs that
 *                                      change every cycle (frames of
 *                                      random length, random handshakes)
 *   card_sim_seconds_per_sec_batch     steady traffic in chunks of 10 us:
 *                                      one batch call per domain and
 *                                      chunk; the MI domain keeps up (the
 *                                      bench checks STATUS for lost deltas)
 *   card_pattern_idle_sim_seconds_per_sec
 *   card_pattern_traffic_sim_seconds_per_sec
 *                                      the simulated card's call pattern
 *                                      (src/env/card.c): slices of half a
 *                                      drain period, in each the PCIe edges
 *                                      as runs of identical inputs, then the
 *                                      DMA edges likewise, then the MI edges
 *                                      in one idle batch; every 10 ms of
 *                                      simulated time a reading (SNAPSHOT,
 *                                      STATUS, the counter window).  Idle:
 *                                      one run per slice and domain;
 *                                      traffic: runs of 1 to a few hundred
 *                                      edges, each changing one bus (or the
 *                                      BRAKE, tag and FIFO levels)
 *   card_pattern_*_calls_per_sim_us    model calls of that pattern
 *
 * bench_env_model replays the card's own calls instead; this one needs
 * the model alone.
 * Time is the CPU time of the benchmark thread (= wall time on an idle
 * core), so that other load on a shared machine does not distort it.
 *
 * Usage: bench_model_card [REPO_ROOT] (the argument is ignored).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pcie_telemetry/model.h"

#define PS_PCIE 2500u /* 400 MHz */
#define PS_DMA 5000u  /* 200 MHz */
#define PS_MI 8000u   /* 125 MHz */
#define NPAT 4096     /* per-cycle input patterns, cycled through */

static uint64_t rng = 0x243F6A8885A308D3ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* CPU time of this thread: one core's seconds, undisturbed by other
 * load on a shared machine (on an idle machine it equals wall time). */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A frame generator for one MFB bus of 2 regions x 8 items. */
struct framer {
	unsigned left; /* items left of the open frame, 0 = none */
};

/* b holds the previous word of this bus on entry. */
static void next_word(struct framer *f, struct ptm_bus_in *b, int src_pct, int dst_pct, int mvb)
{
	if (b->src_rdy && !b->dst_rdy) {
		/* a held word is offered again until it moves */
		b->dst_rdy = (uint8_t)((int)rnd(100) < dst_pct);
		if (mvb)
			b->mvb_dst_rdy = (uint8_t)(rnd(100) < 95);
		return;
	}
	memset(b, 0, sizeof(*b));
	b->src_rdy = (uint8_t)((int)rnd(100) < src_pct);
	b->dst_rdy = (uint8_t)((int)rnd(100) < dst_pct);
	if (!b->src_rdy)
		return;
	for (unsigned r = 0; r < 2; r++) {
		if (!f->left) {
			if (rnd(4) == 0)
				continue;
			f->left = 1 + rnd(64); /* 4 .. 256 bytes */
			b->sof |= 1u << r;
			if (mvb)
				b->mvb_vld |= 1u << r;
		}
		if (f->left <= 8) {
			b->eof |= 1u << r;
			b->eof_pos[r] = (uint16_t)(f->left - 1);
			f->left = 0;
		} else {
			f->left -= 8;
		}
	}
	if (mvb) {
		b->mvb_src_rdy = b->mvb_vld != 0;
		b->mvb_dst_rdy = (uint8_t)(rnd(100) < 95);
	}
}

struct patterns {
	struct ptm_pcie_in pcie[NPAT];
	struct ptm_bus_in dma[NPAT][2];
};

static void make_patterns(struct patterns *p)
{
	struct framer f[4] = {{0}, {0}, {0}, {0}};
	memset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < NPAT; i++) {
		struct ptm_pcie_in *in = &p->pcie[i];
		if (i) {
			in->bus[0] = p->pcie[i - 1].bus[0];
			in->bus[1] = p->pcie[i - 1].bus[1];
			p->dma[i][0] = p->dma[i - 1][0];
			p->dma[i][1] = p->dma[i - 1][1];
		}
		next_word(&f[0], &in->bus[0], 70, 95, 0);
		next_word(&f[1], &in->bus[1], 45, 100, 0);
		in->brake = (uint8_t)(rnd(8) == 0 ? 1u << rnd(6) : 0);
		in->tag_free = (uint16_t)(100 + rnd(150));
		in->stfifo_free = (uint16_t)(500 + rnd(500));
		in->mps = 2;
		in->mrrs = 5;
		in->ext_tag_en = 1;
		in->link_up = 1;
		next_word(&f[2], &p->dma[i][0], 66, 77, 1);
		next_word(&f[3], &p->dma[i][1], 45, 99, 1);
	}
}

static ptm_model *new_card(void)
{
	struct ptm_generics g;
	ptm_generics_default(&g);
	ptm_model *m = NULL;
	char msg[256];
	if (ptm_model_new(&g, &m, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "bench_model_card: %s\n", msg);
		exit(1);
	}
	/* power-up: resets asserted for a few edges of every domain */
	struct ptm_mi_in mi = {.rst = 1};
	struct ptm_pcie_in pin = {.rst = 1};
	struct ptm_bus_in bus[2];
	memset(bus, 0, sizeof(bus));
	for (int i = 0; i < 8; i++) {
		ptm_mi_edge(m, &mi, NULL);
		ptm_pcie_edge(m, 0, &pin);
		ptm_dma_edge(m, 1, bus);
	}
	mi.rst = 0;
	ptm_mi_edge(m, &mi, NULL);
	return m;
}

static void check_no_loss(ptm_model *m, const char *mode)
{
	uint32_t st = ptm_mi_read(m, 0x24);
	if (st & 2) {
		fprintf(stderr, "bench_model_card: %s: deltas were lost (STATUS=%08x)\n", mode, st);
		exit(1);
	}
}

/* Single-edge calls, interleaved by time, for at least `wall` seconds. */
static double run_percycle(const struct patterns *p, double wall)
{
	ptm_model *m = new_card();
	struct ptm_mi_in mi = {0};
	uint64_t t = 0, tp = 0, td = 0, tm = 0;
	unsigned ip = 0, id = 0;
	double t0 = now(), t1 = t0;
	uint64_t edges = 0;
	do {
		for (int k = 0; k < 100000; k++) {
			if (tp <= td && tp <= tm) {
				t = tp;
				ptm_pcie_edge(m, 0, &p->pcie[ip]);
				ip = (ip + 1) % NPAT;
				tp += PS_PCIE;
			} else if (td <= tm) {
				t = td;
				ptm_dma_edge(m, 0, p->dma[id]);
				id = (id + 1) % NPAT;
				td += PS_DMA;
			} else {
				t = tm;
				ptm_mi_edge(m, &mi, NULL);
				tm += PS_MI;
			}
		}
		edges += 100000;
		t1 = now();
	} while (t1 - t0 < wall);
	check_no_loss(m, "per-cycle");
	ptm_model_free(m);
	(void)edges;
	return ((double)t * 1e-12) / (t1 - t0);
}

/* Steady traffic: each chunk of 10 us keeps its inputs constant. */
static double run_batch(const struct patterns *p, double wall)
{
	const uint64_t chunk_ps = 10000000; /* 10 us */
	ptm_model *m = new_card();
	uint64_t t = 0, np = 0, nd = 0, nm = 0;
	unsigned ic = 0;
	double t0 = now(), t1 = t0;
	do {
		for (int k = 0; k < 1000; k++) {
			t += chunk_ps;
			/* edges of each domain up to time t */
			uint64_t wp = t / PS_PCIE, wd = t / PS_DMA, wm = t / PS_MI;
			const struct ptm_pcie_in *in = &p->pcie[ic];
			/* a steady word: streaming with the handshake of this chunk */
			ptm_pcie_edges(m, 0, in, wp - np);
			ptm_dma_edges(m, 0, p->dma[ic], wd - nd);
			ptm_mi_idle_edges(m, 0, wm - nm);
			np = wp;
			nd = wd;
			nm = wm;
			ic = (ic + 7) % NPAT;
		}
		t1 = now();
	} while (t1 - t0 < wall);
	check_no_loss(m, "batch");
	ptm_model_free(m);
	return ((double)t * 1e-12) / (t1 - t0);
}

/* The reader's reading: SNAPSHOT, STATUS until not busy, every counter. */
static uint64_t reading(ptm_model *m)
{
	struct ptm_mi_in in = { .wr = 1, .addr = 0x20, .dwr = 1 };
	struct ptm_mi_out out;
	uint64_t calls = 0;
	ptm_mi_edge(m, &in, &out);
	calls++;
	do {
		in = (struct ptm_mi_in){ .rd = 1, .addr = 0x24 };
		ptm_mi_edge(m, &in, &out);
		in.rd = 0;
		ptm_mi_edge(m, &in, &out);
		calls += 2;
	} while (out.drd & 1);
	const uint32_t words = 2 * ptm_model_derived(m)->entries;
	for (uint32_t i = 0; i < words + 2; i++) {
		in = (struct ptm_mi_in){ .rd = i < words, .addr = 0x8000 + 4 * (i < words ? i : 0) };
		ptm_mi_edge(m, &in, &out);
		calls++;
	}
	return calls;
}

/* A run length as the card's runs go: mostly a few edges, some longer. */
static uint64_t run_len(void)
{
	unsigned k = rnd(100);
	return k < 40 ? 1 + rnd(3) : k < 80 ? 4 + rnd(60) : 64 + rnd(400);
}

/* n edges of one domain (pcie: the PCIe domain of endpoint 0, else DMA)
 * as runs; traffic: each run changes one signal. */
static uint64_t drive(ptm_model *m, const struct patterns *p, int pcie, struct ptm_pcie_in *in,
		      struct ptm_bus_in *bus, uint64_t n, int traffic, unsigned *i)
{
	uint64_t calls = 0;
	while (n) {
		uint64_t k = traffic ? run_len() : n;
		if (k > n)
			k = n;
		if (traffic && pcie) {
			const struct ptm_pcie_in *src = &p->pcie[*i];
			unsigned what = rnd(10);
			if (what < 8)
				in->bus[what / 4] = src->bus[what / 4];
			else if (what == 8)
				in->brake = src->brake;
			else
				in->tag_free = src->tag_free, in->stfifo_free = src->stfifo_free;
		} else if (traffic) {
			unsigned b = rnd(2);
			bus[b] = p->dma[*i][b];
		}
		*i = (*i + traffic) % NPAT;
		if (pcie)
			ptm_pcie_edges(m, 0, in, k);
		else
			ptm_dma_edges(m, 0, bus, k);
		calls++;
		n -= k;
	}
	return calls;
}

/* The card's pattern for at least `wall` CPU seconds; returns simulated
 * seconds per CPU second, *cps the model calls per simulated us. */
static double run_card_pattern(const struct patterns *p, int traffic, double wall, double *cps)
{
	ptm_model *m = new_card();
	const uint64_t slice = 2048; /* PCIe edges: half of DRAIN_PERIOD */
	struct ptm_pcie_in in = p->pcie[0];
	struct ptm_bus_in bus[2];
	memcpy(bus, p->dma[0], sizeof(bus));
	if (!traffic) {
		memset(in.bus, 0, sizeof(in.bus));
		in.brake = 0;
		in.tag_free = 256;
		in.stfifo_free = 1024;
		memset(bus, 0, sizeof(bus));
	}
	uint64_t np = 0, nd = 0, nm = 0, calls = 0, next_read = 4000000; /* 10 ms in PCIe edges */
	unsigned ip = 1, id = 1;
	double t0 = now(), t1 = t0;
	do {
		for (int k = 0; k < 200; k++) {
			np += slice;
			const uint64_t wd = np / 2, wm = np * 5 / 16; /* 200 and 125 MHz */
			calls += drive(m, p, 1, &in, bus, slice, traffic, &ip);
			calls += drive(m, p, 0, &in, bus, wd - nd, traffic, &id);
			ptm_mi_idle_edges(m, 0, wm - nm);
			calls++;
			nd = wd;
			nm = wm;
			if (np >= next_read) {
				calls += reading(m);
				next_read += 4000000;
			}
		}
		t1 = now();
	} while (t1 - t0 < wall);
	check_no_loss(m, traffic ? "card pattern, traffic" : "card pattern, idle");
	ptm_model_free(m);
	const double sim = (double)np * PS_PCIE * 1e-12;
	*cps = (double)calls / (sim * 1e6);
	return sim / (t1 - t0);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	struct patterns *p = malloc(sizeof(*p));
	if (!p) {
		fprintf(stderr, "bench_model_card: out of memory\n");
		return 1;
	}
	make_patterns(p);
	double pc = run_percycle(p, 1.0);
	double bt = run_batch(p, 1.0);
	double ci, ct;
	double idle = run_card_pattern(p, 0, 1.0, &ci);
	double traffic = run_card_pattern(p, 1, 1.0, &ct);
	printf("card_sim_seconds_per_sec_percycle %.4f s/s\n", pc);
	printf("card_sim_seconds_per_sec_batch %.4f s/s\n", bt);
	printf("card_pattern_idle_sim_seconds_per_sec %.3f s/s\n", idle);
	printf("card_pattern_traffic_sim_seconds_per_sec %.3f s/s\n", traffic);
	printf("card_pattern_idle_calls_per_sim_us %.2f calls\n", ci);
	printf("card_pattern_traffic_calls_per_sim_us %.2f calls\n", ct);
	free(p);
	return 0;
}
