/*
 * Helpers of the metric engine's cmocka programs: a layout of some shape,
 * a reading of it, definitions from JSON text, a bound set and its values
 * (include after <cmocka.h>).
 */
#ifndef PT_TEST_METRIC_UTIL_H
#define PT_TEST_METRIC_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/metrics.h"
#include "test_layout_util.h"

struct mt {
	struct pt_layout l;
	struct pt_reading r;
	struct pt_metric_defs *d;
	struct pt_metric_set *s;
	struct pt_metric_value *v;
	int notes; /* of the last evaluation */
	char msg[PT_METRIC_MSG_LEN];
};

/* A layout of shape (and sizes, NULL for the defaults), a reading of
 * zeros with the link registers of a live endpoint, and definitions
 * (PT_METRIC_NO_BUILTIN or 0). */
static inline void mt_init_sized(struct mt *t, const struct pt_test_shape *shape,
				 const struct pt_test_sizes *sizes, unsigned flags)
{
	memset(t, 0, sizeof *t);
	pt_test_layout_sized(shape, 48, sizes, &t->l);
	assert_int_equal(pt_reading_init(&t->r, t->l.entries), 0);
	for (unsigned ep = 0; ep < t->l.endpoints; ep++) {
		t->r.pcie_status[ep] = 0x251; /* link up, MPS 256, MRRS 512 */
		t->r.pcie_tags[ep] = 0x000A0070;
		t->r.pcie_stfifo[ep] = 0x00650139;
	}
	if (pt_metric_defs_new(&t->d, flags, t->msg, sizeof t->msg) != 0)
		fail_msg("defs: %s", t->msg);
}

static inline void mt_init(struct mt *t, const struct pt_test_shape *shape, unsigned flags)
{
	mt_init_sized(t, shape, NULL, flags);
}

/* Add a metric file's text; the status of pt_metric_defs_add_json(). */
static inline int mt_add(struct mt *t, const char *json)
{
	return pt_metric_defs_add_json(t->d, json, strlen(json), "test.json", t->msg, sizeof t->msg);
}

/* One definition as a metric file (the expression has no '"'). */
static inline int mt_add1(struct mt *t, const char *name, const char *expr)
{
	size_t n = strlen(name) + strlen(expr) + 128;
	char *json = malloc(n);

	assert_non_null(json);
	snprintf(json, n,
		 "[{\"MetricName\": \"%s\", \"MetricExpr\": \"%s\", \"BriefDescription\": \"t\"}]",
		 name, expr);
	int rc = mt_add(t, json);
	free(json);
	return rc;
}

static inline int mt_bind(struct mt *t)
{
	pt_metric_set_free(t->s);
	free(t->v);
	t->v = NULL;
	int rc = pt_metric_bind(t->d, &t->l, &t->s, t->msg, sizeof t->msg);
	if (rc == 0) {
		t->v = calloc(pt_metric_count(t->s) + 1, sizeof *t->v);
		assert_non_null(t->v);
	}
	return rc;
}

/* Bind (which must work) and evaluate. */
static inline void mt_eval(struct mt *t, bool interval, double seconds)
{
	if (!t->s && mt_bind(t) != 0)
		fail_msg("bind: %s", t->msg);
	const struct pt_metric_input in = { &t->r, interval, seconds };
	t->notes = pt_metric_eval(t->s, &in, t->v);
	assert_true(t->notes >= 0);
}

/* The value of an instance, which must exist. */
static inline const struct pt_metric_value *mt_val(const struct mt *t, const char *name)
{
	int i = pt_metric_find(t->s, name);

	if (i < 0)
		fail_msg("no instance '%s'", name);
	return &t->v[i];
}

static inline void mt_free(struct mt *t)
{
	pt_metric_set_free(t->s);
	pt_metric_defs_free(t->d);
	pt_reading_free(&t->r);
	free(t->v);
	memset(t, 0, sizeof *t);
}

#endif
