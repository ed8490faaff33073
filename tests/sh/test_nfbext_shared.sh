#!/usr/bin/env bash
# One simulated card shared by every process that opens it through
# libnfb-ext-pcie-telemetry.so, and the errors of the extension, with
# whole nfb-pcie-telemetry commands (-d libnfb-ext:PATH.so:ARGS):
#   - `-c` in one process clears what `-t 0` in another then reads;
#   - bad device strings, a daemon that cannot be started, and a daemon
#     killed (SIGKILL) while a `-w` run is connected each give exit status
#     1, one line on stderr and nothing more, never a hang (every command
#     runs under a timeout) or a signal.
# Usage: test_nfbext_shared.sh BIN_DIR TESTS_DIR
set -u
. "$(dirname "$0")/nfbext_env.sh"
now() { awk '{print $1}' /proc/uptime; }
cycles() { sed -n 's/.*"pcie_cycles": \([0-9]*\).*/\1/p' "$1" | head -1; }
dev=libnfb-ext:$so:sim:idle

# 1. -c in one process, -t 0 in another
"$bin/ptsimd" start sim:idle || fail start "ptsimd start sim:idle failed"
# let the card count for a while (0.2 simulated seconds; less on a slow
# machine, after 10 s)
for _ in $(seq 100); do
	"$bin/ptsimd" status sim:idle | awk -F= '$1 == "simtime" && $2 + 0 >= 0.2 { ok = 1 } END { exit !ok }' && break
	sleep 0.1
done
timeout 30 "$tool" -d "$dev" -t 0 -j >"$tmp/before" 2>&1
t_clear=$(now)
out=$(timeout 30 "$tool" -d "$dev" -c 2>&1)
[ "$out" = "Counters cleared." ] && pass || fail clear "-c printed: $out"
timeout 30 "$tool" -d "$dev" -t 0 -j >"$tmp/after" 2>&1
t_after=$(now)
c0=$(cycles "$tmp/before") c1=$(cycles "$tmp/after")
if [ -z "$c0" ] || [ -z "$c1" ]; then
	fail shared "no pcie_cycles: $(head -c 200 "$tmp/before" "$tmp/after" | tr '\n' '|')"
else
	verdict=$(awk -v a="$c0" -v b="$c1" -v t0="$t_clear" -v t1="$t_after" 'BEGIN {
		since = b / 400e6; wall = t1 - t0
		printf "%s before the clear %.3f s of cycles, after it %.3f s (%.3f s of wall time since)\n",
			(b < a && since <= wall + 0.05) ? "ok" : "bad", a / 400e6, since, wall }')
	echo "$verdict"
	case $verdict in ok*) pass ;; *) fail shared "$verdict" ;; esac
fi

# 2. errors: status 1, nothing on stdout, one line on stderr naming the cause
must_fail() { # what, expected text, command...
	local what=$1 want=$2
	shift 2
	timeout 30 "$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	local rc=$?
	if [ $rc != 1 ]; then
		fail "$what" "exit status $rc (expected 1): $(head -c 300 "$tmp/e" | tr '\n' '|')"
	elif [ -s "$tmp/o" ] || [ "$(wc -l <"$tmp/e")" != 1 ]; then
		fail "$what" "stdout $(wc -c <"$tmp/o") bytes, stderr: $(head -c 300 "$tmp/e" | tr '\n' '|')"
	elif ! grep -qF -- "$want" "$tmp/e"; then
		fail "$what" "stderr lacks '$want': $(cat "$tmp/e")"
	else
		pass
	fi
}
must_fail "no library" "no extension library named" "$tool" -d libnfb-ext: -t 0
must_fail "missing library" "/nonexistent/x.so" "$tool" -d libnfb-ext:/nonexistent/x.so:sim -t 0
must_fail "not an extension" "not a libnfb extension" "$tool" -d libnfb-ext:libc.so.6:sim -t 0
must_fail "empty rest" "not a device of this extension" "$tool" -d "libnfb-ext:$so:" -t 0
must_fail "unknown kind" "'bogus': not a device of this extension" "$tool" -d "libnfb-ext:$so:bogus" -t 0
must_fail "unknown preset" "sim:nosuch: no such preset" "$tool" -d "libnfb-ext:$so:sim:nosuch" -t 0
must_fail "missing scenario" "/nonexistent.ini: cannot open scenario file" "$tool" -d "libnfb-ext:$so:sim:/nonexistent.ini" -t 0
must_fail "empty image" "empty file name" "$tool" -d "libnfb-ext:$so:image:" -t 0
must_fail "missing image" "/nonexistent.regs: cannot open" "$tool" -d "libnfb-ext:$so:image:/nonexistent.regs" -t 0
must_fail "bad image" "basic_t1.args:1:" "$tool" -d "libnfb-ext:$so:image:$cases/basic_t1.args" -t 0
PT_NFBEXT_DAEMON=/nonexistent/ptsimd must_fail "missing daemon" \
	"cannot start the simulated card's daemon /nonexistent/ptsimd" "$tool" -d "libnfb-ext:$so:sim:tx-4K" -t 0
PT_NFBEXT_TIMEOUT=x must_fail "bad timeout" "PT_NFBEXT_TIMEOUT=x" "$tool" -d "$dev" -t 0
# the old form of an extension string (the library name holds libnfb-ext-)
(cd "$cases" && timeout 30 "$tool" -d "$so:image:basic_t1.regs" -t 1) >"$tmp/o" 2>&1
cmp -s "$tmp/o" "$cases/basic_t1.out" && pass || fail "old form" "$(head -c 200 "$tmp/o")"

# 3. the daemon killed while a -w run reads it
timeout 60 "$tool" -d "$dev" -w -t 0.2 >"$tmp/o" 2>"$tmp/e" </dev/null &
wpid=$!
for _ in $(seq 100); do grep -q "Measured over" "$tmp/o" 2>/dev/null && break; sleep 0.1; done
dpid=$("$bin/ptsimd" status sim:idle | sed -n 's/^pid=//p')
if [ -z "$dpid" ]; then
	fail killed "no daemon pid: $("$bin/ptsimd" status 2>&1 | tr '\n' '|')"
	kill "$wpid"
else
	kill -9 "$dpid"
fi
wait "$wpid"
rc=$?
if [ $rc != 1 ]; then
	fail killed "the -w run ended with status $rc (expected 1): $(head -c 300 "$tmp/e" | tr '\n' '|')"
elif [ "$(wc -l <"$tmp/e")" != 1 ] || ! grep -q "closed the connection" "$tmp/e"; then
	fail killed "stderr: $(head -c 400 "$tmp/e" | tr '\n' '|')"
else
	pass
fi
# and the next open starts a new card
timeout 30 "$tool" -d "$dev" -t 0 >"$tmp/o" 2>"$tmp/e" && pass || fail restart "$(cat "$tmp/e")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
