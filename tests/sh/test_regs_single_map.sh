#!/bin/bash
# One register map: outside include/pcie_telemetry/regs.h and its tables in
# src/regs/, nothing in src/, tools/ or plugins/ spells the magic, the version word,
# a register offset or a bit of the MI decode, and no renderer spells a
# label of the BRAKE reasons or histograms.  Each pattern is an idiom the
# code used before the map existed; a match prints FILE:LINE (comment
# lines are not code and may name anything).
# Usage: test_regs_single_map.sh BIN_DIR TESTS_DIR
set -u
ROOT=$(cd "$2/.." && pwd)
fail=0

check() { # what, extended regex, folders...
	local what=$1 re=$2
	shift 2
	local hits
	hits=$(cd "$ROOT" && grep -rnEi --include='*.c' --include='*.h' -e "$re" "$@" |
		grep -v '^src/regs/' | grep -Ev '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)')
	if [ -n "$hits" ]; then
		echo "FAIL: $what:"
		echo "$hits"
		fail=1
	fi
}

[ -f "$ROOT/include/pcie_telemetry/regs.h" ] || { echo "FAIL: no regs.h under $ROOT"; exit 1; }
check "the magic outside regs.h" '50544C4D' src tools plugins
check "the VERSION word outside regs.h" '0x0*20000u?\b' src tools plugins
check "a register, command or status constant defined outside regs.h" \
	'#define[[:space:]]+[A-Z_]*(MAGIC|REG_[A-Z_]+|CMD_[A-Z_]+|STATUS_[A-Z_]+|CNT_BASE)[[:space:]]+(0x|[0-9])' src tools plugins
check "the MI address decoded by hand" '(>>[[:space:]]*[26]\)?[[:space:]]*&[[:space:]]*(0x)?(3|f|3f)\b)|&[[:space:]]*0x8000\b' src/model src/reader src/layout src/bus src/render tools plugins
check "a register offset turned into an index by hand" 'PT_REG_[A-Z_]+[[:space:]]*/[[:space:]]*4' src tools plugins
check "a bus access at a literal offset" 'pt_bus_(read32|write32|read_block)\([^,]+,[[:space:]]*0x' src tools plugins
check "a configuration field cut by hand" 'cfg\[[^]]*\][[:space:]]*(>>|&)' src tools plugins
check "a report label of regs.h spelled in a renderer" \
	'"(no free PCIe tag|PCIe tag not ready|no room for completions|MFB stalled towards DMA|PCIe endpoint not ready|PCIe tags|PTC storage FIFO words|<=1/8|<=1/2)"' src/render

[ $fail -eq 0 ] && echo "PASS: one register map"
exit $fail
