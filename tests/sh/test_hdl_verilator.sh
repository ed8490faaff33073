#!/bin/bash
# The SystemVerilog DPI-C binding (hdl/sv) under Verilator: every
# conformance vector through ptm_trace_tb gives what ptmodel gives and the
# expected output, the MI scoreboard agrees with every golden read and
# catches a wrong one, and a broken trace is one error line.
# Usage: test_hdl_verilator.sh BIN_DIR TESTS_DIR
HDL_TARGET=verilator
HDL_TOOL=verilator
# shellcheck source=hdl_common.sh
. "$(dirname "$0")/hdl_common.sh"
TB=$BUILD/hdl/verilator/ptm_trace_tb

hdl_probe() {
	timeout 120 "$TB" +probe="$1"
}

hdl_component() {
	timeout 120 "$TB" +component="$1" ${2:++expected="$2"}
}

hdl_main
