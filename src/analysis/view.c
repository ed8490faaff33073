/*
 * pcie-telemetry: the shares the diagnosis judges an endpoint by (view.h).
 */
#include <math.h>
#include <string.h>

#include "analysis/view.h"

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

double view_consumer(const struct view *v, unsigned p)
{
	unsigned b = fig_down(p);
	double w = fig_share(&v->f, b, PT_F_WORDS);
	double s = fig_share(&v->f, b, PT_F_BACKPRESSURE);
	double m = fig_share(&v->f, b, PT_F_MVB_BACKPRESSURE);

	/* A header waits for its data while the MFB runs flat out, so a MVB
	 * stall is a refusal only where the MFB had room. */
	if (w < PT_DIAG_SAT && m > s)
		s = m;
	return fmin(clamp01(1 - w), s);
}

/* DOWN of every port. */
static void down_side(struct view *v)
{
	struct view_side *d = &v->down;

	d->sat_port = d->busy_port = d->cons_port = -1;
	for (unsigned p = 0; p < v->ports; p++) {
		unsigned b = fig_down(p);
		double w = fig_share(&v->f, b, PT_F_WORDS), c = view_consumer(v, p);

		d->w_mean += w / v->ports;
		d->s_mean += fig_share(&v->f, b, PT_F_BACKPRESSURE) / v->ports;
		d->mvb_s_mean += fig_share(&v->f, b, PT_F_MVB_BACKPRESSURE) / v->ports;
		d->c_mean += c / v->ports;
		if (w >= PT_DIAG_SAT && w > d->sat_w) {
			d->sat_w = w;
			d->sat_port = (int)p;
		}
		if (d->busy_port < 0 || w + c > d->busy) {
			d->busy = w + c;
			d->busy_port = (int)p;
		}
		if (c > d->cons_max) {
			d->cons_max = c;
			d->cons_port = (int)p;
		}
	}
}

/* UP of every port: the writes' bus, and the requests' MVB. */
static void up_side(struct view *v)
{
	struct view_side *u = &v->up;

	u->sat_port = u->busy_port = u->cons_port = u->backlog_port = -1;
	for (unsigned p = 0; p < v->ports; p++) {
		unsigned b = fig_up(p);
		double w = fig_share(&v->f, b, PT_F_WORDS);
		double s = fig_share(&v->f, b, PT_F_BACKPRESSURE);
		double ms = fig_share(&v->f, b, PT_F_MVB_BACKPRESSURE);
		/* an MVB cycle that moved carried at least one item */
		double mm = fmin(fig_share(&v->f, b, PT_F_MVB), clamp01(1 - ms));

		u->mvb_counted |= fig_cnt(&v->f, b, PT_F_MVB) || fig_cnt(&v->f, b, PT_F_MVB_BACKPRESSURE);
		u->w_mean += w / v->ports;
		u->s_mean += s / v->ports;
		u->mvb_s_mean += ms / v->ports;
		if (w >= PT_DIAG_SAT && w > u->sat_w) {
			u->sat_w = w;
			u->sat_port = (int)p;
		}
		if (u->busy_port < 0 || w + s > u->busy) {
			u->busy = w + s;
			u->busy_port = (int)p;
		}
		if (u->backlog_port < 0 || ms + mm > u->mvb_backlog) {
			u->mvb_backlog = ms + mm;
			u->backlog_port = (int)p;
		}
	}
	u->backlog = u->busy;
}

/* The PTC's reasons: the UP stream's (with the RQ stall) and the DOWN
 * stream's. */
static void reasons(struct view *v)
{
	double up = v->rq_s;

	for (unsigned k = 0; k < v->f.l->driven_brakes; k++) {
		double s = fig_brake_share(&v->f, k);

		if (k < PT_BRAKE_NAMED) {
			v->reason[k] = s;
		} else if (s > v->other) {
			v->other = s;
			v->other_k = k;
		}
		if (pt_brake_stream(k) == PT_STREAM_UP)
			up += s;
	}
	v->up_held = clamp01(up);
	v->down_held = fmax(v->reason[PT_BRAKE_DOWN_MFB_HOLD], v->reason[PT_BRAKE_DOWN_MVB_HOLD]);
	v->tags_empty = fig_hist_share(&v->f, PT_HIST_TAGS, PT_BAND_NONE);
	v->st_low = fig_hist_share(&v->f, PT_HIST_STFIFO, PT_BAND_NONE) +
		    fig_hist_share(&v->f, PT_HIST_STFIFO, PT_BAND_LE_EIGHTH);
}

/* Any read or write traffic at all. */
static void traffic(struct view *v)
{
	uint64_t rd = fig_cnt(&v->f, 1, PT_F_ITEMS), wr = 0;

	for (unsigned p = 0; p < v->ports; p++) {
		uint64_t mvb = fig_cnt(&v->f, fig_up(p), PT_F_MVB);
		uint64_t frames = fig_cnt(&v->f, fig_up(p), PT_F_TRANSACTIONS);

		rd += fig_cnt(&v->f, fig_down(p), PT_F_ITEMS) + (mvb > frames ? mvb - frames : 0);
		wr += fig_cnt(&v->f, fig_up(p), PT_F_ITEMS) + frames;
	}
	v->reads = rd > 0;
	v->writes = wr > 0;
}

/* Where the DOWN stream is held: its bus is full, or the DMA side holds it. */
static enum pt_diag_cause down_cause(const struct view *v)
{
	if (v->down.sat_port >= 0)
		return PT_CAUSE_DMA_BUS;
	if (v->down.cons_max >= PT_DIAG_SIG || v->down_held >= PT_DIAG_SIG)
		return PT_CAUSE_DMA_CONSUMER;
	return PT_CAUSE_IDLE;
}

void view_init(struct view *v, const struct fig_set *m, const struct pt_layout *l,
	       const struct pt_reading *r, unsigned ep)
{
	struct pt_link k;

	memset(v, 0, sizeof(*v));
	fig_init(&v->f, m, l, r, ep);
	pt_link_decode(r, ep, &k);
	v->link_up = k.link_up;
	v->measured = v->f.pcie_cycles > 0 && v->f.dma_cycles > 0;
	v->ports = l->dma_ports;
	v->rq_w = fig_share(&v->f, 0, PT_F_WORDS);
	v->rq_s = fig_share(&v->f, 0, PT_F_BACKPRESSURE);
	v->rc_w = fig_share(&v->f, 1, PT_F_WORDS);
	v->rq_busy = v->rq_w + v->rq_s >= PT_DIAG_SAT && v->rq_s >= PT_DIAG_SIG;
	v->rc_full = v->rc_w >= PT_DIAG_SAT;
	traffic(v);
	reasons(v);
	if (v->ports) {
		down_side(v);
		up_side(v);
	}
	v->down_cause = down_cause(v);
}
