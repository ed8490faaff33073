// pcie-telemetry: the cycle-exact model of PCIE_TELEMETRY_MI and of
// PCIE_TELEMETRY_PROBE as a SystemVerilog reference model, through DPI-C.
//
// One call per rising clock edge of each domain, with the input ports
// sampled at that edge:
//   ptm_dpi_pcie_edge(m, e, ...)   PCIE_CLK(e) of endpoint e
//   ptm_dpi_dma_in(m, e, ...)      the DMA-domain inputs of endpoint e
//   ptm_dpi_dma_edge(m, rst)       DMA_CLK (all endpoints; inputs as last given)
//   ptm_dpi_mi_edge(m, ...)        MI_CLK: MI_RD/MI_WR/MI_ADDR/MI_DWR in,
//                                  MI_DRD/MI_DRDY/MI_ARDY out
// The caller decides the order of the edges of different domains, as in
// the simulator.  Vectors are packed exactly as the VHDL ports (region j of
// bus b is bit b*REGIONS+j; EOF_POS field j in bits [j*W+W-1:j*W]) and
// zero-extended to the widths below.  See hdl/README.md for the port map.
//
// Compile hdl/sv/ptm_dpi.c and hdl/common/ptm_hdl.c with the simulator and
// link libpcie-telemetry-model (or the model's sources).
package pcie_telemetry_pkg;

  // Widths of the flat vectors (the model's limits: 32 buses of 16 regions,
  // EOF_POS fields of at most 16 bits, 16 PCIe regions per bus).
  localparam int PTM_VEC_W      = 512;   // SOF/EOF/MVB_VLD of a probe or DMA endpoint
  localparam int PTM_POS_W      = 8192;  // their EOF_POS
  localparam int PTM_PCIE_POS_W = 512;   // PCIE_MFB_EOF_POS(e)
  localparam int PTM_MAX_BUSES  = 32;

  typedef bit [PTM_VEC_W-1:0]      ptm_vec_t;
  typedef bit [PTM_POS_W-1:0]      ptm_pos_t;
  typedef bit [PTM_PCIE_POS_W-1:0] ptm_pcie_pos_t;

  // ---- PCIE_TELEMETRY_MI --------------------------------------------------

  typedef int unsigned ptm_generics_t[17];
  import "DPI-C" function chandle ptm_dpi_new_g(input ptm_generics_t gen);

  // Create the component in its power-up state from its generics (defaults
  // are the firmware's; named arguments work).  Returns null on bad
  // generics: ptm_dpi_error() says why.
  function automatic chandle ptm_dpi_new(
      input int unsigned pcie_endpoints = 1,
      input int unsigned dma_ports = 1,
      input int unsigned pcie_rq_mfb_regions = 2,
      input int unsigned pcie_rc_mfb_regions = 2,
      input int unsigned dma_up_mfb_regions = 2,
      input int unsigned dma_down_mfb_regions = 2,
      input int unsigned pcie_rq_mfb_region_bytes = 32,
      input int unsigned pcie_rc_mfb_region_bytes = 32,
      input int unsigned dma_up_mfb_region_bytes = 32,
      input int unsigned dma_down_mfb_region_bytes = 32,
      input int unsigned mfb_item_bytes = 4,
      input int unsigned pcie_eof_pos_width = 3,
      input int unsigned dma_eof_pos_width = 3,
      input int unsigned cnt_width = 48,
      input int unsigned drain_period = 4096,
      input int unsigned tag_capacity = 256,
      input int unsigned stfifo_capacity = 1024);
    ptm_generics_t g = '{pcie_endpoints, dma_ports, pcie_rq_mfb_regions, pcie_rc_mfb_regions,
        dma_up_mfb_regions, dma_down_mfb_regions, pcie_rq_mfb_region_bytes,
        pcie_rc_mfb_region_bytes, dma_up_mfb_region_bytes, dma_down_mfb_region_bytes,
        mfb_item_bytes, pcie_eof_pos_width, dma_eof_pos_width, cnt_width, drain_period,
        tag_capacity, stfifo_capacity};
    return ptm_dpi_new_g(g);
  endfunction

  // The one-line reason of the last failed ptm_dpi_new/ptm_dpi_probe_new.
  import "DPI-C" function string ptm_dpi_error();

  import "DPI-C" function void ptm_dpi_free(input chandle m);

  // One rising edge of PCIE_CLK(ep).  sof/eof: PCIE_MFB_SOF/EOF(ep)
  // (2*PR bits, RQ in the low PR bits); src_rdy/dst_rdy: bit 0 = RQ.
  import "DPI-C" function void ptm_dpi_pcie_edge(
      input chandle m, input int unsigned ep, input bit rst,
      input int unsigned sof, input int unsigned eof, input ptm_pcie_pos_t eof_pos,
      input int unsigned src_rdy, input int unsigned dst_rdy,
      input int unsigned brake, input int unsigned stfifo_free, input int unsigned tag_free,
      input int unsigned mps, input int unsigned mrrs,
      input bit ext_tag_en, input bit tag10b_req_en, input bit rcb_size, input bit link_up);

  // The DMA-domain inputs of endpoint ep (DMA_MFB_*(ep), DMA_MVB_*(ep);
  // bus 2p = UP of port p, 2p+1 = DOWN), held for the next DMA edges.
  import "DPI-C" function void ptm_dpi_dma_in(
      input chandle m, input int unsigned ep,
      input ptm_vec_t sof, input ptm_vec_t eof, input ptm_pos_t eof_pos,
      input int unsigned src_rdy, input int unsigned dst_rdy,
      input ptm_vec_t mvb_vld, input int unsigned mvb_src_rdy, input int unsigned mvb_dst_rdy);

  // One rising edge of DMA_CLK; rst = DMA_RESET.
  import "DPI-C" function void ptm_dpi_dma_edge(input chandle m, input bit rst);

  // One rising edge of MI_CLK: the MI request of this edge in, the MI
  // outputs after it out.  A read at edge k is answered with drdy = 1 in the
  // outputs of edge k+1 (the DUT's MI_DRDY is high in the cycle that ends
  // with edge k+2).
  import "DPI-C" function void ptm_dpi_mi_edge(
      input chandle m, input bit rst, input bit rd, input bit wr,
      input int unsigned addr, input int unsigned dwr,
      output int unsigned drd, output bit drdy, output bit ardy);

  // Clock MI_CLK alone (the other domains stand still) through a whole
  // read or write.
  import "DPI-C" function int unsigned ptm_dpi_mi_read(input chandle m, input int unsigned addr);
  import "DPI-C" function void ptm_dpi_mi_write(input chandle m, input int unsigned addr,
                                                input int unsigned data);

  // ---- PCIE_TELEMETRY_PROBE alone -----------------------------------------

  typedef int unsigned ptm_items_t[PTM_MAX_BUSES];

  // REGION_ITEMS(b) in region_items[b], b < buses.  Null on bad generics.
  import "DPI-C" function chandle ptm_dpi_probe_new(
      input int unsigned buses, input int unsigned regions, input ptm_items_t region_items,
      input int unsigned eof_pos_width, input int unsigned brakes,
      input int unsigned drain_period);
  import "DPI-C" function void ptm_dpi_probe_free(input chandle p);
  import "DPI-C" function int unsigned ptm_dpi_probe_channels(input chandle p);

  // One CLK edge: the RX_* ports in; what the edge did out (DRAIN_TICK, a
  // FIFO write and whether WR_FULL dropped it, a FIFO reset).
  import "DPI-C" function void ptm_dpi_probe_clk(
      input chandle p, input bit rst,
      input ptm_vec_t sof, input ptm_vec_t eof, input ptm_pos_t eof_pos,
      input int unsigned src_rdy, input int unsigned dst_rdy, input int unsigned brake,
      input ptm_vec_t mvb_vld, input int unsigned mvb_src_rdy, input int unsigned mvb_dst_rdy,
      output bit drain_tick, output bit wr_en, output bit wr_dropped,
      output int unsigned wr_index, output longint unsigned wr_delta,
      output bit fifo_flushed);

  // One MI_CLK edge of the read side: MI_RESET, MI_FLAG_CLR, TX_RD in; the
  // delta popped at this edge (vld) and the flags after it out.
  import "DPI-C" function void ptm_dpi_probe_mi_clk(
      input chandle p, input bit mi_rst, input bit flag_clr, input bit rd,
      output bit vld, output int unsigned index, output longint unsigned delta,
      output bit fifo_ovf, output bit overrun);

  // The read side's outputs now (TX_VLD, TX_INDEX, TX_DELTA, flags), no edge.
  import "DPI-C" function void ptm_dpi_probe_tx(
      input chandle p, output bit vld, output int unsigned index,
      output longint unsigned delta, output bit fifo_ovf, output bit overrun);

  // ---- Scoreboard -----------------------------------------------------------
  //
  // Compares the MI reads of a DUT with those of the model, in order: feed
  // every answered read of each side (the address it asked, the data MI_DRD
  // carried with MI_DRDY), with an optional mask on the DUT side for fields
  // that may differ (the DUT's data is compared under the mask).  edge, when
  // both sides give one (>= 0), is the MI edge of the request and must match
  // too.  Mismatches are printed as they happen (at most max_print) and
  // counted; report() prints the summary.
  typedef struct {
    longint at;
    int unsigned addr, data, mask;
  } ptm_mi_read_t;

  class ptm_mi_scoreboard;

    string name;
    int unsigned max_print = 10;
    int unsigned checked, mismatches;
    protected ptm_mi_read_t model_q[$], dut_q[$];

    function new(string sb_name = "ptm_mi_scoreboard");
      name = sb_name;
    endfunction

    protected function ptm_mi_read_t make(longint at, int unsigned addr, int unsigned data,
                                   int unsigned mask);
      ptm_mi_read_t r;
      r.at = at;
      r.addr = addr;
      r.data = data;
      r.mask = mask;
      return r;
    endfunction

    function void model_read(longint at, int unsigned addr, int unsigned data);
      model_q.push_back(make(at, addr, data, 32'hffffffff));
      compare();
    endfunction

    function void dut_read(longint at, int unsigned addr, int unsigned data,
                           int unsigned mask = 32'hffffffff);
      dut_q.push_back(make(at, addr, data, mask));
      compare();
    endfunction

    protected function void compare();
      while (model_q.size() > 0 && dut_q.size() > 0) begin
        ptm_mi_read_t m = model_q.pop_front();
        ptm_mi_read_t d = dut_q.pop_front();
        checked++;
        if (m.addr != d.addr || (m.at >= 0 && d.at >= 0 && m.at != d.at) ||
            ((m.data ^ d.data) & d.mask) != 0) begin
          mismatches++;
          if (mismatches <= max_print)
            $fdisplay(32'h8000_0002,
                      "%s: read %0d: DUT edge %0d addr %h data %h mask %h, model edge %0d addr %h data %h",
                      name, checked, d.at, d.addr, d.data & d.mask, d.mask, m.at, m.addr,
                      m.data);
        end
      end
    endfunction

    // Reads one side answered and the other did not (yet).
    function int unsigned unmatched();
      return model_q.size() + dut_q.size();
    endfunction

    // Print the summary on stderr; returns mismatches + unmatched reads
    // (0 = the DUT agreed with the model on every read).
    function int unsigned report();
      $fdisplay(32'h8000_0002, "%s: %0d reads compared, %0d mismatches, %0d unmatched",
                name, checked, mismatches, unmatched());
      return mismatches + unmatched();
    endfunction
  endclass

endpackage
