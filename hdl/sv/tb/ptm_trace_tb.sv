// pcie-telemetry: conformance-trace testbench for the DPI-C model.
//
//   +probe=FILE                     PROBE trace -> PROBE_EXPECTED on stdout
//   +component=FILE [+expected=E]   COMPONENT trace -> COMPONENT_EXPECTED;
//                                   with E, every read is also checked by the
//                                   scoreboard against E (data under its mask)
//
// The testbench reads the trace itself (header, R/REP expansion, sticky
// keys), drives the model through pcie_telemetry_pkg edge by edge, and
// prints exactly what `ptmodel probe|component FILE` prints.  Nothing is
// printed on stdout unless the whole trace ran.  Exit status (through
// ptm_tb_exit, see tb_exit.c): 0 success, 1 scoreboard mismatch or
// unreadable file, 2 malformed trace (one line "FILE:LINE: ..." on stderr).
//
// Note: Verilator 5.006 inlines functions and then evaluates a call on the
// right of && / || or in a branch of ?: even when it should not: every
// call with a side effect here stands in a statement of its own.
module ptm_trace_tb;
  import pcie_telemetry_pkg::*;

  import "DPI-C" function void ptm_tb_exit(input int status);

  localparam int STDERR = 32'h8000_0002;
  localparam int REP_HISTORY = 4096;
  localparam int FINAL_MI_EDGES = 400;
  localparam int MAX_EP = 16;

  string path;
  int fd;
  int unsigned lineno;
  string toks[$];
  string out_q[$];
  string err;

  // ---- generic trace reading --------------------------------------------

  function automatic void die(int status, string msg);
    $fdisplay(STDERR, "ptm_trace_tb: %s", msg);
    ptm_tb_exit(status);
  endfunction

  // Record the first error at the current line; returns 0 for `return fail(..)`.
  function automatic bit fail(string msg);
    if (err == "") err = $sformatf("%s:%0d: %s", path, lineno, msg);
    return 0;
  endfunction

  typedef string strq_t[$];

  function automatic bit is_space(byte c);
    /*verilator no_inline_task*/
    return c == " " || c == "\t" || c == "\n" || c == "\r";
  endfunction

  // The fields of a line, without its comment.
  function automatic strq_t split(string s);
    /*verilator no_inline_task*/
    strq_t q;
    int i = 0, st;
    while (i < s.len()) begin
      while (i < s.len() && is_space(s.getc(i))) i++;
      if (i >= s.len() || s.getc(i) == "#") break;
      st = i;
      while (i < s.len() && !is_space(s.getc(i)) && s.getc(i) != "#") i++;
      q.push_back(s.substr(st, i - 1));
    end
    return q;
  endfunction

  // Next line with a record (comments and blank lines skipped); 0 at EOF.
  function automatic bit next_record();
    string line;
    forever begin
      if ($fgets(line, fd) == 0) begin
        toks.delete();
        return 0;
      end
      lineno++;
      toks = split(line);
      if (toks.size() > 0) return 1;
    end
  endfunction

  function automatic bit parse_dec(string s, string what, longint unsigned lo,
                                   longint unsigned hi, output longint unsigned v);
    v = 0;
    if (s.len() == 0 || s.len() > 19) return fail($sformatf("field '%s': '%s' is not a decimal number", what, s));
    for (int i = 0; i < s.len(); i++) begin
      if (s.getc(i) < "0" || s.getc(i) > "9")
        return fail($sformatf("field '%s': '%s' is not a decimal number", what, s));
      v = v * 10 + longint'(s.getc(i)) - 48;
    end
    if (v < lo || v > hi) return fail($sformatf("field '%s': %0d is out of range %0d..%0d", what, v, lo, hi));
    return 1;
  endfunction

  function automatic int hex_digit(byte c);
    /*verilator no_inline_task*/
    if (c >= "0" && c <= "9") return int'(c) - 48;
    if (c >= "a" && c <= "f") return int'(c) - 87;
    if (c >= "A" && c <= "F") return int'(c) - 55;
    return -1;
  endfunction

  // A hex value of at most `width` bits (width <= PTM_POS_W).  The width
  // is checked on the digits: no wide shift or compare (they unroll).
  function automatic bit parse_hex(string s, string what, int width, output ptm_pos_t v);
    int i = 0, n, d;
    v = '0;
    if (s.len() == 0) return fail($sformatf("field '%s': empty value", what));
    while (i < s.len() && s.getc(i) == "0") i++;
    n = s.len() - i;
    for (int k = 0; k < n; k++) begin
      d = hex_digit(s.getc(i + k));
      if (d < 0) return fail($sformatf("field '%s': '%s' is not a hex number", what, s));
      if ((k == 0 && n * 4 > width && (n - 1) * 4 >= width) ||
          (k == 0 && n * 4 > width && d >= (1 << (width - (n - 1) * 4))))
        return fail($sformatf("field '%s': '%s' is wider than %0d bits", what, s, width));
      v[(n - 1 - k) * 4 +: 4] = 4'(d);
    end
    return 1;
  endfunction

  function automatic bit parse_hex64(string s, string what, int width, output longint unsigned v);
    ptm_pos_t w;
    v = 0;
    if (!parse_hex(s, what, width, w)) return 0;
    v = w[63:0];
    return 1;
  endfunction

  // "KW value" with a decimal value in lo..hi.
  function automatic bit kw_dec(string kw, longint unsigned lo, longint unsigned hi,
                                output longint unsigned v);
    v = 0;
    if (!next_record()) return fail($sformatf("unexpected end of file, expected '%s'", kw));
    if (toks[0] != kw || toks.size() != 2) return fail($sformatf("expected '%s <n>'", kw));
    return parse_dec(toks[1], kw, lo, hi, v);
  endfunction

  function automatic bit kw_only(string kw);
    if (!next_record()) return fail($sformatf("unexpected end of file, expected '%s'", kw));
    if (toks[0] != kw || toks.size() != 1) return fail($sformatf("expected '%s'", kw));
    return 1;
  endfunction

  `include "ptm_trace_probe.svh"
  `include "ptm_trace_component.svh"

  initial begin
    string exp_path, mode;
    bit ok;
    if ($value$plusargs("probe=%s", path)) mode = "probe";
    else if ($value$plusargs("component=%s", path)) mode = "component";
    else die(2, "usage: +probe=FILE | +component=FILE [+expected=FILE]");
    if (!$value$plusargs("expected=%s", exp_path)) exp_path = "";
    fd = $fopen(path, "r");
    if (fd == 0) die(1, $sformatf("%s: cannot open", path));
    lineno = 0;
    err = "";
    ok = 0;
    if (mode == "probe") ok = run_probe();
    if (mode == "component") ok = run_component();
    $fclose(fd);
    if (!ok) die(2, err == "" ? $sformatf("%s: failed", path) : err);
    foreach (out_q[i]) $display("%s", out_q[i]);
    if (exp_path != "") begin
      if (check_expected(exp_path) != 0) ptm_tb_exit(1);
    end
    ptm_tb_exit(0);
  end
endmodule
