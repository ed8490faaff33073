/*
 * pcie-telemetry: the PCIe link of the simulated card.
 *
 * Each direction moves TLP bytes (header, payload, framing and LCRC) at
 * GT/s x lanes x encoding x (1 - DLLP share).  Upstream, the Hard IP's
 * transmit buffer takes TLPs until it is full and then waits until it has
 * drained to half: the RQ bus stalls meanwhile.
 */
#include <math.h>

#include "env/card_priv.h"

static double gts(unsigned gen)
{
	static const double t[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0 };
	return t[gen];
}

void pte_link_init(struct ep *e, double pcie_hz)
{
	const struct pte_ep_cfg *cfg = e->cfg;
	struct pte_ep_info *in = &e->info;
	double enc = cfg->link_gen >= 3 ? 128.0 / 130.0 : 0.8;
	double Bps = gts(cfg->link_gen) * 1e9 * cfg->link_width * enc / 8.0 * (1.0 - cfg->dllp_overhead);

	in->link_up_Bps = in->link_down_Bps = Bps;
	in->rq_header_bytes = 16;
	in->rc_header_bytes = 12;
	in->tlp_framing_bytes = 8;
	e->link.up_Bpc = e->link.dn_Bpc = Bps / pcie_hz;
	e->link.up_buf = (double)cfg->tx_buffer_bytes / e->link.up_Bpc;
	unsigned sh = 0;
	while ((1u << sh) < cfg->mps)
		sh++;
	e->link.mps_log2 = sh;
}

/* The Hard IP's buffer in PCIe cycles of upstream link time. */
static double tx_buffer(const struct ep *e)
{
	return e->link.up_buf;
}

/* Cycles until the backlog has drained to half the buffer (at least 1). */
static uint64_t to_half(double backlog, double buf)
{
	uint64_t w = (uint64_t)ceil(backlog - buf / 2);
	return w ? w : 1;
}

int pte_link_wait_slow(struct ep *e, int64_t now, uint64_t *wait)
{
	double buf = tx_buffer(e);
	double backlog = e->link.up_t - (double)now;
	/* The Hard IP stops taking TLPs when its buffer is full and takes
	 * them again when it has drained to half. */
	if (e->link.up_hold) {
		if (backlog > buf / 2) {
			*wait = to_half(backlog, buf);
			return 1;
		}
		e->link.up_hold = 0;
	}
	if (backlog > buf) {
		e->link.up_hold = 1;
		*wait = to_half(backlog, buf);
		return 1;
	}
	return 0;
}
