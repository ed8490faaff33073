#!/usr/bin/env bash
# nfb-pcie-telemetry-exporter with a real Prometheus server: the test
# starts one on loopback (free ports, a temporary configuration and data
# folder; stopped at the end), which scrapes the exporter serving a
# simulated card every second (in OpenMetrics, which Prometheus asks for
# first).  PromQL rate() over the HTTP API must agree within 2 % with
# the throughput `nfb-pcie-telemetry -d sim:SCENARIO -t 2` reports for
# the same scenario (the RC bus, Gbit/s).
#
# The card runs in real time only when the machine has a core for it.
# The card's own rate is rate(bytes) / rate(PCIe cycles) x the PCIe
# clock, which lag cannot change: it is checked always; rate(bytes)
# against the wall clock is checked when the card kept real time over the
# window (rate(PCIe cycles) within 1 % of the clock), and otherwise the
# test says so and by how much the card lagged.  All queries are
# evaluated at one instant, so both rates see the same samples.
#
# Usage: test_exporter_prometheus.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/exporter_lib.sh" "$@"
need prometheus curl python3

# a light load the card can simulate in real time on one core
cat >"$work/light.ini" <<'EOT'
[generics]
MFB_ITEM_BYTES = 4
[dma]
read_gbps = 1
write_gbps = 1
read_size = 4096
write_size = 4096
EOT
start_exporter ex -d "sim:$work/light.ini" --poll.interval=100ms || { bad "no exporter: $(cat "$work/ex.log")"; exit 1; }
t_start=$(date +%s)
pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/prometheus.yml" <<EOT
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: pcie_telemetry
    static_configs:
      - targets: ['${ex_url#http://}']
EOT
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$work/prom.log" 2>&1 &
prom_pid=$!
track $prom_pid
P=http://127.0.0.1:$pport
# meanwhile, what the command reports for 2 simulated seconds of the same scenario
"$bin/nfb-pcie-telemetry" -d "sim:$work/light.ini" -t 2 -j >"$work/report" || bad "nfb-pcie-telemetry failed"
read -r cli_bps cli_hz < <(python3 - "$work/report" <<'EOT'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["data"]["endpoints"][0]
print(e["buses"]["PCIe -> PTC (RC)"]["items"] * 4 / r["seconds"], e["pcie_cycles"] / r["seconds"])
EOT
)
[ -n "${cli_bps:-}" ] && ok || bad "no RC bytes in the report: $(head -c 300 "$work/report")"
for ((i = 0; i < 150; i++)); do
	curl -sf "$P/-/ready" >/dev/null && break
	kill -0 $prom_pid 2>/dev/null || break
	sleep 0.2
done
curl -sf "$P/-/ready" >/dev/null && ok || { bad "Prometheus did not start: $(tail -5 "$work/prom.log")"; exit 1; }
# 24 s of samples in a 20 s window
sleep $((t_start + 26 - $(date +%s)))

# every query is evaluated at the same instant, so that the rates below
# are over one window: the card may lag for a moment under load, and
# rate(cycles) only tells whether it did if it sees the same samples
t_eval=$(date +%s.%N)
query() { # PROMQL: the first value of the result at t_eval
	curl -s --data-urlencode "query=$1" --data-urlencode "time=$t_eval" "$P/api/v1/query" | python3 -c '
import json, sys
r = json.load(sys.stdin)
v = r["data"]["result"] if r.get("status") == "success" else []
print(v[0]["value"][1] if v else "none")'
}
[ "$(query 'up{job="pcie_telemetry"}')" = 1 ] && ok || bad "Prometheus: the target is not up"
health=$(curl -s "$P/api/v1/targets" | python3 -c '
import json, sys
t = json.load(sys.stdin)["data"]["activeTargets"][0]
print(t["health"], repr(t["lastError"]))')
[ "$health" = "up ''" ] && ok || bad "target: $health"
[ "$(query 'pcie_telemetry_up')" = 1 ] && ok || bad "pcie_telemetry_up is not 1"
[ "$(query 'count(pcie_telemetry_bus_bytes_total)')" = 4 ] && ok || bad "not 4 bus_bytes series"
rate=$(query 'rate(pcie_telemetry_bus_bytes_total{bus="rc"}[20s])')
cyc=$(query 'rate(pcie_telemetry_pcie_cycles_total[20s])')
card=$(query "rate(pcie_telemetry_bus_bytes_total{bus=\"rc\"}[20s]) / on(device, endpoint) rate(pcie_telemetry_pcie_cycles_total[20s]) * $cli_hz")
echo "RC: command $cli_bps B/s; Prometheus rate() $rate B/s, on the card's clock $card B/s; PCIe cycles $cyc /s"
python3 - "$cli_bps" "$cli_hz" "$rate" "$cyc" "$card" >"$work/verdict" <<'EOT'
import sys
want, hz, rate, cyc, card = map(float, sys.argv[1:])
mhz = hz / 1e6
keep = abs(cyc / hz - 1)
print("card", "ok" if abs(card / want - 1) < 0.02 else "bad", "%.2f %%" % (100 * (card / want - 1)))
if keep < 0.01:
    print("wall", "ok" if abs(rate / want - 1) < 0.02 else "bad", "%.2f %%" % (100 * (rate / want - 1)))
else:
    print("wall lag", "%.0f %% of real time" % (100 * cyc / (mhz * 1e6)))
EOT
[ "$(awk '$1 == "card" { print $2 }' "$work/verdict")" = ok ] && ok ||
	bad "rate() on the card's clock is off by $(awk '$1 == "card" { print $3, $4 }' "$work/verdict")"
case "$(awk '$1 == "wall" { print $2 }' "$work/verdict")" in
ok) ok ;;
lag) echo "NOTE: the simulated card ran at $(awk '$1 == "wall" { print $3, $4, $5, $6, $7 }' "$work/verdict") (machine busy): rate() against the wall clock not compared" ;;
*) bad "rate() is off by $(awk '$1 == "wall" { print $3, $4 }' "$work/verdict")" ;;
esac
kill -TERM $prom_pid
wait $prom_pid 2>/dev/null
stop_exporter ex && ok || bad "exit status $?"
finish
