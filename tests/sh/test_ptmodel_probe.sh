#!/bin/bash
# ptmodel probe: every probe golden vector byte for byte (expected file
# without its comment lines), and broken traces: exit status 2, exactly one
# line "ptmodel: FILE:LINE: ..." on stderr, nothing on stdout.
# Usage: test_ptmodel_probe.sh BIN_DIR TESTS_DIR
set -u
BIN=$1/ptmodel
DATA=$2/conformance/probe
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
n=0

for t in "$DATA"/*.trace; do
	name=$(basename "$t" .trace)
	grep -v '^#' "$DATA/$name.expected" > "$TMP/want"
	if ! "$BIN" probe "$t" > "$TMP/got" 2> "$TMP/err"; then
		echo "FAIL $name: exit status $?: $(cat "$TMP/err")"
		fail=1
	elif ! cmp -s "$TMP/want" "$TMP/got"; then
		echo "FAIL $name: output differs:"
		diff "$TMP/want" "$TMP/got" | head -5
		fail=1
	elif [ -s "$TMP/err" ]; then
		echo "FAIL $name: stderr not empty: $(cat "$TMP/err")"
		fail=1
	fi
	n=$((n + 1))
done
[ "$n" -ge 13 ] || { echo "FAIL: only $n probe vectors found in $DATA"; fail=1; }

# standard input
if ! "$BIN" probe - < "$DATA/p01_r1_one_bus.trace" | cmp -s - <(grep -v '^#' "$DATA/p01_r1_one_bus.expected"); then
	echo "FAIL: probe - (stdin)"
	fail=1
fi

# A broken copy of p02: replace line LINE by TEXT (or delete it when TEXT is
# empty), expect "ptmodel: FILE:LINE': WHAT".
broken() {
	local line=$1 text=$2 eline=$3 what=$4 f="$TMP/broken.trace"
	if [ -z "$text" ]; then
		sed "${line}d" "$DATA/p02_r2_two_bus.trace" > "$f"
	else
		awk -v l="$line" -v t="$text" 'NR == l { print t; next } { print }' \
			"$DATA/p02_r2_two_bus.trace" > "$f"
	fi
	"$BIN" probe "$f" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	local lines
	lines=$(wc -l < "$TMP/err")
	if [ "$rc" -ne 2 ]; then
		echo "FAIL broken line $line ($what): exit status $rc, expected 2"
		fail=1
	elif [ -s "$TMP/out" ]; then
		echo "FAIL broken line $line ($what): stdout not empty"
		fail=1
	elif [ "$lines" -ne 1 ]; then
		echo "FAIL broken line $line ($what): $lines lines on stderr"
		fail=1
	elif ! grep -qF "ptmodel: $f:$eline: " "$TMP/err" || ! grep -qF "$what" "$TMP/err"; then
		echo "FAIL broken line $line: got '$(cat "$TMP/err")', expected '$f:$eline: ...$what'"
		fail=1
	fi
}

# p02 header: lines 1-3 comments, 4 PROBE_TRACE ... 13 BEGIN, body from 14
hdr=$(grep -n '^BEGIN' "$DATA/p02_r2_two_bus.trace" | cut -d: -f1)
first=$((hdr + 1))
last=$(wc -l < "$DATA/p02_r2_two_bus.trace")
broken 5 "BUSES 3" 7 "field 'REGION_ITEMS'"
broken 7 "REGION_ITEMS 8" 7 "BUSES is 2"
broken 9 "BRAKES x" 9 "field 'BRAKES'"
broken 10 "DRAIN_PERIOD 100" 10 "power of two"
broken 11 "CYCLES 0" "$first" "exceeds CYCLES 0"
broken "$first" "1 3 0 0 0 0 0 0 0 0 2 0 0" "$first" "13 fields"
broken "$first" "1 10 0 0 0 0 0 0 0 0 2 0" "$first" "field 'sof'"
broken "$first" "1 0 0 1000 0 0 0 0 0 0 2 0" "$first" "field 'eof_pos'"
broken "$first" "1 0 0 0 4 0 0 0 0 0 2 0" "$first" "field 'src_rdy'"
broken "$first" "R 4" "$first" "repeat before the first data line"
broken "$last" "" "$((last - 1))" "missing END"

# usage errors
"$BIN" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] || { echo "FAIL: no command: rc $rc"; fail=1; }
"$BIN" frobnicate x > /dev/null 2> "$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown command 'frobnicate'" "$TMP/err" || { echo "FAIL: bad command: rc $rc"; fail=1; }
"$BIN" --bogus > /dev/null 2> "$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option" "$TMP/err" || { echo "FAIL: bad option: rc $rc"; fail=1; }
"$BIN" probe > /dev/null 2> "$TMP/err"; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: probe without FILE: rc $rc"; fail=1; }
"$BIN" probe "$TMP/does-not-exist" > "$TMP/out" 2> "$TMP/err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q "does-not-exist" "$TMP/err" || { echo "FAIL: missing file: rc $rc"; fail=1; }
"$BIN" --help > "$TMP/out" 2>&1 && grep -q "ptmodel probe FILE" "$TMP/out" || { echo "FAIL: --help"; fail=1; }
"$BIN" -V > "$TMP/out" 2>&1 && grep -Eq '^ptmodel [0-9]+\.[0-9]+' "$TMP/out" || { echo "FAIL: -V"; fail=1; }

[ $fail -eq 0 ] && echo "ok: $n probe vectors, broken traces and usage errors"
exit $fail
