/*
 * pcie-telemetry: pt_bus_open(), the device string of -d.
 *
 * Kept in its own file: it names every backend, including the simulated
 * card, so only programs that call it link the whole chain.
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

static int single(const char *device, unsigned index, char *msg, size_t msglen)
{
	if (index == 0)
		return 0;
	snprintf(msg, msglen,
		 "-i %u: %s holds a single PCIe telemetry component, only index 0 exists", index,
		 device);
	return -ENODEV;
}

/* mmap:FILE[@OFFSET][,rw]: any file laid out like the component's 64 KiB
 * (a register dump, a test file); ,rw lets the writes reach the file. */
static int mmap_spec(const char *device, char *path, size_t pathlen, uint64_t *off,
		     unsigned *flags, char *msg, size_t msglen)
{
	const char *spec = device + 5, *at;
	size_t len = strlen(spec);

	*off = 0;
	*flags = 0;
	if (len >= 3 && strcmp(spec + len - 3, ",rw") == 0) {
		*flags = PT_BUS_MMAP_WRITE;
		len -= 3;
	}
	at = NULL;
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
			snprintf(msg, msglen, "%s: bad offset '%.*s' (expected hex)", device, (int)n,
				 at + 1);
			return -EINVAL;
		}
		len = (size_t)(at - spec);
	}
	if (len == 0 || len >= pathlen) {
		snprintf(msg, msglen, "%s: %s (use mmap:FILE[@OFFSET][,rw])", device,
			 len ? "file name too long" : "no file name");
		return -EINVAL;
	}
	snprintf(path, pathlen, "%.*s", (int)len, spec);
	return 0;
}

static int open_device(const char *device, unsigned index, struct pt_bus **out, char *msg,
		       size_t msglen)
{
	int rc;

	if (!device)
		return pt_bus_open_nfb(NULL, index, out, msg, msglen);
	if (prefixed(device, "image:")) {
		rc = single(device, index, msg, msglen);
		return rc < 0 ? rc : pt_bus_open_image(device + 6, out, msg, msglen);
	}
	if (strcmp(device, "sim") == 0 || prefixed(device, "sim:")) {
		rc = single(device, index, msg, msglen);
		return rc < 0 ? rc
			      : pt_bus_open_sim(device[3] == ':' ? device + 4 : "", out, msg,
						msglen);
	}
	if (prefixed(device, "pci:")) {
		rc = single(device, index, msg, msglen);
		return rc < 0 ? rc : pt_bus_open_pci(device + 4, out, msg, msglen);
	}
	if (prefixed(device, "mmap:")) {
		char path[4096];
		uint64_t off;
		unsigned flags;

		rc = single(device, index, msg, msglen);
		if (rc == 0)
			rc = mmap_spec(device, path, sizeof(path), &off, &flags, msg, msglen);
		return rc < 0 ? rc : pt_bus_open_mmap_file(path, off, flags, out, msg, msglen);
	}
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
		return mmap_spec(device, path, pathlen, &off, &flags, msg, sizeof(msg)) == 0;
	if (prefixed(device, "sim:") && device[4] && !pte_preset_text(device + 4)) {
		snprintf(path, pathlen, "%s", device + 4);
		return 1;
	}
	return 0;
}
