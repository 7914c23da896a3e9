// Capture: PreToolUse denies two Bash calls, once with the JSON
// permissionDecision "deny" and once with exit status 2; the model sees both
// as error tool_results.
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-deny Run the two commands.',
  env: { CAPTURE_DENY_JSON: 'DENY_JSON_MARKER', CAPTURE_DENY_EXIT2: 'DENY_EXIT2_MARKER' },
  reply(ctx) {
    switch (ctx.turn) {
      case 0: return [{ type: 'tool_use', name: 'Bash', input: { command: 'echo DENY_JSON_MARKER', description: 'Denied by JSON' } }];
      case 1: return [{ type: 'tool_use', name: 'Bash', input: { command: 'echo DENY_EXIT2_MARKER', description: 'Denied by exit 2' } }];
      default: return 'Both commands were denied.';
    }
  },
};
