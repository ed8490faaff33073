#!/usr/bin/env bash
# What nfb-pcie-telemetry reads and writes may not destroy a file, hang or
# run out of memory (issue 8):
#  - --record writes only regular files: a FIFO, a device, a socket, a
#    folder and the file the device reads are refused before anything is
#    measured, and stay as they were; a symbolic link is followed;
#  - closed standard descriptors never become the recording;
#  - an image or scenario that is a FIFO, a device or a sparse file over
#    the limit is refused at once, in bounded memory;
#  - SIGINT while the output pipe is full ends with status 0 and whole
#    reports only;
#  - an argument with a control character gives a one-line error.
# Every case runs under a time limit (no hang) and makes its own special
# files in a temporary folder, never in /dev.
#
# Usage: test_tool_files.sh BIN_DIR TESTS_DIR
set -u
bin=$1
data=$2
tool=$(cd "$bin" && pwd)/nfb-pcie-telemetry
cases=$(cd "$data" && pwd)/conformance/report
[ -x "$tool" ] || { echo "FAIL: $tool is not built"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
. "$(dirname "$0")/component_dev.sh"
. "$(dirname "$0")/bounded.sh"
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
img=$work/in.regs
cp "$cases/basic_t1.regs" "$img"

# one_error RC TEXT ARGS...: status RC within 20 s and 300 MB, nothing on
# stdout, exactly one line on stderr, holding TEXT
one_error() {
	local want=$1 what=$2
	shift 2
	bounded 300 20 "$tool" "$@" >"$work/out" 2>"$work/err" </dev/null
	local rc=$?
	if [ $rc -eq "$want" ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
		grep -q '^nfb-pcie-telemetry: ' "$work/err" && grep -qF -- "$what" "$work/err"; then
		ok
	else
		bad "$* : rc $rc (want $want), stderr: $(head -c 400 "$work/err")"
	fi
}
# state FILE: what it is and holds, to see that it did not change
state() { stat -c '%F %i %s %t:%T' "$1"; [ -f "$1" ] && sha256sum <"$1"; }
no_temp_left() {
	ls -A "$work" | grep -q '^\..*\.[A-Za-z0-9]\{6\}$' && bad "a temporary file was left: $(ls -A "$work")" || ok
}

# --- --record refuses what is not a regular file, before measuring: the
# device is a component behind mmap:,rw whose COMMAND register would
# show a SNAPSHOT
mkdev "$work/dev.bin" 0
dev_state=$(state "$work/dev.bin")
mkfifo "$work/fifo"
targets="fifo"
if mknod "$work/null" c 1 3 2>/dev/null; then targets="$targets null"; else echo "note: no mknod here: the device case is skipped"; fi
if command -v python3 >/dev/null &&
	python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$work/sock"; then
	targets="$targets sock"
fi
mkdir "$work/folder"
ln -s fifo "$work/link-to-fifo"
targets="$targets folder link-to-fifo"
for t in $targets; do
	before=$(state "$work/$t")
	case $t in
	fifo | link-to-fifo) what="is a FIFO; a recording replaces only a regular file" ;;
	null) what="is a character device; a recording replaces only a regular file" ;;
	sock) what="is a socket; a recording replaces only a regular file" ;;
	folder) what="is a folder" ;;
	esac
	one_error 2 "--record $work/$t" -d "mmap:$work/dev.bin,rw" -t 0 --record "$work/$t"
	grep -qF -- "$what" "$work/err" && ok || bad "--record $t: $(cat "$work/err")"
	[ "$(state "$work/$t")" = "$before" ] && ok || bad "--record $t changed it: $(state "$work/$t")"
done
grep -qF "(a link to $work/fifo)" <("$tool" -d "image:$img" --record "$work/link-to-fifo" 2>&1) &&
	ok || bad "--record through a link does not name the target"
[ "$(state "$work/dev.bin")" = "$dev_state" ] && ok || bad "something was measured before the refusal"
[ -L "$work/link-to-fifo" ] && ok || bad "the link was replaced"
no_temp_left

# --- --record refuses the file the device reads, found by device and
# inode: the same name, another name, a hard link, a link to it
sum=$(state "$img")
ln "$img" "$work/hard.regs"
ln -s in.regs "$work/sym.regs"
mkdir "$work/sub"
for r in "$img" "$work/sub/../in.regs" "$work/hard.regs" "$work/sym.regs"; do
	one_error 2 "is the file that -d image:$img reads" -d "image:$img" -t 1 --record "$r"
done
one_error 2 "is the file that -d image:$work/sym.regs reads" -d "image:$work/sym.regs" --record "$img"
(cd "$work" && one_error 2 "--record in.regs: is the file that -d image:$work/in.regs reads" \
	-d "image:$work/in.regs" --record in.regs)
cp "$work/dev.bin" "$work/dump.bin"
one_error 2 "is the file that -d mmap:$work/dump.bin@0x0 reads" -d "mmap:$work/dump.bin@0x0" --record "$work/dump.bin"
printf '[card]\nbase = idle\n' >"$work/s.ini"
one_error 2 "is the file that -d sim:$work/s.ini reads" -d "sim:$work/s.ini" -t 0 --record "$work/s.ini"
[ "$(state "$img")" = "$sum" ] && [ -L "$work/sym.regs" ] && ok || bad "the input image changed"
cmp -s "$work/dump.bin" "$work/dev.bin" && ok || bad "the dump changed"
no_temp_left

# --- a symbolic link is followed: the recording replaces its target,
# the link stays (also a dangling one, and a chain)
echo old >"$work/target.regs"
ln -s target.regs "$work/link.regs"
ln -s link.regs "$work/chain.regs"
ln -s new.regs "$work/dangling.regs"
for l in link chain dangling; do
	"$tool" -d "image:$img" -t 1 --record "$work/$l.regs" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq 0 ] && [ -L "$work/$l.regs" ] && [ ! -s "$work/err" ] && ok || bad "--record $l: rc $rc, $(cat "$work/err")"
	t=target.regs
	[ $l = dangling ] && t=new.regs
	"$tool" -d "image:$work/$t" -t 1 >"$work/replay" 2>&1
	cmp -s "$work/out" "$work/replay" && ok || bad "--record $l: $t does not replay the report"
done
no_temp_left

# --- closed standard descriptors never become the recording
for fds in '<&-' '2>&-' '>&-' '<&- >&- 2>&-'; do
	rm -f "$work/rec.regs"
	eval "timeout 20 \"\$tool\" -d \"image:\$img\" -t 1 --record \"\$work/rec.regs\" >\"\$work/out\" 2>\"\$work/err\" $fds"
	rc=$?
	case " $fds " in
	*' >&- '*)
		# the report cannot be written: an error, and no recording
		[ $rc -eq 1 ] && [ ! -e "$work/rec.regs" ] && ok || bad "$fds: rc $rc, recording $(ls "$work/rec.regs" 2>&1)"
		;;
	*)
		[ $rc -eq 0 ] && ok || bad "$fds: rc $rc"
		"$tool" -d "image:$work/rec.regs" -t 1 >"$work/replay" 2>"$work/replay.err"
		cmp -s "$work/replay" "$cases/basic_t1.out" && ok || bad "$fds: the recording does not replay: $(cat "$work/replay.err")"
		grep -q '^PCIe telemetry' "$work/rec.regs" && bad "$fds: the report went into the recording" || ok
		;;
	esac
done
timeout 20 "$tool" -d "image:$img" -t 1 --record "$work/rec.regs" >&- 2>"$work/err"
grep -qx 'nfb-pcie-telemetry: cannot write the report: Bad file descriptor' "$work/err" && ok ||
	bad ">&-: $(cat "$work/err")"
no_temp_left

# --- files read: a FIFO without a writer, a device, a folder, a sparse
# file over the limit; none blocks, none is read into memory
one_error 1 "$work/fifo: cannot read the register image: it is a FIFO, not a regular file" -d "image:$work/fifo"
one_error 1 "$work/fifo: cannot read the scenario file: it is a FIFO, not a regular file" -d "sim:$work/fifo"
(cd "$work" && one_error 1 "fifo: cannot read the scenario file: it is a FIFO" -d sim:fifo)
grep -q "no such preset" "$work/err" && bad "a FIFO taken for a preset name" || ok
one_error 1 "cannot read the file to map: it is a FIFO" -d "mmap:$work/fifo"
if [ -e "$work/null" ]; then
	mknod "$work/zero" c 1 5
	one_error 1 "$work/zero: cannot read the register image: it is a character device" -d "image:$work/zero"
	one_error 1 "it is a character device" -d "sim:$work/zero"
	one_error 1 "it is a character device" -d "mmap:$work/zero"
fi
one_error 1 "$work/folder: cannot read the register image: it is a folder" -d "image:$work/folder"
truncate -s 2G "$work/sparse.regs"
one_error 1 "$work/sparse.regs: the register image has 2147483648 bytes, more than its limit of 1 GiB" \
	-d "image:$work/sparse.regs"
truncate -s 2M "$work/sparse.ini"
one_error 1 "$work/sparse.ini: the scenario file has 2097152 bytes, more than its limit of 1 MiB" \
	-d "sim:$work/sparse.ini"
# a line over the limit of an image (4096 characters) names its line
{ head -n 3 "$img"; head -c 5000 /dev/zero | tr '\0' '#'; echo; sed -n '4,$p' "$img"; } >"$work/long.regs"
one_error 1 "$work/long.regs:4: line longer than 4096 characters" -d "image:$work/long.regs"
# the first line exactly (register-image.md)
sed '1s/ /\t/' "$img" >"$work/tab.regs"
one_error 1 "$work/tab.regs:1: the first line must be exactly 'pcie-telemetry-regs 1'" -d "image:$work/tab.regs"

# --- control characters in arguments: one line, shown as \xNN
one_error 1 'a\x0Ab.regs: cannot open the register image' -d "image:a"$'\n'"b.regs"
one_error 2 "-t '1\\x0A2': not a number" -d "image:$img" -t "1"$'\n'"2"
one_error 2 "stray argument 'x\\x0D\\x1B[2J'" -d "image:$img" "x"$'\r\e[2J'
one_error 2 "unknown option '--x\\x0Ay'" "--x"$'\n'"y"
one_error 2 "--record $work/no"'\x0A'"dir/r.regs: cannot create a file in $work/no"'\x0A'"dir" \
	-d "image:$img" --record "$work/no"$'\n'"dir/r.regs"
printf '[card]\nseed = 1\x0b2\n' >"$work/ctl.ini"
one_error 1 "$work/ctl.ini:2: [card] seed = 1\\x0B2: expected a whole number" -d "sim:$work/ctl.ini"

# --- SIGINT (and SIGTERM) while the output pipe is full: the tool is
# blocked in a write; it ends with status 0 and the reader gets whole
# reports only, once it reads again
awk 'NR == 1 { print; next } { print }' "$img" >"$work/p.regs"
for ((k = 1; k < 300; k++)); do
	awk -v k="$k" 'NR == 1 { next } /^@snapshot/ { printf "@snapshot %.3f\n", $2 + 1000 * k; next } { print }' "$img"
done >>"$work/p.regs"
{ cat "$cases/basic_t1.out"; echo; } >"$work/one"
for sig in INT TERM; do
	rm -f "$work/pid" "$work/rc"
	( sh -c 'echo $$ >"$1"; exec "$2" -d "image:$3" -t 1 -w 2>"$4"' _ "$work/pid" "$tool" "$work/p.regs" "$work/err"
	  echo $? >"$work/rc" ) | { sleep 4; cat >"$work/drained"; } &
	pipeline=$!
	sleep 2
	pid=$(cat "$work/pid")
	state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
	[ "$state" = S ] && ok || bad "SIG$sig: the tool is not blocked on the full pipe (state '$state')"
	kill -s "$sig" "$pid"
	timeout 30 tail --pid="$pipeline" -f /dev/null
	wait $pipeline
	rc=$(cat "$work/rc" 2>/dev/null)
	n=$(grep -c '^PCIe telemetry - ' "$work/drained")
	[ "$rc" = 0 ] && [ ! -s "$work/err" ] && ok || bad "SIG$sig on a full pipe: rc '$rc', stderr $(cat "$work/err")"
	for ((k = 0; k < n; k++)); do cat "$work/one"; done >"$work/want"
	[ "$n" -ge 5 ] && [ "$n" -lt 300 ] && cmp -s "$work/drained" "$work/want" && ok ||
		bad "SIG$sig on a full pipe: $n reports, not all whole ($(wc -c <"$work/drained") bytes)"
done

echo "test_tool_files: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
