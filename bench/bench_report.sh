#!/usr/bin/env bash
# Wall time of one whole nfb-pcie-telemetry run (process start to exit)
# that renders the basic_t1 report from its register image: the median of
# 200 runs, with hyperfine when it is installed (JSON export), else a
# plain loop.  Target: under 5 ms.
#
# Usage: bench_report.sh BIN_DIR REPO
set -euo pipefail
bin=$1
repo=$2
tool=$bin/nfb-pcie-telemetry
regs=$repo/tests/conformance/report/basic_t1.regs
if [ ! -x "$tool" ]; then
	echo "bench_report: $tool is not built" >&2
	exit 1
fi
# the run must succeed, or the figure means nothing
"$tool" -d "image:$regs" -t 1 >/dev/null

if command -v hyperfine >/dev/null 2>&1; then
	json=$(mktemp)
	trap 'rm -f "$json"' EXIT
	# the same for /bin/true: what process start alone costs on this machine
	hyperfine -N --style none --warmup 20 --runs 200 --export-json "$json" \
		"$tool -d image:$regs -t 1" "true" >/dev/null 2>&1
	tr -d ' \n' <"$json" | sed 's/"command"/\n&/g' |
		sed -n 's/.*"median":\([0-9.eE+-]*\).*/\1/p' >"$json.m"
	awk 'NR == 1 { printf "report_from_image_wall_ms %.3f ms\n", $1 * 1000 }
	     NR == 2 { printf "process_start_true_wall_ms %.3f ms\n", $1 * 1000 }' "$json.m"
	rm -f "$json.m"
else
	times=$(mktemp)
	trap 'rm -f "$times"' EXIT
	for ((i = 0; i < 200; i++)); do
		a=$(date +%s%N)
		"$tool" -d "image:$regs" -t 1 >/dev/null
		b=$(date +%s%N)
		echo $((b - a)) >>"$times"
	done
	sort -n "$times" | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "report_from_image_wall_ms %.3f ms\n", m / 1e6 }'
fi
