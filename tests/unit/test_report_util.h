/*
 * The public report cases (tests/conformance/report/) for the cmocka
 * programs: their names, their arguments, their golden output, and the
 * readings the tool takes of them (include after <cmocka.h>; the program
 * links pt_reader).
 */
#ifndef PT_TEST_REPORT_UTIL_H
#define PT_TEST_REPORT_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/telemetry.h"
#include "test_util.h"

#define CASE_DIR PT_TEST_DATA "/conformance/report"

struct args {
	bool json, clear, interval_mode;
};

/* The few options of NAME.args that matter for the readings and the renderer. */
static inline void parse_args(const char *text, struct args *a)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", text);
	memset(a, 0, sizeof *a);
	char *save = NULL;
	for (char *w = strtok_r(buf, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (!strcmp(w, "-j") || !strcmp(w, "--json")) {
			a->json = true;
		} else if (!strcmp(w, "-c") || !strcmp(w, "--clear")) {
			a->clear = true;
		} else if (!strcmp(w, "-t") || !strcmp(w, "--interval")) {
			char *v = strtok_r(NULL, " \t\r\n", &save);
			assert_non_null(v);
			a->interval_mode = strtod(v, NULL) > 0;
		} else if (!strncmp(w, "--interval=", 11)) {
			a->interval_mode = strtod(w + 11, NULL) > 0;
		} else if (!strncmp(w, "-t", 2)) {
			a->interval_mode = strtod(w + 2, NULL) > 0;
		}
	}
}

struct measured {
	struct pt_dev dev;
	struct pt_reading first, second, diff;
	bool interval;
	double seconds;
};

static inline void measured_free(struct measured *m)
{
	pt_reading_free(&m->first);
	pt_reading_free(&m->second);
	pt_reading_free(&m->diff);
}

/* The tool's sequence: -t 0 one SNAPSHOT; -t > 0 COMMAND 0x4, 0x8, two
 * SNAPSHOTs and their difference. */
static inline int measure(struct pt_bus *bus, bool interval, struct measured *m, char *msg, size_t msglen)
{
	memset(m, 0, sizeof *m);
	m->interval = interval;
	int rc = pt_dev_init(&m->dev, bus, msg, msglen);
	if (rc)
		return rc;
	unsigned n = m->dev.layout.entries;
	if (pt_reading_init(&m->first, n) || pt_reading_init(&m->second, n) ||
	    pt_reading_init(&m->diff, n))
		return -ENOMEM;
	if (!interval)
		return pt_dev_read(&m->dev, &m->second, msg, msglen);
	if ((rc = pt_dev_clear_flags(&m->dev, msg, msglen)) ||
	    (rc = pt_dev_clear_marks(&m->dev, msg, msglen)) ||
	    (rc = pt_dev_read(&m->dev, &m->first, msg, msglen)) ||
	    (rc = pt_dev_read(&m->dev, &m->second, msg, msglen)))
		return rc;
	pt_reading_diff(&m->dev.layout, &m->first, &m->second, &m->diff);
	m->seconds = m->second.time - m->first.time;
	return 0;
}

static inline int pt_test_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the cases (NAME of every NAME.args), sorted; each malloc'd. */
static inline unsigned pt_test_report_cases(char **names, unsigned max)
{
	DIR *d = opendir(CASE_DIR);
	unsigned n = 0;

	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l > 5 && !strcmp(e->d_name + l - 5, ".args") && n < max)
			names[n++] = strndup(e->d_name, l - 5);
	}
	closedir(d);
	qsort(names, n, sizeof names[0], pt_test_cmp_names);
	assert_true(n > 0);
	return n;
}

/* NAME.args parsed, and NAME.rc. */
static inline void pt_test_case_args(const char *name, struct args *a, int *want_rc)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/%s.args", CASE_DIR, name);
	char *argtext = pt_test_slurp(path, NULL);
	snprintf(path, sizeof path, "%s/%s.rc", CASE_DIR, name);
	char *rctext = pt_test_slurp(path, NULL);
	assert_non_null(argtext);
	assert_non_null(rctext);
	parse_args(argtext, a);
	*want_rc = atoi(rctext);
	free(argtext);
	free(rctext);
}

/* What the C tool must print: NAME.mod.out where it exists, else NAME.out. */
static inline char *pt_test_case_golden(const char *name)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/%s.mod.out", CASE_DIR, name);
	char *want = pt_test_slurp(path, NULL);
	if (!want) {
		snprintf(path, sizeof path, "%s/%s.out", CASE_DIR, name);
		want = pt_test_slurp(path, NULL);
	}
	assert_non_null(want);
	return want;
}

#endif
