// Capture: default permission mode (no bypass) and a Bash command that needs
// approval. In -p mode nobody can grant it: the model gets an error
// tool_result ("This command requires approval"); permission_mode shows
// "default". (Observed on 2.1.197: no PermissionRequest, PermissionDenied or
// Notification hook fires for this.)
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-perm Run a command that needs permission.',
  permissionArgs: ['--permission-mode', 'default'],
  reply(ctx) {
    if (ctx.turn === 0) return [{ type: 'tool_use', name: 'Bash', input: { command: 'node -e "console.log(42)"', description: 'Run node (needs approval)' } }];
    return 'Permission was not granted.';
  },
};
