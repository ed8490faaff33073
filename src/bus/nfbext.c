/*
 * pcie-telemetry: the libnfb-ext backend: a libnfb extension loaded the
 * way libnfb loads it (shared/spec/libnfb.md sections 2 and 5), for
 * machines without libnfb.  -d libnfb-ext:LIBRARY:REST (or the old form,
 * a device holding "libnfb-ext-", LIBRARY up to the first ':') reaches
 * the component of index -i that the extension's device tree holds.
 *
 * The steps are libnfb's: dlopen(LIBRARY, RTLD_NOW), the ABI version
 * (major 1), libnfb_ext_get_ops(REST) > 0, the first six ops set,
 * open(REST), fdt_check_header, the component by compatible and index in
 * document order, its 8-byte reg and its netcope,bus,mi ancestor,
 * bus_open_mi, and accesses at base + offset.
 *
 * Messages: the extension of this project writes its one-line messages
 * to the descriptor named by PT_NFBEXT_MSGFD (a memfd of this backend,
 * set in the environment only while the device opens) instead of
 * stderr, so an error is one line of the tool.  Time: a device tree that
 * names the recorded @snapshot times of the component
 * (/drivers/libnfb-ext/replayN, images) gives the clock of a replay, as
 * -d image: has it; any other device runs on CLOCK_MONOTONIC.
 */
#define _GNU_SOURCE /* memfd_create */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bus/backend.h"
#include "nfbext/abi.h"

struct nx {
	void *dl;
	struct libnfb_ext_ops ops;
	void *dev_priv, *bus_priv, *fdt;
	struct libnfb_bus_ext_ops bus;
	uint32_t base, size;
	int msgfd;
	double *times; /* the replay clock, or NULL */
	size_t ntimes, snapshots, cur;
	char lib[256];
};

/* The extension's last message, or ""; taken (the next one starts
 * afresh). */
static const char *ext_msg(const struct nx *p, char *buf, size_t len)
{
	ssize_t n = p->msgfd >= 0 ? pread(p->msgfd, buf, len - 1, 0) : -1;

	if (n > 0 && ftruncate(p->msgfd, 0) < 0)
		n = 0;
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static int nx_fail(struct pt_bus *b, const char *what, uint32_t off)
{
	struct nx *p = b->priv;
	char m[PT_BUS_MSG_LEN];

	if (*ext_msg(p, m, sizeof(m)))
		return pt_bus_fail(b, -EIO, "%s: %s", p->lib, m);
	return pt_bus_fail(b, -EIO, "%s: %s at offset 0x%04X failed", b->device, what, (unsigned)off);
}

static int nx_rd(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	struct nx *p = b->priv;

	if (off > p->size || 4 * n > p->size - off)
		return pt_bus_fail(b, -ERANGE, "%s: read of %zu bytes at offset 0x%X outside the component (%u bytes)",
				   b->device, 4 * n, (unsigned)off, (unsigned)p->size);
	if (p->bus.read(p->bus_priv, buf, 4 * n, (off_t)(p->base + off)) != (ssize_t)(4 * n))
		return nx_fail(b, "read", off);
	for (size_t i = 0; i < n; i++)
		buf[i] = le32toh(buf[i]);
	return 0;
}

static int nx_read32(struct pt_bus *b, uint32_t off, uint32_t *val)
{
	return nx_rd(b, off, val, 1);
}

static int nx_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	return nx_rd(b, off, buf, n);
}

static int nx_write32(struct pt_bus *b, uint32_t off, uint32_t val)
{
	struct nx *p = b->priv;
	uint32_t le = htole32(val);

	if (off > p->size || 4 > p->size - off)
		return pt_bus_fail(b, -ERANGE, "%s: write at offset 0x%X outside the component",
				   b->device, (unsigned)off);
	if (p->bus.write(p->bus_priv, &le, 4, (off_t)(p->base + off)) != 4)
		return nx_fail(b, "write", off);
	if (p->times && off == PT_REG_COMMAND && (val & PT_CMD_SNAPSHOT) && p->snapshots < p->ntimes)
		p->cur = p->snapshots++; /* the replay moved to its next image */
	return 0;
}

static int nx_now(struct pt_bus *b, double *seconds)
{
	struct nx *p = b->priv;

	if (!p->times)
		return pt_bus_realtime_now(b, seconds);
	*seconds = p->times[p->cur];
	return 0;
}

static int nx_wait(struct pt_bus *b, double seconds)
{
	struct nx *p = b->priv;

	return p->times ? 0 : pt_bus_realtime_wait(b, seconds);
}

/* Undo every step that was taken, last first (libnfb's nfb_close order:
 * the backend, then dlclose, then the blob). */
static void nx_release(struct nx *p)
{
	if (p->bus_priv)
		p->ops.bus_close_mi(p->bus_priv);
	if (p->dev_priv)
		p->ops.close(p->dev_priv);
	if (p->dl)
		dlclose(p->dl);
	free(p->fdt);
	if (p->msgfd >= 0)
		close(p->msgfd);
	free(p->times);
	free(p);
}

static void nx_close(struct pt_bus *b)
{
	nx_release(b->priv);
	b->priv = NULL;
}

static const struct pt_bus_ops nx_ops = {
	.kind = "libnfb-ext",
	.read32 = nx_read32,
	.write32 = nx_write32,
	.read_block = nx_read_block,
	.now = nx_now,
	.wait = nx_wait,
	.close = nx_close,
};

int pt_bus_is_nfbext(const char *device)
{
	return device && (!strncmp(device, "libnfb-ext:", 11) || strstr(device, "libnfb-ext-"));
}

/* LIBRARY and REST of a device string. */
static int split(const char *device, char *lib, size_t liblen, const char **rest, char *msg,
		 size_t msglen)
{
	const char *s = strncmp(device, "libnfb-ext:", 11) ? device : device + 11;
	size_t n = strcspn(s, ":");

	*rest = s[n] ? s + n + 1 : "";
	if (n == 0 || n >= liblen) {
		snprintf(msg, msglen, "%.200s: %s (use libnfb-ext:PATH.so:ARGS)", device,
			 n ? "library name too long" : "no extension library named");
		return -EINVAL;
	}
	snprintf(lib, liblen, "%.*s", (int)n, s);
	return 0;
}

/* The message of a failed step: the extension's own line when it wrote
 * one, else what. */
static int step_fail(const struct nx *p, int err, char *msg, size_t msglen, const char *what)
{
	char m[PT_BUS_MSG_LEN];

	if (*ext_msg(p, m, sizeof(m)))
		snprintf(msg, msglen, "%s: %s", p->lib, m);
	else
		snprintf(msg, msglen, "%s: %s", p->lib, what);
	return err;
}

/* dlopen, the ABI version, get_ops(rest) and the six ops. */
static int load(struct nx *p, const char *rest, char *msg, size_t msglen)
{
	const struct libnfb_ext_abi_version *v;
	libnfb_ext_get_ops_t *get_ops;
	int rc;

	p->dl = dlopen(p->lib, RTLD_NOW | RTLD_LOCAL);
	if (!p->dl) {
		const char *e = dlerror();

		snprintf(msg, msglen, "%s", e ? e : "dlopen failed");
		return -ENOENT;
	}
	v = dlsym(p->dl, LIBNFB_EXT_SYM_VERSION);
	if (!v)
		return step_fail(p, -ENOEXEC, msg, msglen, "not a libnfb extension (no libnfb_ext_abi_version)");
	if (v->major != LIBNFB_EXT_ABI_MAJOR) {
		snprintf(msg, msglen, "%s: extension ABI %u.%u, this program knows %u.x", p->lib,
			 (unsigned)v->major, (unsigned)v->minor, LIBNFB_EXT_ABI_MAJOR);
		return -ENOEXEC;
	}
	*(void **)&get_ops = dlsym(p->dl, LIBNFB_EXT_SYM_GET_OPS);
	if (!get_ops)
		return step_fail(p, -ENOEXEC, msg, msglen, "not a libnfb extension (no libnfb_ext_get_ops)");
	rc = get_ops(rest, &p->ops);
	if (rc <= 0) {
		char what[PT_BUS_MSG_LEN];

		snprintf(what, sizeof(what), "the extension %s the device '%.200s'",
			 rc == 0 ? "does not serve" : "refused", rest);
		return step_fail(p, -ENODEV, msg, msglen, what);
	}
	if (!p->ops.open || !p->ops.close || !p->ops.bus_open_mi || !p->ops.bus_close_mi ||
	    !p->ops.comp_lock || !p->ops.comp_unlock)
		return step_fail(p, -ENOEXEC, msg, msglen, "the extension left one of its first six ops unset");
	return 0;
}

/* The index-th component and its bus (nfb_comp_find, nfb_comp_open). */
static int find_comp(struct nx *p, unsigned index, int *comp, int *bus, char *msg, size_t msglen)
{
	const fdt32_t *reg;
	int node = -1, len;

	for (unsigned i = 0; i <= index; i++) {
		node = fdt_node_offset_by_compatible(p->fdt, node, PT_NFB_COMPATIBLE);
		if (node < 0) {
			snprintf(msg, msglen,
				 "%s: no PCIe telemetry component with index %u in the DeviceTree (%u found, compatible \"%s\")",
				 p->lib, index, i, PT_NFB_COMPATIBLE);
			return -ENODEV;
		}
	}
	reg = fdt_getprop(p->fdt, node, "reg", &len);
	if (!reg || len != 8) {
		snprintf(msg, msglen, "%s: component %u: its reg is not 8 bytes (base, size)", p->lib, index);
		return -EBADFD;
	}
	p->base = fdt32_to_cpu(reg[0]);
	p->size = fdt32_to_cpu(reg[1]);
	for (*bus = node; *bus >= 0; *bus = fdt_parent_offset(p->fdt, *bus))
		if (fdt_node_check_compatible(p->fdt, *bus, PT_NFB_BUS_COMPATIBLE) == 0)
			break;
	if (*bus < 0) {
		snprintf(msg, msglen, "%s: component %u has no %s ancestor", p->lib, index, PT_NFB_BUS_COMPATIBLE);
		return -ENODEV;
	}
	*comp = node;
	return 0;
}

/* The recorded times of the component, when the tree names them. */
static int replay_times(struct nx *p, int comp)
{
	char path[256];
	int ext = fdt_path_offset(p->fdt, "/drivers/libnfb-ext"), node, len;

	if (ext < 0 || fdt_get_path(p->fdt, comp, path, sizeof(path)) < 0)
		return 0;
	fdt_for_each_subnode(node, p->fdt, ext) {
		const char *c = fdt_getprop(p->fdt, node, "component", NULL);
		const char *t = fdt_getprop(p->fdt, node, "snapshot-times", &len);
		int n = t ? fdt_stringlist_count(p->fdt, node, "snapshot-times") : 0;

		if (!c || strcmp(c, path) || n <= 0)
			continue;
		if (!(p->times = calloc((size_t)n, sizeof(double))))
			return -ENOMEM;
		for (int i = 0; i < n; i++)
			p->times[i] = strtod(fdt_stringlist_get(p->fdt, node, "snapshot-times", i, NULL), NULL);
		p->ntimes = (size_t)n;
	}
	return 0;
}

/* open(rest), the tree, the component, bus_open_mi. */
static int open_comp(struct nx *p, const char *rest, unsigned index, char *msg, size_t msglen)
{
	int comp, bus, rc;

	errno = 0;
	if (p->ops.open(rest, 0, &p->dev_priv, &p->fdt) != 0) {
		char what[PT_BUS_MSG_LEN];
		int e = errno ? errno : ENODEV;

		p->dev_priv = p->fdt = NULL; /* libnfb frees nothing after a failed open */
		snprintf(what, sizeof(what), "cannot open '%.200s': %s", rest, strerror(e));
		return step_fail(p, -e, msg, msglen, what);
	}
	if (!p->fdt || fdt_check_header(p->fdt) != 0) {
		snprintf(msg, msglen, "%s: the extension's device tree is not a valid FDT blob", p->lib);
		return -EBADF;
	}
	rc = find_comp(p, index, &comp, &bus, msg, msglen);
	if (rc == 0 && replay_times(p, comp) < 0) {
		snprintf(msg, msglen, "%s: out of memory", p->lib);
		rc = -ENOMEM;
	}
	if (rc < 0)
		return rc;
	rc = p->ops.bus_open_mi(p->dev_priv, bus, comp, &p->bus_priv, &p->bus);
	if (rc != 0) {
		p->bus_priv = NULL;
		return step_fail(p, rc > 0 ? -rc : rc, msg, msglen, "bus_open_mi failed");
	}
	if (!p->bus.read || !p->bus.write) {
		snprintf(msg, msglen, "%s: bus_open_mi left read or write unset", p->lib);
		return -ENOEXEC;
	}
	return 0;
}

int pt_bus_open_nfbext(const char *device, unsigned index, struct pt_bus **out, char *msg,
		       size_t msglen)
{
	struct nx *p = calloc(1, sizeof(*p));
	const char *rest = NULL, *old = getenv("PT_NFBEXT_MSGFD");
	char *saved = old ? strdup(old) : NULL;
	char fdnum[16];
	int rc = p ? 0 : -ENOMEM;

	*out = NULL;
	if (rc == 0) {
		p->msgfd = memfd_create("pt-nfbext-msg", MFD_CLOEXEC);
		rc = split(device, p->lib, sizeof(p->lib), &rest, msg, msglen);
	}
	if (rc == 0) {
		snprintf(fdnum, sizeof(fdnum), "%d", p->msgfd);
		if (p->msgfd >= 0)
			setenv("PT_NFBEXT_MSGFD", fdnum, 1);
		rc = load(p, rest, msg, msglen);
		if (rc == 0)
			rc = open_comp(p, rest, index, msg, msglen);
		if (saved)
			setenv("PT_NFBEXT_MSGFD", saved, 1);
		else
			unsetenv("PT_NFBEXT_MSGFD");
	}
	free(saved);
	if (rc == 0 && !(*out = pt_bus_alloc(&nx_ops, device)))
		rc = -ENOMEM;
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(msg, msglen, "%.200s: out of memory", device);
		if (p)
			nx_release(p);
		return rc;
	}
	(*out)->priv = p;
	return 0;
}
