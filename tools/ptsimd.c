/*
 * ptsimd: the daemon that owns one simulated card per device string and
 * serves it to every process that opens it through the libnfb extension
 * libnfb-ext-pcie-telemetry.so (man/ptsimd.1, docs/nfb-ext.md).
 *
 *   ptsimd start [--idle SEC] DEVICE   start the card in the background
 *   ptsimd run [--idle SEC] DEVICE     serve it in the foreground
 *   ptsimd stop DEVICE | --all         end the card (the next open starts anew)
 *   ptsimd status [DEVICE]             the running cards
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nfbext/proto.h"
#include "nfbext/server.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/version.h"
#include "util/pt_util.h"

#define MSG PT_BUS_MSG_LEN

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ptsimd start [--idle SEC] [--exit-errno] DEVICE\n"
		"                                           start the simulated card of DEVICE in the background\n"
		"       ptsimd run [--idle SEC] DEVICE     serve it in the foreground (log on stderr)\n"
		"       ptsimd stop DEVICE | --all         end the card (the next open starts a fresh one)\n"
		"       ptsimd status [DEVICE]             list the running cards\n"
		"DEVICE is sim, sim:PRESET or sim:FILE, as after libnfb-ext:PATH.so: in a libnfb\n"
		"device string.  --idle: seconds without a client before the card ends (default\n"
		"$PT_NFBEXT_IDLE, else %g; 0 = never).  Sockets live in $PT_NFBEXT_DIR, else\n"
		"$XDG_RUNTIME_DIR/pcie-telemetry, else /tmp/pcie-telemetry-UID.  start --exit-errno\n"
		"(the extension's): a failure exits with 64 + its errno instead of 1.\n",
		PT_EXT_IDLE_DEFAULT);
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line on stderr, whatever the arguments it echoes hold. */
static int fail(const char *fmt, ...)
{
	char msg[2 * MSG], line[8 * MSG];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ptsimd: %s\n", pt_util_esc(line, sizeof(line), msg));
	return 1;
}

static void log_line(const char *line)
{
	fprintf(stderr, "ptsimd[%d]: %s\n", (int)getpid(), line);
	fflush(stderr);
}

static void on_signal(int sig)
{
	(void)sig;
	pt_bus_request_stop();
}

static void daemon_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
}

struct card {
	char dir[256];
	char key[PT_EXT_KEY_MAX];
	double idle;
	int exit_errno; /* start --exit-errno: exit status 64 + errno */
	int all;        /* stop --all */
	int lock_fd, listen_fd;
	struct pt_bus *bus;
};

/* The exit status of a failure of errno err (after its line): 64 + err
 * under start --exit-errno (what the extension passes), else 1. */
static int failed(const struct card *c, int err)
{
	return c->exit_errno && err > 0 && err < 128 ? 64 + err : 1;
}

/* Take the lock, open the card, listen: what `run` and a started daemon
 * do before they serve.  -EBUSY: another daemon has the card. */
static int card_open(struct card *c, char *msg, size_t msglen)
{
	int rc = pt_ext_lock(c->dir, c->key, &c->lock_fd, msg, msglen);

	c->listen_fd = -1;
	c->bus = NULL;
	if (rc < 0)
		return rc;
	rc = pt_bus_open_ex(c->key, 0, PT_BUS_REALTIME, &c->bus, msg, msglen);
	if (rc == 0)
		rc = pt_ext_listen(c->dir, c->key, &c->listen_fd, msg, msglen);
	if (rc < 0) {
		pt_bus_close(c->bus);
		close(c->lock_fd);
	}
	return rc;
}

/* card_open, waiting while another daemon holds the card's lock but
 * serves nothing: one that ends lets go of it a moment after its socket
 * is gone (it closes the card first), so `ptsimd stop` then `start` or
 * `run` gets a fresh card, not "it runs already" from the one ending.
 * -EBUSY: another daemon serves the card (or starts it, still after
 * PT_EXT_TIMEOUT_DEFAULT). */
static int card_open_wait(struct card *c, char *msg, size_t msglen)
{
	double deadline = pt_ext_now() + PT_EXT_TIMEOUT_DEFAULT;
	int rc, fd, pid;

	while ((rc = card_open(c, msg, msglen)) == -EBUSY && pt_ext_now() < deadline) {
		struct timespec ms = { 0, 10000000 };

		if (pt_ext_connect(c->key, 0.5, &fd, &pid, msg, msglen) == 0) {
			close(fd);
			break; /* it serves */
		}
		nanosleep(&ms, NULL);
	}
	return rc;
}

static int card_serve(struct card *c)
{
	char msg[MSG];
	struct sockaddr_un sa;
	struct pt_ext_server s = { c->key, NULL, c->bus, c->listen_fd, c->idle, log_line };
	int rc;

	pt_ext_card_path(c->dir, c->key, "sock", &sa, msg, sizeof(msg));
	s.sock = sa.sun_path;
	log_line("serving");
	rc = pt_ext_serve(&s, msg, sizeof(msg));
	if (rc < 0)
		log_line(msg);
	close(c->listen_fd);
	pt_bus_close(c->bus);
	close(c->lock_fd); /* last: the socket is gone by now */
	return rc < 0 ? 1 : 0;
}

/* The started daemon's stdio: nothing in, the log file out. */
static int daemon_stdio(const struct card *c, char *msg, size_t msglen)
{
	struct sockaddr_un sa;
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC), out;

	if (pt_ext_card_path(c->dir, c->key, "log", &sa, msg, msglen) < 0)
		return -1;
	out = open(sa.sun_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
		snprintf(msg, msglen, "%s: %s", sa.sun_path, strerror(errno));
		return -1;
	}
	close(in);
	close(out);
	return 0;
}

/* The child of `start`: a daemon in its own session.  It tells the
 * starter "OK" or the reason it failed on the ready pipe. */
static int daemon_child(struct card *c, int ready)
{
	char msg[MSG];
	int rc;

	setsid();
	rc = card_open_wait(c, msg, sizeof(msg));
	if (rc == -EBUSY) { /* another daemon serves it or starts it: the client retries */
		dprintf(ready, "OK\n");
		return 0;
	}
	if (rc == 0 && (daemon_stdio(c, msg, sizeof(msg)) < 0 || chdir("/") < 0))
		rc = -EIO;
	if (rc < 0) {
		dprintf(ready, "E%d %s\n", -rc, msg);
		return 1;
	}
	dprintf(ready, "OK\n");
	close(ready);
	return card_serve(c);
}

static int cmd_start(struct card *c)
{
	char msg[MSG], got[MSG] = "";
	int fd, pid, p[2], err = 0, at = 0;
	size_t n = 0;

	if (pt_ext_connect(c->key, 1.0, &fd, &pid, msg, sizeof(msg)) == 0) {
		close(fd);
		return 0; /* it runs already */
	}
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		err = errno;
		fail("cannot start the card's daemon: %s", strerror(err));
		return failed(c, err);
	}
	if (pid == 0) {
		close(p[0]);
		_exit(daemon_child(c, p[1]));
	}
	close(p[1]);
	for (ssize_t r; n + 1 < sizeof(got) && (r = read(p[0], got + n, sizeof(got) - 1 - n)) != 0;)
		if (r > 0)
			n += (size_t)r;
		else if (errno != EINTR)
			break;
	got[n] = '\0';
	close(p[0]);
	got[strcspn(got, "\n")] = '\0';
	if (strcmp(got, "OK") == 0)
		return 0;
	if (sscanf(got, "E%d %n", &err, &at) == 1 && at > 0) {
		fail("%s", got + at);
		return failed(c, err);
	}
	fail("%s: the card's daemon ended while it started", c->key);
	return failed(c, EIO);
}

static int cmd_run(struct card *c)
{
	char msg[MSG];
	int rc = card_open_wait(c, msg, sizeof(msg));

	if (rc == -EBUSY)
		return fail("%s: a daemon serves this card already (ptsimd stop %s)", c->key, c->key);
	if (rc < 0)
		return fail("%s", msg);
	return card_serve(c);
}

/* One request to the daemon on sock; its reply in *m. */
static int ask(const char *sock, const char *key, uint32_t type, struct pt_ext_msg *m, int *pid,
	       char *msg, size_t msglen)
{
	int fd, rc = pt_ext_connect_path(sock, key, PT_EXT_TIMEOUT_DEFAULT, &fd, pid, msg, msglen);

	if (rc < 0)
		return rc;
	m->type = type;
	m->seq = 1;
	m->len = 0;
	rc = pt_ext_call(fd, m, PT_EXT_TIMEOUT_DEFAULT, msg, msglen);
	if (rc == 0 && type == PT_EXT_STOP) /* wait for the end: the daemon closes */
		pt_ext_recv(fd, m, pt_ext_now() + PT_EXT_TIMEOUT_DEFAULT, msg, msglen);
	close(fd);
	return rc;
}

/* Every socket of the folder, or the one of key. */
static int each_card(const struct card *c, const char *key,
		     int (*fn)(const char *sock, const char *key, struct pt_ext_msg *m))
{
	struct pt_ext_msg *m = malloc(sizeof(*m));
	struct sockaddr_un sa;
	char msg[MSG];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (!m)
		return fail("out of memory");
	if (key) {
		rc = pt_ext_card_path(c->dir, key, "sock", &sa, msg, sizeof(msg)) < 0
			     ? fail("%s", msg)
			     : fn(sa.sun_path, key, m);
		free(m);
		return rc;
	}
	if (!(d = opendir(c->dir))) {
		free(m);
		return errno == ENOENT ? 0 : fail("%s: %s", c->dir, strerror(errno)); /* no card */
	}
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "card-", 5) == 0 && strstr(e->d_name, ".sock")) {
			char sock[sizeof(c->dir) + 256 + 2];

			snprintf(sock, sizeof(sock), "%s/%s", c->dir, e->d_name);
			rc |= fn(sock, "", m);
		}
	closedir(d);
	free(m);
	return rc;
}

/* The device of the card on sock, as its status has it ("key=..."), in
 * name; the socket's path when the card does not say. */
static void card_name(const char *sock, struct pt_ext_msg *m, char *name, size_t len)
{
	char msg[MSG];
	int pid;

	snprintf(name, len, "%s", sock);
	if (ask(sock, "", PT_EXT_INFO, m, &pid, msg, sizeof(msg)) == 0 && m->len > 4) {
		const char *text = (const char *)pt_ext_payload(m) + 4;
		int n = (int)strcspn(text, "\n");

		if (n > 4 && n < (int)(m->len - 4) && !strncmp(text, "key=", 4))
			snprintf(name, len, "%.*s", n - 4, text + 4);
	}
}

static int stop_one(const char *sock, const char *key, struct pt_ext_msg *m)
{
	char msg[MSG], name[PT_EXT_KEY_MAX + 8];
	int pid, rc;

	if (*key)
		snprintf(name, sizeof(name), "%s", key);
	else /* stop --all names each card by its device */
		card_name(sock, m, name, sizeof(name));
	rc = ask(sock, key, PT_EXT_STOP, m, &pid, msg, sizeof(msg));
	if (rc == -ENOENT || rc == -ECONNREFUSED) {
		if (rc == -ECONNREFUSED)
			unlink(sock); /* its daemon died */
		printf("%s: not running\n", name);
		return 0;
	}
	if (rc < 0)
		return fail("%s", msg);
	printf("%s: stopped (pid %d)\n", name, pid);
	return 0;
}

static int status_one(const char *sock, const char *key, struct pt_ext_msg *m)
{
	char msg[MSG];
	int pid, rc = ask(sock, key, PT_EXT_INFO, m, &pid, msg, sizeof(msg));

	if (rc == -ENOENT || rc == -ECONNREFUSED) {
		printf("%s: not running\n", *key ? key : sock);
		return *key ? 3 : 0;
	}
	if (rc < 0)
		return fail("%s", msg);
	printf("%.*s\n", (int)(m->len - 4), (const char *)pt_ext_payload(m) + 4);
	return 0;
}

/* rc, or 1 when what was printed did not reach standard output. */
static int printed(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		return fail("cannot write to standard output: %s", strerror(errno));
	return rc;
}

/* Whether cmd takes option o: start --idle and --exit-errno, run
 * --idle, stop --all. */
static int takes(const char *cmd, const char *o)
{
	if (!strcmp(o, "--idle"))
		return !strcmp(cmd, "start") || !strcmp(cmd, "run");
	return !strcmp(o, "--exit-errno") ? !strcmp(cmd, "start") : !strcmp(cmd, "stop");
}

/* The options of cmd, in any order (the last --idle winning, *idle < 0
 * without one); *next: the first operand.  0, or 2 after a usage error. */
static int parse_options(int argc, char **argv, const char *cmd, struct card *c, double *idle,
			 int *next)
{
	int i = 2;

	*idle = -1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *o = argv[i];

		if (strcmp(o, "--idle") && strcmp(o, "--exit-errno") && strcmp(o, "--all"))
			return fail("unknown option '%s' (ptsimd -h)", o) + 1;
		if (!takes(cmd, o))
			return fail("'%s': not an option of %s (ptsimd -h)", o, cmd) + 1;
		if (!strcmp(o, "--exit-errno"))
			c->exit_errno = 1;
		else if (!strcmp(o, "--all"))
			c->all = 1;
		else if (++i >= argc || pt_ext_parse_seconds(argv[i], idle) < 0)
			return fail("--idle %s: expected seconds, a number from 0 to %.0f (0 = never)",
				    i < argc ? argv[i] : "(missing)", PT_EXT_SECONDS_MAX) + 1;
	}
	*next = i;
	return 0;
}

/* The command line of cmd: its options, the key of its DEVICE (stop and
 * status: also of a scenario file deleted since its card started), its
 * idle time (start and run) and the runtime folder.  0, 2 after a usage error,
 * else the exit status of the failure (a DEVICE that names no card is
 * one: 1, or 64 + errno under start --exit-errno). */
static int parse_card(int argc, char **argv, const char *cmd, struct card *c)
{
	int serve = !strcmp(cmd, "start") || !strcmp(cmd, "run");
	int status = !strcmp(cmd, "status"), i = 2, rc, want;
	char msg[MSG];
	double idle;

	if ((rc = parse_options(argc, argv, cmd, c, &idle, &i)))
		return rc;
	want = status ? argc > i : !c->all;
	if (argc - i > want) /* name the first argument too many */
		return fail("'%s': %s (ptsimd -h)", argv[i + want],
			    argv[i + want][0] == '-' ? "the options come before the DEVICE"
			    : c->all		     ? "no DEVICE with --all"
			    : status		     ? "expected at most one DEVICE"
						     : "expected one DEVICE") + 1;
	if (argc - i < want)
		return fail("expected %s (ptsimd -h)", serve ? "one DEVICE" : "one DEVICE or --all") + 1;
	/* $PT_NFBEXT_IDLE is the default of --idle: not read when it is given */
	c->idle = idle;
	rc = serve && idle < 0 ? pt_ext_env_seconds("PT_NFBEXT_IDLE", PT_EXT_IDLE_DEFAULT, &c->idle,
						    msg, sizeof(msg))
			       : 0;
	c->key[0] = '\0';
	if (rc == 0 && i < argc)
		rc = serve ? pt_ext_card_key(argv[i], c->key, sizeof(c->key), msg, sizeof(msg))
			   : pt_ext_card_find_key(argv[i], c->key, sizeof(c->key), msg, sizeof(msg));
	if (rc == 0) /* stop and status find cards: they create no folder */
		rc = serve ? pt_ext_dir(c->dir, sizeof(c->dir), msg, sizeof(msg))
			   : pt_ext_dir_find(c->dir, sizeof(c->dir), msg, sizeof(msg));
	if (rc < 0) {
		fail("%s", msg);
		return failed(c, -rc);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct card c;
	const char *cmd = argc > 1 ? argv[1] : "";
	int rc;

	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return printed(0);
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("ptsimd %s\n", PT_VERSION_STRING);
		return printed(0);
	}
	/* Nothing of the process that started us stays open in a daemon. */
	close_range(3, ~0u, 0);
	signal(SIGPIPE, SIG_IGN);
	if (!*cmd)
		return fail("missing command: start, run, stop or status (ptsimd -h)") + 1;
	if (strcmp(cmd, "start") && strcmp(cmd, "run") && strcmp(cmd, "stop") && strcmp(cmd, "status"))
		return fail("unknown command '%s': expected start, run, stop or status (ptsimd -h)",
			    cmd) + 1;
	if ((rc = parse_card(argc, argv, cmd, &c)))
		return rc;
	if (!strcmp(cmd, "status"))
		return printed(each_card(&c, c.key[0] ? c.key : NULL, status_one));
	if (!strcmp(cmd, "stop"))
		return printed(each_card(&c, c.all ? NULL : c.key, stop_one));
	daemon_signals();
	return !strcmp(cmd, "start") ? cmd_start(&c) : cmd_run(&c);
}
