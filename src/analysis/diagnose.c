/*
 * pcie-telemetry: the top-down diagnosis of one endpoint and direction
 * (docs/diagnosis.md).
 *
 * Level 1 splits the cycles of the direction's reference buses (DOWN of
 * every port for reads, UP of every port for writes) into moving data,
 * stalled and idle.  Level 2 splits the stalled share among the causes,
 * the stage nearest to the DMA first, each capped by what is left; the
 * rest is unexplained (subtraction).  The bottleneck is judged top-down:
 * a full bus first, then whether the DMA's requests wait at all (if they
 * do not, the source is the limit), then the largest cause of level 2,
 * where a reason that is the symptom of a stage further down counts for
 * that stage.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view.h"

#define NONE PT_DIAG_CAUSES /* evidence that explains no stall */

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static void add_ev(struct pt_diag_entry *e, const char *what, double share, bool pcie,
		   bool saturation, enum pt_diag_cause cause)
{
	struct pt_diag_evidence *x;

	if (e->nevidence >= PT_DIAG_MAX_EVIDENCE || !(share > 0))
		return;
	x = &e->evidence[e->nevidence++];
	snprintf(x->what, sizeof x->what, "%s", what);
	x->share = share;
	x->pcie_clock = pcie;
	x->saturation = saturation;
	x->cause = cause;
}

/* ---- evidence: every share and the cause it counts for ------------------ */

/* The PTC's own reasons, each for the stage it is the symptom of. */
static void ev_ptc(const struct view *v, struct pt_diag_entry *e)
{
	enum pt_diag_cause link_or = v->rc_full ? PT_CAUSE_PCIE_LINK : PT_CAUSE_IDLE;
	enum pt_diag_cause space = PT_CAUSE_COMPLETION_SPACE;
	char label[PT_REGS_NAME_LEN];

	/* No room for completions is the usual symptom of a DOWN stream that
	 * does not drain (the FIFO really fills, or the PTC holds DOWN), or
	 * of an RC that is full; otherwise the reservation itself limits. */
	if (v->down_cause != PT_CAUSE_IDLE &&
	    (v->down.sat_port >= 0 || v->down_held >= PT_DIAG_SIG || v->st_low >= PT_DIAG_SIG))
		space = v->down_cause;
	else if (v->rc_full)
		space = PT_CAUSE_PCIE_LINK;
	if (fig_brake_driven(&v->f, PT_BRAKE_NO_FREE_TAG))
		add_ev(e, "no free PCIe tag", v->reason[PT_BRAKE_NO_FREE_TAG], true, false,
		       link_or != PT_CAUSE_IDLE ? link_or : PT_CAUSE_PCIE_TAGS);
	else /* the same cycles, seen by the tag histogram */
		add_ev(e, "PCIe tags exhausted (band none)", v->tags_empty, true, false,
		       link_or != PT_CAUSE_IDLE ? link_or : PT_CAUSE_PCIE_TAGS);
	add_ev(e, "PCIe tag not ready", v->reason[PT_BRAKE_TAG_NOT_READY], true, false,
	       PT_CAUSE_TAG_FIFO);
	add_ev(e, "no room for completions", v->reason[PT_BRAKE_NO_COMPLETION_SPACE], true, false,
	       space);
	add_ev(e, "no completion header entry", v->reason[PT_BRAKE_NO_COMPLETION_HEADER], true,
	       false, link_or != PT_CAUSE_IDLE ? link_or : PT_CAUSE_COMPLETION_HEADERS);
	if (v->other > 0)
		add_ev(e, pt_brake_label(v->other_k, label), v->other, true, false, NONE);
}

/* The RQ bus: the endpoint's refusals, and whether RQ is kept busy. */
static void ev_rq(const struct view *v, struct pt_diag_entry *e)
{
	add_ev(e, PT_BRAKE_LABEL_RQ_STALL, v->rq_s, true, false,
	       v->rq_busy ? PT_CAUSE_PCIE_LINK : PT_CAUSE_PCIE_ENDPOINT);
	if (v->rq_busy)
		add_ev(e, "RQ busy (words + not ready)", v->rq_w + v->rq_s, true, true,
		       PT_CAUSE_PCIE_LINK);
	else if (v->rq_w >= PT_DIAG_SAT)
		add_ev(e, "RQ words", v->rq_w, true, true, PT_CAUSE_PCIE_LINK);
}

/* DOWN of every port, and the PTC holding the DOWN stream. */
static void ev_down(const struct view *v, struct pt_diag_entry *e)
{
	enum pt_diag_cause held = v->down_cause != PT_CAUSE_IDLE ? v->down_cause
								 : PT_CAUSE_DMA_CONSUMER;
	char what[64];

	for (unsigned p = 0; p < v->ports; p++) {
		double w = fig_share(&v->f, fig_down(p), PT_F_WORDS);

		snprintf(what, sizeof what, "DOWN%u stalled by the DMA", p);
		add_ev(e, what, view_consumer(v, p), false, false, PT_CAUSE_DMA_CONSUMER);
		if (w >= PT_DIAG_SAT) {
			snprintf(what, sizeof what, "DOWN%u words", p);
			add_ev(e, what, w, false, true, PT_CAUSE_DMA_BUS);
		}
	}
	add_ev(e, pt_brake_info(PT_BRAKE_DOWN_MFB_HOLD)->label,
	       v->reason[PT_BRAKE_DOWN_MFB_HOLD], true, false, held);
	add_ev(e, pt_brake_info(PT_BRAKE_DOWN_MVB_HOLD)->label,
	       v->reason[PT_BRAKE_DOWN_MVB_HOLD], true, false, held);
	if (v->rc_full)
		add_ev(e, "RC words", v->rc_w, true, true, PT_CAUSE_PCIE_LINK);
}

/* The source side: UP, where the DMA's requests and write data wait. */
static void ev_up(const struct view *v, struct pt_diag_entry *e, enum pt_diag_dir dir)
{
	char what[64];

	for (unsigned p = 0; p < v->ports; p++) {
		unsigned b = fig_up(p);
		double w = fig_share(&v->f, b, PT_F_WORDS);

		if (dir == PT_DIAG_READ) {
			snprintf(what, sizeof what, "UP%u requests held (MVB stall)", p);
			add_ev(e, what, fig_share(&v->f, b, PT_F_MVB_BACKPRESSURE), false, false, NONE);
		} else if (w >= PT_DIAG_SAT) {
			snprintf(what, sizeof what, "UP%u words", p);
			add_ev(e, what, w, false, true, PT_CAUSE_DMA_BUS);
		}
	}
}

/* ---- level 1 and level 2 ---------------------------------------------------- */

static void level1(const struct view *v, struct pt_diag_entry *e)
{
	double m, s;

	if (e->dir == PT_DIAG_READ) {
		/* the read demand was held somewhere: the DMA refused DOWN, the
		 * PTC held the reads or DOWN, or the requests waited on UP */
		double held = fmax(fmax(v->down.c_mean, v->up_held),
				   fmax(v->down_held, v->up.mvb_s_mean));

		m = clamp01(v->down.w_mean);
		s = fmin(1 - m, held);
	} else {
		m = clamp01(v->up.w_mean);
		s = fmin(1 - m, v->up.s_mean);
	}
	e->moving = m;
	e->stalled = s;
	e->idle = clamp01(1 - m - s);
}

/* The largest evidence of cause c. */
static double evidence_of(const struct pt_diag_entry *e, enum pt_diag_cause c)
{
	double x = 0;

	for (unsigned i = 0; i < e->nevidence; i++)
		if (e->evidence[i].cause == c)
			x = fmax(x, e->evidence[i].share);
	return x;
}

/* The PTC's own causes share what is left in proportion: the PTC stops a
 * read for one reason at a time. */
static double ptc_group(struct pt_diag_entry *e, double left)
{
	static const enum pt_diag_cause ptc[] = {
		PT_CAUSE_PCIE_TAGS,
		PT_CAUSE_TAG_FIFO,
		PT_CAUSE_COMPLETION_SPACE,
		PT_CAUSE_COMPLETION_HEADERS,
	};
	double ev[4], sum = 0, take;

	for (unsigned i = 0; i < 4; i++)
		sum += ev[i] = evidence_of(e, ptc[i]);
	take = fmin(fmin(sum, 1), left);
	for (unsigned i = 0; sum > 0 && i < 4; i++)
		e->cause[ptc[i]] = take * ev[i] / sum;
	return take;
}

static void level2(struct pt_diag_entry *e)
{
	/* top-down: the stage nearest to the DMA first */
	static const enum pt_diag_cause order[PT_DIAG_DIRS][4] = {
		[PT_DIAG_READ] = { PT_CAUSE_DMA_CONSUMER, PT_CAUSE_DMA_BUS, PT_CAUSE_PCIE_LINK,
				   PT_CAUSE_PCIE_ENDPOINT },
		[PT_DIAG_WRITE] = { PT_CAUSE_PCIE_LINK, PT_CAUSE_PCIE_ENDPOINT,
				    PT_CAUSE_DMA_CONSUMER, PT_CAUSE_DMA_BUS },
	};
	double left = e->stalled;

	for (unsigned i = 0; i < 4; i++) {
		enum pt_diag_cause c = order[e->dir][i];
		double take = fmin(evidence_of(e, c), left);

		e->cause[c] = take;
		left -= take;
	}
	left -= ptc_group(e, left);
	e->unexplained = left > 0 ? left : 0;
}

/* ---- the bottleneck ---------------------------------------------------------- */

/* The cause of level 2 with the largest share (top-down order on ties),
 * or idle when nothing explains the stall. */
static enum pt_diag_cause largest(const struct pt_diag_entry *e)
{
	enum pt_diag_cause best = PT_CAUSE_IDLE;
	double x = 0;

	for (int c = PT_DIAG_CAUSES - 1; c >= PT_CAUSE_PCIE_LINK; c--)
		if (e->cause[c] > x) {
			x = e->cause[c];
			best = (enum pt_diag_cause)c;
		}
	return best;
}

static int dma_port(const struct view *v, enum pt_diag_cause c, enum pt_diag_dir dir)
{
	if (c == PT_CAUSE_DMA_BUS)
		return dir == PT_DIAG_READ ? v->down.sat_port >= 0 ? v->down.sat_port
								  : v->down.busy_port
					   : v->up.sat_port;
	if (c == PT_CAUSE_DMA_CONSUMER)
		return v->down.cons_port >= 0 ? v->down.cons_port : v->down.busy_port;
	return -1;
}

static enum pt_diag_cause judge_read(const struct view *v, const struct pt_diag_entry *e)
{
	if (v->down.sat_port >= 0)
		return PT_CAUSE_DMA_BUS;
	if (v->down.busy >= PT_DIAG_SAT && v->down.cons_max >= PT_DIAG_SIG)
		return PT_CAUSE_DMA_CONSUMER;
	if (v->rc_full)
		return PT_CAUSE_PCIE_LINK;
	if ((v->up.mvb_counted ? v->up.mvb_backlog : v->up_held) < PT_DIAG_BACKLOG)
		return PT_CAUSE_SOURCE;
	return largest(e);
}

static enum pt_diag_cause judge_write(const struct view *v, const struct pt_diag_entry *e)
{
	if (v->up.sat_port >= 0)
		return PT_CAUSE_DMA_BUS;
	if (v->rq_w >= PT_DIAG_SAT)
		return PT_CAUSE_PCIE_LINK;
	if (v->up.backlog < PT_DIAG_BACKLOG)
		return PT_CAUSE_SOURCE;
	return largest(e);
}

/* Reads whose requests wait with nothing counted against them wait
 * behind the writes (they share the PTC's input): the writes' limit. */
static enum pt_diag_cause fallback(const struct fig_set *m, const struct pt_layout *l,
				   const struct pt_reading *r, unsigned ep, enum pt_diag_dir dir)
{
	struct pt_diag_entry w;

	if (dir == PT_DIAG_WRITE)
		return PT_CAUSE_PCIE_ENDPOINT;
	if (diag_judge(m, l, r, ep, PT_DIAG_WRITE, &w) == 0 && w.bottleneck >= PT_CAUSE_PCIE_LINK)
		return w.bottleneck;
	return PT_CAUSE_SOURCE;
}

/* ---- the entry ----------------------------------------------------------------- */

static void unmeasured(struct pt_diag_entry *e, enum pt_diag_cause c, const char *why)
{
	e->idle = 1;
	e->bottleneck = c;
	snprintf(e->why, sizeof e->why, "%s", why);
}

int diag_judge(const struct fig_set *m, const struct pt_layout *l, const struct pt_reading *r,
	       unsigned ep, enum pt_diag_dir dir, struct pt_diag_entry *out)
{
	struct view v;

	if (!l || !r || !out || ep >= l->endpoints || (unsigned)dir >= PT_DIAG_DIRS ||
	    r->entries < pt_counter_count(l))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->ep = ep;
	out->dir = dir;
	out->port = -1;
	view_init(&v, m, l, r, ep);
	if (!v.link_up)
		return unmeasured(out, PT_CAUSE_LINK_DOWN, "the PCIe link is down"), 0;
	if (!v.measured)
		return unmeasured(out, PT_CAUSE_IDLE, "no clock cycles were counted"), 0;
	out->measured = true;
	if (!(dir == PT_DIAG_READ ? v.reads : v.writes))
		return unmeasured(out, PT_CAUSE_IDLE, dir == PT_DIAG_READ ? "no read data moved"
									: "no write data moved"),
		       0;
	if (dir == PT_DIAG_READ) {
		ev_down(&v, out);
		ev_rq(&v, out);
		ev_ptc(&v, out);
	} else {
		ev_rq(&v, out);
		if (v.reads)
			ev_ptc(&v, out);
	}
	ev_up(&v, out, dir);
	level1(&v, out);
	level2(out);
	out->bottleneck = dir == PT_DIAG_READ ? judge_read(&v, out) : judge_write(&v, out);
	if (out->bottleneck == PT_CAUSE_IDLE)
		out->bottleneck = fallback(m, l, r, ep, dir);
	out->port = dma_port(&v, out->bottleneck, dir);
	diag_why(&v, out);
	return 0;
}
