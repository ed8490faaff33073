#!/bin/bash
# The VHDL VHPIDIRECT binding (hdl/vhdl) under GHDL (llvm backend): every
# conformance vector through ptm_trace_tb gives what ptmodel gives and the
# expected output, the MI scoreboard agrees with every golden read and
# catches a wrong one, and a broken trace is one error line.
# Usage: test_hdl_ghdl.sh BIN_DIR TESTS_DIR
HDL_TARGET=ghdl
HDL_TOOL=ghdl-llvm
# shellcheck source=hdl_common.sh
. "$(dirname "$0")/hdl_common.sh"
TB=$BUILD/hdl/ghdl/ptm_trace_tb
# Under AddressSanitizer: GHDL's own runtime never frees a few blocks.
export LSAN_OPTIONS="suppressions=$SRC/hdl/vhdl/tb/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

hdl_probe() {
	timeout 120 "$TB" -gMODE=probe -gTRACE="$1"
}

# GHDL prints the scoreboard's reports on stdout, after the output's END.
hdl_component() {
	local rc
	timeout 120 "$TB" -gMODE=component -gTRACE="$1" ${2:+-gEXPECTED="$2"} > "$TMP/ghdl.out"
	rc=$?
	sed -n '1,/^END$/p' "$TMP/ghdl.out"
	sed '1,/^END$/d' "$TMP/ghdl.out" >&2
	return $rc
}

hdl_main
