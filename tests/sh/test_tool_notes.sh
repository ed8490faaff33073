#!/usr/bin/env bash
# The notes of nfb-pcie-telemetry on stderr: what -c did on a device that
# is no card (an image: nothing cleared; a dump without ,rw: the file
# untouched; the simulated card: its counters cleared), that -t 0 on the
# simulated card covers only its warm-up, and that an interval shorter
# than ten read-outs of the counters gives coarse shares.  A note never
# changes stdout ("Counters cleared." and every report stay upstream's)
# and is printed once a run.
#
# Usage: test_tool_notes.sh BIN_DIR TESTS_DIR
set -u
. "$(dirname "$0")/tool_harness.sh" "$@"
cases=$(cd "$cases" && pwd)
. "$(dirname "$0")/regs_bin.sh"
note='^nfb-pcie-telemetry: note: '

# run ARGS...: stdout in $work/out, stderr in $work/err, status in $rc
run() {
	"$tool" "$@" >"$work/out" 2>"$work/err"
	rc=$?
}
# notes N PATTERN: exactly N lines on stderr, all notes, matching PATTERN
notes() {
	local n
	n=$(wc -l <"$work/err")
	if [ "$n" -eq "$1" ] && { [ "$1" -eq 0 ] || { ! grep -qv "$note" "$work/err" && grep -q -e "$2" "$work/err"; }; }; then
		ok
	else
		bad "$3: want $1 note(s) matching '$2', stderr: $(cat "$work/err")"
	fi
}
cleared() {
	[ $rc -eq 0 ] && [ "$(cat "$work/out")" = "Counters cleared." ] && ok || bad "$1: rc $rc, stdout $(cat "$work/out")"
}

run -d "image:$cases/clear.regs" -c
cleared "-c on an image"
notes 1 "is a recording: nothing was cleared" "-c on an image"

run -d sim:idle -c
cleared "-c on sim"
notes 1 "simulated card's counters were cleared" "-c on sim"

first_image basic_t1 "$work/basic.regs"
to_bin "$work/basic.regs" "$work/dump.bin" 0 65536
run -d "mmap:$work/dump.bin" -c
cleared "-c on a dump"
notes 1 "mapped without ,rw: the clear did not reach the file" "-c on a dump"
run -d "mmap:$work/dump.bin,rw" -c
cleared "-c on a dump with ,rw"
notes 0 "" "-c on a dump with ,rw"

# -t 0 on sim: the warm-up; the report is the same with or without stderr
run -d sim -t 0
cp "$work/out" "$work/t0"
notes 1 "-t 0 on the simulated card: the totals cover only its warm-up ([0-9]* us" "-t 0 on sim"
"$tool" -d sim -t 0 2>/dev/null | cmp -s - "$work/t0" && ok || bad "-t 0 on sim: stdout changes"
grep -q note "$work/t0" && bad "a note on stdout" || ok
run -d "image:$cases/basic_t1.regs" -t 0
notes 0 "" "-t 0 on an image"
# -t 0 -w: once a run
timeout 60 "$tool" -d sim:idle -t 0 -w >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 200); do
	[ "$(grep -c '^Totals since the last clear' "$work/out")" -ge 2 ] && break
	sleep 0.1
done
kill -INT $pid 2>/dev/null
wait $pid
notes 1 "warm-up" "-t 0 -w on sim"

# short intervals: 4096 cycles of the 200 MHz DMA clock are 20.5 us
run -d sim:idle -t 0.0001
notes 1 "the interval (0.0001 s) is shorter than ten read-outs of the counters (one every 4096 cycles of the [0-9.]* MHz DMA clock, .*: the shares are coarse" "-t 0.0001"
run -d sim:idle -t 0.01
notes 0 "" "-t 0.01"
run -d sim:idle -t 0.0001 -j
notes 1 "the shares are coarse" "-t 0.0001 -j"
grep -q '"seconds": 0.0001' "$work/out" && ok || bad "-j output: $(head -3 "$work/out")"
# a static dump: no clock advances
run -d "mmap:$work/dump.bin" -t 0.05
notes 1 "no cycle counter advanced in the interval" "a dump that does not count"

# the golden reports have no note but where one is due (a clear, and two
# hand-made cases whose clocks run at 0.0016 MHz and not at all)
for a in "$cases"/*.args; do
	c=$(basename "$a" .args)
	(cd "$cases" && "$tool" -d "image:$c.regs" $(cat "$a") 2>&1 >/dev/null) | grep -q "$note" || continue
	case $c in clear|round_ties|zero_cycles) ok ;; *) bad "case $c has a note" ;; esac
done

echo "test_tool_notes: $pass passed, $fail failed"
[ $fail -eq 0 ]
