// Capture: Write, Bash, two parallel Bash calls, a failing Bash call.
'use strict';
module.exports = {
  prompt: 'SESSION_ID=cap-tools Write a file, run some commands.',
  reply(ctx) {
    switch (ctx.turn) {
      case 0:
        return [{ type: 'text', text: 'Writing the file.' },
          { type: 'tool_use', name: 'Write', input: { file_path: `${process.env.ROZ_E2E_WORK}/notes.txt`, content: 'captured\n' } }];
      case 1:
        return [{ type: 'tool_use', name: 'Bash', input: { command: 'echo single-bash && cat notes.txt && env | grep -E "^(CLAUDE|PATH=)" | sort', description: 'Print a marker and the environment' } }];
      case 2:
        return [
          { type: 'tool_use', name: 'Bash', input: { command: 'echo parallel-one', description: 'First parallel command' } },
          { type: 'tool_use', name: 'Bash', input: { command: 'echo parallel-two', description: 'Second parallel command' } },
        ];
      case 3:
        return [{ type: 'tool_use', name: 'Bash', input: { command: 'echo failing-bash >&2; exit 3', description: 'A failing command' } }];
      default:
        return 'All done.';
    }
  },
};
