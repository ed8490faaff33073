#!/usr/bin/env bash
# The command line of ptsimd (man/ptsimd.1): every bad command, option or
# value is a usage error (exit status 2) of one line on stderr naming it,
# with nothing on stdout and no card started; --idle takes what
# $PT_NFBEXT_IDLE takes (a NaN made a card that never ended); the options
# come in any order; what was printed must reach standard output; stop
# and status create no runtime folder.  A DEVICE that names no card that
# can run (not sim, an unknown preset, a missing, unreadable or bad
# scenario file) is a run-time error: status 1, or 64 + errno under start
# --exit-errno, one line naming it.
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
usage "'--exit-errno': not an option of run" run --exit-errno sim:idle
usage "'--idle': not an option of stop" stop --idle 5 sim:idle
usage "'--exit-errno': not an option of status" status --exit-errno
usage "expected one DEVICE" start --exit-errno
usage "expected one DEVICE or --all" stop
# an argument too many is named
usage "'sim:idle': expected one DEVICE" stop sim sim:idle
usage "'sim': expected at most one DEVICE" status sim:idle sim
usage "'sim:idle': no DEVICE with --all" stop --all sim:idle
usage "'--idle': the options come before the DEVICE" start sim:idle --idle 5
usage "'--all': the options come before the DEVICE" stop sim:idle --all

# refused RC TEXT ARGS...: status RC, nothing on stdout, one line holding TEXT
refused() {
	local want=$1 what=$2
	shift 2
	timeout 20 "$simd" "$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	local rc=$?
	if [ $rc -eq "$want" ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] &&
		grep -qF -- "ptsimd: $what" "$tmp/e"; then
		pass
	else
		fail "ptsimd $* (status $want)" "rc $rc, stdout $(wc -c <"$tmp/o") bytes, stderr: $(head -c 300 "$tmp/e" | tr '\n' '|')"
	fi
}
printf '[card]\nbase = nosuch\n' >"$tmp/bad.ini"
mkdir "$tmp/dir.ini"
# errno: ENOENT 2, EISDIR 21, EINVAL 22
for cmd in start run; do
	refused 1 "$tmp/missing.ini: cannot open scenario file" $cmd "sim:$tmp/missing.ini"
	refused 1 "$tmp/bad.ini" $cmd "sim:$tmp/bad.ini"
	refused 1 "$tmp/dir.ini" $cmd "sim:$tmp/dir.ini"
	refused 1 "sim:nosuch: no such preset" $cmd sim:nosuch
	refused 1 "foo: not a simulated card" $cmd foo
	PT_NFBEXT_IDLE=x refused 1 "PT_NFBEXT_IDLE=x: expected seconds" $cmd sim:idle
done
refused 66 "$tmp/missing.ini: cannot open scenario file" start --exit-errno "sim:$tmp/missing.ini"
refused 86 "$tmp/bad.ini" start --exit-errno "sim:$tmp/bad.ini"
refused 85 "$tmp/dir.ini" start --exit-errno "sim:$tmp/dir.ini"
refused 66 "sim:nosuch: no such preset" start --exit-errno sim:nosuch
refused 86 "foo: not a simulated card" start --exit-errno foo
PT_NFBEXT_IDLE=x refused 86 "PT_NFBEXT_IDLE=x: expected seconds" start --exit-errno sim:idle
mkdir -m 0755 "$tmp/open"
PT_NFBEXT_DIR=$tmp/open refused 77 "$tmp/open: the runtime folder belongs to" start --exit-errno sim:idle
PT_NFBEXT_DIR=$tmp/open refused 1 "$tmp/open: the runtime folder belongs to" start sim:idle
for cmd in stop status; do
	refused 1 "foo: not a simulated card" $cmd foo
	PT_NFBEXT_DIR=$tmp/open refused 1 "$tmp/open: the runtime folder belongs to" $cmd sim:idle
done
# stop and status only look: a missing runtime folder means no card, and
# they do not create it (start does)
for args in "status" "status sim:idle" "stop --all" "stop sim:idle"; do
	# shellcheck disable=SC2086
	PT_NFBEXT_DIR=$tmp/none timeout 20 "$simd" $args >"$tmp/o" 2>"$tmp/e"
	rc=$?
	case $args in "status sim:idle") want=3 ;; *) want=0 ;; esac
	case $args in *sim:idle) out="sim:idle: not running" ;; *) out="" ;; esac
	[ $rc -eq $want ] && [ "$(cat "$tmp/o")" = "$out" ] && [ ! -s "$tmp/e" ] && [ ! -e "$tmp/none" ] &&
		pass || fail "ptsimd $args without a runtime folder" "rc $rc, stdout '$(cat "$tmp/o")', stderr '$(cat "$tmp/e")', folder $(ls -d "$tmp/none" 2>&1)"
done
# stop and status do not use $PT_NFBEXT_IDLE
PT_NFBEXT_IDLE=x "$simd" stop --all >"$tmp/o" 2>&1 && PT_NFBEXT_IDLE=x "$simd" status >>"$tmp/o" 2>&1 &&
	[ ! -s "$tmp/o" ] && pass || fail "stop, status with a bad PT_NFBEXT_IDLE" "$(head -c 300 "$tmp/o")"
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
# --idle on the command line: $PT_NFBEXT_IDLE, only its default, is not read
"$simd" stop sim:idle >/dev/null 2>&1
PT_NFBEXT_IDLE=x timeout 30 "$simd" start --idle 6 sim:idle >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 0 ] && "$simd" status sim:idle | grep -qx 'idle=6' && pass ||
	fail "--idle with a bad PT_NFBEXT_IDLE" "rc $rc: $(head -c 300 "$tmp/e")"

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

# a card ended by SIGTERM (run) says so in its log, as one ended by stop or
# by its idle time does
timeout 30 "$simd" run --idle 0 sim:idle 2>"$tmp/run.log" &
run=$!
for _ in $(seq 200); do
	"$simd" status sim:idle >/dev/null 2>&1 && break
	sleep 0.05
done
kill -TERM $run
wait $run
rc=$?
[ $rc -eq 0 ] && tail -1 "$tmp/run.log" | grep -qx 'ptsimd\[[0-9]*\]: ended by a signal (SIGINT or SIGTERM)' && pass ||
	fail "run ended by SIGTERM" "rc $rc, log: $(head -c 300 "$tmp/run.log" | tr '\n' '|')"

echo "test_ptsimd_options: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
