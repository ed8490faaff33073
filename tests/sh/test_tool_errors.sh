#!/usr/bin/env bash
# Every error of nfb-pcie-telemetry: a non-zero exit status (2 for usage
# errors, 1 for runtime errors), nothing on stdout, and exactly one line
# "nfb-pcie-telemetry: ..." on stderr that names the thing at fault.
#
# Usage: test_tool_errors.sh BIN_DIR TESTS_DIR
set -u
# tool, cases, work, ok, bad
. "$(dirname "$0")/tool_harness.sh" "$@"
# the tests below take permissions away inside $work
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
# mkdev FILE STATUS
. "$(dirname "$0")/component_dev.sh"

# expect RC SUBSTRING ARGS...
expect() {
	local want_rc=$1 what=$2
	shift 2
	"$tool" "$@" >"$work/out" 2>"$work/err" </dev/null
	local rc=$? lines
	lines=$(wc -l <"$work/err")
	local why=""
	[ "$rc" -eq "$want_rc" ] || why="exit status $rc, expected $want_rc"
	[ -s "$work/out" ] && why="$why; stdout not empty"
	[ "$lines" -eq 1 ] || why="$why; $lines lines on stderr"
	head -1 "$work/err" | grep -q '^nfb-pcie-telemetry: ' || why="$why; no 'nfb-pcie-telemetry: ' prefix"
	grep -qF -- "$what" "$work/err" || why="$why; stderr lacks '$what'"
	if [ -z "$why" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $* :$why"
		sed 's/^/    stderr: /' "$work/err" | head -5
	fi
}

# an image with the basic configuration and one register changed
# patch NAME OFFSET VALUE
patch() {
	sed -E "s/^$2 0x[0-9A-Fa-f]+/$2 $3/" "$cases/basic_t1.regs" >"$work/$1.regs"
	grep -q "^$2 $3" "$work/$1.regs" || { echo "FAIL: cannot build $1"; fail=$((fail + 1)); }
}

# --- usage errors (exit 2)
expect 2 "-t 'abc': not a number" -d "image:$cases/basic_t1.regs" -t abc
expect 2 "-t 'nan'" -d "image:$cases/basic_t1.regs" -t nan
expect 2 "-t '': not a number" -d "image:$cases/basic_t1.regs" -t ''
expect 2 "-t '1s'" -d "image:$cases/basic_t1.regs" -t 1s
expect 2 "-t 'inf'" -d "image:$cases/basic_t1.regs" -t inf
expect 2 "-t '0x10'" -d "image:$cases/basic_t1.regs" -t 0x10
expect 2 "option '--interval' needs a value" -d "image:$cases/basic_t1.regs" --interval
expect 2 "-t needs a value" -d "image:$cases/basic_t1.regs" -t
expect 2 "-i 'x': not a valid index" -d "image:$cases/basic_t1.regs" -i x
expect 2 "-i '-1'" -d "image:$cases/basic_t1.regs" -i -1
expect 2 "-i '1.5'" -d "image:$cases/basic_t1.regs" -i 1.5
expect 2 "-i '99999999999999999999'" -d "image:$cases/basic_t1.regs" -i 99999999999999999999
expect 2 "unknown option '--foo'" -d "image:$cases/basic_t1.regs" --foo
expect 2 "unknown option -x" -d "image:$cases/basic_t1.regs" -x
expect 2 "option '--json' takes no value ('--json=1')" -d "image:$cases/basic_t1.regs" --json=1
expect 2 "option '--in' is ambiguous" -d "image:$cases/basic_t1.regs" --in=1
expect 2 "stray argument 'extra'" -d "image:$cases/basic_t1.regs" extra
expect 2 "-d: empty device" -d ''
expect 2 "--record $work/missing/rec.regs" -d "image:$cases/basic_t1.regs" --record "$work/missing/rec.regs"
expect 2 "--record $work: is a folder" -d "image:$cases/basic_t1.regs" --record "$work"
expect 2 "-c takes no reading" -d "image:$cases/basic_t1.regs" -c --record "$work/rec.regs"
# series and --count (docs/series.md)
b=image:$cases/basic_t1.regs
expect 2 "--count 'x': not a number of reports" -d "$b" --count x
expect 2 "--count '': not a number of reports" -d "$b" --count ''
expect 2 "--count '-1': not a number of reports" -d "$b" --count -1
expect 2 "--count '2.5': not a number of reports" -d "$b" --count 2.5
expect 2 "--count '0': at least one report" -d "$b" --count 0
expect 2 "--count '4294967296': more than 4294967295 reports" -d "$b" --count 4294967296
expect 2 "--count '99999999999999999999999': more than" -d "$b" --count 99999999999999999999999
expect 2 "option '--count' needs a value" -d "$b" --count
expect 2 "--csv and --jsonl are two formats" -d "$b" --csv --jsonl
expect 2 "--csv prints a series, -j the upstream JSON" -d "$b" --csv -j
expect 2 "--jsonl prints a series, -j the upstream JSON" -d "$b" -j --jsonl
expect 2 "--csv: -c clears the counters" -d "$b" --csv -c
expect 2 "--count: -c clears the counters" -d "$b" -c --count 2
# -c takes no reading: what would be computed from one is refused, not
# ignored after the card was cleared (a bad metric file among them)
expect 2 "-M: -c clears the counters and takes no reading" -d "$b" -c -M report
expect 2 "-M: -c clears the counters" -d "$b" -M nosuch -c
expect 2 "--metric-file: -c clears the counters" -d "$b" -c --metric-file "$work/none.json"
expect 2 "--diagnose: -c clears the counters" -d "$b" --clear --diagnose
expect 2 "--list prints the names and exits: without --csv" -d "$b" --list --csv
expect 2 "--list prints the names and exits: without --jsonl" --list --jsonl
expect 2 "option '--csv' takes no value" -d "$b" --csv=1
expect 2 "--diagnose adds to the report, --csv prints a series" -d "$b" --csv --diagnose
expect 2 "--compare: not with --jsonl" --compare "$b" "$b" --jsonl
expect 2 "--compare: given twice" --compare "$b" "$b" --compare "$b" "$b"
expect 2 "--sweep: not with --count" -d sim --sweep endpoint.mrrs=512,1024 --count 2
# an interval too long for the counters of the layout, with -w: refused
# before anything is printed
expect 2 "-t 1 with -w: a 33-bit counter can wrap in 0.693 s" -d "image:$cases/wrap33.regs" -t 1 -w
expect 2 "-t 1 with --count: a 33-bit counter can wrap" -d "image:$cases/wrap33.regs" -t 1 --count 3 --jsonl
[ -e "$work/rec.regs" ] && { echo "FAIL: --record with -c created the file"; fail=$((fail + 1)); }

# --- no such device, permission denied (exit 1)
expect 1 "$work/none.regs: cannot open the register image: No such file" -d "image:$work/none.regs"
expect 1 "image: no file name" -d "image:"
# a negative -t is a usage error, found before any device is opened
expect 2 "-t '-1': a negative interval" -d "image:$work/none.regs" -t -1
expect 1 "no such PCI device" -d "pci:ffff:ff:1f.7@0x8000"
expect 1 "bad PCI device" -d "pci:0000:03:00.0"
expect 1 "-i 1: image:$cases/basic_t1.regs holds a single PCIe telemetry component" \
	-d "image:$cases/basic_t1.regs" -i 1
expect 1 "$work/none.bin: cannot open" -d "mmap:$work/none.bin"
if "$tool" -V | grep -q "libnfb backend not built"; then
	expect 1 "/dev/nfb7: this build has no libnfb support" -d /dev/nfb7
	expect 1 "this build has no libnfb support" -t 0
	LIBNFB_DEFAULT_DEV=/dev/nfb5 expect 1 "/dev/nfb5: this build has no libnfb support" -t 0
else
	expect 1 "/dev/nfb7" -d /dev/nfb7
fi
printf 'pcie-telemetry-regs 1\n@snapshot 1\n' >"$work/noperm.regs"
chmod 000 "$work/noperm.regs"
if [ "$(id -u)" -ne 0 ]; then
	expect 1 "Permission denied" -d "image:$work/noperm.regs"
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	chmod 755 "$work"
	tool_saved=$tool
	tool="setpriv --reuid=65534 --regid=65534 --clear-groups $tool_saved"
	expect_unpriv() {
		$tool "$@" >"$work/out" 2>"$work/err" </dev/null
		local rc=$?
		if [ $rc -eq 1 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
			grep -q "Permission denied" "$work/err"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL: permission denied as nobody: rc $rc"
			cat "$work/err"
		fi
	}
	expect_unpriv -d "image:$work/noperm.regs"
	tool=$tool_saved
else
	echo "note: running as root without setpriv: permission check skipped"
fi

# --- wrong component, inconsistent layout (exit 1)
expect 1 "image:$cases/err_bad_magic.regs: MAGIC = 0x12345678: not a PCIe telemetry component" -d "image:$cases/err_bad_magic.regs" -t 0
expect 1 "VERSION = 0x00010000: major version 1" -d "image:$cases/err_bad_major.regs" -t 1
patch entries 0x000C 0x30300020
expect 1 "CFG_LAYOUT = 0x30300020: 32 counters cannot hold 1 endpoint x 48 channels" -d "image:$work/entries.regs"
patch channels 0x0010 0x0E020220
expect 1 "CFG_PCIE = 0x0E020220: 32 channels" -d "image:$work/channels.regs"
patch regions 0x002C 0x02020203
expect 1 "CFG_REGIONS = 0x02020203: the RQ bus has 3 regions" -d "image:$work/regions.regs"
patch width 0x000C 0x30200040
expect 1 "CFG_LAYOUT = 0x30200040: counter width 32 bits" -d "image:$work/width.regs"
patch hist 0x0034 0x00000208
expect 1 "CFG_HIST = 0x00000208" -d "image:$work/hist.regs"
# -c checks that it is the component (magic, major version), but like
# upstream it clears a component whose layout it could not read
expect 1 "MAGIC = 0x12345678" -d "image:$cases/err_bad_magic.regs" -c
expect 1 "VERSION = 0x00010000" -d "image:$cases/err_bad_major.regs" -c
if [ "$("$tool" -d "image:$work/entries.regs" -c 2>/dev/null)" = "Counters cleared." ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL: -c on an inconsistent layout does not clear"
fi

# --- malformed and truncated images (exit 1, FILE:LINE)
head -c 2000 "$cases/basic_t1.regs" | head -n -0 >"$work/trunc.regs"
# cut in the middle of a register line: "0x80" alone is a broken line
lines=$(wc -l <"$work/trunc.regs")
expect 1 "$work/trunc.regs:$((lines + 1)): expected 'OFFSET VALUE'" -d "image:$work/trunc.regs" -t 0
head -n 4 "$cases/basic_t1.regs" >"$work/noimage.regs"
expect 1 "$work/noimage.regs:4: the file holds no image" -d "image:$work/noimage.regs" -t 0
sed '7s/.*/0x0008 0x00020101 0x1/' "$cases/basic_t1.regs" >"$work/extra.regs"
expect 1 "$work/extra.regs:7: expected 'OFFSET VALUE'" -d "image:$work/extra.regs"
sed '5s/.*/@snapshot -100/' "$cases/basic_t1.regs" >"$work/neg.regs"
expect 1 "$work/neg.regs:5: bad time '-100'" -d "image:$work/neg.regs"
sed '96s/.*/@snapshot 99/' "$cases/basic_t1.regs" >"$work/back.regs"
expect 1 "$work/back.regs:96: @snapshot 99 is earlier" -d "image:$work/back.regs"
sed '1s/.*/pcie-telemetry-regs 2/' "$cases/basic_t1.regs" >"$work/v2.regs"
expect 1 "$work/v2.regs:1: unsupported format version '2'" -d "image:$work/v2.regs"
printf '\x00\x01binary' >"$work/bin.regs"
expect 1 "$work/bin.regs:1:" -d "image:$work/bin.regs"
expect 1 "err_one_image.regs: SNAPSHOT number 2 asked for, but the file holds only 1 image" \
	-d "image:$cases/err_one_image.regs" -t 1
expect 1 "$cases: cannot read the register image" -d "image:$cases"

# --- a component whose busy bit never clears (exit 1, after the 1 s timeout)
mkdev "$work/busy.bin" 1
expect 1 "STATUS busy did not clear within 1.0 s" -d "mmap:$work/busy.bin" -t 0
expect 1 "STATUS busy did not clear within 1.0 s" -d "mmap:$work/busy.bin" -c
expect 1 "mmap:$work/busy.bin@zz: bad offset" -d "mmap:$work/busy.bin@zz"
expect 1 "do not fit" -d "mmap:$work/busy.bin@0x10"

# --- a full standard output is a failure, whatever was to be printed
if [ -w /dev/full ]; then
	for args in "-V" "-h" "-d image:$cases/basic_t1.regs -t 1" "-d image:$cases/basic_t1.regs -c"; do
		# shellcheck disable=SC2086
		"$tool" $args >/dev/full 2>"$work/err"
		rc=$?
		if [ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
			grep -q "^nfb-pcie-telemetry: .*No space left on device" "$work/err"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "FAIL: $args >/dev/full: status $rc, stderr: $(cat "$work/err")"
		fi
	done
fi

# --- a failure never leaves a record behind
expect 1 "SNAPSHOT number 2" -d "image:$cases/err_one_image.regs" -t 1 --record "$work/r.regs"
if ls -A "$work" | grep -q '^\.r\.regs\|^r\.regs$'; then
	echo "FAIL: a failed run left a record file: $(ls -A "$work" | grep r.regs)"
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi

echo "test_tool_errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
