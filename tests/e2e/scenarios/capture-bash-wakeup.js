// Capture: during a review another background task wakes the main agent.
// Turn 0 starts the reviewer in the background (backgroundAgentCall in
// capture/scenario-helpers.js: the default on 2.1.331, asked for on 2.1.197)
// and a background Bash command (run_in_background: true) that finishes
// after the main agent's first Stop. Its completion is a task notification
// of its own: a new turn in which the main agent, the reviewer still
// running, ends its turn again. The reviewer finishes only after that
// second Stop; its notification makes a third turn.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-wake Ask roz for a review and run the build in the background.',
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop', 2)), echo: 'review-after-wakeup-done' });
    if (ctx.turn === 0) {
      return [
        h.backgroundAgentCall(ctx),
        {
          type: 'tool_use',
          name: 'Bash',
          input: {
            command: `${h.waitUntil(h.fired('Stop'), { foregroundGivesUp: false, max: 20 })}; echo build-done`,
            description: 'Build in the background',
            run_in_background: true,
          },
        },
      ];
    }
    if (h.isNotification(ctx) && !h.sinceLastReply(ctx).includes('Roz review')) return 'The build finished; roz is still reviewing.';
    return h.mainAfter(ctx);
  },
};
