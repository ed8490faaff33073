"""pcie-telemetry: ctypes declarations of the firmware model's C API
(include/pcie_telemetry/model.h) for Python testbenches such as cocotb.

    from ptm_model import lib, ptm_generics, ptm_pcie_in, ...
    PTM_LIB=/path/to/libpcie-telemetry-model.so   (default: ../../build/lib)

The structures mirror model.h field by field; every function of the API
has its argtypes and restype.  See hdl/README.md.
"""
import ctypes
import os
from ctypes import (POINTER, byref, c_char_p, c_int, c_size_t, c_uint, c_uint8, c_uint16,
                    c_uint32, c_uint64, c_void_p)

_here = os.path.dirname(os.path.abspath(__file__))
lib = ctypes.CDLL(os.environ.get(
    "PTM_LIB", os.path.join(_here, "..", "..", "build", "lib", "libpcie-telemetry-model.so")))

PTM_MAX_REGIONS = 16
PTM_MAX_PROBE_BUSES = 32

class ptm_generics(ctypes.Structure):
    _fields_ = [(n, c_uint) for n in (
        "pcie_endpoints", "dma_ports", "pcie_rq_mfb_regions", "pcie_rc_mfb_regions",
        "dma_up_mfb_regions", "dma_down_mfb_regions", "pcie_rq_mfb_region_bytes",
        "pcie_rc_mfb_region_bytes", "dma_up_mfb_region_bytes", "dma_down_mfb_region_bytes",
        "mfb_item_bytes", "pcie_eof_pos_width", "dma_eof_pos_width", "cnt_width",
        "drain_period", "tag_capacity", "stfifo_capacity")]

class ptm_derived(ctypes.Structure):
    _fields_ = [(n, c_uint) for n in (
        "pcie_regions", "dma_regions", "pcie_channels", "dma_channels", "ep_channels",
        "entries", "pcie_fifo_depth", "dma_fifo_depth")]

class ptm_bus_in(ctypes.Structure):
    _fields_ = [("sof", c_uint32), ("eof", c_uint32), ("mvb_vld", c_uint32),
                ("eof_pos", c_uint16 * PTM_MAX_REGIONS),
                ("src_rdy", c_uint8), ("dst_rdy", c_uint8),
                ("mvb_src_rdy", c_uint8), ("mvb_dst_rdy", c_uint8)]

class ptm_pcie_in(ctypes.Structure):
    _fields_ = [("rst", c_uint8), ("bus", ptm_bus_in * 2), ("brake", c_uint8),
                ("stfifo_free", c_uint16), ("tag_free", c_uint16),
                ("mps", c_uint8), ("mrrs", c_uint8), ("ext_tag_en", c_uint8),
                ("tag10b_req_en", c_uint8), ("rcb_size", c_uint8), ("link_up", c_uint8)]

class ptm_mi_in(ctypes.Structure):
    _fields_ = [("rst", c_uint8), ("rd", c_uint8), ("wr", c_uint8),
                ("addr", c_uint32), ("dwr", c_uint32)]

class ptm_mi_out(ctypes.Structure):
    _fields_ = [("drd", c_uint32), ("drdy", c_uint8), ("ardy", c_uint8)]

class ptm_probe_generics(ctypes.Structure):
    _fields_ = [("buses", c_uint), ("regions", c_uint),
                ("region_items", c_uint * PTM_MAX_PROBE_BUSES),
                ("eof_pos_width", c_uint), ("brakes", c_uint), ("drain_period", c_uint)]

class ptm_probe_clk_out(ctypes.Structure):
    _fields_ = [("drain_tick", c_uint8), ("wr_en", c_uint8), ("wr_dropped", c_uint8),
                ("wr_index", c_uint16), ("wr_delta", c_uint64), ("fifo_flushed", c_uint8)]

class ptm_probe_mi_out(ctypes.Structure):
    _fields_ = [("vld", c_uint8), ("index", c_uint16), ("delta", c_uint64),
                ("fifo_ovf", c_uint8), ("overrun", c_uint8)]

def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype, f.argtypes = restype, list(argtypes)

_proto("ptm_generics_default", None, POINTER(ptm_generics))
_proto("ptm_generics_check", c_int, POINTER(ptm_generics), c_char_p, c_size_t)
_proto("ptm_generics_derive", None, POINTER(ptm_generics), POINTER(ptm_derived))
_proto("ptm_model_new", c_int, POINTER(ptm_generics), POINTER(c_void_p), c_char_p, c_size_t)
_proto("ptm_model_free", None, c_void_p)
_proto("ptm_model_generics", POINTER(ptm_generics), c_void_p)
_proto("ptm_model_derived", POINTER(ptm_derived), c_void_p)
_proto("ptm_pcie_edge", None, c_void_p, c_uint, POINTER(ptm_pcie_in))
_proto("ptm_dma_edge", None, c_void_p, c_int, POINTER(ptm_bus_in))
_proto("ptm_mi_edge", None, c_void_p, POINTER(ptm_mi_in), POINTER(ptm_mi_out))
_proto("ptm_pcie_edges", None, c_void_p, c_uint, POINTER(ptm_pcie_in), c_uint64)
_proto("ptm_dma_edges", None, c_void_p, c_int, POINTER(ptm_bus_in), c_uint64)
_proto("ptm_mi_idle_edges", None, c_void_p, c_int, c_uint64)
_proto("ptm_mi_read", c_uint32, c_void_p, c_uint32)
_proto("ptm_mi_write", None, c_void_p, c_uint32, c_uint32)
_proto("ptm_probe_new", c_int, POINTER(ptm_probe_generics), POINTER(c_void_p), c_char_p, c_size_t)
_proto("ptm_probe_free", None, c_void_p)
_proto("ptm_probe_channels", c_uint, c_void_p)
_proto("ptm_probe_clk", None, c_void_p, c_int, POINTER(ptm_bus_in), c_uint32,
       POINTER(ptm_probe_clk_out))
_proto("ptm_probe_mi_clk", None, c_void_p, c_int, c_int, c_int, POINTER(ptm_probe_mi_out))
_proto("ptm_probe_tx", None, c_void_p, POINTER(ptm_probe_mi_out))
