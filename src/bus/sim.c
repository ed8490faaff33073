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

static struct pte_card *card_of(struct pt_bus *b)
{
	return (struct pte_card *)b->priv;
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
	return card_failed(b, pte_card_mi_write(card_of(b), off, val));
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
	struct pte_card *c;
	char device[256];
	int rc;

	*out = NULL;
	rc = pte_card_open(spec, &c, msg, msglen);
	if (rc)
		return rc;
	pte_card_set_stop(c, sim_stop_requested, NULL);
	if (spec && *spec)
		snprintf(device, sizeof(device), "sim:%s", spec);
	else
		snprintf(device, sizeof(device), "sim");
	struct pt_bus *b = pt_bus_alloc(&sim_ops, device);
	if (!b) {
		pte_card_free(c);
		snprintf(msg, msglen, "%s: out of memory", device);
		return -ENOMEM;
	}
	b->priv = c;
	*out = b;
	return 0;
}
