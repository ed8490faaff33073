/*
 * nfb-pcie-telemetry: --record FILE, every reading of the printed
 * reports as a register image file (register-image.md) that -d image:FILE
 * replays.  The file is written under a temporary name beside its target
 * and renamed over it at the end: a failed run leaves no file, and an
 * older FILE stays as it was.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pcie_telemetry/render.h"

/* The command line as a shell would take it back, for the header. */
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

int cli_record_open(struct cli_recorder *rec, const char *path, const char *device,
		    struct cli_error *e)
{
	struct stat st;
	mode_t mask;

	(void)device;
	memset(rec, 0, sizeof(*rec));
	rec->fd = -1;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return cli_fail(e, CLI_EXIT_USAGE, "--record %s: is a folder, not a file name", path);
	rec->path = strdup(path);
	rec->target = strdup(path);
	rec->tmp = rec->target ? temp_name(rec->target) : NULL;
	if (!rec->path || !rec->target || !rec->tmp) {
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
		      struct cli_error *e)
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

int cli_record_close(struct cli_recorder *rec, bool keep, struct cli_error *e)
{
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
	if (keep && rename(rec->tmp, rec->target) != 0) {
		rc = cli_fail(e, CLI_EXIT_RUNTIME, "--record %s: %s", rec->path, strerror(errno));
		keep = false;
	}
	if (!keep)
		unlink(rec->tmp);
	forget(rec);
	return rc;
}
