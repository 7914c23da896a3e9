// Capture: the main agent spawns the roz:roz subagent (foreground) with the
// Agent tool; the subagent runs one Bash command and finishes.
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-sub Ask roz for a review.',
  reply(ctx) {
    if (ctx.isSubagent) {
      if (!ctx.systemHas('MARKER_ROZ_CAPTURE_AGENT')) return 'unexpected subagent';
      if (ctx.turn === 0) {
        return [{ type: 'tool_use', name: 'Bash', input: { command: `echo subagent-bash ${ctx.sessionId} && env | grep -E '^(CLAUDE|PATH=)' | sort`, description: 'Subagent command' } }];
      }
      return `Review for ${ctx.sessionId}: LGTM.`;
    }
    if (ctx.turn === 0) {
      return [{ type: 'tool_use', name: 'Agent', input: { subagent_type: 'roz:roz', description: 'Roz review', prompt: `SESSION_ID=${ctx.sessionId} review` } }];
    }
    return 'The roz review is finished.';
  },
};
