#!/usr/bin/env bash
# Install the Debian 12 packages the build, the tests and the benchmarks
# need, and only those that are missing.  Needs root (or sudo) the first
# time; afterwards it only checks.
#   --test   also what the tests need (the HDL simulators: Verilator, and
#            GHDL with its llvm backend, which links C code; Python for
#            the ctypes binding and the JSON of Prometheus' API; what the
#            exporter's tests start: promtool and a Prometheus server, curl)
#   --bench  also what the benchmarks need
set -euo pipefail
# Tests install from inside ctest, several at a time: one run at a time.
if [ -z "${PT_DEPS_LOCKED:-}" ] && command -v flock > /dev/null; then
  PT_DEPS_LOCKED=1 exec flock "$0" "$0" "$@"
fi
pkgs=(gcc libc6-dev make cmake pkg-config clang libclang-rt-14-dev libfdt-dev binutils
      libcmocka-dev libinih-dev libjansson-dev libmicrohttpd-dev jq)
[ "${1:-}" = "--test" ] && pkgs+=(verilator g++ ghdl-llvm python3 prometheus curl)
[ "${1:-}" = "--bench" ] && pkgs+=(hyperfine)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
