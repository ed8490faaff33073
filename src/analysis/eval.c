/*
 * pcie-telemetry: evaluating a bound set: a small stack machine over
 * Python numbers, run once per instance in the set's order, with every
 * operand already resolved (a counter index, a constant, the slot of a
 * metric evaluated before).  No allocation, no name lookup.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis_priv.h"

struct machine {
	const struct pt_metric_set *s;
	const struct pt_reading *r;
	const struct pt_metric_value *vals;
	struct pt_num seconds;
	uint64_t link[PT_MAX_ENDPOINTS][PT_L_COUNT];
};

static void decode_links(struct machine *m)
{
	unsigned eps = m->s->layout.endpoints;

	for (unsigned ep = 0; ep < eps && ep < PT_MAX_ENDPOINTS; ep++) {
		struct pt_link k;
		pt_link_decode(m->r, ep, &k);
		const uint64_t v[PT_L_COUNT] = {
			[PT_L_LINK_UP] = k.link_up,         [PT_L_MPS] = k.mps,
			[PT_L_MRRS] = k.mrrs,               [PT_L_RCB] = k.rcb,
			[PT_L_EXT_TAG] = k.ext_tag,         [PT_L_TAG_10B] = k.tag_10b,
			[PT_L_TAGS_FREE] = k.tags_free,     [PT_L_TAGS_FREE_MIN] = k.tags_free_min,
			[PT_L_STFIFO_FREE] = k.stfifo_free, [PT_L_STFIFO_FREE_MIN] = k.stfifo_free_min,
		};
		memcpy(m->link[ep], v, sizeof v);
	}
}

static struct pt_num value_num(const struct pt_metric_value *v)
{
	return v->is_int ? pt_num_int(v->i) : pt_num_flt(v->f);
}

static struct pt_num compare(enum pt_opcode op, struct pt_num a, struct pt_num b)
{
	int c = pt_num_cmp(a, b);
	bool t;

	switch (op) {
	case PT_OP_LT: t = c == -1; break;
	case PT_OP_LE: t = c == -1 || c == 0; break;
	case PT_OP_GT: t = c == 1; break;
	case PT_OP_GE: t = c == 1 || c == 0; break;
	case PT_OP_EQ: t = c == 0; break;
	default: t = c != 0; break; /* NaN != x */
	}
	return pt_num_int(t);
}

/* Run one instance's code; *note gets 1 + the node of the first division
 * by zero. */
static struct pt_num run(const struct machine *m, const uint32_t *code, uint32_t n,
			 uint32_t *note)
{
	struct pt_num st[PT_METRIC_STACK_MAX + 1];
	const struct pt_metric_set *s = m->s;
	unsigned sp = 0;

	for (uint32_t pc = 0; pc < n; pc++) {
		uint32_t w = code[pc], arg = w >> PT_OP_BITS;
		switch ((enum pt_opcode)(w & ((1u << PT_OP_BITS) - 1u))) {
		case PT_OP_INT: st[sp++] = pt_num_int(s->ints[arg]); break;
		case PT_OP_FLT: st[sp++] = pt_num_flt(s->flts[arg]); break;
		case PT_OP_CNT: st[sp++] = pt_num_int(m->r->cnt[arg]); break;
		case PT_OP_MET: st[sp++] = value_num(&m->vals[arg]); break;
		case PT_OP_SEC: st[sp++] = m->seconds; break;
		case PT_OP_STATUS: st[sp++] = pt_num_int((m->r->status >> arg) & 1u); break;
		case PT_OP_LINK: st[sp++] = pt_num_int(m->link[arg >> 4][arg & 15u]); break;
		case PT_OP_ADD: sp--; pt_num_add_to(&st[sp - 1], &st[sp]); break;
		case PT_OP_SUB: sp--; pt_num_sub_from(&st[sp - 1], &st[sp]); break;
		case PT_OP_MUL: sp--; pt_num_mul_by(&st[sp - 1], &st[sp]); break;
		case PT_OP_DIV:
			sp--;
			if (!pt_num_div_by(&st[sp - 1], &st[sp]) && !*note)
				*note = arg + 1;
			break;
		case PT_OP_NEG: st[sp - 1] = pt_num_neg(st[sp - 1]); break;
		case PT_OP_NOT: st[sp - 1] = pt_num_int(!pt_num_truthy(st[sp - 1])); break;
		case PT_OP_MIN:
			sp--;
			if (pt_num_cmp(st[sp], st[sp - 1]) == -1)
				st[sp - 1] = st[sp];
			break;
		case PT_OP_MAX:
			sp--;
			if (pt_num_cmp(st[sp], st[sp - 1]) == 1)
				st[sp - 1] = st[sp];
			break;
		case PT_OP_JF:
			if (!pt_num_truthy(st[--sp]))
				pc += arg;
			break;
		case PT_OP_JMP: pc += arg; break;
		case PT_OP_JFK:
			if (!pt_num_truthy(st[sp - 1]))
				pc += arg;
			else
				sp--;
			break;
		case PT_OP_JTK:
			if (pt_num_truthy(st[sp - 1]))
				pc += arg;
			else
				sp--;
			break;
		default:
			/* comparisons */
			sp--;
			st[sp - 1] = compare((enum pt_opcode)(w & ((1u << PT_OP_BITS) - 1u)), st[sp - 1],
					     st[sp]);
			break;
		}
	}
	return sp ? st[sp - 1] : pt_num_flt(NAN);
}

int pt_metric_eval(const struct pt_metric_set *s, const struct pt_metric_input *in,
		   struct pt_metric_value *out)
{
	if (!s || !in || !in->reading || !out)
		return -EINVAL;
	if (in->reading->entries < s->need_counters || (s->need_counters && !in->reading->cnt))
		return -EINVAL;
	struct machine m = { .s = s, .r = in->reading, .vals = out };
	m.seconds = pt_num_flt(in->interval && in->seconds != 0.0 ? in->seconds : NAN);
	decode_links(&m);
	int notes = 0;
	for (unsigned k = 0; k < s->n; k++) {
		uint32_t i = s->order[k];
		struct pt_metric_value *v = &out[i];
		v->note = 0;
		struct pt_num r = run(&m, s->code + s->inst[i].code, s->inst[i].ncode, &v->note);
		v->is_int = r.is_int;
		v->i = r.is_int ? r.u.i : 0;
		v->f = pt_num_to_double(r);
		notes += v->note != 0;
	}
	return notes;
}

int pt_metric_note(const struct pt_metric_set *s, unsigned i, const struct pt_metric_value *v,
		   char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!s || !v || i >= s->n || v->note == 0)
		return -ENOENT;
	const struct pt_metric_info *in = &s->info[i];
	const struct pt_fam_priv *f = &s->famp[in->family_index];
	const struct pt_node *div = &f->nodes[v->note - 1];
	const struct pt_node *den = &f->nodes[div->b];
	char text[PT_METRIC_NAME_LEN + 64];
	int free_ph;
	size_t n = den->end - den->pos;

	if (n > 80 || !pt_expand(&s->sc, s->inst[i].sinst, UINT32_MAX, f->expr + den->pos, n, text,
				 sizeof text, &free_ph))
		snprintf(text, sizeof text, "%.*s...", 60, f->expr + den->pos);
	/* the '/' itself: after the left operand (and its closing parentheses) */
	uint32_t slash = f->nodes[div->a].end;
	while (f->expr[slash] && f->expr[slash] != '/')
		slash++;
	snprintf(buf, len, "metric '%s': position %u: division by zero (%s is 0)", in->name,
		 slash + 1, text);
	return 0;
}

int pt_metric_format(const struct pt_metric_info *info, const struct pt_metric_value *v, char *buf,
		     size_t len)
{
	int n;

	if (!info || !v || !buf || len == 0)
		return -EINVAL;
	if (v->is_int) {
		char tmp[48];
		pt_num_i128_str(v->i, tmp, sizeof tmp);
		n = snprintf(buf, len, "%s", tmp);
	} else if (isnan(v->f)) {
		n = snprintf(buf, len, "-");
	} else {
		n = snprintf(buf, len, "%.*f", info->precision, v->f);
	}
	return n < 0 || (size_t)n >= len ? -ERANGE : 0;
}
