#!/usr/bin/env bash
# What `make install` installs, installed into a temporary DESTDIR with a
# prefix of its own (cmake --install --prefix, as make install does):
# every command, man page and completion, the shared library with its
# SONAME exporting exactly the functions of the public headers (nm), the
# static library, every header, pcie-telemetry.pc (pkg-config against the
# DESTDIR), the CMake package, the data files and the HDL sources.  The
# README's library snippet, extracted from README.md, builds against the
# installed shared library through pkg-config and prints the golden report
# of a recording; the installed tool works from PATH, its man pages render
# and its completion loads from where they are installed.  Uninstalling
# leaves no file behind.
#
# Usage: test_install.sh BIN_DIR TESTS_DIR
# PT_CC and PT_SAN_FLAGS: the compiler and sanitizer flags of the build
# (a sanitizer build's library needs them in what links it).
. "$(dirname "$0")/pkg_lib.sh"
need nm readelf pkg-config man gcc || exit 1
build=$(cd "$BIN/.." && pwd)
cc=${PT_CC:-cc}
san=${PT_SAN_FLAGS:-}
root=$work/root
prefix=/opt/pcie-telemetry
p=$root$prefix
cases=$SRC/tests/conformance/report
unset MAKEFLAGS MFLAGS MAKELEVEL

DESTDIR=$root PT_INSTALLED_LIST=$work/installed.txt cmake --install "$build" --prefix "$prefix" \
	>"$work/install.log" 2>&1 && ok || { bad "cmake --install: $(tail -3 "$work/install.log")"; finish test_install; exit 1; }
libdir=$(dirname "$(find "$p" -name pcie-telemetry.pc -path '*/pkgconfig/*' | head -1)")
libdir=${libdir%/pkgconfig}
[ -d "$libdir" ] && ok || bad "no pkgconfig folder under $p"

# ---- files in place
major=$(sed -n 's/^#define PT_PROJECT_VERSION_MAJOR \([0-9]*\)$/\1/p' "$build/include/pcie_telemetry/version.h")
for cmd in $(commands); do
	[ -x "$p/bin/$cmd" ] && ok || bad "bin/$cmd is not installed"
	[ -f "$p/share/bash-completion/completions/$cmd" ] && ok || bad "the completion of $cmd is not installed"
done
for page in "$SRC"/man/*.[1-9]; do
	n=$(basename "$page")
	cmp -s "$page" "$p/share/man/man${n##*.}/$n" && ok || bad "man page $n is not in share/man/man${n##*.}"
done
for h in "$SRC"/include/pcie_telemetry/*.h "$build/include/pcie_telemetry/version.h"; do
	cmp -s "$h" "$p/include/pcie_telemetry/$(basename "$h")" && ok || bad "header $(basename "$h") is not installed"
done
[ -L "$libdir/libpcie-telemetry.so" ] && [ -L "$libdir/libpcie-telemetry.so.$major" ] &&
	[ -f "$libdir/libpcie-telemetry.a" ] && ok || bad "libpcie-telemetry.so, .so.$major or .a missing in $libdir"
readelf -d "$libdir/libpcie-telemetry.so" | grep -q "(SONAME).*\[libpcie-telemetry.so.$major\]" && ok ||
	bad "SONAME is not libpcie-telemetry.so.$major: $(readelf -d "$libdir/libpcie-telemetry.so" | grep SONAME)"
[ -f "$libdir/cmake/pcie-telemetry/pcie-telemetryConfig.cmake" ] &&
	[ -f "$libdir/cmake/pcie-telemetry/pcie-telemetryConfigVersion.cmake" ] && ok || bad "the CMake package is not installed"
[ -f "$libdir/pcie-telemetry/libpcie-telemetry-model.so" ] && ok || bad "libpcie-telemetry-model.so is not installed"
if [ -f "$build/lib/libnfb-ext-pcie-telemetry.so" ]; then
	[ -f "$libdir/libnfb-ext-pcie-telemetry.so" ] && ok || bad "the libnfb extension is not installed"
fi
for f in $(cd "$SRC/data" 2>/dev/null && find . -type f); do
	cmp -s "$SRC/data/$f" "$p/share/pcie-telemetry/$f" && ok || bad "data file $f is not in share/pcie-telemetry"
done
for f in $(cd "$SRC/contrib" 2>/dev/null && find . -type f); do
	cmp -s "$SRC/contrib/$f" "$p/share/pcie-telemetry/contrib/$f" && ok || bad "contrib/$f is not in share/pcie-telemetry/contrib"
done
for f in Makefile README.md sv/pcie_telemetry_pkg.sv vhdl/pcie_telemetry_pkg.vhd python/ptm_model.py; do
	[ -f "$p/share/pcie-telemetry/hdl/$f" ] && ok || bad "hdl/$f is not installed"
done
[ -f "$p/share/doc/pcie-telemetry/README.md" ] && [ -f "$p/share/doc/pcie-telemetry/formats/register-image.md" ] &&
	ok || bad "the documentation is not installed"
# the list of what was installed holds exactly the files under the root
find "$root" -type f -o -type l | sort >"$work/found"
sort "$work/installed.txt" | sed '/^$/d' >"$work/listed"
cmp -s "$work/found" "$work/listed" && ok || bad "installed.txt and the files differ: $(diff "$work/listed" "$work/found" | head -4 | tr '\n' ' ')"

# ---- the exports: exactly the functions the public headers declare
# (found here by gcc -aux-info, independently of the version script)
for h in "$SRC"/include/pcie_telemetry/*.h; do echo "#include <pcie_telemetry/$(basename "$h")>"; done >"$work/all.c"
gcc -fsyntax-only -aux-info "$work/aux" -I"$p/include" "$work/all.c" 2>"$work/err" || bad "the installed headers do not compile: $(head -3 "$work/err")"
grep "/include/pcie_telemetry/[a-z_]*\.h:[0-9]*:N" "$work/aux" | grep '\*/ extern ' |
	sed -e 's/^.*\*\/ extern //' -e 's/ (.*//' -e 's/.*[ *]//' | sort -u >"$work/declared"
nm -D --defined-only "$libdir/libpcie-telemetry.so" | awk '{print $3}' | sort -u >"$work/exported"
[ "$(wc -l <"$work/declared")" -gt 100 ] && ok || bad "only $(wc -l <"$work/declared") functions found in the headers"
comm -23 "$work/declared" "$work/exported" >"$work/missing"
comm -13 "$work/declared" "$work/exported" >"$work/extra"
[ ! -s "$work/missing" ] && ok || bad "declared but not exported: $(tr '\n' ' ' <"$work/missing")"
[ ! -s "$work/extra" ] && ok || bad "exported but in no public header: $(tr '\n' ' ' <"$work/extra")"
grep -v '^\(pt\|ptm\|pte\)_' "$work/exported" >"$work/odd" && bad "exports without a public prefix: $(tr '\n' ' ' <"$work/odd")" || ok
grep -q '^pt_util_' "$work/exported" && bad "pt_util (internal) is exported" || ok

# ---- pkg-config against the DESTDIR
export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
flags=$(pkg-config --cflags --libs pcie-telemetry 2>"$work/err") && ok || bad "pkg-config: $(cat "$work/err")"
[[ " $flags " == *" -I$p/include "* && " $flags " == *" -L$libdir "* && " $flags " == *" -lpcie-telemetry "* ]] &&
	ok || bad "pkg-config --cflags --libs: '$flags'"
[ "$(pkg-config --modversion pcie-telemetry)" = "$(sed -n 's/^#define PT_VERSION_STRING "\(.*\)"$/\1/p' "$build/include/pcie_telemetry/version.h")" ] &&
	ok || bad "pkg-config --modversion: $(pkg-config --modversion pcie-telemetry)"
static=$(pkg-config --static --libs pcie-telemetry 2>&1)
[[ " $static " == *" -lm "* && " $static " == *" -linih "* ]] && ok || bad "pkg-config --static --libs: '$static'"

# ---- the README's snippet, as written, against the shared library
awk '/^## The library in brief/ { s = 1 } s && /^```c$/ { c = 1; next } c && /^```$/ { exit } c' \
	"$SRC/README.md" >"$work/report.c"
grep -q 'int main' "$work/report.c" && ok || bad "no program in README.md's 'The library in brief'"
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror $san "$work/report.c" $flags -o "$work/report" 2>"$work/err" && ok ||
	bad "the README snippet does not build: $(head -5 "$work/err")"
LD_LIBRARY_PATH=$libdir ldd "$work/report" | grep -q "libpcie-telemetry.so.$major => $libdir/" && ok ||
	bad "the snippet does not use the installed libpcie-telemetry.so.$major"
(cd "$cases" && LD_LIBRARY_PATH=$libdir "$work/report" image:basic_t1.regs) >"$work/out" 2>"$work/err"
cmp -s "$work/out" "$cases/basic_t1.out" && ok || bad "the snippet on basic_t1.regs: $(head -3 "$work/err") $(diff "$work/out" "$cases/basic_t1.out" | head -4)"
LD_LIBRARY_PATH=$libdir "$work/report" sim:idle >"$work/out" 2>"$work/err"
grep -q '^Measured over 0.01 s$' "$work/out" && ok || bad "the snippet on sim:idle: $(head -3 "$work/err")"
LD_LIBRARY_PATH=$libdir "$work/report" image:/nonexistent >/dev/null 2>"$work/err"
[ $? -eq 1 ] && grep -q 'nonexistent' "$work/err" && ok || bad "the snippet's error: $(cat "$work/err")"
# ---- the CMake package
mkdir -p "$work/cm"
cp "$work/report.c" "$work/cm/"
cat >"$work/cm/CMakeLists.txt" <<'END'
cmake_minimum_required(VERSION 3.18)
project(report C)
find_package(pcie-telemetry 1 REQUIRED)
add_executable(report report.c)
target_link_libraries(report PRIVATE pcie-telemetry::pcie-telemetry)
add_executable(report_static report.c)
target_link_libraries(report_static PRIVATE pcie-telemetry::pcie-telemetry-static)
END
if cmake -S "$work/cm" -B "$work/cm/b" -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$san" \
	-DCMAKE_PREFIX_PATH="$p" >"$work/cm.log" 2>&1 && cmake --build "$work/cm/b" >>"$work/cm.log" 2>&1; then
	ok
	(cd "$cases" && LD_LIBRARY_PATH=$libdir "$work/cm/b/report" image:basic_t1.regs) | cmp -s - "$cases/basic_t1.out" &&
		ok || bad "the CMake-built program's report"
	# the static one runs without the shared library
	(cd "$cases" && "$work/cm/b/report_static" image:basic_t1.regs) | cmp -s - "$cases/basic_t1.out" &&
		ok || bad "the program linked with pcie-telemetry::pcie-telemetry-static"
	ldd "$work/cm/b/report_static" | grep -q libpcie-telemetry && bad "the static program needs libpcie-telemetry.so" || ok
else
	bad "find_package(pcie-telemetry): $(grep -i error -A3 "$work/cm.log" | head -5)"
fi

# ---- the installed tool from PATH, its man pages and its completion
PATH=$p/bin:$PATH nfb-pcie-telemetry -d sim:idle -t 0.001 >"$work/out" 2>&1 && grep -q '^Measured over' "$work/out" &&
	ok || bad "nfb-pcie-telemetry from PATH: $(head -2 "$work/out")"
MANPATH=$p/share/man man -w nfb-pcie-telemetry >/dev/null 2>&1 && ok || bad "man does not find nfb-pcie-telemetry in MANPATH"
for page in "$p"/share/man/man*/*; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>"$work/err"
	[ ! -s "$work/err" ] && ok || bad "installed $(basename "$page"): $(head -2 "$work/err")"
done
if [ -f /usr/share/bash-completion/bash_completion ]; then
	out=$(PATH=$p/bin:$PATH BASH_COMPLETION_USER_DIR=$p/share/bash-completion bash --norc --noprofile -c '
		shopt -s extglob progcomp
		source /usr/share/bash-completion/bash_completion
		_completion_loader nfb-pcie-telemetry
		COMP_LINE="nfb-pcie-telemetry -d sim:tags"; COMP_POINT=${#COMP_LINE}
		COMP_WORDS=(nfb-pcie-telemetry -d sim : tags); COMP_CWORD=4
		_nfb_pcie_telemetry; printf "%s\n" "${COMPREPLY[@]}"' 2>&1)
	[ "$out" = tags-starved ] && ok || bad "the installed completion of '-d sim:tags': $out"
else
	bad "bash-completion is not installed (scripts/install-deps.sh test)"
fi

# ---- uninstall: nothing left
cmake -DMANIFEST="$work/installed.txt" -P "$SRC/cmake/uninstall.cmake" >"$work/un.log" 2>&1 && ok ||
	bad "uninstall: $(cat "$work/un.log")"
left=$(find "$root" -type f -o -type l)
[ -z "$left" ] && ok || bad "left after uninstall: $(echo "$left" | head -5 | tr '\n' ' ')"
ours=$(find "$root" -depth -type d -name 'pcie[-_]telemetry')
[ -z "$ours" ] && ok || bad "folders left after uninstall: $ours"

finish test_install
