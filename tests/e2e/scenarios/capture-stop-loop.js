// Capture: the Stop hook blocks every Stop, to count how many blocks in a row
// Claude Code feeds back to the model before it gives up.
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-loop Finish the task.',
  env: { CAPTURE_STOP_BLOCKS: '100' },
  reply(ctx) {
    return `Stopping again (reply ${ctx.turn}).`;
  },
};
