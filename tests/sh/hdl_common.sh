# Sourced by test_hdl_verilator.sh and test_hdl_ghdl.sh: build one HDL
# testbench of hdl/ once (installing the simulator from Debian when it is
# missing), then run every conformance vector under tests/conformance/
# through it.  The sourcing script sets HDL_TARGET (the hdl/Makefile
# target), HDL_TOOL (a command the simulator provides) and defines
#   hdl_probe TRACE                 output on stdout, exit status
#   hdl_component TRACE [EXPECTED]  output on stdout, the scoreboard's
#                                   lines on stderr, exit status
# and then calls hdl_main.  A probe vector must print exactly its expected
# file (without comments) and exactly what ptmodel prints; a component
# vector exactly what ptmodel prints, its reads equal to the expected ones
# under their masks, and the scoreboard must agree on every read.
# Usage of the tests: test_hdl_*.sh BIN_DIR TESTS_DIR
# shellcheck shell=bash
set -u
BIN=$1
TESTS=$2
SRC=$(cd "$TESTS/.." && pwd)
BUILD=$(cd "$BIN/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
# ctest may run under make: its jobserver is not ours.
unset MAKEFLAGS MFLAGS MAKELEVEL

# Install the test packages when TOOL is missing.
ensure_tool() {
	command -v "$1" > /dev/null && return
	echo "$1 not found: installing the test packages (scripts/install-deps.sh --test)"
	if ! bash "$SRC/scripts/install-deps.sh" --test > "$TMP/deps.log" 2>&1; then
		cat "$TMP/deps.log"
		echo "FAIL: cannot install $1"
		exit 1
	fi
}

hdl_build() {
	ensure_tool "$HDL_TOOL"
	if [ ! -f "$BUILD/lib/libpcie-telemetry-model.so" ]; then
		echo "FAIL: $BUILD/lib/libpcie-telemetry-model.so is not built (target pt_model_shared)"
		exit 1
	fi
	local t0=$SECONDS
	if ! make -C "$SRC/hdl" "$HDL_TARGET" O="$BUILD/hdl" LIBDIR="$BUILD/lib" \
		CC="${PT_CC:-gcc}" SAN="${PT_SAN_FLAGS:-}" > "$TMP/build.log" 2>&1; then
		cat "$TMP/build.log"
		echo "FAIL: building the $HDL_TARGET testbench"
		exit 1
	fi
	echo "$HDL_TARGET testbench built in $((SECONDS - t0)) s"
}

# The first keyword of a trace: PROBE_TRACE or COMPONENT_TRACE.
trace_kind() {
	awk '{ sub(/#.*/, "") } NF { print $1; exit }' "$1"
}

# check_run KIND TRACE NAME [EXPECTED]: the testbench exits 0 and prints
# exactly what ptmodel prints; its output in $TMP/got, stderr in $TMP/err.
check_run() {
	local kind=$1 t=$2 name=$3 rc
	"hdl_$kind" "$t" "${4:-}" > "$TMP/got" 2> "$TMP/err"
	rc=$?
	"$BIN/ptmodel" "$kind" "$t" > "$TMP/ref" 2> /dev/null
	if [ $rc -ne 0 ]; then
		echo "FAIL $name: exit status $rc: $(head -3 "$TMP/err")"
	elif ! cmp -s "$TMP/ref" "$TMP/got"; then
		echo "FAIL $name: differs from ptmodel:"
		diff "$TMP/ref" "$TMP/got" | head -5
	else
		return 0
	fi
	fail=1
	return 1
}

check_probe() {
	check_run probe "$1" "$2" || return
	if [ -s "$TMP/err" ]; then
		echo "FAIL $2: stderr not empty: $(head -3 "$TMP/err")"
		fail=1
	elif [ -f "${1%.trace}.expected" ] &&
		! cmp -s <(grep -v '^#' "${1%.trace}.expected") "$TMP/got"; then
		echo "FAIL $2: differs from ${1%.trace}.expected"
		fail=1
	fi
}

# With HDL_SCOREBOARD=1 the testbench's scoreboard must have checked every
# expected read.
check_component() {
	local exp=${1%.trace}.expected n msg
	[ -f "$exp" ] || exp=
	check_run component "$1" "$2" "$exp" || return
	[ -n "$exp" ] || return
	if ! msg=$(awk -f "$SRC/tests/sh/component_reads.awk" "$exp" "$TMP/got"); then
		echo "FAIL $2: $msg"
		fail=1
	elif [ "${HDL_SCOREBOARD:-1}" = 1 ]; then
		n=$(grep -c '^R ' "$exp")
		if ! grep -q ": $n reads compared, 0 mismatches, 0 unmatched" "$TMP/err"; then
			echo "FAIL $2: scoreboard: $(cat "$TMP/err")"
			fail=1
		fi
	fi
}

# Every vector, by the kind its header says.
check_vectors() {
	local t name np=0 nc=0 t0=$SECONDS
	while IFS= read -r t; do
		name=${t#"$TESTS/conformance/"}
		case $(trace_kind "$t") in
		PROBE_TRACE)
			declare -F hdl_probe > /dev/null || continue
			check_probe "$t" "$name"
			np=$((np + 1))
			;;
		COMPONENT_TRACE) check_component "$t" "$name"; nc=$((nc + 1)) ;;
		*) echo "FAIL $name: neither a probe nor a component trace"; fail=1 ;;
		esac
	done < <(find "$TESTS/conformance" -name '*.trace' | sort)
	if { declare -F hdl_probe > /dev/null && [ $np -lt 13 ]; } || [ $nc -lt 10 ]; then
		echo "FAIL: only $np probe and $nc component vectors found under $TESTS/conformance"
		fail=1
	fi
	echo "$np probe and $nc component vectors run in $((SECONDS - t0)) s"
}

# The scoreboard sees a wrong DUT read; a broken trace is one error line.
check_errors() {
	local c01=$TESTS/conformance/component/c01_basic_1ep p02=$TESTS/conformance/probe/p02_r2_two_bus
	local rc addr
	# Flip bit 0 of the first exact read of the counter window.
	awk '!done && $1 == "R" && $3 ~ /^0000[89a-f]/ && $5 == "ffffffff" {
		x = tolower(substr($4, 8, 1))
		$4 = substr($4, 1, 7) substr("1032547698badcfe", index("0123456789abcdef", x), 1)
		done = 1 } { print }' "$c01.expected" > "$TMP/bad.expected"
	addr=$(diff "$c01.expected" "$TMP/bad.expected" | grep "^>" | awk "{ print \$4 }")
	hdl_component "$c01.trace" "$TMP/bad.expected" > /dev/null 2> "$TMP/err"
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "1 mismatches" "$TMP/err" || ! grep -qi "addr $addr" "$TMP/err"; then
		echo "FAIL: a wrong DUT read of $addr: exit status $rc, scoreboard: $(head -3 "$TMP/err")"
		fail=1
	fi
	# A bad key and a short data line: exit 2, one line FILE:LINE, no stdout.
	local first
	first=$(($(grep -n '^BEGIN' "$c01.trace" | cut -d: -f1) + 1))
	awk -v l="$first" 'NR == l { print "P0 rst=1 bogus=1"; next } { print }' "$c01.trace" > "$TMP/b.trace"
	hdl_component "$TMP/b.trace" "" > "$TMP/out" 2> "$TMP/err"
	expect_error $? "$TMP/b.trace:$first: field 'bogus'"
	first=$(($(grep -n '^BEGIN' "$p02.trace" | cut -d: -f1) + 1))
	awk -v l="$first" 'NR == l { print "1 0 0 0 0 0 0 0 0 0 2"; next } { print }' "$p02.trace" > "$TMP/b.trace"
	hdl_probe "$TMP/b.trace" > "$TMP/out" 2> "$TMP/err"
	expect_error $? "$TMP/b.trace:$first: data line has 11 fields"
}

expect_error() {
	local rc=$1 what=$2
	if [ "$rc" -ne 2 ] || [ -s "$TMP/out" ] || [ "$(wc -l < "$TMP/err")" -ne 1 ] ||
		! grep -qF "$what" "$TMP/err"; then
		echo "FAIL: expected exit 2 and '$what': exit $rc, stderr: $(head -3 "$TMP/err")"
		fail=1
	fi
}

hdl_main() {
	hdl_build
	check_vectors
	check_errors
	[ $fail -eq 0 ] && echo "ok: every conformance vector through the $HDL_TARGET testbench"
	exit $fail
}
