/*
 * pcie-telemetry: the inside of the libnfb extension
 * libnfb-ext-pcie-telemetry.so (private to this folder).
 *
 * A device is either a simulated card, reached through its daemon
 * (ext_card.c), or register images replayed in this process (ext.c); its
 * components sit on one MI bus at EXT_BASE + i * PT_COMP_SPAN, so the
 * bus address of an access names the component.
 */
#ifndef PT_NFBEXT_EXT_PRIV_H
#define PT_NFBEXT_EXT_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "nfbext/proto.h"
#include "pcie_telemetry/bus.h"

#define EXT_NAME "libnfb-ext-pcie-telemetry"
#define EXT_BASE 0x00100000u /* the first component's base on the MI bus */
#define EXT_MAX_COMPS 64u

enum ext_kind { EXT_SIM, EXT_IMAGE };

struct ext_comp {
	struct pt_bus *bus; /* images: the replay */
	char *file;
	unsigned endpoints; /* CFG_TOPOLOGY.ENDPOINTS, for pcie-endpoints */
	double *times;      /* images: the @snapshot times */
	size_t ntimes;
};

struct ext_dev {
	enum ext_kind kind;
	pthread_mutex_t mu; /* one access at a time */
	int msgfd;          /* PT_NFBEXT_MSGFD, or -1: stderr */
	double timeout;     /* PT_NFBEXT_TIMEOUT */
	char *devname;
	unsigned ncomps;
	struct ext_comp comp[EXT_MAX_COMPS];
	/* EXT_SIM: the connection to the card's daemon */
	char key[PT_EXT_KEY_MAX];
	int fd, pid, dead;
	uint32_t seq;
	struct pt_ext_msg *m;
};

/* Report one line: to PT_NFBEXT_MSGFD when set, else to stderr as
 * "libnfb-ext-pcie-telemetry: ...". */
void ext_say(int msgfd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The simulated card: connect to its daemon (starting it when none
 * runs), read its topology; the access of one component. */
int ext_card_open(struct ext_dev *d, char *msg, size_t msglen);
void ext_card_close(struct ext_dev *d);
int ext_card_access(struct ext_dev *d, int write, uint32_t off, void *buf, size_t nbyte);

/* The device tree of d, malloc'ed (free space kept for the caller). */
int ext_fdt_build(const struct ext_dev *d, void **fdt, char *msg, size_t msglen);

#endif
