/*
 * pcie-telemetry: VHPIDIRECT shim of the firmware model for GHDL (the
 * foreign subprograms of pcie_telemetry_pkg.vhd, same argument order).
 *
 * GHDL's calling convention (llvm and gcc backends): integer in = int32_t,
 * std_logic in = uint8_t (the enumeration position: 'U' 0, 'X' 1, '0' 2,
 * '1' 3, ..., 'H' 7), a constrained array = pointer to its elements in
 * index order (element 0 of a `downto` vector is its MSB), out scalars =
 * pointers.  Vectors are read as '1'/'H' = 1, anything else 0.
 *
 * VHDL has no pointer type for foreign data, so a model or probe is an
 * integer handle (> 0) into a table here.  Each function converts its
 * std_logic vectors to words and makes exactly one call of the model API.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptm_hdl.h"

#define SL_0 2
#define SL_1 3
#define MSG_LEN 256 /* ptm_msg_t */

/* The prototypes, as pcie_telemetry_pkg.vhd declares them. */
int32_t ptm_vhpi_new(const int32_t *gen);
void ptm_vhpi_error(char *msg);
void ptm_vhpi_free(int32_t h);
void ptm_vhpi_pcie_edge(int32_t h, int32_t ep, uint8_t rst, const uint8_t *sof,
			const uint8_t *eof, const uint8_t *eof_pos, const uint8_t *src_rdy,
			const uint8_t *dst_rdy, const uint8_t *brake, const uint8_t *stfifo_free,
			const uint8_t *tag_free, const uint8_t *mps, const uint8_t *mrrs,
			uint8_t ext_tag_en, uint8_t tag10b_req_en, uint8_t rcb_size, uint8_t link_up);
void ptm_vhpi_dma_in(int32_t h, int32_t ep, const uint8_t *sof, const uint8_t *eof,
		     const uint8_t *eof_pos, const uint8_t *src_rdy, const uint8_t *dst_rdy,
		     const uint8_t *mvb_vld, const uint8_t *mvb_src_rdy,
		     const uint8_t *mvb_dst_rdy);
void ptm_vhpi_dma_edge(int32_t h, uint8_t rst);
void ptm_vhpi_mi_edge(int32_t h, uint8_t rst, uint8_t rd, uint8_t wr, const uint8_t *addr,
		      const uint8_t *dwr, uint8_t *drd, uint8_t *drdy, uint8_t *ardy);
void ptm_vhpi_mi_read(int32_t h, const uint8_t *addr, uint8_t *data);
void ptm_vhpi_mi_write(int32_t h, const uint8_t *addr, const uint8_t *data);
int32_t ptm_vhpi_probe_new(int32_t buses, int32_t regions, const int32_t *region_items,
			   int32_t eof_pos_width, int32_t brakes, int32_t drain_period);
void ptm_vhpi_probe_free(int32_t h);
int32_t ptm_vhpi_probe_channels(int32_t h);
void ptm_vhpi_probe_clk(int32_t h, uint8_t rst, const uint8_t *sof, const uint8_t *eof,
			const uint8_t *eof_pos, const uint8_t *src_rdy, const uint8_t *dst_rdy,
			const uint8_t *brake, const uint8_t *mvb_vld, const uint8_t *mvb_src_rdy,
			const uint8_t *mvb_dst_rdy, uint8_t *drain_tick, uint8_t *wr_en,
			uint8_t *wr_dropped, int32_t *wr_index, uint8_t *wr_delta,
			uint8_t *fifo_flushed);
void ptm_vhpi_probe_mi_clk(int32_t h, uint8_t mi_rst, uint8_t flag_clr, uint8_t rd,
			   uint8_t *vld, int32_t *index, uint8_t *delta, uint8_t *fifo_ovf,
			   uint8_t *overrun);
void ptm_vhpi_probe_tx(int32_t h, uint8_t *vld, int32_t *index, uint8_t *delta,
		       uint8_t *fifo_ovf, uint8_t *overrun);

/* ---- handles ---------------------------------------------------------- */

enum kind { K_FREE, K_MODEL, K_PROBE };
struct slot {
	void *p;
	enum kind kind;
};
static struct slot *slots;
static size_t nslots;

static int32_t put(void *p, enum kind kind)
{
	size_t i = 0;
	while (i < nslots && slots[i].kind != K_FREE)
		i++;
	if (i == nslots) {
		if (nslots >= INT32_MAX / 2)
			return -1;
		size_t n = nslots ? 2 * nslots : 8;
		struct slot *ns = realloc(slots, n * sizeof(*ns));
		if (!ns)
			return -1;
		memset(ns + nslots, 0, (n - nslots) * sizeof(*ns));
		slots = ns;
		nslots = n;
	}
	slots[i] = (struct slot){ .p = p, .kind = kind };
	return (int32_t)i + 1;
}

/* A handle that is not live is a testbench bug: stop loudly. */
static void *get(int32_t h, enum kind kind)
{
	if (h < 1 || (size_t)h > nslots || slots[h - 1].kind != kind) {
		fprintf(stderr, "ptm_vhpi: %d is not a live %s handle\n", (int)h,
			kind == K_MODEL ? "ptm_new" : "ptm_probe_new");
		abort();
	}
	return slots[h - 1].p;
}

static void *release(int32_t h, enum kind kind)
{
	void *p = get(h, kind);
	slots[h - 1].kind = K_FREE;
	slots[h - 1].p = NULL;
	return p;
}

/* ---- std_logic ----------------------------------------------------------- */

/* Bits [0, nbits) of a std_logic_vector(decl-1 downto 0) as words. */
static void slv_words(const uint8_t *v, unsigned decl, unsigned nbits, uint32_t *w)
{
	if (nbits > decl)
		nbits = decl;
	memset(w, 0, PTM_HDL_WORDS(nbits ? nbits : 1) * sizeof(*w));
	for (unsigned i = 0; i < nbits; i++) {
		uint8_t s = v[decl - 1 - i];
		if (s == SL_1 || s == 7)
			w[i / 32] |= 1u << (i % 32);
	}
}

static uint32_t slv32(const uint8_t *v)
{
	uint32_t w;
	slv_words(v, 32, 32, &w);
	return w;
}

static uint8_t sl(uint8_t s)
{
	return s == SL_1 || s == 7;
}

static void words_slv(uint64_t x, unsigned decl, uint8_t *v)
{
	for (unsigned i = 0; i < decl; i++)
		v[decl - 1 - i] = (i < 64 && ((x >> i) & 1)) ? SL_1 : SL_0;
}

static uint8_t to_sl(unsigned bit)
{
	return bit ? SL_1 : SL_0;
}

/* ---- PCIE_TELEMETRY_MI ----------------------------------------------------- */

/* gen: the PTM_HDL_NGENERICS generics in the order of ptm_new. */
int32_t ptm_vhpi_new(const int32_t *g)
{
	uint32_t gen[PTM_HDL_NGENERICS];
	for (unsigned i = 0; i < PTM_HDL_NGENERICS; i++)
		gen[i] = g[i] < 0 ? UINT32_MAX : (uint32_t)g[i]; /* out of every range */
	struct ptm_hdl *h;
	int rc = ptm_hdl_new(gen, &h);
	if (rc)
		return rc;
	int32_t id = put(h, K_MODEL);
	if (id < 0)
		ptm_hdl_free(h);
	return id;
}

void ptm_vhpi_error(char *msg)
{
	const char *e = ptm_hdl_last_error();
	size_t n = strlen(e);
	if (n > MSG_LEN)
		n = MSG_LEN;
	memset(msg, ' ', MSG_LEN);
	memcpy(msg, e, n);
}

void ptm_vhpi_free(int32_t h)
{
	ptm_hdl_free(release(h, K_MODEL));
}

void ptm_vhpi_pcie_edge(int32_t h, int32_t ep, uint8_t rst, const uint8_t *sof,
			const uint8_t *eof, const uint8_t *eof_pos, const uint8_t *src_rdy,
			const uint8_t *dst_rdy, const uint8_t *brake, const uint8_t *stfifo_free,
			const uint8_t *tag_free, const uint8_t *mps, const uint8_t *mrrs,
			uint8_t ext_tag_en, uint8_t tag10b_req_en, uint8_t rcb_size, uint8_t link_up)
{
	struct ptm_hdl *m = get(h, K_MODEL);
	uint32_t pos[PTM_HDL_WORDS(PTM_HDL_PCIE_POS_BITS)];
	uint32_t s = slv32(sof), e = slv32(eof);
	struct ptm_pcie_in in = {
		.rst = sl(rst),
		.brake = (uint8_t)(slv32(brake) & 0x3f),
		.stfifo_free = (uint16_t)slv32(stfifo_free),
		.tag_free = (uint16_t)(slv32(tag_free) & 0x7ff),
		.mps = (uint8_t)(slv32(mps) & 7),
		.mrrs = (uint8_t)(slv32(mrrs) & 7),
		.ext_tag_en = sl(ext_tag_en),
		.tag10b_req_en = sl(tag10b_req_en),
		.rcb_size = sl(rcb_size),
		.link_up = sl(link_up),
	};
	slv_words(eof_pos, PTM_HDL_PCIE_POS_BITS, 2 * m->pr * m->pcie_pos_w, pos);
	ptm_hdl_pcie_buses(m, &in, &s, &e, pos, slv32(src_rdy), slv32(dst_rdy));
	ptm_pcie_edge(m->m, ep < 0 ? UINT32_MAX : (unsigned)ep, &in);
}

/* The words of the MFB/MVB vectors of nbus buses of `regions` regions. */
struct vec_words {
	uint32_t sof[PTM_HDL_WORDS(PTM_HDL_VEC_BITS)], eof[PTM_HDL_WORDS(PTM_HDL_VEC_BITS)];
	uint32_t mvb[PTM_HDL_WORDS(PTM_HDL_VEC_BITS)], pos[PTM_HDL_WORDS(PTM_HDL_POS_BITS)];
};

static void vecs(struct vec_words *w, struct ptm_hdl_vecs *v, unsigned nbus, unsigned regions,
		 unsigned pos_w, const uint8_t *sof, const uint8_t *eof, const uint8_t *eof_pos,
		 const uint8_t *src_rdy, const uint8_t *dst_rdy, const uint8_t *mvb_vld,
		 const uint8_t *mvb_src_rdy, const uint8_t *mvb_dst_rdy)
{
	unsigned br = nbus * regions;
	slv_words(sof, PTM_HDL_VEC_BITS, br, w->sof);
	slv_words(eof, PTM_HDL_VEC_BITS, br, w->eof);
	slv_words(mvb_vld, PTM_HDL_VEC_BITS, br, w->mvb);
	slv_words(eof_pos, PTM_HDL_POS_BITS, br * pos_w, w->pos);
	*v = (struct ptm_hdl_vecs){
		.sof = w->sof, .eof = w->eof, .eof_pos = w->pos, .mvb_vld = w->mvb,
		.src_rdy = slv32(src_rdy), .dst_rdy = slv32(dst_rdy),
		.mvb_src_rdy = slv32(mvb_src_rdy), .mvb_dst_rdy = slv32(mvb_dst_rdy),
	};
}

void ptm_vhpi_dma_in(int32_t h, int32_t ep, const uint8_t *sof, const uint8_t *eof,
		     const uint8_t *eof_pos, const uint8_t *src_rdy, const uint8_t *dst_rdy,
		     const uint8_t *mvb_vld, const uint8_t *mvb_src_rdy,
		     const uint8_t *mvb_dst_rdy)
{
	struct ptm_hdl *m = get(h, K_MODEL);
	struct vec_words w;
	struct ptm_hdl_vecs v;
	vecs(&w, &v, m->db, m->dr, m->dma_pos_w, sof, eof, eof_pos, src_rdy, dst_rdy, mvb_vld,
	     mvb_src_rdy, mvb_dst_rdy);
	ptm_hdl_dma_in(m, ep < 0 ? UINT32_MAX : (unsigned)ep, &v);
}

void ptm_vhpi_dma_edge(int32_t h, uint8_t rst)
{
	struct ptm_hdl *m = get(h, K_MODEL);
	ptm_dma_edge(m->m, sl(rst), m->dma);
}

void ptm_vhpi_mi_edge(int32_t h, uint8_t rst, uint8_t rd, uint8_t wr, const uint8_t *addr,
		      const uint8_t *dwr, uint8_t *drd, uint8_t *drdy, uint8_t *ardy)
{
	struct ptm_hdl *m = get(h, K_MODEL);
	const struct ptm_mi_in in = {
		.rst = sl(rst), .rd = sl(rd), .wr = sl(wr), .addr = slv32(addr), .dwr = slv32(dwr),
	};
	struct ptm_mi_out out;
	ptm_mi_edge(m->m, &in, &out);
	words_slv(out.drd, 32, drd);
	*drdy = to_sl(out.drdy);
	*ardy = to_sl(out.ardy);
}

void ptm_vhpi_mi_read(int32_t h, const uint8_t *addr, uint8_t *data)
{
	struct ptm_hdl *m = get(h, K_MODEL);
	words_slv(ptm_mi_read(m->m, slv32(addr)), 32, data);
}

void ptm_vhpi_mi_write(int32_t h, const uint8_t *addr, const uint8_t *data)
{
	struct ptm_hdl *m = get(h, K_MODEL);
	ptm_mi_write(m->m, slv32(addr), slv32(data));
}

/* ---- PCIE_TELEMETRY_PROBE -------------------------------------------------- */

int32_t ptm_vhpi_probe_new(int32_t buses, int32_t regions, const int32_t *region_items,
			   int32_t eof_pos_width, int32_t brakes, int32_t drain_period)
{
	uint32_t items[PTM_MAX_PROBE_BUSES] = { 0 };
	for (int i = 0; i < PTM_MAX_PROBE_BUSES && i < buses; i++)
		items[i] = region_items[i] < 0 ? 0 : (uint32_t)region_items[i];
	struct ptm_hdl_probe *hp;
	int rc = ptm_hdl_probe_new(buses < 0 ? UINT32_MAX : (unsigned)buses,
				   regions < 0 ? 0 : (unsigned)regions, items,
				   eof_pos_width < 0 ? 0 : (unsigned)eof_pos_width,
				   brakes < 0 ? UINT32_MAX : (unsigned)brakes,
				   drain_period < 0 ? 0 : (unsigned)drain_period, &hp);
	if (rc)
		return rc;
	int32_t id = put(hp, K_PROBE);
	if (id < 0)
		ptm_hdl_probe_free(hp);
	return id;
}

void ptm_vhpi_probe_free(int32_t h)
{
	ptm_hdl_probe_free(release(h, K_PROBE));
}

int32_t ptm_vhpi_probe_channels(int32_t h)
{
	struct ptm_hdl_probe *hp = get(h, K_PROBE);
	return (int32_t)ptm_probe_channels(hp->p);
}

void ptm_vhpi_probe_clk(int32_t h, uint8_t rst, const uint8_t *sof, const uint8_t *eof,
			const uint8_t *eof_pos, const uint8_t *src_rdy, const uint8_t *dst_rdy,
			const uint8_t *brake, const uint8_t *mvb_vld, const uint8_t *mvb_src_rdy,
			const uint8_t *mvb_dst_rdy, uint8_t *drain_tick, uint8_t *wr_en,
			uint8_t *wr_dropped, int32_t *wr_index, uint8_t *wr_delta,
			uint8_t *fifo_flushed)
{
	struct ptm_hdl_probe *hp = get(h, K_PROBE);
	struct vec_words w;
	struct ptm_hdl_vecs v;
	struct ptm_bus_in bus[PTM_MAX_PROBE_BUSES];
	struct ptm_probe_clk_out out;
	vecs(&w, &v, hp->buses, hp->regions, hp->pos_w, sof, eof, eof_pos, src_rdy, dst_rdy,
	     mvb_vld, mvb_src_rdy, mvb_dst_rdy);
	ptm_hdl_buses(bus, hp->buses, hp->regions, hp->pos_w, &v);
	ptm_probe_clk(hp->p, sl(rst), bus, slv32(brake), &out);
	*drain_tick = to_sl(out.drain_tick);
	*wr_en = to_sl(out.wr_en);
	*wr_dropped = to_sl(out.wr_dropped);
	*wr_index = out.wr_index;
	words_slv(out.wr_delta, 64, wr_delta);
	*fifo_flushed = to_sl(out.fifo_flushed);
}

static void mi_out(const struct ptm_probe_mi_out *o, uint8_t *vld, int32_t *index,
		   uint8_t *delta, uint8_t *fifo_ovf, uint8_t *overrun)
{
	*vld = to_sl(o->vld);
	*index = o->index;
	words_slv(o->delta, 64, delta);
	*fifo_ovf = to_sl(o->fifo_ovf);
	*overrun = to_sl(o->overrun);
}

void ptm_vhpi_probe_mi_clk(int32_t h, uint8_t mi_rst, uint8_t flag_clr, uint8_t rd,
			   uint8_t *vld, int32_t *index, uint8_t *delta, uint8_t *fifo_ovf,
			   uint8_t *overrun)
{
	struct ptm_hdl_probe *hp = get(h, K_PROBE);
	struct ptm_probe_mi_out o;
	ptm_probe_mi_clk(hp->p, sl(mi_rst), sl(flag_clr), sl(rd), &o);
	mi_out(&o, vld, index, delta, fifo_ovf, overrun);
}

void ptm_vhpi_probe_tx(int32_t h, uint8_t *vld, int32_t *index, uint8_t *delta,
		       uint8_t *fifo_ovf, uint8_t *overrun)
{
	struct ptm_hdl_probe *hp = get(h, K_PROBE);
	struct ptm_probe_mi_out o;
	ptm_probe_tx(hp->p, &o);
	mi_out(&o, vld, index, delta, fifo_ovf, overrun);
}
