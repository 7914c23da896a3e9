#!/usr/bin/env bash
# Capture the real hook inputs of the pinned Claude Code: generate the
# throwaway "roz" capture plugin in a temporary directory, run every
# scenarios/capture-*.js against it, and write fixtures/hook-inputs/*.json
# plus the generated block of fixtures/hook-inputs/README.md.
#
# usage: capture/capture-hooks.sh [-o FIXTURES_DIR] [SCENARIO...]
#   -o DIR   write fixtures there instead of fixtures/hook-inputs
#   SCENARIO run only these capture scenarios (no fixtures are written then)
# Artefacts: ${ROZ_E2E_RESULTS:-tests/e2e/results}/capture/<scenario>/
# Exit status: 0 ok, 77 skipped (see run-scenario.sh), 1 a run failed.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
e2e="$(cd "$here/.." && pwd)"
out="$e2e/fixtures/hook-inputs"
while getopts "o:h" opt; do
  case "$opt" in
    o) out="$OPTARG" ;;
    h) sed -n "2,11p" "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))

all=(capture-basic capture-tools capture-subagent capture-background capture-background-block
     capture-stop-block capture-stop-loop capture-deny capture-subagent-block capture-permission)
if [[ $# -gt 0 ]]; then scenarios=("$@"); write=0; else scenarios=("${all[@]}"); write=1; fi

root="${ROZ_E2E_RESULTS:-$e2e/results}/capture"
mkdir -p "$root"
plugin="$(mktemp -d "${TMPDIR:-/tmp}/roz-capture-plugin.XXXXXX")"
trap 'rm -rf "$plugin"' EXIT
"$here/make-plugin.sh" "$plugin" >/dev/null || exit 1

failed=0
for s in "${scenarios[@]}"; do
  "$e2e/run-scenario.sh" -r "$root/$s" -p "$plugin" "$s"
  rc=$?
  if [[ $rc -eq 77 ]]; then exit 77; fi
  if [[ $rc -ne 0 ]]; then echo "capture-hooks: $s failed (exit $rc)" >&2; failed=1; fi
done
[[ $failed -eq 0 ]] || exit 1

if [[ $write -eq 1 ]]; then
  node "$here/extract-fixtures.js" "$root" "$out" || exit 1
fi
echo "capture-hooks: done"
