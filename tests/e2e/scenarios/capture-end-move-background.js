// Capture (interactive only): like capture-end-with-reviewer, but at the
// "Background work is running" question /exit raises, the driver picks
// "2. Move to background and exit" and the namespace lives 15 s longer.
// Shows whether the session goes on without a terminal: the reviewer's
// SubagentStop, its notification turn and Stop, and when SessionEnd comes.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-detach Ask roz for a review, then stop.',
  env: { ROZ_E2E_TMUX_EXIT_EARLY: '2', ROZ_E2E_TMUX_LINGER: '15' },
  timeout: 50,
  reply(ctx) {
    if (ctx.isSubagent) {
      return h.reviewer(ctx, { wait: `${h.waitUntil(h.fired('SessionEnd'), { max: 6 })}`, echo: 'detached-review-done' });
    }
    if (ctx.turn === 0) return [h.backgroundAgentCall(ctx, { description: 'Roz detached review' })];
    return h.mainAfter(ctx);
  },
};
