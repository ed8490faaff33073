/*
 * What a run of the simulated card comes to, for comparing two builds of
 * it: a hash of every endpoint's ground truth, a hash of the counter
 * window after a closing snapshot (read as the tool reads it, through
 * the card's MI bus), and whether deltas were lost.  Shared by the cache
 * test and its helper (test_env_caches.c, card_tiny.c), the snapshot also
 * by env_meas.h; no cmocka here.
 */
#ifndef PT_TEST_CARD_RESULT_H
#define PT_TEST_CARD_RESULT_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/env.h"
#include "pcie_telemetry/regs.h"

struct card_result {
	int rc;                /* 0, or the negative errno of the failure */
	uint64_t truth, regs;  /* the hashes */
	unsigned lost;         /* STATUS LOST_DELTAS at the end */
	char msg[512];         /* the failure's message */
};

/* FNV-1a over n bytes, on from h. */
static inline uint64_t card_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* A snapshot as the tool takes it through the card's MI bus: COMMAND
 * SNAPSHOT, STATUS polled while BUSY, then the counter window's 2 n words
 * into buf; *status the last STATUS.  0 or a negative errno (-ETIMEDOUT
 * when BUSY stays). */
static inline int card_snapshot(struct pte_card *c, uint32_t *buf, unsigned n, uint32_t *status)
{
	int rc = pte_card_mi_write(c, PT_REG_COMMAND, PT_CMD_SNAPSHOT);
	unsigned polls = 0;

	*status = PT_STATUS_BUSY;
	while (!rc && (*status & PT_STATUS_BUSY))
		rc = ++polls > 100000 ? -ETIMEDOUT : pte_card_mi_read(c, PT_REG_STATUS, status);
	return rc ? rc : pte_card_mi_read_block(c, PT_CNT_WINDOW, buf, 2 * (size_t)n);
}

/* The counter window after a snapshot, hashed into r->regs. */
static inline int card_regs(struct pte_card *c, struct card_result *r)
{
	unsigned n = ptm_model_derived(pte_card_model(c))->entries;
	uint32_t *buf = calloc(2 * (size_t)n, sizeof(*buf)), st;
	int rc = buf ? card_snapshot(c, buf, n, &st) : -ENOMEM;

	if (!rc) {
		r->regs = card_fnv(1469598103934665603ull, buf, 2 * (size_t)n * sizeof(*buf));
		r->lost = (st & PT_STATUS_LOST_DELTAS) != 0;
	}
	free(buf);
	return rc;
}

/* spec (a preset or a scenario file) run for sec simulated seconds with
 * that many endpoint threads (-1: as many as the card picks itself). */
static inline void card_result(const char *spec, double sec, int threads, struct card_result *r)
{
	struct pte_card *c;

	memset(r, 0, sizeof(*r));
	r->rc = pte_card_open(spec, &c, r->msg, sizeof(r->msg));
	if (r->rc)
		return;
	if (threads >= 0)
		r->rc = pte_card_set_thread_count(c, (unsigned)threads);
	if (!r->rc)
		r->rc = pte_card_run(c, sec);
	r->truth = 1469598103934665603ull;
	const unsigned neps = ptm_model_generics(pte_card_model(c))->pcie_endpoints;
	for (unsigned e = 0; e < neps && !r->rc; e++) {
		struct pte_truth t;
		memset(&t, 0, sizeof(t));
		r->rc = pte_card_truth(c, e, &t);
		r->truth = card_fnv(r->truth, &t, sizeof(t));
	}
	if (!r->rc)
		r->rc = card_regs(c, r);
	if (r->rc && !r->msg[0])
		snprintf(r->msg, sizeof(r->msg), "%s: the run failed (%d)", spec, r->rc);
	pte_card_free(c);
}

/* One line per result, the same from either build. */
static inline void card_result_line(const struct card_result *r, char *out, size_t len)
{
	if (r->rc)
		snprintf(out, len, "error %s", r->msg);
	else
		snprintf(out, len, "%016llx %016llx %u", (unsigned long long)r->truth,
			 (unsigned long long)r->regs, r->lost);
}

#endif
