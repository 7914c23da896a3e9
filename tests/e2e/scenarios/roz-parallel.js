// roz under parallel tool calls: one model reply with six Bash tool_use
// blocks of read-only commands while a #roz review is in progress. Claude
// Code runs their PreToolUse hooks (so six `roz hook pre-tool-use`
// processes) at about the same time.
//
// This file: a gate that matches none of them (`Bash:git push*`): all six
// run, roz answers {} to each, the session file stays valid and the trace
// has exactly the events expected. roz-parallel-gated.js reuses this with a
// gate matching three of them (`Bash:git status*`).
'use strict';
const t = require('../lib/roz-e2e.js');

const COMMANDS = [
  { command: 'ls', expect: 'README.md', gated: false },
  { command: 'cat README.md', expect: 'hello from the roz e2e work tree', gated: false },
  { command: 'git status', expect: 'On branch main', gated: true },
  { command: 'git status --short --branch', expect: '## main', gated: true },
  { command: 'git status --porcelain=v2 --branch', expect: '# branch.head main', gated: true },
  { command: 'git log --oneline', expect: 'initial commit', gated: false },
];

function make({ gate, gated }) {
  return {
    prompt: '#roz look around the repository',
    rozConfig: `[review.gates]\ntools = ["${gate}"]\n`,
    reply(ctx) {
      if (t.isReviewer(ctx)) return t.reviewer(ctx);
      if (ctx.isSubagent) return 'unexpected subagent';
      if (ctx.turn === 0) return COMMANDS.map((c, i) => t.bash(c.command, `Look around ${i + 1}`));
      const wait = t.waitForReviewer(ctx);
      if (wait) return wait;
      const denied = ctx.toolResults.some((r) => r.is_error && r.text.includes(t.GATE_MARK));
      if ((denied || t.isFeedback(ctx)) && t.sidOf(ctx)) {
        return t.spawnReviewerOnce(ctx, t.sidOf(ctx), { round: t.agentCalls(ctx).length + 1, what: 'look around' });
      }
      return 'I looked around.';
    },
    check(run) {
      t.expectRunsSucceeded(run);
      const sid = t.mainSessionId(run);
      const main = t.requests(run, 'main');
      if (main.length < 2) t.fail('the main agent made fewer than two requests');
      const first = main[0].entry.response.content.filter((b) => b.type === 'tool_use');
      const results = main[1].ctx.toolResults;
      if (results.length !== 6) t.fail(`the model got ${results.length} tool results for its 6 parallel calls`);
      COMMANDS.forEach((c, i) => {
        const r = results.find((x) => x.tool_use_id === first[i].id);
        if (!r) t.fail(`no tool result for "${c.command}"`);
        if (gated && c.gated) {
          if (!r.is_error || !r.text.includes(t.GATE_MARK)) t.fail(`"${c.command}" matches ${gate} but was not denied by roz: ${JSON.stringify(r.text.slice(0, 200))}`);
        } else if (r.is_error || !r.text.includes(c.expect)) {
          t.fail(`"${c.command}" did not run normally: is_error=${r.is_error} ${JSON.stringify(r.text.slice(0, 200))}`);
        }
      });
      // roz's PreToolUse answers for the six calls
      const pre = t.hookCalls(run, 'pre-tool-use').filter((c) => !t.inSubagent(c) && c.input &&
        COMMANDS.some((x) => x.command === (c.input.tool_input || {}).command));
      if (pre.length !== 6) t.fail(`roz's PreToolUse ran ${pre.length} times for the 6 parallel calls`);
      for (const c of pre) {
        const cmd = COMMANDS.find((x) => x.command === c.input.tool_input.command);
        const want = gated && cmd.gated ? 'deny' : 'allow';
        if (t.answerOf(c) !== want) t.fail(`roz answered ${t.answerOf(c)} to "${cmd.command}", expected ${want}`);
      }
      const overlap = pre.filter((a) => pre.some((b) => b !== a && b.start < a.end && a.start < b.end)).length;
      t.note(`parallel PreToolUse hooks: ${overlap} of 6 overlapped in time with another`);

      const s = t.loadSession(run, sid); // fails if not valid JSON
      const m = t.metrics(run);
      const waits = Array(m.waits).fill('allow');
      if (gated) {
        t.expectTrace(s, { session_start: 1, prompt_received: 1, gate_blocked: 3, gate_allowed: 0, roz_decision: 1, stop_hook_called: 1 + m.waits, session_end: 1 });
        const tools = s.trace.filter((e) => e.event_type === 'gate_blocked').map((e) => e.payload.tool).sort();
        const want = COMMANDS.filter((c) => c.gated).map((c) => `Bash:${c.command}`).sort();
        if (JSON.stringify(tools) !== JSON.stringify(want)) t.fail(`gate_blocked events for [${tools.join(', ')}], expected [${want.join(', ')}]`);
        t.expectAnswers(run, 'stop', [...waits, 'allow'], 'no stop blocked: the gate asked for the review');
      } else {
        t.expectTrace(s, { session_start: 1, prompt_received: 1, gate_blocked: 0, roz_decision: 1, stop_hook_called: 2 + m.waits, session_end: 1 });
        t.expectAnswers(run, 'stop', ['block', ...waits, 'allow'], 'review required, then approved');
      }
      if (s.review.decision.type !== 'complete') t.fail(`final decision ${s.review.decision.type}, expected complete`);
      t.commonChecks(run);
    },
  };
}

module.exports = { ...make({ gate: 'Bash:git push*', gated: false }), make };
