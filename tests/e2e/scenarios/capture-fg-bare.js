// Foreground probe: `--bare` (the minimal mode: no hooks, plugins or
// CLAUDE.md unless given explicitly), Agent call without run_in_background.
// The hooks may not run at all; the request log still shows the Agent schema
// and whether the call came back at once.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-fg-bare Ask an agent for a review.',
  args: ['--bare'],
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { echo: 'fg-bare-done' });
    if (ctx.turn === 0) return [h.agentCall(ctx, { type: ctx.seen('roz:roz') ? 'roz:roz' : 'general-purpose' })];
    return h.mainAfter(ctx);
  },
};
