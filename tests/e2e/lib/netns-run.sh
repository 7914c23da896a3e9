#!/usr/bin/env bash
# Runs as PID 1 of the fresh network + PID namespaces made by run-scenario.sh
# (unshare --net --pid --fork --mount-proc); everything still running when it
# exits is killed by the kernel.
# Brings loopback up, starts the fake model, runs Claude Code, stops the model.
# usage: netns-run.sh E2E_DIR RESULTS SCENARIO_FILE PLUGIN_DIR CLAUDE
set -uo pipefail
here="$1" results="$2" scenario_file="$3" plugin_dir="$4" claude="$5"

ip link set lo up || { echo "netns-run: cannot bring lo up" >&2; exit 1; }
# Only loopback may exist in this namespace.
if ip -o link show | awk -F': ' '{print $2}' | grep -qv '^lo$'; then
  echo "netns-run: unexpected network interface in the namespace; refusing to run" >&2
  ip -o link show >&2
  exit 1
fi

ROZ_E2E_RESULTS="$results" ROZ_E2E_WORK="$results/work" \
  node "$here/fake-model.js" --script "$scenario_file" --log "$results/model.jsonl" \
  --port 0 --port-file "$results/port" 2> "$results/fake-model.stderr" &
model_pid=$!
stop_model() { kill "$model_pid" 2>/dev/null; wait "$model_pid" 2>/dev/null; }
trap stop_model EXIT

# wait (up to ~10 s) for the server to publish its port
for _ in $(seq 1 200); do
  [[ -s "$results/port" ]] && break
  kill -0 "$model_pid" 2>/dev/null || break
  sleep 0.05
done
if [[ ! -s "$results/port" ]]; then
  echo "netns-run: fake model did not start" >&2
  cat "$results/fake-model.stderr" >&2
  exit 1
fi
port="$(cat "$results/port")"

prompt="$(cat "$results/prompt.txt")"
mapfile -d '' extra_args < "$results/args.nul"
mapfile -d '' extra_env < "$results/env.nul"
timeout_s="$(cat "$results/timeout")"

# A clean environment: only what Claude Code needs plus PATH and ROZ_*.
env_list=(
  "PATH=$PATH"
  "HOME=$results/home"
  "TERM=dumb"
  "LANG=C.UTF-8"
  "USER=${USER:-root}"
  "SHELL=/bin/bash"
  "TMPDIR=$results/tmp"
  "CLAUDE_CODE_TMPDIR=$results/tmp"
  "ANTHROPIC_BASE_URL=http://127.0.0.1:$port"
  "ANTHROPIC_API_KEY=sk-ant-e2e-fake-key"
  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
  "DISABLE_TELEMETRY=1"
  "DISABLE_AUTOUPDATER=1"
  "DISABLE_ERROR_REPORTING=1"
  "IS_SANDBOX=1"
  "ROZ_E2E_RESULTS=$results"
  "ROZ_E2E_WORK=$results/work"
)
while IFS='=' read -r -d '' k v; do
  [[ "$k" == ROZ_* && "$k" != ROZ_E2E_RESULTS && "$k" != ROZ_E2E_WORK ]] && env_list+=("$k=$v")
done < <(env -0)
env_list+=("${extra_env[@]}")

plugin_args=()
[[ "$plugin_dir" != none ]] && plugin_args=(--plugin-dir "$plugin_dir")

cd "$results/work" || exit 1
timeout -k 5 "$timeout_s" env -i "${env_list[@]}" \
  "$claude" -p "$prompt" "${plugin_args[@]}" \
  --output-format stream-json --verbose "${extra_args[@]}" \
  > "$results/stream.jsonl" 2> "$results/claude.stderr" < /dev/null
rc=$?
[[ $rc -eq 124 ]] && echo "netns-run: Claude Code timed out after ${timeout_s}s" >&2
exit "$rc"
