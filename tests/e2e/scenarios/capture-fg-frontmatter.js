// Foreground probe: the agent definition says `background: false` (agent
// "fg" of the capture plugin) and the Agent call leaves run_in_background
// out. Does the definition bring a foreground run back?
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-fg-frontmatter Ask the fg reviewer.',
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: 'fg-frontmatter-done' });
    if (ctx.turn === 0) return [h.agentCall(ctx, { type: 'roz:fg', description: 'Roz fg review' })];
    return h.mainAfter(ctx);
  },
};
