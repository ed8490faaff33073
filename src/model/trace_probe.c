/*
 * pcie-telemetry: runner for the PROBE conformance trace
 * (shared spec trace-format.md part a).
 *
 * Drives one probe as the trace defines it edge by edge: inputs, CLK
 * edge, then the line's MI edges with TX_RD = 1; after the last line 400
 * more MI edges.  Every FIFO write is remembered until the read side pops
 * it (W), a FIFO reset discards it (F), or WR_FULL drops it (X).  The
 * output is rendered into memory and written only when the whole trace
 * ran.  Where the probe only counts (ptm_probe_quiet_edges) the edges of
 * an R line are skipped in one step, and an R line whose drain sweeps
 * alone exceed the output limit fails at once (docs/model.md, "Probe
 * traces"): the output and the errors are those of the per-edge run.
 */
#include "model/probe_priv.h"
#include "model/trace_priv.h"
#include "model/trace_util.h"
#include "pcie_telemetry/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FINAL_MI_EDGES 400
#define MAX_MI_EDGES 0xffffu /* per CLK edge; the RTL vectors use 0..4 */

enum col {
	C_RST,
	C_SOF,
	C_EOF,
	C_EOF_POS,
	C_SRC_RDY,
	C_DST_RDY,
	C_BRAKE,
	C_MVB_VLD,
	C_MVB_SRC_RDY,
	C_MVB_DST_RDY,
	C_MI_EDGES,
	C_FLAG_CLR,
	NCOLS
};

static const char *const col_name[NCOLS] = {
	"rst",     "sof",	  "eof",	 "eof_pos",  "src_rdy",	 "dst_rdy",
	"brake",   "mvb_vld",	  "mvb_src_rdy", "mvb_dst_rdy", "mi_edges", "flag_clr",
};

struct event {
	uint64_t cycle;
	uint64_t delta;
	uint16_t chan;
	char kind; /* T, W, F, X, or P (pending) */
};

struct run {
	struct event *ev;
	size_t nev, cap;
	size_t *fifo; /* event indices of accepted writes, FIFO order */
	size_t fhead, ftail, fcap;
	uint64_t drain_period;
	unsigned channels;
	uint32_t max;     /* output lines at most */
	int per_edge;     /* testing: every edge and MI edge singly */
	uint64_t stepped; /* CLK edges clocked singly */
};

static int push_event(struct run *r, char kind, uint64_t cycle, uint16_t chan, uint64_t delta)
{
	if (r->nev >= r->max)
		return -E2BIG; /* the output is held in memory: bounded */
	if (r->nev == r->cap) {
		size_t ncap = r->cap ? 2 * r->cap : 1024;
		struct event *ne = realloc(r->ev, ncap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		r->ev = ne;
		r->cap = ncap;
	}
	r->ev[r->nev++] = (struct event){ .cycle = cycle, .delta = delta, .chan = chan, .kind = kind };
	return 0;
}

static int push_pending(struct run *r, size_t idx)
{
	if (r->ftail == r->fcap) {
		if (r->fhead) {
			memmove(r->fifo, r->fifo + r->fhead, (r->ftail - r->fhead) * sizeof(*r->fifo));
			r->ftail -= r->fhead;
			r->fhead = 0;
		}
		if (r->ftail == r->fcap) {
			size_t ncap = r->fcap ? 2 * r->fcap : 256;
			size_t *nf = realloc(r->fifo, ncap * sizeof(*nf));
			if (!nf)
				return -ENOMEM;
			r->fifo = nf;
			r->fcap = ncap;
		}
	}
	r->fifo[r->ftail++] = idx;
	return 0;
}

struct hdr {
	struct ptm_probe_generics g;
	uint64_t cycles;
	unsigned long line_dp, line_cycles;
};

static unsigned log2c_u(uint64_t n)
{
	unsigned a = 0;
	while ((UINT64_C(1) << a) < n)
		a++;
	return a;
}

/* Next record or a "missing" error naming what was expected. */
static int need_record(struct ptm_tu_reader *rd, const char *what)
{
	int rc = ptm_tu_next(rd);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return ptm_tu_err(rd, NULL, "unexpected end of file, expected '%s'", what);
	return 0;
}

static int dec_kw(struct ptm_tu_reader *rd, const char *kw, uint64_t min, uint64_t max, uint64_t *v)
{
	int rc = need_record(rd, kw);
	if (!rc)
		rc = ptm_tu_expect(rd, kw, 1);
	if (!rc)
		rc = ptm_tu_dec_field(rd, 1, kw, min, max, v);
	return rc;
}

static int parse_header(struct ptm_tu_reader *rd, struct hdr *h)
{
	uint64_t v;
	int rc = need_record(rd, "PROBE_TRACE");
	if (rc)
		return rc;
	if (strcmp(rd->field[0], "PROBE_TRACE") != 0)
		return ptm_tu_err(rd, NULL, "not a probe trace: expected 'PROBE_TRACE 1', found '%.40s'",
				  rd->field[0]);
	if ((rc = ptm_tu_expect(rd, "PROBE_TRACE", 1)) ||
	    (rc = ptm_tu_dec_field(rd, 1, "PROBE_TRACE", 1, 1, &v)))
		return rc;
	memset(h, 0, sizeof(*h));
	if ((rc = dec_kw(rd, "BUSES", 1, PTM_MAX_PROBE_BUSES, &v)))
		return rc;
	h->g.buses = (unsigned)v;
	if ((rc = dec_kw(rd, "REGIONS", 1, PTM_MAX_REGIONS, &v)))
		return rc;
	h->g.regions = (unsigned)v;
	if ((rc = need_record(rd, "REGION_ITEMS")) || (rc = ptm_tu_expect(rd, "REGION_ITEMS", -1)))
		return rc;
	if (rd->nfield - 1 != h->g.buses)
		return ptm_tu_err(rd, "REGION_ITEMS", "has %u value%s, BUSES is %u", rd->nfield - 1,
				  rd->nfield == 2 ? "" : "s", h->g.buses);
	unsigned imax = 1;
	for (unsigned b = 0; b < h->g.buses; b++) {
		if ((rc = ptm_tu_dec_field(rd, 1 + b, "REGION_ITEMS", 1, 65536, &v)))
			return rc;
		h->g.region_items[b] = (unsigned)v;
		if (v > imax)
			imax = (unsigned)v;
	}
	if ((rc = dec_kw(rd, "EOF_POS_WIDTH", 0, 16, &v)))
		return rc;
	if (v < log2c_u(imax))
		return ptm_tu_err(rd, "EOF_POS_WIDTH",
				  "%llu bits cannot address the %u items of the largest region "
				  "(needs %u)",
				  (unsigned long long)v, imax, log2c_u(imax));
	h->g.eof_pos_width = (unsigned)v;
	if ((rc = dec_kw(rd, "BRAKES", 0, PTM_MAX_BRAKES, &v)))
		return rc;
	h->g.brakes = (unsigned)v;
	if ((rc = dec_kw(rd, "DRAIN_PERIOD", 1, UINT64_C(1) << 30, &v)))
		return rc;
	if (v & (v - 1))
		return ptm_tu_err(rd, "DRAIN_PERIOD", "%llu is not a power of two",
				  (unsigned long long)v);
	h->g.drain_period = (unsigned)v;
	h->line_dp = rd->lineno;
	unsigned ch = 1 + h->g.buses * (6 + h->g.regions) + h->g.brakes;
	unsigned sweep = 8 * ((ch + 7) / 8 + 1);
	if (v <= sweep)
		return ptm_tu_err(rd, "DRAIN_PERIOD",
				  "%llu does not exceed the drain sweep of %u cycles (%u channels)",
				  (unsigned long long)v, sweep, ch);
	if ((rc = dec_kw(rd, "CYCLES", 0, UINT64_MAX, &v)))
		return rc;
	h->cycles = v;
	h->line_cycles = rd->lineno;
	if ((rc = need_record(rd, "COLUMNS")) || (rc = ptm_tu_expect(rd, "COLUMNS", NCOLS)))
		return rc;
	for (unsigned c = 0; c < NCOLS; c++)
		if (strcmp(rd->field[1 + c], col_name[c]) != 0)
			return ptm_tu_err(rd, "COLUMNS", "column %u is '%.40s', expected '%s'", c + 1,
					  rd->field[1 + c], col_name[c]);
	if ((rc = need_record(rd, "BEGIN")) || (rc = ptm_tu_expect(rd, "BEGIN", 0)))
		return rc;
	return 0;
}

struct line_in {
	int rst;
	uint32_t brake;
	unsigned mi_edges;
	int flag_clr;
	struct ptm_bus_in bus[PTM_MAX_PROBE_BUSES];
};

static int parse_data(struct ptm_tu_reader *rd, const struct hdr *h, struct ptm_tu_hex *tmp,
		      struct line_in *li)
{
	const unsigned B = h->g.buses, R = h->g.regions, W = h->g.eof_pos_width;
	const unsigned width[NCOLS] = {
		[C_RST] = 1,	     [C_SOF] = B * R,	      [C_EOF] = B * R,
		[C_EOF_POS] = B * R * W, [C_SRC_RDY] = B,	      [C_DST_RDY] = B,
		[C_BRAKE] = h->g.brakes ? h->g.brakes : 1,    [C_MVB_VLD] = B * R,
		[C_MVB_SRC_RDY] = B, [C_MVB_DST_RDY] = B, [C_MI_EDGES] = 16,
		[C_FLAG_CLR] = 1,
	};
	if (rd->nfield != NCOLS)
		return ptm_tu_err(rd, NULL, "data line has %u field%s, expected %u (%s ... %s)",
				  rd->nfield, rd->nfield == 1 ? "" : "s", NCOLS, col_name[0],
				  col_name[NCOLS - 1]);
	uint64_t v[NCOLS];
	for (unsigned c = 0; c < NCOLS; c++) {
		int rc = ptm_tu_hex_field(rd, c, col_name[c], width[c], tmp);
		if (rc)
			return rc;
		if (c == C_EOF_POS) {
			for (unsigned j = 0; j < B * R; j++)
				li->bus[j / R].eof_pos[j % R] =
					(uint16_t)ptm_tu_hex_get(tmp, j * W, W);
			v[c] = 0;
		} else {
			v[c] = ptm_tu_hex_get(tmp, 0, 64);
		}
	}
	if (v[C_MI_EDGES] > MAX_MI_EDGES)
		return ptm_tu_err(rd, "mi_edges", "%llu MI edges in one CLK cycle, at most %u",
				  (unsigned long long)v[C_MI_EDGES], MAX_MI_EDGES);
	li->rst = (int)v[C_RST];
	li->brake = h->g.brakes ? (uint32_t)v[C_BRAKE] : 0;
	li->mi_edges = (unsigned)v[C_MI_EDGES];
	li->flag_clr = (int)v[C_FLAG_CLR];
	const uint32_t rm = (uint32_t)((UINT64_C(1) << R) - 1);
	for (unsigned b = 0; b < B; b++) {
		struct ptm_bus_in *bi = &li->bus[b];
		bi->sof = (uint32_t)(v[C_SOF] >> (b * R)) & rm;
		bi->eof = (uint32_t)(v[C_EOF] >> (b * R)) & rm;
		bi->mvb_vld = (uint32_t)(v[C_MVB_VLD] >> (b * R)) & rm;
		bi->src_rdy = (uint8_t)((v[C_SRC_RDY] >> b) & 1);
		bi->dst_rdy = (uint8_t)((v[C_DST_RDY] >> b) & 1);
		bi->mvb_src_rdy = (uint8_t)((v[C_MVB_SRC_RDY] >> b) & 1);
		bi->mvb_dst_rdy = (uint8_t)((v[C_MVB_DST_RDY] >> b) & 1);
	}
	return 0;
}

/* The sof/eof/mvb_vld vectors are up to 32*16 bits wide: extract per bus
 * from the wide value, not from a 64-bit truncation. */
static int parse_data_wide(struct ptm_tu_reader *rd, const struct hdr *h, struct ptm_tu_hex *tmp,
			   struct line_in *li)
{
	int rc = parse_data(rd, h, tmp, li);
	if (rc)
		return rc;
	const unsigned B = h->g.buses, R = h->g.regions;
	if ((uint64_t)B * R <= 64 && B <= 64)
		return 0;
	/* Re-extract the wide vectors bus by bus. */
	static const enum col wide[] = { C_SOF, C_EOF, C_MVB_VLD };
	for (unsigned k = 0; k < 3; k++) {
		if ((rc = ptm_tu_hex_field(rd, wide[k], col_name[wide[k]], B * R, tmp)))
			return rc;
		for (unsigned b = 0; b < B; b++) {
			uint32_t x = (uint32_t)ptm_tu_hex_get(tmp, b * R, R);
			if (wide[k] == C_SOF)
				li->bus[b].sof = x;
			else if (wide[k] == C_EOF)
				li->bus[b].eof = x;
			else
				li->bus[b].mvb_vld = x;
		}
	}
	return 0;
}

/* The FIFO pop of an MI edge: the oldest accepted write was read out. */
static int popped(struct run *r, const struct ptm_probe_mi_out *mo)
{
	if (r->fhead == r->ftail)
		return -EPROTO; /* a pop without a write: model bug */
	struct event *e = &r->ev[r->fifo[r->fhead++]];
	if (e->chan != mo->index || e->delta != mo->delta)
		return -EPROTO;
	e->kind = 'W';
	return 0;
}

/* The line's MI edges after a CLK edge.  Batched, the pops are the
 * oldest accepted writes in FIFO order, as single edges pop them; the
 * last one is checked against the model's output. */
static int run_mi_edges(ptm_probe *p, struct run *r, const struct line_in *li)
{
	struct ptm_probe_mi_out mo;
	if (!r->per_edge && li->mi_edges > 1) {
		uint64_t n = ptm_probe_mi_clk_batch(p, 0, li->flag_clr, 1, li->mi_edges, &mo);
		if (n > r->ftail - r->fhead)
			return -EPROTO;
		for (; n > 1; n--)
			r->ev[r->fifo[r->fhead++]].kind = 'W';
		return n ? popped(r, &mo) : 0;
	}
	for (unsigned i = 0; i < li->mi_edges; i++) {
		ptm_probe_mi_clk(p, 0, li->flag_clr, 1, &mo);
		int rc = mo.vld ? popped(r, &mo) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

static int run_edge(ptm_probe *p, struct run *r, uint64_t cycle, const struct line_in *li)
{
	struct ptm_probe_clk_out co;
	ptm_probe_clk(p, li->rst, li->bus, li->brake, &co);
	if (co.fifo_flushed) {
		for (size_t i = r->fhead; i < r->ftail; i++)
			r->ev[r->fifo[i]].kind = 'F';
		r->fhead = r->ftail = 0;
	}
	int rc;
	if (co.drain_tick && (rc = push_event(r, 'T', cycle, 0, 0)))
		return rc;
	if (co.wr_en) {
		if ((rc = push_event(r, co.wr_dropped ? 'X' : 'P', cycle, co.wr_index, co.wr_delta)))
			return rc;
		if (!co.wr_dropped && (rc = push_pending(r, r->nev - 1)))
			return rc;
	}
	r->stepped++;
	return run_mi_edges(p, r, li);
}

static int render(const struct run *r, int ovf, int overrun, char **buf, size_t *len)
{
	FILE *m = open_memstream(buf, len);
	if (!m)
		return -errno;
	fputs("PROBE_EXPECTED 1\n", m);
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		if (e->kind == 'T')
			fprintf(m, "T %llu\n", (unsigned long long)e->cycle);
		else if (e->kind != 'P')
			fprintf(m, "%c %llu %u %llu\n", e->kind, (unsigned long long)e->cycle,
				(unsigned)e->chan, (unsigned long long)e->delta);
	}
	fprintf(m, "FLAGS %d %d\nEND\n", ovf, overrun);
	if (fclose(m) != 0)
		return -ENOMEM;
	return 0;
}

/*
 * The next n edges of line li certainly push more output lines than the
 * limit leaves: out of reset for good (RESET = 0, the MI_RESET
 * synchroniser clear), every DRAIN_TICK among them pushes a T, and the
 * sweep it starts presents all CHANNELS deltas to the FIFO (a W, F or X
 * each) within one drain period, so before the next tick.  The edge by
 * edge run would stop at this line with E2BIG: say so at once.
 */
static int over_limit(const ptm_probe *p, const struct run *r, const struct line_in *li,
		      uint64_t n)
{
	const uint64_t t = ptm_probe_edges_to_tick(p); /* the first tick is edge t */
	if (li->rst || ptm_probe_mi_reset(p) || n <= t)
		return 0;
	const uint64_t ticks = 1 + (n - 1 - t) / r->drain_period, left = r->max - r->nev;
	return ticks > left || ticks + (ticks - 1) * r->channels > left;
}

/* reps edges of line li, skipping the stretches in which the probe only
 * counts (ptm_probe_quiet_edges), so that the cost follows the drain
 * sweeps and the output, not the edges. */
static int run_bulk(ptm_probe *p, struct run *r, uint64_t *cycle, uint64_t reps,
		    const struct line_in *li)
{
	while (reps) {
		if (over_limit(p, r, li, reps))
			return -E2BIG;
		uint64_t k = ptm_probe_quiet_edges(p, li->rst, li->flag_clr, li->mi_edges);
		if (k && (!li->rst || r->fhead == r->ftail)) {
			k = k < reps ? k : reps;
			ptm_probe_quiet_run(p, li->rst, li->bus, li->brake, li->flag_clr,
					    li->mi_edges, k);
		} else {
			int rc = run_edge(p, r, *cycle, li);
			if (rc)
				return rc;
			k = 1;
		}
		*cycle += k;
		reps -= k;
	}
	return 0;
}

/* One repeat of R lines, or one data line, clocked `reps` times. */
static int run_edges(struct ptm_tu_reader *rd, ptm_probe *p, struct run *r, uint64_t *cycle,
		     uint64_t reps, const struct line_in *li)
{
	int rc = 0;
	if (!r->per_edge)
		rc = run_bulk(p, r, cycle, reps, li);
	for (uint64_t i = 0; r->per_edge && !rc && i < reps; i++, (*cycle)++)
		rc = run_edge(p, r, *cycle, li);
	if (rc == -EPROTO)
		ptm_tu_err(rd, NULL, "internal error: FIFO read-out out of order");
	else if (rc == -E2BIG)
		rc = ptm_tu_err(rd, NULL, "the run gives more than %u output lines", r->max);
	else if (rc)
		ptm_tu_err(rd, NULL, "out of memory");
	return rc;
}

/* The END line: the body must have had CYCLES edges. */
static int body_end(struct ptm_tu_reader *rd, const struct hdr *h, uint64_t cycle)
{
	int rc = ptm_tu_expect(rd, "END", 0);

	if (rc == 0 && cycle != h->cycles)
		rc = ptm_tu_err(rd, NULL, "body has %llu CLK edges, CYCLES (line %lu) says %llu",
				(unsigned long long)cycle, h->line_cycles,
				(unsigned long long)h->cycles);
	return rc;
}

/* The body, line by line, up to and including END. */
static int run_body(struct ptm_tu_reader *rd, const struct hdr *h, ptm_probe *p, struct run *r,
		    struct ptm_tu_hex *tmp, struct line_in *li)
{
	uint64_t cycle = 0;
	int have_line = 0, ended = 0, rc;

	while ((rc = ptm_tu_next(rd)) > 0) {
		uint64_t reps = 1;

		if (ended)
			return ptm_tu_err(rd, NULL, "'%.40s' after END", rd->field[0]);
		if (strcmp(rd->field[0], "END") == 0) {
			if ((rc = body_end(rd, h, cycle)))
				return rc;
			ended = 1;
			continue;
		}
		if (strcmp(rd->field[0], "R") == 0) {
			if ((rc = ptm_tu_expect(rd, "R", 1)))
				return rc;
			if (!have_line)
				return ptm_tu_err(rd, "R", "repeat before the first data line");
			if ((rc = ptm_tu_dec_field(rd, 1, "R", 0, UINT64_MAX, &reps)))
				return rc;
		} else {
			if ((rc = parse_data_wide(rd, h, tmp, li)))
				return rc;
			have_line = 1;
		}
		if (reps > h->cycles - cycle)
			return ptm_tu_err(rd, NULL, "body exceeds CYCLES %llu (line %lu)",
					  (unsigned long long)h->cycles, h->line_cycles);
		if ((rc = run_edges(rd, p, r, &cycle, reps, li)))
			return rc;
	}
	if (rc < 0)
		return rc;
	return ended ? 0 : ptm_tu_err(rd, NULL, "missing END");
}

/* The read side drains the FIFO after the last line; then the output. */
static int finish(struct ptm_tu_reader *rd, ptm_probe *p, struct run *r, const struct line_in *li,
		  FILE *out, char *msg, size_t msglen)
{
	struct ptm_probe_mi_out mo = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int rc;

	for (unsigned i = 0; i < FINAL_MI_EDGES; i++) {
		ptm_probe_mi_clk(p, 0, li->flag_clr, 1, &mo);
		if (mo.vld && r->fhead < r->ftail)
			r->ev[r->fifo[r->fhead++]].kind = 'W';
	}
	ptm_probe_tx(p, &mo);
	if ((rc = render(r, mo.fifo_ovf, mo.overrun, &buf, &len))) {
		snprintf(msg, msglen, "%s: out of memory", rd->name);
	} else if (fwrite(buf, 1, len, out) != len || fflush(out) != 0) {
		rc = -EIO;
		snprintf(msg, msglen, "%s: write error on the output", rd->name);
	}
	free(buf);
	return rc;
}

int ptm_trace_probe_run_opt(FILE *in, const char *name, FILE *out, char *msg, size_t msglen,
			    struct ptm_trace_probe_opt *opt)
{
	struct ptm_tu_reader rd;
	struct hdr h;
	struct run r = { .max = PTM_TRACE_MAX_RESULTS };
	ptm_probe *p = NULL;
	struct ptm_tu_hex *tmp = malloc(sizeof(*tmp));
	struct line_in *li = calloc(1, sizeof(*li));
	char gmsg[200];
	int rc;

	if (opt) {
		r.per_edge = opt->per_edge;
		if (opt->max_results)
			r.max = opt->max_results;
	}
	ptm_tu_init(&rd, in, name, msg, msglen);
	if (!tmp || !li) {
		rc = -ENOMEM;
		snprintf(msg, msglen, "%s: out of memory", rd.name);
	} else if ((rc = parse_header(&rd, &h)) == 0 &&
		   (rc = ptm_probe_new(&h.g, &p, gmsg, sizeof(gmsg))) != 0) {
		ptm_tu_errf(msg, msglen, rd.name, h.line_dp, NULL, "%s", gmsg);
	}
	if (rc == 0) {
		r.drain_period = h.g.drain_period;
		r.channels = ptm_probe_channels(p);
		rc = run_body(&rd, &h, p, &r, tmp, li);
	}
	if (rc == 0)
		rc = finish(&rd, p, &r, li, out, msg, msglen);
	if (opt)
		opt->stepped = r.stepped;
	ptm_probe_free(p);
	free(r.ev);
	free(r.fifo);
	free(tmp);
	free(li);
	ptm_tu_fini(&rd);
	return rc;
}

int ptm_trace_probe_run(FILE *in, const char *name, FILE *out, char *msg, size_t msglen)
{
	return ptm_trace_probe_run_opt(in, name, out, msg, msglen, NULL);
}
