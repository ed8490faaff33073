/*
 * pcie-telemetry: shared lexing helpers for the conformance trace formats
 * (PROBE and COMPONENT traces, shared spec trace-format.md).
 *
 * Private to src/model/ (the trace runners).  Nothing here prints; every
 * failing function returns a negative errno and writes one line into the
 * caller's message buffer in the uniform form
 *
 *     FILE:LINE: field 'NAME': what is wrong
 *
 * (or "FILE:LINE: what is wrong" when no single field is at fault).
 *
 * Typical use:
 *
 *     struct ptm_tu_reader r;
 *     ptm_tu_init(&r, in, name, msg, msglen);
 *     while ((rc = ptm_tu_next(&r)) > 0) {
 *             // r.field[0 .. r.nfield-1], r.lineno
 *             rc = ptm_tu_hex_field(&r, 3, "eof_pos", width, &v);
 *             ...
 *     }
 *     ptm_tu_fini(&r);
 *
 * The reader owns its line buffer (grown with realloc as long lines need,
 * up to max_line) and reads the stream in blocks of its own; the field
 * pointers stay valid until the next ptm_tu_next() call.
 */
#ifndef PTM_TRACE_UTIL_H
#define PTM_TRACE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Line reader                                                         */

struct ptm_tu_reader {
	FILE *in;
	const char *name;      /* file name used in messages */
	unsigned long lineno;  /* 1-based line number of the current record */
	char **field;          /* fields of the current record */
	unsigned nfield;
	char *msg;             /* caller's message buffer */
	size_t msglen;
	/* limits (PTM_TRACE_MAX_LINE, PTM_TRACE_MAX_BYTES after init; a
	 * test may lower them) */
	size_t max_line;
	uint64_t max_bytes;
	/* private */
	char *line;
	size_t cap;
	unsigned fcap;
	char *block;           /* what was read from `in` and not used yet */
	size_t bpos, blen;
	uint64_t bytes;        /* read from `in` so far */
};

/* Attach a reader to an open stream.  Does not allocate. */
void ptm_tu_init(struct ptm_tu_reader *r, FILE *in, const char *name, char *msg, size_t msglen);
/* Free the reader's buffers (the stream stays open). */
void ptm_tu_fini(struct ptm_tu_reader *r);

/*
 * Read the next record: skips blank lines and comment-only lines, strips
 * a `#` comment and the line end (LF or CRLF), splits the rest at runs of
 * spaces/tabs.  Returns 1 with r->field/r->nfield set, 0 at end of file
 * (r->lineno is then the number of the last line read), -EIO on a read
 * error, -ENOMEM, or -EINVAL for a line holding a NUL byte, a line longer
 * than max_line characters (the line end not counted) or a stream longer
 * than max_bytes.  Memory: at most max_line bytes per line, whatever the
 * input.
 */
int ptm_tu_next(struct ptm_tu_reader *r);

/* ------------------------------------------------------------------ */
/* Errors                                                              */

/*
 * Format "FILE:LINE: field 'FIELD': <fmt...>" (field may be NULL, then
 * "FILE:LINE: <fmt...>") into msg.  Returns -EINVAL so that a caller can
 * write `return ptm_tu_errf(...);`.  line 0 omits the line number.
 */
int ptm_tu_errf(char *msg, size_t msglen, const char *file, unsigned long line, const char *field,
		const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;

/* The same for the reader's current line. */
int ptm_tu_err(const struct ptm_tu_reader *r, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* ------------------------------------------------------------------ */
/* Arbitrary-width hexadecimal values                                  */

/* Widest signal vector a trace may carry (e.g. DMA EOF_POS of 16 ports x
 * 2 buses x 16 regions x 16 bits). */
#define PTM_TU_HEX_MAX_BITS 8192
#define PTM_TU_HEX_LIMBS (PTM_TU_HEX_MAX_BITS / 64)

/* Little-endian limbs: bit i of the value is bit (i % 64) of limb[i / 64].
 * Limbs at and above nlimb are zero by definition (never read). */
struct ptm_tu_hex {
	unsigned nlimb;
	uint64_t limb[PTM_TU_HEX_LIMBS];
};

/*
 * Parse a hexadecimal signal value into v: digits 0-9, a-f, A-F only, no
 * prefix or sign, not empty; leading zeros are accepted.  The value must
 * fit in `width` bits (0..PTM_TU_HEX_MAX_BITS; width 0 admits only zero).
 * Returns 0, or -EINVAL with the reason ("empty value", "'g' is not a hex
 * digit", "value wider than 12 bits") in why (may be NULL).
 */
int ptm_tu_hex_parse(const char *s, unsigned width, struct ptm_tu_hex *v, char *why, size_t whylen);

/* Bits [lo, lo+width) of v, width 0..64.  Bits beyond the value are 0. */
uint64_t ptm_tu_hex_get(const struct ptm_tu_hex *v, unsigned lo, unsigned width);

/* True when v is zero. */
int ptm_tu_hex_is_zero(const struct ptm_tu_hex *v);

/* Parse field idx of the current record as a hex value of `width` bits;
 * on error the message names `fname` and the value. */
int ptm_tu_hex_field(const struct ptm_tu_reader *r, unsigned idx, const char *fname, unsigned width,
		     struct ptm_tu_hex *v);

/* Parse a hex value from a string that did not come from r->field (for
 * example the value of a key=value pair) and report against r's line. */
int ptm_tu_hex_str(const struct ptm_tu_reader *r, const char *s, const char *fname, unsigned width,
		   struct ptm_tu_hex *v);

/* Hex value of at most 64 bits, e.g. a count or a 1-bit level. */
int ptm_tu_hex64_str(const struct ptm_tu_reader *r, const char *s, const char *fname, unsigned width,
		     uint64_t *out);

/* ------------------------------------------------------------------ */
/* Decimal numbers                                                     */

/*
 * Parse an unsigned decimal number (digits only, no sign, not empty,
 * leading zeros accepted) in [min, max].  Returns 0, or -EINVAL with the
 * reason ("'x' is not a decimal digit", "5000 is out of range 16..4096")
 * in why (may be NULL).
 */
int ptm_tu_dec_parse(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
		     size_t whylen);

/* Parse field idx of the current record; the error names `fname`. */
int ptm_tu_dec_field(const struct ptm_tu_reader *r, unsigned idx, const char *fname, uint64_t min,
		     uint64_t max, uint64_t *out);
int ptm_tu_dec_str(const struct ptm_tu_reader *r, const char *s, const char *fname, uint64_t min,
		   uint64_t max, uint64_t *out);

/* ------------------------------------------------------------------ */
/* Record shapes                                                       */

/*
 * Require the current record to be `KEYWORD v1 ... vn` with exactly
 * nargs values after the keyword (nargs < 0: at least one).  Returns 0 or
 * -EINVAL ("expected 'BUSES'", "'BUSES' needs 1 value, found 2").
 */
int ptm_tu_expect(const struct ptm_tu_reader *r, const char *keyword, int nargs);

/* Split "key=value" in place (the '=' becomes NUL).  Returns 0, or
 * -EINVAL with the message "field 'TEXT': expected key=value". */
int ptm_tu_split_kv(const struct ptm_tu_reader *r, char *field, char **key, char **value);

#endif
