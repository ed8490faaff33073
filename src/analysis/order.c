/*
 * pcie-telemetry: the order in which a set's instances are evaluated:
 * every metric after the metrics it uses (a depth-first walk, without
 * recursion, so a long chain of metrics cannot exhaust the stack), and a
 * cycle among them refused with its path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_priv.h"

enum { WHITE, GRAY, BLACK };

/* "a -> b -> a": the instances on the walk's stack from w on. */
static void cycle_message(const struct pt_metric_set *s, const uint32_t *stack, size_t depth,
			  uint32_t w, char *msg, size_t msglen)
{
	const struct pt_metric_info *in = &s->info[w];
	const struct pt_def *d = s->famp[in->family_index].def;
	size_t from = depth;
	int o;

	while (from > 0 && stack[from - 1] != w)
		from--;
	from = from ? from - 1 : 0;
	if (strcmp(in->name, in->family) == 0)
		o = snprintf(msg, msglen, "%s:%u: metric '%s': a cycle: ", d->origin, d->line,
			     in->name);
	else
		o = snprintf(msg, msglen, "%s:%u: metric '%s' (%s): a cycle: ", d->origin, d->line,
			     in->family, in->name);
	for (size_t i = from; i < depth && o >= 0 && (size_t)o < msglen; i++)
		o += snprintf(msg + o, msglen - (size_t)o, "%s -> ", s->info[stack[i]].name);
	if (o >= 0 && (size_t)o < msglen)
		snprintf(msg + o, msglen - (size_t)o, "%s", in->name);
}

int pt_order(struct pt_metric_set *s, const uint32_t *dep_at, const uint32_t *deps, char *msg,
	     size_t msglen)
{
	size_t n = s->n, m = 0, depth = 0;
	unsigned char *color = calloc(n + 1, 1);
	uint32_t *stack = malloc((n + 1) * sizeof *stack), *next = malloc((n + 1) * sizeof *next);
	int rc = 0;

	s->order = malloc((n + 1) * sizeof *s->order);
	if (!color || !stack || !next || !s->order) {
		rc = -ENOMEM;
		if (msg && msglen)
			snprintf(msg, msglen, "out of memory");
		goto out;
	}
	for (uint32_t r = 0; r < n && rc == 0; r++) {
		if (color[r] != WHITE)
			continue;
		color[r] = GRAY;
		stack[depth] = r;
		next[depth++] = dep_at[r];
		while (depth && rc == 0) {
			uint32_t v = stack[depth - 1];
			if (next[depth - 1] == dep_at[v + 1]) {
				color[v] = BLACK;
				s->order[m++] = v;
				depth--;
				continue;
			}
			uint32_t w = deps[next[depth - 1]++];
			if (color[w] == GRAY) {
				rc = -EINVAL;
				if (msg && msglen)
					cycle_message(s, stack, depth, w, msg, msglen);
			} else if (color[w] == WHITE) {
				color[w] = GRAY;
				stack[depth] = w;
				next[depth++] = dep_at[w];
			}
		}
	}
out:
	free(color);
	free(stack);
	free(next);
	return rc;
}
