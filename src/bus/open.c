/*
 * pcie-telemetry: pt_bus_open(), the device string of -d.
 *
 * Its own library (pt_bus_open): it names every backend, the simulated
 * card's included, so a program that calls it links them all, and one
 * that does not (the reader, the renderers and their tests) cannot reach
 * the card by accident.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/bus.h"

/* mmap:FILE[@OFFSET]: any file laid out like the component's 64 KiB (a
 * register dump, a UIO map, a test file). */
static int open_mmap(const char *spec, struct pt_bus **out, char *msg, size_t msglen)
{
	const char *at = strrchr(spec, '@');
	unsigned long long off = 0;
	char path[4096];

	if (at) {
		char *end;

		errno = 0;
		off = strtoull(at + 1, &end, 16);
		if (at[1] == '\0' || *end != '\0' || errno || at[1] == '-' || at[1] == '+') {
			snprintf(msg, msglen, "mmap:%s: bad offset '%s' (expected hex)", spec, at + 1);
			return -EINVAL;
		}
	}
	snprintf(path, sizeof(path), "%.*s", (int)(at ? (size_t)(at - spec) : strlen(spec)), spec);
	if (!path[0]) {
		snprintf(msg, msglen, "mmap:%s: no file name (use mmap:FILE[@OFFSET])", spec);
		return -EINVAL;
	}
	return pt_bus_open_mmap_file(path, off, out, msg, msglen);
}

/* Device prefixes, tried in order; a device that matches none is a
 * libnfb device path.  Every one of these holds a single component. */
static const struct {
	const char *prefix;
	int whole; /* the device must be exactly the prefix */
	/* opens what follows the prefix */
	int (*open)(const char *rest, struct pt_bus **out, char *msg, size_t msglen);
} backends[] = {
	{ "image:", 0, pt_bus_open_image },
	{ "sim", 1, pt_bus_open_sim },
	{ "sim:", 0, pt_bus_open_sim },
	{ "pci:", 0, pt_bus_open_pci },
	{ "mmap:", 0, open_mmap },
};

static int single(const char *device, unsigned index, char *msg, size_t msglen)
{
	if (index == 0)
		return 0;
	snprintf(msg, msglen,
		 "-i %u: %s holds a single PCIe telemetry component, only index 0 exists", index,
		 device);
	return -ENODEV;
}

int pt_bus_open(const char *device, unsigned index, struct pt_bus **out, char *msg, size_t msglen)
{
	*out = NULL;
	if (!device) { /* libnfb's default device, which may name an extension */
		const char *deflt = getenv("LIBNFB_DEFAULT_DEV");

		if (pt_bus_is_nfbext(deflt))
			return pt_bus_open_nfbext(deflt, index, out, msg, msglen);
		return pt_bus_open_nfb(NULL, index, out, msg, msglen);
	}
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		size_t n = strlen(backends[i].prefix);
		int rc;

		if (strncmp(device, backends[i].prefix, n) != 0 ||
		    (backends[i].whole && device[n] != '\0'))
			continue;
		rc = single(device, index, msg, msglen);
		return rc < 0 ? rc : backends[i].open(device + n, out, msg, msglen);
	}
	/* An extension string, in either of libnfb's forms: loaded as
	 * libnfb loads it, with or without libnfb. */
	if (pt_bus_is_nfbext(device))
		return pt_bus_open_nfbext(device, index, out, msg, msglen);
	return pt_bus_open_nfb(device, index, out, msg, msglen);
}

int pt_bus_open_ex(const char *device, unsigned index, unsigned flags, struct pt_bus **out,
		   char *msg, size_t msglen)
{
	struct pt_bus *b;
	int rc = pt_bus_open(device, index, &b, msg, msglen);

	if (rc < 0 || !(flags & PT_BUS_REALTIME) || strcmp(pt_bus_kind(b), "sim") != 0) {
		*out = rc < 0 ? NULL : b;
		return rc;
	}
	rc = pt_bus_sim_realtime(b, out, msg, msglen);
	if (rc < 0)
		pt_bus_close(b);
	return rc;
}
