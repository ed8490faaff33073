# Sourced by the tests/sh scripts of the libnfb extension, with BIN_DIR and
# TESTS_DIR as $1 and $2: the paths (bin, cases, so, tool), a private
# runtime folder and daemon for the cards ($tmp/run, ended on exit), and
# the pass/fail counters.
# shellcheck shell=bash
bin=$(cd "$1" && pwd)
cases=$(cd "$2/conformance/report" && pwd)
so=$(cd "$bin/../lib" && pwd)/libnfb-ext-pcie-telemetry.so
tool=$bin/nfb-pcie-telemetry
tmp=$(mktemp -d /tmp/nfbext-test.XXXXXX)
export PT_NFBEXT_DIR=$tmp/run PT_NFBEXT_DAEMON=$bin/ptsimd PT_NFBEXT_IDLE=30
unset LIBNFB_DEFAULT_DEV PT_NFBEXT_MSGFD PT_NFBEXT_TIMEOUT
trap '"$bin/ptsimd" stop --all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
passed=0 failed=0
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
pass() { passed=$((passed + 1)); }
