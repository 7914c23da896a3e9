#!/bin/sh
# run.sh - build the hook benchmark and its two floor programs in a temporary
# directory and run them; every argument is passed to the benchmark.
# Usage: bench/run.sh [--roz build/roz] [--vs OTHER] [--runs N] [--only TEXT] [--csv] ...
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/roz_bench_build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
flags="-std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Werror"
# shellcheck disable=SC2086 # $flags is a list of compiler flags
${CC:-cc} $flags -o "$tmp/bench" "$here/bench.c" "$here/proc.c" -lm
# shellcheck disable=SC2086
${CC:-cc} $flags -o "$tmp/floor" "$here/floor.c"
# shellcheck disable=SC2086
${CC:-cc} $flags -o "$tmp/floor2" "$here/floor2.c"
status=0
"$tmp/bench" --floor "$tmp/floor" --floor2 "$tmp/floor2" "$@" || status=$?
exit "$status"
