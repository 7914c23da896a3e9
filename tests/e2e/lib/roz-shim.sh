#!/usr/bin/env bash
# Recording shim, copied to <results>/bin/roz and put first on PATH by
# netns-run.sh, so hooks (`roz hook <event>`) and the Bash tool (`roz decide`,
# `roz context`) reach it. It runs the first *other* `roz` on PATH with the
# same arguments, input and exit status, and keeps a record of the call in
# $ROZ_E2E_RESULTS/roz-calls/<start-ns>-<pid>/:
#   args (NUL-separated), real (the roz it ran), stdin (hook calls only),
#   stdout, stderr, rc, start, end (ns since the epoch), session_env
#   ($CLAUDE_CODE_SESSION_ID), context ("hook" when $CLAUDE_PLUGIN_ROOT is
#   set, i.e. Claude Code ran it as a hook; empty from the Bash tool), run
#   (which prompt of the scenario was running, 1, 2, ...).
# lib/check.js reads these as run.rozCalls.
set -u
self_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
real=""
IFS=':' read -r -a path_dirs <<< "${PATH:-}"
for d in "${path_dirs[@]}"; do
  [[ -z "$d" ]] && continue
  [[ "$(cd "$d" 2>/dev/null && pwd -P)" == "$self_dir" ]] && continue
  if [[ -f "$d/roz" && -x "$d/roz" ]]; then real="$d/roz"; break; fi
done

if [[ -z "${ROZ_E2E_RESULTS:-}" ]]; then
  [[ -n "$real" ]] || { echo "roz-shim: no roz on PATH" >&2; exit 127; }
  exec "$real" "$@"
fi

start=$(date +%s%N)
rec="$ROZ_E2E_RESULTS/roz-calls/$start-$$"
mkdir -p "$rec" || exit 1
printf '%s\0' "$@" > "$rec/args"
printf '%s' "$start" > "$rec/start"
printf '%s' "$real" > "$rec/real"
printf '%s' "${CLAUDE_CODE_SESSION_ID:-}" > "$rec/session_env"
printf '%s' "${CLAUDE_PLUGIN_ROOT:+hook}" > "$rec/context"
tr '\0' ' ' < "/proc/$PPID/cmdline" > "$rec/parent" 2>/dev/null
# which prompt's run: the print mode sets ROZ_E2E_RUN per process; the
# stream-json driver keeps one process and says so in current-run
run="${ROZ_E2E_RUN:-}"
[[ -z "$run" && -f "$ROZ_E2E_RESULTS/current-run" ]] && run="$(cat "$ROZ_E2E_RESULTS/current-run")"
printf '%s' "$run" > "$rec/run"
if [[ -z "$real" ]]; then
  echo "roz-shim: no roz on PATH besides this shim" | tee "$rec/stderr" >&2
  : > "$rec/stdout"
  echo 127 > "$rec/rc"
  date +%s%N > "$rec/end"
  exit 127
fi
if [[ "${1:-}" == hook ]]; then
  cat > "$rec/stdin"
  "$real" "$@" < "$rec/stdin" > "$rec/stdout" 2> "$rec/stderr"
else
  "$real" "$@" > "$rec/stdout" 2> "$rec/stderr"
fi
rc=$?
date +%s%N > "$rec/end"
echo "$rc" > "$rec/rc"
cat "$rec/stdout"
cat "$rec/stderr" >&2
exit "$rc"
