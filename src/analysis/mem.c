/*
 * pcie-telemetry: the metric engine's memory: an arena whose blocks never
 * move (a bound set hands out pointers into it), a string map with open
 * addressing, and the one growth rule of its arrays.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_priv.h"
#include "util/pt_util.h"

#define BLOCK 65536u

struct pt_arena_block {
	struct pt_arena_block *next;
	size_t size;
	_Alignas(16) unsigned char data[];
};

void *pt_arena_alloc(struct pt_arena *a, size_t n)
{
	n = (n + 15u) & ~(size_t)15u;
	if (!a->head || a->used + n > a->head->size) {
		size_t size = n > BLOCK ? n : BLOCK;
		struct pt_arena_block *b = malloc(sizeof *b + size);

		if (!b)
			return NULL;
		b->size = size;
		b->next = a->head;
		a->head = b;
		a->used = 0;
	}
	void *p = a->head->data + a->used;
	a->used += n;
	return p;
}

char *pt_arena_strndup(struct pt_arena *a, const char *s, size_t n)
{
	char *p = pt_arena_alloc(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void pt_arena_free(struct pt_arena *a)
{
	while (a->head) {
		struct pt_arena_block *b = a->head;

		a->head = b->next;
		free(b);
	}
	a->used = 0;
}

const char *pt_shown(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = strlen(s), o;

	pt_util_escape(buf, len > 4 ? len - 3 : len, s, n < max ? n : max);
	o = strlen(buf);
	if (n > max && o + 4 <= len)
		memcpy(buf + o, "...", 4);
	return buf;
}

bool pt_grow(void **p, size_t *cap, size_t need, size_t elem, size_t max)
{
	if (need <= *cap)
		return true;
	if (need > max)
		return false;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	if (c > max)
		c = max;
	void *q = realloc(*p, c * elem);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

long pt_push(void **p, size_t *n, size_t *cap, const void *v, size_t elem, size_t max)
{
	if (!pt_grow(p, cap, *n + 1, elem, max))
		return -1;
	memcpy((char *)*p + *n * elem, v, elem);
	return (long)(*n)++;
}

/* FNV-1a */
static uint32_t hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static bool same(const char *key, const char *s, size_t len)
{
	return strncmp(key, s, len) == 0 && key[len] == '\0';
}

static int rehash(struct pt_strmap *m, uint32_t cap)
{
	const char **keys = calloc(cap, sizeof *keys);
	uint32_t *vals = calloc(cap, sizeof *vals), *hashes = calloc(cap, sizeof *hashes);

	if (!keys || !vals || !hashes) {
		free(keys);
		free(vals);
		free(hashes);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		uint32_t j = m->hashes[i] & (cap - 1);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
		hashes[j] = m->hashes[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->hashes);
	m->keys = keys;
	m->vals = vals;
	m->hashes = hashes;
	m->cap = cap;
	return 0;
}

int pt_strmap_reserve(struct pt_strmap *m, size_t n)
{
	uint32_t cap = m->cap ? m->cap : 64;

	if (n > UINT32_MAX / 4)
		return -ENOMEM;
	while (cap < 2 * n)
		cap *= 2;
	return cap == m->cap ? 0 : rehash(m, cap);
}

int pt_strmap_put(struct pt_strmap *m, const char *key, uint32_t val, uint32_t *old)
{
	size_t len = strlen(key);
	uint32_t h = hash(key, len);

	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64) < 0)
		return -ENOMEM;
	uint32_t j = h & (m->cap - 1);
	while (m->keys[j]) {
		if (m->hashes[j] == h && same(m->keys[j], key, len)) {
			if (old)
				*old = m->vals[j];
			return -EEXIST;
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[j] = key;
	m->vals[j] = val;
	m->hashes[j] = h;
	m->n++;
	return 0;
}

bool pt_strmap_get(const struct pt_strmap *m, const char *key, size_t len, uint32_t *val)
{
	if (m->cap == 0)
		return false;
	uint32_t h = hash(key, len), j = h & (m->cap - 1);
	while (m->keys[j]) {
		if (m->hashes[j] == h && same(m->keys[j], key, len)) {
			*val = m->vals[j];
			return true;
		}
		j = (j + 1) & (m->cap - 1);
	}
	return false;
}

void pt_strmap_free(struct pt_strmap *m)
{
	free(m->keys);
	free(m->vals);
	free(m->hashes);
	memset(m, 0, sizeof *m);
}
