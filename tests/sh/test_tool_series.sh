#!/usr/bin/env bash
# Series of nfb-pcie-telemetry (--csv, --jsonl, --count; docs/series.md):
#  1. every passing conformance case replayed, and the simulated card on
#     several layouts (2 endpoints, 2 DMA ports, padded regions), as CSV
#     and JSON lines: eight fields on every line, the documented header
#     and kinds, the same rows in every point, parsed by Python's csv
#     module and by pandas.read_csv without options; -M series;
#  2. the time column: UNIX time on a clock device (mmap:), simulated time
#     on sim; C locale whatever LC_ALL says;
#  3. --record: the recording replays to the same series; the sum of the
#     intervals' counters of a replayed recording is the difference of its
#     totals;
#  4. wrap safety: a simulated card with CNT_WIDTH 33, whose RQ item counter
#     wraps every 0.58 s, watched over 12 intervals of 0.1 s gives the
#     series of the same card with 48-bit counters; -w with an interval
#     longer than the wrap time is refused, one without -w warns;
#  5. --count, SIGINT, a closed output; the examples of README.md and
#     docs/series.md, run and compared with what they show.
#
# Usage: test_tool_series.sh BIN_DIR TESTS_DIR
set -u
# tool, cases, work, ok, bad
. "$(dirname "$0")/tool_harness.sh" "$@"
# mkdev FILE STATUS
. "$(dirname "$0")/component_dev.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
check=$src/tests/sh/series_check.py
docs=$src/docs/series.md

# Debian's python3 (python3-pandas is installed for it), whatever PATH says
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import pandas' 2>/dev/null; then
	echo "pandas not found: installing the test packages (scripts/install-deps.sh --test)"
	bash "$src/scripts/install-deps.sh" --test >"$work/deps.log" 2>&1 || cat "$work/deps.log"
fi
"$py" -c 'import pandas' 2>/dev/null || { echo "FAIL: $py has no pandas (python3-pandas)"; exit 1; }

# pc WHAT ARGS...: a check of series_check.py
pc() {
	local what=$1
	shift
	if "$py" "$check" "$@" >"$work/check.out" 2>&1; then
		ok
	else
		bad "$what: $(head -c 800 "$work/check.out")"
	fi
}

# series NAME ARGS...: run the tool into $work/NAME (stderr NAME.err),
# which must succeed with an empty stderr
series() {
	local name=$1
	shift
	if "$tool" "$@" >"$work/$name" 2>"$work/$name.err" && [ ! -s "$work/$name.err" ]; then
		ok
		return 0
	fi
	bad "$*: rc $?, stderr $(head -c 300 "$work/$name.err")"
	return 1
}

# noted NAME ARGS...: as series, but the note of -t 0 on the simulated
# card (its totals cover only its warm-up) is on stderr, and nothing else
noted() {
	local name=$1
	shift
	if "$tool" "$@" >"$work/$name" 2>"$work/$name.err" &&
		[ "$(grep -c '^nfb-pcie-telemetry: note: -t 0 on the simulated card' "$work/$name.err")" = 1 ] &&
		[ "$(wc -l <"$work/$name.err")" = 1 ]; then
		ok
		return 0
	fi
	bad "$*: stderr $(head -c 300 "$work/$name.err")"
	return 1
}

# --- 1. layouts and devices
# quiet NAME ARGS...: as series, but warnings and notes on stderr are
# allowed (a 33-bit case whose interval is longer than its wrap time; a
# hand-made image or a dump whose clocks hardly run or stand still)
quiet() {
	local name=$1
	shift
	if "$tool" "$@" >"$work/$name" 2>"$work/$name.err" && ! grep -Eqv '^nfb-pcie-telemetry: (warning|note): ' "$work/$name.err"; then
		ok
		return 0
	fi
	bad "$*: stderr $(head -c 300 "$work/$name.err")"
	return 1
}
for args in "$cases"/*.args; do
	name=$(basename "$args" .args)
	[ "$(cat "$cases/$name.rc")" = 0 ] || continue
	grep -q -- '-c' "$args" && continue
	t=$(sed -E 's/.*-t ([0-9.]+).*/\1/' "$args")
	dev=image:$cases/$name.regs
	quiet "$name.csv" -d "$dev" -t "$t" --csv && pc "$name --csv" csv "$work/$name.csv" "$docs"
	quiet "$name.jsonl" -d "$dev" -t "$t" --jsonl && pc "$name --jsonl" jsonl "$work/$name.jsonl"
	quiet "$name.m.csv" -d "$dev" -t "$t" --csv -M report &&
		pc "$name --csv -M report" csv "$work/$name.m.csv" "$docs" --metrics-only
done
# a series of one interval is the report: the counters are -j's
"$tool" -d "image:$cases/basic_json.regs" -t 1 --jsonl | sed -n 2p >"$work/b.jsonl"
"$py" -c '
import json, sys
point = json.loads(open(sys.argv[1]).read())
report = json.load(open(sys.argv[2]))
sys.exit(point["data"] != report["data"] or point["interval_s"] != report["seconds"])
' "$work/b.jsonl" "$cases/basic_json.out" && ok || bad "--jsonl: data and interval_s are not those of -j"

cat >"$work/padded.ini" <<'EOT'
[generics]
DMA_DOWN_MFB_REGIONS = 1
PCIE_RC_MFB_REGIONS = 1
EOT
for dev in sim sim:two-endpoints sim:mixed "sim:$work/padded.ini"; do
	n=$(basename "$dev")
	series "$n.csv" -d "$dev" -t 0.002 --count 3 --csv && pc "-d $dev --csv" csv "$work/$n.csv" "$docs"
	series "$n.jsonl" -d "$dev" -t 0.002 --count 3 --jsonl && pc "-d $dev --jsonl" jsonl "$work/$n.jsonl"
done
grep -q ',ep1\.down0\.items,' "$work/sim:two-endpoints.csv" && grep -q ',ep0\.up1\.gbps,' "$work/sim:mixed.csv" &&
	grep -q ',ep0\.down0\.region1_cycles,' "$work/padded.ini.csv" &&
	grep -q ',ep0\.down0\.corrected_gbps,' "$work/padded.ini.csv" && ok ||
	bad "the series lack the counters of the second endpoint, the second port or a padded region"
noted t0.csv -d sim:two-endpoints -t 0 --csv && pc "-t 0 --csv" csv "$work/t0.csv" "$docs"
# totals: no interval, no rate
awk -F, 'NR > 1 && ($2 != "" || ($8 == "Gbit/s" && $7 != "")) { bad = 1 } END { exit bad }' "$work/t0.csv" &&
	ok || bad "-t 0 --csv: an interval or a rate in totals"
noted t0.jsonl -d sim -t 0 --jsonl && grep -q '"interval_s":null' "$work/t0.jsonl" && ok ||
	bad "-t 0 --jsonl: interval_s is not null"
# -M: those metrics alone
series m.csv -d sim -t 0.002 --count 2 --csv -M '{bus}.gbps,ep0.brake.no_free_tag_pct'
[ "$(awk -F, 'NR > 1 && $5 == "metric"' "$work/m.csv" | wc -l)" -eq 10 ] &&
	[ "$(awk -F, 'NR > 1 && $5 != "metric" && $5 != "flag"' "$work/m.csv" | wc -l)" -eq 0 ] && ok ||
	bad "-M with --csv: not the flags and the 5 chosen metrics per point"
series m.jsonl -d sim -t 0.002 --count 2 --jsonl -M '{bus}.gbps' && pc "-M --jsonl" jsonl "$work/m.jsonl" --metrics-only

# --- 2. time and locale
mkdev "$work/dev.bin" 0
now=$(date +%s)
quiet mmap.csv -d "mmap:$work/dev.bin" -t 0.02 --count 2 --csv --record "$work/mmap.regs" &&
	pc "mmap: --csv" csv "$work/mmap.csv" "$docs"
awk -F, -v now="$now" 'NR > 1 && ($1 < now - 60 || $1 > now + 600) { bad = 1 } END { exit bad }' "$work/mmap.csv" &&
	ok || bad "mmap: the time column is not the UNIX time"
quiet mmap.jsonl -d "mmap:$work/dev.bin" -t 0.02 --jsonl && head -1 "$work/mmap.jsonl" | grep -q '"clock":"unix"' &&
	ok || bad "mmap: --jsonl: clock is not unix"
awk -F, 'NR == 2 { exit !($1 > 0.002 && $1 < 0.0021) }' "$work/sim.csv" && ok ||
	bad "sim: the time of the first point is not 2 ms of simulated time (plus the warm-up)"
if localedef -i de_DE -f UTF-8 "$work/de_DE.UTF-8" 2>"$work/localedef.err" &&
	[ "$(LOCPATH=$work LC_ALL=de_DE.UTF-8 /usr/bin/printf '%.1f' 1.5)" = "1,5" ]; then
	LOCPATH=$work LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8 "$tool" -d sim:mixed -t 0.002 --count 3 --csv >"$work/de.csv"
	cmp -s "$work/de.csv" "$work/sim:mixed.csv" && ok || bad "--csv under LC_ALL=de_DE.UTF-8 differs"
else
	bad "cannot build a comma-decimal locale: $(head -1 "$work/localedef.err") (Debian package locales)"
fi

# --- 3. recording and replay
series rec.csv -d sim:two-endpoints -t 0.002 --count 5 --csv --record "$work/rec.regs"
[ "$(grep -c '^@snapshot' "$work/rec.regs")" -eq 6 ] && ok || bad "--count 5 --csv: not 6 images recorded"
series replay.csv -d "image:$work/rec.regs" -t 0.002 --count 5 --csv
cmp -s "$work/rec.csv" "$work/replay.csv" && ok || bad "the replay of a --csv recording differs"
"$tool" -d "image:$work/rec.regs" -t 0.002 -w --csv >"$work/replay.w.csv" 2>"$work/replay.w.err"
[ $? -eq 1 ] && cmp -s "$work/rec.csv" "$work/replay.w.csv" && grep -q "holds only 6 images" "$work/replay.w.err" &&
	ok || bad "-w replay of 6 images: not the 5 intervals and then the end of the images"
series rec.jsonl -d sim:two-endpoints -t 0.002 --count 5 --jsonl --record "$work/recj.regs"
series replay.jsonl -d "image:$work/recj.regs" -t 0.002 --count 5 --jsonl
cmp -s <(tail -n +2 "$work/rec.jsonl") <(tail -n +2 "$work/replay.jsonl") &&
	head -1 "$work/replay.jsonl" | grep -q '"device":"sim:two-endpoints","source":"image:' && ok ||
	bad "the replay of a --jsonl recording differs, or its first line does not name both devices"
quiet mmap.replay.csv -d "image:$work/mmap.regs" -t 0.02 --count 2 --csv
cmp -s "$work/mmap.csv" "$work/mmap.replay.csv" && ok || bad "the replay of an mmap: series has other times or devices"
# the intervals add up to the totals of the same recording
series totals.csv -d "image:$work/rec.regs" -t 0 --count 6 --csv
pc "the intervals against the totals" sums "$work/replay.csv" "$work/totals.csv" 48
series mixed.rec.csv -d sim:mixed -t 0.003 --count 4 --csv --record "$work/mixed.regs"
series mixed.totals.csv -d "image:$work/mixed.regs" -t 0 --count 5 --csv
pc "the intervals of 2 ports against the totals" sums "$work/mixed.rec.csv" "$work/mixed.totals.csv" 48

# --- 4. wrap safety
printf '[card]\nbase = rx-line-rate\n[generics]\nCNT_WIDTH = %s\nMFB_ITEM_BYTES = 1\nPCIE_EOF_POS_WIDTH = 5\nDMA_EOF_POS_WIDTH = 5\n' 33 >"$work/w33.ini"
sed 's/CNT_WIDTH = 33/CNT_WIDTH = 48/' "$work/w33.ini" >"$work/w48.ini"
series w33.csv -d "sim:$work/w33.ini" -t 0.1 --count 12 --csv --record "$work/w33.regs"
series w48.csv -d "sim:$work/w48.ini" -t 0.1 --count 12 --csv
pc "CNT_WIDTH 33 against 48" same-rows "$work/w33.csv" "$work/w48.csv" device
pc "CNT_WIDTH 33: no negative or huge value" wrap "$work/w33.csv" 33
# ep0.rq.items (counter 6) really wrapped, more than once
pc "CNT_WIDTH 33: the raw RQ items" raw-wraps "$work/w33.regs" 6 2
[ "$(awk -F, '$6 == "ep0.rq.items" { n++ } END { print n }' "$work/w33.csv")" -eq 12 ] && ok ||
	bad "CNT_WIDTH 33: not 12 intervals"
"$tool" -d "sim:$work/w33.ini" -t 1 -w --csv >"$work/refused" 2>"$work/refused.err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$work/refused" ] && [ "$(wc -l <"$work/refused.err")" -eq 1 ] &&
	grep -q -- "-t 1 with -w: a 33-bit counter can wrap in 0.1" "$work/refused.err" && ok ||
	bad "-t 1 -w on 33 bits: rc $rc, stderr $(cat "$work/refused.err")"
"$tool" -d "image:$cases/wrap33.regs" -t 1 -w --csv >"$work/refused" 2>"$work/refused.err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$work/refused" ] && grep -q "wrap in 0.693 s" "$work/refused.err" && ok ||
	bad "wrap33 -w: rc $rc, stderr $(cat "$work/refused.err")"
"$tool" -d "sim:$work/w33.ini" -t 0.25 --csv -M ep0.rq.gbps >"$work/warned" 2>"$work/warned.err"
rc=$?
[ $rc -eq 0 ] && grep -q ',flag,wrap_risk,1,' "$work/warned" && [ "$(wc -l <"$work/warned.err")" -eq 1 ] &&
	grep -q "warning: an interval of 0.25 s was too long" "$work/warned.err" && ok ||
	bad "-t 0.25 on 33 bits: rc $rc, stderr $(cat "$work/warned.err")"

# --- 5. --count, signals, a closed output, examples
head -n 1 "$cases/basic_t1.regs" >"$work/p3.regs"
for k in 0 1 2; do
	awk -v k="$k" 'NR == 1 { next } /^@snapshot/ { printf "@snapshot %.3f\n", $2 + 1000 * k; next } { print }' \
		"$cases/basic_t1.regs" >>"$work/p3.regs"
done
series count2 -d "image:$work/p3.regs" -t 1 --count 2
{ cat "$cases/basic_t1.out"; echo; cat "$cases/basic_t1.out"; echo; } | cmp -s - "$work/count2" && ok ||
	bad "--count 2: not 2 reports of basic_t1 and status 0"
series count1 -d "image:$work/p3.regs" -t 1 --count 1 -M report
[ "$(grep -c '^metric ' "$work/count1")" -eq 1 ] && ok || bad "--count 1 -M: not one table"
"$tool" -d "mmap:$work/dev.bin" -t 0.05 -w --csv >"$work/int.csv" 2>"$work/int.err" &
pid=$!
sleep 0.7
kill -INT $pid
wait $pid
rc=$?
# (the dump's clocks stand still: a note says so, and nothing else is said)
[ $rc -eq 0 ] && ! grep -qv '^nfb-pcie-telemetry: note: ' "$work/int.err" && [ "$(grep -c ',wrap_risk,' "$work/int.csv")" -ge 2 ] && ok ||
	bad "--csv -w stopped by SIGINT: rc $rc, stderr $(head -1 "$work/int.err")"
pc "--csv -w stopped by SIGINT: whole points" csv "$work/int.csv" "$docs"
"$tool" -d "mmap:$work/dev.bin" -t 0.01 -w --csv 2>"$work/pipe.err" | head -n 3 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && ! grep -qv '^nfb-pcie-telemetry: note: ' "$work/pipe.err" && ok || bad "--csv -w | head: rc $rc, $(cat "$work/pipe.err")"
mkdir -p "$work/examples"
pc "the examples" examples "$(cd "$bin" && pwd)" "$work/examples" "$src/README.md" "$docs"

echo "test_tool_series: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
