#!/usr/bin/env bash
# Install the Debian 12 packages the build, the tests and the benchmarks
# need, and only those that are missing.  Needs root (or sudo) the first
# time; afterwards it only checks.
set -euo pipefail
pkgs=(gcc libc6-dev make cmake pkg-config clang libclang-rt-14-dev
      libcmocka-dev libinih-dev libmicrohttpd-dev)
# --test: what the whole-command tests start (the exporter's: promtool and
# a Prometheus server, curl, python3 for the JSON of its API).
[ "${1:-}" = "--test" ] && pkgs+=(prometheus curl python3)
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
