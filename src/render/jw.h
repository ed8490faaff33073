/*
 * pcie-telemetry: a streaming JSON writer with the layout of Python's
 * json.dumps(obj, indent=4) (private to src/render/).
 */
#ifndef PT_RENDER_JW_H
#define PT_RENDER_JW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 16

/* A streaming writer with json.dumps(indent=4) layout. */
struct jw {
	FILE *out;
	int depth;
	bool empty[JW_MAX_DEPTH]; /* no member written yet at this level */
	char close[JW_MAX_DEPTH];
	bool overflow;
};

/* A member (key != NULL) or an element (key == NULL) of the open level. */
void jw_open(struct jw *w, const char *key, char open); /* '{' or '[' */
void jw_close(struct jw *w);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_int(struct jw *w, const char *key, long long v);
void jw_bool(struct jw *w, const char *key, bool v);
/* repr(v); NaN and infinities as Python writes them */
void jw_double(struct jw *w, const char *key, double v);
/* repr(v), or null when v is not finite */
void jw_number(struct jw *w, const char *key, double v);
void jw_null(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *key, const char *s);

#endif
