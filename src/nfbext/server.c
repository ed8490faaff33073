/*
 * pcie-telemetry: the daemon end of the protocol (server.h).
 *
 * One thread polls the listening socket and every client; a request is
 * answered at once (an access waits for the card's thread at most one
 * chunk of simulated time), so clients never wait for one another for
 * long.  Sockets are non-blocking, every send has a deadline, and a
 * client that misbehaves is dropped alone.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfbext/proto.h"
#include "nfbext/server.h"
#include "nfbext/server_priv.h"

#define MAX_CLIENTS PT_EXT_MAX_CLIENTS
#define SEND_TIMEOUT 1.0 /* a client that does not take its reply is dropped */

int pt_ext_lock(const char *dir, const char *key, int *lock_fd, char *msg, size_t msglen)
{
	struct sockaddr_un sa;
	int rc = pt_ext_card_path(dir, key, "lock", &sa, msg, msglen), fd;

	*lock_fd = -1;
	if (rc < 0)
		return rc;
	fd = open(sa.sun_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(msg, msglen, "%s: %s", sa.sun_path, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(fd);
		snprintf(msg, msglen, "%s: held by another daemon", sa.sun_path);
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	*lock_fd = fd;
	return 0;
}

int pt_ext_listen(const char *dir, const char *key, int *listen_fd, char *msg, size_t msglen)
{
	struct sockaddr_un sa;
	int rc = pt_ext_card_path(dir, key, "sock", &sa, msg, msglen), fd;

	*listen_fd = -1;
	if (rc < 0)
		return rc;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(msg, msglen, "socket: %s", strerror(errno));
		return -errno;
	}
	unlink(sa.sun_path); /* a stale socket of a daemon that died */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(sa.sun_path, 0600) < 0 ||
	    listen(fd, 16) < 0) {
		int e = errno;

		snprintf(msg, msglen, "%s: %s", sa.sun_path, strerror(e));
		close(fd);
		return -e;
	}
	*listen_fd = fd;
	return 0;
}

static void logf_(const struct pt_ext_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logf_(const struct pt_ext_state *st, const char *fmt, ...)
{
	char line[PT_BUS_MSG_LEN + 128];
	va_list ap;

	if (!st->s->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	st->s->log(line);
}

static void drop(struct pt_ext_state *st, unsigned i, const char *why)
{
	if (why)
		logf_(st, "client %d dropped: %s", st->c[i].fd, why);
	close(st->c[i].fd);
	st->c[i] = st->c[--st->n];
}

static void on_accept(struct pt_ext_state *st)
{
	char why[PT_BUS_MSG_LEN];
	int fd = accept4(st->s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (pt_ext_check_peer(fd, "client", why, sizeof(why)) < 0) {
		logf_(st, "refused: %s", why);
		close(fd);
	} else if (st->n == MAX_CLIENTS) {
		logf_(st, "refused a client: %d clients already", MAX_CLIENTS);
		close(fd);
	} else
		st->c[st->n++] = (struct pt_ext_client){ fd, 0 };
}

static void do_hello(struct pt_ext_state *st, struct pt_ext_client *c)
{
	struct pt_ext_msg *m = &st->m;
	unsigned char pid[4];
	const char *key = st->s->key;

	pt_ext_put32(pid, (uint32_t)getpid());
	if (m->len < 4 || pt_ext_get32(pt_ext_payload(m)) != PT_EXT_PROTO_VERSION) {
		pt_ext_reply(m, -EPROTONOSUPPORT, pid, 4,
			     "the running card speaks another protocol version; stop it with "
			     "'ptsimd stop' and open the device again");
	} else if (m->len > 4 && (m->len - 4 != strlen(key) ||
				  memcmp(pt_ext_payload(m) + 4, key, m->len - 4))) {
		pt_ext_reply(m, -EADDRINUSE, pid, 4, "this socket serves another card");
	} else {
		c->hello = 1;
		pt_ext_reply(m, 0, pid, 4, NULL);
	}
}

static void do_access(struct pt_ext_state *st)
{
	struct pt_ext_msg *m = &st->m;
	const unsigned char *p = pt_ext_payload(m);
	uint32_t off = pt_ext_get32(p), nbyte = m->len >= 8 ? pt_ext_get32(p + 4) : 0;
	char why[PT_BUS_MSG_LEN];
	int rc;

	if (m->len < 8 || nbyte > PT_EXT_MAX_DATA ||
	    m->len != 8 + (m->type == PT_EXT_WRITE ? nbyte : 0)) {
		pt_ext_reply(m, -EBADMSG, NULL, 0, "malformed access request");
		return;
	}
	if (m->type == PT_EXT_READ) {
		rc = pt_ext_comp_read(st->s->bus, off, st->data, nbyte, why, sizeof(why));
		pt_ext_reply(m, rc, st->data, rc < 0 ? 0 : nbyte, rc < 0 ? why : NULL);
	} else {
		rc = pt_ext_comp_write(st->s->bus, off, p + 8, nbyte, why, sizeof(why));
		pt_ext_reply(m, rc, NULL, 0, rc < 0 ? why : NULL);
	}
}

static void do_info(struct pt_ext_state *st)
{
	char text[1024];
	double now = 0;

	pt_bus_now(st->s->bus, &now);
	snprintf(text, sizeof(text),
		 "key=%.600s\npid=%d\nclients=%u\nuptime=%.3f\nsimtime=%.6f\nlag=%.6f\nidle=%g\n",
		 st->s->key, (int)getpid(), st->n, pt_ext_now() - st->t0, now,
		 pt_bus_lag(st->s->bus), st->s->idle);
	pt_ext_reply(&st->m, 0, NULL, 0, text);
}

int pt_ext_answer(struct pt_ext_state *st, struct pt_ext_client *c, char *why, size_t whylen)
{
	if (st->m.type == PT_EXT_HELLO)
		do_hello(st, c);
	else if (!c->hello) {
		snprintf(why, whylen, "a request before HELLO");
		return -EPROTO;
	} else if (st->m.type == PT_EXT_READ || st->m.type == PT_EXT_WRITE)
		do_access(st);
	else if (st->m.type == PT_EXT_INFO)
		do_info(st);
	else if (st->m.type == PT_EXT_STOP) {
		pt_ext_reply(&st->m, 0, NULL, 0, NULL);
		st->stop = 1;
		logf_(st, "stopped by a client");
	} else {
		snprintf(why, whylen, "unknown request type");
		return -EPROTO;
	}
	return 0;
}

/* One request of client i; 0, or -1 when the client was dropped. */
static int on_request(struct pt_ext_state *st, unsigned i)
{
	struct pt_ext_client *c = &st->c[i];
	char why[PT_BUS_MSG_LEN];
	int rc = pt_ext_recv(c->fd, &st->m, pt_ext_now() + SEND_TIMEOUT, why, sizeof(why));

	if (rc < 0) {
		drop(st, i, rc == -EPIPE ? NULL : why);
		return -1;
	}
	if (pt_ext_answer(st, c, why, sizeof(why)) < 0) {
		drop(st, i, why);
		return -1;
	}
	rc = pt_ext_send(c->fd, &st->m, pt_ext_now() + SEND_TIMEOUT, why, sizeof(why));
	if (rc < 0) {
		drop(st, i, why);
		return -1;
	}
	return 0;
}

/* Poll once; returns the poll result. */
static int poll_once(struct pt_ext_state *st, double idle_since)
{
	struct pollfd p[MAX_CLIENTS + 1];
	double wait = 1.0;
	int rc;

	if (st->n == 0 && st->s->idle > 0) {
		wait = st->s->idle - (pt_ext_now() - idle_since);
		wait = wait < 0 ? 0 : wait > 1.0 ? 1.0 : wait;
	}
	p[0] = (struct pollfd){ .fd = st->s->listen_fd, .events = POLLIN };
	for (unsigned i = 0; i < st->n; i++)
		p[i + 1] = (struct pollfd){ .fd = st->c[i].fd, .events = POLLIN };
	rc = poll(p, st->n + 1, (int)(wait * 1000 + 1));
	if (rc <= 0)
		return rc < 0 && errno != EINTR ? -errno : 0;
	/* Backwards, so that dropping client i (moved from the end) is safe. */
	for (unsigned i = st->n; i-- > 0;)
		if (p[i + 1].revents)
			on_request(st, i);
	if (p[0].revents & POLLIN)
		on_accept(st);
	return rc;
}

int pt_ext_serve(const struct pt_ext_server *s, char *msg, size_t msglen)
{
	struct pt_ext_state *st = calloc(1, sizeof(*st));
	double idle_since;
	int rc = 0;

	if (!st) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	st->s = s;
	st->t0 = idle_since = pt_ext_now();
	while (!st->stop && !pt_bus_stop_requested()) {
		unsigned before = st->n;

		rc = poll_once(st, idle_since);
		if (rc < 0) {
			snprintf(msg, msglen, "poll: %s", strerror(-rc));
			break;
		}
		rc = 0;
		if (st->n == 0 && before > 0)
			idle_since = pt_ext_now();
		if (st->n == 0 && s->idle > 0 && pt_ext_now() - idle_since >= s->idle) {
			logf_(st, "no client for %g s: the card ends", s->idle);
			break;
		}
	}
	if (!st->stop && rc == 0 && pt_bus_stop_requested())
		logf_(st, "ended by a signal (SIGINT or SIGTERM)");
	/* The socket goes first: a client that sees its connection close
	 * (`ptsimd stop` waits for that) finds no card any more. */
	if (s->sock)
		unlink(s->sock);
	while (st->n)
		drop(st, st->n - 1, NULL);
	free(st);
	return rc;
}
