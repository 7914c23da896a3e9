// Capture: two reviewers started together in the background (one assistant
// message, backgroundAgentCall) both finish while the main agent's Stop hook
// runs (it takes 2 s, CAPTURE_DELAY; they wait for it to start), so both
// completions are pending when the main agent next goes idle. Shows whether
// they reach the model and UserPromptSubmit as one turn or two.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-two Ask two roz reviewers at once.',
  env: { CAPTURE_DELAY: 'Stop:2000' },
  reply(ctx) {
    if (ctx.isSubagent) {
      const which = ctx.prompt.includes('one') ? 'one' : 'two';
      return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: `review-${which}-done`, text: `Review ${which} for ${ctx.sessionId}: LGTM.` });
    }
    if (ctx.turn === 0) {
      return [
        h.backgroundAgentCall(ctx, { description: 'Roz review one', prompt: `SESSION_ID=${ctx.sessionId} review one` }),
        h.backgroundAgentCall(ctx, { description: 'Roz review two', prompt: `SESSION_ID=${ctx.sessionId} review two` }),
      ];
    }
    return h.mainAfter(ctx);
  },
};
