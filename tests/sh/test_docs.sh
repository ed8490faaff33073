#!/usr/bin/env bash
# The documentation is true and complete without anything outside the
# repository: no doc names the shared specs, every relative link and every
# .md file a doc names exists in the repository; the README's sample
# report is what the tool prints for the recording it names, its
# tags-starved excerpt what the preset gives, its device table and the
# preset tables have every device and preset of the tool; the examples of
# docs/formats/ run as written (a register image by hand, a probe trace
# and what ptmodel prints for it, a scenario file).
# (tests/conformance/ holds copies of the shared conformance set, never
# edited: its README is not checked.)
#
# Usage: test_docs.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/pkg_lib.sh"
tool=$BIN/nfb-pcie-telemetry
cd "$SRC" || exit 1
find . \( -name '.git' -o -name 'build*' -o -path './tests/conformance' -o -path './debian' \) -prune -o \
	\( -name '*.md' -o -path './man/*' \) -type f -print | sort >"$work/docs"
[ "$(wc -l <"$work/docs")" -ge 10 ] && ok || bad "only $(wc -l <"$work/docs") docs found"

while read -r d; do
	grep -n 'shared/\|shared spec\|/work/' "$d" >"$work/hits" && bad "$d names something outside the repository: $(head -2 "$work/hits" | tr '\n' ' ')"
	dir=$(dirname "$d")
	# relative links: [text](path) and [text](path#anchor)
	for l in $(grep -o '\]([^)#[:space:]]*' "$d" | sed 's/^](//' | grep -v '^[a-z]*:' | grep -v '^$'); do
		t=$(cd "$dir" && realpath -m "$l")
		case $t in "$SRC"/*) ;; *) bad "$d links $l, outside the repository"; continue ;; esac
		[ -e "$t" ] && ok || bad "$d links $l, which does not exist"
	done
	# a .md file named in the text
	for m in $(sed 's/\\-/-/g' "$d" | grep -o '[A-Za-z0-9_][A-Za-z0-9_./-]*\.md\b' | sort -u); do
		[ -e "$dir/$m" ] || [ -e "$SRC/$m" ] || [ -e "$SRC/docs/$m" ] || [ -e "$SRC/docs/formats/$m" ] ||
			find "$SRC" -name "$(basename -- "$m")" -not -path '*/build*' | grep -q . && ok || bad "$d names $m, which is not in the repository"
	done
done <"$work/docs"

# the README's sample report: the recording it names, replayed
cases=tests/conformance/report
awk '/^## Reading a report/ { s = 1 } s && /^```$/ { if (c) exit; c = 1; next } c' README.md >"$work/sample"
grep -q "image:$cases/basic_t1.regs -t 1" README.md && ok || bad "the README does not name the sample's recording"
"$tool" -d "image:$cases/basic_t1.regs" -t 1 >"$work/got" 2>&1
cmp -s "$work/sample" "$work/got" && ok || bad "README's sample report differs from the tool's: $(diff "$work/sample" "$work/got" | head -4 | tr '\n' ' ')"
# the tags-starved excerpt: lines of the report of the command it names
grep -q 'nfb-pcie-telemetry -d sim:tags-starved -t 0.01' README.md && ok || bad "the tags-starved command is not in README.md"
"$tool" -d sim:tags-starved -t 0.01 >"$work/ts" 2>/dev/null
awk '/^### What if: tags-starved/ { s = 1 } s && /^```$/ { if (c) exit; c = 1; next } c' README.md >"$work/excerpt"
[ -s "$work/excerpt" ] && ok || bad "no tags-starved excerpt in README.md"
while IFS= read -r line; do
	grep -qxF -- "$line" "$work/ts" && ok || bad "README's tags-starved line is not in the report: '$line'"
done <"$work/excerpt"

# every device form of --help in the README's device table, every preset
# in the preset tables of README.md and docs/scenarios.md
for dev in image:FILE sim sim:PRESET sim:FILE pci:DOMAIN:BUS:DEV.FN mmap:FILE libnfb-ext:; do
	grep -q "^| \`$dev" README.md && ok || bad "device $dev is not in README.md's device table"
done
for p in $("$tool" --list-presets); do
	grep -q "^| .*\`$p\`" README.md && ok || bad "preset $p is not in README.md's preset table"
	grep -q "^| \`$p\`" docs/scenarios.md && ok || bad "preset $p is not in docs/scenarios.md's preset table"
done

# docs/formats: the examples, as written
sed -n '/^## Example: writing one by hand/,$p' docs/formats/register-image.md |
	awk '/^```$/ { if (c) exit; c = 1; next } c' >"$work/hand.regs"
"$tool" -d "image:$work/hand.regs" -t 1 >"$work/out" 2>&1
grep -q '^  PCIe clock 400.0 MHz, DMA clock 200.0 MHz$' "$work/out" && grep -q '^PTC -> PCIe (RQ)    0.00      25.00 ' "$work/out" &&
	ok || bad "the hand-written register image: $(head -3 "$work/out")"
sed -n '/^## Example/,$p' docs/formats/trace.md | awk '/^```$/ { n++; next } n == 1' >"$work/t.trace"
sed -n '/^## Example/,$p' docs/formats/trace.md | awk '/^```$/ { n++; next } n == 3' >"$work/t.expected"
"$BIN/ptmodel" probe "$work/t.trace" >"$work/out" 2>&1
[ -s "$work/t.expected" ] && cmp -s "$work/out" "$work/t.expected" && ok || bad "the probe trace example: $(diff "$work/out" "$work/t.expected" | head -3 | tr '\n' ' ')"
sed -n '/^## Example/,$p' docs/formats/scenario.md | awk '/^```$/ { if (c) exit; c = 1; next } c' >"$work/two.ini"
"$tool" -d "sim:$work/two.ini" -t 0.002 >"$work/out" 2>&1
grep -q '^PCIe telemetry - 2 endpoint(s), 1 DMA port(s) per endpoint$' "$work/out" &&
	[ "$(grep -c '^PTC -> DMA0 (DOWN)  0.00 ' "$work/out")" -eq 1 ] && ok || bad "the scenario example: $(head -3 "$work/out")"

finish test_docs
