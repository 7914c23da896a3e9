// Capture: the main agent calls Agent without run_in_background, as a model
// does when nothing asks for a background run. Where the call comes back
// "Async agent launched" the reviewer waits for the main agent's Stop before
// it finishes, so that Stop lists it in background_tasks and its result
// arrives as a task notification; where it runs in the foreground the
// reviewer does not wait (see capture/scenario-helpers.js).
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-default Ask roz for a review.',
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: 'default-review-done' });
    if (ctx.turn === 0) return [h.agentCall(ctx)];
    return h.mainAfter(ctx);
  },
};
