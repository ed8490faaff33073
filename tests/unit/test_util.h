/*
 * Helpers shared by the cmocka programs (include after <cmocka.h>).
 */
#ifndef PT_TEST_UTIL_H
#define PT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whole file into memory (NUL-terminated); NULL when it cannot be opened.
 * *len (when len is not NULL) gets its length. */
static inline char *pt_test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = 2 * cap + 4096 + 1;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		got = fread(buf + n, 1, 4096, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

#endif
