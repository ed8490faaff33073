#!/usr/bin/env bash
# The man pages (man/*.N, roff, one source each): every page renders with
# `man --warnings -l` and `groff -ww` without a warning; every command has
# its page, and the page and the command's --help list the same options
# (so an option added to the tool without its page fails here); the
# presets of nfb-pcie-telemetry, the public headers (pcie-telemetry(3)),
# the registers of the map (pcie-telemetry-regs(5)) and the keys of the
# scenario table (pcie-telemetry-scenario(5)) all have their entry, in the
# page and in docs/formats/.
#
# Usage: test_man_pages.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/pkg_lib.sh"
need man groff || exit 1
man=$SRC/man

# roff NAME: how a name is written in roff ("--list-devices" -> "\-\-list\-devices")
roff() { printf '%s' "$1" | sed 's/-/\\-/g'; }

for page in "$man"/*.[1-9]; do
	name=$(basename "$page")
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" >"$work/out" 2>"$work/err"
	[ $? -eq 0 ] && [ ! -s "$work/err" ] && [ -s "$work/out" ] && ok || bad "man -l $name: $(head -3 "$work/err")"
	groff -man -ww -z "$page" 2>"$work/err"
	[ ! -s "$work/err" ] && ok || bad "groff -ww $name: $(head -3 "$work/err")"
	# .TH names the page and its section
	sect=${name##*.}
	head -5 "$page" | grep -q "^\.TH $(basename "$name" ".$sect" | tr a-z A-Z) $sect " && ok || bad "$name: .TH is not $name"
done

for cmd in $(commands); do
	page=$man/$cmd.1
	[ -f "$page" ] || { bad "$cmd has no man page man/$cmd.1"; continue; }
	options "$cmd" >"$work/opts"
	[ -s "$work/opts" ] || bad "$cmd --help lists no option"
	while read -r o; do
		grep -qF -- "$(roff "$o")" "$page" && ok || bad "$cmd: option $o is not in man/$cmd.1"
	done <"$work/opts"
	# and nothing the tool does not take (options in .TP entries of OPTIONS)
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$page" | grep -A1 '^\.TP' | grep -o '\\-\\-[a-z0-9.\\-]*[a-z0-9]\|^\.BR* \\-[A-Za-z0-9]\b' |
		sed 's/^\.BR* //; s/\\-/-/g' | sort -u >"$work/documented"
	while read -r o; do
		grep -qx -- "$o" "$work/opts" && ok || bad "man/$cmd.1 documents $o, which $cmd --help does not list"
	done <"$work/documented"
done

# nfb-pcie-telemetry(1): every preset
for p in $("$BIN/nfb-pcie-telemetry" --list-presets); do
	sed -n '/^\.SH PRESETS/,/^\.SH /p' "$man/nfb-pcie-telemetry.1" | grep -qF "$(roff "$p")" && ok ||
		bad "preset $p is not in nfb-pcie-telemetry(1), PRESETS"
done

# pcie-telemetry(3): every public header
for h in "$SRC"/include/pcie_telemetry/*.h "$SRC"/include/pcie_telemetry/version.h.in; do
	h=$(basename "$h" .in)
	sed -n '/^\.SH HEADERS/,/^\.SH /p' "$man/pcie-telemetry.3" | grep -qx "\.B $h" && ok ||
		bad "header $h has no entry in pcie-telemetry(3), HEADERS"
done

# pcie-telemetry-regs(5) and docs/formats/register-image.md: every register
sed -n 's/^[[:space:]]*X(\([A-Z_]*\), 0x[0-9A-F]*, [01]).*/\1/p' "$SRC/include/pcie_telemetry/regs.h" >"$work/regs"
[ "$(wc -l <"$work/regs")" -ge 19 ] && ok || bad "the register list of regs.h was not found"
while read -r r; do
	grep -q "^\.B .* $r$" "$man/pcie-telemetry-regs.5" && ok || bad "register $r is not in pcie-telemetry-regs(5)"
	grep -q "| $r |" "$SRC/docs/formats/register-image.md" && ok || bad "register $r is not in docs/formats/register-image.md"
done <"$work/regs"

# pcie-telemetry-scenario(5) and docs/formats/scenario.md: every key
{ echo base; sed -n 's/^[[:space:]]*{ S_[A-Z]*, "\([^"]*\)",.*/\1/p' "$SRC/src/env/scenario.c"; } >"$work/keys"
[ "$(wc -l <"$work/keys")" -ge 40 ] && ok || bad "the key table of scenario.c was not found"
while read -r k; do
	grep -q "^\.BR* $(roff "$k")\b" "$man/pcie-telemetry-scenario.5" || grep -qF "$(roff "$k")" "$man/pcie-telemetry-scenario.5" &&
		ok || bad "scenario key $k is not in pcie-telemetry-scenario(5)"
	grep -qF "\`$k\`" "$SRC/docs/formats/scenario.md" && ok || bad "scenario key $k is not in docs/formats/scenario.md"
done <"$work/keys"

finish test_man_pages
