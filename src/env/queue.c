/*
 * pcie-telemetry: the queues of the simulated card (see queue.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_priv.h"
#include "env/queue.h"

/*
 * Double a ring buffer of `n` elements of `size` bytes that starts at
 * `*head`, copying them to the front of the new buffer (head becomes 0).
 * Every queue of the card grows this way.  0 or -ENOMEM (nothing changed).
 */
static int ring_grow(void **buf, unsigned *cap, unsigned *head, unsigned n, size_t size)
{
	unsigned nc = *cap * 2, first = *cap - *head < n ? *cap - *head : n;
	char *nb = pte_calloc(nc, size);

	if (!nb)
		return -ENOMEM;
	memcpy(nb, (char *)*buf + (size_t)*head * size, (size_t)first * size);
	memcpy(nb + (size_t)first * size, *buf, (size_t)(n - first) * size);
	free(*buf);
	*buf = nb;
	*cap = nc;
	*head = 0;
	return 0;
}

/* An empty ring of `want` zeroed elements (at least one), rounded up to a
 * power of two. */
static int ring_init(void **buf, unsigned *cap, unsigned *head, unsigned *n, unsigned want,
		     size_t size)
{
	*cap = 1;
	while (*cap < want)
		*cap *= 2;
	*head = *n = 0;
	*buf = pte_calloc(*cap, size);
	return *buf ? 0 : -ENOMEM;
}

/* Room for one more element at the tail of a ring of n: a full ring
 * grows.  0 or -ENOMEM (the ring as it was). */
static int ring_room(void **buf, unsigned *cap, unsigned *head, unsigned n, size_t size)
{
	return n < *cap ? 0 : ring_grow(buf, cap, head, n, size);
}

int pte_reqq_init(struct reqq *q, unsigned cap)
{
	void *b;
	int rc = ring_init(&b, &q->cap, &q->head, &q->n, cap, sizeof(*q->q));

	q->q = b;
	q->lim = cap ? cap : 1;
	q->reqs = q->bytes = 0;
	return rc;
}

void pte_reqq_fini(struct reqq *q)
{
	free(q->q);
	q->q = NULL;
}

int pte_fq_init(struct fq *q, unsigned cap)
{
	void *b;
	int rc = ring_init(&b, &q->cap, &q->head, &q->n, cap, sizeof(*q->q));

	q->q = b;
	return rc;
}

void pte_fq_fini(struct fq *q)
{
	free(q->q);
	q->q = NULL;
}

int pte_fq_grow_push(struct fq *q, unsigned port, uint32_t bytes, uint64_t k)
{
	void *b = q->q;
	int rc = ring_room(&b, &q->cap, &q->head, q->n, sizeof(*q->q));
	q->q = b;
	if (rc)
		return rc;
	q->q[(q->head + q->n++) & (q->cap - 1)] = (struct frun){ (uint8_t)port, bytes, k };
	return 0;
}

int pte_evq_init(struct evq *q, unsigned cap)
{
	void *b;
	int rc = ring_init(&b, &q->cap, &q->head, &q->n, cap, sizeof(*q->q));

	q->q = b;
	q->applied = 0;
	return rc;
}

void pte_evq_fini(struct evq *q)
{
	free(q->q);
	q->q = NULL;
}

int pte_evq_grow_push(struct evq *q, int64_t t, uint32_t tags, uint32_t cplh)
{
	void *b = q->q;
	int rc = ring_room(&b, &q->cap, &q->head, q->n, sizeof(*q->q));
	q->q = b;
	if (rc)
		return rc;
	q->q[(q->head + q->n++) & (q->cap - 1)] = (struct ev){ t, tags, cplh };
	return 0;
}

/* ---- read groups in flight ------------------------------------------------ */

int pte_ents_init(struct ents *s, unsigned cap)
{
	memset(s, 0, sizeof(*s));
	s->rcap = 1;
	while (s->rcap < cap)
		s->rcap *= 2;
	s->pool = pte_calloc(cap, sizeof(*s->pool));
	s->freel = pte_calloc(cap, sizeof(*s->freel));
	s->heap = pte_calloc(s->rcap, sizeof(*s->heap));
	if (!s->pool || !s->freel || !s->heap)
		return -ENOMEM;
	s->cap = cap;
	for (unsigned i = 0; i < cap; i++)
		s->freel[s->nfree++] = cap - 1 - i;
	return 0;
}

void pte_ents_fini(struct ents *s)
{
	free(s->pool);
	free(s->freel);
	free(s->heap);
	memset(s, 0, sizeof(*s));
}
