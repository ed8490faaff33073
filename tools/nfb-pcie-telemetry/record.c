/*
 * nfb-pcie-telemetry: --record FILE, every reading of the printed
 * reports as a register image file (register-image.md) that -d image:FILE
 * replays.  The file is written under a temporary name beside its target
 * and renamed over it at the end: a failed run leaves no file, and an
 * older FILE stays as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/render.h"
#include "util/pt_util.h"

/* The command line in a header comment stays well inside the line limit
 * of an image (4096 characters). */
#define COMMAND_MAX 3000

/* The command line as a shell would take it back, for the header (cut
 * to COMMAND_MAX characters, with " ..." at the end). */
static char *command_line(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (int i = 0; i < argc; i++) {
		const char *q = argv[i];
		bool plain = *q != '\0';

		for (const char *t = q; *t; t++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-./:@=,+%",
				    *t))
				plain = false;
		if (i)
			*p++ = ' ';
		if (!plain)
			*p++ = '\'';
		for (const char *t = q; *t; t++) {
			if (*t == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *t;
			}
		}
		if (!plain)
			*p++ = '\'';
	}
	*p = '\0';
	if (p - s > COMMAND_MAX)
		strcpy(s + COMMAND_MAX - 4, " ...");
	return s;
}

/* ".NAME.XXXXXX" in the folder of path: the rename at the end then stays
 * inside one file system, and a half-written file never has the name. */
static char *temp_name(const char *path)
{
	char *dcopy = strdup(path), *bcopy = strdup(path), *tmp = NULL;

	if (dcopy && bcopy) {
		const char *dir = dirname(dcopy), *base = basename(bcopy);

		tmp = malloc(strlen(dir) + strlen(base) + 16);
		if (tmp)
			sprintf(tmp, "%s/.%s.XXXXXX", dir, base);
	}
	free(dcopy);
	free(bcopy);
	return tmp;
}

static void forget(struct cli_recorder *rec)
{
	free(rec->tmp);
	free(rec->target);
	free(rec->path);
	rec->tmp = rec->target = rec->path = NULL;
	rec->fd = -1;
}

/* path with its symbolic links followed to the file they lead to (which
 * need not exist: *st_ok then is false).  NULL with errno on an error. */
static char *follow_links(const char *path, struct stat *st, bool *st_ok)
{
	char *cur = strdup(path);

	for (unsigned hops = 0; cur; hops++) {
		char link[PATH_MAX], *dcopy, *next;
		ssize_t n;

		if (lstat(cur, st) != 0) {
			*st_ok = false;
			if (errno == ENOENT)
				return cur;
			break;
		}
		*st_ok = true;
		if (!S_ISLNK(st->st_mode))
			return cur;
		n = hops < 40 ? readlink(cur, link, sizeof(link) - 1) : -1;
		if (hops >= 40)
			errno = ELOOP;
		if (n < 0)
			break;
		link[n] = '\0';
		dcopy = strdup(cur);
		next = dcopy ? malloc(strlen(dcopy) + (size_t)n + 2) : NULL;
		if (next && (link[0] == '/' || !strchr(cur, '/')))
			strcpy(next, link);
		else if (next)
			sprintf(next, "%s/%s", dirname(dcopy), link);
		free(dcopy);
		free(cur);
		cur = next;
	}
	free(cur);
	return NULL;
}

/* Refuse what a recording must not replace (see cli.h). */
static int check_target(const struct cli_recorder *rec, const struct stat *st, const char *device,
			struct cli_error *e)
{
	char shown[PATH_MAX + 32] = "", input[4096];
	struct stat in;

	if (strcmp(rec->path, rec->target) != 0)
		snprintf(shown, sizeof(shown), " (a link to %s)", rec->target);
	if (S_ISDIR(st->st_mode))
		return cli_fail(e, CLI_EXIT_USAGE, "--record %s%s: is a folder, not a file name",
				rec->path, shown);
	if (!S_ISREG(st->st_mode))
		return cli_fail(e, CLI_EXIT_USAGE,
				"--record %s%s: is %s; a recording replaces only a regular file",
				rec->path, shown, pt_util_file_kind(st->st_mode));
	if (pt_bus_device_file(device, input, sizeof(input)) && stat(input, &in) == 0 &&
	    in.st_dev == st->st_dev && in.st_ino == st->st_ino)
		return cli_fail(e, CLI_EXIT_USAGE,
				"--record %s%s: is the file that -d %s reads; the recording would "
				"replace it",
				rec->path, shown, device);
	return 0;
}

int cli_record_open(struct cli_recorder *rec, const char *path, const char *device,
		    struct cli_error *e)
{
	struct stat st;
	bool exists;
	mode_t mask;

	memset(rec, 0, sizeof(*rec));
	rec->fd = -1;
	rec->path = strdup(path);
	rec->target = rec->path ? follow_links(path, &st, &exists) : NULL;
	if (!rec->target) {
		int err = rec->path ? errno : ENOMEM;

		forget(rec);
		return cli_fail(e, CLI_EXIT_USAGE, "--record %s: %s", path, strerror(err));
	}
	if (exists && check_target(rec, &st, device, e) < 0) {
		forget(rec);
		return -1;
	}
	rec->tmp = temp_name(rec->target);
	if (!rec->tmp) {
		forget(rec);
		return cli_fail(e, CLI_EXIT_USAGE, "out of memory");
	}
	rec->fd = mkstemp(rec->tmp);
	if (rec->fd < 0) {
		int err = errno;

		cli_fail(e, CLI_EXIT_USAGE, "--record %s: cannot create a file in %.*s: %s", path,
			 (int)(strrchr(rec->tmp, '/') - rec->tmp), rec->tmp, strerror(err));
		forget(rec);
		return -1;
	}
	(void)fcntl(rec->fd, F_SETFD, FD_CLOEXEC);
	/* mkstemp makes 0600, a recording is an ordinary file; should the
	 * change fail, the file is merely private, so that is no error. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(rec->fd, 0666 & ~mask);
	return 0;
}

static int write_error(struct cli_recorder *rec, int err, struct cli_error *e)
{
	return cli_fail(e, CLI_EXIT_RUNTIME, "--record %s: write error%s%s", rec->path,
			err ? ": " : "", err ? strerror(err) : "");
}

int cli_record_header(struct cli_recorder *rec, int argc, char **argv, const char *device,
		      const double *unix_offset, struct cli_error *e)
{
	char *cmd, *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (rec->fd < 0)
		return 0;
	f = open_memstream(&buf, &len);
	if (!f)
		return cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
	cmd = command_line(argc, argv);
	rc = pt_render_regs_header(f, PT_VERSION_STRING, cmd ? cmd : CLI_PROG, device);
	free(cmd);
	if (unix_offset) {
		/* read back by a series of the replay (series.c): its times
		 * are then the UNIX times of the recording */
		char num[64];

		pt_render_float_repr(*unix_offset, num, sizeof num);
		fprintf(f, CLI_CLOCK_COMMENT "%s\n", num);
	}
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		return write_error(rec, 0, e);
	}
	rc = cli_write_all(rec->fd, buf, len, false);
	free(buf);
	return rc < 0 ? write_error(rec, -rc, e) : 0;
}

int cli_record_begin(struct cli_recorder *rec, struct cli_error *e)
{
	if (rec->fd < 0)
		return 0;
	rec->pending = open_memstream(&rec->pending_buf, &rec->pending_len);
	return rec->pending ? 0 : cli_fail(e, CLI_EXIT_RUNTIME, "out of memory");
}

void cli_record_drop(struct cli_recorder *rec)
{
	if (rec->pending)
		fclose(rec->pending);
	free(rec->pending_buf);
	rec->pending = NULL;
	rec->pending_buf = NULL;
	rec->pending_len = 0;
}

int cli_record_add(struct cli_recorder *rec, const struct pt_layout *l,
		   const struct pt_reading *r, struct cli_error *e)
{
	if (!rec->pending)
		return 0;
	if (pt_render_regs_image(rec->pending, l, r) < 0)
		return cli_fail(e, CLI_EXIT_RUNTIME, "--record %s: cannot render the register image",
				rec->path);
	return 0;
}

int cli_record_commit(struct cli_recorder *rec, struct cli_error *e)
{
	int rc;

	if (!rec->pending)
		return 0;
	if (fclose(rec->pending) != 0) {
		rec->pending = NULL;
		cli_record_drop(rec);
		return cli_fail(e, CLI_EXIT_RUNTIME, "--record %s: out of memory", rec->path);
	}
	rec->pending = NULL;
	rec->committed = lseek(rec->fd, 0, SEEK_CUR);
	rc = rec->committed < 0 ? -errno
				: cli_write_all(rec->fd, rec->pending_buf, rec->pending_len, false);
	cli_record_drop(rec);
	if (rc < 0)
		return write_error(rec, -rc, e);
	rec->images++;
	return 0;
}

void cli_record_undo(struct cli_recorder *rec)
{
	if (rec->fd < 0 || rec->images == 0)
		return;
	/* should this fail, the run keeps no file: status 0 needs it */
	if (ftruncate(rec->fd, rec->committed) != 0 ||
	    lseek(rec->fd, rec->committed, SEEK_SET) != rec->committed) {
		close(rec->fd);
		unlink(rec->tmp);
		rec->fd = -1;
		return;
	}
	rec->images--;
}

/* The rename is durable once the folder is on disk too (best effort). */
static void sync_folder(const char *target)
{
	char *dcopy = strdup(target);
	int fd = dcopy ? open(dirname(dcopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dcopy);
}

int cli_record_close(struct cli_recorder *rec, bool keep, struct cli_error *e)
{
	struct stat st;
	int rc = 0;

	cli_record_drop(rec);
	if (rec->fd < 0) {
		forget(rec);
		return 0;
	}
	if (fsync(rec->fd) != 0 && keep) {
		rc = write_error(rec, errno, e);
		keep = false;
	}
	if (close(rec->fd) != 0 && keep) {
		rc = write_error(rec, errno, e);
		keep = false;
	}
	if (keep && rec->images == 0)
		keep = false;
	if (keep && lstat(rec->target, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* something else took the name meanwhile: leave it be */
		rc = cli_fail(e, CLI_EXIT_RUNTIME,
			      "--record %s: became %s while recording; nothing was written",
			      rec->path, pt_util_file_kind(st.st_mode));
		keep = false;
	}
	if (keep && rename(rec->tmp, rec->target) != 0) {
		rc = cli_fail(e, CLI_EXIT_RUNTIME, "--record %s: %s", rec->path, strerror(errno));
		keep = false;
	}
	if (keep)
		sync_folder(rec->target);
	else
		unlink(rec->tmp);
	forget(rec);
	return rc;
}
