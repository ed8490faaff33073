/* Small helpers shared by the model's files (not part of the API). */
#ifndef PTM_UTIL_H
#define PTM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Smallest a with 2^a >= n (log2c(0) = log2c(1) = 0), as the RTL's log2. */
unsigned ptm_log2c(uint64_t n);

/* Format a one-line message into the caller's buffer; returns -EINVAL,
 * the code of every rejected generic. */
int ptm_einval(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
