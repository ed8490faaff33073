/*
 * pcie-telemetry: shared lexing helpers of the trace runners (see
 * trace_util.h).
 */
#include "model/trace_util.h"
#include "pcie_telemetry/trace.h"
#include "util/pt_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ptm_tu_init(struct ptm_tu_reader *r, FILE *in, const char *name, char *msg, size_t msglen)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->name = name ? name : "(trace)";
	r->msg = msg;
	r->msglen = msglen;
	r->max_line = PTM_TRACE_MAX_LINE;
	r->max_bytes = PTM_TRACE_MAX_BYTES;
}

void ptm_tu_fini(struct ptm_tu_reader *r)
{
	free(r->line);
	free(r->field);
	free(r->block);
	r->line = NULL;
	r->field = NULL;
	r->block = NULL;
	r->bpos = r->blen = 0;
	r->cap = 0;
	r->fcap = 0;
	r->nfield = 0;
}

static void vformat(char *msg, size_t msglen, const char *file, unsigned long line,
		    const char *field, const char *fmt, va_list ap)
{
	if (!msg || msglen == 0)
		return;
	int n;
	if (line)
		n = snprintf(msg, msglen, "%s:%lu: ", file ? file : "(trace)", line);
	else
		n = snprintf(msg, msglen, "%s: ", file ? file : "(trace)");
	if (n < 0 || (size_t)n >= msglen)
		return;
	size_t off = (size_t)n;
	if (field) {
		n = snprintf(msg + off, msglen - off, "field '%s': ", field);
		if (n < 0 || (size_t)n >= msglen - off)
			return;
		off += (size_t)n;
	}
	vsnprintf(msg + off, msglen - off, fmt, ap);
	pt_util_oneline(msg, msglen); /* a field may hold a control character */
}

int ptm_tu_errf(char *msg, size_t msglen, const char *file, unsigned long line, const char *field,
		const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vformat(msg, msglen, file, line, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int ptm_tu_err(const struct ptm_tu_reader *r, const char *field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vformat(r->msg, r->msglen, r->name, r->lineno, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int push_field(struct ptm_tu_reader *r, char *f)
{
	if (r->nfield == r->fcap) {
		unsigned ncap = r->fcap ? 2 * r->fcap : 32;
		char **nf = realloc(r->field, ncap * sizeof(*nf));
		if (!nf) {
			ptm_tu_err(r, NULL, "out of memory");
			return -ENOMEM;
		}
		r->field = nf;
		r->fcap = ncap;
	}
	r->field[r->nfield++] = f;
	return 0;
}

#define BLOCK_BYTES 65536u

/* More of the stream into r->block: 1, 0 at its end, or an error. */
static int refill(struct ptm_tu_reader *r)
{
	if (!r->block && !(r->block = malloc(BLOCK_BYTES)))
		return ptm_tu_errf(r->msg, r->msglen, r->name, r->lineno + 1, NULL, "out of memory"),
		       -ENOMEM;
	errno = 0;
	r->bpos = 0;
	r->blen = fread(r->block, 1, BLOCK_BYTES, r->in);
	if (r->blen == 0) {
		if (!ferror(r->in))
			return 0;
		int e = errno ? errno : EIO;
		ptm_tu_errf(r->msg, r->msglen, r->name, r->lineno + 1, NULL, "read error: %s",
			    strerror(e));
		return -e;
	}
	r->bytes += r->blen;
	if (r->bytes > r->max_bytes)
		return ptm_tu_errf(r->msg, r->msglen, r->name, r->lineno + 1, NULL,
				   "the trace is longer than %" PRIu64 " bytes", r->max_bytes);
	return 1;
}

/* Room for len + more + 1 bytes in r->line. */
static int line_room(struct ptm_tu_reader *r, size_t need)
{
	if (need <= r->cap)
		return 0;
	size_t ncap = r->cap ? r->cap : 256;
	while (ncap < need)
		ncap *= 2;
	char *n = realloc(r->line, ncap);
	if (!n)
		return ptm_tu_errf(r->msg, r->msglen, r->name, r->lineno + 1, NULL, "out of memory"),
		       -ENOMEM;
	r->line = n;
	r->cap = ncap;
	return 0;
}

/* The next line into r->line, without its LF: its length in *len; 0 at
 * the end of the stream, 1 for a line, or an error.  Never holds more
 * than max_line + 1 characters (a CR may end the line). */
static int read_line(struct ptm_tu_reader *r, size_t *len)
{
	int any = 0, rc;
	*len = 0;
	for (;;) {
		if (r->bpos == r->blen) {
			if ((rc = refill(r)) < 0)
				return rc;
			if (rc == 0)
				break;
		}
		any = 1;
		const char *s = r->block + r->bpos;
		const char *nl = memchr(s, '\n', r->blen - r->bpos);
		size_t take = nl ? (size_t)(nl - s) : r->blen - r->bpos;
		if (*len + take > r->max_line + 1)
			return ptm_tu_errf(r->msg, r->msglen, r->name, r->lineno + 1, NULL,
					   "line longer than %zu characters", r->max_line);
		if ((rc = line_room(r, *len + take + 1)) < 0)
			return rc;
		memcpy(r->line + *len, s, take);
		*len += take;
		r->bpos += take + (nl != NULL);
		if (nl)
			break;
	}
	if (!any)
		return 0;
	r->line[*len] = '\0';
	if (*len > r->max_line && r->line[*len - 1] != '\r')
		return ptm_tu_errf(r->msg, r->msglen, r->name, r->lineno + 1, NULL,
				   "line longer than %zu characters", r->max_line);
	return 1;
}

int ptm_tu_next(struct ptm_tu_reader *r)
{
	for (;;) {
		size_t len;
		int rc = read_line(r, &len);
		if (rc <= 0)
			return rc;
		r->lineno++;
		if (memchr(r->line, '\0', len))
			return ptm_tu_err(r, NULL, "NUL byte in line");
		char *hash = strchr(r->line, '#');
		if (hash)
			*hash = '\0';
		r->nfield = 0;
		char *p = r->line;
		for (;;) {
			while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
				p++;
			if (!*p)
				break;
			char *start = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
				p++;
			int end = !*p;
			*p = '\0';
			rc = push_field(r, start);
			if (rc)
				return rc;
			if (end)
				break;
			p++;
		}
		if (r->nfield)
			return 1;
	}
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int reason(char *why, size_t whylen, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static int reason(char *why, size_t whylen, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *printable(int c, char *buf)
{
	if (c > 0x20 && c < 0x7f) {
		buf[0] = (char)c;
		buf[1] = '\0';
	} else {
		snprintf(buf, 8, "\\x%02x", (unsigned)(unsigned char)c);
	}
	return buf;
}

int ptm_tu_hex_parse(const char *s, unsigned width, struct ptm_tu_hex *v, char *why, size_t whylen)
{
	char cb[8];
	if (!s || !*s)
		return reason(why, whylen, "empty value");
	if (width > PTM_TU_HEX_MAX_BITS)
		width = PTM_TU_HEX_MAX_BITS;
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		if (hexval((unsigned char)s[i]) < 0)
			return reason(why, whylen, "'%s' in '%.40s' is not a hex digit",
				      printable((unsigned char)s[i], cb), s);
	/* Skip leading zeros, then the significant digits give the width. */
	size_t lead = 0;
	while (lead < n && s[lead] == '0')
		lead++;
	size_t sig = n - lead;
	uint64_t bits = 0;
	if (sig) {
		int top = hexval((unsigned char)s[lead]);
		unsigned tb = top >= 8 ? 4 : top >= 4 ? 3 : top >= 2 ? 2 : 1;
		bits = (uint64_t)(sig - 1) * 4 + tb;
	}
	if (bits > width)
		return reason(why, whylen, "value %.40s%s is wider than %u bit%s", s,
			      n > 40 ? "..." : "", width, width == 1 ? "" : "s");
	unsigned nl = (unsigned)((bits + 63) / 64);
	v->nlimb = nl;
	for (unsigned i = 0; i < nl; i++)
		v->limb[i] = 0;
	/* Digit k from the right is bits [4k, 4k+4). */
	for (size_t k = 0; k < sig; k++) {
		uint64_t d = (uint64_t)hexval((unsigned char)s[n - 1 - k]);
		v->limb[(4 * k) / 64] |= d << ((4 * k) % 64);
	}
	return 0;
}

uint64_t ptm_tu_hex_get(const struct ptm_tu_hex *v, unsigned lo, unsigned width)
{
	if (width == 0)
		return 0;
	unsigned li = lo / 64, sh = lo % 64;
	uint64_t x = li < v->nlimb ? v->limb[li] >> sh : 0;
	if (sh && li + 1 < v->nlimb)
		x |= v->limb[li + 1] << (64 - sh);
	if (width < 64)
		x &= (UINT64_C(1) << width) - 1;
	return x;
}

int ptm_tu_hex_is_zero(const struct ptm_tu_hex *v)
{
	for (unsigned i = 0; i < v->nlimb; i++)
		if (v->limb[i])
			return 0;
	return 1;
}

int ptm_tu_hex_str(const struct ptm_tu_reader *r, const char *s, const char *fname, unsigned width,
		   struct ptm_tu_hex *v)
{
	char why[160];
	if (ptm_tu_hex_parse(s, width, v, why, sizeof(why)))
		return ptm_tu_err(r, fname, "%s", why);
	return 0;
}

int ptm_tu_hex_field(const struct ptm_tu_reader *r, unsigned idx, const char *fname, unsigned width,
		     struct ptm_tu_hex *v)
{
	if (idx >= r->nfield)
		return ptm_tu_err(r, fname, "missing");
	return ptm_tu_hex_str(r, r->field[idx], fname, width, v);
}

int ptm_tu_hex64_str(const struct ptm_tu_reader *r, const char *s, const char *fname, unsigned width,
		     uint64_t *out)
{
	struct ptm_tu_hex v;
	if (width > 64)
		width = 64;
	int rc = ptm_tu_hex_str(r, s, fname, width, &v);
	if (rc)
		return rc;
	*out = ptm_tu_hex_get(&v, 0, 64);
	return 0;
}

int ptm_tu_dec_parse(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
		     size_t whylen)
{
	char cb[8];
	if (!s || !*s)
		return reason(why, whylen, "empty value");
	uint64_t x = 0;
	int big = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return reason(why, whylen, "'%s' in '%.40s' is not a decimal digit",
				      printable((unsigned char)*p, cb), s);
		unsigned d = (unsigned)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			big = 1;
		else
			x = x * 10 + d;
	}
	if (big || x < min || x > max)
		return reason(why, whylen, "%.40s is out of range %llu..%llu", s,
			      (unsigned long long)min, (unsigned long long)max);
	*out = x;
	return 0;
}

int ptm_tu_dec_str(const struct ptm_tu_reader *r, const char *s, const char *fname, uint64_t min,
		   uint64_t max, uint64_t *out)
{
	char why[160];
	if (ptm_tu_dec_parse(s, min, max, out, why, sizeof(why)))
		return ptm_tu_err(r, fname, "%s", why);
	return 0;
}

int ptm_tu_dec_field(const struct ptm_tu_reader *r, unsigned idx, const char *fname, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	if (idx >= r->nfield)
		return ptm_tu_err(r, fname, "missing");
	return ptm_tu_dec_str(r, r->field[idx], fname, min, max, out);
}

int ptm_tu_expect(const struct ptm_tu_reader *r, const char *keyword, int nargs)
{
	if (r->nfield == 0 || strcmp(r->field[0], keyword) != 0)
		return ptm_tu_err(r, NULL, "expected '%s', found '%.40s'", keyword,
				  r->nfield ? r->field[0] : "");
	unsigned have = r->nfield - 1;
	if (nargs < 0) {
		if (have == 0)
			return ptm_tu_err(r, keyword, "needs at least one value");
	} else if (have != (unsigned)nargs) {
		return ptm_tu_err(r, keyword, "needs %d value%s, found %u", nargs,
				  nargs == 1 ? "" : "s", have);
	}
	return 0;
}

int ptm_tu_split_kv(const struct ptm_tu_reader *r, char *field, char **key, char **value)
{
	char *eq = strchr(field, '=');
	if (!eq || eq == field)
		return ptm_tu_err(r, NULL, "field '%.40s': expected key=value", field);
	*eq = '\0';
	*key = field;
	*value = eq + 1;
	return 0;
}
