#!/usr/bin/env bash
# Drives the interactive Claude Code (no -p) in a tmux terminal, as a person
# would: waits for the input box, types each prompt of RESULTS/prompts.nul
# and Enter, waits until the screen is idle (no spinner, no background agent
# being waited for, nothing changing for 2 s), and finally types /exit.
# Used to capture what hooks receive in an interactive session; the screens
# are kept in RESULTS/screen.<n>.txt and the last one in screen.txt.
# With ROZ_E2E_TMUX_EXIT_EARLY=N among the ENV entries (a scenario's `env`)
# a background agent still running does not count as busy: /exit is typed
# as soon as the main agent's turn is over, to see how a session ends with
# a reviewer at work. 2.1.331 then asks "Background work is running" with
# 1. Exit and stop tasks, 2. Move to background and exit, 3. Stay; the
# driver picks option N (screen.exit.txt keeps that screen) and afterwards
# lets the namespace live ROZ_E2E_TMUX_LINGER seconds (default 0) more, so
# whatever carries on in the background can still be recorded.
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
exit_early=0
linger=0
for kv in "${env_list[@]}"; do
  case "$kv" in
    HOME=*) home="${kv#HOME=}" ;;
    ROZ_E2E_TMUX_EXIT_EARLY=[1-3]) exit_early="${kv#*=}" ;;
    ROZ_E2E_TMUX_LINGER=[0-9]*) linger="${kv#*=}" ;;
  esac
done
busy='esc to interrupt|Waiting for [0-9]+ background|Running…|running stop hook'
# Lines that change while background agents run (their spinner and
# counters) are left out of the comparison when those do not count as busy.
steady() { if [[ $exit_early != 0 ]]; then grep -vE 'Waiting for [0-9]+ background|background agent|[0-9]+s · ↓'; else cat; fi; }
[[ $exit_early != 0 ]] && busy='esc to interrupt|Running…|running stop hook'
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
    raw="$(screen)"
    printf '%s\n' "$raw" > "$results/screen.live.txt"
    now="$(steady <<< "$raw")"
    # the status line sits just above the input box; what scrolled up is history
    if [[ "$now" == "$last" ]] && ! grep -v '^[[:space:]]*$' <<< "$now" | tail -n 6 |
        grep -qE "$busy"; then
      same=$((same + 1))
      [[ $same -ge 8 ]] && return 0
    else
      same=0
    fi
    last="$now"
    grep -q CLAUDE-EXITED <<< "$raw" && return 0
  done
  return 1
}

# Type a line and press Enter. Enter goes only once the input box shows the
# end of the text and half a second has passed: an Enter that arrives with
# the text is taken as part of a paste (2.1.197 then puts a carriage return
# into the prompt and submits nothing).
type_line() {
  local text="$1" tail="${1: -12}"
  tm send-keys -t cc -l -- "$text"
  for _ in $(seq 1 50); do
    grep -qF -- "$tail" <<< "$(screen | tail -n 8)" && break
    sleep 0.1
  done
  sleep 0.5
  tm send-keys -t cc Enter
}

wait_idle
for ((i = 0; i < nprompts; i++)); do
  n=$((i + 1))
  echo "$n" > "$results/current-run"
  type_line "${prompts[$i]}"
  sleep 1
  wait_idle || echo "tmux-driver: the screen never went idle after prompt $n" >&2
  screen > "$results/screen.$n.txt"
done
type_line /exit
rc=1
asked=0
for _ in $(seq 1 60); do
  sleep 0.25
  s="$(screen)"
  if [[ $exit_early != 0 && $asked == 0 ]] && grep -q 'Background work is running' <<< "$s"; then
    printf '%s\n' "$s" > "$results/screen.exit.txt"
    tm send-keys -t cc "$exit_early"
    sleep 0.5
    grep -q 'Enter to confirm' <<< "$(screen)" && tm send-keys -t cc Enter
    asked=1
  fi
  if grep -q 'CLAUDE-EXITED' <<< "$s"; then
    rc="$(grep -o 'CLAUDE-EXITED [0-9]*' <<< "$s" | tail -n 1 | cut -d' ' -f2)"
    break
  fi
done
[[ $linger -gt 0 ]] && sleep "$linger"
screen > "$results/screen.txt"
tm kill-server 2>/dev/null
exit "$rc"
