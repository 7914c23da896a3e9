// Foreground probe: CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1 set where a user
// would set it once, in the `env` of ~/.claude/settings.json, not in the
// environment Claude Code starts with. Agent call without run_in_background.
'use strict';
const fs = require('fs');
const path = require('path');
const h = require('../capture/scenario-helpers.js');

module.exports = {
  prompt: 'SESSION_ID=cap-fg-settings Ask roz for a review.',
  setup({ dir }) {
    const claudeDir = path.join(dir, 'home', '.claude');
    fs.mkdirSync(claudeDir, { recursive: true });
    fs.writeFileSync(path.join(claudeDir, 'settings.json'),
      `${JSON.stringify({ env: { CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1' } }, null, 2)}\n`);
  },
  reply(ctx) {
    if (ctx.isSubagent) return h.reviewer(ctx, { wait: h.waitUntil(h.fired('Stop')), echo: 'fg-settings-done' });
    if (ctx.turn === 0) return [h.agentCall(ctx)];
    return h.mainAfter(ctx);
  },
};
