// Capture: the main agent starts roz:roz in the background
// (run_in_background: true) and tries to stop while it still runs. The
// subagent's Bash command waits until the main agent's first Stop hook has
// run, so the Stop input is guaranteed to list the running task; the
// completion then arrives as a <task-notification> user message.
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-bg Ask roz for a review in the background.',
  reply(ctx) {
    if (ctx.isSubagent) {
      if (ctx.turn === 0) {
        return [{
          type: 'tool_use',
          name: 'Bash',
          input: {
            command: 'for i in $(seq 1 200); do [ -e "$ROZ_E2E_RESULTS/hook-count-Stop" ] && break; sleep 0.1; done; echo background-subagent-done',
            description: 'Wait for the main agent to stop',
          },
        }];
      }
      return `Background review for ${ctx.sessionId}: LGTM.`;
    }
    if (ctx.turn === 0) {
      return [{
        type: 'tool_use',
        name: 'Agent',
        input: { subagent_type: 'roz:roz', description: 'Roz background review', prompt: `SESSION_ID=${ctx.sessionId} review`, run_in_background: true },
      }];
    }
    if (ctx.lastUserText.includes('<task-notification>')) return 'The background roz review has reported back.';
    return 'I started roz in the background and will stop now.';
  },
};
