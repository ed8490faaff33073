/*
 * pcie-telemetry: definitions bound to a layout (docs/metrics.md
 * "Templates").
 *
 * Every definition's name expands over its placeholder's scope into
 * instances; then every instance's expression is compiled into bytecode,
 * with each name resolved once: a counter becomes its index, a layout
 * constant a literal, a metric the slot of its instance.  Placeholders of
 * the metric's own scope (and of the scopes above it) take the
 * instance's values; a placeholder of a scope below, or beside, ranges
 * over the instances that share the metric's endpoint, bus or histogram,
 * and is allowed only as an argument of sum(), min() or max().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_priv.h"

/* What a resolvable name is: the tag in the top bits of its map value. */
#define TAG_COUNTER 0u
#define TAG_VALUE 1u
#define TAG_METRIC 2u
#define TAG_SHIFT 30u
#define TAG_ID(v) ((v) & ((1u << TAG_SHIFT) - 1u))

/* Name matches of the patterns of one bind, at most: no file can make a
 * bind take long. */
#define WORK_MAX (1u << 25)

struct vref {
	uint16_t def;   /* pt_value_def */
	uint32_t sinst; /* its scope instance; UINT32_MAX for GLOBAL */
};

struct binder {
	const struct pt_metric_defs *d;
	struct pt_metric_set *s;
	struct pt_scopes *sc;
	struct pt_strmap names; /* counters, values, instances -> tagged ids */
	struct pt_arena arena;  /* value names */
	struct vref *vref;
	size_t nvref, cap_vref;
	size_t cap_info, cap_inst, cap_code, cap_ints, cap_flts, cap_deps;
	uint32_t *dep_at, *deps;
	size_t ndeps;
	size_t work;
	/* the instance being compiled */
	const struct pt_def *def;
	uint32_t inst, sinst;
	unsigned depth;
	char *msg;
	size_t msglen;
};

static int fail(struct binder *b, int rc, const struct pt_node *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "ORIGIN:LINE: metric 'FAMILY' (INSTANCE): position N: what" */
static int fail(struct binder *b, int rc, const struct pt_node *at, const char *fmt, ...)
{
	char what[PT_METRIC_MSG_LEN], inst[PT_METRIC_NAME_LEN + 4] = "", pos[32] = "";
	va_list ap;

	if (!b->msg || !b->msglen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (!b->def) {
		snprintf(b->msg, b->msglen, "%s", what);
		return rc;
	}
	const struct pt_metric_info *in = b->inst < b->s->n ? &b->s->info[b->inst] : NULL;
	if (in && strcmp(in->name, b->def->name) != 0)
		snprintf(inst, sizeof inst, " (%s)", in->name);
	if (at)
		snprintf(pos, sizeof pos, "position %u: ", at->pos + 1);
	snprintf(b->msg, b->msglen, "%s:%u: metric '%s'%s: %s%s", b->def->origin,
		 at ? b->def->expr_line : b->def->line, b->def->name, inst, pos, what);
	return rc;
}

static int nomem(struct binder *b)
{
	return fail(b, -ENOMEM, NULL, "out of memory");
}

/* Append n bytes; false when out (of outlen) is full. */
static bool append(char *out, size_t *o, size_t outlen, const char *src, size_t n)
{
	if (*o + n >= outlen)
		return false;
	memcpy(out + *o, src, n);
	*o += n;
	return true;
}

bool pt_expand(const struct pt_scopes *sc, uint32_t sinst, uint32_t other, const char *text,
	       size_t len, char *out, size_t outlen, int *free_ph)
{
	size_t o = 0, i = 0;

	*free_ph = -1;
	while (i < len) {
		const char *b = memchr(text + i, '{', len - i), *e;
		size_t run = b ? (size_t)(b - text) - i : len - i;
		if (!append(out, &o, outlen, text + i, run))
			return false;
		i += run;
		if (i == len)
			break;
		e = memchr(text + i, '}', len - i);
		int id = e ? pt_placeholder_find(text + i + 1, (size_t)(e - text) - i - 1) : -1;
		const struct pt_placeholder *p = pt_placeholder((unsigned)id);
		uint32_t a = p ? pt_scopes_ancestor(sc, sinst, p->scope) : UINT32_MAX;
		if (a == UINT32_MAX && p && other != UINT32_MAX)
			a = pt_scopes_ancestor(sc, other, p->scope);
		size_t n = e ? (size_t)(e - text) + 1 - i : 1;
		if (a != UINT32_MAX) {
			if (!append(out, &o, outlen, sc->s[a].prefix, strlen(sc->s[a].prefix)))
				return false;
		} else {
			if (p)
				*free_ph = id;
			if (!append(out, &o, outlen, text + i, n))
				return false;
		}
		i += n;
	}
	if (o >= outlen)
		return false;
	out[o] = '\0';
	return true;
}

/* ---- the names a layout has ---------------------------------------------- */

static int put_name(struct binder *b, const char *name, uint32_t val)
{
	uint32_t old;
	int rc = pt_strmap_put(&b->names, name, val, &old);

	if (rc == -ENOMEM)
		return nomem(b);
	if (rc == 0)
		return 0;
	unsigned tag = old >> TAG_SHIFT;
	const char *what = tag == TAG_COUNTER ? "a counter" : tag == TAG_VALUE ? "a layout value"
									       : NULL;
	if (what)
		return fail(b, -EINVAL, NULL, "its instance '%s' has the name of %s", name, what);
	const struct pt_metric_info *o = &b->s->info[TAG_ID(old)];
	const struct pt_def *od = b->s->famp[o->family_index].def;
	return fail(b, -EINVAL, NULL, "its instance '%s' is also an instance of '%s' (%s:%u)", name,
		    o->family, od->origin, od->line);
}

static int add_value(struct binder *b, unsigned id, uint32_t sinst)
{
	const struct pt_value_def *v = pt_value_def(id);
	const char *pre = sinst == UINT32_MAX ? NULL : b->sc->s[sinst].prefix;
	size_t n = (pre ? strlen(pre) + 1 : 0) + strlen(v->name);
	char *name = pt_arena_alloc(&b->arena, n + 1);

	if (!name || !pt_grow((void **)&b->vref, &b->cap_vref, b->nvref + 1, sizeof *b->vref,
			      1u << TAG_SHIFT))
		return nomem(b);
	size_t k = 0;
	if (pre) {
		memcpy(name, pre, strlen(pre));
		k = strlen(pre);
		name[k++] = '.';
	}
	memcpy(name + k, v->name, strlen(v->name) + 1);
	b->vref[b->nvref].def = (uint16_t)id;
	b->vref[b->nvref].sinst = sinst;
	return put_name(b, name, TAG_VALUE << TAG_SHIFT | (uint32_t)b->nvref++);
}

static int layout_names(struct binder *b)
{
	int rc = 0;

	for (unsigned i = 0; i < b->sc->ncounters && rc == 0; i++)
		rc = put_name(b, b->sc->counter[i], TAG_COUNTER << TAG_SHIFT | i);
	for (unsigned id = 0; pt_value_def(id) && rc == 0; id++) {
		enum pt_metric_scope scope = pt_value_def(id)->scope;
		if (scope == PT_METRIC_GLOBAL) {
			rc = add_value(b, id, UINT32_MAX);
			continue;
		}
		for (uint32_t j = 0; j < b->sc->count[scope] && rc == 0; j++)
			rc = add_value(b, id, b->sc->first[scope] + j);
	}
	return rc;
}

/* ---- instances --------------------------------------------------------------- */

static int add_instance(struct binder *b, unsigned f, uint32_t sinst)
{
	struct pt_metric_set *s = b->s;
	const struct pt_def *d = b->def;
	char name[PT_METRIC_NAME_LEN];
	int free_ph;

	if (s->n >= PT_METRIC_INSTANCES_MAX)
		return fail(b, -E2BIG, NULL, "the metrics have more than %u instances in this layout",
			    PT_METRIC_INSTANCES_MAX);
	if (!pt_grow((void **)&s->info, &b->cap_info, s->n + 1, sizeof *s->info, SIZE_MAX / 256) ||
	    !pt_grow((void **)&s->inst, &b->cap_inst, s->n + 1, sizeof *s->inst, SIZE_MAX / 256))
		return nomem(b);
	if (!pt_expand(b->sc, sinst, UINT32_MAX, d->name, strlen(d->name), name, sizeof name,
		       &free_ph))
		return fail(b, -EINVAL, NULL, "an instance name is longer than %u characters",
			    PT_METRIC_NAME_LEN - 1);
	struct pt_metric_info *in = &s->info[s->n];
	const struct pt_metric_family *fam = &s->fam[f];
	memset(in, 0, sizeof *in);
	in->name = pt_arena_strndup(&s->arena, name, strlen(name));
	in->family = fam->name;
	in->family_index = f;
	in->scope = fam->scope;
	in->where = sinst == UINT32_MAX ? (struct pt_metric_where){ -1, -1, -1, -1 }
					: b->sc->s[sinst].where;
	s->inst[s->n].sinst = sinst;
	s->inst[s->n].code = s->inst[s->n].ncode = 0;
	if (!in->name)
		return nomem(b);
	b->inst = s->n;
	return put_name(b, in->name, TAG_METRIC << TAG_SHIFT | s->n++);
}

static char *keep(struct pt_metric_set *s, const char *text)
{
	return pt_arena_strndup(&s->arena, text, strlen(text));
}

/* Family f: the definition's strings, and its instances. */
static int expand_family(struct binder *b, unsigned f)
{
	struct pt_metric_set *s = b->s;
	const struct pt_def *d = &b->d->d[f];
	const struct pt_placeholder *p = d->ph >= 0 ? pt_placeholder((unsigned)d->ph) : NULL;
	struct pt_metric_family *fam = &s->fam[f];
	struct pt_node *nodes = pt_arena_alloc(&s->arena, d->ast.nnodes * sizeof *nodes + 1);

	b->def = d;
	b->inst = UINT32_MAX;
	fam->name = keep(s, d->name);
	fam->expr = keep(s, d->expr);
	fam->unit = keep(s, d->unit);
	fam->description = keep(s, d->desc);
	fam->groups = keep(s, d->groups);
	fam->origin = keep(s, d->origin);
	fam->line = d->line;
	fam->precision = d->precision;
	fam->first = s->n;
	fam->scope = p ? p->scope : PT_METRIC_GLOBAL;
	s->famp[f].expr = fam->expr;
	s->famp[f].def = d;
	if (!nodes || !fam->name || !fam->expr || !fam->unit || !fam->description ||
	    !fam->groups || !fam->origin)
		return nomem(b);
	memcpy(nodes, d->ast.nodes, d->ast.nnodes * sizeof *nodes);
	s->famp[f].nodes = nodes;
	int rc = 0;
	if (!p) {
		rc = add_instance(b, f, UINT32_MAX);
	} else {
		for (uint32_t j = 0; j < b->sc->count[p->scope] && rc == 0; j++) {
			const struct pt_sinst *si = &b->sc->s[b->sc->first[p->scope] + j];
			if (!p->has || p->has(&s->layout, si))
				rc = add_instance(b, f, b->sc->first[p->scope] + j);
		}
	}
	fam->count = s->n - fam->first;
	return rc;
}

/* ---- code ---------------------------------------------------------------- */

static int emit(struct binder *b, enum pt_opcode op, uint64_t arg, int push)
{
	struct pt_metric_set *s = b->s;

	if (arg > PT_OP_ARG_MAX || s->ncode >= PT_METRIC_CODE_MAX)
		return fail(b, -E2BIG, NULL, "the metrics need more than %u bytecode words",
			    PT_METRIC_CODE_MAX);
	if (!pt_grow((void **)&s->code, &b->cap_code, s->ncode + 1, sizeof *s->code,
		     PT_METRIC_CODE_MAX))
		return nomem(b);
	s->code[s->ncode++] = pt_op(op, (uint32_t)arg);
	b->depth = (unsigned)((int)b->depth + push);
	if (b->depth > s->stack)
		s->stack = b->depth;
	if (b->depth > PT_METRIC_STACK_MAX)
		return fail(b, -EINVAL, NULL, "the expression needs more than %u stack entries",
			    PT_METRIC_STACK_MAX);
	return 0;
}

/* A constant into its pool of the set, and the push of it. */
static int emit_const(struct binder *b, bool is_int, i128 i, double f)
{
	struct pt_metric_set *s = b->s;
	long k = is_int ? pt_push((void **)&s->ints, &s->nints, &b->cap_ints, &i, sizeof i,
				  PT_METRIC_CODE_MAX)
			: pt_push((void **)&s->flts, &s->nflts, &b->cap_flts, &f, sizeof f,
				  PT_METRIC_CODE_MAX);

	if (k < 0)
		return fail(b, -E2BIG, NULL, "the metrics need more than %u constants (or memory)",
			    PT_METRIC_CODE_MAX);
	return emit(b, is_int ? PT_OP_INT : PT_OP_FLT, (uint64_t)k, 1);
}

static int emit_int(struct binder *b, i128 v)
{
	return emit_const(b, true, v, 0.0);
}

static int add_dep(struct binder *b, uint32_t inst)
{
	if (!pt_grow((void **)&b->deps, &b->cap_deps, b->ndeps + 1, sizeof *b->deps,
		     PT_METRIC_CODE_MAX))
		return nomem(b);
	b->deps[b->ndeps++] = inst;
	return 0;
}

/* An aggregate being compiled: op after each operand (but the first one
 * of min() and max(), which starts the fold). */
struct agg {
	enum pt_opcode op;
	bool skip_first, first;
};

static int fold(struct binder *b, struct agg *g)
{
	bool skip = g->first && g->skip_first;

	g->first = false;
	return skip ? 0 : emit(b, g->op, 0, -1);
}

/* Push what a resolved name stands for. */
static int emit_ref(struct binder *b, uint32_t tagged)
{
	uint32_t id = TAG_ID(tagged);
	const struct pt_layout *l = &b->s->layout;

	if (tagged >> TAG_SHIFT == TAG_COUNTER) {
		if (id + 1 > b->s->need_counters)
			b->s->need_counters = id + 1;
		return emit(b, PT_OP_CNT, id, 1);
	}
	if (tagged >> TAG_SHIFT == TAG_METRIC) {
		int rc = add_dep(b, id);
		return rc ? rc : emit(b, PT_OP_MET, id, 1);
	}
	const struct vref *v = &b->vref[id];
	const struct pt_sinst *si = v->sinst == UINT32_MAX ? NULL : &b->sc->s[v->sinst];
	i128 arg = pt_value_arg(l, v->def, si);
	switch (pt_value_def(v->def)->kind) {
	case PT_V_SECONDS:
		return emit(b, PT_OP_SEC, 0, 1);
	case PT_V_STATUS:
		return emit(b, PT_OP_STATUS, (uint64_t)arg, 1);
	case PT_V_LINK:
		return emit(b, PT_OP_LINK, (uint64_t)si->where.ep << 4 | (uint64_t)arg, 1);
	case PT_V_COUNTER:
		return emit_ref(b, TAG_COUNTER << TAG_SHIFT | (uint32_t)arg);
	case PT_V_CONST:
		break;
	}
	return emit_int(b, arg);
}

/* The text of node n of the current definition. */
static const char *node_text(const struct binder *b, const struct pt_node *n)
{
	return b->def->expr + n->pos;
}

static int unknown(struct binder *b, const struct pt_node *n, const char *name)
{
	return fail(b, -EINVAL, n, "unknown name '%s' (no counter, layout value or metric of this "
				   "layout has it; docs/metrics.md lists them)",
		    name);
}

/* A placeholder the metric's instance gives a value must have one for it:
 * {down} in a metric over {up} has none. */
static int check_bound(struct binder *b, const struct pt_node *n)
{
	const struct pt_placeholder *p = n->k ? pt_placeholder(n->k - 1) : NULL;
	uint32_t a = p ? pt_scopes_ancestor(b->sc, b->sinst, p->scope) : UINT32_MAX;

	if (a == UINT32_MAX || !p->has || p->has(&b->s->layout, &b->sc->s[a]))
		return 0;
	return fail(b, -EINVAL, n, "placeholder {%s} has no value for %s, which is not one of its "
				   "instances (%s)",
		    p->name, b->sc->s[a].prefix, p->what);
}

/* A name (no '*'), with its placeholder bound (other: the instance of a
 * free one), pushed and folded into g (if any). */
static int emit_name(struct binder *b, const struct pt_node *n, uint32_t other, struct agg *g)
{
	char name[PT_METRIC_NAME_LEN + 64];
	uint32_t tagged;
	int free_ph, rc;

	if (!pt_expand(b->sc, b->sinst, other, node_text(b, n), n->end - n->pos, name, sizeof name,
		       &free_ph))
		return fail(b, -EINVAL, n, "the name is too long");
	if (free_ph >= 0)
		return fail(b, -EINVAL, n,
			    "placeholder {%s} has no value here: the metric's name ('%s') does not "
			    "bind it, and a placeholder the name does not bind can only range inside "
			    "sum(), min() or max()",
			    pt_placeholder((unsigned)free_ph)->name, b->def->name);
	if (!pt_strmap_get(&b->names, name, strlen(name), &tagged))
		return unknown(b, n, name);
	if ((rc = emit_ref(b, tagged)))
		return rc;
	return g ? fold(b, g) : 0;
}

/* The counters that match a pattern. */
static int emit_glob(struct binder *b, const struct pt_node *n, uint32_t other, struct agg *g)
{
	char pat[PT_METRIC_NAME_LEN + 64];
	int free_ph, rc;

	if (!pt_expand(b->sc, b->sinst, other, node_text(b, n), n->end - n->pos, pat, sizeof pat,
		       &free_ph))
		return fail(b, -EINVAL, n, "the pattern is too long");
	b->work += b->sc->ncounters;
	if (b->work > WORK_MAX)
		return fail(b, -E2BIG, n, "the patterns need more than %u name matches in this layout",
			    WORK_MAX);
	for (unsigned i = 0; i < b->sc->ncounters; i++)
		if (pt_counter_match(pat, b->sc->counter[i]) &&
		    ((rc = emit_ref(b, TAG_COUNTER << TAG_SHIFT | i)) || (rc = fold(b, g))))
			return rc;
	return 0;
}

/* The scope instance a free placeholder of scope t ranges under: the
 * deepest ancestor of the metric's instance that is above t too. */
static uint32_t common(const struct binder *b, enum pt_metric_scope t)
{
	for (uint32_t a = b->sinst; a != UINT32_MAX; a = b->sc->s[a].parent)
		for (enum pt_metric_scope up = pt_scope_parent(t); up != PT_METRIC_GLOBAL;
		     up = pt_scope_parent(up))
			if (b->sc->s[a].scope == up)
				return a;
	return UINT32_MAX;
}

/* An aggregate's argument that may name many: a pattern, a free
 * placeholder, or one name. */
static int emit_list(struct binder *b, const struct pt_node *n, struct agg *g)
{
	char name[PT_METRIC_NAME_LEN + 64];
	int free_ph, rc;
	bool star = n->op != 0;

	if ((rc = check_bound(b, n)))
		return rc;
	if (!pt_expand(b->sc, b->sinst, UINT32_MAX, node_text(b, n), n->end - n->pos, name,
		       sizeof name, &free_ph))
		return fail(b, -EINVAL, n, "the name is too long");
	if (free_ph < 0)
		return star ? emit_glob(b, n, UINT32_MAX, g) : emit_name(b, n, UINT32_MAX, g);
	const struct pt_placeholder *p = pt_placeholder((unsigned)free_ph);
	uint32_t lo, hi;
	pt_scopes_children(b->sc, p->scope, common(b, p->scope), &lo, &hi);
	b->work += hi - lo;
	for (uint32_t j = lo; j < hi && rc == 0; j++) {
		if (p->has && !p->has(&b->s->layout, &b->sc->s[j]))
			continue;
		rc = star ? emit_glob(b, n, j, g) : emit_name(b, n, j, g);
	}
	return rc;
}

static int compile(struct binder *b, int32_t id);

static int compile_call(struct binder *b, const struct pt_node *n)
{
	static const enum pt_opcode op[] = { [PT_FN_MIN] = PT_OP_MIN, [PT_FN_MAX] = PT_OP_MAX,
					     [PT_FN_SUM] = PT_OP_ADD };
	const struct pt_node *nodes = b->def->ast.nodes;
	struct agg g = { op[n->op], n->op != PT_FN_SUM, true };
	int rc = 0;

	/* Python's sum() starts from the integer 0 */
	if (n->op == PT_FN_SUM && (rc = emit_int(b, 0)))
		return rc;
	for (int32_t a = n->a; a >= 0 && rc == 0; a = nodes[a].next)
		rc = nodes[a].kind == PT_N_LIST ? emit_list(b, &nodes[a], &g)
						: (rc = compile(b, a)) ? rc : fold(b, &g);
	if (rc == 0 && g.first && n->op != PT_FN_SUM)
		return fail(b, -EINVAL, n, "%s() of no values: its patterns match nothing in this "
					   "layout",
			    n->op == PT_FN_MIN ? "min" : "max");
	return rc;
}

/* A jump forward, patched when its target is known. */
static int jump(struct binder *b, enum pt_opcode op, int push, size_t *at)
{
	*at = b->s->ncode;
	return emit(b, op, 0, push);
}

static void land(struct binder *b, size_t at)
{
	b->s->code[at] = pt_op((enum pt_opcode)(b->s->code[at] & ((1u << PT_OP_BITS) - 1u)),
			       (uint32_t)(b->s->ncode - at - 1));
}

static int compile_logic(struct binder *b, const struct pt_node *n)
{
	size_t j1, j2;
	int rc;

	if (n->kind == PT_N_IF) {
		/* b: the condition, a: its value, c: the other */
		if ((rc = compile(b, n->b)) || (rc = jump(b, PT_OP_JF, -1, &j1)) ||
		    (rc = compile(b, n->a)) || (rc = jump(b, PT_OP_JMP, 0, &j2)))
			return rc;
		land(b, j1);
		b->depth--; /* the other branch starts where this one did */
		if ((rc = compile(b, n->c)))
			return rc;
		land(b, j2);
		return 0;
	}
	/* and, or: the left operand stays when it decides */
	if ((rc = compile(b, n->a)) ||
	    (rc = jump(b, n->kind == PT_N_AND ? PT_OP_JFK : PT_OP_JTK, -1, &j1)) ||
	    (rc = compile(b, n->b)))
		return rc;
	land(b, j1);
	return 0;
}

static int compile(struct binder *b, int32_t id)
{
	static const enum pt_opcode cmp[] = { PT_OP_LT, PT_OP_LE, PT_OP_GT,
					      PT_OP_GE, PT_OP_EQ, PT_OP_NE };
	const struct pt_node *n = &b->def->ast.nodes[id];
	int rc;

	switch ((enum pt_node_kind)n->kind) {
	case PT_N_INT:
		return emit_int(b, b->def->ast.ints[n->k]);
	case PT_N_FLT:
		return emit_const(b, false, 0, b->def->ast.flts[n->k]);
	case PT_N_NAME:
		return (rc = check_bound(b, n)) ? rc : emit_name(b, n, UINT32_MAX, NULL);
	case PT_N_LIST:
		return fail(b, -EINVAL, n, "a pattern only counts inside sum(), min() or max()");
	case PT_N_NEG:
	case PT_N_NOT:
		return (rc = compile(b, n->a)) ? rc
					       : emit(b, n->kind == PT_N_NEG ? PT_OP_NEG : PT_OP_NOT, 0, 0);
	case PT_N_BIN:
		if ((rc = compile(b, n->a)) || (rc = compile(b, n->b)))
			return rc;
		switch (n->op) {
		case '+': return emit(b, PT_OP_ADD, 0, -1);
		case '-': return emit(b, PT_OP_SUB, 0, -1);
		case '*': return emit(b, PT_OP_MUL, 0, -1);
		default: return emit(b, PT_OP_DIV, (uint64_t)id, -1);
		}
	case PT_N_CMP:
		if ((rc = compile(b, n->a)) || (rc = compile(b, n->b)))
			return rc;
		return emit(b, cmp[n->op], 0, -1);
	case PT_N_AND:
	case PT_N_OR:
	case PT_N_IF:
		return compile_logic(b, n);
	case PT_N_CALL:
		return compile_call(b, n);
	}
	return fail(b, -EINVAL, n, "internal error: node kind %u", n->kind);
}

static int compile_instance(struct binder *b, uint32_t i)
{
	struct pt_inst_priv *in = &b->s->inst[i];
	const struct pt_metric_info *info = &b->s->info[i];

	b->def = b->s->famp[info->family_index].def;
	b->inst = i;
	b->sinst = in->sinst;
	b->depth = 0;
	b->dep_at[i] = (uint32_t)b->ndeps;
	in->code = (uint32_t)b->s->ncode;
	int rc = compile(b, b->def->ast.root);
	in->ncode = (uint32_t)(b->s->ncode - in->code);
	return rc;
}

/* ---- the whole bind -------------------------------------------------------- */

/* An instance's texts are its family's. */
static void finish_info(struct pt_metric_set *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		struct pt_metric_info *in = &s->info[i];
		const struct pt_metric_family *f = &s->fam[in->family_index];
		in->unit = f->unit;
		in->description = f->description;
		in->groups = f->groups;
		in->origin = f->origin;
		in->line = f->line;
		in->precision = f->precision;
	}
	for (unsigned f = 0; f < s->nfam; f++)
		s->famp[f].def = NULL;
}

/* The instance map of the set: their names alone. */
static int instance_map(struct pt_metric_set *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (pt_strmap_put(&s->names, s->info[i].name, i, NULL) < 0)
			return -ENOMEM;
	return 0;
}

static int bind(struct binder *b)
{
	struct pt_metric_set *s = b->s;
	int rc;

	s->nfam = (unsigned)b->d->n;
	s->fam = calloc(s->nfam + 1, sizeof *s->fam);
	s->famp = calloc(s->nfam + 1, sizeof *s->famp);
	if (!s->fam || !s->famp)
		return nomem(b);
	if ((rc = pt_scopes_build(&s->layout, &s->sc)))
		return rc == -ENOMEM ? nomem(b) : fail(b, rc, NULL, "the layout has an unnamed counter");
	size_t guess = (size_t)s->sc.ncounters * 2 + s->sc.n * 4 + 64;
	if (pt_strmap_reserve(&b->names, guess) < 0)
		return nomem(b);
	if ((rc = layout_names(b)))
		return rc;
	for (unsigned f = 0; f < s->nfam; f++)
		if ((rc = expand_family(b, f)))
			return rc;
	if (!(b->dep_at = calloc(s->n + 1, sizeof *b->dep_at)))
		return nomem(b);
	for (uint32_t i = 0; i < s->n; i++)
		if ((rc = compile_instance(b, i)))
			return rc;
	b->dep_at[s->n] = (uint32_t)b->ndeps;
	b->def = NULL;
	if ((rc = pt_order(s, b->dep_at, b->deps, b->msg, b->msglen)))
		return rc;
	finish_info(s);
	if (instance_map(s))
		return nomem(b);
	return 0;
}

int pt_metric_bind(const struct pt_metric_defs *d, const struct pt_layout *l,
		   struct pt_metric_set **out, char *msg, size_t msglen)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!d || !l)
		return -EINVAL;
	struct pt_metric_set *s = calloc(1, sizeof *s);
	struct binder b = { .d = d, .s = s, .msg = msg, .msglen = msglen, .sc = s ? &s->sc : NULL };
	if (!s)
		return nomem(&b);
	s->layout = *l;
	int rc = bind(&b);
	pt_strmap_free(&b.names);
	pt_arena_free(&b.arena);
	free(b.vref);
	free(b.dep_at);
	free(b.deps);
	if (rc) {
		pt_metric_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int pt_metric_bind_builtin(const struct pt_layout *l, struct pt_metric_set **out, char *msg,
			   size_t msglen)
{
	struct pt_metric_defs *d;
	int rc = pt_metric_defs_new(&d, 0, msg, msglen);

	if (rc == 0)
		rc = pt_metric_bind(d, l, out, msg, msglen);
	pt_metric_defs_free(d);
	return rc;
}
