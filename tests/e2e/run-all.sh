#!/usr/bin/env bash
# Run the fake-model unit tests, then the harness self-tests (harness-*) and
# every roz scenario (roz-*), i.e. all of scenarios/*.js except capture-*,
# once per cell of the version matrix: every Claude Code release listed in
# versions/matrix, in each of the modes listed for it.
# usage: run-all.sh [SCENARIO...]
# ROZ_E2E_CELLS="2.1.332:print ..." limits the run to those cells;
# ROZ_E2E_JOBS=N runs N scenarios side by side, across the cells (default 2).
#
# The roz under test is the first `roz` on PATH; when there is none,
# <repo>/build/roz is used (build it with cmake -S . -B build && cmake --build
# build). The usual command, from the repository root:
#   PATH="$PWD/build:$PATH" tests/e2e/run-all.sh
#
# Prints one PASS/FAIL/SKIP line per scenario and cell (with the scenario's
# own output indented above it), a table of what the review loop cost in
# each cell (stops blocked, reviewers started, main-model requests, stops let
# through while a reviewer worked), and a closing "e2e: N passed, N failed,
# N skipped".
# Exit status: 0 all passed, 1 something failed, 2 no roz to test, 77 this
# environment cannot run Claude Code (not root, no unshare, CLI not installed
# and the npm registry unreachable) -- said on stderr.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

root="${ROZ_E2E_RESULTS:-$here/results}"
mkdir -p "$root"
start_s=$(date +%s)

skip_all() {
  echo "run-all: SKIP: this environment cannot run Claude Code: $*" >&2
  echo "e2e: 0 passed, 0 failed, all skipped"
  exit 77
}

# --- can Claude Code run here at all? (run-scenario.sh checks again per run)
[[ "$(id -u)" == 0 ]] || skip_all "needs root to create a network namespace (unshare --net)"
command -v unshare >/dev/null 2>&1 || skip_all "unshare not found (util-linux)"
command -v ip >/dev/null 2>&1 || skip_all "ip not found (iproute2)"
command -v node >/dev/null 2>&1 || skip_all "node not found"
command -v git >/dev/null 2>&1 || skip_all "git not found"
command -v timeout >/dev/null 2>&1 || skip_all "timeout not found (coreutils)"
unshare --net --pid --fork --mount-proc true 2>/dev/null || skip_all "unshare --net --pid --fork --mount-proc is not permitted here"
"$here/install.sh" > "$root/install.log" 2>&1
rc=$?
if [[ $rc -eq 77 ]]; then
  skip_all "the Claude Code releases of the matrix are not installed and cannot be: $(tail -n 1 "$root/install.log")"
elif [[ $rc -ne 0 ]]; then
  echo "run-all: install.sh failed ($rc):" >&2
  cat "$root/install.log" >&2
  exit 1
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

# --- the roz under test
wants_roz=0
for s in "${scenarios[@]}"; do [[ "$(basename "$s" .js)" == roz-* ]] && wants_roz=1; done
if [[ $wants_roz -eq 1 ]]; then
  if ! command -v roz >/dev/null 2>&1; then
    if [[ -x "$repo/build/roz" ]]; then
      PATH="$repo/build:$PATH"
      export PATH
    else
      echo "run-all: no roz on PATH and no $repo/build/roz; build it first:" >&2
      echo "  cmake -S . -B build && cmake --build build && PATH=\"\$PWD/build:\$PATH\" tests/e2e/run-all.sh" >&2
      exit 2
    fi
  fi
  echo "run-all: roz under test: $(command -v roz) ($(roz --version 2>&1 | head -n 1))"
  # ROZ_* variables pass through to roz (see README.md) and change what the
  # roz-* scenarios expect; ROZ_HOME is replaced by a throwaway one per run.
  stray="$(env | grep -E '^ROZ_' | grep -vE '^ROZ_(E2E_[A-Z_]*|HOME|WATCH_IDLE_S)=' | cut -d= -f1 | tr '\n' ' ')"
  [[ -n "$stray" ]] && echo "run-all: warning: these variables reach roz and may change the results: $stray" >&2
  # a repository's watcher (roz watch), started by a governed call, ends when its throwaway
  # repository is removed, or at the latest this long after the run's last question
  export ROZ_WATCH_IDLE_S="${ROZ_WATCH_IDLE_S:-120}"
fi

passed=0 failed=0 skipped=0
if node --test "$here/test/" > "$root/unit.log" 2>&1; then
  echo "PASS unit: fake-model"; passed=$((passed + 1))
else
  echo "FAIL unit: fake-model (see $root/unit.log)"; failed=$((failed + 1))
fi

# the matrix: "<version>:<mode>" cells
cells=()
if [[ -n "${ROZ_E2E_CELLS:-}" ]]; then
  read -r -a cells <<< "$ROZ_E2E_CELLS"
else
  while read -r v modes; do
    for m in $modes; do cells+=("$v:$m"); done
  done < <(sed -e 's/#.*//' "$here/versions/matrix" | awk 'NF')
fi

# One scenario in one cell; its lines go to the file $3, the last starting
# PASS, FAIL or SKIP.
run_one() {
  local cell=$1 s=$2 v m n rc
  v="${cell%%:*}" m="${cell#*:}"
  n="$(basename "$s" .js)"
  "$here/run-scenario.sh" -V "$v" -m "$m" -r "$root/$v-$m/$n" "$s" 2>&1 | sed "s/^/  /"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) echo "PASS $n [$v $m]" ;;
    77) echo "SKIP $n [$v $m]" ;;
    124) echo "FAIL $n [$v $m] (Claude Code timed out; artefacts in $root/$v-$m/$n)" ;;
    1) echo "FAIL $n [$v $m] (check failed or Claude Code exited 1; artefacts in $root/$v-$m/$n)" ;;
    *) echo "FAIL $n [$v $m] (exit $rc; artefacts in $root/$v-$m/$n)" ;;
  esac
}

# The runs go side by side, ROZ_E2E_JOBS at a time (default 2), scenario
# by scenario across every cell, so no job sits idle while one cell
# finishes: a run spends most of its time waiting on Claude Code's start
# and on the fake model, and every run has its own namespaces, home and
# results. Each cell's lines are printed together, in matrix and scenario
# order, once all are done (<version>-<mode>.log holds them too).
jobs_max="${ROZ_E2E_JOBS:-2}"
[[ "$jobs_max" =~ ^[1-9][0-9]*$ ]] || jobs_max=2
parts="$root/.parts"
rm -rf "$parts"
mkdir -p "$parts"
i=0
for cell in "${cells[@]}"; do
  for s in "${scenarios[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $jobs_max ]]; do wait -n; done
    run_one "$cell" "$s" > "$parts/$(printf '%04d' $i).log" 2>&1 &
    i=$((i + 1))
  done
done
wait
i=0
for cell in "${cells[@]}"; do
  v="${cell%%:*}" m="${cell#*:}"
  {
    echo "run-all: Claude Code $v, $m mode"
    for s in "${scenarios[@]}"; do
      cat "$parts/$(printf '%04d' $i).log"
      i=$((i + 1))
    done
  } > "$root/${cell/:/-}.log"
done
rm -rf "$parts"
for cell in "${cells[@]}"; do
  log="$root/${cell/:/-}.log"
  cat "$log"
  passed=$((passed + $(grep -c '^PASS ' "$log")))
  failed=$((failed + $(grep -c '^FAIL ' "$log")))
  skipped=$((skipped + $(grep -c '^SKIP ' "$log")))
done

# what the review loop cost, per scenario and cell (scenarios that wrote metrics.json)
node - "$root" "${cells[@]}" <<'JS'
const fs = require('fs');
const path = require('path');
const [root, ...cells] = process.argv.slice(2);
const rows = new Map();
for (const cell of cells) {
  const dir = path.join(root, cell.replace(':', '-'));
  if (!fs.existsSync(dir)) continue;
  for (const n of fs.readdirSync(dir).sort()) {
    const f = path.join(dir, n, 'metrics.json');
    if (!fs.existsSync(f)) continue;
    const m = JSON.parse(fs.readFileSync(f, 'utf8'));
    if (!rows.has(n)) rows.set(n, {});
    rows.get(n)[cell] = `${m.stop_blocks}/${m.reviewers}/${m.main_requests} (${m.waits})`;
  }
}
if (rows.size) {
  const head = ['scenario', ...cells.map((c) => c.replace(':', ' '))];
  const table = [head, ...[...rows].map(([n, r]) => [n, ...cells.map((c) => r[c] || '-')])];
  const w = head.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  console.log('\nblocks/reviewers/main requests (stops let through while a reviewer worked):');
  for (const row of table) console.log(row.map((x, i) => x.padEnd(w[i])).join('  ').trimEnd());
  console.log('');
}
JS

echo "e2e: $passed passed, $failed failed, $skipped skipped ($(( $(date +%s) - start_s )) s)"
[[ $failed -gt 0 ]] && exit 1
if [[ $skipped -gt 0 && $passed -le 1 ]]; then
  echo "run-all: SKIP: no scenario could run Claude Code in this environment (see the reasons above)" >&2
  exit 77
fi
exit 0
