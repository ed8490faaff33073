#!/usr/bin/env bash
# The simulated card through the command: every preset reports, a scenario
# file works, bad presets and bad files fail with one line naming them.
# Usage: test_env_sim.sh BIN_DIR TESTS_DIR
set -u
bin=$1/nfb-pcie-telemetry
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

presets="idle rx-line-rate tx-64B tx-1500B tx-4K mixed tags-starved completion-space-starved slow-dma-consumer link-down two-endpoints"
for p in $presets; do
  if ! "$bin" -d "sim:$p" -t 0.001 >"$tmp/out" 2>"$tmp/err"; then
    err "$p: exit status $?: $(cat "$tmp/err")"; continue
  fi
  [ -s "$tmp/err" ] && err "$p: wrote to stderr: $(cat "$tmp/err")"
  grep -q "^PCIe endpoint 0" "$tmp/out" || err "$p: no endpoint section"
  grep -q "LOST DELTAS\|READ-OUT OVERRUN" "$tmp/out" && err "$p: warning in the report"
  # one simulated millisecond: the clocks come out within a drain period
  grep -Eq "^  PCIe clock (39[0-9]|40[0-9])\.[0-9] MHz, DMA clock (19[0-9]|20[0-9])\.[0-9] MHz" "$tmp/out" ||
    err "$p: clocks not derived from simulated time: $(grep '^  PCIe clock' "$tmp/out")"
done

# what each preset is about shows in its report
"$bin" -d sim:link-down -t 0.001 | grep -q "^Link  *DOWN" || err "link-down: Link DOWN missing"
"$bin" -d sim:tags-starved -t 0.002 | grep -Eq "no free PCIe tag +[1-9][0-9]\.[0-9]+ %" ||
  err "tags-starved: no free PCIe tag not above 10 %"
"$bin" -d sim:two-endpoints -t 0.001 | grep -q "^PCIe endpoint 1" || err "two-endpoints: endpoint 1 missing"
"$bin" -d sim:completion-space-starved -t 0.002 | grep -Eq "no room for completions +[5-9][0-9]\.[0-9]+ %" ||
  err "completion-space-starved: no room for completions below 50 %"

# plain sim and a scenario file on top of a preset
"$bin" -d sim -t 0.001 >/dev/null 2>&1 || err "plain sim failed"
printf '[card]\nbase = tags-starved\n[endpoint]\next_tag = yes\n' >"$tmp/ok.ini"
"$bin" -d "sim:$tmp/ok.ini" -t 0.001 | grep -q "Extended tag (8-bit) *on" || err "scenario file not applied"

# errors: one line on stderr naming what is wrong, nothing on stdout
check_error() { # DEVICE NEEDLE
  if "$bin" -d "$1" -t 0.001 >"$tmp/out" 2>"$tmp/err"; then err "$1: accepted"; return; fi
  [ -s "$tmp/out" ] && err "$1: wrote to stdout"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || err "$1: not one line: $(cat "$tmp/err")"
  grep -qF -- "$2" "$tmp/err" || err "$1: message does not name '$2': $(cat "$tmp/err")"
}
check_error sim:no-such-preset "no-such-preset"
printf '[endpoint]\nmps = 256\nmrrs = 3000\n' >"$tmp/bad.ini"
check_error "sim:$tmp/bad.ini" "$tmp/bad.ini:3:"
printf '[dma]\nreed_gbps = 3\n' >"$tmp/bad2.ini"
check_error "sim:$tmp/bad2.ini" "reed_gbps"
check_error "sim:$tmp/missing.ini" "$tmp/missing.ini"

exit $fail
