#!/usr/bin/env bash
# One step of `make demo` or `make install`: one line on the terminal, the
# command's output appended to the log, and shown only when it fails.
#   step.sh LOG WHAT COMMAND [ARG...]
set -uo pipefail
log=$1 what=$2
shift 2
mkdir -p "$(dirname "$log")"
start=$(stat -c %s "$log" 2>/dev/null || echo 0)
echo "== $what"
printf '== %s\n$ %s\n' "$what" "$*" >> "$log"
if ! "$@" >> "$log" 2>&1; then
  echo "make: '$what' failed; its output (all of it in $log):" >&2
  tail -c +"$((start + 1))" "$log" | tail -n 200 >&2
  exit 1
fi
