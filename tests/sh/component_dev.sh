# Sourced by the tests/sh scripts that need a component behind mmap:.
# shellcheck shell=bash

# mkdev FILE STATUS: 64 KiB laid out as a component with the basic
# layout (1 endpoint, 1 DMA port, 48-bit counters) and STATUS as given.
mkdev() {
	local f=$1 status=$2 off val
	head -c 65536 /dev/zero >"$f"
	while read -r off val; do
		printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((val & 255)) $((val >> 8 & 255)) \
			$((val >> 16 & 255)) $((val >> 24 & 255)))" |
			dd of="$f" bs=1 seek=$((off)) conv=notrunc status=none
	done <<EOT
0x00 0x50544C4D
0x04 0x00020000
0x08 0x00020101
0x0C 0x30300040
0x10 0x0E02021F
0x14 0x00020211
0x18 0x00041000
0x1C 0x8000
0x24 $status
0x2C 0x02020202
0x30 0x00200020
0x34 0x0204
0x38 0x04000100
0x3C 0x00200020
EOT
}
