#!/usr/bin/env bash
# nfb-pcie-telemetry-exporter across wraps of 33-bit counters.  No
# counter ever falls, none grows by more than its clock allows between
# two scrapes, none comes near 2^63, and nobody clears, so no reset is
# seen; the poller shortens its interval (1 s configured) to a quarter of
# the wrap time on its own.
#
# 1. A simulated card with CNT_WIDTH = 33 and 1-byte MFB items at line
#    rate, whose item counters wrap every 0.6 simulated seconds, watched
#    for 20 s and until they went round 4 times (50 s at most).  How fast
#    the card runs depends on the machine: a sanitizer build simulates it
#    at a few % of real time, too slow for any wrap in 50 s; then the test
#    says so and checks the rest.
# 2. A component file whose counters tests/helpers/pt_filecard runs at
#    2 GHz with CNT_WIDTH = 33 (cycle counters wrap every 4.3 s, item
#    counters every 0.5 s), watched for 12 s: as many wraps on every
#    build, exactly.
#
# Usage: test_exporter_wrap.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/exporter_lib.sh" "$@"

# watch NAME URL MIN MAX ROUNDS: scrape every 0.25 s for MIN seconds and
# until the RQ items went round 2^33 ROUNDS times (MAX at most); the
# samples as "TIME SERIES VALUE" in $work/NAME.series, the last scrape in
# $work/NAME.last.
watch() {
	local name=$1 url=$2 t0 rounds
	t0=$(date +%s)
	while [ "$(date +%s)" -lt $((t0 + $4)) ]; do
		curl -s "$url/metrics" >"$work/$name.last"
		awk -v t="$(date +%s.%N)" '/_total\{device=/ && !/polls_total|errors_total/ { print t, $1, $2 }' \
			"$work/$name.last" >>"$work/$name.series"
		rounds=$(awk '/^pcie_telemetry_bus_items_total\{.*bus="rq"/ { printf "%d", $2 / 2^33 }' "$work/$name.last")
		[ "$(date +%s)" -ge $((t0 + $3)) ] && [ "${rounds:-0}" -ge "$5" ] && break
		sleep 0.25
	done
}

# check NAME MAX_PER_SECOND: every series of NAME, between two scrapes.
check() {
	local name=$1 last=$work/$1.last interval wrap
	interval=$(sample "$last" pcie_telemetry_poll_interval_seconds)
	wrap=$(sample "$last" pcie_telemetry_wrap_seconds)
	echo "$name: poll interval $interval s, shortest wrap $wrap s"
	python3 -c "import sys; i, w = map(float, sys.argv[1:]); sys.exit(not (w < 1 and i <= w / 4 + 1e-9))" \
		"$interval" "$wrap" && ok || bad "$name: poll interval $interval s is not a quarter of the wrap time $wrap s"
	[ "$(sample "$last" pcie_telemetry_clears_seen_total)" = 0 ] && ok || bad "$name: a reset where nobody cleared"
	[ "$(sample "$last" pcie_telemetry_up)" = 1 ] && ok || bad "$name: not up"
	sort -k2,2 -s "$work/$name.series" | awk -v max="$2" '
		{ if ($3 + 0 > 2^62) print "huge: " $2 " " $3
		  if ($2 == prev) {
			d = $3 - last; dt = $1 - lt
			if (d < 0) print "down: " $2 " " last " -> " $3
			else if (d > max * (dt + 0.2)) print "jump: " $2 " " last " -> " $3 " in " dt " s"
		  }
		  prev = $2; last = $3; lt = $1 }' >"$work/$name.problems"
	# a device that failed a poll was reopened from zero: its log says why
	[ ! -s "$work/$name.problems" ] && ok ||
		bad "$name: $(head -3 "$work/$name.problems") $(grep -h -m2 'down:' "$work"/*.log 2>/dev/null)"
}

# rounds NAME METRIC SELECTOR: how often the counter went round 2^33
rounds() {
	awk -v m="$2" -v re="$3" '$1 ~ ("^" m "\\{") && $1 ~ re { printf "%d", $2 / 2^33; exit }' "$work/$1.last"
}

# 1. the simulated card
cat >"$work/wrap33.ini" <<'EOT'
[card]
base = rx-line-rate
[generics]
CNT_WIDTH = 33
MFB_ITEM_BYTES = 1
PCIE_EOF_POS_WIDTH = 5
DMA_EOF_POS_WIDTH = 5
EOT
start_exporter ex -d "sim:$work/wrap33.ini" --poll.interval=1s || { bad "no exporter: $(cat "$work/ex.log")"; exit 1; }
watch sim "$ex_url" 20 50 4
# items of 1 byte on a 512-bit bus at 400 MHz: 25.6 x 10^9 a second at most
check sim 30e9
n=$(rounds sim pcie_telemetry_bus_items_total 'bus="rq"')
cyc=$(sample "$work/sim.last" pcie_telemetry_pcie_cycles_total)
echo "sim: the RQ items went round 2^33 $n times in $(python3 -c "print('%.1f' % ($cyc / 400e6))") simulated s"
if [ "${n:-0}" -ge 4 ]; then
	ok
elif python3 -c "import sys; sys.exit(not (float(sys.argv[1]) / 400e6 < 4 * 0.6))" "$cyc"; then
	echo "NOTE: the card simulated only $(python3 -c "print('%.2f' % ($cyc / 400e6))") s in 50 s here: wraps of the simulated card not counted"
else
	bad "sim: only ${n:-0} wraps of the RQ items"
fi
stop_exporter ex && ok || bad "exit status $?"

# 2. the component file at 2 GHz
hz=2000000000
mkdev "$work/card.bin" 0
"$helpers/pt_filecard" "$work/card.bin" $hz 30 33 >"$work/card.log" &
track $!
for ((i = 0; i < 50; i++)); do grep -qs ready "$work/card.log" && break; sleep 0.1; done
start_exporter fx -d "mmap:$work/card.bin,rw" --poll.interval=1s || { bad "no exporter: $(cat "$work/fx.log")"; exit 1; }
watch file "$fx_url" 12 12 0
# bytes: 8 items of 4 bytes per cycle
check file $((32 * hz))
n=$(rounds file pcie_telemetry_bus_items_total 'bus="rq"')
c=$(rounds file pcie_telemetry_pcie_cycles_total .)
echo "file: the RQ items went round 2^33 $n times, the PCIe cycles $c times"
[ "${n:-0}" -ge 10 ] && [ "${c:-0}" -ge 2 ] && ok || bad "file: only $n wraps of the items, $c of the cycles"
grep -q '^clear' "$work/card.log" && bad "file: the card saw a CLEAR" || ok
stop_exporter fx && ok || bad "exit status $?"
finish
