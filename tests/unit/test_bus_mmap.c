/*
 * The PCI backend's mmap code path on a regular file laid out as the
 * component's 64 KiB: registers written into the file are read back,
 * writes land in the file, block reads match, bounds are checked, and the
 * whole reader works through it.  Also the pci: device string parser.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/telemetry.h"

static char msg[PT_BUS_MSG_LEN];
static char path[256];

/* A file of `size` bytes holding the basic layout at `base`. */
static void make_file(size_t size, uint32_t base)
{
	uint32_t *img = calloc(1, size);
	FILE *f;
	static const uint32_t cfg[16] = { PT_MAGIC,   0x00020000, 0x00020101, 0x30300040,
					  0x0E02021F, 0x00020211, 0x00041000, 0x00008000,
					  0,	  0x2,	0,	  0x02020202,
					  0x00200020, 0x00000204, 0x04000100, 0x00200020 };

	assert_non_null(img);
	memcpy(&img[base / 4], cfg, sizeof(cfg));
	img[(base + 0x40) / 4] = 0x251;
	img[(base + 0x80) / 4] = 0x00030076;
	img[(base + 0xC0) / 4] = 0x00600280;
	for (unsigned i = 0; i < 64; i++) {
		img[(base + 0x8000 + 8 * i) / 4] = 1000 + i;
		img[(base + 0x8000 + 8 * i + 4) / 4] = i;
	}
	snprintf(path, sizeof(path), "/tmp/test_bus_mmap_%d.bin", (int)getpid());
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, size, f), size);
	fclose(f);
	free(img);
}

static uint32_t file_word(uint64_t off)
{
	uint32_t v = 0;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fread(&v, 4, 1, f), 1);
	fclose(f);
	return v;
}

static void test_read_write_block(void **state)
{
	(void)state;
	struct pt_bus *b;
	uint32_t v, blk[8];

	make_file(PT_COMP_SPAN, 0);
	assert_int_equal(pt_bus_open_mmap_file(path, 0, PT_BUS_MMAP_WRITE, &b, msg, sizeof(msg)), 0);
	assert_string_equal(pt_bus_kind(b), "pci");
	assert_int_equal(pt_bus_read32(b, 0, &v), 0);
	assert_int_equal(v, PT_MAGIC);
	assert_int_equal(pt_bus_read32(b, 0x8008, &v), 0);
	assert_int_equal(v, 1001);
	assert_int_equal(pt_bus_read_block(b, 0x8000, blk, 8), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(blk[2 * i], 1000 + i);
		assert_int_equal(blk[2 * i + 1], i);
	}
	/* with PT_BUS_MMAP_WRITE, writes reach the file (MAP_SHARED) */
	assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, 0xE), 0);
	assert_int_equal(pt_bus_write32(b, 0xFFFC, 0xA5A5A5A5), 0);
	assert_int_equal(file_word(0x20), 0xE);
	assert_int_equal(file_word(0xFFFC), 0xA5A5A5A5);
	/* bounds */
	assert_true(pt_bus_read32(b, 0x10000, &v) < 0);
	assert_true(pt_bus_read32(b, 0x2, &v) < 0);
	assert_true(pt_bus_write32(b, 0x10000, 1) < 0);
	assert_true(pt_bus_read_block(b, 0xFFF8, blk, 3) < 0);
	assert_non_null(strstr(pt_bus_message(b), "64 KiB"));
	assert_int_equal(pt_bus_read_block(b, 0xFFF8, blk, 2), 0);
	assert_int_equal(blk[1], 0xA5A5A5A5);
	pt_bus_close(b);
	unlink(path);
}

static void test_offset_not_page_aligned(void **state)
{
	(void)state;
	struct pt_bus *b;
	uint32_t v;
	const uint32_t base = 0x11004; /* inside the second page of 64 KiB */

	make_file(0x30000, base);
	assert_int_equal(pt_bus_open_mmap_file(path, base, PT_BUS_MMAP_WRITE, &b, msg, sizeof(msg)), 0);
	assert_int_equal(pt_bus_read32(b, 0, &v), 0);
	assert_int_equal(v, PT_MAGIC);
	assert_int_equal(pt_bus_write32(b, 0x28, 7), 0);
	assert_int_equal(file_word(base + 0x28), 7);
	pt_bus_close(b);
	/* the component must fit in the file */
	assert_true(pt_bus_open_mmap_file(path, 0x30000 - 0x10000 + 4, 0, &b, msg, sizeof(msg)) < 0);
	assert_null(b);
	assert_non_null(strstr(msg, "do not fit"));
	assert_int_equal(pt_bus_open_mmap_file(path, 0x20000, 0, &b, msg, sizeof(msg)), 0);
	pt_bus_close(b);
	assert_true(pt_bus_open_mmap_file(path, 2, 0, &b, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "multiple of 4"));
	unlink(path);
	assert_int_equal(pt_bus_open_mmap_file(path, 0, 0, &b, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, path));
}

/* The permissions of the mapping of `path` in this process ("r--s"). */
static void map_perms(char perms[5])
{
	char line[600];
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = strlen(path);

	assert_non_null(f);
	strcpy(perms, "none");
	while (fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, "\n");

		line[l] = '\0';
		if (l >= n && strcmp(line + l - n, path) == 0)
			sscanf(line, "%*s %4s", perms);
	}
	fclose(f);
}

static unsigned long checksum(void)
{
	unsigned long sum = 0;
	int c;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	while ((c = getc(f)) != EOF)
		sum = sum * 31 + (unsigned long)c;
	fclose(f);
	return sum;
}

/* Issue 8: a dump given to mmap: is never changed, and a shared mapping
 * is read-only until the first write. */
static void test_what_may_be_written(void **state)
{
	(void)state;
	struct pt_bus *b;
	struct pt_dev d;
	uint32_t v;
	char perms[5];
	unsigned long sum;

	make_file(PT_COMP_SPAN, 0);
	sum = checksum();
	/* private (copy on write): the writes are seen, the file stays */
	assert_int_equal(pt_bus_open_mmap_file(path, 0, 0, &b, msg, sizeof(msg)), 0);
	assert_string_equal(pt_bus_device(b) + strlen(pt_bus_device(b)) - 4, "@0x0");
	map_perms(perms);
	assert_string_equal(perms, "rw-p");
	assert_int_equal(pt_dev_init(&d, b, msg, sizeof(msg)), 0);
	assert_int_equal(pt_dev_clear(&d, msg, sizeof(msg)), 0);
	assert_int_equal(pt_bus_write32(b, 0xFFFC, 0xA5A5A5A5), 0);
	assert_int_equal(pt_bus_read32(b, 0xFFFC, &v), 0);
	assert_int_equal(v, 0xA5A5A5A5);
	pt_bus_close(b);
	assert_true(checksum() == sum);

	/* shared: read-only until the first write, then read-write */
	assert_int_equal(pt_bus_open_mmap_file(path, 0, PT_BUS_MMAP_WRITE, &b, msg, sizeof(msg)),
			 0);
	assert_string_equal(pt_bus_device(b) + strlen(pt_bus_device(b)) - 3, ",rw");
	map_perms(perms);
	assert_string_equal(perms, "r--s");
	assert_int_equal(pt_bus_read_block(b, 0, &v, 1), 0);
	map_perms(perms);
	assert_string_equal(perms, "r--s");
	assert_true(checksum() == sum);
	assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, PT_CMD_SNAPSHOT), 0);
	map_perms(perms);
	assert_string_equal(perms, "rw-s");
	assert_int_equal(file_word(0x20), PT_CMD_SNAPSHOT);
	assert_int_equal(pt_bus_read32(b, 0, &v), 0);
	assert_int_equal(v, PT_MAGIC); /* the same pages, mapped again */
	pt_bus_close(b);
	map_perms(perms);
	assert_string_equal(perms, "none");

	/* the file replaced between the open and the first write: refused */
	assert_int_equal(pt_bus_open_mmap_file(path, 0, PT_BUS_MMAP_WRITE, &b, msg, sizeof(msg)),
			 0);
	unlink(path);
	make_file(PT_COMP_SPAN, 0);
	assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, 1), -ESTALE);
	assert_non_null(strstr(pt_bus_message(b), "is no longer the file that was mapped"));
	pt_bus_close(b);
	unlink(path);
}

static void test_reader_through_mmap(void **state)
{
	(void)state;
	struct pt_bus *b;
	struct pt_dev d;
	struct pt_reading r;
	double t0, t1;

	make_file(PT_COMP_SPAN, 0);
	assert_int_equal(pt_bus_open_mmap_file(path, 0, PT_BUS_MMAP_WRITE, &b, msg, sizeof(msg)), 0);
	if (pt_dev_init(&d, b, msg, sizeof(msg)) != 0)
		fail_msg("%s", msg);
	assert_int_equal(pt_reading_init(&r, d.layout.entries), 0);
	assert_int_equal(pt_bus_now(b, &t0), 0);
	assert_int_equal(pt_dev_read(&d, &r, msg, sizeof(msg)), 0);
	assert_int_equal(file_word(0x20), PT_CMD_SNAPSHOT);
	assert_true(r.cnt[5] == ((UINT64_C(5) << 32) | 1005));
	assert_int_equal(r.status, 0x2);
	assert_int_equal(r.pcie_tags[0], 0x00030076);
	assert_true(r.time >= t0);
	/* the clock is CLOCK_MONOTONIC and wait() sleeps */
	assert_int_equal(pt_bus_wait(b, 0.02), 0);
	assert_int_equal(pt_bus_now(b, &t1), 0);
	assert_true(t1 - t0 >= 0.02);
	/* a stuck busy bit times out */
	{
		uint32_t one = 1;
		int fd = open(path, O_WRONLY);
		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, &one, 4, PT_REG_STATUS), 4);
		close(fd);
	}
	d.busy_timeout = 0.1;
	assert_int_equal(pt_dev_read(&d, &r, msg, sizeof(msg)), -ETIMEDOUT);
	assert_non_null(strstr(msg, "STATUS busy did not clear within 0.1 s"));
	pt_reading_free(&r);
	pt_bus_close(b);
	unlink(path);
}

static void test_pci_spec_parsing(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "0000:03:00.0", "0000:03:00.0@", "0000:03:00@0", "0000:03.0@0", "03:00.0@0",
		"0000:03:00.8@0", "0000:03:20.0@0", "0000:03:00.0/6@0", "0000:03:00.0/x@0",
		"0000:03:00.0@0x", "0000:03:00.0@zz", "0000:03:00.0@0 ", "000000000:03:00.0@0",
		"0000:003:00.0@0",
	};
	struct pt_bus *b;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		if (pt_bus_open_pci(bad[i], &b, msg, sizeof(msg)) != -EINVAL)
			fail_msg("'%s' accepted or wrong error: %s", bad[i], msg);
		assert_non_null(strstr(msg, "DOMAIN:BUS:DEV.FN"));
	}
	/* well formed, but no such device here */
	assert_int_equal(pt_bus_open_pci("ffff:ff:1f.7/2@0x8000", &b, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no such PCI device"));
	assert_non_null(strstr(msg, "pci:ffff:ff:1f.7/2@0x8000"));
	assert_int_equal(pt_bus_open_pci("FFFF:FF:1F.7@8000", &b, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "/sys/bus/pci/devices/ffff:ff:1f.7"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_write_block),
		cmocka_unit_test(test_what_may_be_written),
		cmocka_unit_test(test_offset_not_page_aligned),
		cmocka_unit_test(test_reader_through_mmap),
		cmocka_unit_test(test_pci_spec_parsing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
