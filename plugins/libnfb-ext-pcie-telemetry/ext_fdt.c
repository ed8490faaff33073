/*
 * pcie-telemetry: the device tree the extension hands to libnfb, as the
 * real firmware has it (shared/spec/libnfb.md sections 2 and 5):
 *
 *   /firmware/mi_bus0                compatible "netcope,bus,mi", resource
 *     pcie_telemetry_mi[N]           compatible "cesnet,ofm,pcie_telemetry_mi",
 *                                    reg <base 0x10000>, version <0x00010000>,
 *                                    pcie-endpoints <CFG_TOPOLOGY.ENDPOINTS>
 *   /system/device                   card-id <0>
 *   /drivers/libnfb-ext              devname (informative, as libnfb-ext-grpc
 *                                    adds it); for images one replayN node per
 *                                    component: component (its path), file,
 *                                    snapshot-times (the recorded @snapshot
 *                                    times, "%.17g" strings: exact doubles)
 *
 * libfdt adds a subnode in front of its siblings, so nodes are added last
 * first: the components are then in document order, the order of
 * nfb_comp_find().
 */
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfbext/abi.h"
#include "ext_priv.h"
#include "pcie_telemetry/regs.h"

#define DT_VERSION 0x00010000u /* the firmware's DevTree.tcl */
#define SPARE 16384            /* room for nodes libnfb's callers add */

/* fdt_setprop_string, without its size_t-to-int conversion. */
static int set_str(void *fdt, int node, const char *name, const char *value)
{
	return fdt_setprop(fdt, node, name, value, (int)strlen(value) + 1);
}

static void comp_name(const struct ext_dev *d, unsigned i, char *name, size_t len)
{
	if (d->ncomps == 1)
		snprintf(name, len, "pcie_telemetry_mi");
	else
		snprintf(name, len, "pcie_telemetry_mi%u", i);
}

/* rc of a libfdt call, checked: a negative one stops the build. */
#define TRY(x)                            \
	do {                              \
		int r_ = (x);             \
		if (r_ < 0)               \
			return r_;        \
	} while (0)

static int add_comp(void *fdt, int bus, const struct ext_dev *d, unsigned i)
{
	char name[32];
	fdt32_t reg[2] = { cpu_to_fdt32(EXT_BASE + i * PT_COMP_SPAN), cpu_to_fdt32(PT_COMP_SPAN) };
	int n;

	comp_name(d, i, name, sizeof(name));
	TRY(n = fdt_add_subnode(fdt, bus, name));
	TRY(set_str(fdt, n, "compatible", PT_NFB_COMPATIBLE));
	TRY(fdt_setprop(fdt, n, "reg", reg, sizeof(reg)));
	TRY(fdt_setprop_u32(fdt, n, "version", DT_VERSION));
	TRY(fdt_setprop_u32(fdt, n, "pcie-endpoints", d->comp[i].endpoints));
	return 0;
}

/* snapshot-times: one stringlist, built whole (appending would move the
 * tree once per time). */
static int set_times(void *fdt, int node, const struct ext_comp *c)
{
	char *list = malloc(24 * c->ntimes + 1);
	size_t len = 0;
	int rc;

	if (!list)
		return -FDT_ERR_NOSPACE;
	for (size_t k = 0; k < c->ntimes; k++)
		len += (size_t)snprintf(list + len, 24, "%.17g", c->times[k]) + 1;
	rc = fdt_setprop(fdt, node, "snapshot-times", list, (int)len);
	free(list);
	return rc;
}

static int add_replay(void *fdt, int drv, const struct ext_dev *d, unsigned i)
{
	const struct ext_comp *c = &d->comp[i];
	char name[32], path[96];
	int n;

	snprintf(name, sizeof(name), "replay%u", i);
	TRY(n = fdt_add_subnode(fdt, drv, name));
	comp_name(d, i, name, sizeof(name));
	snprintf(path, sizeof(path), "/firmware/mi_bus0/%s", name);
	TRY(set_str(fdt, n, "component", path));
	TRY(set_str(fdt, n, "file", c->file));
	return set_times(fdt, n, c);
}

static int build(void *fdt, int size, const struct ext_dev *d)
{
	int fw, bus, sys, dev, drv, ext;

	TRY(fdt_create_empty_tree(fdt, size));
	TRY(drv = fdt_add_subnode(fdt, 0, "drivers"));
	TRY(ext = fdt_add_subnode(fdt, drv, "libnfb-ext"));
	TRY(set_str(fdt, ext, "devname", d->devname));
	for (unsigned i = d->kind == EXT_IMAGE ? d->ncomps : 0; i-- > 0;)
		TRY(add_replay(fdt, ext, d, i));
	TRY(sys = fdt_add_subnode(fdt, 0, "system"));
	TRY(dev = fdt_add_subnode(fdt, sys, "device"));
	TRY(fdt_setprop_u32(fdt, dev, "card-id", 0));
	TRY(fw = fdt_add_subnode(fdt, 0, "firmware"));
	TRY(set_str(fdt, fw, "card-name", "PCIE-TELEMETRY-SIM"));
	TRY(set_str(fdt, fw, "project-name", "pcie-telemetry"));
	TRY(bus = fdt_add_subnode(fdt, fw, "mi_bus0"));
	TRY(set_str(fdt, bus, "compatible", PT_NFB_BUS_COMPATIBLE));
	TRY(set_str(fdt, bus, "resource", "PCI0,BAR0"));
	for (unsigned i = d->ncomps; i-- > 0;)
		TRY(add_comp(fdt, bus, d, i));
	return 0;
}

int ext_fdt_build(const struct ext_dev *d, void **out, char *msg, size_t msglen)
{
	size_t size = 4096 + SPARE + strlen(d->devname);
	void *fdt;
	int rc;

	for (unsigned i = 0; i < d->ncomps; i++)
		size += 512 + (d->comp[i].file ? strlen(d->comp[i].file) : 0) +
			24 * d->comp[i].ntimes;
	for (;;) {
		if (size > 0x7fffffff || !(fdt = malloc(size))) {
			snprintf(msg, msglen, "out of memory for the device tree");
			return -ENOMEM;
		}
		rc = build(fdt, (int)size, d);
		/* keep SPARE bytes free for the caller */
		if (rc == 0 && fdt_totalsize(fdt) - fdt_off_dt_strings(fdt) - fdt_size_dt_strings(fdt) >= SPARE)
			break;
		free(fdt);
		if (rc < 0 && rc != -FDT_ERR_NOSPACE) {
			snprintf(msg, msglen, "cannot build the device tree: %s", fdt_strerror(rc));
			return -EIO;
		}
		size *= 2;
	}
	*out = fdt;
	return 0;
}
