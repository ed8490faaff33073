#!/usr/bin/env bash
# CPU share of nfb-pcie-telemetry watching a card at 1 Hz: `-w -t 1`
# (reports to /dev/null) and `--top -t 1` (the live view, in a detached
# tmux session of 100 x 32 when tmux is installed), on a component behind
# mmap: (a device that sleeps in real time, as a card does).  The CPU time
# of every thread of the process (/proc/PID/task/*/schedstat, in ns) over
# SECONDS of wall time (default 10), after a second to settle, as a share
# of one core.  Target: under 0.1 %.
#
# Usage: bench_tool_cpu.sh BIN_DIR REPO [SECONDS]
set -euo pipefail
bin=$1
repo=$2
secs=${3:-10}
tool=$bin/nfb-pcie-telemetry
[ -x "$tool" ] || { echo "bench_tool_cpu: $tool is not built" >&2; exit 1; }
work=$(mktemp -d)
sock="pt-bench-cpu-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true
      rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; rm -rf "$work"' EXIT
# mkdev FILE STATUS
. "$repo/tests/sh/component_dev.sh"
mkdev "$work/dev.bin" 0

# CPU nanoseconds of every thread of PID so far.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
# share NAME PID: the CPU share of PID over the next $secs seconds.
share() {
	local name=$1 pid=$2 a b t0 t1
	sleep 1
	a=$(cpu_ns "$pid")
	t0=$(date +%s%N)
	sleep "$secs"
	b=$(cpu_ns "$pid")
	t1=$(date +%s%N)
	awk -v n="$name" -v c=$((b - a)) -v w=$((t1 - t0)) \
		'BEGIN { printf "%s %.4f %% of a core\n", n, 100 * c / w }'
}

# (the dump's clocks stand still: the tool's note that says so is not a figure)
"$tool" -d "mmap:$work/dev.bin" -w -t 1 >/dev/null 2>"$work/watch.err" &
pid=$!
share watch_t1_cpu_share "$pid"
kill -INT "$pid"
wait "$pid"

if command -v tmux >/dev/null; then
	tmux -L "$sock" -f /dev/null new-session -d -s top -x 100 -y 32 \
		sh -c 'echo $$ >"$0"; exec "$@"' "$work/top.pid" "$tool" --top -d "mmap:$work/dev.bin" -t 1
	for ((i = 0; i < 50; i++)); do
		[ -s "$work/top.pid" ] && break
		sleep 0.1
	done
	share top_t1_cpu_share "$(cat "$work/top.pid")"
fi
