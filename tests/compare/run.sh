#!/bin/sh
# run.sh - build roz_compare in a temporary directory and run it: roz in C
# (build/roz) against another roz binary, normally a build of the Rust roz.
# Usage: tests/compare/run.sh <theirs-binary> [seed] [sequences] [roz_compare options...]
set -eu

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
	echo "usage: $0 <theirs-binary> [seed] [sequences] [roz_compare options...]" >&2
	echo "  runs build/roz (or \$ROZ_OURS) against <theirs-binary>; see tests/compare/README.md" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
theirs=$1
seed=${2:-1}
sequences=${3:-200}
shift
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
ours=${ROZ_OURS:-$top/build/roz}

if [ ! -x "$ours" ]; then
	echo "run.sh: $ours is missing; build roz first: cmake -S . -B build && cmake --build build" >&2
	exit 2
fi
if [ ! -x "$theirs" ]; then
	echo "run.sh: $theirs is not an executable" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/roz_compare_run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cjson=$(pkg-config --cflags --libs libcjson 2>/dev/null || echo "-lcjson")
# shellcheck disable=SC2086 # $cjson is a list of compiler flags
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Werror \
	-o "$tmp/roz_compare" "$here/compare.c" $cjson

# Run copies: a rebuild of build/roz during a long run must not swap the
# program under test halfway through a sequence.
cp "$ours" "$tmp/ours"
cp "$theirs" "$tmp/theirs"
status=0
"$tmp/roz_compare" --ours "$tmp/ours" --theirs "$tmp/theirs" --seed "$seed" \
	--sequences "$sequences" "$@" || status=$?
exit "$status"
