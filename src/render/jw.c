/*
 * pcie-telemetry: the JSON writer of the renderers (jw.h).
 */
#include <inttypes.h>
#include <math.h>

#include "render/jw.h"
#include "render/render_priv.h"

static void jw_indent(struct jw *w, int depth)
{
	static const char spaces[] = "                                                                ";
	fwrite(spaces, 1, (size_t)(depth * 4), w->out);
}

static void jw_string(struct jw *w, const char *s)
{
	/* bus names and keys are plain ASCII: one write */
	size_t plain = 0;
	while (s[plain] >= 0x20 && s[plain] < 0x7f && s[plain] != '"' && s[plain] != '\\')
		plain++;
	if (s[plain] == '\0') {
		fputc('"', w->out);
		fwrite(s, 1, plain, w->out);
		fputc('"', w->out);
		return;
	}
	fputc('"', w->out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(w->out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", w->out);
		else if (*p == '\t')
			fputs("\\t", w->out);
		else if (*p == '\r')
			fputs("\\r", w->out);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(w->out, "\\u%04x", *p);
		else
			fputc(*p, w->out);
	}
	fputc('"', w->out);
}

/* Separator, indentation and key of the next member or element. */
static void jw_member(struct jw *w, const char *key)
{
	if (w->depth > 0) {
		fputs(w->empty[w->depth] ? "\n" : ",\n", w->out);
		w->empty[w->depth] = false;
		jw_indent(w, w->depth);
	}
	if (key) {
		jw_string(w, key);
		fputs(": ", w->out);
	}
}

void jw_open(struct jw *w, const char *key, char open)
{
	jw_member(w, key);
	fputc(open, w->out);
	if (w->depth + 1 >= JW_MAX_DEPTH) {
		w->overflow = true;
		return;
	}
	w->depth++;
	w->empty[w->depth] = true;
	w->close[w->depth] = open == '{' ? '}' : ']';
}

void jw_close(struct jw *w)
{
	if (w->depth == 0)
		return;
	if (!w->empty[w->depth]) {
		fputc('\n', w->out);
		jw_indent(w, w->depth - 1);
	}
	fputc(w->close[w->depth], w->out);
	w->depth--;
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_member(w, key);
	fprintf(w->out, "%" PRIu64, v);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_member(w, key);
	fputs(v ? "true" : "false", w->out);
}

void jw_double(struct jw *w, const char *key, double v)
{
	jw_member(w, key);
	if (isnan(v)) {
		fputs("NaN", w->out);
	} else if (isinf(v)) {
		fputs(v < 0 ? "-Infinity" : "Infinity", w->out);
	} else {
		char buf[64];
		pt_render_float_repr(v, buf, sizeof buf);
		fputs(buf, w->out);
	}
}

void jw_null(struct jw *w, const char *key)
{
	jw_member(w, key);
	fputs("null", w->out);
}


void jw_int(struct jw *w, const char *key, long long v)
{
	jw_member(w, key);
	fprintf(w->out, "%lld", v);
}

void jw_number(struct jw *w, const char *key, double v)
{
	if (isfinite(v))
		jw_double(w, key, v);
	else
		jw_null(w, key);
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_member(w, key);
	jw_string(w, s);
}
