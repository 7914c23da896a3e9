// Capture: inside the roz:roz subagent a PreToolUse deny and a SubagentStop
// block (once), to see what the subagent is shown and the SubagentStop input
// with stop_hook_active: true.
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-subblock Ask roz for a review.',
  env: { CAPTURE_DENY_JSON: 'DENY_JSON_MARKER', CAPTURE_SUBAGENT_STOP_BLOCKS: '1' },
  reply(ctx) {
    if (ctx.isSubagent) {
      if (ctx.turn === 0) return [{ type: 'tool_use', name: 'Bash', input: { command: 'echo DENY_JSON_MARKER', description: 'Denied in subagent' } }];
      if (ctx.lastUserText.includes('hook feedback')) return 'Subagent addressed the SubagentStop feedback.';
      return 'Subagent finished.';
    }
    if (ctx.turn === 0) {
      return [{ type: 'tool_use', name: 'Agent', input: { subagent_type: 'roz:roz', description: 'Roz review', prompt: `SESSION_ID=${ctx.sessionId} review` } }];
    }
    return 'Main agent done.';
  },
};
