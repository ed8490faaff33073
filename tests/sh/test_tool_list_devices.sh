#!/usr/bin/env bash
# nfb-pcie-telemetry --list-devices against a fake sysfs tree
# (PT_SYSFS_ROOT): the PCI functions of CESNET cards (vendor 0x18ec) and
# nothing else, with their IDs, driver and memory BARs and the pci: string
# to use; the string it prints, completed with the component's offset,
# reads the component in the fake BAR like image: reads its registers.
# Without libnfb the NFB part says the build has none.  --list-presets
# names exactly the presets of --help.
#
# Usage: test_tool_list_devices.sh BIN_DIR TESTS_DIR
set -u
. "$(dirname "$0")/tool_harness.sh" "$@"
. "$(dirname "$0")/regs_bin.sh"

# fn ADDR VENDOR DEVICE [DRIVER]: a PCI function under the fake root
sys=$work/sys
fn() {
	local d=$sys/devices/pci0000:00/$1
	mkdir -p "$d" "$sys/bus/pci/devices"
	echo "$2" >"$d/vendor"
	echo "$3" >"$d/device"
	echo 0x18ec >"$d/subsystem_vendor"
	echo 0x0001 >"$d/subsystem_device"
	ln -s "../../../devices/pci0000:00/$1" "$sys/bus/pci/devices/$1"
	if [ -n "${4:-}" ]; then
		mkdir -p "$sys/bus/pci/drivers/$4"
		ln -s "../../../bus/pci/drivers/$4" "$d/driver"
	fi
}
fn 0000:03:00.0 0x18ec 0xc400 nfb
fn 0000:03:00.1 0x18ec 0xc401
fn 0000:00:1f.0 0x8086 0x1234 lpc_ich
fn 0001:81:00.0 0x18ec 0xc000 vfio-pci
d0=$sys/devices/pci0000:00/0000:03:00.0
# BAR 0: 1 MiB of memory, BAR 2: 16 KiB; the component at 0x8000 of BAR 0
printf '0x00000000fb000000 0x00000000fb0fffff 0x0000000000040200\n0x0000000000000000 0x0000000000000000 0x0000000000000000\n0x00000000fc000000 0x00000000fc003fff 0x0000000000040200\n' >"$d0/resource"
for i in 3 4 5; do echo "0x0000000000000000 0x0000000000000000 0x0000000000000000" >>"$d0/resource"; done
first_image basic_t1 "$work/basic.regs"
to_bin "$work/basic.regs" "$d0/resource0" 32768 1048576
head -c 16384 /dev/zero >"$d0/resource2"

PT_SYSFS_ROOT=$sys "$tool" --list-devices >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err" ] && ok || bad "--list-devices: rc $rc, stderr $(cat "$work/err")"
grep -q "vendor 0x18ec, $sys/bus/pci/devices" "$work/out" && ok || bad "the sysfs root is not named"
grep -Eq '^  pci:0000:03:00\.0 +18ec:c400 +18ec:0001 +nfb +0: 1 MiB, 2: 16 KiB$' "$work/out" && ok ||
	bad "03:00.0 line: $(grep 03:00.0 "$work/out")"
grep -Eq '^  pci:0000:03:00\.1 +18ec:c401 +18ec:0001 +- +none$' "$work/out" && ok ||
	bad "03:00.1 line: $(grep 03:00.1 "$work/out")"
grep -Eq '^  pci:0001:81:00\.0 +18ec:c000 .* vfio-pci ' "$work/out" && ok || bad "domain 0001 missing"
grep -q '1f.0\|8086' "$work/out" && bad "a function of another vendor is listed" || ok
# in address order
[ "$(grep -o 'pci:[0-9a-f:.]*' "$work/out" | head -3 | tr '\n' ' ')" = "pci:0000:03:00.0 pci:0000:03:00.1 pci:0001:81:00.0 " ] &&
	ok || bad "order: $(grep -o 'pci:[0-9a-f:.]*' "$work/out" | tr '\n' ' ')"
grep -q -- '-d pci:0000:03:00.0@OFFSET' "$work/out" && grep -q 'nfb-bus -l' "$work/out" &&
	grep -q 'docs/hardware.md' "$work/out" && ok || bad "no hint how to use the function"
if "$tool" --version | grep -q "libnfb backend not built"; then
	grep -q 'this build has no libnfb' "$work/out" && ok || bad "no word that libnfb is missing"
fi

# the printed string plus the offset reads the component in the BAR
dev=$(sed -n 's/.*Use -d \(pci:[^@]*\)@OFFSET.*/\1/p' "$work/out")
PT_SYSFS_ROOT=$sys "$tool" -d "$dev@0x8000" -t 0 >"$work/got" 2>"$work/err"
"$tool" -d "image:$work/basic.regs" -t 0 >"$work/want" 2>/dev/null
cmp -s "$work/got" "$work/want" && ok || bad "-d $dev@0x8000 differs from image: ($(head -1 "$work/err"))"
PT_SYSFS_ROOT=$sys "$tool" -d "$dev/2@0x0" -t 0 >/dev/null 2>"$work/err"
grep -q 'do not fit' "$work/err" && ok || bad "a 16 KiB BAR 2 is not refused: $(cat "$work/err")"

# no sysfs at all, no CESNET card
PT_SYSFS_ROOT=$work/none "$tool" --list-devices >"$work/out" 2>&1 && grep -A1 '^PCI functions' "$work/out" |
	grep -q '^  none$' && ok || bad "an empty root: $(cat "$work/out")"

# --list-presets: the names of --help's preset table, in its order
"$tool" --list-presets >"$work/presets" 2>"$work/err" && [ ! -s "$work/err" ] && [ -s "$work/presets" ] &&
	ok || bad "--list-presets failed"
"$tool" --help | sed -n '/^Presets of the simulated card/,$p' | sed -n 's/^  \([^ ]*\) .*/\1/p' >"$work/help"
cmp -s "$work/presets" "$work/help" && ok || bad "--list-presets differs from --help: $(diff "$work/presets" "$work/help" | head -3)"

echo "test_tool_list_devices: $pass passed, $fail failed"
[ $fail -eq 0 ]
