/*
 * pcie-telemetry: the "pci" backend, a PCI BAR mapped through sysfs.
 *
 *   pci:DOMAIN:BUS:DEV.FN[/BAR]@OFFSET
 *
 * maps /sys/bus/pci/devices/DOMAIN:BUS:DEV.FN/resource<BAR> (under
 * $PT_SYSFS_ROOT instead of /sys when set, for tests) at the page
 * holding OFFSET (the component's address inside the BAR) and accesses
 * its 64 KiB with volatile 32-bit loads and stores, as the MI bus expects.
 * pt_bus_open_mmap_file() is the same code for any file, so a test can map
 * a regular file laid out like the component.
 *
 * What may be written: a BAR is mapped read-only, and read-write (the
 * file opened again for writing) only at the first write, so a command
 * that only reads never holds a writable mapping of the card.  A file
 * behind mmap: is mapped privately (copy on write: the command's writes
 * never reach it, so a register dump is never changed) unless the caller
 * asks for writes (PT_BUS_MMAP_WRITE, "mmap:FILE,rw"), which then behave
 * as on a BAR.
 *
 * The clock is CLOCK_MONOTONIC and wait() sleeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bus/backend.h"
#include "util/pt_util.h"

struct mm_priv {
	void *map;
	size_t maplen;
	volatile uint32_t *regs; /* the component's first register */
	/* a shared mapping still read-only: what the first write maps again */
	char *path;
	uint64_t start;           /* file offset of map */
	dev_t st_dev;
	ino_t st_ino;
};

static int mm_check(struct pt_bus *b, uint32_t off, size_t words)
{
	if (off % 4u != 0 || off >= PT_COMP_SPAN || words > (PT_COMP_SPAN - off) / 4u)
		return pt_bus_fail(b, -EINVAL, "%s: access at offset 0x%X outside the component",
				   b->device, (unsigned)off);
	return 0;
}

static int mm_read32(struct pt_bus *b, uint32_t off, uint32_t *val)
{
	struct mm_priv *p = b->priv;
	int rc = mm_check(b, off, 1);

	if (rc < 0)
		return rc;
	*val = p->regs[off / 4u];
	return 0;
}

/* The first write to a read-only shared mapping: the same pages again,
 * writable, from the same file opened for writing (MAP_FIXED replaces
 * the mapping in one step). */
static int mm_make_writable(struct pt_bus *b, struct mm_priv *p)
{
	struct stat st;
	void *map;
	int fd, err;

	fd = open(p->path, O_RDWR | O_SYNC | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return pt_bus_fail(b, -errno, "%s: cannot open %s for writing: %s%s", b->device,
				   p->path, strerror(errno),
				   errno == EACCES ? " (writing a BAR needs root)" : "");
	if (fstat(fd, &st) < 0 || st.st_dev != p->st_dev || st.st_ino != p->st_ino) {
		close(fd);
		return pt_bus_fail(b, -ESTALE, "%s: %s is no longer the file that was mapped",
				   b->device, p->path);
	}
	map = mmap(p->map, p->maplen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		   (off_t)p->start);
	err = errno;
	close(fd);
	if (map == MAP_FAILED)
		return pt_bus_fail(b, -err, "%s: cannot map %s for writing: %s", b->device, p->path,
				   strerror(err));
	free(p->path);
	p->path = NULL;
	return 0;
}

static int mm_write32(struct pt_bus *b, uint32_t off, uint32_t val)
{
	struct mm_priv *p = b->priv;
	int rc = mm_check(b, off, 1);

	if (rc == 0 && p->path)
		rc = mm_make_writable(b, p);
	if (rc < 0)
		return rc;
	p->regs[off / 4u] = val;
	return 0;
}

static int mm_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	struct mm_priv *p = b->priv;
	const volatile uint32_t *src;
	int rc = mm_check(b, off, n);

	if (rc < 0)
		return rc;
	/* One word at a time: the MI bridge takes 32-bit reads only, and a
	 * memcpy could use wider or unaligned loads. */
	src = p->regs + off / 4u;
	for (size_t i = 0; i < n; i++)
		buf[i] = src[i];
	return 0;
}

static void mm_close(struct pt_bus *b)
{
	struct mm_priv *p = b->priv;

	if (p) {
		if (p->map)
			munmap(p->map, p->maplen);
		free(p->path);
		free(p);
	}
	b->priv = NULL;
}

static const struct pt_bus_ops mm_ops = {
	.kind = "pci",
	.read32 = mm_read32,
	.write32 = mm_write32,
	.read_block = mm_read_block,
	.now = pt_bus_realtime_now,
	.wait = pt_bus_realtime_wait,
	.close = mm_close,
};

/* How map_file maps: privately (writes stay in the process), or shared,
 * read-only until the first write. */
enum map_mode { MAP_COPY, MAP_SHARED_LAZY };

static int map_file(const char *path, const char *what, const char *device, uint64_t offset,
		    enum map_mode mode, struct pt_bus **out, char *msg, size_t msglen)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	uint64_t page = (uint64_t)(pagesz > 0 ? pagesz : 4096), size;
	uint64_t start = offset - offset % page;
	size_t maplen = (size_t)(offset - start) + PT_COMP_SPAN;
	struct mm_priv *p;
	struct pt_bus *b;
	struct stat st;
	void *map;
	int fd, err;

	*out = NULL;
	if (offset % 4u != 0) {
		snprintf(msg, msglen, "%s: offset 0x%llX is not a multiple of 4", device,
			 (unsigned long long)offset);
		return -EINVAL;
	}
	fd = pt_util_open_file(path, what, UINT64_MAX, &size, msg, msglen);
	if (fd < 0) {
		if (fd == -EACCES && mode == MAP_SHARED_LAZY)
			snprintf(msg + strlen(msg), msglen - strlen(msg), " (mapping a BAR needs root)");
		return fd;
	}
	if (size < PT_COMP_SPAN || offset > size - PT_COMP_SPAN || fstat(fd, &st) < 0) {
		snprintf(msg, msglen,
			 "%s: the 64 KiB of the component at offset 0x%llX do not fit in its %llu "
			 "bytes",
			 path, (unsigned long long)offset, (unsigned long long)size);
		close(fd);
		return -ERANGE;
	}
	if (mode == MAP_COPY)
		map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)start);
	else
		map = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, (off_t)start);
	err = errno;
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(msg, msglen, "%s: cannot map 64 KiB at offset 0x%llX: %s", path,
			 (unsigned long long)offset, strerror(err));
		return -err;
	}
	p = calloc(1, sizeof(*p));
	b = p ? pt_bus_alloc(&mm_ops, device) : NULL;
	if (b && mode == MAP_SHARED_LAZY && !(p->path = strdup(path))) {
		pt_bus_close(b);
		b = NULL;
	}
	if (!b) {
		munmap(map, maplen);
		free(p);
		snprintf(msg, msglen, "%s: out of memory", device);
		return -ENOMEM;
	}
	p->map = map;
	p->maplen = maplen;
	p->start = start;
	p->st_dev = st.st_dev;
	p->st_ino = st.st_ino;
	p->regs = (volatile uint32_t *)(void *)((unsigned char *)map + (offset - start));
	b->priv = p;
	*out = b;
	return 0;
}

int pt_bus_open_mmap_file(const char *path, uint64_t offset, unsigned flags, struct pt_bus **out,
			  char *msg, size_t msglen)
{
	char dev[sizeof(((struct pt_bus *)0)->device)];
	bool write = flags & PT_BUS_MMAP_WRITE;

	snprintf(dev, sizeof(dev), "mmap:%s@0x%llX%s", path, (unsigned long long)offset,
		 write ? ",rw" : "");
	return map_file(path, "file to map", dev, offset, write ? MAP_SHARED_LAZY : MAP_COPY, out,
			msg, msglen);
}

/* Parse an unsigned hex number of the spec: 1..maxdigits digits,
 * optional 0x prefix when allow0x.  Returns the end or NULL. */
static const char *hexnum(const char *s, unsigned maxdigits, int allow0x, uint64_t *out)
{
	unsigned n = 0;
	uint64_t v = 0;

	if (allow0x && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (;; s++, n++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (n == maxdigits)
			return NULL;
		v = v << 4 | d;
	}
	if (n == 0)
		return NULL;
	*out = v;
	return s;
}

int pt_bus_open_pci(const char *spec, struct pt_bus **out, char *msg, size_t msglen)
{
	uint64_t dom, bus, dev, fn, bar = 0, off;
	const char *s = spec;
	char path[1024], device[256];
	struct stat st;
	int rc;

	*out = NULL;
	s = hexnum(s, 8, 0, &dom); /* VMD domains have 5 digits */
	if (s && *s == ':')
		s = hexnum(s + 1, 2, 0, &bus);
	else
		s = NULL;
	if (s && *s == ':')
		s = hexnum(s + 1, 2, 0, &dev);
	else
		s = NULL;
	if (s && *s == '.')
		s = hexnum(s + 1, 1, 0, &fn);
	else
		s = NULL;
	if (s && *s == '/') {
		char *end;

		errno = 0;
		if (s[1] < '0' || s[1] > '9')
			s = NULL;
		else {
			bar = strtoull(s + 1, &end, 10);
			s = (errno || bar > 5) ? NULL : end;
		}
	}
	if (s && *s == '@')
		s = hexnum(s + 1, 16, 1, &off);
	else
		s = NULL;
	if (!s || *s != '\0' || dev > 0x1F || fn > 7) {
		snprintf(msg, msglen,
			 "pci:%s: bad PCI device (expected pci:DOMAIN:BUS:DEV.FN[/BAR]@OFFSET, e.g. "
			 "pci:0000:03:00.0/0@0x8000)",
			 spec);
		return -EINVAL;
	}
	snprintf(device, sizeof(device), "pci:%04llx:%02llx:%02llx.%llx/%llu@0x%llX",
		 (unsigned long long)dom, (unsigned long long)bus, (unsigned long long)dev,
		 (unsigned long long)fn, (unsigned long long)bar, (unsigned long long)off);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%04llx:%02llx:%02llx.%llx",
		 pt_bus_sysfs_root(), (unsigned long long)dom, (unsigned long long)bus, (unsigned long long)dev,
		 (unsigned long long)fn);
	if (stat(path, &st) < 0) {
		rc = -errno;
		snprintf(msg, msglen, "%s: no such PCI device (%s: %s)", device, path,
			 strerror(errno));
		return rc;
	}
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/resource%llu",
		 (unsigned long long)bar);
	if (stat(path, &st) < 0) {
		rc = -errno;
		snprintf(msg, msglen, "%s: the device has no memory BAR %llu (%s: %s)", device,
			 (unsigned long long)bar, path, strerror(errno));
		return rc;
	}
	return map_file(path, "PCI BAR", device, off, MAP_SHARED_LAZY, out, msg, msglen);
}
