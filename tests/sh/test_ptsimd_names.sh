#!/usr/bin/env bash
# ptsimd finds the card of a scenario file by any name of the file, and
# still after the file is gone (man/ptsimd.1): `stop sim:FILE` and
# `status sim:FILE` reach a card whose file was deleted (a relative name,
# a folder removed too, a link to a folder, a link whose target was
# deleted), where they said "not running" or failed and only `stop --all`
# ended it; `start` of a file that is gone still fails, and a card that
# was stopped is not running; stop --all names the cards by their
# device, not by their socket.
#
# Usage: test_ptsimd_names.sh BIN_DIR TESTS_DIR
set -u
. "$(dirname "$0")/nfbext_env.sh"
simd=$bin/ptsimd
sc=$(mkdir "$tmp/sc" && cd -P "$tmp/sc" && pwd -P)
scenario() { mkdir -p "$(dirname "$1")" && printf '[card]\nbase = idle\n' >"$1"; }

# check WHAT WANT_RC WANT_STDOUT ARGS...: ptsimd ARGS exits WANT_RC,
# prints WANT_STDOUT's lines (a grep -x pattern each) and nothing on stderr
check() {
	local what=$1 want=$2 out=$3
	shift 3
	timeout 20 "$simd" "$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	local rc=$?
	if [ $rc -ne "$want" ] || [ -s "$tmp/e" ] || ! grep -qx -- "$out" "$tmp/o"; then
		fail "$what: ptsimd $*" "rc $rc (expected $want), stdout: $(head -c 300 "$tmp/o" | tr '\n' '|') stderr: $(head -c 300 "$tmp/e" | tr '\n' '|')"
	else
		pass
	fi
}

# found NAME KEY WHAT: status NAME shows the card of KEY, stop NAME stops
# it, and then it is not running
found() {
	check "$3: status" 0 "key=sim:$2" status "sim:$1"
	check "$3: stop" 0 "sim:$2: stopped (pid [0-9]*)" stop "sim:$1"
	check "$3: stopped" 3 "sim:$2: not running" status "sim:$1"
	check "$3: stop again" 0 "sim:$2: not running" stop "sim:$1"
}

cd "$sc" || exit 1
# 1. a relative name, the file deleted
scenario "$sc/a.ini"
mkdir "$sc/sub"
(cd sub && "$simd" start sim:../a.ini) || fail start "ptsimd start sim:../a.ini"
check "another name, the file there" 0 "key=sim:$sc/a.ini" status "sim:$tmp/sc/sub/../a.ini"
rm "$sc/a.ini"
"$simd" start "sim:$sc/a.ini" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] && grep -q "a.ini: cannot open scenario file" "$tmp/e" && pass ||
	fail "start of a file that is gone" "$(cat "$tmp/e")"
check "relative, gone" 0 "key=sim:$sc/a.ini" status sim:./a.ini
found "$tmp/sc//./sub/../a.ini" "$sc/a.ini" "the file gone"

# 2. the file and its folder gone
scenario "$sc/d/b.ini"
"$simd" start sim:d/b.ini || fail start "ptsimd start sim:d/b.ini"
rm -r "$sc/d"
found d/b.ini "$sc/d/b.ini" "the folder gone"

# 3. through a link to a folder (the card's key is the folder's path)
scenario "$sc/real/c.ini"
ln -s real "$sc/link"
"$simd" start sim:link/c.ini || fail start "ptsimd start sim:link/c.ini"
rm "$sc/real/c.ini"
found link/c.ini "$sc/real/c.ini" "a link to the folder"

# 4. a link to the file, its target deleted (the key is the target's)
scenario "$sc/t/target.ini"
ln -s t/target.ini "$sc/e.ini"
"$simd" start sim:e.ini || fail start "ptsimd start sim:e.ini"
rm "$sc/t/target.ini"
found e.ini "$sc/t/target.ini" "a dangling link"

# 5. stop --all names every card by its device, a gone file's card too
scenario "$sc/f.ini"
"$simd" start sim:idle || fail start "ptsimd start sim:idle"
"$simd" start sim:f.ini || fail start "ptsimd start sim:f.ini"
rm "$sc/f.ini"
timeout 20 "$simd" stop --all >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && [ "$(wc -l <"$tmp/o")" -eq 2 ] &&
	grep -qx "sim:idle: stopped (pid [0-9]*)" "$tmp/o" && grep -qx "sim:$sc/f.ini: stopped (pid [0-9]*)" "$tmp/o" &&
	pass || fail "stop --all" "rc $rc, stdout: $(head -c 300 "$tmp/o" | tr '\n' '|') stderr: $(head -c 300 "$tmp/e")"

# nothing runs any more
"$simd" status >"$tmp/o" 2>&1
[ ! -s "$tmp/o" ] && pass || fail "no card" "left: $(head -c 300 "$tmp/o" | tr '\n' '|')"

echo "test_ptsimd_names: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
