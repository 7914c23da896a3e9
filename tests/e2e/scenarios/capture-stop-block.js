// Capture: the Stop hook blocks the first Stop ({"decision":"block"}); the
// model is shown the reason, answers again, and the next Stop input has
// stop_hook_active: true.
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-stop Finish the task.',
  env: { CAPTURE_STOP_BLOCKS: '1' },
  reply(ctx) {
    if (ctx.lastUserText.includes('Stop hook feedback')) return 'I addressed the stop hook feedback.';
    return 'Task finished.';
  },
};
