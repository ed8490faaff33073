/*
 * pcie-telemetry: metric files (docs/metrics.md "The file"): a JSON array
 * of objects in the style of perf's pmu-events, parsed with jansson and
 * checked field by field.  Each expression is parsed here, once; names are
 * resolved only when the definitions are bound to a layout.
 *
 * jansson does not say where a value stood, so a second walk over the
 * (then known valid) text finds the line of every definition and of its
 * MetricExpr, for messages of the form FILE:LINE.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analysis_priv.h"
#include "util/pt_util.h"

/* The built-in file, embedded by CMake (builtin_metrics.c). */
extern const unsigned char pt_metric_builtin_json[];
extern const size_t pt_metric_builtin_json_len;
#define BUILTIN_ORIGIN "data/metrics/pcie-telemetry.json"

#define NAME_TEMPLATE_MAX 100u
#define UNIT_MAX 32u
#define PRECISION_DEFAULT 2
#define PRECISION_MAX 17

/* Where the definitions stand in the text. */
struct lines {
	unsigned *obj, *expr;
	size_t n;
};

/* Walk valid JSON text: the line of each element of the top-level array
 * and of its "MetricExpr" key. */
static void find_lines(const char *t, size_t len, struct lines *ln)
{
	unsigned line = 1, depth = 0;
	size_t elem = 0, key_start = 0;
	bool in_str = false, expect = false; /* an element starts next */

	for (size_t i = 0; i < len; i++) {
		char c = t[i];
		if (c == '\n')
			line++;
		if (in_str) {
			if (c == '\\') {
				i++;
			} else if (c == '"') {
				in_str = false;
				size_t k = i + 1;
				while (k < len && (t[k] == ' ' || t[k] == '\t' || t[k] == '\r' || t[k] == '\n'))
					k++;
				if (depth == 2 && k < len && t[k] == ':' && elem > 0 &&
				    i - key_start == strlen("MetricExpr") &&
				    memcmp(t + key_start, "MetricExpr", i - key_start) == 0)
					ln->expr[elem - 1] = line;
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (expect && c != ']' && elem < ln->n) {
			ln->obj[elem] = ln->expr[elem] = line;
			elem++;
		}
		expect = (depth == 1 && c == ',') || (depth == 0 && c == '[');
		if (c == '"') {
			in_str = true;
			key_start = i + 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
}

struct loader {
	const char *origin;
	const struct lines *ln;
	size_t i; /* the element */
	const char *name;
	char *msg;
	size_t msglen;
};

static int bad(const struct loader *ld, bool at_expr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const struct loader *ld, bool at_expr, const char *fmt, ...)
{
	char what[PT_METRIC_MSG_LEN];
	va_list ap;
	unsigned line = at_expr ? ld->ln->expr[ld->i] : ld->ln->obj[ld->i];

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (ld->msg && ld->msglen) {
		char name[4 * NAME_TEMPLATE_MAX + 8];
		if (ld->name)
			snprintf(ld->msg, ld->msglen, "%s:%u: metric '%s': %s", ld->origin, line,
				 pt_shown(ld->name, NAME_TEMPLATE_MAX, name, sizeof name), what);
		else
			snprintf(ld->msg, ld->msglen, "%s:%u: definition %zu: %s", ld->origin, line,
				 ld->i + 1, what);
	}
	return -EINVAL;
}

static const char *const keys[] = {
	"MetricName", "MetricExpr", "BriefDescription", "ScaleUnit", "MetricGroup", "Precision",
};

/* A string field: present if required, at most max bytes, printable
 * (MetricExpr may have tabs and newlines, which its parser takes as
 * spaces and whose other control characters it refuses by position). */
static int text_field(const struct loader *ld, json_t *o, const char *key, bool required,
		      size_t max, const char **out)
{
	bool expr = strcmp(key, "MetricExpr") == 0;
	json_t *v = json_object_get(o, key);

	*out = "";
	if (!v)
		return required ? bad(ld, false, "no \"%s\"", key) : 0;
	if (!json_is_string(v))
		return bad(ld, false, "\"%s\" must be a string", key);
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n > max)
		return bad(ld, false, "\"%s\" is longer than %zu characters", key, max);
	for (size_t k = 0; k < n && !expr; k++)
		if ((unsigned char)s[k] < 0x20 || s[k] == 0x7F)
			return bad(ld, false, "\"%s\" has the control character 0x%02X", key,
				   (unsigned)(unsigned char)s[k]);
	*out = s;
	return 0;
}

static bool part_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool reserved(const char *s)
{
	static const char *const words[] = { "if", "else", "and", "or", "not", "min", "max", "sum" };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(s, words[i]) == 0)
			return true;
	return false;
}

/* MetricName: parts of [A-Za-z0-9_] (a placeholder counts as part
 * characters) joined by '.', starting with a letter, '_' or the
 * placeholder, at most one placeholder; *ph gets it. */
static int check_name(const struct loader *ld, const char *s, int *ph)
{
	size_t n = strlen(s);
	bool part = false;

	*ph = -1;
	if (n == 0)
		return bad(ld, false, "\"MetricName\" is empty");
	if (n > NAME_TEMPLATE_MAX)
		return bad(ld, false, "\"MetricName\" is longer than %u characters", NAME_TEMPLATE_MAX);
	if (s[0] >= '0' && s[0] <= '9')
		return bad(ld, false, "a name starts with a letter, '_' or a placeholder");
	if (reserved(s))
		return bad(ld, false, "'%s' is a word of the expression language", s);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '{') {
			const char *e = strchr(s + i, '}');
			int id = e ? pt_placeholder_find(s + i + 1, (size_t)(e - s - i - 1)) : -1;
			if (id < 0)
				return bad(ld, false, "unknown placeholder in the name at character %zu",
					   i + 1);
			if (*ph >= 0)
				return bad(ld, false, "a name holds at most one placeholder");
			*ph = id;
			i = (size_t)(e - s);
			part = true;
		} else if (s[i] == '.') {
			if (!part || i + 1 == n)
				return bad(ld, false, "an empty part in the name at character %zu", i + 1);
			part = false;
		} else if (part_char(s[i])) {
			part = true;
		} else {
			return bad(ld, false, "character '%c' is not allowed in a name (letters, digits, "
					      "'_', '.' and one placeholder)",
				   s[i] >= 0x20 && s[i] < 0x7F ? s[i] : '?');
		}
	}
	return 0;
}

static int check_groups(const struct loader *ld, const char *g)
{
	bool empty = true;

	for (const char *p = g; *p; p++) {
		if (*p == ';') {
			if (empty)
				return bad(ld, false, "an empty group in \"MetricGroup\"");
			empty = true;
		} else if (part_char(*p) || *p == '-') {
			empty = false;
		} else {
			return bad(ld, false, "\"MetricGroup\" is a list of names ([A-Za-z0-9_-]) "
					      "separated by ';'");
		}
	}
	return *g && empty ? bad(ld, false, "an empty group in \"MetricGroup\"") : 0;
}

static int check_keys(const struct loader *ld, json_t *o)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v) {
		size_t k = 0;
		char shown[200];
		while (k < sizeof keys / sizeof keys[0] && strcmp(key, keys[k]) != 0)
			k++;
		if (k == sizeof keys / sizeof keys[0])
			return bad(ld, false, "unknown field \"%s\" (there are MetricName, "
					      "MetricExpr, BriefDescription, ScaleUnit, MetricGroup "
					      "and Precision)",
				   pt_shown(key, 40, shown, sizeof shown));
	}
	return 0;
}

static int precision(const struct loader *ld, json_t *o, int *out)
{
	json_t *v = json_object_get(o, "Precision");

	*out = PRECISION_DEFAULT;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > PRECISION_MAX)
		return bad(ld, false, "\"Precision\" is a whole number of digits, 0 to %d",
			   PRECISION_MAX);
	*out = (int)json_integer_value(v);
	return 0;
}

static char *copy_str(const char *s)
{
	size_t n = strlen(s);
	char *p = malloc(n + 1);

	if (p)
		memcpy(p, s, n + 1);
	return p;
}

static void def_free(struct pt_def *d)
{
	free(d->name);
	free(d->expr);
	free(d->desc);
	free(d->unit);
	free(d->groups);
	pt_expr_free(&d->ast);
}

/* The expression, parsed. */
static int expression(struct loader *ld, const char *expr, struct pt_def *d)
{
	char what[PT_METRIC_MSG_LEN];
	uint32_t pos;
	size_t n = strlen(expr);

	if (n > PT_METRIC_EXPR_MAX)
		return bad(ld, true, "\"MetricExpr\" is longer than %u characters", PT_METRIC_EXPR_MAX);
	int rc = pt_expr_parse(expr, n, &d->ast, &pos, what, sizeof what);
	if (rc == -ENOMEM)
		return rc;
	return rc < 0 ? bad(ld, true, "position %u: %s", pos + 1, what) : 0;
}

static int one(struct loader *ld, json_t *o, struct pt_def *d)
{
	const char *name, *expr, *desc, *unit, *groups;
	int rc;

	memset(d, 0, sizeof *d);
	d->ph = -1;
	if (!json_is_object(o))
		return bad(ld, false, "not an object (a definition is {\"MetricName\": ..., "
				      "\"MetricExpr\": ..., ...})");
	if ((rc = text_field(ld, o, "MetricName", true, NAME_TEMPLATE_MAX, &name)))
		return rc;
	ld->name = *name ? name : NULL;
	if ((rc = check_keys(ld, o)) || (rc = check_name(ld, name, &d->ph)) ||
	    (rc = text_field(ld, o, "MetricExpr", true, PT_METRIC_EXPR_MAX, &expr)) ||
	    (rc = text_field(ld, o, "BriefDescription", true, PT_METRIC_TEXT_MAX, &desc)) ||
	    (rc = text_field(ld, o, "ScaleUnit", false, UNIT_MAX, &unit)) ||
	    (rc = text_field(ld, o, "MetricGroup", false, PT_METRIC_TEXT_MAX, &groups)) ||
	    (rc = check_groups(ld, groups)) || (rc = precision(ld, o, &d->precision)))
		return rc;
	if (!*desc)
		return bad(ld, false, "\"BriefDescription\" is empty");
	if ((rc = expression(ld, expr, d)))
		return rc;
	d->name = copy_str(name);
	d->expr = copy_str(expr);
	d->desc = copy_str(desc);
	d->unit = copy_str(unit);
	d->groups = copy_str(groups);
	d->line = ld->ln->obj[ld->i];
	d->expr_line = ld->ln->expr[ld->i];
	if (!d->name || !d->expr || !d->desc || !d->unit || !d->groups)
		return -ENOMEM;
	return 0;
}

/* A name defined twice, in this text or before it. */
static int twice(struct loader *ld, const struct pt_metric_defs *d, const struct pt_def *nd,
		 size_t nnew)
{
	for (size_t i = 0; i < nnew; i++) {
		for (size_t j = 0; j < d->n + i; j++) {
			const struct pt_def *o = j < d->n ? &d->d[j] : &nd[j - d->n];
			if (strcmp(o->name, nd[i].name) != 0)
				continue;
			ld->i = i;
			ld->name = nd[i].name;
			return bad(ld, false, "defined twice (also at %s:%u)",
				   j < d->n ? o->origin : ld->origin, o->line);
		}
	}
	return 0;
}

static int parse_all(struct loader *ld, json_t *root, struct pt_def *nd, size_t n,
		     const struct pt_metric_defs *d)
{
	for (size_t i = 0; i < n; i++) {
		ld->i = i;
		ld->name = NULL;
		int rc = one(ld, json_array_get(root, i), &nd[i]);
		if (rc == -ENOMEM && ld->msg && ld->msglen)
			snprintf(ld->msg, ld->msglen, "%s: out of memory", ld->origin);
		if (rc)
			return rc;
	}
	return twice(ld, d, nd, n);
}

/* Add the parsed definitions: all or nothing. */
static int append(struct pt_metric_defs *d, struct pt_def *nd, size_t n, const char *origin)
{
	const char *o = pt_arena_strndup(&d->arena, origin, strlen(origin));

	if (!o || !pt_grow((void **)&d->d, &d->cap, d->n + n, sizeof *d->d, PT_METRIC_DEFS_MAX))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		nd[i].origin = o;
		d->d[d->n++] = nd[i];
	}
	return 0;
}

int pt_metric_defs_add_json(struct pt_metric_defs *d, const char *text, size_t len,
			    const char *file, char *msg, size_t msglen)
{
	json_error_t err;
	char origin[512], what[4 * JSON_ERROR_TEXT_LENGTH];
	int rc = 0;

	if (!d || !text || !file)
		return -EINVAL;
	/* the file's name as messages show it: one line */
	pt_shown(file, 200, origin, sizeof origin);
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		if (msg && msglen)
			snprintf(msg, msglen, "%s:%d: bad JSON: %s", origin, err.line,
				 pt_shown(err.text, JSON_ERROR_TEXT_LENGTH, what, sizeof what));
		return -EINVAL;
	}
	size_t n = json_is_array(root) ? json_array_size(root) : 0;
	struct lines ln = { calloc(n + 1, sizeof(unsigned)), calloc(n + 1, sizeof(unsigned)), n };
	struct pt_def *nd = calloc(n + 1, sizeof *nd);
	struct loader ld = { .origin = origin, .ln = &ln, .msg = msg, .msglen = msglen };

	if (!ln.obj || !ln.expr || !nd) {
		rc = -ENOMEM;
		if (msg && msglen)
			snprintf(msg, msglen, "%s: out of memory", origin);
	} else if (!json_is_array(root)) {
		rc = -EINVAL;
		if (msg && msglen)
			snprintf(msg, msglen, "%s:1: a metric file is a JSON array of definitions "
					      "([{\"MetricName\": ..., ...}, ...])",
				 origin);
	} else if (d->n + n > PT_METRIC_DEFS_MAX) {
		rc = -E2BIG;
		if (msg && msglen)
			snprintf(msg, msglen, "%s: %zu definitions make more than the %u allowed",
				 origin, d->n + n, PT_METRIC_DEFS_MAX);
	} else {
		find_lines(text, len, &ln);
		rc = parse_all(&ld, root, nd, n, d);
		if (rc == 0 && (rc = append(d, nd, n, origin)) < 0 && msg && msglen)
			snprintf(msg, msglen, "%s: out of memory", origin);
	}
	if (rc)
		for (size_t i = 0; i < n; i++)
			def_free(&nd[i]);
	free(nd);
	free(ln.obj);
	free(ln.expr);
	json_decref(root);
	return rc;
}

int pt_metric_defs_add_file(struct pt_metric_defs *d, const char *path, char *msg, size_t msglen)
{
	char buf[PT_METRIC_MSG_LEN], *data = NULL;
	size_t len = 0;

	if (!d || !path)
		return -EINVAL;
	int rc = pt_util_read_file(path, "metric file", PT_METRIC_FILE_MAX, &data, &len,
				   msg && msglen ? msg : buf, msg && msglen ? msglen : sizeof buf);
	if (rc == 0)
		rc = pt_metric_defs_add_json(d, data, len, path, msg, msglen);
	free(data);
	return rc;
}

int pt_metric_defs_new(struct pt_metric_defs **out, unsigned flags, char *msg, size_t msglen)
{
	struct pt_metric_defs *d = calloc(1, sizeof *d);
	int rc = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!d) {
		if (msg && msglen)
			snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	if (!(flags & PT_METRIC_NO_BUILTIN))
		rc = pt_metric_defs_add_json(d, (const char *)pt_metric_builtin_json,
					     pt_metric_builtin_json_len,
					     BUILTIN_ORIGIN, msg, msglen);
	if (rc) {
		pt_metric_defs_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void pt_metric_defs_free(struct pt_metric_defs *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		def_free(&d->d[i]);
	free(d->d);
	pt_arena_free(&d->arena);
	free(d);
}
