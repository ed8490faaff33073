/*
 * pcie-telemetry: the queues of the simulated card.
 *
 * reqq   requests waiting (at a DMA port, in the PTC's input buffer), as
 *        runs of equal requests: one kind, size and stride
 * fq     stored completions (storage FIFO, FIFOs towards a port), as runs
 *        of equal completions
 * evq    timed events (tags and header credits coming back, tags reaching
 *        the tag FIFO's read port), in time order
 * ents   the read groups in flight: a pool with a free list and a ring in order of
 *        the time their first completion arrives
 *
 * The ring buffers grow by doubling; a failed growth is -ENOMEM for the
 * caller to pass up (nothing here aborts).
 */
#ifndef PT_ENV_QUEUE_H
#define PT_ENV_QUEUE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* Completions of one size in a read group. */
#define MAX_RUNS_PER_ENT 8

struct cpl_run {
	uint32_t bytes, count;
};

/* Reads issued together; the host answers them after one latency draw. */
struct ent {
	int64_t t_arr;
	int64_t t_take;            /* when its tags were taken (truth: holding time) */
	uint32_t reads, tags, cplh, res_words;
	uint32_t frames, frames_done, tags_rel, cplh_rel; /* tags come back TLP by TLP */
	uint8_t port, nrun, cur;
	struct cpl_run run[MAX_RUNS_PER_ENT];
};

/* Every queue is a ring of elements: cap slots from head, n used; cap is
 * a power of two. */
static inline unsigned pte_ring_tail(unsigned head, unsigned n, unsigned cap)
{
	return (head + n - 1) & (cap - 1);
}

static inline void pte_ring_pop(unsigned *head, unsigned *n, unsigned cap)
{
	*head = (*head + 1) & (cap - 1);
	(*n)--;
}

/* ---- requests ---------------------------------------------------------- */

struct req {               /* requests of one kind, size and stride */
	uint8_t write, port;
	uint32_t size, stride;
	uint64_t count;
	uint64_t addr;
	uint32_t off;      /* bytes of the head request already sent */
	uint8_t alike;     /* rq.c: every request splits alike; 0 not known yet, 1 yes, 2 no */
};

struct reqq {
	struct req *q;
	unsigned cap, head, n;
	unsigned lim;         /* runs it holds at most (cap is lim rounded up) */
	uint64_t reqs, bytes; /* requests, write payload bytes */
};

int pte_reqq_init(struct reqq *q, unsigned cap);
void pte_reqq_fini(struct reqq *q);

static inline struct req *pte_reqq_head(struct reqq *q)
{
	return q->n ? &q->q[q->head] : NULL;
}

static inline void pte_reqq_pop(struct reqq *q)
{
	pte_ring_pop(&q->head, &q->n, q->cap);
}

/* Append k requests (merged with the tail when they continue it).  0, or
 * -ENOSPC when the queue of runs is full (its owner waits). */
static inline int pte_reqq_push(struct reqq *q, int write, unsigned port, uint32_t size,
				uint32_t stride, uint64_t addr, uint64_t k)
{
	if (k == 0)
		return 0;
	if (q->n) {
		struct req *t = &q->q[pte_ring_tail(q->head, q->n, q->cap)];
		if (t->write == write && t->port == port && t->size == size &&
		    t->stride == stride && t->addr + t->count * stride == addr) {
			t->count += k;
			q->reqs += k;
			if (write)
				q->bytes += k * size;
			return 0;
		}
	}
	if (q->n == q->lim)
		return -ENOSPC;
	struct req *r = &q->q[(q->head + q->n) & (q->cap - 1)];
	r->write = (uint8_t)write;
	r->port = (uint8_t)port;
	r->size = size;
	r->stride = stride;
	r->addr = addr;
	r->count = k;
	r->off = 0;
	r->alike = 0;
	q->n++;
	q->reqs += k;
	if (write)
		q->bytes += k * size;
	return 0;
}

/* ---- stored completions ------------------------------------------------- */

struct frun {              /* stored completions, in order */
	uint8_t port;
	uint32_t bytes;
	uint64_t count;
};

struct fq {
	struct frun *q;
	unsigned cap, head, n;
};

int pte_fq_init(struct fq *q, unsigned cap);
void pte_fq_fini(struct fq *q);
/* Append k completions of one port and size.  0 or -ENOMEM. */
int pte_fq_grow_push(struct fq *q, unsigned port, uint32_t bytes, uint64_t k);
static inline int pte_fq_push(struct fq *q, unsigned port, uint32_t bytes, uint64_t k)
{
	if (q->n) {
		struct frun *t = &q->q[pte_ring_tail(q->head, q->n, q->cap)];
		if (t->port == port && t->bytes == bytes) {
			t->count += k;
			return 0;
		}
	}
	if (q->n == q->cap)
		return pte_fq_grow_push(q, port, bytes, k);
	q->q[(q->head + q->n++) & (q->cap - 1)] = (struct frun){ (uint8_t)port, bytes, k };
	return 0;
}

static inline struct frun *pte_fq_head(struct fq *q)
{
	return &q->q[q->head];
}

static inline void pte_fq_pop(struct fq *q)
{
	pte_ring_pop(&q->head, &q->n, q->cap);
}

/* ---- timed events --------------------------------------------------------- */

struct ev {
	int64_t t;
	uint32_t tags, cplh;
};

struct evq {
	struct ev *q;
	unsigned cap, head, n;
	unsigned applied;     /* events from head that have happened (tag releases
			       * whose tags are not ready yet, see ptc.c) */
};

int pte_evq_init(struct evq *q, unsigned cap);
void pte_evq_fini(struct evq *q);
/* Append an event (times never decrease).  0 or -ENOMEM. */
int pte_evq_grow_push(struct evq *q, int64_t t, uint32_t tags, uint32_t cplh);
static inline int pte_evq_push(struct evq *q, int64_t t, uint32_t tags, uint32_t cplh)
{
	if (q->n == q->cap)
		return pte_evq_grow_push(q, t, tags, cplh);
	q->q[(q->head + q->n++) & (q->cap - 1)] = (struct ev){ t, tags, cplh };
	return 0;
}

/* Event i from the head (i < n). */
static inline struct ev *pte_evq_at(struct evq *q, unsigned i)
{
	return &q->q[(q->head + i) & (q->cap - 1)];
}

static inline struct ev *pte_evq_head(struct evq *q)
{
	return &q->q[q->head];
}

static inline void pte_evq_pop(struct evq *q)
{
	pte_ring_pop(&q->head, &q->n, q->cap);
}

/* ---- read groups in flight ------------------------------------------------ */

struct ents {
	struct ent *pool;
	unsigned cap;
	unsigned *freel, nfree;
	/* indices into pool by t_arr (those of equal t_arr in the order
	 * they came), a ring of rcap (a power of two) from rhead */
	unsigned *heap, nheap;
	unsigned rcap, rhead;
};

/* cap: the most groups ever in flight (each holds at least one tag). */
int pte_ents_init(struct ents *s, unsigned cap);
void pte_ents_fini(struct ents *s);

/* A free group's index, or -1 when all cap are in flight. */
static inline int pte_ents_get(struct ents *s)
{
	return s->nfree ? (int)s->freel[--s->nfree] : -1;
}

static inline void pte_ents_put(struct ents *s, unsigned i)
{
	s->freel[s->nfree++] = i;
}

/* The group that arrives first, or NULL. */
static inline const struct ent *pte_ents_first(const struct ents *s)
{
	return s->nheap ? &s->pool[s->heap[s->rhead]] : NULL;
}

/* Schedule group i by its t_arr (after those that arrive at the same
 * time: new groups mostly arrive last, so this is cheap); take out the
 * first one. */
static inline void pte_ents_push(struct ents *s, unsigned i)
{
	const unsigned m = s->rcap - 1;
	const int64_t t = s->pool[i].t_arr;
	unsigned k = s->nheap++;
	while (k && s->pool[s->heap[(s->rhead + k - 1) & m]].t_arr > t) {
		s->heap[(s->rhead + k) & m] = s->heap[(s->rhead + k - 1) & m];
		k--;
	}
	s->heap[(s->rhead + k) & m] = i;
}

static inline unsigned pte_ents_pop(struct ents *s)
{
	unsigned top = s->heap[s->rhead];
	s->rhead = (s->rhead + 1) & (s->rcap - 1);
	s->nheap--;
	return top;
}

#endif
