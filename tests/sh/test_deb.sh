#!/usr/bin/env bash
# make deb's packages (scripts/deb.sh: dpkg-buildpackage -us -uc -b in a
# copy of the tree, then lintian): the three binary packages build,
# lintian reports no error, each package holds what it should (the
# commands with their man pages and completion; the shared library by its
# SONAME; the headers, the static library, pcie-telemetry.pc and the HDL
# model), the Debian version is project(VERSION), and the packaged tool
# runs.  The sanitizer build skips it (exit 77): the packages are the
# same, built once by the gcc build.
#
# Usage: test_deb.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/pkg_lib.sh"
if [ -n "${PT_SAN_FLAGS:-}" ]; then
	echo "skipped: the Debian packages are built by the gcc build's run of this test"
	exit 77
fi
unset MAKEFLAGS MFLAGS MAKELEVEL
bash "$SRC/scripts/install-deps.sh" deb >"$work/deps.log" 2>&1 || { cat "$work/deps.log"; bad "cannot install the deb set"; finish test_deb; exit 1; }
want=$(sed -n 's/^project(pcie_telemetry VERSION \([0-9][0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
got=$(sed -n '1s/^pcie-telemetry (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
[ "$got" = "$want" ] && ok || bad "debian/changelog says $got, CMakeLists.txt $want"
major=${want%%.*}
# every pkg-config module the library needs is a Build-Depends and a
# Depends of the -dev package (a new module's dependency fails here)
build=$(cd "$BIN/.." && pwd)
for m in $(sed -n 's/^Requires.private: *//p' "$build/pcie-telemetry.pc.in"); do
	pc=$(pkg-config --variable=pcfiledir "$m")/$m.pc
	dev=$(dpkg -S "$(realpath "$pc")" 2>/dev/null | head -1 | cut -d: -f1)
	[ -n "$dev" ] || { bad "no Debian package holds $pc"; continue; }
	sed -n '/^Build-Depends:/,/^[A-Z]/p' "$SRC/debian/control" | grep -qw "$dev" && ok || bad "$dev ($m) is not in Build-Depends"
	sed -n '/^Package: libpcie-telemetry-dev/,/^Description/p' "$SRC/debian/control" | grep -qw "$dev" && ok ||
		bad "$dev ($m) is not a Depends of libpcie-telemetry-dev"
done

JOBS=2 bash "$SRC/scripts/deb.sh" "$work/deb" >"$work/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "scripts/deb.sh failed ($rc): $(tail -5 "$work/out")"
sed -n 's/^   //p' "$work/out" | grep '^[EW]: ' | sed 's/^/lintian: /'
grep -q '^E: ' "$work/deb/lintian.txt" 2>/dev/null && bad "lintian reports errors" || ok
for p in nfb-pcie-telemetry "libpcie-telemetry$major" libpcie-telemetry-dev; do
	deb=$(ls "$work/deb/${p}_${want}_"*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] && ok || { bad "no package $p"; continue; }
	dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/$p.files"
done
has() { grep -q "$2" "$work/$1.files" 2>/dev/null && ok || bad "package $1 lacks $2"; }
for cmd in $(commands); do
	has nfb-pcie-telemetry "^/usr/bin/$cmd$"
	has nfb-pcie-telemetry "^/usr/share/man/man1/$cmd.1.gz$"
	has nfb-pcie-telemetry "^/usr/share/bash-completion/completions/$cmd$"
done
has nfb-pcie-telemetry "^/usr/share/doc/nfb-pcie-telemetry/hardware.md.gz$"
has nfb-pcie-telemetry "^/usr/lib/.*/libnfb-ext-pcie-telemetry.so$"
[ ! -d "$SRC/contrib" ] || has nfb-pcie-telemetry "^/usr/share/pcie-telemetry/contrib/"
has "libpcie-telemetry$major" "^/usr/lib/.*/libpcie-telemetry.so.$major$"
for h in "$SRC"/include/pcie_telemetry/*.h; do has libpcie-telemetry-dev "^/usr/include/pcie_telemetry/$(basename "$h")$"; done
has libpcie-telemetry-dev "^/usr/include/pcie_telemetry/version.h$"
has libpcie-telemetry-dev "^/usr/lib/.*/libpcie-telemetry.a$"
has libpcie-telemetry-dev "^/usr/lib/.*/pkgconfig/pcie-telemetry.pc$"
has libpcie-telemetry-dev "^/usr/lib/.*/cmake/pcie-telemetry/pcie-telemetryConfig.cmake$"
has libpcie-telemetry-dev "^/usr/lib/.*/pcie-telemetry/libpcie-telemetry-model.so$"
has libpcie-telemetry-dev "^/usr/share/man/man3/pcie-telemetry.3.gz$"
deb=$(ls "$work/deb/libpcie-telemetry${major}_"*.deb 2>/dev/null | head -1)
[ -n "$deb" ] && dpkg-deb -I "$deb" shlibs 2>/dev/null | grep -q "^libpcie-telemetry $major libpcie-telemetry$major" && ok ||
	bad "libpcie-telemetry$major has no shlibs entry for SONAME major $major"
deb=$(ls "$work/deb/nfb-pcie-telemetry_"*.deb 2>/dev/null | head -1)
if [ -n "$deb" ]; then
	dpkg -x "$deb" "$work/x"
	"$work/x/usr/bin/nfb-pcie-telemetry" -d sim:idle -t 0.001 2>&1 | grep -q '^Measured over' && ok || bad "the packaged tool does not run"
	"$work/x/usr/bin/nfb-pcie-telemetry" -V | grep -q "^nfb-pcie-telemetry $want " && ok || bad "the packaged tool's version"
fi

finish test_deb
