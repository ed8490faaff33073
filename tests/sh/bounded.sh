# Sourced by the tests/sh scripts that check that a command neither hangs
# nor grows without bound.
# shellcheck shell=bash

# bounded MB SECONDS PROGRAM ARGS...: run PROGRAM with at most MB
# megabytes of memory and SECONDS of time; its exit status (124 when the
# time ran out).  A sanitizer build reserves terabytes of address space,
# so there the limit is ASan's own RSS limit instead of ulimit -v.
bounded() {
	local mb=$1 secs=$2
	shift 2
	if grep -qa __asan_init "$1" 2>/dev/null; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$mb" \
			timeout -k 5 "$secs" "$@"
	else
		(ulimit -v $((mb * 1024)) && exec timeout -k 5 "$secs" "$@")
	fi
}
