/*
 * pcie-telemetry: the daemon end of the protocol (proto.h): one
 * simulated card served to every client of one key.
 *
 * Prefix: pt_ext_.  Errors: negative errno with a one-line message.
 */
#ifndef PT_NFBEXT_SERVER_H
#define PT_NFBEXT_SERVER_H

#include <stddef.h>

#include "pcie_telemetry/bus.h"

/* Take the card's lock file (held while the process lives): 0, or -EBUSY
 * when another daemon holds it; *lock_fd is then -1. */
int pt_ext_lock(const char *dir, const char *key, int *lock_fd, char *msg, size_t msglen);
/* Bind and listen on the card's socket (a stale socket file is replaced:
 * call it with the lock held). */
int pt_ext_listen(const char *dir, const char *key, int *listen_fd, char *msg, size_t msglen);

struct pt_ext_server {
	const char *key;     /* the card's key (pt_ext_card_key) */
	const char *sock;    /* the socket file, removed when the loop ends */
	struct pt_bus *bus;  /* the card (PT_BUS_REALTIME) */
	int listen_fd;
	double idle;         /* end after this long without a client; 0: never */
	/* One line about an event (a refused client, a protocol error, the
	 * end); may be NULL. */
	void (*log)(const char *line);
};

/*
 * Serve until the idle time has passed without a client, a client asks
 * for STOP, or pt_bus_stop_requested().  A client that breaks the
 * protocol, is not of our uid, or does not read its replies is dropped;
 * the others are served on.  Returns 0, or a negative errno when the
 * loop itself failed.
 */
int pt_ext_serve(const struct pt_ext_server *s, char *msg, size_t msglen);

#endif
