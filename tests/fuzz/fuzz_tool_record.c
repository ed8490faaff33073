/*
 * Fuzz target: --record followed by the replay of the recording, through
 * the whole command in-process (pt_cli_main).  What a run prints with
 * --record, the replay of its recording prints again byte for byte (the
 * same -t and -j), and a failed run leaves no recording.
 *
 * Input: one byte of options (bit 0: -j; bits 1-2: -t 1, 0, 0.25 or 3),
 * then the bytes of the register image the first run replays.  All files
 * live in a temporary folder of the harness.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], in_dev[96], rec[96], rec_dev[96];

/* The temporary folder goes when the fuzzer ends. */
static void cleanup(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return;
}

/* One run: its status, its output in *out (freed by the caller). */
static int run(const char *dev, const char *t, int json, const char *record, char **out,
	       size_t *olen)
{
	char *argv[10], *ebuf = NULL;
	int argc = 0, status;
	size_t elen = 0;
	FILE *o, *e;

	argv[argc++] = CLI_PROG;
	argv[argc++] = "-d";
	argv[argc++] = (char *)dev;
	argv[argc++] = "-t";
	argv[argc++] = (char *)t;
	if (json)
		argv[argc++] = "-j";
	if (record) {
		argv[argc++] = "--record";
		argv[argc++] = (char *)record;
	}
	argv[argc] = NULL;
	*out = NULL;
	*olen = 0;
	o = open_memstream(out, olen);
	e = open_memstream(&ebuf, &elen);
	if (!o || !e)
		abort();
	status = pt_cli_main(argc, argv, o, e);
	fclose(o);
	fclose(e);
	if ((status == 0) != (elen == (ebuf ? cli_notes_length(ebuf, elen) : 0)))
		abort(); /* an error says so, a success says nothing but notes */
	free(ebuf);
	return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const intervals[] = { "1", "0", "0.25", "3" };
	char *out1, *out2;
	size_t len1, len2;
	const char *t;
	int json, st1, st2;
	FILE *f;

	if (size < 1)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_tool_record_XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(in_dev, sizeof(in_dev), "image:%s/in.regs", dir);
		snprintf(rec, sizeof(rec), "%s/rec.regs", dir);
		snprintf(rec_dev, sizeof(rec_dev), "image:%s", rec);
		atexit(cleanup);
	}
	json = data[0] & 1;
	t = intervals[(data[0] >> 1) & 3];
	f = fopen(in_dev + 6, "wb");
	if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1 || fclose(f) != 0)
		abort();
	unlink(rec);
	st1 = run(in_dev, t, json, rec, &out1, &len1);
	if (st1 != 0) {
		if (access(rec, F_OK) == 0)
			abort(); /* a failed run leaves no recording */
		free(out1);
		return 0;
	}
	st2 = run(rec_dev, t, json, NULL, &out2, &len2);
	if (st2 != 0 || len1 != len2 || memcmp(out1, out2, len1) != 0)
		abort(); /* the recording does not replay what was printed */
	free(out1);
	free(out2);
	return 0;
}
