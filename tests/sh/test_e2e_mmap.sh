#!/usr/bin/env bash
# The PCI BAR code path end to end: an image of a conformance case laid
# out as the component's 64 KiB in a regular file, read with
# -d mmap:FILE[@OFFSET] (pci: maps sysfs resource files through the very
# same code), gives the report of -d image: for the same registers.  A
# dump is never changed (issue 8: the mapping is private); with ,rw the
# tool's COMMAND writes land in the file.
#
# Usage: test_e2e_mmap.sh BIN_DIR TESTS_DIR
set -u
# tool, cases, work, ok, bad
. "$(dirname "$0")/tool_harness.sh" "$@"

# first_image, to_bin: a case's registers as a component's memory
. "$(dirname "$0")/regs_bin.sh"

for c in basic_t1 four_ep_wide two_ep_two_ports huge_totals_64 flags_both_totals link_down_ep1; do
	first_image "$c" "$work/$c.regs"
	to_bin "$work/$c.regs" "$work/$c.bin" 0 65536
	"$tool" -d "image:$work/$c.regs" -t 0 >"$work/want" 2>&1
	"$tool" -d "mmap:$work/$c.bin" -t 0 >"$work/got" 2>&1
	cmp -s "$work/want" "$work/got" && ok || { bad "$c: mmap report differs"; diff "$work/want" "$work/got" | head -4; }
	"$tool" -d "mmap:$work/$c.bin" -t 0 -j >"$work/got" 2>&1
	"$tool" -d "image:$work/$c.regs" -t 0 -j >"$work/want" 2>&1
	cmp -s "$work/want" "$work/got" && ok || bad "$c: mmap JSON differs"
done

# the component at an offset that is not page aligned, inside a larger file
to_bin "$work/basic_t1.regs" "$work/off.bin" 0 65536
{ head -c 4100 /dev/zero; cat "$work/off.bin"; head -c 300 /dev/zero; } >"$work/big.bin"
"$tool" -d "image:$work/basic_t1.regs" -t 0 >"$work/want"
"$tool" -d "mmap:$work/big.bin@0x1004" -t 0 >"$work/got" 2>&1
cmp -s "$work/want" "$work/got" && ok || bad "component at 0x1004: $(head -1 "$work/got")"
# an interval on a device that does not change: every difference is 0,
# and the measured time is about the requested one
"$tool" -d "mmap:$work/big.bin@1004" -t 0.2 -j >"$work/got" 2>&1
sec=$(sed -n 's/^ *"seconds": \([0-9.e-]*\),$/\1/p' "$work/got")
awk -v s="$sec" 'BEGIN { exit !(s >= 0.2 && s < 0.5) }' && ok || bad "-t 0.2 measured '$sec' s"
grep -q '"pcie_cycles": 0,' "$work/got" && ok || bad "-t 0.2: counters did not cancel"

# a dump is never changed, whatever the command writes (SNAPSHOT, clears)
sum=$(sha256sum <"$work/big.bin")
"$tool" -d "mmap:$work/big.bin@0x1004" -c >"$work/got" 2>&1
grep -qx "Counters cleared." "$work/got" && ok || bad "-c on a dump: $(cat "$work/got")"
timeout 20 "$tool" -d "mmap:$work/big.bin@0x1004" -t 0.01 -w >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
[ "$(sha256sum <"$work/big.bin")" = "$sum" ] && ok || bad "mmap: changed the dump"

# with ,rw the COMMAND writes reach the device: the last one of -t 0.2 is
# SNAPSHOT, of -c the full clear
cmd() { od -A n -t u4 -j $((4100 + 0x20)) -N 4 "$work/big.bin" | tr -d ' '; }
"$tool" -d "mmap:$work/big.bin@0x1004,rw" -t 0.2 >/dev/null
[ "$(cmd)" = 1 ] && ok || bad "COMMAND after a reading is $(cmd), expected 1"
"$tool" -d "mmap:$work/big.bin@0x1004,rw" -c >/dev/null
[ "$(cmd)" = 14 ] && ok || bad "COMMAND after -c is $(cmd), expected 14"
"$tool" -d "mmap:$work/big.bin,rw@0x1004" -c >"$work/got" 2>&1
[ $? -eq 1 ] && grep -q "bad offset '0x1004'\|cannot open" "$work/got" && ok ||
	bad "',rw' before the offset: $(cat "$work/got")"

echo "test_e2e_mmap: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
