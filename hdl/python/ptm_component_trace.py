#!/usr/bin/env python3
"""pcie-telemetry: run a COMPONENT conformance trace through the model
from Python (ctypes) and print what `ptmodel component FILE` prints.

This is how a cocotb reference model drives the model: it keeps the input
ports of each clock domain (sticky, like signals) and makes one call per
rising edge, in the order the edges happen.  Usage:

    PTM_LIB=build/lib/libpcie-telemetry-model.so \\
        python3 hdl/python/ptm_component_trace.py TRACE

Exit status: 0 success, 2 malformed trace (one line on stderr).
"""
import sys
from collections import deque
from ctypes import byref, c_void_p, create_string_buffer

from ptm_model import lib, ptm_bus_in, ptm_generics, ptm_mi_in, ptm_mi_out, ptm_pcie_in

HEADER = ("PCIE_ENDPOINTS DMA_PORTS PCIE_RQ_MFB_REGIONS PCIE_RC_MFB_REGIONS DMA_UP_MFB_REGIONS "
          "DMA_DOWN_MFB_REGIONS PCIE_RQ_MFB_REGION_BYTES PCIE_RC_MFB_REGION_BYTES "
          "DMA_UP_MFB_REGION_BYTES DMA_DOWN_MFB_REGION_BYTES MFB_ITEM_BYTES PCIE_EOF_POS_WIDTH "
          "DMA_EOF_POS_WIDTH CNT_WIDTH DRAIN_PERIOD TAG_CAPACITY STFIFO_CAPACITY").split()
# P keys that are plain fields of struct ptm_pcie_in
P_FIELDS = {"rst", "brake", "stfifo_free", "tag_free", "mps", "mrrs", "ext_tag_en",
            "tag10b_req_en", "rcb_size", "link_up"}
RDY = {"src_rdy", "dst_rdy", "mvb_src_rdy", "mvb_dst_rdy"}


class TraceError(Exception):
    pass


def scatter(buses, regions, pos_w, key, v):
    """One port value (packed as the VHDL port) into the per-bus structs."""
    for b, bus in enumerate(buses):
        if key in RDY:
            setattr(bus, key, (v >> b) & 1)
        elif key == "eof_pos":
            for r in range(regions):
                bus.eof_pos[r] = (v >> ((b * regions + r) * pos_w)) & ((1 << pos_w) - 1)
        else:  # sof, eof, mvb_vld
            setattr(bus, key, (v >> (b * regions)) & ((1 << regions) - 1))


class Component:
    def __init__(self, g):
        self.m = c_void_p()
        msg = create_string_buffer(256)
        if lib.ptm_model_new(byref(g), byref(self.m), msg, len(msg)):
            raise TraceError(msg.value.decode())
        d = lib.ptm_model_derived(self.m).contents
        self.g, self.pr, self.dr, self.db = g, d.pcie_regions, d.dma_regions, 2 * g.dma_ports
        self.pin = (ptm_pcie_in * g.pcie_endpoints)()
        self.dbus = (ptm_bus_in * (g.pcie_endpoints * self.db))()
        self.drst = self.mrst = 0
        self.edges, self.reads, self.pending = 0, [], deque()
        self.mi_out = ptm_mi_out()

    def p_key(self, e, key, v):
        if key in P_FIELDS:
            setattr(self.pin[e], key, v)
        else:
            scatter(self.pin[e].bus, self.pr, self.g.pcie_eof_pos_width, key, v)

    def d_key(self, key, v):
        if key == "rst":
            self.drst = v
            return
        name = key.rstrip("0123456789")
        e = int(key[len(name):])
        if e >= self.g.pcie_endpoints:
            raise TraceError(f"field '{key}': endpoint {e} out of range")
        buses = self.dbus[e * self.db:(e + 1) * self.db]
        scatter(buses, self.dr, self.g.dma_eof_pos_width, name, v)

    def mi_edge(self, rd=0, wr=0, addr=0, dwr=0):
        if rd:
            self.pending.append(len(self.reads))
            self.reads.append([self.edges, addr, None])
        mi = ptm_mi_in(rst=self.mrst, rd=rd, wr=wr, addr=addr, dwr=dwr)
        lib.ptm_mi_edge(self.m, byref(mi), byref(self.mi_out))
        if self.mi_out.drdy:
            self.reads[self.pending.popleft()][2] = self.mi_out.drd

    def edge(self, dom, op=None):
        if dom == "D":
            lib.ptm_dma_edge(self.m, self.drst, self.dbus)
        elif dom == "M":
            self.mi_edge(*(op or ()))
        else:
            lib.ptm_pcie_edge(self.m, dom, byref(self.pin[dom]))
        self.edges += 1


def records(f):
    for n, line in enumerate(f, 1):
        fields = line.split("#", 1)[0].split()
        if fields:
            yield n, fields


def header(rec):
    def value(kw):
        n, f = next(rec, (0, ["end of file"]))
        if f[0] != kw or len(f) != 2:
            raise TraceError(f"line {n}: expected '{kw} <n>'")
        return int(f[1])
    value("COMPONENT_TRACE")
    g = ptm_generics()
    for name in HEADER:
        setattr(g, name.lower(), value(name))
    edges = value("EDGES")
    for n, f in rec:
        if f[0] == "BEGIN":
            return g, edges
    raise TraceError("no BEGIN")


def body_line(c, f, hist):
    tag = f[0]
    if tag == "REP":
        n, k = int(f[1]), int(f[2])
        period = hist[-k:]
        if len(period) != k or None in period:
            raise TraceError("REP: the repeated lines must be bare domain tags")
        for _ in range(n):
            for dom in period:
                c.edge(dom)
        hist.append(None)
        return
    dom = tag if tag in ("D", "M") else int(tag[1:])
    op = None
    for kv in f[1:]:
        key, val = kv.split("=", 1)
        if dom == "M" and key in ("rd", "wr"):
            a, _, d = val.partition(":")
            op = (int(key == "rd"), int(key == "wr"), int(a, 16), int(d or "0", 16))
        elif dom == "M":
            c.mrst = int(val, 16)
        elif dom == "D":
            c.d_key(key, int(val, 16))
        else:
            c.p_key(dom, key, int(val, 16))
    c.edge(dom, op)
    hist.append(dom if len(f) == 1 else None)


def run(path):
    with open(path) as f:
        rec = records(f)
        g, edges = header(rec)
        c = Component(g)
        hist = []
        for n, fields in rec:
            if fields[0] == "END":
                break
            try:
                body_line(c, fields, hist)
            except (ValueError, IndexError, KeyError) as e:
                raise TraceError(f"line {n}: {e}") from e
    if c.edges != edges:
        raise TraceError(f"the body has {c.edges} edges, EDGES says {edges}")
    for _ in range(2):  # the MI clock keeps running for the last reads
        if c.pending:
            c.mi_edge()
    lines = ["COMPONENT_EXPECTED 1"]
    lines += [f"R {e} {a:08x} {d:08x}" for e, a, d in c.reads]
    lines.append("END")
    lib.ptm_model_free(c.m)
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ptm_component_trace.py TRACE")
    try:
        print("\n".join(run(sys.argv[1])))
    except (TraceError, OSError) as e:
        print(f"ptm_component_trace.py: {sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
