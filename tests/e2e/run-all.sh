#!/usr/bin/env bash
# Run the fake-model unit tests and every non-capture scenario.
# usage: run-all.sh [SCENARIO...]   (default: all scenarios/*.js except capture-*)
# Prints one line per scenario and a closing "N passed, N failed, N skipped".
# Exit status: 1 if anything failed, 77 if everything was skipped, else 0.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

root="${ROZ_E2E_RESULTS:-$here/results}"
mkdir -p "$root"

passed=0 failed=0 skipped=0
if node --test "$here/test/" > "$root/unit.log" 2>&1; then
  echo "PASS unit: fake-model"; passed=$((passed + 1))
else
  echo "FAIL unit: fake-model (see $root/unit.log)"; failed=$((failed + 1))
fi

if [[ $# -gt 0 ]]; then
  scenarios=("$@")
else
  scenarios=()
  for f in "$here"/scenarios/*.js; do
    n="$(basename "$f" .js)"
    [[ "$n" == capture-* ]] && continue
    scenarios+=("$n")
  done
fi

for s in "${scenarios[@]}"; do
  "$here/run-scenario.sh" "$s" 2>&1 | sed "s/^/  /"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) echo "PASS $s"; passed=$((passed + 1)) ;;
    77) echo "SKIP $s"; skipped=$((skipped + 1)) ;;
    *) echo "FAIL $s (exit $rc; artefacts in $root/$s)"; failed=$((failed + 1)) ;;
  esac
done

echo "e2e: $passed passed, $failed failed, $skipped skipped"
[[ $failed -gt 0 ]] && exit 1
[[ $skipped -gt 0 && $passed -le 1 ]] && exit 77
exit 0
