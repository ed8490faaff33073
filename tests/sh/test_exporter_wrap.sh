#!/usr/bin/env bash
# nfb-pcie-telemetry-exporter across wraps: a simulated card with
# CNT_WIDTH = 33 and 1-byte MFB items at line rate, whose item counters
# wrap every 0.6 simulated seconds, watched for 20 s and until they went
# round 4 times at least (however fast this machine simulates the card).  The poller
# shortens its interval to a quarter of the wrap time on its own (the
# configured one is 1 s).  No counter ever falls, none jumps by more than
# its clock allows between two scrapes, none comes near 2^63; nobody
# clears, so no reset is seen.
#
# Usage: test_exporter_wrap.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/exporter_lib.sh" "$@"

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
# 20 s at least, until the RQ items went round 2^33 four times (50 s at most)
t0=$(date +%s)
while [ "$(date +%s)" -lt $((t0 + 50)) ]; do
	curl -s "$ex_url/metrics" >"$work/m"
	rounds=$(awk '/^pcie_telemetry_bus_items_total\{.*bus="rq"/ { printf "%d", $2 / 2^33 }' "$work/m")
	[ "$(date +%s)" -ge $((t0 + 20)) ] && [ "${rounds:-0}" -ge 4 ] && break
	awk -v t="$(date +%s.%N)" '/_total\{device=/ && !/polls_total|errors_total/ { print t, $1, $2 }' \
		"$work/m" >>"$work/series"
	sleep 0.25
done
curl -s "$ex_url/metrics" >"$work/last"
interval=$(sample "$work/last" pcie_telemetry_poll_interval_seconds)
wrap=$(sample "$work/last" pcie_telemetry_wrap_seconds)
echo "poll interval $interval s, shortest wrap $wrap s"
python3 -c "import sys; i, w = map(float, sys.argv[1:]); sys.exit(not (w < 1 and i <= w / 4 + 1e-9))" \
	"$interval" "$wrap" && ok || bad "poll interval $interval s is not a quarter of the wrap time $wrap s"
[ "$(sample "$work/last" pcie_telemetry_clears_seen_total)" = 0 ] && ok || bad "a reset seen where nobody cleared"
[ "$(sample "$work/last" pcie_telemetry_up)" = 1 ] && ok || bad "the card is not up"
# per series, between two scrapes (at most about 0.3 s of card time):
# never down, never more than 4 x 10^9 per 0.25 s (items of 1 byte at a
# 512-bit bus, 400 MHz: 25.6 x 10^9 a second at most), never near 2^63
sort -k2,2 -s "$work/series" | awk '
	{ if ($3 + 0 > 2^62) print "huge: " $2 " " $3
	  if ($2 == prev) {
		d = $3 - last; dt = $1 - lt
		if (d < 0) print "down: " $2 " " last " -> " $3
		else if (d > 30e9 * (dt + 0.2)) print "jump: " $2 " " last " -> " $3 " in " dt " s"
	  }
	  prev = $2; last = $3; lt = $1 }' >"$work/problems"
[ ! -s "$work/problems" ] && ok || bad "$(head -3 "$work/problems")"
# the item counters went round many times: their totals are far beyond 2^33
wraps=$(awk '/^pcie_telemetry_bus_items_total\{.*bus="rq"/ { printf "%d", $2 / 2^33 }' "$work/last")
echo "RQ items went round 2^33 $wraps times"
[ "${wraps:-0}" -ge 4 ] && ok || bad "only ${wraps:-0} wraps of the RQ items in 50 s"
stop_exporter ex && ok || bad "exit status $?"
finish
