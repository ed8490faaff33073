/*
 * pcie-telemetry: a streaming JSON writer for the renderers: the layout of
 * Python's json.dumps(indent=4) for `-j` (report-format.md section 4), or
 * json.dumps(separators=(",", ":")) for JSON lines (docs/series.md).
 */
#include <inttypes.h>
#include <math.h>

#include "render/render_priv.h"

static void jw_indent(struct pt_jw *w, int depth)
{
	static const char spaces[] = "                                                                ";
	fwrite(spaces, 1, (size_t)(depth * 4), w->out);
}

void pt_jw_string(struct pt_jw *w, const char *s)
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

void pt_jw_member(struct pt_jw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->compact) {
			if (!w->empty[w->depth])
				fputc(',', w->out);
		} else {
			fputs(w->empty[w->depth] ? "\n" : ",\n", w->out);
			jw_indent(w, w->depth);
		}
		w->empty[w->depth] = false;
	}
	if (key) {
		pt_jw_string(w, key);
		fputs(w->compact ? ":" : ": ", w->out);
	}
}

void pt_jw_open(struct pt_jw *w, const char *key, char open)
{
	pt_jw_member(w, key);
	fputc(open, w->out);
	if (w->depth + 1 >= PT_JW_MAX_DEPTH) {
		w->overflow = true;
		return;
	}
	w->depth++;
	w->empty[w->depth] = true;
	w->close[w->depth] = open == '{' ? '}' : ']';
}

void pt_jw_close(struct pt_jw *w)
{
	if (w->depth == 0)
		return;
	if (!w->empty[w->depth] && !w->compact) {
		fputc('\n', w->out);
		jw_indent(w, w->depth - 1);
	}
	fputc(w->close[w->depth], w->out);
	w->depth--;
}

void pt_jw_u64(struct pt_jw *w, const char *key, uint64_t v)
{
	pt_jw_member(w, key);
	fprintf(w->out, "%" PRIu64, v);
}

void pt_jw_bool(struct pt_jw *w, const char *key, bool v)
{
	pt_jw_member(w, key);
	fputs(v ? "true" : "false", w->out);
}

void pt_jw_double(struct pt_jw *w, const char *key, double v)
{
	pt_jw_member(w, key);
	if (isnan(v)) {
		fputs(w->compact ? "null" : "NaN", w->out);
	} else if (isinf(v)) {
		fputs(w->compact ? "null" : v < 0 ? "-Infinity" : "Infinity", w->out);
	} else {
		char buf[64];
		pt_render_float_repr(v, buf, sizeof buf);
		fputs(buf, w->out);
	}
}

void pt_jw_null(struct pt_jw *w, const char *key)
{
	pt_jw_member(w, key);
	fputs("null", w->out);
}

void pt_jw_text(struct pt_jw *w, const char *key, const char *s)
{
	pt_jw_member(w, key);
	pt_jw_string(w, s);
}

void pt_jw_raw(struct pt_jw *w, const char *key, const char *json)
{
	pt_jw_member(w, key);
	fputs(json, w->out);
}
