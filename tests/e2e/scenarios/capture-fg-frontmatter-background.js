// Foreground probe: the agent definition says `background: true` (agent
// "bg" of the capture plugin) and the Agent call asks for
// run_in_background: false. Which one wins?
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-fg-bgdef Ask the bg reviewer in the foreground.',
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: 'bg-frontmatter-done' });
    if (ctx.turn === 0) return [h.agentCall(ctx, { type: 'roz:bg', description: 'Roz bg review', background: false })];
    return h.mainAfter(ctx);
  },
};
