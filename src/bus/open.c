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

int pt_bus_open(const char *device, unsigned index, struct pt_bus **out, char *msg, size_t msglen)
{
	int rc;

	*out = NULL;
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
		/* mmap:FILE[@OFFSET]: any file laid out like the component's
		 * 64 KiB (a register dump, a UIO map, a test file). */
		const char *spec = device + 5, *at = strrchr(spec, '@');
		unsigned long long off = 0;
		char path[4096];

		rc = single(device, index, msg, msglen);
		if (rc < 0)
			return rc;
		if (at) {
			char *end;

			errno = 0;
			off = strtoull(at + 1, &end, 16);
			if (at[1] == '\0' || *end != '\0' || errno || at[1] == '-' || at[1] == '+') {
				snprintf(msg, msglen, "%s: bad offset '%s' (expected hex)", device,
					 at + 1);
				return -EINVAL;
			}
		}
		snprintf(path, sizeof(path), "%.*s", (int)(at ? (size_t)(at - spec) : strlen(spec)),
			 spec);
		if (!path[0]) {
			snprintf(msg, msglen, "%s: no file name (use mmap:FILE[@OFFSET])", device);
			return -EINVAL;
		}
		return pt_bus_open_mmap_file(path, off, out, msg, msglen);
	}
	return pt_bus_open_nfb(device, index, out, msg, msglen);
}
