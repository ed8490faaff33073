/*
 * Fuzz target: the scenario parser of the simulated card on arbitrary
 * bytes, read from a file as -d sim:FILE reads it (the line limit, the
 * INI syntax, every key's value parser, base = PRESET, the checks across
 * keys).  A scenario is either accepted or refused with one line that
 * names the file; nothing may crash, hang or leak.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env/env_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], tmpdir[64];

/* The temporary folder goes when the fuzzer ends. */
static void cleanup(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		return;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pte_scenario s;
	char msg[512];
	FILE *f;
	int rc;

	if (!path[0]) {
		char dir[] = "/tmp/fuzz_env_scenario_XXXXXX";

		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/s.ini", dir);
		snprintf(tmpdir, sizeof(tmpdir), "%s", dir);
		atexit(cleanup);
	}
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	msg[0] = '\0';
	rc = pte_scenario_load(path, &s, msg, sizeof(msg));
	if (rc == 0)
		return 0;
	/* a refusal: one line that names the file (or, for a check
	 * across keys without a line, the scenario) */
	if (rc > 0 || !msg[0] || strchr(msg, '\n') || strchr(msg, '\r'))
		abort();
	if (strncmp(msg, path, strlen(path)) != 0 && !strstr(msg, "preset "))
		abort();
	return 0;
}
