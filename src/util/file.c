/*
 * pcie-telemetry: opening and reading the files the library reads
 * (register images, scenario files, traces, mapped dumps), with the same
 * checks everywhere (see pt_util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/pt_util.h"

int pt_util_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		n = open("/dev/null", O_RDONLY | O_NOCTTY);
		if (n < 0)
			return -errno;
		if (n != fd) { /* cannot happen: the lower ones are open */
			int rc = dup2(n, fd);

			close(n);
			if (rc < 0)
				return -errno;
		}
	}
	return 0;
}

const char *pt_util_file_kind(mode_t mode)
{
	static const struct {
		mode_t type;
		const char *text;
	} kinds[] = {
		{ S_IFDIR, "a folder" },	  { S_IFIFO, "a FIFO" },
		{ S_IFCHR, "a character device" }, { S_IFBLK, "a block device" },
		{ S_IFSOCK, "a socket" },	  { S_IFLNK, "a symbolic link" },
		{ S_IFREG, "a regular file" },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((mode & S_IFMT) == kinds[i].type)
			return kinds[i].text;
	return "not a regular file";
}

const char *pt_util_size_text(uint64_t bytes, char *buf, size_t buflen)
{
	static const struct {
		unsigned shift;
		const char *unit;
	} units[] = { { 30, "GiB" }, { 20, "MiB" }, { 10, "KiB" } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (bytes >= (UINT64_C(1) << units[i].shift) &&
		    bytes % (UINT64_C(1) << units[i].shift) == 0) {
			snprintf(buf, buflen, "%" PRIu64 " %s", bytes >> units[i].shift,
				 units[i].unit);
			return buf;
		}
	snprintf(buf, buflen, "%" PRIu64 " bytes", bytes);
	return buf;
}

static int fail(int err, char *msg, size_t msglen, const char *path, const char *what,
		const char *verb)
{
	if (msg && msglen)
		snprintf(msg, msglen, "%s: cannot %s the %s: %s", path, verb, what, strerror(err));
	return -err;
}

int pt_util_open_file(const char *path, const char *what, uint64_t max_bytes, uint64_t *size,
		      char *msg, size_t msglen)
{
	struct stat st;
	char lim[32];
	int fd, flags;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail(errno, msg, msglen, path, what, "open");
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return fail(err, msg, msglen, path, what, "read");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		if (msg && msglen)
			snprintf(msg, msglen, "%s: cannot read the %s: it is %s, not a regular file",
				 path, what, pt_util_file_kind(st.st_mode));
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > max_bytes) {
		close(fd);
		if (msg && msglen)
			snprintf(msg, msglen, "%s: the %s has %lld bytes, more than its limit of %s",
				 path, what, (long long)st.st_size,
				 pt_util_size_text(max_bytes, lim, sizeof(lim)));
		return -EFBIG;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int err = errno;

		close(fd);
		return fail(err, msg, msglen, path, what, "read");
	}
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
}

int pt_util_read_file(const char *path, const char *what, size_t max_bytes, char **data,
		      size_t *len, char *msg, size_t msglen)
{
	uint64_t size;
	size_t have = 0, cap;
	char *buf, lim[32];
	int fd = pt_util_open_file(path, what, max_bytes, &size, msg, msglen);

	*data = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	/* One byte more than the size to see the end at once; a file
	 * that grows meanwhile is read on up to the limit. */
	cap = (size_t)size + 1;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		if (msg && msglen)
			snprintf(msg, msglen, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t got;

		if (have == cap) {
			size_t ncap = cap > max_bytes / 2 ? max_bytes + 1 : 2 * cap;
			char *n = have > max_bytes ? NULL : realloc(buf, ncap + 1);

			if (!n) {
				int big = have > max_bytes;

				free(buf);
				close(fd);
				if (msg && msglen && big)
					snprintf(msg, msglen,
						 "%s: the %s grew past its limit of %s while it was "
						 "read",
						 path, what, pt_util_size_text(max_bytes, lim, sizeof(lim)));
				else if (msg && msglen)
					snprintf(msg, msglen, "%s: out of memory", path);
				return big ? -EFBIG : -ENOMEM;
			}
			buf = n;
			cap = ncap;
		}
		got = read(fd, buf + have, cap - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;

			free(buf);
			close(fd);
			return fail(err, msg, msglen, path, what, "read");
		}
		if (got == 0)
			break;
		have += (size_t)got;
	}
	close(fd);
	buf[have] = '\0';
	*data = buf;
	*len = have;
	return 0;
}
