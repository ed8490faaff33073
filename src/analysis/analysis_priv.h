/*
 * pcie-telemetry: the metric engine's insides (private to src/analysis/).
 *
 *   num.c     Python's numbers: exact 128-bit integers and doubles
 *   parse.c   an expression's text -> a flat syntax tree (once per definition)
 *   defs.c    metric files (JSON) -> definitions; the built-in file
 *   scope.c   placeholders, the layout's scope instances, layout values
 *   bind.c    definitions x layout -> instances and their bytecode
 *   order.c   the evaluation order (and the cycles it refuses)
 *   eval.c    the bytecode machine, notes, display
 *   set.c     what a bound set tells its users
 *   mem.c     an arena and a string map
 */
#ifndef PT_ANALYSIS_PRIV_H
#define PT_ANALYSIS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/metrics.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

/* ---- numbers (num.c) ------------------------------------------------- */

/* A Python number: an exact integer or a double. */
struct pt_num {
	union {
		i128 i;
		double f;
	} u;
	bool is_int;
};

static inline struct pt_num pt_num_int(i128 i)
{
	struct pt_num n = { .u.i = i, .is_int = true };
	return n;
}

static inline struct pt_num pt_num_flt(double f)
{
	struct pt_num n = { .u.f = f, .is_int = false };
	return n;
}

double pt_num_i128_to_double(i128 v);
static inline double pt_num_to_double(struct pt_num n)
{
	if (!n.is_int)
		return n.u.f;
	/* 0 .. 2^64 - 1 (every counter): the conversion rounds to nearest */
	if ((u128)n.u.i >> 64 == 0)
		return (double)(uint64_t)n.u.i;
	return pt_num_i128_to_double(n.u.i);
}
struct pt_num pt_num_add(struct pt_num a, struct pt_num b);
struct pt_num pt_num_sub(struct pt_num a, struct pt_num b);
struct pt_num pt_num_mul(struct pt_num a, struct pt_num b);
/* True division; a zero divisor gives NaN and sets *div0. */
struct pt_num pt_num_div(struct pt_num a, struct pt_num b, bool *div0);
struct pt_num pt_num_neg(struct pt_num a);

/* The same in place (*a = *a op *b), with the common cases inline: the
 * evaluation loop's. */
static inline bool pt_num_small(i128 v)
{
	return v >= INT64_MIN && v <= INT64_MAX;
}

static inline void pt_num_add_to(struct pt_num *a, const struct pt_num *b)
{
	i128 r;

	if (!a->is_int && !b->is_int)
		a->u.f += b->u.f;
	else if (a->is_int && b->is_int && !__builtin_add_overflow(a->u.i, b->u.i, &r))
		a->u.i = r;
	else
		*a = pt_num_add(*a, *b);
}

static inline void pt_num_sub_from(struct pt_num *a, const struct pt_num *b)
{
	i128 r;

	if (!a->is_int && !b->is_int)
		a->u.f -= b->u.f;
	else if (a->is_int && b->is_int && !__builtin_sub_overflow(a->u.i, b->u.i, &r))
		a->u.i = r;
	else
		*a = pt_num_sub(*a, *b);
}

static inline void pt_num_mul_by(struct pt_num *a, const struct pt_num *b)
{
	if (a->is_int && b->is_int && pt_num_small(a->u.i) && pt_num_small(b->u.i)) {
		a->u.i *= b->u.i;
	} else if (a->is_int != b->is_int || !a->is_int) {
		double x = pt_num_to_double(*a) * pt_num_to_double(*b);
		a->u.f = x;
		a->is_int = false;
	} else {
		*a = pt_num_mul(*a, *b);
	}
}

/* false on a division by zero (*a is then NaN) */
static inline bool pt_num_div_by(struct pt_num *a, const struct pt_num *b)
{
	bool div0 = false;

	if (a->is_int && b->is_int) {
		*a = pt_num_div(*a, *b, &div0);
		return !div0;
	}
	double d = pt_num_to_double(*b);
	a->u.f = d != 0.0 ? pt_num_to_double(*a) / d : __builtin_nan("");
	a->is_int = false;
	return d != 0.0;
}
/* -1, 0, 1 as a < b, a == b, a > b, exactly (int against double too);
 * 2 when unordered (a NaN). */
int pt_num_cmp(struct pt_num a, struct pt_num b);
/* Python's truth value (NaN is true). */
static inline bool pt_num_truthy(struct pt_num a)
{
	return a.is_int ? a.u.i != 0 : a.u.f != 0.0;
}
/* A decimal literal: digits only (an integer, exact up to 2^127, a double
 * beyond), or with '.' or an exponent (a double). */
struct pt_num pt_num_parse(const char *s, size_t len, bool is_float);
/* Exact decimal of v into buf (at least 42 bytes). */
void pt_num_i128_str(i128 v, char *buf, size_t len);

/* ---- memory (mem.c) --------------------------------------------------- */

/* Blocks that never move: pointers into them stay valid until freed. */
struct pt_arena {
	struct pt_arena_block *head;
	size_t used; /* in head */
};
void *pt_arena_alloc(struct pt_arena *a, size_t n);
char *pt_arena_strndup(struct pt_arena *a, const char *s, size_t n);
void pt_arena_free(struct pt_arena *a);

/* Open addressing from NUL-terminated keys (not copied: they must outlive
 * the map) to 32-bit values. */
struct pt_strmap {
	const char **keys;
	uint32_t *vals, *hashes;
	uint32_t cap, n;
};
/* Room for n keys without growing; 0 or -ENOMEM. */
int pt_strmap_reserve(struct pt_strmap *m, size_t n);
/* 0; -EEXIST with *old the value already there; -ENOMEM. */
int pt_strmap_put(struct pt_strmap *m, const char *key, uint32_t val, uint32_t *old);
/* The key of len bytes: true and *val if present. */
bool pt_strmap_get(const struct pt_strmap *m, const char *key, size_t len, uint32_t *val);
void pt_strmap_free(struct pt_strmap *m);

/* An echoed string for a message: pt_util_escape() of at most max of its
 * characters, "..." after it when it was cut. */
const char *pt_shown(const char *s, size_t max, char *buf, size_t len);

/* Grow *p (of *cap elements of size elem) to hold need; false on ENOMEM
 * or when need exceeds max. */
bool pt_grow(void **p, size_t *cap, size_t need, size_t elem, size_t max);
/* Append the element v (of size elem) to the array *p of *n: its index,
 * or -1 (ENOMEM, or max elements already). */
long pt_push(void **p, size_t *n, size_t *cap, const void *v, size_t elem, size_t max);

/* ---- expressions (parse.c) --------------------------------------------- */

enum pt_node_kind {
	PT_N_INT,  /* k: index into ints */
	PT_N_FLT,  /* k: index into flts */
	PT_N_NAME, /* the text pos..end; k: 1 + placeholder, or 0 */
	PT_N_LIST, /* an aggregate's argument that names many (a pattern or a
		      free placeholder); k as for NAME; op: 1 if it has '*' */
	PT_N_NEG,  /* -a */
	PT_N_NOT,  /* not a */
	PT_N_BIN,  /* a op b, op '+' '-' '*' '/' */
	PT_N_CMP,  /* a op b, op enum pt_cmp */
	PT_N_AND,  /* a and b */
	PT_N_OR,   /* a or b */
	PT_N_IF,   /* a if b else c */
	PT_N_CALL, /* op enum pt_fn; arguments a, then each one's next */
};

enum pt_cmp { PT_CMP_LT, PT_CMP_LE, PT_CMP_GT, PT_CMP_GE, PT_CMP_EQ, PT_CMP_NE };
enum pt_fn { PT_FN_MIN, PT_FN_MAX, PT_FN_SUM };

struct pt_node {
	uint8_t kind, op;
	uint16_t nargs;
	uint32_t pos, end; /* its text: expr[pos .. end) */
	int32_t a, b, c, next;
	uint32_t k;
};

struct pt_expr {
	struct pt_node *nodes;
	uint32_t nnodes;
	i128 *ints;
	size_t nints;
	double *flts;
	size_t nflts;
	int32_t root;
};

/* Parse text (len <= PT_METRIC_EXPR_MAX, checked).  0, or -EINVAL with
 * *pos the 0-based offset of the error and the message without a prefix
 * ("unknown name ..."), or -ENOMEM. */
int pt_expr_parse(const char *text, size_t len, struct pt_expr *out, uint32_t *pos, char *msg,
		  size_t msglen);
void pt_expr_free(struct pt_expr *e);

/* ---- placeholders, scope instances, values (scope.c) ------------------- */

/* The base scopes, parents first: EP < BUS < REGION, EP < BRAKE, ... */
#define PT_SCOPES (PT_METRIC_DMA_BAND + 1)

/* One instance of a base scope: an endpoint, a bus, a region, ... */
struct pt_sinst {
	uint8_t scope;   /* enum pt_metric_scope, never GLOBAL */
	struct pt_metric_where where;
	uint32_t parent; /* the instance of the parent scope; UINT32_MAX under EP */
	const char *prefix; /* "ep0.rq", "ep0.rq.region1", "ep0.brake.no_free_tag" */
};

/* Every scope instance of a layout, each base scope's contiguous and in
 * layout order, and the counter names. */
struct pt_scopes {
	struct pt_arena arena;
	struct pt_sinst *s;
	uint32_t n;
	uint32_t first[PT_SCOPES], count[PT_SCOPES];
	const char **counter; /* pt_counter_count(l) names */
	unsigned ncounters;
};
int pt_scopes_build(const struct pt_layout *l, struct pt_scopes *out);
void pt_scopes_free(struct pt_scopes *sc);
/* The instances of scope under instance `in` (UINT32_MAX: all of them):
 * [*lo, *hi). */
void pt_scopes_children(const struct pt_scopes *sc, enum pt_metric_scope scope, uint32_t in,
			uint32_t *lo, uint32_t *hi);
/* The ancestor of instance i in scope (i itself if it is of that scope),
 * or UINT32_MAX. */
uint32_t pt_scopes_ancestor(const struct pt_scopes *sc, uint32_t i, enum pt_metric_scope scope);

struct pt_placeholder {
	const char *name; /* "bus" */
	enum pt_metric_scope scope;
	/* NULL: every instance of the scope */
	bool (*has)(const struct pt_layout *l, const struct pt_sinst *s);
	const char *what;
};
/* The table; NULL beyond it. */
const struct pt_placeholder *pt_placeholder(unsigned id);
/* The placeholder named name[0..len), or -1. */
int pt_placeholder_find(const char *name, size_t len);
/* The parent of a base scope (GLOBAL under EP). */
enum pt_metric_scope pt_scope_parent(enum pt_metric_scope s);

/* Layout values and reading registers usable in expressions. */
enum pt_value_kind {
	PT_V_CONST,   /* a layout constant */
	PT_V_SECONDS, /* the interval (NaN in totals mode) */
	PT_V_STATUS,  /* a STATUS bit */
	PT_V_LINK,    /* a decoded link register of the endpoint */
	PT_V_COUNTER, /* another name for a counter ({bus}.cycles) */
};
struct pt_value_def {
	enum pt_metric_scope scope; /* GLOBAL: "seconds"; EP: "ep0.mrrs"; BUS: "ep0.rq.cycles" */
	const char *name;
	enum pt_value_kind kind;
	const char *what;
};
const struct pt_value_def *pt_value_def(unsigned id);
/* The constant (CONST), bit (STATUS), link field (LINK) or counter index
 * (COUNTER) of value id at scope instance s (NULL for GLOBAL). */
i128 pt_value_arg(const struct pt_layout *l, unsigned id, const struct pt_sinst *s);

/* Link fields of PT_V_LINK, in this order. */
enum pt_link_field {
	PT_L_LINK_UP, PT_L_MPS, PT_L_MRRS, PT_L_RCB, PT_L_EXT_TAG, PT_L_TAG_10B,
	PT_L_TAGS_FREE, PT_L_TAGS_FREE_MIN, PT_L_STFIFO_FREE, PT_L_STFIFO_FREE_MIN, PT_L_COUNT
};

/* ---- definitions (defs.c) ---------------------------------------------- */

struct pt_def {
	char *name, *expr, *desc, *unit, *groups;
	const char *origin;
	unsigned line, expr_line;
	int precision;
	int ph; /* the placeholder of the name, or -1 */
	struct pt_expr ast;
};

struct pt_metric_defs {
	struct pt_def *d;
	size_t n, cap;
	struct pt_arena arena; /* origins */
};

/* ---- bound sets (bind.c, order.c, eval.c, set.c) ------------------------ */

/* Bytecode: op in the low 6 bits, its argument above. */
enum pt_opcode {
	PT_OP_INT,    /* push ints[arg] */
	PT_OP_FLT,    /* push flts[arg] */
	PT_OP_CNT,    /* push counter arg */
	PT_OP_MET,    /* push the value of instance arg */
	PT_OP_SEC,    /* push seconds */
	PT_OP_STATUS, /* push STATUS bit arg */
	PT_OP_LINK,   /* push link field (arg & 15) of endpoint arg >> 4 */
	PT_OP_ADD, PT_OP_SUB, PT_OP_MUL,
	PT_OP_DIV,    /* arg: the node, for the note */
	PT_OP_NEG, PT_OP_NOT,
	PT_OP_LT, PT_OP_LE, PT_OP_GT, PT_OP_GE, PT_OP_EQ, PT_OP_NE,
	PT_OP_MIN, PT_OP_MAX,
	PT_OP_JF,     /* pop; jump arg words ahead if false */
	PT_OP_JMP,    /* jump arg words ahead */
	PT_OP_JFK,    /* false: jump keeping it; else pop (and) */
	PT_OP_JTK,    /* true: jump keeping it; else pop (or) */
};
#define PT_OP_BITS 6u
#define PT_OP_ARG_MAX ((1u << (32u - PT_OP_BITS)) - 1u)
static inline uint32_t pt_op(enum pt_opcode op, uint32_t arg)
{
	return (uint32_t)op | arg << PT_OP_BITS;
}

/* What a set keeps of a definition: for the families and the notes. */
struct pt_fam_priv {
	const char *expr;
	const struct pt_node *nodes; /* the definition's, copied */
	const struct pt_def *def;    /* valid only while binding */
};

struct pt_inst_priv {
	uint32_t code, ncode; /* its bytecode */
	uint32_t sinst;       /* its scope instance; UINT32_MAX for GLOBAL */
};

struct pt_metric_set {
	struct pt_layout layout;
	struct pt_arena arena;
	struct pt_metric_family *fam;
	struct pt_fam_priv *famp;
	unsigned nfam;
	struct pt_metric_info *info;
	struct pt_inst_priv *inst;
	unsigned n;
	uint32_t *order; /* evaluation order */
	uint32_t *code;
	size_t ncode;
	i128 *ints;
	size_t nints;
	double *flts;
	size_t nflts;
	struct pt_strmap names; /* instance name -> index */
	struct pt_scopes sc;    /* the layout's scope instances and counter names */
	unsigned need_counters; /* the reading must have this many */
	unsigned stack;         /* the deepest evaluation stack */
};

/* Evaluation order with cycle detection; deps[dep_at[i] .. dep_at[i+1])
 * are the instances instance i uses.  0, -EINVAL (a cycle; the message
 * from msgfn names it), -ENOMEM. */
int pt_order(struct pt_metric_set *s, const uint32_t *dep_at, const uint32_t *deps, char *msg,
	     size_t msglen);

/*
 * text[0..len) with its placeholder written out: the prefix of the
 * ancestor of scope instance `sinst` in the placeholder's scope, or of
 * `other` (a free placeholder's instance) when sinst has none.  A
 * placeholder with neither stays as written and *free_ph gets its id
 * (else -1).  false when out is too short.
 */
bool pt_expand(const struct pt_scopes *sc, uint32_t sinst, uint32_t other, const char *text,
	       size_t len, char *out, size_t outlen, int *free_ph);

#endif
