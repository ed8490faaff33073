/*
 * Fuzz target: the whole nfb-pcie-telemetry command line, run in-process
 * through pt_cli_main() (options, their values, help and version, the
 * report loop, --record and its refusals, the error messages).
 *
 * Input: the arguments, one per line (at most 24), then optionally a NUL
 * byte and the bytes of a register image.  The harness keeps a temporary
 * folder with a.regs (a valid image with 2 readings), b.regs (the image
 * of the input), a FIFO and a folder; the argument @A stands for
 * image:DIR/a.regs, @B for image:DIR/b.regs, @R for DIR/rec.regs, @F for
 * DIR/fifo, @D for DIR.  Only image: devices inside that folder, and
 * --record files inside it, ever run: the command line is parsed first
 * and anything else (a real device, the default NFB device, sim:, mmap:,
 * pci:) is skipped, so nothing touches hardware or writes elsewhere.
 *
 * Checked: the exit status is 0, 1 or 2; an error is exactly one line
 * "nfb-pcie-telemetry: ..." and a usage error prints nothing else; a
 * success prints nothing on the error stream but notes and warnings; a run
 * leaves no temporary recording behind; nothing crashes, hangs or leaks.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 24

static char dir[64];

/* The temporary folder goes when the fuzzer ends. */
static void cleanup(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return;
}

/* Two readings of a small valid component (1 endpoint, 1 DMA port). */
static const char image_a[] =
	"pcie-telemetry-regs 1\n"
	"@snapshot 1.0\n"
	"0x0000 0x50544C4D\n0x0004 0x00020000\n0x0008 0x00020101\n0x000C 0x30300040\n"
	"0x0010 0x0E02021F\n0x0014 0x00020211\n0x0018 0x00041000\n0x001C 0x00008000\n"
	"0x002C 0x02020202\n0x0030 0x00200020\n0x0034 0x00000204\n0x0038 0x04000100\n"
	"0x003C 0x00200020\n0x0040 0x00000251\n0x0080 0x00030076\n0x00C0 0x00600280\n"
	"0x8000 0x00001000\n0x8008 0x00000800\n0x8010 0x00000010\n"
	"@snapshot 2.5\n"
	"0x0000 0x50544C4D\n0x0004 0x00020000\n0x0008 0x00020101\n0x000C 0x30300040\n"
	"0x0010 0x0E02021F\n0x0014 0x00020211\n0x0018 0x00041000\n0x001C 0x00008000\n"
	"0x002C 0x02020202\n0x0030 0x00200020\n0x0034 0x00000204\n0x0038 0x04000100\n"
	"0x003C 0x00200020\n0x0040 0x00000251\n0x0080 0x00030076\n0x00C0 0x00600280\n"
	"0x8000 0x00003000\n0x8008 0x00000900\n0x8010 0x00000020\n0x8014 0x00000001\n";

static void write_file(const char *name, const void *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		abort();
}

static void setup(void)
{
	char path[128];

	snprintf(dir, sizeof(dir), "/tmp/fuzz_tool_cli_XXXXXX");
	if (!mkdtemp(dir))
		abort();
	write_file("a.regs", image_a, sizeof(image_a) - 1);
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (mkfifo(path, 0600) != 0)
		abort();
	snprintf(path, sizeof(path), "%s/sub", dir);
	if (mkdir(path, 0700) != 0)
		abort();
}

/* A path strictly inside the temporary folder, without a way out. */
static int inside(const char *path)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && path[n] == '/' && !strstr(path, "..");
}

/* Would the command touch anything but the temporary folder? */
static int safe(int argc, char **argv)
{
	char *copy[MAX_ARGS + 2];
	struct cli_args a;
	struct cli_error e;

	/* getopt permutes the array: parse a copy */
	memcpy(copy, argv, sizeof(copy[0]) * (size_t)(argc + 1));
	if (cli_parse(argc, copy, &a, &e) < 0 || a.action != CLI_RUN)
		return 1; /* a usage error, help or version: nothing opens */
	if (!a.device || strncmp(a.device, "image:", 6) != 0 || !inside(a.device + 6))
		return 0;
	return !a.record || inside(a.record);
}

/* Every line of err is "nfb-pcie-telemetry: ...", and there is one. */
static int one_error_line(const char *err, size_t len)
{
	const char *nl = memchr(err, '\n', len);

	return len > 0 && nl == err + len - 1 && strncmp(err, CLI_PROG ": ", 20) == 0 &&
	       !memchr(err, '\0', len);
}

static void no_temp_left(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		abort();
	while ((de = readdir(d)))
		if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			abort(); /* a ".NAME.XXXXXX" of --record */
	closedir(d);
}

static char *expand(const char *tok, size_t len)
{
	static const char *const names[] = { "@A", "image:%s/a.regs", "@B", "image:%s/b.regs",
					     "@R", "%s/rec.regs",     "@F", "%s/fifo",
					     "@D", "%s" };
	char *s;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i += 2)
		if (len == 2 && memcmp(tok, names[i], 2) == 0) {
			s = malloc(strlen(dir) + 20);
			if (s)
				sprintf(s, names[i + 1], dir);
			return s;
		}
	s = malloc(len + 1);
	if (s) {
		memcpy(s, tok, len);
		s[len] = '\0';
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nul = memchr(p, '\0', size);
	char *argv[MAX_ARGS + 2] = { NULL }, *obuf = NULL, *ebuf = NULL;
	size_t olen = 0, elen = 0;
	int argc = 1, status;
	FILE *out, *err;

	if (!dir[0])
		setup();
	write_file("b.regs", nul ? nul + 1 : "", nul ? (size_t)(end - nul - 1) : 0);
	argv[0] = CLI_PROG;
	for (const char *q = p, *stop = nul ? nul : end; q < stop && argc <= MAX_ARGS;) {
		const char *nl = memchr(q, '\n', (size_t)(stop - q));
		size_t n = nl ? (size_t)(nl - q) : (size_t)(stop - q);

		argv[argc] = expand(q, n);
		if (!argv[argc])
			goto done;
		argc++;
		q += n + 1;
	}
	if (!safe(argc, argv))
		goto done;
	out = open_memstream(&obuf, &olen);
	err = open_memstream(&ebuf, &elen);
	if (!out || !err)
		abort();
	status = pt_cli_main(argc, argv, out, err);
	fclose(out);
	fclose(err);
	if (status < 0 || status > 2)
		abort();
	{
		/* notes first (what a run did or means), then nothing or the
		 * error's one line */
		size_t notes = ebuf ? cli_notes_length(ebuf, elen) : 0;

		if (status == 0 && elen != notes)
			abort();
		if (status != 0 && !one_error_line(ebuf + notes, elen - notes))
			abort();
	}
	if (status == 2 && olen != 0)
		abort(); /* a usage error prints no report */
	no_temp_left();
	{
		char rec[128];

		snprintf(rec, sizeof(rec), "%s/rec.regs", dir);
		unlink(rec);
	}
	free(obuf);
	free(ebuf);
done:
	for (int i = 1; i < argc; i++)
		free(argv[i]);
	return 0;
}
