-- pcie-telemetry: conformance-trace testbench for the VHPIDIRECT model.
--
--   ./ptm_trace_tb -gMODE=probe -gTRACE=FILE
--   ./ptm_trace_tb -gMODE=component -gTRACE=FILE [-gEXPECTED=E]
--
-- The testbench reads the trace itself with textio (header, R/REP
-- expansion, sticky keys), drives the model through pcie_telemetry_pkg
-- edge by edge, and prints exactly what `ptmodel probe|component FILE`
-- prints.  With EXPECTED, every read is also checked by the scoreboard
-- against E (its R lines are the DUT's reads, under their masks).
-- Exit status: 0 success, 1 scoreboard mismatch or unreadable file,
-- 2 malformed trace (one line "FILE:LINE: ..." on stderr, nothing on
-- stdout).  Numbers must fit VHDL's 32-bit integer (edges, cycles, counts).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;
use work.pcie_telemetry_pkg.all;
use work.ptm_trace_util.all;

entity ptm_trace_tb is
  generic (
    MODE     : string := "probe";
    TRACE    : string := "";
    EXPECTED : string := "");
end entity ptm_trace_tb;

architecture sim of ptm_trace_tb is
begin
  main : process
    constant FINAL_MI_EDGES : natural := 400;
    constant REP_HISTORY    : natural := 4096;
    constant DOM_D          : natural := 100;
    constant DOM_M          : natural := 101;
    constant MAX_EP         : natural := 16;

    file f : text;
    variable rd : reader_t;      -- current line and its fields
    variable hv : ptm_pos_t;     -- last parsed hex value (bits below its width)

    -- probe: events and the FIFO of pending writes
    variable ev      : event_list.arr_p;
    variable nev     : natural := 0;
    variable pend    : int_list.arr_p;  -- pend(ph .. pt-1): indices into ev, FIFO order
    variable ph, pt  : natural := 0;
    variable probe   : integer;
    variable pb_buses, pb_regions, pb_pos_w, pb_brakes : natural;
    variable li_rst, li_flag_clr : std_logic := '0';
    variable li_sof, li_eof, li_mvb : ptm_vec_t := (others => '0');
    variable li_pos  : ptm_pos_t := (others => '0');
    variable li_src, li_dst, li_brake, li_msrc, li_mdst : ptm_w32_t := (others => '0');
    variable li_mi_edges : natural := 0;

    -- component: generics, sticky inputs, reads
    type gen_t is array (0 to 16) of natural;
    variable gen    : gen_t;
    variable model  : integer;
    variable c_nep, c_pr, c_dr, c_db : natural;
    variable edges_decl, edges : natural := 0;
    variable reads  : read_list.arr_p;
    variable nreads, next_answer : natural := 0;
    type dom_arr_t is array (0 to REP_HISTORY - 1) of natural;
    type bare_arr_t is array (0 to REP_HISTORY - 1) of boolean;
    variable hist_dom  : dom_arr_t;
    variable hist_bare : bare_arr_t;
    variable nhist     : natural := 0;
    type w32_ep_t is array (0 to MAX_EP - 1) of ptm_w32_t;
    type sl_ep_t is array (0 to MAX_EP - 1) of std_logic;
    type ppos_ep_t is array (0 to MAX_EP - 1) of ptm_pcie_pos_t;
    type vec_ep_t is array (0 to MAX_EP - 1) of ptm_vec_t;
    type pos_ep_t is array (0 to MAX_EP - 1) of ptm_pos_t;
    type bool_ep_t is array (0 to MAX_EP - 1) of boolean;
    variable p_rst, p_ext, p_t10, p_rcb, p_link : sl_ep_t := (others => '0');
    variable p_sof, p_eof, p_src, p_dst, p_brake, p_stf, p_tag, p_mps, p_mrrs :
      w32_ep_t := (others => (others => '0'));
    variable p_pos : ppos_ep_t := (others => (others => '0'));
    variable d_rst, m_rst : std_logic := '0';
    variable d_sof, d_eof, d_mvb : vec_ep_t := (others => (others => '0'));
    variable d_pos : pos_ep_t := (others => (others => '0'));
    variable d_src, d_dst, d_msrc, d_mdst : w32_ep_t := (others => (others => '0'));
    variable d_dirty : bool_ep_t := (others => false);
    variable sb : ptm_scoreboard_t;

    ---- reading ------------------------------------------------------------

    procedure fail(msg : string) is
    begin
      die(2, rd.name.all & ":" & integer'image(rd.lineno) & ": " & msg);
    end procedure;

    -- Field i (1-based) of the current line, as a string(1 to length).
    impure function tlen(i : natural) return natural is
    begin
      if i < 1 or i > rd.n then
        return 0;
      end if;
      return rd.te(i) - rd.ts(i) + 1;
    end function;

    impure function tok(i : natural) return string is
      variable r : string(1 to tlen(i));
    begin
      if r'length > 0 then
        r := rd.l(rd.ts(i) to rd.te(i));
      end if;
      return r;
    end function;

    -- Fields from .. n joined by single spaces.
    impure function joined(from : natural) return string is
    begin
      if from >= rd.n then
        return tok(from);
      end if;
      return tok(from) & " " & joined(from + 1);
    end function;

    -- Next line with a record; false at the end of the file.
    impure function next_record return boolean is
      variable ok : boolean;
    begin
      read_record(f, rd, ok);
      return ok;
    end function;

    impure function dec(s, what : string; lo, hi : integer) return integer is
      variable v : integer;
      variable ok : boolean;
    begin
      parse_dec(s, lo, hi, v, ok);
      if not ok then
        fail("field '" & what & "': '" & s & "' is not a decimal number in " &
             integer'image(lo) & ".." & integer'image(hi));
      end if;
      return v;
    end function;

    -- hv(width-1 downto 0) := the hex value (width <= PTM_POS_W).
    procedure hex(s, what : string; width : natural) is
      variable why : line;
    begin
      parse_hex(s, width, hv, why);
      if why /= null then
        fail("field '" & what & "': '" & s & "' " & why.all);
      end if;
    end procedure;

    impure function hex_nat(s, what : string; width : natural) return natural is
    begin
      hex(s, what, width);
      return to_integer(unsigned(hv(width - 1 downto 0)));
    end function;

    impure function kw_dec(kw : string; lo, hi : integer) return integer is
    begin
      if not next_record then
        fail("unexpected end of file, expected '" & kw & "'");
      end if;
      if tok(1) /= kw or rd.n /= 2 then
        fail("expected '" & kw & " <n>'");
      end if;
      return dec(tok(2), kw, lo, hi);
    end function;

    procedure kw_only(kw : string) is
    begin
      if not next_record or tok(1) /= kw or rd.n /= 1 then
        fail("expected '" & kw & "'");
      end if;
    end procedure;

    -- w32(width) of hv, zero-extended
    impure function hv32(width : natural) return ptm_w32_t is
      variable r : ptm_w32_t := (others => '0');
    begin
      r(width - 1 downto 0) := hv(width - 1 downto 0);
      return r;
    end function;

    ---- PROBE trace ----------------------------------------------------------

    procedure probe_header(cycles : out natural) is
      variable items : ptm_items_t := (others => 0);
      variable imax, v : natural := 1;
      constant COLS : string := "rst sof eof eof_pos src_rdy dst_rdy brake mvb_vld " &
                                "mvb_src_rdy mvb_dst_rdy mi_edges flag_clr";
    begin
      if not next_record or tok(1) /= "PROBE_TRACE" or rd.n /= 2 or tok(2) /= "1" then
        fail("not a probe trace: expected 'PROBE_TRACE 1'");
      end if;
      pb_buses := kw_dec("BUSES", 1, PTM_MAX_BUSES);
      pb_regions := kw_dec("REGIONS", 1, 16);
      if not next_record or tok(1) /= "REGION_ITEMS" then
        fail("expected 'REGION_ITEMS'");
      end if;
      if rd.n - 1 /= pb_buses then
        fail("field 'REGION_ITEMS' has " & integer'image(rd.n - 1) & " values, BUSES is " &
             integer'image(pb_buses));
      end if;
      for b in 0 to pb_buses - 1 loop
        items(b) := dec(tok(b + 2), "REGION_ITEMS", 1, 65536);
        if items(b) > imax then
          imax := items(b);
        end if;
      end loop;
      pb_pos_w := kw_dec("EOF_POS_WIDTH", 0, 16);
      if 2 ** pb_pos_w < imax then
        fail("field 'EOF_POS_WIDTH': " & integer'image(pb_pos_w) & " bits cannot address " &
             integer'image(imax) & " items");
      end if;
      pb_brakes := kw_dec("BRAKES", 0, 32);
      v := kw_dec("DRAIN_PERIOD", 1, 2 ** 30);
      probe := ptm_probe_new(pb_buses, pb_regions, items, pb_pos_w, pb_brakes, v);
      if probe <= 0 then
        fail(ptm_error_text);
      end if;
      cycles := kw_dec("CYCLES", 0, integer'high);
      if not next_record or tok(1) /= "COLUMNS" or joined(2) /= COLS then
        fail("expected 'COLUMNS " & COLS & "'");
      end if;
      kw_only("BEGIN");
    end procedure;

    function col_name(c : natural) return string is
    begin
      case c is
        when 1 => return "rst";
        when 2 => return "sof";
        when 3 => return "eof";
        when 4 => return "eof_pos";
        when 5 => return "src_rdy";
        when 6 => return "dst_rdy";
        when 7 => return "brake";
        when 8 => return "mvb_vld";
        when 9 => return "mvb_src_rdy";
        when 10 => return "mvb_dst_rdy";
        when 11 => return "mi_edges";
        when others => return "flag_clr";
      end case;
    end function;

    procedure probe_data_line is
      variable br : natural := pb_buses * pb_regions;
      type w_t is array (1 to 12) of natural;
      variable width : w_t;
      variable brw : natural := 1;
    begin
      if rd.n /= 12 then
        fail("data line has " & integer'image(rd.n) & " fields, expected 12 (rst ... flag_clr)");
      end if;
      if pb_brakes > 0 then
        brw := pb_brakes;
      end if;
      width := (1, br, br, br * pb_pos_w, pb_buses, pb_buses, brw, br, pb_buses, pb_buses, 16, 1);
      for c in 1 to 12 loop
        hex(tok(c), col_name(c), width(c));
        case c is
          when 1 => li_rst := hv(0);
          when 2 => li_sof(br - 1 downto 0) := hv(br - 1 downto 0);
          when 3 => li_eof(br - 1 downto 0) := hv(br - 1 downto 0);
          when 4 => li_pos(br * pb_pos_w - 1 downto 0) := hv(br * pb_pos_w - 1 downto 0);
          when 5 => li_src := hv32(pb_buses);
          when 6 => li_dst := hv32(pb_buses);
          when 7 =>
            if pb_brakes > 0 then
              li_brake := hv32(pb_brakes);
            end if;
          when 8 => li_mvb(br - 1 downto 0) := hv(br - 1 downto 0);
          when 9 => li_msrc := hv32(pb_buses);
          when 10 => li_mdst := hv32(pb_buses);
          when 11 => li_mi_edges := to_integer(unsigned(hv(15 downto 0)));
          when others => li_flag_clr := hv(0);
        end case;
      end loop;
    end procedure;

    procedure push_event(kind : character; cycle, chan : natural; delta : ptm_w64_t) is
    begin
      event_list.grow(ev, nev);
      ev(nev) := (kind, cycle, chan, delta);
      nev := nev + 1;
    end procedure;

    procedure push_pend(i : natural) is
    begin
      int_list.grow(pend, pt);
      pend(pt) := i;
      pt := pt + 1;
    end procedure;

    -- The read side pops one delta: the oldest pending write becomes W.
    procedure pop(index : natural; delta : ptm_w64_t; check : boolean) is
      variable i : natural;
    begin
      if ph = pt then
        if check then
          fail("internal error: a FIFO pop without a write");
        end if;
        return;
      end if;
      i := pend(ph);
      ph := ph + 1;
      if check and (ev(i).chan /= index or ev(i).delta /= delta) then
        fail("internal error: FIFO read-out out of order");
      end if;
      ev(i).kind := 'W';
    end procedure;

    -- n MI edges with TX_RD = 1, each delta popped ends its write's event.
    procedure mi_edges(n : natural; check : boolean) is
      variable vld, ovf, ovr : std_logic;
      variable idx : integer;
      variable delta : ptm_w64_t;
    begin
      for k in 1 to n loop
        ptm_probe_mi_clk(probe, '0', li_flag_clr, '1', vld, idx, delta, ovf, ovr);
        if vld = '1' then
          pop(idx, delta, check);
        end if;
      end loop;
    end procedure;

    procedure probe_edge(cycle : natural) is
      variable tick, wen, wdrop, flushed : std_logic;
      variable widx : integer;
      variable wdelta : ptm_w64_t;
    begin
      ptm_probe_clk(probe, li_rst, li_sof, li_eof, li_pos, li_src, li_dst, li_brake, li_mvb,
                    li_msrc, li_mdst, tick, wen, wdrop, widx, wdelta, flushed);
      if flushed = '1' then
        for k in ph to pt - 1 loop
          ev(pend(k)).kind := 'F';
        end loop;
        ph := 0;
        pt := 0;
      end if;
      if tick = '1' then
        push_event('T', cycle, 0, (others => '0'));
      end if;
      if wen = '1' then
        if wdrop = '1' then
          push_event('X', cycle, widx, wdelta);
        else
          push_event('P', cycle, widx, wdelta);
          push_pend(nev - 1);
        end if;
      end if;
      mi_edges(li_mi_edges, true);
    end procedure;

    procedure run_probe is
      variable cycles, reps : natural;
      variable cycle : natural := 0;
      variable have_line, ended : boolean := false;
      variable vld, ovf, ovr : std_logic;
      variable idx : integer;
      variable delta : ptm_w64_t;
      variable o : line;
    begin
      probe_header(cycles);
      while next_record loop
        if ended then
          fail("'" & tok(1) & "' after END");
        end if;
        if tok(1) = "END" then
          if rd.n /= 1 then
            fail("expected 'END'");
          end if;
          if cycle /= cycles then
            fail("body has " & integer'image(cycle) & " CLK edges, CYCLES says " &
                 integer'image(cycles));
          end if;
          ended := true;
        else
          reps := 1;
          if tok(1) = "R" then
            if rd.n /= 2 then
              fail("expected 'R <n>'");
            end if;
            if not have_line then
              fail("field 'R': repeat before the first data line");
            end if;
            reps := dec(tok(2), "R", 0, integer'high);
          else
            probe_data_line;
            have_line := true;
          end if;
          if reps > cycles - cycle then
            fail("body exceeds CYCLES " & integer'image(cycles));
          end if;
          for i in 1 to reps loop
            probe_edge(cycle);
            cycle := cycle + 1;
          end loop;
        end if;
      end loop;
      if not ended then
        fail("missing END");
      end if;
      mi_edges(FINAL_MI_EDGES, false);
      ptm_probe_tx(probe, vld, idx, delta, ovf, ovr);
      write(o, string'("PROBE_EXPECTED 1"));
      writeline(output, o);
      for i in 0 to nev - 1 loop
        if ev(i).kind = 'T' then
          write(o, "T " & integer'image(ev(i).cycle));
          writeline(output, o);
        elsif ev(i).kind /= 'P' then
          write(o, ev(i).kind & " " & integer'image(ev(i).cycle) & " " &
                integer'image(ev(i).chan) & " " & u64_image(ev(i).delta));
          writeline(output, o);
        end if;
      end loop;
      write(o, "FLAGS " & sl_image(ovf) & " " & sl_image(ovr));
      writeline(output, o);
      write(o, string'("END"));
      writeline(output, o);
      deallocate(o);
      ptm_probe_free(probe);
    end procedure;

    ---- COMPONENT trace ------------------------------------------------------

    procedure component_header is
      constant HDR : string := "PCIE_ENDPOINTS DMA_PORTS PCIE_RQ_MFB_REGIONS PCIE_RC_MFB_REGIONS " &
        "DMA_UP_MFB_REGIONS DMA_DOWN_MFB_REGIONS PCIE_RQ_MFB_REGION_BYTES " &
        "PCIE_RC_MFB_REGION_BYTES DMA_UP_MFB_REGION_BYTES DMA_DOWN_MFB_REGION_BYTES " &
        "MFB_ITEM_BYTES PCIE_EOF_POS_WIDTH DMA_EOF_POS_WIDTH CNT_WIDTH DRAIN_PERIOD " &
        "TAG_CAPACITY STFIFO_CAPACITY ";
      variable p : natural := HDR'low;
      variable q : natural;
    begin
      if not next_record or tok(1) /= "COMPONENT_TRACE" or rd.n /= 2 or tok(2) /= "1" then
        fail("not a component trace: expected 'COMPONENT_TRACE 1'");
      end if;
      for i in gen'range loop
        q := p;
        while HDR(q) /= ' ' loop
          q := q + 1;
        end loop;
        gen(i) := kw_dec(HDR(p to q - 1), 0, integer'high);
        p := q + 1;
      end loop;
      edges_decl := kw_dec("EDGES", 0, integer'high);
      model := ptm_new(gen(0), gen(1), gen(2), gen(3), gen(4), gen(5), gen(6), gen(7), gen(8),
                       gen(9), gen(10), gen(11), gen(12), gen(13), gen(14), gen(15), gen(16));
      if model <= 0 then
        fail(ptm_error_text);
      end if;
      c_nep := gen(0);
      c_pr := maximum(gen(2), gen(3));
      c_dr := maximum(gen(4), gen(5));
      c_db := 2 * gen(1);
      loop
        if not next_record then
          fail("end of file, expected 'BEGIN'");
        end if;
        exit when tok(1) /= "FIELDS";
        if rd.n < 2 or (tok(2) /= "P" and tok(2) /= "D" and tok(2) /= "M") then
          fail("field 'FIELDS': expected a domain P, D or M");
        end if;
      end loop;
      if tok(1) /= "BEGIN" or rd.n /= 1 then
        fail("expected 'BEGIN'");
      end if;
    end procedure;

    procedure p_key(e : natural; key, val : string) is
      variable w : natural;
    begin
      if key = "rst" or key = "ext_tag_en" or key = "tag10b_req_en" or key = "rcb_size" or
         key = "link_up" then
        w := 1;
      elsif key = "sof" or key = "eof" then
        w := 2 * c_pr;
      elsif key = "eof_pos" then
        w := 2 * c_pr * gen(11);
      elsif key = "src_rdy" or key = "dst_rdy" then
        w := 2;
      elsif key = "brake" then
        w := 6;
      elsif key = "stfifo_free" then
        w := 16;
      elsif key = "tag_free" then
        w := 11;
      elsif key = "mps" or key = "mrrs" then
        w := 3;
      else
        fail("field '" & key & "': unknown key of a P line");
      end if;
      hex(val, key, w);
      if key = "rst" then p_rst(e) := hv(0);
      elsif key = "ext_tag_en" then p_ext(e) := hv(0);
      elsif key = "tag10b_req_en" then p_t10(e) := hv(0);
      elsif key = "rcb_size" then p_rcb(e) := hv(0);
      elsif key = "link_up" then p_link(e) := hv(0);
      elsif key = "sof" then p_sof(e) := hv32(w);
      elsif key = "eof" then p_eof(e) := hv32(w);
      elsif key = "eof_pos" then p_pos(e)(w - 1 downto 0) := hv(w - 1 downto 0);
      elsif key = "src_rdy" then p_src(e) := hv32(w);
      elsif key = "dst_rdy" then p_dst(e) := hv32(w);
      elsif key = "brake" then p_brake(e) := hv32(w);
      elsif key = "stfifo_free" then p_stf(e) := hv32(w);
      elsif key = "tag_free" then p_tag(e) := hv32(w);
      elsif key = "mps" then p_mps(e) := hv32(w);
      else p_mrrs(e) := hv32(w);
      end if;
    end procedure;

    -- D keys: rst, or NAME<e> for endpoint e.
    procedure d_key(key, val : string) is
      variable i : natural := key'high;
      variable e, w : natural;
    begin
      if key = "rst" then
        hex(val, key, 1);
        d_rst := hv(0);
        return;
      end if;
      while i >= key'low and key(i) >= '0' and key(i) <= '9' loop
        i := i - 1;
      end loop;
      if i = key'high or i < key'low then
        fail("field '" & key & "': unknown key of a D line");
      end if;
      e := dec(key(i + 1 to key'high), key, 0, 999);
      if e >= c_nep then
        fail("field '" & key & "': endpoint " & integer'image(e) & " out of range (PCIE_ENDPOINTS=" &
             integer'image(c_nep) & ")");
      end if;
      if key(key'low to i) = "sof" or key(key'low to i) = "eof" or key(key'low to i) = "mvb_vld" then
        w := c_db * c_dr;
      elsif key(key'low to i) = "eof_pos" then
        w := c_db * c_dr * gen(12);
      elsif key(key'low to i) = "src_rdy" or key(key'low to i) = "dst_rdy" or
            key(key'low to i) = "mvb_src_rdy" or key(key'low to i) = "mvb_dst_rdy" then
        w := c_db;
      else
        fail("field '" & key & "': unknown key of a D line");
      end if;
      hex(val, key, w);
      if key(key'low to i) = "sof" then d_sof(e)(w - 1 downto 0) := hv(w - 1 downto 0);
      elsif key(key'low to i) = "eof" then d_eof(e)(w - 1 downto 0) := hv(w - 1 downto 0);
      elsif key(key'low to i) = "mvb_vld" then d_mvb(e)(w - 1 downto 0) := hv(w - 1 downto 0);
      elsif key(key'low to i) = "eof_pos" then d_pos(e)(w - 1 downto 0) := hv(w - 1 downto 0);
      elsif key(key'low to i) = "src_rdy" then d_src(e) := hv32(w);
      elsif key(key'low to i) = "dst_rdy" then d_dst(e) := hv32(w);
      elsif key(key'low to i) = "mvb_src_rdy" then d_msrc(e) := hv32(w);
      else d_mdst(e) := hv32(w);
      end if;
      d_dirty(e) := true;
    end procedure;

    procedure mi_edge(rdq, wrq : std_logic; addr, dwr : ptm_w32_t) is
      variable drd : ptm_w32_t;
      variable drdy, ardy : std_logic;
    begin
      if rdq = '1' then
        read_list.grow(reads, nreads);
        reads(nreads) := (edges, addr, (others => '0'), rd.lineno);
        nreads := nreads + 1;
      end if;
      ptm_mi_edge(model, m_rst, rdq, wrq, addr, dwr, drd, drdy, ardy);
      if m_rst = '1' and next_answer < nreads then
        fail("MI_RESET cancels the read of " & hex8(reads(next_answer).addr) &
             " issued on line " & integer'image(reads(next_answer).line) &
             " before MI_DRDY answers it");
      end if;
      if drdy = '1' then
        if next_answer >= nreads then
          fail("MI_DRDY without a pending read (model error)");
        end if;
        reads(next_answer).data := drd;
        sb.model_read(reads(next_answer).at, reads(next_answer).addr, drd);
        next_answer := next_answer + 1;
      end if;
    end procedure;

    procedure run_edge(dom : natural; rdq, wrq : std_logic; addr, dwr : ptm_w32_t) is
    begin
      if edges >= edges_decl then
        fail("more edges than EDGES " & integer'image(edges_decl));
      end if;
      if dom = DOM_D then
        for e in 0 to c_nep - 1 loop
          if d_dirty(e) then
            ptm_dma_in(model, e, d_sof(e), d_eof(e), d_pos(e), d_src(e), d_dst(e), d_mvb(e),
                       d_msrc(e), d_mdst(e));
            d_dirty(e) := false;
          end if;
        end loop;
        ptm_dma_edge(model, d_rst);
      elsif dom = DOM_M then
        mi_edge(rdq, wrq, addr, dwr);
      else
        ptm_pcie_edge(model, dom, p_rst(dom), p_sof(dom), p_eof(dom), p_pos(dom), p_src(dom),
                      p_dst(dom), p_brake(dom), p_stf(dom), p_tag(dom), p_mps(dom),
                      p_mrrs(dom), p_ext(dom), p_t10(dom), p_rcb(dom), p_link(dom));
      end if;
      edges := edges + 1;
    end procedure;

    procedure remember(dom : natural; bare : boolean) is
    begin
      hist_dom(nhist mod REP_HISTORY) := dom;
      hist_bare(nhist mod REP_HISTORY) := bare;
      nhist := nhist + 1;
    end procedure;

    -- REP n k: the previous k lines (bare tags) n more times.
    procedure do_rep is
      variable n, k, first : natural;
      constant Z : ptm_w32_t := (others => '0');
    begin
      if rd.n /= 3 then
        fail("field 'REP': expected 'REP <n> <k>'");
      end if;
      n := dec(tok(2), "REP n", 0, integer'high);
      k := dec(tok(3), "REP k", 1, REP_HISTORY);
      if k > nhist then
        fail("field 'REP k': " & integer'image(k) & " lines asked, only " &
             integer'image(nhist) & " before");
      end if;
      first := nhist - k;
      for i in first to nhist - 1 loop
        if not hist_bare(i mod REP_HISTORY) then
          fail("field 'REP': the repeated lines must be bare domain tags");
        end if;
      end loop;
      if n /= 0 and k > (edges_decl - edges) / n then
        fail("field 'REP': " & integer'image(n) & " x " & integer'image(k) & " edges exceed EDGES " &
             integer'image(edges_decl));
      end if;
      for j in 1 to n loop
        for i in first to first + k - 1 loop
          run_edge(hist_dom(i mod REP_HISTORY), '0', '0', Z, Z);
        end loop;
      end loop;
      remember(0, false);
    end procedure;

    procedure m_line(rdq, wrq : out std_logic; addr, dwr : out ptm_w32_t) is
      variable have_op, have_rst : boolean := false;
      variable eq, colon : natural;
    begin
      rdq := '0';
      wrq := '0';
      addr := (others => '0');
      dwr := (others => '0');
      for i in 2 to rd.n loop
        eq := find(tok(i), '=');
        if eq = 0 or eq = 1 or eq = tlen(i) then
          fail("'" & tok(i) & "': expected key=value");
        end if;
        if tok(i)(1 to eq - 1) = "rst" then
          if have_rst then
            fail("field 'rst': given twice on one line");
          end if;
          have_rst := true;
          hex(tok(i)(eq + 1 to tlen(i)), "rst", 1);
          m_rst := hv(0);
        elsif tok(i)(1 to eq - 1) = "rd" or tok(i)(1 to eq - 1) = "wr" then
          if have_op then
            fail("field '" & tok(i)(1 to eq - 1) & "': a second operation on one M line");
          end if;
          have_op := true;
          colon := find(tok(i), ':');
          if tok(i)(1 to eq - 1) = "wr" then
            if colon <= eq + 1 or colon = tlen(i) then
              fail("field 'wr': expected ADDR:DATA, found '" & tok(i)(eq + 1 to tlen(i)) & "'");
            end if;
            hex(tok(i)(colon + 1 to tlen(i)), "wr data", 32);
            dwr := hv(31 downto 0);
            hex(tok(i)(eq + 1 to colon - 1), "wr address", 32);
            wrq := '1';
          else
            if colon /= 0 then
              fail("field 'rd': a read takes an address only, found '" &
                   tok(i)(eq + 1 to tlen(i)) & "'");
            end if;
            hex(tok(i)(eq + 1 to tlen(i)), "rd address", 32);
            rdq := '1';
          end if;
          addr := hv(31 downto 0);
        else
          fail("field '" & tok(i)(1 to eq - 1) & "': unknown key of an M line (rst, rd, wr)");
        end if;
      end loop;
    end procedure;

    procedure body_line is
      variable dom, eq : natural;
      variable rdq, wrq : std_logic := '0';
      variable addr, dwr : ptm_w32_t := (others => '0');
    begin
      if tok(1) = "REP" then
        do_rep;
        return;
      end if;
      if tok(1) = "D" then
        dom := DOM_D;
      elsif tok(1) = "M" then
        dom := DOM_M;
      elsif tlen(1) > 1 and tok(1)(1) = 'P' then
        dom := dec(tok(1)(2 to tlen(1)), "P<e>", 0, 255);
        if dom >= c_nep then
          fail("field '" & tok(1) & "': endpoint " & integer'image(dom) &
               " out of range (PCIE_ENDPOINTS=" & integer'image(c_nep) & ")");
        end if;
      else
        fail("unknown record '" & tok(1) & "' (expected P<e>, D, M, REP or END)");
      end if;
      if dom = DOM_M then
        m_line(rdq, wrq, addr, dwr);
      else
        for i in 2 to rd.n loop
          eq := find(tok(i), '=');
          if eq = 0 or eq = 1 or eq = tlen(i) then
            fail("'" & tok(i) & "': expected key=value");
          end if;
          for j in 2 to i - 1 loop
            if tlen(j) > eq and tok(j)(1 to eq) = tok(i)(1 to eq) then
              fail("field '" & tok(i)(1 to eq - 1) & "': given twice on one line");
            end if;
          end loop;
          if dom = DOM_D then
            d_key(tok(i)(1 to eq - 1), tok(i)(eq + 1 to tlen(i)));
          else
            p_key(dom, tok(i)(1 to eq - 1), tok(i)(eq + 1 to tlen(i)));
          end if;
        end loop;
      end if;
      run_edge(dom, rdq, wrq, addr, dwr);
      remember(dom, rd.n = 1);
    end procedure;

    procedure run_component is
      variable drd : ptm_w32_t;
      variable drdy, ardy : std_logic;
      variable o : line;
      constant Z : ptm_w32_t := (others => '0');
    begin
      component_header;
      loop
        if not next_record then
          fail("end of file, expected 'END'");
        end if;
        if tok(1) = "END" then
          if rd.n /= 1 then
            fail("expected 'END'");
          end if;
          exit;
        end if;
        body_line;
      end loop;
      if edges /= edges_decl then
        fail("the body has " & integer'image(edges) & " edges, EDGES says " &
             integer'image(edges_decl));
      end if;
      if next_record then
        fail("text after END");
      end if;
      -- Reads of the last two MI edges: the MI clock keeps running.
      for i in 1 to 2 loop
        exit when next_answer >= nreads;
        ptm_mi_edge(model, m_rst, '0', '0', Z, Z, drd, drdy, ardy);
        if drdy = '1' then
          reads(next_answer).data := drd;
          sb.model_read(reads(next_answer).at, reads(next_answer).addr, drd);
          next_answer := next_answer + 1;
        end if;
      end loop;
      if next_answer < nreads then
        rd.lineno := reads(next_answer).line;
        fail("the read of " & hex8(reads(next_answer).addr) & " never got MI_DRDY");
      end if;
      write(o, string'("COMPONENT_EXPECTED 1"));
      writeline(output, o);
      for i in 0 to nreads - 1 loop
        write(o, "R " & integer'image(reads(i).at) & " " & hex8(reads(i).addr) & " " &
              hex8(reads(i).data));
        writeline(output, o);
      end loop;
      write(o, string'("END"));
      writeline(output, o);
      deallocate(o);
      ptm_free(model);
    end procedure;

    -- The scoreboard against an expected file: its R lines are the DUT's
    -- reads (the RTL's answers, under their masks).
    procedure check_expected is
      variable st : file_open_status;
      variable at : natural;
      variable a, d : ptm_w32_t;
    begin
      file_open(st, f, EXPECTED, read_mode);
      if st /= open_ok then
        die(1, EXPECTED & ": cannot open");
      end if;
      reader_init(rd, EXPECTED);
      while next_record loop
        if tok(1) = "R" then
          if rd.n /= 5 then
            fail("expected 'R EDGE ADDR DATA MASK'");
          end if;
          at := dec(tok(2), "edge", 0, integer'high);
          hex(tok(3), "addr", 32);
          a := hv(31 downto 0);
          hex(tok(4), "data", 32);
          d := hv(31 downto 0);
          hex(tok(5), "mask", 32);
          sb.dut_read(at, a, d, hv(31 downto 0));
        end if;
      end loop;
      file_close(f);
      if sb.summary /= 0 then
        die(1, "");
      end if;
    end procedure;

    variable st : file_open_status;
  begin
    if MODE /= "probe" and MODE /= "component" then
      die(2, "usage: -gMODE=probe|component -gTRACE=FILE [-gEXPECTED=FILE]");
    end if;
    file_open(st, f, TRACE, read_mode);
    if st /= open_ok then
      die(1, TRACE & ": cannot open");
    end if;
    reader_init(rd, TRACE);
    if MODE = "probe" then
      run_probe;
    else
      run_component;
    end if;
    file_close(f);
    if EXPECTED /= "" then
      check_expected;
    end if;
    wait;
  end process main;
end architecture sim;
