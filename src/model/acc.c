/*
 * pcie-telemetry: PCIE_TELEMETRY_ACC, the counter memory (see acc.h).
 */
#include "model/acc.h"

#include <string.h>

void ptm_acc_init(struct ptm_acc *a, unsigned streams, const unsigned *stream_base,
		  unsigned entries, unsigned cnt_width, uint64_t *mem)
{
	memset(a, 0, sizeof(*a));
	a->streams = streams;
	a->stream_base = stream_base;
	a->entries = entries;
	a->cnt_width = cnt_width;
	a->cnt_mask = cnt_width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << cnt_width) - 1);
	a->mem = mem;
	memset(mem, 0, 2 * (size_t)entries * sizeof(*mem));
	a->state = PTM_ACC_IDLE;
}

/* Round robin: the first valid stream behind the one served last. */
static int rr_next(const struct ptm_acc *a, const struct ptm_acc_stream *in, unsigned *next)
{
	for (unsigned i = 1; i <= a->streams; i++) {
		unsigned j = (a->sel + i) % a->streams;
		if (in[j].vld) {
			*next = j;
			return 1;
		}
	}
	return 0;
}

void ptm_acc_edge(struct ptm_acc *a, int rst, int snapshot, int clear,
		  const struct ptm_acc_stream *in, int rd_en, unsigned rd_addr)
{
	const unsigned amask = 2 * a->entries - 1;
	/* Port B (software): registered read of the value before this edge. */
	if (rd_en)
		a->rd_data = a->mem[rd_addr & amask];

	uint8_t snap_req = a->snap_req, clear_req = a->clear_req;
	if (snapshot)
		a->snap_req = 1;
	if (clear)
		a->clear_req = 1;

	unsigned next;
	switch (a->state) {
	case PTM_ACC_IDLE:
		if (clear_req) {
			a->clear_req = 0;
			a->sweep = 0;
			a->state = PTM_ACC_CLEAR;
		} else if (snap_req) {
			a->snap_req = 0;
			a->sweep = 0;
			a->state = PTM_ACC_SNAP_RD;
		} else if (rr_next(a, in, &next)) {
			a->sel = next;
			a->state = PTM_ACC_RD;
		}
		break;
	case PTM_ACC_RD: {
		const struct ptm_acc_stream *s = &in[a->sel];
		unsigned addr = (a->stream_base[a->sel] + s->index) & amask;
		a->pa_dout = a->mem[addr];
		a->addr = addr;
		a->data = s->delta;
		a->state = PTM_ACC_ADD;
		break;
	}
	case PTM_ACC_ADD:
		a->sum = (a->pa_dout + a->data) & a->cnt_mask;
		a->state = PTM_ACC_WR;
		break;
	case PTM_ACC_WR:
		a->mem[a->addr] = a->sum;
		if (!clear_req && !snap_req && rr_next(a, in, &next)) {
			a->sel = next;
			a->state = PTM_ACC_RD;
		} else {
			a->state = PTM_ACC_IDLE;
		}
		break;
	case PTM_ACC_SNAP_RD:
		a->pa_dout = a->mem[a->sweep & (a->entries - 1)];
		a->state = PTM_ACC_SNAP_WR;
		break;
	case PTM_ACC_SNAP_WR:
		a->mem[a->entries + (a->sweep & (a->entries - 1))] = a->pa_dout;
		if (a->sweep == a->entries - 1) {
			a->state = PTM_ACC_IDLE;
		} else {
			a->sweep++;
			a->state = PTM_ACC_SNAP_RD;
		}
		break;
	case PTM_ACC_CLEAR:
		a->mem[a->sweep & amask] = 0;
		if (a->sweep == 2 * a->entries - 1)
			a->state = PTM_ACC_IDLE;
		else
			a->sweep++;
		break;
	default:
		a->state = PTM_ACC_IDLE;
		break;
	}

	if (rst) {
		a->state = PTM_ACC_IDLE;
		a->sel = 0;
		a->sweep = 0;
		a->snap_req = 0;
		a->clear_req = 0;
	}
}

uint64_t ptm_acc_cmd_left(const struct ptm_acc *a)
{
	switch (a->state) {
	case PTM_ACC_SNAP_RD:
		return 2 * (uint64_t)(a->entries - a->sweep);
	case PTM_ACC_SNAP_WR:
		return 2 * (uint64_t)(a->entries - a->sweep) - 1;
	case PTM_ACC_CLEAR:
		return 2 * (uint64_t)a->entries - a->sweep;
	default:
		return 0;
	}
}

void ptm_acc_cmd_skip(struct ptm_acc *a, uint64_t k)
{
	uint64_t left = ptm_acc_cmd_left(a);
	if (k == 0 || left == 0)
		return;
	if (k >= left)
		k = left - 1;
	if (a->state == PTM_ACC_CLEAR) {
		memset(&a->mem[a->sweep], 0, (size_t)k * sizeof(*a->mem));
		a->sweep += (unsigned)k;
		return;
	}
	/* SNAP_RD/SNAP_WR alternate: one word is copied per SNAP_WR edge. */
	while (k > 0 && a->state == PTM_ACC_SNAP_WR) {
		a->mem[a->entries + a->sweep] = a->pa_dout;
		a->sweep++;
		a->state = PTM_ACC_SNAP_RD;
		k--;
	}
	uint64_t pairs = k / 2;
	if (pairs) {
		memcpy(&a->mem[a->entries + a->sweep], &a->mem[a->sweep],
		       (size_t)pairs * sizeof(*a->mem));
		a->sweep += (unsigned)pairs;
		a->pa_dout = a->mem[a->sweep - 1];
		k -= 2 * pairs;
	}
	if (k) { /* one SNAP_RD edge left */
		a->pa_dout = a->mem[a->sweep];
		a->state = PTM_ACC_SNAP_WR;
	}
}
