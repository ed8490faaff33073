#!/usr/bin/env bash
# What ptmodel reads may not hang it or grow its memory without bound
# (issue 8): a FIFO, a device or a folder is refused at once (standard
# input is the way to pipe a trace in); /dev/zero and any input without
# newlines end at the documented line limit; a file over the size limit
# is refused from its size.  Every case runs under a time and a memory
# limit, and ends with one line on stderr.
#
# Usage: test_ptmodel_limits.sh BIN_DIR TESTS_DIR
set -u
bin=$1
data=$2
model=$bin/ptmodel
[ -x "$model" ] || { echo "FAIL: $model is not built"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
. "$(dirname "$0")/bounded.sh"
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# refused RC TEXT ARGS... (stdin from $work/in): status RC within 20 s and
# 300 MB, nothing on stdout, one line on stderr holding TEXT
refused() {
	local want=$1 what=$2
	shift 2
	bounded 300 20 "$model" "$@" <"$work/in" >"$work/out" 2>"$work/err"
	local rc=$?
	if [ $rc -eq "$want" ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
		grep -qF -- "$what" "$work/err"; then
		ok
	else
		bad "ptmodel $* : rc $rc (want $want), stderr: $(head -c 300 "$work/err")"
	fi
}

: >"$work/in"
mkfifo "$work/fifo"
refused 1 "$work/fifo: cannot read the trace: it is a FIFO, not a regular file" probe "$work/fifo"
refused 1 "it is a FIFO" component "$work/fifo"
refused 1 "$work: cannot read the trace: it is a folder" probe "$work"
if mknod "$work/zero" c 1 5 2>/dev/null; then
	refused 1 "$work/zero: cannot read the trace: it is a character device" component "$work/zero"
else
	echo "note: mknod not permitted here: the device case is skipped"
fi
# a sparse file over the 16 GiB limit: refused from its size
truncate -s 17G "$work/huge.trace"
refused 1 "has 18253611008 bytes, more than its limit of 16 GiB" component "$work/huge.trace"

# /dev/zero on standard input, and a long run of text without a newline
bounded 300 20 "$model" component - </dev/zero >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 2 ] && grep -q '^ptmodel: (stdin):1: line longer than 1048576 characters$' "$work/err" &&
	[ ! -s "$work/out" ] && ok || bad "/dev/zero piped: rc $rc, $(head -c 300 "$work/err")"
head -c 50000000 /dev/zero | tr '\0' 'a' >"$work/in"
refused 2 "(stdin):1: line longer than 1048576 characters" probe -
# a long line further down is named by its number
{ cat "$data/conformance/probe/p01_r1_one_bus.trace"; head -c 2000000 /dev/zero | tr '\0' ' '; } >"$work/long.trace"
n=$(($(wc -l <"$data/conformance/probe/p01_r1_one_bus.trace") + 1))
: >"$work/in"
refused 2 "$work/long.trace:$n: line longer than 1048576 characters" probe "$work/long.trace"

# both sides of the limit: a comment line of exactly 1048576 characters
# (CR LF too) is read, one more is not
"$model" component "$data/conformance/component/c01_basic_1ep.trace" >"$work/want"
for eol in '' $'\r'; do
	for n in 1048576 1048577; do
		{ printf '#'; head -c $((n - 1)) /dev/zero | tr '\0' 'c'; printf '%s\n' "$eol"
		  cat "$data/conformance/component/c01_basic_1ep.trace"; } >"$work/edge.trace"
		bounded 300 60 "$model" component "$work/edge.trace" >"$work/out" 2>"$work/err"
		rc=$?
		if [ "$n" -eq 1048576 ]; then
			[ $rc -eq 0 ] && [ -s "$work/want" ] && cmp -s "$work/out" "$work/want" &&
				ok || bad "a line of $n characters: rc $rc, $(head -c 200 "$work/err")"
		else
			[ $rc -eq 2 ] && grep -q "edge.trace:1: line longer than 1048576 characters" "$work/err" &&
				ok || bad "a line of $n characters: rc $rc, $(head -c 200 "$work/err")"
		fi
	done
done

echo "test_ptmodel_limits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
