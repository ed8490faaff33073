#!/usr/bin/env bash
# Watch mode (-w) of nfb-pcie-telemetry: reports separated by an empty
# line as upstream prints them, text and JSON; the run ends cleanly on
# SIGINT and SIGTERM (exit 0, only whole reports on stdout, a recording
# holds only the readings of whole reports); running out of images is a
# runtime error after the reports already printed.
#
# Usage: test_tool_watch.sh BIN_DIR TESTS_DIR
set -u
# tool, cases, work, ok, bad
. "$(dirname "$0")/tool_harness.sh" "$@"
# mkdev FILE STATUS
. "$(dirname "$0")/component_dev.sh"

# N copies of the two images of case CASE, each copy 1000 s later.
pairs() {
	local case=$1 n=$2 out=$3
	head -n 1 "$cases/$case.regs" >"$out"
	for ((k = 0; k < n; k++)); do
		awk -v k="$k" '
			NR == 1 { next }
			/^@snapshot/ { printf "@snapshot %.3f\n", $2 + 1000 * k; next }
			{ print }' "$cases/$case.regs" >>"$out"
	done
}

# -t 1 -w over 3 pairs: 3 reports equal to basic_t1, then out of images.
pairs basic_t1 3 "$work/p3.regs"
"$tool" -d "image:$work/p3.regs" -t 1 -w >"$work/out" 2>"$work/err"
rc=$?
for i in 1 2 3; do cat "$cases/basic_t1.out"; echo; done >"$work/want"
[ $rc -eq 1 ] && ok || bad "-t 1 -w: exit status $rc, expected 1 after the last image"
cmp -s "$work/out" "$work/want" && ok || bad "-t 1 -w: stdout is not 3 x basic_t1.out + empty line"
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "SNAPSHOT number 7 asked for, but the file holds only 6 images" "$work/err" &&
	ok || bad "-t 1 -w: stderr: $(cat "$work/err")"

# the same in JSON
pairs basic_json 3 "$work/j3.regs"
"$tool" -d "image:$work/j3.regs" -j -t 1 -w >"$work/out" 2>/dev/null
for i in 1 2 3; do cat "$cases/basic_json.out"; echo; done >"$work/want"
cmp -s "$work/out" "$work/want" && ok || bad "-j -t 1 -w: stdout is not 3 x basic_json.out + empty line"

# -t 0 -w: one image per report, in order (once a second)
pairs basic_t1 1 "$work/p1.regs"
"$tool" -d "image:$work/p1.regs" -t 0 -w >"$work/out" 2>"$work/err"
rc=$?
head -n 95 "$cases/basic_t1.regs" >"$work/img0.regs"
{ head -n 1 "$cases/basic_t1.regs"; sed -n '96,$p' "$cases/basic_t1.regs"; } >"$work/img1.regs"
{ "$tool" -d "image:$work/img0.regs" -t 0; echo; "$tool" -d "image:$work/img1.regs" -t 0; echo; } >"$work/want"
[ $rc -eq 1 ] && cmp -s "$work/out" "$work/want" && ok || bad "-t 0 -w: rc $rc or wrong reports"

# SIGINT and SIGTERM between totals reports of a device that sleeps (a
# register file mapped as a PCI BAR would be): exit 0, whole reports only
mkdev "$work/dev.bin" 0
for sig in INT TERM; do
	"$tool" -d "mmap:$work/dev.bin" -t 0 -w --record "$work/rec.regs" >"$work/out" 2>"$work/err" &
	pid=$!
	sleep 1.5
	kill -s $sig $pid
	wait $pid
	rc=$?
	n=$(grep -c '^PCIe telemetry - ' "$work/out")
	[ $rc -eq 0 ] && ok || bad "SIG$sig: exit status $rc, expected 0"
	[ -s "$work/err" ] && bad "SIG$sig: stderr: $(cat "$work/err")" || ok
	if [ "$n" -ge 1 ] && [ "$n" -le 3 ]; then ok; else bad "SIG$sig: $n reports"; fi
	# the recording replays to the same reports
	"$tool" -d "image:$work/rec.regs" -t 0 -w >"$work/replay" 2>"$work/replay.err"
	cmp -s "$work/out" "$work/replay" && ok || bad "SIG$sig: the recording does not replay the same reports"
	grep -q "holds only $n image" "$work/replay.err" && ok || bad "SIG$sig: recording: $(cat "$work/replay.err")"
	ls -A "$work" | grep -q '^\.rec\.regs\.' && bad "SIG$sig: temporary file left" || ok
	rm -f "$work/rec.regs"
done

# the reader of stdout goes away (-w | head): a clean end, the recording kept
"$tool" -d "mmap:$work/dev.bin" -t 0 -w --record "$work/pipe.regs" 2>"$work/err" | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && [ ! -s "$work/err" ] && ok || bad "-w | head: rc $rc, stderr $(cat "$work/err")"
[ "$(grep -c '^@snapshot' "$work/pipe.regs" 2>/dev/null)" -ge 1 ] && ok || bad "-w | head: no recording"

# SIGINT while a real device sleeps through the interval: prompt, clean,
# no report, no recording (it would hold no whole report)
start=$(date +%s.%N)
"$tool" -d "mmap:$work/dev.bin" -t 30 -w --record "$work/rec2.regs" >"$work/out" 2>"$work/err" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
end=$(date +%s.%N)
[ $rc -eq 0 ] && ok || bad "SIGINT in the interval: exit status $rc"
[ -s "$work/out" ] && bad "SIGINT in the interval: printed $(wc -c <"$work/out") bytes" || ok
awk -v a="$start" -v b="$end" 'BEGIN { exit !(b - a < 5) }' && ok || bad "SIGINT in the interval: did not stop promptly"
[ -e "$work/rec2.regs" ] && bad "SIGINT in the interval: an empty recording was left" || ok
# without -w an interrupted measurement is an error (no report)
"$tool" -d "mmap:$work/dev.bin" -t 30 >"$work/out" 2>"$work/err" &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 1 ] && [ ! -s "$work/out" ] && grep -q "interrupted" "$work/err" && ok ||
	bad "SIGTERM without -w: rc $rc, stderr $(cat "$work/err")"

# the simulated card stops in the middle of a long simulated interval too
start=$(date +%s.%N)
"$tool" -d sim:idle -t 60 -w >"$work/out" 2>"$work/err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
end=$(date +%s.%N)
[ $rc -eq 0 ] && [ ! -s "$work/out" ] && ok || bad "SIGINT in a sim interval: rc $rc, $(wc -c <"$work/out") bytes out"
awk -v a="$start" -v b="$end" 'BEGIN { exit !(b - a < 8) }' && ok || bad "SIGINT in a sim interval: did not stop promptly"

echo "test_tool_watch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
