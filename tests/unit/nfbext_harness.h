/*
 * The harness of the extension tests: libnfb's steps, written out as the
 * spec gives them (shared/spec/libnfb.md sections 2 and 5), with the
 * checks of each step (include after <cmocka.h>).
 *
 *   dlopen(PATH, RTLD_NOW) -> libnfb_ext_abi_version (major 1) ->
 *   libnfb_ext_get_ops(rest) > 0 -> the first six ops set -> open(rest) ->
 *   fdt_check_header -> nfb_comp_find (compatible, document order) ->
 *   reg of 8 bytes, a netcope,bus,mi ancestor -> bus_open_mi ->
 *   read/write at base + offset -> bus_close_mi, close, dlclose, free(fdt)
 */
#ifndef PT_NFBEXT_HARNESS_H
#define PT_NFBEXT_HARNESS_H

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <libfdt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "nfbext/abi.h"
#include "pcie_telemetry/regs.h"

struct h_dev {
	void *dl;
	struct libnfb_ext_ops ops;
	void *priv, *fdt;
};

struct h_comp {
	void *bus_priv;
	struct libnfb_bus_ext_ops bus;
	uint32_t base, size;
	int node;
};

/* dlopen as libnfb does, with the checks of the ABI version and the ops;
 * the return value of get_ops. */
static inline int h_load(struct h_dev *d, const char *rest)
{
	const struct libnfb_ext_abi_version *v;
	libnfb_ext_get_ops_t *get_ops;
	int rc;

	memset(d, 0, sizeof(*d));
	d->dl = dlopen(PT_NFBEXT_SO, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(d->dl);
	v = dlsym(d->dl, LIBNFB_EXT_SYM_VERSION);
	assert_non_null(v);
	assert_int_equal(v->major, 1);
	*(void **)&get_ops = dlsym(d->dl, LIBNFB_EXT_SYM_GET_OPS);
	assert_non_null(get_ops);
	rc = get_ops(rest, &d->ops);
	if (rc > 0) {
		assert_non_null(d->ops.open);
		assert_non_null(d->ops.close);
		assert_non_null(d->ops.bus_open_mi);
		assert_non_null(d->ops.bus_close_mi);
		assert_non_null(d->ops.comp_lock);
		assert_non_null(d->ops.comp_unlock);
	}
	return rc;
}

/* Load and open; the open's return value (errno set by the extension). */
static inline int h_open(struct h_dev *d, const char *rest)
{
	int rc;

	assert_true(h_load(d, rest) > 0);
	errno = 0;
	rc = d->ops.open(rest, 0, &d->priv, &d->fdt);
	if (rc == 0) {
		assert_non_null(d->fdt);
		assert_int_equal(fdt_check_header(d->fdt), 0);
	} else {
		d->priv = d->fdt = NULL;
	}
	return rc;
}

/* nfb_close: the backend, dlclose, then the blob (libnfb's order). */
static inline void h_close(struct h_dev *d)
{
	if (d->priv)
		d->ops.close(d->priv);
	dlclose(d->dl);
	free(d->fdt);
	memset(d, 0, sizeof(*d));
}

/* nfb_comp_find + nfb_comp_open: the index-th component; 0 or -1. */
static inline int h_comp_open(struct h_dev *d, unsigned index, struct h_comp *c)
{
	const fdt32_t *reg;
	int node = -1, len, bus;

	for (unsigned i = 0; i <= index; i++) {
		node = fdt_node_offset_by_compatible(d->fdt, node, PT_NFB_COMPATIBLE);
		if (node < 0)
			return -1;
	}
	reg = fdt_getprop(d->fdt, node, "reg", &len);
	assert_non_null(reg);
	assert_int_equal(len, 8);
	c->base = fdt32_to_cpu(reg[0]);
	c->size = fdt32_to_cpu(reg[1]);
	c->node = node;
	for (bus = node; bus >= 0; bus = fdt_parent_offset(d->fdt, bus))
		if (fdt_node_check_compatible(d->fdt, bus, PT_NFB_BUS_COMPATIBLE) == 0)
			break;
	assert_true(bus >= 0);
	c->bus_priv = NULL;
	return d->ops.bus_open_mi(d->priv, bus, node, &c->bus_priv, &c->bus) == 0 ? 0 : -1;
}

static inline void h_comp_close(struct h_dev *d, struct h_comp *c)
{
	d->ops.bus_close_mi(c->bus_priv);
}

/* nfb_comp_read32 / write32 that report failure: 0 or -1. */
static inline int h_rd32(struct h_comp *c, uint32_t off, uint32_t *v)
{
	unsigned char b[4];

	if (c->bus.read(c->bus_priv, b, 4, (off_t)(c->base + off)) != 4)
		return -1;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

static inline int h_wr32(struct h_comp *c, uint32_t off, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };

	return c->bus.write(c->bus_priv, b, 4, (off_t)(c->base + off)) == 4 ? 0 : -1;
}

/* Descriptors and threads of this process. */
static inline int h_count(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* PT_NFBEXT_MSGFD on a fresh memfd; h_msg() reads what the extension
 * said there. */
static inline int h_msgfd(void)
{
	int fd = memfd_create("h-msg", MFD_CLOEXEC);
	char num[16];

	assert_true(fd >= 0);
	snprintf(num, sizeof(num), "%d", fd);
	setenv("PT_NFBEXT_MSGFD", num, 1);
	return fd;
}

static inline const char *h_msg(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static inline double h_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A device that must not open: errno err, and one line holding want on
 * PT_NFBEXT_MSGFD, within 10 s. */
static inline void h_open_fails(const char *rest, int err, const char *want)
{
	struct h_dev d;
	char m[1024];
	int fd = h_msgfd();
	double t0 = h_now();

	assert_int_not_equal(h_open(&d, rest), 0);
	if (errno != err)
		fail_msg("%s: errno %d (%s), expected %d", rest, errno, strerror(errno), err);
	h_msg(fd, m, sizeof(m));
	if (!strstr(m, want))
		fail_msg("%s: message '%s' lacks '%s'", rest, m, want);
	assert_null(strchr(m, '\n'));
	assert_true(h_now() - t0 < 10);
	h_close(&d);
	close(fd);
	unsetenv("PT_NFBEXT_MSGFD");
}

#endif
