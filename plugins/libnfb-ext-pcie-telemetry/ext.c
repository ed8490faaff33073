/*
 * pcie-telemetry: libnfb-ext-pcie-telemetry.so, a libnfb extension that
 * serves the simulated card and register images to every libnfb program
 * (shared/spec/libnfb.md section 2; docs/nfb-ext.md).
 *
 * Device strings (what follows libnfb-ext:PATH.so:):
 *   sim | sim:PRESET | sim:FILE   the simulated card, shared by every
 *                                 process that opens it (its daemon)
 *   image:FILE[,FILE...]          register images, one component per
 *                                 file, replayed in this process
 *
 * Only the two ABI symbols are exported (a version script); nothing here
 * starts a thread or registers an exit handler, and every descriptor is
 * closed in close(), so dlclose() after nfb_close() leaves nothing.
 * Errors are one line on stderr (or on PT_NFBEXT_MSGFD) and a failure
 * with errno set; nothing aborts or exits the host program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfbext/abi.h"
#include "ext_priv.h"
#include "pcie_telemetry/regs.h"
#include "util/pt_util.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT struct libnfb_ext_abi_version libnfb_ext_abi_version = libnfb_ext_abi_version_current;

void ext_say(int msgfd, const char *fmt, ...)
{
	char line[PT_BUS_MSG_LEN + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pt_util_oneline(line, sizeof(line)); /* one line, whatever a file name holds */
	if (msgfd >= 0) {
		struct stat st;

		if (fstat(msgfd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(msgfd, 0) == 0)
			n = (int)pwrite(msgfd, line, strlen(line), 0);
		else
			n = (int)write(msgfd, line, strlen(line));
	} else
		n = fprintf(stderr, EXT_NAME ": %s\n", line);
	(void)n;
}

/* PT_NFBEXT_MSGFD: a descriptor number, or -1. */
static int env_msgfd(void)
{
	const char *v = getenv("PT_NFBEXT_MSGFD");
	char *end;
	long fd;

	if (!v || !*v)
		return -1;
	fd = strtol(v, &end, 10);
	return (*end || fd < 0 || fd > 1 << 20 || fcntl((int)fd, F_GETFD) < 0) ? -1 : (int)fd;
}

/* The kind of a device string, or -1. */
static int kind_of(const char *devname)
{
	if (!strcmp(devname, "sim") || !strncmp(devname, "sim:", 4))
		return EXT_SIM;
	if (!strncmp(devname, "image:", 6))
		return EXT_IMAGE;
	return -1;
}

/* The @snapshot times of an image file, from a scratch replay of it (a
 * SNAPSHOT selects the next image and its time, until none is left). */
static int image_times(struct ext_comp *c, char *msg, size_t msglen)
{
	struct pt_bus *b;
	size_t cap = 0;
	int rc = pt_bus_open_image(c->file, &b, msg, msglen);

	while (rc == 0 && pt_bus_write32(b, PT_REG_COMMAND, PT_CMD_SNAPSHOT) == 0) {
		if (c->ntimes == cap) {
			double *t = realloc(c->times, (cap = cap ? 2 * cap : 16) * sizeof(*t));

			if (!t) {
				snprintf(msg, msglen, "%s: out of memory", c->file);
				rc = -ENOMEM;
				break;
			}
			c->times = t;
		}
		pt_bus_now(b, &c->times[c->ntimes++]);
	}
	pt_bus_close(b);
	return rc;
}

static int image_open(struct ext_dev *d, char *msg, size_t msglen)
{
	const char *p = d->devname + 6;

	for (;;) {
		size_t len = strcspn(p, ",");
		struct ext_comp *c = &d->comp[d->ncomps];
		uint32_t topo = 0;
		int rc;

		if (len == 0) {
			snprintf(msg, msglen, "%s: empty file name (use image:FILE[,FILE...])", d->devname);
			return -EINVAL;
		}
		if (d->ncomps == EXT_MAX_COMPS) {
			snprintf(msg, msglen, "%.100s...: more than %u files", d->devname, EXT_MAX_COMPS);
			return -E2BIG;
		}
		if (!(c->file = strndup(p, len))) {
			snprintf(msg, msglen, "out of memory");
			return -ENOMEM;
		}
		d->ncomps++;
		rc = pt_bus_open_image(c->file, &c->bus, msg, msglen);
		if (rc == 0)
			rc = image_times(c, msg, msglen);
		if (rc < 0)
			return rc;
		pt_bus_read32(c->bus, PT_REG_CFG_TOPOLOGY, &topo); /* image 0, as the reader sees it */
		c->endpoints = pt_field_get(PT_FIELD_TOPO_ENDPOINTS, topo);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static void dev_free(struct ext_dev *d)
{
	if (!d)
		return;
	if (d->kind == EXT_SIM)
		ext_card_close(d);
	for (unsigned i = 0; i < d->ncomps; i++) {
		pt_bus_close(d->comp[i].bus);
		free(d->comp[i].file);
		free(d->comp[i].times);
	}
	pthread_mutex_destroy(&d->mu);
	free(d->devname);
	free(d);
}

static int ext_open(const char *devname, int oflag, void **priv, void **fdt)
{
	char msg[PT_BUS_MSG_LEN] = "";
	struct ext_dev *d = calloc(1, sizeof(*d));
	int rc = d ? 0 : -ENOMEM;

	(void)oflag;
	*priv = NULL;
	*fdt = NULL;
	if (d) {
		d->msgfd = env_msgfd();
		d->fd = -1;
		d->kind = kind_of(devname);
		pthread_mutex_init(&d->mu, NULL);
		if (!(d->devname = strdup(devname)))
			rc = -ENOMEM;
	}
	if (rc == 0)
		rc = pt_ext_env_seconds("PT_NFBEXT_TIMEOUT", PT_EXT_TIMEOUT_DEFAULT, &d->timeout, msg,
					sizeof(msg));
	if (rc == 0 && d->timeout <= 0)
		d->timeout = PT_EXT_TIMEOUT_DEFAULT;
	if (rc == 0 && (int)d->kind < 0) {
		snprintf(msg, sizeof(msg), "%.200s: unknown device (use sim, sim:PRESET, sim:FILE or image:FILE[,FILE...])", devname);
		rc = -EINVAL;
	}
	if (rc == 0)
		rc = d->kind == EXT_SIM ? ext_card_open(d, msg, sizeof(msg)) : image_open(d, msg, sizeof(msg));
	if (rc == 0)
		rc = ext_fdt_build(d, fdt, msg, sizeof(msg));
	if (rc < 0) {
		ext_say(d ? d->msgfd : env_msgfd(), "%s", msg[0] ? msg : strerror(-rc));
		dev_free(d);
		errno = -rc;
		return -1;
	}
	*priv = d;
	return 0;
}

static void ext_close(void *priv)
{
	dev_free(priv);
}

/* The component of an access at the bus address addr, and its offset;
 * NULL (and a message) when it is outside every component. */
static struct ext_comp *comp_at(struct ext_dev *d, off_t addr, size_t nbyte, uint32_t *off)
{
	unsigned i;

	if (addr < (off_t)EXT_BASE || (i = (unsigned)((addr - EXT_BASE) / PT_COMP_SPAN)) >= d->ncomps ||
	    nbyte > PT_COMP_SPAN - (size_t)((addr - EXT_BASE) % PT_COMP_SPAN)) {
		ext_say(d->msgfd, "%s: access of %zu bytes at bus address 0x%llX outside every component",
			d->devname, nbyte, (unsigned long long)addr);
		return NULL;
	}
	*off = (uint32_t)((addr - EXT_BASE) % PT_COMP_SPAN);
	return &d->comp[i];
}

static ssize_t access_(struct ext_dev *d, int write, void *buf, size_t nbyte, off_t addr)
{
	char msg[PT_BUS_MSG_LEN];
	struct ext_comp *c;
	uint32_t off;
	int rc;

	if (nbyte == 0)
		return 0;
	if (!(c = comp_at(d, addr, nbyte, &off)))
		return -1;
	pthread_mutex_lock(&d->mu);
	if (d->kind == EXT_SIM)
		rc = ext_card_access(d, write, off, buf, nbyte);
	else {
		rc = write ? pt_ext_comp_write(c->bus, off, buf, nbyte, msg, sizeof(msg))
			   : pt_ext_comp_read(c->bus, off, buf, nbyte, msg, sizeof(msg));
		if (rc < 0)
			ext_say(d->msgfd, "%s", msg);
	}
	pthread_mutex_unlock(&d->mu);
	return rc < 0 ? -1 : (ssize_t)nbyte;
}

static ssize_t ext_read(void *bus_priv, void *buf, size_t nbyte, off_t offset)
{
	return access_(bus_priv, 0, buf, nbyte, offset);
}

static ssize_t ext_write(void *bus_priv, const void *buf, size_t nbyte, off_t offset)
{
	return access_(bus_priv, 1, (void *)buf, nbyte, offset);
}

/* Every component of the device shares its bus: bus_priv is the device,
 * and there is nothing of its own to free. */
static int ext_bus_open_mi(void *dev_priv, int bus_node, int comp_node, void **bus_priv,
			   struct libnfb_bus_ext_ops *ops)
{
	struct ext_dev *d = dev_priv;

	(void)bus_node;
	(void)comp_node;
	if (!d)
		return EINVAL;
	if (d->dead)
		return ENOTCONN;
	*bus_priv = d;
	ops->read = ext_read;
	ops->write = ext_write;
	return 0;
}

static void ext_bus_close_mi(void *bus_priv)
{
	(void)bus_priv;
}

/* No locking on a simulated card (as libnfb-ext-grpc): always held. */
static int ext_comp_lock(const struct nfb_comp *comp, uint32_t features)
{
	(void)comp;
	(void)features;
	return 1;
}

static void ext_comp_unlock(const struct nfb_comp *comp, uint32_t features)
{
	(void)comp;
	(void)features;
}

EXPORT int libnfb_ext_get_ops(const char *devname, struct libnfb_ext_ops *ops)
{
	if (!devname || kind_of(devname) < 0) {
		ext_say(env_msgfd(),
			"'%.200s': not a device of this extension (use sim, sim:PRESET, sim:FILE or "
			"image:FILE[,FILE...] after libnfb-ext:PATH.so:)",
			devname ? devname : "(null)");
		errno = EINVAL;
		return -EINVAL;
	}
	memset(ops, 0, sizeof(*ops));
	ops->open = ext_open;
	ops->close = ext_close;
	ops->bus_open_mi = ext_bus_open_mi;
	ops->bus_close_mi = ext_bus_close_mi;
	ops->comp_lock = ext_comp_lock;
	ops->comp_unlock = ext_comp_unlock;
	return 1;
}
