#!/usr/bin/env bash
# The command line of nfb-pcie-telemetry beyond the error cases: help and
# version, long forms and abbreviations (as argparse allows), the mode
# rule of -t (0 is totals, a negative value is refused), -c
# winning over -t and -j, the last of a repeated option winning.
#
# Usage: test_tool_options.sh BIN_DIR TESTS_DIR
set -u
# tool, cases, work, ok, bad
. "$(dirname "$0")/tool_harness.sh" "$@"
img=image:$cases/basic_t1.regs

# same_as WANT_FILE ARGS...: exit 0, stdout equal to WANT_FILE, nothing on
# stderr but notes (-c on an image notes that nothing was cleared)
same_as() {
	local want=$1
	shift
	"$tool" "$@" >"$work/out" 2>"$work/err"
	local rc=$?
	if [ $rc -eq 0 ] && cmp -s "$work/out" "$want" && ! grep -qv '^nfb-pcie-telemetry: note: ' "$work/err"; then
		ok
	else
		bad "$* : rc $rc, stdout $(cmp -s "$work/out" "$want" && echo same || echo differs), stderr: $(head -2 "$work/err")"
	fi
}

for h in -h --help --he; do
	"$tool" $h >"$work/out" 2>"$work/err"
	[ $? -eq 0 ] && [ ! -s "$work/err" ] && grep -q '^Usage: nfb-pcie-telemetry' "$work/out" &&
		grep -q 'image:FILE' "$work/out" && grep -q 'pci:DOMAIN:BUS:DEV.FN\[/BAR\]@OFFSET' "$work/out" &&
		grep -q -- '--record FILE' "$work/out" && ok || bad "$h"
done
"$tool" -V >"$work/out" 2>&1
[ $? -eq 0 ] && grep -Eq '^nfb-pcie-telemetry [0-9]+\.[0-9]+\.[0-9]+ ' "$work/out" && ok || bad "-V: $(cat "$work/out")"
"$tool" --version | grep -q 'libnfb backend' && ok || bad "--version"

same_as "$cases/basic_t1.out" -d "$img" -t 1
same_as "$cases/basic_t1.out" --device "$img" --interval 1
same_as "$cases/basic_t1.out" --device="$img" --interval=0.25
same_as "$cases/basic_t1.out" --dev "$img" --int 3 # abbreviations
same_as "$cases/basic_t1.out" -d "$img" -t 0 -t 1e-3 # the last one wins
same_as "$cases/basic_t1.out" -d "$img" -i 0 -t 1
same_as "$cases/basic_t1.out" -d "$img" -i +0 -t 1
same_as "$cases/basic_t1.out" -d "$img" -t1
same_as "$cases/basic_t1.out" -d"$img" # default interval: 1 s
"$tool" -d "$img" -t 0 >"$work/totals"
same_as "$work/totals" -d "$img" -t 0.0
same_as "$work/totals" -d "$img" -t -0
same_as "$cases/clear.out" -d "$img" -c
same_as "$cases/clear.out" -d "$img" -c -j -t 5
same_as "$cases/clear.out" --clear --json -d "$img"

# a negative interval is refused (issue 8): a usage error, nothing printed
for t in -2.5 -1 -1e-9 -inf; do
	"$tool" -d "$img" -t "$t" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
		grep -q "^nfb-pcie-telemetry: -t '$t': " "$work/err" && ok ||
		bad "-t $t: rc $rc, stderr $(cat "$work/err")"
done
grep -q "^nfb-pcie-telemetry: -t '-1': a negative interval (use -t 0 for the totals" <("$tool" -d "$img" -t -1 2>&1) &&
	ok || bad "-t -1: the message does not say what to use instead"
"$tool" -d "$img" -j -t 0 >"$work/out" 2>/dev/null
grep -q '"seconds": null' "$work/out" && ok || bad "-j -t 0 is not totals"

echo "test_tool_options: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
