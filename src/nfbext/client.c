/*
 * pcie-telemetry: the client end of the protocol (proto.h): a connection
 * to the daemon of a card, and one request with its reply.  Used by the
 * extension, by `ptsimd stop|status` and by the tests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nfbext/proto.h"

int pt_ext_call(int fd, struct pt_ext_msg *m, double timeout, char *msg, size_t msglen)
{
	double deadline = pt_ext_now() + timeout;
	uint32_t type = m->type, seq = m->seq;
	int status, rc = pt_ext_send(fd, m, deadline, msg, msglen);

	if (rc == 0)
		rc = pt_ext_recv(fd, m, deadline, msg, msglen);
	if (rc < 0)
		return rc;
	if (m->type != (type | PT_EXT_REPLY) || m->seq != seq || m->len < 4) {
		snprintf(msg, msglen, "unexpected reply (type %u, sequence %u) to request %u/%u",
			 (unsigned)m->type, (unsigned)m->seq, (unsigned)type, (unsigned)seq);
		return -EPROTO;
	}
	status = (int)pt_ext_get32(pt_ext_payload(m));
	if (status > 0 || status < -4095) {
		snprintf(msg, msglen, "bad status %d in the reply", status);
		return -EPROTO;
	}
	if (status < 0 && type != PT_EXT_HELLO) /* HELLO's text follows its pid */
		snprintf(msg, msglen, "%.*s", (int)(m->len - 4), (const char *)pt_ext_payload(m) + 4);
	return status;
}

/* Connect to path before the deadline (a full backlog is retried). */
static int connect_until(const struct sockaddr_un *sa, double deadline, int *out)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	for (;;) {
		struct timespec ms = { 0, 5000000 };

		if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0) {
			*out = fd;
			return 0;
		}
		if (errno != EAGAIN && errno != EINTR) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (pt_ext_now() > deadline) {
			close(fd);
			return -ETIMEDOUT;
		}
		nanosleep(&ms, NULL);
	}
}

/* HELLO: the protocol version and the key; the reply holds the pid. */
static int hello_msg(int fd, const char *key, double timeout, int *pid, struct pt_ext_msg *m,
		     char *msg, size_t msglen)
{
	size_t kl = strlen(key);
	int rc;

	m->type = PT_EXT_HELLO;
	m->seq = 0;
	pt_ext_put32(pt_ext_payload(m), PT_EXT_PROTO_VERSION);
	memcpy(pt_ext_payload(m) + 4, key, kl);
	m->len = (uint32_t)(4 + kl);
	rc = pt_ext_call(fd, m, timeout, msg, msglen);
	if (rc == -EPROTO || (rc < 0 && m->type != (PT_EXT_HELLO | PT_EXT_REPLY)))
		return rc;
	if (m->len < 8) {
		snprintf(msg, msglen, "short reply to HELLO");
		return -EPROTO;
	}
	*pid = (int)pt_ext_get32(pt_ext_payload(m) + 4);
	if (rc < 0)
		snprintf(msg, msglen, "%.*s", (int)(m->len - 8), (const char *)pt_ext_payload(m) + 8);
	return rc;
}

static int hello(int fd, const char *key, double timeout, int *pid, char *msg, size_t msglen)
{
	struct pt_ext_msg *m = malloc(sizeof(*m));
	int rc;

	if (!m) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	rc = hello_msg(fd, key, timeout, pid, m, msg, msglen);
	free(m);
	return rc;
}

int pt_ext_connect_path(const char *sock, const char *key, double timeout, int *fd, int *pid,
			char *msg, size_t msglen)
{
	char why[PT_BUS_MSG_LEN];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int rc;

	*fd = -1;
	*pid = 0;
	if (strlen(sock) >= sizeof(sa.sun_path) || strlen(key) >= PT_EXT_KEY_MAX) {
		snprintf(msg, msglen, "%.100s: the name is too long", strlen(key) ? key : sock);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	rc = connect_until(&sa, pt_ext_now() + timeout, fd);
	if (rc < 0) {
		snprintf(msg, msglen, "no simulated card answers on %s: %s", sock, strerror(-rc));
		return rc;
	}
	rc = pt_ext_check_peer(*fd, sock, msg, msglen);
	if (rc == 0) {
		rc = hello(*fd, key, timeout, pid, why, sizeof(why));
		if (rc < 0)
			snprintf(msg, msglen, "the card's daemon on %s: %s", sock, why);
	}
	if (rc < 0) {
		close(*fd);
		*fd = -1;
	}
	return rc;
}

int pt_ext_connect(const char *key, double timeout, int *fd, int *pid, char *msg, size_t msglen)
{
	char dir[256];
	struct sockaddr_un sa;
	int rc = pt_ext_dir(dir, sizeof(dir), msg, msglen);

	*fd = -1;
	*pid = 0;
	if (rc == 0)
		rc = pt_ext_card_path(dir, key, "sock", &sa, msg, msglen);
	return rc < 0 ? rc : pt_ext_connect_path(sa.sun_path, key, timeout, fd, pid, msg, msglen);
}
