/*
 * The helper of test_env_caches: the simulated card and the model built
 * with every cache at its smallest (PT_TINY_CACHES, src/util/cache.h).
 *
 * Usage: card_tiny SECONDS SPEC...  First "caches: tiny" on stdout, then
 * for each SPEC (a preset or a scenario file) one line:
 * card_result_line() of a run of SECONDS simulated seconds without
 * endpoint threads.
 */
#include <stdio.h>
#include <stdlib.h>

#include "card_result.h"
#include "util/cache.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: card_tiny SECONDS SPEC...\n");
		return 2;
	}
	/* what this build is, for the test to see */
	printf("caches: %s\n", PT_CACHE_SIZE(0, 1) ? "tiny" : "normal");
	double sec = atof(argv[1]);
	for (int i = 2; i < argc; i++) {
		struct card_result r;
		char line[600];
		card_result(argv[i], sec, 0, &r);
		card_result_line(&r, line, sizeof(line));
		printf("%s\n", line);
	}
	return 0;
}
