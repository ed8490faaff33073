#!/usr/bin/env bash
# nfb-pcie-telemetry-exporter: a clear of the counters by another process
# (nfb-pcie-telemetry -c) shows as a counter reset, never as a jump.
#
# The card must be shared by two processes, which a simulated card is not
# (it lives inside the process that opened it); so the card is a
# component file (-d mmap:FILE,rw) whose counters tests/helpers/pt_filecard
# keeps running at 50 MHz (PCIe) and 25 MHz (DMA) and clears, as the
# firmware does, when anyone writes CLEAR to COMMAND.  Every counter
# series scraped every 0.2 s must grow by at most what its clock allows,
# and fall exactly once: at the clear, to about what the counter reached
# since then (not 0 plus what it had, not a wrap's worth).
#
# Usage: test_exporter_reset.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/exporter_lib.sh" "$@"
[ -x "$helpers/pt_filecard" ] || { echo "FAIL: $helpers/pt_filecard is not built"; exit 1; }

hz=50000000
mkdev "$work/card.bin" 0
"$helpers/pt_filecard" "$work/card.bin" $hz 60 >"$work/card.log" &
card_pid=$!
track $card_pid
for ((i = 0; i < 50; i++)); do grep -qs ready "$work/card.log" && break; sleep 0.1; done
start_exporter ex -d "mmap:$work/card.bin,rw" --poll.interval=100ms || { bad "no exporter: $(cat "$work/ex.log")"; exit 1; }

# scrape N times, 0.2 s apart, appending "TIME SERIES VALUE" lines
scrapes() {
	for ((k = 0; k < $1; k++)); do
		curl -s "$ex_url/metrics" | awk -v t="$(date +%s.%N)" \
			'/_total\{device=/ && !/polls_total|errors_total|clears_seen/ { print t, $1, $2 }' >>"$work/series"
		sleep 0.2
	done
}
scrapes 10
# the clear, by another process; the card may miss a CLEAR that the
# exporter's SNAPSHOT overwrote within its millisecond: then again
for try in 1 2 3; do
	"$bin/nfb-pcie-telemetry" -d "mmap:$work/card.bin,rw" -c >/dev/null 2>"$work/clear.err" || bad "-c failed: $(cat "$work/clear.err")"
	sleep 0.1
	grep -q '^clear 1' "$work/card.log" && break
done
grep -q '^clear 1' "$work/card.log" && ok || bad "the card never saw the CLEAR"
scrapes 10
curl -s "$ex_url/metrics" >"$work/last"

[ "$(sample "$work/last" pcie_telemetry_clears_seen_total)" = 1 ] && ok ||
	bad "clears_seen_total is $(sample "$work/last" pcie_telemetry_clears_seen_total), not 1"
[ "$(sample "$work/last" pcie_telemetry_up)" = 1 ] && ok || bad "not up after the clear"
# per series: at most one fall, to a small value; every rise within the
# clock (no counter of this card grows faster than its bytes, 8 items of
# 4 bytes per cycle: 32 HZ; the values are up to
# 0.1 s old: a lost wrap or a jump is far more than 32 HZ x (dt + 0.5 s))
sort -k2,2 -s "$work/series" | awk -v hz=$hz '
	{ if ($2 == prev) {
		d = $3 - last; dt = $1 - lt
		if (d < 0) { falls[$2]++; if ($3 > 32 * hz * (dt + 0.5)) print "fall to a big value: " $2 " " last " -> " $3 }
		else if (d > 32 * hz * (dt + 0.5)) print "jump: " $2 " " last " -> " $3 " in " dt " s"
	  } else n++
	  prev = $2; last = $3; lt = $1 }
	END { for (s in falls) if (falls[s] > 1) print "falls twice: " s
	      print "series " n; nf = 0; for (s in falls) nf++; print "fell " nf }' >"$work/check"
series=$(sed -n 's/^series //p' "$work/check")
fell=$(sed -n 's/^fell //p' "$work/check")
grep -v '^series \|^fell ' "$work/check" >"$work/problems"
[ ! -s "$work/problems" ] && ok || bad "$(head -3 "$work/problems")"
[ "${series:-0}" -ge 40 ] && ok || bad "only ${series:-0} counter series"
# every counter moves at this card's rates, so every one of them fell
[ "${fell:-0}" = "${series:-x}" ] && ok || bad "$fell of $series series show the reset"
stop_exporter ex && ok || bad "exit status $?"
finish
