// Foreground probe: CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1 in Claude Code's
// environment, Agent call without run_in_background.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-fg-env Ask roz for a review.',
  env: { CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1' },
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: 'fg-env-done' });
    if (ctx.turn === 0) return [h.agentCall(ctx)];
    return h.mainAfter(ctx);
  },
};
