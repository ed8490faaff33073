#!/usr/bin/env bash
# Print every performance figure as NAME VALUE UNIT lines.
# Usage: run.sh BIN_DIR
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
shopt -s nullglob
for b in "$bin"/bench_*; do
  "$b" "$here/.."
done
for s in "$here"/bench_*.sh; do
  bash "$s" "$bin" "$here/.."
done
