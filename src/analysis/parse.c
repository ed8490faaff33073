/*
 * pcie-telemetry: the expression language of metrics (docs/metrics.md
 * "Expressions"): text -> a flat syntax tree, once per definition.
 *
 * Recursive descent over Python's precedence: `A if C else B`, or, and,
 * not, one comparison, + -, * /, unary minus, then numbers, names,
 * parentheses and min() / max() / sum().  Inside an aggregate's
 * parentheses an argument written as one run of name characters with a
 * '*' in it (`ep*.down*.items`) is a pattern; everywhere else '*' is the
 * product.  The nesting depth is capped, so no text can exhaust the stack.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_priv.h"

enum tok {
	T_END, T_INT, T_FLT, T_NAME, T_LIST, T_LP, T_RP, T_COMMA, T_PLUS, T_MINUS, T_STAR,
	T_SLASH, T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE, T_IF, T_ELSE, T_AND, T_OR, T_NOT,
};

struct parser {
	const char *s;
	size_t len, p;
	/* the current token */
	enum tok t;
	size_t tpos, tend;
	int tph; /* NAME, LIST: 1 + its placeholder, or 0 */
	bool tstar;
	/* the next token may be a pattern (an aggregate's argument starts) */
	bool list_mode;
	struct pt_expr *e;
	size_t cap_nodes, cap_ints, cap_flts;
	unsigned depth;
	int err;
	uint32_t errpos;
	char *msg;
	size_t msglen;
};

static int fail(struct parser *ps, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *ps, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (ps->err)
		return ps->err;
	va_start(ap, fmt);
	if (ps->msg && ps->msglen)
		vsnprintf(ps->msg, ps->msglen, fmt, ap);
	va_end(ap);
	ps->err = -EINVAL;
	ps->errpos = (uint32_t)pos;
	return ps->err;
}

static bool name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '{';
}

static bool name_char(int c)
{
	return name_start(c) || (c >= '0' && c <= '9') || c == '.';
}

static bool digit(int c)
{
	return c >= '0' && c <= '9';
}

static int at(const struct parser *ps, size_t i)
{
	return i < ps->len ? (unsigned char)ps->s[i] : 0;
}

/* The token's text for a message, cut to 40 characters. */
static const char *shown(const struct parser *ps, char buf[48])
{
	size_t n = ps->tend - ps->tpos;

	if (ps->t == T_END)
		return "the end";
	if (n > 40)
		n = 40;
	buf[0] = '\'';
	memcpy(buf + 1, ps->s + ps->tpos, n);
	snprintf(buf + 1 + n, 48 - 1 - n, "%s'", ps->tend - ps->tpos > 40 ? "..." : "");
	return buf;
}

/* A run of name characters (and '*' when star) from i, with at most one
 * placeholder checked against the table.  Returns its end, or 0 after an
 * error. */
static size_t scan_name(struct parser *ps, size_t i, bool star, int *ph, bool *has_star)
{
	*ph = 0;
	*has_star = false;
	while (name_char(at(ps, i)) || (star && at(ps, i) == '*')) {
		if (at(ps, i) == '*') {
			*has_star = true;
			i++;
			continue;
		}
		if (at(ps, i) != '{') {
			i++;
			continue;
		}
		size_t b = ++i;
		while ((at(ps, i) >= 'a' && at(ps, i) <= 'z') || at(ps, i) == '_')
			i++;
		if (at(ps, i) != '}')
			return fail(ps, b - 1, "'{' without its '}': a placeholder is {name}"), 0;
		int id = pt_placeholder_find(ps->s + b, i - b);
		if (id < 0)
			return fail(ps, b - 1, "unknown placeholder {%.*s}", (int)(i - b), ps->s + b), 0;
		if (*ph)
			return fail(ps, b - 1, "a name holds at most one placeholder"), 0;
		*ph = 1 + id;
		i++;
	}
	return i;
}

static void lex_number(struct parser *ps, size_t i)
{
	size_t start = i;
	bool flt = false;

	while (digit(at(ps, i)))
		i++;
	if (at(ps, i) == '.') {
		flt = true;
		i++;
		while (digit(at(ps, i)))
			i++;
	}
	if (at(ps, i) == 'e' || at(ps, i) == 'E') {
		size_t e = i + 1;
		if (at(ps, e) == '+' || at(ps, e) == '-')
			e++;
		if (digit(at(ps, e))) {
			flt = true;
			for (i = e; digit(at(ps, i));)
				i++;
		}
	}
	if (name_char(at(ps, i)) || (i == start + 1 && ps->s[start] == '.')) {
		fail(ps, start, "malformed number '%.*s'", (int)(i - start + 1), ps->s + start);
		return;
	}
	if (!flt && ps->s[start] == '0') {
		for (size_t k = start; k < i; k++)
			if (ps->s[k] != '0') {
				fail(ps, start, "leading zeros in the integer '%.*s' (as in Python)",
				     (int)(i - start), ps->s + start);
				return;
			}
	}
	ps->t = flt ? T_FLT : T_INT;
	ps->tend = i;
}

static const struct {
	const char *word;
	enum tok t;
} keywords[] = {
	{ "if", T_IF }, { "else", T_ELSE }, { "and", T_AND }, { "or", T_OR }, { "not", T_NOT },
};

static void lex_name(struct parser *ps, size_t i)
{
	bool star;
	size_t end;

	if (ps->list_mode) {
		/* an aggregate's argument: a pattern if the run has a '*' and
		 * nothing but the argument's end follows it */
		end = scan_name(ps, i, true, &ps->tph, &star);
		if (ps->err)
			return;
		size_t k = end;
		while (at(ps, k) == ' ' || at(ps, k) == '\t' || at(ps, k) == '\n' || at(ps, k) == '\r')
			k++;
		if (star && (at(ps, k) == ',' || at(ps, k) == ')')) {
			ps->t = T_LIST;
			ps->tend = end;
			ps->tstar = true;
			return;
		}
	}
	if (at(ps, i) == '*') {
		ps->t = T_STAR;
		ps->tend = i + 1;
		return;
	}
	end = scan_name(ps, i, false, &ps->tph, &star);
	if (ps->err)
		return;
	ps->t = T_NAME;
	ps->tend = end;
	for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
		if (end - i == strlen(keywords[k].word) &&
		    memcmp(ps->s + i, keywords[k].word, end - i) == 0)
			ps->t = keywords[k].t;
}

static void lex_op(struct parser *ps, size_t i)
{
	static const struct {
		const char *op;
		enum tok t;
	} ops[] = {
		{ "<=", T_LE }, { ">=", T_GE }, { "==", T_EQ }, { "!=", T_NE }, { "<", T_LT },
		{ ">", T_GT },  { "(", T_LP },  { ")", T_RP },  { ",", T_COMMA }, { "+", T_PLUS },
		{ "-", T_MINUS }, { "*", T_STAR }, { "/", T_SLASH },
	};
	int c = at(ps, i);

	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		size_t n = strlen(ops[k].op);
		if (i + n <= ps->len && memcmp(ps->s + i, ops[k].op, n) == 0) {
			ps->t = ops[k].t;
			ps->tend = i + n;
			return;
		}
	}
	if (c == '=')
		fail(ps, i, "'=' is not an operator (a comparison is '==')");
	else if (c < 0x20 || c >= 0x7F)
		fail(ps, i, "character 0x%02X is not allowed in an expression", (unsigned)c);
	else
		fail(ps, i, "unexpected character '%c'", c);
}

static void next(struct parser *ps)
{
	size_t i = ps->p;

	while (at(ps, i) == ' ' || at(ps, i) == '\t' || at(ps, i) == '\n' || at(ps, i) == '\r')
		i++;
	ps->tpos = i;
	ps->tph = 0;
	ps->tstar = false;
	if (i >= ps->len) {
		ps->t = T_END;
		ps->tend = i;
	} else if (digit(at(ps, i)) || (at(ps, i) == '.' && digit(at(ps, i + 1)))) {
		lex_number(ps, i);
	} else if (name_start(at(ps, i)) || (ps->list_mode && at(ps, i) == '*')) {
		lex_name(ps, i);
	} else {
		lex_op(ps, i);
	}
	ps->list_mode = false;
	if (ps->err)
		ps->t = T_END;
	ps->p = ps->tend;
}

static int32_t node(struct parser *ps, enum pt_node_kind kind, unsigned op, size_t pos,
		    size_t end, int32_t a, int32_t b)
{
	struct pt_expr *e = ps->e;

	if (ps->err)
		return -1;
	if (!pt_grow((void **)&e->nodes, &ps->cap_nodes, e->nnodes + 1, sizeof *e->nodes,
		     4u * PT_METRIC_EXPR_MAX)) {
		ps->err = -ENOMEM;
		return -1;
	}
	struct pt_node *n = &e->nodes[e->nnodes];
	memset(n, 0, sizeof *n);
	n->kind = (uint8_t)kind;
	n->op = (uint8_t)op;
	n->pos = (uint32_t)pos;
	n->end = (uint32_t)end;
	n->a = a;
	n->b = b;
	n->c = n->next = -1;
	return (int32_t)e->nnodes++;
}

static int32_t if_expr(struct parser *ps);

static bool enter(struct parser *ps)
{
	if (++ps->depth > PT_METRIC_DEPTH_MAX) {
		fail(ps, ps->tpos, "the expression is nested deeper than %u levels",
		     PT_METRIC_DEPTH_MAX);
		return false;
	}
	return true;
}

static int32_t number(struct parser *ps)
{
	struct pt_expr *e = ps->e;
	struct pt_num v = pt_num_parse(ps->s + ps->tpos, ps->tend - ps->tpos, ps->t == T_FLT);
	long k = v.is_int ? pt_push((void **)&e->ints, &e->nints, &ps->cap_ints, &v.u.i,
				    sizeof v.u.i, PT_METRIC_EXPR_MAX)
			  : pt_push((void **)&e->flts, &e->nflts, &ps->cap_flts, &v.u.f,
				    sizeof v.u.f, PT_METRIC_EXPR_MAX);

	if (k < 0) {
		ps->err = -ENOMEM;
		return -1;
	}
	int32_t n = node(ps, v.is_int ? PT_N_INT : PT_N_FLT, 0, ps->tpos, ps->tend, -1, -1);
	if (n >= 0)
		e->nodes[n].k = (uint32_t)k;
	next(ps);
	return n;
}

/* fn ( arg, ... ): the arguments linked through next. */
static int32_t call(struct parser *ps, enum pt_fn fn, size_t pos, const char *fname)
{
	int32_t first = -1, last = -1;
	unsigned nargs = 0;

	if (!enter(ps))
		return -1;
	for (;;) {
		ps->list_mode = true;
		next(ps); /* past '(' or ',' */
		if (ps->t == T_RP && nargs == 0) {
			fail(ps, ps->tpos, "%s() needs at least one argument", fname);
			return -1;
		}
		int32_t a = if_expr(ps);
		if (a < 0)
			return -1;
		struct pt_node *an = &ps->e->nodes[a];
		if (an->kind == PT_N_NAME)
			an->kind = PT_N_LIST; /* a name alone may name many */
		if (last >= 0)
			ps->e->nodes[last].next = a;
		else
			first = a;
		last = a;
		nargs++;
		if (ps->t == T_RP)
			break;
		if (ps->t != T_COMMA) {
			char b[48];
			fail(ps, ps->tpos, "expected ',' or ')' in %s(), not %s", fname, shown(ps, b));
			return -1;
		}
	}
	ps->depth--;
	int32_t n = node(ps, PT_N_CALL, fn, pos, ps->tend, first, -1);
	if (n >= 0)
		ps->e->nodes[n].nargs = (uint16_t)nargs;
	next(ps);
	return n;
}

static int32_t name(struct parser *ps)
{
	static const char *const fns[] = { [PT_FN_MIN] = "min", [PT_FN_MAX] = "max",
					   [PT_FN_SUM] = "sum" };
	size_t pos = ps->tpos, end = ps->tend;
	enum pt_node_kind kind = ps->t == T_LIST ? PT_N_LIST : PT_N_NAME;
	unsigned ph = (unsigned)ps->tph, star = ps->tstar;

	next(ps);
	for (unsigned f = 0; f < 3; f++) {
		if (end - pos != 3 || memcmp(ps->s + pos, fns[f], 3) != 0)
			continue;
		if (ps->t != T_LP) {
			fail(ps, pos, "'%s' is a function: %s(a, b, ...)", fns[f], fns[f]);
			return -1;
		}
		return call(ps, (enum pt_fn)f, pos, fns[f]);
	}
	if (ps->t == T_LP) {
		fail(ps, pos, "unknown function '%.*s' (there are min, max and sum)",
		     (int)(end - pos > 40 ? 40 : end - pos), ps->s + pos);
		return -1;
	}
	int32_t n = node(ps, kind, star, pos, end, -1, -1);
	if (n >= 0)
		ps->e->nodes[n].k = ph;
	return n;
}

static int32_t primary(struct parser *ps)
{
	char b[48];

	switch (ps->t) {
	case T_INT:
	case T_FLT:
		return number(ps);
	case T_NAME:
	case T_LIST:
		return name(ps);
	case T_LP: {
		size_t pos = ps->tpos;
		if (!enter(ps))
			return -1;
		next(ps);
		int32_t a = if_expr(ps);
		if (a < 0)
			return -1;
		if (ps->t != T_RP) {
			fail(ps, ps->tpos, "expected ')' to close the '(' at position %zu, not %s",
			     pos + 1, shown(ps, b));
			return -1;
		}
		ps->depth--;
		next(ps);
		return a;
	}
	default:
		fail(ps, ps->tpos, "expected a number, a name or '(', not %s", shown(ps, b));
		return -1;
	}
}

static int32_t unary(struct parser *ps)
{
	if (ps->t != T_MINUS && ps->t != T_PLUS)
		return primary(ps);
	size_t pos = ps->tpos;
	bool neg = ps->t == T_MINUS;
	if (!enter(ps))
		return -1;
	next(ps);
	int32_t a = unary(ps);
	ps->depth--;
	if (a < 0 || !neg)
		return a;
	return node(ps, PT_N_NEG, 0, pos, ps->e->nodes[a].end, a, -1);
}

/* Left-associative binary levels. */
static int32_t binary(struct parser *ps, int32_t (*sub)(struct parser *), enum tok t1, enum tok t2,
		      enum pt_node_kind kind, unsigned op1, unsigned op2)
{
	int32_t a = sub(ps);

	while (a >= 0 && (ps->t == t1 || ps->t == t2)) {
		unsigned op = ps->t == t1 ? op1 : op2;
		next(ps);
		int32_t b = sub(ps);
		if (b < 0)
			return -1;
		a = node(ps, kind, op, ps->e->nodes[a].pos, ps->e->nodes[b].end, a, b);
	}
	return a;
}

static int32_t term(struct parser *ps)
{
	return binary(ps, unary, T_STAR, T_SLASH, PT_N_BIN, '*', '/');
}

static int32_t arith(struct parser *ps)
{
	return binary(ps, term, T_PLUS, T_MINUS, PT_N_BIN, '+', '-');
}

static int cmp_op(enum tok t)
{
	switch (t) {
	case T_LT: return PT_CMP_LT;
	case T_LE: return PT_CMP_LE;
	case T_GT: return PT_CMP_GT;
	case T_GE: return PT_CMP_GE;
	case T_EQ: return PT_CMP_EQ;
	case T_NE: return PT_CMP_NE;
	default: return -1;
	}
}

static int32_t comparison(struct parser *ps)
{
	int32_t a = arith(ps);
	int op = cmp_op(ps->t);

	if (a < 0 || op < 0)
		return a;
	next(ps);
	int32_t b = arith(ps);
	if (b < 0)
		return -1;
	if (cmp_op(ps->t) >= 0) {
		fail(ps, ps->tpos, "comparisons do not chain here: write 'a < b and b < c'");
		return -1;
	}
	return node(ps, PT_N_CMP, (unsigned)op, ps->e->nodes[a].pos, ps->e->nodes[b].end, a, b);
}

static int32_t not_expr(struct parser *ps)
{
	if (ps->t != T_NOT)
		return comparison(ps);
	size_t pos = ps->tpos;
	if (!enter(ps))
		return -1;
	next(ps);
	int32_t a = not_expr(ps);
	ps->depth--;
	return a < 0 ? -1 : node(ps, PT_N_NOT, 0, pos, ps->e->nodes[a].end, a, -1);
}

static int32_t and_expr(struct parser *ps)
{
	return binary(ps, not_expr, T_AND, T_AND, PT_N_AND, 0, 0);
}

static int32_t or_expr(struct parser *ps)
{
	return binary(ps, and_expr, T_OR, T_OR, PT_N_OR, 0, 0);
}

/* A if C else B (right-associative in B). */
static int32_t if_expr(struct parser *ps)
{
	int32_t a = or_expr(ps);
	char b[48];

	if (a < 0 || ps->t != T_IF)
		return a;
	if (!enter(ps))
		return -1;
	next(ps);
	int32_t c = or_expr(ps);
	if (c < 0)
		return -1;
	if (ps->t != T_ELSE) {
		fail(ps, ps->tpos, "expected 'else' after 'A if C', not %s", shown(ps, b));
		return -1;
	}
	next(ps);
	int32_t e = if_expr(ps);
	ps->depth--;
	if (e < 0)
		return -1;
	int32_t n = node(ps, PT_N_IF, 0, ps->e->nodes[a].pos, ps->e->nodes[e].end, a, c);
	if (n >= 0)
		ps->e->nodes[n].c = e;
	return n;
}

int pt_expr_parse(const char *text, size_t len, struct pt_expr *out, uint32_t *pos, char *msg,
		  size_t msglen)
{
	struct parser ps = { .s = text, .len = len, .e = out, .msg = msg, .msglen = msglen };
	char b[48];

	memset(out, 0, sizeof *out);
	out->root = -1;
	*pos = 0;
	if (len > PT_METRIC_EXPR_MAX) {
		fail(&ps, PT_METRIC_EXPR_MAX, "the expression is longer than %u characters",
		     PT_METRIC_EXPR_MAX);
	} else {
		next(&ps);
		if (ps.t == T_END && !ps.err)
			fail(&ps, 0, "empty expression");
		int32_t root = ps.err ? -1 : if_expr(&ps);
		if (root >= 0 && ps.t != T_END)
			fail(&ps, ps.tpos, "unexpected %s after the expression", shown(&ps, b));
		out->root = root;
	}
	if (ps.err) {
		if (ps.err == -ENOMEM && msg && msglen)
			snprintf(msg, msglen, "out of memory");
		*pos = ps.errpos;
		pt_expr_free(out);
		return ps.err;
	}
	return 0;
}

void pt_expr_free(struct pt_expr *e)
{
	free(e->nodes);
	free(e->ints);
	free(e->flts);
	memset(e, 0, sizeof *e);
	e->root = -1;
}
