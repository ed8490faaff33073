/*
 * pcie-telemetry: readings and their differences.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/telemetry.h"

int pt_reading_init(struct pt_reading *r, unsigned entries)
{
	memset(r, 0, sizeof(*r));
	r->cnt = calloc(entries ? entries : 1, sizeof(*r->cnt));
	if (!r->cnt)
		return -ENOMEM;
	r->entries = entries;
	return 0;
}

void pt_reading_free(struct pt_reading *r)
{
	if (!r)
		return;
	free(r->cnt);
	r->cnt = NULL;
	r->entries = 0;
}

void pt_link_decode(const struct pt_reading *r, unsigned ep, struct pt_link *out)
{
	uint32_t st = r->pcie_status[ep], tags = r->pcie_tags[ep], fifo = r->pcie_stfifo[ep];

	out->mps = 128u << (st & 7u);
	out->mrrs = 128u << ((st >> 3) & 7u);
	out->ext_tag = (st >> 6) & 1u;
	out->tag_10b = (st >> 7) & 1u;
	out->rcb = ((st >> 8) & 1u) ? 128u : 64u;
	out->link_up = (st >> 9) & 1u;
	out->tags_free = tags & 0xFFFFu;
	out->tags_free_min = tags >> 16;
	out->stfifo_free = fifo & 0xFFFFu;
	out->stfifo_free_min = fifo >> 16;
}

uint64_t pt_counter_diff(uint64_t later, uint64_t earlier, unsigned width)
{
	uint64_t d = later - earlier; /* unsigned: wraps modulo 2^64 */

	if (width >= 64 || width == 0)
		return d;
	return d & ((UINT64_C(1) << width) - 1u);
}

void pt_reading_diff(const struct pt_layout *l, const struct pt_reading *earlier,
		     const struct pt_reading *later, struct pt_reading *out)
{
	unsigned n = out->entries;

	if (earlier->entries < n)
		n = earlier->entries;
	if (later->entries < n)
		n = later->entries;
	for (unsigned i = 0; i < n; i++)
		out->cnt[i] = pt_counter_diff(later->cnt[i], earlier->cnt[i], l->cnt_width);
	out->status = later->status;
	memcpy(out->pcie_status, later->pcie_status, sizeof(out->pcie_status));
	memcpy(out->pcie_tags, later->pcie_tags, sizeof(out->pcie_tags));
	memcpy(out->pcie_stfifo, later->pcie_stfifo, sizeof(out->pcie_stfifo));
	out->time = later->time;
}
