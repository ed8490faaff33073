#!/usr/bin/env bash
# Whole-command conformance of nfb-pcie-telemetry against the golden
# outputs of the upstream tool (tests/conformance/report/).
#
# Usage: test_report_conformance.sh BIN_DIR TESTS_DIR
#
# For every case NAME (NAME.args present) it runs, from the case folder,
#   BIN_DIR/nfb-pcie-telemetry -d image:NAME.regs ARGS
# and checks:
#   NAME.rc == 0: exit status 0 and stdout byte-identical to NAME.mod.out
#                 when it exists (counter wrap cases), else NAME.out;
#   NAME.rc != 0: exit status non-zero, empty stdout, exactly one line on
#                 stderr.
# One line per failing case with a diff excerpt ("<" got, ">" expected), then "N passed, N failed";
# exit status 1 when any case failed.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 BIN_DIR TESTS_DIR" >&2
	exit 2
fi
bin=$(cd "$1" 2>/dev/null && pwd) || { echo "$0: no such folder: $1" >&2; exit 2; }
cases=$2/conformance/report
[ -d "$cases" ] || { echo "$0: no such folder: $cases" >&2; exit 2; }
cases=$(cd "$cases" && pwd)
tool=$bin/nfb-pcie-telemetry

if [ ! -x "$tool" ]; then
	# every case fails, the must-fail ones too: nothing was tested
	n=$(find "$cases" -maxdepth 1 -name '*.args' | wc -l)
	echo "FAIL all: $tool is missing or not executable"
	echo "0 passed, $n failed"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/report-conf.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0

# The first lines that differ, folded into one line.
excerpt() {
	local d
	d=$(diff "$1" "$2")
	printf 'line %s: %s' "$(printf '%s\n' "$d" | head -1 | sed 's/[acd,].*//')" \
		"$(printf '%s\n' "$d" | grep -E '^[<>]' | head -4 | cut -c1-150 | tr '\n' '|' | sed 's/|$//')"
}

fail() {
	failed=$((failed + 1))
	printf 'FAIL %s: %s\n' "$1" "$2"
}

shopt -s nullglob
for argfile in "$cases"/*.args; do
	name=$(basename "$argfile" .args)
	read -r -a args <"$argfile" || true
	want_rc=$(tr -d ' \t\r\n' <"$cases/$name.rc" 2>/dev/null)
	if [ -z "$want_rc" ]; then
		fail "$name" "missing $name.rc"
		continue
	fi
	out=$tmp/$name.stdout
	err=$tmp/$name.stderr
	(cd "$cases" && exec "$tool" -d "image:$name.regs" "${args[@]}") >"$out" 2>"$err" </dev/null
	rc=$?
	if [ "$rc" -eq 126 ] || [ "$rc" -eq 127 ]; then
		fail "$name" "could not run the command: $(head -c 200 "$err" | tr '\n' ' ')"
		continue
	fi
	if [ "$rc" -ge 128 ]; then
		fail "$name" "killed by signal $((rc - 128)): $(head -c 200 "$err" | tr '\n' ' ')"
		continue
	fi
	if [ "$want_rc" != 0 ]; then
		nlines=$(wc -l <"$err")
		# a last line without LF still counts as a line
		if [ -s "$err" ] && [ "$(tail -c 1 "$err" | od -An -c | tr -d ' ')" != '\n' ]; then
			nlines=$((nlines + 1))
		fi
		if [ "$rc" -eq 0 ]; then
			fail "$name" "must fail, but exit status is 0"
		elif [ -s "$out" ]; then
			fail "$name" "must fail with empty stdout, got: $(head -c 120 "$out" | tr '\n' '|')"
		elif [ "$nlines" -ne 1 ]; then
			fail "$name" "must print exactly one line on stderr, got $nlines: $(head -c 200 "$err" | tr '\n' '|')"
		else
			passed=$((passed + 1))
		fi
		continue
	fi
	want=$cases/$name.out
	[ -f "$cases/$name.mod.out" ] && want=$cases/$name.mod.out
	if [ "$rc" -ne "$want_rc" ]; then
		fail "$name" "exit status $rc, expected $want_rc; stderr: $(head -c 200 "$err" | tr '\n' ' ')"
	elif ! cmp -s "$out" "$want"; then
		fail "$name" "stdout differs from $(basename "$want"): $(excerpt "$out" "$want")"
	else
		passed=$((passed + 1))
	fi
done

if [ $((passed + failed)) -eq 0 ]; then
	echo "no case found in $cases"
	exit 1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
