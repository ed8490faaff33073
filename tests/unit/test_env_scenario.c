/*
 * Scenario files and presets of the simulated card: every preset loads,
 * keys land where the documentation says, and every bad input gives one
 * line naming the file, the line and the key at fault.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "env/env_priv.h"

static char dir[64];

static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pt_env_scnXXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Loads text as a file; returns the error and the message. */
static int load(const char *text, struct pte_scenario *s, char *msg, size_t len)
{
	const char *p = write_file("s.ini", text);
	msg[0] = 0;
	return pte_scenario_load(p, s, msg, len);
}

static void expect_error(const char *text, int line, const char *needle)
{
	struct pte_scenario s;
	char msg[512], head[160];
	int rc = load(text, &s, msg, sizeof(msg));
	if (rc >= 0)
		fail_msg("accepted: %s", text);
	assert_null(strchr(msg, '\n'));
	if (line > 0) {
		snprintf(head, sizeof(head), "%s/s.ini:%d: ", dir, line);
		if (strncmp(msg, head, strlen(head)) != 0)
			fail_msg("message '%s' does not start with '%s'", msg, head);
	}
	if (!strstr(msg, needle))
		fail_msg("message '%s' does not name '%s'", msg, needle);
}

static void test_presets(void **state)
{
	(void)state;
	assert_true(pte_preset_count() >= 11);
	static const char *need[] = { "idle", "rx-line-rate", "tx-64B", "tx-1500B", "tx-4K",
				      "mixed", "tags-starved", "completion-space-starved",
				      "slow-dma-consumer", "link-down", "two-endpoints" };
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		assert_non_null(pte_preset_text(need[i]));
	for (size_t i = 0; i < pte_preset_count(); i++) {
		struct pte_scenario s;
		char msg[512];
		assert_non_null(pte_preset_summary(i));
		assert_true(strlen(pte_preset_summary(i)) > 10);
		int rc = pte_scenario_load(pte_preset_name(i), &s, msg, sizeof(msg));
		if (rc)
			fail_msg("%s: %s", pte_preset_name(i), msg);
		assert_string_equal(s.name, pte_preset_name(i));
	}
	assert_null(pte_preset_name(pte_preset_count()));
}

static void test_unknown_preset(void **state)
{
	(void)state;
	struct pte_scenario s;
	char msg[512];
	assert_int_equal(pte_scenario_load("no-such-thing", &s, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no-such-thing"));
	assert_non_null(strstr(msg, "tx-1500B")); /* lists the presets */
	assert_true(pte_scenario_load("/nonexistent/dir/x.ini", &s, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "/nonexistent/dir/x.ini"));
}

static void test_keys(void **state)
{
	(void)state;
	struct pte_scenario s;
	char msg[512];
	int rc = load("; a comment\n"
		      "[card]\nseed = 42\npcie_clock_mhz = 250\n"
		      "[generics]\nPCIE_ENDPOINTS = 2\nDMA_PORTS = 2\nSTFIFO_CAPACITY = 512\n"
		      "[endpoint]\nmps = 512\n"
		      "[endpoint 1]\nlink_gen = 5\nlink_up = no\nhost_latency_dist = exponential\n"
		      "[dma]\nread_gbps = 10\nread_size = 64:3,1500:1\n"
		      "[dma 1]\nwrite_gbps = max\nwrite_size = 64-1500\n"
		      "[dma 1.0]\ndown_ready_pct = 50\n",
		      &s, msg, sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	assert_int_equal(s.seed, 42);
	assert_true(s.pcie_mhz == 250.0);
	assert_int_equal(s.g.pcie_endpoints, 2);
	assert_int_equal(s.g.stfifo_capacity, 512);
	assert_int_equal(s.ep[0].mps, 512);
	assert_int_equal(s.ep[1].mps, 512);
	assert_int_equal(s.ep[0].link_gen, 4);
	assert_int_equal(s.ep[1].link_gen, 5);
	assert_int_equal(s.ep[0].link_up, 1);
	assert_int_equal(s.ep[1].link_up, 0);
	assert_int_equal(s.ep[1].lat_kind, PTE_LAT_EXP);
	assert_true(s.ep[0].port[0].read_gbps == 10.0);
	assert_int_equal(s.ep[0].port[0].read_size.n, 2);
	assert_true(fabs(s.ep[0].port[0].read_size.weight[0] - 0.75) < 1e-12);
	assert_true(s.ep[0].port[1].write_gbps < 0);
	assert_true(s.ep[0].port[0].write_gbps >= 0);
	assert_int_equal(s.ep[1].port[1].write_size.n, 16);
	assert_int_equal(s.ep[1].port[1].write_size.size[0], 64);
	assert_int_equal(s.ep[1].port[1].write_size.size[15], 1500);
	assert_true(s.ep[1].port[0].down_ready == 0.5);
	assert_true(s.ep[0].port[0].down_ready == 1.0);
}

static void test_base(void **state)
{
	(void)state;
	struct pte_scenario s;
	char msg[512];
	int rc = load("[card]\nbase = tags-starved\n[endpoint]\next_tag = yes\n", &s, msg,
		      sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	assert_int_equal(s.ep[0].ext_tag, 1);
	assert_true(s.ep[0].latency_ns == 2000.0); /* from the preset */
	assert_true(s.ep[0].port[0].read_gbps < 0);
	expect_error("[card]\nbase = nope\n", 2, "nope");
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[card]\nseed = 1\nbogus = 3\n", 3, "bogus");
	expect_error("[endpoint]\nmps = abc\n", 2, "mps");
	expect_error("[endpoint]\nlink_gen = 7\n", 2, "link_gen");
	expect_error("[endpoint]\nlink_up = maybe\n", 2, "link_up");
	expect_error("[foo]\nx = 1\n", 2, "foo");
	expect_error("seed = 1\n", 1, "seed");
	expect_error("[generics]\nDMA_PORTS = 0\n", 2, "DMA_PORTS");
	expect_error("[dma]\nread_size = 64:x\n", 2, "read_size");
	expect_error("[dma]\nread_size = 0\n", 2, "read_size");
	expect_error("[dma]\nread_gbps = -4\n", 2, "read_gbps");
	expect_error("[endpoint 3]\nmps = 512\n", 2, "endpoint 3");
	expect_error("[dma 2]\nread_gbps = 1\n", 2, "DMA port 2");
	expect_error("[card]\nthis line has no equals sign\n", 2, "syntax");
	char longline[400];
	memset(longline, 'x', sizeof(longline));
	memcpy(longline, "[card]\nname = ", 14);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = 0;
	expect_error(longline, 2, "longer");
	/* checks across keys name the keys */
	expect_error("[endpoint]\nhost_cpl_bytes = 512\n", 2, "host_cpl_bytes");
	expect_error("[endpoint]\nmps = 300\n", 2, "mps");
	expect_error("[generics]\nDRAIN_PERIOD = 1000\n", 2, "DRAIN_PERIOD");
	expect_error("[generics]\nCNT_WIDTH = 40\nTAG_CAPACITY = 0\n", 3, "TAG_CAPACITY");
	expect_error("[endpoint]\nhost_latency_ns = 100\nhost_latency_jitter_ns = 200\n", 3,
		     "jitter");
	/* buffers too small for one read TLP: no read could ever go out (a
	 * 512-byte TLP needs 8 header entries at RCB 64, 9 when it may
	 * start off an RCB boundary) */
	expect_error("[endpoint]\ncpl_headers = 7\n", 2, "cpl_headers 7: one read TLP may need 8");
	expect_error("[dma]\nread_size = 1500\nalign = 4\n[endpoint]\ncpl_headers = 8\n", 5,
		     "may need 9");
	expect_error("[generics]\nSTFIFO_CAPACITY = 7\n", 2, "STFIFO_CAPACITY 7: one read TLP");
	expect_error("[endpoint 1]\ncpl_headers = 2\n[generics]\nPCIE_ENDPOINTS = 2\n", 2,
		     "[endpoint 1] cpl_headers 2");
	/* a write larger than the PTC's data buffer could never enter it */
	expect_error("[dma]\nwrite_size = 64:1,9000:1\n", 0, "ptc_data_bytes 8192: a write of 9000");
	expect_error("[endpoint]\nptc_data_bytes = 4096\n[dma 0.1]\nwrite_size = 8192\n"
		     "[generics]\nDMA_PORTS = 2\n", 2, "a write of 8192");
	/* a rule about several generics names the latest of their lines, even
	 * one its message does not spell out */
	expect_error("[generics]\nDMA_PORTS = 8\nDMA_DOWN_MFB_REGIONS = 16\n", 3, "DMA regions 16");
	expect_error("[generics]\nDMA_DOWN_MFB_REGIONS = 16\nDMA_PORTS = 8\n", 3, "DMA_PORTS=8");
}

/* The model names the generic a rule is about through a mask, not text. */
static void test_generics_which(void **state)
{
	(void)state;
	struct ptm_generics g;
	char msg[256];
	uint32_t which = 1;

	ptm_generics_default(&g);
	assert_int_equal(ptm_generics_check_which(&g, &which, msg, sizeof(msg)), 0);
	assert_int_equal(which, 0);
	g.drain_period = 1000;
	assert_int_equal(ptm_generics_check_which(&g, &which, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(which, PTM_GENERIC_BIT(drain_period));
	ptm_generics_default(&g);
	g.dma_down_mfb_region_bytes = 30; /* not a multiple of 4 */
	assert_int_equal(ptm_generics_check_which(&g, &which, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(which, PTM_GENERIC_BIT(dma_down_mfb_region_bytes));
	ptm_generics_default(&g);
	g.dma_ports = 8;
	g.dma_up_mfb_regions = 16;
	assert_int_equal(ptm_generics_check_which(&g, &which, msg, sizeof(msg)), -EINVAL);
	assert_true(which & PTM_GENERIC_BIT(dma_ports));
	assert_true(which & PTM_GENERIC_BIT(dma_up_mfb_regions));
	assert_false(which & PTM_GENERIC_BIT(tag_capacity));
	/* NULL is allowed, and the plain check says the same */
	assert_int_equal(ptm_generics_check_which(&g, NULL, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(ptm_generics_check(&g, msg, sizeof(msg)), -EINVAL);
}

/* A line of n characters: "KEY = vvv..." (or a comment when key is
 * NULL), then eol. */
static char *line_of(size_t n, const char *key, const char *eol)
{
	static char text[600];
	size_t h = (size_t)snprintf(text, sizeof(text), "[card]\n%s", key ? key : ";");
	memset(text + h, 'x', n + 7 - h);
	snprintf(text + n + 7, sizeof(text) - n - 7, "%s[card]\nseed = 3\n", eol);
	return text;
}

/* docs/scenarios.md: "a line is at most 199 characters", the line end
 * not counted: both sides of the boundary, for every kind of line. */
static void test_line_limit(void **state)
{
	(void)state;
	static const char *const kinds[] = { NULL, "name = ", "   name = " };
	static const char *const eols[] = { "\n", "\r\n" };
	for (size_t k = 0; k < 3; k++)
		for (size_t e = 0; e < 2; e++) {
			struct pte_scenario s;
			char msg[512];
			const char *t = line_of(199, kinds[k], eols[e]);
			assert_int_equal(strcspn(t + 7, "\r\n"), 199);
			if (load(t, &s, msg, sizeof(msg)) != 0)
				fail_msg("a line of 199 characters: %s", msg);
			assert_int_equal(s.seed, 3);
			expect_error(line_of(200, kinds[k], eols[e]), 2,
				     "line longer than 199 characters");
		}
	/* the line number is the long line's, also further down */
	expect_error("[card]\nseed = 1\n\n; short\n"
		     "; xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
		     5, "longer than 199");
}

/* What a scenario file may be: a regular file of at most 1 MiB.  A FIFO
 * without a writer is refused at once (the open must not block), and so
 * is a folder; a preset name is suggested only for a word that is no
 * file at all. */
static void test_file_checks(void **state)
{
	(void)state;
	struct pte_scenario s;
	char msg[512], path[160];

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(20); /* a blocking open would hang the test: fail it instead */
	assert_true(pte_scenario_load(path, &s, msg, sizeof(msg)) < 0);
	alarm(0);
	assert_non_null(strstr(msg, "it is a FIFO, not a regular file"));
	assert_non_null(strstr(msg, path));
	assert_null(strstr(msg, "no such preset"));
	assert_true(pte_scenario_load(dir, &s, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "it is a folder"));

	/* over the limit: refused from its size, before it is read */
	snprintf(path, sizeof(path), "%s/big.ini", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), (1 << 20) + 1), 0);
	fclose(f);
	assert_int_equal(pte_scenario_load(path, &s, msg, sizeof(msg)), -EFBIG);
	assert_non_null(strstr(msg, "more than its limit of 1 MiB"));
	/* at the limit: read (and then rejected for its NUL bytes) */
	assert_int_equal(truncate(path, 1 << 20), 0);
	assert_int_equal(pte_scenario_load(path, &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "not a text file"));

	/* a word that is a file without permission is no preset either */
	assert_int_equal(chdir(dir), 0);
	write_file("noperm", "[card]\n");
	assert_int_equal(chmod("noperm", 0), 0);
	if (geteuid() != 0) {
		assert_true(pte_scenario_load("noperm", &s, msg, sizeof(msg)) < 0);
		assert_null(strstr(msg, "no such preset"));
	}
	assert_int_equal(pte_scenario_load("nosuchword", &s, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no such preset or scenario file"));
}

static void test_card_from_file(void **state)
{
	(void)state;
	const char *p = write_file("my.ini", "[card]\nbase = idle\nwarmup_us = 5\n");
	struct pte_card *c;
	char msg[512];
	int rc = pte_card_open(p, &c, msg, sizeof(msg));
	if (rc)
		fail_msg("%s", msg);
	struct pte_card_info ci;
	pte_card_info(c, &ci);
	assert_string_equal(ci.name, "idle"); /* base sets the name; the file can too */
	assert_true(pte_card_now(c) >= 5e-6);
	pte_card_free(c);
	assert_true(pte_card_open("[not a file", &c, msg, sizeof(msg)) < 0);
	assert_null(c);
}

/* The smallest buffers that hold one read TLP or one write are enough;
 * no reads or writes, no limit. */
static void test_read_buffers_fit(void **state)
{
	(void)state;
	static const char *ok[] = {
		"[endpoint]\ncpl_headers = 8\n",
		"[dma]\nread_size = 1500\nalign = 4\n[endpoint]\ncpl_headers = 9\n",
		"[dma]\nread_size = 1500\nalign = 64\n[endpoint]\ncpl_headers = 8\n",
		"[generics]\nSTFIFO_CAPACITY = 8\n",
		"[endpoint]\nmrrs = 128\ncpl_headers = 2\n[generics]\nSTFIFO_CAPACITY = 2\n",
		"[dma]\nread_gbps = 0\n[endpoint]\ncpl_headers = 1\n[generics]\nSTFIFO_CAPACITY = 1\n",
		"[dma]\nread_size = 64\n[endpoint]\ncpl_headers = 1\n[generics]\nSTFIFO_CAPACITY = 1\n",
		"[dma]\nwrite_size = 9000\n[endpoint]\nptc_data_bytes = 9000\n",
		"[dma]\nwrite_gbps = 0\nwrite_size = 60000\n",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct pte_scenario s;
		char msg[512];
		if (load(ok[i], &s, msg, sizeof(msg)) != 0)
			fail_msg("refused: %s: %s", ok[i], msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_unknown_preset),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_base),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_read_buffers_fit),
		cmocka_unit_test(test_generics_which),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_file_checks),
		cmocka_unit_test(test_card_from_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
