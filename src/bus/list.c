/*
 * pcie-telemetry: pt_bus_list(), what the machine offers: the libnfb
 * devices (nfb_list.c) and the PCI functions of CESNET cards in sysfs.
 *
 * A PCI function is read from its sysfs folder: vendor, device,
 * subsystem_vendor, subsystem_device (one hex number each), the driver
 * link and the resource table (one "start end flags" line per BAR, 0 0 0
 * for none; flag 0x200 is a memory BAR).  Nothing is mapped or written.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus/backend.h"

#define PCI_VENDOR_CESNET 0x18ecu
#define PCI_RESOURCE_MEM 0x200u

const char *pt_bus_sysfs_root(void)
{
	const char *r = getenv("PT_SYSFS_ROOT");

	return r && *r ? r : "/sys";
}

struct pt_bus_found *pt_bus_found_add(struct pt_bus_found_list *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct pt_bus_found *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].index = -1;
	return &l->v[l->n++];
}

/* dir/name into buf: 0, or -1 when it does not fit. */
static int join(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The one hex number of a sysfs attribute file ("0x18ec\n"): 0, or -1. */
static int read_hex(const char *dir, const char *name, unsigned *out)
{
	char path[1100], buf[32], *end;
	FILE *f;
	unsigned long v;

	if (join(path, sizeof(path), dir, name) < 0)
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	errno = 0;
	v = strtoul(buf, &end, 16);
	if (errno || end == buf || v > 0xFFFFu)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* The sizes of the memory BARs 0..5 from the resource table. */
static void read_bars(const char *dir, uint64_t size[6])
{
	char path[1100], line[128];
	FILE *f;

	if (join(path, sizeof(path), dir, "resource") < 0)
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	for (unsigned bar = 0; bar < 6 && fgets(line, sizeof(line), f); bar++) {
		uint64_t start, end, flags;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64, &start, &end, &flags) == 3 &&
		    (flags & PCI_RESOURCE_MEM) && end > start)
			size[bar] = end - start + 1;
	}
	fclose(f);
}

static void read_driver(const char *dir, char *out, size_t len)
{
	char path[1100], target[512];
	ssize_t n;
	const char *base;

	if (join(path, sizeof(path), dir, "driver") < 0)
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) < len)
		memcpy(out, base, strlen(base) + 1);
}

/* A sysfs name "DDDD:BB:DD.F" (the domain may have more digits). */
static int pci_name(const char *s)
{
	unsigned dom, bus, dev, fn;
	char end;

	return strlen(s) < 64 && sscanf(s, "%x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &end) == 4;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The PCI functions of CESNET cards, in address order. */
static int list_pci(struct pt_bus_found_list *l)
{
	char root[512], dir[1024];
	struct pt_bus_found *f;
	char *names[1024];
	size_t count = 0;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	snprintf(root, sizeof(root), "%s/bus/pci/devices", pt_bus_sysfs_root());
	d = opendir(root);
	if (!d)
		return 0; /* no PCI bus (a container): nothing to list */
	while ((e = readdir(d)) && count < sizeof(names) / sizeof(names[0]))
		if (pci_name(e->d_name) && (names[count] = strdup(e->d_name)))
			count++;
	closedir(d);
	qsort(names, count, sizeof(names[0]), by_name);
	for (size_t i = 0; i < count; i++) {
		unsigned vendor;

		if (rc < 0 || join(dir, sizeof(dir), root, names[i]) < 0 ||
		    strlen(dir) >= sizeof(f->path) || read_hex(dir, "vendor", &vendor) < 0 ||
		    vendor != PCI_VENDOR_CESNET)
			continue;
		f = pt_bus_found_add(l);
		if (!f) {
			rc = -ENOMEM;
			continue;
		}
		snprintf(f->kind, sizeof(f->kind), "pci");
		snprintf(f->device, sizeof(f->device), "pci:%s", names[i]);
		memcpy(f->path, dir, strlen(dir) + 1);
		f->vendor = vendor;
		read_hex(dir, "device", &f->device_id);
		read_hex(dir, "subsystem_vendor", &f->subsystem_vendor);
		read_hex(dir, "subsystem_device", &f->subsystem_device);
		read_driver(dir, f->driver, sizeof(f->driver));
		read_bars(dir, f->bar_size);
	}
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	return rc;
}

int pt_bus_list(struct pt_bus_found **out, size_t *n, char *msg, size_t msglen)
{
	struct pt_bus_found_list l = { 0 };
	int rc = pt_bus_list_nfb(&l);

	if (rc == 0)
		rc = list_pci(&l);
	if (rc < 0) {
		free(l.v);
		*out = NULL;
		*n = 0;
		snprintf(msg, msglen, "listing the devices: out of memory");
		return rc;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}
