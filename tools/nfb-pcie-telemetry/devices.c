/*
 * nfb-pcie-telemetry --list-devices: what this machine offers and the -d
 * string of each.  The libnfb devices come with each telemetry
 * component's index, DeviceTree path, version and endpoints (read from
 * the component itself); the PCI functions of CESNET cards come from
 * sysfs, with what pci: needs besides the offset, and where to find it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/regs.h"

/* The version and endpoints from the component's identity registers
 * (what -d and -i reach), or why they cannot be read: 0, or -1 with the
 * reason in why. */
static int describe_component(const struct pt_bus_found *f, char version[16], unsigned *eps,
			      char *why, size_t whylen)
{
	struct pt_bus *b;
	uint32_t magic = 0, v = 0, topo = 0;
	int rc = -1;

	if (pt_bus_open(f->device, (unsigned)f->index, &b, why, whylen) < 0)
		return -1;
	if (pt_bus_read32(b, PT_REG_MAGIC, &magic) < 0 || pt_bus_read32(b, PT_REG_VERSION, &v) < 0 ||
	    pt_bus_read32(b, PT_REG_CFG_TOPOLOGY, &topo) < 0) {
		snprintf(why, whylen, "%s", pt_bus_message(b));
	} else if (magic != PT_MAGIC) {
		snprintf(why, whylen, "MAGIC reads 0x%08X, not 0x%08X", (unsigned)magic, PT_MAGIC);
	} else {
		snprintf(version, 16, "%u.%u", (unsigned)pt_field_get(PT_FIELD_VERSION_MAJOR, v) & 0xFFFFu,
			 (unsigned)pt_field_get(PT_FIELD_VERSION_MINOR, v) & 0xFFFFu);
		*eps = (unsigned)pt_field_get(PT_FIELD_TOPO_ENDPOINTS, topo);
		rc = 0;
	}
	pt_bus_close(b);
	return rc;
}

static void list_nfb(FILE *out, const struct pt_bus_found *v, size_t n)
{
	int w = (int)strlen("DEVICE"), any = 0;

	fprintf(out, "NFB devices through libnfb (-d DEVICE -i INDEX):\n");
	if (!pt_bus_have_nfb()) {
		fprintf(out, "  none: this build has no libnfb (docs/hardware.md: where libnfb comes "
			     "from, and how to rebuild with it)\n");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].kind, "nfb") == 0 && (int)strlen(v[i].device) > w)
			w = (int)strlen(v[i].device);
	for (size_t i = 0; i < n; i++) {
		const struct pt_bus_found *f = &v[i];
		char version[16], why[PT_BUS_MSG_LEN];
		unsigned eps = 0;

		if (strcmp(f->kind, "nfb") != 0)
			continue;
		if (!any++)
			fprintf(out, "  %-*s  INDEX  VERSION  ENDPOINTS  DEVICETREE PATH\n", w, "DEVICE");
		if (f->index < 0)
			fprintf(out, "  %-*s  -      -        -          %s\n", w, f->device, f->note);
		else if (f->note[0])
			fprintf(out, "  %-*s  %-5d  -        -          %s (%s)\n", w, f->device,
				f->index, f->path, f->note);
		else if (describe_component(f, version, &eps, why, sizeof(why)) < 0)
			fprintf(out, "  %-*s  %-5d  -        -          %s (%s)\n", w, f->device,
				f->index, f->path, why);
		else
			fprintf(out, "  %-*s  %-5d  %-7s  %-9u  %s\n", w, f->device, f->index, version,
				eps, f->path);
	}
	if (!any)
		fprintf(out, "  none (no /dev/nfbN: is the nfb driver loaded?)\n");
}

static void bar_sizes(const struct pt_bus_found *f, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned bar = 0; bar < 6; bar++) {
		uint64_t sz = f->bar_size[bar];
		const char *unit = "B";

		if (!sz)
			continue;
		if (sz >= (1u << 20) && sz % (1u << 20) == 0)
			sz >>= 20, unit = "MiB";
		else if (sz >= 1024 && sz % 1024 == 0)
			sz >>= 10, unit = "KiB";
		used += (size_t)snprintf(buf + used, len - used, "%s%u: %llu %s", used ? ", " : "",
					 bar, (unsigned long long)sz, unit);
		if (used >= len)
			break;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static void list_pci(FILE *out, const struct pt_bus_found *v, size_t n)
{
	int any = 0;
	const char *example = NULL;

	fprintf(out, "\nPCI functions of CESNET cards (vendor 0x18ec, %s/bus/pci/devices):\n",
		pt_bus_sysfs_root());
	for (size_t i = 0; i < n; i++) {
		const struct pt_bus_found *f = &v[i];
		char bars[160];

		if (strcmp(f->kind, "pci") != 0)
			continue;
		if (!any++)
			fprintf(out, "  %-20s  %-9s  %-9s  %-8s  %s\n", "DEVICE", "ID", "SUBSYSTEM",
				"DRIVER", "MEMORY BARS");
		bar_sizes(f, bars, sizeof(bars));
		fprintf(out, "  %-20s  %04x:%04x  %04x:%04x  %-8s  %s\n", f->device, f->vendor,
			f->device_id, f->subsystem_vendor, f->subsystem_device,
			f->driver[0] ? f->driver : "-", bars);
		if (!example)
			example = f->device;
	}
	if (!any) {
		fprintf(out, "  none\n");
		return;
	}
	fprintf(out,
		"  Use -d %s@OFFSET (pci:DOMAIN:BUS:DEV.FN[/BAR]@OFFSET, as root), where\n"
		"  OFFSET is the component's address in the BAR (BAR 0 unless /BAR says\n"
		"  otherwise): `nfb-bus -l` on a machine with libnfb lists it\n"
		"  (docs/hardware.md, \"Finding the offset for pci:\").\n",
		example);
}

int cli_list_devices(FILE *out, struct cli_error *e)
{
	struct pt_bus_found *v;
	size_t n;

	if (pt_bus_list(&v, &n, e->msg, sizeof(e->msg)) < 0) {
		e->status = CLI_EXIT_RUNTIME;
		return e->status;
	}
	list_nfb(out, v, n);
	list_pci(out, v, n);
	free(v);
	return 0;
}
