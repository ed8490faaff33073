/*
 * pcie-telemetry: the extension-daemon protocol (proto.h): the runtime
 * folder and its checks, the keys and socket names of the cards, and
 * message framing with a deadline on every socket operation.
 */
#define _GNU_SOURCE /* struct ucred */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nfbext/proto.h"

void pt_ext_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

uint32_t pt_ext_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

double pt_ext_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pt_ext_parse_seconds(const char *v, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (!*v || *end || errno || !isfinite(d) || d < 0 || d > PT_EXT_SECONDS_MAX)
		return -EINVAL;
	*out = d;
	return 0;
}

int pt_ext_env_seconds(const char *name, double deflt, double *out, char *msg, size_t msglen)
{
	const char *v = getenv(name);

	*out = deflt;
	if (!v || !*v)
		return 0;
	if (pt_ext_parse_seconds(v, out) < 0) {
		snprintf(msg, msglen, "%s=%.40s: expected seconds, a number from 0 to %.0f", name, v,
			 PT_EXT_SECONDS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* The folder must be ours and closed to everyone else; create: make it
 * when it is missing, else a missing folder is fine (nothing runs). */
static int check_dir(const char *dir, int create, char *msg, size_t msglen)
{
	struct stat st;

	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		snprintf(msg, msglen, "%s: cannot create the runtime folder: %s", dir,
			 strerror(errno));
		return -errno;
	}
	if (lstat(dir, &st) < 0) {
		if (!create && errno == ENOENT)
			return 0;
		snprintf(msg, msglen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(msg, msglen, "%s: not a folder (a link or a file is refused); remove it", dir);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(msg, msglen,
			 "%s: the runtime folder belongs to uid %u with mode %04o; it must be yours "
			 "with mode 0700 (remove it, or set PT_NFBEXT_DIR)",
			 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -EACCES;
	}
	return 0;
}

static int runtime_dir(char *dir, size_t dirlen, int create, char *msg, size_t msglen)
{
	const char *d = getenv("PT_NFBEXT_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (d && *d)
		n = snprintf(dir, dirlen, "%s", d);
	else if (xdg && *xdg == '/')
		n = snprintf(dir, dirlen, "%s/pcie-telemetry", xdg);
	else
		n = snprintf(dir, dirlen, "/tmp/pcie-telemetry-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= dirlen) {
		snprintf(msg, msglen, "the runtime folder's name is too long");
		return -ENAMETOOLONG;
	}
	return check_dir(dir, create, msg, msglen);
}

int pt_ext_dir(char *dir, size_t dirlen, char *msg, size_t msglen)
{
	return runtime_dir(dir, dirlen, 1, msg, msglen);
}

int pt_ext_dir_find(char *dir, size_t dirlen, char *msg, size_t msglen)
{
	return runtime_dir(dir, dirlen, 0, msg, msglen);
}

/* Append the components of rest to the absolute path abs lexically: ""
 * and "." dropped, ".." takes the last one off. */
static int append_lexical(char *abs, size_t len, const char *rest)
{
	for (const char *c = rest; *c;) {
		size_t n = strcspn(c, "/"), at = strlen(abs);

		if (n == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(abs, '/');

			slash[slash == abs] = '\0'; /* "/" stays */
		} else if (n && !(n == 1 && c[0] == '.')) {
			if (at + 1 + n >= len)
				return -ENAMETOOLONG;
			snprintf(abs + at, len - at, "%s%.*s", at > 1 ? "/" : "", (int)n, c);
		}
		c += n + (c[n] == '/');
	}
	return 0;
}

/* The absolute path of a file that may be gone: realpath() of the longest
 * prefix of path that still exists, a dangling link on the way followed
 * as the kernel would, the rest lexically.  So it is what realpath() gave
 * while the file existed, unless a link on its way changed since. */
static int resolve_gone(const char *path, char *abs, size_t len)
{
	char cur[PATH_MAX], p[PATH_MAX], t[PATH_MAX];
	size_t cut;
	int hops = 0, n;

	if (*path == '/')
		n = snprintf(cur, sizeof(cur), "%s", path);
	else if (getcwd(p, sizeof(p)))
		n = snprintf(cur, sizeof(cur), "%s/%s", p, path);
	else
		return -errno;
	if (n < 0 || (size_t)n >= sizeof(cur))
		return -ENAMETOOLONG;
	for (cut = strlen(cur);;) {
		ssize_t r;

		memcpy(p, cur, cut);
		p[cut] = '\0';
		if (realpath(cut ? p : "/", abs))
			break;
		r = readlink(p, t, sizeof(t) - 1);
		if (r < 0) { /* missing (or no link): try the folder above */
			cut = (size_t)(strrchr(p, '/') - p);
			continue;
		}
		if (++hops > 40)
			return -ELOOP;
		t[r] = '\0';
		if (*t != '/')
			strrchr(p, '/')[1] = '\0'; /* relative to the link's folder */
		else
			p[0] = '\0';
		if ((size_t)snprintf(abs, len, "%s%s%s", p, t, cur + cut) >= len)
			return -ENAMETOOLONG;
		snprintf(cur, sizeof(cur), "%s", abs);
		cut = strlen(cur);
	}
	return append_lexical(abs, len, cur + cut);
}

/* abs (PATH_MAX bytes): the absolute path of the scenario file spec, or
 * with gone, of where a file that is gone was. */
static int scenario_path(const char *spec, int gone, char *abs, char *msg, size_t msglen)
{
	int rc;

	if (realpath(spec, abs))
		return 0;
	rc = errno ? -errno : -ENOENT;
	if (gone && (rc = resolve_gone(spec, abs, PATH_MAX)) == 0)
		return 0;
	snprintf(msg, msglen, "%.200s: cannot open scenario file: %s", spec, strerror(-rc));
	return rc;
}

/* The key of device; gone: a scenario file that no longer exists keyed
 * by its path resolved as far as it exists (resolve_gone). */
static int card_key(const char *device, int gone, char *key, size_t keylen, char *msg,
		    size_t msglen)
{
	const char *spec;
	char abs[PATH_MAX];
	int n, rc;

	if (strncmp(device, "sim", 3) != 0 || (device[3] != '\0' && device[3] != ':')) {
		snprintf(msg, msglen, "%.200s: not a simulated card (sim, sim:PRESET or sim:FILE)",
			 device);
		return -EINVAL;
	}
	spec = device[3] ? device + 4 : "";
	if (!*spec)
		n = snprintf(key, keylen, "sim");
	else if (!strchr(spec, '/') && !strchr(spec, '.'))
		n = snprintf(key, keylen, "sim:%s", spec); /* a preset (as sim:NAME takes it) */
	else if ((rc = scenario_path(spec, gone, abs, msg, msglen)) < 0)
		return rc;
	else
		n = snprintf(key, keylen, "sim:%s", abs);
	if (n < 0 || (size_t)n >= keylen) {
		snprintf(msg, msglen, "%.200s: the device string is too long", device);
		return -ENAMETOOLONG;
	}
	return 0;
}

int pt_ext_card_key(const char *device, char *key, size_t keylen, char *msg, size_t msglen)
{
	return card_key(device, 0, key, keylen, msg, msglen);
}

int pt_ext_card_find_key(const char *device, char *key, size_t keylen, char *msg, size_t msglen)
{
	return card_key(device, 1, key, keylen, msg, msglen);
}

int pt_ext_card_path(const char *dir, const char *key, const char *ext, struct sockaddr_un *sa,
		     char *msg, size_t msglen)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
	int n;

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 0x100000001b3u;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/card-%016llx.%s", dir,
		     (unsigned long long)h, ext);
	if (n < 0 || (size_t)n >= sizeof(sa->sun_path)) {
		snprintf(msg, msglen,
			 "%s: the runtime folder's name is too long for a socket (at most %zu "
			 "characters; set PT_NFBEXT_DIR)",
			 dir, sizeof(sa->sun_path) - 28);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Wait for events on fd until the deadline: 1 ready, 0 timed out. */
static int wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		double left = deadline - pt_ext_now();
		int rc;

		if (left <= 0)
			return 0;
		rc = poll(&p, 1, (int)ceil(left * 1000));
		if (rc > 0)
			return 1;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

int pt_ext_send(int fd, struct pt_ext_msg *m, double deadline, char *msg, size_t msglen)
{
	size_t n = PT_EXT_HDR + m->len;

	pt_ext_put32(m->buf, PT_EXT_TAG);
	pt_ext_put32(m->buf + 4, m->type);
	pt_ext_put32(m->buf + 8, m->seq);
	pt_ext_put32(m->buf + 12, m->len);
	for (;;) {
		ssize_t s = send(fd, m->buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		int w;

		if (s == (ssize_t)n)
			return 0;
		if (s >= 0) {
			snprintf(msg, msglen, "short send of a record (%zd of %zu bytes)", s, n);
			return -EIO;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			int e = errno;

			snprintf(msg, msglen, "%s", e == EPIPE || e == ECONNRESET
							     ? "the connection was closed"
							     : strerror(e));
			return e == ECONNRESET ? -EPIPE : -e;
		}
		w = wait_fd(fd, POLLOUT, deadline);
		if (w <= 0) {
			snprintf(msg, msglen, "%s", w == 0 ? "timed out sending" : strerror(-w));
			return w == 0 ? -ETIMEDOUT : w;
		}
	}
}

/* The header of a received record of n bytes. */
static int check_frame(struct pt_ext_msg *m, ssize_t n, int flags, char *msg, size_t msglen)
{
	if ((flags & MSG_TRUNC) || n < (ssize_t)PT_EXT_HDR) {
		snprintf(msg, msglen, "malformed message (%zd bytes%s)", n,
			 (flags & MSG_TRUNC) ? ", too long" : "");
		return -EPROTO;
	}
	m->type = pt_ext_get32(m->buf + 4);
	m->seq = pt_ext_get32(m->buf + 8);
	m->len = pt_ext_get32(m->buf + 12);
	if (pt_ext_get32(m->buf) != PT_EXT_TAG || m->len != (uint32_t)n - PT_EXT_HDR) {
		snprintf(msg, msglen, "malformed message (bad magic or length %u for %zd bytes)",
			 (unsigned)m->len, n);
		return -EPROTO;
	}
	return 0;
}

int pt_ext_recv(int fd, struct pt_ext_msg *m, double deadline, char *msg, size_t msglen)
{
	for (;;) {
		struct iovec iov = { m->buf, sizeof(m->buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		int w;

		if (n > 0)
			return check_frame(m, n, mh.msg_flags, msg, msglen);
		if (n == 0) {
			snprintf(msg, msglen, "the connection was closed");
			return -EPIPE;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			int e = errno;

			snprintf(msg, msglen, "%s",
				 e == ECONNRESET ? "the connection was closed" : strerror(e));
			return e == ECONNRESET ? -EPIPE : -e;
		}
		w = wait_fd(fd, POLLIN, deadline);
		if (w <= 0) {
			snprintf(msg, msglen, "%s", w == 0 ? "timed out waiting for the reply" : strerror(-w));
			return w == 0 ? -ETIMEDOUT : w;
		}
	}
}

int pt_ext_check_peer(int fd, const char *what, char *msg, size_t msglen)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		snprintf(msg, msglen, "%s: cannot check its owner: %s", what, strerror(errno));
		return -errno;
	}
	if (cr.uid != geteuid()) {
		snprintf(msg, msglen, "%s: the other end belongs to uid %u, not to uid %u", what,
			 (unsigned)cr.uid, (unsigned)geteuid());
		return -EACCES;
	}
	return 0;
}

void pt_ext_reply(struct pt_ext_msg *m, int status, const void *extra, size_t extralen,
		  const char *text)
{
	unsigned char *p = pt_ext_payload(m);
	size_t room = PT_EXT_MAX_MSG - PT_EXT_HDR - 4;
	size_t tl = text ? strnlen(text, 1024) : 0;

	m->type |= PT_EXT_REPLY;
	pt_ext_put32(p, (uint32_t)status);
	if (extralen > room)
		extralen = room;
	if (extralen)
		memcpy(p + 4, extra, extralen);
	if (tl > room - extralen)
		tl = room - extralen;
	if (tl)
		memcpy(p + 4 + extralen, text, tl);
	m->len = (uint32_t)(4 + extralen + tl);
}
