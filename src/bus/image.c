/*
 * pcie-telemetry: the "image" backend, replay of a register image file
 * (docs: shared/spec/register-image.md).
 *
 * The parser is strict: a file that breaks any rule of the grammar is
 * rejected with "FILE:LINE: what is wrong", because a silently misread
 * image would produce a report that looks valid and is not.
 *
 * Storage: every image is a run of (offset, value) pairs sorted by offset
 * inside one array shared by all images; reads are binary searches.  A
 * file of N register lines costs 8 N bytes whatever the offsets are.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/backend.h"
#include "util/pt_util.h"

#define IMG_MAGIC_WORD "pcie-telemetry-regs"
#define IMG_FORMAT_VERSION "1"
#define IMG_SLOTS (PT_COMP_SPAN / 4u)
/* Far above any recording (one image of 16 endpoints is < 200 KiB), far
 * below what would hurt; checked against the file's size before it is
 * read (docs/tool.md states both limits). */
#define IMG_MAX_BYTES (1024u << 20)
/* Characters of a line, the line end not counted: register lines are
 * short, and a recording's header comments are cut to fit. */
#define IMG_MAX_LINE 4096u

struct img_reg {
	uint32_t off;
	uint32_t val;
	uint32_t line; /* for the message about a duplicate */
};

struct img_image {
	double time;
	size_t first, count; /* run in img_priv.regs */
	unsigned line;       /* line of its @snapshot */
};

struct img_priv {
	char *path;
	struct img_reg *regs;
	size_t nregs, capregs;
	struct img_image *images;
	size_t nimages, capimages;
	size_t cur;       /* image the reads come from */
	size_t snapshots; /* SNAPSHOT commands seen */
};

/* ---------------------------------------------------------------- parser */

struct parser {
	const char *name;
	struct img_priv *p;
	unsigned line;
	char *msg;
	size_t msglen;
	/* offsets of the current image, one bit each (2 KiB, where a table
	 * of line numbers would cost page faults at every start) */
	uint64_t seen[IMG_SLOTS / 64];
};

static int perr(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(struct parser *ps, const char *fmt, ...)
{
	char what[PT_BUS_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (ps->msg && ps->msglen)
		snprintf(ps->msg, ps->msglen, "%s:%u: %s", ps->name, ps->line, what);
	return -EINVAL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	return (unsigned)(c - 'A' + 10);
}

/* A printable copy of a token for messages (at most 40 characters). */
static const char *shown(const char *tok, size_t len, char *buf, size_t buflen)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 5 < buflen; i++) {
		unsigned char c = (unsigned char)tok[i];

		if (i == 40) {
			o += (size_t)snprintf(buf + o, buflen - o, "...");
			break;
		}
		if (c >= 0x20 && c < 0x7F)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, buflen - o, "\\x%02X", c);
	}
	buf[o < buflen ? o : buflen - 1] = '\0';
	return buf;
}

/* HEX = ["0x"|"0X"] 1*8 hex digits.  Returns 0, or -1 (not hex), or -2
 * (more than 8 digits: does not fit in 32 bits). */
static int parse_hex(const char *tok, size_t len, uint32_t *out)
{
	size_t i = 0;
	uint32_t v = 0;

	if (len >= 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X'))
		i = 2;
	if (i == len)
		return -1;
	for (size_t j = i; j < len; j++)
		if (!is_hex(tok[j]))
			return -1;
	if (len - i > 8)
		return -2;
	for (; i < len; i++)
		v = (v << 4) | hex_val(tok[i]);
	*out = v;
	return 0;
}

/* SECONDS = DIGITS ["." DIGITS], converted as strtod does.  Returns 0, -1
 * (not that form), -2 (not a finite double) or -ENOMEM. */
static int parse_seconds(const char *tok, size_t len, double *out)
{
	size_t i = 0, digits = 0;
	char small[64], *buf;

	while (i < len && tok[i] >= '0' && tok[i] <= '9')
		i++, digits++;
	if (digits == 0)
		return -1;
	if (i < len && tok[i] == '.') {
		size_t frac = 0;

		i++;
		while (i < len && tok[i] >= '0' && tok[i] <= '9')
			i++, frac++;
		if (frac == 0)
			return -1;
	}
	if (i != len)
		return -1;
	/* The grammar sets no length, and every digit can matter to the
	 * rounding: a long one gets a copy of its own. */
	buf = len < sizeof(small) ? small : malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	*out = strtod(buf, NULL);
	if (buf != small)
		free(buf);
	return isfinite(*out) ? 0 : -2;
}

static int push_reg(struct img_priv *p, uint32_t off, uint32_t val, unsigned line)
{
	if (p->nregs == p->capregs) {
		size_t cap = p->capregs ? 2 * p->capregs : 256;
		struct img_reg *n = realloc(p->regs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->regs = n;
		p->capregs = cap;
	}
	p->regs[p->nregs].off = off;
	p->regs[p->nregs].val = val;
	p->regs[p->nregs].line = line;
	p->nregs++;
	return 0;
}

static int push_image(struct img_priv *p, double t, unsigned line)
{
	if (p->nimages == p->capimages) {
		size_t cap = p->capimages ? 2 * p->capimages : 8;
		struct img_image *n = realloc(p->images, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->images = n;
		p->capimages = cap;
	}
	p->images[p->nimages].time = t;
	p->images[p->nimages].first = p->nregs;
	p->images[p->nimages].count = 0;
	p->images[p->nimages].line = line;
	p->nimages++;
	return 0;
}

static int cmp_reg(const void *a, const void *b)
{
	const struct img_reg *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/* Close the current image: sort its run and forget its offsets. */
static void end_image(struct parser *ps)
{
	struct img_priv *p = ps->p;
	struct img_image *im;

	if (p->nimages == 0)
		return;
	im = &p->images[p->nimages - 1];
	im->count = p->nregs - im->first;
	for (size_t i = im->first; i < p->nregs; i++)
		ps->seen[p->regs[i].off / 256u] = 0;
	if (im->count > 1)
		qsort(p->regs + im->first, im->count, sizeof(*p->regs), cmp_reg);
}

/* Split a line (comment and surrounding blanks already removed) into at
 * most 3 tokens; returns how many there are (3 means "3 or more"). */
static unsigned tokenize(const char *s, size_t len, const char *tok[3], size_t tlen[3])
{
	unsigned n = 0;
	size_t i = 0;

	while (i < len && n < 3) {
		size_t start;

		while (i < len && is_blank(s[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !is_blank(s[i]))
			i++;
		tok[n] = s + start;
		tlen[n] = i - start;
		n++;
	}
	return n;
}

/* The tokens of one line: at most 3 are kept (3 means "3 or more"). */
struct line {
	const char *s; /* the whole line, comment and surrounding blanks removed */
	size_t len;
	const char *tok[3];
	size_t tlen[3];
	unsigned n;
};

static int parse_magic_line(struct parser *ps, const struct line *ln)
{
	static const char magic[] = IMG_MAGIC_WORD " " IMG_FORMAT_VERSION;
	char b1[200];

	if (ln->len == sizeof(magic) - 1 && memcmp(ln->s, magic, ln->len) == 0)
		return 0;
	if (ln->n == 0)
		return perr(ps, "the first line must be '" IMG_MAGIC_WORD " " IMG_FORMAT_VERSION
			    "' (found an empty line)");
	if (ln->n == 2 && ln->tlen[0] == strlen(IMG_MAGIC_WORD) &&
	    memcmp(ln->tok[0], IMG_MAGIC_WORD, ln->tlen[0]) == 0) {
		if (ln->tlen[1] == 1 && ln->tok[1][0] == '1')
			return perr(ps, "the first line must be exactly '" IMG_MAGIC_WORD " "
				    IMG_FORMAT_VERSION "', one space between the words, found '%s'",
				    shown(ln->s, ln->len, b1, sizeof(b1)));
		return perr(ps, "unsupported format version '%s' (this reader knows version "
			    IMG_FORMAT_VERSION ")",
			    shown(ln->tok[1], ln->tlen[1], b1, sizeof(b1)));
	}
	return perr(ps, "not a register image: the first line must be '" IMG_MAGIC_WORD
		    " " IMG_FORMAT_VERSION "', found '%s'",
		    shown(ln->s, ln->len, b1, sizeof(b1)));
}

static int parse_snapshot_line(struct parser *ps, const struct line *ln)
{
	struct img_priv *p = ps->p;
	char b1[200];
	double t;
	int rc;

	if (ln->tlen[0] != 9 || memcmp(ln->tok[0], "@snapshot", 9) != 0)
		return perr(ps, "unknown directive '%s' (only @snapshot exists)",
			    shown(ln->tok[0], ln->tlen[0], b1, sizeof(b1)));
	if (ln->n != 2)
		return perr(ps, "@snapshot takes one value, the time in seconds (%s)",
			    ln->n < 2 ? "missing" : "extra field");
	rc = parse_seconds(ln->tok[1], ln->tlen[1], &t);
	if (rc == -1)
		return perr(ps, "bad time '%s' after @snapshot (expected decimal seconds "
			    "such as 12 or 12.345, no sign, no exponent)",
			    shown(ln->tok[1], ln->tlen[1], b1, sizeof(b1)));
	if (rc == -ENOMEM)
		return perr(ps, "out of memory");
	if (rc < 0)
		return perr(ps, "time '%s' after @snapshot is out of range",
			    shown(ln->tok[1], ln->tlen[1], b1, sizeof(b1)));
	if (p->nimages > 0 && t < p->images[p->nimages - 1].time)
		return perr(ps,
			    "@snapshot %s is earlier than the image before it (line %u); "
			    "times must not decrease",
			    shown(ln->tok[1], ln->tlen[1], b1, sizeof(b1)),
			    p->images[p->nimages - 1].line);
	end_image(ps);
	if (push_image(p, t, ps->line) < 0)
		return perr(ps, "out of memory");
	return 0;
}

/* The line of the first occurrence of off in the current image. */
static unsigned first_line_of(const struct img_priv *p, uint32_t off)
{
	for (size_t i = p->images[p->nimages - 1].first; i < p->nregs; i++)
		if (p->regs[i].off == off)
			return p->regs[i].line;
	return 0;
}

/* Token i of a register line as HEX; what names it in a message. */
static int hex_field(struct parser *ps, const struct line *ln, unsigned i, const char *what,
		     const char *example, uint32_t *out)
{
	char b1[200];

	switch (parse_hex(ln->tok[i], ln->tlen[i], out)) {
	case 0:
		return 0;
	case -1:
		return perr(ps, "bad %s '%s' (expected a hex number such as %s)", what,
			    shown(ln->tok[i], ln->tlen[i], b1, sizeof(b1)), example);
	default:
		return perr(ps, "%s '%s' does not fit in 32 bits (more than 8 hex digits)", what,
			    shown(ln->tok[i], ln->tlen[i], b1, sizeof(b1)));
	}
}

static int parse_reg_line(struct parser *ps, const struct line *ln)
{
	struct img_priv *p = ps->p;
	uint32_t off, val;
	int rc;

	if (ln->n != 2)
		return perr(ps, "expected 'OFFSET VALUE' (two hex numbers), found %s field%s",
			    ln->n < 2 ? "one" : "more than two", ln->n < 2 ? "" : "s");
	rc = hex_field(ps, ln, 0, "offset", "0x8000", &off);
	if (rc == 0)
		rc = hex_field(ps, ln, 1, "value", "0x0000002A", &val);
	if (rc < 0)
		return rc;
	if (off % 4u != 0)
		return perr(ps, "offset 0x%04X is not a multiple of 4", (unsigned)off);
	if (off > PT_COMP_SPAN - 4u)
		return perr(ps, "offset 0x%X is outside the component (0x0000..0x%04X)",
			    (unsigned)off, PT_COMP_SPAN - 4u);
	if (p->nimages == 0)
		return perr(ps, "register line before the first @snapshot line");
	if (ps->seen[off / 256u] >> (off / 4u % 64u) & 1u)
		return perr(ps, "offset 0x%04X appears twice in one image (first on line %u)",
			    (unsigned)off, first_line_of(p, off));
	ps->seen[off / 256u] |= UINT64_C(1) << (off / 4u % 64u);
	if (push_reg(p, off, val, ps->line) < 0)
		return perr(ps, "out of memory");
	return 0;
}

static int parse_line(struct parser *ps, const char *s, size_t len)
{
	struct line ln = { .s = s, .len = len };

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_blank((char)c) && (c < 0x20 || c >= 0x7F))
			return perr(ps, "invalid character 0x%02X (the file must be ASCII text)", c);
	}
	ln.n = tokenize(s, len, ln.tok, ln.tlen);
	if (ps->line == 1)
		return parse_magic_line(ps, &ln);
	if (ln.n == 0)
		return 0;
	if (ln.tok[0][0] == '@')
		return parse_snapshot_line(ps, &ln);
	return parse_reg_line(ps, &ln);
}

static void priv_free(struct img_priv *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->regs);
	free(p->images);
	free(p);
}

static int parse_buffer(const char *name, const char *data, size_t len, struct img_priv *p,
			char *msg, size_t msglen)
{
	struct parser ps = { .name = name, .p = p, .line = 0, .msg = msg, .msglen = msglen };
	size_t pos = 0;
	int rc = 0;

	if (len == 0) {
		ps.line = 1;
		rc = perr(&ps, "empty file (the first line must be '" IMG_MAGIC_WORD " "
			  IMG_FORMAT_VERSION "')");
	}
	while (rc == 0 && pos < len) {
		const char *s = data + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		const char *hash;

		pos += l + (nl ? 1 : 0);
		ps.line++;
		if (l > 0 && s[l - 1] == '\r')
			l--;
		if (l > IMG_MAX_LINE) {
			rc = perr(&ps, "line longer than %u characters", IMG_MAX_LINE);
			break;
		}
		hash = memchr(s, '#', l);
		if (hash)
			l = (size_t)(hash - s);
		while (l > 0 && is_blank(s[l - 1]))
			l--;
		while (l > 0 && is_blank(*s))
			s++, l--;
		rc = parse_line(&ps, s, l);
	}
	if (rc == 0) {
		end_image(&ps);
		if (p->nimages == 0)
			rc = perr(&ps, "the file holds no image (no '@snapshot SECONDS' line)");
	}
	return rc;
}

/* ---------------------------------------------------------------- replay */

static const struct img_reg *lower_bound(const struct img_priv *p, const struct img_image *im,
					 uint32_t off)
{
	const struct img_reg *a;
	size_t lo = 0, hi = im->count;

	if (im->count == 0)
		return NULL;
	a = p->regs + im->first;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return a + lo;
}

static int img_read32(struct pt_bus *b, uint32_t off, uint32_t *val)
{
	struct img_priv *p = b->priv;
	const struct img_image *im = &p->images[p->cur];
	const struct img_reg *r;

	if (off % 4u != 0 || off > PT_COMP_SPAN - 4u)
		return pt_bus_fail(b, -EINVAL, "%s: read of offset 0x%X outside the component",
				   p->path, (unsigned)off);
	r = lower_bound(p, im, off);
	*val = (r && r < p->regs + im->first + im->count && r->off == off) ? r->val : 0;
	if (off == PT_REG_STATUS)
		*val &= ~PT_STATUS_BUSY; /* a replayed snapshot completes at once */
	return 0;
}

static int img_read_block(struct pt_bus *b, uint32_t off, uint32_t *buf, size_t n)
{
	struct img_priv *p = b->priv;
	const struct img_image *im = &p->images[p->cur];
	const struct img_reg *r = lower_bound(p, im, off);
	const struct img_reg *end = r ? p->regs + im->first + im->count : NULL;

	if (!r) {
		memset(buf, 0, n * sizeof(*buf));
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t o = off + (uint32_t)(4 * i);

		while (r < end && r->off < o)
			r++;
		buf[i] = (r < end && r->off == o) ? r->val : 0;
		if (o == PT_REG_STATUS)
			buf[i] &= ~PT_STATUS_BUSY;
	}
	return 0;
}

static int img_write32(struct pt_bus *b, uint32_t off, uint32_t val)
{
	struct img_priv *p = b->priv;

	if (off != PT_REG_COMMAND || !(val & PT_CMD_SNAPSHOT))
		return 0; /* clears and other writes change nothing in a replay */
	if (p->snapshots >= p->nimages)
		return pt_bus_fail(b, -ERANGE,
				   "%s: SNAPSHOT number %zu asked for, but the file holds only %zu "
				   "image%s",
				   p->path, p->snapshots + 1, p->nimages, p->nimages == 1 ? "" : "s");
	p->cur = p->snapshots++;
	return 0;
}

static int img_now(struct pt_bus *b, double *seconds)
{
	struct img_priv *p = b->priv;

	*seconds = p->images[p->cur].time;
	return 0;
}

static int img_wait(struct pt_bus *b, double seconds)
{
	(void)b;
	(void)seconds;
	return 0; /* time is what the file recorded */
}

static void img_close(struct pt_bus *b)
{
	priv_free(b->priv);
	b->priv = NULL;
}

static const struct pt_bus_ops img_ops = {
	.kind = "image",
	.read32 = img_read32,
	.write32 = img_write32,
	.read_block = img_read_block,
	.now = img_now,
	.wait = img_wait,
	.close = img_close,
};

int pt_bus_open_image_mem(const char *name, const void *data, size_t len, struct pt_bus **out,
			  char *msg, size_t msglen)
{
	struct img_priv *p = calloc(1, sizeof(*p));
	char dev[PT_BUS_MSG_LEN];
	struct pt_bus *b;
	int rc;

	*out = NULL;
	if (!p || !(p->path = strdup(name))) {
		priv_free(p);
		snprintf(msg, msglen, "%s: out of memory", name);
		return -ENOMEM;
	}
	rc = parse_buffer(name, data, len, p, msg, msglen);
	if (rc < 0) {
		priv_free(p);
		return rc;
	}
	snprintf(dev, sizeof(dev), "image:%s", name);
	b = pt_bus_alloc(&img_ops, dev);
	if (!b) {
		priv_free(p);
		snprintf(msg, msglen, "%s: out of memory", name);
		return -ENOMEM;
	}
	b->priv = p;
	*out = b;
	return 0;
}

int pt_bus_open_image(const char *path, struct pt_bus **out, char *msg, size_t msglen)
{
	char *data;
	size_t len;
	int rc;

	*out = NULL;
	if (!path || !*path) {
		snprintf(msg, msglen, "image: no file name given (use image:FILE)");
		return -EINVAL;
	}
	rc = pt_util_read_file(path, "register image", IMG_MAX_BYTES, &data, &len, msg, msglen);
	if (rc < 0)
		return rc;
	rc = pt_bus_open_image_mem(path, data, len, out, msg, msglen);
	free(data);
	return rc;
}
