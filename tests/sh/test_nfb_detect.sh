#!/usr/bin/env bash
# How the build finds libnfb (cmake/nfb.cmake), with fake libnfb trees
# made here: a header that declares what the backend calls (and has an
# inline function that fails -Wconversion unless it is included as a
# system header), a libnfb.so with one fake device of two components.
# One configure run each:
#   no libnfb                 "libnfb not found", the build succeeds
#   a correct .pc             found; the backend builds with -Werror
#                             (system header), -V says built in, and
#                             --list-devices lists the fake components
#   a .pc with a wrong prefix (ndk-sw's prefix=/usr) a clear warning that
#                             names the missing header, the build succeeds
#                             without the backend
#   headers + library, no .pc -DNFB_ROOT finds them
#   NFB_ROOT without library  a warning that names what is missing
#
# Usage: test_nfb_detect.sh BIN_DIR TESTS_DIR
# PT_CC: the compiler of the build (default cc).
. "$(dirname "$0")/pkg_lib.sh"
cc=${PT_CC:-cc}
unset MAKEFLAGS MFLAGS MAKELEVEL
# This test's .pc files come first (PKG_CONFIG_PATH); a libnfb of the
# machine's own would make the cases without one meaningless.
unset PKG_CONFIG_PATH
own=""
if pkg-config --exists nfb-framework || [ -e /usr/include/nfb/nfb.h ] || [ -e /usr/local/include/nfb/nfb.h ]; then
	own=yes
	echo "note: this machine has a libnfb of its own: the cases without libnfb are not checked"
fi

# fake_tree DIR: include/nfb/nfb.h, lib/libnfb.so
fake_tree() {
	mkdir -p "$1/include/nfb" "$1/lib"
	cat >"$1/include/nfb/nfb.h" <<'END'
/* A fake libnfb for tests/sh/test_nfb_detect.sh. */
#ifndef FAKE_NFB_H
#define FAKE_NFB_H
#include <stddef.h>
#include <sys/types.h>
struct nfb_device;
struct nfb_comp;
const char *nfb_default_dev_path(void);
struct nfb_device *nfb_open(const char *path);
void nfb_close(struct nfb_device *dev);
int nfb_comp_count(const struct nfb_device *dev, const char *compatible);
int nfb_comp_find(const struct nfb_device *dev, const char *compatible, unsigned index);
struct nfb_comp *nfb_comp_open(const struct nfb_device *dev, int fdt_offset);
void nfb_comp_close(struct nfb_comp *comp);
const char *nfb_comp_path(struct nfb_comp *comp);
ssize_t nfb_comp_read(const struct nfb_comp *comp, void *buf, size_t nbyte, off_t offset);
ssize_t nfb_comp_write(const struct nfb_comp *comp, const void *buf, size_t nbyte, off_t offset);
/* like libnfb's own inline helpers: not -Wconversion clean */
static inline int nfb_fake_narrow(long v)
{
	return v;
}
#endif
END
	cat >"$work/fake.c" <<'END'
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nfb/nfb.h"
struct nfb_device { int n; };
struct nfb_comp { int index; char path[64]; };
static struct nfb_device dev = { 2 };
const char *nfb_default_dev_path(void) { const char *d = getenv("LIBNFB_DEFAULT_DEV"); return d ? d : "/dev/nfb0"; }
struct nfb_device *nfb_open(const char *path) { if (strcmp(path, "fake0")) { errno = ENOENT; return NULL; } return &dev; }
void nfb_close(struct nfb_device *d) { (void)d; }
int nfb_comp_count(const struct nfb_device *d, const char *c) { return strcmp(c, "cesnet,ofm,pcie_telemetry_mi") ? 0 : d->n; }
int nfb_comp_find(const struct nfb_device *d, const char *c, unsigned i) { return (int)i < nfb_comp_count(d, c) ? 100 + (int)i : -1; }
struct nfb_comp *nfb_comp_open(const struct nfb_device *d, int off)
{
	struct nfb_comp *c = calloc(1, sizeof(*c));
	(void)d;
	c->index = off - 100;
	snprintf(c->path, sizeof(c->path), "/firmware/mi_bus%d/pcie_telemetry_mi", c->index);
	return c;
}
void nfb_comp_close(struct nfb_comp *c) { free(c); }
const char *nfb_comp_path(struct nfb_comp *c) { return c->path; }
ssize_t nfb_comp_read(const struct nfb_comp *c, void *buf, size_t n, off_t off)
{
	uint32_t v = 0;
	if (n != 4) { memset(buf, 0, n); return (ssize_t)n; }
	if (off == 0) v = 0x50544C4Du;
	if (off == 4) v = 0x00020001u;
	if (off == 8) v = 0x00000100u | (uint32_t)(c->index + 1);
	memcpy(buf, &v, 4);
	return 4;
}
ssize_t nfb_comp_write(const struct nfb_comp *c, const void *b, size_t n, off_t o) { (void)c; (void)b; (void)o; return (ssize_t)n; }
END
	$cc -shared -fPIC -I"$1/include" "$work/fake.c" -o "$1/lib/libnfb.so" 2>"$work/err" || bad "the fake libnfb does not build: $(cat "$work/err")"
}
# pc FILE PREFIX: an nfb-framework.pc as ndk-sw writes it
pc() {
	mkdir -p "$(dirname "$1")"
	printf 'prefix=%s\nincludedir=${prefix}/include\nlibdir=${prefix}/lib\n\nName: nfb-framework\nDescription: fake\nVersion: 6.30.3\nCflags: -I${includedir}\nLibs: -L${libdir} -lnfb\n' "$2" >"$1"
}
# configure NAME [CMAKE ARGS...]: $work/NAME.log, the build folder $work/NAME
configure() {
	local name=$1
	shift
	cmake -S "$SRC" -B "$work/$name" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug -DPT_TESTS=OFF "$@" \
		>"$work/$name.log" 2>&1 || bad "$name: configuring failed: $(grep -i error -A2 "$work/$name.log" | head -4)"
}
# build NAME TARGET
build() {
	cmake --build "$work/$1" -j2 --target "$2" >>"$work/$1.log" 2>&1 && ok ||
		bad "$1: building $2 failed: $(grep -E 'error|Error' "$work/$1.log" | head -4)"
}
# says NAME TEXT: the configure output says TEXT (a warning's lines joined)
says() {
	tr '\n' ' ' <"$work/$1.log" | tr -s ' ' | grep -q -- "$2" && ok ||
		bad "$1: configuring does not say '$2': $(grep -i -A3 libnfb "$work/$1.log" | head -5)"
}
# the fake header really fails -Wconversion when not a system header
fake_tree "$work/good"
echo '#include <nfb/nfb.h>' >"$work/inc.c"
$cc -c -Wconversion -Werror -I"$work/good/include" "$work/inc.c" -o "$work/inc.o" 2>/dev/null &&
	bad "the fake nfb.h is -Wconversion clean: the system-header check proves nothing" || ok
$cc -c -Wconversion -Werror -isystem "$work/good/include" "$work/inc.c" -o "$work/inc.o" && ok || bad "the fake nfb.h fails as a system header"

# 1. no libnfb
configure none
if [ -z "$own" ]; then
	says none "libnfb not found (no NFB_ROOT, no pkg-config nfb-framework, no nfb/nfb.h)"
	build none pt_bus
fi

# 2. a correct .pc
pc "$work/good/lib/pkgconfig/nfb-framework.pc" "$work/good"
PKG_CONFIG_PATH=$work/good/lib/pkgconfig configure pc
says pc "libnfb found through pkg-config's nfb-framework (prefix $work/good): $work/good/include/nfb/nfb.h"
build pc nfb-pcie-telemetry
grep -q -- "-isystem $work/good/include" "$work/pc/compile_commands.json" && ok || bad "pc: libnfb's headers are not included as system headers"
"$work/pc/bin/nfb-pcie-telemetry" -V | grep -q 'libnfb backend built in' && ok || bad "pc: -V: $("$work/pc/bin/nfb-pcie-telemetry" -V)"
LIBNFB_DEFAULT_DEV=fake0 PT_SYSFS_ROOT=$work/no-sys "$work/pc/bin/nfb-pcie-telemetry" --list-devices >"$work/out" 2>&1
grep -Eq '^  fake0 +0 +2\.1 +1 +/firmware/mi_bus0/pcie_telemetry_mi$' "$work/out" &&
	grep -Eq '^  fake0 +1 +2\.1 +2 +/firmware/mi_bus1/pcie_telemetry_mi$' "$work/out" && ok ||
	bad "pc: --list-devices through the fake libnfb: $(cat "$work/out")"
LIBNFB_DEFAULT_DEV=nothing "$work/pc/bin/nfb-pcie-telemetry" --list-devices >"$work/out" 2>&1
grep -Eq '^  nothing +- +- +- +libnfb cannot open it' "$work/out" && ok || bad "pc: a device libnfb cannot open: $(head -3 "$work/out")"

# 3. a .pc with prefix=/usr, the files elsewhere (as ndk-sw installs it)
pc "$work/wrong/pkgconfig/nfb-framework.pc" /usr
PKG_CONFIG_PATH=$work/wrong/pkgconfig configure wrong
if [ -z "$own" ]; then
	says wrong "libnfb unusable: pkg-config's nfb-framework (prefix /usr) names /usr/include, but it has no nfb/nfb.h"
	says wrong "give -DNFB_ROOT=DIR"
	build wrong pt_bus
	grep -q 'PT_HAVE_NFB' "$work/wrong/compile_commands.json" && bad "wrong: the backend is built" || ok
fi

# 4. headers and library without a .pc
cp -r "$work/good" "$work/root"
rm -rf "$work/root/lib/pkgconfig"
configure root -DNFB_ROOT="$work/root"
says root "libnfb found through NFB_ROOT=$work/root: $work/root/include/nfb/nfb.h, $work/root/lib/libnfb.so"
build root pt_bus
grep -q -- "-isystem $work/root/include" "$work/root/compile_commands.json" && ok || bad "root: not a system header"

# 5. NFB_ROOT with the header but no library
mkdir -p "$work/half/include/nfb"
cp "$work/good/include/nfb/nfb.h" "$work/half/include/nfb/"
configure half -DNFB_ROOT="$work/half"
says half "libnfb unusable: NFB_ROOT=$work/half names .*, but it has no libnfb.so"

finish test_nfb_detect
