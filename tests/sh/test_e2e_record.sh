#!/usr/bin/env bash
# --record then -d image: gives the identical report.
#  1. every passing conformance case: replaying its own image with
#     --record, then replaying the recording, prints the same bytes;
#  2. the simulated card (-d sim, and every preset listed by --help):
#     totals, an interval, JSON; the recording explains itself (tool
#     version, command line, device in its header comments).
# Part 2 is skipped with a message while the sim backend is not in the
# build.
#
# Usage: test_e2e_record.sh BIN_DIR TESTS_DIR
set -u
# tool, cases, work, ok, bad
. "$(dirname "$0")/tool_harness.sh" "$@"

# roundtrip DEVICE ARGS...: record, replay, compare
roundtrip() {
	local dev=$1
	shift
	rm -f "$work/rec.regs"
	if ! "$tool" -d "$dev" "$@" --record "$work/rec.regs" >"$work/a.out" 2>"$work/a.err"; then
		bad "-d $dev $* --record: $(cat "$work/a.err")"
		return
	fi
	if ! "$tool" -d "image:$work/rec.regs" "$@" >"$work/b.out" 2>"$work/b.err"; then
		bad "replay of -d $dev $*: $(cat "$work/b.err")"
		return
	fi
	if cmp -s "$work/a.out" "$work/b.out"; then
		ok
	else
		bad "-d $dev $*: the replay differs"
		diff "$work/a.out" "$work/b.out" | head -6 | sed 's/^/    /'
	fi
	# the header explains the file
	grep -q "^# recorded by nfb-pcie-telemetry " "$work/rec.regs" &&
		grep -q "^# command: .*--record" "$work/rec.regs" &&
		grep -qF "# device: $dev" "$work/rec.regs" && ok ||
		bad "-d $dev $*: the recording lacks its header comments"
}

for args in "$cases"/*.args; do
	name=$(basename "$args" .args)
	[ "$(cat "$cases/$name.rc")" = 0 ] || continue
	grep -q -- '-c' "$args" && continue
	# shellcheck disable=SC2046
	roundtrip "image:$cases/$name.regs" $(cat "$args")
done
# the number of images in a recording: one per reading
roundtrip "image:$cases/basic_t1.regs" -t 1
[ "$(grep -c '^@snapshot' "$work/rec.regs")" -eq 2 ] && ok || bad "-t 1 records 2 images"
roundtrip "image:$cases/basic_t1.regs" -t 0
[ "$(grep -c '^@snapshot' "$work/rec.regs")" -eq 1 ] && ok || bad "-t 0 records 1 image"
# an existing file is replaced only at the end
echo "old" >"$work/rec.regs"
"$tool" -d "image:$cases/err_one_image.regs" -t 1 --record "$work/rec.regs" >/dev/null 2>&1
[ "$(cat "$work/rec.regs")" = old ] && ok || bad "a failed run replaced an existing recording"

if "$tool" -d sim -t 0 >"$work/sim.out" 2>"$work/sim.err"; then
	roundtrip sim -t 0
	roundtrip sim -t 0.001
	roundtrip sim -j -t 0.002
	presets=$("$tool" --help | awk '/^Presets/ { on = 1; next } on && NF { print $1 }')
	[ -n "$presets" ] || echo "note: --help lists no preset of the simulated card"
	for p in $presets; do
		roundtrip "sim:$p" -t 0.001
	done
	# watch mode stopped by SIGINT: the recording replays every report
	rm -f "$work/w.regs"
	"$tool" -d sim -t 0.002 -w --record "$work/w.regs" >"$work/w.out" 2>"$work/w.err" &
	pid=$!
	sleep 1.5
	kill -INT $pid
	wait $pid
	rc=$?
	n=$(grep -c '^PCIe telemetry - ' "$work/w.out")
	[ $rc -eq 0 ] && [ "$n" -ge 1 ] && [ ! -s "$work/w.err" ] && ok ||
		bad "-d sim -w stopped by SIGINT: rc $rc, $n reports, stderr $(head -1 "$work/w.err")"
	"$tool" -d "image:$work/w.regs" -t 0.002 -w >"$work/w.replay" 2>"$work/w.rerr"
	cmp -s "$work/w.out" "$work/w.replay" && ok || bad "-d sim -w: the replay of the recording differs"
	grep -q "holds only $((2 * n)) images" "$work/w.rerr" && ok ||
		bad "-d sim -w: recording of $n reports: $(cat "$work/w.rerr")"
else
	echo "SKIP part 2: -d sim does not work in this build: $(head -1 "$work/sim.err")"
fi

echo "test_e2e_record: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
