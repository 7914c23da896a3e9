// Capture: two reviewers started together in the background (one assistant
// message, backgroundAgentCall) finish while the main agent is busy in a
// foreground Bash command that waits for both SubagentStop hooks. Shows how
// a notification reaches a main agent that is at work (2.1.331: a message
// with role "system" after the tool result), whether UserPromptSubmit fires
// for it, and what the Stop after that turn sees.
'use strict';
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-midturn Ask two roz reviewers at once.',
  reply(ctx) {
    if (ctx.isSubagent) {
      const which = ctx.prompt.includes('one') ? 'one' : 'two';
      return h.reviewer(ctx, { echo: `review-${which}-done`, text: `Review ${which} for ${ctx.sessionId}: LGTM.` });
    }
    if (ctx.turn === 0) {
      return [
        h.backgroundAgentCall(ctx, { description: 'Roz review one', prompt: `SESSION_ID=${ctx.sessionId} review one` }),
        h.backgroundAgentCall(ctx, { description: 'Roz review two', prompt: `SESSION_ID=${ctx.sessionId} review two` }),
      ];
    }
    if (ctx.turn === 1) {
      return [{
        type: 'tool_use',
        name: 'Bash',
        input: {
          command: `${h.waitUntil(h.fired('SubagentStop', 2), { foregroundGivesUp: false, max: 20 })}; sleep 1; echo both-reviewers-stopped`,
          description: 'Work while both reviewers finish',
        },
      }];
    }
    return h.mainAfter(ctx);
  },
};
