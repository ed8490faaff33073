// pcie-telemetry: COMPONENT trace runner of ptm_trace_tb (trace-format.md b).
// Included in the module: uses its reader (toks, fail, parse_*).
//
// Every key is sticky per domain (per endpoint for P), like a signal: the
// testbench holds the inputs and hands them to the model at each edge.  The
// DMA inputs of an endpoint go to the model (ptm_dpi_dma_in) only when a D
// line changed them; the model holds them like signals too.

  localparam int C_NHDR = 17;
  localparam string C_HDR[C_NHDR] = '{"PCIE_ENDPOINTS", "DMA_PORTS", "PCIE_RQ_MFB_REGIONS",
      "PCIE_RC_MFB_REGIONS", "DMA_UP_MFB_REGIONS", "DMA_DOWN_MFB_REGIONS",
      "PCIE_RQ_MFB_REGION_BYTES", "PCIE_RC_MFB_REGION_BYTES", "DMA_UP_MFB_REGION_BYTES",
      "DMA_DOWN_MFB_REGION_BYTES", "MFB_ITEM_BYTES", "PCIE_EOF_POS_WIDTH", "DMA_EOF_POS_WIDTH",
      "CNT_WIDTH", "DRAIN_PERIOD", "TAG_CAPACITY", "STFIFO_CAPACITY"};
  localparam int DOM_D = 100;
  localparam int DOM_M = 101;

  typedef struct {
    longint unsigned at;
    int unsigned addr, data, line;
  } ptm_read_t;

  chandle model;
  ptm_mi_scoreboard sb = new("ptm_mi_scoreboard");
  int unsigned gen[C_NHDR];
  int unsigned c_nep, c_pr, c_dr, c_db;
  longint unsigned edges_decl, edges;
  ptm_read_t reads[$];
  int next_answer;
  int hist_dom[REP_HISTORY];
  bit hist_bare[REP_HISTORY];
  longint unsigned nhist;

  // Sticky inputs: PCIe domain of each endpoint.
  bit p_rst[MAX_EP], p_ext[MAX_EP], p_t10[MAX_EP], p_rcb[MAX_EP], p_link[MAX_EP];
  int unsigned p_sof[MAX_EP], p_eof[MAX_EP], p_src[MAX_EP], p_dst[MAX_EP], p_brake[MAX_EP];
  int unsigned p_stf[MAX_EP], p_tag[MAX_EP], p_mps[MAX_EP], p_mrrs[MAX_EP];
  ptm_pcie_pos_t p_pos[MAX_EP];
  // DMA domain.
  bit d_rst;
  bit d_dirty[MAX_EP];
  ptm_vec_t d_sof[MAX_EP], d_eof[MAX_EP], d_mvb[MAX_EP];
  ptm_pos_t d_pos[MAX_EP];
  int unsigned d_src[MAX_EP], d_dst[MAX_EP], d_msrc[MAX_EP], d_mdst[MAX_EP];
  // MI domain.
  bit m_rst;

  function automatic bit component_header();
    longint unsigned v;
    if (!next_record()) return fail("empty trace, expected 'COMPONENT_TRACE 1'");
    if (toks[0] != "COMPONENT_TRACE" || toks.size() != 2 || toks[1] != "1")
      return fail("not a component trace: expected 'COMPONENT_TRACE 1'");
    for (int i = 0; i < C_NHDR; i++) begin
      if (!kw_dec(C_HDR[i], 0, 64'hffff_ffff, v)) return 0;
      gen[i] = int'(v);
    end
    if (!kw_dec("EDGES", 0, 64'hffff_ffff_ffff_ffff, edges_decl)) return 0;
    model = ptm_dpi_new(gen[0], gen[1], gen[2], gen[3], gen[4], gen[5], gen[6], gen[7], gen[8],
                        gen[9], gen[10], gen[11], gen[12], gen[13], gen[14], gen[15], gen[16]);
    if (model == null) return fail(ptm_dpi_error());
    c_nep = gen[0];
    c_pr = gen[2] > gen[3] ? gen[2] : gen[3];
    c_dr = gen[4] > gen[5] ? gen[4] : gen[5];
    c_db = 2 * gen[1];
    forever begin
      if (!next_record()) return fail("end of file, expected 'BEGIN'");
      if (toks[0] != "FIELDS") break;
      if (toks.size() < 2 || (toks[1] != "P" && toks[1] != "D" && toks[1] != "M"))
        return fail("field 'FIELDS': expected a domain P, D or M");
    end
    if (toks[0] != "BEGIN" || toks.size() != 1) return fail("expected 'BEGIN'");
    return 1;
  endfunction

  function automatic bit split_kv(string kv, output string key, output string val);
    key = "";
    val = "";
    for (int i = 0; i < kv.len(); i++)
      if (kv.getc(i) == "=") begin
        if (i == 0 || i == kv.len() - 1) break;
        key = kv.substr(0, i - 1);
        val = kv.substr(i + 1, kv.len() - 1);
        return 1;
      end
    return fail($sformatf("'%s': expected key=value", kv));
  endfunction

  // P key of endpoint e (one parse call site keeps the inlined code small).
  function automatic bit p_key(int e, string key, string val);
    int width;
    ptm_pos_t v;
    case (key)
      "rst", "ext_tag_en", "tag10b_req_en", "rcb_size", "link_up": width = 1;
      "sof", "eof": width = int'(2 * c_pr);
      "eof_pos": width = int'(2 * c_pr * gen[11]);
      "src_rdy", "dst_rdy": width = 2;
      "brake": width = 6;
      "stfifo_free": width = 16;
      "tag_free": width = 11;
      "mps", "mrrs": width = 3;
      default: return fail($sformatf("field '%s': unknown key of a P line", key));
    endcase
    if (!parse_hex(val, key, width, v)) return 0;
    case (key)
      "rst": p_rst[e] = v[0];
      "sof": p_sof[e] = v[31:0];
      "eof": p_eof[e] = v[31:0];
      "eof_pos": p_pos[e] = v[PTM_PCIE_POS_W-1:0];
      "src_rdy": p_src[e] = v[31:0];
      "dst_rdy": p_dst[e] = v[31:0];
      "brake": p_brake[e] = v[31:0];
      "stfifo_free": p_stf[e] = v[31:0];
      "tag_free": p_tag[e] = v[31:0];
      "mps": p_mps[e] = v[31:0];
      "mrrs": p_mrrs[e] = v[31:0];
      "ext_tag_en": p_ext[e] = v[0];
      "tag10b_req_en": p_t10[e] = v[0];
      "rcb_size": p_rcb[e] = v[0];
      default: p_link[e] = v[0];
    endcase
    return 1;
  endfunction

  // D keys: rst, or NAME<e> for endpoint e.
  function automatic bit d_key(string key, string val);
    int i = key.len(), e = 0, width;
    longint unsigned ep;
    string name;
    ptm_pos_t v;
    if (key == "rst") begin
      name = key;
      width = 1;
    end else begin
      while (i > 0 && key.getc(i - 1) >= "0" && key.getc(i - 1) <= "9") i--;
      if (i == key.len() || i == 0) return fail($sformatf("field '%s': unknown key of a D line", key));
      name = key.substr(0, i - 1);
      if (!parse_dec(key.substr(i, key.len() - 1), key, 0, 999, ep)) return 0;
      if (ep >= 64'(c_nep))
        return fail($sformatf("field '%s': endpoint %0d out of range (PCIE_ENDPOINTS=%0d)", key, ep, c_nep));
      e = int'(ep);
      case (name)
        "sof", "eof", "mvb_vld": width = int'(c_db * c_dr);
        "eof_pos": width = int'(c_db * c_dr * gen[12]);
        "src_rdy", "dst_rdy", "mvb_src_rdy", "mvb_dst_rdy": width = int'(c_db);
        default: return fail($sformatf("field '%s': unknown key of a D line", key));
      endcase
    end
    if (!parse_hex(val, key, width, v)) return 0;
    case (name)
      "rst": d_rst = v[0];
      "sof": d_sof[e] = v[PTM_VEC_W-1:0];
      "eof": d_eof[e] = v[PTM_VEC_W-1:0];
      "mvb_vld": d_mvb[e] = v[PTM_VEC_W-1:0];
      "eof_pos": d_pos[e] = v;
      "src_rdy": d_src[e] = v[31:0];
      "dst_rdy": d_dst[e] = v[31:0];
      "mvb_src_rdy": d_msrc[e] = v[31:0];
      default: d_mdst[e] = v[31:0];
    endcase
    if (name != "rst") d_dirty[e] = 1;
    return 1;
  endfunction

  // An MI edge: the request in, the answer (two edges later) to its read.
  function automatic bit mi_edge(bit rd, bit wr, int unsigned addr, int unsigned dwr);
    int unsigned drd;
    bit drdy, ardy;
    if (rd) begin
      ptm_read_t r;
      r.at = edges;
      r.addr = addr;
      r.data = 0;
      r.line = lineno;
      reads.push_back(r);
    end
    ptm_dpi_mi_edge(model, m_rst, rd, wr, addr, dwr, drd, drdy, ardy);
    if (m_rst && next_answer < reads.size())
      return fail($sformatf("MI_RESET cancels the read of %h issued on line %0d before MI_DRDY answers it",
                            reads[next_answer].addr, reads[next_answer].line));
    if (drdy) begin
      if (next_answer >= reads.size()) return fail("MI_DRDY without a pending read (model error)");
      reads[next_answer].data = drd;
      sb.model_read(longint'(reads[next_answer].at), reads[next_answer].addr, drd);
      next_answer++;
    end
    return 1;
  endfunction

  function automatic bit run_edge(int dom, bit rd, bit wr, int unsigned addr, int unsigned dwr);
    if (edges >= edges_decl) return fail($sformatf("more edges than EDGES %0d", edges_decl));
    if (dom == DOM_D) begin
      for (int e = 0; e < c_nep; e++)
        if (d_dirty[e]) begin
          ptm_dpi_dma_in(model, e, d_sof[e], d_eof[e], d_pos[e], d_src[e], d_dst[e], d_mvb[e],
                         d_msrc[e], d_mdst[e]);
          d_dirty[e] = 0;
        end
      ptm_dpi_dma_edge(model, d_rst);
    end else if (dom == DOM_M) begin
      if (!mi_edge(rd, wr, addr, dwr)) return 0;
    end else begin
      ptm_dpi_pcie_edge(model, dom, p_rst[dom], p_sof[dom], p_eof[dom], p_pos[dom], p_src[dom],
                        p_dst[dom], p_brake[dom], p_stf[dom], p_tag[dom], p_mps[dom],
                        p_mrrs[dom], p_ext[dom], p_t10[dom], p_rcb[dom], p_link[dom]);
    end
    edges++;
    return 1;
  endfunction

  function automatic int hist_at(longint unsigned i);
    /*verilator no_inline_task*/
    return int'(i % 64'(REP_HISTORY));
  endfunction

  function automatic void remember(int dom, bit bare);
    hist_dom[hist_at(nhist)] = dom;
    hist_bare[hist_at(nhist)] = bare;
    nhist++;
  endfunction

  // REP n k: the previous k lines (bare tags) n more times.
  function automatic bit do_rep();
    longint unsigned n, k, first;
    if (toks.size() != 3) return fail("field 'REP': expected 'REP <n> <k>'");
    if (!parse_dec(toks[1], "REP n", 0, 64'hffff_ffff_ffff_ffff, n)) return 0;
    if (!parse_dec(toks[2], "REP k", 1, 64'(REP_HISTORY), k)) return 0;
    if (k > nhist) return fail($sformatf("field 'REP k': %0d lines asked, only %0d before", k, nhist));
    first = nhist - k;
    for (longint unsigned i = first; i < nhist; i++)
      if (!hist_bare[hist_at(i)])
        return fail("field 'REP': the repeated lines must be bare domain tags");
    if (n != 0 && k > (edges_decl - edges) / n)
      return fail($sformatf("field 'REP': %0d x %0d edges exceed EDGES %0d", n, k, edges_decl));
    for (longint unsigned j = 0; j < n; j++)
      for (longint unsigned i = first; i < first + k; i++)
        if (!run_edge(hist_dom[hist_at(i)], 0, 0, 0, 0)) return 0;
    remember(0, 0);
    return 1;
  endfunction

  function automatic bit m_line(output bit rd, output bit wr, output int unsigned addr,
                                output int unsigned dwr);
    string key, val;
    longint unsigned v;
    bit have_op = 0, have_rst = 0;
    rd = 0;
    wr = 0;
    addr = 0;
    dwr = 0;
    for (int i = 1; i < toks.size(); i++) begin
      if (!split_kv(toks[i], key, val)) return 0;
      if (key == "rst") begin
        if (have_rst) return fail("field 'rst': given twice on one line");
        have_rst = 1;
        if (!parse_hex64(val, key, 1, v)) return 0;
        m_rst = v[0];
      end else if (key == "rd" || key == "wr") begin
        int colon = -1;
        if (have_op) return fail($sformatf("field '%s': a second operation on one M line", key));
        have_op = 1;
        for (int c = 0; c < val.len(); c++) if (val.getc(c) == ":") colon = c;
        if (key == "wr") begin
          if (colon <= 0 || colon == val.len() - 1)
            return fail($sformatf("field 'wr': expected ADDR:DATA, found '%s'", val));
          if (!parse_hex64(val.substr(colon + 1, val.len() - 1), "wr data", 32, v)) return 0;
          dwr = v[31:0];
          val = val.substr(0, colon - 1);
          wr = 1;
        end else begin
          if (colon >= 0) return fail($sformatf("field 'rd': a read takes an address only, found '%s'", val));
          rd = 1;
        end
        if (!parse_hex64(val, key == "wr" ? "wr address" : "rd address", 32, v)) return 0;
        addr = v[31:0];
      end else begin
        return fail($sformatf("field '%s': unknown key of an M line (rst, rd, wr)", key));
      end
    end
    return 1;
  endfunction

  function automatic bit body_line();
    int dom;
    longint unsigned e;
    string key, val;
    bit rd, wr;
    int unsigned addr, dwr;
    if (toks[0] == "REP") return do_rep();
    if (toks[0] == "D") dom = DOM_D;
    else if (toks[0] == "M") dom = DOM_M;
    else if (toks[0].len() > 1 && toks[0].getc(0) == "P") begin
      if (!parse_dec(toks[0].substr(1, toks[0].len() - 1), "P<e>", 0, 255, e)) return 0;
      if (e >= 64'(c_nep))
        return fail($sformatf("field '%s': endpoint %0d out of range (PCIE_ENDPOINTS=%0d)", toks[0], e, c_nep));
      dom = int'(e);
    end else
      return fail($sformatf("unknown record '%s' (expected P<e>, D, M, REP or END)", toks[0]));
    if (dom == DOM_M) begin
      if (!m_line(rd, wr, addr, dwr)) return 0;
    end else begin
      rd = 0;
      wr = 0;
      addr = 0;
      dwr = 0;
      for (int i = 1; i < toks.size(); i++) begin
        if (!split_kv(toks[i], key, val)) return 0;
        for (int j = 1; j < i; j++)
          if (toks[j].len() > key.len() && toks[j].substr(0, key.len()) == {key, "="})
            return fail($sformatf("field '%s': given twice on one line", key));
        if (dom == DOM_D) begin
          if (!d_key(key, val)) return 0;
        end else begin
          if (!p_key(dom, key, val)) return 0;
        end
      end
    end
    if (!run_edge(dom, rd, wr, addr, dwr)) return 0;
    remember(dom, toks.size() == 1);
    return 1;
  endfunction

  function automatic bit run_component();
    int unsigned drd;
    bit drdy, ardy;
    if (!component_header()) return 0;
    forever begin
      if (!next_record()) return fail("end of file, expected 'END'");
      if (toks[0] == "END") begin
        if (toks.size() != 1) return fail("expected 'END'");
        break;
      end
      if (!body_line()) return 0;
    end
    if (edges != edges_decl)
      return fail($sformatf("the body has %0d edges, EDGES says %0d", edges, edges_decl));
    if (next_record()) return fail("text after END");
    // Reads of the last two MI edges: the MI clock keeps running.
    for (int i = 0; i < 2 && next_answer < reads.size(); i++) begin
      ptm_dpi_mi_edge(model, m_rst, 0, 0, 0, 0, drd, drdy, ardy);
      if (drdy) begin
        reads[next_answer].data = drd;
        sb.model_read(longint'(reads[next_answer].at), reads[next_answer].addr, drd);
        next_answer++;
      end
    end
    if (next_answer < reads.size()) begin
      lineno = reads[next_answer].line;
      return fail($sformatf("the read of %h never got MI_DRDY", reads[next_answer].addr));
    end
    out_q.push_back("COMPONENT_EXPECTED 1");
    foreach (reads[i])
      out_q.push_back($sformatf("R %0d %h %h", reads[i].at, reads[i].addr, reads[i].data));
    out_q.push_back("END");
    ptm_dpi_free(model);
    return 1;
  endfunction

  // The scoreboard against an expected file: its R lines are the DUT's
  // reads (the RTL's answers, under their masks).  Returns the scoreboard's
  // verdict (0 = all agree).
  function automatic int unsigned check_expected(string exp);
    longint unsigned e, a, d, m;
    bit ok;
    fd = $fopen(exp, "r");
    path = exp;
    lineno = 0;
    if (fd == 0) die(1, $sformatf("%s: cannot open", exp));
    while (next_record()) begin
      if (toks[0] != "R") continue;
      if (toks.size() != 5) die(2, $sformatf("%s:%0d: expected 'R EDGE ADDR DATA MASK'", exp, lineno));
      ok = parse_dec(toks[1], "edge", 0, 64'hffff_ffff_ffff_ffff, e);
      if (ok) ok = parse_hex64(toks[2], "addr", 32, a);
      if (ok) ok = parse_hex64(toks[3], "data", 32, d);
      if (ok) ok = parse_hex64(toks[4], "mask", 32, m);
      if (!ok) die(2, err);
      sb.dut_read(longint'(e), a[31:0], d[31:0], m[31:0]);
    end
    $fclose(fd);
    return sb.report();
  endfunction
