#!/bin/sh
# session-mix.sh - make bench/session-mix.tsv, the hook calls of an ordinary
# coding session that bench/session.sh replays, from a capture of the real
# Claude Code (the scenario tests/e2e/scenarios/capture-session-mix.js, run
# by the capture harness with every hook event recorded).
#
# usage: bench/session-mix.sh [HOOKS.jsonl]
#   default: tests/e2e/results/capture/<newest>/print/capture-session-mix/hooks.jsonl;
#   make it first with
#   tests/e2e/capture/capture-hooks.sh -m print capture-session-mix
#
# One line per hook event Claude Code fired, in order: the event, what its
# matcher is tested against (the tool name, the agent type, or -), and the
# hook's input as JSON, with the capture's run directory written @RUN@ so the
# replay can put its own there.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
e2e="$here/../tests/e2e"
in=${1:-}
if [ -z "$in" ]; then
	version=$(sed -e 's/#.*//' "$e2e/versions/matrix" | awk 'NF { v = $1 } END { print v }')
	in="$e2e/results/capture/$version/print/capture-session-mix/hooks.jsonl"
fi
[ -f "$in" ] || { echo "session-mix: no capture at $in" >&2; exit 1; }
node - "$in" "$here/session-mix.tsv" <<'EOF'
'use strict';
const fs = require('fs');
const [file, out] = process.argv.slice(2);
const events = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  // the hook that acts, not the capture plugin's extra matcher probes
  .filter((e) => e.label === e.event);
const run = events[0].cwd.replace(/\/work$/, '');
const lines = events.map((e) => {
  const name = e.input.tool_name || e.input.agent_type || '-';
  const json = JSON.stringify(e.input).split(run).join('@RUN@');
  return `${e.event}\t${name}\t${json}`;
});
fs.writeFileSync(out, `${lines.join('\n')}\n`);
const tools = events.filter((e) => e.event === 'PreToolUse').length;
process.stderr.write(`session-mix: ${lines.length} hook events, ${tools} tool calls -> ${out}\n`);
EOF
