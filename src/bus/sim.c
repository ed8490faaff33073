/*
 * pcie-telemetry: the `sim` backend, the simulated NDK card (src/env)
 * driving the firmware model (src/model).
 *
 * Register accesses are MI bus operations of the model while the whole
 * card keeps running; a block read is a burst of back-to-back MI reads, as
 * on the real bus.  The device's clock is simulated time: wait(s) runs the
 * card for s simulated seconds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/backend.h"
#include "pcie_telemetry/env.h"
#include "pcie_telemetry/regs.h"
#include "pcie_telemetry/sim.h"

/* The card and its ground truth at the commands that bound a reading. */
struct sim {
	struct pte_card *card;
	unsigned endpoints;
	unsigned snaps;                            /* SNAPSHOT commands so far */
	struct pte_truth clear[PTM_MAX_ENDPOINTS]; /* at the last CLEAR (zero: power-up) */
	struct pte_truth snap[2][PTM_MAX_ENDPOINTS]; /* the last two SNAPSHOTs, [snaps % 2] older */
};

static struct sim *sim_of(struct pt_bus *b)
{
	return (struct sim *)b->priv;
}

static struct pte_card *card_of(struct pt_bus *b)
{
	return sim_of(b)->card;
}

/* A COMMAND write: the truth at a CLEAR and at a SNAPSHOT (the commands
 * act a few MI cycles later, like the counters' read-out lag, on both). */
static void note_command(struct sim *s, uint32_t off, uint32_t val)
{
	if (pt_addr_in_window(off) || pt_addr_reg(off) != PT_REG_NUM(PT_REG_COMMAND))
		return;
	for (unsigned ep = 0; ep < s->endpoints; ep++) {
		if (val & PT_CMD_CLEAR)
			pte_card_truth(s->card, ep, &s->clear[ep]);
		if (val & PT_CMD_SNAPSHOT)
			pte_card_truth(s->card, ep, &s->snap[s->snaps % 2][ep]);
	}
	if (val & PT_CMD_SNAPSHOT)
		s->snaps++;
}

static int check_off(struct pt_bus *b, uint32_t off, size_t n)
{
	if (off % 4u || off >= PT_COMP_SPAN || n > (PT_COMP_SPAN - off) / 4u)
		return pt_bus_fail(b, -ERANGE,
				   "%s: access of %zu word(s) at offset 0x%X outside the 64 KiB "
				   "window of the component",
				   b->device, n, (unsigned)off);
	return 0;
}

/* The card stopped (out of memory): every later access fails the same. */
static int card_failed(struct pt_bus *b, int rc)
{
	if (rc >= 0)
		return 0;
	return pt_bus_fail(b, rc, "%s: the simulated card stopped: %s", b->device, strerror(-rc));
}

static int sim_read32(struct pt_bus *b, uint32_t off, uint32_t *val)
{
	int rc = check_off(b, off, 1);
	if (rc)
		return rc;
	return card_failed(b, pte_card_mi_read(card_of(b), off, val));
}

static int sim_write32(struct pt_bus *b, uint32_t off, uint32_t val)
{
	int rc = check_off(b, off, 1);
	if (rc)
		return rc;
	rc = card_failed(b, pte_card_mi_write(card_of(b), off, val));
	if (rc == 0)
		note_command(sim_of(b), off, val);
	return rc;
}

static int sim_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	int rc = check_off(b, off, n);
	if (rc)
		return rc;
	return card_failed(b, pte_card_mi_read_block(card_of(b), off, buf, n));
}

static int sim_now(struct pt_bus *b, double *seconds)
{
	*seconds = pte_card_now(card_of(b));
	return 0;
}

static int sim_wait(struct pt_bus *b, double seconds)
{
	int rc;

	if (!(seconds >= 0) || !isfinite(seconds))
		return pt_bus_fail(b, -EINVAL, "%s: cannot wait %g s", b->device, seconds);
	rc = pte_card_run(card_of(b), seconds);
	if (rc == -EINTR) /* a stop request: the card is fine, the wait ends early */
		return pt_bus_fail(b, -EINTR, "interrupted");
	return card_failed(b, rc);
}

/* A long wait ends early on a stop request (SIGINT, SIGTERM). */
static int sim_stop_requested(void *arg)
{
	(void)arg;
	return pt_bus_stop_requested();
}

static void sim_close(struct pt_bus *b)
{
	pte_card_free(card_of(b));
	free(b->priv);
	b->priv = NULL;
}

static const struct pt_bus_ops sim_ops = {
	.kind = "sim",
	.read32 = sim_read32,
	.write32 = sim_write32,
	.read_block = sim_read_block,
	.now = sim_now,
	.wait = sim_wait,
	.close = sim_close,
};

int pt_bus_open_sim(const char *spec, struct pt_bus **out, char *msg, size_t msglen)
{
	return pt_bus_open_sim_ex(spec, NULL, 0, out, NULL, msg, msglen);
}

int pt_bus_open_sim_ex(const char *spec, const char *const *overrides, size_t n,
		       struct pt_bus **out, int *which, char *msg, size_t msglen)
{
	struct pte_card *c;
	struct pte_card_info info;
	struct sim *s;
	char device[256];
	int rc;

	*out = NULL;
	rc = pte_card_open_ex(spec, overrides, n, which, &c, msg, msglen);
	if (rc)
		return rc;
	pte_card_set_stop(c, sim_stop_requested, NULL);
	s = calloc(1, sizeof(*s));
	if (!s) {
		pte_card_free(c);
		snprintf(msg, msglen, "sim: out of memory");
		return -ENOMEM;
	}
	pte_card_info(c, &info);
	s->card = c;
	s->endpoints = info.g.pcie_endpoints;
	if (spec && *spec)
		snprintf(device, sizeof(device), "sim:%s", spec);
	else
		snprintf(device, sizeof(device), "sim");
	struct pt_bus *b = pt_bus_alloc(&sim_ops, device);
	if (!b) {
		pte_card_free(c);
		free(s);
		snprintf(msg, msglen, "%s: out of memory", device);
		return -ENOMEM;
	}
	b->priv = s;
	*out = b;
	return 0;
}

int pt_bus_is_sim(const struct pt_bus *b)
{
	return b && b->ops == &sim_ops;
}

int pt_bus_sim_info(struct pt_bus *b, struct pte_card_info *out)
{
	if (!pt_bus_is_sim(b))
		return -ENOTSUP;
	pte_card_info(card_of(b), out);
	return 0;
}

int pt_bus_sim_truth(struct pt_bus *b, unsigned ep, bool interval, struct pte_truth *out)
{
	struct sim *s;

	if (!pt_bus_is_sim(b))
		return -ENOTSUP;
	s = sim_of(b);
	if (ep >= s->endpoints)
		return -EINVAL;
	if (s->snaps < (interval ? 2u : 1u))
		return -ENOENT;
	const struct pte_truth *last = &s->snap[(s->snaps - 1) % 2][ep];
	const struct pte_truth *first = interval ? &s->snap[s->snaps % 2][ep] : &s->clear[ep];

	pt_bus_sim_truth_diff(last, first, out);
	return 0;
}

static void bus_diff(const struct pte_bus_truth *a, const struct pte_bus_truth *b,
		     struct pte_bus_truth *o)
{
	o->words = a->words - b->words;
	o->stall = a->stall - b->stall;
	o->frames = a->frames - b->frames;
	o->items = a->items - b->items;
	o->bytes = a->bytes - b->bytes;
	o->mvb_items = a->mvb_items - b->mvb_items;
	o->mvb_stall = a->mvb_stall - b->mvb_stall;
}

void pt_bus_sim_truth_diff(const struct pte_truth *later, const struct pte_truth *earlier,
			   struct pte_truth *out)
{
	const struct pte_truth *a = later, *b = earlier;

	*out = *a;
	out->pcie_cycles = a->pcie_cycles - b->pcie_cycles;
	out->dma_cycles = a->dma_cycles - b->dma_cycles;
	for (unsigned i = 0; i < 2; i++)
		bus_diff(&a->pcie[i], &b->pcie[i], &out->pcie[i]);
	for (unsigned p = 0; p < PTM_MAX_DMA_PORTS; p++) {
		bus_diff(&a->up[p], &b->up[p], &out->up[p]);
		bus_diff(&a->down[p], &b->down[p], &out->down[p]);
	}
	for (unsigned k = 0; k < 6; k++)
		out->brake[k] = a->brake[k] - b->brake[k];
	out->reads = a->reads - b->reads;
	out->read_bytes = a->read_bytes - b->read_bytes;
	out->writes = a->writes - b->writes;
	out->write_bytes = a->write_bytes - b->write_bytes;
	out->read_latency_sum_ns = a->read_latency_sum_ns - b->read_latency_sum_ns;
	out->tags_in_use_sum = a->tags_in_use_sum - b->tags_in_use_sum;
	out->tag_hold_sum_ns = a->tag_hold_sum_ns - b->tag_hold_sum_ns;
	for (unsigned i = 0; i < 4; i++) {
		out->tags_band[i] = a->tags_band[i] - b->tags_band[i];
		out->stfifo_band[i] = a->stfifo_band[i] - b->stfifo_band[i];
	}
}
