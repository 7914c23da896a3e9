#!/usr/bin/env bash
# Run one end-to-end scenario: Claude Code (pinned, see package.json) against
# the fake model server, both inside a fresh network namespace with only
# loopback up (and a fresh PID namespace, so nothing outlives the run).
#
# usage: run-scenario.sh [-V VERSION] [-m MODE] [-r RESULTS_DIR] [-p PLUGIN_DIR] SCENARIO
#   SCENARIO      a name under scenarios/ (without .js) or a path to a .js file
#   -V VERSION    the Claude Code release to run (default: $ROZ_E2E_CLAUDE_VERSION,
#                 else the newest in versions/matrix); installed if missing
#   -m MODE       print (default: `claude -p PROMPT`, later prompts with
#                 --resume) or stream-json (one process, prompts written to
#                 its stdin as stream-json user messages); $ROZ_E2E_MODE
#   -r DIR        where artefacts go (default: $ROZ_E2E_RESULTS or
#                 tests/e2e/results, plus /SCENARIO); emptied first
#   -p DIR        plugin directory for --plugin-dir; the first of: -p,
#                 $ROZ_E2E_PLUGIN_DIR, the scenario's own `plugin` key
#                 (false = no plugin), the repository's plugin/
# Environment passed through to Claude Code (and so to hooks and the Bash
# tool): PATH and every ROZ_* variable except ROZ_HOME, which each run gets
# fresh under its results directory (<results>/roz-home).
#
# Exit status: Claude Code's own status (0 = success), 124 on timeout,
# 1 when the scenario's check() fails, 77 when the harness cannot run here
# (not root, no unshare, CLI not installed and registry unreachable).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

results_root="${ROZ_E2E_RESULTS:-$here/results}"
plugin_dir="${ROZ_E2E_PLUGIN_DIR:-}"
version="${ROZ_E2E_CLAUDE_VERSION:-}"
mode="${ROZ_E2E_MODE:-print}"
results=""
while getopts "V:m:r:p:h" opt; do
  case "$opt" in
    V) version="$OPTARG" ;;
    m) mode="$OPTARG" ;;
    r) results="$OPTARG" ;;
    p) plugin_dir="$OPTARG" ;;
    h) sed -n "2,24p" "$0"; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [[ $# -ne 1 ]]; then
  echo "usage: $0 [-V VERSION] [-m MODE] [-r RESULTS_DIR] [-p PLUGIN_DIR] SCENARIO" >&2
  exit 2
fi
case "$mode" in
  print | stream-json | interactive) ;;
  *) echo "run-scenario: unknown mode $mode (print or stream-json)" >&2; exit 2 ;;
esac
if [[ -z "$version" ]]; then
  version="$(sed -e 's/#.*//' "$here/versions/matrix" | awk 'NF { v = $1 } END { print v }')"
fi

scenario="$1"
if [[ "$scenario" == */* || "$scenario" == *.js ]]; then
  scenario_file="$(cd "$(dirname "$scenario")" && pwd)/$(basename "$scenario")"
  name="$(basename "$scenario" .js)"
else
  scenario_file="$here/scenarios/$scenario.js"
  name="$scenario"
fi
if [[ ! -f "$scenario_file" ]]; then
  echo "run-scenario: no such scenario: $scenario_file" >&2
  exit 2
fi

skip() { echo "run-scenario: SKIP $name: $*" >&2; exit 77; }

# --- requirements: never run Claude Code outside a private network namespace
[[ "$(id -u)" == 0 ]] || skip "needs root to create a network namespace (unshare -n)"
command -v unshare >/dev/null 2>&1 || skip "unshare not found (util-linux)"
command -v ip >/dev/null 2>&1 || skip "ip not found (iproute2)"
command -v node >/dev/null 2>&1 || skip "node not found"
command -v git >/dev/null 2>&1 || skip "git not found"
command -v timeout >/dev/null 2>&1 || skip "timeout not found (coreutils)"
unshare --net --pid --fork --mount-proc true 2>/dev/null || skip "unshare --net --pid --fork --mount-proc is not permitted here"

claude="$("$here/install.sh" --path "$version")"
if [[ ! -x "$claude" ]]; then
  "$here/install.sh" "$version"
  rc=$?
  [[ $rc -eq 77 ]] && exit 77
  [[ $rc -ne 0 ]] && { echo "run-scenario: install.sh failed ($rc)" >&2; exit "$rc"; }
fi

# --- results directory and throwaway HOME / work tree
results="${results:-$results_root/$name}"
rm -rf "$results"
mkdir -p "$results/home" "$results/work" "$results/tmp"
results="$(cd "$results" && pwd)"

node "$here/lib/scenario-config.js" "$scenario_file" "$results" || { echo "run-scenario: bad scenario $scenario_file" >&2; exit 2; }

if [[ -z "$plugin_dir" ]]; then
  plugin_dir="$(cat "$results/plugin.txt")"
  [[ -z "$plugin_dir" ]] && plugin_dir="$repo/plugin"
fi
if [[ "$plugin_dir" != none ]]; then
  if [[ ! -d "$plugin_dir" ]]; then
    echo "run-scenario: plugin directory not found: $plugin_dir" >&2
    exit 2
  fi
  plugin_dir="$(cd "$plugin_dir" && pwd)"
fi

(
  cd "$results/work" &&
  git init -q -b main . &&
  printf 'hello from the roz e2e work tree\n' > README.md &&
  git add README.md &&
  git -c user.name=e2e -c user.email=e2e@example.invalid -c commit.gpgsign=false \
      commit -q -m 'initial commit'
) || { echo "run-scenario: could not create the work repository" >&2; exit 1; }

{
  echo "scenario=$name"
  echo "scenario_file=$scenario_file"
  echo "plugin_dir=$plugin_dir"
  echo "claude=$claude"
  echo "claude_version=$version"
  echo "mode=$mode"
  echo "caller_path=$PATH"
} > "$results/run.info"

echo "run-scenario: $name -> $results" >&2
start_ns=$(date +%s%N)
# New network namespace (only loopback) and new PID namespace: when
# netns-run.sh (its PID 1) exits, the kernel kills whatever Claude Code left
# behind (Bash tool children, background agents, hooks).
# the scenario's model script and check() can read which release and mode ran
export ROZ_E2E_CLAUDE_VERSION="$version" ROZ_E2E_MODE="$mode"
unshare --net --pid --fork --mount-proc -- bash "$here/lib/netns-run.sh" "$here" "$results" "$scenario_file" "$plugin_dir" "$claude" "$mode"
rc=$?
end_ns=$(date +%s%N)
elapsed_ms=$(( (end_ns - start_ns) / 1000000 ))
echo "exit=$rc" >> "$results/run.info"
echo "elapsed_ms=$elapsed_ms" >> "$results/run.info"
echo "run-scenario: $name: claude exit $rc in ${elapsed_ms} ms" >&2

if [[ $rc -eq 0 ]]; then
  node "$here/lib/check.js" "$scenario_file" "$results"
  crc=$?
  if [[ $crc -ne 0 ]]; then
    echo "run-scenario: $name: check FAILED" >&2
    exit 1
  fi
fi
exit "$rc"
