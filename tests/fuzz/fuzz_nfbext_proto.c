/*
 * Fuzz target: the daemon's end of the extension's protocol (ptsimd,
 * src/nfbext/server.c) on arbitrary records, as a client of our uid could
 * send them.  The input is a run of records, each a 16-bit little-endian
 * length and that many bytes; each goes as one SOCK_SEQPACKET message
 * through a socket pair into pt_ext_recv(), which checks its framing, and
 * a framed one into pt_ext_answer() over a component mapped from a file
 * (mmap:, private: nothing is written back; the file is removed at once).  A client that is dropped is
 * replaced by a new one, as the daemon would accept it.
 *
 * Checked: nothing crashes, hangs or leaks; every refusal and every drop
 * has its message; every reply is a reply (type | PT_EXT_REPLY) of the
 * request's sequence number, fits a message, starts with a status that is
 * 0 or a negative errno, carries the data of a successful READ whole, and
 * goes through pt_ext_send() and back through pt_ext_recv() unchanged.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nfbext/proto.h"
#include "nfbext/server_priv.h"
#include "pcie_telemetry/bus.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pt_bus *bus;
static struct pt_ext_state st;
static struct pt_ext_msg back;

/* A 64 KiB component of zeros mapped from a file, once. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[] = "/tmp/fuzz_nfbext_XXXXXX", dev[64], msg[PT_BUS_MSG_LEN];
	int fd = mkstemp(path);

	(void)argc;
	(void)argv;
	if (fd < 0 || ftruncate(fd, 0x10000) < 0)
		abort();
	close(fd);
	snprintf(dev, sizeof(dev), "mmap:%s", path);
	if (pt_bus_open(dev, 0, &bus, msg, sizeof msg) < 0)
		abort();
	unlink(path);
	return 0;
}

/* The reply in st.m to a request of type t and sequence seq is sound. */
static void check_reply(uint32_t t, uint32_t seq, uint32_t nbyte)
{
	const unsigned char *p = pt_ext_payload(&st.m);
	int32_t status = (int32_t)pt_ext_get32(p);

	if (st.m.type != (t | PT_EXT_REPLY) || st.m.seq != seq || st.m.len < 4 ||
	    st.m.len > PT_EXT_MAX_MSG - PT_EXT_HDR || status > 0 || status < -4095)
		abort();
	if (t == PT_EXT_READ && status == 0 && st.m.len != 4 + nbyte)
		abort();
}

/* Send the reply and take it back: the same bytes. */
static void round_trip(int fd[2])
{
	char msg[PT_BUS_MSG_LEN];
	uint32_t len = st.m.len;

	if (pt_ext_send(fd[1], &st.m, pt_ext_now() + 1.0, msg, sizeof msg) < 0 ||
	    pt_ext_recv(fd[0], &back, pt_ext_now() + 1.0, msg, sizeof msg) < 0 || back.len != len ||
	    back.type != st.m.type || memcmp(back.buf, st.m.buf, PT_EXT_HDR + len) != 0)
		abort();
}

/* One record: sent, received, answered. */
static void one(int fd[2], struct pt_ext_client *c, const uint8_t *rec, size_t n)
{
	char why[PT_BUS_MSG_LEN] = "";
	uint32_t t, seq, nbyte;

	if (send(fd[0], rec, n, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)n)
		return;
	if (pt_ext_recv(fd[1], &st.m, pt_ext_now() + 1.0, why, sizeof why) < 0) {
		if (!why[0])
			abort();
		c->hello = 0; /* dropped: the next record is a new client's */
		return;
	}
	t = st.m.type;
	seq = st.m.seq;
	nbyte = st.m.len >= 8 ? pt_ext_get32(pt_ext_payload(&st.m) + 4) : 0;
	if (pt_ext_answer(&st, c, why, sizeof why) < 0) {
		if (!why[0])
			abort();
		c->hello = 0;
		return;
	}
	check_reply(t, seq, nbyte);
	round_trip(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_ext_server srv = { .key = "sim:idle", .sock = "", .bus = bus, .listen_fd = -1 };
	struct pt_ext_client c = { .fd = -1, .hello = 0 };
	int fd[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fd) < 0)
		return 0;
	memset(&st, 0, sizeof(st));
	st.s = &srv;
	st.n = 1;
	st.t0 = pt_ext_now();
	for (size_t i = 0; i + 2 <= size && !st.stop;) {
		size_t n = (size_t)data[i] | (size_t)data[i + 1] << 8;

		i += 2;
		if (n > size - i)
			n = size - i;
		if (n > 0)
			one(fd, &c, data + i, n);
		i += n;
	}
	close(fd[0]);
	close(fd[1]);
	return 0;
}
