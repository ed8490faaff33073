/*
 * The register image parser (every rule of register-image.md sections 1
 * and 2, with the line number of each error) and the replay semantics of
 * section 4.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/telemetry.h"

static char msg[PT_BUS_MSG_LEN];

static struct pt_bus *open_ok(const char *text)
{
	struct pt_bus *b = NULL;
	int rc = pt_bus_open_image_mem("t.regs", text, strlen(text), &b, msg, sizeof(msg));

	if (rc != 0)
		fail_msg("unexpected error %d: %s\n--- input:\n%s", rc, msg, text);
	assert_non_null(b);
	return b;
}

/* The file must be refused with a message that starts with "t.regs:LINE: "
 * and contains `what`. */
static void expect_error(const char *text, unsigned line, const char *what)
{
	struct pt_bus *b = (struct pt_bus *)1;
	char prefix[64];
	int rc;

	msg[0] = '\0';
	rc = pt_bus_open_image_mem("t.regs", text, strlen(text), &b, msg, sizeof(msg));
	if (rc >= 0)
		fail_msg("accepted, expected line %u '%s'\n--- input:\n%s", line, what, text);
	assert_null(b);
	snprintf(prefix, sizeof(prefix), "t.regs:%u: ", line);
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, what))
		fail_msg("message '%s', expected '%s...%s'", msg, prefix, what);
	assert_null(strchr(msg, '\n'));
}

static uint32_t rd(struct pt_bus *b, uint32_t off)
{
	uint32_t v = 0xDEADBEEF;

	assert_int_equal(pt_bus_read32(b, off, &v), 0);
	return v;
}

#define HDR "pcie-telemetry-regs 1\n"

static void test_minimal_and_absent_registers(void **state)
{
	(void)state;
	struct pt_bus *b = open_ok(HDR "@snapshot 1\n0x0000 0x50544C4D\n");
	assert_string_equal(pt_bus_kind(b), "image");
	assert_string_equal(pt_bus_device(b), "image:t.regs");
	assert_int_equal(rd(b, 0), 0x50544C4D);
	assert_int_equal(rd(b, 4), 0);
	assert_int_equal(rd(b, 0xFFFC), 0);
	pt_bus_close(b);
}

static void test_lexical_rules(void **state)
{
	(void)state;
	/* comments anywhere, CR LF, blanks and tabs, case, 0x optional,
	 * no LF at the end */
	struct pt_bus *b = open_ok("  pcie-telemetry-regs 1 \t  # the magic line\r\n"
				   "# a comment line\r\n"
				   "\r\n"
				   "   \t  \n"
				   "@snapshot\t12.5 # time\r\n"
				   "0x0004 0x00020000# no blank before the comment\n"
				   "\t0X0008\t\t0XaBcDeF01  \n"
				   "c ff\n"
				   "0x8000 0x1\r\n"
				   "0x8004 00000009");
	double t = 0;

	assert_int_equal(rd(b, 4), 0x00020000);
	assert_int_equal(rd(b, 8), 0xABCDEF01);
	assert_int_equal(rd(b, 0xC), 0xFF);
	assert_int_equal(rd(b, 0x8000), 1);
	assert_int_equal(rd(b, 0x8004), 9);
	assert_int_equal(pt_bus_now(b, &t), 0);
	assert_true(t == 12.5);
	pt_bus_close(b);
}

static void test_magic_line(void **state)
{
	(void)state;
	expect_error("", 1, "empty file");
	expect_error("\n" HDR "@snapshot 1\n", 1, "first line must be");
	expect_error("# comment first\n" HDR "@snapshot 1\n", 1, "first line must be");
	expect_error("pcie-telemetry-regs 2\n@snapshot 1\n", 1, "unsupported format version '2'");
	expect_error("pcie-telemetry-regs\n@snapshot 1\n", 1, "not a register image");
	expect_error("pcie-telemetry-regs 1 x\n@snapshot 1\n", 1, "not a register image");
	expect_error("PCIE-telemetry-regs 1\n@snapshot 1\n", 1, "not a register image");
	expect_error("pcie-telemetry-regs 1", 1, "no image");
	expect_error(HDR "# only comments\n\n", 3, "no image");
	/* register-image.md: exactly "pcie-telemetry-regs 1" once the comment
	 * and the surrounding blanks are gone, so one space between */
	expect_error("pcie-telemetry-regs\t1\n@snapshot 1\n", 1,
		     "must be exactly 'pcie-telemetry-regs 1', one space between the words, found "
		     "'pcie-telemetry-regs\\x091'");
	expect_error("pcie-telemetry-regs  1\n@snapshot 1\n", 1, "one space between the words");
	expect_error(" pcie-telemetry-regs \t 1 # c\n@snapshot 1\n", 1, "must be exactly");
	pt_bus_close(open_ok("\t pcie-telemetry-regs 1\t# c\r\n@snapshot 1\n"));
}

/* docs/tool.md: a line of an image has at most 4096 characters, the line
 * end not counted; the error names the line. */
static void test_line_limit(void **state)
{
	(void)state;
	char *t = malloc(10000);

	assert_non_null(t);
	for (int crlf = 0; crlf < 2; crlf++) {
		for (size_t n = 4095; n <= 4097; n++) {
			size_t h = (size_t)sprintf(t, HDR "@snapshot 1\n0x4 0x1 #");

			memset(t + h, 'c', n - 9);
			strcpy(t + h + n - 9, crlf ? "\r\n0x8 0x2\n" : "\n0x8 0x2\n");
			if (n <= 4096) {
				struct pt_bus *b = open_ok(t);

				assert_int_equal(rd(b, 8), 2);
				pt_bus_close(b);
			} else {
				expect_error(t, 3, "line longer than 4096 characters");
			}
		}
	}
	free(t);
}

static void test_snapshot_line(void **state)
{
	(void)state;
	expect_error(HDR "@snapshot\n", 2, "@snapshot takes one value");
	expect_error(HDR "@snapshot 1 2\n", 2, "@snapshot takes one value");
	expect_error(HDR "@snapshot -1\n", 2, "bad time '-1'");
	expect_error(HDR "@snapshot +1\n", 2, "bad time '+1'");
	expect_error(HDR "@snapshot 1e3\n", 2, "bad time '1e3'");
	expect_error(HDR "@snapshot 1.\n", 2, "bad time '1.'");
	expect_error(HDR "@snapshot .5\n", 2, "bad time '.5'");
	expect_error(HDR "@snapshot 0x10\n", 2, "bad time '0x10'");
	expect_error(HDR "@snapshot inf\n", 2, "bad time 'inf'");
	expect_error(HDR "@snapshot nan\n", 2, "bad time 'nan'");
	expect_error(HDR "@snapshot 1.5.2\n", 2, "bad time");
	expect_error(HDR "@snapshot 1,5\n", 2, "bad time");
	expect_error(HDR "@snap 1\n", 2, "unknown directive '@snap'");
	expect_error(HDR "@snapshots 1\n", 2, "unknown directive");
	expect_error(HDR "@snapshot 5\n@snapshot 4.999\n", 3, "earlier than the image before it (line 2)");
	/* equal times are allowed, and so are huge but finite ones */
	pt_bus_close(open_ok(HDR "@snapshot 7\n@snapshot 7.000\n@snapshot 123456789012345678901234567890.5\n"));
	{
		/* 400 digits overflow a double */
		char big[600];
		memset(big, 0, sizeof(big));
		strcpy(big, HDR "@snapshot ");
		memset(big + strlen(big), '9', 400);
		strcat(big, "\n");
		expect_error(big, 2, "out of range");
	}
	{
		/* but any number of digits is the grammar's, and each one counts:
		 * 1 + 2^-53 is a tie that the 700th digit breaks upwards */
		char *t = calloc(1000, 1);
		struct pt_bus *b;
		double s;

		assert_non_null(t);
		strcpy(t, HDR "@snapshot 1.00000000000000011102230246251565404236316680908203125");
		memset(t + strlen(t), '0', 640);
		strcpy(t + strlen(t) - 1, "1\n");
		b = open_ok(t);
		assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, PT_CMD_SNAPSHOT), 0);
		assert_int_equal(pt_bus_now(b, &s), 0);
		assert_true(s == 1.0000000000000002);
		pt_bus_close(b);
		free(t);
	}
}

static void test_register_line(void **state)
{
	(void)state;
	expect_error(HDR "0x0000 0x1\n@snapshot 1\n", 2, "before the first @snapshot");
	expect_error(HDR "@snapshot 1\n0x0002 0x1\n", 3, "offset 0x0002 is not a multiple of 4");
	expect_error(HDR "@snapshot 1\n0x10000 0x1\n", 3, "outside the component");
	expect_error(HDR "@snapshot 1\n0xFFFFFFFC 0x1\n", 3, "outside the component");
	expect_error(HDR "@snapshot 1\n0x000000000 0x1\n", 3,
		     "offset '0x000000000' does not fit in 32 bits (more than 8 hex digits)");
	expect_error(HDR "@snapshot 1\n0x0 0x100000000\n", 3, "does not fit in 32 bits");
	expect_error(HDR "@snapshot 1\n0x0 0x000000001\n", 3, "does not fit in 32 bits");
	expect_error(HDR "@snapshot 1\n0x0 0x\n", 3, "bad value '0x'");
	expect_error(HDR "@snapshot 1\n0x0 -1\n", 3, "bad value '-1'");
	expect_error(HDR "@snapshot 1\n0x0 12g\n", 3, "bad value '12g'");
	expect_error(HDR "@snapshot 1\nx10 1\n", 3, "bad offset 'x10'");
	expect_error(HDR "@snapshot 1\n0x10\n", 3, "expected 'OFFSET VALUE'");
	expect_error(HDR "@snapshot 1\n0x10 1 2\n", 3, "expected 'OFFSET VALUE'");
	expect_error(HDR "@snapshot 1\n0x10 0x1\n\n0x0010 0x2\n", 5,
		     "offset 0x0010 appears twice in one image (first on line 3)");
	expect_error(HDR "@snapshot 1\n0x10 0x1\x01\n", 3, "invalid character 0x01");
	expect_error(HDR "@snapshot 1\n0x10 0x1\r\r\n", 3, "invalid character 0x0D");
	/* the same offset in two images is fine, so is 0xFFFC; a value of
	 * 8 digits and the NUL byte inside a comment */
	{
		static const char text[] = HDR "@snapshot 1\n0x10 0x1\n0xFFFC FFFFFFFF #\x01\n"
					       "@snapshot 2\n0x10 0x2\n";
		struct pt_bus *b = open_ok(text);
		assert_int_equal(rd(b, 0x10), 1);
		assert_int_equal(rd(b, 0xFFFC), 0xFFFFFFFF);
		pt_bus_close(b);
	}
}

static void test_error_line_numbers_count_every_line(void **state)
{
	(void)state;
	expect_error(HDR "# c\n\n@snapshot 1\r\n  # c\r\n0x0 0x1\n\n0x3 0\n", 8, "multiple of 4");
}

static void test_replay(void **state)
{
	(void)state;
	struct pt_bus *b = open_ok(HDR "@snapshot 10.5\n0x0 0xA\n0x24 0x7\n0x8000 0x1\n"
				       "@snapshot 11\n0x0 0xB\n0x24 0x3\n0x8008 0x2\n");
	uint32_t blk[4];
	double t;

	/* before any SNAPSHOT: image 0; STATUS busy always reads 0 */
	assert_int_equal(rd(b, 0), 0xA);
	assert_int_equal(rd(b, 0x24), 0x6);
	assert_int_equal(pt_bus_now(b, &t), 0);
	assert_true(t == 10.5);
	/* clears and other writes change nothing */
	assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, 0xE), 0);
	assert_int_equal(pt_bus_write32(b, PT_REG_READ_SEL, 1), 0);
	assert_int_equal(pt_bus_write32(b, 0x0, 5), 0);
	assert_int_equal(rd(b, 0), 0xA);
	/* wait advances nothing */
	assert_int_equal(pt_bus_wait(b, 5.0), 0);
	assert_int_equal(pt_bus_now(b, &t), 0);
	assert_true(t == 10.5);
	/* first SNAPSHOT: image 0 */
	assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, 0x1), 0);
	assert_int_equal(rd(b, 0), 0xA);
	assert_int_equal(pt_bus_read_block(b, 0x8000, blk, 4), 0);
	assert_int_equal(blk[0], 1);
	assert_int_equal(blk[2], 0);
	/* second: image 1 (any word with bit 0 set is a SNAPSHOT) */
	assert_int_equal(pt_bus_write32(b, PT_REG_COMMAND, 0xF), 0);
	assert_int_equal(rd(b, 0), 0xB);
	assert_int_equal(rd(b, 0x24), 0x2);
	assert_int_equal(pt_bus_read_block(b, 0x8000, blk, 4), 0);
	assert_int_equal(blk[0], 0);
	assert_int_equal(blk[2], 2);
	assert_int_equal(pt_bus_read_block(b, 0x20, blk, 2), 0);
	assert_int_equal(blk[1], 0x2); /* STATUS inside a block: busy cleared too */
	assert_int_equal(pt_bus_now(b, &t), 0);
	assert_true(t == 11.0);
	/* third: past the last image */
	assert_true(pt_bus_write32(b, PT_REG_COMMAND, 0x1) < 0);
	assert_non_null(strstr(pt_bus_message(b), "t.regs"));
	assert_non_null(strstr(pt_bus_message(b), "only 2 images"));
	/* transactions: one per call */
	assert_int_equal(pt_bus_transactions(b), 15);
	pt_bus_close(b);
}

static void test_block_bounds(void **state)
{
	(void)state;
	struct pt_bus *b = open_ok(HDR "@snapshot 1\n0xFFFC 0x5\n");
	uint32_t blk[2];

	assert_int_equal(pt_bus_read_block(b, 0xFFF8, blk, 2), 0);
	assert_int_equal(blk[1], 5);
	assert_true(pt_bus_read_block(b, 0xFFFC, blk, 2) < 0);
	assert_non_null(strstr(pt_bus_message(b), "64 KiB"));
	pt_bus_close(b);
}

static void test_file_errors(void **state)
{
	(void)state;
	struct pt_bus *b = (struct pt_bus *)1;
	char path[512];
	FILE *f;

	assert_true(pt_bus_open_image("/nonexistent/x.regs", &b, msg, sizeof(msg)) < 0);
	assert_null(b);
	assert_non_null(strstr(msg, "/nonexistent/x.regs"));
	assert_non_null(strstr(msg, "No such file"));
	assert_true(pt_bus_open_image("/", &b, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "/"));

	/* a real file: the messages carry its path */
	snprintf(path, sizeof(path), "/tmp/test_bus_image_%d.regs", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(HDR "@snapshot 1\n0x4 0x1\n0x4 0x2\n", f);
	fclose(f);
	assert_true(pt_bus_open_image(path, &b, msg, sizeof(msg)) < 0);
	{
		char want[600];
		snprintf(want, sizeof(want), "%s:4: offset 0x0004 appears twice", path);
		assert_non_null(strstr(msg, want));
	}
	f = fopen(path, "w");
	fputs(HDR "@snapshot 1\n0x4 0x1\n", f);
	fclose(f);
	assert_int_equal(pt_bus_open_image(path, &b, msg, sizeof(msg)), 0);
	assert_int_equal(rd(b, 4), 1);
	pt_bus_close(b);
	unlink(path);
}

/* What an image may be: a regular file of at most 1 GiB.  A FIFO without
 * a writer is refused at once, and so is a device; a sparse file over the
 * limit is refused from its size, before anything is read or allocated. */
static void test_file_kinds_and_size(void **state)
{
	(void)state;
	struct pt_bus *b = (struct pt_bus *)1;
	char dir[] = "/tmp/test_bus_image_XXXXXX", path[600];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(20); /* a blocking open fails the test instead of hanging it */
	assert_true(pt_bus_open_image(path, &b, msg, sizeof(msg)) < 0);
	alarm(0);
	assert_null(b);
	assert_non_null(strstr(msg, "cannot read the register image: it is a FIFO, not a regular file"));
	unlink(path);
	if (mknod(path, S_IFCHR | 0600, makedev(1, 5)) == 0) { /* a /dev/zero of our own */
		assert_true(pt_bus_open_image(path, &b, msg, sizeof(msg)) < 0);
		assert_non_null(strstr(msg, "it is a character device, not a regular file"));
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/sparse.regs", dir);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0600)), 0);
	assert_int_equal(truncate(path, (off_t)2 << 30), 0);
	assert_int_equal(pt_bus_open_image(path, &b, msg, sizeof(msg)), -EFBIG);
	assert_non_null(strstr(msg, "the register image has 2147483648 bytes, more than its limit "
				    "of 1 GiB"));
	unlink(path);
	rmdir(dir);
}

/* Every conformance image parses, and replays its MAGIC. */
static void test_conformance_images_parse(void **state)
{
	(void)state;
	static const char *const cases[] = {
		"basic_t1", "four_ep_wide", "wrap33", "cnt64_totals", "fractional_json",
		"unnamed_reasons", "err_bad_magic", "err_one_image", "zero_interval",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[1024];
		struct pt_bus *b;
		uint32_t v;

		snprintf(path, sizeof(path), "%s/conformance/report/%s.regs", PT_TEST_DATA, cases[i]);
		if (pt_bus_open_image(path, &b, msg, sizeof(msg)) != 0)
			fail_msg("%s: %s", cases[i], msg);
		assert_int_equal(pt_bus_read32(b, 0, &v), 0);
		if (strcmp(cases[i], "err_bad_magic") == 0)
			assert_int_equal(v, 0x12345678);
		else
			assert_int_equal(v, PT_MAGIC);
		pt_bus_close(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_and_absent_registers),
		cmocka_unit_test(test_lexical_rules),
		cmocka_unit_test(test_magic_line),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_snapshot_line),
		cmocka_unit_test(test_register_line),
		cmocka_unit_test(test_error_line_numbers_count_every_line),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_block_bounds),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_file_kinds_and_size),
		cmocka_unit_test(test_conformance_images_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
