# Sourced by the tests/sh scripts of nfb-pcie-telemetry-exporter, with the
# script's arguments (BIN_DIR TESTS_DIR): the counting (ok, bad, finish),
# a temporary folder ($work), the processes to end on exit (track), and
# the exporter on a free port (start_exporter, stop_exporter, sample).
# shellcheck shell=bash
set -u
bin=$1
data=${2:-}
cases=$data/conformance/report
exporter=$bin/nfb-pcie-telemetry-exporter
helpers=$bin/../tests/helpers
work=$(mktemp -d)
pass=0
fail=0
tracked=()
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# track PID: ended (SIGTERM) when the script exits
track() { tracked+=("$1"); }
cleanup() {
	[ ${#tracked[@]} -gt 0 ] && kill "${tracked[@]}" 2>/dev/null && wait 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
finish() {
	echo "$pass passed, $fail failed"
	[ $fail -eq 0 ]
}
# need CMD...: the commands the test needs (scripts/install-deps.sh --test)
need() {
	for c in "$@"; do
		command -v "$c" >/dev/null || { echo "FAIL: $c is missing (scripts/install-deps.sh --test)"; exit 1; }
	done
}
[ -x "$exporter" ] || { echo "FAIL: $exporter is not built"; exit 1; }
# mkdev FILE STATUS: a component file
. "$(dirname "${BASH_SOURCE[0]}")/component_dev.sh"

# start_exporter NAME ARGS...: runs the exporter on a free loopback port
# (port 0: the kernel picks), its log in $work/NAME.log; sets NAME_pid
# and NAME_url (http://127.0.0.1:PORT) once it listens.
start_exporter() {
	local name=$1 pid port i
	shift
	"$exporter" --web.listen-address=127.0.0.1:0 "$@" 2>"$work/$name.log" &
	pid=$!
	track $pid
	for ((i = 0; i < 100; i++)); do
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$work/$name.log")
		[ -n "$port" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	printf -v "${name}_pid" %s "$pid"
	printf -v "${name}_url" %s "http://127.0.0.1:${port:-0}"
	[ -n "$port" ]
}

# stop_exporter NAME: SIGTERM, and its exit status (0 expected).
stop_exporter() {
	local pidvar=${1}_pid
	kill -TERM "${!pidvar}" 2>/dev/null
	wait "${!pidvar}"
}

# sample FILE METRIC [LABEL-REGEX]: the value of the first sample of
# METRIC whose labels match.
sample() {
	awk -v m="$2" -v re="${3:-}" '
		$0 !~ /^#/ { name = $1; sub(/\{.*/, "", name)
			if (name == m && $1 ~ re) { print $2; exit } }' "$1"
}
