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
#include "pcie_telemetry/env.h"
#include "util/pt_util.h"

static int prefixed(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* mmap:FILE[@OFFSET][,rw]: any file laid out like the component's 64 KiB
 * (a register dump, a test file); ,rw lets the writes reach the file.
 * spec is what follows "mmap:". */
static int mmap_spec(const char *spec, char *path, size_t pathlen, uint64_t *off,
		     unsigned *flags, char *msg, size_t msglen)
{
	const char *at = NULL;
	size_t len = strlen(spec);

	*off = 0;
	*flags = 0;
	if (len >= 3 && strcmp(spec + len - 3, ",rw") == 0) {
		*flags = PT_BUS_MMAP_WRITE;
		len -= 3;
	}
	for (size_t i = len; i > 0 && !at; i--)
		if (spec[i - 1] == '@')
			at = spec + i - 1;
	if (at) {
		char num[32], *end;
		size_t n = len - (size_t)(at + 1 - spec);

		snprintf(num, sizeof(num), "%.*s", (int)(n < sizeof(num) ? n : sizeof(num) - 1),
			 at + 1);
		errno = 0;
		*off = strtoull(num, &end, 16);
		if (n == 0 || n >= sizeof(num) || *end != '\0' || errno || num[0] == '-' ||
		    num[0] == '+' || num[0] == ' ') {
			snprintf(msg, msglen, "mmap:%s: bad offset '%.*s' (expected hex)", spec,
				 (int)n, at + 1);
			return -EINVAL;
		}
		len = (size_t)(at - spec);
	}
	if (len == 0 || len >= pathlen) {
		snprintf(msg, msglen, "mmap:%s: %s (use mmap:FILE[@OFFSET][,rw])", spec,
			 len ? "file name too long" : "no file name");
		return -EINVAL;
	}
	snprintf(path, pathlen, "%.*s", (int)len, spec);
	return 0;
}

static int open_mmap(const char *spec, struct pt_bus **out, char *msg, size_t msglen)
{
	char path[4096];
	uint64_t off;
	unsigned flags;
	int rc = mmap_spec(spec, path, sizeof(path), &off, &flags, msg, msglen);

	return rc < 0 ? rc : pt_bus_open_mmap_file(path, off, flags, out, msg, msglen);
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

static int open_device(const char *device, unsigned index, struct pt_bus **out, char *msg,
		       size_t msglen)
{
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

int pt_bus_open(const char *device, unsigned index, struct pt_bus **out, char *msg, size_t msglen)
{
	int rc;

	*out = NULL;
	rc = open_device(device, index, out, msg, msglen);
	if (rc < 0) /* the device string, a file name or file content may hold a newline */
		pt_util_oneline(msg, msglen);
	return rc;
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

int pt_bus_device_file(const char *device, char *path, size_t pathlen)
{
	char msg[8];
	uint64_t off;
	unsigned flags;

	if (!device || pathlen == 0)
		return 0;
	if (prefixed(device, "image:") && device[6]) {
		snprintf(path, pathlen, "%s", device + 6);
		return 1;
	}
	if (prefixed(device, "mmap:"))
		return mmap_spec(device + 5, path, pathlen, &off, &flags, msg, sizeof(msg)) == 0;
	if (prefixed(device, "sim:") && device[4] && !pte_preset_text(device + 4)) {
		snprintf(path, pathlen, "%s", device + 4);
		return 1;
	}
	return 0;
}
