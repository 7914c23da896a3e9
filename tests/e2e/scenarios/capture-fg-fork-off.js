// Foreground probe: CLAUDE_CODE_FORK_SUBAGENT=0 in the environment. In
// 2.1.331 the "fork" subagent gate is what drops run_in_background from the
// Agent schema (and forces every agent into the background) in interactive
// sessions; with the gate off the call asks for run_in_background: false.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-fg-fork Ask roz for a review and wait for it.',
  env: { CLAUDE_CODE_FORK_SUBAGENT: '0' },
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: 'fg-fork-off-done' });
    if (ctx.turn === 0) return [h.agentCall(ctx, { background: false })];
    return h.mainAfter(ctx);
  },
};
