/*
 * pcie-telemetry: commands and readings of one component.
 *
 * The register sequence of every operation is the one of the upstream
 * tool (shared/spec/register-image.md section 4): a replayed image depends
 * on it.  The reads themselves are merged into as few bus transactions as
 * possible: one block for the counter window and one for STATUS and the
 * per-endpoint registers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pcie_telemetry/telemetry.h"

/* Registers from STATUS up to the last per-endpoint register. */
#define REGS_FIRST PT_REG_STATUS
#define REGS_END(endpoints) PT_REG_EP(PT_REG_PCIE_STFIFO, endpoints)

static int bus_err(struct pt_dev *d, int rc, char *msg, size_t msglen)
{
	const char *m = pt_bus_message(d->bus);

	if (msg && msglen)
		snprintf(msg, msglen, "%s", m[0] ? m : strerror(-rc));
	return rc;
}

/* The busy timeout runs on the host's clock whatever the device's clock
 * is: a simulated card's time only moves when it is asked to, and the
 * user waits in real time. */
static double host_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pt_dev_init(struct pt_dev *d, struct pt_bus *bus, char *msg, size_t msglen)
{
	uint32_t cfg[PT_CFG_REGS] = { 0 };
	int rc;

	memset(d, 0, sizeof(*d));
	d->bus = bus;
	d->busy_timeout = 1.0;
	/* Two blocks around COMMAND, which is write-only. */
	rc = pt_bus_read_block(bus, PT_REG_MAGIC, cfg, PT_REG_NUM(PT_REG_COMMAND));
	if (rc == 0)
		rc = pt_bus_read_block(bus, PT_REG_STATUS, cfg + PT_REG_NUM(PT_REG_STATUS),
				       PT_CFG_REGS - PT_REG_NUM(PT_REG_STATUS));
	if (rc < 0)
		return bus_err(d, rc, msg, msglen);
	rc = pt_layout_decode(cfg, &d->layout, msg, msglen);
	if (rc < 0 && msg && msglen) {
		/* With several cards the register alone does not say which one. */
		char what[PT_BUS_MSG_LEN];

		snprintf(what, sizeof(what), "%s", msg);
		snprintf(msg, msglen, "%s: %s", pt_bus_device(bus), what);
	}
	return rc;
}

int pt_dev_command(struct pt_dev *d, uint32_t cmd, char *msg, size_t msglen)
{
	int rc = pt_bus_write32(d->bus, PT_REG_COMMAND, cmd);

	return rc < 0 ? bus_err(d, rc, msg, msglen) : 0;
}

/* cmd only names the command in the timeout message. */
static int wait_idle(struct pt_dev *d, uint32_t cmd, char *msg, size_t msglen)
{
	double deadline = 0.0;
	uint32_t st = 0;

	for (unsigned polls = 0;; polls++) {
		int rc = pt_bus_read32(d->bus, PT_REG_STATUS, &st);

		if (rc < 0)
			return bus_err(d, rc, msg, msglen);
		if (!(st & PT_STATUS_BUSY))
			return 0;
		if (polls == 0) {
			deadline = host_now() + d->busy_timeout;
			continue;
		}
		if (host_now() > deadline) {
			if (msg && msglen)
				snprintf(msg, msglen,
					 "%s: STATUS busy did not clear within %.1f s after COMMAND "
					 "0x%X (STATUS = 0x%08X)",
					 pt_bus_device(d->bus), d->busy_timeout, (unsigned)cmd,
					 (unsigned)st);
			return -ETIMEDOUT;
		}
		/* A simulated device advances only when asked to: give it a
		 * microsecond now and then (a real device just sleeps). */
		if (polls % 64u == 63u) {
			rc = pt_bus_wait(d->bus, 1e-6);
			if (rc < 0)
				return bus_err(d, rc, msg, msglen);
		}
	}
}

int pt_dev_wait_idle(struct pt_dev *d, char *msg, size_t msglen)
{
	return wait_idle(d, 0, msg, msglen);
}

int pt_dev_status(struct pt_dev *d, uint32_t *status, char *msg, size_t msglen)
{
	int rc = pt_bus_read32(d->bus, PT_REG_STATUS, status);

	return rc < 0 ? bus_err(d, rc, msg, msglen) : 0;
}

/* The whole counter window in one transfer.  The words land in the
 * counters' own memory and each pair is then joined in place (pair i
 * occupies exactly counter i's bytes), so no second buffer is needed. */
static int read_window(struct pt_dev *d, struct pt_reading *r, char *msg, size_t msglen)
{
	const struct pt_layout *l = &d->layout;
	int rc = pt_bus_read_block(d->bus, l->cnt_base, (uint32_t *)(void *)r->cnt, 2u * l->entries);

	if (rc < 0)
		return bus_err(d, rc, msg, msglen);
	for (unsigned i = 0; i < l->entries; i++) {
		uint32_t lo, hi;

		memcpy(&lo, (const unsigned char *)r->cnt + 8u * i, 4);
		memcpy(&hi, (const unsigned char *)r->cnt + 8u * i + 4u, 4);
		r->cnt[i] = (uint64_t)lo | (uint64_t)hi << 32;
	}
	return 0;
}

/* STATUS and the per-endpoint registers, in a second transfer. */
static int read_regs(struct pt_dev *d, struct pt_reading *r, char *msg, size_t msglen)
{
	const struct pt_layout *l = &d->layout;
	/* STATUS .. the last PCIE_STFIFO register: 39 + endpoints words. */
	uint32_t regs[PT_REG_NUM(REGS_END(PT_MAX_ENDPOINTS) - REGS_FIRST)];
	size_t nregs = PT_REG_NUM(REGS_END(l->endpoints) - REGS_FIRST);
	int rc = pt_bus_read_block(d->bus, REGS_FIRST, regs, nregs);

	if (rc < 0)
		return bus_err(d, rc, msg, msglen);
	r->status = regs[0];
	memset(r->pcie_status, 0, sizeof(r->pcie_status));
	memset(r->pcie_tags, 0, sizeof(r->pcie_tags));
	memset(r->pcie_stfifo, 0, sizeof(r->pcie_stfifo));
	for (unsigned ep = 0; ep < l->endpoints; ep++) {
		r->pcie_status[ep] = regs[PT_REG_NUM(pt_reg_ep(PT_REG_PCIE_STATUS, ep) - REGS_FIRST)];
		r->pcie_tags[ep] = regs[PT_REG_NUM(pt_reg_ep(PT_REG_PCIE_TAGS, ep) - REGS_FIRST)];
		r->pcie_stfifo[ep] = regs[PT_REG_NUM(pt_reg_ep(PT_REG_PCIE_STFIFO, ep) - REGS_FIRST)];
	}
	return 0;
}

int pt_dev_read(struct pt_dev *d, struct pt_reading *r, char *msg, size_t msglen)
{
	int rc;

	if (r->entries != d->layout.entries || !r->cnt) {
		if (msg && msglen)
			snprintf(msg, msglen, "reading holds %u counters, the layout has %u",
				 r->entries, d->layout.entries);
		return -EINVAL;
	}
	/* The device's clock at the command itself: nothing may run between
	 * the two (a card in real time runs on in a thread of its own). */
	rc = pt_bus_write32_timed(d->bus, PT_REG_COMMAND, PT_CMD_SNAPSHOT, &r->time);
	if (rc < 0)
		return bus_err(d, rc, msg, msglen);
	rc = wait_idle(d, PT_CMD_SNAPSHOT, msg, msglen);
	if (rc == 0)
		rc = read_window(d, r, msg, msglen);
	if (rc == 0)
		rc = read_regs(d, r, msg, msglen);
	return rc;
}

int pt_dev_clear(struct pt_dev *d, char *msg, size_t msglen)
{
	uint32_t cmd = PT_CMD_CLEAR | PT_CMD_CLEAR_FLAGS | PT_CMD_CLEAR_MARKS;
	int rc = pt_dev_command(d, cmd, msg, msglen);

	return rc < 0 ? rc : wait_idle(d, cmd, msg, msglen);
}

int pt_dev_clear_flags(struct pt_dev *d, char *msg, size_t msglen)
{
	return pt_dev_command(d, PT_CMD_CLEAR_FLAGS, msg, msglen);
}

int pt_dev_clear_marks(struct pt_dev *d, char *msg, size_t msglen)
{
	return pt_dev_command(d, PT_CMD_CLEAR_MARKS, msg, msglen);
}

int pt_dev_measure(struct pt_dev *d, double interval, struct pt_reading *first,
		   struct pt_reading *second, char *msg, size_t msglen)
{
	double now;
	int rc;

	if (pt_bus_stop_requested())
		goto stopped;
	if (!(interval > 0))
		return pt_dev_read(d, second, msg, msglen);
	rc = pt_dev_clear_flags(d, msg, msglen);
	if (rc == 0)
		rc = pt_dev_clear_marks(d, msg, msglen);
	if (rc == 0)
		rc = pt_dev_read(d, first, msg, msglen);
	if (rc < 0)
		return rc;
	if (pt_bus_stop_requested())
		goto stopped;
	/* The interval runs from one SNAPSHOT to the next, whatever the
	 * read-out of the first reading took. */
	rc = pt_bus_now(d->bus, &now);
	if (rc == 0)
		rc = pt_bus_wait(d->bus, first->time + interval - now);
	if (pt_bus_stop_requested())
		goto stopped;
	if (rc < 0)
		return bus_err(d, rc, msg, msglen);
	return pt_dev_read(d, second, msg, msglen);
stopped:
	if (msg && msglen)
		snprintf(msg, msglen, "interrupted");
	return -EINTR;
}
