#!/usr/bin/env bash
# Run every fuzz target for a few seconds on its seed corpus.
# Usage: run.sh FUZZ_BIN_DIR SECONDS
set -euo pipefail
bin=$1; secs=$2
here=$(cd "$(dirname "$0")" && pwd)
shopt -s nullglob
n=0
for f in "$bin"/fuzz_*; do
  name=$(basename "$f")
  work=$(mktemp -d)
  seeds="$here/corpus/$name"
  [ -d "$seeds" ] && cp -r "$seeds"/. "$work"/ 2>/dev/null || true
  # per target: NAME.dict (a libFuzzer dictionary), NAME.options (more flags)
  extra=()
  [ -f "$here/$name.dict" ] && extra+=("-dict=$here/$name.dict")
  [ -f "$here/$name.options" ] && read -r -a more <"$here/$name.options" && extra+=("${more[@]}")
  echo "fuzz: $name for ${secs}s"
  ASAN_OPTIONS=detect_leaks=1 "$f" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
      -artifact_prefix="$work/" -print_final_stats=0 "${extra[@]}" "$work" >"$work.log" 2>&1 || {
    echo "fuzz: $name FAILED"; tail -40 "$work.log"; exit 1; }
  grep -E "^#[0-9]+.*DONE" "$work.log" | tail -1 || true
  rm -rf "$work" "$work.log"
  n=$((n+1))
done
echo "fuzz: $n target(s) ran without a crash, hang or leak"
