/*
 * The simulated card through libnfb-ext-pcie-telemetry.so and its daemon
 * (ptsimd), loaded as libnfb loads it (nfbext_harness.h):
 *   - two processes on one device: a clear in one restarts the counters
 *     the other reads, and the card's PCIe cycle counter follows
 *     CLOCK_MONOTONIC between the two processes' reads (the daemon's
 *     reported lag allowed for);
 *   - a daemon killed (SIGKILL) or stopped (SIGSTOP) while a client is
 *     connected, a daemon that cannot be started, a bad preset or
 *     scenario file, a runtime folder open to others: an error with
 *     errno and one line, never a hang (alarm) or a signal;
 *   - garbage on the socket is dropped and the card serves on;
 *   - the card ends after its idle time; nothing is left in the host.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <math.h>

#include <cmocka.h>

#include "nfbext/proto.h"
#include "nfbext_harness.h"

#define DAEMON PT_BIN_DIR "/ptsimd"
#define PCIE_HZ 400e6 /* the card's PCIe clock (scenario default) */

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pt-nfbext-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	setenv("PT_NFBEXT_DIR", dir, 1);
	setenv("PT_NFBEXT_DAEMON", DAEMON, 1);
	setenv("PT_NFBEXT_IDLE", "20", 1); /* a card a test forgets ends soon */
	unsetenv("PT_NFBEXT_TIMEOUT");
	unsetenv("PT_NFBEXT_MSGFD");
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "'%s' stop --all >/dev/null; rm -rf '%s'", DAEMON, dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* The daemon's lag (and pid), through its INFO request; -1 on failure
 * (no asserts: the second process calls it too). */
static double card_info(const char *key, int *pid)
{
	struct pt_ext_msg *m = malloc(sizeof(*m));
	const char *lag = NULL;
	char msg[512];
	int fd = -1;

	if (m && pt_ext_connect(key, 5, &fd, pid, msg, sizeof(msg)) == 0) {
		m->type = PT_EXT_INFO;
		m->seq = 7;
		m->len = 0;
		if (pt_ext_call(fd, m, 5, msg, sizeof(msg)) == 0 && m->len < 2048) {
			pt_ext_payload(m)[m->len] = '\0';
			lag = strstr((const char *)pt_ext_payload(m) + 4, "lag=");
		}
	}
	double v = lag ? strtod(lag + 4, NULL) : -1;
	if (fd >= 0)
		close(fd);
	free(m);
	return v;
}

/* SNAPSHOT, wait for it, and the PCIe cycles of endpoint 0; *t is the
 * wall time of the SNAPSHOT write.  0 or -1. */
static int snap_cycles(struct h_comp *c, uint64_t *cycles, double *t)
{
	uint32_t st = PT_STATUS_BUSY, base = 0, lo = 0, hi = 0;
	double t0 = h_now(), deadline = t0 + 5;

	if (h_wr32(c, PT_REG_COMMAND, PT_CMD_SNAPSHOT) < 0)
		return -1;
	*t = (t0 + h_now()) / 2;
	while (st & PT_STATUS_BUSY)
		if (h_rd32(c, PT_REG_STATUS, &st) < 0 || h_now() > deadline)
			return -1;
	if (h_rd32(c, PT_REG_CNT_BASE, &base) < 0 || h_rd32(c, base, &lo) < 0 ||
	    h_rd32(c, base + 4, &hi) < 0)
		return -1;
	*cycles = (uint64_t)hi << 32 | lo;
	return 0;
}

struct seen {
	double t_b, lag_b, spread_b, t_clear;
	uint64_t cyc_b;
};

/* The second process: its own load and open of the same device, a
 * reading one second after the first process's, then a clear.  Its exit
 * status: 0, or the step that failed. */
static int second_process(int out)
{
	struct h_dev d;
	struct h_comp c;
	struct seen s;
	double lag;
	int pid;

	memset(&d, 0, sizeof(d));
	d.dl = dlopen(PT_NFBEXT_SO, RTLD_NOW | RTLD_LOCAL);
	libnfb_ext_get_ops_t *get_ops;
	*(void **)&get_ops = d.dl ? dlsym(d.dl, LIBNFB_EXT_SYM_GET_OPS) : NULL;
	if (!get_ops || get_ops("sim:idle", &d.ops) <= 0)
		return 1;
	if (d.ops.open("sim:idle", 0, &d.priv, &d.fdt) != 0 || h_comp_open(&d, 0, &c) < 0)
		return 2;
	usleep(1000000);
	if ((s.lag_b = card_info("sim:idle", &pid)) < 0 || snap_cycles(&c, &s.cyc_b, &s.t_b) < 0 ||
	    (lag = card_info("sim:idle", &pid)) < 0)
		return 3;
	s.spread_b = fabs(lag - s.lag_b); /* how well the lag is known */
	s.lag_b = (s.lag_b + lag) / 2;      /* the lag at the SNAPSHOT */
	s.t_clear = h_now();
	if (h_wr32(&c, PT_REG_COMMAND, PT_CMD_CLEAR | PT_CMD_CLEAR_FLAGS | PT_CMD_CLEAR_MARKS) < 0)
		return 4;
	if (write(out, &s, sizeof(s)) != sizeof(s))
		return 5;
	h_comp_close(&d, &c);
	h_close(&d);
	return 0;
}

static void test_two_processes(void **state)
{
	struct h_dev d;
	struct h_comp c;
	struct seen s;
	double t_a, t_c, lag_a, spread_a, sim, wall;
	uint64_t cyc_a, cyc_c;
	int p[2], st, pid;
	pid_t child;

	(void)state;
	assert_int_equal(h_open(&d, "sim:idle"), 0);
	assert_int_equal(h_comp_open(&d, 0, &c), 0);
	{ /* the tree of a card: one component, its endpoints from CFG_TOPOLOGY */
		int len;
		const fdt32_t *eps = fdt_getprop(d.fdt, c.node, "pcie-endpoints", &len);
		uint32_t topo = 0;

		assert_int_equal(h_comp_open(&d, 1, &c) == 0, 0);
		assert_int_equal(h_comp_open(&d, 0, &c), 0);
		assert_non_null(eps);
		assert_int_equal(len, 4);
		assert_int_equal(h_rd32(&c, PT_REG_CFG_TOPOLOGY, &topo), 0);
		assert_int_equal(fdt32_to_cpu(*eps), pt_field_get(PT_FIELD_TOPO_ENDPOINTS, topo));
		assert_int_equal(fdt32_to_cpu(*eps), 1);
	}
	usleep(1200000); /* the card counts for a while before the clear */
	lag_a = card_info("sim:idle", &pid);
	assert_int_equal(snap_cycles(&c, &cyc_a, &t_a), 0);
	spread_a = card_info("sim:idle", &pid);
	assert_true(lag_a >= 0 && spread_a >= 0);
	lag_a = (lag_a + spread_a) / 2; /* the lag at the SNAPSHOT, */
	spread_a = fabs(spread_a - lag_a) * 2; /* and how well it is known */
	assert_int_equal(pipe(p), 0);
	child = fork();
	if (child == 0) {
		close(p[0]);
		_exit(second_process(p[1]));
	}
	close(p[1]);
	ssize_t got = read(p[0], &s, sizeof(s));
	close(p[0]);
	assert_int_equal(waitpid(child, &st, 0), child);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("the second process failed (status 0x%x)", st);
	assert_int_equal(got, sizeof(s));
	assert_int_equal(snap_cycles(&c, &cyc_c, &t_c), 0);
	/* the clear of the other process: the counters restarted */
	assert_true(cyc_c < s.cyc_b);
	assert_true((double)cyc_c / PCIE_HZ <= t_c - s.t_clear + 0.05);
	/* simulated time between the two processes' reads follows the wall
	 * clock, less what the card fell behind in between */
	sim = (double)(s.cyc_b - cyc_a) / PCIE_HZ;
	wall = s.t_b - t_a;
	printf("clock: %.4f simulated s over %.4f wall s, lag %.4f -> %.4f s (+-%.4f): ratio "
	       "%.4f (%.4f with the lag)\n",
	       sim, wall, lag_a, s.lag_b, spread_a + s.spread_b, sim / wall,
	       sim / (wall - (s.lag_b - lag_a)));
	if (s.lag_b > 4.5)
		printf("machine too slow to check the clock (lag %.1f s near the 5 s cap)\n", s.lag_b);
	else
		assert_true(fabs(sim - (wall - (s.lag_b - lag_a))) < 0.03 * wall + spread_a + s.spread_b);
	h_comp_close(&d, &c);
	h_close(&d);
}

/* The card's daemon killed while a client holds it: the next accesses
 * fail at once (no SIGPIPE: this process does not ignore it), with one
 * line; a new open starts a new card. */
static void test_killed_daemon(void **state)
{
	struct h_dev d;
	struct h_comp c;
	uint32_t v;
	int pid, pid2, fd = h_msgfd();
	char m[1024];
	double t0;

	(void)state;
	assert_int_equal(h_open(&d, "sim:idle"), 0);
	assert_int_equal(h_comp_open(&d, 0, &c), 0);
	assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), 0);
	assert_true(card_info("sim:idle", &pid) >= 0);
	assert_int_equal(kill(pid, SIGKILL), 0);
	usleep(100000);
	t0 = h_now();
	assert_int_equal(h_wr32(&c, PT_REG_COMMAND, PT_CMD_SNAPSHOT), -1);
	assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), -1);
	assert_int_equal(h_wr32(&c, PT_REG_COMMAND, PT_CMD_SNAPSHOT), -1);
	assert_true(h_now() - t0 < 1.0);
	h_msg(fd, m, sizeof(m));
	assert_non_null(strstr(m, "closed the connection"));
	assert_null(strchr(m, '\n'));
	h_comp_close(&d, &c);
	h_close(&d);
	/* the stale socket is replaced by a new card */
	assert_int_equal(h_open(&d, "sim:idle"), 0);
	assert_int_equal(h_comp_open(&d, 0, &c), 0);
	assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), 0);
	assert_int_equal(v, PT_MAGIC);
	assert_true(card_info("sim:idle", &pid2) >= 0);
	assert_int_not_equal(pid2, pid);
	h_comp_close(&d, &c);
	h_close(&d);
	close(fd);
	unsetenv("PT_NFBEXT_MSGFD");
}

/* A daemon that stops answering: an access fails after PT_NFBEXT_TIMEOUT. */
static void test_hung_daemon(void **state)
{
	struct h_dev d;
	struct h_comp c;
	uint32_t v;
	int pid, fd = h_msgfd();
	char m[1024];
	double t0, took;

	(void)state;
	setenv("PT_NFBEXT_TIMEOUT", "1", 1);
	assert_int_equal(h_open(&d, "sim:idle"), 0);
	assert_int_equal(h_comp_open(&d, 0, &c), 0);
	assert_true(card_info("sim:idle", &pid) >= 0);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	t0 = h_now();
	assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), -1);
	took = h_now() - t0;
	assert_int_equal(kill(pid, SIGCONT), 0);
	assert_true(took >= 0.9 && took < 3.0);
	h_msg(fd, m, sizeof(m));
	assert_non_null(strstr(m, "timed out"));
	assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), -1); /* the connection is dead */
	h_comp_close(&d, &c);
	h_close(&d);
	unsetenv("PT_NFBEXT_TIMEOUT");
	close(fd);
	unsetenv("PT_NFBEXT_MSGFD");
}

static void test_bad_devices(void **state)
{
	(void)state;
	h_open_fails("sim:no-such-preset", ENOENT, "no such preset or scenario file");
	h_open_fails("sim:/nonexistent/x.ini", ENOENT, "cannot open scenario file");
	h_open_fails("sim:" PT_TEST_DATA "/conformance/report/basic_t1.regs", EINVAL, "basic_t1.regs:");
	setenv("PT_NFBEXT_TIMEOUT", "soon", 1);
	h_open_fails("sim:idle", EINVAL, "PT_NFBEXT_TIMEOUT=soon");
	unsetenv("PT_NFBEXT_TIMEOUT");
}

/* No daemon to start: a missing binary, one that fails, one that starts
 * nothing. */
static void test_missing_daemon(void **state)
{
	(void)state;
	setenv("PT_NFBEXT_DAEMON", "/nonexistent/ptsimd", 1);
	h_open_fails("sim:idle", ENOENT, "cannot start the simulated card's daemon /nonexistent/ptsimd");
	setenv("PT_NFBEXT_DAEMON", "/bin/false", 1);
	h_open_fails("sim:idle", EHOSTDOWN, "exited with status 1");
	setenv("PT_NFBEXT_DAEMON", "/bin/true", 1);
	setenv("PT_NFBEXT_TIMEOUT", "0.2", 1);
	h_open_fails("sim:idle", ENOENT, "did not come up");
	unsetenv("PT_NFBEXT_TIMEOUT");
	setenv("PT_NFBEXT_DAEMON", DAEMON, 1);
}

/* A runtime folder that others may enter, or that is a link, is refused. */
static void test_folder_checks(void **state)
{
	char open_dir[96], link[96];

	(void)state;
	snprintf(open_dir, sizeof(open_dir), "%s/open", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(mkdir(open_dir, 0755), 0);
	assert_int_equal(chmod(open_dir, 0755), 0);
	assert_int_equal(symlink(dir, link), 0);
	setenv("PT_NFBEXT_DIR", open_dir, 1);
	h_open_fails("sim:idle", EACCES, "mode 0755");
	setenv("PT_NFBEXT_DIR", link, 1);
	h_open_fails("sim:idle", ENOTDIR, "not a folder");
	if (geteuid() == 0) { /* a folder of another user */
		assert_int_equal(chmod(open_dir, 0700), 0);
		assert_int_equal(chown(open_dir, 65534, 65534), 0);
		setenv("PT_NFBEXT_DIR", open_dir, 1);
		h_open_fails("sim:idle", EACCES, "belongs to uid 65534");
	}
	setenv("PT_NFBEXT_DIR", dir, 1);
}

/* Records that break the protocol: the daemon drops their sender and
 * serves everyone else on. */
static void test_garbage(void **state)
{
	struct h_dev d;
	struct h_comp c;
	struct sockaddr_un sa;
	uint32_t v;
	unsigned char junk[64] = "not a message";
	struct pt_ext_msg *m = malloc(sizeof(*m));
	char msg[512];

	(void)state;
	assert_non_null(m);
	assert_int_equal(h_open(&d, "sim:idle"), 0);
	assert_int_equal(h_comp_open(&d, 0, &c), 0);
	assert_int_equal(pt_ext_card_path(dir, "sim:idle", "sock", &sa, msg, sizeof(msg)), 0);
	for (int k = 0; k < 5; k++) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

		assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		if (k == 0) /* short, no header */
			assert_int_equal(send(fd, junk, 5, MSG_NOSIGNAL), 5);
		else if (k == 1) /* bad magic */
			assert_int_equal(send(fd, junk, sizeof(junk), MSG_NOSIGNAL), sizeof(junk));
		else {
			/* a length that lies, a READ before HELLO, an unknown type */
			m->type = k == 3 ? PT_EXT_READ : k == 4 ? 99 : PT_EXT_INFO;
			m->seq = 1;
			m->len = k == 2 ? 0 : 8;
			assert_int_equal(pt_ext_send(fd, m, h_now() + 2, msg, sizeof(msg)), 0);
			if (k == 2) /* header says 100 bytes, the record has none */
				pt_ext_put32(m->buf + 12, 100), send(fd, m->buf, PT_EXT_HDR, MSG_NOSIGNAL);
		}
		/* dropped: the connection ends without a reply */
		assert_int_equal(pt_ext_recv(fd, m, h_now() + 5, msg, sizeof(msg)), -EPIPE);
		close(fd);
	}
	assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), 0);
	assert_int_equal(v, PT_MAGIC);
	h_comp_close(&d, &c);
	h_close(&d);
	free(m);
}

/* The card ends after its idle time without a client; nothing of it is
 * left in this process: no child, descriptor or thread. */
static void test_idle_and_leftovers(void **state)
{
	int fds = h_count("/proc/self/fd"), tasks = h_count("/proc/self/task");
	struct sockaddr_un sa;
	struct h_dev d;
	struct h_comp c;
	char msg[512];
	uint32_t v;
	int st;

	(void)state;
	setenv("PT_NFBEXT_IDLE", "1", 1);
	assert_int_equal(pt_ext_card_path(dir, "sim:tx-64B", "sock", &sa, msg, sizeof(msg)), 0);
	assert_int_equal(h_open(&d, "sim:tx-64B"), 0);
	assert_int_equal(h_comp_open(&d, 0, &c), 0);
	assert_int_equal(h_rd32(&c, PT_REG_MAGIC, &v), 0);
	h_comp_close(&d, &c);
	h_close(&d);
	assert_int_equal(h_count("/proc/self/fd"), fds);
	assert_int_equal(h_count("/proc/self/task"), tasks);
	assert_int_equal(waitpid(-1, &st, WNOHANG), -1); /* the starter was reaped */
	assert_int_equal(errno, ECHILD);
	assert_int_equal(access(sa.sun_path, F_OK), 0);
	for (int i = 0; i < 100 && access(sa.sun_path, F_OK) == 0; i++)
		usleep(50000);
	assert_int_not_equal(access(sa.sun_path, F_OK), 0); /* ended after 1 s */
	setenv("PT_NFBEXT_IDLE", "20", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_daemon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hung_daemon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_daemon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folder_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_and_leftovers, setup, teardown),
	};

	alarm(300); /* a hang fails the test */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
