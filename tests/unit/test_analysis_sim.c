/*
 * The diagnosis against the simulated card, whose ground truth is known:
 *  - the bottleneck of every preset (the list) and of the scenario
 *    files in tests/diagnose/, whose cause is clear by construction (the
 *    "; expect:" line of each file);
 *  - the tag holding time bounds contain the simulated truth on every
 *    preset with reads, for host latencies of 0.5 to 5 us, and are tight
 *    (hi / lo <= 1.5) where the pool is empty most of the time and the
 *    tags are the bottleneck;
 *  - the corrected throughput of buses narrower than their probe agrees
 *    with the bytes the card really moved, within 0.5 %.
 * Every run is a few simulated milliseconds.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pcie_telemetry/diagnose.h"
#include "pcie_telemetry/sim.h"
#include "pcie_telemetry/telemetry.h"
#include "test_util.h"

#define RUN_SECONDS 0.01

/* One measured interval of a simulated card, its diagnosis and truth. */
struct run {
	struct pt_bus *bus;
	struct pt_dev dev;
	struct pt_reading a, b, d;
	double seconds, pcie_hz;
	struct pt_diagnosis *dg;
};

static void run_open(struct run *r, const char *device, double seconds)
{
	char msg[PT_BUS_MSG_LEN];
	struct pte_card_info info;

	memset(r, 0, sizeof(*r));
	if (pt_bus_open(device, 0, &r->bus, msg, sizeof msg) ||
	    pt_dev_init(&r->dev, r->bus, msg, sizeof msg))
		fail_msg("%s: %s", device, msg);
	assert_int_equal(pt_reading_init(&r->a, r->dev.layout.entries), 0);
	assert_int_equal(pt_reading_init(&r->b, r->dev.layout.entries), 0);
	assert_int_equal(pt_reading_init(&r->d, r->dev.layout.entries), 0);
	if (pt_dev_measure(&r->dev, seconds, &r->a, &r->b, msg, sizeof msg))
		fail_msg("%s: %s", device, msg);
	pt_reading_diff(&r->dev.layout, &r->a, &r->b, &r->d);
	r->seconds = r->b.time - r->a.time;
	assert_int_equal(pt_diag_analyze(&r->dev.layout, &r->d, true, r->seconds, NULL, &r->dg),
			 0);
	assert_int_equal(pt_bus_sim_info(r->bus, &info), 0);
	r->pcie_hz = info.pcie_hz;
}

static void run_close(struct run *r)
{
	pt_diag_free(r->dg);
	pt_reading_free(&r->a);
	pt_reading_free(&r->b);
	pt_reading_free(&r->d);
	pt_bus_close(r->bus);
}

static const struct pt_diag_entry *entry(const struct run *r, unsigned ep, enum pt_diag_dir dir)
{
	return &r->dg->entry[ep * PT_DIAG_DIRS + dir];
}

/* "ep0.read=pcie-tags" or "ep0.read=dma-consumer:1": checked against r. */
static void check_expectation(const struct run *r, const char *device, const char *want)
{
	unsigned ep;
	char dir[8], cause[32];
	int port = -1;

	if (sscanf(want, "ep%u.%7[a-z]=%31[a-z-]:%d", &ep, dir, cause, &port) < 3)
		fail_msg("%s: bad expectation '%s'", device, want);
	assert_true(ep < r->dev.layout.endpoints);
	const struct pt_diag_entry *e = entry(r, ep, strcmp(dir, "read") ? PT_DIAG_WRITE : PT_DIAG_READ);

	if (strcmp(pt_diag_cause_name(e->bottleneck), cause) || (port >= 0 && e->port != port))
		fail_msg("%s: ep%u %s is %s (port %d), expected %s (%s)", device, ep, dir,
			 pt_diag_cause_name(e->bottleneck), e->port, want, e->why);
}

static void check_device(const char *device, const char *expectations)
{
	char buf[512], *save = NULL;
	struct run r;

	run_open(&r, device, RUN_SECONDS);
	snprintf(buf, sizeof buf, "%s", expectations);
	for (char *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		check_expectation(&r, device, w);
	run_close(&r);
}

static void test_presets(void **state)
{
	static const char *const cases[][2] = {
		{ "sim:rx-line-rate", "ep0.write=pcie-link ep0.read=idle" },
		{ "sim:tx-64B", "ep0.read=dma-bus:0 ep0.write=idle" },
		{ "sim:tx-1500B", "ep0.read=dma-bus:0" },
		{ "sim:tx-4K", "ep0.read=pcie-link" },
		{ "sim:tags-starved", "ep0.read=pcie-tags" },
		{ "sim:completion-space-starved", "ep0.read=completion-space" },
		{ "sim:slow-dma-consumer", "ep0.read=dma-consumer:0" },
		{ "sim:link-down", "ep0.read=link-down ep0.write=link-down" },
		{ "sim:idle", "ep0.read=idle ep0.write=idle" },
		{ "sim", "ep0.read=source ep0.write=source" },
		{ "sim:mixed", "ep0.read=source ep0.write=source" },
		{ "sim:two-endpoints",
		  "ep0.read=source ep0.write=source ep1.read=source ep1.write=source" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_device(cases[i][0], cases[i][1]);
}

static void test_scenario_files(void **state)
{
	char dir[512], path[1024], device[1100];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof dir, "%s/diagnose", PT_TEST_DATA);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *text, *line;

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		text = pt_test_slurp(path, NULL);
		assert_non_null(text);
		line = strstr(text, "; expect:");
		if (!line)
			fail_msg("%s: no '; expect:' line", path);
		line += strlen("; expect:");
		line[strcspn(line, "\n")] = '\0';
		snprintf(device, sizeof device, "sim:%s", path);
		check_device(device, line);
		free(text);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
}

/* ---- latency ------------------------------------------------------------------- */

/* A scenario file: PRESET with the host latency set, in a temporary file. */
static void latency_scenario(char *path, size_t len, const char *preset, unsigned ns)
{
	char text[256];
	int fd;

	snprintf(path, len, "/tmp/pt-lat-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	snprintf(text, sizeof text, "[card]\n%s%s\n[endpoint]\nhost_latency_ns = %u\n",
		 *preset ? "base = " : "", preset, ns);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void check_latency(const char *preset, unsigned ns)
{
	char path[64], device[80];
	struct run r;

	latency_scenario(path, sizeof path, preset, ns);
	snprintf(device, sizeof device, "sim:%s", path);
	run_open(&r, device, RUN_SECONDS);
	for (unsigned ep = 0; ep < r.dev.layout.endpoints; ep++) {
		const struct pt_latency *t = &r.dg->latency[ep];
		struct pte_truth tr;
		double truth;

		assert_int_equal(pt_bus_sim_truth(r.bus, ep, true, &tr), 0);
		if (!tr.reads)
			continue;
		/* from taking the tag to giving it back, read by read */
		truth = tr.tag_hold_sum_ns / (double)tr.reads;
		/* and Little's law on the card's own count of tags in use agrees */
		assert_true(fabs(tr.tags_in_use_sum / (double)tr.reads * 1e9 / r.pcie_hz - truth) <
			    0.02 * truth);
		assert_true(t->valid && t->have_ns);
		if (!(t->lo_ns <= truth && truth <= t->hi_ns))
			fail_msg("%s at %u ns, ep%u: the tag is held %.1f ns, not in [%.1f, %.1f]",
				 *preset ? preset : "sim", ns, ep, truth, t->lo_ns, t->hi_ns);
		if (t->empty_share > 0.5 && entry(&r, ep, PT_DIAG_READ)->bottleneck ==
						    PT_CAUSE_PCIE_TAGS &&
		    !(t->hi_ns <= 1.5 * t->lo_ns))
			fail_msg("%s at %u ns, ep%u: the tags limit but [%.1f, %.1f] is loose",
				 preset, ns, ep, t->lo_ns, t->hi_ns);
	}
	run_close(&r);
	unlink(path);
}

static void test_latency(void **state)
{
	static const char *const presets[] = {
		"",	    "tx-64B", "tx-1500B",	  "tx-4K",	     "mixed",
		"tags-starved", "completion-space-starved", "slow-dma-consumer", "two-endpoints",
	};
	static const unsigned ns[] = { 500, 1000, 2000, 5000 };

	(void)state;
	for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
		for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
			check_latency(presets[i], ns[j]);
}

/* Where the tags limit the bounds are tight, whatever the latency. */
static void test_latency_tight(void **state)
{
	static const char *const presets[] = { "tags-starved", "tx-64B" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char path[64], device[80];
		struct run r;

		latency_scenario(path, sizeof path, presets[i], 2000);
		snprintf(device, sizeof device, "sim:%s", path);
		run_open(&r, device, RUN_SECONDS);
		assert_true(r.dg->latency[0].empty_share > 0.5);
		assert_true(r.dg->latency[0].hi_ns <= 1.5 * r.dg->latency[0].lo_ns);
		run_close(&r);
		unlink(path);
	}
}

/* ---- corrected throughput ---------------------------------------------------------- */

static uint64_t truth_bytes(const struct pte_truth *t, unsigned b)
{
	if (b < 2)
		return t->pcie[b].bytes;
	return b % 2 == 0 ? t->up[(b - 2) / 2].bytes : t->down[(b - 3) / 2].bytes;
}

static void test_corrected(void **state)
{
	static const char *const files[] = { "narrow-down", "narrow-up", "narrow-rc", "narrow-rq" };

	(void)state;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char device[600];
		struct run r;
		unsigned checked = 0;

		snprintf(device, sizeof device, "sim:%s/diagnose/%s.ini", PT_TEST_DATA, files[i]);
		run_open(&r, device, RUN_SECONDS);
		for (unsigned k = 0; k < r.dg->ncorr; k++) {
			const struct pt_corr_bus *c = &r.dg->corr[k];
			struct pte_truth t;
			double want;

			assert_int_equal(pt_bus_sim_truth(r.bus, c->ep, true, &t), 0);
			want = (double)truth_bytes(&t, c->bus);
			if (want < 1e6)
				continue; /* a bus without traffic */
			if (fabs(c->bytes - want) > 0.005 * want)
				fail_msg("%s bus %u: %.0f bytes corrected, %.0f moved", files[i], c->bus,
					 c->bytes, want);
			/* the plain count over-states it */
			assert_true(c->overstated_pct > 10);
			checked++;
		}
		assert_true(checked >= 1);
		run_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),	      cmocka_unit_test(test_scenario_files),
		cmocka_unit_test(test_latency),	      cmocka_unit_test(test_latency_tight),
		cmocka_unit_test(test_corrected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
