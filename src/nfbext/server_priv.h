/*
 * pcie-telemetry: the daemon's state and its answer to one request,
 * private to server.c and the tests (the fuzz target answers requests
 * without a socket loop around them).
 */
#ifndef PT_NFBEXT_SERVER_PRIV_H
#define PT_NFBEXT_SERVER_PRIV_H

#include <stddef.h>

#include "nfbext/proto.h"
#include "nfbext/server.h"

#define PT_EXT_MAX_CLIENTS 64

struct pt_ext_client {
	int fd;
	int hello; /* HELLO done */
};

struct pt_ext_state {
	const struct pt_ext_server *s;
	struct pt_ext_client c[PT_EXT_MAX_CLIENTS];
	unsigned n;
	int stop;  /* a client asked for STOP */
	double t0; /* when the loop began (pt_ext_now) */
	struct pt_ext_msg m; /* the request, then its reply */
	unsigned char data[PT_EXT_MAX_DATA];
};

/*
 * Answer the request in st->m from client c (received and framed by
 * pt_ext_recv): st->m becomes the reply, to be sent, and 0 is returned;
 * a STOP also sets st->stop.  -EPROTO with a message in why when the
 * client must be dropped instead (a request before HELLO, an unknown
 * type).  Access errors are replies, never drops.
 */
int pt_ext_answer(struct pt_ext_state *st, struct pt_ext_client *c, char *why, size_t whylen);

#endif
