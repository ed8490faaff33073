/*
 * pcie-telemetry: what read TLPs need of the PTC in the simulated card,
 * as pure functions of the host's geometry: their completions, storage
 * FIFO words and completion header credits.  The RQ (rq.c) asks per TLP;
 * the scenario check asks for the most any read of a port can need, which
 * the PTC must be able to hold, or no read could ever go out.
 */
#ifndef PT_ENV_NEED_H
#define PT_ENV_NEED_H

#include <stdint.h>

#include "env/env_priv.h"
#include "env/queue.h"

/* What one read TLP needs: its completions, storage FIFO words (w) and
 * completion header credits (h). */
struct tlp_need {
	uint32_t w, h;
	unsigned ncr;
	struct cpl_run cr[4];
};

/* The endpoint's geometry that decides it: MRRS and RCB, the host's
 * completion blocks (bytes, a multiple of RCB), the storage FIFO's words
 * (bytes, one RC MFB word). */
struct pte_read_geom {
	uint32_t mrrs, rcb, cpl_bytes, word_bytes;
};

/* Bytes of the TLP at address a with `rest` bytes left: at most lim,
 * never crossing 4 KiB. */
static inline uint32_t pte_read_chunk(uint64_t a, uint32_t rest, uint32_t lim)
{
	uint32_t chunk = rest < lim ? rest : lim;
	uint32_t to4k = 4096u - (uint32_t)(a % 4096u);
	return chunk > to4k ? to4k : chunk;
}

/* Address step between a port's requests of `size` bytes: the size
 * rounded up to the alignment. */
static inline uint32_t pte_stride_of(uint32_t size, unsigned align)
{
	return (size + align - 1) / align * align;
}

/* The completions of `len` bytes read from `off` bytes into a host
 * completion block of C bytes (cut at the block ends): runs of equal
 * sizes into out (at most 3); their number. */
unsigned pte_cpl_runs(uint32_t C, uint32_t off, uint32_t len, struct cpl_run *out);

/* What the read TLP of `chunk` bytes at address a needs. */
void pte_tlp_need(const struct pte_read_geom *g, uint64_t a, uint32_t chunk, struct tlp_need *n);

/* The most header credits (*h) and storage FIFO words (*w) one read TLP
 * of a port can need: over its read sizes, each starting anywhere in a
 * 4 KiB page that the strides of its requests reach (from a page start,
 * as the card's ports do).  The words only when the host's completion
 * blocks divide 4 KiB (else where a TLP is in a block is not known from
 * where it is in its page).  Only maxima (at least the values given). */
void pte_read_need_max(const struct pte_read_geom *g, const struct pte_port_cfg *p, uint32_t *h,
		       uint32_t *w);

#endif
