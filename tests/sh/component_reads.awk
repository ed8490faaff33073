# Compare the R lines of a COMPONENT_EXPECTED file (first file) with those
# a model printed (second file): same reads in the same order (edge and
# address), data equal under the expected mask.  Prints the first
# difference and exits 1.  Usage: awk -f component_reads.awk EXPECTED GOT
FNR == NR { if ($1 == "R") { ne++; e[ne] = $2 " " $3; d[ne] = $4; m[ne] = $5 } next }
$1 == "R" { ng++; g[ng] = $2 " " $3; gd[ng] = $4 }
function hex(s,   i, v, c) { v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
	return v }
function band(a, b,   r, bit) { r = 0; bit = 1
	while (a > 0 && b > 0) { if (a % 2 == 1 && b % 2 == 1) r += bit; a = int(a / 2); b = int(b / 2); bit *= 2 }
	return r }
END {
	if (ne != ng) { print "reads: expected " ne ", got " ng; exit 1 }
	for (i = 1; i <= ne; i++) {
		if (e[i] != g[i]) { print "read " i ": expected " e[i] ", got " g[i]; exit 1 }
		if (band(hex(gd[i]), hex(m[i])) != hex(d[i])) { print "read " i " (" e[i] "): expected " d[i] " mask " m[i] ", got " gd[i]; exit 1 }
	}
}
