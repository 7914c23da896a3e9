// Capture: the session ends while a background reviewer still works. The
// reviewer waits (at most 12 s) for SessionEnd. In -p Claude Code decides
// itself when to end; in interactive mode the tmux driver types /exit as soon
// as the main agent's turn is over (ROZ_E2E_TMUX_EXIT_EARLY); in stream-json
// the driver closes stdin once no background task runs. Shows whether
// SubagentStop fires, whether the notification still comes and what
// SessionEnd says.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-end Ask roz for a review, then stop.',
  env: { ROZ_E2E_TMUX_EXIT_EARLY: '1' },
  timeout: 40,
  reply(ctx) {
    if (ctx.isSubagent) {
      return h.reviewer(ctx, { wait: h.waitUntil(h.fired('SessionEnd'), { max: 12 }), echo: 'late-review-done' });
    }
    if (ctx.turn === 0) return [h.backgroundAgentCall(ctx, { description: 'Roz late review' })];
    return h.mainAfter(ctx);
  },
};
