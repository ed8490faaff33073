#!/usr/bin/env bash
# Install the Debian 12 packages that a set of tasks needs, and only those
# that are missing.  Needs root (or sudo) the first time; afterwards it
# only checks.
#   install-deps.sh [SET...]     SET: build (the default), test, bench, deb
# Every set includes build.  --test and --bench are the old names of the
# test and bench sets.
#
# It prints one line on standard error when it installs something; apt's
# own output goes to the file $PT_DEPS_LOG when that is set (shown only
# when apt fails), else to standard error.  Standard output stays empty, so
# that `make bench` prints nothing but its figures.
set -euo pipefail

# The sets: one line each, the set's name and its packages.  Add a package
# to the line of the set that needs it.
#   build  compile everything `make demo` builds (the unit tests included)
#   test   what `make test` runs on top: clang with its sanitizer and
#          fuzzer runtimes, the HDL simulators (Verilator, GHDL with its
#          llvm backend, which links C code) and Python for the ctypes
#          binding, man and groff for the man pages, bash-completion,
#          binutils (nm) for the exported symbols, jq for the JSON of
#          --diagnose, what the exporter's tests start (promtool and a
#          Prometheus server, curl; python3 reads Prometheus' API), tmux,
#          the terminal of the live view's test, pandas and a comma-decimal
#          locale's sources (locales) for the series
#   bench  the benchmarks (hyperfine; tmux for the live view's CPU share)
#   deb    `make deb`: building and checking the Debian packages
SETS="
build  gcc libc6-dev make cmake pkg-config libcmocka-dev libinih-dev libjansson-dev libfdt-dev libmicrohttpd-dev libncurses-dev
test   clang libclang-rt-14-dev verilator g++ ghdl-llvm python3 man-db groff-base bash-completion binutils jq prometheus curl tmux python3-pandas locales
bench  hyperfine tmux
deb    dpkg-dev debhelper lintian fakeroot
"

# Tests install from inside ctest, several at a time: one run at a time.
if [ -z "${PT_DEPS_LOCKED:-}" ] && command -v flock > /dev/null; then
  PT_DEPS_LOCKED=1 exec flock "$0" "$0" "$@"
fi

want=(build)
for a in "$@"; do
  case $a in
    --test) want+=(test) ;;
    --bench) want+=(bench) ;;
    -*) echo "install-deps: unknown option $a" >&2; exit 2 ;;
    *) want+=("$a") ;;
  esac
done
pkgs=()
for s in "${want[@]}"; do
  line=$(printf '%s\n' "$SETS" | awk -v s="$s" '$1 == s')
  [ -n "$line" ] || { echo "install-deps: unknown set '$s' (build, test, bench, deb)" >&2; exit 2; }
  read -r -a more <<< "${line#* }"
  pkgs+=("${more[@]}")
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
log=${PT_DEPS_LOG:-}
echo "install-deps: installing ${missing[*]}${log:+ (log: $log)}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
run() {
  if [ -n "$log" ]; then
    "$@" >> "$log" 2>&1 || { echo "install-deps: '$*' failed:" >&2; cat "$log" >&2; return 1; }
  else
    "$@" >&2
  fi
}
run $SUDO apt-get update -qq
run $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
