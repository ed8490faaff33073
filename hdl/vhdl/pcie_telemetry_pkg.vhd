-- pcie-telemetry: the cycle-exact model of PCIE_TELEMETRY_MI and of
-- PCIE_TELEMETRY_PROBE as a VHDL reference model, through GHDL's
-- VHPIDIRECT foreign subprograms (hdl/vhdl/ptm_vhpi.c).
--
-- One call per rising clock edge of each domain, with the input ports
-- sampled at that edge:
--   ptm_pcie_edge(h, e, ...)   PCIE_CLK(e) of endpoint e
--   ptm_dma_in(h, e, ...)      the DMA-domain inputs of endpoint e
--   ptm_dma_edge(h, rst)       DMA_CLK (all endpoints; inputs as last given)
--   ptm_mi_edge(h, ...)        MI_CLK: MI_RD/MI_WR/MI_ADDR/MI_DWR in,
--                              MI_DRD/MI_DRDY/MI_ARDY out
-- Vectors are packed exactly as the ports of PCIE_TELEMETRY_MI, zero-
-- extended to the widths below (ptm_vec(), ptm_pos(), ptm_w32() do that).
-- A model or probe is an integer handle > 0; a result <= 0 of ptm_new or
-- ptm_probe_new is a negative errno and ptm_error_text says why.
--
-- GHDL with the llvm or gcc backend (mcode cannot link C code):
--   ghdl -a --std=08 pcie_telemetry_pkg.vhd your_tb.vhd
--   ghdl -e --std=08 -Wl,ptm_vhpi.o -Wl,ptm_hdl.o -Wl,-lpcie-telemetry-model your_tb
-- See hdl/README.md.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;

package pcie_telemetry_pkg is

  constant PTM_VEC_W      : natural := 512;   -- SOF/EOF/MVB_VLD of a probe or DMA endpoint
  constant PTM_POS_W      : natural := 8192;  -- their EOF_POS
  constant PTM_PCIE_POS_W : natural := 512;   -- PCIE_MFB_EOF_POS(e)
  constant PTM_MAX_BUSES  : natural := 32;

  subtype ptm_w32_t      is std_logic_vector(31 downto 0);
  subtype ptm_w64_t      is std_logic_vector(63 downto 0);
  subtype ptm_vec_t      is std_logic_vector(PTM_VEC_W - 1 downto 0);
  subtype ptm_pos_t      is std_logic_vector(PTM_POS_W - 1 downto 0);
  subtype ptm_pcie_pos_t is std_logic_vector(PTM_PCIE_POS_W - 1 downto 0);
  type ptm_items_t is array (0 to PTM_MAX_BUSES - 1) of integer;
  subtype ptm_msg_t is string(1 to 256);

  -- Zero-extend a port to the width of an argument.
  function ptm_w32(v : std_logic_vector) return ptm_w32_t;
  function ptm_vec(v : std_logic_vector) return ptm_vec_t;
  function ptm_pos(v : std_logic_vector) return ptm_pos_t;
  function ptm_pcie_pos(v : std_logic_vector) return ptm_pcie_pos_t;

  ---- PCIE_TELEMETRY_MI ------------------------------------------------------

  -- Create the component in its power-up state (defaults: the firmware's).
  impure function ptm_new(
    pcie_endpoints            : integer := 1;
    dma_ports                 : integer := 1;
    pcie_rq_mfb_regions       : integer := 2;
    pcie_rc_mfb_regions       : integer := 2;
    dma_up_mfb_regions        : integer := 2;
    dma_down_mfb_regions      : integer := 2;
    pcie_rq_mfb_region_bytes  : integer := 32;
    pcie_rc_mfb_region_bytes  : integer := 32;
    dma_up_mfb_region_bytes   : integer := 32;
    dma_down_mfb_region_bytes : integer := 32;
    mfb_item_bytes            : integer := 4;
    pcie_eof_pos_width        : integer := 3;
    dma_eof_pos_width         : integer := 3;
    cnt_width                 : integer := 48;
    drain_period              : integer := 4096;
    tag_capacity              : integer := 256;
    stfifo_capacity           : integer := 1024) return integer;
  -- The same from an array, in the order of ptm_new's arguments.
  type ptm_generics_t is array (0 to 16) of integer;
  impure function ptm_new_g(g : ptm_generics_t) return integer;
  attribute foreign of ptm_new_g : function is "VHPIDIRECT ptm_vhpi_new";

  -- The reason of the last failed ptm_new/ptm_probe_new, space-padded.
  procedure ptm_error(msg : out ptm_msg_t);
  attribute foreign of ptm_error : procedure is "VHPIDIRECT ptm_vhpi_error";
  -- The same, trimmed.
  impure function ptm_error_text return string;

  procedure ptm_free(h : integer);
  attribute foreign of ptm_free : procedure is "VHPIDIRECT ptm_vhpi_free";

  -- One rising edge of PCIE_CLK(ep).  sof/eof: PCIE_MFB_SOF/EOF(ep) (2*PR
  -- bits, RQ in the low PR bits); src_rdy/dst_rdy: bit 0 = RQ.
  procedure ptm_pcie_edge(
    h, ep : integer; rst : std_logic;
    sof, eof : ptm_w32_t; eof_pos : ptm_pcie_pos_t; src_rdy, dst_rdy : ptm_w32_t;
    brake, stfifo_free, tag_free, mps, mrrs : ptm_w32_t;
    ext_tag_en, tag10b_req_en, rcb_size, link_up : std_logic);
  attribute foreign of ptm_pcie_edge : procedure is "VHPIDIRECT ptm_vhpi_pcie_edge";

  -- The DMA-domain inputs of endpoint ep (DMA_MFB_*(ep), DMA_MVB_*(ep);
  -- bus 2p = UP of port p, 2p+1 = DOWN), held for the next DMA edges.
  procedure ptm_dma_in(
    h, ep : integer;
    sof, eof : ptm_vec_t; eof_pos : ptm_pos_t; src_rdy, dst_rdy : ptm_w32_t;
    mvb_vld : ptm_vec_t; mvb_src_rdy, mvb_dst_rdy : ptm_w32_t);
  attribute foreign of ptm_dma_in : procedure is "VHPIDIRECT ptm_vhpi_dma_in";

  -- One rising edge of DMA_CLK; rst = DMA_RESET.
  procedure ptm_dma_edge(h : integer; rst : std_logic);
  attribute foreign of ptm_dma_edge : procedure is "VHPIDIRECT ptm_vhpi_dma_edge";

  -- One rising edge of MI_CLK: the request of this edge in, the MI outputs
  -- after it out (a read at edge k answers with drdy = '1' after edge k+1).
  procedure ptm_mi_edge(
    h : integer; rst, rd, wr : std_logic; addr, dwr : ptm_w32_t;
    drd : out ptm_w32_t; drdy, ardy : out std_logic);
  attribute foreign of ptm_mi_edge : procedure is "VHPIDIRECT ptm_vhpi_mi_edge";

  -- Clock MI_CLK alone (the other domains stand still) through a whole read
  -- or write.
  procedure ptm_mi_read(h : integer; addr : ptm_w32_t; data : out ptm_w32_t);
  attribute foreign of ptm_mi_read : procedure is "VHPIDIRECT ptm_vhpi_mi_read";
  procedure ptm_mi_write(h : integer; addr, data : ptm_w32_t);
  attribute foreign of ptm_mi_write : procedure is "VHPIDIRECT ptm_vhpi_mi_write";

  ---- PCIE_TELEMETRY_PROBE alone ---------------------------------------------

  impure function ptm_probe_new(buses, regions : integer; region_items : ptm_items_t;
                                eof_pos_width, brakes, drain_period : integer) return integer;
  attribute foreign of ptm_probe_new : function is "VHPIDIRECT ptm_vhpi_probe_new";
  procedure ptm_probe_free(h : integer);
  attribute foreign of ptm_probe_free : procedure is "VHPIDIRECT ptm_vhpi_probe_free";
  impure function ptm_probe_channels(h : integer) return integer;
  attribute foreign of ptm_probe_channels : function is "VHPIDIRECT ptm_vhpi_probe_channels";

  -- One CLK edge: the RX_* ports in; what the edge did out.
  procedure ptm_probe_clk(
    h : integer; rst : std_logic;
    sof, eof : ptm_vec_t; eof_pos : ptm_pos_t; src_rdy, dst_rdy, brake : ptm_w32_t;
    mvb_vld : ptm_vec_t; mvb_src_rdy, mvb_dst_rdy : ptm_w32_t;
    drain_tick, wr_en, wr_dropped : out std_logic; wr_index : out integer;
    wr_delta : out ptm_w64_t; fifo_flushed : out std_logic);
  attribute foreign of ptm_probe_clk : procedure is "VHPIDIRECT ptm_vhpi_probe_clk";

  -- One MI_CLK edge of the read side: MI_RESET, MI_FLAG_CLR, TX_RD in; the
  -- delta popped at this edge (vld) and the flags after it out.
  procedure ptm_probe_mi_clk(
    h : integer; mi_rst, flag_clr, rd : std_logic;
    vld : out std_logic; index : out integer; delta : out ptm_w64_t;
    fifo_ovf, overrun : out std_logic);
  attribute foreign of ptm_probe_mi_clk : procedure is "VHPIDIRECT ptm_vhpi_probe_mi_clk";

  -- The read side's outputs now, no edge.
  procedure ptm_probe_tx(
    h : integer; vld : out std_logic; index : out integer; delta : out ptm_w64_t;
    fifo_ovf, overrun : out std_logic);
  attribute foreign of ptm_probe_tx : procedure is "VHPIDIRECT ptm_vhpi_probe_tx";

  ---- Scoreboard -------------------------------------------------------------
  -- Compares the MI reads of a DUT with those of the model, in order: feed
  -- every answered read of each side (address asked, data MI_DRD carried
  -- with MI_DRDY), with an optional mask on the DUT side (its data is
  -- compared under the mask).  at, when both sides give one (>= 0), is the
  -- MI edge of the request and must match too.  Mismatches are reported
  -- (severity error, at most 10) and counted.
  type ptm_scoreboard_t is protected
    procedure set_name(name : string);
    procedure model_read(at : integer; addr, data : ptm_w32_t);
    procedure dut_read(at : integer; addr, data : ptm_w32_t;
                       mask : ptm_w32_t := (others => '1'));
    impure function checked return natural;
    impure function mismatches return natural;
    impure function unmatched return natural;
    -- Report the summary (severity note); returns mismatches + unmatched.
    impure function summary return natural;
  end protected ptm_scoreboard_t;

end package pcie_telemetry_pkg;

package body pcie_telemetry_pkg is

  function ptm_w32(v : std_logic_vector) return ptm_w32_t is
  begin
    return std_logic_vector(resize(unsigned(v), 32));
  end function;

  function ptm_vec(v : std_logic_vector) return ptm_vec_t is
  begin
    return std_logic_vector(resize(unsigned(v), PTM_VEC_W));
  end function;

  function ptm_pos(v : std_logic_vector) return ptm_pos_t is
  begin
    return std_logic_vector(resize(unsigned(v), PTM_POS_W));
  end function;

  function ptm_pcie_pos(v : std_logic_vector) return ptm_pcie_pos_t is
  begin
    return std_logic_vector(resize(unsigned(v), PTM_PCIE_POS_W));
  end function;

  impure function ptm_new(
    pcie_endpoints            : integer := 1;
    dma_ports                 : integer := 1;
    pcie_rq_mfb_regions       : integer := 2;
    pcie_rc_mfb_regions       : integer := 2;
    dma_up_mfb_regions        : integer := 2;
    dma_down_mfb_regions      : integer := 2;
    pcie_rq_mfb_region_bytes  : integer := 32;
    pcie_rc_mfb_region_bytes  : integer := 32;
    dma_up_mfb_region_bytes   : integer := 32;
    dma_down_mfb_region_bytes : integer := 32;
    mfb_item_bytes            : integer := 4;
    pcie_eof_pos_width        : integer := 3;
    dma_eof_pos_width         : integer := 3;
    cnt_width                 : integer := 48;
    drain_period              : integer := 4096;
    tag_capacity              : integer := 256;
    stfifo_capacity           : integer := 1024) return integer is
  begin
    return ptm_new_g((pcie_endpoints, dma_ports, pcie_rq_mfb_regions, pcie_rc_mfb_regions,
                      dma_up_mfb_regions, dma_down_mfb_regions, pcie_rq_mfb_region_bytes,
                      pcie_rc_mfb_region_bytes, dma_up_mfb_region_bytes,
                      dma_down_mfb_region_bytes, mfb_item_bytes, pcie_eof_pos_width,
                      dma_eof_pos_width, cnt_width, drain_period, tag_capacity,
                      stfifo_capacity));
  end function;

  impure function ptm_new_g(g : ptm_generics_t) return integer is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
    return 0;
  end function;

  -- The bodies of the foreign subprograms run only when the C shim was not
  -- linked in.
  procedure ptm_error(msg : out ptm_msg_t) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  impure function ptm_error_text return string is
    variable m : ptm_msg_t;
    variable n : natural := 0;
  begin
    ptm_error(m);
    for i in m'range loop
      if m(i) /= ' ' then
        n := i;
      end if;
    end loop;
    return m(1 to n);
  end function;

  procedure ptm_free(h : integer) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  procedure ptm_pcie_edge(
    h, ep : integer; rst : std_logic;
    sof, eof : ptm_w32_t; eof_pos : ptm_pcie_pos_t; src_rdy, dst_rdy : ptm_w32_t;
    brake, stfifo_free, tag_free, mps, mrrs : ptm_w32_t;
    ext_tag_en, tag10b_req_en, rcb_size, link_up : std_logic) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  procedure ptm_dma_in(
    h, ep : integer;
    sof, eof : ptm_vec_t; eof_pos : ptm_pos_t; src_rdy, dst_rdy : ptm_w32_t;
    mvb_vld : ptm_vec_t; mvb_src_rdy, mvb_dst_rdy : ptm_w32_t) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  procedure ptm_dma_edge(h : integer; rst : std_logic) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  procedure ptm_mi_edge(
    h : integer; rst, rd, wr : std_logic; addr, dwr : ptm_w32_t;
    drd : out ptm_w32_t; drdy, ardy : out std_logic) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  procedure ptm_mi_read(h : integer; addr : ptm_w32_t; data : out ptm_w32_t) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  procedure ptm_mi_write(h : integer; addr, data : ptm_w32_t) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  impure function ptm_probe_new(buses, regions : integer; region_items : ptm_items_t;
                                eof_pos_width, brakes, drain_period : integer) return integer is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
    return 0;
  end function;

  procedure ptm_probe_free(h : integer) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  impure function ptm_probe_channels(h : integer) return integer is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
    return 0;
  end function;

  procedure ptm_probe_clk(
    h : integer; rst : std_logic;
    sof, eof : ptm_vec_t; eof_pos : ptm_pos_t; src_rdy, dst_rdy, brake : ptm_w32_t;
    mvb_vld : ptm_vec_t; mvb_src_rdy, mvb_dst_rdy : ptm_w32_t;
    drain_tick, wr_en, wr_dropped : out std_logic; wr_index : out integer;
    wr_delta : out ptm_w64_t; fifo_flushed : out std_logic) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  procedure ptm_probe_mi_clk(
    h : integer; mi_rst, flag_clr, rd : std_logic;
    vld : out std_logic; index : out integer; delta : out ptm_w64_t;
    fifo_ovf, overrun : out std_logic) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  procedure ptm_probe_tx(
    h : integer; vld : out std_logic; index : out integer; delta : out ptm_w64_t;
    fifo_ovf, overrun : out std_logic) is
  begin
    report "ptm_vhpi.c is not linked in" severity failure;
  end procedure;

  type ptm_scoreboard_t is protected body
    type read_t is record
      at         : integer;
      addr, data : ptm_w32_t;
      mask       : ptm_w32_t;
    end record;
    type read_arr_t is array (natural range <>) of read_t;
    type read_arr_p is access read_arr_t;
    -- One FIFO per side: q(head .. tail-1).
    type fifo_t is record
      q          : read_arr_p;
      head, tail : natural;
    end record;

    variable sb_name : line := new string'("ptm_scoreboard");
    variable model_f, dut_f : fifo_t := (null, 0, 0);
    variable n_checked, n_mismatches : natural := 0;

    procedure push(f : inout fifo_t; r : read_t) is
      variable nq : read_arr_p;
    begin
      if f.q = null then
        f.q := new read_arr_t(0 to 255);
      elsif f.tail > f.q'high then
        nq := new read_arr_t(0 to 2 * (f.tail - f.head) + 255);
        nq(0 to f.tail - f.head - 1) := f.q(f.head to f.tail - 1);
        deallocate(f.q);
        f.q := nq;
        f.tail := f.tail - f.head;
        f.head := 0;
      end if;
      f.q(f.tail) := r;
      f.tail := f.tail + 1;
    end procedure;

    procedure compare is
      variable m, d : read_t;
    begin
      while model_f.head < model_f.tail and dut_f.head < dut_f.tail loop
        m := model_f.q(model_f.head);
        d := dut_f.q(dut_f.head);
        model_f.head := model_f.head + 1;
        dut_f.head := dut_f.head + 1;
        n_checked := n_checked + 1;
        if m.addr /= d.addr or (m.at >= 0 and d.at >= 0 and m.at /= d.at) or
           ((m.data xor d.data) and d.mask) /= x"00000000" then
          n_mismatches := n_mismatches + 1;
          if n_mismatches <= 10 then
            report sb_name.all & ": read " & integer'image(n_checked) & ": DUT edge " &
              integer'image(d.at) & " addr " & to_hstring(d.addr) & " data " &
              to_hstring(d.data and d.mask) & " mask " & to_hstring(d.mask) & ", model edge " &
              integer'image(m.at) & " addr " & to_hstring(m.addr) & " data " &
              to_hstring(m.data) severity error;
          end if;
        end if;
      end loop;
    end procedure;

    procedure set_name(name : string) is
    begin
      deallocate(sb_name);
      sb_name := new string'(name);
    end procedure;

    procedure model_read(at : integer; addr, data : ptm_w32_t) is
    begin
      push(model_f, (at, addr, data, (others => '1')));
      compare;
    end procedure;

    procedure dut_read(at : integer; addr, data : ptm_w32_t;
                       mask : ptm_w32_t := (others => '1')) is
    begin
      push(dut_f, (at, addr, data, mask));
      compare;
    end procedure;

    impure function checked return natural is
    begin
      return n_checked;
    end function;

    impure function mismatches return natural is
    begin
      return n_mismatches;
    end function;

    impure function unmatched return natural is
    begin
      return (model_f.tail - model_f.head) + (dut_f.tail - dut_f.head);
    end function;

    impure function summary return natural is
    begin
      report sb_name.all & ": " & integer'image(n_checked) & " reads compared, " &
        integer'image(n_mismatches) & " mismatches, " & integer'image(unmatched) & " unmatched"
        severity note;
      return n_mismatches + unmatched;
    end function;
  end protected body ptm_scoreboard_t;

end package body pcie_telemetry_pkg;
