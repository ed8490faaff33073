-- pcie-telemetry: a growable array of any element type (doubling), for the
-- testbench's event, FIFO and read lists.
package ptm_grow_pkg is
  generic (type elem_t);
  type arr_t is array (natural range <>) of elem_t;
  type arr_p is access arr_t;
  -- Make room for a(n), keeping a(0 to n-1).
  procedure grow(a : inout arr_p; n : natural);
end package ptm_grow_pkg;

package body ptm_grow_pkg is
  procedure grow(a : inout arr_p; n : natural) is
    variable na : arr_p;
  begin
    if a = null then
      a := new arr_t(0 to 255);
    end if;
    if n <= a'high then
      return;
    end if;
    na := new arr_t(0 to 2 * a'length - 1);
    na(0 to n - 1) := a(0 to n - 1);
    deallocate(a);
    a := na;
  end procedure;
end package body ptm_grow_pkg;

-- pcie-telemetry: helpers of ptm_trace_tb: a textio record reader (fields
-- of a line without its comment), number parsing and printing, growable
-- arrays, and the exit with a status.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;
use work.pcie_telemetry_pkg.all;

package ptm_trace_util is

  constant MAX_FIELDS : natural := 1024;
  type pos_arr_t is array (1 to MAX_FIELDS) of natural;

  -- The current line and where its fields are.
  type reader_t is record
    l      : line;
    name   : line;
    lineno : natural;
    n      : natural;      -- fields
    ts, te : pos_arr_t;    -- field i is l(ts(i) to te(i))
  end record;

  procedure reader_init(rd : inout reader_t; name : string);
  -- The next line that has a field; ok = false at the end of the file.
  procedure read_record(file f : text; rd : inout reader_t; ok : out boolean);

  -- Position (1-based) of c in s, 0 when absent.
  function find(s : string; c : character) return natural;
  -- A decimal number in lo..hi (at most 9 digits).
  procedure parse_dec(s : string; lo, hi : integer; v : out integer; ok : out boolean);
  -- hv(width-1 downto 0) := the hex number s; why /= null when s is not a
  -- hex number of at most width bits.
  procedure parse_hex(s : string; width : natural; hv : inout ptm_pos_t; why : out line);

  function u64_image(v : ptm_w64_t) return string;
  function hex8(v : ptm_w32_t) return string;
  function sl_image(s : std_logic) return string;

  -- Print "ptm_trace_tb: msg" on stderr (unless msg is empty) and exit.
  procedure die(status : integer; msg : string);

  type event_t is record
    kind  : character;     -- T, W, F, X, or P while pending
    cycle : natural;
    chan  : natural;
    delta : ptm_w64_t;
  end record;
  package event_list is new work.ptm_grow_pkg generic map (elem_t => event_t);

  package int_list is new work.ptm_grow_pkg generic map (elem_t => natural);

  type read_rec_t is record
    at         : natural;  -- edge of the request
    addr, data : ptm_w32_t;
    line       : natural;
  end record;
  package read_list is new work.ptm_grow_pkg generic map (elem_t => read_rec_t);

end package ptm_trace_util;

package body ptm_trace_util is

  procedure c_exit(status : integer);
  attribute foreign of c_exit : procedure is "VHPIDIRECT exit";
  procedure c_exit(status : integer) is
  begin
    report "exit() not linked" severity failure;
  end procedure;

  procedure reader_init(rd : inout reader_t; name : string) is
  begin
    deallocate(rd.name);
    rd.name := new string'(name);
    rd.lineno := 0;
    rd.n := 0;
  end procedure;

  function is_space(c : character) return boolean is
  begin
    return c = ' ' or c = HT or c = CR or c = LF;
  end function;

  procedure split(rd : inout reader_t) is
    variable i : integer := rd.l'low;
  begin
    rd.n := 0;
    while i <= rd.l'high loop
      while i <= rd.l'high and is_space(rd.l(i)) loop
        i := i + 1;
      end loop;
      exit when i > rd.l'high or rd.l(i) = '#';
      if rd.n = MAX_FIELDS then
        die(2, rd.name.all & ":" & integer'image(rd.lineno) & ": more than " &
            integer'image(MAX_FIELDS) & " fields on a line");
      end if;
      rd.n := rd.n + 1;
      rd.ts(rd.n) := i;
      while i <= rd.l'high and not is_space(rd.l(i)) and rd.l(i) /= '#' loop
        i := i + 1;
      end loop;
      rd.te(rd.n) := i - 1;
    end loop;
  end procedure;

  procedure read_record(file f : text; rd : inout reader_t; ok : out boolean) is
  begin
    while not endfile(f) loop
      readline(f, rd.l);
      rd.lineno := rd.lineno + 1;
      split(rd);
      if rd.n > 0 then
        ok := true;
        return;
      end if;
    end loop;
    rd.n := 0;
    ok := false;
  end procedure;

  function find(s : string; c : character) return natural is
  begin
    for i in s'range loop
      if s(i) = c then
        return i - s'low + 1;
      end if;
    end loop;
    return 0;
  end function;

  procedure parse_dec(s : string; lo, hi : integer; v : out integer; ok : out boolean) is
    variable x : integer := 0;
  begin
    v := 0;
    ok := false;
    if s'length = 0 or s'length > 9 then
      return;
    end if;
    for i in s'range loop
      if s(i) < '0' or s(i) > '9' then
        return;
      end if;
      x := x * 10 + character'pos(s(i)) - character'pos('0');
    end loop;
    if x < lo or x > hi then
      return;
    end if;
    v := x;
    ok := true;
  end procedure;

  function hex_digit(c : character) return integer is
  begin
    case c is
      when '0' to '9' => return character'pos(c) - character'pos('0');
      when 'a' to 'f' => return character'pos(c) - character'pos('a') + 10;
      when 'A' to 'F' => return character'pos(c) - character'pos('A') + 10;
      when others => return -1;
    end case;
  end function;

  procedure parse_hex(s : string; width : natural; hv : inout ptm_pos_t; why : out line) is
    variable d, b : integer;
  begin
    why := null;
    if s'length = 0 then
      why := new string'("is empty");
      return;
    end if;
    hv(width - 1 downto 0) := (others => '0');
    for k in 0 to s'length - 1 loop           -- k-th digit from the right
      d := hex_digit(s(s'high - k));
      if d < 0 then
        why := new string'("is not a hex number");
        return;
      end if;
      for j in 0 to 3 loop
        b := 4 * k + j;
        if (d / 2 ** j) mod 2 = 1 then
          if b >= width then
            why := new string'("is wider than " & integer'image(width) & " bits");
            return;
          end if;
          hv(b) := '1';
        end if;
      end loop;
    end loop;
  end procedure;

  function u64_image(v : ptm_w64_t) return string is
    variable u : unsigned(63 downto 0) := unsigned(v);
    variable s : string(1 to 20);
    variable n : natural := 0;
  begin
    if u(63 downto 31) = 0 then
      return integer'image(to_integer(u(30 downto 0)));
    end if;
    while u /= 0 loop
      s(20 - n) := character'val(character'pos('0') + to_integer(u mod 10));
      u := u / 10;
      n := n + 1;
    end loop;
    return s(21 - n to 20);
  end function;

  function hex8(v : ptm_w32_t) return string is
    constant DIGITS : string(1 to 16) := "0123456789abcdef";
    variable s : string(1 to 8);
  begin
    for i in 0 to 7 loop
      s(8 - i) := DIGITS(to_integer(unsigned(v(4 * i + 3 downto 4 * i))) + 1);
    end loop;
    return s;
  end function;

  function sl_image(s : std_logic) return string is
  begin
    if s = '1' then
      return "1";
    end if;
    return "0";
  end function;

  procedure die(status : integer; msg : string) is
    file err : text open append_mode is "/dev/stderr";
    variable l : line;
  begin
    if msg /= "" then
      write(l, "ptm_trace_tb: " & msg);
      writeline(err, l);
    end if;
    c_exit(status);
  end procedure;

end package body ptm_trace_util;
