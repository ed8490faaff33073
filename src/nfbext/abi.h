/*
 * pcie-telemetry: the libnfb extension ABI, version 1.x (CESNET ndk-sw,
 * header <nfb/ext.h>), declared from shared/spec/libnfb.md sections 2
 * and 5; libnfb's own headers are not needed to build or load an
 * extension.
 *
 * A device string "libnfb-ext:LIBRARY:REST" (or the old form, any string
 * holding "libnfb-ext-": LIBRARY up to the first ':') makes libnfb
 * dlopen(LIBRARY, RTLD_NOW), check libnfb_ext_abi_version.major, call
 * libnfb_ext_get_ops(REST, &ops) (>0 mine, 0 not mine, <0 error), check
 * that the first six ops are set, and call ops.open(REST, ...).  Every
 * nfb_comp_open() calls bus_open_mi(); nfb_comp_read/write() call the
 * bus ops with the absolute bus address (component base + offset), after
 * libnfb checked offset + nbyte against the component's size.
 *
 * Used by the extension (plugins/libnfb-ext-pcie-telemetry/), by the
 * libnfb-ext backend of the tool (src/bus/nfbext.c), which loads an
 * extension as libnfb does, and by the harness test.
 */
#ifndef PT_NFBEXT_ABI_H
#define PT_NFBEXT_ABI_H

#include <stdint.h>
#include <sys/types.h>

struct nfb_device;
struct nfb_comp;
struct ndp_queue;

struct libnfb_ext_abi_version {
	uint32_t major;
	uint32_t minor;
};
#define libnfb_ext_abi_version_current { 1, 0 }
#define LIBNFB_EXT_ABI_MAJOR 1u

/* Register access of one open bus: nbyte bytes at the absolute bus
 * address offset; they return nbyte, or -1, and accept nbyte == 0. */
typedef ssize_t nfb_bus_read_func(void *bus_priv, void *buf, size_t nbyte, off_t offset);
typedef ssize_t nfb_bus_write_func(void *bus_priv, const void *buf, size_t nbyte, off_t offset);

struct libnfb_bus_ext_ops {
	nfb_bus_read_func *read;
	nfb_bus_write_func *write;
};

struct libnfb_ext_ops {
	/* 0 and *priv, *fdt set (a malloc'ed FDT blob that libnfb frees),
	 * or non-zero (not copied to errno: set errno yourself). */
	int (*open)(const char *devname, int oflag, void **priv, void **fdt);
	void (*close)(void *priv);
	/* 0 and *bus_priv, ops set, or a positive errno (libnfb stores it
	 * in errno; it never calls bus_close_mi after a failure). */
	int (*bus_open_mi)(void *dev_priv, int bus_node, int comp_node, void **bus_priv,
			   struct libnfb_bus_ext_ops *ops);
	void (*bus_close_mi)(void *bus_priv);
	/* 1 locked; 0 or -EBUSY busy; other negative values are errors. */
	int (*comp_lock)(const struct nfb_comp *comp, uint32_t features);
	void (*comp_unlock)(const struct nfb_comp *comp, uint32_t features);
	/* May be NULL (no DMA queues). */
	int (*ndp_queue_open)(struct nfb_device *dev, void *dev_priv, unsigned index, int dir,
			      int flags, struct ndp_queue **pq);
	int (*ndp_queue_close)(struct ndp_queue *q);
};

typedef int libnfb_ext_get_ops_t(const char *devname, struct libnfb_ext_ops *ops);

/* The two symbols an extension exports (a loader finds them with
 * dlsym, by these names). */
extern struct libnfb_ext_abi_version libnfb_ext_abi_version;
libnfb_ext_get_ops_t libnfb_ext_get_ops;
#define LIBNFB_EXT_SYM_VERSION "libnfb_ext_abi_version"
#define LIBNFB_EXT_SYM_GET_OPS "libnfb_ext_get_ops"

/* The component and the bus of the device tree. */
#define PT_NFB_COMPATIBLE "cesnet,ofm,pcie_telemetry_mi"
#define PT_NFB_BUS_COMPATIBLE "netcope,bus,mi"

#endif
