/*
 * pcie-telemetry: readings of one component and their differences.
 *
 * A reading is data: the raw counters, STATUS, the per-endpoint registers
 * and the device time of its SNAPSHOT.  The difference of two readings is
 * taken counter by counter modulo 2^CNT_WIDTH.  Nothing here reads a
 * device (telemetry.h) or formats (render.h).
 *
 * Prefixes: pt_reading_, pt_link_, pt_counter_diff.
 */
#ifndef PCIE_TELEMETRY_READING_H
#define PCIE_TELEMETRY_READING_H

#include <stdbool.h>
#include <stdint.h>

#include "pcie_telemetry/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One reading: one snapshot of everything, raw. */
struct pt_reading {
	unsigned entries;
	uint64_t *cnt;            /* entries counters */
	uint32_t status;          /* STATUS */
	uint32_t pcie_status[PT_MAX_ENDPOINTS];
	uint32_t pcie_tags[PT_MAX_ENDPOINTS];
	uint32_t pcie_stfifo[PT_MAX_ENDPOINTS];
	double time;              /* device clock at the SNAPSHOT command */
};

/* 0 or -ENOMEM.  pt_reading_free() also frees a reading whose init
 * failed, and one that is all zeros. */
int pt_reading_init(struct pt_reading *r, unsigned entries);
void pt_reading_free(struct pt_reading *r);

/* Decoded per-endpoint link registers. */
struct pt_link {
	bool link_up, ext_tag, tag_10b;
	unsigned mps, mrrs, rcb;
	unsigned tags_free, tags_free_min, stfifo_free, stfifo_free_min;
};
void pt_link_decode(const struct pt_reading *r, unsigned ep, struct pt_link *out);

/* Counter difference modulo 2^width (width 33..64). */
uint64_t pt_counter_diff(uint64_t later, uint64_t earlier, unsigned width);

/*
 * out = later - earlier, counter by counter modulo 2^CNT_WIDTH; status,
 * link registers and time come from `later`.  out must be initialised
 * with the same number of entries.
 */
void pt_reading_diff(const struct pt_layout *l, const struct pt_reading *earlier,
		     const struct pt_reading *later, struct pt_reading *out);

#ifdef __cplusplus
}
#endif
#endif
