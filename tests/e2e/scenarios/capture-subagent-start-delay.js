// Capture: the SubagentStart hook takes 1.5 s (CAPTURE_DELAY). Shows whether
// Claude Code waits for it before the reviewer's first model request, before
// the Agent call's PostToolUse and before the main agent goes on, for a
// reviewer started in the background (backgroundAgentCall).
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-start Ask roz for a review.',
  env: { CAPTURE_DELAY: 'SubagentStart:1500' },
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: 'delayed-start-review-done' });
    if (ctx.turn === 0) return [h.backgroundAgentCall(ctx)];
    return h.mainAfter(ctx);
  },
};
