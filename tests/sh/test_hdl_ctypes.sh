#!/bin/bash
# The ctypes declarations of hdl/python (what a cocotb testbench uses):
# every component vector driven edge by edge from Python through
# libpcie-telemetry-model.so gives exactly what ptmodel gives, and its
# reads equal the expected ones under their masks; bad generics are one
# error line.
# Usage: test_hdl_ctypes.sh BIN_DIR TESTS_DIR
HDL_SCOREBOARD=0
# shellcheck source=hdl_common.sh
. "$(dirname "$0")/hdl_common.sh"
ensure_tool python3
export PTM_LIB=$BUILD/lib/libpcie-telemetry-model.so PYTHONDONTWRITEBYTECODE=1
[ -f "$PTM_LIB" ] || { echo "FAIL: $PTM_LIB is not built (target pt_model_shared)"; exit 1; }
# A library built with AddressSanitizer needs its runtime loaded first
# into Python (only there); Python itself is not leak-free.
py=(python3)
case " ${PT_SAN_FLAGS:-} " in
*-fsanitize=*address*)
	rt=$("${PT_CC:-cc}" -print-file-name=libclang_rt.asan-x86_64.so)
	[ -f "$rt" ] || rt=$("${PT_CC:-cc}" -print-file-name=libasan.so)
	py=(env LD_PRELOAD="$rt" ASAN_OPTIONS=detect_leaks=0 python3)
	;;
esac

hdl_component() {
	"${py[@]}" "$SRC/hdl/python/ptm_component_trace.py" "$1"
}

check_vectors
sed 's/^CNT_WIDTH .*/CNT_WIDTH 7/' "$TESTS/conformance/component/c01_basic_1ep.trace" > "$TMP/bad.trace"
hdl_component "$TMP/bad.trace" > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ $rc -ne 2 ] || [ -s "$TMP/out" ] || [ "$(wc -l < "$TMP/err")" -ne 1 ] ||
	! grep -q "CNT_WIDTH=7" "$TMP/err"; then
	echo "FAIL: bad generics: exit $rc: $(cat "$TMP/err")"
	fail=1
fi
[ $fail -eq 0 ] && echo "ok: every component vector through the ctypes binding"
exit $fail
