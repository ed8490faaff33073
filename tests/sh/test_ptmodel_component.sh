#!/bin/bash
# ptmodel component: every component golden vector, each R line compared
# under its mask (same reads, same order, same edges), and broken traces:
# exit status 2, exactly one line "ptmodel: FILE:LINE: ..." on stderr,
# nothing on stdout.
# Usage: test_ptmodel_component.sh BIN_DIR TESTS_DIR
set -u
BIN=$1/ptmodel
DATA=$2/conformance/component
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
n=0

# compare EXPECTED GOT: R lines pairwise, data under the mask
compare() {
	awk -f "$(dirname "$0")/component_reads.awk" "$1" "$2"
}

for t in "$DATA"/*.trace; do
	name=$(basename "$t" .trace)
	if ! "$BIN" component "$t" > "$TMP/got" 2> "$TMP/err"; then
		echo "FAIL $name: exit status $?: $(cat "$TMP/err")"
		fail=1
	elif ! head -1 "$TMP/got" | grep -qx 'COMPONENT_EXPECTED 1' || ! tail -1 "$TMP/got" | grep -qx END; then
		echo "FAIL $name: output is not framed by COMPONENT_EXPECTED 1 ... END"
		fail=1
	elif ! msg=$(compare "$DATA/$name.expected" "$TMP/got"); then
		echo "FAIL $name: $msg"
		fail=1
	elif [ -s "$TMP/err" ]; then
		echo "FAIL $name: stderr not empty: $(cat "$TMP/err")"
		fail=1
	fi
	n=$((n + 1))
done
[ "$n" -ge 10 ] || { echo "FAIL: only $n component vectors found in $DATA"; fail=1; }

# standard input gives the same answers
if ! "$BIN" component - < "$DATA/c05_regs_2ep.trace" > "$TMP/stdin" ||
	! compare "$DATA/c05_regs_2ep.expected" "$TMP/stdin" > /dev/null; then
	echo "FAIL: component - (stdin)"
	fail=1
fi

# A broken copy of c04: replace line LINE by TEXT (or delete it when TEXT is
# empty); expect exit 2, one line "ptmodel: FILE:ELINE: ...WHAT...".
SRC=$DATA/c04_read_sel_live.trace
bline=$(grep -n '^BEGIN' "$SRC" | cut -d: -f1)
last=$(wc -l < "$SRC")
broken() {
	local line=$1 text=$2 eline=$3 what=$4 f="$TMP/broken.trace"
	if [ -z "$text" ]; then
		sed "${line}d" "$SRC" > "$f"
	else
		awk -v l="$line" -v t="$text" 'NR == l { print t; next } { print }' "$SRC" > "$f"
	fi
	"$BIN" component "$f" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	local lines
	lines=$(wc -l < "$TMP/err")
	if [ "$rc" -ne 2 ]; then
		echo "FAIL broken line $line ($what): exit status $rc, expected 2: $(cat "$TMP/err")"
		fail=1
	elif [ -s "$TMP/out" ]; then
		echo "FAIL broken line $line ($what): stdout not empty"
		fail=1
	elif [ "$lines" -ne 1 ]; then
		echo "FAIL broken line $line ($what): $lines lines on stderr"
		fail=1
	elif ! grep -q "^ptmodel: .*broken.trace:$eline: .*$what" "$TMP/err"; then
		echo "FAIL broken line $line ($what): message: $(cat "$TMP/err")"
		fail=1
	fi
}
b1=$((bline + 1))
b5=$((bline + 5))
broken 4 "COMPONENT_TRACE 2" 4 "COMPONENT_TRACE"
broken 5 "PCIE_ENDPOINTS 0" 5 "PCIE_ENDPOINTS"
broken 6 "DMA_PORTS x" 6 "DMA_PORTS"
broken 7 "" 7 "PCIE_RQ_MFB_REGIONS"
broken 18 "CNT_WIDTH 32" 18 "CNT_WIDTH"
broken 19 "DRAIN_PERIOD 100" 19 "DRAIN_PERIOD"
broken "$bline" "BEGINN" "$bline" "BEGIN"
broken "$b1" "P0 rst=1 bogus=1" "$b1" "bogus"
broken "$b1" "P0 rst=2" "$b1" "rst"
broken "$b1" "P7" "$b1" "out of range"
broken "$b1" "D sof5=0" "$b1" "out of range"
broken "$b1" "M rd=0 rd=4" "$b1" "second operation"
broken "$b1" "M wr=20" "$b1" "ADDR:DATA"
broken "$b1" "M rd=xyz" "$b1" "rd address"
broken "$b1" "Q" "$b1" "unknown record"
broken "$b5" "REP 3 2" "$b5" "REP"
broken "$b1" "" "$((last - 1))" "EDGES"
broken "$last" "" "$((last - 1))" "END"

# Usage errors: exit 2, one line.
"$BIN" component > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ "$rc" -ne 2 ] || [ -s "$TMP/out" ] || [ "$(wc -l < "$TMP/err")" -ne 1 ]; then
	echo "FAIL: component without FILE: exit $rc"
	fail=1
fi
"$BIN" component "$TMP/does-not-exist" > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] || [ -s "$TMP/out" ] || [ "$(wc -l < "$TMP/err")" -ne 1 ]; then
	echo "FAIL: component on a missing file: exit $rc"
	fail=1
fi

[ "$fail" -eq 0 ] && echo "ok: $n component vectors, broken traces rejected"
exit "$fail"
