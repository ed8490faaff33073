/*
 * pcie-telemetry: the extension's simulated card, reached through the
 * daemon that owns it (ptsimd, docs/nfb-ext.md).
 *
 * The first open of a device string starts the daemon: ptsimd from
 * $PT_NFBEXT_DAEMON, else next to this library, else in ../bin from it,
 * else on PATH.  The daemon is spawned with default signals, /dev/null
 * for input and a pipe for its one-line verdict (empty and exit status 0:
 * running), and detaches itself; the extension reaps the starter and
 * keeps nothing of it.  A connection that fails (the daemon was killed,
 * or does not answer within PT_NFBEXT_TIMEOUT) is dead from then on: the
 * card it served is gone, and the device must be opened again.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ext_priv.h"
#include "pcie_telemetry/regs.h"

extern char **environ;

#define DAEMON "ptsimd"

/* The daemon to start; *search: look it up on PATH. */
static void find_daemon(char *path, size_t len, int *search)
{
	const char *env = getenv("PT_NFBEXT_DAEMON");
	Dl_info info;

	*search = 0;
	if (env && *env) {
		snprintf(path, len, "%s", env);
		return;
	}
	if (dladdr((void *)find_daemon, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
		const char *slash = strrchr(info.dli_fname, '/');
		int n = (int)(slash - info.dli_fname);

		snprintf(path, len, "%.*s/" DAEMON, n, info.dli_fname);
		if (access(path, X_OK) == 0)
			return;
		snprintf(path, len, "%.*s/../bin/" DAEMON, n, info.dli_fname);
		if (access(path, X_OK) == 0)
			return;
	}
	snprintf(path, len, DAEMON);
	*search = 1;
}

/* Read the starter's output until it ends or the deadline passes. */
static int read_verdict(int fd, char *buf, size_t len, double deadline)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		double left = deadline - pt_ext_now();
		ssize_t r;

		buf[n] = '\0';
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		r = read(fd, buf + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (n += (size_t)r) == len - 1)
			break;
	}
	buf[n] = '\0';
	return 0;
}

/* Reap the starter, which ends right after its output (never block). */
static int reap(pid_t pid, double deadline)
{
	int st = 0;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		struct timespec ms = { 0, 1000000 };

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0) /* the host reaps its children itself (SIGCHLD ignored) */
			return 0;
		if (pt_ext_now() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -ETIMEDOUT;
		}
		nanosleep(&ms, NULL);
	}
}

static int spawn(const char *path, int search, char *const argv[], int out, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int rc;

	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, out, 2);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	rc = search ? posix_spawnp(pid, path, &fa, &at, argv, environ)
		    : posix_spawn(pid, path, &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -rc;
}

/* `ptsimd start KEY`: 0 once the daemon runs (or another one starts it). */
static int start_daemon(const struct ext_dev *d, char *msg, size_t msglen)
{
	char path[PATH_MAX], out[PT_BUS_MSG_LEN];
	char *argv[] = { path, "start", "--exit-errno", (char *)d->key, NULL };
	double deadline = pt_ext_now() + d->timeout * PT_EXT_START_FACTOR;
	int search, p[2], rc, st;
	pid_t pid;

	find_daemon(path, sizeof(path), &search);
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(msg, msglen, "pipe: %s", strerror(errno));
		return -errno;
	}
	rc = spawn(path, search, argv, p[1], &pid);
	close(p[1]);
	if (rc < 0) {
		close(p[0]);
		snprintf(msg, msglen,
			 "%s: cannot start the simulated card's daemon %s: %s (%s)", d->key, path,
			 strerror(-rc),
			 search ? "looked next to the extension, in ../bin and on PATH; set "
				  "PT_NFBEXT_DAEMON"
				: getenv("PT_NFBEXT_DAEMON") ? "PT_NFBEXT_DAEMON" : "found next to the extension");
		return rc;
	}
	rc = read_verdict(p[0], out, sizeof(out), deadline);
	close(p[0]);
	st = reap(pid, rc < 0 ? pt_ext_now() : deadline);
	out[strcspn(out, "\n")] = '\0';
	if (rc == 0 && st == 0 && !out[0])
		return 0;
	if (rc < 0 || st == -ETIMEDOUT)
		snprintf(msg, msglen, "%s: the simulated card did not start within %g s (%s)", d->key,
			 d->timeout * PT_EXT_START_FACTOR, path);
	else if (out[0])
		snprintf(msg, msglen, "%s", strncmp(out, DAEMON ": ", 8) ? out : out + 8);
	else
		snprintf(msg, msglen, "%s: %s start exited with status %d", d->key, path, st);
	if (rc < 0 || st == -ETIMEDOUT)
		return -ETIMEDOUT;
	return st > 64 && st < 64 + 128 ? -(st - 64) : -EHOSTDOWN; /* --exit-errno */
}

static int no_daemon(int rc)
{
	return rc == -ENOENT || rc == -ECONNREFUSED;
}

/* Connect, starting the daemon when none serves the key; a daemon that
 * ends as we reach it (its idle time ran out) is started anew once. */
static int connect_card(struct ext_dev *d, char *msg, size_t msglen)
{
	int rc = pt_ext_connect(d->key, d->timeout, &d->fd, &d->pid, msg, msglen);

	for (int n = 0; n < 2 && (no_daemon(rc) || rc == -EPIPE); n++) {
		double deadline = pt_ext_now() + d->timeout * PT_EXT_START_FACTOR;

		rc = start_daemon(d, msg, msglen);
		if (rc < 0)
			return rc;
		do {
			struct timespec ms = { 0, 10000000 };

			nanosleep(&ms, NULL);
			rc = pt_ext_connect(d->key, d->timeout, &d->fd, &d->pid, msg, msglen);
		} while (no_daemon(rc) && pt_ext_now() < deadline);
	}
	if (no_daemon(rc))
		snprintf(msg, msglen, "%s: the simulated card did not come up within %g s", d->key,
			 d->timeout * PT_EXT_START_FACTOR);
	return rc;
}

int ext_card_open(struct ext_dev *d, char *msg, size_t msglen)
{
	unsigned char topo[4];
	int rc = pt_ext_card_key(d->devname, d->key, sizeof(d->key), msg, msglen);

	d->fd = -1;
	if (rc < 0)
		return rc;
	d->m = malloc(sizeof(*d->m));
	if (!d->m) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	rc = connect_card(d, msg, msglen);
	if (rc < 0)
		return rc;
	d->ncomps = 1;
	rc = ext_card_access(d, 0, PT_REG_CFG_TOPOLOGY, topo, 4);
	if (rc < 0) {
		snprintf(msg, msglen, "%s: cannot read CFG_TOPOLOGY of the simulated card", d->key);
		return rc;
	}
	d->comp[0].endpoints = pt_field_get(PT_FIELD_TOPO_ENDPOINTS, pt_ext_get32(topo));
	return 0;
}

void ext_card_close(struct ext_dev *d)
{
	if (d->fd >= 0)
		close(d->fd); /* the daemon counts us out */
	d->fd = -1;
	free(d->m);
	d->m = NULL;
}

/* A failure of the connection itself: the card is gone for this device. */
static void card_lost(struct ext_dev *d, int rc, const char *why)
{
	d->dead = 1;
	if (rc == -EPIPE)
		ext_say(d->msgfd,
			"%s: the simulated card's daemon (pid %d) closed the connection: it was "
			"stopped or killed, and the card is gone; open the device again for a "
			"new card",
			d->key, d->pid);
	else
		ext_say(d->msgfd, "%s: the simulated card's daemon (pid %d): %s (PT_NFBEXT_TIMEOUT=%g)",
			d->key, d->pid, why, d->timeout);
}

int ext_card_access(struct ext_dev *d, int write, uint32_t off, void *buf, size_t nbyte)
{
	struct pt_ext_msg *m = d->m;
	char why[PT_BUS_MSG_LEN];
	int rc;

	if (d->dead)
		return -EPIPE;
	m->type = write ? PT_EXT_WRITE : PT_EXT_READ;
	m->seq = ++d->seq;
	pt_ext_put32(pt_ext_payload(m), off);
	pt_ext_put32(pt_ext_payload(m) + 4, (uint32_t)nbyte);
	if (write)
		memcpy(pt_ext_payload(m) + 8, buf, nbyte);
	m->len = (uint32_t)(8 + (write ? nbyte : 0));
	rc = pt_ext_call(d->fd, m, d->timeout, why, sizeof(why));
	if (rc == -EPIPE || rc == -ETIMEDOUT || rc == -EPROTO || (rc < 0 && m->type < PT_EXT_REPLY)) {
		card_lost(d, rc, why);
		return rc;
	}
	if (rc < 0) {
		ext_say(d->msgfd, "%s: %s", d->key, why);
		return rc;
	}
	if (!write && m->len != 4 + nbyte) {
		card_lost(d, -EPROTO, "a reply of the wrong length");
		return -EPROTO;
	}
	if (!write)
		memcpy(buf, pt_ext_payload(m) + 4, nbyte);
	return 0;
}
