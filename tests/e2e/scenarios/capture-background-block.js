// Capture: like capture-background, but the Stop hook blocks the first Stop
// while the background roz:roz subagent is still running. The subagent waits
// until the main agent's second Stop hook has run, so both Stop inputs list
// the running task; its completion then arrives as a <task-notification>.
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-bgblock Ask roz for a review in the background.',
  env: { CAPTURE_STOP_BLOCKS: '1' },
  reply(ctx) {
    if (ctx.isSubagent) {
      if (ctx.turn === 0) {
        return [{
          type: 'tool_use',
          name: 'Bash',
          input: {
            command: 'for i in $(seq 1 200); do [ "$(cat "$ROZ_E2E_RESULTS/hook-count-Stop" 2>/dev/null)" -ge 2 ] 2>/dev/null && break; sleep 0.1; done; echo background-subagent-done',
            description: 'Wait for the main agent to stop twice',
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
    if (ctx.lastUserText.includes('Stop hook feedback')) return 'Still waiting for the background review.';
    return 'I started roz in the background and will stop now.';
  },
};
