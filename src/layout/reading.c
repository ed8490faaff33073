/*
 * pcie-telemetry: readings and their differences.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/reading.h"

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

	/* codes 6 and 7 give 8192 and 16384, as upstream shows them */
	out->mps = 128u << pt_field_get(PT_FIELD_EP_MPS, st);
	out->mrrs = 128u << pt_field_get(PT_FIELD_EP_MRRS, st);
	out->ext_tag = pt_field_get(PT_FIELD_EP_EXT_TAG, st);
	out->tag_10b = pt_field_get(PT_FIELD_EP_TAG_10B, st);
	out->rcb = pt_field_get(PT_FIELD_EP_RCB, st) ? 128u : 64u;
	out->link_up = pt_field_get(PT_FIELD_EP_LINK_UP, st);
	out->tags_free = pt_field_get(PT_FIELD_TAGS_NOW, tags);
	out->tags_free_min = pt_field_get(PT_FIELD_TAGS_MIN, tags);
	out->stfifo_free = pt_field_get(PT_FIELD_STFIFO_NOW, fifo);
	out->stfifo_free_min = pt_field_get(PT_FIELD_STFIFO_MIN, fifo);
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
