#!/usr/bin/env bash
# Runs as PID 1 of the fresh network + PID namespaces made by run-scenario.sh
# (unshare --net --pid --fork --mount-proc); everything still running when it
# exits is killed by the kernel.
# Brings loopback up, starts the fake model, runs the scenario's setup (if
# any), runs Claude Code once per prompt (the second and later prompts with
# --resume <session of the first run>), stops the model.
# usage: netns-run.sh E2E_DIR RESULTS SCENARIO_FILE PLUGIN_DIR CLAUDE MODE
set -uo pipefail
here="$1" results="$2" scenario_file="$3" plugin_dir="$4" claude="$5" mode="${6:-print}"

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

mapfile -d '' prompts < "$results/prompts.nul"
mapfile -d '' extra_args < "$results/args.nul"
mapfile -d '' extra_env < "$results/env.nul"
timeout_s="$(cat "$results/timeout")"

# roz's home for this run (config.toml may already be there, see
# scenario-config.js), and for roz scenarios a recording shim named `roz`
# first on PATH: it runs the first other `roz` on PATH and keeps each call's
# arguments, input, output and exit status under roz-calls/ (lib/roz-shim.sh).
roz_home="$results/roz-home"
mkdir -p "$roz_home"
run_path="$PATH"
if [[ "$(cat "$results/record-roz" 2>/dev/null)" == 1 ]]; then
  mkdir -p "$results/bin" "$results/roz-calls"
  cp "$here/lib/roz-shim.sh" "$results/bin/roz" && chmod 755 "$results/bin/roz" || exit 1
  run_path="$results/bin:$PATH"
fi

# A clean environment: only what Claude Code needs plus PATH and ROZ_*.
env_list=(
  "PATH=$run_path"
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
  "ROZ_HOME=$roz_home"
)
while IFS='=' read -r -d '' k v; do
  case "$k" in
    ROZ_E2E_RESULTS | ROZ_E2E_WORK | ROZ_HOME) ;;
    ROZ_*) env_list+=("$k=$v") ;;
  esac
done < <(env -0)
env_list+=("${extra_env[@]}")

plugin_args=()
[[ "$plugin_dir" != none ]] && plugin_args=(--plugin-dir "$plugin_dir")

cd "$results/work" || exit 1

# The scenario's optional setup(env), in the work tree, before Claude Code.
if ! env -i "${env_list[@]}" node "$here/lib/scenario-setup.js" "$scenario_file" "$results" \
    > "$results/setup.log" 2>&1; then
  echo "netns-run: the scenario's setup failed:" >&2
  cat "$results/setup.log" >&2
  exit 1
fi

: > "$results/stream.jsonl"
: > "$results/claude.stderr"
rc=0
if [[ "$mode" == stream-json ]]; then
  # one process; lib/stream-driver.js writes the prompts to its stdin
  timeout -k 5 "$(( timeout_s * ${#prompts[@]} ))" env -i "${env_list[@]}" \
    node "$here/lib/stream-driver.js" "$results" "$claude" "${plugin_args[@]}" "${extra_args[@]}"
  rc=$?
  for ((n = 1; n <= ${#prompts[@]}; n++)); do
    [[ -f "$results/stream.$n.jsonl" ]] || continue
    cat "$results/stream.$n.jsonl" >> "$results/stream.jsonl"
    cat "$results/claude.$n.stderr" >> "$results/claude.stderr"
  done
  [[ $rc -eq 124 ]] && echo "netns-run: Claude Code (stream-json, ${#prompts[@]} prompt(s)) timed out" >&2
  exit "$rc"
fi
if [[ "$mode" == interactive ]]; then
  # the interactive CLI in a terminal that tmux gives it (lib/tmux-driver.sh)
  timeout -k 5 "$(( timeout_s * ${#prompts[@]} ))" \
    "$here/lib/tmux-driver.sh" "$results" "$claude" "${#prompts[@]}" "${env_list[@]}" -- "${plugin_args[@]}" "${extra_args[@]}"
  rc=$?
  cp "$results/screen.txt" "$results/stream.jsonl" 2>/dev/null
  [[ $rc -eq 124 ]] && echo "netns-run: Claude Code (interactive) timed out" >&2
  exit "$rc"
fi
session=""
for i in "${!prompts[@]}"; do
  resume_args=()
  if [[ $i -gt 0 ]]; then
    # the session id Claude Code reported in the first run's init event
    session="$(node -e '
      const fs = require("fs");
      for (const l of fs.readFileSync(process.argv[1], "utf8").split("\n")) {
        try { const e = JSON.parse(l); if (e.type === "system" && e.subtype === "init" && e.session_id) { process.stdout.write(e.session_id); break; } } catch (_) {}
      }' "$results/stream.1.jsonl")"
    if [[ -z "$session" ]]; then
      echo "netns-run: no session id in the first run's stream; cannot resume" >&2
      exit 1
    fi
    resume_args=(--resume "$session")
  fi
  n=$((i + 1))
  echo "$n" > "$results/current-run"
  timeout -k 5 "$timeout_s" env -i "${env_list[@]}" "ROZ_E2E_RUN=$n" \
    "$claude" -p "${prompts[$i]}" "${plugin_args[@]}" "${resume_args[@]}" \
    --output-format stream-json --verbose "${extra_args[@]}" \
    > "$results/stream.$n.jsonl" 2> "$results/claude.$n.stderr" < /dev/null
  rc=$?
  cat "$results/stream.$n.jsonl" >> "$results/stream.jsonl"
  cat "$results/claude.$n.stderr" >> "$results/claude.stderr"
  [[ $rc -eq 124 ]] && echo "netns-run: Claude Code (run $n of ${#prompts[@]}) timed out after ${timeout_s}s" >&2
  [[ $rc -ne 0 ]] && break
done
exit "$rc"
