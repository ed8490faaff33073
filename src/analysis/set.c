/*
 * pcie-telemetry: what a bound set tells its users: its instances and
 * families, lookups by name and by place, the selections of -M.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_priv.h"

void pt_metric_set_free(struct pt_metric_set *s)
{
	if (!s)
		return;
	free(s->fam);
	free(s->famp);
	free(s->info);
	free(s->inst);
	free(s->order);
	free(s->code);
	free(s->ints);
	free(s->flts);
	pt_strmap_free(&s->names);
	pt_scopes_free(&s->sc);
	pt_arena_free(&s->arena);
	free(s);
}

const struct pt_layout *pt_metric_layout(const struct pt_metric_set *s)
{
	return s ? &s->layout : NULL;
}

unsigned pt_metric_count(const struct pt_metric_set *s)
{
	return s ? s->n : 0;
}

const struct pt_metric_info *pt_metric_info(const struct pt_metric_set *s, unsigned i)
{
	return s && i < s->n ? &s->info[i] : NULL;
}

int pt_metric_find(const struct pt_metric_set *s, const char *name)
{
	uint32_t i;

	if (!s || !name || !pt_strmap_get(&s->names, name, strlen(name), &i))
		return -ENOENT;
	return (int)i;
}

unsigned pt_metric_family_count(const struct pt_metric_set *s)
{
	return s ? s->nfam : 0;
}

const struct pt_metric_family *pt_metric_family_info(const struct pt_metric_set *s, unsigned f)
{
	return s && f < s->nfam ? &s->fam[f] : NULL;
}

int pt_metric_family_find(const struct pt_metric_set *s, const char *name)
{
	if (!s || !name)
		return -ENOENT;
	for (unsigned f = 0; f < s->nfam; f++)
		if (strcmp(s->fam[f].name, name) == 0)
			return (int)f;
	return -ENOENT;
}

static int where_cmp(const struct pt_metric_where *a, const struct pt_metric_where *b)
{
	const int x[4] = { a->ep, a->bus, a->item, a->band };
	const int y[4] = { b->ep, b->bus, b->item, b->band };

	for (int k = 0; k < 4; k++)
		if (x[k] != y[k])
			return x[k] < y[k] ? -1 : 1;
	return 0;
}

int pt_metric_lookup(const struct pt_metric_set *s, unsigned f, const struct pt_metric_where *w)
{
	if (!s || !w || f >= s->nfam)
		return -ENOENT;
	/* a family's instances are in layout order, which is the order of
	 * their coordinates */
	unsigned lo = s->fam[f].first, hi = lo + s->fam[f].count;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		int c = where_cmp(&s->info[mid].where, w);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* Is word one of the ';'-separated groups? */
static bool in_groups(const char *groups, const char *word, size_t n)
{
	for (const char *g = groups; *g;) {
		size_t k = strcspn(g, ";");
		if (k == n && memcmp(g, word, n) == 0)
			return true;
		g += k;
		if (*g)
			g++;
	}
	return false;
}

/* Mark what one word of -M selects; how many it selects. */
static unsigned select_word(const struct pt_metric_set *s, const char *word, unsigned char *on)
{
	size_t n = strlen(word);
	bool pattern = strchr(word, '*') != NULL;
	unsigned hits = 0;

	for (unsigned i = 0; i < s->n; i++) {
		const struct pt_metric_info *in = &s->info[i];
		if (strcmp(in->name, word) == 0 || strcmp(in->family, word) == 0 ||
		    in_groups(in->groups, word, n) || (pattern && pt_counter_match(word, in->name))) {
			on[i] = 1;
			hits++;
		}
	}
	return hits;
}

int pt_metric_select(const struct pt_metric_set *s, const char *list, unsigned *idx, unsigned max,
		     char *msg, size_t msglen)
{
	if (!s || !list)
		return -EINVAL;
	unsigned char *on = calloc(s->n + 1, 1);
	char word[PT_METRIC_NAME_LEN + 1];
	int rc = 0;

	if (!on)
		return -ENOMEM;
	for (const char *p = list;; p++) {
		size_t k = strcspn(p, ",");
		const char *a = p, *e = p + k;
		while (a < e && *a == ' ')
			a++;
		while (e > a && e[-1] == ' ')
			e--;
		char shown[4 * PT_METRIC_NAME_LEN + 8];
		if (e == a) {
			rc = -EINVAL;
			if (msg && msglen)
				snprintf(msg, msglen, "metric '': an empty name in the list '%s'",
					 pt_shown(list, 100, shown, sizeof shown));
			break;
		}
		if ((size_t)(e - a) >= sizeof word) {
			rc = -EINVAL;
			if (msg && msglen)
				snprintf(msg, msglen, "metric '%s': no metric has so long a name",
					 pt_shown(a, 40, shown, sizeof shown));
			break;
		}
		memcpy(word, a, (size_t)(e - a));
		word[e - a] = '\0';
		if (select_word(s, word, on) == 0) {
			rc = -EINVAL;
			if (msg && msglen)
				snprintf(msg, msglen, "metric '%s': no such metric, family, group or "
						      "matching instance in this layout (--list shows them)",
					 pt_shown(word, PT_METRIC_NAME_LEN, shown, sizeof shown));
			break;
		}
		p += k;
		if (*p == '\0')
			break;
	}
	unsigned count = 0;
	for (unsigned i = 0; i < s->n && rc == 0; i++)
		if (on[i]) {
			if (idx && count < max)
				idx[count] = i;
			count++;
		}
	free(on);
	return rc ? rc : (int)count;
}
