/*
 * pcie-telemetry: the simulated card's allocations, with a hook that makes
 * them fail for the tests of the -ENOMEM paths (env_priv.h).
 */
#include <stdlib.h>

#include "env/env_priv.h"

static long fail_after = -1; /* successful allocations left, < 0: no limit */
static unsigned long count;

void pte_alloc_fail_after(long n)
{
	fail_after = n;
}

unsigned long pte_alloc_count(void)
{
	return count;
}

/* 1 when this allocation may go ahead. */
static int allowed(void)
{
	if (fail_after == 0)
		return 0;
	if (fail_after > 0)
		fail_after--;
	count++;
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
