#!/usr/bin/env bash
# Drives the interactive Claude Code (no -p) in a tmux terminal, as a person
# would: waits for the input box, types each prompt of RESULTS/prompts.nul
# and Enter, waits until the screen is idle (no spinner, no background agent
# being waited for, nothing changing for 2 s), and finally types /exit.
# Used to capture what hooks receive in an interactive session; the screens
# are kept in RESULTS/screen.<n>.txt and the last one in screen.txt.
# usage: tmux-driver.sh RESULTS CLAUDE NPROMPTS ENV... -- ARG...
set -uo pipefail
results="$1" claude="$2" nprompts="$3"
shift 3
env_list=()
while [[ $# -gt 0 && "$1" != -- ]]; do env_list+=("$1"); shift; done
shift
args=("$@")
mapfile -d '' prompts < "$results/prompts.nul"

home=""
for kv in "${env_list[@]}"; do [[ "$kv" == HOME=* ]] && home="${kv#HOME=}"; done
work="$results/work"
# A first start asks about the theme, the API key, the folder's trust and
# the permission mode; a person answered those long ago.
key_tail="sk-ant-e2e-fake-key"
node -e '
  const fs = require("fs");
  const [file, work, key] = process.argv.slice(1);
  fs.writeFileSync(file, JSON.stringify({
    hasCompletedOnboarding: true, theme: "dark", bypassPermissionsModeAccepted: true,
    customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
    projects: { [work]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  }));' "$home/.claude.json" "$work" "$key_tail"

sock="$results/tmux.sock"
tm() { tmux -S "$sock" "$@"; }
cmd=$(printf '%q ' env -i "${env_list[@]}" "ROZ_E2E_RUN=1" "$claude" "${args[@]}")
tm new-session -d -s cc -x 160 -y 50 -c "$work" "$cmd; echo CLAUDE-EXITED \$?; sleep 30" || exit 1

screen() { tm capture-pane -p -t cc -S -200; }
wait_idle() { # until no spinner or waiting line and the screen is still for 2 s
  local last="" now same=0
  for _ in $(seq 1 600); do
    sleep 0.25
    now="$(screen)"
    printf '%s\n' "$now" > "$results/screen.live.txt"
    # the status line sits just above the input box; what scrolled up is history
    if [[ "$now" == "$last" ]] && ! grep -v '^[[:space:]]*$' <<< "$now" | tail -n 6 |
        grep -qE 'esc to interrupt|Waiting for [0-9]+ background|Running…|running stop hook'; then
      same=$((same + 1))
      [[ $same -ge 8 ]] && return 0
    else
      same=0
    fi
    last="$now"
    grep -q CLAUDE-EXITED <<< "$now" && return 0
  done
  return 1
}

wait_idle
for ((i = 0; i < nprompts; i++)); do
  n=$((i + 1))
  echo "$n" > "$results/current-run"
  tm send-keys -t cc -l -- "${prompts[$i]}"
  sleep 0.3
  tm send-keys -t cc Enter
  sleep 1
  wait_idle || echo "tmux-driver: the screen never went idle after prompt $n" >&2
  screen > "$results/screen.$n.txt"
done
tm send-keys -t cc -l -- "/exit"
sleep 0.3
tm send-keys -t cc Enter
rc=1
for _ in $(seq 1 40); do
  sleep 0.25
  if s="$(screen)" && grep -q 'CLAUDE-EXITED' <<< "$s"; then
    rc="$(grep -o 'CLAUDE-EXITED [0-9]*' <<< "$s" | tail -n 1 | cut -d' ' -f2)"
    break
  fi
done
screen > "$results/screen.txt"
tm kill-server 2>/dev/null
exit "$rc"
