#!/usr/bin/env bash
# The command line of ptsimd (man/ptsimd.1): every bad command, option or
# value is a usage error (exit status 2) of one line on stderr naming it,
# with nothing on stdout and no card started; --idle takes what
# $PT_NFBEXT_IDLE takes (a NaN made a card that never ended); the options
# come in any order; what was printed must reach standard output.
#
# Usage: test_ptsimd_options.sh BIN_DIR TESTS_DIR
set -u
. "$(dirname "$0")/nfbext_env.sh"
simd=$bin/ptsimd

# usage TEXT ARGS...: status 2, nothing on stdout, one line holding TEXT
usage() {
	local what=$1
	shift
	timeout 20 "$simd" "$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	local rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] &&
		grep -qF -- "ptsimd: $what" "$tmp/e"; then
		pass
	else
		fail "ptsimd $*" "rc $rc, stdout $(wc -c <"$tmp/o") bytes, stderr: $(head -c 300 "$tmp/e" | tr '\n' '|')"
	fi
}

usage "missing command: start, run, stop or status"
usage "unknown command 'foo': expected start, run, stop or status" foo
for v in nan inf -inf 1e7 -1 '' x 5s; do
	usage "--idle $v: expected seconds, a number from 0 to 1000000" start --idle "$v" sim:idle
done
usage "--idle (missing): expected seconds" start --idle
usage "unknown option '--bogus'" start --bogus sim:idle
usage "unknown option '-x'" run -x sim:idle
# an echoed argument stays on its line
usage 'unknown command '"'"'a\x0Ab'"'" $'a\nb'
usage '--idle 1\x0A2: expected seconds' start --idle $'1\n2' sim:idle
# none of them left a card behind
"$simd" status >"$tmp/o" 2>&1
[ ! -s "$tmp/o" ] && pass || fail "no card" "a refused start left: $(head -c 300 "$tmp/o" | tr '\n' '|')"

# --exit-errno before --idle, and the last --idle winning
timeout 30 "$simd" start --exit-errno --idle 7 --idle 5 sim:idle >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/o" ] && [ ! -s "$tmp/e" ] && pass ||
	fail "options in any order" "rc $rc: $(head -c 300 "$tmp/e")"
"$simd" status sim:idle | grep -qx 'idle=5' && pass ||
	fail "last --idle" "$("$simd" status sim:idle 2>&1 | tr '\n' '|')"

# a full standard output is a failure
if [ -w /dev/full ]; then
	for args in -h --version "status sim:idle" "status"; do
		# shellcheck disable=SC2086
		"$simd" $args >/dev/full 2>"$tmp/e"
		rc=$?
		[ $rc -eq 1 ] && grep -q '^ptsimd: cannot write to standard output' "$tmp/e" && pass ||
			fail "$args >/dev/full" "rc $rc, stderr: $(cat "$tmp/e")"
	done
	"$bin/ptmodel" --help >/dev/full 2>"$tmp/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q '^ptmodel: cannot write to standard output' "$tmp/e" && pass ||
		fail "ptmodel --help >/dev/full" "rc $rc, stderr: $(cat "$tmp/e")"
	"$bin/ptmodel" -V >/dev/full 2>"$tmp/e"
	[ $? -eq 1 ] && pass || fail "ptmodel -V >/dev/full" "status 0"
fi
"$simd" stop sim:idle >/dev/null 2>&1

echo "test_ptsimd_options: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
