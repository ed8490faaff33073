// pcie-telemetry: PROBE trace runner of ptm_trace_tb (trace-format.md a).
// Included in the module: uses its reader (toks, fail, parse_*).
//
// Every FIFO write the probe makes is an event, pending until the read
// side pops it (W), a FIFO reset throws it away (F), or WR_FULL dropped it
// at once (X); T marks a DRAIN_TICK.  Events print in the order they
// happened, which is the order of the expected file.

  typedef struct {
    byte kind;                // "T", "W", "F", "X", or "P" while pending
    longint unsigned cycle;
    int unsigned chan;
    longint unsigned delta;
  } ptm_event_t;

  localparam int P_NCOLS = 12;
  localparam string P_COLS[P_NCOLS] = '{"rst", "sof", "eof", "eof_pos", "src_rdy", "dst_rdy",
      "brake", "mvb_vld", "mvb_src_rdy", "mvb_dst_rdy", "mi_edges", "flag_clr"};

  chandle probe;
  ptm_event_t ev[$];
  int pend[$];                // indices into ev of accepted writes, FIFO order
  int unsigned pb_buses, pb_regions, pb_pos_w, pb_brakes;

  // The inputs of the current data line.
  bit li_rst, li_flag_clr;
  ptm_vec_t li_sof, li_eof, li_mvb_vld;
  ptm_pos_t li_pos;
  int unsigned li_src, li_dst, li_brake, li_msrc, li_mdst, li_mi_edges;

  function automatic int unsigned log2c(longint unsigned n);
    /*verilator no_inline_task*/
    int unsigned a = 0;
    while ((64'd1 << a) < n) a++;
    return a;
  endfunction

  function automatic bit probe_header(output longint unsigned cycles);
    longint unsigned v, imax = 1;
    ptm_items_t items;
    cycles = 0;
    if (!next_record()) return fail("empty trace, expected 'PROBE_TRACE 1'");
    if (toks[0] != "PROBE_TRACE" || toks.size() != 2 || toks[1] != "1")
      return fail("not a probe trace: expected 'PROBE_TRACE 1'");
    if (!kw_dec("BUSES", 1, 64'(PTM_MAX_BUSES), v)) return 0;
    pb_buses = int'(v);
    if (!kw_dec("REGIONS", 1, 16, v)) return 0;
    pb_regions = int'(v);
    if (!next_record() || toks[0] != "REGION_ITEMS") return fail("expected 'REGION_ITEMS'");
    if (toks.size() - 1 != pb_buses)
      return fail($sformatf("field 'REGION_ITEMS' has %0d values, BUSES is %0d", toks.size() - 1,
                            pb_buses));
    items = '{default: 0};
    for (int b = 0; b < pb_buses; b++) begin
      if (!parse_dec(toks[b + 1], "REGION_ITEMS", 1, 65536, v)) return 0;
      items[b] = int'(v);
      if (v > imax) imax = v;
    end
    if (!kw_dec("EOF_POS_WIDTH", 0, 16, v)) return 0;
    if (v < 64'(log2c(imax)))
      return fail($sformatf("field 'EOF_POS_WIDTH': %0d bits cannot address %0d items", v, imax));
    pb_pos_w = int'(v);
    if (!kw_dec("BRAKES", 0, 32, v)) return 0;
    pb_brakes = int'(v);
    if (!kw_dec("DRAIN_PERIOD", 1, 64'd1 << 30, v)) return 0;
    probe = ptm_dpi_probe_new(pb_buses, pb_regions, items, pb_pos_w, pb_brakes, int'(v));
    if (probe == null) return fail(ptm_dpi_error());
    if (!kw_dec("CYCLES", 0, 64'hffff_ffff_ffff_ffff, cycles)) return 0;
    if (!next_record() || toks[0] != "COLUMNS" || toks.size() != P_NCOLS + 1)
      return fail($sformatf("expected 'COLUMNS' and %0d column names", P_NCOLS));
    for (int c = 0; c < P_NCOLS; c++)
      if (toks[c + 1] != P_COLS[c])
        return fail($sformatf("field 'COLUMNS': column %0d is '%s', expected '%s'", c + 1,
                              toks[c + 1], P_COLS[c]));
    return kw_only("BEGIN");
  endfunction

  // One parse per column (a single call site keeps the inlined code small).
  function automatic bit probe_data_line();
    int unsigned br = pb_buses * pb_regions;
    int unsigned width[P_NCOLS];
    ptm_pos_t v;
    if (toks.size() != P_NCOLS)
      return fail($sformatf("data line has %0d fields, expected %0d (rst ... flag_clr)",
                            toks.size(), P_NCOLS));
    width = '{1, br, br, br * pb_pos_w, pb_buses, pb_buses, pb_brakes > 0 ? pb_brakes : 1, br,
              pb_buses, pb_buses, 16, 1};
    for (int c = 0; c < P_NCOLS; c++) begin
      if (!parse_hex(toks[c], P_COLS[c], int'(width[c]), v)) return 0;
      case (c)
        0: li_rst = v[0];
        1: li_sof = v[PTM_VEC_W-1:0];
        2: li_eof = v[PTM_VEC_W-1:0];
        3: li_pos = v;
        4: li_src = v[31:0];
        5: li_dst = v[31:0];
        6: li_brake = pb_brakes > 0 ? v[31:0] : 0;
        7: li_mvb_vld = v[PTM_VEC_W-1:0];
        8: li_msrc = v[31:0];
        9: li_mdst = v[31:0];
        10: li_mi_edges = v[31:0];
        default: li_flag_clr = v[0];
      endcase
    end
    return 1;
  endfunction

  function automatic ptm_event_t mk_event(byte kind, longint unsigned cycle, int unsigned chan,
                                       longint unsigned delta);
    ptm_event_t e;
    e.kind = kind;
    e.cycle = cycle;
    e.chan = chan;
    e.delta = delta;
    return e;
  endfunction

  // The read side pops one delta: the oldest pending write becomes W.
  function automatic bit probe_pop(int unsigned index, longint unsigned delta, bit check);
    int i;
    if (pend.size() == 0) begin
      if (check) return fail("internal error: a FIFO pop without a write");
      return 1;
    end
    i = pend.pop_front();
    if (check && (ev[i].chan != index || ev[i].delta != delta))
      return fail("internal error: FIFO read-out out of order");
    ev[i].kind = "W";
    return 1;
  endfunction

  // n MI edges with TX_RD = 1, each delta popped ends its write's event.
  function automatic bit mi_edges(int unsigned n, bit check);
    bit vld, ovf, ovr;
    int unsigned idx;
    longint unsigned delta;
    for (int unsigned k = 0; k < n; k++) begin
      ptm_dpi_probe_mi_clk(probe, 0, li_flag_clr, 1, vld, idx, delta, ovf, ovr);
      if (vld) begin
        if (!probe_pop(idx, delta, check)) return 0;
      end
    end
    return 1;
  endfunction

  // One CLK edge with the line's inputs, then its MI edges (TX_RD = 1).
  function automatic bit probe_edge(longint unsigned cycle);
    bit tick, wen, wdrop, flushed;
    int unsigned widx;
    longint unsigned wdelta;
    ptm_dpi_probe_clk(probe, li_rst, li_sof, li_eof, li_pos, li_src, li_dst, li_brake,
                      li_mvb_vld, li_msrc, li_mdst, tick, wen, wdrop, widx, wdelta, flushed);
    if (flushed) begin
      foreach (pend[i]) ev[pend[i]].kind = "F";
      pend.delete();
    end
    if (tick) ev.push_back(mk_event("T", cycle, 0, 0));
    if (wen) begin
      ev.push_back(mk_event(wdrop ? "X" : "P", cycle, widx, wdelta));
      if (!wdrop) pend.push_back(ev.size() - 1);
    end
    return mi_edges(li_mi_edges, 1);
  endfunction

  function automatic void probe_render();
    bit vld, ovf, ovr;
    int unsigned idx;
    longint unsigned delta;
    ptm_dpi_probe_tx(probe, vld, idx, delta, ovf, ovr);
    out_q.push_back("PROBE_EXPECTED 1");
    foreach (ev[i]) begin
      if (ev[i].kind == "T") out_q.push_back($sformatf("T %0d", ev[i].cycle));
      else if (ev[i].kind != "P")
        out_q.push_back($sformatf("%s %0d %0d %0d", string'(ev[i].kind), ev[i].cycle,
                                  ev[i].chan, ev[i].delta));
    end
    out_q.push_back($sformatf("FLAGS %0d %0d", ovf, ovr));
    out_q.push_back("END");
  endfunction

  function automatic bit run_probe();
    longint unsigned cycles, cycle = 0, reps;
    bit have_line = 0, ended = 0;
    if (!probe_header(cycles)) return 0;
    while (next_record()) begin
      if (ended) return fail($sformatf("'%s' after END", toks[0]));
      if (toks[0] == "END") begin
        if (toks.size() != 1) return fail("expected 'END'");
        if (cycle != cycles)
          return fail($sformatf("body has %0d CLK edges, CYCLES says %0d", cycle, cycles));
        ended = 1;
        continue;
      end
      reps = 1;
      if (toks[0] == "R") begin
        if (toks.size() != 2) return fail("expected 'R <n>'");
        if (!have_line) return fail("field 'R': repeat before the first data line");
        if (!parse_dec(toks[1], "R", 0, 64'hffff_ffff_ffff_ffff, reps)) return 0;
      end else begin
        if (!probe_data_line()) return 0;
        have_line = 1;
      end
      if (reps > cycles - cycle) return fail($sformatf("body exceeds CYCLES %0d", cycles));
      for (longint unsigned i = 0; i < reps; i++, cycle++)
        if (!probe_edge(cycle)) return 0;
    end
    if (!ended) return fail("missing END");
    if (!mi_edges(FINAL_MI_EDGES, 0)) return 0;
    probe_render();
    ptm_dpi_probe_free(probe);
    return 1;
  endfunction
