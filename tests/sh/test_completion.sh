#!/usr/bin/env bash
# The bash completion (completion/CMD, one per command): every command has
# one; it loads in a plain bash and through bash-completion's loader; it
# completes every option the command's --help lists and no other (so an
# option added to the tool without its completion fails here); after -d
# it completes the device prefixes, a preset name after sim: (the names
# come from the tool itself), file names after image:, sim: and mmap:,
# the CESNET PCI functions after pci:; ptmodel's commands and options.
#
# Usage: test_completion.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/pkg_lib.sh"
need bash || exit 1
comp=$SRC/completion

# complete FILE FUNC LINE: the candidates bash would offer at the end of
# LINE (a command line, the command's path first), one a line
cat >"$work/complete.sh" <<'END'
# complete.sh FILE FUNC LINE
source "$1" || exit 9
COMP_LINE=$3
COMP_POINT=${#COMP_LINE}
# the words as readline splits them: colons are words of their own
line=${COMP_LINE//:/ : }
read -ra COMP_WORDS <<< "$line"
[[ $COMP_LINE == *[[:space:]] || $COMP_LINE == *: ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
"$2"
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}"
END
complete_line() {
	PATH=$BIN:$PATH bash --norc --noprofile "$work/complete.sh" "$@"
}
t=nfb-pcie-telemetry
f=_nfb_pcie_telemetry

for cmd in $(commands); do
	[ -f "$comp/$cmd" ] && ok || bad "$cmd has no completion completion/$cmd"
	bash --norc -n "$comp/$cmd" 2>"$work/err" && ok || bad "completion/$cmd: $(cat "$work/err")"
	fn=$(sed -n 's/^complete -F \([^ ]*\) '"$cmd"'$/\1/p' "$comp/$cmd")
	[ -n "$fn" ] && ok || { bad "completion/$cmd registers no function for $cmd"; continue; }
	# the options: what "-" completes to, at the start and after each
	# command word (ptsimd start -), against --help
	{
		complete_line "$comp/$cmd" "$fn" "$cmd -"
		for sub in $(complete_line "$comp/$cmd" "$fn" "$cmd " | grep -v '^-'); do
			complete_line "$comp/$cmd" "$fn" "$cmd $sub -"
		done
	} | sed 's/=$//' | sort -u >"$work/completed"
	options "$cmd" >"$work/opts"
	diff "$work/opts" "$work/completed" >"$work/diff" && ok ||
		bad "$cmd: the completion's options differ from --help (< --help, > completion): $(tr '\n' ' ' <"$work/diff")"
done

# nfb-pcie-telemetry: devices
has() { grep -qx -- "$2" "$work/c" && ok || bad "'$1' does not complete to '$2': $(tr '\n' ' ' <"$work/c")"; }
hasnt() { grep -qx -- "$2" "$work/c" && bad "'$1' completes to '$2'" || ok; }
complete_line "$comp/$t" $f "$t --list-d" >"$work/c"; has "--list-d" --list-devices
complete_line "$comp/$t" $f "$t -d " >"$work/c"
for p in sim sim: image: pci: mmap: libnfb-ext:; do has "-d " "$p"; done
complete_line "$comp/$t" $f "$t -d ima" >"$work/c"; has "-d ima" image:
# a preset: bash has split "sim:tags" at the colon, the reply is the rest
complete_line "$comp/$t" $f "$t -d sim:tags" >"$work/c"; has "-d sim:tags" tags-starved
complete_line "$comp/$t" $f "$t --device=sim:tx" >"$work/c"
for p in tx-64B tx-1500B tx-4K; do has "--device=sim:tx" "$p"; done
complete_line "$comp/$t" $f "$t -d sim:" >"$work/c"
for p in $("$BIN/$t" --list-presets); do has "-d sim:" "$p"; done
complete_line "$comp/$t" $f "$t -t 1 -d sim:slow" >"$work/c"; has "-t 1 -d sim:slow" slow-dma-consumer
complete_line "$comp/$t" $f "$t --compare sim:idle sim:tag" >"$work/c"; has "--compare sim:idle sim:tag" tags-starved
complete_line "$comp/$t" $f "$t --compare sim:tx-4" >"$work/c"; has "--compare sim:tx-4" tx-4K
# metric names after -M, also after a comma
complete_line "$comp/$t" $f "$t -M ep0.rq.wor" >"$work/c"; has "-M ep0.rq.wor" ep0.rq.words_pct
complete_line "$comp/$t" $f "$t --metrics=ep0.rq.words_pct,ep0.brake.no_f" >"$work/c"
has "-M ...,ep0.brake.no_f" ep0.rq.words_pct,ep0.brake.no_free_tag_pct
# files after image:, sim:, mmap: and --record
mkdir -p "$work/d/sub"
: >"$work/d/r1.regs"
: >"$work/d/my.ini"
complete_line "$comp/$t" $f "$t -d image:$work/d/r" >"$work/c"; has "image:$work/d/r" "$work/d/r1.regs"
complete_line "$comp/$t" $f "$t -d sim:$work/d/m" >"$work/c"; has "sim:$work/d/m" "$work/d/my.ini"
complete_line "$comp/$t" $f "$t -d mmap:$work/d/s" >"$work/c"; has "mmap:$work/d/s" "$work/d/sub/"
complete_line "$comp/$t" $f "$t --record $work/d/r" >"$work/c"; has "--record $work/d/r" "$work/d/r1.regs"
# pci: the CESNET functions of the sysfs root
mkdir -p "$work/sys/bus/pci/devices/0000:03:00.0" "$work/sys/bus/pci/devices/0000:00:02.0"
echo 0x18ec >"$work/sys/bus/pci/devices/0000:03:00.0/vendor"
echo 0x8086 >"$work/sys/bus/pci/devices/0000:00:02.0/vendor"
PT_SYSFS_ROOT=$work/sys complete_line "$comp/$t" $f "$t -d pci:" >"$work/c"
has "-d pci:" "0000:03:00.0@"
hasnt "-d pci:" "0000:00:02.0@"
# after an option that takes a number, nothing
complete_line "$comp/$t" $f "$t -t " >"$work/c"; [ ! -s "$work/c" ] && ok || bad "-t completes to $(cat "$work/c")"

complete_line "$comp/$t" $f "$t -d libnfb-ext:$work/d/r" >"$work/c"; has "libnfb-ext:$work/d/r" "$work/d/r1.regs"
complete_line "$comp/$t" $f "$t -d libnfb-ext:/x/e.so:s" >"$work/c"; has "libnfb-ext:/x/e.so:s" "sim"

# the exporter: devices as for the tool
complete_line "$comp/nfb-pcie-telemetry-exporter" _nfb_pcie_telemetry_exporter \
	"nfb-pcie-telemetry-exporter -d sim:tx-1" >"$work/c"; has "exporter -d sim:tx-1" tx-1500B
complete_line "$comp/nfb-pcie-telemetry-exporter" _nfb_pcie_telemetry_exporter \
	"nfb-pcie-telemetry-exporter --web.l" >"$work/c"; has "exporter --web.l" --web.listen-address=

# ptsimd: its commands, a preset after sim:
complete_line "$comp/ptsimd" _ptsimd "ptsimd " >"$work/c"; for w in start run stop status; do has "ptsimd " $w; done
complete_line "$comp/ptsimd" _ptsimd "ptsimd start sim:two" >"$work/c"; has "ptsimd start sim:two" two-endpoints
complete_line "$comp/ptsimd" _ptsimd "ptsimd stop --" >"$work/c"; has "ptsimd stop --" --all

# ptmodel
complete_line "$comp/ptmodel" _ptmodel "ptmodel " >"$work/c"; has "ptmodel " probe; has "ptmodel " component
complete_line "$comp/ptmodel" _ptmodel "ptmodel probe $work/d/m" >"$work/c"; has "ptmodel probe" "$work/d/my.ini"

# through bash-completion's loader, as when installed in its folder
[ -f /usr/share/bash-completion/bash_completion ] ||
	bash "$SRC/scripts/install-deps.sh" test >"$work/deps.log" 2>&1 || cat "$work/deps.log"
if [ -f /usr/share/bash-completion/bash_completion ]; then
	mkdir -p "$work/user"
	ln -s "$comp" "$work/user/completions"
	out=$(BASH_COMPLETION_USER_DIR=$work/user bash --norc --noprofile -c '
		shopt -s extglob progcomp
		source /usr/share/bash-completion/bash_completion
		_completion_loader nfb-pcie-telemetry
		complete -p nfb-pcie-telemetry' 2>&1)
	[ "$out" = "complete -F _nfb_pcie_telemetry nfb-pcie-telemetry" ] && ok || bad "bash-completion's loader: $out"
else
	bad "bash-completion is not installed (scripts/install-deps.sh test)"
fi

finish test_completion
