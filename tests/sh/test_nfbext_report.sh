#!/usr/bin/env bash
# nfb-pcie-telemetry through libnfb-ext-pcie-telemetry.so, loaded as
# libnfb loads it (-d libnfb-ext:PATH.so:ARGS, src/bus/nfbext.c):
#   - the .so exports the two symbols of the libnfb extension ABI alone;
#   - every public report case through ...:image:NAME.regs gives what
#     -d image:NAME.regs gives, byte for byte (status, stdout, one stderr
#     line for the failing ones); -i picks among several files;
#   - a simulated card through ...:sim:PRESET has the layout of
#     -d sim:PRESET (numbers masked, text and JSON), and -t 1 on it shows
#     the 400 MHz PCIe clock of a wall-clock interval (less the lag the
#     daemon reports).
# Usage: test_nfbext_report.sh BIN_DIR TESTS_DIR
set -u
. "$(dirname "$0")/nfbext_env.sh"
run() { timeout 60 "$@" </dev/null; }

# 1. the exported symbols
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
[ "$syms" = "libnfb_ext_abi_version libnfb_ext_get_ops " ] && pass || fail symbols "exports: $syms"

# 2. every report case, image: against libnfb-ext:...:image:
for argfile in "$cases"/*.args; do
	name=$(basename "$argfile" .args)
	read -r -a args <"$argfile" || true
	(cd "$cases" && run "$tool" -d "image:$name.regs" "${args[@]}") >"$tmp/a.out" 2>"$tmp/a.err"
	ra=$?
	(cd "$cases" && run "$tool" -d "libnfb-ext:$so:image:$name.regs" "${args[@]}") >"$tmp/b.out" 2>"$tmp/b.err"
	rb=$?
	if [ "$ra" != "$rb" ]; then
		fail "$name" "status $rb through the extension, $ra with image: ($(head -c 200 "$tmp/b.err"))"
	elif ! cmp -s "$tmp/a.out" "$tmp/b.out"; then
		fail "$name" "stdout differs: $(diff "$tmp/a.out" "$tmp/b.out" | head -3 | tr '\n' '|')"
	elif [ "$rb" != 0 ] && { [ -s "$tmp/b.out" ] || [ "$(wc -l <"$tmp/b.err")" != 1 ]; }; then
		fail "$name" "a failure must be one stderr line and no stdout: $(head -c 200 "$tmp/b.err" | tr '\n' '|')"
	else
		pass
	fi
done

# 3. several files: -i selects the component, in the order of the files
(cd "$cases" && run "$tool" -d image:four_ep_wide.regs -t 1) >"$tmp/a.out" 2>&1
(cd "$cases" && run "$tool" -d "libnfb-ext:$so:image:basic_t1.regs,four_ep_wide.regs" -i 1 -t 1) >"$tmp/b.out" 2>&1
cmp -s "$tmp/a.out" "$tmp/b.out" && pass || fail "-i 1" "$(diff "$tmp/a.out" "$tmp/b.out" | head -3 | tr '\n' '|')"
(cd "$cases" && run "$tool" -d "libnfb-ext:$so:image:basic_t1.regs,four_ep_wide.regs" -i 2 -t 1) >"$tmp/b.out" 2>"$tmp/b.err"
[ $? = 1 ] && grep -q "no PCIe telemetry component with index 2.*2 found" "$tmp/b.err" && pass ||
	fail "-i 2" "$(cat "$tmp/b.err")"

# 4. the simulated card: the layout of -d sim:PRESET
# numbers, and the cells that are '-' or null for want of traffic, are N
mask() {
	sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/null/N/g; s/-{2,}/--/g; s/ +/ /g
		s/(^| )-( |$)/\1N\2/g; s/(^| )-( |$)/\1N\2/g; s/(N )+N/N/g' "$1"
}
for p in "" :idle :tx-4K :link-down :two-endpoints; do
	js=
	[ -z "$p" ] && js=-j # JSON for the default card only
	for j in "" $js; do
		run "$tool" -d "sim$p" -t 0.05 $j >"$tmp/a.out" 2>"$tmp/a.err"
		ra=$?
		run "$tool" -d "libnfb-ext:$so:sim$p" -t 0.05 $j >"$tmp/b.out" 2>"$tmp/b.err"
		rb=$?
		if [ $ra != 0 ] || [ $rb != 0 ]; then
			fail "sim$p $j" "status $ra / $rb: $(head -c 300 "$tmp/a.err" "$tmp/b.err" | tr '\n' '|')"
		elif ! diff <(mask "$tmp/a.out") <(mask "$tmp/b.out") >"$tmp/d"; then
			fail "sim$p $j" "layout differs: $(head -4 "$tmp/d" | tr '\n' '|')"
		else
			pass
		fi
	done
	"$bin/ptsimd" stop "sim$p" >/dev/null
done

# 5. the clock line of a one-second wall interval: 400 MHz on a card that
# keeps up with the wall clock; on a slower machine 400 MHz times the
# share of real time the card runs at (its simulated time over its
# uptime, from ptsimd status around the run)
field() { sed -n "s/^$1=//p" "$tmp/st"; }
run "$tool" -d "libnfb-ext:$so:sim:idle" -t 0 >/dev/null 2>&1 # the card starts
"$bin/ptsimd" status sim:idle >"$tmp/st"
s0=$(field simtime) u0=$(field uptime)
run "$tool" -d "libnfb-ext:$so:sim:idle" -t 1 >"$tmp/b.out" 2>"$tmp/b.err"
rb=$?
"$bin/ptsimd" status sim:idle >"$tmp/st"
s1=$(field simtime) u1=$(field uptime)
mhz=$(sed -n 's/^  PCIe clock \([0-9.]*\) MHz.*/\1/p' "$tmp/b.out")
if [ $rb != 0 ] || [ -z "$mhz" ] || [ -z "$s0" ] || [ -z "$s1" ]; then
	fail clock "status $rb, clock '$mhz', status '$s0' '$s1': $(head -c 200 "$tmp/b.err")"
else
	verdict=$(awk -v m="$mhz" -v s0="$s0" -v s1="$s1" -v u0="$u0" -v u1="$u1" 'BEGIN {
		f = (s1 - s0) / (u1 - u0); want = 400 * f; d = m - want; if (d < 0) d = -d
		printf "%s clock %.1f MHz over a 1 s wall interval; the card ran at %.3f of real time: %.1f MHz expected\n",
			d <= 400 * 0.05 ? "ok" : "bad", m, f, want }')
	echo "$verdict"
	case $verdict in ok*) pass ;; *) fail clock "$verdict" ;; esac
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
