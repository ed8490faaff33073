/*
 * pcie-telemetry: register-access backends.
 *
 * One small interface for every way of reaching the registers of one
 * PCIE_TELEMETRY_MI component: a register image (replay), the simulated
 * card, a PCI BAR mapped through sysfs, and libnfb.  The rest of the code
 * never knows which backend it talks to.
 *
 * The interface also carries the device's clock: a real device sleeps in
 * wait() and reads CLOCK_MONOTONIC in now(); the simulated card advances
 * simulated time; a register image reports the times it recorded.
 *
 * Prefix: pt_bus_.  Errors: negative errno values; the message of the last
 * failure is in bus->msg.
 */
#ifndef PCIE_TELEMETRY_BUS_H
#define PCIE_TELEMETRY_BUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PT_BUS_MSG_LEN 512

/* Size of the component's address window. */
#define PT_COMP_SPAN 0x10000u

struct pt_bus;

struct pt_bus_ops {
	const char *kind; /* "image", "sim", "pci", "nfb" */
	int (*read32)(struct pt_bus *b, uint32_t off, uint32_t *val);
	int (*write32)(struct pt_bus *b, uint32_t off, uint32_t val);
	/* n consecutive 32-bit words from off (the counter window). */
	int (*read_block)(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n);
	/* The device's clock, in seconds (any origin). */
	int (*now)(struct pt_bus *b, double *seconds);
	/* Let the device run for that long (sleep, or simulate). */
	int (*wait)(struct pt_bus *b, double seconds);
	/* Release b->priv and whatever the backend holds; pt_bus_close() then
	 * frees the struct pt_bus itself. */
	void (*close)(struct pt_bus *b);
};

struct pt_bus {
	const struct pt_bus_ops *ops;
	void *priv;
	/* Bus transactions issued so far: one per read32/write32 call, one
	 * per read_block call (a block is one transfer on the real bus). */
	unsigned long transactions;
	char device[256];      /* the device string it was opened with */
	char msg[PT_BUS_MSG_LEN];
};

/*
 * Open a backend from a device string:
 *   image:FILE                       register image replay
 *   sim | sim:PRESET | sim:FILE      simulated card
 *   pci:DOMAIN:BUS:DEV.FN[/BAR]@OFFSET   PCI BAR through sysfs
 *   mmap:FILE[@OFFSET][,rw]          64 KiB of any file, as pci: maps them;
 *                                    the file is written only with ,rw
 *   anything else (or NULL)          libnfb device path (default device when NULL)
 * index selects the component (compatible cesnet,ofm,pcie_telemetry_mi)
 * where the backend can hold more than one; an image and the simulated
 * card hold only index 0.
 * Returns 0 or a negative errno with a one-line message in msg.
 */
int pt_bus_open(const char *device, unsigned index, struct pt_bus **out, char *msg, size_t msglen);
/* The file a device string reads (image:FILE, mmap:FILE..., sim:FILE that
 * is no preset) into path: 1, or 0 for a device that reads no file. */
int pt_bus_device_file(const char *device, char *path, size_t pathlen);
void pt_bus_close(struct pt_bus *b);

/* Thin wrappers that count transactions and keep errors in b->msg. */
int pt_bus_read32(struct pt_bus *b, uint32_t off, uint32_t *val);
int pt_bus_write32(struct pt_bus *b, uint32_t off, uint32_t val);
int pt_bus_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n);
int pt_bus_now(struct pt_bus *b, double *seconds);
int pt_bus_wait(struct pt_bus *b, double seconds);

/* Per-backend constructors (used by pt_bus_open, and by tests). */
int pt_bus_open_image(const char *path, struct pt_bus **out, char *msg, size_t msglen);
/* The same from a buffer (name is used in messages: "NAME:LINE: ..."). */
int pt_bus_open_image_mem(const char *name, const void *data, size_t len, struct pt_bus **out,
			  char *msg, size_t msglen);
int pt_bus_open_sim(const char *spec, struct pt_bus **out, char *msg, size_t msglen);
int pt_bus_open_pci(const char *spec, struct pt_bus **out, char *msg, size_t msglen);
/* Maps the 64 KiB at `offset` of a regular file (a register dump, a
 * sysfs resource file) with the same code path as pt_bus_open_pci.
 * Without PT_BUS_MMAP_WRITE the mapping is private: writes (COMMAND) are
 * seen by later reads but never reach the file.  With it, the file is
 * mapped read-only and read-write from the first write on, as a BAR. */
#define PT_BUS_MMAP_WRITE 1u
int pt_bus_open_mmap_file(const char *path, uint64_t offset, unsigned flags, struct pt_bus **out,
			  char *msg, size_t msglen);
int pt_bus_open_nfb(const char *path, unsigned index, struct pt_bus **out, char *msg, size_t msglen);
/* 1 when this build has the libnfb backend. */
int pt_bus_have_nfb(void);

/*
 * Stop requests (async-signal-safe): a signal handler calls
 * pt_bus_request_stop(); a backend's wait() then returns -EINTR early
 * instead of sleeping on, and callers can check pt_bus_stop_requested().
 */
void pt_bus_request_stop(void);
int pt_bus_stop_requested(void);
void pt_bus_clear_stop(void);

/* Helpers for backends. */
struct pt_bus *pt_bus_alloc(const struct pt_bus_ops *ops, const char *device);
int pt_bus_fail(struct pt_bus *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The clock of a real device: now() is CLOCK_MONOTONIC, wait() sleeps
 * (nothing for a non-positive interval; a stop request ends it early
 * with -EINTR). */
int pt_bus_realtime_now(struct pt_bus *b, double *seconds);
int pt_bus_realtime_wait(struct pt_bus *b, double seconds);

#ifdef __cplusplus
}
#endif
#endif
