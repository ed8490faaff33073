/*
 * pcie-telemetry: the simulated card's allocations, with a hook that makes
 * them fail for the tests of the -ENOMEM paths (env_priv.h).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "env/env_priv.h"

/* endpoint threads allocate too */
static _Atomic long fail_after = -1; /* successful allocations left, < 0: no limit */
static _Atomic unsigned long count;

void pte_alloc_fail_after(long n)
{
	atomic_store(&fail_after, n);
}

unsigned long pte_alloc_count(void)
{
	return atomic_load(&count);
}

/* 1 when this allocation may go ahead. */
static int allowed(void)
{
	long n = atomic_load(&fail_after);
	while (n > 0 && !atomic_compare_exchange_weak(&fail_after, &n, n - 1))
		;
	if (n == 0)
		return 0;
	atomic_fetch_add(&count, 1);
	return 1;
}

void *pte_calloc(size_t n, size_t size)
{
	return allowed() ? calloc(n, size) : NULL;
}

void *pte_realloc(void *p, size_t size)
{
	return allowed() ? realloc(p, size) : NULL;
}
