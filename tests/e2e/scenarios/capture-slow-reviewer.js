// Capture: a slow reviewer started in the background (backgroundAgentCall in
// capture/scenario-helpers.js: the default on 2.1.331, asked for on 2.1.197).
// The main agent ends its turn while the reviewer works, the Stop hook blocks
// that stop once, the agent ends its turn again (stop_hook_active), and the
// reviewer only finishes 3 s after that second Stop: what the hooks see
// while a reviewer is pending, the feedback wording, how long Claude Code
// keeps the session open for it, and the Stop after the notification.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-slow Ask roz for a review.',
  env: { CAPTURE_STOP_BLOCKS: '1' },
  reply(ctx) {
    if (ctx.isSubagent) {
      return h.reviewer(ctx, { wait: `${h.waitUntil(h.fired('Stop', 2))} && sleep 3`, echo: 'slow-review-done' });
    }
    if (ctx.turn === 0) return [h.backgroundAgentCall(ctx, { description: 'Roz slow review' })];
    return h.mainAfter(ctx);
  },
};
