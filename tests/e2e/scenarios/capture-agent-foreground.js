// Capture: the main agent asks for a foreground reviewer with
// run_in_background: false (what the 2.1.331 schema tells a model to do when
// its very next action depends on the result). Whether Claude Code honours
// it shows in the Agent tool result and in the hook order.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-fg Ask roz for a review and wait for it.',
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: 'foreground-review-done' });
    if (ctx.turn === 0) return [h.agentCall(ctx, { background: false })];
    return h.mainAfter(ctx);
  },
};
