# Sourced by the tests of what is installed and documented (man pages,
# completion, install, docs, packages): the folders, the counting
# (tool_harness.sh), the list of commands and their options.
#   BIN        the built commands (absolute)
#   SRC        the source tree
# shellcheck shell=bash
set -u
# $tool, $cases, $work, ok and bad
. "$(dirname "${BASH_SOURCE[0]}")/tool_harness.sh" "$@"
BIN=$(cd "$bin" && pwd)
SRC=$(cd "$data/.." && pwd)
# finish NAME: the closing line and the exit status
finish() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

# The commands: one per file or folder of tools/ (CMakeLists.txt).
commands() {
	local t
	for t in "$SRC"/tools/*; do
		if [ -d "$t" ]; then
			basename "$t"
		elif [ "${t%.c}" != "$t" ]; then
			basename "$t" .c
		fi
	done
}

# options CMD: every option its --help names, one a line: every --name in
# the text, and -x where a line lists "-x, --name"; -h, --help, -V and
# --version, which every command takes.
options() {
	{
		"$BIN/$1" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9.-]*[a-z0-9]'
		"$BIN/$1" --help 2>/dev/null | sed -n 's/^  *\(-[A-Za-z0-9]\), --.*/\1/p'
		printf '%s\n' -h --help -V --version
	} | sort -u
}

# need TOOL...: install the test packages when a tool is missing.
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null && continue
		echo "$t not found: installing the test packages (scripts/install-deps.sh test)"
		bash "$SRC/scripts/install-deps.sh" test >"$work/deps.log" 2>&1 || {
			cat "$work/deps.log"
			bad "cannot install $t"
			return 1
		}
	done
}
