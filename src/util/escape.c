/*
 * pcie-telemetry: control characters in messages (see pt_util.h).  The
 * one place that decides how an echoed argument or a piece of file
 * content looks in a message, so that every message stays one line.
 */
#include <stdio.h>
#include <string.h>

#include "util/pt_util.h"

char *pt_util_escape(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	size_t o = 0;

	if (dstlen == 0)
		return dst;
	for (size_t i = 0; i < srclen; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c < 0x20 || c == 0x7F) {
			if (o + 4 >= dstlen)
				break;
			snprintf(dst + o, dstlen - o, "\\x%02X", c);
			o += 4;
		} else {
			if (o + 1 >= dstlen)
				break;
			dst[o++] = (char)c;
		}
	}
	dst[o] = '\0';
	return dst;
}

char *pt_util_esc(char *dst, size_t dstlen, const char *s)
{
	return pt_util_escape(dst, dstlen, s ? s : "", s ? strlen(s) : 0);
}

void pt_util_oneline(char *msg, size_t msglen)
{
	char copy[4096];
	size_t len;

	if (!msg || msglen == 0)
		return;
	len = strnlen(msg, msglen);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)msg[i];

		if (c < 0x20 || c == 0x7F) {
			/* something to escape: from here on, through a copy */
			size_t n = len - i < sizeof(copy) ? len - i : sizeof(copy);

			memcpy(copy, msg + i, n);
			pt_util_escape(msg + i, msglen - i, copy, n);
			return;
		}
	}
	if (len == msglen)
		msg[msglen - 1] = '\0';
}
