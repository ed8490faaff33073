/*
 * The rooms of the simulated card (src/env): the queues and the heap of
 * read groups, out-of-memory paths through a failing allocation hook (a
 * card that fails once keeps failing, and frees cleanly), the MI access
 * results, and the progress callback of long runs, which changes not a
 * single number.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "env/card_priv.h"

/* ---- queues ------------------------------------------------------------- */

static void test_reqq(void **state)
{
	(void)state;
	struct reqq q;
	assert_int_equal(pte_reqq_init(&q, 2), 0);
	/* requests that continue the tail join it */
	assert_int_equal(pte_reqq_push(&q, 0, 0, 64, 64, 0x1000, 3), 0);
	assert_int_equal(pte_reqq_push(&q, 0, 0, 64, 64, 0x1000 + 3 * 64, 2), 0);
	assert_int_equal(q.n, 1);
	assert_int_equal(pte_reqq_head(&q)->count, 5);
	/* others take a run each, until the queue is full */
	assert_int_equal(pte_reqq_push(&q, 1, 0, 100, 128, 0x9000, 1), 0);
	assert_int_equal(pte_reqq_push(&q, 1, 0, 200, 256, 0xA000, 1), -ENOSPC);
	assert_int_equal(q.reqs, 6);
	assert_int_equal(q.bytes, 100);
	pte_reqq_pop(&q);
	assert_int_equal(pte_reqq_head(&q)->size, 100);
	pte_reqq_fini(&q);
}

static void test_fq_grows_in_order(void **state)
{
	(void)state;
	struct fq q;
	assert_int_equal(pte_fq_init(&q, 4), 0);
	/* wrap the ring first, so that growing must copy both parts */
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(pte_fq_push(&q, 0, 100 + i, 1), 0);
	pte_fq_pop(&q);
	pte_fq_pop(&q);
	for (unsigned i = 0; i < 40; i++)
		assert_int_equal(pte_fq_push(&q, i % 2, 200 + i, i + 1), 0);
	/* equal completions of one port join the tail */
	assert_int_equal(pte_fq_push(&q, 1, 239, 5), 0);
	assert_int_equal(q.n, 41);
	assert_int_equal(pte_fq_head(&q)->bytes, 102);
	pte_fq_pop(&q);
	for (unsigned i = 0; i < 40; i++) {
		assert_int_equal(pte_fq_head(&q)->bytes, 200 + i);
		assert_int_equal(pte_fq_head(&q)->count, i + 1 + (i == 39 ? 5 : 0));
		pte_fq_pop(&q);
	}
	assert_int_equal(q.n, 0);
	pte_fq_fini(&q);
}

/* A queue that cannot grow says so and keeps what it holds. */
static void test_queues_out_of_memory(void **state)
{
	(void)state;
	struct fq f;
	struct evq v;
	assert_int_equal(pte_fq_init(&f, 2), 0);
	assert_int_equal(pte_evq_init(&v, 2), 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(pte_fq_push(&f, 0, 10 + i, 1), 0);
		assert_int_equal(pte_evq_push(&v, i, i, 0), 0);
	}
	pte_alloc_fail_after(0);
	assert_int_equal(pte_fq_push(&f, 0, 99, 1), -ENOMEM);
	assert_int_equal(pte_evq_push(&v, 5, 1, 1), -ENOMEM);
	pte_alloc_fail_after(-1);
	assert_int_equal(f.n, 2);
	assert_int_equal(pte_fq_head(&f)->bytes, 10);
	assert_int_equal(v.n, 2);
	assert_int_equal(pte_evq_head(&v)->t, 0);
	/* and grows when it can again */
	assert_int_equal(pte_fq_push(&f, 0, 99, 1), 0);
	assert_int_equal(f.n, 3);
	pte_fq_fini(&f);
	pte_evq_fini(&v);
}

static void test_ents(void **state)
{
	(void)state;
	struct ents s;
	static const int64_t t[] = { 50, 10, 40, 20, 30 };
	assert_int_equal(pte_ents_init(&s, 5), 0);
	for (unsigned i = 0; i < 5; i++) {
		int x = pte_ents_get(&s);
		assert_true(x >= 0);
		s.pool[x].t_arr = t[i];
		pte_ents_push(&s, (unsigned)x);
	}
	assert_int_equal(pte_ents_get(&s), -1); /* all in flight */
	for (int64_t want = 10; want <= 50; want += 10) {
		assert_int_equal(pte_ents_first(&s)->t_arr, want);
		pte_ents_put(&s, pte_ents_pop(&s));
	}
	assert_null(pte_ents_first(&s));
	pte_ents_fini(&s);
}

/* The word builder keeps an allocation failure for the end of the slice. */
static void test_builder_out_of_memory(void **state)
{
	(void)state;
	struct pte_mfb a;
	assert_int_equal(pte_mfb_init(&a, 2, 8, 64), 0);
	pte_mfb_begin(&a, 64);
	pte_alloc_fail_after(0);
	/* far more words than the slice holds: they are carried, in many
	 * patterns, until the carry buffer must grow */
	for (uint32_t items = 1; items < 200 && !a.err; items++)
		pte_mfb_frames(&a, items, 1 + items % 3);
	pte_alloc_fail_after(-1);
	assert_int_equal(a.err, -ENOMEM);
	pte_mfb_fini(&a);
}

/* ---- the card ------------------------------------------------------------ */

static uint32_t reg(struct pte_card *c, uint32_t addr)
{
	uint32_t v = 0xdeadbeef;
	assert_int_equal(pte_card_mi_read(c, addr, &v), 0);
	return v;
}

/* Every allocation of the open may fail: -ENOMEM, a message, nothing left. */
static void test_open_out_of_memory(void **state)
{
	(void)state;
	static const char *const specs[] = { "", "mixed", "two-endpoints" };
	for (unsigned s = 0; s < 3; s++) {
		for (long n = 0;; n++) {
			struct pte_card *c = (struct pte_card *)1;
			char msg[256] = "";
			pte_alloc_fail_after(n);
			int rc = pte_card_open(specs[s], &c, msg, sizeof(msg));
			pte_alloc_fail_after(-1);
			if (rc == 0) {
				assert_true(n > 10);
				pte_card_free(c);
				break;
			}
			assert_int_equal(rc, -ENOMEM);
			assert_null(c);
			assert_non_null(strstr(msg, "simulated card"));
		}
	}
}

/* A run that cannot allocate fails, and so does everything after it. */
static void test_run_out_of_memory(void **state)
{
	(void)state;
	struct pte_card *c;
	char msg[256];
	uint32_t v = 7;
	/* rx-line-rate carries 4 KiB frames past its slices and grows a
	 * buffer for them within its first milliseconds */
	assert_int_equal(pte_card_open("rx-line-rate", &c, msg, sizeof(msg)), 0);
	unsigned long before = pte_alloc_count();
	pte_alloc_fail_after(0);
	int rc = pte_card_run(c, 0.002);
	pte_alloc_fail_after(-1);
	assert_int_equal(pte_alloc_count(), before);
	assert_int_equal(rc, -ENOMEM);
	assert_int_equal(pte_card_run(c, 0.001), -ENOMEM);
	assert_int_equal(pte_card_mi_read(c, 0x24, &v), -ENOMEM);
	assert_int_equal(v, 7); /* nothing written */
	assert_int_equal(pte_card_mi_write(c, 0x20, 1), -ENOMEM);
	uint32_t buf[4];
	assert_int_equal(pte_card_mi_read_block(c, 0x8000, buf, 4), -ENOMEM);
	pte_card_free(c);
}

static void test_mi_access(void **state)
{
	(void)state;
	struct pte_card *c;
	char msg[256];
	assert_int_equal(pte_card_open("idle", &c, msg, sizeof(msg)), 0);
	/* CFG words and the counter window through the card */
	uint32_t magic = reg(c, 0x00), blk[2] = { 0, 0 };
	assert_int_equal(pte_card_mi_read_block(c, 0x00, blk, 2), 0);
	assert_int_equal(blk[0], magic);
	assert_int_equal(blk[1], reg(c, 0x04));
	assert_int_equal(pte_card_mi_write(c, 0x20, 4), 0);
	assert_int_equal(pte_card_run(c, -1.0), -EINVAL);
	pte_card_free(c);
}

/* ---- progress and determinism ---------------------------------------------- */

struct seen {
	unsigned calls;
	double last, total;
	int backwards;
};

static void on_progress(void *arg, double done, double total)
{
	struct seen *s = arg;
	if (done < s->last)
		s->backwards = 1;
	s->calls++;
	s->last = done;
	s->total = total;
}

/* Truth and counters of a run of `sec` simulated seconds in `parts`
 * calls, with or without a progress callback. */
static void fingerprint(const char *spec, double sec, unsigned parts, struct seen *s,
			double min_wall, struct pte_truth *t, uint32_t *cnt, size_t n)
{
	struct pte_card *c;
	char msg[256];
	assert_int_equal(pte_card_open(spec, &c, msg, sizeof(msg)), 0);
	if (s)
		pte_card_set_progress(c, on_progress, s, min_wall);
	for (unsigned i = 0; i < parts; i++)
		assert_int_equal(pte_card_run(c, sec / parts), 0);
	assert_int_equal(pte_card_truth(c, 0, t), 0);
	assert_int_equal(pte_card_mi_write(c, 0x20, 1), 0);
	while (reg(c, 0x24) & 1)
		;
	assert_int_equal(pte_card_mi_read_block(c, 0x8000, cnt, n), 0);
	pte_card_free(c);
}

static void test_progress(void **state)
{
	(void)state;
	struct seen s = { 0 }, never = { 0 };
	struct pte_truth t0, t1, t2;
	static uint32_t c0[512], c1[512], c2[512];

	fingerprint("mixed", 0.004, 1, NULL, 0, &t0, c0, 512);
	/* every run counts as long: called, never backwards, last at the end */
	fingerprint("mixed", 0.004, 1, &s, 0.0, &t1, c1, 512);
	assert_true(s.calls >= 2);
	assert_false(s.backwards);
	assert_true(s.total > 0.0039 && s.total < 0.0041);
	assert_true(s.last == s.total);
	/* no run is that long */
	fingerprint("mixed", 0.004, 1, &never, 1e9, &t2, c2, 512);
	assert_int_equal(never.calls, 0);
	/* the same numbers, whatever was shown */
	assert_memory_equal(&t0, &t1, offsetof(struct pte_truth, read_latency_sum_ns));
	assert_memory_equal(&t0, &t2, offsetof(struct pte_truth, read_latency_sum_ns));
	assert_memory_equal(c0, c1, sizeof(c0));
	assert_memory_equal(c0, c2, sizeof(c0));
}

/* A card run with n0 endpoint threads, n1 in the middle, n0 again, with
 * MI accesses in between: every endpoint's truth and the counters. */
static void threads_run(const char *spec, unsigned n0, unsigned n1, struct pte_truth *t,
			uint32_t *cnt, unsigned ncnt)
{
	struct pte_card *c;
	char msg[256];

	assert_int_equal(pte_card_open(spec, &c, msg, sizeof(msg)), 0);
	assert_int_equal(pte_card_set_thread_count(c, n0), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pte_card_run(c, 0.001), 0);
		(void)reg(c, 0x24);
	}
	assert_int_equal(pte_card_set_thread_count(c, n1), 0);
	assert_int_equal(pte_card_run(c, 0.0005), 0);
	assert_int_equal(pte_card_set_thread_count(c, n0), 0);
	assert_int_equal(pte_card_run(c, 0.001), 0);
	struct pte_card_info ci;
	pte_card_info(c, &ci);
	for (unsigned e = 0; e < ci.g.pcie_endpoints; e++)
		assert_int_equal(pte_card_truth(c, e, &t[e]), 0);
	assert_int_equal(pte_card_mi_write(c, 0x20, 1), 0);
	while (reg(c, 0x24) & 1)
		;
	assert_int_equal(pte_card_mi_read_block(c, 0x8000, cnt, ncnt), 0);
	pte_card_free(c);
}

/* Endpoints on threads: the same truth and counters as without, whatever
 * the threads did meanwhile, for every number of threads up to one per
 * endpoint (a thread running several endpoints, their words built with
 * the model; each with its own, their words built there) and changes of
 * it in the middle of a run. */
static void threads_same_numbers(const char *spec, unsigned neps)
{
	static uint32_t ref_cnt[2048], cnt[2048];
	static struct pte_truth ref[4], t[4];

	memset(ref, 0, sizeof(ref));
	threads_run(spec, 0, 0, ref, ref_cnt, 2048);
	for (unsigned n0 = 1; n0 <= neps + 1; n0++) {
		unsigned n1 = n0 == 1 ? neps : n0 - 1;
		memset(t, 0, sizeof(t));
		threads_run(spec, n0, n1, t, cnt, 2048);
		for (unsigned e = 0; e < neps; e++)
			assert_memory_equal(&ref[e], &t[e], sizeof(t[e]));
		assert_memory_equal(ref_cnt, cnt, sizeof(cnt));
	}
}

static void test_threads_same_numbers(void **state)
{
	(void)state;
	char path[] = "/tmp/test_env_card_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char three[] = "[card]\nname = three\n[generics]\nPCIE_ENDPOINTS = 3\n"
				    "[endpoint]\nlink_width = 8\n[dma]\nread_gbps = 20\n"
				    "write_gbps = 20\nread_size = 1500\nwrite_size = 64:1,1500:1\n";
	assert_true(write(fd, three, sizeof(three) - 1) == (ssize_t)(sizeof(three) - 1));
	close(fd);
	threads_same_numbers("two-endpoints", 2);
	threads_same_numbers("mixed", 1);
	threads_same_numbers(path, 3);
	unlink(path);
}

/* The automatic choice: threads on by default where the process may use
 * more than one CPU, and never more than one per endpoint. */
static void test_threads_auto(void **state)
{
	(void)state;
	struct pte_card *c;
	char msg[256];

	assert_int_equal(pte_card_open("two-endpoints", &c, msg, sizeof(msg)), 0);
	unsigned cpus = pte_engine_cpus(), want = cpus > 2 ? 2 : (cpus > 1 ? 1 : 0);
	assert_int_equal(c->w.n, want);
	assert_int_equal(c->words_on_ep, want == 2);
	assert_int_equal(pte_card_set_thread_count(c, 9), 0);
	assert_int_equal(c->w.n, 2);
	assert_int_equal(c->words_on_ep, 1);
	assert_int_equal(pte_card_set_thread_count(c, 1), 0);
	assert_int_equal(c->w.n, 1);
	assert_int_equal(c->words_on_ep, 0);
	assert_int_equal(pte_card_set_threads(c, 0), 0);
	assert_int_equal(c->w.n, 0);
	assert_int_equal(pte_card_set_threads(c, 1), 0);
	assert_int_equal(c->w.n, pte_engine_auto_threads(c));
	pte_card_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reqq),
		cmocka_unit_test(test_fq_grows_in_order),
		cmocka_unit_test(test_queues_out_of_memory),
		cmocka_unit_test(test_ents),
		cmocka_unit_test(test_builder_out_of_memory),
		cmocka_unit_test(test_open_out_of_memory),
		cmocka_unit_test(test_run_out_of_memory),
		cmocka_unit_test(test_mi_access),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_threads_same_numbers),
		cmocka_unit_test(test_threads_auto),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
