# Sourced by the script tests that lay a register image out as the
# component's memory (a dump, a sysfs BAR): $cases is the folder of the
# report cases.

# first_image CASE OUT: the register image of the case's first image only
first_image() {
	awk 'NR == 1 { print; next } /^@snapshot/ { n++ } n <= 1 { print }' "$cases/$1.regs" >"$2"
}

# to_bin REGS OUT BASE SIZE: the first image's registers as little-endian
# words at byte BASE of a SIZE-byte file
to_bin() {
	LC_ALL=C awk -v base="$3" -v size="$4" '
		function hex(s,   v, i, c) {
			sub(/^0[xX]/, "", s); v = 0
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
				v = v * 16 + c
			}
			return v
		}
		{ sub(/#.*/, "") }
		/^@snapshot/ { n++; next }
		n == 1 && NF == 2 { w[base + hex($1)] = hex($2) }
		END {
			for (o = 0; o < size; o += 4) {
				v = (o in w) ? w[o] : 0
				for (k = 0; k < 4; k++) { printf "%c", v % 256; v = int(v / 256) }
			}
		}' "$1" >"$2"
}
