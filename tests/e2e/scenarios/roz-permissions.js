// roz leaves Claude Code's permission checks alone: in
// `--permission-mode default` (no skip-permissions) and with no gates, the
// agent runs commands that need the user's approval (`touch newfile`,
// `git tag v1`). In -p nobody can grant it, so Claude Code refuses them
// (see REFUSAL). roz's PreToolUse must answer {} for
// them: an "allow" would skip Claude Code's check and let them run
// (difference 10). No hook output of the run may contain
// "permissionDecision":"allow".
'use strict';
const fs = require('fs');
const path = require('path');
const t = require('../lib/roz-e2e.js');

const COMMANDS = ['touch newfile', 'git tag v1'];
// Claude Code 2.1.197's refusals: "This command requires approval" (git tag),
// and for touch "touch in '<work>/newfile' was blocked. For security, Claude
// Code may only create or modify files in the allowed working directories
// for this session: '<work>'." (sic: the file is inside that directory);
// 2.1.331's for touch: "touch in '<work>/newfile' needs approval. The path is
// inside the working directories for this session ...".
const REFUSAL = /This command requires approval|was blocked\. For security, Claude Code may only|' needs approval\. The path is inside/;

module.exports = {
  prompt: 'create newfile and tag the release v1',
  permissionArgs: ['--permission-mode', 'default'],
  reply(ctx) {
    if (ctx.isSubagent) return 'unexpected subagent';
    const done = t.allToolUses(ctx).length;
    if (done < COMMANDS.length) return [t.bash(COMMANDS[done], `Step ${done + 1}`)];
    return 'I could not run those commands without approval.';
  },
  check(run) {
    t.expectRunsSucceeded(run);
    const results = t.requests(run, 'main').map((r) => r.ctx.toolResults).flat();
    if (results.length !== COMMANDS.length) t.fail(`the model got ${results.length} tool results, expected ${COMMANDS.length}`);
    results.forEach((r, i) => {
      if (!r.is_error || !REFUSAL.test(r.text)) {
        t.fail(`"${COMMANDS[i]}" was not refused by Claude Code's permission check (is_error=${r.is_error}): ${JSON.stringify(r.text.slice(0, 200))}; did a hook answer "allow"?`);
      }
    });
    if (fs.existsSync(path.join(run.dir, 'work', 'newfile'))) t.fail('newfile exists: `touch newfile` ran without approval');
    const tags = t.git(path.join(run.dir, 'work'), 'tag', '--list').trim();
    if (tags) t.fail(`the work repository has tags [${tags}]: \`git tag v1\` ran without approval`);
    const pre = t.hookCalls(run, 'pre-tool-use').filter((c) => c.input && COMMANDS.includes((c.input.tool_input || {}).command));
    if (pre.length !== COMMANDS.length) t.fail(`roz's PreToolUse ran ${pre.length} times for the ${COMMANDS.length} commands`);
    for (const c of pre) {
      if (c.stdout.trim() !== '{}') t.fail(`roz's PreToolUse answered ${JSON.stringify(c.stdout)} to "${c.input.tool_input.command}", expected {}`);
      if (c.input.permission_mode !== 'default') t.fail(`permission_mode in the hook input is ${c.input.permission_mode}, expected default`);
    }
    const allows = run.rozCalls.filter((c) => /"permissionDecision"\s*:\s*"allow"/.test(c.stdout));
    if (allows.length) t.fail(`roz answered "allow" (${allows.map((c) => c.args.join(' ')).join('; ')})`);
    const streamAllows = run.stream.filter((e) => e.type === 'system' && /"permissionDecision\\?"\s*:\s*\\?"allow/.test(JSON.stringify(e)));
    if (streamAllows.length) t.fail(`a hook output in stream.jsonl contains permissionDecision allow: ${JSON.stringify(streamAllows[0]).slice(0, 200)}`);
    const denials = (run.stream.find((e) => e.type === 'result') || {}).permission_denials || [];
    if (denials.length !== COMMANDS.length) t.note(`note: the result lists ${denials.length} permission_denials`);
    t.commonChecks(run);
  },
};
