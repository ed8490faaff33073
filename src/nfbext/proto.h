/*
 * pcie-telemetry: the protocol between the libnfb extension and ptsimd,
 * the daemon that owns a simulated card (docs/nfb-ext.md).
 *
 * One card per key: the canonical form of the device ("sim",
 * "sim:PRESET", "sim:/absolute/scenario.ini"), served on the UNIX socket
 * DIR/card-HASH.sock (SOCK_SEQPACKET: one record per message), where DIR
 * is $PT_NFBEXT_DIR, else $XDG_RUNTIME_DIR/pcie-telemetry, else
 * /tmp/pcie-telemetry-UID; DIR must be a folder of the user, closed to
 * everyone else.  Both ends check the other's uid (SO_PEERCRED).
 *
 * A message is a 16-byte header (magic, type, sequence number, payload
 * length; little-endian) and its payload; its length must match the
 * record exactly.  Requests and their replies (type | PT_EXT_REPLY):
 *   HELLO  u32 protocol version, key        -> i32 status, u32 pid, text
 *          (an empty key reaches whatever card the socket serves)
 *   READ   u32 offset, u32 nbyte            -> i32 status, data | text
 *   WRITE  u32 offset, u32 nbyte, data      -> i32 status, text
 *   INFO                                     -> i32 status, text (key=value lines)
 *   STOP                                     -> i32 status; the daemon ends
 * offset is relative to the component; status is 0 or a negative errno,
 * text a one-line message.  Every socket operation has a deadline, and
 * nothing raises SIGPIPE (MSG_NOSIGNAL).
 *
 * Prefix: pt_ext_.  Errors: negative errno with a one-line message.
 */
#ifndef PT_NFBEXT_PROTO_H
#define PT_NFBEXT_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include "pcie_telemetry/bus.h"

#define PT_EXT_PROTO_VERSION 1u
#define PT_EXT_TAG 0x31585450u /* "PTX1" */
#define PT_EXT_HDR 16u
/* The largest access: the whole 64 KiB window of the component. */
#define PT_EXT_MAX_DATA 0x10000u
#define PT_EXT_MAX_MSG (PT_EXT_HDR + 8u + PT_EXT_MAX_DATA)
#define PT_EXT_KEY_MAX 4096u

enum pt_ext_type {
	PT_EXT_HELLO = 1,
	PT_EXT_READ = 2,
	PT_EXT_WRITE = 3,
	PT_EXT_INFO = 4,
	PT_EXT_STOP = 5,
	PT_EXT_REPLY = 0x80,
};

/* Defaults of the environment (docs/nfb-ext.md). */
#define PT_EXT_TIMEOUT_DEFAULT 5.0 /* PT_NFBEXT_TIMEOUT: one socket operation */
#define PT_EXT_IDLE_DEFAULT 60.0   /* PT_NFBEXT_IDLE: daemon life without clients */
#define PT_EXT_START_FACTOR 6.0    /* a card comes up within 6 timeouts */
#define PT_EXT_SECONDS_MAX 1e6     /* the largest of them (and of --idle) */

struct pt_ext_msg {
	uint32_t type;
	uint32_t seq;
	uint32_t len;
	unsigned char buf[PT_EXT_MAX_MSG]; /* header, then payload */
};

static inline unsigned char *pt_ext_payload(struct pt_ext_msg *m)
{
	return m->buf + PT_EXT_HDR;
}

/* Little-endian fields. */
void pt_ext_put32(unsigned char *p, uint32_t v);
uint32_t pt_ext_get32(const unsigned char *p);

/* Seconds as text: a finite number from 0 to PT_EXT_SECONDS_MAX into
 * *out, else -EINVAL (*out unchanged). */
int pt_ext_parse_seconds(const char *v, double *out);
/* A seconds value from the environment variable name (as
 * pt_ext_parse_seconds takes it), or deflt when it is unset or empty;
 * -EINVAL with a message for anything else. */
int pt_ext_env_seconds(const char *name, double deflt, double *out, char *msg, size_t msglen);
/* CLOCK_MONOTONIC in seconds. */
double pt_ext_now(void);

/* The runtime folder (created 0700 when missing, checked: a folder, not a
 * link, owned by the user, no access for group or others). */
int pt_ext_dir(char *dir, size_t dirlen, char *msg, size_t msglen);
/* The same for finding the cards that run (ptsimd stop and status): a
 * missing folder is not created (no card runs then): 0 with its name in
 * dir; one that exists is checked as above. */
int pt_ext_dir_find(char *dir, size_t dirlen, char *msg, size_t msglen);
/* The canonical key of a card device "sim[:PRESET|:FILE]": "sim",
 * "sim:NAME" (no '/' or '.': a preset, as sim:NAME takes it), or "sim:"
 * and the absolute path of a scenario file, which must exist. */
int pt_ext_card_key(const char *device, char *key, size_t keylen, char *msg, size_t msglen);
/* The key a card of device runs under, for finding it (ptsimd stop and
 * status): pt_ext_card_key's, and for a scenario file that is gone, its
 * path resolved as far as it still exists (realpath() of that part, a
 * dangling link followed), the rest lexically ("." and ".." resolved):
 * the key the card got while the file existed, unless a link on the way
 * changed since.  Never use it to start a card. */
int pt_ext_card_find_key(const char *device, char *key, size_t keylen, char *msg, size_t msglen);
/* DIR/card-HASH.EXT for a key (ext "sock", "lock", "log"). */
int pt_ext_card_path(const char *dir, const char *key, const char *ext, struct sockaddr_un *sa,
		     char *msg, size_t msglen);

/* Send one message (header from m->type, m->seq, m->len) before the
 * deadline (CLOCK_MONOTONIC seconds); never raises SIGPIPE. */
int pt_ext_send(int fd, struct pt_ext_msg *m, double deadline, char *msg, size_t msglen);
/* Receive one message before the deadline and check its framing; 0 when
 * the peer has closed the connection (-EPIPE), a negative errno with a
 * message otherwise. */
int pt_ext_recv(int fd, struct pt_ext_msg *m, double deadline, char *msg, size_t msglen);
/* The uid at the other end of a connected socket must be ours. */
int pt_ext_check_peer(int fd, const char *what, char *msg, size_t msglen);

/* Set the payload of a reply: status, then extra bytes (may be NULL),
 * then text (may be NULL). */
void pt_ext_reply(struct pt_ext_msg *m, int status, const void *extra, size_t extralen,
		  const char *text);

/*
 * Byte-granular access to one component through a bus, as libnfb's
 * callers make them: a read of any length and alignment inside the
 * 64 KiB window reads the words that cover it (one block transfer), a
 * write must be whole aligned 32-bit words.  nbyte 0 does nothing.
 */
int pt_ext_comp_read(struct pt_bus *b, uint32_t off, void *buf, size_t nbyte, char *msg,
		     size_t msglen);
int pt_ext_comp_write(struct pt_bus *b, uint32_t off, const void *buf, size_t nbyte, char *msg,
		      size_t msglen);

/* A client connection to the card of a key: connect, check the peer,
 * HELLO.  Fills *pid with the daemon's pid.  -ENOENT / -ECONNREFUSED when
 * no daemon serves the key (start one). */
int pt_ext_connect(const char *key, double timeout, int *fd, int *pid, char *msg, size_t msglen);
/* The same on a socket file; key "" reaches any card (ptsimd stop
 * --all, status). */
int pt_ext_connect_path(const char *sock, const char *key, double timeout, int *fd, int *pid,
			char *msg, size_t msglen);
/* One request and its reply on a connection (m in, reply out). */
int pt_ext_call(int fd, struct pt_ext_msg *m, double timeout, char *msg, size_t msglen);

#endif
