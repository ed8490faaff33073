#!/usr/bin/env bash
# nfb-pcie-telemetry-exporter: `promtool check metrics` passes on what it
# serves for several layouts at once (image devices with 1, 2 and 4
# endpoints, 2 DMA ports, padding regions, unnamed BRAKE reasons, a flag,
# 33- and 64-bit counters; two simulated cards, one with 2 DMA ports),
# every family has HELP and TYPE, the OpenMetrics answer is well formed
# (# EOF, _total only on counters, UNIT matching the name), and the
# values are those of the images: counters are the raw counters of the
# last snapshot, bytes = items x MFB_ITEM_BYTES.
#
# Usage: test_exporter_promtool.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/exporter_lib.sh" "$@"
need promtool curl python3

images="basic_t1 two_ep_two_ports four_ep_wide padding_regions unnamed_reasons flag_lost_deltas wrap33 huge_totals_64"
args=()
for c in $images; do args+=(-d "image:$cases/$c.regs"); done
start_exporter ex "${args[@]}" -d sim -d sim:mixed || { bad "exporter did not start: $(cat "$work/ex.log")"; exit 1; }
# every image read to its last snapshot, both cards polled twice
for ((i = 0; i < 100; i++)); do
	curl -sf "$ex_url/metrics" >"$work/text" || break
	n=$(grep -c 'no snapshot left in the image' "$work/ex.log")
	n=$((n + $(awk '/^pcie_telemetry_polls_total\{device="sim/ && $2 >= 2 { n++ } END { print n + 0 }' "$work/text")))
	[ "$n" -ge 10 ] && break
	sleep 0.2
done
[ "$n" -ge 10 ] && ok || bad "only $n of 10 devices read through"
curl -sf "$ex_url/metrics" >"$work/text"
curl -sf -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	-D "$work/om.head" "$ex_url/metrics" >"$work/om" && ok || bad "OpenMetrics scrape failed"

promtool check metrics <"$work/text" >"$work/promtool.out" 2>&1 && ok ||
	bad "promtool check metrics: $(head -5 "$work/promtool.out")"

# every family: HELP then TYPE, and one family name only once
awk '/^# HELP/ { h[$3]++ } /^# TYPE/ { if (!($3 in h)) print "no HELP: " $3; t[$3]++ }
     !/^#/ { n = $1; sub(/\{.*/, "", n); f = n; if (!(f in t)) print "no TYPE: " f }
     END { for (k in t) if (t[k] > 1) print "twice: " k }' "$work/text" >"$work/fam"
[ ! -s "$work/fam" ] && ok || bad "families: $(head -3 "$work/fam")"

# OpenMetrics: content type, # EOF last, counters declared without _total
grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0' "$work/om.head" && ok ||
	bad "OpenMetrics content type: $(grep -i content-type "$work/om.head")"
[ "$(tail -n 1 "$work/om")" = "# EOF" ] && ok || bad "OpenMetrics answer does not end with # EOF"
awk '/^# TYPE/ { type[$3] = $4; if ($3 ~ /_total$/) print "TYPE with _total: " $3 }
     /^# UNIT/ { if ($3 !~ ("_" $4 "$")) print "UNIT not at the end of the name: " $3 }
     !/^#/ { n = $1; sub(/\{.*/, "", n); f = n; sub(/_total$/, "", f); sub(/_info$/, "", f)
	     if (!(f in type)) print "sample without family: " n
	     else if ((type[f] == "counter") != (n ~ /_total$/)) print "_total mismatch: " n
	     else if ((type[f] == "info") != (n ~ /_info$/)) print "_info mismatch: " n }' \
	"$work/om" >"$work/omcheck"
[ ! -s "$work/omcheck" ] && ok || bad "OpenMetrics: $(head -3 "$work/omcheck")"
# the same samples in both formats (of the images: the cards run on)
grep '^pcie_telemetry_[a-z_0-9]*{device="image:' "$work/text" | grep -v _seconds | sort >"$work/s1"
grep '^pcie_telemetry_[a-z_0-9]*{device="image:' "$work/om" | grep -v _seconds | sort >"$work/s2"
cmp -s "$work/s1" "$work/s2" && ok || bad "text and OpenMetrics samples differ"

# values: the last snapshot of basic_t1 (raw, 48 bits, no wrap in it)
dev="image:$cases/basic_t1.regs"
# (-t 0 reads the first snapshot of a file, the exporter serves the last)
awk 'BEGIN { n = 0 } /^@snapshot/ { n++ } n != 1 { print }' "$cases/basic_t1.regs" >"$work/last.regs"
want=$("$bin/nfb-pcie-telemetry" -d "image:$work/last.regs" -t 0 -j | python3 -c '
import json, sys
e = json.load(sys.stdin)["data"]["endpoints"][0]
print(e["pcie_cycles"], e["buses"]["PCIe -> PTC (RC)"]["items"], e["tags_free_min"])')
q="device=\"$dev\""
got="$(sample "$work/text" pcie_telemetry_pcie_cycles_total "$q") $(sample "$work/text" pcie_telemetry_bus_items_total "$q.*bus=\"rc\"") $(sample "$work/text" pcie_telemetry_tags_free_lowest "$q")"
[ "$got" = "$want" ] && ok || bad "basic_t1 values: got '$got', want '$want'"
items=$(sample "$work/text" pcie_telemetry_bus_items_total "$q.*bus=\"rc\"")
bytes=$(sample "$work/text" pcie_telemetry_bus_bytes_total "$q.*bus=\"rc\"")
[ -n "$items" ] && [ "$bytes" = "$((items * 4))" ] && ok || bad "bytes $bytes != 4 x items $items"
# labels from the counter names: a padding region, an unnamed reason, 2 ports, 4 endpoints
grep -q "^pcie_telemetry_bus_padding_region_cycles_total{device=\"image:$cases/padding_regions.regs\"" "$work/text" &&
	ok || bad "no padding region series"
grep -q "^pcie_telemetry_brake_cycles_total{device=\"image:$cases/unnamed_reasons.regs\",endpoint=\"0\",reason=\"reason6\",stream=\"up\"}" "$work/text" &&
	ok || bad "no reason6 series"
grep -q "^pcie_telemetry_bus_words_total{device=\"image:$cases/two_ep_two_ports.regs\",endpoint=\"1\",bus=\"down\",port=\"1\"}" "$work/text" &&
	ok || bad "no endpoint 1 down port 1 series"
grep -q "^pcie_telemetry_brake_cycles_total{device=\"sim\",endpoint=\"0\",reason=\"no_free_tag\",stream=\"up\"}" "$work/text" &&
	ok || bad "no no_free_tag series"
grep -q "^pcie_telemetry_hist_band_cycles_total{device=\"sim\",endpoint=\"0\",resource=\"tags\",band=\"le_eighth\"}" "$work/text" &&
	ok || bad "no tags le_eighth series"
[ "$(sample "$work/text" pcie_telemetry_lost_deltas "device=\"image:$cases/flag_lost_deltas.regs\"")" = 1 ] &&
	ok || bad "LOST DELTAS not shown"
[ "$(grep -c "^pcie_telemetry_link_up{device=\"image:$cases/four_ep_wide.regs\"" "$work/text")" = 4 ] &&
	ok || bad "four_ep_wide: not 4 endpoints"
[ "$(sample "$work/text" pcie_telemetry_up 'device="sim:mixed"')" = 1 ] && ok || bad "sim:mixed not up"

stop_exporter ex && ok || bad "exit status $? after SIGTERM"
finish
