/*
 * Every bad metric file, definition or expression is refused with one line
 * that names the file, the line, the metric and the character position
 * (docs/metrics.md "Errors"), and nothing of the file is kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_metric_util.h"

static const struct pt_test_shape shape = PT_TEST_DEFAULT_SHAPE;

/* ---- syntax: found when the file is read --------------------------------- */

static void test_syntax_errors(void **state)
{
	static const struct {
		const char *expr, *msg;
	} t[] = {
		{ "", "position 1: empty expression" },
		{ "   ", "position 1: empty expression" },
		{ "1 +", "position 4: expected a number, a name or '(', not the end" },
		{ "(1 + 2", "position 7: expected ')' to close the '(' at position 1, not the end" },
		{ "1 + * 2", "position 5: expected a number, a name or '(', not '*'" },
		{ "ep0.rq.words = 1", "position 14: '=' is not an operator (a comparison is '==')" },
		{ "1 < 2 < 3", "position 7: comparisons do not chain here: write 'a < b and b < c'" },
		{ "foo(1)", "position 1: unknown function 'foo' (there are min, max and sum)" },
		{ "2 * min", "position 5: 'min' is a function: min(a, b, ...)" },
		{ "min()", "position 5: min() needs at least one argument" },
		{ "max(1 2)", "position 7: expected ',' or ')' in max(), not '2'" },
		{ "1 if 2", "position 7: expected 'else' after 'A if C', not the end" },
		{ "{nope}.words", "position 1: unknown placeholder {nope}" },
		{ "{bus.words", "position 1: '{' without its '}': a placeholder is {name}" },
		{ "{bus}.x{ep}", "position 8: a name holds at most one placeholder" },
		{ "007", "position 1: leading zeros in the integer '007' (as in Python)" },
		{ "2ep0", "position 1: malformed number '2e'" },
		{ "1.5.2", "position 1: malformed number '1.5.'" },
		{ "1 2", "position 3: unexpected '2' after the expression" },
		{ "a @ b", "position 3: unexpected character '@'" },
		{ "x \\u00e9", "position 3: character 0xC3 is not allowed in an expression" },
		{ "1 +\\n\\t\\u0001", "position 6: character 0x01 is not allowed in an expression" },
		{ "else", "position 1: expected a number, a name or '(', not 'else'" },
		{ "sum(ep*.x, )", "position 12: expected a number, a name or '(', not ')'" },
	};
	char want[512];

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct mt m;
		mt_init(&m, &shape, PT_METRIC_NO_BUILTIN);
		assert_int_equal(mt_add1(&m, "x", t[i].expr), -EINVAL);
		snprintf(want, sizeof want, "test.json:1: metric 'x': %s", t[i].msg);
		if (strcmp(m.msg, want) != 0)
			fail_msg("'%s':\n  got  %s\n  want %s", t[i].expr, m.msg, want);
		mt_free(&m);
	}
}

static void test_depth_and_length(void **state)
{
	char expr[PT_METRIC_EXPR_MAX + 2];
	struct mt m;

	(void)state;
	mt_init(&m, &shape, PT_METRIC_NO_BUILTIN);
	/* 64 levels are fine, 65 are not */
	memset(expr, '(', 64);
	expr[64] = '1';
	memset(expr + 65, ')', 64);
	expr[129] = '\0';
	assert_int_equal(mt_add1(&m, "ok", expr), 0);
	memset(expr, '(', 65);
	expr[65] = '1';
	memset(expr + 66, ')', 65);
	expr[131] = '\0';
	assert_int_equal(mt_add1(&m, "deep", expr), -EINVAL);
	assert_string_equal(m.msg, "test.json:1: metric 'deep': position 65: the expression is "
				   "nested deeper than 64 levels");
	memset(expr, '-', 200);
	strcpy(expr + 200, "1");
	assert_int_equal(mt_add1(&m, "neg", expr), -EINVAL);
	assert_non_null(strstr(m.msg, "nested deeper than 64 levels"));
	/* long but flat is fine: 1+1+...+1 in 4095 characters */
	for (size_t i = 0; i < PT_METRIC_EXPR_MAX - 1; i++)
		expr[i] = i % 2 ? '+' : '1';
	expr[PT_METRIC_EXPR_MAX - 1] = '\0';
	assert_int_equal(mt_add1(&m, "long", expr), 0);
	expr[PT_METRIC_EXPR_MAX - 1] = '+';
	expr[PT_METRIC_EXPR_MAX] = '1';
	expr[PT_METRIC_EXPR_MAX + 1] = '\0';
	assert_int_equal(mt_add1(&m, "too_long", expr), -EINVAL);
	assert_string_equal(m.msg, "test.json:1: metric 'too_long': \"MetricExpr\" is longer than "
				   "4096 characters");
	mt_eval(&m, false, 0);
	assert_true(mt_val(&m, "long")->i == PT_METRIC_EXPR_MAX / 2);
	mt_free(&m);
}

/* ---- the file and its fields ------------------------------------------------ */

static void test_file_errors(void **state)
{
	static const struct {
		const char *json, *msg;
	} t[] = {
		{ "[", "test.json:1: bad JSON: " },
		{ "{}", "test.json:1: a metric file is a JSON array of definitions" },
		{ "[1]", "test.json:1: definition 1: not an object" },
		{ "[{\"MetricExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: definition 1: no \"MetricName\"" },
		{ "[{\"MetricName\": \"x\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric 'x': no \"MetricExpr\"" },
		{ "[{\"MetricName\": \"x\", \"MetricExpr\": \"1\"}]",
		  "test.json:1: metric 'x': no \"BriefDescription\"" },
		{ "[{\"MetricName\": \"x\", \"MetricExpr\": 1, \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric 'x': \"MetricExpr\" must be a string" },
		{ "[{\"MetricName\": \"x\", \"MetricExp\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric 'x': unknown field \"MetricExp\"" },
		{ "[{\"MetricName\": \"x\", \"MetricExpr\": \"1\", \"BriefDescription\": \"\"}]",
		  "test.json:1: metric 'x': \"BriefDescription\" is empty" },
		{ "[{\"MetricName\": \"x\", \"MetricExpr\": \"1\", \"BriefDescription\": \"a\\nb\"}]",
		  "test.json:1: metric 'x': \"BriefDescription\" has the control character 0x0A" },
		{ "[{\"MetricName\": \"x\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\", "
		  "\"Precision\": 18}]",
		  "test.json:1: metric 'x': \"Precision\" is a whole number of digits, 0 to 17" },
		{ "[{\"MetricName\": \"x\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\", "
		  "\"MetricGroup\": \"a;;b\"}]",
		  "test.json:1: metric 'x': an empty group in \"MetricGroup\"" },
		{ "[{\"MetricName\": \"x\", \"MetricName\": \"y\"}]", "test.json:1: bad JSON: " },
		{ "[{\"MetricName\": \"1x\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric '1x': a name starts with a letter" },
		{ "[{\"MetricName\": \"a..b\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric 'a..b': an empty part in the name at character 3" },
		{ "[{\"MetricName\": \"a b\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric 'a b': character ' ' is not allowed in a name" },
		{ "[{\"MetricName\": \"if\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric 'if': 'if' is a word of the expression language" },
		{ "[{\"MetricName\": \"{bus}{ep}\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric '{bus}{ep}': a name holds at most one placeholder" },
		{ "[{\"MetricName\": \"{x}.y\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric '{x}.y': unknown placeholder in the name at character 1" },
		/* echoed text stays on one line */
		{ "[{\"MetricName\": \"x\", \"Metric\\nExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: metric 'x': unknown field \"Metric\\x0AExpr\"" },
		{ "[{\"MetricName\": \"a\\nb\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"}]",
		  "test.json:1: definition 1: \"MetricName\" has the control character 0x0A" },
		/* the line of the definition, and of its MetricExpr */
		{ "[\n  {\"MetricName\": \"a\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"},\n"
		  "  {\n    \"MetricName\": \"b\",\n    \"MetricExpr\": \"1 +\",\n"
		  "    \"BriefDescription\": \"d\"\n  }\n]\n",
		  "test.json:5: metric 'b': position 4: expected a number" },
		{ "[\n  {\"MetricName\": \"a\", \"MetricExpr\": \"1\", \"BriefDescription\": \"d\"},\n"
		  "  {\"MetricName\": \"a\", \"MetricExpr\": \"2\", \"BriefDescription\": \"d\"}\n]",
		  "test.json:3: metric 'a': defined twice (also at test.json:2)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct mt m;
		mt_init(&m, &shape, PT_METRIC_NO_BUILTIN);
		assert_int_equal(mt_add(&m, t[i].json), -EINVAL);
		if (strncmp(m.msg, t[i].msg, strlen(t[i].msg)) != 0)
			fail_msg("case %zu:\n  got  %s\n  want %s...", i, m.msg, t[i].msg);
		assert_null(strchr(m.msg, '\n'));
		/* nothing of the file stays */
		assert_int_equal(mt_bind(&m), 0);
		assert_int_equal(pt_metric_count(m.s), 0);
		mt_free(&m);
	}
}

static void test_defined_twice_across_files(void **state)
{
	struct mt m;

	(void)state;
	mt_init(&m, &shape, 0);
	assert_int_equal(mt_add1(&m, "{bus}.words_pct", "1"), -EINVAL);
	const char *want = "test.json:1: metric '{bus}.words_pct': defined twice (also at "
			   "data/metrics/pcie-telemetry.json:";
	assert_int_equal(strncmp(m.msg, want, strlen(want)), 0);
	mt_free(&m);
}

static char *temp_dir(void)
{
	char tmpl[] = "/tmp/pt-metrics-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return strdup(d);
}

static void test_metric_files(void **state)
{
	char *dir = temp_dir(), path[512];
	struct mt m;
	FILE *f;

	(void)state;
	mt_init(&m, &shape, PT_METRIC_NO_BUILTIN);
	snprintf(path, sizeof path, "%s/none.json", dir);
	assert_int_equal(pt_metric_defs_add_file(m.d, path, m.msg, sizeof m.msg), -ENOENT);
	assert_non_null(strstr(m.msg, "none.json: cannot open the metric file: No such file"));
	assert_int_equal(pt_metric_defs_add_file(m.d, dir, m.msg, sizeof m.msg), -EISDIR);
	assert_non_null(strstr(m.msg, ": cannot read the metric file: it is a folder, not a regular file"));
	/* a FIFO without a writer: refused at once, not waited on */
	snprintf(path, sizeof path, "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(pt_metric_defs_add_file(m.d, path, m.msg, sizeof m.msg), -EINVAL);
	assert_non_null(strstr(m.msg, "fifo: cannot read the metric file: it is a FIFO, not a regular file"));
	unlink(path);
	/* one byte over the limit */
	snprintf(path, sizeof path, "%s/big.json", dir);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(ftruncate(fileno(f), PT_METRIC_FILE_MAX + 1), 0);
	fclose(f);
	assert_int_equal(pt_metric_defs_add_file(m.d, path, m.msg, sizeof m.msg), -EFBIG);
	assert_non_null(strstr(m.msg, "big.json: the metric file has 1048577 bytes, more than its limit of 1 MiB"));
	unlink(path);
	/* a good one, named in messages by its path */
	snprintf(path, sizeof path, "%s/my.json", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("[\n {\"MetricName\": \"rq_waste_pct\",\n"
	      "  \"MetricExpr\": \"100.0 - 100.0 * ep0.rq.wrods / ep0.pcie_cycles\",\n"
	      "  \"BriefDescription\": \"d\"}\n]\n",
	      f);
	fclose(f);
	assert_int_equal(pt_metric_defs_add_file(m.d, path, m.msg, sizeof m.msg), 0);
	assert_int_equal(mt_bind(&m), -EINVAL);
	char want[1200];
	snprintf(want, sizeof want, "%s:3: metric 'rq_waste_pct': position 17: unknown name "
				    "'ep0.rq.wrods' (no counter, layout value or metric of this "
				    "layout has it; docs/metrics.md lists them)",
		 path);
	assert_string_equal(m.msg, want);
	unlink(path);
	rmdir(dir);
	free(dir);
	mt_free(&m);
}

/* ---- binding: names, placeholders, cycles ------------------------------------ */

struct bind_case {
	const char *name, *expr, *msg;
};

static void expect_bind_error(const struct bind_case *c, const struct pt_test_shape *sh,
			      unsigned flags)
{
	struct mt m;

	mt_init(&m, sh, flags);
	if (mt_add1(&m, c->name, c->expr) != 0)
		fail_msg("%s: %s", c->expr, m.msg);
	int rc = mt_bind(&m);
	if (rc != -EINVAL || strncmp(m.msg, c->msg, strlen(c->msg)) != 0)
		fail_msg("'%s' = '%s' (%d):\n  got  %s\n  want %s...", c->name, c->expr, rc, m.msg,
			 c->msg);
	assert_null(m.s);
	mt_free(&m);
}

static void test_bind_errors(void **state)
{
	static const struct bind_case t[] = {
		{ "x", "2 * ep0.rq.wrods", "test.json:1: metric 'x': position 5: unknown name "
					   "'ep0.rq.wrods'" },
		{ "x", "ep1.rq.words", "test.json:1: metric 'x': position 1: unknown name "
				       "'ep1.rq.words'" },
		{ "{bus}.x", "{bus}.wrods", "test.json:1: metric '{bus}.x' (ep0.rq.x): position 1: "
					    "unknown name 'ep0.rq.wrods'" },
		{ "x", "{bus}.words", "test.json:1: metric 'x': position 1: placeholder {bus} has no "
				      "value here: the metric's name ('x') does not bind it" },
		{ "{up}.x", "1 + {down}.words", "test.json:1: metric '{up}.x' (ep0.up0.x): position 5: "
						"placeholder {down} has no value for ep0.up0" },
		{ "{bus}.x", "{up}.words", "test.json:1: metric '{bus}.x' (ep0.rq.x): position 1: "
					   "placeholder {up} has no value for ep0.rq" },
		{ "{ep}.x", "{ep}.x + 1", "test.json:1: metric '{ep}.x' (ep0.x): a cycle: ep0.x -> ep0.x" },
		{ "{bus}.words", "1", "test.json:1: metric '{bus}.words' (ep0.rq.words): its instance "
				      "'ep0.rq.words' has the name of a counter" },
		{ "seconds", "1", "test.json:1: metric 'seconds': its instance 'seconds' has the name "
				  "of a layout value" },
		{ "{ep}.mrrs", "1", "test.json:1: metric '{ep}.mrrs' (ep0.mrrs): its instance "
				    "'ep0.mrrs' has the name of a layout value" },
		{ "x", "min(ep0.nothing*)", "test.json:1: metric 'x': position 1: min() of no "
					    "values: its patterns match nothing in this layout" },
		{ "x", "max({padded})", "test.json:1: metric 'x': position 1: max() of no values" },
		{ "{bus}.x", "sum({bus}.*) + {region}_cycles",
		  "test.json:1: metric '{bus}.x' (ep0.rq.x): position 16: placeholder {region} has "
		  "no value here" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		expect_bind_error(&t[i], &shape, PT_METRIC_NO_BUILTIN);
	/* a padded bus of another layout is not in this one */
	const struct bind_case c = { "x", "ep0.down0.corrected_gbps * 2",
				     "test.json:1: metric 'x': position 1: unknown name "
				     "'ep0.down0.corrected_gbps'" };
	expect_bind_error(&c, &shape, 0);
}

static void test_cycles(void **state)
{
	struct mt m;

	(void)state;
	mt_init(&m, &shape, PT_METRIC_NO_BUILTIN);
	assert_int_equal(mt_add(&m, "[{\"MetricName\": \"a\", \"MetricExpr\": \"b + 1\", "
				    "\"BriefDescription\": \"d\"},\n"
				    "{\"MetricName\": \"b\", \"MetricExpr\": \"2 * c\", "
				    "\"BriefDescription\": \"d\"},\n"
				    "{\"MetricName\": \"c\", \"MetricExpr\": \"a if 1 else 0\", "
				    "\"BriefDescription\": \"d\"}]"),
			 0);
	assert_int_equal(mt_bind(&m), -EINVAL);
	assert_string_equal(m.msg, "test.json:1: metric 'a': a cycle: a -> b -> c -> a");
	mt_free(&m);
	/* through a placeholder's range: every bus's figure uses the sum */
	mt_init(&m, &shape, PT_METRIC_NO_BUILTIN);
	assert_int_equal(mt_add1(&m, "{ep}.total", "sum({bus}.share)"), 0);
	assert_int_equal(mt_add1(&m, "{bus}.share", "{bus}.words / {ep}.total"), 0);
	assert_int_equal(mt_bind(&m), -EINVAL);
	assert_string_equal(m.msg, "test.json:1: metric '{ep}.total' (ep0.total): a cycle: "
				   "ep0.total -> ep0.rq.share -> ep0.total");
	mt_free(&m);
}

static void test_instance_collisions(void **state)
{
	struct mt m;

	(void)state;
	mt_init(&m, &shape, PT_METRIC_NO_BUILTIN);
	assert_int_equal(mt_add1(&m, "{bus}.q", "1"), 0);
	assert_int_equal(mt_add1(&m, "{pcie_bus}.q", "2"), 0);
	assert_int_equal(mt_bind(&m), -EINVAL);
	assert_string_equal(m.msg, "test.json:1: metric '{pcie_bus}.q' (ep0.rq.q): its instance "
				   "'ep0.rq.q' is also an instance of '{bus}.q' (test.json:1)");
	mt_free(&m);
}

/* ---- limits ----------------------------------------------------------------- */

static void test_definition_limit(void **state)
{
	size_t n = PT_METRIC_DEFS_MAX + 1, len = n * 80 + 16, o = 0;
	char *json = malloc(len);
	struct mt m;

	(void)state;
	assert_non_null(json);
	o += (size_t)snprintf(json + o, len - o, "[");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(json + o, len - o,
				      "%s{\"MetricName\": \"m%zu\", \"MetricExpr\": \"1\", "
				      "\"BriefDescription\": \"d\"}",
				      i ? "," : "", i);
	snprintf(json + o, len - o, "]");
	mt_init(&m, &shape, PT_METRIC_NO_BUILTIN);
	assert_int_equal(mt_add(&m, json), -E2BIG);
	assert_string_equal(m.msg, "test.json: 4097 definitions make more than the 4096 allowed");
	/* the last one too many, after a full file */
	char *last = strrchr(json, '{');
	last[-1] = ']';
	last[0] = '\0';
	assert_int_equal(mt_add(&m, json), 0);
	assert_int_equal(mt_add1(&m, "one_more", "1"), -E2BIG);
	mt_free(&m);
	free(json);
}

static void test_instance_limit(void **state)
{
	/* about the most real regions a layout can have (16 endpoints of 4
	 * buses of 56 regions: 250 of the 255 channels an endpoint can have):
	 * 37 families of them make more than 2^17 instances */
	const struct pt_test_shape big = { .e = 16, .p = 1, .rq = 56,
					   .rc = 56, .up = 56, .down = 56 };
	struct mt m;
	char name[32];

	(void)state;
	mt_init(&m, &big, PT_METRIC_NO_BUILTIN);
	for (unsigned i = 0; i < 37; i++) {
		snprintf(name, sizeof name, "{region}_m%u", i);
		assert_int_equal(mt_add1(&m, name, "{region}_cycles"), 0);
	}
	assert_int_equal(mt_bind(&m), -E2BIG);
	assert_non_null(strstr(m.msg, "the metrics have more than 131072 instances in this layout"));
	mt_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_depth_and_length),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_defined_twice_across_files),
		cmocka_unit_test(test_metric_files),
		cmocka_unit_test(test_bind_errors),
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_instance_collisions),
		cmocka_unit_test(test_definition_limit),
		cmocka_unit_test(test_instance_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
