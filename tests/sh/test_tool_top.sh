#!/usr/bin/env bash
# The live view (--top) under a real terminal: tmux (installed from
# Debian when missing), on a private socket, in detached sessions of a
# fixed size.  On a simulated card in real time: the first frame shows
# every bus, the numbers change from interval to interval, the layout
# follows resize-window down to 20x5, the keys (space, +, -, e, ?, c with
# y/n) do what docs/top.md says, q exits 0 and gives the terminal back
# (the normal screen, the cursor, echo and canonical mode).  SIGTERM and
# Ctrl-C end it the same way; an image replays one snapshot per interval
# and says when the recording ends; no colours (NO_COLOR, TERM=vt100)
# works; an unknown TERM, a device error after the screen was set up and
# a standard output that is no terminal give one line and their status.
# The capture of a run keeps the shape of the one in README.md
# (PT_TOP_CAPTURE=FILE writes the fresh one there).
#
# Usage: test_tool_top.sh BIN_DIR TESTS_DIR
set -u
# tool, cases, work, ok, bad
. "$(dirname "$0")/tool_harness.sh" "$@"
# mkdev FILE STATUS
. "$(dirname "$0")/component_dev.sh"
src=$(cd "$data/.." && pwd)

if ! command -v tmux >/dev/null; then
	echo "tmux not found: installing the test packages (scripts/install-deps.sh --test)"
	bash "$src/scripts/install-deps.sh" --test >"$work/deps.log" 2>&1 ||
		{ cat "$work/deps.log"; echo "FAIL: cannot install tmux"; exit 1; }
fi

sock="pt-top-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
# the server, its socket and the folder go at the end, whatever happened
trap 'tm kill-server 2>/dev/null; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; rm -rf "$work"' EXIT

# The command of a pane: run the tool (its pid in TAG.pid, its standard
# error in TAG.err unless ERR_TTY=1), then note its status and the
# terminal's modes, say so on the screen, and keep the pane.
cat >"$work/run.sh" <<'EOF'
#!/bin/sh
tag=$1
shift
# Ctrl-C goes to the whole foreground group: this shell lives on (the
# tool gets the default disposition back, and its own handler)
trap : INT
if [ "${ERR_TTY:-0}" = 1 ]; then
	sh -c 'echo $$ >"$0.pid"; exec "$@"' "$tag" "$@"
else
	sh -c 'echo $$ >"$0.pid"; exec "$@"' "$tag" "$@" 2>"$tag.err"
fi
echo $? >"$tag.status"
stty -a >"$tag.stty" 2>&1
echo "RESTORED ${tag##*/}"
exec sleep 600
EOF

# start NAME COLS ROWS [VAR=VALUE...] -- TOOL ARGS...
start() {
	local name=$1 cols=$2 rows=$3
	shift 3
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	tm new-session -d -s "$name" -x "$cols" -y "$rows" \
		env "${envs[@]}" sh "$work/run.sh" "$work/$name" "$tool" "$@"
}
capture() { tm capture-pane -p -t "$1"; }
# wait_for SESSION PATTERN [SECONDS]: until the screen shows PATTERN (ERE)
wait_for() {
	local i
	for ((i = 0; i < ${3:-30} * 10; i++)); do
		capture "$1" | grep -qE -- "$2" && return 0
		sleep 0.1
	done
	return 1
}
wait_gone() {
	local i
	for ((i = 0; i < ${3:-30} * 10; i++)); do
		capture "$1" | grep -qE -- "$2" || return 0
		sleep 0.1
	done
	return 1
}
alt() { tm display -p -t "$1" '#{alternate_on}'; }
# The numbers of the bus rows (every bar, share, rate).
numbers() { capture "$1" | grep -E '^(PTC|PCIe|DMA0) ' | grep -oE '[0-9]+\.[0-9]+' | tr '\n' ' '; }
# Restored: the tool's status, the normal screen with the line after
# it, the cursor shown, echo and canonical mode back.
restored() {
	local s=$1 want=$2 what=$3
	if ! wait_for "$s" "^RESTORED " 30; then
		bad "$what: the tool did not end: $(capture "$s" | head -3)"
		return
	fi
	[ "$(cat "$work/$s.status")" = "$want" ] && ok ||
		bad "$what: exit status $(cat "$work/$s.status"), expected $want; $(cat "$work/$s.err" 2>/dev/null)"
	[ "$(alt "$s")" = 0 ] && ok || bad "$what: the alternate screen is still on"
	[ "$(tm display -p -t "$s" '#{cursor_flag}')" = 1 ] && ok || bad "$what: the cursor is hidden"
	grep -qE '(^| )icanon( |$)' "$work/$s.stty" && grep -qE '(^| )echo( |$)' "$work/$s.stty" && ok ||
		bad "$what: terminal modes not restored: $(grep -oE -- '-?(icanon|echo) ' "$work/$s.stty" | tr '\n' ' ')"
}

# --- the command line: no terminal, no view --------------------------
"$tool" --top -d sim:idle >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
	grep -q "^nfb-pcie-telemetry: --top: standard output is not a terminal" "$work/err" && ok ||
	bad "--top > file: rc $rc, stdout $(wc -c <"$work/out") bytes, stderr: $(cat "$work/err")"
for args in "-t 0" "-t 0.05" "-t 61" "-j" "-c" "--list" "-M ep0.rq.gbps"; do
	# shellcheck disable=SC2086
	"$tool" --top $args -d sim:idle >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "--top" "$work/err" && ok ||
		bad "--top $args: rc $rc, stderr: $(cat "$work/err")"
done

# --- a simulated card in real time -------------------------------------
start a 100 32 LC_ALL=C.UTF-8 -- --top -d sim:tags-starved -t 0.2
if ! wait_for a "measured" 40; then
	bad "no first interval on the screen: $(capture a | head -5)"
fi
for bus in "PTC -> PCIe (RQ)" "PCIe -> PTC (RC)" "DMA0 -> PTC (UP)" "PTC -> DMA0 (DOWN)"; do
	capture a | grep -qF "$bus" && ok || bad "bus '$bus' not on the screen"
done
capture a | grep -q "Why the PCIe transfer stopped" && capture a | grep -q "PCIe tags  " &&
	capture a | grep -q "PTC tags free" && ok || bad "a block of the view is missing: $(capture a)"
[ "$(alt a)" = 1 ] && ok || bad "the view is not on the alternate screen"
# live numbers: DOWN moves data, and the figures change between captures
down=$(capture a | grep -F "PTC -> DMA0 (DOWN)" | grep -oE '[0-9]+\.[0-9]{2}' | sed -n 3p)
awk -v g="${down:-0}" 'BEGIN { exit !(g > 10) }' && ok || bad "DOWN Gbit/s '$down' on tags-starved"
first=$(numbers a)
changed=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	sleep 0.5
	[ "$(numbers a)" != "$first" ] && { changed=1; break; }
done
[ $changed = 1 ] && ok || bad "the numbers did not change in 5 s: $first"
capture a | grep -qF "Gbit/s, last 60 s" && ok || bad "no sparkline at 100 columns"

# resize: the layout follows, down to 20x5, and back
# (tmux crops the old screen at once: wait for what only a redraw shows)
tm resize-window -t a -x 60 -y 20
wait_for a "^Bus +Words % Stall % +Gbit/s +Mpps$" 10 && ok ||
	bad "60x20: no bus table without bars and sparklines: $(capture a)"
capture a | grep -qF "PTC -> DMA0 (DOWN)" && ok || bad "60x20: a bus row is missing"
[ "$(capture a | LC_ALL=C.UTF-8 wc -L)" -le 60 ] && ok ||
	bad "60x20: lines wider than the window"
tm resize-window -t a -x 40 -y 12
wait_for a "^DOWN0 " 10 && ok || bad "40x12: no short bus names: $(capture a)"
tm resize-window -t a -x 20 -y 5
wait_for a "^RQ " 10 && ok || bad "20x5: $(capture a)"
sleep 0.5
[ ! -s "$work/a.status" ] && ok || bad "20x5: the tool ended ($(cat "$work/a.status"))"
tm resize-window -t a -x 100 -y 32
wait_for a "Gbit/s, last 60 s" 10 && wait_for a " q quit " 5 && ok || bad "100x32 again: $(capture a)"

# keys
tm send-keys -t a ' '
wait_for a "PAUSED" 5 && wait_for a "space resume" 5 && ok || bad "space: no PAUSED"
sleep 0.3
frozen=$(numbers a)
sleep 1
[ "$(numbers a)" = "$frozen" ] && ok || bad "paused, the numbers still change"
tm send-keys -t a ' '
wait_gone a "PAUSED" 5 && ok || bad "space again: still PAUSED"
tm send-keys -t a +
wait_for a "every 0.5 s" 5 && ok || bad "+: $(capture a | head -1)"
tm send-keys -t a -- -
tm send-keys -t a -- -
wait_for a "every 0.1 s" 5 && ok || bad "- -: $(capture a | head -1)"
tm send-keys -t a +
wait_for a "every 0.2 s" 5 && ok || bad "+ again: $(capture a | head -1)"
tm send-keys -t a e
sleep 0.3
capture a | grep -q "PCIe endpoint 0 (of 1)" && ok || bad "e on one endpoint: $(capture a | sed -n 2p)"
tm send-keys -t a '?'
wait_for a "^Keys" 5 && wait_gone a "PTC -> PCIe" 5 && ok || bad "?: no help"
tm send-keys -t a x
wait_gone a "^Keys" 5 && wait_for a "PTC -> PCIe" 5 && ok || bad "a key did not close the help"
tm send-keys -t a c
wait_for a "Clear every counter, flag and mark of sim:tags-starved\? y/n" 5 && ok || bad "c: no y/n"
tm send-keys -t a n
wait_for a "^Not cleared" 5 && ok || bad "c n: $(capture a | sed -n 2p)"
tm send-keys -t a c
tm send-keys -t a y
wait_for a "^Counters, flags and marks cleared" 5 && ok || bad "c y: $(capture a | sed -n 2p)"
wait_gone a "cleared" 5 && wait_for a "measured" 5 && ok || bad "no interval after the clear"
capture a >"$work/shot.txt"
[ -n "${PT_TOP_CAPTURE:-}" ] && cp "$work/shot.txt" "$PT_TOP_CAPTURE"
tm send-keys -t a q
restored a 0 "q"
capture a | grep -q "^RESTORED a" && ok || bad "q: the shell's screen is not back"

# the capture of README.md: the same lines, whatever the numbers (the
# words of every line; the program's name and a lag, which the title
# shows only when there is room and a lag, left out)
shape() {
	sed -E '1s/^ nfb-pcie-telemetry --top //; 1s/  the card lags [0-9.]+ s //' | sed -E 's/[^A-Za-z]+/ /g; s/^ +//; s/ +$//' |
		awk 'NF { n = NR } { l[NR] = $0 } END { for (i = 1; i <= n; i++) print l[i] }'
}
sed -n '/<!-- top-capture begin -->/,/<!-- top-capture end -->/p' "$src/README.md" |
	sed '1,2d;$d' | sed '$d' | shape >"$work/readme.shape"
shape <"$work/shot.txt" >"$work/shot.shape"
[ -s "$work/readme.shape" ] && cmp -s "$work/readme.shape" "$work/shot.shape" && ok ||
	bad "the capture in README.md has another shape: $(diff "$work/readme.shape" "$work/shot.shape" | head -6)"

# --- SIGTERM and Ctrl-C: status 0, the terminal restored -----------------
mkdev "$work/dev.bin" 0
start b 80 24 -- --top -d "mmap:$work/dev.bin" -t 0.2
start c 80 24 NO_COLOR=1 TERM=vt100 -- --top -d "mmap:$work/dev.bin" -t 0.2
wait_for b "measured" 20 && ok || bad "mmap: no frame: $(capture b | head -3)"
kill -TERM "$(cat "$work/b.pid")"
restored b 0 "SIGTERM"
[ ! -s "$work/b.err" ] && ok || bad "SIGTERM: stderr: $(cat "$work/b.err")"
wait_for c "measured" 20 && capture c | grep -q "PTC -> PCIe (RQ)" && ok || bad "NO_COLOR, vt100: $(capture c | head -3)"
tm send-keys -t c C-c
restored c 0 "Ctrl-C"

# --- an image: one snapshot per interval, then the end of the recording --
cp "$cases/two_ep_two_ports.regs" "$work/two.regs"
start d 100 30 -- --top -d "image:$work/two.regs" -t 0.1
wait_for d "^End of the recording \(q quits\): .*/two.regs: SNAPSHOT number 3 asked for" 20 &&
	capture d | grep -q "measured 1.00 s" && ok || bad "image: $(capture d | head -3)"
tm send-keys -t d e
wait_for d "PCIe endpoint 1 \(of 2\)" 5 && capture d | grep -qF "PTC -> DMA1 (DOWN)" && ok ||
	bad "e on two endpoints: $(capture d | sed -n 3p)"
tm send-keys -t d E
wait_for d "PCIe endpoint 0 \(of 2\)" 5 && ok || bad "E: $(capture d | sed -n 3p)"
tm send-keys -t d c
tm send-keys -t d y
wait_for d "^A recording cannot be cleared" 5 && ok || bad "c y on an image: $(capture d | sed -n 2p)"
tm send-keys -t d q
restored d 0 "q after the end of the recording"

# --- errors: one line after the terminal is back ----------------------
mkdev "$work/busy.bin" 1
start e 80 24 ERR_TTY=1 -- --top -d "mmap:$work/busy.bin" -t 0.2
restored e 1 "a device error"
tm capture-pane -p -J -t e | grep -B1 "^RESTORED e" | head -1 |
	grep -q "^nfb-pcie-telemetry: .*STATUS busy did not clear within 1.0 s" && ok ||
	bad "a device error: not one line after the view: $(capture e | grep -v '^$' | tail -3)"
start f 80 24 TERM=nosuchterm -- --top -d sim:idle
restored f 1 "unknown TERM"
[ "$(wc -l <"$work/f.err")" -eq 1 ] && grep -q "^nfb-pcie-telemetry: --top: TERM=nosuchterm: no such terminal type" "$work/f.err" &&
	ok || bad "unknown TERM: $(cat "$work/f.err")"
start g 80 24 TERM=dumb -- --top -d sim:idle
restored g 1 "TERM=dumb"
[ "$(wc -l <"$work/g.err")" -eq 1 ] && grep -q "^nfb-pcie-telemetry: --top: TERM=dumb: this terminal cannot move the cursor" "$work/g.err" &&
	ok || bad "TERM=dumb: $(cat "$work/g.err")"

echo "test_tool_top: $pass passed, $fail failed"
[ $fail -eq 0 ]
