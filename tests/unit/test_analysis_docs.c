/*
 * docs/metrics.md cannot drift from the code: its tables of placeholders,
 * of layout values and of the built-in metrics are generated from the
 * tables of src/analysis and from the built-in file, and must equal what
 * this test generates (on a mismatch it prints the block to paste).  The
 * documented limits must be the header's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis_priv.h"
#include "test_metric_util.h"
#include "test_util.h"

#define DOC PT_TEST_DATA "/../docs/metrics.md"

struct text {
	char *p;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = 2 * (t->len + (size_t)n + 1);
		t->p = realloc(t->p, t->cap);
		assert_non_null(t->p);
	}
	va_start(ap, fmt);
	vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* The documented block after "<!-- generated: NAME" up to "<!-- end -->". */
static void expect_block(const char *doc, const char *name, const char *want)
{
	char marker[64];

	snprintf(marker, sizeof marker, "<!-- generated: %s ", name);
	const char *a = strstr(doc, marker);
	if (!a)
		fail_msg("docs/metrics.md has no block '%s'", name);
	a = strchr(a, '\n') + 1;
	const char *b = strstr(a, "<!-- end -->");
	assert_non_null(b);
	if ((size_t)(b - a) != strlen(want) || strncmp(a, want, (size_t)(b - a)) != 0) {
		printf("docs/metrics.md, block '%s', must be:\n%s", name, want);
		fail_msg("docs/metrics.md, block '%s', differs (the block is above)", name);
	}
}

static void test_placeholders(void **state)
{
	struct text t = { 0 };
	char *doc = pt_test_slurp(DOC, NULL);

	(void)state;
	assert_non_null(doc);
	add(&t, "| placeholder | ranges over |\n|---|---|\n");
	for (unsigned i = 0; pt_placeholder(i); i++)
		add(&t, "| `{%s}` | %s |\n", pt_placeholder(i)->name, pt_placeholder(i)->what);
	expect_block(doc, "placeholders", t.p);
	free(t.p);
	free(doc);
}

static void test_values(void **state)
{
	static const char *const scope_prefix[PT_SCOPES] = {
		[PT_METRIC_EP] = "{ep}.", [PT_METRIC_BUS] = "{bus}.", [PT_METRIC_HIST] = "{hist}.",
	};
	struct text t = { 0 };
	char *doc = pt_test_slurp(DOC, NULL);

	(void)state;
	assert_non_null(doc);
	add(&t, "| name | what |\n|---|---|\n");
	for (unsigned i = 0; pt_value_def(i); i++) {
		const struct pt_value_def *v = pt_value_def(i);
		const char *pre = scope_prefix[v->scope];
		add(&t, "| `%s%s` | %s |\n", pre ? pre : "", v->name, v->what);
	}
	expect_block(doc, "values", t.p);
	free(t.p);
	free(doc);
}

static void test_builtin(void **state)
{
	/* a layout where every family has instances */
	const struct pt_test_shape shape = { .e = 1, .p = 1, .rq = 2, .rc = 1,
					     .up = 2, .down = 1, .driven = 6, .hists = 2, .bands = 4,
					     .dma_driven = 1, .dma_hists = 1 };
	struct text t = { 0 };
	char *doc = pt_test_slurp(DOC, NULL);
	struct mt m;

	(void)state;
	assert_non_null(doc);
	mt_init(&m, &shape, 0);
	assert_int_equal(mt_bind(&m), 0);
	add(&t, "| family | unit | groups | expression | description |\n|---|---|---|---|---|\n");
	for (unsigned f = 0; f < pt_metric_family_count(m.s); f++) {
		const struct pt_metric_family *fi = pt_metric_family_info(m.s, f);
		add(&t, "| `%s` | %s | %s | `%s` | %s |\n", fi->name, fi->unit, fi->groups, fi->expr,
		    fi->description);
	}
	expect_block(doc, "builtin", t.p);
	mt_free(&m);
	free(t.p);
	free(doc);
}

/* Every ```json block of the page is a metric file that binds (with the
 * built-in metrics, on a layout with padded DOWN buses), and the note the
 * page shows is the engine's. */
static void test_examples(void **state)
{
	const struct pt_test_shape shape = { .e = 1, .p = 1, .rq = 2, .rc = 2,
					     .up = 2, .down = 1, .driven = 6, .hists = 2, .bands = 4 };
	char *doc = pt_test_slurp(DOC, NULL), note[PT_METRIC_MSG_LEN];
	unsigned blocks = 0;

	(void)state;
	assert_non_null(doc);
	for (char *p = doc; (p = strstr(p, "```json\n")); blocks++) {
		p += strlen("```json\n");
		char *e = strstr(p, "```");
		assert_non_null(e);
		struct mt m;
		mt_init(&m, &shape, 0);
		if (pt_metric_defs_add_json(m.d, p, (size_t)(e - p), "docs", m.msg, sizeof m.msg) ||
		    mt_bind(&m))
			fail_msg("docs/metrics.md, example %u: %s", blocks + 1, m.msg);
		mt_eval(&m, true, 1.0);
		mt_free(&m);
		p = e;
	}
	assert_int_equal(blocks, 2);
	struct mt m;
	mt_init(&m, &shape, 0);
	mt_eval(&m, true, 1.0);
	int i = pt_metric_find(m.s, "ep0.rq.words_pct");
	assert_int_equal(pt_metric_note(m.s, (unsigned)i, &m.v[i], note, sizeof note), 0);
	if (!strstr(doc, note))
		fail_msg("docs/metrics.md does not show the note '%s'", note);
	mt_free(&m);
	free(doc);
}

static void test_limits(void **state)
{
	char *doc = pt_test_slurp(DOC, NULL);
	char line[256];

	(void)state;
	assert_non_null(doc);
	const struct {
		const char *fmt;
		unsigned v;
	} t[] = {
		{ "| definitions, built-in ones included | %u |", PT_METRIC_DEFS_MAX },
		{ "| a MetricExpr | %u characters |", PT_METRIC_EXPR_MAX },
		{ "parentheses, unary operators, `not`, `if`, calls) | %u levels |", PT_METRIC_DEPTH_MAX },
		{ "| a description or group list | %u characters;", PT_METRIC_TEXT_MAX },
		{ "| an instance name | %u characters |", PT_METRIC_NAME_LEN - 1 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		snprintf(line, sizeof line, t[i].fmt, t[i].v);
		if (!strstr(doc, line))
			fail_msg("docs/metrics.md does not say '%s'", line);
	}
	assert_int_equal(PT_METRIC_FILE_MAX, 1u << 20);
	assert_non_null(strstr(doc, "| a metric file | 1 MiB,"));
	assert_int_equal(PT_METRIC_INSTANCES_MAX, 1u << 17);
	assert_non_null(strstr(doc, "all families on one layout) | 2^17 |"));
	assert_int_equal(PT_METRIC_CODE_MAX, 1u << 22);
	assert_non_null(strstr(doc, "| bytecode of a set | 2^22 words"));
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placeholders),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
