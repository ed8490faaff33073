/*
 * pcie-telemetry: byte-granular access to one component through a bus
 * (proto.h), shared by the daemon (a simulated card) and the extension
 * (register images, served in the host process).
 *
 * Bytes are the little-endian bytes of the 32-bit registers, as libnfb
 * hands them over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfbext/proto.h"
#include "pcie_telemetry/regs.h"

static int check_range(uint32_t off, size_t nbyte, const char *what, char *msg, size_t msglen)
{
	if (off > PT_COMP_SPAN || nbyte > PT_COMP_SPAN - off) {
		snprintf(msg, msglen, "%s of %zu bytes at offset 0x%X leaves the 64 KiB window of the component",
			 what, nbyte, (unsigned)off);
		return -ERANGE;
	}
	return 0;
}

int pt_ext_comp_read(struct pt_bus *b, uint32_t off, void *buf, size_t nbyte, char *msg,
		     size_t msglen)
{
	uint32_t first = off & ~3u, small[16], *w = small;
	size_t n, at = off - first;
	int rc = check_range(off, nbyte, "read", msg, msglen);

	if (rc < 0 || nbyte == 0)
		return rc;
	n = (at + nbyte + 3) / 4;
	if (n > sizeof(small) / sizeof(small[0]) && !(w = malloc(4 * n))) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	rc = n == 1 ? pt_bus_read32(b, first, w) : pt_bus_read_block(b, first, w, n);
	if (rc < 0)
		snprintf(msg, msglen, "%s", pt_bus_message(b));
	else {
		unsigned char *bytes = (unsigned char *)w;

		for (size_t i = 0; i < n; i++) /* in place: word i becomes bytes 4i..4i+3 */
			pt_ext_put32(bytes + 4 * i, w[i]);
		memcpy(buf, bytes + at, nbyte);
	}
	if (w != small)
		free(w);
	return rc;
}

int pt_ext_comp_write(struct pt_bus *b, uint32_t off, const void *buf, size_t nbyte, char *msg,
		      size_t msglen)
{
	const unsigned char *p = buf;
	int rc = check_range(off, nbyte, "write", msg, msglen);

	if (rc < 0 || nbyte == 0)
		return rc;
	if (off % 4 || nbyte % 4) {
		snprintf(msg, msglen,
			 "write of %zu bytes at offset 0x%X: the MI bus takes whole aligned 32-bit "
			 "words",
			 nbyte, (unsigned)off);
		return -EINVAL;
	}
	for (size_t i = 0; i < nbyte; i += 4) {
		rc = pt_bus_write32(b, off + (uint32_t)i, pt_ext_get32(p + i));
		if (rc < 0) {
			snprintf(msg, msglen, "%s", pt_bus_message(b));
			return rc;
		}
	}
	return 0;
}
