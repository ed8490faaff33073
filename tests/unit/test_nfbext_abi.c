/*
 * libnfb-ext-pcie-telemetry.so loaded the way libnfb loads it
 * (nfbext_harness.h), on register images: the ABI symbols and the ops,
 * the device tree (compatible strings, the 8-byte reg, the bus ancestor,
 * version, pcie-endpoints from CFG_TOPOLOGY, document order), accesses at
 * base + offset of any length (nbyte 0 included), the replay of
 * SNAPSHOT, bad device strings and files (one line, errno), and nothing
 * left behind after close and dlclose (descriptors, threads).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nfbext_harness.h"

#define REPORT PT_TEST_DATA "/conformance/report/"

static void test_get_ops(void **state)
{
	struct h_dev d;

	(void)state;
	unsetenv("PT_NFBEXT_MSGFD");
	assert_true(h_load(&d, "sim:idle") > 0);
	assert_null(d.ops.ndp_queue_open); /* no DMA queues */
	h_close(&d);
	assert_true(h_load(&d, "image:x.regs") > 0);
	h_close(&d);
	assert_true(h_load(&d, "sim") > 0);
	h_close(&d);
	int fd = h_msgfd();
	char m[512];
	assert_true(h_load(&d, "bogus:thing") < 0);
	assert_non_null(strstr(h_msg(fd, m, sizeof(m)), "'bogus:thing': not a device of this extension"));
	assert_null(strchr(m, '\n'));
	h_close(&d);
	assert_true(h_load(&d, "") < 0);
	h_close(&d);
	assert_true(h_load(&d, "simulator") < 0); /* "sim" must be the whole word */
	h_close(&d);
	close(fd);
	unsetenv("PT_NFBEXT_MSGFD");
}

static uint32_t prop_u32(const void *fdt, int node, const char *name)
{
	int len;
	const fdt32_t *p = fdt_getprop(fdt, node, name, &len);

	assert_non_null(p);
	assert_int_equal(len, 4);
	return fdt32_to_cpu(*p);
}

/* Two images, two components: the tree as the firmware has it. */
static void test_tree(void **state)
{
	struct h_dev d;
	int bus, n = 0, node;
	uint32_t want_eps[2] = { 4, 1 }, base[2];

	(void)state;
	assert_int_equal(h_open(&d, "image:" REPORT "four_ep_wide.regs," REPORT "basic_t1.regs"), 0);
	bus = fdt_path_offset(d.fdt, "/firmware/mi_bus0");
	assert_true(bus >= 0);
	assert_int_equal(fdt_node_check_compatible(d.fdt, bus, "netcope,bus,mi"), 0);
	for (node = fdt_node_offset_by_compatible(d.fdt, -1, "cesnet,ofm,pcie_telemetry_mi"); node >= 0;
	     node = fdt_node_offset_by_compatible(d.fdt, node, "cesnet,ofm,pcie_telemetry_mi")) {
		int len;
		const fdt32_t *reg = fdt_getprop(d.fdt, node, "reg", &len);

		assert_true(n < 2);
		assert_int_equal(fdt_parent_offset(d.fdt, node), bus);
		assert_int_equal(len, 8);
		base[n] = fdt32_to_cpu(reg[0]);
		assert_int_equal(fdt32_to_cpu(reg[1]), 0x10000);
		assert_int_equal(prop_u32(d.fdt, node, "version"), 0x00010000);
		assert_int_equal(prop_u32(d.fdt, node, "pcie-endpoints"), want_eps[n]);
		n++;
	}
	assert_int_equal(n, 2);
	assert_true(base[1] >= base[0] + 0x10000);
	assert_true(fdt_path_offset(d.fdt, "/system/device") >= 0);
	node = fdt_path_offset(d.fdt, "/drivers/libnfb-ext");
	assert_true(node >= 0);
	assert_non_null(fdt_getprop(d.fdt, node, "devname", NULL));
	/* spare room for a caller that adds nodes */
	assert_int_equal(fdt_add_subnode(d.fdt, 0, "added_by_caller") >= 0, 1);
	h_close(&d);
}

static void test_access(void **state)
{
	struct h_dev d;
	struct h_comp c, c1;
	uint32_t v = 0;
	unsigned char b[8];
	char m[1024];
	int fd = h_msgfd(); /* the device reads it when it opens */

	(void)state;
	assert_int_equal(h_open(&d, "image:" REPORT "basic_t1.regs," REPORT "four_ep_wide.regs"), 0);
	assert_int_equal(h_comp_open(&d, 0, &c), 0);
	assert_int_equal(h_comp_open(&d, 1, &c1), 0);
	assert_int_equal(h_comp_open(&d, 2, &c1) == 0 ? 1 : 0, 0); /* no third one */
	assert_int_equal(h_comp_open(&d, 1, &c1), 0);
	assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), 0);
	assert_int_equal(v, PT_MAGIC);
	assert_int_equal(h_rd32(&c1, PT_REG_CFG_TOPOLOGY, &v), 0);
	assert_int_equal(v & 0xFF, 4); /* the second file's */
	/* nbyte 0, as nfb-bus probes the end of a component */
	assert_int_equal(c.bus.read(c.bus_priv, b, 0, (off_t)(c.base + c.size)), 0);
	assert_int_equal(c.bus.write(c.bus_priv, NULL, 0, (off_t)(c.base + c.size)), 0);
	/* any length and alignment: bytes 1..2 of MAGIC */
	assert_int_equal(c.bus.read(c.bus_priv, b, 2, (off_t)(c.base + 1)), 2);
	assert_int_equal(b[0], (PT_MAGIC >> 8) & 0xFF);
	assert_int_equal(b[1], (PT_MAGIC >> 16) & 0xFF);
	/* outside every component, and a partial write: -1 and one line */
	assert_int_equal(c.bus.read(c.bus_priv, b, 4, (off_t)c.base - 4), -1);
	assert_non_null(strstr(h_msg(fd, m, sizeof(m)), "outside every component"));
	assert_int_equal(c.bus.read(c.bus_priv, b, 8, (off_t)(c.base + c.size - 4)), -1);
	assert_non_null(strstr(h_msg(fd, m, sizeof(m)), "access of 8 bytes"));
	assert_int_equal(c.bus.write(c.bus_priv, b, 2, (off_t)(c.base + PT_REG_COMMAND)), -1);
	assert_non_null(strstr(h_msg(fd, m, sizeof(m)), "whole aligned 32-bit words"));
	assert_int_equal(d.ops.comp_lock(NULL, 1), 1);
	d.ops.comp_unlock(NULL, 1);
	/* the replay: two SNAPSHOTs select images 0 and 1, a third fails */
	assert_int_equal(h_wr32(&c, PT_REG_COMMAND, PT_CMD_SNAPSHOT), 0);
	assert_int_equal(h_wr32(&c, PT_REG_COMMAND, PT_CMD_SNAPSHOT), 0);
	assert_int_equal(h_rd32(&c, PT_REG_STATUS, &v), 0);
	assert_int_equal(v & PT_STATUS_BUSY, 0);
	assert_int_equal(h_wr32(&c, PT_REG_COMMAND, PT_CMD_SNAPSHOT), -1);
	assert_non_null(strstr(h_msg(fd, m, sizeof(m)), "SNAPSHOT number 3 asked for"));
	close(fd);
	unsetenv("PT_NFBEXT_MSGFD");
	h_comp_close(&d, &c);
	h_comp_close(&d, &c1);
	h_close(&d);
}

/* The recorded times, exact, for a replaying loader. */
static void test_snapshot_times(void **state)
{
	struct h_dev d;
	int node, len;
	const char *t;

	(void)state;
	assert_int_equal(h_open(&d, "image:" REPORT "fractional_json.regs"), 0);
	node = fdt_path_offset(d.fdt, "/drivers/libnfb-ext/replay0");
	assert_true(node >= 0);
	assert_string_equal(fdt_getprop(d.fdt, node, "component", NULL),
			    "/firmware/mi_bus0/pcie_telemetry_mi");
	t = fdt_getprop(d.fdt, node, "snapshot-times", &len);
	assert_non_null(t);
	assert_int_equal(fdt_stringlist_count(d.fdt, node, "snapshot-times"), 2);
	assert_true(strtod(fdt_stringlist_get(d.fdt, node, "snapshot-times", 1, NULL), NULL) -
			    strtod(t, NULL) ==
		    7.4 - 7.1);
	h_close(&d);
}

static void test_bad_images(void **state)
{
	(void)state;
	h_open_fails("image:", EINVAL, "empty file name");
	h_open_fails("image:" REPORT "basic_t1.regs,", EINVAL, "empty file name");
	h_open_fails("image:/nonexistent/x.regs", ENOENT, "/nonexistent/x.regs: cannot open");
	h_open_fails("image:" REPORT "basic_t1.args", EINVAL, "basic_t1.args:1:");
	h_open_fails("image:/dev/null", EINVAL, "/dev/null");
}

/* Opening, using and closing leaves no descriptor, thread or mapping of
 * the extension behind; a second load works as the first. */
static void test_no_leftovers(void **state)
{
	int fds = h_count("/proc/self/fd"), tasks = h_count("/proc/self/task");

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct h_dev d;
		struct h_comp c;
		uint32_t v = 0;

		assert_int_equal(h_open(&d, "image:" REPORT "basic_t1.regs"), 0);
		assert_int_equal(h_comp_open(&d, 0, &c), 0);
		assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), 0);
		h_comp_close(&d, &c);
		h_close(&d);
		h_open_fails("image:/nonexistent.regs", ENOENT, "cannot open");
	}
	assert_int_equal(h_count("/proc/self/fd"), fds);
	assert_int_equal(h_count("/proc/self/task"), tasks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_ops),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_snapshot_times),
		cmocka_unit_test(test_bad_images),
		cmocka_unit_test(test_no_leftovers),
	};

	alarm(120); /* a hang fails the test */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
