#!/usr/bin/env bash
# Metrics in nfb-pcie-telemetry (docs/metrics.md): --list for the default
# layout and for a device's, -M by instance, family, group and pattern
# (values equal to the upstream report's cells), -M with -w (one table
# per interval), --metric-file (user metrics over built-in ones, every bad
# file a usage error naming FILE:LINE), and the option combinations that
# are refused.  Every error: one line, status 2, nothing on stdout.
#
# Usage: test_tool_metrics.sh BIN_DIR TESTS_DIR
set -u
# tool, cases, work, ok, bad
. "$(dirname "$0")/tool_harness.sh" "$@"

# run ARGS...: status in rc, output in $work/out, errors in $work/err
run() {
	"$tool" "$@" >"$work/out" 2>"$work/err"
	rc=$?
}

# usage_error WANT ARGS...: status 2, nothing printed, one line naming WANT
usage_error() {
	local want=$1
	shift
	run "$@"
	if [ "$rc" -eq 2 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
		grep -qF -- "$want" "$work/err"; then
		ok
	else
		bad "$* -> rc $rc, stdout $(wc -c <"$work/out") bytes, stderr: $(cat "$work/err")"
	fi
}

# value NAME: the value column of metric NAME in $work/out
value() {
	awk -v n="$1" '$1 == n { print $2 }' "$work/out"
}

expect_value() {
	local name=$1 want=$2 got
	got=$(value "$name")
	[ "$got" = "$want" ] && ok || bad "-M $name: '$got', the report says '$want'"
}

# ---- --list ------------------------------------------------------------

run --list
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
	[ "$(head -n 1 "$work/out")" = "Counters of this layout (docs/counters.md):" ] &&
	grep -q "^Metrics of this layout (docs/metrics.md):$" "$work/out"; then ok; else bad "--list: rc $rc"; fi
# the default layout: 48 counters, and every built-in instance of it
n=$(awk '/^Counters/ { c = 1; next } /^$/ { c = 0 } c && /^ep/' "$work/out" | wc -l)
[ "$n" -eq 48 ] && ok || bad "--list: $n counters, the default layout has 48"
grep -Eq "^ep0\.rq\.words +words +endpoint 0, PTC -> PCIe \(RQ\)" "$work/out" && ok || bad "--list: ep0.rq.words"
grep -Eq "^ep0\.rq\.words_pct +% +Share of the bus's clock cycles" "$work/out" && ok || bad "--list: ep0.rq.words_pct"
grep -q "^ep[0-9.a-z]*corrected" "$work/out" && bad "--list: the default layout has no padded bus" || ok

run --list -d "image:$cases/two_ep_two_ports.regs"
[ "$rc" -eq 0 ] && grep -q "^ep1.up1.rd_pct " "$work/out" && grep -q "^ep1.down1.region1_cycles " "$work/out" &&
	ok || bad "--list -d two_ep_two_ports: rc $rc"
run --list -d "image:$cases/padding_regions.regs"
[ "$rc" -eq 0 ] && grep -q "^ep0.rc.corrected_gbps " "$work/out" && grep -q "^ep0.down0.overstatement_pct " "$work/out" &&
	ok || bad "--list -d padding_regions: no correction listed"

# ---- -M: the report's figures -------------------------------------------

run -d "image:$cases/basic_t1.regs" -t 1 -M "ep0.rq.words_pct,{bus}.gbps,clock,ep*.*.mpps,{up}.rd_pct,ep0.rq.avg_bytes,ep0.rq.used_pct,ep0.rq.region1_pct"
[ "$rc" -eq 0 ] && [ ! -s "$work/err" ] && ok || bad "-M on basic_t1: rc $rc $(cat "$work/err")"
head -n 3 "$work/out" | tail -n 1 | grep -q "^Measured over 1.00 s$" && ok || bad "-M: no interval line"
# the cells of basic_t1.out
expect_value ep0.rq.words_pct 24.31
expect_value ep0.rq.used_pct 19.20
expect_value ep0.rq.region1_pct 16.1
expect_value ep0.rq.gbps 23.51
expect_value ep0.rq.mpps 18.368
expect_value ep0.rq.avg_bytes 160
expect_value ep0.pcie_clock_mhz 400.0
n=$(grep -c "\.gbps " "$work/out")
[ "$n" -eq 4 ] && ok || bad "-M {bus}.gbps: $n rows, 4 buses"
n=$(grep -c "\.mpps " "$work/out")
[ "$n" -eq 4 ] && ok || bad "-M ep*.*.mpps: $n rows"
grep -q "^ep0.up0.rd_pct " "$work/out" && ok || bad "-M {up}.rd_pct"
# in set order, each once
order=$(awk '/^ep/ { print $1 }' "$work/out" | tr '\n' ' ')
case "$order" in
"ep0.pcie_clock_mhz ep0.dma_clock_mhz ep0.rq.used_pct ep0.rq.words_pct ep0.rq.region1_pct ep0.rq.gbps "*) ok ;;
*) bad "-M order: $order" ;;
esac

# totals: no rates
run -d "image:$cases/totals_t0.regs" -t 0 -M ep0.rq.gbps,ep0.rq.words_pct
[ "$rc" -eq 0 ] && [ "$(value ep0.rq.gbps)" = "-" ] && grep -q "^Totals since the last clear$" "$work/out" &&
	ok || bad "-M -t 0: $(cat "$work/out")"
# zero cycles: the dash and a note naming the division
run -d "image:$cases/zero_cycles.regs" -t 1 -M ep0.rq.words_pct
[ "$rc" -eq 0 ] && [ "$(value ep0.rq.words_pct)" = "-" ] &&
	grep -q "^note: metric 'ep0.rq.words_pct': position 21: division by zero (ep0.rq.cycles is 0)$" "$work/out" &&
	ok || bad "-M on zero_cycles: $(cat "$work/out")"

# -w: one table per interval, an empty line after each, as the reports
head -n 1 "$cases/basic_t1.regs" >"$work/p3.regs"
for k in 0 1 2; do
	awk -v k="$k" 'NR == 1 { next } /^@snapshot/ { printf "@snapshot %.3f\n", $2 + 1000 * k; next } { print }' \
		"$cases/basic_t1.regs" >>"$work/p3.regs"
done
run -d "image:$work/p3.regs" -t 1 -w -M ep0.rq.words_pct
n=$(grep -c "^ep0.rq.words_pct  *24.31  *%$" "$work/out")
[ "$rc" -eq 1 ] && [ "$n" -eq 3 ] && [ "$(grep -c '^$' "$work/out")" -eq 6 ] && grep -q "SNAPSHOT" "$work/err" &&
	ok || bad "-M -w: rc $rc, $n tables"

# ---- --metric-file --------------------------------------------------------

cat >"$work/mine.json" <<'EOF'
[
  {
    "MetricName": "{bus}.idle_pct",
    "MetricExpr": "100.0 - {bus}.words_pct",
    "BriefDescription": "Share of the bus's clock cycles without a word",
    "ScaleUnit": "%",
    "MetricGroup": "mine"
  }
]
EOF
run -d "image:$cases/basic_t1.regs" -t 1 --metric-file "$work/mine.json" -M mine
[ "$rc" -eq 0 ] && [ "$(value ep0.rq.idle_pct)" = "75.69" ] && ok || bad "--metric-file: $(cat "$work/out" "$work/err")"
run --list --metric-file "$work/mine.json"
grep -Eq "^ep0.down0.idle_pct +% +Share of the bus's clock cycles without a word$" "$work/out" && ok ||
	bad "--list --metric-file"
# the report itself does not change with a metric file
run -d "image:$cases/basic_t1.regs" -t 1 --metric-file "$work/mine.json"
cmp -s "$work/out" "$cases/basic_t1.out" && ok || bad "the report changed with --metric-file"

printf '[{"MetricName": "x",\n  "MetricExpr": "2 * ep0.rq.wrods", "BriefDescription": "d"}]\n' >"$work/unknown.json"
usage_error "--metric-file: $work/unknown.json:2: metric 'x': position 5: unknown name 'ep0.rq.wrods'" \
	-d "image:$cases/basic_t1.regs" -t 1 --metric-file "$work/unknown.json"
printf '[{"MetricName": "x", "MetricExpr": "1 +", "BriefDescription": "d"}' >"$work/broken.json"
usage_error "--metric-file: $work/broken.json:1: bad JSON" --list --metric-file "$work/broken.json"
printf '[{"MetricName": "x", "MetricExpr": "1 +", "BriefDescription": "d"}]' >"$work/syntax.json"
usage_error "--metric-file: $work/syntax.json:1: metric 'x': position 4: expected a number" \
	--list --metric-file "$work/syntax.json"
printf '[{"MetricName": "a", "MetricExpr": "b", "BriefDescription": "d"},\n {"MetricName": "b", "MetricExpr": "a", "BriefDescription": "d"}]' >"$work/cycle.json"
usage_error "metric 'a': a cycle: a -> b -> a" --list --metric-file "$work/cycle.json"
usage_error "--metric-file: $work/none.json: cannot open the metric file" --list --metric-file "$work/none.json"
usage_error "--metric-file: $work: cannot read the metric file: it is a folder" --list --metric-file "$work"
many=()
for k in $(seq 17); do many+=(--metric-file "$work/mine.json"); done
usage_error "--metric-file: at most 16 files" --list "${many[@]}"

# ---- refused ----------------------------------------------------------------

usage_error "-M: metric 'ep0.rq.wrods': no such metric, family, group or matching instance" \
	-d "image:$cases/basic_t1.regs" -t 1 -M ep0.rq.words_pct,ep0.rq.wrods
usage_error "-M: metric 'ep0.down0.corrected_gbps': no such metric" \
	-d "image:$cases/basic_t1.regs" -t 1 -M ep0.down0.corrected_gbps
usage_error "-M: metric '': an empty name" -d "image:$cases/basic_t1.regs" -M "clock,,bus"
usage_error "-M prints metrics, -j the raw counters" -d "image:$cases/basic_t1.regs" -M clock -j
usage_error "--list prints the names and exits: without -M" --list -M clock
usage_error "--list prints the names and exits: without -c" --list -c
usage_error "-M: empty metric list" -M ""

# ---- --help ----------------------------------------------------------------------

run --help
grep -q -- "-M, --metrics NAME,..." "$work/out" && grep -q -- "--metric-file FILE" "$work/out" &&
	grep -q -- "--list " "$work/out" && ok || bad "--help does not show the metric options"

echo "test_tool_metrics: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
