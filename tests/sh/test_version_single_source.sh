#!/bin/bash
# The version comes from one place: project(VERSION) in CMakeLists.txt,
# through the generated version.h.  Both commands print it, and no source
# file spells it.
# Usage: test_version_single_source.sh BIN_DIR TESTS_DIR
set -u
BIN=$1
ROOT=$(cd "$2/.." && pwd)
fail=0

want=$(sed -n 's/^project(pcie_telemetry VERSION \([0-9][0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
[ -n "$want" ] || { echo "FAIL: no project(VERSION) in $ROOT/CMakeLists.txt"; exit 1; }
for cmd in nfb-pcie-telemetry ptmodel; do
	got=$("$BIN/$cmd" -V 2>&1 | head -1)
	case "$got" in
	"$cmd $want"|"$cmd $want "*) ;;
	*) echo "FAIL: $cmd -V says '$got', CMakeLists.txt says $want"; fail=1 ;;
	esac
done
hits=$(cd "$ROOT" && grep -rnF --include='*.c' --include='*.h' "\"$want\"" include src tools)
if [ -n "$hits" ]; then
	echo "FAIL: the version spelled in a source file:"
	echo "$hits"
	fail=1
fi
[ $fail -eq 0 ] && echo "PASS: version $want from CMakeLists.txt"
exit $fail
