#!/bin/sh
# session.sh - build the session replay and its floor program in a temporary
# directory and replay bench/session-mix.tsv (what an ordinary coding session's
# hooks cost, per plugin layout); every argument is passed to the replay.
# Usage: bench/session.sh [--roz build/roz] [--rounds N] [--calls FILE] [--shell /bin/bash]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/roz_replay_build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
flags="-std=c11 -O2 -Wall -Wextra -Wpedantic -Wshadow -Werror"
# shellcheck disable=SC2086 # $flags is a list of compiler flags
${CC:-cc} $flags -I "$here/../include" -I "$here/../src/util/include" -o "$tmp/replay" "$here/replay.c" "$here/proc.c" -lm
# shellcheck disable=SC2086
${CC:-cc} $flags -o "$tmp/floor" "$here/floor.c"
status=0
"$tmp/replay" --floor "$tmp/floor" --calls "$here/session-mix.tsv" "$@" || status=$?
exit "$status"
