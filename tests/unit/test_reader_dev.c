/*
 * Commands and readings against a recording fake bus: the exact COMMAND
 * writes of every mode (the replay of register images depends on them),
 * busy polling and its timeout, the time of a reading, the number of bus
 * transactions of one reading, stop requests.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bus/backend.h"
#include "pcie_telemetry/telemetry.h"

struct fake {
	uint32_t regs[PT_COMP_SPAN / 4];
	uint32_t cmds[32];
	unsigned ncmds;
	unsigned busy_polls;  /* polls that still see busy after a command */
	int always_busy;
	double clock;         /* device time */
	double read_cost;     /* device time each block read takes */
	double waited[8];
	unsigned nwaits;
	int stop_in_wait;     /* a signal arrives while waiting */
	int fail_reads;
	unsigned status_reads;
};

static int f_read32(struct pt_bus *b, uint32_t off, uint32_t *v)
{
	struct fake *f = b->priv;

	if (f->fail_reads)
		return pt_bus_fail(b, -EIO, "fake: read of 0x%04X failed", (unsigned)off);
	*v = f->regs[off / 4];
	if (off == PT_REG_STATUS) {
		f->status_reads++;
		if (f->always_busy || f->busy_polls) {
			*v |= PT_STATUS_BUSY;
			if (f->busy_polls)
				f->busy_polls--;
		}
	}
	return 0;
}

static int f_write32(struct pt_bus *b, uint32_t off, uint32_t v)
{
	struct fake *f = b->priv;

	if (off == PT_REG_COMMAND && f->ncmds < 32)
		f->cmds[f->ncmds++] = v;
	return 0;
}

static int f_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	struct fake *f = b->priv;

	if (f->fail_reads)
		return -EIO; /* no message: the wrapper writes one */
	memcpy(buf, &f->regs[off / 4], 4 * n);
	f->clock += f->read_cost;
	return 0;
}

static int f_now(struct pt_bus *b, double *s)
{
	*s = ((struct fake *)b->priv)->clock;
	return 0;
}

static int f_wait(struct pt_bus *b, double s)
{
	struct fake *f = b->priv;

	if (f->nwaits < 8)
		f->waited[f->nwaits++] = s;
	if (f->stop_in_wait) {
		pt_bus_request_stop();
		return pt_bus_fail(b, -EINTR, "interrupted");
	}
	f->clock += s;
	return 0;
}

static const struct pt_bus_ops fake_ops = {
	.kind = "fake", .read32 = f_read32, .write32 = f_write32, .read_block = f_block,
	.now = f_now, .wait = f_wait, .close = NULL,
};

/* 2 endpoints, 1 DMA port, 2 regions, 48-bit counters: basic layout. */
static struct pt_bus *fake_bus(struct fake **out)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct pt_bus *b = pt_bus_alloc(&fake_ops, "fake0");

	assert_non_null(f);
	assert_non_null(b);
	b->priv = f;
	f->regs[0] = PT_MAGIC;
	f->regs[1] = 0x00020000;
	f->regs[2] = 0x00040102;
	f->regs[3] = 0x30300080;
	f->regs[4] = 0x0E02021F;
	f->regs[5] = 0x00020211;
	f->regs[6] = 0x00041000;
	f->regs[7] = 0x8000;
	f->regs[0x2C / 4] = 0x02020202;
	f->regs[0x30 / 4] = 0x00200020;
	f->regs[0x34 / 4] = 0x0204;
	f->regs[0x38 / 4] = 0x04000100;
	f->regs[0x3C / 4] = 0x00200020;
	f->regs[0x24 / 4] = 0x4;  /* overrun flag */
	f->regs[0x20 / 4] = 0xBAD; /* COMMAND must never be taken for data */
	f->regs[0x40 / 4 + 1] = 0x251;
	f->regs[0x80 / 4 + 1] = 0x00030076;
	f->regs[0xC0 / 4 + 1] = 0x00600280;
	f->clock = 100.0;
	*out = f;
	return b;
}

static void close_fake(struct pt_bus *b)
{
	free(b->priv);
	b->priv = NULL;
	pt_bus_close(b);
}

static char msg[512];

static void init_dev(struct pt_dev *d, struct pt_bus *b)
{
	if (pt_dev_init(d, b, msg, sizeof(msg)) != 0)
		fail_msg("%s", msg);
}

static void test_init_reads_layout(void **state)
{
	(void)state;
	struct fake *f;
	struct pt_bus *b = fake_bus(&f);
	struct pt_dev d;

	init_dev(&d, b);
	assert_int_equal(d.layout.endpoints, 2);
	assert_int_equal(d.layout.entries, 128);
	assert_int_equal(d.layout.cfg[PT_REG_COMMAND / 4], 0);
	assert_int_equal(f->ncmds, 0); /* opening writes nothing */
	assert_true(d.busy_timeout == 1.0);
	assert_int_equal(b->transactions, 2);
	close_fake(b);
}

static void test_clear_sequence(void **state)
{
	(void)state;
	struct fake *f;
	struct pt_bus *b = fake_bus(&f);
	struct pt_dev d;

	init_dev(&d, b);
	assert_int_equal(pt_dev_clear(&d, msg, sizeof(msg)), 0);
	assert_int_equal(f->ncmds, 1);
	assert_int_equal(f->cmds[0], 0xE);
	assert_int_equal(f->status_reads, 1);
	assert_int_equal(pt_dev_clear_flags(&d, msg, sizeof(msg)), 0);
	assert_int_equal(pt_dev_clear_marks(&d, msg, sizeof(msg)), 0);
	assert_int_equal(f->cmds[1], 0x4);
	assert_int_equal(f->cmds[2], 0x8);
	close_fake(b);
}

static void test_totals_sequence_and_values(void **state)
{
	(void)state;
	struct fake *f;
	struct pt_bus *b = fake_bus(&f);
	struct pt_dev d;
	struct pt_reading r1, r2;
	unsigned long before;

	init_dev(&d, b);
	f->regs[0x8000 / 4] = 0x504679EB;
	f->regs[0x8004 / 4] = 0x9;
	f->regs[(0x8000 + 8 * 127) / 4] = 1;
	f->regs[(0x8000 + 8 * 127 + 4) / 4] = 0xFFFF;
	assert_int_equal(pt_reading_init(&r1, d.layout.entries), 0);
	assert_int_equal(pt_reading_init(&r2, d.layout.entries), 0);
	before = b->transactions;
	assert_int_equal(pt_dev_measure(&d, 0.0, &r1, &r2, msg, sizeof(msg)), 0);
	assert_int_equal(f->ncmds, 1);
	assert_int_equal(f->cmds[0], PT_CMD_SNAPSHOT);
	assert_int_equal(f->nwaits, 0);
	/* SNAPSHOT, one STATUS poll, the window, the registers */
	assert_int_equal(b->transactions - before, 4);
	assert_true(r2.cnt[0] == UINT64_C(0x9504679EB));
	assert_true(r2.cnt[127] == UINT64_C(0xFFFF00000001));
	assert_int_equal(r2.status, 0x4);
	assert_int_equal(r2.pcie_status[1], 0x251);
	assert_int_equal(r2.pcie_tags[1], 0x00030076);
	assert_int_equal(r2.pcie_stfifo[1], 0x00600280);
	assert_int_equal(r2.pcie_status[0], 0);
	assert_true(r2.time == 100.0);
	/* negative intervals are totals too */
	assert_int_equal(pt_dev_measure(&d, -1.0, &r1, &r2, msg, sizeof(msg)), 0);
	assert_int_equal(f->ncmds, 2);
	assert_int_equal(f->cmds[1], PT_CMD_SNAPSHOT);
	pt_reading_free(&r1);
	pt_reading_free(&r2);
	close_fake(b);
}

static void test_interval_sequence_and_timing(void **state)
{
	(void)state;
	struct fake *f;
	struct pt_bus *b = fake_bus(&f);
	struct pt_dev d;
	struct pt_reading r1, r2;

	init_dev(&d, b);
	f->read_cost = 0.25; /* each block read takes a quarter second */
	assert_int_equal(pt_reading_init(&r1, d.layout.entries), 0);
	assert_int_equal(pt_reading_init(&r2, d.layout.entries), 0);
	assert_int_equal(pt_dev_measure(&d, 2.0, &r1, &r2, msg, sizeof(msg)), 0);
	assert_int_equal(f->ncmds, 4);
	assert_int_equal(f->cmds[0], PT_CMD_CLEAR_FLAGS);
	assert_int_equal(f->cmds[1], PT_CMD_CLEAR_MARKS);
	assert_int_equal(f->cmds[2], PT_CMD_SNAPSHOT);
	assert_int_equal(f->cmds[3], PT_CMD_SNAPSHOT);
	/* the wait makes up for the read-out: snapshot to snapshot is 2 s */
	assert_int_equal(f->nwaits, 1);
	assert_true(f->waited[0] == 1.5);
	assert_true(r1.time == 100.0);
	assert_true(r2.time == 102.0);
	pt_reading_free(&r1);
	pt_reading_free(&r2);
	close_fake(b);
}

static void test_busy_polling(void **state)
{
	(void)state;
	struct fake *f;
	struct pt_bus *b = fake_bus(&f);
	struct pt_dev d;
	struct pt_reading r;

	init_dev(&d, b);
	assert_int_equal(pt_reading_init(&r, d.layout.entries), 0);
	f->busy_polls = 200; /* clears after 200 polls */
	assert_int_equal(pt_dev_read(&d, &r, msg, sizeof(msg)), 0);
	assert_int_equal(f->status_reads, 201);
	/* a simulated device gets time to finish: small waits between polls */
	assert_true(f->nwaits >= 2);
	assert_true(f->waited[0] > 0 && f->waited[0] < 1e-3);

	f->always_busy = 1;
	d.busy_timeout = 0.2;
	assert_int_equal(pt_dev_read(&d, &r, msg, sizeof(msg)), -ETIMEDOUT);
	assert_non_null(strstr(msg, "STATUS busy did not clear within 0.2 s"));
	assert_non_null(strstr(msg, "fake0"));
	f->ncmds = 0;
	assert_int_equal(pt_dev_clear(&d, msg, sizeof(msg)), -ETIMEDOUT);
	assert_non_null(strstr(msg, "COMMAND 0xE"));
	pt_reading_free(&r);
	close_fake(b);
}

static void test_stop_during_wait(void **state)
{
	(void)state;
	struct fake *f;
	struct pt_bus *b = fake_bus(&f);
	struct pt_dev d;
	struct pt_reading r1, r2;

	init_dev(&d, b);
	assert_int_equal(pt_reading_init(&r1, d.layout.entries), 0);
	assert_int_equal(pt_reading_init(&r2, d.layout.entries), 0);
	f->stop_in_wait = 1;
	assert_int_equal(pt_dev_measure(&d, 1.0, &r1, &r2, msg, sizeof(msg)), -EINTR);
	assert_true(pt_bus_stop_requested());
	/* no second SNAPSHOT after the stop */
	assert_int_equal(f->ncmds, 3);
	/* and nothing at all while the stop stands */
	assert_int_equal(pt_dev_measure(&d, 0.0, &r1, &r2, msg, sizeof(msg)), -EINTR);
	assert_int_equal(f->ncmds, 3);
	pt_bus_clear_stop();
	assert_false(pt_bus_stop_requested());
	assert_int_equal(pt_dev_measure(&d, 0.0, &r1, &r2, msg, sizeof(msg)), 0);
	assert_int_equal(f->ncmds, 4);
	pt_reading_free(&r1);
	pt_reading_free(&r2);
	close_fake(b);
}

static void test_bus_errors_propagate(void **state)
{
	(void)state;
	struct fake *f;
	struct pt_bus *b = fake_bus(&f);
	struct pt_dev d;
	struct pt_reading r;

	init_dev(&d, b);
	assert_int_equal(pt_reading_init(&r, d.layout.entries), 0);
	f->fail_reads = 1;
	assert_int_equal(pt_dev_read(&d, &r, msg, sizeof(msg)), -EIO);
	assert_string_equal(msg, "fake: read of 0x0024 failed");
	assert_int_equal(pt_dev_init(&d, b, msg, sizeof(msg)), -EIO);
	/* a backend without a message still yields one naming the device */
	assert_non_null(strstr(msg, "fake0"));
	assert_non_null(strstr(msg, "0x0000"));
	pt_reading_free(&r);
	/* a reading of the wrong size is refused, not overrun */
	f->fail_reads = 0;
	init_dev(&d, b);
	assert_int_equal(pt_reading_init(&r, 4), 0);
	assert_int_equal(pt_dev_read(&d, &r, msg, sizeof(msg)), -EINVAL);
	pt_reading_free(&r);
	close_fake(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_reads_layout),
		cmocka_unit_test(test_clear_sequence),
		cmocka_unit_test(test_totals_sequence_and_values),
		cmocka_unit_test(test_interval_sequence_and_timing),
		cmocka_unit_test(test_busy_polling),
		cmocka_unit_test(test_stop_during_wait),
		cmocka_unit_test(test_bus_errors_propagate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
