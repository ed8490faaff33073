#!/usr/bin/env bash
# --diagnose, --compare and --sweep of nfb-pcie-telemetry as a user runs
# them:
#  - without --diagnose the text and the JSON of every public report case
#    are what they were; with it the text gets a section at its end and
#    the JSON a "diagnosis" array after "data" (the rest byte-identical);
#  - the -j structure: one entry per endpoint and direction, level 1
#    sums to 100 %, level 2 to the stalled share, a bottleneck from the
#    list; "sim_truth" on a simulated card only;
#  - --compare of two devices: both sides, the change, both diagnoses;
#  - --sweep: one column per value, the bottleneck per value;
#  - errors: one line, nothing on standard output, exit 2 for usage.
#
# Usage: test_tool_diagnose.sh BIN_DIR TESTS_DIR
set -u
. "$(dirname "$0")/tool_harness.sh" "$(cd "$1" && pwd)" "$(cd "$2" && pwd)"
command -v jq >/dev/null || { echo "FAIL: jq is missing (scripts/install-deps.sh)"; exit 1; }
T="-t 0.005"

# ---- byte identity --------------------------------------------------------
for args in "$cases"/*.args; do
	name=$(basename "$args" .args)
	[ "$(cat "$cases/$name.rc")" = 0 ] || continue
	read -r -a a <"$args"
	case " ${a[*]} " in *" -c "*) continue ;; esac
	(cd "$cases" && "$tool" -d "image:$name.regs" "${a[@]}") >"$work/plain" 2>/dev/null
	(cd "$cases" && "$tool" -d "image:$name.regs" "${a[@]}" --diagnose) >"$work/diag" 2>"$work/err"
	rc=$?
	want=$cases/$name.out
	[ -f "$cases/$name.mod.out" ] && want=$cases/$name.mod.out
	if ! cmp -s "$work/plain" "$want"; then
		bad "$name: the report without --diagnose changed"
		continue
	fi
	# nothing on stderr but notes (two hand-made cases get one: their
	# clocks hardly run) and the warning of the 33-bit cases, whose
	# interval is longer than their wrap time (docs/series.md "Wrap safety")
	if [ $rc -ne 0 ] || grep -Eqv '^nfb-pcie-telemetry: (note|warning): ' "$work/err"; then
		bad "$name --diagnose: rc $rc, $(head -1 "$work/err")"
		continue
	fi
	if [[ " ${a[*]} " == *" -j "* ]]; then
		# the JSON up to its last "\n}" is the plain one up to its own
		head -c -3 "$want" >"$work/want-prefix"
		head -c "$(stat -c %s "$work/want-prefix")" "$work/diag" >"$work/got-prefix"
		cmp -s "$work/want-prefix" "$work/got-prefix" && jq -e '.diagnosis | length > 0' \
			"$work/diag" >/dev/null && ok || bad "$name -j --diagnose: not the plain JSON plus a diagnosis"
	else
		head -c "$(stat -c %s "$want")" "$work/diag" | cmp -s - "$want" &&
			grep -q '^Bottleneck diagnosis' "$work/diag" && ok ||
			bad "$name --diagnose: not the plain text plus a section"
	fi
done

# ---- the JSON structure -------------------------------------------------------
check_json() { # FILE ENDPOINTS
	jq -e --argjson eps "$2" '
	  (.diagnosis | length) == 2 * $eps and
	  all(.diagnosis[];
	      (.direction == "read" or .direction == "write") and
	      (.bottleneck | IN("idle", "link-down", "source", "pcie-link", "pcie-endpoint",
	                        "pcie-tags", "tag-fifo", "completion-space",
	                        "completion-headers", "dma-consumer", "dma-bus")) and
	      ((.tree.children | map(.pct) | add) - 100 | fabs) < 1e-6 and
	      ((.tree.children[1].children | map(.pct) | add) - .tree.children[1].pct
	       | fabs) < 1e-6)' "$1" >/dev/null
}
for dev in sim:tags-starved sim:two-endpoints sim:link-down "image:$cases/four_ep_wide.regs" \
	"image:$cases/zero_cycles.regs"; do
	"$tool" -d "$dev" $T -j --diagnose >"$work/j" 2>"$work/err"
	eps=$(jq '.data.config.pcie_endpoints' "$work/j")
	[ $? -eq 0 ] && check_json "$work/j" "$eps" && ok || bad "$dev -j --diagnose: structure"
	case $dev in
	sim*) jq -e --argjson eps "$eps" '(.sim_truth | length) == $eps and
		  all(.sim_truth[]; .buses | length > 0)' "$work/j" >/dev/null && ok ||
		bad "$dev: no sim_truth" ;;
	*) jq -e 'has("sim_truth") | not' "$work/j" >/dev/null && ok || bad "$dev: a sim_truth" ;;
	esac
done
# the estimate holds the truth, and is tight where the tags limit
"$tool" -d sim:tags-starved $T -j --diagnose >"$work/j"
jq -e '.diagnosis[0].bottleneck == "pcie-tags" and .diagnosis[0].tag_hold as $h |
       .sim_truth[0].tag_hold_ns as $t | $h.lo_ns <= $t and $t <= $h.hi_ns and
       $h.hi_ns <= 1.5 * $h.lo_ns' "$work/j" >/dev/null && ok || bad "tags-starved: tag_hold vs truth"
# totals: the holding time in cycles only
"$tool" -d sim:tags-starved -t 0 -j --diagnose >"$work/j"
jq -e '.seconds == null and .diagnosis[0].tag_hold.lo_ns == null and
       .diagnosis[0].tag_hold.lo_cycles > 0' "$work/j" >/dev/null && ok || bad "totals: tag_hold in cycles"
# a padded bus: the corrected throughput and the note
cat >"$work/narrow.ini" <<'EOF'
[card]
base = tx-1500B
[generics]
DMA_DOWN_MFB_REGIONS = 1
EOF
"$tool" -d "sim:$work/narrow.ini" $T --diagnose >"$work/t"
grep -q 'corrected: PTC -> DMA0 (DOWN) really carried' "$work/t" && grep -q 'over-states it by' "$work/t" &&
	ok || bad "narrow DOWN: no correction note"

# ---- --compare ------------------------------------------------------------------
"$tool" --compare sim:tags-starved sim:tx-4K $T >"$work/c" 2>"$work/err"
[ $? -eq 0 ] && [ ! -s "$work/err" ] && grep -q '^A: sim:tags-starved' "$work/c" &&
	grep -q '^B: sim:tx-4K' "$work/c" &&
	grep -Eq '^no free PCIe tag +9[0-9.]+ +0\.00 +-9' "$work/c" &&
	grep -Eq '^read +pcie-tags +pcie-link' "$work/c" && ok || bad "--compare text"
"$tool" --compare "image:$cases/basic_t1.regs" "image:$cases/two_ep_two_ports.regs" -t 1 -j \
	>"$work/c" && jq -e '.a.device and .b.device and (.endpoints | length) == 2 and
	  (.diagnosis_a | length) == 2 and (.diagnosis_b | length) == 4 and
	  .endpoints[1].buses["PTC -> PCIe (RQ)"].words_pct.a == null' "$work/c" >/dev/null && ok ||
	bad "--compare -j of two layouts"

# ---- --sweep ------------------------------------------------------------------------
"$tool" -d sim:tags-starved --sweep endpoint.mrrs=512,1024,2048 $T >"$work/s" 2>"$work/err"
[ $? -eq 0 ] && [ ! -s "$work/err" ] && grep -Eq '^endpoint.mrrs +512 +1024 +2048$' "$work/s" &&
	grep -Eq '^ep0 read bottleneck +pcie-tags +dma-bus' "$work/s" && ok || bad "--sweep text"
"$tool" -d sim:tags-starved --sweep endpoint.host_latency_ns=500,1000,2000 $T -j >"$work/s" &&
	jq -e '.key == "endpoint.host_latency_ns" and (.runs | map(.value)) == ["500", "1000", "2000"]
	  and .runs[2].endpoints[0].bottleneck.read == "pcie-tags"' "$work/s" >/dev/null && ok ||
	bad "--sweep -j"

# ---- errors ---------------------------------------------------------------------------
err_case() { # STATUS PATTERN ARGS...
	local want=$1 pat=$2
	shift 2
	"$tool" "$@" >"$work/o" 2>"$work/e"
	local rc=$?
	if [ $rc -eq "$want" ] && [ ! -s "$work/o" ] && [ "$(wc -l <"$work/e")" -eq 1 ] &&
		grep -q -- "$pat" "$work/e"; then
		ok
	else
		bad "$* : rc $rc (want $want), stdout $(wc -c <"$work/o") bytes, stderr: $(head -2 "$work/e")"
	fi
}
err_case 2 'two devices' --compare sim
err_case 2 "stray argument 'x'" --compare sim sim:idle x
err_case 2 'not -d' --compare sim sim:idle -d sim
err_case 2 'not with -w' --compare sim sim:idle -w
err_case 1 'sim:nope' --compare sim sim:nope $T
err_case 2 'SECTION.KEY=V1' -d sim --sweep mrrs
err_case 2 "unknown key 'mrs'" -d sim --sweep endpoint.mrs=512 $T
err_case 2 'must be a power of two' -d sim --sweep endpoint.mrrs=512,300 $T
err_case 2 'unknown section' -d sim --sweep endpointx.mrrs=512 $T
err_case 2 'empty value' -d sim --sweep endpoint.mrrs=512,,1024 $T
err_case 2 'simulated card' -d "image:$cases/basic_t1.regs" --sweep endpoint.mrrs=512
err_case 2 'simulated card' --sweep endpoint.mrrs=512
err_case 2 'not with -c' -d sim --sweep endpoint.mrrs=512 -c

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
