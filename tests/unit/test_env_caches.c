/*
 * No cache of the simulated card or of the model changes a result.
 *
 * The caches (src/util/cache.h) only remember what can be computed again,
 * and an entry that gives way is computed again when it is needed.  A
 * second build of the card and the model with every cache at its
 * smallest (PT_TINY_CACHES; the helper card_tiny) gives way at nearly
 * every lookup, so a caller that kept a pointer into a cache across
 * another lookup, or a key that leaves out something its answer depends
 * on, makes the two builds differ.  Every preset and random scenarios
 * (scenario_draw.h) run through both: the ground truth must be the same,
 * and so must the counters, unless deltas were lost.  When the firmware
 * loses deltas, which ones depends on the order of the runs of cycles
 * the word builders fold an emission into, and that order follows their
 * tables (the counters of such a card are not exact anyway).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "card_result.h"
#include "scenario_draw.h"

#define CONFIGS 48
#define SECONDS "0.002" /* simulated, per scenario */
#define SPECS_MAX 96

struct specs {
	char dir[64];
	char *spec[SPECS_MAX];
	unsigned n;
};

static void add(struct specs *s, const char *spec)
{
	assert_true(s->n < SPECS_MAX);
	s->spec[s->n] = strdup(spec);
	assert_non_null(s->spec[s->n]);
	s->n++;
}

/* The presets, then CONFIGS random scenario files in a folder of their
 * own. */
static void make_specs(struct specs *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < pte_preset_count(); i++)
		add(s, pte_preset_name(i));
	snprintf(s->dir, sizeof(s->dir), "/tmp/pt_env_cachesXXXXXX");
	assert_non_null(mkdtemp(s->dir));
	for (unsigned i = 0; i < CONFIGS; i++) {
		struct text t;
		char path[128];
		draw_scenario(0xCAC4E000u + i, &t);
		snprintf(path, sizeof(path), "%s/s%02u.ini", s->dir, i);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		assert_true(fwrite(t.b, 1, t.n, f) == t.n);
		assert_int_equal(fclose(f), 0);
		add(s, path);
	}
}

static void free_specs(struct specs *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		if (strchr(s->spec[i], '/'))
			unlink(s->spec[i]);
		free(s->spec[i]);
	}
	rmdir(s->dir);
}

/* The helper's command line: SECONDS and every spec. */
static char *command(const struct specs *s)
{
	size_t len = strlen(PT_CARD_TINY) + 18;
	for (unsigned i = 0; i < s->n; i++)
		len += strlen(s->spec[i]) + 1;
	char *cmd = malloc(len);
	assert_non_null(cmd);
	snprintf(cmd, len, "'%s' %s", PT_CARD_TINY, SECONDS);
	for (unsigned i = 0; i < s->n; i++) {
		strcat(cmd, " ");
		strcat(cmd, s->spec[i]);
	}
	return cmd;
}

/* One spec through this build (threads or none, in turn) against the
 * helper's line for it; returns 1 when the counters were compared. */
static int compare(const char *spec, unsigned i, const char *tiny)
{
	struct card_result r;
	char line[600], want[600];
	unsigned long long truth, regs;
	unsigned lost;
	card_result(spec, atof(SECONDS), i % 2 ? -1 : 0, &r);
	card_result_line(&r, line, sizeof(line));
	snprintf(want, sizeof(want), "%s", tiny);
	want[strcspn(want, "\n")] = 0;
	if (r.rc || sscanf(want, "%llx %llx %u", &truth, &regs, &lost) != 3) {
		/* a scenario refused or failed: the same message from both */
		if (strcmp(line, want) != 0)
			fail_msg("%s: %s here, %s with tiny caches", spec, line, want);
		return 0;
	}
	/* the truth and the lost flag; the counters when nothing was lost */
	if (truth != r.truth || lost != r.lost)
		fail_msg("%s: truth or lost deltas differ: %s here, %s with tiny caches", spec,
			 line, want);
	if (!r.lost && regs != r.regs)
		fail_msg("%s: counters differ: %s here, %s with tiny caches", spec, line, want);
	return !r.lost;
}

static void test_caches_change_nothing(void **state)
{
	(void)state;
	struct specs s;
	make_specs(&s);
	char *cmd = command(&s);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char line[600];
	assert_non_null(fgets(line, sizeof(line), p));
	assert_string_equal(line, "caches: tiny\n");
	unsigned exact = 0, ran = 0;
	for (unsigned i = 0; i < s.n; i++) {
		if (!fgets(line, sizeof(line), p))
			fail_msg("card_tiny stopped before %s", s.spec[i]);
		ran += strncmp(line, "error", 5) != 0;
		exact += (unsigned)compare(s.spec[i], i, line);
	}
	assert_int_equal(pclose(p), 0);
	free(cmd);
	print_message("%u of %u runs compared to the counter, %u ran\n", exact, s.n, ran);
	/* most of them ran, and most of those counted exactly */
	assert_true(ran >= s.n * 3 / 4);
	assert_true(exact >= ran / 2);
	free_specs(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caches_change_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
