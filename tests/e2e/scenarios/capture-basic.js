// Capture: a plain prompt answered with text (SessionStart, UserPromptSubmit,
// Stop, SessionEnd). Run with the capture plugin (capture/capture-hooks.sh).
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-basic Please just say hello.',
  reply(ctx) {
    return `Hello. I saw session ${ctx.sessionId}.`;
  },
};
