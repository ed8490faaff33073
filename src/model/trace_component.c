/*
 * pcie-telemetry: runner for the COMPONENT conformance trace
 * (trace-format.md part b): parse the header and the body, drive the model
 * edge by edge in file order and write one `R <edge> <addr> <data>` line
 * per MI read, in issue order, with the data MI_DRD carried when MI_DRDY
 * answered it (two MI edges after the request).
 *
 * Nothing is written to `out` unless the whole trace ran: the read results
 * are collected in memory first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_priv.h"
#include "model/trace_util.h"
#include "pcie_telemetry/trace.h"

/* Header generics, in the order the format requires. */
struct hdr_key {
	const char *name;
	size_t off;
};
#define G(field) offsetof(struct ptm_generics, field)
static const struct hdr_key hdr_keys[] = {
	{"PCIE_ENDPOINTS", G(pcie_endpoints)},
	{"DMA_PORTS", G(dma_ports)},
	{"PCIE_RQ_MFB_REGIONS", G(pcie_rq_mfb_regions)},
	{"PCIE_RC_MFB_REGIONS", G(pcie_rc_mfb_regions)},
	{"DMA_UP_MFB_REGIONS", G(dma_up_mfb_regions)},
	{"DMA_DOWN_MFB_REGIONS", G(dma_down_mfb_regions)},
	{"PCIE_RQ_MFB_REGION_BYTES", G(pcie_rq_mfb_region_bytes)},
	{"PCIE_RC_MFB_REGION_BYTES", G(pcie_rc_mfb_region_bytes)},
	{"DMA_UP_MFB_REGION_BYTES", G(dma_up_mfb_region_bytes)},
	{"DMA_DOWN_MFB_REGION_BYTES", G(dma_down_mfb_region_bytes)},
	{"MFB_ITEM_BYTES", G(mfb_item_bytes)},
	{"PCIE_EOF_POS_WIDTH", G(pcie_eof_pos_width)},
	{"DMA_EOF_POS_WIDTH", G(dma_eof_pos_width)},
	{"CNT_WIDTH", G(cnt_width)},
	{"DRAIN_PERIOD", G(drain_period)},
	{"TAG_CAPACITY", G(tag_capacity)},
	{"STFIFO_CAPACITY", G(stfifo_capacity)},
};
#undef G
#define NHDR (sizeof(hdr_keys) / sizeof(hdr_keys[0]))

/* Keys of the P and D lines. */
enum key_id {
	K_RST,
	K_SOF,
	K_EOF,
	K_EOF_POS,
	K_SRC_RDY,
	K_DST_RDY,
	K_BRAKE,
	K_STFIFO_FREE,
	K_TAG_FREE,
	K_MPS,
	K_MRRS,
	K_EXT_TAG_EN,
	K_TAG10B,
	K_RCB,
	K_LINK_UP,
	K_MVB_VLD,
	K_MVB_SRC_RDY,
	K_MVB_DST_RDY,
	K_COUNT
};
static const char *const key_names[K_COUNT] = {
	"rst",        "sof",           "eof",           "eof_pos",  "src_rdy", "dst_rdy",
	"brake",      "stfifo_free",   "tag_free",      "mps",      "mrrs",    "ext_tag_en",
	"tag10b_req_en", "rcb_size",   "link_up",       "mvb_vld",  "mvb_src_rdy", "mvb_dst_rdy",
};

/* Domain of a body line: 0..15 = P<e>, DOM_D, DOM_M. */
#define DOM_D 100
#define DOM_M 101
/* How many previous lines REP can reach back. */
#define REP_HISTORY 4096

struct read_res {
	uint64_t edge;
	uint32_t addr, data;
	uint8_t done;
	unsigned long line;
};

struct runner {
	struct ptm_tu_reader r;
	struct ptm_generics g;
	unsigned long gline[NHDR];
	ptm_model *m;
	unsigned pr, dr, db;          /* PCIe regions, DMA regions, DMA buses */
	uint64_t edges_decl, edges;   /* EDGES, edges run so far */
	struct ptm_pcie_in pin[PTM_MAX_ENDPOINTS];
	struct ptm_bus_in *dbus;      /* nep * db */
	uint8_t drst, mrst;
	struct ptm_tu_hex hv;
	/* reads */
	struct read_res *rd;
	size_t nrd, caprd, next_answer;
	/* REP history: domain of the last lines, and whether they were bare */
	uint16_t hist_dom[REP_HISTORY];
	uint8_t hist_bare[REP_HISTORY];
	uint64_t nhist;
};

static int oom(struct runner *u)
{
	ptm_tu_err(&u->r, NULL, "out of memory");
	return -ENOMEM;
}

/* The generic a check message is about, for its line number. */
static unsigned long generic_line(const struct runner *u, const char *msg)
{
	const char *best = NULL;
	unsigned long line = 0;
	for (size_t i = 0; i < NHDR; i++) {
		const char *p = strstr(msg, hdr_keys[i].name);
		/* PCIE_RQ_MFB_REGIONS is a prefix of PCIE_RQ_MFB_REGION_BYTES etc.:
		 * take the earliest and, at the same place, the longest. */
		if (p && (!best || p < best)) {
			best = p;
			line = u->gline[i];
		}
	}
	return line;
}

static int parse_header(struct runner *u)
{
	struct ptm_tu_reader *r = &u->r;
	int rc;
	uint64_t v;

	if ((rc = ptm_tu_next(r)) <= 0)
		return rc < 0 ? rc : ptm_tu_err(r, NULL, "empty trace, expected 'COMPONENT_TRACE 1'");
	if ((rc = ptm_tu_expect(r, "COMPONENT_TRACE", 1)) < 0)
		return rc;
	if ((rc = ptm_tu_dec_field(r, 1, "COMPONENT_TRACE", 1, 1, &v)) < 0)
		return rc;
	for (size_t i = 0; i < NHDR; i++) {
		if ((rc = ptm_tu_next(r)) <= 0)
			return rc < 0 ? rc : ptm_tu_err(r, NULL, "end of file, expected '%s'", hdr_keys[i].name);
		if ((rc = ptm_tu_expect(r, hdr_keys[i].name, 1)) < 0)
			return rc;
		if ((rc = ptm_tu_dec_field(r, 1, hdr_keys[i].name, 0, UINT32_MAX, &v)) < 0)
			return rc;
		*(unsigned *)((char *)&u->g + hdr_keys[i].off) = (unsigned)v;
		u->gline[i] = r->lineno;
	}
	if ((rc = ptm_tu_next(r)) <= 0)
		return rc < 0 ? rc : ptm_tu_err(r, NULL, "end of file, expected 'EDGES'");
	if ((rc = ptm_tu_expect(r, "EDGES", 1)) < 0)
		return rc;
	if ((rc = ptm_tu_dec_field(r, 1, "EDGES", 0, UINT64_MAX, &u->edges_decl)) < 0)
		return rc;

	char why[256];
	if (ptm_generics_check(&u->g, why, sizeof(why)) < 0)
		return ptm_tu_errf(r->msg, r->msglen, r->name, generic_line(u, why), NULL, "%s", why);

	/* FIELDS lines are informative; then BEGIN. */
	for (;;) {
		if ((rc = ptm_tu_next(r)) <= 0)
			return rc < 0 ? rc : ptm_tu_err(r, NULL, "end of file, expected 'BEGIN'");
		if (!strcmp(r->field[0], "FIELDS")) {
			if (r->nfield < 2 || (strcmp(r->field[1], "P") && strcmp(r->field[1], "D") &&
					      strcmp(r->field[1], "M")))
				return ptm_tu_err(r, "FIELDS", "expected a domain P, D or M");
			continue;
		}
		if ((rc = ptm_tu_expect(r, "BEGIN", 0)) < 0)
			return rc;
		return 0;
	}
}

/* Split "name<digits>" (D keys); returns the endpoint or -1 when there is
 * no suffix. */
static int split_ep(const char *key, char *name, size_t cap, const struct ptm_tu_reader *r, int *rc)
{
	size_t n = strlen(key), i = n;
	while (i > 0 && key[i - 1] >= '0' && key[i - 1] <= '9')
		i--;
	*rc = 0;
	if (i >= cap)
		i = cap - 1;
	memcpy(name, key, i);
	name[i] = 0;
	if (i == n)
		return -1;
	if (n - i > 3) {
		*rc = ptm_tu_err(r, key, "endpoint number out of range");
		return -1;
	}
	return atoi(key + i);
}

static int find_key(const char *name)
{
	for (int k = 0; k < K_COUNT; k++)
		if (!strcmp(name, key_names[k]))
			return k;
	return -1;
}

/* Scatter a packed vector (bus-major fields of `w` bits) into the buses. */
static void scatter_bits(struct ptm_bus_in *bus, unsigned nbus, unsigned regions,
			 const struct ptm_tu_hex *v, int which)
{
	for (unsigned b = 0; b < nbus; b++) {
		uint32_t mask = (uint32_t)ptm_tu_hex_get(v, b * regions, regions);
		if (which == K_SOF)
			bus[b].sof = mask;
		else if (which == K_EOF)
			bus[b].eof = mask;
		else
			bus[b].mvb_vld = mask;
	}
}

static void scatter_pos(struct ptm_bus_in *bus, unsigned nbus, unsigned regions, unsigned w,
			const struct ptm_tu_hex *v)
{
	for (unsigned b = 0; b < nbus; b++)
		for (unsigned r = 0; r < regions; r++)
			bus[b].eof_pos[r] = (uint16_t)ptm_tu_hex_get(v, (b * regions + r) * w, w);
}

static void scatter_rdy(struct ptm_bus_in *bus, unsigned nbus, uint64_t v, int which)
{
	for (unsigned b = 0; b < nbus; b++) {
		uint8_t bit = (uint8_t)((v >> b) & 1);
		switch (which) {
		case K_SRC_RDY: bus[b].src_rdy = bit; break;
		case K_DST_RDY: bus[b].dst_rdy = bit; break;
		case K_MVB_SRC_RDY: bus[b].mvb_src_rdy = bit; break;
		default: bus[b].mvb_dst_rdy = bit; break;
		}
	}
}

static int apply_p_key(struct runner *u, unsigned ep, const char *key, const char *val)
{
	struct ptm_tu_reader *r = &u->r;
	struct ptm_pcie_in *in = &u->pin[ep];
	int k = find_key(key), rc;
	uint64_t v;
	static const unsigned w1[K_COUNT] = {
		[K_RST] = 1, [K_SRC_RDY] = 2, [K_DST_RDY] = 2, [K_BRAKE] = 6, [K_STFIFO_FREE] = 16,
		[K_TAG_FREE] = 11, [K_MPS] = 3, [K_MRRS] = 3, [K_EXT_TAG_EN] = 1, [K_TAG10B] = 1,
		[K_RCB] = 1, [K_LINK_UP] = 1,
	};
	switch (k) {
	case K_SOF:
	case K_EOF:
		if ((rc = ptm_tu_hex_str(r, val, key, 2 * u->pr, &u->hv)) < 0)
			return rc;
		scatter_bits(in->bus, 2, u->pr, &u->hv, k);
		return 0;
	case K_EOF_POS:
		if ((rc = ptm_tu_hex_str(r, val, key, 2 * u->pr * u->g.pcie_eof_pos_width, &u->hv)) < 0)
			return rc;
		scatter_pos(in->bus, 2, u->pr, u->g.pcie_eof_pos_width, &u->hv);
		return 0;
	case K_MVB_VLD:
	case K_MVB_SRC_RDY:
	case K_MVB_DST_RDY:
	case -1:
		return ptm_tu_err(r, key, "unknown key of a P line");
	default:
		break;
	}
	if ((rc = ptm_tu_hex64_str(r, val, key, w1[k], &v)) < 0)
		return rc;
	switch (k) {
	case K_RST: in->rst = (uint8_t)v; break;
	case K_SRC_RDY:
	case K_DST_RDY: scatter_rdy(in->bus, 2, v, k); break;
	case K_BRAKE: in->brake = (uint8_t)v; break;
	case K_STFIFO_FREE: in->stfifo_free = (uint16_t)v; break;
	case K_TAG_FREE: in->tag_free = (uint16_t)v; break;
	case K_MPS: in->mps = (uint8_t)v; break;
	case K_MRRS: in->mrrs = (uint8_t)v; break;
	case K_EXT_TAG_EN: in->ext_tag_en = (uint8_t)v; break;
	case K_TAG10B: in->tag10b_req_en = (uint8_t)v; break;
	case K_RCB: in->rcb_size = (uint8_t)v; break;
	default: in->link_up = (uint8_t)v; break;
	}
	return 0;
}

static int apply_d_key(struct runner *u, const char *key, const char *val)
{
	struct ptm_tu_reader *r = &u->r;
	char name[32];
	int rc, k;
	int ep = split_ep(key, name, sizeof(name), r, &rc);
	if (rc < 0)
		return rc;
	k = find_key(name);
	if (ep < 0) {
		if (k != K_RST)
			return ptm_tu_err(r, key, k < 0 ? "unknown key of a D line"
							: "needs the endpoint number, e.g. '%s0'",
					  name);
		uint64_t v;
		if ((rc = ptm_tu_hex64_str(r, val, key, 1, &v)) < 0)
			return rc;
		u->drst = (uint8_t)v;
		return 0;
	}
	if (k < 0 || k == K_RST || (k != K_SOF && k != K_EOF && k != K_EOF_POS && k != K_SRC_RDY &&
				    k != K_DST_RDY && k != K_MVB_VLD && k != K_MVB_SRC_RDY &&
				    k != K_MVB_DST_RDY))
		return ptm_tu_err(r, key, "unknown key of a D line");
	if ((unsigned)ep >= u->g.pcie_endpoints)
		return ptm_tu_err(r, key, "endpoint %d out of range (PCIE_ENDPOINTS=%u)", ep,
				  u->g.pcie_endpoints);
	struct ptm_bus_in *bus = &u->dbus[(unsigned)ep * u->db];
	switch (k) {
	case K_SOF:
	case K_EOF:
	case K_MVB_VLD:
		if ((rc = ptm_tu_hex_str(r, val, key, u->db * u->dr, &u->hv)) < 0)
			return rc;
		scatter_bits(bus, u->db, u->dr, &u->hv, k);
		return 0;
	case K_EOF_POS:
		if ((rc = ptm_tu_hex_str(r, val, key, u->db * u->dr * u->g.dma_eof_pos_width, &u->hv)) <
		    0)
			return rc;
		scatter_pos(bus, u->db, u->dr, u->g.dma_eof_pos_width, &u->hv);
		return 0;
	default: {
		if ((rc = ptm_tu_hex_str(r, val, key, u->db, &u->hv)) < 0)
			return rc;
		scatter_rdy(bus, u->db, ptm_tu_hex_get(&u->hv, 0, u->db), k);
		return 0;
	}
	}
}

/* Parse "AAAA" or "AAAA:DDDD". */
static int parse_mi_op(struct runner *u, const char *key, char *val, int wr, struct ptm_mi_in *mi)
{
	struct ptm_tu_reader *r = &u->r;
	uint64_t a, d = 0;
	int rc;
	char *colon = strchr(val, ':');
	if (wr) {
		if (!colon)
			return ptm_tu_err(r, key, "expected ADDR:DATA, found '%s'", val);
		*colon = 0;
		if ((rc = ptm_tu_hex64_str(r, colon + 1, "wr data", 32, &d)) < 0)
			return rc;
	} else if (colon) {
		return ptm_tu_err(r, key, "a read takes an address only, found '%s'", val);
	}
	if ((rc = ptm_tu_hex64_str(r, val, wr ? "wr address" : "rd address", 32, &a)) < 0)
		return rc;
	mi->addr = (uint32_t)a;
	mi->dwr = (uint32_t)d;
	mi->rd = (uint8_t)!wr;
	mi->wr = (uint8_t)wr;
	return 0;
}

static int push_read(struct runner *u, uint32_t addr)
{
	if (u->nrd >= PTM_TRACE_MAX_RESULTS) /* the output is held in memory: bounded */
		return ptm_tu_err(&u->r, NULL, "the run gives more than %u output lines",
				  PTM_TRACE_MAX_RESULTS);
	if (u->nrd == u->caprd) {
		size_t ncap = u->caprd ? 2 * u->caprd : 256;
		struct read_res *n = realloc(u->rd, ncap * sizeof(*n));
		if (!n)
			return oom(u);
		u->rd = n;
		u->caprd = ncap;
	}
	u->rd[u->nrd++] = (struct read_res){.edge = u->edges, .addr = addr, .line = u->r.lineno};
	return 0;
}

static int mi_edge(struct runner *u, const struct ptm_mi_in *mi)
{
	struct ptm_mi_out out;
	int rc;
	if (mi->rd && (rc = push_read(u, mi->addr)) < 0)
		return rc;
	ptm_mi_edge(u->m, mi, &out);
	if (mi->rst && u->next_answer < u->nrd) {
		struct read_res *q = &u->rd[u->next_answer];
		return ptm_tu_errf(u->r.msg, u->r.msglen, u->r.name, u->r.lineno, NULL,
				   "MI_RESET cancels the read of %08" PRIx32 " issued on line %lu "
				   "(edge %" PRIu64 ") before MI_DRDY answers it",
				   q->addr, q->line, q->edge);
	}
	if (out.drdy) {
		if (u->next_answer >= u->nrd)
			return ptm_tu_err(&u->r, NULL, "MI_DRDY without a pending read (model error)");
		u->rd[u->next_answer].data = out.drd;
		u->rd[u->next_answer].done = 1;
		u->next_answer++;
	}
	return 0;
}

/* One edge of domain dom with the sticky inputs. */
static int run_edge(struct runner *u, unsigned dom, const struct ptm_mi_in *mi)
{
	if (u->edges >= u->edges_decl)
		return ptm_tu_err(&u->r, NULL, "more edges than EDGES %" PRIu64, u->edges_decl);
	int rc = 0;
	if (dom == DOM_D) {
		ptm_dma_edge(u->m, u->drst, u->dbus);
	} else if (dom == DOM_M) {
		struct ptm_mi_in idle = {.rst = u->mrst};
		rc = mi_edge(u, mi ? mi : &idle);
	} else {
		ptm_pcie_edge(u->m, dom, &u->pin[dom]);
	}
	u->edges++;
	return rc;
}

static void remember(struct runner *u, unsigned dom, int bare)
{
	unsigned i = (unsigned)(u->nhist % REP_HISTORY);
	u->hist_dom[i] = (uint16_t)dom;
	u->hist_bare[i] = (uint8_t)bare;
	u->nhist++;
}

static int do_rep(struct runner *u)
{
	struct ptm_tu_reader *r = &u->r;
	uint64_t n, k;
	int rc;
	if (r->nfield != 3)
		return ptm_tu_err(r, "REP", "expected 'REP <n> <k>'");
	if ((rc = ptm_tu_dec_field(r, 1, "REP n", 0, UINT64_MAX, &n)) < 0 ||
	    (rc = ptm_tu_dec_field(r, 2, "REP k", 1, REP_HISTORY, &k)) < 0)
		return rc;
	if (k > u->nhist)
		return ptm_tu_err(r, "REP k", "%" PRIu64 " lines asked, only %" PRIu64 " before", k,
				  u->nhist);
	uint64_t first = u->nhist - k;
	for (uint64_t i = first; i < u->nhist; i++)
		if (!u->hist_bare[i % REP_HISTORY])
			return ptm_tu_err(r, "REP",
					  "the repeated lines must be bare domain tags, line %" PRIu64
					  " of the %" PRIu64 " carries keys, an operation or is a REP",
					  i - first + 1, k);
	if (n && k > (u->edges_decl - u->edges) / n)
		return ptm_tu_err(r, "REP", "%" PRIu64 " x %" PRIu64 " edges exceed EDGES %" PRIu64, n,
				  k, u->edges_decl);
	for (uint64_t j = 0; j < n; j++)
		for (uint64_t i = first; i < first + k; i++)
			if ((rc = run_edge(u, u->hist_dom[i % REP_HISTORY], NULL)) < 0)
				return rc;
	/* A REP line cannot be repeated itself. */
	remember(u, 0, 0);
	return 0;
}

static int body_line(struct runner *u)
{
	struct ptm_tu_reader *r = &u->r;
	const char *tag = r->field[0];
	int rc;
	unsigned dom;

	if (!strcmp(tag, "REP"))
		return do_rep(u);
	if (!strcmp(tag, "D")) {
		dom = DOM_D;
	} else if (!strcmp(tag, "M")) {
		dom = DOM_M;
	} else if (tag[0] == 'P' && tag[1]) {
		uint64_t e;
		if ((rc = ptm_tu_dec_str(r, tag + 1, "P<e>", 0, 255, &e)) < 0)
			return rc;
		if (e >= u->g.pcie_endpoints)
			return ptm_tu_err(r, tag, "endpoint %" PRIu64 " out of range (PCIE_ENDPOINTS=%u)",
					  e, u->g.pcie_endpoints);
		dom = (unsigned)e;
	} else {
		return ptm_tu_err(r, NULL, "unknown record '%s' (expected P<e>, D, M, REP or END)", tag);
	}

	struct ptm_mi_in mi = {0};
	int have_op = 0;
	uint32_t seen = 0;
	for (unsigned i = 1; i < r->nfield; i++) {
		char *key, *val;
		if ((rc = ptm_tu_split_kv(r, r->field[i], &key, &val)) < 0)
			return rc;
		if (dom == DOM_M) {
			if (!strcmp(key, "rst")) {
				uint64_t v;
				if (seen & 1)
					return ptm_tu_err(r, key, "given twice on one line");
				seen |= 1;
				if ((rc = ptm_tu_hex64_str(r, val, key, 1, &v)) < 0)
					return rc;
				u->mrst = (uint8_t)v;
			} else if (!strcmp(key, "rd") || !strcmp(key, "wr")) {
				if (have_op)
					return ptm_tu_err(r, key, "a second operation on one M line");
				have_op = 1;
				if ((rc = parse_mi_op(u, key, val, key[0] == 'w', &mi)) < 0)
					return rc;
			} else {
				return ptm_tu_err(r, key, "unknown key of an M line (rst, rd, wr)");
			}
			continue;
		}
		/* Duplicates on one line are almost certainly a generator bug. */
		for (unsigned j = 1; j < i; j++)
			if (!strcmp(r->field[j], key))
				return ptm_tu_err(r, key, "given twice on one line");
		rc = dom == DOM_D ? apply_d_key(u, key, val) : apply_p_key(u, dom, key, val);
		if (rc < 0)
			return rc;
	}
	mi.rst = u->mrst;
	if ((rc = run_edge(u, dom, dom == DOM_M ? &mi : NULL)) < 0)
		return rc;
	remember(u, dom, r->nfield == 1);
	return 0;
}

static int run(struct runner *u, FILE *out)
{
	struct ptm_tu_reader *r = &u->r;
	int rc;
	if ((rc = parse_header(u)) < 0)
		return rc;
	char why[256];
	if ((rc = ptm_model_new(&u->g, &u->m, why, sizeof(why))) < 0)
		return rc == -ENOMEM ? oom(u) : ptm_tu_err(r, NULL, "%s", why);
	const struct ptm_derived *d = ptm_model_derived(u->m);
	u->pr = d->pcie_regions;
	u->dr = d->dma_regions;
	u->db = 2 * u->g.dma_ports;
	u->dbus = calloc((size_t)u->g.pcie_endpoints * u->db, sizeof(*u->dbus));
	if (!u->dbus)
		return oom(u);

	for (;;) {
		if ((rc = ptm_tu_next(r)) < 0)
			return rc;
		if (rc == 0)
			return ptm_tu_err(r, NULL, "end of file, expected 'END'");
		if (!strcmp(r->field[0], "END")) {
			if ((rc = ptm_tu_expect(r, "END", 0)) < 0)
				return rc;
			break;
		}
		if ((rc = body_line(u)) < 0)
			return rc;
	}
	if (u->edges != u->edges_decl)
		return ptm_tu_err(r, NULL, "the body has %" PRIu64 " edges, EDGES says %" PRIu64,
				  u->edges, u->edges_decl);
	unsigned long end_line = r->lineno;
	if ((rc = ptm_tu_next(r)) < 0)
		return rc;
	if (rc > 0)
		return ptm_tu_err(r, NULL, "text after END");
	r->lineno = end_line;

	/* Reads issued in the last two MI edges: the MI clock keeps running
	 * in the simulation, so let it answer them. */
	struct ptm_mi_in idle = {.rst = u->mrst};
	for (int i = 0; i < 2 && u->next_answer < u->nrd; i++) {
		struct ptm_mi_out o;
		ptm_mi_edge(u->m, &idle, &o);
		if (o.drdy) {
			u->rd[u->next_answer].data = o.drd;
			u->rd[u->next_answer++].done = 1;
		}
	}
	if (u->next_answer < u->nrd)
		return ptm_tu_errf(r->msg, r->msglen, r->name, u->rd[u->next_answer].line, NULL,
				   "the read of %08" PRIx32 " never got MI_DRDY", u->rd[u->next_answer].addr);

	fprintf(out, "COMPONENT_EXPECTED 1\n");
	for (size_t i = 0; i < u->nrd; i++)
		fprintf(out, "R %" PRIu64 " %08" PRIx32 " %08" PRIx32 "\n", u->rd[i].edge, u->rd[i].addr,
			u->rd[i].data);
	fprintf(out, "END\n");
	if (fflush(out) != 0 || ferror(out)) {
		snprintf(r->msg, r->msglen, "%s: cannot write the results", r->name);
		return -EIO;
	}
	return 0;
}

int ptm_trace_component_run(FILE *in, const char *name, FILE *out, char *msg, size_t msglen)
{
	struct runner *u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(msg, msglen, "%s: out of memory", name ? name : "(trace)");
		return -ENOMEM;
	}
	ptm_tu_init(&u->r, in, name, msg, msglen);
	int rc = run(u, out);
	ptm_tu_fini(&u->r);
	ptm_model_free(u->m);
	free(u->dbus);
	free(u->rd);
	free(u);
	return rc;
}
