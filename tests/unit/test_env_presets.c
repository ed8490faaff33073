/*
 * Every preset of the simulated card, measured through the firmware
 * model's registers the way the tool reads them (COMMAND snapshot, STATUS
 * busy, the counter window), over a short simulated interval.
 *
 * The figure each preset is about is compared with what its configuration
 * implies, computed here from the negotiated parameters (link generation
 * and width, MPS, MRRS, tags, host latency, bus widths), not taken from
 * the simulation.  Wherever the firmware and the card's ground truth count
 * the same thing, they must agree (within the few drain periods by which
 * the counters lag).  No preset may lose deltas.
 */
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

#include "pcie_telemetry/env.h"

#include "env_meas.h"

#define INTERVAL 0.002 /* simulated seconds per measurement */

static void measure(const char *spec, struct meas *m)
{
	measure_for(spec, INTERVAL, m);
}

/* ---- what a configuration implies ---------------------------------------- */

/* TLP bytes per second of the link in one direction after 128b/130b (or
 * 8b/10b) and the documented DLLP share of 3 %. */
static double link_Bps(const struct pte_ep_info *i)
{
	static const double gt[] = { 0, 2.5, 5, 8, 16, 32 };
	double enc = i->link_gen >= 3 ? 128.0 / 130.0 : 0.8;
	return gt[i->link_gen] * 1e9 * i->link_width * enc / 8.0 * 0.97;
}

/* Completion sizes of one read of `size` bytes at an address aligned to
 * `align` (the preset's alignment, always a multiple of the completion
 * size here), split at MRRS and then at the host's completion size. */
static unsigned completions(const struct pte_ep_info *i, unsigned size, unsigned *cpl)
{
	unsigned n = 0;
	for (unsigned off = 0; off < size;) {
		unsigned tlp = size - off < i->mrrs ? size - off : i->mrrs;
		for (unsigned o = 0; o < tlp;) {
			unsigned c = tlp - o < i->host_cpl_bytes ? tlp - o : i->host_cpl_bytes;
			cpl[n++] = c;
			o += c;
		}
		off += tlp;
	}
	return n;
}

static unsigned cdiv(unsigned a, unsigned b)
{
	return (a + b - 1) / b;
}

/* Read payload bytes per second that the configuration allows for reads of
 * one size issued as fast as possible on one port: the smallest of the
 * link, the tags, the RC bus, the DOWN bus and the UP MVB limits. */
static double read_limit(const struct meas *m, const struct pte_ep_info *i, unsigned size,
			 double f_pcie, double f_dma, double *tag_limit)
{
	const struct ptm_generics *g = m->g;
	unsigned cpl[256];
	unsigned n = completions(i, size, cpl);
	unsigned tlps = cdiv(size, i->mrrs);
	double link_bytes = 0, rc_regions = 0, dn_regions = 0;
	for (unsigned k = 0; k < n; k++) {
		link_bytes += cpl[k] + i->rc_header_bytes + i->tlp_framing_bytes;
		rc_regions += cdiv(cpl[k] + i->rc_header_bytes, g->pcie_rc_mfb_region_bytes);
		dn_regions += cdiv(cpl[k], g->dma_down_mfb_region_bytes);
	}
	double lim_link = link_Bps(i) * size / link_bytes;
	double lim_rc = f_pcie * g->pcie_rc_mfb_regions / rc_regions * size;
	double lim_dn = f_dma * g->dma_down_mfb_regions / dn_regions * size;
	double lim_up = f_dma * g->dma_up_mfb_regions * size;
	double lim_tag = i->tags * ((double)size / tlps) / (i->host_latency_ns * 1e-9);
	double lim = lim_link;
	if (lim_rc < lim)
		lim = lim_rc;
	if (lim_dn < lim)
		lim = lim_dn;
	if (lim_up < lim)
		lim = lim_up;
	if (lim_tag < lim)
		lim = lim_tag;
	if (tag_limit)
		*tag_limit = lim_tag;
	return lim;
}

static void info(const struct meas *m, struct pte_ep_info *i, double *fp, double *fd)
{
	struct pte_card_info ci;
	pte_card_info(m->c, &ci);
	assert_int_equal(pte_card_ep_info(m->c, 0, i), 0);
	*fp = ci.pcie_hz;
	*fd = ci.dma_hz;
}

static void expect_near(double got, double want, double lo, double hi, const char *what)
{
	if (!(got >= want * lo && got <= want * hi))
		fail_msg("%s: measured %.4g, expected %.4g (allowed %.2f..%.2f of it)", what, got, want,
			 lo, hi);
}

/* ---- the presets ------------------------------------------------------------ */

static void test_idle(void **state)
{
	(void)state;
	struct meas m;
	measure("idle", &m);
	check_truth(&m);
	assert_true((double)pc(&m, 0, 0) > 0.9 * 400e6 * INTERVAL);
	for (unsigned b = 0; b < 2; b++)
		assert_int_equal(pbus(&m, 0, b, WORDS), 0);
	assert_int_equal(dbus(&m, 0, 0, WORDS) + dbus(&m, 0, 1, WORDS) + dbus(&m, 0, 0, MVB), 0);
	assert_true(reg(m.c, 0x40) & (1u << 9)); /* link up */
	done(&m);
}

static void test_rx_line_rate(void **state)
{
	(void)state;
	struct meas m;
	struct pte_ep_info i;
	double fp, fd;
	measure("rx-line-rate", &m);
	check_truth(&m);
	info(&m, &i, &fp, &fd);
	/* each TLP carries MPS bytes and costs header + framing on the link */
	double want = link_Bps(&i) * i.mps / (i.mps + i.rq_header_bytes + i.tlp_framing_bytes);
	expect_near(up_Bps(&m, 0), want, 0.97, 1.02, "rx-line-rate write throughput");
	/* the link, not the PTC, is the limit: the endpoint stalls RQ */
	assert_true(share(pbus(&m, 0, 0, STALL), pc(&m, 0, 0)) > 0.1);
	assert_int_equal(pbus(&m, 0, 1, WORDS), 0);
	done(&m);
}

static void check_tx(const char *preset, unsigned size)
{
	struct meas m;
	struct pte_ep_info i;
	double fp, fd;
	measure(preset, &m);
	check_truth(&m);
	info(&m, &i, &fp, &fd);
	double want = read_limit(&m, &i, size, fp, fd, NULL);
	expect_near(down_Bps(&m, 0), want, 0.85, 1.02, preset);
	/* Little's law on the ground truth: tags in use = read rate x the
	 * time a tag is held, which is at least the host latency (completions
	 * may also wait for a busy RC bus) and at most all the tags */
	const struct pte_truth *x = &m.t0[0], *y = &m.t1[0];
	double cyc = (double)(y->pcie_cycles - x->pcie_cycles);
	double inuse = (y->tags_in_use_sum - x->tags_in_use_sum) / cyc;
	double rate = (double)(y->reads - x->reads) / m.sec;
	double lat = (y->read_latency_sum_ns - x->read_latency_sum_ns) * 1e-9 / (double)(y->reads - x->reads);
	expect_near(lat * 1e9, i.host_latency_ns, 0.97, 1.03, "mean host latency");
	assert_true(inuse >= 0.95 * rate * lat);
	assert_true(inuse <= (double)i.tags);
	/* reads only: every UP request is a read (MVB items, no MFB frames) */
	assert_true(dbus(&m, 0, 0, MVB) > 0);
	assert_int_equal(dbus(&m, 0, 0, SOF), 0);
	done(&m);
}

static void test_tx_64(void **state)
{
	(void)state;
	check_tx("tx-64B", 64);
}

static void test_tx_1500(void **state)
{
	(void)state;
	check_tx("tx-1500B", 1500);
}

static void test_tx_4k(void **state)
{
	(void)state;
	check_tx("tx-4K", 4096);
}

static void test_mixed(void **state)
{
	(void)state;
	struct meas m;
	measure("mixed", &m);
	check_truth(&m);
	assert_int_equal(m.g->dma_ports, 2);
	for (unsigned p = 0; p < 2; p++) {
		uint64_t reqs = dbus(&m, 0, 2 * p, MVB), writes = dbus(&m, 0, 2 * p, SOF);
		assert_true(writes > 0);
		assert_true(reqs > writes); /* reads have no MFB frame */
		assert_true(dbus(&m, 0, 2 * p + 1, WORDS) > 0);
	}
	/* 35 + 35 Gbit/s of payload offered per port, 2 ports */
	expect_near(up_Bps(&m, 0) * 8, 70e9, 0.9, 1.1, "mixed write Gbit/s");
	expect_near(down_Bps(&m, 0) * 8, 70e9, 0.9, 1.1, "mixed read Gbit/s");
	done(&m);
}

static void test_tags_starved(void **state)
{
	(void)state;
	struct meas m;
	struct pte_ep_info i;
	double fp, fd, lim_tag;
	measure("tags-starved", &m);
	check_truth(&m);
	info(&m, &i, &fp, &fd);
	assert_int_equal(i.tags, 32); /* no extended tags: 5-bit tags */
	double want = read_limit(&m, &i, 4096, fp, fd, &lim_tag);
	assert_true(lim_tag <= want * 1.0001); /* the tags are the limit */
	expect_near(down_Bps(&m, 0), lim_tag, 0.85, 1.02, "tags-starved read throughput");
	uint64_t cyc = pc(&m, 0, 0);
	assert_true(share(brake(&m, 0, 0), cyc) > 0.5);  /* no free PCIe tag */
	assert_true(share(brake(&m, 0, 6), cyc) > 0.5);  /* lowest tag band */
	assert_true((reg(m.c, 0x80) >> 16) == 0); /* lowest free tags */
	done(&m);
}

static void test_completion_space(void **state)
{
	(void)state;
	struct meas m;
	struct pte_ep_info i;
	double fp, fd;
	measure("completion-space-starved", &m);
	check_truth(&m);
	info(&m, &i, &fp, &fd);
	uint64_t cyc = pc(&m, 0, 0);
	assert_true(share(brake(&m, 0, 2), cyc) > 0.5); /* no room for completions */
	assert_true(share(brake(&m, 0, 0), cyc) < 0.01);
	/* reads in flight are bounded by the reserved words: each 512-byte
	 * read reserves its completions' words */
	unsigned cpl[64], n = completions(&i, i.mrrs, cpl), words = 0;
	for (unsigned k = 0; k < n; k++)
		words += cdiv(cpl[k], i.stfifo_word_bytes);
	double inflight = (double)(i.stfifo_words / words);
	double want = inflight * i.mrrs / (i.host_latency_ns * 1e-9);
	expect_near(down_Bps(&m, 0), want, 0.8, 1.02, "completion-space-starved read throughput");
	done(&m);
}

static void test_slow_dma(void **state)
{
	(void)state;
	struct meas m;
	measure("slow-dma-consumer", &m);
	check_truth(&m);
	uint64_t dcyc = dc(&m, 0, 0), cyc = pc(&m, 0, 0);
	/* the DMA takes DOWN words in 30 % of its cycles */
	expect_near(share(dbus(&m, 0, 1, WORDS), dcyc), 0.30, 0.9, 1.05, "DOWN words share");
	assert_true(share(dbus(&m, 0, 1, STALL), dcyc) > 0.5);
	assert_true(share(brake(&m, 0, 4) + brake(&m, 0, 5), cyc) > 0.2); /* DOWN stream */
	assert_true(share(brake(&m, 0, 2), cyc) > 0.2); /* and so no room for completions */
	/*
	 * Both DOWN reasons against the DOWN stalls.  The PTC pushes into the
	 * port's FIFOs only what the DMA takes out (the FIFOs are full), one
	 * RC word per PCIe cycle, so it is held (bit 4, bit 5 or both) in the
	 * other PCIe cycles: 1 - DOWN words x DOWN word / RC word / PCIe
	 * cycles.  The sum of the two reasons is at least their union; the
	 * two rarely coincide (the FIFO that fills first holds the stream).
	 * Tolerance 0.8 to 1.1 of that: the storage FIFO runs empty now and
	 * then, and a hold lasts to the end of a slice.
	 */
	double dn_word = m.g->dma_down_mfb_regions * (double)m.g->dma_down_mfb_region_bytes;
	double rc_word = m.g->pcie_rc_mfb_regions * (double)m.g->pcie_rc_mfb_region_bytes;
	double held = 1.0 - share(dbus(&m, 0, 1, WORDS), cyc) * dn_word / rc_word;
	double b4 = share(brake(&m, 0, 4), cyc), b5 = share(brake(&m, 0, 5), cyc);
	expect_near(b4 + b5, held, 0.8, 1.1, "DOWN reasons (bit 4 + bit 5) against the hold share");
	assert_true(b4 < held * 1.1 && b5 < held * 1.1);
	/* The DMA holds the DOWN MVB in most of its cycles (headers go with
	 * their data): the header FIFO fills and the MVB before the split is
	 * held for at least half of that share.  1500-byte reads fill the data
	 * FIFO first now and then: "MFB stalled towards DMA" shows too. */
	double mvb_stall = share(dbus(&m, 0, 1, MVBSTALL), dcyc);
	assert_true(mvb_stall > 0.8);
	if (b5 < 0.5 * mvb_stall)
		fail_msg("MVB stalled towards DMA %.3f, DOWN MVB stall %.3f", b5, mvb_stall);
	assert_true(b4 > 0.02);
	done(&m);
}

/* Each DOWN reason needs its own full FIFO: headers that the DMA takes
 * slowly (small reads, 20 % header readiness) fill only the header FIFO;
 * data that it takes slowly with a header FIFO twice as deep as the data
 * needs fill only the data FIFO. */
static void test_down_reasons_apart(void **state)
{
	(void)state;
	static const char *texts[] = {
		"[card]\nbase = tx-64B\n[dma]\nread_size = 32\ndown_hdr_ready_pct = 20\n",
		"[card]\nbase = slow-dma-consumer\n[dma]\nread_size = 4096\n"
		"[endpoint]\ndown_fifo_headers = 64\n",
	};
	static const unsigned on[] = { 5, 4 }, off[] = { 4, 5 };
	char path[] = "/tmp/pt_env_downXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(texts[i], f);
		fclose(f);
		struct meas m;
		measure(path, &m);
		check_truth(&m);
		uint64_t cyc = pc(&m, 0, 0);
		if (share(brake(&m, 0, on[i]), cyc) < 0.5)
			fail_msg("%s: BRAKE %u only %.3f", texts[i], on[i],
				 share(brake(&m, 0, on[i]), cyc));
		if (brake(&m, 0, off[i]) != 0)
			fail_msg("%s: BRAKE %u %.3f without its cause", texts[i], off[i],
				 share(brake(&m, 0, off[i]), cyc));
		done(&m);
	}
	unlink(path);
}

static void test_link_down(void **state)
{
	(void)state;
	struct meas m;
	measure("link-down", &m);
	check_truth(&m);
	assert_int_equal(reg(m.c, 0x40) & (1u << 9), 0);
	for (unsigned b = 0; b < 2; b++)
		assert_int_equal(pbus(&m, 0, b, WORDS) + pbus(&m, 0, b, STALL), 0);
	assert_int_equal(dbus(&m, 0, 0, WORDS) + dbus(&m, 0, 1, WORDS) + dbus(&m, 0, 0, MVB), 0);
	assert_true(pc(&m, 0, 0) > 0);
	done(&m);
}

static void test_two_endpoints(void **state)
{
	(void)state;
	struct meas m;
	measure("two-endpoints", &m);
	check_truth(&m);
	assert_int_equal(m.g->pcie_endpoints, 2);
	static const double rd[2] = { 40e9, 20e9 }, wr[2] = { 30e9, 50e9 };
	for (unsigned e = 0; e < 2; e++) {
		assert_true(pbus(&m, e, 0, WORDS) > 0);
		assert_true(pbus(&m, e, 1, WORDS) > 0);
		/* the payload each endpoint's DMA port offers */
		expect_near(down_Bps(&m, e) * 8, rd[e], 0.9, 1.1, "two-endpoints reads");
		expect_near(up_Bps(&m, e) * 8, wr[e], 0.9, 1.1, "two-endpoints writes");
		assert_true(reg(m.c, 0x40 + 4 * e) & (1u << 9));
	}
	done(&m);
}

static void test_default(void **state)
{
	(void)state;
	struct meas m;
	measure(NULL, &m);
	check_truth(&m);
	assert_true(down_Bps(&m, 0) > 1e9);
	assert_true(up_Bps(&m, 0) > 1e9);
	done(&m);
}

/* Other generic sets: the card follows the bus widths, item size, drain
 * period and capacities it is given, and the counters still agree with the
 * ground truth. */
static void test_generics(void **state)
{
	(void)state;
	static const char *texts[] = {
		"[card]\nbase = mixed\n[generics]\nPCIE_RQ_MFB_REGIONS = 4\nPCIE_RC_MFB_REGIONS = 4\n"
		"DMA_UP_MFB_REGIONS = 4\nDMA_DOWN_MFB_REGIONS = 4\nMFB_ITEM_BYTES = 8\n"
		"PCIE_EOF_POS_WIDTH = 2\nDMA_EOF_POS_WIDTH = 2\n",
		"[card]\nbase = tags-starved\n[generics]\nPCIE_RQ_MFB_REGION_BYTES = 64\n"
		"PCIE_RC_MFB_REGION_BYTES = 64\nPCIE_EOF_POS_WIDTH = 4\nDMA_UP_MFB_REGION_BYTES = 16\n"
		"DMA_DOWN_MFB_REGION_BYTES = 16\nDMA_EOF_POS_WIDTH = 2\n",
		"[card]\nbase = slow-dma-consumer\n[generics]\nPCIE_ENDPOINTS = 3\nDMA_PORTS = 3\n"
		"DRAIN_PERIOD = 2048\nCNT_WIDTH = 33\n",
		"[card]\nbase = tx-1500B\n[generics]\nTAG_CAPACITY = 16\nSTFIFO_CAPACITY = 32\n"
		"[endpoint]\ncpl_headers = 24\nrcb = 128\nhost_cpl_bytes = 128\n",
		"[card]\nbase = tx-1500B\n[generics]\nTAG_CAPACITY = 16\n"
		"[endpoint]\ncpl_headers = 24\nrcb = 128\nhost_cpl_bytes = 128\n",
		"[card]\nbase = tx-64B\n[dma]\nread_size = 32\ndown_hdr_ready_pct = 20\n",
	};
	/* the BRAKE reason each set must show most of the time (-1: none) */
	static const int reason[] = { -1, 0, -1, 2, 3, 5 };
	char path[] = "/tmp/pt_env_genXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(texts[i], f);
		fclose(f);
		struct meas m;
		measure(path, &m);
		check_truth(&m);
		for (unsigned e = 0; e < m.g->pcie_endpoints; e++)
			assert_true(pbus(&m, e, 1, WORDS) + pbus(&m, e, 0, WORDS) > 0);
		/* the scarcest resource is the reason: 32 tags with a 2 us
		 * latency; a 32-word storage FIFO; 24 completion header entries;
		 * a DMA that takes headers in a fifth of its cycles */
		if (reason[i] >= 0)
			assert_true(share(brake(&m, 0, (unsigned)reason[i]), pc(&m, 0, 0)) > 0.5);
		done(&m);
	}
	unlink(path);
}

/* Every BRAKE reason needs its cause: without it the counter stays 0. */
static void test_reasons_need_cause(void **state)
{
	(void)state;
	struct meas m;
	char path[] = "/tmp/pt_env_rsnXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	/* a released tag is readable at once: never "PCIe tag not ready" */
	const char *t = "[card]\nbase = tags-starved\n[endpoint]\ntag_ready_delay = 0\n";
	assert_true(write(fd, t, strlen(t)) == (ssize_t)strlen(t));
	close(fd);
	measure(path, &m);
	check_truth(&m);
	assert_int_equal(brake(&m, 0, 1), 0);
	assert_true(share(brake(&m, 0, 0), pc(&m, 0, 0)) > 0.5);
	done(&m);
	unlink(path);
	/* the same preset with the delay: the reason appears */
	measure("tags-starved", &m);
	assert_true(brake(&m, 0, 1) > 0);
	/* nothing stops the DOWN stream, and header credits are not counted */
	assert_int_equal(brake(&m, 0, 3) + brake(&m, 0, 4) + brake(&m, 0, 5), 0);
	done(&m);
	/* writes only: no read ever waits for a tag, room or a credit */
	measure("rx-line-rate", &m);
	for (unsigned k = 0; k < 6; k++)
		assert_int_equal(brake(&m, 0, k), 0);
	done(&m);
	measure("idle", &m);
	for (unsigned k = 0; k < 6; k++)
		assert_int_equal(brake(&m, 0, k), 0);
	/* an idle card has all its tags and all its storage FIFO words */
	assert_int_equal(reg(m.c, 0x80), (256u << 16) | 256u);
	assert_int_equal(reg(m.c, 0xC0), (1024u << 16) | 1024u);
	done(&m);
}

static void test_deterministic(void **state)
{
	(void)state;
	struct meas a, b;
	measure("mixed", &a);
	measure("mixed", &b);
	assert_memory_equal(a.b, b.b, a.entries * sizeof(uint64_t));
	done(&a);
	done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_rx_line_rate),
		cmocka_unit_test(test_tx_64),
		cmocka_unit_test(test_tx_1500),
		cmocka_unit_test(test_tx_4k),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_tags_starved),
		cmocka_unit_test(test_completion_space),
		cmocka_unit_test(test_slow_dma),
		cmocka_unit_test(test_down_reasons_apart),
		cmocka_unit_test(test_link_down),
		cmocka_unit_test(test_two_endpoints),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_generics),
		cmocka_unit_test(test_reasons_need_cause),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
