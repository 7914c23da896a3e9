#!/usr/bin/env bash
# Capture the real hook inputs of one Claude Code release in one mode:
# generate the throwaway "roz" capture plugin in a temporary directory, run
# the capture scenarios (scenarios/capture-*.js) against it, and write
# fixtures/hook-inputs/<version>/ (print mode) or
# fixtures/hook-inputs/<version>/<mode>/: one <Event>[-variant].json per
# variant plus the generated block of the README.md there.
#
# usage: capture/capture-hooks.sh [-V VERSION] [-m MODE] [-o FIXTURES_DIR] [-x] [SCENARIO...]
#   -V VERSION  the release (default: the newest in versions/matrix)
#   -m MODE     print (default), stream-json or interactive
#   -o DIR      write fixtures there instead
#   -x          run nothing: write the fixtures again from the artefacts of
#               the last capture (after a change to extract-fixtures.js)
#   SCENARIO    run only these capture scenarios (no fixtures are written then)
# Artefacts: ${ROZ_E2E_RESULTS:-tests/e2e/results}/capture/<version>/<mode>/<scenario>/
# Exit status: 0 ok, 77 skipped (see run-scenario.sh), 1 a run failed, 2 usage.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
e2e="$(cd "$here/.." && pwd)"
version=""
mode=print
out=""
extract_only=0
while getopts "V:m:o:xh" opt; do
  case "$opt" in
    V) version="$OPTARG" ;;
    m) mode="$OPTARG" ;;
    o) out="$OPTARG" ;;
    x) extract_only=1 ;;
    h) sed -n "2,17p" "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
case "$mode" in
  print | stream-json | interactive) ;;
  *) echo "capture-hooks: unknown mode $mode (print, stream-json or interactive)" >&2; exit 2 ;;
esac
if [[ -z "$version" ]]; then
  version="$(sed -e 's/#.*//' "$e2e/versions/matrix" | awk 'NF { v = $1 } END { print v }')"
fi
if [[ -z "$out" ]]; then
  out="$e2e/fixtures/hook-inputs/$version"
  [[ "$mode" != print ]] && out="$out/$mode"
fi

# The order decides which run's input becomes the fixture of a variant
# (the first one seen), so older scenarios keep their fixtures.
all=(capture-basic capture-tools capture-subagent capture-background capture-background-block
     capture-stop-block capture-stop-loop capture-deny capture-subagent-block capture-permission
     capture-agent-default capture-agent-foreground capture-slow-reviewer capture-two-notifications
     capture-notifications-mid-turn capture-bash-wakeup capture-subagent-start-delay
     capture-end-with-reviewer capture-end-move-background
     capture-fg-frontmatter capture-fg-frontmatter-background capture-fg-env capture-fg-settings-env
     capture-fg-fork-off capture-fg-bare)
# What a mode cannot run: a permission prompt waits for a person in a
# terminal; only the terminal asks what to do with background work at /exit.
skip_in() {
  case "$1:$2" in
    interactive:capture-permission) return 0 ;;
    print:capture-end-move-background | stream-json:capture-end-move-background) return 0 ;;
  esac
  return 1
}
if [[ $# -gt 0 ]]; then
  scenarios=("$@")
  write=0
else
  scenarios=()
  for s in "${all[@]}"; do skip_in "$mode" "$s" || scenarios+=("$s"); done
  write=1
fi

root="${ROZ_E2E_RESULTS:-$e2e/results}/capture/$version/$mode"
if [[ $extract_only -eq 1 ]]; then
  exec node "$here/extract-fixtures.js" "$root" "$out" "$version" "$mode" "${scenarios[@]}"
fi
mkdir -p "$root"
plugin="$(mktemp -d "${TMPDIR:-/tmp}/roz-capture-plugin.XXXXXX")"
trap 'rm -rf "$plugin"' EXIT
"$here/make-plugin.sh" "$plugin" "$version" >/dev/null || exit 1

failed=0
for s in "${scenarios[@]}"; do
  "$e2e/run-scenario.sh" -V "$version" -m "$mode" -r "$root/$s" -p "$plugin" "$s"
  rc=$?
  if [[ $rc -eq 77 ]]; then exit 77; fi
  if [[ $rc -ne 0 ]]; then echo "capture-hooks: $s failed (exit $rc)" >&2; failed=1; fi
done
[[ $failed -eq 0 ]] || exit 1

if [[ $write -eq 1 ]]; then
  node "$here/extract-fixtures.js" "$root" "$out" "$version" "$mode" "${scenarios[@]}" || exit 1
fi
echo "capture-hooks: $version $mode done"
