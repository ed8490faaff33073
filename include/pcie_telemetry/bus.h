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
 * This header is for the users of a bus.  A backend implements struct
 * pt_bus_ops of src/bus/backend.h; pt_bus_open() (library pt_bus_open)
 * picks one by the prefix of the device string.
 *
 * Prefix: pt_bus_.  Errors: negative errno values; the message of the last
 * failure is pt_bus_message().
 */
#ifndef PCIE_TELEMETRY_BUS_H
#define PCIE_TELEMETRY_BUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for any message of a backend (with its NUL). */
#define PT_BUS_MSG_LEN 512

/* An open backend; its parts are the backends' business (src/bus/backend.h). */
struct pt_bus;

/*
 * Open a backend from a device string:
 *   image:FILE                       register image replay
 *   sim | sim:PRESET | sim:FILE      simulated card
 *   pci:DOMAIN:BUS:DEV.FN[/BAR]@OFFSET   PCI BAR through sysfs
 *   mmap:FILE[@OFFSET][,rw]          64 KiB of any file, as pci: maps them;
 *                                    the file is written only with ,rw
 *   libnfb-ext:LIBRARY:ARGS          a libnfb extension, loaded as libnfb
 *                                    loads it (also the old form: a device
 *                                    holding "libnfb-ext-"); index selects
 *                                    among its components
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

/* Flags of pt_bus_open_ex(). */
enum {
	/* A simulated card runs in the background at the pace of the wall
	 * clock (pt_bus_sim_realtime); no effect on any other device, whose
	 * clock is real (or recorded) already. */
	PT_BUS_REALTIME = 1u << 0,
};
/* pt_bus_open() with flags. */
int pt_bus_open_ex(const char *device, unsigned index, unsigned flags, struct pt_bus **out,
		   char *msg, size_t msglen);

/* Thin wrappers that count transactions and keep the message of a
 * failure (pt_bus_message). */
int pt_bus_read32(struct pt_bus *b, uint32_t off, uint32_t *val);
int pt_bus_write32(struct pt_bus *b, uint32_t off, uint32_t val);
/* A write and the device's clock right after it, with nothing of the
 * device's in between (a simulated card in real time runs in a thread of
 * its own); *seconds as pt_bus_now() gives it.  One transaction. */
int pt_bus_write32_timed(struct pt_bus *b, uint32_t off, uint32_t val, double *seconds);
int pt_bus_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n);
int pt_bus_now(struct pt_bus *b, double *seconds);
int pt_bus_wait(struct pt_bus *b, double seconds);

/* The device string it was opened with ("image:r.regs", "sim:tx-4K"). */
const char *pt_bus_device(const struct pt_bus *b);
/* The message of the last failed call ("" after a call that succeeded). */
const char *pt_bus_message(const struct pt_bus *b);
/* Bus transactions issued so far: one per read32/write32 call, one per
 * read_block call (a block is one transfer on the real bus). */
unsigned long pt_bus_transactions(const struct pt_bus *b);
/* The backend: "image", "sim", "pci", "nfb", "libnfb-ext". */
const char *pt_bus_kind(const struct pt_bus *b);
/* How many seconds the device's clock lags behind the wall clock: a
 * simulated card in real time that cannot keep up; 0 for every other
 * device.  Thread-safe. */
double pt_bus_lag(struct pt_bus *b);

/* Per-backend constructors (used by pt_bus_open, and by tests).  The
 * simulated card's is in library pt_bus_sim, which brings the card. */
int pt_bus_open_image(const char *path, struct pt_bus **out, char *msg, size_t msglen);
/* The same from a buffer (name is used in messages: "NAME:LINE: ..."). */
int pt_bus_open_image_mem(const char *name, const void *data, size_t len, struct pt_bus **out,
			  char *msg, size_t msglen);
int pt_bus_open_sim(const char *spec, struct pt_bus **out, char *msg, size_t msglen);
/*
 * Wrap an open `sim` bus so that its card runs in a background thread at
 * the pace of the wall clock: now() is the card's simulated time, which
 * follows the wall clock (less pt_bus_lag()); wait() sleeps in wall time.
 * Every access is serialised with the thread, and waits at most for one
 * millisecond of simulated time.  Any thread may use the wrapper, but like
 * every pt_bus only one call at a time: callers on several threads take
 * turns under a lock of their own (the call counts transactions and keeps
 * the message of its failure in the bus).  On success the wrapper owns
 * inner (closing it closes inner); on failure the caller still does.
 */
int pt_bus_sim_realtime(struct pt_bus *inner, struct pt_bus **out, char *msg, size_t msglen);
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
/* A libnfb extension (src/bus/nfbext.c, docs/nfb-ext.md): the whole
 * device string, in either form libnfb takes; pt_bus_is_nfbext() tells
 * whether a string is one.  Replays the recorded times of an image the
 * extension names in its device tree; real time otherwise. */
int pt_bus_open_nfbext(const char *device, unsigned index, struct pt_bus **out, char *msg,
		       size_t msglen);
int pt_bus_is_nfbext(const char *device);
/* 1 when this build has the libnfb backend. */
int pt_bus_have_nfb(void);

/*
 * What this machine offers, for `nfb-pcie-telemetry --list-devices`:
 *   "nfb"  every libnfb device (/dev/nfbN, and $LIBNFB_DEFAULT_DEV when it
 *          names another one), one entry per PCIe telemetry component
 *          (-d DEVICE -i INDEX), or one entry with index -1 when it holds
 *          none or cannot be opened (note says why); none in a build
 *          without libnfb
 *   "pci"  every PCI function of a CESNET card (vendor 0x18ec) in sysfs,
 *          whatever its driver: device is "pci:DOMAIN:BUS:DEV.FN", to
 *          which the component's offset in its BAR must be added
 * The sysfs root is $PT_SYSFS_ROOT when set (for tests: a fake tree), else
 * /sys; pt_bus_open_pci() uses the same.  *out is an array of *n entries
 * (NULL when none), freed with free().  Returns 0 or a negative errno
 * with a one-line message.
 */
struct pt_bus_found {
	char kind[8];          /* "nfb" or "pci" */
	char device[256];      /* what -d takes (pci: without @OFFSET) */
	int index;             /* -i of the component; -1: none */
	char path[256];        /* nfb: the component's DeviceTree path; pci: the sysfs folder */
	char note[256];        /* nfb: why the device cannot be used, "" when it can */
	unsigned vendor, device_id, subsystem_vendor, subsystem_device; /* pci */
	char driver[64];       /* pci: the bound driver ("nfb"), "" when none */
	uint64_t bar_size[6];  /* pci: size of each memory BAR, 0 when none */
};
int pt_bus_list(struct pt_bus_found **out, size_t *n, char *msg, size_t msglen);
/* The sysfs root: $PT_SYSFS_ROOT or "/sys". */
const char *pt_bus_sysfs_root(void);

/*
 * Stop requests (async-signal-safe): a signal handler calls
 * pt_bus_request_stop(); a backend's wait() then returns -EINTR early
 * instead of sleeping on, and callers can check pt_bus_stop_requested().
 */
void pt_bus_request_stop(void);
int pt_bus_stop_requested(void);
void pt_bus_clear_stop(void);

#ifdef __cplusplus
}
#endif
#endif
