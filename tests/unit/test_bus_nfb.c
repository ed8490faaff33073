/*
 * The libnfb backend (src/bus/nfb.c, compiled here with PT_HAVE_NFB)
 * against a fake libnfb that follows the documented API
 * (shared/spec/libnfb.md section 1): device open and its errno, component
 * lookup by compatible and index, nfb_comp_open failures, reads and
 * writes with their return values, block reads in one nfb_comp_read.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

/* ---- fake libnfb: one card "/dev/nfb0" with `ncomps` telemetry nodes */
struct nfb_device {
	int dummy;
};
struct nfb_comp {
	unsigned index;
};
static struct nfb_device the_dev;
static unsigned ncomps = 1;
static int open_errno;            /* nfb_open fails with this */
static int comp_open_errno;       /* nfb_comp_open fails with this */
static int short_io;              /* reads and writes return -1 */
static uint32_t regs[2][0x10000 / 4];
static unsigned reads, writes, opened, closed_comps, closed_devs;
static size_t last_read_bytes;

static const char *nfb_default_dev_path(void)
{
	return "/dev/nfb0";
}

static struct nfb_device *nfb_open(const char *path)
{
	if (open_errno) {
		errno = open_errno;
		return NULL;
	}
	if (strcmp(path, "/dev/nfb0") != 0) {
		errno = ENOENT;
		return NULL;
	}
	opened++;
	return &the_dev;
}

static void nfb_close(struct nfb_device *dev)
{
	assert_ptr_equal(dev, &the_dev);
	closed_devs++;
}

static int nfb_comp_count(const struct nfb_device *dev, const char *compatible)
{
	(void)dev;
	return strcmp(compatible, "cesnet,ofm,pcie_telemetry_mi") == 0 ? (int)ncomps : 0;
}

static int nfb_comp_find(const struct nfb_device *dev, const char *compatible, unsigned index)
{
	(void)dev;
	if (strcmp(compatible, "cesnet,ofm,pcie_telemetry_mi") != 0 || index >= ncomps)
		return -1; /* -FDT_ERR_NOTFOUND */
	return 1000 + (int)index;
}

static struct nfb_comp *nfb_comp_open(const struct nfb_device *dev, int off)
{
	struct nfb_comp *c;

	(void)dev;
	if (comp_open_errno) {
		errno = comp_open_errno;
		return NULL;
	}
	c = malloc(sizeof(*c));
	assert_non_null(c);
	c->index = (unsigned)(off - 1000);
	return c;
}

static void nfb_comp_close(struct nfb_comp *c)
{
	closed_comps++;
	free(c);
}

static ssize_t nfb_comp_read(const struct nfb_comp *c, void *buf, size_t n, off_t off)
{
	reads++;
	last_read_bytes = n;
	if (short_io || (size_t)off + n > 0x10000)
		return -1;
	memcpy(buf, (const char *)regs[c->index] + off, n);
	return (ssize_t)n;
}

static ssize_t nfb_comp_write(const struct nfb_comp *c, const void *buf, size_t n, off_t off)
{
	writes++;
	if (short_io || (size_t)off + n > 0x10000)
		return -1;
	memcpy((char *)regs[c->index] + off, buf, n);
	return (ssize_t)n;
}

#define PT_HAVE_NFB 1
#define PT_NFB_DECLARED 1
#include "../../src/bus/nfb.c"

/* ---- tests */
#include "pcie_telemetry/telemetry.h"

static char msg[PT_BUS_MSG_LEN];

static void reset(void)
{
	ncomps = 2;
	open_errno = comp_open_errno = short_io = 0;
	reads = writes = opened = closed_comps = closed_devs = 0;
	memset(regs, 0, sizeof(regs));
	regs[0][0] = PT_MAGIC;
	regs[1][0] = 0x11111111;
}

static void test_open_and_access(void **state)
{
	(void)state;
	struct pt_bus *b;
	uint32_t v, blk[4];

	reset();
	assert_int_equal(pt_bus_have_nfb(), 1);
	assert_int_equal(pt_bus_open_nfb(NULL, 0, &b, msg, sizeof(msg)), 0);
	assert_string_equal(b->ops->kind, "nfb");
	assert_non_null(strstr(b->device, "/dev/nfb0"));
	assert_int_equal(pt_bus_read32(b, 0, &v), 0);
	assert_int_equal(v, PT_MAGIC);
	assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, 0xE), 0);
	assert_int_equal(regs[0][PT_REG_COMMAND / 4], 0xE);
	regs[0][0x8000 / 4 + 3] = 77;
	reads = 0;
	assert_int_equal(pt_bus_read_block(b, 0x8000, blk, 4), 0);
	assert_int_equal(reads, 1); /* one nfb_comp_read for the block */
	assert_int_equal(last_read_bytes, 16);
	assert_int_equal(blk[3], 77);
	pt_bus_close(b);
	assert_int_equal(closed_comps, 1);
	assert_int_equal(closed_devs, 1);

	/* index 1 is the second component */
	assert_int_equal(pt_bus_open_nfb("/dev/nfb0", 1, &b, msg, sizeof(msg)), 0);
	assert_int_equal(pt_bus_read32(b, 0, &v), 0);
	assert_int_equal(v, 0x11111111);
	assert_non_null(strstr(b->device, "index 1"));
	pt_bus_close(b);
}

static void test_open_errors(void **state)
{
	(void)state;
	struct pt_bus *b = (struct pt_bus *)1;

	reset();
	assert_int_equal(pt_bus_open_nfb("/dev/nfb3", 0, &b, msg, sizeof(msg)), -ENOENT);
	assert_null(b);
	assert_string_equal(msg, "/dev/nfb3: cannot open the NFB device: No such file or directory");
	open_errno = EACCES;
	assert_int_equal(pt_bus_open_nfb(NULL, 0, &b, msg, sizeof(msg)), -EACCES);
	assert_non_null(strstr(msg, "/dev/nfb0: cannot open the NFB device: Permission denied"));
	open_errno = 0;
	assert_int_equal(pt_bus_open_nfb(NULL, 2, &b, msg, sizeof(msg)), -ENODEV);
	assert_non_null(strstr(msg, "no PCIe telemetry component with index 2"));
	assert_non_null(strstr(msg, "2 found"));
	assert_int_equal(closed_devs, 1); /* the device is closed again */
	comp_open_errno = EBADFD;
	assert_int_equal(pt_bus_open_nfb(NULL, 0, &b, msg, sizeof(msg)), -EBADFD);
	assert_non_null(strstr(msg, "cannot open the PCIe telemetry component 0"));
	assert_int_equal(closed_devs, 2);
}

static void test_io_errors(void **state)
{
	(void)state;
	struct pt_bus *b;
	struct pt_dev d;
	uint32_t v;

	reset();
	assert_int_equal(pt_bus_open_nfb(NULL, 0, &b, msg, sizeof(msg)), 0);
	short_io = 1;
	assert_int_equal(pt_bus_read32(b, 0x24, &v), -EIO);
	assert_non_null(strstr(b->msg, "offset 0x0024"));
	assert_int_equal(pt_bus_write32(b, 0x20, 1), -EIO);
	assert_non_null(strstr(b->msg, "writing offset 0x0020 failed"));
	assert_int_equal(pt_dev_init(&d, b, msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, "/dev/nfb0"));
	pt_bus_close(b);
}

static void test_clock_and_wait(void **state)
{
	(void)state;
	struct pt_bus *b;
	double t0, t1;

	reset();
	assert_int_equal(pt_bus_open_nfb(NULL, 0, &b, msg, sizeof(msg)), 0);
	assert_int_equal(pt_bus_now(b, &t0), 0);
	assert_int_equal(pt_bus_wait(b, 0.01), 0);
	assert_int_equal(pt_bus_now(b, &t1), 0);
	assert_true(t1 - t0 >= 0.01);
	pt_bus_close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_and_access),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_io_errors),
		cmocka_unit_test(test_clock_and_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
