#!/usr/bin/env bash
# contrib/ for nfb-pcie-telemetry-exporter: every metric and label name
# that the Grafana dashboard, the Prometheus configuration and the rules
# use is one the exporter emits (scraped from a simulated card and
# register images); the dashboard is valid JSON whose every query parses
# as PromQL, promtool accepts the configuration and the rules, and the
# systemd unit's command line is one the exporter accepts.
#
# Usage: test_exporter_contrib.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/exporter_lib.sh" "$@"
root=$(cd "$data/.." && pwd)
contrib=$root/contrib

start_exporter ex -d sim -d "image:$cases/two_ep_two_ports.regs" -d "image:$cases/flag_lost_deltas.regs" \
	-d "image:$cases/padding_regions.regs" ||
	{ bad "no exporter: $(cat "$work/ex.log")"; exit 1; }
for ((i = 0; i < 50; i++)); do
	curl -s "$ex_url/metrics" >"$work/m"
	grep -q '^pcie_telemetry_sim_lag_seconds' "$work/m" && break
	sleep 0.2
done
stop_exporter ex
grep -v '^#' "$work/m" | sed 's/[{ ].*//' | sort -u >"$work/names"
grep -v '^#' "$work/m" | grep -o '[{,][a-z_]*="' | tr -d '{,="' | sort -u >"$work/labels"
[ "$(wc -l <"$work/names")" -ge 40 ] && ok || bad "only $(wc -l <"$work/names") names scraped"

python3 - "$contrib" "$work" <<'EOT' >"$work/check"
import json, re, sys
contrib, work = sys.argv[1:]
names = set(open(work + "/names").read().split())
labels = set(open(work + "/labels").read().split()) | {"instance", "job", "site", "__name__"}
used = re.compile(r"(?<![:\w])pcie_telemetry_\w+")
dash = json.load(open(contrib + "/grafana/pcie-telemetry.json"))
exprs, legends = [], []
for p in dash["panels"]:
    for t in p["targets"]:
        exprs.append(t["expr"])
        legends.append(t.get("legendFormat", ""))
exprs.append(dash["templating"]["list"][1]["query"]["query"])
files = {"dashboard": "\n".join(exprs),
         "prometheus.yml": open(contrib + "/prometheus/prometheus.yml").read(),
         "rules": open(contrib + "/prometheus/pcie-telemetry.rules.yml").read()}
for what, text in files.items():
    for n in sorted(set(used.findall(text))):
        if n not in names:
            print("not emitted: %s uses %s" % (what, n))
    for l in sorted(set(re.findall(r"\{\{\s*(?:\$labels\.)?(\w+)\s*\}\}", text + "\n".join(legends)))):
        if l not in labels:
            print("not a label: %s uses %s" % (what, l))
    for sel in re.findall(r"\{([^{}]*)\}", text):
        for l in re.findall(r"(\w+)\s*=~?", sel):
            if l not in labels:
                print("not a label in a selector: %s uses %s" % (what, l))
    for l in re.findall(r"on\(([^)]*)\)", text):
        for x in l.replace(" ", "").split(","):
            if x not in labels:
                print("not a label in on(): %s uses %s" % (what, x))
print("panels", len(dash["panels"]), "queries", len(exprs))
# every dashboard query as a recording rule, for promtool to parse
with open(work + "/dash.rules.yml", "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs[:-1]):  # the last one is Grafana's label_values()
        e = e.replace("$__rate_interval", "1m").replace("$device", ".*")
        f.write("      - record: dashboard:q%d\n        expr: %s\n" % (i, json.dumps(e)))
EOT
grep -v '^panels ' "$work/check" >"$work/problems"
[ ! -s "$work/problems" ] && ok || bad "$(head -5 "$work/problems")"
grep -q '^panels [5-9]' "$work/check" && ok || bad "dashboard: $(tail -1 "$work/check")"
for t in bus_bytes_total brake_cycles_total hist_band_cycles_total bus_stall_cycles_total; do
	grep -q "pcie_telemetry_$t" "$contrib/grafana/pcie-telemetry.json" && ok || bad "the dashboard does not show $t"
done
promtool check rules "$work/dash.rules.yml" >"$work/p" 2>&1 && ok || bad "dashboard PromQL: $(grep -v '^$' "$work/p" | tail -3)"
(cd "$contrib/prometheus" && promtool check config prometheus.yml) >"$work/p" 2>&1 && ok ||
	bad "promtool check config: $(tail -3 "$work/p")"
promtool check rules "$contrib/prometheus/pcie-telemetry.rules.yml" >"$work/p" 2>&1 && ok ||
	bad "promtool check rules: $(tail -3 "$work/p")"
# the unit's options, checked by the exporter (-V at the end acts only
# once every option before it was accepted)
args=$(sed -n 's|^ExecStart=/usr/bin/nfb-pcie-telemetry-exporter ||p' "$contrib/systemd/nfb-pcie-telemetry-exporter.service")
[ -n "$args" ] && ok || bad "no ExecStart in the unit"
# shellcheck disable=SC2086
"$exporter" $args -V >/dev/null 2>"$work/err" && ok || bad "the unit's command line: $(cat "$work/err")"
grep -q '^DynamicUser=yes' "$contrib/systemd/nfb-pcie-telemetry-exporter.service" && ok || bad "the unit is not DynamicUser"
finish
