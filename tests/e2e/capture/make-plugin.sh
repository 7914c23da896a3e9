#!/usr/bin/env bash
# Generate the throwaway capture plugin (named "roz", like the real one) in
# DIR, which must not exist yet or be empty. Every hook event is registered
# to record-hook.js, which logs its stdin; the agent "roz" (tools Bash, Read)
# lets scenarios spawn the roz:roz subagent, "fg" and "bg" the same with
# `background: false` / `background: true` in their frontmatter.
# usage: make-plugin.sh DIR [VERSION]   (VERSION: the Claude Code release
#        it is for; decides which hook events are registered)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${1:?usage: make-plugin.sh DIR [VERSION]}"
version="${2:-}"
mkdir -p "$dir/.claude-plugin" "$dir/hooks" "$dir/agents"
cp "$here/record-hook.js" "$dir/hooks/record-hook.js"

cat > "$dir/.claude-plugin/plugin.json" <<'JSON'
{
  "name": "roz",
  "version": "0.0.0-capture",
  "description": "Throwaway plugin that records every hook input (roz e2e capture)"
}
JSON

cat > "$dir/agents/roz.md" <<'MD'
---
name: roz
description: Test reviewer used by the roz e2e capture scenarios. Use when asked for a roz review.
tools: Bash, Read
---
You are the roz capture test agent. MARKER_ROZ_CAPTURE_AGENT.
Run the command you are asked to run and report the result.
MD

# The same reviewer with `background:` in its frontmatter, to see whether
# an agent definition can bring a foreground run back (fg) or force a
# background one (bg).
for kind in fg bg; do
  if [[ $kind == fg ]]; then flag=false; else flag=true; fi
  cat > "$dir/agents/$kind.md" <<MD
---
name: $kind
description: Test reviewer with background $flag, used by the roz e2e capture scenarios.
tools: Bash, Read
background: $flag
---
You are the roz capture test agent. MARKER_ROZ_CAPTURE_AGENT.
Run the command you are asked to run and report the result.
MD
done

# Every event Claude Code 2.1.197 knows, plus for VERSION 2.1.331 or later
# those it added (PreModelSwitch, PostModelSwitch, DirectoryAdded): 2.1.197
# drops the whole hooks file when it names an event it does not know.
# WorktreeCreate/WorktreeRemove are left out: a hook there replaces git
# worktree handling.
newer=0
if [[ -n "$version" && "$(printf '%s\n%s\n' 2.1.331 "$version" | sort -V | head -n 1)" == 2.1.331 ]]; then
  newer=1
fi
node - "$dir/hooks/hooks.json" "$newer" <<'JS'
const fs = require('fs');
const events = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PostToolBatch', 'Notification',
  'UserPromptSubmit', 'UserPromptExpansion', 'SessionStart', 'SessionEnd', 'Stop', 'StopFailure',
  'SubagentStart', 'SubagentStop', 'PreCompact', 'PostCompact', 'PermissionRequest', 'PermissionDenied',
  'Setup', 'TeammateIdle', 'TaskCreated', 'TaskCompleted', 'Elicitation', 'ElicitationResult',
  'ConfigChange', 'InstructionsLoaded', 'CwdChanged', 'FileChanged', 'MessageDisplay'];
if (process.argv[3] === '1') events.push('PreModelSwitch', 'PostModelSwitch', 'DirectoryAdded');
const cmd = (label) => ({ type: 'command', command: `node "\${CLAUDE_PLUGIN_ROOT}/hooks/record-hook.js" '${label}'`, timeout: 10 });
const hooks = {};
for (const e of events) hooks[e] = [{ hooks: [cmd(e)] }];
// Matcher probes: which matchers select the Agent tool and the roz:roz agent.
hooks.PreToolUse.push({ matcher: 'Task', hooks: [cmd('PreToolUse[Task]')] });
hooks.PreToolUse.push({ matcher: 'Agent', hooks: [cmd('PreToolUse[Agent]')] });
hooks.PostToolUse.push({ matcher: 'Agent', hooks: [cmd('PostToolUse[Agent]')] });
hooks.SubagentStart.push({ matcher: '^roz:roz$', hooks: [cmd('SubagentStart[^roz:roz$]')] });
hooks.SubagentStop.push({ matcher: '^roz:roz$', hooks: [cmd('SubagentStop[^roz:roz$]')] });
hooks.SubagentStop.push({ matcher: 'roz', hooks: [cmd('SubagentStop[roz]')] });
hooks.SubagentStop.push({ matcher: '^roz$', hooks: [cmd('SubagentStop[^roz$]')] });
fs.writeFileSync(process.argv[2], JSON.stringify({ description: 'roz e2e capture hooks', hooks }, null, 2) + '\n');
JS
echo "$dir"
