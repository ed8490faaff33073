/*
 * pcie-telemetry: the sizes of the caches of the simulated card and the
 * model (private to src/).
 *
 * A cache only remembers what can be computed again, so no result may
 * depend on its size.  The tests build the card and the model a second
 * time with PT_TINY_CACHES defined (tests/CMakeLists.txt), every cache
 * at its smallest, so that entries give way at nearly every lookup, and
 * want the same results from both (test_env_caches).
 */
#ifndef PT_UTIL_CACHE_H
#define PT_UTIL_CACHE_H

/* n entries, or `tiny` in the test build. */
#ifdef PT_TINY_CACHES
#define PT_CACHE_SIZE(n, tiny) (tiny)
#else
#define PT_CACHE_SIZE(n, tiny) (n)
#endif

#endif
