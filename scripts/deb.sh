#!/usr/bin/env bash
# make deb: the Debian packages of debian/ (nfb-pcie-telemetry,
# libpcie-telemetry1, libpcie-telemetry-dev), built with
#   dpkg-buildpackage -us -uc -b
# in a copy of the tree (so that neither the tree nor its parent folder
# gets build files), then checked with lintian.  One line per step on the
# terminal, the whole output in OUT/build.log and OUT/lintian.txt; exit
# status 1 when the build fails or lintian reports an error.
#   deb.sh [OUT]      OUT: build/deb
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$src/build/deb}" && cd "${1:-$src/build/deb}" && pwd)
rm -rf "${out:?}"/*
mkdir -p "$out/src"
echo "== copying the tree to $out/src"
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude='./obj-*' -cf - . | tar -C "$out/src" -xf -
echo "== dpkg-buildpackage -us -uc -b (log: $out/build.log)"
if ! (cd "$out/src" && DEB_BUILD_OPTIONS="parallel=${JOBS:-2} ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	echo "make deb: dpkg-buildpackage failed; the end of $out/build.log:" >&2
	tail -n 60 "$out/build.log" >&2
	exit 1
fi
for d in "$out"/*.deb; do
	echo "   $(basename "$d"): $(dpkg-deb -f "$d" Installed-Size) KiB installed, $(dpkg-deb -c "$d" | wc -l) entries"
done
echo "== lintian (report: $out/lintian.txt)"
changes=$(ls "$out"/*.changes)
lintian --info --display-info --pedantic "$changes" >"$out/lintian.txt" 2>&1
errors=$(grep -c '^E: ' "$out/lintian.txt")
warnings=$(grep -c '^W: ' "$out/lintian.txt")
echo "   $errors errors, $warnings warnings, $(grep -c '^[IP]: ' "$out/lintian.txt") info/pedantic tags"
grep '^[EW]: ' "$out/lintian.txt" | sed 's/^/   /'
[ "$errors" -eq 0 ]
