/*
 * pcie-telemetry: the register map of PCIE_TELEMETRY_MI, major version 2
 * (firmware-behavior.md 3.2 and 3.4, register-image.md, report-format.md
 * 3.3).
 *
 * The one place where register offsets, fields, COMMAND and STATUS bits,
 * the magic, the major version, the MI address decode, the BRAKE reasons
 * and the names of the histograms and their bands are written down.  The
 * firmware model encodes its registers with it, the reader and the
 * backends decode with it, the renderers take their labels from it.
 * Nothing here knows of buses, layouts or readings.
 *
 * Fields are read and written through pt_field_get() / pt_field_put(); with
 * a constant field the compiler folds either into a shift and a mask.
 *
 * Prefixes: PT_REG_ / pt_reg_ (registers), PT_FIELD_ / pt_field_ (fields),
 * PT_CMD_, PT_STATUS_ (bits), pt_addr_ (MI address decode), PT_BRAKE_ /
 * pt_brake_ (BRAKE reasons), pt_hist_, pt_band_ (histograms).
 */
#ifndef PCIE_TELEMETRY_REGS_H
#define PCIE_TELEMETRY_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Identity: MAGIC reads "PTLM"; a reader needs major version 2 and takes
 * any minor (a minor version only adds). */
#define PT_MAGIC 0x50544C4Du
#define PT_VERSION_MAJOR 2u
#define PT_VERSION_MINOR 0u /* the minor this map describes (the model's) */

/* The component's address window, and the counter window in its upper
 * half (MI_ADDR(15) = 1; CNT_BASE reads this offset). */
#define PT_COMP_SPAN 0x10000u
#define PT_CNT_WINDOW 0x8000u

/* Per-endpoint register blocks hold 16 endpoints. */
#define PT_MAX_ENDPOINTS 16
/* Configuration registers: the 16 words at 0x00 .. 0x3C. */
#define PT_CFG_REGS 16

/*
 * Registers: X(NAME, OFFSET, PER_ENDPOINT).  A per-endpoint register of
 * endpoint e is at OFFSET + 4 e (pt_reg_ep()).
 */
#define PT_REG_LIST(X)                  \
	X(MAGIC, 0x00, 0)               \
	X(VERSION, 0x04, 0)             \
	X(CFG_TOPOLOGY, 0x08, 0)        \
	X(CFG_LAYOUT, 0x0C, 0)          \
	X(CFG_PCIE, 0x10, 0)            \
	X(CFG_DMA, 0x14, 0)             \
	X(CFG_DRAIN, 0x18, 0)           \
	X(CNT_BASE, 0x1C, 0)            \
	X(COMMAND, 0x20, 0)             \
	X(STATUS, 0x24, 0)              \
	X(READ_SEL, 0x28, 0)            \
	X(CFG_REGIONS, 0x2C, 0)         \
	X(CFG_WIDTH, 0x30, 0)           \
	X(CFG_HIST, 0x34, 0)            \
	X(CFG_CAPACITY, 0x38, 0)        \
	X(CFG_WIDTH_DMA, 0x3C, 0)       \
	X(PCIE_STATUS, 0x40, 1)         \
	X(PCIE_TAGS, 0x80, 1)           \
	X(PCIE_STFIFO, 0xC0, 1)

/* Register byte offsets: PT_REG_MAGIC = 0x00, ... */
enum pt_reg {
#define PT_REG_ENUM_(name, off, per_ep) PT_REG_##name = off,
	PT_REG_LIST(PT_REG_ENUM_)
#undef PT_REG_ENUM_
};

/* The word number of a register (its index in a cfg[] array of the
 * configuration registers, and its number in the MI decode). */
#define PT_REG_NUM(reg) ((unsigned)(reg) / 4u)

/* The register of endpoint ep in a per-endpoint block (the macro is a
 * constant expression for constant arguments). */
#define PT_REG_EP(base, ep) ((uint32_t)(base) + 4u * (uint32_t)(ep))
static inline uint32_t pt_reg_ep(enum pt_reg base, unsigned ep)
{
	return PT_REG_EP(base, ep);
}

/* "CFG_TOPOLOGY"; NULL for an offset that names no register.  For a
 * per-endpoint register any endpoint's offset gives the block's name. */
const char *pt_reg_name(uint32_t off);

/* COMMAND bits (write only; each a one-cycle pulse, CLEAR_FLAGS toggles
 * the probes' flag-clear level). */
enum pt_cmd_bit {
	PT_CMD_BIT_SNAPSHOT = 0,
	PT_CMD_BIT_CLEAR = 1,
	PT_CMD_BIT_CLEAR_FLAGS = 2,
	PT_CMD_BIT_CLEAR_MARKS = 3,
};
#define PT_CMD_SNAPSHOT (1u << PT_CMD_BIT_SNAPSHOT)
#define PT_CMD_CLEAR (1u << PT_CMD_BIT_CLEAR)
#define PT_CMD_CLEAR_FLAGS (1u << PT_CMD_BIT_CLEAR_FLAGS)
#define PT_CMD_CLEAR_MARKS (1u << PT_CMD_BIT_CLEAR_MARKS)

/* STATUS bits. */
enum pt_status_bit {
	PT_STATUS_BIT_BUSY = 0,
	PT_STATUS_BIT_LOST_DELTAS = 1, /* OR of every probe's FIFO overflow */
	PT_STATUS_BIT_OVERRUN = 2,     /* OR of every probe's read-out overrun */
};
#define PT_STATUS_BUSY (1u << PT_STATUS_BIT_BUSY)
#define PT_STATUS_LOST_DELTAS (1u << PT_STATUS_BIT_LOST_DELTAS)
#define PT_STATUS_OVERRUN (1u << PT_STATUS_BIT_OVERRUN)

/* READ_SEL bit 0: 1 reads the live counters, 0 the snapshot copy. */
#define PT_READ_SEL_BIT_LIVE 0

/*
 * Fields: X(ID, REGISTER, SHIFT, WIDTH, NAME).  NAME is the field's name
 * in docs and messages; the generics of the same meaning are named in the
 * comments of docs/counters.md.  Values wider than a field are truncated
 * to it, as the firmware does.
 */
#define PT_FIELD_LIST(X)                                                             \
	X(MAGIC, MAGIC, 0, 32, "MAGIC")                                              \
	X(VERSION_MINOR, VERSION, 0, 16, "MINOR")                                    \
	X(VERSION_MAJOR, VERSION, 16, 16, "MAJOR")                                   \
	X(TOPO_ENDPOINTS, CFG_TOPOLOGY, 0, 8, "ENDPOINTS")                           \
	X(TOPO_DMA_PORTS, CFG_TOPOLOGY, 8, 8, "DMA_PORTS")                           \
	X(TOPO_PROBES, CFG_TOPOLOGY, 16, 8, "STREAMS")                               \
	X(LAYOUT_ENTRIES, CFG_LAYOUT, 0, 16, "ENTRIES")                              \
	X(LAYOUT_CNT_WIDTH, CFG_LAYOUT, 16, 8, "CNT_WIDTH")                          \
	X(LAYOUT_EP_CHANNELS, CFG_LAYOUT, 24, 8, "EP_CHANNELS")                      \
	X(PCIE_CHANNELS, CFG_PCIE, 0, 8, "CHANNELS")                                 \
	X(PCIE_BUSES, CFG_PCIE, 8, 8, "BUSES")                                       \
	X(PCIE_REGIONS, CFG_PCIE, 16, 8, "REGIONS")                                  \
	X(PCIE_BRAKES, CFG_PCIE, 24, 8, "BRAKES")                                    \
	X(DMA_CHANNELS, CFG_DMA, 0, 8, "CHANNELS")                                   \
	X(DMA_BUSES, CFG_DMA, 8, 8, "BUSES")                                         \
	X(DMA_REGIONS, CFG_DMA, 16, 8, "REGIONS")                                    \
	X(DMA_BRAKES, CFG_DMA, 24, 8, "BRAKES")                                      \
	X(DRAIN_PERIOD, CFG_DRAIN, 0, 16, "DRAIN_PERIOD")                            \
	X(DRAIN_ITEM_BYTES, CFG_DRAIN, 16, 8, "MFB_ITEM_BYTES")                      \
	X(CNT_BASE, CNT_BASE, 0, 32, "CNT_BASE")                                     \
	X(COMMAND_SNAPSHOT, COMMAND, PT_CMD_BIT_SNAPSHOT, 1, "SNAPSHOT")             \
	X(COMMAND_CLEAR, COMMAND, PT_CMD_BIT_CLEAR, 1, "CLEAR")                      \
	X(COMMAND_CLEAR_FLAGS, COMMAND, PT_CMD_BIT_CLEAR_FLAGS, 1, "CLEAR_FLAGS")    \
	X(COMMAND_CLEAR_MARKS, COMMAND, PT_CMD_BIT_CLEAR_MARKS, 1, "CLEAR_MARKS")    \
	X(STATUS_BUSY, STATUS, PT_STATUS_BIT_BUSY, 1, "BUSY")                        \
	X(STATUS_LOST_DELTAS, STATUS, PT_STATUS_BIT_LOST_DELTAS, 1, "LOST_DELTAS")   \
	X(STATUS_OVERRUN, STATUS, PT_STATUS_BIT_OVERRUN, 1, "OVERRUN")               \
	X(READ_SEL_LIVE, READ_SEL, PT_READ_SEL_BIT_LIVE, 1, "LIVE")                  \
	X(REGIONS_RQ, CFG_REGIONS, 0, 8, "RQ")                                       \
	X(REGIONS_RC, CFG_REGIONS, 8, 8, "RC")                                       \
	X(REGIONS_UP, CFG_REGIONS, 16, 8, "UP")                                      \
	X(REGIONS_DOWN, CFG_REGIONS, 24, 8, "DOWN")                                  \
	X(WIDTH_RQ_BYTES, CFG_WIDTH, 0, 16, "RQ_BYTES")                              \
	X(WIDTH_RC_BYTES, CFG_WIDTH, 16, 16, "RC_BYTES")                             \
	X(HIST_BANDS, CFG_HIST, 0, 8, "BANDS")                                       \
	X(HIST_PCIE, CFG_HIST, 8, 8, "PCIE_HISTS")                                   \
	X(HIST_DMA, CFG_HIST, 16, 8, "DMA_HISTS")                                    \
	X(CAP_TAGS, CFG_CAPACITY, 0, 16, "TAG_CAPACITY")                             \
	X(CAP_STFIFO, CFG_CAPACITY, 16, 16, "STFIFO_CAPACITY")                       \
	X(WIDTH_UP_BYTES, CFG_WIDTH_DMA, 0, 16, "UP_BYTES")                          \
	X(WIDTH_DOWN_BYTES, CFG_WIDTH_DMA, 16, 16, "DOWN_BYTES")                     \
	X(EP_MPS, PCIE_STATUS, 0, 3, "MPS")                                          \
	X(EP_MRRS, PCIE_STATUS, 3, 3, "MRRS")                                        \
	X(EP_EXT_TAG, PCIE_STATUS, 6, 1, "EXT_TAG")                                  \
	X(EP_TAG_10B, PCIE_STATUS, 7, 1, "TAG_10B")                                  \
	X(EP_RCB, PCIE_STATUS, 8, 1, "RCB")                                          \
	X(EP_LINK_UP, PCIE_STATUS, 9, 1, "LINK_UP")                                  \
	X(TAGS_NOW, PCIE_TAGS, 0, 16, "FREE")                                        \
	X(TAGS_MIN, PCIE_TAGS, 16, 16, "FREE_MIN")                                   \
	X(STFIFO_NOW, PCIE_STFIFO, 0, 16, "FREE")                                    \
	X(STFIFO_MIN, PCIE_STFIFO, 16, 16, "FREE_MIN")

/* Field identifiers: PT_FIELD_MAGIC, PT_FIELD_VERSION_MINOR, ... */
enum pt_field {
#define PT_FIELD_ENUM_(id, reg, shift, width, name) PT_FIELD_##id,
	PT_FIELD_LIST(PT_FIELD_ENUM_)
#undef PT_FIELD_ENUM_
	PT_FIELD_COUNT
};

/* One row of the field table. */
struct pt_field_info {
	const char *name;    /* "ENDPOINTS" */
	enum pt_reg reg;     /* its register (per-endpoint: the block's base) */
	unsigned shift, width;
};

/* The table, in register order; NULL for f >= PT_FIELD_COUNT. */
const struct pt_field_info *pt_field_info(enum pt_field f);

/* Register, shift and width of field f; with a constant f the compiler
 * folds the switch away. */
struct pt_field_desc {
	enum pt_reg reg;
	unsigned shift, width;
};

static inline struct pt_field_desc pt_field_desc(enum pt_field f)
{
	switch (f) {
#define PT_FIELD_DESC_(id, reg, shift, width, name) \
	case PT_FIELD_##id: {                        \
		struct pt_field_desc d = { PT_REG_##reg, shift, width }; \
		return d;                            \
	}
		PT_FIELD_LIST(PT_FIELD_DESC_)
#undef PT_FIELD_DESC_
	default: {
		struct pt_field_desc none = { PT_REG_MAGIC, 0, 0 };
		return none;
	}
	}
}

static inline enum pt_reg pt_field_reg(enum pt_field f)
{
	return pt_field_desc(f).reg;
}

static inline unsigned pt_field_shift(enum pt_field f)
{
	return pt_field_desc(f).shift;
}

static inline unsigned pt_field_width(enum pt_field f)
{
	return pt_field_desc(f).width;
}

/* The largest value a field holds. */
static inline uint32_t pt_field_max(enum pt_field f)
{
	return (uint32_t)((UINT64_C(1) << pt_field_width(f)) - 1u);
}

/* Field f of a register value. */
static inline uint32_t pt_field_get(enum pt_field f, uint32_t regval)
{
	return (regval >> pt_field_shift(f)) & pt_field_max(f);
}

/* v, truncated to field f, in its place (to OR into a register value). */
static inline uint32_t pt_field_put(enum pt_field f, uint32_t v)
{
	return (v & pt_field_max(f)) << pt_field_shift(f);
}

/* Field f of a configuration register, from the 16 words at 0x00..0x3C. */
static inline uint32_t pt_field_cfg(const uint32_t cfg[PT_CFG_REGS], enum pt_field f)
{
	return pt_field_get(f, cfg[PT_REG_NUM(pt_field_reg(f)) % PT_CFG_REGS]);
}

/*
 * The MI address as the component decodes it (firmware-behavior.md 3.4).
 * MI_ADDR(15) selects the counter window; below it only MI_ADDR(7:2)
 * count, so the registers repeat every 0x100 bytes: MI_ADDR(7:6) selects
 * the configuration block or one of the three per-endpoint blocks, and
 * MI_ADDR(5:2) the register or the endpoint in it.  In the window,
 * MI_ADDR(3 and up) is the counter entry (bits above ENTRIES ignored) and
 * MI_ADDR(2) picks bits 63:32 of the counter.
 */
enum pt_addr_block {
	PT_ADDR_BLOCK_CFG = PT_REG_MAGIC >> 6,
	PT_ADDR_BLOCK_PCIE_STATUS = PT_REG_PCIE_STATUS >> 6,
	PT_ADDR_BLOCK_PCIE_TAGS = PT_REG_PCIE_TAGS >> 6,
	PT_ADDR_BLOCK_PCIE_STFIFO = PT_REG_PCIE_STFIFO >> 6,
};

static inline bool pt_addr_in_window(uint32_t addr)
{
	return (addr & PT_CNT_WINDOW) != 0;
}

/* Register number 0..63 of an address below the window (writes decode
 * this; compare with PT_REG_NUM(PT_REG_COMMAND)). */
static inline unsigned pt_addr_reg(uint32_t addr)
{
	return (addr >> 2) & 0x3Fu;
}

static inline enum pt_addr_block pt_addr_block(uint32_t addr)
{
	return (enum pt_addr_block)((addr >> 6) & 3u);
}

/* Register number in the configuration block, or the endpoint in a
 * per-endpoint block. */
static inline unsigned pt_addr_index(uint32_t addr)
{
	return (addr >> 2) & 0xFu;
}

/* Counter entry of a window address (the caller masks it to ENTRIES). */
static inline unsigned pt_addr_entry(uint32_t addr)
{
	return addr >> 3;
}

static inline bool pt_addr_high_word(uint32_t addr)
{
	return (addr & 4u) != 0;
}

/* The byte offset of counter word `word` (0 low, 1 high) of entry i. */
static inline uint32_t pt_addr_counter(uint32_t cnt_base, unsigned i, unsigned word)
{
	return cnt_base + 8u * i + 4u * word;
}

/*
 * What the firmware wires to the BRAKE inputs of the PCIe-clock probe
 * (firmware-behavior.md 3.2): the PTC's reasons, then the tag histogram,
 * then the storage FIFO histogram, each of 4 bands.  CFG_PCIE.BRAKES and
 * CFG_HIST announce these counts; a reader takes whatever they say.
 */
#define PT_FW_PTC_BRAKES 6
#define PT_FW_HIST_BANDS 4
#define PT_FW_PCIE_HISTS 2
#define PT_FW_PCIE_BRAKES (PT_FW_PTC_BRAKES + PT_FW_PCIE_HISTS * PT_FW_HIST_BANDS)
#define PT_FW_PCIE_BUSES 2 /* RQ and RC */

/*
 * BRAKE reasons of the PTC (PCIE_PTC_BRAKE bit k).  A layout may announce
 * more driven reasons than these: reason k >= PT_BRAKE_NAMED is named
 * "reasonK", labelled "reason K" and counted on the UP stream.
 */
enum pt_brake {
	PT_BRAKE_NO_FREE_TAG,
	PT_BRAKE_TAG_NOT_READY,
	PT_BRAKE_NO_COMPLETION_SPACE,
	PT_BRAKE_NO_COMPLETION_HEADER,
	PT_BRAKE_DOWN_MFB_HOLD,
	PT_BRAKE_DOWN_MVB_HOLD,
	PT_BRAKE_NAMED
};

/* The stream a reason holds back (the report's two columns). */
enum pt_stream { PT_STREAM_UP, PT_STREAM_DOWN };

struct pt_brake_info {
	const char *name;  /* machine name: "no_free_tag" */
	const char *label; /* the upstream report's label: "no free PCIe tag" */
	enum pt_stream stream;
	const char *what;  /* one line for docs and descriptions */
};

/* The table row of a named reason; NULL for k >= PT_BRAKE_NAMED. */
const struct pt_brake_info *pt_brake_info(unsigned k);
/* The RQ stall that the report adds to the UP reasons. */
#define PT_BRAKE_LABEL_RQ_STALL "PCIe endpoint not ready"

/*
 * Names of any reason, histogram or band number.  Each returns a constant
 * string for a named one, or writes the generic form into buf and returns
 * buf.  PT_REGS_NAME_LEN is always enough.
 */
#define PT_REGS_NAME_LEN 32
const char *pt_brake_name(unsigned k, char buf[PT_REGS_NAME_LEN]);  /* "reason6" */
const char *pt_brake_label(unsigned k, char buf[PT_REGS_NAME_LEN]); /* "reason 6" */
enum pt_stream pt_brake_stream(unsigned k);

/* Histograms of the PCIe-clock probe: the time spent with the free PCIe
 * tags (h = 0) or the free storage FIFO words (h = 1) in each band. */
enum pt_hist { PT_HIST_TAGS, PT_HIST_STFIFO, PT_HIST_NAMED };
/* Bands: none free, at most 1/8 of the capacity, at most 1/2, more. */
enum pt_band { PT_BAND_NONE, PT_BAND_LE_EIGHTH, PT_BAND_LE_HALF, PT_BAND_REST, PT_BAND_NAMED };

const char *pt_hist_name(unsigned h, char buf[PT_REGS_NAME_LEN]);  /* "tags", "resource2" */
const char *pt_hist_label(unsigned h, char buf[PT_REGS_NAME_LEN]); /* "PCIe tags", "resource 2" */
const char *pt_band_name(unsigned b, char buf[PT_REGS_NAME_LEN]);  /* "le_eighth", "band4" */
const char *pt_band_label(unsigned b, char buf[PT_REGS_NAME_LEN]); /* "<=1/8", "band 4" */
/* For descriptions, "<band what> of the <hist what> free": what a named
 * histogram counts ("PCIe tags") and the range of a named band ("none",
 * "at most 1/8 (but some)"); NULL when not named. */
const char *pt_hist_what(unsigned h);
const char *pt_band_what(unsigned b);

#ifdef __cplusplus
}
#endif
#endif
