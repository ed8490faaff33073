/*
 * bench_env_model: the firmware model alone, driven exactly as the
 * simulated card drives it.
 *
 * For every preset (and the default `sim` load) the card runs for a while
 * with its calls into the model recorded (the program is linked with
 * --wrap for every ptm_ edge call, see CMakeLists.txt); a reader takes a
 * reading every READ_PERIOD simulated seconds (SNAPSHOT, STATUS polls, the
 * whole counter window) like a live view would.  Then the recording is
 * replayed on a fresh model with the same generics, which is the model's
 * whole cost for that simulated time and nothing of the card's.  Every MI
 * read of the replay must return what it returned to the card (the model
 * is deterministic), so the bench also checks that the replay is faithful.
 *
 * Prints per preset P:
 *   model_card_P_sim_seconds_per_sec  simulated seconds per CPU second
 *                                     of the model alone (best of REPS)
 *   model_card_P_wall_ms_per_sim_s    the same as cost: CPU ms of the
 *                                     model per simulated second
 *   model_card_P_calls_per_sim_us     model calls per simulated us
 *
 * Usage: bench_env_model [REPO_ROOT] [SIM_SECONDS] [PRESET]
 * (0.05 simulated seconds per preset by default; PRESET = that one only,
 * replayed once, e.g. to count the instructions of 10 simulated ms:
 * valgrind --tool=callgrind --toggle-collect=replay bench_env_model . 0.01 idle).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pcie_telemetry/env.h"
#include "pcie_telemetry/model.h"

#define READ_PERIOD 0.01 /* simulated seconds between two readings */
#define REPS 3

/* The real functions (the linker's --wrap gives them these names). */
void __real_ptm_pcie_edge(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in);
void __real_ptm_pcie_edges(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in, uint64_t n);
void __real_ptm_dma_edge(ptm_model *m, int rst, const struct ptm_bus_in *bus);
void __real_ptm_dma_edges(ptm_model *m, int rst, const struct ptm_bus_in *bus, uint64_t n);
void __real_ptm_mi_edge(ptm_model *m, const struct ptm_mi_in *in, struct ptm_mi_out *out);
void __real_ptm_mi_idle_edges(ptm_model *m, int rst, uint64_t n);
int __real_ptm_model_new(const struct ptm_generics *g, ptm_model **out, char *msg, size_t msglen);
int __wrap_ptm_model_new(const struct ptm_generics *g, ptm_model **out, char *msg, size_t msglen);
void __wrap_ptm_pcie_edge(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in);
void __wrap_ptm_pcie_edges(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in, uint64_t n);
void __wrap_ptm_dma_edge(ptm_model *m, int rst, const struct ptm_bus_in *bus);
void __wrap_ptm_dma_edges(ptm_model *m, int rst, const struct ptm_bus_in *bus, uint64_t n);
void __wrap_ptm_mi_edge(ptm_model *m, const struct ptm_mi_in *in, struct ptm_mi_out *out);
void __wrap_ptm_mi_idle_edges(ptm_model *m, int rst, uint64_t n);

enum op { OP_PCIE, OP_DMA, OP_MI, OP_MI_IDLE };

/* One recorded call: n edges (n = 0: a single-edge call); the inputs are
 * at `in` in the pool. */
struct rec {
	uint8_t op, arg; /* arg: ep (PCIe) or rst (DMA, MI idle) */
	uint32_t in;
	uint64_t n;
};

struct mi_rec {
	struct ptm_mi_in in;
	uint32_t drd;
	uint8_t drdy;
};

static struct {
	ptm_model *m; /* the model being recorded, NULL = not recording */
	int arm;      /* record the next model created */
	size_t dma_bytes;
	struct rec *r;
	size_t nr, capr;
	size_t open; /* records of pte_card_open() (power-up, warm-up) */
	unsigned char *pool;
	size_t npool, cappool;
} R;

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	void *q = realloc(p, c * size);
	if (!q) {
		fprintf(stderr, "bench_env_model: out of memory\n");
		exit(1);
	}
	*cap = c;
	return q;
}

static uint32_t keep(const void *in, size_t len)
{
	size_t at = (R.npool + 7) & ~(size_t)7;
	R.pool = grow(R.pool, &R.cappool, at + len, 1);
	memcpy(R.pool + at, in, len);
	R.npool = at + len;
	return (uint32_t)at;
}

static void rec(ptm_model *m, int op, unsigned arg, const void *in, size_t len, uint64_t n)
{
	if (m != R.m)
		return;
	R.r = grow(R.r, &R.capr, R.nr + 1, sizeof(*R.r));
	R.r[R.nr++] = (struct rec){ (uint8_t)op, (uint8_t)arg, len ? keep(in, len) : 0, n };
}

int __wrap_ptm_model_new(const struct ptm_generics *g, ptm_model **out, char *msg, size_t msglen)
{
	int rc = __real_ptm_model_new(g, out, msg, msglen);
	if (rc == 0 && R.arm) {
		R.m = *out;
		R.arm = 0;
		R.dma_bytes = 2 * (size_t)g->pcie_endpoints * g->dma_ports * sizeof(struct ptm_bus_in);
	}
	return rc;
}

void __wrap_ptm_pcie_edge(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in)
{
	rec(m, OP_PCIE, ep, in, sizeof(*in), 0);
	__real_ptm_pcie_edge(m, ep, in);
}

void __wrap_ptm_pcie_edges(ptm_model *m, unsigned ep, const struct ptm_pcie_in *in, uint64_t n)
{
	if (n)
		rec(m, OP_PCIE, ep, in, sizeof(*in), n);
	__real_ptm_pcie_edges(m, ep, in, n);
}

void __wrap_ptm_dma_edge(ptm_model *m, int rst, const struct ptm_bus_in *bus)
{
	rec(m, OP_DMA, rst != 0, bus, R.dma_bytes, 0);
	__real_ptm_dma_edge(m, rst, bus);
}

void __wrap_ptm_dma_edges(ptm_model *m, int rst, const struct ptm_bus_in *bus, uint64_t n)
{
	if (n)
		rec(m, OP_DMA, rst != 0, bus, R.dma_bytes, n);
	__real_ptm_dma_edges(m, rst, bus, n);
}

void __wrap_ptm_mi_edge(ptm_model *m, const struct ptm_mi_in *in, struct ptm_mi_out *out)
{
	struct ptm_mi_out o;
	__real_ptm_mi_edge(m, in, &o);
	if (out)
		*out = o;
	struct mi_rec mr = { *in, o.drd, o.drdy };
	rec(m, OP_MI, 0, &mr, sizeof(mr), 0);
}

void __wrap_ptm_mi_idle_edges(ptm_model *m, int rst, uint64_t n)
{
	if (n)
		rec(m, OP_MI_IDLE, rst != 0, NULL, 0, n);
	__real_ptm_mi_idle_edges(m, rst, n);
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What a reader does for one reading: SNAPSHOT, wait for BUSY to clear,
 * the whole counter window (the card runs on during the block read). */
static void reading(struct pte_card *c, uint32_t *buf, size_t words)
{
	uint32_t status = 1;

	pte_card_mi_write(c, 0x20, 1);
	for (int i = 0; i < 100000 && (status & 1); i++)
		if (pte_card_mi_read(c, 0x24, &status))
			break;
	pte_card_mi_read_block(c, 0x8000, buf, words);
}

/* Replay records [from, to) of the recording; returns the number of MI
 * reads that differ from the recording (must be 0). */
static size_t replay_part(ptm_model *m, size_t from, size_t to)
{
	size_t bad = 0;
	for (size_t i = from; i < to; i++) {
		const struct rec *r = &R.r[i];
		const void *in = R.pool + r->in;
		switch (r->op) {
		case OP_PCIE:
			if (r->n)
				__real_ptm_pcie_edges(m, r->arg, in, r->n);
			else
				__real_ptm_pcie_edge(m, r->arg, in);
			break;
		case OP_DMA:
			if (r->n)
				__real_ptm_dma_edges(m, r->arg, in, r->n);
			else
				__real_ptm_dma_edge(m, r->arg, in);
			break;
		case OP_MI: {
			const struct mi_rec *mr = in;
			struct ptm_mi_out o;
			__real_ptm_mi_edge(m, &mr->in, &o);
			bad += o.drdy != mr->drdy || (o.drdy && o.drd != mr->drd);
			break;
		}
		default:
			__real_ptm_mi_idle_edges(m, r->arg, r->n);
			break;
		}
	}
	return bad;
}

/* The card's power-up and warm-up (not measured). */
__attribute__((noinline)) static size_t replay_open(ptm_model *m)
{
	return replay_part(m, 0, R.open);
}

/* The simulated time that is measured. */
__attribute__((noinline)) static size_t replay(ptm_model *m)
{
	return replay_part(m, R.open, R.nr);
}

static int one(const char *preset, double sim, int reps)
{
	char msg[512];
	struct pte_card *c;
	R.nr = R.npool = 0;
	R.m = NULL;
	R.arm = 1; /* record the model that the card creates, from power-up */
	if (pte_card_open(preset, &c, msg, sizeof(msg))) {
		fprintf(stderr, "bench_env_model: %s\n", msg);
		return 1;
	}
	R.open = R.nr;
	ptm_model *cm = pte_card_model(c);
	const struct ptm_generics g = *ptm_model_generics(cm);
	const size_t words = 2 * (size_t)ptm_model_derived(cm)->entries;
	uint32_t *buf = calloc(words, sizeof(*buf));
	if (!buf) {
		fprintf(stderr, "bench_env_model: out of memory\n");
		pte_card_free(c);
		return 1;
	}
	for (double t = 0; t < sim; t += READ_PERIOD) {
		pte_card_run(c, READ_PERIOD);
		reading(c, buf, words);
	}
	R.m = NULL;
	pte_card_free(c);
	ptm_model *m;
	double best = 0;
	size_t bad = 0;
	for (int k = 0; k < reps; k++) {
		if (__real_ptm_model_new(&g, &m, msg, sizeof(msg))) {
			fprintf(stderr, "bench_env_model: %s\n", msg);
			free(buf);
			return 1;
		}
		bad += replay_open(m);
		double t0 = cpu_now();
		bad += replay(m);
		double t = cpu_now() - t0;
		if (k == 0 || t < best)
			best = t;
		ptm_model_free(m);
	}
	free(buf);
	if (bad) {
		fprintf(stderr, "bench_env_model: %s: the replay read %zu MI words differently\n",
			preset, bad);
		return 1;
	}
	char name[64];
	snprintf(name, sizeof(name), "%s", *preset ? preset : "sim");
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	printf("model_card_%s_sim_seconds_per_sec %.3f s/s\n", name, sim / best);
	printf("model_card_%s_cpu_ms_per_sim_s %.1f ms\n", name, best * 1e3 / sim);
	printf("model_card_%s_calls_per_sim_us %.2f calls\n", name,
	       (double)(R.nr - R.open) / (sim * 1e6));
	return 0;
}

int main(int argc, char **argv)
{
	double sim = argc > 2 ? atof(argv[2]) : 0.05;
	const char *only = argc > 3 ? argv[3] : NULL;
	int rc = 0;
	if (only)
		return one(only, sim, 1);
	rc |= one("", sim, REPS); /* the default load of plain `sim` */
	for (size_t i = 0; i < pte_preset_count(); i++)
		rc |= one(pte_preset_name(i), sim, REPS);
	free(R.r);
	free(R.pool);
	return rc;
}
