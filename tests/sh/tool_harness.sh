# Sourced by the script tests of nfb-pcie-telemetry, after `set -u`, with
# their arguments BIN_DIR TESTS_DIR: $tool, $cases (the public report
# cases), a temporary folder $work removed at the exit, and the counters
# pass and fail with ok and bad MESSAGE.
bin=$1
data=$2
tool=$bin/nfb-pcie-telemetry
cases=$data/conformance/report
[ -x "$tool" ] || { echo "FAIL: $tool is not built"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
