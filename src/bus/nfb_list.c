/*
 * pcie-telemetry: the libnfb devices of pt_bus_list(): /dev/nfbN, and the
 * device $LIBNFB_DEFAULT_DEV names when it is another one (an extension,
 * a udev link), each with its PCIe telemetry components in libnfb's
 * order (nfb_comp_find's index, what -i takes).  Without libnfb there is
 * nothing to list.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/backend.h"

#ifdef PT_HAVE_NFB
#include <nfb/nfb.h>

static int digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* One entry per component of the device at path, or one that says why
 * there is none. */
static int list_device(struct pt_bus_found_list *l, const char *path)
{
	struct nfb_device *dev;
	struct pt_bus_found *f;
	int count;

	errno = 0;
	dev = nfb_open(path);
	count = dev ? nfb_comp_count(dev, PT_NFB_COMPATIBLE) : 0;
	for (int i = 0; i < count; i++) {
		int node = nfb_comp_find(dev, PT_NFB_COMPATIBLE, (unsigned)i);
		struct nfb_comp *c = node >= 0 ? nfb_comp_open(dev, node) : NULL;
		const char *dt = c ? nfb_comp_path(c) : NULL;

		if (!(f = pt_bus_found_add(l))) {
			if (c)
				nfb_comp_close(c);
			nfb_close(dev);
			return -ENOMEM;
		}
		snprintf(f->kind, sizeof(f->kind), "nfb");
		snprintf(f->device, sizeof(f->device), "%s", path);
		f->index = i;
		snprintf(f->path, sizeof(f->path), "%s", dt ? dt : "?");
		if (!c)
			snprintf(f->note, sizeof(f->note), "libnfb cannot open the component: %s",
				 strerror(errno ? errno : ENODEV));
		else
			nfb_comp_close(c);
	}
	if (count > 0) {
		nfb_close(dev);
		return 0;
	}
	if (!(f = pt_bus_found_add(l))) {
		if (dev)
			nfb_close(dev);
		return -ENOMEM;
	}
	snprintf(f->kind, sizeof(f->kind), "nfb");
	snprintf(f->device, sizeof(f->device), "%s", path);
	if (dev) {
		snprintf(f->note, sizeof(f->note), "no PCIe telemetry component (%s) in its DeviceTree",
			 PT_NFB_COMPATIBLE);
		nfb_close(dev);
	} else {
		snprintf(f->note, sizeof(f->note), "libnfb cannot open it: %s",
			 errno ? strerror(errno) : "no reason given");
	}
	return 0;
}

int pt_bus_list_nfb(struct pt_bus_found_list *l)
{
	const char *deflt = getenv("LIBNFB_DEFAULT_DEV");
	int seen = 0, rc = 0;
	glob_t g;

	if (glob("/dev/nfb[0-9]*", 0, NULL, &g) == 0) {
		for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
			if (!digits(g.gl_pathv[i] + strlen("/dev/nfb")))
				continue;
			seen |= deflt && strcmp(deflt, g.gl_pathv[i]) == 0;
			rc = list_device(l, g.gl_pathv[i]);
		}
		globfree(&g);
	}
	if (rc == 0 && deflt && *deflt && !seen)
		rc = list_device(l, deflt);
	return rc;
}

#else /* !PT_HAVE_NFB */

int pt_bus_list_nfb(struct pt_bus_found_list *l)
{
	(void)l;
	return 0;
}

#endif
