/*
 * pcie-telemetry: the simulated NDK card (DMA ports, PTC, PCIe link and
 * host) that drives the firmware model's inputs cycle by cycle.
 *
 * Prefix: pte_.  Errors: negative errno values, message in the caller's
 * buffer.  The scenario format and the presets are described in
 * docs/scenarios.md.
 */
#ifndef PCIE_TELEMETRY_ENV_H
#define PCIE_TELEMETRY_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pte_card;

/* spec: NULL or "" = the default realistic mixed load; a preset name;
 * or the path of a scenario file.  Runs the reset sequence and the
 * scenario's warm-up, so the first reading already sees steady traffic. */
int pte_card_open(const char *spec, struct pte_card **out, char *msg, size_t msglen);
/*
 * The same with scenario keys set on top of the spec: each override is
 * "SECTION.KEY=VALUE" with SECTION as in a scenario file (card, generics,
 * endpoint, endpoint N, dma, dma P, dma E.P), applied in order as if the
 * file ended with "[SECTION]\nKEY = VALUE", before the scenario's checks.
 * A bad one fails with "override 'endpoint.mrrs=300': [endpoint] mrrs =
 * 300: must be ..." and *which (when not NULL) = its index; a check the
 * spec passes alone but not with the overrides blames the last one;
 * *which is -1 when the spec itself (or the card) failed.
 */
int pte_card_open_ex(const char *spec, const char *const *overrides, size_t n, int *which,
		     struct pte_card **out, char *msg, size_t msglen);
void pte_card_free(struct pte_card *c);

/* Run every clock domain for that much simulated time.  Returns 0,
 * -EINVAL for a negative or non-finite interval, or -ENOMEM when the card
 * ran out of memory; a card that failed returns the same error from every
 * later call that runs it (run, MI accesses). */
int pte_card_run(struct pte_card *c, double seconds);
/* Simulated time since power-up, in seconds. */
double pte_card_now(const struct pte_card *c);

/*
 * Progress of long runs.  A pte_card_run that is expected to take longer
 * than min_wall seconds of wall-clock time (estimated from how fast it
 * goes) calls fn with the simulated seconds done and asked for, about five
 * times a second, and once more at its end with done == total; a shorter
 * run never calls it.  fn must not call back into the card.  NULL: none.
 */
typedef void (*pte_progress_fn)(void *arg, double done, double total);
void pte_card_set_progress(struct pte_card *c, pte_progress_fn fn, void *arg, double min_wall);
/* A stop request for long runs: a pte_card_run of more than a few
 * emissions asks fn between stretches of them, and returns -EINTR, with
 * the card at the end of the stretch, when fn returns non-zero.  Runs
 * that are not stopped give exactly the counters they give without it.
 * fn must be cheap and must not call back into the card.  NULL: none. */
typedef int (*pte_stop_fn)(void *arg);
void pte_card_set_stop(struct pte_card *c, pte_stop_fn fn, void *arg);
/* The same for every card opened after this call (as the sim bus device
 * opens its card itself). */
void pte_progress_default(pte_progress_fn fn, void *arg, double min_wall);

/* MI access while the whole card keeps running (each access costs its MI
 * clock cycles of simulated time and the host's access time).  Each
 * returns 0, or the card's error (see pte_card_run); the value read is
 * written only on success. */
int pte_card_mi_read(struct pte_card *c, uint32_t addr, uint32_t *val);
int pte_card_mi_write(struct pte_card *c, uint32_t addr, uint32_t data);
/* n consecutive words from addr as one burst of back-to-back MI reads
 * (the MI bus is pipelined: n + 2 MI cycles). */
int pte_card_mi_read_block(struct pte_card *c, uint32_t addr, uint32_t *buf, size_t n);

ptm_model *pte_card_model(struct pte_card *c);

/*
 * Endpoints on threads of their own (the model stays on the calling
 * thread, up to a few drain periods behind): the same numbers as
 * without, in less wall-clock time when cores are free.  On by default
 * when the process may run on more than one CPU, for a card of one
 * endpoint too (it and the model run side by side): a thread per
 * endpoint while a CPU is left for the model, else one thread fewer than
 * the CPUs, each running several endpoints.  Returns 0, or a negative
 * errno when no threads could be started (the card goes on without).
 */
int pte_card_set_threads(struct pte_card *c, int on);

/* The same with n threads (0: none; at most one per endpoint; thread t
 * runs endpoints t, t + n, ...), whatever the CPUs. */
int pte_card_set_thread_count(struct pte_card *c, unsigned n);

/* Built-in presets. */
size_t pte_preset_count(void);
const char *pte_preset_name(size_t i);
const char *pte_preset_summary(size_t i);
/* The scenario text (INI) of a preset, NULL for an unknown name. */
const char *pte_preset_text(const char *name);

/* ------------------------------------------------------------------ */
/* What the card is configured with (resolved scenario).                */

struct pte_card_info {
	struct ptm_generics g;
	double pcie_hz, dma_hz, mi_hz;
	uint64_t seed;
	char name[64];              /* preset name or file name */
};
void pte_card_info(const struct pte_card *c, struct pte_card_info *out);

/* Link and PTC parameters of one endpoint after negotiation. */
struct pte_ep_info {
	unsigned link_gen, link_width, link_up;
	unsigned mps, mrrs, rcb;            /* bytes */
	unsigned ext_tag, tag10b;
	unsigned tags;                      /* PTC tag pool actually usable */
	unsigned stfifo_words;              /* = STFIFO_CAPACITY */
	unsigned stfifo_word_bytes;         /* bytes of one storage FIFO word */
	unsigned cpl_headers;               /* 0 = managed by the endpoint */
	unsigned host_cpl_bytes;
	double host_latency_ns;             /* configured mean */
	double link_up_Bps, link_down_Bps;  /* TLP bytes per second after
	                                     * encoding and DLLP overhead */
	unsigned rq_header_bytes, rc_header_bytes, tlp_framing_bytes;
};
int pte_card_ep_info(const struct pte_card *c, unsigned ep, struct pte_ep_info *out);

/*
 * Ground truth the firmware cannot see, per endpoint, accumulated since
 * power-up.  Bus indices: PTE_RQ, PTE_RC on the PCIe side; UP/DOWN of each
 * DMA port on the DMA side.
 */
enum { PTE_RQ = 0, PTE_RC = 1 };
struct pte_bus_truth {
	uint64_t words;        /* cycles the MFB moved a word */
	uint64_t stall;        /* cycles SRC_RDY & !DST_RDY */
	uint64_t frames;       /* frames started */
	uint64_t items;        /* MFB items moved (real frame lengths) */
	uint64_t bytes;        /* bytes of the frames (headers included on
	                        * the PCIe side, payload on the DMA side) */
	uint64_t mvb_items, mvb_stall;
};
struct pte_truth {
	uint64_t pcie_cycles, dma_cycles;
	struct pte_bus_truth pcie[2];
	struct pte_bus_truth up[PTM_MAX_DMA_PORTS], down[PTM_MAX_DMA_PORTS];
	uint64_t brake[6];            /* PCIe cycles each BRAKE bit was driven */
	uint64_t reads, read_bytes;   /* read TLPs completed, payload bytes */
	uint64_t writes, write_bytes; /* write TLPs sent, payload bytes */
	double read_latency_sum_ns;   /* host latency summed over read TLPs */
	double tags_in_use_sum;       /* sum over PCIe cycles of tags in use */
	double tag_hold_sum_ns;       /* over the reads whose tags came back: the
	                               * time from taking the tag to giving it back */
	unsigned tags_free_min, stfifo_free_min;
	uint64_t tags_band[4], stfifo_band[4]; /* PCIe cycles in each band */
};
int pte_card_truth(const struct pte_card *c, unsigned ep, struct pte_truth *out);

/* Model calls made so far (batches of edges), for the benchmark. */
uint64_t pte_card_batches(const struct pte_card *c);

#ifdef __cplusplus
}
#endif
#endif
