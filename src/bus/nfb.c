/*
 * pcie-telemetry: the libnfb backend (CESNET ndk-sw).
 *
 * The component is found by its compatible string and index, as the
 * upstream tool finds it.  Built only when pkg-config finds
 * nfb-framework (PT_HAVE_NFB); otherwise opening an NFB device says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus/backend.h"

#ifdef PT_HAVE_NFB
#ifndef PT_NFB_DECLARED /* tests/unit/test_bus_nfb.c brings its own libnfb */
#include <nfb/nfb.h>
#endif

struct nfb_priv {
	struct nfb_device *dev;
	struct nfb_comp *comp;
};

static int nfb_rd(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	struct nfb_priv *p = b->priv;
	ssize_t got = nfb_comp_read(p->comp, buf, 4 * n, (off_t)off);

	if (got != (ssize_t)(4 * n))
		return pt_bus_fail(b, -EIO, "%s: reading %zu bytes at offset 0x%04X failed",
				   b->device, 4 * n, (unsigned)off);
	return 0;
}

static int nfb_read32(struct pt_bus *b, uint32_t off, uint32_t *val)
{
	return nfb_rd(b, off, val, 1);
}

static int nfb_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	return nfb_rd(b, off, buf, n);
}

static int nfb_write32(struct pt_bus *b, uint32_t off, uint32_t val)
{
	struct nfb_priv *p = b->priv;

	if (nfb_comp_write(p->comp, &val, 4, (off_t)off) != 4)
		return pt_bus_fail(b, -EIO, "%s: writing offset 0x%04X failed", b->device,
				   (unsigned)off);
	return 0;
}

static void nfb_close_bus(struct pt_bus *b)
{
	struct nfb_priv *p = b->priv;

	if (p) {
		if (p->comp)
			nfb_comp_close(p->comp);
		if (p->dev)
			nfb_close(p->dev);
		free(p);
	}
	b->priv = NULL;
}

static const struct pt_bus_ops nfb_ops = {
	.kind = "nfb",
	.read32 = nfb_read32,
	.write32 = nfb_write32,
	.read_block = nfb_read_block,
	.now = pt_bus_realtime_now,
	.wait = pt_bus_realtime_wait,
	.close = nfb_close_bus,
};

int pt_bus_have_nfb(void)
{
	return 1;
}

int pt_bus_open_nfb(const char *path, unsigned index, struct pt_bus **out, char *msg,
		    size_t msglen)
{
	const char *name = path ? path : nfb_default_dev_path();
	struct nfb_priv *p = calloc(1, sizeof(*p));
	struct pt_bus *b = NULL;
	int node, err;

	*out = NULL;
	if (!p) {
		snprintf(msg, msglen, "%s: out of memory", name);
		return -ENOMEM;
	}
	errno = 0;
	p->dev = nfb_open(name);
	if (!p->dev) {
		err = errno ? errno : ENODEV;
		snprintf(msg, msglen, "%s: cannot open the NFB device: %s", name, strerror(err));
		free(p);
		return -err;
	}
	node = nfb_comp_find(p->dev, PT_NFB_COMPATIBLE, index);
	if (node < 0) {
		int count = nfb_comp_count(p->dev, PT_NFB_COMPATIBLE);

		snprintf(msg, msglen,
			 "%s: no PCIe telemetry component with index %u in the DeviceTree (%d "
			 "found, compatible \"%s\")",
			 name, index, count < 0 ? 0 : count, PT_NFB_COMPATIBLE);
		nfb_close(p->dev);
		free(p);
		return -ENODEV;
	}
	errno = 0;
	p->comp = nfb_comp_open(p->dev, node);
	if (!p->comp) {
		err = errno ? errno : ENODEV;
		snprintf(msg, msglen, "%s: cannot open the PCIe telemetry component %u: %s", name,
			 index, strerror(err));
		nfb_close(p->dev);
		free(p);
		return -err;
	}
	{
		char dev[256];

		snprintf(dev, sizeof(dev), "%s (index %u)", name, index);
		b = pt_bus_alloc(&nfb_ops, dev);
	}
	if (!b) {
		nfb_comp_close(p->comp);
		nfb_close(p->dev);
		free(p);
		snprintf(msg, msglen, "%s: out of memory", name);
		return -ENOMEM;
	}
	b->priv = p;
	*out = b;
	return 0;
}

#else /* !PT_HAVE_NFB */

int pt_bus_have_nfb(void)
{
	return 0;
}

int pt_bus_open_nfb(const char *path, unsigned index, struct pt_bus **out, char *msg,
		    size_t msglen)
{
	/* the device libnfb would have opened, as -h names it */
	const char *deflt = getenv("LIBNFB_DEFAULT_DEV");

	(void)index;
	*out = NULL;
	snprintf(msg, msglen,
		 "%s: this build has no libnfb support (libnfb was not found when it was "
		 "built); use -d image:FILE, -d sim[:PRESET] or -d "
		 "pci:DOMAIN:BUS:DEV.FN[/BAR]@OFFSET",
		 path ? path : deflt && *deflt ? deflt : "/dev/nfb0");
	return -ENOTSUP;
}

#endif
