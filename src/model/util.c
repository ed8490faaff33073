#include "model/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

unsigned ptm_log2c(uint64_t n)
{
	unsigned a = 0;

	while (a < 64 && ((uint64_t)1 << a) < n)
		a++;
	return a;
}

int ptm_einval(char *msg, size_t msglen, const char *fmt, ...)
{
	if (msg && msglen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}
