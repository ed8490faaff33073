#!/usr/bin/env bash
# `ptsimd stop` and at once `start` (the manual's reset) or `run`: a fresh
# card serves, and `status` right after `stop` says "not running".  The
# daemon that ends still holds the card's lock a moment after `stop`
# returns (it closes the card last): `start` took it for a daemon that
# starts the card, exited 0 and left no card (one time in two on
# sim:tx-4K), `run` said a daemon served the card already, and the socket
# outlived the clients' connections.
#
# Usage: test_ptsimd_restart.sh BIN_DIR TESTS_DIR
set -u
. "$(dirname "$0")/nfbext_env.sh"
simd=$bin/ptsimd
dev=sim:tx-4K
show() { head -c 300 "$@" | tr '\n' '|'; }

timeout 30 "$simd" start $dev || fail start "ptsimd start $dev"
# stop() K: ptsimd stop, which must say it stopped the card
stop() {
	"$simd" stop $dev >"$tmp/o" 2>"$tmp/e"
	grep -qx "$dev: stopped (pid [0-9]*)" "$tmp/o" && pass ||
		fail "stop $1" "$(show "$tmp/o" "$tmp/e")"
}
# start K: ptsimd start, after which the card serves
start() {
	timeout 30 "$simd" start $dev 2>"$tmp/e"
	local rc=$? st
	"$simd" status $dev >"$tmp/o" 2>&1
	st=$?
	[ $rc -eq 0 ] && [ $st -eq 0 ] && grep -qx "key=$dev" "$tmp/o" && pass ||
		fail "start after stop $1" "start rc $rc, status rc $st: $(show "$tmp/o" "$tmp/e")"
}
for k in 1 2 3 4 5 6 7 8; do
	stop $k
	start $k
done
for k in 1 2 3; do
	stop $k
	"$simd" status $dev >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ $rc -eq 3 ] && grep -qx "$dev: not running" "$tmp/o" && [ ! -s "$tmp/e" ] && pass ||
		fail "status after stop $k" "rc $rc: $(show "$tmp/o" "$tmp/e")"
	start $k
done

# run after stop serves the card until it is stopped, then exits 0
for k in 1 2 3; do
	"$simd" stop $dev >/dev/null 2>&1
	timeout 60 "$simd" run --idle 30 $dev 2>"$tmp/run.log" &
	run=$!
	up=0
	for _ in $(seq 200); do
		kill -0 $run 2>/dev/null || break
		"$simd" status $dev >/dev/null 2>&1 && up=1 && break
		sleep 0.05
	done
	"$simd" stop $dev >/dev/null 2>&1
	wait $run
	rc=$?
	[ $up -eq 1 ] && [ $rc -eq 0 ] && pass ||
		fail "run after stop $k" "served $up, rc $rc: $(show "$tmp/run.log")"
	[ $k -lt 3 ] && timeout 30 "$simd" start $dev
done

echo "test_ptsimd_restart: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
